"""Penalized-likelihood soft classification: Newton solver, H, GACV, ranGACV, CKL, CV, the family.

Every number is checked against an independent computation: scipy.optimize on the (b, c)
objective with the full Gram matrix, finite differences of re-solved fits, H formed densely from
K^{-1} in f-coordinates, fold fits made one by one.
"""
from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.linalg import eigh
from scipy.optimize import minimize
from scipy.special import expit

from svmcore._validation import SVMCoreError
from svmcore.datasets.base import Dataset
from svmcore.datasets.simulations import make_simulation
from svmcore.families import get_family
from svmcore.families.soft import cli as soft_cli
from svmcore.families.soft import newton
from svmcore.families.soft.criteria import (ckl, cv_deviance_values, deviance, draw_deltas, gacv,
                                            kfold_decision_values, obs, rangacv, rangacv_terms,
                                            traces)
from svmcore.families.soft.family import FAMILY, fit_logistic
from svmcore.families.soft.newton import (ROTATE_UP_TO, KernelBasis, newton_factor, newton_logistic,
                                          predictor, solve_path, tangents, to01)
from svmcore.grid import sweep
from svmcore.kernels import gaussian_gram
from svmcore.spec import GridSpec, make_spec


def _problem(name="wahba2d", n=40, seed=3, sigma=1.0):
    d = make_simulation(name, n, seed)
    return d, gaussian_gram(d.X, sigma=sigma), to01(d.y)


def _dense_newton_f(sol, y01, steps: int = 3) -> np.ndarray:
    """f after ``steps`` dense Newton steps from the answer ``sol`` (G formed in full and solved
    by numpy): an independent reference for the answer's f."""
    X = sol.basis.X
    pen = np.r_[0.0, np.full(sol.basis.rank, 2 * sol.basis.n * sol.lam)]
    z = sol.z
    for _ in range(steps):
        p = expit(X @ z)
        G = (X * (p * (1 - p))[:, None]).T @ X + np.diag(pen)
        z = z - np.linalg.solve(G, X.T @ (p - y01) + pen * z)
    return X @ z


def _scipy_fit(K, y01, lam):
    """Minimise J(b, c) = (1/n)Σ[−y f + log(1+e^f)] + λ c'Kc with f = b + Kc, exact Hessian."""
    n = len(y01)
    Xf = np.hstack([np.ones((n, 1)), K])

    def J(v):
        f = Xf @ v
        return np.mean(np.logaddexp(0, f) - y01 * f) + lam * v[1:] @ K @ v[1:]

    def grad(v):
        r = (expit(Xf @ v) - y01) / n
        g = Xf.T @ r
        g[1:] += 2 * lam * K @ v[1:]
        return g

    def hess(v):
        p = expit(Xf @ v)
        Hm = (Xf.T * (p * (1 - p))) @ Xf / n
        Hm[1:, 1:] += 2 * lam * K
        return Hm

    r = minimize(J, np.zeros(n + 1), jac=grad, hess=hess, method="trust-exact",
                 options={"gtol": 1e-12, "maxiter": 500})
    return r.fun, Xf @ r.x


def _dense_H(K, sol):
    """H = (W + Σ_λ)^{-1} in f-coordinates with Σ_λ = 2nλ (K^{-1} − K^{-1}11'K^{-1}/1'K^{-1}1)
    (b unpenalized), formed from an explicit inverse of a well-conditioned K."""
    n = len(K)
    Ki = np.linalg.inv(K)
    one = np.ones(n)
    v = Ki @ one
    P = Ki - np.outer(v, v) / (one @ v)
    return np.linalg.inv(np.diag(sol.w) + 2 * n * sol.lam * P)


@pytest.mark.parametrize("solver", ["cholesky", "woodbury"])
@pytest.mark.parametrize("name,n,sigma,log2_nl", [("wahba2d", 40, 1.0, -4.0),
                                                   ("lin1d", 30, 0.2, -8.0),
                                                   ("wahba2d", 35, 0.5, 1.0),
                                                   ("lin1d", 30, 1.0, -4.0)])   # rotated basis
def test_newton_matches_scipy(name, n, sigma, log2_nl, solver):
    d, K, y01 = _problem(name, n, 1, sigma)
    lam = 2.0 ** log2_nl / n
    sol = newton_logistic(KernelBasis.from_gram(K), y01, lam, solver=solver)
    J_ref, f_ref = _scipy_fit(K, y01, lam)
    assert sol.converged and sol.note == ""
    assert sol.objective == pytest.approx(J_ref, rel=1e-11, abs=1e-13)
    np.testing.assert_allclose(sol.f, f_ref, atol=1e-6)
    # f = b + Kc with the reported c
    np.testing.assert_allclose(sol.b + K @ sol.c, sol.f, atol=1e-9)


@pytest.mark.parametrize("log2_nl", [-25.0, -20.0, -8.0, 0.0])
def test_woodbury_and_cholesky_solves_match_a_dense_solve(log2_nl):
    """Both ways of solving with G = X'WX + diag(0, 2nλ I) (full-rank basis, small σ) against
    numpy's dense solve of the formed G, with weights down to 1e-18 (nearly saturated fits); the
    Woodbury factor's G-Cholesky, formed on demand, is the one the Cholesky factor holds."""
    from svmcore.families.soft.newton import CholeskyFactor, WoodburyFactor, _newton_matrix

    n = 120
    d, K, y01 = _problem("wahba2d", n, 6, 0.125)
    basis = KernelBasis.from_gram(K)
    assert basis.rank > n / 2                         # "auto" takes the Woodbury form here
    rng = np.random.default_rng(1)
    w = np.exp(rng.uniform(np.log(1e-18), np.log(0.25), n))
    pen = np.full(basis.rank + 1, 2.0 * n * 2.0 ** log2_nl / n)
    pen[0] = 0.0
    G = _newton_matrix(basis.X, w, pen)
    G = np.triu(G) + np.triu(G, 1).T
    rhs = rng.standard_normal((basis.rank + 1, 3))
    ref = np.linalg.solve(G, rhs)
    chol, wood = CholeskyFactor(basis, w, pen), WoodburyFactor(basis, w, pen)
    for F in (chol, wood):
        err = np.abs(F.solve(rhs) - ref).max() / np.abs(ref).max()
        assert err < 1e-7, (type(F).__name__, err)
        np.testing.assert_allclose(F.solve(rhs[:, 1]), F.solve(rhs)[:, 1],
                                   atol=1e-7 * np.abs(ref).max())
    np.testing.assert_allclose(wood.cholesky()[0], chol.chol[0], rtol=1e-12, atol=1e-12)
    assert isinstance(newton_factor(basis, w, pen), WoodburyFactor)
    wide = KernelBasis.from_gram(gaussian_gram(d.X, sigma=4.0))          # r ≪ n at a large σ
    assert wide.rank < n / 2
    assert isinstance(newton_factor(wide, w, np.r_[0.0, pen[1:wide.rank + 1]]), CholeskyFactor)


