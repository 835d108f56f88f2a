"""A kernel matrix diagonal to rounding (svmcore.families.svm.solvers.diagonal): the closed form
against the path on the same K, cvxopt, a hand-checked midpoint, and the threshold itself."""
from __future__ import annotations

import numpy as np
import pytest

from svmcore.families.svm.fit import solve_lambdas
from svmcore.families.svm.solvers._common import intercept_from_bounds
from svmcore.families.svm.solvers.diagonal import (EPS, _SumYAlpha, intercept, is_diagonal,
                                                   solve_diagonal)
from svmcore.families.svm.solvers.path import solve_path
from svmcore.families.svm.solvers.qp import solve_cvxopt
from svmcore.kernels import gaussian_gram
from svmcore.weights import class_weights_from_costs


def _objective(K, y, upper, sol):
    """(1/n) Σ L(y_i)(1 − y_i f_i)_+ + λ c'Kc, c = y α / (2nλ) (docs/svm.md)."""
    c = y * sol.alpha / (2 * len(y) * sol.lam)
    return float(np.mean(upper * np.maximum(0.0, 1.0 - y * sol.f)) + sol.lam * c @ K @ c)


def _far_apart(n=300, features=200, seed=0):
    """Points in 200 dimensions at σ = 2^-1: K's off-diagonal entries below 1e-150; unequal
    classes and costs, so that b ≠ 0 and the bounds differ."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, features))
    y = rng.permutation(np.where(np.arange(n) < int(0.6 * n), 1.0, -1.0))
    upper = class_weights_from_costs(y, 1.0, 2.5).upper_bounds(y)
    return gaussian_gram(X, sigma=0.5), y, upper


def test_the_partial_sums_are_the_clip_formula():
    """g(b) from sorted partial sums against Σ y_i clip(s(1 − y_i b)/d_i, 0, L_i) computed
    directly, at random b and at every break (d not all 1: a Laplacian or scaled diagonal)."""
    rng = np.random.default_rng(1)
    n = 200
    y = np.where(rng.random(n) < 0.4, 1.0, -1.0)
    d = rng.uniform(0.5, 2.0, n)
    upper = rng.choice([1.0, 3.0], n)
    for s in (0.01, 0.7, 3.0, 40.0):
        g = _SumYAlpha(s, y, d, upper)
        b = np.r_[rng.uniform(-1, 1, 50), g.breaks]
        direct = np.clip(s * (1 - y * b[:, None]) / d, 0.0, upper) @ y
        np.testing.assert_allclose(g(b), direct, rtol=0, atol=1e-12 * np.sum(upper))


def test_closed_form_is_the_paths_answer_and_cvxopts():
    """On a K diagonal to rounding, every λ of the paper grid: α and b as the path finds them
    (``solve_path`` on the same K, one event and then its elbow system) to 1e-10, and at three λ
    the dual objective of cvxopt's answer."""
    K, y, upper = _far_apart()
    n = len(y)
    assert is_diagonal(K)
    lams = 2.0 ** np.arange(0.0, -26.0, -1.0) / n
    closed = solve_lambdas(K, y, upper, lams, "path")
    path = solve_path(K, y, upper, lams)
    for c, p in zip(closed, path):
        assert c.info["diagonal"] and c.kkt_residual <= max(1e-12, c.info["kkt_floor"])
        np.testing.assert_allclose(c.alpha, p.alpha, rtol=0, atol=1e-10 * upper.max())
        assert abs(c.b - p.b) <= 1e-10
    for k in (0, 5, 20):
        ref = solve_cvxopt(K, y, upper, lams[k])
        o_c, o_r = _objective(K, y, upper, closed[k]), _objective(K, y, upper, ref)
        assert abs(o_c - o_r) <= 1e-9 * o_r


def test_every_alpha_at_its_bound_takes_the_midpoint():
    """3 positives with L = 2 and 6 negatives with L = 1, K = I, s = 8: every α sits at its bound
    for b in [1/8 − 1, 1 − 2/8] = [−0.875, 0.75] (Σ y α = 6 − 6 = 0 there), so b is its midpoint
    −0.0625, which is also what ``intercept_from_bounds`` (the path's empty elbow) takes."""
    y = np.r_[np.ones(3), -np.ones(6)]
    upper = np.r_[2.0 * np.ones(3), np.ones(6)]
    n, s = len(y), 8.0
    b = intercept(s, y, np.ones(n), upper)
    assert b == pytest.approx(-0.0625, abs=1e-15)
    sol = solve_diagonal(np.eye(n), y, upper, s / (2 * n))
    np.testing.assert_array_equal(sol.alpha, upper)
    assert b == pytest.approx(intercept_from_bounds(y * upper / s, y, upper, upper), abs=1e-15)


def test_diagonal_means_below_rounding():
    """Off-diagonal row sums at most eps × the smallest diagonal entry: just below it K is
    diagonal, just above it is not; a nonpositive diagonal never is."""
    n = 50
    below = np.full((n, n), 0.9 * EPS / (n - 1))
    np.fill_diagonal(below, 1.0)
    above = np.full((n, n), 1.1 * EPS / (n - 1))
    np.fill_diagonal(above, 1.0)
    assert is_diagonal(below) and not is_diagonal(above)
    assert not is_diagonal(np.zeros((3, 3))) and not is_diagonal(-np.eye(3))
    one_far = np.eye(n)
    one_far[40, 7] = 1e-15                          # a single entry in a later row's block
    assert not is_diagonal(one_far)


def test_a_kernel_with_near_points_is_left_to_the_path():
    """Two features at σ = 2^-3 (wahba2d's narrowest column) keep neighbours' entries far above
    rounding: solve_lambdas runs the path there."""
    rng = np.random.default_rng(2)
    X = rng.normal(size=(200, 2))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    K = gaussian_gram(X, sigma=0.125)
    assert not is_diagonal(K)
    sol = solve_lambdas(K, y, np.ones(200), [1.0 / 200], "path")[0]
    assert "diagonal" not in sol.info and sol.info["events"] >= 0
