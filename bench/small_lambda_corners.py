"""Benchmark: the path's small-λ corners, with and without the rule for ties below the rounding
floor (``path.TIE_RUN``; docs/svm.md §4, "The tail by working sets").

wahba2d, n = 200 and 500, seeds 0 and 1, C_B = 1 and 4.5 (``class_weights_from_costs``), σ = 2^0,
2^1, 2^2, 2^10, each column asked for the whole λ range (log2(nλ) = −40 … 20, step 1) and for its
small end alone (−40 … −28, step 4, as grid growth asks). Both variants run in this process, on
the same Gram matrices: "rule" is the path as shipped, "no rule" the same path with ``TIE_RUN``
set beyond any run (its zero-length steps then go on to the cycling limit, 10 + 2n). Each answer's
KKT residual is compared with its own rounding floor (both recomputed here from α and b); "worst
res/floor" ≤ 1 means every answer is as exact as f can be evaluated at its λ.

Usage: python bench/small_lambda_corners.py [--sizes 200,500]
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import svmcore.families.svm.solvers.path as P  # noqa: E402
from svmcore.datasets.simulations import make_wahba2d  # noqa: E402
from svmcore.families.svm.solvers._common import (kkt_residual, rounding_floor,  # noqa: E402
                                                  zero_scale)
from svmcore.kernels import gaussian_gram  # noqa: E402
from svmcore.weights import class_weights_from_costs  # noqa: E402

LOG2_SIGMA = (0.0, 1.0, 2.0, 10.0)
GRIDS = {"whole": np.arange(-40.0, 20.01, 1.0), "small end": np.arange(-40.0, -27.99, 4.0)}


def worst_ratio(K, y, upper, sols) -> float:
    """Largest KKT residual ÷ max(1e-8, rounding floor) over the answers, recomputed from α, b."""
    n, worst = len(y), 0.0
    for s in sols:
        f = K @ (y * s.alpha / (2 * n * s.lam)) + s.b
        res = kkt_residual(y, f, s.alpha, upper, scale=zero_scale(n, s.lam))
        worst = max(worst, res / max(1e-8, rounding_floor(K, y, s.alpha, s.lam, s.b)))
    return worst


def column(K, y, upper, lams, tie_run):
    """CPU seconds, events, tail answers and worst res/floor of one call with ``TIE_RUN``."""
    saved, P.TIE_RUN = P.TIE_RUN, tie_run
    try:
        t = time.process_time()
        sols = P.solve_path(K, y, upper, lams)
        sec = time.process_time() - t
    finally:
        P.TIE_RUN = saved
    tails = sum(bool(s.info.get("tail")) for s in sols)
    return sec, sols[0].info["events"], tails, worst_ratio(K, y, upper, sols)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="200,500")
    args = ap.parse_args(argv)
    P.solve_path(np.eye(4), np.r_[1.0, 1, -1, -1], np.ones(4), [0.1])      # imports, untimed
    print(f"{'n':>4} {'seed':>4} {'C_B':>4} {'log2σ':>5} {'λ':>9} | {'rule s':>7} {'events':>6} "
          f"{'tail':>4} {'res/fl':>6} | {'no rule s':>9} {'events':>6} {'res/fl':>8}")
    totals = np.zeros(2)
    for n in (int(v) for v in args.sizes.split(",")):
        for seed in (0, 1):
            d = make_wahba2d(n, seed)
            for cost_b in (1.0, 4.5):
                upper = class_weights_from_costs(d.y, 1.0, cost_b).upper_bounds(d.y)
                for ls in LOG2_SIGMA:
                    K = gaussian_gram(d.X, sigma=2.0 ** ls)
                    for name, grid in GRIDS.items():
                        lams = 2.0 ** grid / n
                        on = column(K, d.y, upper, lams, P.TIE_RUN)
                        off = column(K, d.y, upper, lams, 10 ** 9)
                        totals += (on[0], off[0])
                        print(f"{n:4d} {seed:4d} {cost_b:4.1f} {ls:5.0f} {name:>9} | {on[0]:7.3f} "
                              f"{on[1]:6d} {on[2]:4d} {on[3]:6.2f} | {off[0]:9.3f} {off[1]:6d} "
                              f"{off[3]:8.2g}", flush=True)
    print(f"CPU seconds in all: {totals[0]:.1f} with the rule, {totals[1]:.1f} without "
          f"(ratio {totals[0] / totals[1]:.2f})")


if __name__ == "__main__":
    main()