def _eigh_spy(monkeypatch) -> list:
    """The shapes of the matrices ``newton`` eigendecomposes from now on."""
    from svmcore.families.soft import newton

    shapes, real_eigh = [], newton.eigh
    monkeypatch.setattr(newton, "eigh", lambda a, **kw: shapes.append(a.shape) or real_eigh(a, **kw))
    return shapes


def _eigen_basis(K, monkeypatch):
    """The basis by eigendecomposing K itself (the pivoted-Cholesky rotation switched off)."""
    from svmcore.families.soft import newton
    monkeypatch.setattr(newton, "ROTATE_UP_TO", -1.0)
    try:
        return KernelBasis.from_gram(K)
    finally:
        monkeypatch.undo()


def _same_fits_along_lambda(ref, other, d, K, y01, sigma, log2_nls):
    """Two bases of one Gram matrix give the same fits along λ: f, Kc = f − b, predictions at
    300 new points, tr H, exact GACV and ranGACV."""
    n = len(y01)
    K_new = gaussian_gram(make_simulation("wahba2d", 300, 11).X, d.X, sigma=sigma)
    deltas = draw_deltas(n, 5, 0)
    for log2_nl in log2_nls:
        lam = 2.0 ** log2_nl / n
        a, b = newton_logistic(ref, y01, lam), newton_logistic(other, y01, lam)
        scale = 1.0 + np.abs(a.f).max()
        np.testing.assert_allclose(b.f, a.f, rtol=0, atol=1e-9 * scale)
        np.testing.assert_allclose(b.b + K @ b.c, b.f, rtol=0, atol=1e-9 * scale)
        np.testing.assert_allclose(b.b + K_new @ b.c, a.b + K_new @ a.c, rtol=0, atol=1e-7 * scale)
        assert traces(b)[0] == pytest.approx(traces(a)[0], rel=1e-9)
        assert gacv(b, y01) == pytest.approx(gacv(a, y01), rel=1e-9)
        assert rangacv(b, y01, deltas) == pytest.approx(rangacv(a, y01, deltas), rel=1e-9)


@pytest.mark.parametrize("sigma", [1.8, 4.0, 8.0, 32.0])      # 1.8: r = 105 of 200, Woodbury form
def test_rotated_pivoted_cholesky_basis_matches_the_eigendecomposition(sigma, monkeypatch):
    """A low-rank Gram matrix (large σ) gets its basis from a pivoted Cholesky factor rotated by
    the eigenvectors of the small Φ_c'Φ_c, never an n × n eigendecomposition (checked by a spy).
    Against eigh(K) itself: the kept eigenvalues, ΦΦ' to the drop rule's bound n ε λ_max, and
    along λ the fits, the kernel coefficients (Kc = f − b, predictions at new points), exact
    GACV and ranGACV."""

    n = 200
    d, K, y01 = _problem("wahba2d", n, 4, sigma)
    ref = _eigen_basis(K, monkeypatch)
    shapes = _eigh_spy(monkeypatch)
    rot = KernelBasis.from_gram(K)
    assert rot.kind == "rotated" and shapes and all(s[0] <= ROTATE_UP_TO * n for s in shapes)
    assert (rot.rank > n / 2) == (sigma == 1.8)            # one case solves in the Woodbury form
    top = ref.evals[-1]
    assert abs(rot.rank - ref.rank) <= 2          # the rule cuts at n ε λ_max in both
    m = min(rot.rank, ref.rank)
    np.testing.assert_allclose(rot.evals[-m:], ref.evals[-m:], rtol=0, atol=n * 1e-15 * top)
    Phi = rot.X[:, 1:]
    assert np.abs(Phi @ Phi.T - K).max() <= 2 * n * np.finfo(float).eps * top
    _same_fits_along_lambda(ref, rot, d, K, y01, sigma, (-12.0, -6.0, 0.0, 4.0))


def test_full_rank_pivoted_basis_without_exact_traces_matches_the_eigenbasis(monkeypatch):
    """A Gram matrix of full numerical rank (small σ) needs no eigendecomposition when no exact
    traces are asked for: its pivoted Cholesky factor itself is the basis (a spy sees no eigh).
    Against the eigenbasis along λ: the fits, Kc = f − b, predictions at new points, GACV (through
    the general trace ‖X R^{-1}‖²) and ranGACV."""

    n = 150
    d, K, y01 = _problem("wahba2d", n, 8, 0.2)
    ref = KernelBasis.from_gram(K)
    assert ref.kind == "eigen" and ref.rank == n
    calls = _eigh_spy(monkeypatch)
    piv = KernelBasis.from_gram(K, exact_traces=False)
    assert piv.kind == "pivoted" and piv.rank == n and calls == []
    Phi = piv.X[:, 1:]
    assert np.abs(Phi @ Phi.T - K).max() <= 1e-13
    assert piv.phi_gram is K               # the Woodbury form uses K itself: nothing was dropped
    _same_fits_along_lambda(ref, piv, d, K, y01, 0.2, (-14.0, -6.0, 0.0, 4.0))


