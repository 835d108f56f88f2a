"""The path on tables shaped like users' data, not only wahba2d: the paper grid per shape.

``bench/scale.py`` times wahba2d (two features, classes overlapping everywhere). Uploaded tables
differ: many features (standardized, so at narrow σ every point is far from every other and K is
nearly the identity), rare positives, repeated rows, the linear kernel (K of low rank). For each
shape, n rows (default 2000), one process, one σ column after another as ``fit.solve_lambdas``
runs them for the app (twins merged, the points in ``locality.locality_order``):

* the grid's seconds (the Gram matrices included) and its slowest column;
* 338 × one central LIBSVM fit on the same rows (sklearn ``SVC(C=0.5, gamma=0.5)``, as
  ``bench/scale.py``; the linear kernel's shapes ``SVC(C=0.5, kernel="linear")`` on one column,
  so 26 ×) and their ratio;
* the largest KKT residual over the grid, recomputed from α (f = K c + b on the whole problem),
  and the largest ratio of a residual to what the path accepts, max(1e-8, its rounding floor):
  at most 1 where every answer passes (the ``binary`` shape reads 1.01 at one point, σ =
  2^-0.5, log2(nλ) = −23: 4.07e-8 against a floor of 4.02e-8 on the whole problem, 1.9e-8 on the
  merged problem the path solved; its 451 distinct rows sum in another order).

Shapes (``sklearn.datasets.make_classification`` unless said, features standardized):
``wahba2d`` (the paper's simulation), ``f20`` (20 features, 5 informative, 10 % labels flipped),
``f200`` (200 features, 10 informative), ``rare`` (10 features, 5 % positives), ``binary`` (8
0/1 features, so rows repeat), ``linear20`` and ``linear200`` (the linear kernel on f20's and f200's
rows, the 26 λ of one column). Asked for by name only (``--shapes``), since they are the slow
corners: ``one`` (one feature, y = 1 where x + N(0, 1) > 0: at narrow σ K's numerical rank is
far below n) and ``clusters`` (20 clusters 1e-3 wide around centres drawn with scale 5, three
features, 30 % or 70 % positives in each: at narrow σ each cluster's block is nearly of rank
one; its columns take minutes at n = 2000, and its answers at the smallest λ stay above what
the path accepts).

    PYTHONPATH=. python bench/data_shapes.py [--n 2000] [--shapes f200,linear200] [--seed 0]
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from svmcore.datasets import standardize  # noqa: E402
from svmcore.families.svm.fit import solve_lambdas  # noqa: E402
from svmcore.families.svm.solvers._common import (decision_values, kkt_residual,  # noqa: E402
                                                  rounding_floor, zero_scale)
from svmcore.families.svm.solvers.locality import locality_order  # noqa: E402
from svmcore.kernels import gaussian_gram, linear_gram  # noqa: E402

LOG2_NLAM = np.arange(-25, 1, dtype=float)
LOG2_SIGMA = np.arange(-3.0, 3.01, 0.5)
SHAPES = ("wahba2d", "f20", "f200", "rare", "binary", "linear20", "linear200")
SLOW_SHAPES = ("one", "clusters")


def make_shape(shape: str, n: int, seed: int = 0):
    """(X standardized, y in ±1) of a shape (the module's docstring)."""
    from sklearn.datasets import make_classification

    rng = np.random.default_rng(seed)
    if shape == "wahba2d":
        from svmcore.datasets.simulations import make_wahba2d

        d = make_wahba2d(n, seed)
        return d.X, d.y
    if shape in ("f20", "linear20"):
        X, y = make_classification(n, 20, n_informative=5, flip_y=0.1, random_state=seed)
    elif shape in ("f200", "linear200"):
        X, y = make_classification(n, 200, n_informative=10, random_state=seed)
    elif shape == "rare":
        X, y = make_classification(n, 10, n_informative=4, weights=[0.95], flip_y=0.02,
                                   random_state=seed)
    elif shape == "binary":
        X = rng.integers(0, 2, (n, 8)).astype(float)
        y = (X[:, :3].sum(axis=1) + rng.normal(0.0, 1.0, n) > 1.5).astype(int)
    elif shape == "one":
        X = rng.normal(size=(n, 1))
        y = (X[:, 0] + rng.normal(0.0, 1.0, n) > 0).astype(int)
    elif shape == "clusters":
        centres, which = 5.0 * rng.normal(size=(20, 3)), rng.integers(0, 20, n)
        X = centres[which] + 1e-3 * rng.normal(size=(n, 3))
        y = (rng.random(n) < 0.3 + 0.4 * (which % 2)).astype(int)
    else:
        raise SystemExit(f"unknown shape {shape!r}; one of {', '.join(SHAPES + SLOW_SHAPES)}")
    return standardize(X)[0], np.where(y > 0, 1.0, -1.0)


def _column(K, y, order):
    """(seconds, largest KKT residual, largest residual ÷ max(1e-8, floor)) of one column."""
    n = len(y)
    upper = np.ones(n)
    lams = 2.0 ** LOG2_NLAM / n
    t = time.perf_counter()
    sols = solve_lambdas(K, y, upper, lams, "path", point_order=order)
    sec = time.perf_counter() - t
    worst, ratio = 0.0, 0.0
    for lam, s in zip(lams, sols):
        f = decision_values(K, y, s.alpha, lam, s.b)
        res = kkt_residual(y, f, s.alpha, upper, scale=zero_scale(n, lam))
        worst = max(worst, res)
        ratio = max(ratio, res / max(1e-8, rounding_floor(K, y, s.alpha, lam, s.b)))
    return sec, worst, ratio


def central_seconds(X, y, linear: bool, repeats: int = 5) -> float:
    """Median seconds of one central LIBSVM fit on these rows."""
    from sklearn.svm import SVC

    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        (SVC(C=0.5, kernel="linear") if linear else SVC(C=0.5, gamma=0.5)).fit(X, y)
        times.append(time.perf_counter() - t)
    return float(np.median(times))


def shape_grid(shape: str, n: int, seed: int):
    """The grid of one shape: (X, y, seconds, slowest column's (log2 σ, seconds), largest KKT
    residual, largest residual ÷ what is accepted, grid points)."""
    X, y = make_shape(shape, n, seed)
    order = locality_order(X)           # (used from locality.MIN_POINTS points, as the app)
    linear = shape.startswith("linear")
    total, slowest, worst, ratio = 0.0, (None, 0.0), 0.0, 0.0
    for ls in ([None] if linear else LOG2_SIGMA):
        t = time.perf_counter()
        K = linear_gram(X) if linear else gaussian_gram(X, sigma=2.0 ** ls)
        gram = time.perf_counter() - t
        sec, res, within = _column(K, y, order)        # (the KKT check after it is not timed)
        del K
        sec_all = gram + sec
        total += sec_all
        slowest = max(slowest, (ls, sec_all), key=lambda c: c[1])
        worst, ratio = max(worst, res), max(ratio, within)
    return X, y, total, slowest, worst, ratio, (1 if linear else LOG2_SIGMA.size) * LOG2_NLAM.size


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--shapes", default=",".join(SHAPES))
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    solve_lambdas(np.eye(4), np.r_[1.0, 1, -1, -1], np.ones(4), [0.1], "path")   # imports
    print(f"n = {a.n}, the paper grid (26 λ × 13 σ; the linear kernel 26 λ), one process")
    print(" shape        grid s   slowest column     points  × LIBSVM s   ratio  max KKT  ÷ accepted")
    for shape in a.shapes.split(","):
        X, y, sec, (ls, worst_sec), res, within, points = shape_grid(shape, a.n, a.seed)
        yard = points * central_seconds(X, y, shape.startswith("linear"))
        where = "linear" if ls is None else f"log2 σ = {ls:4.1f}"
        print(f" {shape:10s} {sec:8.2f}   {where:13s}{worst_sec:6.2f} s {points:5d} {yard:10.2f} "
              f"{sec / yard:7.2f}  {res:.1e} {within:9.2f}", flush=True)


if __name__ == "__main__":
    main()
