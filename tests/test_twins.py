"""Exact twins (same label, same inputs) are solved as one point with their bounds summed
(``svmcore.families.svm.solvers.twins``): found exactly, the answers solve the whole problem
(checked on the whole problem's own K and against cvxopt on it), and the columns that twins
used to stall or break finish within the KKT tolerance."""
import numpy as np
import pytest

from svmcore.datasets.simulations import make_wahba2d
from svmcore.families.svm.fit import solve_lambdas
from svmcore.families.svm.solvers._common import decision_values, kkt_residual, zero_scale
from svmcore.families.svm.solvers.qp import solve_cvxopt
from svmcore.families.svm.solvers.twins import find_twins
from svmcore.kernels import gaussian_gram


def _with_twins(n, k, seed=1):
    """wahba2d's n points and k copies of some of them, with their labels."""
    d = make_wahba2d(n, 0)
    idx = np.random.default_rng(seed).choice(n, k, replace=False)
    return np.vstack([d.X, d.X[idx]]), np.r_[d.y, d.y[idx]]


def test_twins_are_the_repeated_rows_with_the_same_label():
    """Against a grouping of (x, y) by a dictionary: rounded inputs, where the same x also comes
    with the other label (not twins: their rows are the same, their labels not)."""
    d = make_wahba2d(300, 0)
    X = np.round(d.X, 0)
    upper = np.where(d.y > 0, 1.0, 4.5)
    tw = find_twins(gaussian_gram(X, sigma=2.0 ** -1), d.y, upper)
    groups = {}
    for i, key in enumerate(zip(map(tuple, X), d.y)):
        groups.setdefault(key, []).append(i)
    assert len(tw.rep) == len(groups) < 300
    for members in groups.values():
        assert len(set(tw.group[members])) == 1
        assert tw.rep[tw.group[members[0]]] == members[0]           # the group's first point
        np.testing.assert_allclose(tw.upper[tw.group[members[0]]], upper[members].sum(), rtol=1e-15)
    assert len({tw.group[g[0]] for g in groups.values()}) == len(groups)
    np.testing.assert_allclose(tw.share, upper / tw.upper[tw.group], rtol=1e-15)
    assert find_twins(gaussian_gram(d.X, sigma=1.0), d.y, upper) is None      # none: untouched


@pytest.mark.parametrize("log2_sigma", [-1.0, 0.0, 1.0])
def test_merged_answers_solve_the_whole_problem(log2_sigma):
    """n = 440 with 40 twins, C_B = 4.5: each answer, checked on the whole problem's K (f
    recomputed from the split α), is within the KKT tolerance, twins share their status
    (α_i / L(y_i) equal), and the dual objective is at least cvxopt's on the whole problem (whose
    own answers there miss the KKT conditions by up to 1.2 at σ = 2^-1), f equal to its where it
    solved it. Before the merge the σ = 2^0 column took 23 s and ended with KKT residuals (on the
    whole problem) of 1.3e3, σ = 2^1 of 1.6e3."""
    X, y = _with_twins(400, 40)
    n = len(y)
    K = gaussian_gram(X, sigma=2.0 ** log2_sigma)
    upper = np.where(y > 0, 1.0, 4.5)
    lams = 2.0 ** np.arange(0.0, -26.0, -1.0) / n
    sols = solve_lambdas(K, y, upper, lams, "path")
    tw = find_twins(K, y, upper)
    for lam, sol in zip(lams, sols):
        assert sol.info["twins"] == 40
        assert np.all((sol.alpha >= 0) & (sol.alpha <= upper))
        f = decision_values(K, y, sol.alpha, lam, sol.b)
        np.testing.assert_allclose(f, sol.f, atol=1e-8 * (1 + np.abs(f).max()))
        floor = sol.info.get("kkt_floor", 0.0)
        assert kkt_residual(y, f, sol.alpha, upper, scale=zero_scale(n, lam)) <= max(1e-6, 2 * floor)
        ratio = sol.alpha / upper
        np.testing.assert_allclose(ratio, ratio[tw.rep][tw.group], rtol=1e-12, atol=0)
    for k in (0, 8, 16):               # cvxopt on the whole problem: a feasible point of its dual
        lam = float(lams[k])
        ref = solve_cvxopt(K, y, upper, lam)

        def dual(a, lam=lam):
            v = y * a
            return a.sum() - v @ K @ v / (4 * n * lam)
        assert dual(sols[k].alpha) >= dual(ref.alpha) - 1e-10 * abs(dual(ref.alpha))
        if ref.kkt_residual < 1e-8:    # where cvxopt solved it (with twins it need not)
            np.testing.assert_allclose(sols[k].f, ref.f, atol=1e-8 * (1 + np.abs(ref.f).max()))