def test_a_pivoted_basis_multiplies_through_its_triangle():
    """A "pivoted" basis keeps only its triangle (``tri``; ``dense`` None) and multiplies by it
    (``design``, ``phi``: BLAS's dtrmv / dtrmm): X z, X'u, Φ x and Φ'u for one and for seven
    columns equal the products with X formed densely (Φ[p] = L, built here from ``dpstrf`` by
    hand), to rounding; the kernel coefficients solve K c = Φθ."""
    from scipy.linalg.lapack import dpstrf

    n = 120
    d, K, y01 = _problem("wahba2d", n, 8, 0.2)
    piv = KernelBasis.from_gram(K, exact_traces=False)
    assert piv.kind == "pivoted" and piv.dense is None and piv.rank == n and piv.n == n
    C, p1, rank, _ = dpstrf(K, lower=1, tol=np.finfo(float).eps * K.diagonal().max())
    assert rank == n
    X = np.ones((n, n + 1))
    X[p1 - 1, 1:] = np.tril(C)
    np.testing.assert_array_equal(piv.X, X)
    rng = np.random.default_rng(0)
    for shape in ((n + 1,), (n + 1, 7)):
        z, u = rng.normal(size=shape), rng.normal(size=(n,) + shape[1:])
        scale = np.abs(X).max() * (np.abs(z).sum(axis=0) + np.abs(u).sum(axis=0)).max()
        for got, want in ((piv.design @ z, X @ z), (piv.design.T @ u, X.T @ u),
                          (piv.phi @ z[1:], X[:, 1:] @ z[1:]), (piv.phi.T @ u, X[:, 1:].T @ u)):
            assert got.shape == want.shape and np.abs(got - want).max() <= 1e-14 * scale
    theta = rng.normal(size=n)
    np.testing.assert_allclose(K @ piv.coefficients(theta), X[:, 1:] @ theta, atol=1e-12)


def test_the_family_asks_for_an_eigenbasis_only_with_exact_gacv(monkeypatch):
    """The sweep's column builds a pivoted basis for a full-rank Gram matrix when GACV is not among
    the criteria, an eigenbasis when it is; ranGACV agrees between the two runs."""
    from svmcore.families.soft import newton

    d = make_simulation("wahba2d", 60, 3)
    kinds = []
    real = newton.KernelBasis.from_gram.__func__
    monkeypatch.setattr(newton.KernelBasis, "from_gram",
                        classmethod(lambda cls, K, **kw: kinds.append(kw) or real(cls, K, **kw)))
    grid = GridSpec.parse("-8:0:4", "-3")
    runs = [sweep(d, grid, model="logistic", criteria=crit, options={"rangacv_reps": 3}, n_jobs=1)
            for crit in (["rangacv"], ["gacv", "rangacv"])]
    assert kinds == [{"exact_traces": False}, {"exact_traces": True}]
    np.testing.assert_allclose(runs[0].table.rangacv, runs[1].table.rangacv, rtol=1e-9)


def test_a_full_rank_gram_matrix_is_eigendecomposed_whole(monkeypatch):
    """Above ``ROTATE_UP_TO`` · n the pivoted factor is set aside and K itself is eigendecomposed."""

    d, K, y01 = _problem("wahba2d", 80, 2, 0.25)
    shapes = _eigh_spy(monkeypatch)
    basis = KernelBasis.from_gram(K)
    assert shapes == [(80, 80)] and basis.rank > 40


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("order", ["C", "F"])
def test_one_right_hand_side_by_triangular_solves_equals_a_dense_solve(lower, order):
    """``newton._cho_solve`` solves a single column by two BLAS dtrsv calls, on either triangle of
    either memory order of the factor; against numpy's LU solve of the matrix itself, and against
    its own several-column route (``cho_solve``) for the same column."""
    from scipy.linalg import cholesky

    rng = np.random.default_rng(7)
    B = rng.normal(size=(60, 60))
    A = B @ B.T + 60.0 * np.eye(60)
    C = np.asarray(cholesky(A, lower=lower), order=order)
    b = rng.normal(size=60)
    b0 = b.copy()
    x = newton._cho_solve((C, lower), b)
    np.testing.assert_allclose(x, np.linalg.solve(A, b), rtol=1e-12, atol=0)
    np.testing.assert_allclose(x, newton._cho_solve((C, lower), b[:, None])[:, 0], rtol=1e-13)
    np.testing.assert_array_equal(b, b0)            # the right-hand side is left as it was


def test_weights_within_e_nu_bound_the_newton_matrix_both_ways():
    """The premise of reusing a factor (newton.py, "Reusing a factor"): when every f_i moves by at
    most ν, every eigenvalue of G₀^{-1} G lies in [e^{−ν}, e^{ν}] (scipy's generalized eigh on the
    formed matrices), and the bound is nearly reached."""
    from svmcore.families.soft.newton import _newton_matrix

    d, K, y01 = _problem("wahba2d", 60, 2, 0.3)
    basis = KernelBasis.from_gram(K)
    rng = np.random.default_rng(4)
    f0 = rng.normal(0.0, 4.0, 60)
    pen = np.r_[0.0, np.full(basis.rank, 2.0 * 2.0 ** -9)]
    for nu in (1e-4, 0.05, 0.5):
        f = f0 + rng.uniform(-nu, nu, 60)
        mats = [_newton_matrix(basis.X, expit(v) * expit(-v), pen) for v in (f0, f)]
        G0, G = (np.triu(M) + np.triu(M, 1).T for M in mats)
        ev = eigh(G, G0, eigvals_only=True)
        assert np.exp(-nu) * (1 - 1e-9) <= ev.min() and ev.max() <= np.exp(nu) * (1 + 1e-9)
        assert ev.max() - ev.min() > 0.2 * (np.exp(nu) - np.exp(-nu))


