"""The exact regularization path (svmcore.families.svm.solvers.path, docs/svm.md; HRTZ 2004) against cvxopt."""
from __future__ import annotations

import zlib

import numpy as np
import pytest

from svmcore.kernels import gaussian_gram, linear_gram
from svmcore.families.svm.solvers._common import finish_dual, kkt_residual, rounding_floor, zero_scale
from svmcore.families.svm.solvers.path import solve_path
from svmcore.families.svm.solvers.qp import solve_cvxopt

RTOL = 1e-6


def _wahba(n, seed, frac_a=0.4, shift=2.0):
    rng = np.random.default_rng(seed)
    n_a = int(round(frac_a * n))
    xa = rng.normal(size=(n_a, 2))
    xb = rng.normal(size=(n - n_a, 2)) * np.sqrt([2.0, 1.0]) + shift
    return np.vstack([xa, xb]), np.r_[np.ones(n_a), -np.ones(n - n_a)]


def _dataset(name):
    if name == "separable":
        X, y = _wahba(60, 11, shift=6.0)
    elif name == "overlapping":
        X, y = _wahba(70, 12)
    elif name == "unbalanced":
        X, y = _wahba(80, 13, frac_a=0.1)
    elif name == "weighted":
        X, y = _wahba(70, 14)
    elif name == "duplicates":
        X, y = _wahba(50, 15)
        X = np.vstack([X, X[:12], X[5:9]])          # exact copies, some twice
        y = np.r_[y, y[:12], y[5:9]]
    elif name == "mirrored":                         # B = −A: events come in simultaneous pairs
        rng = np.random.default_rng(16)
        xa = rng.normal(size=(30, 2)) + 0.7
        X, y = np.vstack([xa, -xa]), np.r_[np.ones(30), -np.ones(30)]
    elif name == "grid":                             # lattice points: many exact distance ties
        g = np.arange(8.0)
        X = np.array([(a, b) for a in g for b in g]) / 3.0
        y = np.where(X[:, 0] + 0.37 * X[:, 1] + 0.1 * np.sin(7 * X[:, 1]) > 1.6, 1.0, -1.0)
    else:
        raise KeyError(name)
    upper = np.where(y > 0, 0.5, 1.5) if name == "weighted" else np.ones(len(y))
    return X, y, upper


def _objective(K, y, upper, sol):
    """(1/n) Σ L(y_i)(1 − y_i f_i)_+ + λ c'Kc, c = y α / (2nλ) (docs/svm.md)."""
    n = len(y)
    c = y * sol.alpha / (2 * n * sol.lam)
    return float(np.mean(upper * np.maximum(0.0, 1.0 - y * sol.f)) + sol.lam * c @ K @ c)


def _bordered(K, E):
    """The bordered elbow matrix [[0, 1'], [1, K_EE]], formed densely (the reference solves)."""
    A = np.zeros((len(E) + 1, len(E) + 1))
    A[0, 1:] = A[1:, 0] = 1.0
    A[1:, 1:] = K[np.ix_(E, E)]
    return A


def _compare(K, y, upper, lams, **kw):
    sols = solve_path(K, y, upper, lams, **kw)
    assert [s.lam for s in sols] == list(lams)              # input order
    worst_f = worst_obj = 0.0
    for sol in sols:
        assert sol.solver == "path"
        ref = solve_cvxopt(K, y, upper, sol.lam)
        o_p, o_r = _objective(K, y, upper, sol), _objective(K, y, upper, ref)
        if ref.polished or ref.kkt_residual <= sol.kkt_residual:
            worst_obj = max(worst_obj, abs(o_p - o_r) / abs(o_r))
        else:
            # cvxopt did not converge (not KKT-exact, worse than the path): the primal objective
            # is minimised, so the path must not be worse than cvxopt's point. The path's answer
            # is within max(1e-8, f's rounding floor), its contract (mirrored-linear at
            # log2(nλ) = −23.2: 1.35e-8 on AVX-512 OpenBLAS kernels, floor 1.7e-7)
            assert sol.kkt_residual <= max(1e-8, rounding_floor(K, y, sol.alpha, sol.lam, sol.b))
            worst_obj = max(worst_obj, (o_p - o_r) / abs(o_r))
        free = (sol.alpha > 1e-9 * upper) & (sol.alpha < upper * (1 - 1e-9))
        if free.any():
            df = np.abs(sol.f - ref.f)
        else:       # b is any point of an interval (midpoint convention): compare f − b
            df = np.abs((sol.f - sol.b) - (ref.f - ref.b))
        if ref.polished or ref.kkt_residual <= sol.kkt_residual:
            # (an unpolished cvxopt answer with a worse KKT residual is the less accurate one:
            # its b may be off by its interior-point tolerance; the objectives still agree)
            worst_f = max(worst_f, np.max(df) / max(1.0, np.max(np.abs(ref.f))))
        assert np.all(sol.alpha >= 0) and np.all(sol.alpha <= upper)
        assert abs(y @ sol.alpha) <= 1e-9 * upper.sum()
    return sols, worst_f, worst_obj


CASES = [(d, k) for d in ("separable", "overlapping", "unbalanced", "weighted", "duplicates")
         for k in ("gauss0.5", "gauss2", "gauss8", "linear")]
CASES += [(d, k) for d in ("mirrored", "grid") for k in ("gauss1", "linear")]


@pytest.mark.parametrize("data,kernel", CASES)
def test_path_matches_cvxopt(data, kernel):
    X, y, upper = _dataset(data)
    K = linear_gram(X) if kernel == "linear" else gaussian_gram(X, sigma=float(kernel[5:]))
    n = len(y)
    rng = np.random.default_rng(zlib.crc32(f"{data}-{kernel}".encode()))
    lams = 2.0 ** rng.uniform(-25, 0, size=4) / n
    sols, worst_f, worst_obj = _compare(K, y, upper, lams)
    assert worst_f <= RTOL, (worst_f, [s.info for s in sols])
    assert worst_obj <= RTOL, (worst_obj, [s.info for s in sols])


def test_full_grid_few_fallbacks():
    """On the paper grid the path needs cvxopt at few λ (at most at the smallest ones, where
    f = K c + b loses digits) and every answer satisfies KKT."""
    X, y, upper = _dataset("overlapping")
    n = len(y)
    lams = 2.0 ** np.arange(-25, 1) / n
    for sigma in (0.25, 1.0, 4.0):
        K = gaussian_gram(X, sigma=sigma)
        sols = solve_path(K, y, upper, lams)
        for sol in sols:
            assert sol.kkt_residual <= 1e-6
            assert kkt_residual(y, sol.f, sol.alpha, upper, scale=zero_scale(n, sol.lam)) == \
                pytest.approx(sol.kkt_residual)
        assert sols[0].info["fallbacks"] <= 3
        assert all(s.info["fallback"] is False for s in sols if n * s.lam >= 2.0 ** -18)


def test_below_path_end_a_is_constant():
    """Once no point is at its bound, a = α/(2nλ) and f stay constant as λ decreases."""
    X, y, upper = _dataset("separable")
    K = gaussian_gram(X, sigma=1.0)
    n = len(y)
    lams = np.array([2.0 ** -20, 2.0 ** -24]) / n
    s1, s2 = solve_path(K, y, upper, lams)
    assert not np.any(s1.alpha >= upper * (1 - 1e-6))
    a1, a2 = s1.alpha / (2 * n * s1.lam), s2.alpha / (2 * n * s2.lam)
    np.testing.assert_allclose(a1, a2, rtol=1e-8, atol=1e-10 * np.max(a1))
    np.testing.assert_allclose(s1.f, s2.f, rtol=0, atol=1e-8)


