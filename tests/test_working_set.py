"""Working-set repair of a near-solution vs full cvxopt (docs/svm.md)."""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest

from svmcore.datasets.simulations import make_wahba2d
from svmcore.kernels import gaussian_gram
from svmcore.families.svm.solvers._common import decision_values, kkt_residual, zero_scale
from svmcore.families.svm.solvers.qp import solve_cvxopt
from svmcore.families.svm.solvers.working_set import solve_working_set
from test_path import _objective  # (1/n) Σ L(y_i)(1 − y_i f_i)_+ + λ c'Kc, independent of svmcore

N = 300
DATA = make_wahba2d(N, seed=3)
WEIGHTS = {"standard": (1.0, 1.0), "weighted": (0.5, 1.5)}


@lru_cache(maxsize=None)
def _gram(sigma):
    return gaussian_gram(DATA.X, sigma=sigma)


@lru_cache(maxsize=None)
def _problem(sigma, l2, weights):
    y = DATA.y
    upper = np.where(y > 0, *WEIGHTS[weights])
    lam = 2.0 ** l2 / N
    K = _gram(sigma)
    return K, y, upper, lam, solve_cvxopt(K, y, upper, lam)


def _perturb(alpha, b, upper, seed, k=5):
    """Move k free points to a bound, k bound points inside, and shift b."""
    rng = np.random.default_rng(seed)
    a = alpha.copy()
    free = np.flatnonzero((a > 0) & (a < upper))
    bound = np.flatnonzero((a == 0) | (a == upper))
    i = rng.choice(free, min(k, free.size), replace=False)
    a[i] = np.where(rng.random(i.size) < 0.5, 0.0, upper[i])
    j = rng.choice(bound, min(k, bound.size), replace=False)
    a[j] = upper[j] * rng.uniform(0.2, 0.8, j.size)
    return a, b + 0.1 * max(1.0, abs(b))


def _assert_matches(K, y, upper, sol, ref):
    assert sol.solver == "working_set"
    assert np.all(sol.alpha >= 0) and np.all(sol.alpha <= upper)
    assert abs(y @ sol.alpha) <= 1e-9 * upper.sum()
    # the answer is certified by the full KKT check on all points
    f = decision_values(K, y, sol.alpha, sol.lam, sol.b)
    zs = zero_scale(len(y), sol.lam)
    assert kkt_residual(y, f, sol.alpha, upper, scale=zs) == pytest.approx(sol.kkt_residual, abs=1e-12)
    assert sol.kkt_residual <= max(1e-8, sol.info["kkt_floor"])
    free = (sol.alpha > 1e-9 * upper) & (sol.alpha < upper * (1 - 1e-9))
    if free.any():
        df = np.abs(sol.f - ref.f)
    else:       # b is any point of an interval (midpoint convention): compare f − b
        df = np.abs((sol.f - sol.b) - (ref.f - ref.b))
    assert np.max(df) <= 1e-6 * max(1.0, np.max(np.abs(ref.f)))
    o_w, o_r = _objective(K, y, upper, sol), _objective(K, y, upper, ref)
    assert o_w == pytest.approx(o_r, rel=1e-6)


@pytest.mark.parametrize("weights", ["standard", "weighted"])
@pytest.mark.parametrize("l2", [-20, -5])
@pytest.mark.parametrize("sigma", [4.0, 0.5])
def test_repairs_a_perturbed_solution(sigma, l2, weights):
    K, y, upper, lam, ref = _problem(sigma, l2, weights)
    assert ref.kkt_residual <= 1e-6        # the reference itself is (nearly) exact
    for seed in range(2):
        a0, b0 = _perturb(ref.alpha, ref.b, upper, seed)
        assert kkt_residual(y, decision_values(K, y, a0, lam, b0), a0, upper) > 1e-3
        sol = solve_working_set(K, y, upper, lam, a0, b0)
        assert sol is not None, f"no repair (seed {seed})"
        assert sol.info["size"] < N        # a real working set, not the whole problem
        assert sol.info["rounds"] == sol.n_iter >= 1
        _assert_matches(K, y, upper, sol, ref)


def test_exact_start_takes_one_round():
    K, y, upper, lam, ref = _problem(4.0, -5, "standard")
    sol = solve_working_set(K, y, upper, lam, ref.alpha, ref.b)
    assert sol is not None and sol.info["rounds"] == 1
    _assert_matches(K, y, upper, sol, ref)


@pytest.mark.parametrize("sigma,l2,weights", [(0.5, -5, "weighted"), (4.0, -20, "standard")])
def test_garbage_start_gives_none_or_a_correct_answer(sigma, l2, weights):
    K, y, upper, lam, ref = _problem(sigma, l2, weights)
    for max_rounds in (2, 20):
        sol = solve_working_set(K, y, upper, lam, np.zeros(N), 0.0, max_rounds=max_rounds)
        if sol is not None:
            _assert_matches(K, y, upper, sol, ref)


