"""cvxopt's QP on the SVM dual with the box rows [−I; I] as a dense and as a sparse matrix.

``solvers.qp``'s KKT solver forms G'DG at every interior-point iteration: 4w³ flops from a dense
2w × w matrix G, a diagonal from a sparse one. Both are run on the same problem in this process
(wahba2d, σ = 1, log2(nλ) = −8, the whole dual from α = 0, ``qp.solve_restricted_dual``), and the
raw answers (before ``finish_dual``) are compared.

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=. python bench/cvxopt_box.py [--sizes 1000,2500]
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from cvxopt import matrix

from svmcore.datasets.simulations import make_simulation
from svmcore.families.svm.solvers import qp
from svmcore.kernels import gaussian_gram


SPARSE = qp.box_rows


def dense_rows(w, _spmatrix):
    return matrix(np.vstack([-np.eye(w), np.eye(w)]))


def run(n: int) -> str:
    d = make_simulation("wahba2d", n, 0)
    K = gaussian_gram(d.X, sigma=1.0)
    y, upper, lam = d.y.astype(float), np.ones(n), 2.0 ** -8 / n
    out = {}
    for name, rows in (("dense", dense_rows), ("sparse", qp.box_rows)):
        qp.box_rows = rows if name == "dense" else SPARSE
        t0 = time.perf_counter()
        alpha, b, sol = qp.solve_restricted_dual(K, y, upper, lam, np.zeros(n), np.arange(n),
                                                 dict(qp._OPTIONS))
        out[name] = (time.perf_counter() - t0, alpha, b, sol["iterations"])
    qp.box_rows = SPARSE
    (td, ad, bd, itd), (ts, as_, bs, its) = out["dense"], out["sparse"]
    return (f"| {n} | {td:.2f} | {ts:.2f} | {td / ts:.1f} | {itd} / {its} | "
            f"{np.abs(ad - as_).max():.1e} | {abs(bd - bs):.1e} |")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,2500")
    args = ap.parse_args()
    print("| n | dense G (s) | sparse G (s) | ratio | iterations | max abs Δα | abs Δb |")
    print("|---|---|---|---|---|---|---|")
    for n in map(int, args.sizes.split(",")):
        print(run(n), flush=True)


if __name__ == "__main__":
    main()