def test_single_lambda_and_order():
    X, y, upper = _dataset("weighted")
    K = gaussian_gram(X, sigma=1.0)
    n = len(y)
    lams = np.array([2.0 ** -3, 2.0 ** -10, 2.0 ** -1, 2.0 ** -6]) / n
    sols = solve_path(K, y, upper, lams)
    assert [s.lam for s in sols] == list(lams)
    one = solve_path(K, y, upper, [lams[1]])[0]
    np.testing.assert_allclose(one.f, sols[1].f, rtol=0, atol=1e-8)


@pytest.mark.parametrize("kind", ["explicit", "schur", "factored"])
def test_maintained_elbow_inverse_matches_direct_solve(kind, random_elbow):
    """Random enter/leave sequences: the maintained inverse of [[0, 1'], [1, K_EE]] (rank-one
    updates, or block-LU with a Schur complement on an inverted or an LU-factored base) solves
    the system like numpy's LU does."""
    from svmcore.families.svm.solvers.elbow import ExplicitInverse, SchurInverse

    elbow = random_elbow({"explicit": 4, "schur": 3, "factored": 6}[kind], schur=kind != "explicit",
                         factored=kind == "factored")
    st, K, rng = elbow.state, elbow.K, elbow.rng
    worst = 0.0
    for step in range(150):
        elbow.step()
        if st.needs_refactor() and step % 3:        # also solve with k beyond kmax
            st.refactor()
        m = st.m
        A = _bordered(K, st.E)
        np.testing.assert_array_equal(st.A[:m + 1, :m + 1], A)
        rhs = rng.normal(size=m + 1)
        x = st.F.apply(rhs)                        # the maintained inverse alone
        ref = np.linalg.solve(A, rhs)
        worst = max(worst, np.max(np.abs(x - ref)) / np.max(np.abs(ref)))
    assert isinstance(st.F, ExplicitInverse if kind == "explicit" else SchurInverse)
    if kind != "explicit":
        assert st.F.factored == (kind == "factored")
    if kind == "factored":                   # no merging: a factored base has no inverse to fold into
        assert st.F.k > 0
        with pytest.raises(ValueError, match="factored"):
            st.F.merged()
        st.refactor(merge=True)
        assert st.F.factored and st.F.k == 0 and st.F.merges == 0
    assert worst <= 1e-8, worst


def test_factored_base_solves_like_lu_and_falls_back_on_a_singular_base():
    """A block-LU inverse on a factored base (LU factors of A0) applies A0⁻¹ as numpy's solve
    does, columns included (a pinned base position); with a repeated point A0 is exactly
    singular, getrf meets a zero pivot, and the base is the (pseudo-)inverse instead."""
    from svmcore.families.svm.solvers.elbow import SchurInverse
    from svmcore.kernels import gaussian_gram

    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 2))
    K = gaussian_gram(X, sigma=0.5)
    E = np.arange(0, 50, 2)
    A = _bordered(K, E)
    F = SchurInverse(K, A, E, factored=True)
    assert F.factored and F.B0 is None
    rhs = rng.normal(size=A.shape[0])
    ref = np.linalg.solve(A, rhs)
    assert np.max(np.abs(F.apply(rhs) - ref)) <= 1e-9 * np.max(np.abs(ref))
    np.testing.assert_allclose(F._base_column(3), np.linalg.solve(A, np.eye(A.shape[0])[3]),
                               rtol=1e-9, atol=1e-9 * np.max(np.abs(np.linalg.inv(A))))
    Xd = np.vstack([X, X[:1]])                     # point 60 repeats point 0
    Kd = gaussian_gram(Xd, sigma=0.5)
    Ed = np.r_[E, 60]
    Fd = SchurInverse(Kd, _bordered(Kd, Ed), Ed, factored=True)
    assert not Fd.factored and Fd.B0 is not None


def _count_dpotri(monkeypatch):
    """A list that gains an entry at each LAPACK potri call (``invert_bordered``'s Cholesky
    branch)."""
    from scipy.linalg import lapack

    used, original = [], lapack.dpotri
    monkeypatch.setattr(lapack, "dpotri", lambda *a, **k: used.append(1) or original(*a, **k))
    return used


@pytest.mark.parametrize("case", ["spread", "near_duplicates", "duplicates"])
def test_bordered_inverse_by_cholesky_only_where_it_is_accurate(monkeypatch, case):
    """``invert_bordered``: through K_EE's Cholesky factor where that factor says K_EE is well
    conditioned, and then A⁻¹ to rounding (against LU on A, and A B = I); else LU itself."""
    from svmcore.families.svm.solvers import elbow as EL

    X, _ = _wahba(80, 21)
    if case != "spread":
        X[40:] = X[:40] + (1e-4 if case == "near_duplicates" else 0.0)
    A = _bordered(gaussian_gram(X, sigma=0.5), np.arange(80))
    monkeypatch.setattr(EL, "CHOLESKY_FROM", 50)
    used = _count_dpotri(monkeypatch)
    B = EL.invert_bordered(A)
    if case == "duplicates":                    # exactly singular: the pseudo-inverse
        assert not used
        np.testing.assert_array_equal(B, np.linalg.pinv(A))
        return
    if case == "near_duplicates":               # LU (cond 3e13): A⁻¹ to its rounding level
        assert not used
        cond = np.linalg.cond(A)
        ref = np.linalg.inv(A)
        assert np.max(np.abs(np.eye(81) - A @ B)) <= 1e-15 * cond
        assert np.max(np.abs(B - ref)) <= 1e-15 * cond * np.max(np.abs(ref))
        return
    assert used
    cond = np.linalg.cond(A)                    # 6e5
    ref = np.linalg.inv(A)
    assert np.max(np.abs(B - ref)) <= 1e-15 * cond * np.max(np.abs(ref))
    miss = np.max(np.abs(np.eye(81) - A @ B))
    assert miss <= 1e-15 * cond and miss <= 4 * np.max(np.abs(np.eye(81) - A @ ref))
    np.testing.assert_array_equal(B, B.T)


def test_lu_inverse_is_numpys_inverse_in_c_order_and_refuses_a_singular_matrix():
    """``elbow.lu_inverse`` (getrf + blocked getri): on a bordered elbow matrix of 300 spread
    points, A⁻¹ as ``np.linalg.inv`` gives it to the rounding level (cond·eps), with
    |I − A B| no larger than numpy's times 4, in C order; an exactly singular matrix (80 points,
    each twice) raises ``LinAlgError`` as ``np.linalg.inv`` does."""
    from svmcore.families.svm.solvers.elbow import lu_inverse

    X, _ = _wahba(300, 3)
    A = _bordered(gaussian_gram(X, sigma=0.5), np.arange(300))
    B, ref = lu_inverse(A), np.linalg.inv(A)
    cond = np.linalg.cond(A)
    assert B.flags["C_CONTIGUOUS"]
    assert np.max(np.abs(B - ref)) <= 1e-15 * cond * np.max(np.abs(ref))
    eye = np.eye(301)
    assert np.max(np.abs(eye - A @ B)) <= 4 * max(np.max(np.abs(eye - A @ ref)), 1e-15)
    X, _ = _wahba(80, 21)
    X[40:] = X[:40]
    A = _bordered(gaussian_gram(X, sigma=0.5), np.arange(80))
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.inv(A)
    with pytest.raises(np.linalg.LinAlgError):
        lu_inverse(A)