def test_gives_up_at_once_beyond_max_size():
    """A working set larger than max_size is not attempted (its QP would cost O(|W|³) per step)."""
    K, y, upper, lam, ref = _problem(0.5, -5, "standard")
    a0, b0 = _perturb(ref.alpha, ref.b, upper, 0)
    assert solve_working_set(K, y, upper, lam, a0, b0, max_size=10) is None
    assert solve_working_set(K, y, upper, lam, a0, b0, max_size=N) is not None


def test_default_max_size_follows_n():
    """Above 1,000 points the default working set may exceed 500 (n/2): n = 2400, σ = 2^-2,
    log2(nλ) = −4 has 554 free points, so W holds 564 and only the default repairs LIBSVM's
    answer; the answer passes a KKT check written here from the definition."""
    n = 2400
    data = make_wahba2d(n, seed=3)
    y = data.y
    K = gaussian_gram(data.X, sigma=0.25)
    lam = 2.0 ** -4 / n
    C = 1.0 / (2 * n * lam)
    from sklearn.svm import SVC
    m = SVC(C=C, kernel="precomputed", tol=1e-5).fit(K, y)
    alpha = np.zeros(n)
    alpha[m.support_] = np.abs(m.dual_coef_.ravel()) / C
    b = float(m.intercept_[0])
    assert solve_working_set(K, y, np.ones(n), lam, alpha, b, max_size=500) is None
    sol = solve_working_set(K, y, np.ones(n), lam, alpha, b)
    assert sol is not None and 500 < sol.info["size"] <= n // 2
    a = sol.alpha
    yf = y * (K @ (y * a) / (2 * n * lam) + sol.b)
    assert np.all((a >= 0) & (a <= 1)) and abs(y @ a) <= 1e-9 * n
    free = (a > 1e-9) & (a < 1 - 1e-9)
    assert free.sum() > 500
    assert np.max(np.abs(yf[free] - 1)) <= 1e-8
    assert np.min(yf[a <= 1e-9]) >= 1 - 1e-8
    assert np.max(yf[a >= 1 - 1e-9]) <= 1 + 1e-8


@pytest.mark.parametrize("sigma,l2", [(4.0, -25), (0.5, -40)])
def test_sub_problems_stop_once_the_gap_is_lost_in_rounding(monkeypatch, sigma, l2):
    """At tiny λ cvxopt's primal residual (the equality, relative to max(1, |rhs|)) can round
    above ``feastol`` (here the second round's sub-problem: 1.2e-9 and 9.8e-11): without
    ``qp._rounding_scales`` it then never reaches "optimal" and runs all ``maxiters``
    iterations. With the equality row scaled and the dual residual asked for to its rounding
    level, every sub-problem stops "optimal" once the relative gap reaches ε (here 26 and 37
    iterations), and the repair is as good: both answers match cvxopt's on the whole problem."""
    from svmcore.families.svm.solvers import qp
    from svmcore.families.svm.solvers import working_set as ws

    K, y, upper, lam, ref = _problem(sigma, l2, "standard")
    a0, b0 = _perturb(ref.alpha, ref.b, upper, 0)
    runs, solve = [], ws.solve_restricted_dual

    def counted(*args, **kwargs):
        out = solve(*args, **kwargs)
        runs.append((out[2]["status"], out[2]["iterations"], out[2]["primal infeasibility"]))
        return out

    monkeypatch.setattr(ws, "solve_restricted_dual", counted)
    sol = solve_working_set(K, y, upper, lam, a0, b0)
    stopped, runs[:] = list(runs), []
    monkeypatch.setattr(qp, "_rounding_scales", lambda *args: (1.0, 0.0))
    full = solve_working_set(K, y, upper, lam, a0, b0)
    maxiters = ws._OPTIONS["maxiters"]
    assert all(st == "optimal" and it < maxiters for st, it, _ in stopped), stopped
    _assert_matches(K, y, upper, sol, ref)
    _assert_matches(K, y, upper, full, ref)
    if not any(st == "unknown" for st, _, _ in runs):
        from test_refactor_identity import _platform
        # cvxopt's residuals round otherwise on other machines: on a Zen 3 core (OpenBLAS's
        # Haswell kernels) σ = 0.5's sub-problems reached "optimal" unscaled too (21 and 55
        # iterations), so there is nothing to show there
        pytest.skip(f"no unscaled sub-problem ran out of iterations on {_platform()}")
    assert any(st == "unknown" and it == maxiters and pres > 1e-11 for st, it, pres in runs), runs
