"""Repeated rows: the path on a table whose inputs repeat (wahba2d rounded to ``--decimals``), each
σ column of the paper's 26 λ solved with exact twins merged (``fit.solve_lambdas``, what the app
and the CLI run) against the same column solved as it stands (``solve_path`` on the whole K, the
code before the merge), each in its own process with a time limit. Both answers are checked on
the whole problem: the largest KKT residual over the column, with f recomputed from α.

    PYTHONPATH=. python bench/twins.py [--n 1000] [--decimals 1] [--limit 60]
"""
from __future__ import annotations

import argparse
import multiprocessing as mp
import time

import numpy as np


def _column(n, decimals, log2_sigma, merged, queue):
    from svmcore.datasets.simulations import make_wahba2d
    from svmcore.families.svm.fit import solve_lambdas
    from svmcore.families.svm.solvers._common import decision_values, kkt_residual, zero_scale
    from svmcore.families.svm.solvers.path import solve_path
    from svmcore.kernels import gaussian_gram

    d = make_wahba2d(n, 0)
    X, y = np.round(d.X, decimals), d.y
    K = gaussian_gram(X, sigma=2.0 ** log2_sigma)
    upper = np.ones(n)
    lams = 2.0 ** np.arange(0.0, -26.0, -1.0) / n
    t0 = time.perf_counter()
    sols = solve_lambdas(K, y, upper, lams, "path") if merged else solve_path(K, y, upper, lams)
    sec = time.perf_counter() - t0
    worst = max(kkt_residual(y, decision_values(K, y, s.alpha, lam, s.b), s.alpha, upper,
                             scale=zero_scale(n, lam)) for lam, s in zip(lams, sols))
    queue.put((sec, worst))


def timed(n, decimals, log2_sigma, merged, limit):
    """(seconds, largest KKT residual) of one column in a new process; None past ``limit``."""
    queue = mp.get_context("spawn").Queue()
    proc = mp.get_context("spawn").Process(target=_column,
                                           args=(n, decimals, log2_sigma, merged, queue))
    proc.start()
    proc.join(limit)
    if proc.is_alive():
        proc.terminate()
        proc.join()
        return None
    return queue.get()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--decimals", type=int, default=1)
    ap.add_argument("--limit", type=float, default=60.0, help="seconds a column may take")
    a = ap.parse_args()
    from svmcore.datasets.simulations import make_wahba2d

    d = make_wahba2d(a.n, 0)
    X = np.round(d.X, a.decimals)
    print(f"wahba2d n = {a.n} rounded to {a.decimals} decimal(s): "
          f"{len(np.unique(X, axis=0))} distinct inputs, "
          f"{len(np.unique(np.c_[X, d.y], axis=0))} distinct (input, label) rows")
    print(" log2 σ   merged s   its KKT   as it stands s   its KKT")
    for log2_sigma in np.arange(-3.0, 3.5, 1.0):
        new = timed(a.n, a.decimals, log2_sigma, True, a.limit)
        old = timed(a.n, a.decimals, log2_sigma, False, a.limit)
        cell = lambda r: f"{r[0]:10.2f} {r[1]:9.1e}" if r else f"  > {a.limit:4.0f} s         -"  # noqa: E731
        print(f"{log2_sigma:7.1f} {cell(new)}    {cell(old)}", flush=True)


if __name__ == "__main__":
    main()