@pytest.mark.parametrize("sigma", [0.125, 4.0])          # Woodbury base (full rank), Cholesky base
@pytest.mark.parametrize("log2_nl", [-20.0, 0.0])
def test_lagged_factor_solves_match_a_dense_solve(sigma, log2_nl):
    """A factor formed at w₀ solves with G at w = w₀ e^{±1e-4} by preconditioned CG, to the
    accuracy of the exact factors (numpy's dense solve as the reference) and far better than the
    base factor alone; at w = 50 w₀ (outside the bound) CG misses its goal and the solve forms
    G's own factor instead, with the same accuracy."""
    from svmcore.families.soft.newton import LaggedFactor, _newton_matrix

    n = 120
    d, K, y01 = _problem("wahba2d", n, 6, sigma)
    basis = KernelBasis.from_gram(K)
    rng = np.random.default_rng(3)
    w0 = np.exp(rng.uniform(np.log(1e-6), np.log(0.25), n))
    pen = np.r_[0.0, np.full(basis.rank, 2.0 * 2.0 ** log2_nl)]
    rhs = rng.standard_normal((basis.rank + 1, 3))
    for w, formed in ((w0 * np.exp(rng.uniform(-1e-4, 1e-4, n)), 0), (50.0 * w0, 1)):
        G = _newton_matrix(basis.X, w, pen)
        ref = np.linalg.solve(np.triu(G) + np.triu(G, 1).T, rhs)
        base = newton_factor(basis, w0, pen)
        lagged = LaggedFactor(base, basis, w, pen, "auto")
        err = np.abs(lagged.solve(rhs) - ref).max() / np.abs(ref).max()
        assert lagged.formed == formed and err < 1e-7, (formed, err)
        np.testing.assert_allclose(lagged.solve(rhs[:, 2]), ref[:, 2], atol=1e-7 * np.abs(ref).max())
        alone = np.abs(base.solve(rhs) - ref).max() / np.abs(ref).max()
        assert err < 1e-3 * alone


@pytest.mark.parametrize("sigma", [0.125, 4.0])          # Woodbury base (full rank), Cholesky base
def test_each_solve_meets_its_residual_goal(sigma):
    """The looser goals of the solves (``STEP_RTOL``, ``PREDICT_RTOL``) bound the residual against
    the formed G, for the exact factors and a lagged one, at a small and a moderate λ; a lagged
    solve's conjugate gradients stop sooner for them than for ``EXACT_RTOL`` (whose accuracy the
    dense-solve tests above check)."""
    from svmcore.families.soft import newton

    n = 120
    d, K, y01 = _problem("wahba2d", n, 6, sigma)
    basis = KernelBasis.from_gram(K)
    rng = np.random.default_rng(5)
    rhs = rng.standard_normal(basis.rank + 1)
    for log2_nl in (-16.0, 0.0):
        w0 = np.exp(rng.uniform(np.log(1e-6), np.log(0.25), n))
        w = w0 * np.exp(rng.uniform(-1e-4, 1e-4, n))
        pen = np.r_[0.0, np.full(basis.rank, 2.0 * 2.0 ** log2_nl)]
        G = newton._newton_matrix(basis.X, w, pen)
        G = np.triu(G) + np.triu(G, 1).T
        exact = newton.newton_factor(basis, w, pen)
        lagged = newton.LaggedFactor(newton.newton_factor(basis, w0, pen), basis, w, pen, "auto")
        for factor in (exact, lagged):
            for rtol in (newton.PREDICT_RTOL, newton.STEP_RTOL):
                resid = np.abs(rhs - G @ factor.solve(rhs, rtol)).max() / np.abs(rhs).max()
                assert resid <= rtol, (type(factor).__name__, log2_nl, rtol, resid)
        calls = []
        real = lagged.base.precondition
        lagged.base.precondition = lambda r, calls=calls, real=real: calls.append(1) or real(r)
        counts = []
        for rtol in (newton.PREDICT_RTOL, newton.STEP_RTOL, newton.EXACT_RTOL):
            calls.clear()
            lagged.solve(rhs, rtol)
            counts.append(len(calls))
        assert counts[0] <= counts[1] < counts[2], counts


def test_lagged_newton_equals_a_factor_per_iteration():
    """Newton reusing its factor (the default) against a factor formed at every iteration and
    every step solved to ``STEP_RTOL`` (``lag=False``), along a full-rank and a low-rank column:
    the same fits, exact GACV and ranGACV, with one factorization fewer at nine λ in ten or more
    (the last iteration, which only confirms convergence, reuses the factor of the one before),
    on a Woodbury and a Cholesky base; at most one Newton iteration more (a step that another
    will follow is inexact, ``FAR_STEP_RTOL``), and each answer within 1e-9 of 1 + max|f| of three
    dense Newton steps from it. Where the two differ most (σ = 8, log2(nλ) = −6: 4.1e-10 of
    1 + max|f|, GACV 2.7e-10 relative) the answer formed at every iteration stopped one
    iteration earlier and is the one away from the dense reference (4.1e-10 against 1.1e-15)."""
    from svmcore.families.soft.newton import CholeskyFactor, WoodburyFactor

    d = make_simulation("wahba2d", 80, 7)
    y01 = to01(d.y)
    lams = 2.0 ** np.arange(-18.0, 4.0, 2.0) / 80
    deltas = draw_deltas(80, 5, 0)
    for sigma, kind in ((0.15, WoodburyFactor), (8.0, CholeskyFactor)):
        basis = KernelBasis.from_gram(gaussian_gram(d.X, sigma=sigma))
        lagged, fresh = (solve_path(basis, y01, lams, lag=lag) for lag in (True, False))
        assert isinstance(fresh[0].factor, kind)
        saved = sum(b.factorizations - a.factorizations for a, b in zip(lagged, fresh, strict=True))
        assert saved >= 0.9 * len(lams)
        for a, b in zip(lagged, fresh, strict=True):
            assert a.converged and b.converged
            assert b.iterations <= a.iterations <= b.iterations + 1
            assert b.factorizations == b.iterations
            assert np.abs(a.f - b.f).max() <= 1e-9 * (1 + np.abs(b.f).max())
            assert np.abs(a.f - _dense_newton_f(a, y01)).max() <= 1e-9 * (1 + np.abs(a.f).max())
            assert gacv(a, y01) == pytest.approx(gacv(b, y01), rel=1e-9)
            assert rangacv(a, y01, deltas) == pytest.approx(rangacv(b, y01, deltas), rel=1e-9)