def test_a_pointwise_solver_and_a_carried_path_see_the_same_merged_problem():
    """LIBSVM on the merged problem at λ n/m answers the whole problem at λ; a path carried on from
    an answer (grid growth) gives the answers of one path over all the λ."""
    from svmcore.families.svm.fit import path_end

    X, y = _with_twins(200, 30)
    n = len(y)
    K = gaussian_gram(X, sigma=1.0)
    upper = np.ones(n)
    lams = 2.0 ** np.arange(-2.0, -14.0, -2.0) / n
    whole = solve_lambdas(K, y, upper, lams, "path")
    for lam, sol in zip(lams[:3], solve_lambdas(K, y, upper, lams[:3], "libsvm")):
        f = decision_values(K, y, sol.alpha, lam, sol.b)
        assert kkt_residual(y, f, sol.alpha, upper, scale=zero_scale(n, lam)) < 2e-3
        np.testing.assert_allclose(sol.f, whole[list(lams).index(lam)].f, atol=5e-3)
    first = solve_lambdas(K, y, upper, lams[:3], "path")
    carried = solve_lambdas(K, y, upper, lams[3:], "path", start=path_end(lams[:3], first))
    for a, b in zip(carried, whole[3:]):
        np.testing.assert_allclose(a.alpha, b.alpha, atol=1e-7)
        np.testing.assert_allclose(a.f, b.f, atol=1e-7 * (1 + np.abs(b.f).max()))


def test_leave_one_out_gives_twins_the_same_value():
    """Leaving out either of two twins leaves the same problem, so exact LOO must give both the
    same f^{[−i]}(x_i); each refit is checked against the KKT conditions of its own problem
    through a brute-force refit on the rows left (the same merged solve, certified on that
    subset's whole K)."""
    from svmcore.families.svm.resampling import loo_decision_values

    X, y = _with_twins(60, 12, seed=3)
    n = len(y)
    K = gaussian_gram(X, sigma=1.0)
    upper = np.ones(n)
    lams = 2.0 ** np.array([-2.0, -6.0]) / n
    full = solve_lambdas(K, y, upper, lams, "path")
    F = loo_decision_values(K, y, upper, lams, full, "path")
    tw = find_twins(K, y, upper)
    pairs = [(i, int(tw.rep[tw.group[i]])) for i in range(n) if tw.rep[tw.group[i]] != i]
    assert len(pairs) == 12
    for i, j in pairs:
        np.testing.assert_allclose(F[:, i], F[:, j], atol=1e-8 * (1 + np.abs(F).max()))
    i = pairs[0][0]
    tr = np.flatnonzero(np.arange(n) != i)
    for k, lam in enumerate(lams):
        if full[k].alpha[i] == 0:
            continue
        lam_tr = lam * n / (n - 1)                       # C = 1/(2nλ) kept (docs/svm.md)
        sol = solve_lambdas(K[np.ix_(tr, tr)], y[tr], upper[tr], [lam_tr], "path")[0]
        f = decision_values(K[np.ix_(tr, tr)], y[tr], sol.alpha, lam_tr, sol.b)
        assert kkt_residual(y[tr], f, sol.alpha, upper[tr], scale=zero_scale(n - 1, lam_tr)) < 1e-7
        fi = K[i, tr] @ (y[tr] * sol.alpha) / (2 * (n - 1) * lam_tr) + sol.b
        np.testing.assert_allclose(F[k, i], fi, atol=1e-8 * (1 + abs(fi)))


@pytest.mark.parametrize("name,log2_sigma", [("haberman", 0.5), ("haberman", 1.0), ("bupa", 2.5)])
def test_bundled_tables_with_repeated_rows_solve_within_tolerance(name, log2_sigma):
    """Bundled data with repeated rows (haberman: 306 rows, 289 distinct; bupa 345, 341): before
    the merge these columns of the paper grid had 3, 7 and 2 of their 26 fits flagged (KKT
    residuals up to 79) and haberman's σ = 2^0.5 column took 17 s. Every answer now meets the KKT
    conditions on the whole problem (f recomputed from α)."""
    from svmcore.datasets.bundled import load_bundled

    d = load_bundled(name)
    n = d.n
    K = gaussian_gram(d.X, sigma=2.0 ** log2_sigma)
    upper = np.ones(n)
    lams = 2.0 ** np.arange(0.0, -26.0, -1.0) / n
    for lam, sol in zip(lams, solve_lambdas(K, d.y, upper, lams, "path")):
        f = decision_values(K, d.y, sol.alpha, lam, sol.b)
        floor = sol.info.get("kkt_floor", 0.0)
        assert kkt_residual(d.y, f, sol.alpha, upper, scale=zero_scale(n, lam)) <= max(1e-6, 2 * floor)


def test_the_merged_path_crosses_its_events_where_the_whole_one_would(monkeypatch):
    """600 rows that merge to 300: the compiled loop, as for 600 rows without twins (the family
    puts such columns on threads, which the numpy code would hold); 300 rows merged stay in the
    numpy code, as 300 rows do."""
    from svmcore.families.svm.solvers import path as P

    seen = []
    real = P.solve_path
    monkeypatch.setattr(P, "solve_path", lambda *a, **k: seen.append(k.get("compiled")) or real(*a, **k))
    for n in (600, 300):
        X, y = _with_twins(n // 2, n // 2)
        K = gaussian_gram(X, sigma=1.0)
        solve_lambdas(K, y, np.ones(n), [2.0 ** -4 / n], "path")
    assert seen == [True, False] and P.COMPILED_FROM_N == 500
