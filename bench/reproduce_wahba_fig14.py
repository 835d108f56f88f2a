"""Wahba et al. (2001) §1.8 (Figures 1.4–1.5): inefficiency of GACV, XA and BRXA on wahba2d, n = 200.

Global grid search over log2(nλ) ∈ [−25, STOP] (step 1; STOP = 0 and 8 by default) × log2 σ ∈ [−3, 3]
(step 0.5), R replicate
samples, standard case (L ≡ 1) and the nonstandard preset (C_A = 1, C_B = 2, π_A = 0.1). The
inefficiency is MISCLASS (BRMISCLASS) at the criterion's grid minimiser over the grid minimum.
XA and BRXA are counts and tie: the first minimiser in grid order is used, and the spread over tied
minimisers is reported too.

The paper does not say which ρ its §1.8 XA used. Two forms are reported: XA(ρ=2) with
R = max K_ii − min K_ij (Joachims' bound, eq 1.21, this project's default), and the form (1.22)
with ρ = 1 and K_ii, which is BRXA (1.28) with L ≡ 1 ("XA(1.22)" below).

    python bench/reproduce_wahba_fig14.py [--replicates 20] [--stops 0,8] [--solver auto] [--jobs 2]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from svmcore.datasets.simulations import make_wahba2d  # noqa: E402
from svmcore.grid import sweep  # noqa: E402
from svmcore.spec import GridSpec  # noqa: E402

PAPER = {("standard", "gacv"): 1.0064, ("standard", "xa"): "1.0062–1.0094",
         ("standard", "brxa"): "1.0062–1.0094",
         ("nonstandard", "gacv"): 1.151, ("nonstandard", "brxa"): 1.166}


def one_replicate(seed: int, solver: str, stop: float):
    d = make_wahba2d(200, seed=seed)
    out = {}
    grid = GridSpec.parse(f"-25:{stop:g}:1", "-3:3:0.5")
    for case, costs, crits in (("standard", {}, ["gacv", "xa", "brxa", "misclass"]),
                               ("nonstandard", dict(cost_a=1, cost_b=2, prior_a=0.1),
                                ["gacv", "brxa", "brmisclass"])):
        res = sweep(d, grid, criteria=crits, solver=solver, **costs)
        ineff = res.inefficiencies()
        out[case] = {c: ineff[c] for c in crits[:-1]}
        out[case]["kkt_max"] = float(res.table.kkt_residual.max())
        out[case]["failed"] = int((res.table.fit_error != "").sum())
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--replicates", type=int, default=20)
    ap.add_argument("--solver", default="auto")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--stops", default="0,8", help="largest log2(nλ) of each grid to run")
    args = ap.parse_args(argv)
    for stop in map(float, args.stops.split(",")):
        report(args, stop)


def report(args, stop):
    t0 = time.perf_counter()
    if args.jobs == 1:
        reps = [one_replicate(s, args.solver, stop) for s in range(args.replicates)]
    else:
        from joblib import Parallel, delayed
        reps = Parallel(n_jobs=args.jobs)(delayed(one_replicate)(s, args.solver, stop)
                                          for s in range(args.replicates))
    secs = time.perf_counter() - t0
    print(f"\nwahba2d n = 200, grid log2(nλ) −25…{stop:g} × log2 σ −3…3, {args.replicates} replicates (seeds 0…"
          f"{args.replicates - 1}), solver {args.solver}: {secs:.1f} s")
    print(f"{'case':<12} {'criterion':<9} {'median':>7} {'Q1':>7} {'Q3':>7} {'ties: med lo–hi':>18}"
          f" {'paper (1 sample)':>17}")
    label = {("standard", "xa"): "XA(ρ=2)", ("standard", "brxa"): "XA(1.22)"}
    for case, crits in (("standard", ("gacv", "xa", "brxa")), ("nonstandard", ("gacv", "brxa"))):
        for c in crits:
            v = np.array([r[case][c] for r in reps])
            first, lo, hi = v[:, 0], v[:, 1], v[:, 2]
            q1, med, q3 = np.percentile(first, [25, 50, 75])
            print(f"{case:<12} {label.get((case, c), c.upper()):<9} {med:7.4f} {q1:7.4f} {q3:7.4f} "
                  f"{np.median(lo):8.4f}–{np.median(hi):<8.4f} {PAPER[(case, c)]!s:>17}")
    kkt = max(r[c]["kkt_max"] for r in reps for c in ("standard", "nonstandard"))
    failed = sum(r[c]["failed"] for r in reps for c in ("standard", "nonstandard"))
    print(f"largest KKT residual over all fits: {kkt:.1e}; failed grid points: {failed}")


if __name__ == "__main__":
    main()
