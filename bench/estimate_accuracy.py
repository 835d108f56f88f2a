"""How good are the app's time estimates? Estimated vs measured seconds for sweeps the rates file was
not measured on (other n, other grids), one process, wahba2d.

    OMP_NUM_THREADS=1 PYTHONPATH=. python bench/estimate_accuracy.py
"""
from __future__ import annotations

import time

from svmapp import settings as S
from svmapp.estimate import estimates

CASES = [  # (solver, n, lam, sig, extra criteria)
    ("auto", 150, "-20:8:2", "-3:3:1", []),
    ("auto", 300, "-20:8:2", "-3:3:1", []),
    ("auto", 250, "-16:4:2", "-2:2:1", ["cv"]),
    ("auto", 120, "-12:4:4", "-1:1:1", ["loo"]),
    ("cvxopt", 150, "-16:4:4", "-2:2:1", []),
    ("libsvm", 150, "-12:4:4", "-1:1:1", []),
]


def main() -> None:
    print(f"{'solver':7s} {'n':>4s} {'grid':>16s} {'extra':>5s} {'estimated':>9s} {'measured':>9s} {'ratio':>6s}")
    for solver, n, lam, sig, extra in CASES:
        s = S.settings_from({"n": n, "log2_nlambda": lam, "log2_sigma": sig, "solver": solver,
                             "extend_grid": False, "criteria": list(S.DEFAULTS["criteria"]) + extra})
        est = estimates(s)["total"]
        loaded = S.load_data(s)
        t0 = time.perf_counter()
        S.run(s, loaded, n_jobs=1)
        sec = time.perf_counter() - t0
        print(f"{solver:7s} {n:4d} {lam + ' x ' + sig:>16s} {','.join(extra) or '-':>5s} {est:9.2f} {sec:9.2f} "
              f"{sec / est:6.2f}", flush=True)


if __name__ == "__main__":
    main()
