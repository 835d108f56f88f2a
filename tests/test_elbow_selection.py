"""The start's elbow: which free points join and which are parked (``affinely_independent``).

Checked against the definition, computed another way: in explicit feature space (a linear kernel),
a point joins when its squared distance to the affine hull of the points that joined before it,
by least squares on the coordinates, exceeds the tolerance; for a Gaussian kernel the same distance
as a Schur complement solved in 50-digit arithmetic.
"""
from __future__ import annotations

from decimal import Decimal, getcontext

import numpy as np
import pytest

from svmcore.families.svm.solvers.elbow import affinely_independent
from svmcore.families.svm.solvers.path import _P, _Path
from svmcore.kernels import gaussian_gram

TOL = 1e-11


def hull_distance2(X, joined, p):
    """Squared distance of X[p] to the affine hull of X[joined], by least squares."""
    if len(joined) == 1:
        return float(np.sum((X[p] - X[joined[0]]) ** 2))
    D = (X[joined[1:]] - X[joined[0]]).T
    w = np.linalg.lstsq(D, X[p] - X[joined[0]], rcond=None)[0]
    return float(np.sum((D @ w - (X[p] - X[joined[0]])) ** 2))


def by_definition(X, order, tol):
    joined = [order[0]]
    for p in order[1:]:
        if hull_distance2(X, joined, p) > tol:
            joined.append(p)
    return joined


@pytest.mark.parametrize("block", [1, 3, 64])
def test_selection_follows_the_definition_in_feature_space(block):
    rng = np.random.default_rng(0)
    base = rng.normal(size=(6, 4))                     # 6 points span a 4-dim affine hull at most
    X = np.vstack([base,
                   base[:3] + 1e-8 * rng.normal(size=(3, 4)),     # distance² ~1e-16: parked
                   0.5 * (base[0] + base[1])[None, :],            # on a line through two: parked
                   base[2] + 1e-4 * rng.normal(size=(1, 4)),      # distance² ~1e-8: joins
                   rng.normal(size=(4, 4))])
    order = rng.permutation(len(X))
    joined, parked = affinely_independent(X @ X.T, order, TOL, block=block)
    expected = by_definition(X, order, TOL)
    assert list(joined) == expected
    assert sorted(np.r_[joined, parked]) == list(range(len(X)))
    assert len(joined) == 5          # at most d + 1 = 5 affinely independent points in R^4


def _gauss_decimal(X, sigma):
    """The Gaussian kernel in 50-digit decimal arithmetic."""
    Xd = [[Decimal(float(v)) for v in row] for row in X]
    two_s2 = 2 * Decimal(sigma) ** 2

    def k(i, j):
        return (-sum((a - b) ** 2 for a, b in zip(Xd[i], Xd[j])) / two_s2).exp()
    return k


def _solve_decimal(A, b):
    """Gaussian elimination with partial pivoting, in Decimal."""
    m = len(b)
    M = [row[:] + [b[i]] for i, row in enumerate(A)]
    for c in range(m):
        piv = max(range(c, m), key=lambda r: abs(M[r][c]))
        M[c], M[piv] = M[piv], M[c]
        for r in range(c + 1, m):
            f = M[r][c] / M[c][c]
            M[r] = [a - f * b for a, b in zip(M[r], M[c])]
    x = [Decimal(0)] * m
    for c in reversed(range(m)):
        x[c] = (M[c][m] - sum(M[c][j] * x[j] for j in range(c + 1, m))) / M[c][c]
    return x


def test_selection_matches_the_definition_in_50_digits():
    """A Gaussian kernel with a large σ (numerical rank far below n) and duplicated points: each
    point's squared distance to the affine hull, as the Schur complement of the bordered elbow
    matrix solved in 50-digit arithmetic, decides it. (The point-by-point ``try_add`` in double
    precision joins points at 1e-12 here: its A⁻¹ is too ill-conditioned to tell.)"""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 2))
    X = np.vstack([X, X[:6]])                           # duplicates: parked
    order = rng.permutation(len(X))
    sigma = 3.0
    joined, parked = affinely_independent(gaussian_gram(X, sigma=sigma), order, TOL)
    getcontext().prec = 50
    k = _gauss_decimal(X, sigma)
    E, margins = [int(order[0])], []
    for p in map(int, order[1:]):
        A = [[Decimal(0)] + [Decimal(1)] * len(E)]
        A += [[Decimal(1)] + [k(a, b) for b in E] for a in E]
        u = [Decimal(1)] + [k(a, p) for a in E]
        w = _solve_decimal(A, u)
        d2 = float(k(p, p) - sum(a * b for a, b in zip(u, w)))
        margins.append(abs(np.log10(max(d2, 1e-300) / TOL)))
        if d2 > TOL:
            E.append(p)
    assert min(margins) > 0.05          # no decision within rounding of the threshold
    assert list(joined) == E
    assert 6 <= parked.size < len(X) - 6


def test_set_solution_parks_the_dependent_free_points():
    """Every point free and tied in interiority (so taken in index order): the five copies are
    parked, the 40 distinct points form the elbow, and the elbow equations hold there."""
    rng = np.random.default_rng(2)
    X = rng.normal(size=(40, 2))
    X = np.vstack([X, X[:5]])
    K = gaussian_gram(X, sigma=1.0)
    y = np.where(np.arange(45) % 2 == 0, 1.0, -1.0)
    P = _Path(K, y, np.ones(45))
    P.set_solution(1.0, np.full(45, 0.5), 0.0)
    assert list(np.flatnonzero(P.status == _P)) == [40, 41, 42, 43, 44]
    assert sorted(P.E) == list(range(40))
    np.testing.assert_allclose(P.h[P.E] / P.s, y[P.E], atol=1e-8)