@pytest.mark.parametrize("sigma", [0.125, 1.0])         # Woodbury (full rank), G's own factor
def test_steps_that_are_not_the_last_keep_a_factor(sigma, monkeypatch):
    """A Newton step that another will follow is solved to ``FAR_STEP_RTOL`` by CG preconditioned with
    the factor in hand while f is within ``LAG_STEP_DF`` of where it was formed, the previous
    λ's included: along the grid's λ (halving, ranGACV's δ presolved as in the sweeps) fewer
    factorizations than with the rule off (``LAG_STEP_DF`` = ``LAG_STEP_DF_G`` = 0 and every
    step to ``STEP_RTOL``, the code before), at most one Newton iteration more at a λ, f within
    2e-9 of 1 + max|f| (each answer is within ``ftol`` = 1e-9 of the solution) and ranGACV
    within 5e-9 relative (σ = 0.125, log2(nλ) = −20: f 9.3e-10 apart, ranGACV 2.2e-9; elsewhere
    4e-13 or less); on the full-rank column some λ form a single factor (their first step ran on
    the previous λ's); and every answer within 1e-9 of 1 + max|f| of three dense Newton steps
    from it."""
    n = 300
    d = make_simulation("wahba2d", n, 4)
    y01 = to01(d.y)
    basis = KernelBasis.from_gram(gaussian_gram(d.X, sigma=sigma), exact_traces=False)
    lams = 2.0 ** np.arange(5.0, -20.5, -1.0) / n
    deltas = draw_deltas(n, 5, 1)
    new = solve_path(basis, y01, lams, presolve=deltas)
    monkeypatch.setattr(newton, "LAG_STEP_DF", 0.0)
    monkeypatch.setattr(newton, "LAG_STEP_DF_G", 0.0)
    monkeypatch.setattr(newton, "FAR_STEP_RTOL", newton.STEP_RTOL)
    old = solve_path(basis, y01, lams, presolve=deltas)
    assert sum(s.factorizations for s in new) < sum(s.factorizations for s in old)
    for a, b in zip(new, old, strict=True):
        assert a.converged and b.iterations <= a.iterations <= b.iterations + 1
        assert np.abs(a.f - b.f).max() <= 2e-9 * (1 + np.abs(b.f).max())    # each within ftol
        assert rangacv(a, y01, deltas) == pytest.approx(rangacv(b, y01, deltas), rel=5e-9)
    if sigma < 1:
        assert any(s.factorizations == 1 for s in new[1:])
    for sol in new:
        assert np.abs(sol.f - _dense_newton_f(sol, y01)).max() <= 1e-9 * (1 + np.abs(sol.f).max())


def test_an_inexact_step_that_finds_no_decrease_is_redone_accurately(monkeypatch):
    """Convergence is judged on steps solved to ``STEP_RTOL`` only: when the line search finds no
    decrease along an inexact first step (forced here), the iteration is redone with an accurate
    step instead of stopping there; the fit still converges, one iteration later, to f within
    1e-9 of 1 + max|f| of three dense Newton steps, and to the unforced fit's J."""
    d, K, y01 = _problem(n=60, sigma=0.7)
    basis = KernelBasis.from_gram(K)
    lam = 2.0 ** -8 / 60
    plain = newton_logistic(basis, y01, lam)
    real, calls = newton._line_search, []

    def no_decrease_once(*args):
        calls.append(1)
        return None if len(calls) == 1 else real(*args)

    monkeypatch.setattr(newton, "_line_search", no_decrease_once)
    sol = newton_logistic(basis, y01, lam)
    assert sol.converged and sol.iterations == plain.iterations + 1
    assert np.abs(sol.f - _dense_newton_f(sol, y01)).max() <= 1e-9 * (1 + np.abs(sol.f).max())
    assert sol.objective == pytest.approx(plain.objective, rel=1e-12)


def test_warm_path_equals_cold_fits():
    d, K, y01 = _problem("wahba2d", 50, 2, 0.8)
    lams = 2.0 ** np.arange(-12.0, 3.0, 3.0) / 50
    basis = KernelBasis.from_gram(K)
    path = solve_path(basis, y01, lams)
    for lam, sol in zip(lams, path, strict=True):
        cold = newton_logistic(basis, y01, lam)
        np.testing.assert_allclose(sol.f, cold.f, atol=1e-7)
        assert sol.converged


def test_saturated_fits_are_converged_in_f_not_only_in_the_decrement():
    """At tiny λ most p̂ are near 0 or 1: their weights vanish, so the Newton decrement does not
    see their f. Against three dense Newton steps from each answer, f stays within 2e-9 of
    1 + max|f|: the last step is at most ftol = 1e-9 of it, and Newton's error is about that step
    (the decrement rule alone left 1.4e-8 here: lin1d, n = 100, seed 2)."""
    d = make_simulation("lin1d", 100, 2)
    y01 = to01(d.y)
    basis = KernelBasis.from_gram(gaussian_gram(d.X, sigma=0.125))
    for sol in solve_path(basis, y01, 2.0 ** np.arange(-35.0, -20.9, 1.5) / 100):
        assert sol.converged
        assert np.abs(sol.f - _dense_newton_f(sol, y01)).max() <= 2e-9 * (1 + np.abs(sol.f).max())