@pytest.mark.parametrize("size", [40, 530])
def test_explicit_inverse_changes_in_place_as_numpy_rounds_them(monkeypatch, size):
    """``ExplicitInverse``'s rank-one changes from ``RANK_ONE_COMPILED_FROM`` (512) points are
    written in place by the compiled loop (``_events.rank_one_update``): bit for bit the inverse
    numpy's ``B += np.outer(w, w / c)`` and ``B -= np.outer(col, col / col_r)`` give, replayed
    here on a copy, through points entering and leaving across the threshold; below it numpy's
    own. Either way B solves the bordered system to its rounding level against numpy's LU."""
    from svmcore.families.svm.solvers import _events as EV
    from svmcore.families.svm.solvers import elbow as EL

    calls = []
    original = EV.rank_one_update
    monkeypatch.setattr(EV, "rank_one_update", lambda *a: calls.append(a[3]) or original(*a))
    X, _ = _wahba(size + 40, 7)
    K = gaussian_gram(X, sigma=0.5)
    E = list(range(size))
    F = EL.ExplicitInverse(_bordered(K, E))
    ref = F.B[:size + 1, :size + 1].copy()
    rng = np.random.default_rng(1)
    for step in range(24):
        M = F.M
        if step % 3 == 2:                       # a leave: the last position moves into j
            j = int(rng.integers(M - 1))
            r = j + 1
            col = ref[:, r].copy()
            ref -= np.outer(col, col / col[r])
            ref[r, :], ref[:, r] = ref[M - 1, :], ref[:, M - 1]
            ref[r, r] = ref[M - 1, M - 1]
            ref = ref[:M - 1, :M - 1].copy()
            F.remove(j)
            E[j] = E[-1]
            E.pop()
        else:                                   # an entering point
            p = size + step
            u = np.r_[1.0, K[E, p]]
            c, data = F.prepare_add(p, u, K[p, p])
            w = data[0]                             # F's own B u
            grown = np.zeros((M + 1, M + 1))
            grown[:M, :M] = ref + np.outer(w, w / c)
            grown[M, :M] = grown[:M, M] = -w / c
            grown[M, M] = 1.0 / c
            ref = grown
            F.commit_add(data)
            E.append(p)
        np.testing.assert_array_equal(F.B[:F.M, :F.M], ref)
    A = _bordered(K, E)
    rhs = rng.normal(size=len(E) + 1)
    exact = np.linalg.solve(A, rhs)
    miss = np.max(np.abs(F.apply(rhs) - exact)) / np.max(np.abs(exact))
    assert miss <= 1e-15 * np.linalg.cond(A), miss
    assert (len(calls) == 24) == (size >= EL.RANK_ONE_COMPILED_FROM)
    assert not calls or min(calls) >= EL.RANK_ONE_COMPILED_FROM


def _count_dgetri(monkeypatch):
    """A list that gains an entry at each LAPACK getri call (``lu_inverse``)."""
    from scipy.linalg import lapack

    used, original = [], lapack.dgetri
    monkeypatch.setattr(lapack, "dgetri", lambda *a, **k: used.append(1) or original(*a, **k))
    return used