def test_a_burst_of_entering_points_is_decided_as_the_definition_says():
    """``_Path.add_many`` (an event's many entering or parked points at once): in explicit feature
    space, each candidate joins when its squared distance to the affine hull of the elbow and of
    the candidates that joined before it exceeds the tolerance."""
    rng = np.random.default_rng(3)
    d = 6
    elbow = rng.normal(size=(4, d))
    w = rng.dirichlet(np.ones(4), size=5)
    cand = np.vstack([w @ elbow,                              # in the elbow's hull: parked
                      rng.normal(size=(3, d)),                # generic: join
                      rng.normal(size=(1, d)),
                      w[:2] @ elbow + 1e-3 * rng.normal(size=(2, d)),   # 1e-6 off the hull: join
                      rng.normal(size=(6, d))])               # at most d + 1 in all: some parked
    cand = np.vstack([cand, cand[5:8]])                       # copies of joined candidates: parked
    X = np.vstack([elbow, cand])
    n = len(X)
    P = _Path(X @ X.T, np.where(np.arange(n) % 2 == 0, 1.0, -1.0), np.ones(n))
    P.status = np.zeros(n, dtype=np.int8)
    P.alpha = np.zeros(n)
    for p in range(4):
        assert P.try_add(p)
    order = np.arange(4, n)[rng.permutation(n - 4)]
    keep = P.add_many(order)
    joined = by_definition(X, [0, 1, 2, 3] + list(order), TOL)[4:]
    assert list(order[keep]) == joined
    assert len(joined) == d + 1 - 4                           # the hull fills R^6 at 7 points
    assert sorted(P.E) == sorted([0, 1, 2, 3] + joined)


def test_a_burst_on_a_large_elbow_is_bordered_into_its_block_inverse():
    """On an elbow of ``SCHUR_FROM`` or more points the candidates that join are bordered into the
    block-LU inverse with their in-order pivots instead of a fresh inversion; the decisions follow
    the definition and the maintained inverse still solves A (checked against a dense solve)."""
    rng = np.random.default_rng(5)
    d, m0 = 540, _Path.SCHUR_FROM + 10
    elbow = rng.normal(size=(m0, d))
    inside = rng.dirichlet(np.ones(m0), size=12) @ elbow       # in the elbow's hull: parked
    X = np.vstack([elbow, inside, rng.normal(size=(8, d))])    # 8 generic points: join
    n = len(X)
    P = _Path(X @ X.T, np.where(np.arange(n) % 2 == 0, 1.0, -1.0), np.ones(n))
    P.status = np.zeros(n, dtype=np.int8)
    P.alpha = np.zeros(n)
    for p in range(m0):
        P._append(p)
    P.refactor()
    order = np.arange(m0, n)[rng.permutation(n - m0)]
    keep = P.add_many(order)
    joined = list(range(m0))                 # generic points in R^540: all independent
    for p in order:
        if hull_distance2(X, joined, p) > TOL:
            joined.append(p)
    assert list(order[keep]) == joined[m0:]
    assert keep.sum() == 8
    assert P.F.k == 8 and not P.stale                          # bordered in, no rebuild
    A = P.A[:P.m + 1, :P.m + 1]
    rhs = rng.normal(size=P.m + 1)
    x = P.F.apply(rhs)
    assert np.max(np.abs(x - np.linalg.solve(A, rhs))) <= 1e-8 * np.max(np.abs(x))


def test_parked_points_are_offered_again_only_when_their_distance_may_have_grown():
    """After an elbow point leaves, the parked points whose bound on their distance to the hull
    stayed at the tolerance are not offered again (``park_bound``). On data with every point about
    three times (duplicates are parked), each time the parked points are reconsidered, the ones
    left out are within the tolerance of the hull by a dense solve of the bordered system, and the
    path's answers are exact."""
    import svmcore.families.svm.solvers.path as path_mod
    from svmcore.datasets.simulations import make_wahba2d
    base = make_wahba2d(300, 0)
    idx = np.random.default_rng(1).integers(0, 300, size=900)
    X, y = base.X[idx], base.y[idx]
    K = gaussian_gram(X, sigma=0.5)
    seen = {"skipped": 0, "worst": 0.0}
    unpark = path_mod._unpark

    def checked(P, upper):
        parked = np.flatnonzero(P.status == _P)
        skip = parked[P.park_bound[parked] <= P.dep_tol * P.kscale]
        if skip.size and P.m > 0:
            U = np.vstack([np.ones(skip.size), K[np.ix_(P.E, skip)]])
            W = np.linalg.solve(P.A[:P.m + 1, :P.m + 1], U)
            c = K[skip, skip] - np.einsum("ij,ij->j", U, W)
            seen["skipped"] += skip.size
            seen["worst"] = max(seen["worst"], float(c.max()) / (P.dep_tol * P.kscale))
        return unpark(P, upper)

    path_mod._unpark = checked
    try:
        sols = path_mod.solve_path(K, y, np.ones(900), 2.0 ** np.arange(-12.0, 1.0) / 900)
    finally:
        path_mod._unpark = unpark
    assert seen["skipped"] > 1000
    assert seen["worst"] <= 1.0
    assert max(s.kkt_residual for s in sols) <= 1e-8
