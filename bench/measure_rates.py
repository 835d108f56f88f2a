"""Measure seconds per grid point of the SVM sweep on this machine, per solver, workload and n.

Writes ``svmcore/data/rates.json``, the app's starting point for time estimates
(``svmcore.timing.RateBook``); the app then adds every sweep it runs. wahba2d, one process, a
5 × 2 grid spanning the app's default range (log2 nλ −20…8, log2 σ −1…1).

    OMP_NUM_THREADS=1 PYTHONPATH=. python bench/measure_rates.py
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

from svmcore.datasets.simulations import make_simulation
from svmcore.grid import run_grid
from svmcore.spec import DataSpec, make_spec
from svmcore.timing import RateBook, workload

OUT = Path(__file__).resolve().parents[1] / "svmcore" / "data" / "rates.json"
WORKLOADS = {"insample": ["gacv", "xa", "brxa", "sure", "gckl", "misclass", "brmisclass", "obs"],
             "cv5": ["gacv", "cv"], "loo": ["gacv", "loo"]}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ns", default="100,200,400")
    ap.add_argument("--solvers", default="path,cvxopt,libsvm")
    ap.add_argument("--budget", type=float, default=60.0, help="skip larger n once one run takes longer")
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args(argv)
    book = RateBook()
    for solver in args.solvers.split(","):
        for name, crit in WORKLOADS.items():
            for n in map(int, args.ns.split(",")):
                data = make_simulation("wahba2d", n=n, seed=0)
                spec = make_spec("svm", data=DataSpec("simulation", "wahba2d", n=n, seed=0),
                                 log2_nlambda="-20:8:2", log2_sigma="-1:1:2", criteria=crit,
                                 solver=solver, extend_grid=False)
                t0 = time.perf_counter()
                res = run_grid(spec, data, n_jobs=1)
                sec = time.perf_counter() - t0
                book.add(solver, workload(crit), n, len(res.table), sec)
                print(f"{solver:7s} {name:9s} n={n:4d}: {sec:7.2f} s, {sec / len(res.table):.4f} s/point",
                      flush=True)
                if sec > args.budget:
                    break
    Path(args.out).write_text(book.to_json() + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
