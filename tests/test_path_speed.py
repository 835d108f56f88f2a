"""Where the exact path (svmcore.families.svm.solvers.path) spends its time: no slow corners.

Every answer is checked against an independent computation (cvxopt refits); the budgets are
counts or ratios measured in the same process, never absolute times."""
from __future__ import annotations


import numpy as np

from svmcore.datasets.simulations import make_wahba2d
from svmcore.kernels import gaussian_gram
from svmcore.families.svm.solvers import libsvm
from svmcore.families.svm.solvers.path import START_S, solve_path
from svmcore.families.svm.solvers.qp import solve_cvxopt
from svmcore.weights import class_weights_from_costs


def _objective(K, y, upper, sol):
    """(1/n) Σ L(y_i)(1 − y_i f_i)_+ + λ c'Kc, c = y α / (2nλ) (docs/svm.md)."""
    c = y * sol.alpha / (2 * len(y) * sol.lam)
    return float(np.mean(upper * np.maximum(0.0, 1.0 - y * sol.f)) + sol.lam * c @ K @ c)


def test_tiny_lambda_request_starts_where_smo_is_easy(monkeypatch):
    """A request whose largest λ is tiny (grid growth asks for log2(nλ) = −28 … −22 alone) starts
    LIBSVM at s = 2nλ = START_S, where SMO is cheap, and follows the path down; its answers are
    cvxopt's (the C_B = 4.5 view of the app: σ = 2, where SMO at C ~ 1e7 took seconds)."""
    data = make_wahba2d(120, 0)
    X, y = data.X, data.y
    upper = class_weights_from_costs(y, 1.0, 4.5).upper_bounds(y)
    K = gaussian_gram(X, sigma=2.0)
    n = len(y)
    seen = []
    real = libsvm.solve_libsvm

    def spy(K, y, upper, lam, **kw):
        seen.append(lam)
        return real(K, y, upper, lam, **kw)

    monkeypatch.setattr(libsvm, "solve_libsvm", spy)
    lams = 2.0 ** np.arange(-28.0, -21.0, 2.0) / n
    sols = solve_path(K, y, upper, lams)
    assert seen == [START_S / (2 * n)]
    assert sols[0].info["start"] == "libsvm" and sols[0].info["fallbacks"] == 0
    for sol in sols:
        ref = solve_cvxopt(K, y, upper, sol.lam)
        o_p, o_r = _objective(K, y, upper, sol), _objective(K, y, upper, ref)
        assert o_p <= o_r * (1 + 1e-6)          # the path is at least as good as cvxopt
        assert sol.kkt_residual <= max(1e-8, sol.info["kkt_floor"])
