"""LIBSVM through scikit-learn's ``SVC(kernel="precomputed")`` (docs/svm.md).

C = 1/(2nλ), sample_weight = L(y_i) (each point's bound C·L(y_i); bit for bit what class_weight
{+1: L(+1), −1: L(−1)} gives, and per-point bounds where twins are merged, ``twins.py``);
|dual_coef_|_i = a_i = α_i/(2nλ).
"""
from __future__ import annotations

import warnings

import numpy as np

from ._common import DualSolution, decision_values, finish_dual, kkt_residual, zero_scale


def solve_libsvm(K, y, upper, lam, tol: float = 1e-3, cache_size: float = 500.0,
                 max_iter: int = -1, min_tol: float = 1e-7, finish: bool = True) -> DualSolution:
    """Fit the weighted SVM with LIBSVM's SMO on a precomputed Gram matrix (docs/svm.md).

    SMO stops at its own tolerance ``tol`` (LIBSVM's default 1e-3), or after ``max_iter`` steps
    when that is positive (scikit-learn's warning silenced: the answer's KKT residual says how
    far it got); the answer is then finished exactly (``finish_dual``). When that does not
    reach the KKT conditions, SMO is run again with a tolerance 100 times smaller, down to
    ``min_tol``. ``finish=False``: SMO's own answer, once (``polished`` False, its KKT residual
    computed).
    """
    while True:
        sol = _smo(K, y, upper, lam, tol, cache_size, max_iter, finish)
        if sol.polished or tol / 100 < min_tol or not finish:
            sol.info["smo_tol"] = tol
            return sol
        tol /= 100


def _smo(K, y, upper, lam, tol, cache_size, max_iter, finish=True) -> DualSolution:
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.svm import SVC

    n = len(y)
    s = 2.0 * n * lam
    svc = SVC(C=1.0 / s, kernel="precomputed", tol=tol, cache_size=cache_size,
              max_iter=max_iter, shrinking=True)
    with warnings.catch_warnings():
        if max_iter > 0:            # a cap asked for: its answer is checked like any other
            warnings.simplefilter("ignore", ConvergenceWarning)
        svc.fit(K, y.astype(int), sample_weight=np.asarray(upper, float))
    # decision_function > 0 means classes_[1] (= +1); dual_coef_ holds y_i a_i on the support.
    sign = 1.0 if svc.classes_[1] == 1 else -1.0
    alpha = np.zeros(n)
    alpha[svc.support_] = np.abs(svc.dual_coef_[0]) * s
    b = sign * float(svc.intercept_[0])
    n_iter = int(np.sum(svc.n_iter_))
    if not finish:
        f = decision_values(K, y, alpha, lam, b)
        res = kkt_residual(y, f, alpha, upper, scale=zero_scale(n, lam))
        return DualSolution(lam, alpha, b, f, "libsvm", n_iter, res, False, {})
    return finish_dual(K, y, upper, lam, alpha, b, "libsvm", n_iter)
