"""Measure the SVM's and the soft family's sweep cost on this machine, per solver, workload and n
(``svmcore.timing``).

Writes ``svmcore/data/rates.json``, the app's and the CLI's starting point for time estimates
(``svmcore.timing.RateBook``); the app then adds every sweep it runs. wahba2d, one process.

* path: seconds per σ column, on the app's default grid (log2 nλ −20…8 step 2, log2 σ −3…3 step 1),
  at n = 100 … 1600 with 500 among them: from 500 points the path crosses its events in the
  compiled loop (``COMPILED_FROM_N``), so the cost per column steps down there. The in-sample
  workload also at n = 3000, 5000 and 10,000 (``--insample-ns``, about 45 minutes): the cost per
  column does not follow one power of n from 1,600 points (elbows pass the compiled loop's
  explicit inverse; n^3.7 from 3000 to 5000, n^2.9 from 5000 to 10,000), and extrapolating
  from 1,600 estimated the n = 10,000 paper grid at twice its measured time (sixteenth session);
* the soft family (``newton``, ``svmcore.timing.SOFT``): seconds per grid point over the path's
  grid, with the family's default criteria (exact GACV, ranGACV, CKL, OBS), without exact GACV
  (``no_traces``: ranGACV and CKL) and with CV deviance added, at ``--ns`` and, in-sample, at
  ``--soft-large`` (3000: its full-rank σ columns cost n³ per Newton iteration, and the cost per
  point grew as n^2.6 from 1,600 to 3,000 points on Zen 3);
* cvxopt and LIBSVM: seconds per grid point at each log2 nλ of −20…8 step 4 (one λ at a time,
  log2 σ −2…2 step 1: five columns, so that the run's fixed cost is spread as in a real grid),
  since their work grows steeply as λ falls. Exact LOO with them is measured at n = 100 only
  (``--loo-ns``; LIBSVM's LOO at n = 200 and log2 nλ = −20 takes minutes a point).

``--keep path`` keeps the path's records of the existing file and measures the others.

Beside the rates, each measured solver's reference problem is timed (``svmcore.timing.REFERENCE``)
as the app times it, in a new process before each measurement and three more after the last
(``measure_solver``), and their median is written as ``calibration``: the app and the CLI time
the same problem once on their machine and scale that solver's rates by the ratio. A kept solver
keeps its reference time too (both were measured on the same machine).

    OMP_NUM_THREADS=1 PYTHONPATH=. python bench/measure_rates.py
    (the soft family alone, the others kept: --solvers newton --keep path,cvxopt,libsvm)
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from svmcore.datasets.simulations import make_simulation
from svmcore.families.svm.solvers.path import compile_event_loop
from svmcore.grid import run_grid
from svmcore.safeio import write_text
from svmcore.spec import DataSpec, make_spec
from svmcore.timing import COLUMN_SOLVERS, SOFT, RateBook

OUT = Path(__file__).resolve().parents[1] / "svmcore" / "data" / "rates.json"
#: the SVM's workloads, keyed as ``svmcore.timing.workload`` names their criteria
WORKLOADS = {"insample": ["gacv", "xa", "brxa", "sure", "gckl", "misclass", "brmisclass", "obs"],
             "cv5": ["gacv", "cv"], "loo": ["gacv", "loo"]}
#: the soft family's workloads: its default criteria on a simulation, without exact GACV, and with
#: CV deviance
SOFT_DEFAULTS = ["obs", "gacv", "rangacv", "ckl"]
SOFT_WORKLOADS = {"insample": SOFT_DEFAULTS, "no_traces": ["rangacv", "ckl"],
                  "cv5": SOFT_DEFAULTS + ["cv_deviance"]}
#: the grids measured: the path's (one run) and the pointwise solvers' λ values (one run each)
PATH_GRID = ("-20:8:2", "-3:3:1")
POINT_LAMBDAS = range(-20, 9, 4)
POINT_SIGMA = "-2:2:1"


def timed(solver, crit, n, lam, sig):
    """Seconds of one sweep and the run's result (one process, no growth); ``solver`` ``SOFT``
    runs the soft family."""
    data = make_simulation("wahba2d", n=n, seed=0)
    model, how = ("logistic", {}) if solver == SOFT else ("svm", {"solver": solver})
    spec = make_spec(model, data=DataSpec("simulation", "wahba2d", n=n, seed=0), log2_nlambda=lam,
                     log2_sigma=sig, criteria=crit, extend_grid=False, **how)
    t0 = time.perf_counter()
    res = run_grid(spec, data, n_jobs=1)
    return time.perf_counter() - t0, res, spec


def measure(book, solver, crit, n, work) -> float:
    """Record one solver × workload × n under the workload's key ``work``; returns the seconds it
    took. The path and the soft family run the whole grid once (per σ column and per grid point)."""
    if solver in COLUMN_SOLVERS or solver == SOFT:
        sec, res, spec = timed(solver, crit, n, *PATH_GRID)
        per, units = (("point", len(res.table)) if solver == SOFT
                      else ("column", spec.grid.log2_sigma.count))
        book.add(solver, work, n, units, sec, per=per)
        print(f"{solver:7s} {work:9s} n={n:5d}: {sec:7.2f} s, {sec / units:.4f} s/{per}", flush=True)
        return sec
    total = 0.0
    for l2 in POINT_LAMBDAS:
        sec, res, _ = timed(solver, crit, n, f"{l2}:{l2}:1", POINT_SIGMA)
        book.add(solver, work, n, len(res.table), sec, log2_nlambda=l2)
        print(f"{solver:7s} {work:9s} n={n:5d} log2nλ={l2:4d}: {sec / len(res.table):.4f} s/point",
              flush=True)
        total += sec
    return total


def reference_as_the_app_times_it(solver: str, processes: int = 1) -> list[float]:
    """The solver's reference seconds as the app and the CLI time it (``timing.machine_speed``:
    once in a new process, the least of two runs after an untimed one), in ``processes`` new
    processes."""
    code = ("from svmcore.timing import reference_seconds; "
            f"print(reference_seconds({solver!r}))")
    return [float(subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                                 text=True).stdout.split()[-1]) for _ in range(processes)]


def measure_solver(book, solver, args, large) -> float:
    """Record every workload × n of one solver, and return its reference seconds: the median of
    the reference timed in a new process before each measurement and three times after the last.
    The reference is timed across the same minutes as the rates, because a shared host's speed
    drifts by a fifth or more over the half hour they take (Zen 3, 2026-12-02: the path's
    reference in new processes read a median 0.117 s when timed after its rates, 0.078–0.10 s in
    the hour after, and the estimates built on it read 1.2–1.4 times too low). (Before the
    thirtieth session the least of five runs in the measuring process, which sat at the low end
    of what new processes time: soft family, Zen 3, 0.060 s against a median of 0.081 s.)"""
    samples = []
    for name, crit in (SOFT_WORKLOADS if solver == SOFT else WORKLOADS).items():
        for n in _sizes(args, solver, name, large):   # (--insample-ns regardless of --budget)
            samples += reference_as_the_app_times_it(solver)
            if measure(book, solver, crit, n, name) > args.budget and n not in large:
                break
    samples += reference_as_the_app_times_it(solver, 3)
    print(f"{solver:7s} reference problem: {statistics.median(samples):.4f} s (the median of "
          f"{len(samples)}, {min(samples):.4f} … {max(samples):.4f} s)", flush=True)
    return statistics.median(samples)


def _sizes(args, solver, workload_name, large) -> list[int]:
    """The n at which one solver's workload is measured (``--ns``, ``--loo-ns``, and ``large``:
    ``--insample-ns``)."""
    if workload_name == "loo" and solver not in COLUMN_SOLVERS:
        return [int(v) for v in args.loo_ns.split(",")]
    ns = [int(v) for v in args.ns.split(",")]
    if workload_name == "insample" and solver in COLUMN_SOLVERS:
        ns += large
    if workload_name in ("insample", "no_traces") and solver == SOFT:
        ns += [int(v) for v in args.soft_large.split(",") if v]
    return ns


def main(argv=None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ns", default="100,200,400,500,800,1000,1600")
    ap.add_argument("--solvers", default=f"path,cvxopt,libsvm,{SOFT}")
    ap.add_argument("--insample-ns", default="3000,5000,10000",
                    help="larger n at which the column solvers' in-sample workload is also measured")
    ap.add_argument("--budget", type=float, default=60.0, help="skip larger n once one run takes longer")
    ap.add_argument("--soft-large", default="3000",
                    help="larger n at which the soft family's in-sample workload is also measured")
    ap.add_argument("--loo-ns", default="100", help="n of the pointwise solvers' exact-LOO rates")
    ap.add_argument("--keep", default="", help="solvers whose records in --out are kept as they are")
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args(argv)
    book = RateBook()
    keep = [v for v in args.keep.split(",") if v]
    calibration = {}
    if keep:
        old_file = json.loads(Path(args.out).read_text())
        old = RateBook.from_records(old_file["records"])
        book.records = [r for r in old.records if r["solver"] in keep]
        calibration = {k: v for k, v in old_file.get("calibration", {}).items() if k in keep}
    large = [int(v) for v in args.insample_ns.split(",") if v]
    compile_event_loop()         # the path's compiled loop (from 500 points) loaded before timing
    for solver in (v for v in args.solvers.split(",") if v not in keep):
        calibration[solver] = measure_solver(book, solver, args, large)
    write_text(args.out, book.to_json(calibration) + "\n")      # atomically
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