@pytest.mark.parametrize("solver", ["cholesky", "woodbury"])
def test_tangents_match_finite_differences_in_log_lambda(solver):
    """z' and z'' of ``tangents`` against central differences of cold fits at log λ ± h, and the
    predictor's error shrinking like Δ³ (halving Δ: about 8× smaller; the tangent alone: 4×)."""
    d, K, y01 = _problem("wahba2d", 40, 5, 0.7)
    basis = KernelBasis.from_gram(K)
    lam, h = 2.0 ** -6 / 40, 1e-3

    def fit(log_lam):
        return newton_logistic(basis, y01, float(np.exp(log_lam)), solver=solver)

    t = np.log(lam)
    mid, up, down = fit(t), fit(t + h), fit(t - h)
    z1, z2 = tangents(mid)
    fd1 = (up.z - down.z) / (2 * h)
    fd2 = (up.z - 2 * mid.z + down.z) / h ** 2
    np.testing.assert_allclose(z1, fd1, rtol=1e-5, atol=1e-6 * np.abs(fd1).max())
    np.testing.assert_allclose(z2, fd2, rtol=1e-4, atol=1e-5 * np.abs(fd2).max())
    errs2, errs1 = [], []
    for delta in (0.4, 0.2, 0.1):
        true = fit(t + delta).z
        errs2.append(np.abs(predictor(mid, float(np.exp(t + delta))) - true).max())
        errs1.append(np.abs(mid.z + delta * z1 - true).max())
    for e in (errs2, errs1):
        assert e[0] > e[1] > e[2] > 0
    # given y, the prediction is whichever of the two has the lower objective at the new λ
    from svmcore.families.soft.newton import PREDICT_RTOL, objective
    X = basis.X
    z1_predict = tangents(mid, PREDICT_RTOL)[0]       # the predictor's own (looser) solves
    np.testing.assert_allclose(z1_predict, z1, rtol=0, atol=1e-5 * np.abs(z1).max())
    for delta in (0.4, 4.0):                 # 4 ≈ log2(nλ) steps of 6: the quadratic term overshoots
        lam2 = float(np.exp(t + delta))
        tangent, second = mid.z + delta * z1_predict, predictor(mid, lam2)
        J = [objective(X @ v, v[1:], y01, lam2) for v in (tangent, second)]
        chosen = predictor(mid, lam2, y01)
        np.testing.assert_array_equal(chosen, (tangent, second)[int(np.argmin(J))])
    assert all(6.0 < a / b < 10.0 for a, b in zip(errs2, errs2[1:]))
    assert all(3.0 < a / b < 5.0 for a, b in zip(errs1, errs1[1:]))


@pytest.mark.parametrize("solver", ["cholesky", "woodbury"])
def test_H_matches_finite_differences_in_y(solver):
    d, K, y01 = _problem("wahba2d", 25, 4, 1.0)
    lam = 2.0 ** -3 / 25
    basis = KernelBasis.from_gram(K)
    sol = newton_logistic(basis, y01, lam, solver=solver)
    H = sol.H_dense()
    h = 1e-5
    for i in (0, 7, 19):
        e = np.zeros(25)
        e[i] = h
        fp = newton_logistic(basis, y01 + e, lam, solver=solver).f
        fm = newton_logistic(basis, y01 - e, lam, solver=solver).f
        np.testing.assert_allclose((fp - fm) / (2 * h), H[:, i], atol=1e-6)
    np.testing.assert_allclose(H, _dense_H(K, sol), atol=1e-7)


@pytest.mark.parametrize("solver", ["cholesky", "woodbury"])
def test_exact_gacv_matches_direct_evaluation(solver):
    d, K, y01 = _problem("wahba2d", 30, 5, 1.0)
    n = 30
    for log2_nl in (-6.0, -2.0, 2.0):
        sol = newton_logistic(KernelBasis.from_gram(K), y01, 2.0 ** log2_nl / n, solver=solver)
        H = _dense_H(K, sol)
        sw = np.sqrt(sol.w)
        trH, trWH = np.trace(H), np.trace(sw[:, None] * H * sw[None, :])
        np.testing.assert_allclose(traces(sol), (trH, trWH), rtol=1e-8)
        direct = (np.mean(np.log1p(np.exp(sol.f)) - y01 * sol.f)
                  + trH / n * np.sum(y01 * (y01 - sol.p)) / (n - trWH))
        assert gacv(sol, y01) == pytest.approx(direct, rel=1e-8)
        assert obs(sol, y01) == pytest.approx(np.mean(np.log1p(np.exp(sol.f)) - y01 * sol.f))


def test_rangacv_terms_match_dense_H_and_converge_to_gacv():
    d, K, y01 = _problem("wahba2d", 40, 6, 1.0)
    n = 40
    sol = newton_logistic(KernelBasis.from_gram(K), y01, 2.0 ** -3 / n)
    H = _dense_H(K, sol)
    deltas = draw_deltas(n, 3, 11)
    fit = np.sum(y01 * (y01 - sol.p))
    for r in range(3):
        dl = deltas[:, r]
        want = dl @ H @ dl / n * fit / (dl @ dl - dl @ (sol.w * (H @ dl)))
        assert rangacv_terms(sol, y01, deltas)[r] == pytest.approx(want, rel=1e-8)
    exact = gacv(sol, y01) - obs(sol, y01)
    est = rangacv(sol, y01, draw_deltas(n, 400, 0)) - obs(sol, y01)
    assert est == pytest.approx(exact, rel=0.05)
    # one replicate is far noisier than 400
    assert abs(rangacv(sol, y01, draw_deltas(n, 1, 0)) - obs(sol, y01) - exact) > abs(est - exact)


@pytest.mark.parametrize("sigma", [0.3, 4.0])               # Woodbury base, Cholesky base
def test_presolved_h_and_tangent_match_separate_solves_and_dense_H(sigma, monkeypatch):
    """ranGACV's Hδ and the first tangent solved in the same conjugate gradients as the last
    (lagged) Newton step: along a path, the same fits and iterations as without, Hδ equal to
    X G^{-1} X'δ by numpy's dense solve and to a separate solve, the tangents equal to separate
    solves, and fewer preconditioner applications in all."""
    n = 60
    d, K, y01 = _problem("wahba2d", n, 9, sigma)
    basis = KernelBasis.from_gram(K)
    deltas = draw_deltas(n, 4, 2)
    lams = 2.0 ** np.arange(-12.0, 3.0, 3.0) / n
    counted = []

    def run(presolve):
        calls = []
        for cls in (newton.WoodburyFactor, newton.CholeskyFactor):
            monkeypatch.setattr(cls, "precondition",
                                lambda self, r, real=cls.precondition: calls.append(1) or real(self, r))
        sols = solve_path(basis, y01, lams, presolve=presolve)
        hd = [sol.apply_H(deltas) for sol in sols]
        tg = [tangents(sol, newton.PREDICT_RTOL) for sol in sols]
        monkeypatch.undo()
        counted.append(len(calls))
        return sols, hd, tg

    plain, batched = run(None), run(deltas)
    assert sum(s.presolved is not None for s in batched[0]) >= len(lams) - 1
    for a, b, ha, hb, ta, tb in zip(plain[0], batched[0], plain[1], batched[1], plain[2], batched[2],
                                    strict=True):
        assert a.iterations == b.iterations and b.converged
        np.testing.assert_allclose(b.f, a.f, rtol=0, atol=1e-10 * (1 + np.abs(a.f).max()))
        X = basis.X                          # H = X G^{-1} X' with G formed and solved by numpy
        G = X.T @ (b.w[:, None] * X) + np.diag(np.r_[0.0, np.full(basis.rank, 2 * n * b.lam)])
        np.testing.assert_allclose(hb, X @ np.linalg.solve(G, X.T @ deltas), rtol=0,
                                   atol=1e-8 * np.abs(ha).max())
        np.testing.assert_allclose(hb, ha, rtol=0, atol=1e-9 * np.abs(ha).max())
        for x, y in zip(ta, tb, strict=True):
            np.testing.assert_allclose(y, x, rtol=0, atol=1e-5 * np.abs(x).max())
    assert counted[1] < counted[0]


