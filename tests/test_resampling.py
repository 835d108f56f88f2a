"""k-fold CV and exact LOO against brute-force refits with scikit-learn's own RBF kernel."""
import numpy as np
import pytest
from sklearn.model_selection import StratifiedKFold
from sklearn.svm import SVC

from svmcore.datasets.simulations import make_wahba2d
from svmcore.kernels import gaussian_gram
from svmcore.families.svm.resampling import hinge_and_error, kfold_decision_values, loo_decision_values
from svmcore.families.svm.fit import solve_lambdas

SIGMA = 1.0


def brute(Xtr, ytr, Xte, lam, L, n):
    """Refit from scratch with sklearn: gamma = 1/(2σ²), C = 1/(2nλ) with the FULL n (the left-out
    functional keeps each term's weight 1/n, Wahba et al. 2001, §1.5), class weights L."""
    svc = SVC(C=1 / (2 * n * lam), kernel="rbf", gamma=1 / (2 * SIGMA ** 2), tol=1e-10,
              class_weight={1: L[0], -1: L[1]})
    svc.fit(Xtr, ytr.astype(int))
    return svc.decision_function(Xte)


@pytest.mark.parametrize("L", [(1.0, 1.0), (0.5, 1.5)])
def test_kfold_cv_equals_brute_force_refits(L):
    d = make_wahba2d(60, seed=11)
    X, y = d.X, d.y
    upper = np.where(y > 0, *L)
    K = gaussian_gram(X, sigma=SIGMA)
    lams = [2.0 ** l2 / len(y) for l2 in (-6, -3, 0)]
    F = kfold_decision_values(K, y, upper, lams, folds=5, seed=3, solver="cvxopt")
    skf = StratifiedKFold(5, shuffle=True, random_state=3)
    for k, lam in enumerate(lams):
        Fb = np.empty(len(y))
        for tr, te in skf.split(X, y):
            Fb[te] = brute(X[tr], y[tr], X[te], lam, L, len(y))
        np.testing.assert_allclose(F[k], Fb, atol=1e-6 * np.abs(Fb).max())
        hinge, err = hinge_and_error(F[k:k + 1], y, upper)
        assert hinge[0] == pytest.approx(np.mean(upper * np.maximum(0, 1 - y * Fb)), rel=1e-6)
        assert err[0] == pytest.approx(np.mean(upper * (y * Fb <= 0)))


def test_loo_equals_refitting_every_point():
    d = make_wahba2d(40, seed=2)
    X, y = d.X, d.y
    upper = np.ones(len(y))
    K = gaussian_gram(X, sigma=SIGMA)
    lams = [2.0 ** l2 / len(y) for l2 in (-5, -1)]
    full = solve_lambdas(K, y, upper, lams, "cvxopt")
    F = loo_decision_values(K, y, upper, lams, full, solver="cvxopt")
    for k, lam in enumerate(lams):
        Fb = np.array([brute(np.delete(X, i, 0), np.delete(y, i), X[i:i + 1], lam, (1, 1), len(y))[0]
                       for i in range(len(y))])   # every point, including α_i = 0
        np.testing.assert_allclose(F[k], Fb, atol=1e-6 * np.abs(Fb).max())


def test_loo_at_tiny_lambda_keeps_small_support_vectors():
    """At nλ = 2^-22 free α are 2nλ·a ≈ 5e-7·a (< 1e-6·L); LOO still equals refitting. Reference:
    a cvxopt refit without each point (C kept, i.e. λ' = nλ/(n−1)), predicted at that point."""
    from svmcore.families.svm.solvers.qp import solve_cvxopt

    d = make_wahba2d(30, seed=4)
    X, y = d.X, d.y
    n = len(y)
    upper = np.ones(n)
    K = gaussian_gram(X, sigma=0.7)
    lam = 2.0 ** -22 / n
    full = solve_lambdas(K, y, upper, [lam], "cvxopt")
    assert full[0].polished
    small = (full[0].alpha > 0) & (full[0].alpha < 1e-6)
    assert small.sum() >= 3                      # the case this test is about
    F = loo_decision_values(K, y, upper, [lam], full, solver="cvxopt")[0]
    Fb = np.empty(n)
    for i in range(n):
        keep = np.delete(np.arange(n), i)
        sol = solve_cvxopt(K[np.ix_(keep, keep)], y[keep], upper[keep], n * lam / (n - 1))
        c = y[keep] * sol.alpha / (2 * n * lam)
        Fb[i] = K[i, keep] @ c + sol.b
    np.testing.assert_allclose(F, Fb, atol=1e-6 * np.abs(Fb).max())