@pytest.mark.parametrize("points", [199, 200, 320])
def test_bordered_inverse_by_getri_from_lu_inverse_from(monkeypatch, points):
    """``invert_bordered`` below ``CHOLESKY_FROM``: LAPACK's getri (``lu_inverse``) from
    ``LU_INVERSE_FROM`` (200) elbow points, ``np.linalg.inv`` below (bitwise); A⁻¹ to its
    rounding level (cond·eps against numpy's inverse, |I − A B| no larger than numpy's
    times 4) on an ill-conditioned elbow (near duplicates, cond ~1e11)."""
    from svmcore.families.svm.solvers import elbow as EL

    X, _ = _wahba(points, 5)
    X[points // 2:] = X[:points - points // 2] + 1e-4
    A = _bordered(gaussian_gram(X, sigma=0.5), np.arange(points))
    used = _count_dgetri(monkeypatch)
    B, ref = EL.invert_bordered(A), np.linalg.inv(A)
    assert bool(used) == (points >= EL.LU_INVERSE_FROM == 200)
    if not used:
        np.testing.assert_array_equal(B, ref)
        return
    cond = np.linalg.cond(A)
    assert cond > 1e9
    assert np.max(np.abs(B - ref)) <= 1e-15 * cond * np.max(np.abs(ref))
    eye = np.eye(points + 1)
    assert np.max(np.abs(eye - A @ B)) <= 4 * np.max(np.abs(eye - A @ ref))


@pytest.mark.parametrize("data", ["overlapping", "weighted", "duplicates"])
def test_path_with_getri_inverses_gives_the_same_answers(monkeypatch, data):
    """Every elbow inverted by getri (``LU_INVERSE_FROM`` lowered to 1, an inversion every 8
    changes): cvxopt's answers, and those of numpy's inverses within 1e-9 of max |f|."""
    from svmcore.families.svm.solvers import elbow as EL

    X, y, upper = _dataset(data)
    K = gaussian_gram(X, sigma=0.5)
    lams = 2.0 ** np.array([-19.7, -13.1, -6.7, -1.2]) / len(y)
    monkeypatch.setattr(EL.ExplicitInverse, "kmax", lambda self: 8)
    by_numpy = solve_path(K, y, upper, lams)
    monkeypatch.setattr(EL, "LU_INVERSE_FROM", 1)
    used = _count_dgetri(monkeypatch)
    sols, worst_f, worst_obj = _compare(K, y, upper, lams)
    assert len(used) >= 5, len(used)
    assert worst_f <= RTOL and worst_obj <= RTOL, (worst_f, worst_obj)
    for a, b in zip(sols, by_numpy):
        assert np.max(np.abs(a.f - b.f)) <= 1e-9 * np.max(np.abs(b.f))


@pytest.mark.parametrize("schur_from", [500, 0])
@pytest.mark.parametrize("data", ["overlapping", "weighted"])
def test_path_with_cholesky_inverses_gives_the_same_answers(monkeypatch, data, schur_from):
    """Well-conditioned elbows inverted through their Cholesky factor (``CHOLESKY_FROM`` lowered
    to 8 points, an inversion every 8 changes), with the explicit and the block-LU inverse:
    cvxopt's answers, and the answers of LU inversions."""
    from svmcore.families.svm.solvers import elbow as EL
    from svmcore.families.svm.solvers import path as P

    X, y, upper = _dataset(data)
    K = gaussian_gram(X, sigma=0.5)
    lams = 2.0 ** np.array([-19.7, -13.1, -6.7, -1.2]) / len(y)
    monkeypatch.setattr(P._Path, "SCHUR_FROM", schur_from)
    monkeypatch.setattr(EL.ExplicitInverse, "kmax", lambda self: 8)
    monkeypatch.setattr(EL.SchurInverse, "kmax", lambda self: 8)
    monkeypatch.setattr(P._Path, "MERGES", 0)
    by_lu = solve_path(K, y, upper, lams)
    monkeypatch.setattr(EL, "CHOLESKY_FROM", 8)
    used = _count_dpotri(monkeypatch)
    sols, worst_f, worst_obj = _compare(K, y, upper, lams)
    assert len(used) >= 5, len(used)          # (none of these elbows is ill-conditioned)
    assert worst_f <= RTOL and worst_obj <= RTOL, (worst_f, worst_obj)
    for a, b in zip(sols, by_lu):
        assert np.max(np.abs(a.f - b.f)) <= 1e-9 * np.max(np.abs(b.f))


def test_a_point_the_factored_inverse_missed_is_bordered_into_one_fresh_factorization(
        monkeypatch, random_elbow):
    """``try_add``'s last resort on a factored block-LU elbow inverse that missed a point's pivot:
    one rebuild (getrf of A, not an LU for the pivot and a second one with the point in it), the
    pivot K_pp − u'A⁻¹u as a dense solve gives it, the point bordered in as the fresh base's only
    change, and the inverse then solves the grown bordered matrix. A point whose pivot is below
    the tolerance is left out, the rebuilt base kept; a fresh base is not rebuilt again."""
    from svmcore.families.svm.solvers import path as P
    from svmcore.families.svm.solvers.elbow import SchurInverse

    elbow = random_elbow(5, schur=True, factored=True)
    st, K = elbow.state, elbow.K
    for _ in range(6):
        elbow.step()
    assert isinstance(st.F, SchurInverse) and st.F.factored and st.F.k > 0
    rebuilds, refactor = [], P._Path.refactor
    monkeypatch.setattr(P._Path, "refactor", lambda self, merge=False: (
        rebuilds.append(self.m), refactor(self, merge))[1])
    out = np.setdiff1d(np.arange(K.shape[0]), st.E)
    p, q = int(out[0]), int(out[1])
    m = st.m
    u = np.r_[1.0, K[st.E, p]]
    pivot = K[p, p] - u @ np.linalg.solve(_bordered(K, st.E), u)
    st.stale = True                                     # as solve_elbow leaves it on a miss
    assert st._add_on_fresh_factors(p, st._border(p), K[p, p], None)
    assert rebuilds == [m] and st.m == m + 1 and st.E[-1] == p and not st.stale
    assert st.F.factored and st.F.k == 1
    assert abs(st.F.S[0, 0] - pivot) <= 1e-9 * abs(pivot)
    A = _bordered(K, st.E)
    rhs = elbow.rng.normal(size=m + 2)
    ref = np.linalg.solve(A, rhs)
    assert np.max(np.abs(st.F.apply(rhs) - ref)) <= 1e-8 * np.max(np.abs(ref))
    st.refactor()                                       # a fresh base, then a refused point
    rebuilds.clear()
    st.stale = True
    assert not st._add_on_fresh_factors(q, st._border(q), K[q, q], 1e12)
    assert rebuilds == [] and st.m == m + 1 and st.F.k == 0 and st.stale


def _misses_along_random_changes(carry: bool, seed: int = 0):
    """A factored block-LU elbow of 200 of 400 uniform points (σ = 0.1: ill-conditioned, so its
    directions miss the check at 1e-11) through 120 random enters and leaves: how many directions
    needed refinement, and the largest relative distance to a dense solve."""
    from svmcore.families.svm.solvers import path as P
    from svmcore.kernels import gaussian_gram

    rng = np.random.default_rng(seed)
    K = gaussian_gram(rng.random((400, 2)), sigma=0.1)
    st = P._Path(K, np.where(rng.random(400) < 0.5, 1.0, -1.0), np.ones(400))
    st.SCHUR_FROM = st.FACTORED_FROM = 0
    st.status = np.zeros(400, dtype=np.int8)
    for p in rng.permutation(400)[:200]:
        st.try_add(int(p))
    st.refactor()
    if not carry:
        st._carried_correction = lambda: np.zeros(st.m + 1)
    misses, worst = 0, 0.0
    for _ in range(120):
        if rng.random() < 0.5:
            st.remove(int(rng.integers(st.m)))
        else:
            st.try_add(int(rng.choice(np.setdiff1d(np.arange(400), st.E))))
        if st.needs_refactor():
            st.refactor()
        raw = st.F.direction(st.y) + st._carried_correction()
        a0, beta, _ = st.direction()
        ref = np.linalg.solve(_bordered(K, st.E), np.r_[0.0, st.y[st.E]])
        misses += not np.array_equal(np.r_[a0, beta], raw)
        worst = max(worst, np.max(np.abs(np.r_[a0, beta] - ref)) / np.max(np.abs(ref)))
    return misses, worst


def test_carried_refinement_spares_misses_and_keeps_directions():
    """The correction refinement added to the last block-LU direction, carried to the next one
    (``_carried_correction``), spares refinements: the directions' errors come from the base and
    the changes' columns, which persist. On an ill-conditioned elbow, 37 of 120 directions need
    refinement with it, 62 without, and every direction is the dense solve's (to 1e-7; the dense
    solve itself is good to about cond(A)·ε there)."""
    with_carry, worst = _misses_along_random_changes(True)
    without, worst_without = _misses_along_random_changes(False)
    assert with_carry <= 0.75 * without, (with_carry, without)
    assert without >= 20
    assert worst <= 1e-7 and worst_without <= 1e-7, (worst, worst_without)


@pytest.mark.parametrize("seed", [3, 8])
def test_block_lu_direction_matches_direct_solve(seed, random_elbow):
    """Random enter/leave sequences on a block-LU elbow inverse: its direction A⁻¹[0; y_E] (base
    part formed once per rebuild and kept while base points are pinned, their equations absorbed
    by their multipliers) equals numpy's dense solve of the current bordered matrix, with base
    points pinned and added points present at once, and across rebuilds."""
    from svmcore.families.svm.solvers.elbow import SchurInverse

    elbow = random_elbow(seed, schur=True)
    st, K = elbow.state, elbow.K
    worst, mixed, rebuilds = 0.0, 0, 0
    for step in range(200):
        elbow.step()
        if st.needs_refactor():
            st.refactor(merge=step % 2 == 0)
            rebuilds += 1
        A = _bordered(K, st.E)
        ref = np.linalg.solve(A, np.r_[0.0, st.y[st.E]])
        worst = max(worst, np.max(np.abs(st.F.direction(st.y) - ref)) / np.max(np.abs(ref)))
        mixed += bool(st.F.R) and bool(st.F.N)
    assert isinstance(st.F, SchurInverse)
    assert mixed >= 20 and rebuilds >= 3, (mixed, rebuilds)
    assert worst <= 1e-8, worst


def test_large_elbow_direction_with_an_explicit_inverse_not_yet_rebuilt(random_elbow):
    """An elbow that has grown to ``SCHUR_FROM`` points keeps its explicit inverse until the next
    rebuild: its direction is still the dense solve's (the block-LU shortcut is not asked of it)."""
    from svmcore.families.svm.solvers.elbow import ExplicitInverse

    elbow = random_elbow(4, schur=False)
    st, K = elbow.state, elbow.K
    st.SCHUR_FROM = st.m                     # as if the elbow had just grown past the threshold
    assert isinstance(st.F, ExplicitInverse) and not st.needs_refactor()
    x0, xE, dh = st.direction()
    A = _bordered(K, st.E)
    ref = np.linalg.solve(A, np.r_[0.0, st.y[st.E]])
    np.testing.assert_allclose(np.r_[x0, xE], ref, rtol=0, atol=1e-8 * np.abs(ref).max())
    np.testing.assert_allclose(dh, K[:, st.E] @ xE + x0, rtol=0, atol=1e-8 * np.abs(dh).max())


@pytest.mark.parametrize("data", ["overlapping", "duplicates", "weighted"])
def test_schur_updates_give_the_same_path(monkeypatch, data):
    """The block-LU elbow inverse (used for large elbows) gives cvxopt's answers, and the same
    answers as the explicit inverse down to nλ = 2^-24 (where the objective, ~1e-7, is below
    what f's rounding lets cvxopt resolve to 1e-6)."""
    from svmcore.families.svm.solvers import path as P

    X, y, upper = _dataset(data)
    n = len(y)
    K = gaussian_gram(X, sigma=0.5)
    lams = 2.0 ** np.array([-19.7, -13.1, -6.7, -1.2]) / n
    deep = 2.0 ** np.array([-24.0, -22.3, -19.7, -13.1]) / n
    explicit = solve_path(K, y, upper, deep)
    monkeypatch.setattr(P._Path, "SCHUR_FROM", 0)
    sols, worst_f, worst_obj = _compare(K, y, upper, lams)
    assert worst_f <= RTOL and worst_obj <= RTOL, (worst_f, worst_obj)
    assert all(not s.info["fallback"] for s in sols)
    for a, b in zip(solve_path(K, y, upper, deep), explicit):
        scale = np.max(np.abs(b.f))
        assert np.max(np.abs(a.f - b.f)) <= 1e-9 * scale
        assert _objective(K, y, upper, a) == pytest.approx(_objective(K, y, upper, b), rel=1e-8)


@pytest.mark.parametrize("how_bad", [1e-5, 1.0])
def test_failed_kkt_check_is_repaired_on_a_working_set(monkeypatch, how_bad):
    """When the path's answer at a requested λ fails the KKT check and the cheap repairs do not
    help, a working-set QP (not a full cvxopt solve) repairs it — started from that answer, or,
    when it is far off (residual > 1e-3), from the last accepted answer at a larger λ; the answers
    still equal cvxopt's."""
    from svmcore.families.svm.solvers import path as P

    X, y, upper = _dataset("weighted")
    n = len(y)
    K = gaussian_gram(X, sigma=4.0)
    lams = 2.0 ** np.array([-3.5, -9.2, -16.8]) / n
    spoiled = {float(lams[1])}
    original = P._Path.solution_at

    def spoil(self, s_req, lam, tol=0.0):
        sol = original(self, s_req, lam, tol)
        if float(lam) in spoiled:                  # move two free points to their bounds
            free = np.flatnonzero((sol.alpha > 0) & (sol.alpha < upper))
            sol.alpha[free[:2]] = upper[free[:2]]
            sol.kkt_residual = how_bad
        return sol

    monkeypatch.setattr(P._Path, "solution_at", spoil)
    monkeypatch.setattr(P._Path, "repair_at", lambda self, *a, **k: None)
    monkeypatch.setattr(P, "finish_dual", lambda *a, **k: (_ for _ in ()).throw(RuntimeError))
    sols, worst_f, worst_obj = _compare(K, y, upper, lams)
    assert worst_f <= RTOL and worst_obj <= RTOL, (worst_f, worst_obj)
    assert sols[1].info["repaired"] and not sols[1].info["fallback"]
    assert sols[0].info["working_set_repairs"] == 1 and sols[0].info["fallbacks"] == 0


@pytest.mark.parametrize("how_bad, tried", [(1e-5, True), (1.0, False)])
def test_an_answer_far_from_a_solution_skips_the_repairs_on_its_own_sets(monkeypatch, how_bad,
                                                                        tried):
    """The active-set rounds on the path's state and ``finish_dual`` correct the answer's own sets;
    from an answer far off (residual above NEAR_SOLUTION = 1e-3) they are not tried and the working
    set repairs it at once; near a solution they are tried first. Either way the answers equal
    cvxopt's."""
    from svmcore.families.svm.solvers import path as P

    X, y, upper = _dataset("weighted")
    n = len(y)
    K = gaussian_gram(X, sigma=4.0)
    lams = 2.0 ** np.array([-3.5, -9.2, -16.8]) / n
    original, calls = P._Path.solution_at, []

    def spoil(self, s_req, lam, tol=0.0):
        sol = original(self, s_req, lam, tol)
        if float(lam) == float(lams[1]) and not calls:     # the first answer at lams[1] only
            free = np.flatnonzero((sol.alpha > 0) & (sol.alpha < upper))
            sol.alpha[free[:2]] = upper[free[:2]]
            sol.kkt_residual = how_bad
        return sol

    def refused(name):
        def step(*a, **k):
            calls.append(name)
            return None if name == "repair_at" else (_ for _ in ()).throw(RuntimeError)
        return step

    monkeypatch.setattr(P._Path, "solution_at", spoil)
    monkeypatch.setattr(P._Path, "repair_at", refused("repair_at"))
    monkeypatch.setattr(P, "finish_dual", refused("finish_dual"))
    sols, worst_f, worst_obj = _compare(K, y, upper, lams)
    assert worst_f <= RTOL and worst_obj <= RTOL, (worst_f, worst_obj)
    assert calls == (["repair_at", "finish_dual"] if tried else [])
    assert sols[0].info["working_set_repairs"] == 1 and sols[0].info["fallbacks"] == 0


def test_a_cvxopt_start_is_not_solved_twice(monkeypatch):
    """When the start itself came from cvxopt (LIBSVM and the working set failed) and the path's
    answer at that λ fails the check, the last repair uses the start instead of solving the same
    QP again (160 s at n = 5000); the answers still equal cvxopt's."""
    from svmcore.families.svm.solvers import libsvm
    from svmcore.families.svm.solvers import path as P

    X, y, upper = _dataset("overlapping")
    n = len(y)
    K = gaussian_gram(X, sigma=1.0)
    lams = 2.0 ** np.array([-1.0, -6.0]) / n
    calls = []

    def counted(*a, **k):
        calls.append(a[3])
        return solve_cvxopt(*a, **k)

    original = P._Path.solution_at

    def spoil(self, s_req, lam, tol=0.0):
        sol = original(self, s_req, lam, tol)
        if float(lam) == float(lams[0]) and not calls[1:]:
            sol.kkt_residual = 1.0
        return sol

    monkeypatch.setattr(libsvm, "solve_libsvm", lambda *a, **k: (_ for _ in ()).throw(RuntimeError))
    monkeypatch.setattr(P, "solve_working_set", lambda *a, **k: None)
    monkeypatch.setattr(P, "solve_cvxopt", counted)
    monkeypatch.setattr(P._Path, "solution_at", spoil)
    monkeypatch.setattr(P._Path, "repair_at", lambda self, *a, **k: None)
    monkeypatch.setattr(P, "finish_dual", lambda *a, **k: (_ for _ in ()).throw(RuntimeError))
    sols = solve_path(K, y, upper, lams)
    assert calls == [lams[0]]                       # the start's solve only
    assert sols[0].info["fallback"] and sols[0].info["fallbacks"] == 1
    for sol in sols:
        ref = solve_cvxopt(K, y, upper, sol.lam)
        assert np.max(np.abs(sol.f - ref.f)) <= RTOL * np.max(np.abs(ref.f))


def test_exact_state_h_equals_a_fresh_product(monkeypatch):
    """exact_state's h = K β + α_0, mostly a correction of a reference product through the
    elbow's kernel rows, equals the product computed afresh, also with elbows larger than n/8."""
    from svmcore.families.svm.solvers import path as P

    X, y, upper = _dataset("overlapping")
    K = gaussian_gram(X, sigma=0.7)
    original = P._Path.exact_state
    seen = {"corrected": 0, "large_elbow": 0}

    def checked(self):
        original(self)
        beta = y * self.alpha
        fresh = K @ beta + self.alpha0
        assert np.max(np.abs(self.h - fresh)) <= 1e-12 * (1.0 + np.max(np.abs(K) @ np.abs(beta)))
        if self.h is not self._href[0]:
            seen["corrected"] += 1
            seen["large_elbow"] += self.m > len(y) // 8

    monkeypatch.setattr(P._Path, "exact_state", checked)
    solve_path(K, y, upper, 2.0 ** np.arange(-20.0, 1.0) / len(y))
    assert seen["corrected"] >= 5 and seen["large_elbow"] >= 5, seen


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("data", ["overlapping", "weighted"])
def test_state_recomputed_every_32_events_gives_the_same_answers(monkeypatch, data, compiled):
    """Large elbows recompute α_E, α_0 and h from the elbow system every ``EXACT_EVERY_LARGE``
    events instead of ``EXACT_EVERY_SMALL``. With the large interval on every elbow (these
    elbows are small) the recomputations are fewer, and the answers equal cvxopt's and the
    default schedule's."""
    from svmcore.families.svm.solvers import path as P

    X, y, upper = _dataset(data)
    K = gaussian_gram(X, sigma=0.5)
    lams = 2.0 ** np.array([-19.7, -13.1, -6.7, -1.2]) / len(y)
    original, paths = P._Path.__init__, []

    def kept(self, *a, **k):            # every path's count, the compiled loop's included
        original(self, *a, **k)
        paths.append(self)

    monkeypatch.setattr(P._Path, "__init__", kept)
    default = solve_path(K, y, upper, lams, compiled=compiled)
    n_default = sum(p.exact_states for p in paths)
    monkeypatch.setattr(P._Path, "EXACT_LARGE_FROM", 0)
    paths.clear()
    sols, worst_f, worst_obj = _compare(K, y, upper, lams, compiled=compiled)
    fewer = sum(p.exact_states for p in paths)
    assert fewer < 0.6 * n_default, (fewer, n_default)
    assert worst_f <= RTOL and worst_obj <= RTOL, (worst_f, worst_obj)
    for a, b in zip(sols, default):
        assert np.max(np.abs(a.f - b.f)) <= 1e-9 * np.max(np.abs(b.f))
        assert a.kkt_residual <= max(1e-8, a.info.get("kkt_floor", 0.0))


def test_a_start_finish_dual_cannot_fix_is_taken_from_a_tight_smo(monkeypatch):
    """When LIBSVM's answer at the default tolerance cannot be finished exactly (neither by the
    homotopy nor by ``finish_dual``) and the working set fails, the start is LIBSVM run to
    TIGHT_SMO_TOL (not cvxopt, whose interior-point answer
    at n = 5000 was 3e-5 off); the answers equal cvxopt's."""
    from svmcore.families.svm.solvers import libsvm
    from svmcore.families.svm.solvers import path as P

    X, y, upper = _dataset("weighted")
    n = len(y)
    K = gaussian_gram(X, sigma=1.0)
    lams = 2.0 ** np.array([-1.0, -7.0]) / n
    tols = []
    real = libsvm.solve_libsvm

    def smo(*a, tol=1e-3, **k):
        tols.append(tol)
        sol = real(*a, tol=tol, **k)
        if tol > P.TIGHT_SMO_TOL:                    # as if finish_dual had failed
            sol.polished, sol.kkt_residual = False, 1.0
        return sol

    def unfinished(*a, **k):                         # the start's finish of SMO's answer fails
        sol = finish_dual(*a, **k)
        sol.polished = False
        return sol

    monkeypatch.setattr(libsvm, "solve_libsvm", smo)
    monkeypatch.setattr(P, "finish_dual", unfinished)
    monkeypatch.setattr(P, "_start_by_homotopy", lambda *a, **k: None)
    monkeypatch.setattr(P, "solve_working_set", lambda *a, **k: None)
    monkeypatch.setattr(P, "solve_cvxopt", lambda *a, **k: (_ for _ in ()).throw(AssertionError))
    sols = solve_path(K, y, upper, lams, fallback=False)
    assert tols == [*P.START_SMO_TOLS, P.TIGHT_SMO_TOL]
    assert sols[0].info["start"] == "libsvm"
    for sol in sols:
        assert sol.kkt_residual <= 1e-8
        ref = solve_cvxopt(K, y, upper, sol.lam)
        assert np.max(np.abs(sol.f - ref.f)) <= RTOL * np.max(np.abs(ref.f))


def _start_problem(monkeypatch=None):
    """wahba2d, n = 800, σ = 2^-1.5, log2(nλ) = 1 and −1: LIBSVM's answer at 1e-5 at the top λ
    cannot be finished exactly (167 free points, residual 5e-6): (data, K, lams). With
    ``monkeypatch``, the path starts at that top λ (s = 4): ``POINTWISE_ABOVE_S`` raised to it
    (above the default s = 2 that λ would be solved on its own, by the same start, and the path
    would start again at the next)."""
    from svmcore.datasets.simulations import make_wahba2d
    from svmcore.families.svm.solvers import path as P

    if monkeypatch is not None:
        monkeypatch.setattr(P, "POINTWISE_ABOVE_S", 4.0)

    n = 800
    data = make_wahba2d(n, 0)
    return data, gaussian_gram(data.X, sigma=2.0 ** -1.5), 2.0 ** np.array([1.0, -1.0]) / n


def _smo_tolerances(monkeypatch):
    """The tolerance of every LIBSVM call the path's start makes (``libsvm.solve_libsvm``,
    wrapped), in order: the returned list fills as the test runs."""
    from svmcore.families.svm.solvers import libsvm

    real, tols = libsvm.solve_libsvm, []

    def smo(*a, tol=1e-3, **k):
        tols.append(tol)
        return real(*a, tol=tol, **k)

    monkeypatch.setattr(libsvm, "solve_libsvm", smo)
    return tols


def _assert_equal_to_tight_libsvm(sols, K, y):
    """Each answer's f equals LIBSVM's at tol 1e-11 on the same Gram matrix, to 1e-6."""
    from sklearn.svm import SVC

    for sol in sols:
        svc = SVC(C=1.0 / (2 * len(y) * sol.lam), kernel="precomputed", tol=1e-11).fit(K, y)
        np.testing.assert_allclose(sol.f, svc.decision_function(K), atol=1e-6)


@pytest.mark.parametrize("early_ws_tol", [None, 0.0])
def test_a_start_smo_cannot_finish_is_repaired_before_a_tighter_smo(monkeypatch, early_ws_tol):
    """wahba2d, n = 800, σ = 2^-1.5, s = 4: LIBSVM's answer at 1e-5 cannot be finished exactly
    (167 free points, residual 5e-6). Without the homotopy (``test_homotopy.py``), the working set
    repairs that answer; SMO is not run again at
    1e-7 (at n = 5000, σ = 2^-2 that costs 17.6 s against the repair's 1.7 s). A repair less exact
    than ``START_EARLY_WS_TOL`` (here: any, with the bound at 0) is set aside and SMO runs at 1e-7
    as before. The answers equal LIBSVM's at tol 1e-11 on the same Gram matrix either way."""
    from svmcore.families.svm.solvers import libsvm
    from svmcore.families.svm.solvers import path as P

    data, K, lams = _start_problem(monkeypatch)
    n = len(data.y)
    tols, repairs = [], []
    real_smo, real_ws = libsvm.solve_libsvm, P.solve_working_set

    def smo(*a, tol=1e-3, **k):
        tols.append(tol)
        sol = real_smo(*a, tol=tol, **k)
        repairs.append(sol.polished)
        return sol

    def ws(*a, **k):
        sol = real_ws(*a, **k)
        repairs.append(sol is not None and sol.kkt_residual <= 1e-8)
        return sol

    monkeypatch.setattr(libsvm, "solve_libsvm", smo)
    monkeypatch.setattr(P, "solve_working_set", ws)
    monkeypatch.setattr(P, "_start_by_homotopy", lambda *a, **k: None)   # (its own test below)
    if early_ws_tol is not None:       # the repair is less exact than asked: SMO at 1e-7 as before
        monkeypatch.setattr(P, "START_EARLY_WS_TOL", early_ws_tol)
    sols = solve_path(K, data.y, np.ones(n), lams)
    if early_ws_tol is None:
        assert tols == [1e-5] and repairs == [False, True]  # SMO's finish failed, the repair held
    else:
        assert tols == [1e-5, 1e-7] and repairs[:2] == [False, True], (tols, repairs)
    assert sols[0].info["start"] == "libsvm" and sols[0].info["fallbacks"] == 0
    for sol in sols:
        assert sol.kkt_residual <= 1e-8
    _assert_equal_to_tight_libsvm(sols, K, data.y)


def test_the_first_start_repair_is_asked_for_the_early_bar_not_the_paths_tolerance(monkeypatch):
    """At n = 10,000, σ = 2^-3 the working set from SMO's 1e-5 answer, asked for the path's 1e-8,
    stopped at 8.6e-9 (its finish stops at the first round within the tolerance); that was set
    aside as less exact than ``START_EARLY_WS_TOL`` and SMO at 1e-7 took 500 s. Asked for the bar
    itself, one more round took it to 3.6e-13. Here a repair asked for more than the bar answers
    like that one (residual 5e-9): the start must still come from the first repair, as exact as
    the bar, without SMO at 1e-7; the answers equal LIBSVM's at tol 1e-11."""
    from svmcore.families.svm.solvers import path as P

    data, K, lams = _start_problem(monkeypatch)
    real_ws = P.solve_working_set
    asked, tols = [], _smo_tolerances(monkeypatch)

    def ws(*a, tol=1e-8, **k):
        asked.append(tol)
        sol = real_ws(*a, tol=tol, **k)
        if sol is not None and tol > P.START_EARLY_WS_TOL:      # stopped within the path's 1e-8
            sol.kkt_residual = 5e-9
        return sol

    monkeypatch.setattr(P, "solve_working_set", ws)
    monkeypatch.setattr(P, "_start_by_homotopy", lambda *a, **k: None)   # (test_homotopy.py)
    sols = solve_path(K, data.y, np.ones(len(data.y)), lams)
    assert tols == [1e-5] and asked[:1] == [P.START_EARLY_WS_TOL], (tols, asked)
    assert sols[0].kkt_residual <= P.START_EARLY_WS_TOL
    _assert_equal_to_tight_libsvm(sols, K, data.y)


def test_the_start_repair_stops_its_sub_problems_at_a_relative_gap(monkeypatch):
    """The start is at s ≥ ``SMO_EASY_S``, where the dual is well scaled: its working-set
    sub-problems stop at cvxopt's relative gap ``START_WS_RELTOL`` ("optimal", in fewer than
    the working set's 60 iterations) instead of running to the rounding level, which tiny λ
    needs. SMO's answer and the sub-problems' are finished without ``finish_dual``'s second
    start from the margins' band (``band_start=False``: at s = 2 it never came near). The repair
    still reaches ``START_EARLY_WS_TOL`` and the answers equal LIBSVM's at tol 1e-11 on the same
    Gram matrix."""
    from svmcore.families.svm.solvers import path as P
    from svmcore.families.svm.solvers import working_set as WS

    data, K, lams = _start_problem(monkeypatch)
    bands, real_finish = [], P.finish_dual
    monkeypatch.setattr(P, "finish_dual", lambda *a, **k: bands.append(k.get("band_start", True))
                        or real_finish(*a, **k))
    real_ws_finish = WS.finish_dual
    monkeypatch.setattr(WS, "finish_dual", lambda *a, **k: bands.append(k.get("band_start", True))
                        or real_ws_finish(*a, **k))
    real_sub, subs = WS.solve_restricted_dual, []

    def sub(*a, **k):
        new, b, sol = real_sub(*a, **k)
        subs.append((a[-1], sol["status"], int(sol["iterations"])))
        return new, b, sol

    monkeypatch.setattr(WS, "solve_restricted_dual", sub)
    monkeypatch.setattr(P, "_start_by_homotopy", lambda *a, **k: None)   # (test_homotopy.py)
    sols = solve_path(K, data.y, np.ones(len(data.y)), lams)
    assert subs, "the start's SMO answer was to be repaired by the working set"
    assert len(bands) >= 1 + len(subs) and not any(bands), bands
    for options, status, iterations in subs:
        assert options["reltol"] == P.START_WS_RELTOL
        assert status == "optimal" and iterations < WS._OPTIONS["maxiters"], (status, iterations)
    assert sols[0].info["start"] == "libsvm"
    assert sols[0].kkt_residual <= P.START_EARLY_WS_TOL
    _assert_equal_to_tight_libsvm(sols, K, data.y)


def test_an_elbow_that_parks_more_than_it_holds_hands_the_tail_to_working_sets():
    """The rule (``path._tail_by_working_sets``): a restart from an exact solution whose free
    points the elbow cannot hold (a 1-D linear kernel: at most two affinely independent rows)
    parks the rest, more than it holds; a full-rank Gaussian Gram matrix holds them all."""
    from svmcore.families.svm.solvers.path import _Path, _tail_by_working_sets

    x = np.linspace(-1.0, 1.0, 40)[:, None]
    y = np.where(np.arange(40) % 2 == 0, 1.0, -1.0)
    upper = np.ones(40)
    for K, parks in ((linear_gram(x), True), (gaussian_gram(x, sigma=0.02), False)):
        P = _Path(K, y, upper)
        P.set_solution(0.5, 0.5 * upper, 0.0)            # every point free
        assert _tail_by_working_sets(P) is parks, (P.m, int(np.sum(P.status == 3)))


def test_the_tail_by_working_sets_is_certified_and_equals_cvxopt(monkeypatch):
    """After a working-set restart that parks most free points, every remaining λ is answered by
    a working-set QP warm-started from the answer before (``path._answer_tail``); forced here
    from the first working-set repair on (wahba2d, n = 150, σ = 2, a looser dependence
    tolerance so that the path needs one at log2(nλ) = −15), its sub-problems finished briefly
    (``TAIL_FINISH_ROUNDS``). Each tail answer passes the full KKT check (recomputed here) and has
    cvxopt's objective at its λ."""
    import svmcore.families.svm.solvers.path as P
    from svmcore.datasets.simulations import make_wahba2d

    d = make_wahba2d(150, 0)
    K, y, upper = gaussian_gram(d.X, sigma=2.0), d.y, np.ones(150)
    lams = 2.0 ** np.arange(-30.0, 0.01, 1.0) / 150
    monkeypatch.setattr(P, "_tail_by_working_sets", lambda path: True)
    rounds, solve = [], P.solve_working_set
    monkeypatch.setattr(P, "solve_working_set",
                        lambda *a, **k: rounds.append(k.get("finish_rounds")) or solve(*a, **k))
    sols = P.solve_path(K, y, upper, lams, dep_tol=1e-6)
    tail = [s for s in sols if s.info.get("tail")]
    assert len(tail) >= 10 and all(s.info["repaired"] and not s.info["fallback"] for s in tail)
    # the repair before the tail finishes its sub-problems fully, the tail's QPs briefly
    assert rounds[0] is None and rounds[-len(tail):] == [P.TAIL_FINISH_ROUNDS] * len(tail)
    for s in tail[::3]:
        c = y * s.alpha / (2 * 150 * s.lam)
        f = K @ c + s.b
        # (at log2(nλ) = −30, f = K c + b is evaluated to only ~1e-5, its rounding floor; the
        # recomputed residual there was 1.4e-6 on an AMD EPYC with OpenBLAS, 1e-6 on others)
        floor = rounding_floor(K, y, s.alpha, s.lam, s.b)
        assert kkt_residual(y, f, s.alpha, upper, scale=zero_scale(150, s.lam)) <= max(1e-6, floor)
        ref = solve_cvxopt(K, y, upper, s.lam)
        assert _objective(K, y, upper, s) == pytest.approx(_objective(K, y, upper, ref), rel=1e-7)


def _tiny_lambda_column(n):
    """wahba2d, C_B = 4.5, σ = 4, log2(nλ) = −40 … −28: the path meets ties among 40–60 elbow
    points where f's rounding floor is 1e-5 … 1e-2 (event order set by rounding)."""
    from svmcore.datasets.simulations import make_wahba2d
    from svmcore.weights import class_weights_from_costs

    d = make_wahba2d(n, 0)
    upper = class_weights_from_costs(d.y, 1.0, 4.5).upper_bounds(d.y)
    return gaussian_gram(d.X, sigma=4.0), d.y, upper, 2.0 ** np.arange(-40.0, -27.99, 4.0) / n


def test_a_tie_below_the_rounding_floor_hands_the_tail_to_working_sets(monkeypatch):
    """n = 200: starting at log2(nλ) = 0, the path used to take 772 events to reach −40, the last
    411 of them zero-length steps at one breakpoint (no state repeated) until its cycling limit
    (10 + 2n) gave up. After ``TIE_RUN`` zero-length steps where f's rounding floor exceeds the
    KKT tolerance, the remaining λ (here −40) are now working-set answers; every answer is within
    its floor (KKT residual and floor recomputed here); at −28 it has cvxopt's objective.

    How long the ties at one breakpoint run is set by rounding: 411 steps then, more than 32 on
    the machine this was written on, 13 with a change of the direction's refinement that only
    moved rounding (the path then reached −40 itself and a working set repaired that answer).
    ``TIE_RUN`` is lowered to 8 here, so that the rule fires whatever the rounding."""
    import svmcore.families.svm.solvers.path as P
    from svmcore.families.svm.solvers._common import rounding_floor

    K, y, upper, lams = _tiny_lambda_column(200)
    monkeypatch.setattr(P, "TIE_RUN", 8)
    sols = solve_path(K, y, upper, lams)
    tail = [s for s in sols if s.info.get("tail")]
    assert len(tail) == 1 and "rounding floor" in tail[0].info["error"]
    assert sols[0].info["events"] < 400                 # 772 before
    for s in sols:
        c = y * s.alpha / (2 * 200 * s.lam)
        f = K @ c + s.b
        floor = rounding_floor(K, y, s.alpha, s.lam, s.b)
        assert kkt_residual(y, f, s.alpha, upper, scale=min(1.0, 2 * 200 * s.lam)) <= \
            max(1e-8, floor)
    ref = solve_cvxopt(K, y, upper, lams[-1])
    assert _objective(K, y, upper, sols[-1]) == pytest.approx(_objective(K, y, upper, ref),
                                                              rel=1e-5)


@pytest.mark.parametrize("moved,looked_at", [(1, "TIE_RUN"), (3, "TIE_RUN"), (25, 1), (13, 2),
                                             (12, 3)])
def test_a_storm_of_ties_is_looked_at_once_it_moved_a_quarter_of_the_points(moved, looked_at):
    """``_count_zero_step`` on zero-length steps that each move ``moved`` of n = 100 points
    between the sets (leaving the elbow or meeting the margin): a run is looked at (f's rounding
    floor against the KKT tolerance, here 0 so that it counts as a tie run) after ``TIE_RUN``
    steps, or once its steps moved ``TIE_MOVED`` (a quarter) of the points, ``TIE_STORM`` (4) or
    more a step; once per run; a step of nonzero length starts a new run."""
    import svmcore.families.svm.solvers.path as P
    from svmcore.datasets.simulations import make_wahba2d

    d = make_wahba2d(100, 0)
    K, y, upper = gaussian_gram(d.X, sigma=1.0), d.y, np.ones(100)
    run = P._setup(K, y, upper, np.array([0.01]), 0.0, True, None, 1e-11, None)
    P._start_path(run, None)
    m, s = run.path.m, run.path.s
    te, tm = np.full(m, np.inf), np.full(100, np.inf)
    te[:min(moved, 3)] = 0.0                       # both kinds of event counted
    tm[:moved - min(moved, 3)] = 0.0
    zero = P._Segment(s, 0.0, False, te=te, tm=tm)
    looked_at = P.TIE_RUN if looked_at == "TIE_RUN" else looked_at
    for storm in (1, 2):                            # two runs, a nonzero step between them
        for step in range(1, P.TIE_RUN + 5):
            P._count_zero_step(run, zero)
            assert run.tie_runs == storm - (step < looked_at), (storm, step)
        P._count_zero_step(run, P._Segment(s, 0.5 * s, False, te=te, tm=tm))
        assert run.zero_steps == run.zero_moved == 0


def test_a_repaired_answer_within_its_floor_is_the_next_warm_start():
    """A working-set answer whose KKT residual lies between the tolerance (1e-8) and its rounding
    floor is accepted, so it must also become ``last_good``, the start of later repairs and of
    the tail (without its floor it never did: n = 500, σ = 4, C_B = 4.5 took 5,569 events and
    8.5 s instead of 651 and 0.3 s)."""
    import svmcore.families.svm.solvers.path as P
    from svmcore.families.svm.solvers.working_set import solve_working_set

    K, y, upper, lams = _tiny_lambda_column(200)
    prev = solve_path(K, y, upper, lams[-1:])[0]
    ws = solve_working_set(K, y, upper, lams[-2], prev.alpha, prev.b, tol=1e-8)
    assert ws is not None and 1e-8 < ws.kkt_residual <= ws.info["kkt_floor"]
    run = P._setup(K, y, upper, lams[-2:-1], 1e-8, True, None, 1e-11, None)
    P._start_path(run, prev)
    sol = P._record_answer(run, ws, "test", "working_set")
    assert run.last_good is sol
    assert sol.info["kkt_floor"] == pytest.approx(ws.info["kkt_floor"], rel=1e-12)


def test_a_failed_working_set_in_the_tail_hands_back_to_the_path(monkeypatch):
    """When a working-set QP of the tail fails, the path (its state untouched) answers the rest
    instead of cvxopt on the whole problem (which at log2(nλ) = −40 leaves residuals of 1e4):
    forced tail, every working-set QP failing, n = 150: the answers equal those of a run
    without the tail, with no cvxopt fallback."""
    import svmcore.families.svm.solvers.path as P
    from svmcore.datasets.simulations import make_wahba2d

    d = make_wahba2d(150, 0)
    K, y, upper = gaussian_gram(d.X, sigma=2.0), d.y, np.ones(150)
    lams = 2.0 ** np.arange(-12.0, 0.01, 1.0) / 150
    monkeypatch.setattr(P, "solve_working_set", lambda *a, **k: None)
    plain = P.solve_path(K, y, upper, lams)
    monkeypatch.setattr(P, "_tail_by_working_sets", lambda path: True)
    monkeypatch.setattr(P, "_hand_tail", lambda run: run.tail_failed_at is None and run.k > 0)
    forced = P.solve_path(K, y, upper, lams)
    assert forced[0].info["fallbacks"] == plain[0].info["fallbacks"] == 0
    for a, b in zip(plain, forced):
        assert not b.info.get("tail") and b.kkt_residual <= 1e-8
        assert np.max(np.abs(a.f - b.f)) <= 1e-9 * np.max(np.abs(a.f))


def test_a_failed_tail_is_tried_again_from_the_path_after_a_new_tie():
    """n = 500, seed 1, C_B = 4.5, σ = 4, log2(nλ) −40 … −28. Which rule hands the path to the
    tail here depends on the machine's rounding (the events at these λ are ordered by it). On the
    machine this was written on, the tail answered −36, no working set reached −40 from that
    answer, the path went on, and after its next run of ``TIE_RUN`` ties below the floor the tail
    was tried again from the path's own, nearer, answer. On an AMD EPYC (AVX-512) the elbow parks
    most free points first and the tail starts there. Either way −40 is a tail answer within its
    floor, well before the cycling limit: before the retry the path crossed 2,497 events to that
    limit (3.5 s) and a recovery answered −40. (The hand-back itself, forced:
    ``test_a_failed_working_set_in_the_tail_hands_back_to_the_path``.)"""
    from svmcore.datasets.simulations import make_wahba2d
    from svmcore.families.svm.solvers._common import rounding_floor
    from svmcore.weights import class_weights_from_costs

    d = make_wahba2d(500, 1)
    upper = class_weights_from_costs(d.y, 1.0, 4.5).upper_bounds(d.y)
    K, y = gaussian_gram(d.X, sigma=4.0), d.y
    lams = 2.0 ** np.arange(-40.0, -27.99, 4.0) / 500
    sols = solve_path(K, y, upper, lams)
    assert sols[0].info.get("tail") and sols[0].info["fallbacks"] == 0
    assert any(rule in sols[0].info["error"] for rule in ("rounding floor", "parked most free points"))
    assert sols[0].info["events"] < 1200
    for s in sols:
        f = K @ (y * s.alpha / (2 * 500 * s.lam)) + s.b
        res = kkt_residual(y, f, s.alpha, upper, scale=zero_scale(500, s.lam))
        assert res <= max(1e-8, rounding_floor(K, y, s.alpha, s.lam, s.b))