def test_ckl_and_deviance_by_hand():
    f = np.array([-2.0, 0.0, 3.0])
    p = np.array([0.1, 0.5, 0.8])
    want = np.mean([-pi * fi + np.log(1 + np.exp(fi)) for pi, fi in zip(p, f, strict=True)])
    assert deviance(f, p) == pytest.approx(want, rel=1e-14)
    d, K, y01 = _problem("lin1d", 30, 0, 0.3)
    sol = newton_logistic(KernelBasis.from_gram(K), y01, 2.0 ** -6 / 30)
    assert ckl(sol, d.p) == pytest.approx(np.mean(-d.p * sol.f + np.log1p(np.exp(sol.f))))


def test_kfold_matches_fold_fits_one_by_one():
    from sklearn.model_selection import StratifiedKFold

    d, K, y01 = _problem("wahba2d", 40, 7, 1.0)
    lams = [2.0 ** -4 / 40, 2.0 ** 0 / 40]
    F = kfold_decision_values(K, d.y, lams, folds=4, seed=3)
    for k, lam in enumerate(lams):
        G = np.full(40, np.nan)
        for tr, te in StratifiedKFold(4, shuffle=True, random_state=3).split(np.zeros(40), d.y):
            fit = fit_logistic(d.X[tr], d.y[tr], lam * 40 / len(tr), 1.0)
            G[te] = fit.decision_function(d.X[te])
        np.testing.assert_allclose(F[k], G, atol=1e-7)
    cv = cv_deviance_values(F, d.y)
    assert cv[0] == pytest.approx(deviance(F[0], y01))


def test_family_column_equals_direct_calls():
    d = make_simulation("wahba2d", 40, 8)
    test = make_simulation("wahba2d", 30, 9)
    res = sweep(d, GridSpec.parse("-6:0:3", "-1:0:1"), model="logistic", test=test,
                criteria=["obs", "gacv", "rangacv", "ckl", "cv_deviance"], cv_folds=3,
                options={"rangacv_reps": 3, "rangacv_seed": 5})
    t = res.table
    assert len(t) == 6 and t["converged"].all() and (t["fit_error"] == "").all()
    assert list(t.columns[:9]) == ["log2_sigma", "log2_nlambda", "sigma", "lambda", "obs", "gacv",
                                   "rangacv", "ckl", "cv_deviance"]
    y01 = to01(d.y)
    for _, row in t.iloc[[1, 5]].iterrows():
        fit = fit_logistic(d.X, d.y, row["lambda"], row["sigma"])
        sol = fit.solution
        assert row["obs"] == pytest.approx(obs(sol, y01), rel=1e-8)
        assert row["gacv"] == pytest.approx(gacv(sol, y01), rel=1e-7)
        assert row["rangacv"] == pytest.approx(rangacv(sol, y01, draw_deltas(40, 3, 5)), rel=1e-7)
        assert row["ckl"] == pytest.approx(ckl(sol, d.p), rel=1e-8)
        assert row["test_deviance"] == pytest.approx(
            deviance(fit.decision_function(test.X), to01(test.y)), rel=1e-7)
    assert res.target == "ckl" and set(res.inefficiencies()) >= {"gacv", "rangacv"}


def test_fit_object_and_payload():
    d = make_simulation("lin1d", 40, 1)
    spec = make_spec("logistic", options={"rangacv_reps": 2})
    fit = FAMILY.fit_at(spec, d, -5.0, -2.0)
    np.testing.assert_allclose(fit.decision_function(d.X), fit.solution.f, atol=1e-9)
    np.testing.assert_allclose(fit.predict_proba(d.X), fit.solution.p, atol=1e-9)
    out = soft_cli.fit_payload(spec, d, -5.0, -2.0)
    for key in ("lambda", "sigma", "b", "c", "f", "p_hat", "obs", "gacv", "rangacv", "ckl"):
        assert key in out
    assert out["rangacv_reps"] == 2 and len(out["p_hat"]) == 40
    assert json.loads(json.dumps(out))["gacv"] == pytest.approx(gacv(fit.solution, to01(d.y)))
    assert FAMILY.fit_payload(spec, d, -5.0, -2.0)["gacv"] == out["gacv"]


def test_registry_options_and_checks():
    assert get_family("logistic") is FAMILY
    with pytest.raises(SVMCoreError, match="rangacv_reps"):
        make_spec("logistic", options={"rangacv_reps": 0})
    with pytest.raises(SVMCoreError, match="has no parameter 'xa'"):
        make_spec("logistic", options={"xa": 1})
    spec = make_spec("logistic", criteria=["cv_deviance"], cv_folds=10)
    with pytest.raises(SVMCoreError, match="cv_folds"):
        FAMILY.check(spec, 30, 25, 5)
    with pytest.raises(SVMCoreError, match="limited"):
        FAMILY.check(spec, 6000, 3000, 3000)
    assert FAMILY.default_criteria(False) == ("obs", "gacv", "rangacv")
    assert FAMILY.target_for(spec) == "ckl"


