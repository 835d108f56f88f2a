"""How good are the app's time estimates? Estimated vs measured seconds for sweeps the rates file was
not measured on (other n, other grids, grid growth on), one process, wahba2d. The goal (issue 21):
measured ÷ estimated within [0.5, 2] in every case. With grid growth on, the estimate includes one
growth step toward small λ (``svmcore.timing.sweep_estimate``); the last column says how many
points the grid grew by.

The build machine's rates are read scaled to this machine's speed, per solver, as in the app
(``svmcore.timing.machine_speed``; the factors are printed first). ``--uncalibrated`` reads them as
they are, to see what the scaling does. ``--app-workers`` runs each sweep as the app does
(``n_jobs=None``: worker processes when the estimate in one process reaches
``svmcore.grid.PARALLEL_FROM_SECONDS``) against the app's estimate, which counts those workers
(``svmcore.timing.on_workers``) and, while no earlier sweep's workers are up, starting them
(``svmcore.timing.worker_start``, the column "start"); the column "workers" says how many processes
ran it. Either way the estimate includes compiling or loading the path's loop where the sweep will
(``svmcore.timing.first_use``: a process's first path of ``COMPILED_FROM_N`` points or more loads it
from numba's cache), the column "first".

The soft family (penalized likelihood; the CLI's ``--model logistic``) follows in one process:
its sweeps against ``svmcore.timing.sweep_estimate`` on grids, n and criteria its rates were not
measured on (``SOFT_CASES``).

    OMP_NUM_THREADS=1 PYTHONPATH=. python bench/estimate_accuracy.py [--uncalibrated] [--app-workers]
"""
from __future__ import annotations

import argparse
import time

import svmapp.estimate as E
from svmapp import settings as S
from svmapp.estimate import estimates
from svmcore.families.svm.fit import choose_solver
from svmcore.timing import RateBook, first_use_seconds

CASES = [  # (solver, n, lam, sig, extra criteria, other settings)
    ("auto", 150, "-20:8:2", "-3:3:1", [], {}),
    ("auto", 300, "-20:8:2", "-3:3:1", [], {}),
    ("auto", 250, "-16:4:2", "-2:2:1", ["cv"], {}),
    ("auto", 120, "-12:4:4", "-1:1:1", ["loo"], {}),
    ("cvxopt", 150, "-16:4:4", "-2:2:1", [], {}),
    ("cvxopt", 600, "-16:4:4", "-2:2:1", [], {}),
    ("libsvm", 150, "-12:4:4", "-1:1:1", [], {}),
    ("libsvm", 300, "-6:6:2", "-2:2:2", [], {}),
    ("auto", 200, "-20:8:2", "-3:3:1", [], {"extend_grid": True}),                  # the app's default
    ("auto", 200, "-20:8:2", "-3:3:1", [], {"extend_grid": True, "cost_b": 4.5}),   # the slow corner
    ("auto", 600, "-20:8:2", "-3:3:1", [], {"extend_grid": True}),
    ("auto", 1000, "-25:0:1", "-3:3:0.5", [], {}),                                   # the paper grid
]

SOFT_CASES = [  # (n, lam, sig, criteria (None: the family's defaults), other settings)
    (150, "-16:4:2", "-2:2:1", None, {}),
    (300, "-25:0:1", "-3:3:0.5", None, {}),                      # the CLI's default grid
    (300, "-16:4:4", "-2:2:1", ["gacv", "cv_deviance"], {}),
    (600, "-20:8:2", "-3:3:1", ["rangacv", "ckl"], {}),          # no exact traces: cheaper
    (200, "-14:2:2", "-1:3:1", None, {"extend_grid": True}),
    (1200, "-25:0:1", "-3:3:0.5", None, {}),
]


def soft_rows(ratios: list) -> None:
    """The soft family's cases: estimated (``sweep_estimate``'s total) against measured seconds,
    one process."""
    from svmcore.datasets.simulations import make_simulation
    from svmcore.grid import run_grid
    from svmcore.spec import make_spec
    from svmcore.timing import sweep_estimate

    print("soft family (one process):")
    for n, lam, sig, crit, other in SOFT_CASES:
        spec = make_spec("logistic", data={"source": "simulation", "name": "wahba2d", "n": n},
                         log2_nlambda=lam, log2_sigma=sig, criteria=crit or [], **other)
        est = sweep_estimate(spec, n, E.rate_book()).total
        data = make_simulation("wahba2d", n, 0)
        t0 = time.perf_counter()
        res = run_grid(spec, data, n_jobs=1)
        sec = time.perf_counter() - t0
        what = ",".join((crit or ["defaults"]) + [f"{k}={v}" for k, v in other.items()])
        ratios.append(sec / est)
        print(f"{'soft':7s} {n:5d} {lam + ' x ' + sig:>18s} {what[:11]:>11s} {est:9.2f} {sec:9.2f} "
              f"{sec / est:6.2f} {len(res.table) - spec.grid.size:7d}", flush=True)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--uncalibrated", action="store_true",
                    help="the build machine's rates as they are, not scaled to this machine")
    ap.add_argument("--app-workers", action="store_true",
                    help="run as the app does (worker processes from the 1 s bar), not in one process")
    args = ap.parse_args(argv)
    if args.uncalibrated:
        book = RateBook.baseline(calibrate=False)
        E.rate_book = lambda: book
    book = E.rate_book()
    speeds = {solver: book.speed_of(solver) for solver in ("path", "libsvm", "cvxopt", "newton")}
    print("this machine's seconds ÷ the build machine's on each reference problem: "
          + ", ".join(f"{k} {'-' if v is None else f'{v:.2f}'}" for k, v in speeds.items()))
    print(f"{'solver':7s} {'n':>5s} {'grid':>18s} {'extra':>11s} {'estimated':>9s} {'measured':>9s} "
          f"{'ratio':>6s} {'grew by':>7s} {'workers':>7s} {'start':>5s} {'first':>5s}")
    ratios = []
    for solver, n, lam, sig, extra, other in CASES:
        s = S.settings_from({"n": n, "log2_nlambda": lam, "log2_sigma": sig, "solver": solver,
                             "extend_grid": False, "criteria": list(S.DEFAULTS["criteria"]) + extra,
                             **other})
        app = estimates(s)
        first = app["compile"] if args.app_workers else first_use_seconds(
            choose_solver(solver, n), n, workers=1)
        est = app["total"] if args.app_workers else app["one_process"] + first
        start = app["start"] if args.app_workers else 0.0
        loaded = S.load_data(s)
        t0 = time.perf_counter()
        res = S.run(s, loaded, n_jobs=None if args.app_workers else 1)
        sec = time.perf_counter() - t0
        what = ",".join(extra + [f"{k}={v}" for k, v in other.items()]) or "-"
        ratios.append(sec / est)
        print(f"{solver:7s} {n:5d} {lam + ' x ' + sig:>18s} {what[:11]:>11s} {est:9.2f} {sec:9.2f} "
              f"{sec / est:6.2f} {len(res.table) - S.grid_for(s).size:7d} {res.workers:7d} {start:5.1f} "
              f"{first:5.1f}",
              flush=True)
    soft_rows(ratios)
    print(f"measured ÷ estimated: {min(ratios):.2f} … {max(ratios):.2f}")


if __name__ == "__main__":
    main()