def test_separable_data_is_reported_not_crashed():
    X = np.r_[np.linspace(-2, -1, 10), np.linspace(1, 2, 10)][:, None]
    y = np.r_[-np.ones(10), np.ones(10)]
    data = Dataset("sep", X, y)
    res = sweep(data, GridSpec.parse("-40:0:20", "0"), model="logistic", criteria=["obs", "gacv"])
    t = res.table
    assert (t["fit_error"] == "").all() and np.isfinite(t["gacv"]).all()
    tiny = t[t["log2_nlambda"] == -40].iloc[0]
    assert "saturated" in tiny["note"]
    assert "saturated" not in t[t["log2_nlambda"] == 0].iloc[0]["note"]
    # every p̂ within 1e-6 of its label (checked on the object)
    fit = fit_logistic(X, y, 2.0 ** -40 / 20, 1.0)
    assert np.max(np.abs(to01(y) - fit.predict_proba(X))) < 1e-6


def test_ridge_of_the_on_demand_factor_reaches_the_note(monkeypatch):
    """After a Woodbury solve, G's own factor is formed only for the exact traces; when that
    factorization needs ``_factor``'s ridge, the solution's note (so the row's and the payload's)
    says so. The failure is forced on G's first factorization; the ridged factor still gives the
    GACV of a direct evaluation (the ridge is 1e-12 of G's diagonal)."""
    import svmcore.families.soft.newton as N
    d, K, y01 = _problem(n=30, sigma=0.5)
    basis = KernelBasis.from_gram(K)
    assert basis.rank > basis.n // 2
    sol = newton_logistic(basis, y01, 2.0 ** -6 / 30, solver="woodbury")
    # the factor in hand: a Woodbury factor, or conjugate gradients preconditioned by one
    assert isinstance(getattr(sol.factor, "base", sol.factor), N.WoodburyFactor) and sol.note == ""
    real = N.cholesky
    calls = []

    def fail_first_G(a, *args, **kw):       # G is (r+1)-square; the Woodbury M is n-square
        calls.append(a.shape)
        if len(calls) == 1 and a.shape[0] == basis.rank + 1:
            raise N.LinAlgError("forced")
        return real(a, *args, **kw)

    monkeypatch.setattr(N, "cholesky", fail_first_G)
    value = gacv(sol, y01)
    assert calls[0] == (basis.rank + 1,) * 2 and len(calls) == 2
    assert sol.note == "Newton matrix regularized (W underflow)"
    H = _dense_H(K, sol)
    w = sol.w
    direct = obs(sol, y01) + np.trace(H) / 30 * float(y01 @ (y01 - sol.p)) / (
        30 - np.trace(np.sqrt(w)[:, None] * H * np.sqrt(w)[None, :]))
    assert value == pytest.approx(direct, rel=1e-7)
    gacv(sol, y01)                           # the factor is kept: no second note, no refactor
    assert len(calls) == 2 and sol.note.count("regularized") == 1


def test_row_and_payload_carry_a_note_added_by_the_criteria(monkeypatch):
    """The family's row and the fit payload read the note after the criteria ran."""
    import svmcore.families.soft.newton as N
    monkeypatch.setattr(N, "WOODBURY_FROM", 0.0)       # every column through the Woodbury form
    monkeypatch.setattr(N, "_factor", lambda G: ((N.cholesky(G, lower=False), False),
                                                "Newton matrix regularized (W underflow)"))
    d = make_simulation("wahba2d", 30, 4)
    t = sweep(d, GridSpec.parse("-4:-2:2", "0"), model="logistic", criteria=["obs", "gacv"]).table
    assert (t["note"] == "Newton matrix regularized (W underflow)").all()
    t = sweep(d, GridSpec.parse("-4:-2:2", "0"), model="logistic", criteria=["obs"]).table
    assert (t["note"] == "").all()            # no exact traces: G never factored, no ridge
    out = soft_cli.fit_payload(make_spec("logistic"), d, -4.0, 0.0)
    assert out["note"] == "Newton matrix regularized (W underflow)"


def _blas_threads() -> set[int]:
    from threadpoolctl import threadpool_info

    return {int(i["num_threads"]) for i in threadpool_info() if i["user_api"] == "blas"}


def test_newton_fits_and_their_criteria_run_on_one_blas_thread(monkeypatch):
    """``newton.one_blas_thread``: the Newton fits (a column of the sweep, ``solve_path``,
    ``fit_logistic``) and the criteria at their solutions run on one BLAS thread whatever the
    caller's setting (two threads cost 1.2–3× the time on two cores: its docstring); the
    caller's setting is back afterwards. The column's answers equal a one-thread run's."""
    from threadpoolctl import threadpool_limits

    from svmcore.grid import run_grid

    seen = []
    real = newton.newton_logistic

    def spy(*a, **k):
        seen.append(_blas_threads())
        return real(*a, **k)

    monkeypatch.setattr(newton, "newton_logistic", spy)
    monkeypatch.setattr("svmcore.families.soft.family.newton_logistic", spy)
    d, K, y01 = _problem(n=60)
    spec = make_spec("logistic", data={"source": "simulation", "name": "wahba2d", "n": 60},
                     log2_nlambda="-6:0:2", log2_sigma="0:0:1", criteria=["gacv", "rangacv"])
    with threadpool_limits(1, user_api="blas"):
        one = run_grid(spec, d, n_jobs=1).table
    with threadpool_limits(2, user_api="blas"):
        if _blas_threads() != {2}:
            pytest.skip("BLAS cannot be set to two threads here")
        seen.clear()
        two = run_grid(spec, d, n_jobs=1).table
        solve_path(KernelBasis.from_gram(K), y01, [0.1, 0.01])
        fit_logistic(d.X, d.y, 0.01, 1.0)
        assert _blas_threads() == {2}
    assert len(seen) == 4 + 2 + 1 and all(s == {1} for s in seen), seen
    for col in ("gacv", "rangacv"):
        np.testing.assert_allclose(two[col], one[col], rtol=1e-12)
