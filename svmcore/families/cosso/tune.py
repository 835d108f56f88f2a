"""Tuning the COSSO SVM: λ0 once at θ = 1, then the budget M on a grid (Zhang 2006, §4.2).

Criteria, each a curve over the grid:
- ``gckl``: GCKL (Wahba 1999; Wahba et al. 2001, eq 1.27) of the fit at the training points, with
  the true P(A|x) (simulations only; the paper's choice in its Examples 1–2);
- ``cv_hinge``: k-fold cross-validated weighted hinge loss, the paper's suggested GCKL proxy;
- ``gacv``: the GACV of the final SVM step (kernel R_θ at λ0; Wahba et al. 2001, eq 1.26), an
  in-sample proxy that treats θ as fixed.
"""
from __future__ import annotations

import numpy as np

from ..._validation import SVMCoreError
from ...kernels import kernel_radius
from ..common import stratified_folds
from ..svm.criteria import gacv, gckl_values
from ..svm.fit import make_fit, solve_lambdas
from .fit import DEFAULT_THRESHOLD, alternate, coefficients, svm_step
from .kernels import combine

#: log2(nλ0) grid for the first SVM step (θ = 1)
LOG2_NLAMBDA0 = np.arange(-22.0, 3.0, 1.0)
#: criterion column of each tuning rule
CURVE_OF = {"gckl": "gckl", "cv": "cv_hinge", "gacv": "gacv"}


def m_grid(q: int, n_M: int = 20, low: float = 0.05) -> np.ndarray:
    """Geometric grid of the budget M from ``low`` to q (θ = 1 has Σθ = q)."""
    if n_M < 2:
        raise SVMCoreError(f"the M grid needs at least 2 values, got {n_M}")
    return np.geomspace(low, float(q), int(n_M))


def weighted_hinge(f, y, upper) -> float:
    """(1/n) Σ L(y_i)(1 − y_i f_i)_+."""
    return float(np.mean(upper * np.maximum(0.0, 1.0 - y * f)))


def _first_minimizer(values) -> int:
    v = np.asarray(values, float)
    if not np.isfinite(v).any():
        raise SVMCoreError("every fit on the tuning grid failed")
    return int(np.nanargmin(np.where(np.isfinite(v), v, np.nan)))


def choose_lambda0(K, y, upper, weights, rule: str, p=None, folds: int = 5, seed: int = 0,
                   log2_nlambda=LOG2_NLAMBDA0) -> tuple[float, dict]:
    """λ0 for the SVM at θ = 1 (kernel Σ_α R_α) by ``rule`` over a log2(nλ) grid, the whole grid from
    the exact λ-path. Returns (λ0, {"log2_nlambda": grid, rule's curve name: values})."""
    n = len(y)
    lams = list(2.0 ** np.asarray(log2_nlambda, float) / n)
    name = CURVE_OF[rule]
    if rule == "cv":
        from ..svm.resampling import kfold_decision_values
        F = kfold_decision_values(K, y, upper, lams, folds, seed, "auto")
        curve = [weighted_hinge(f, y, upper) if np.all(np.isfinite(f)) else np.nan for f in F]
    else:
        sols = solve_lambdas(K, y, upper, lams, "auto")
        K_diag, R = np.diag(K).copy(), kernel_radius(K)
        curve = []
        for sol in sols:
            if isinstance(sol, Exception):
                curve.append(np.nan)
            elif rule == "gckl":
                curve.append(gckl_values(sol.f, p, weights.L_pos, weights.L_neg))
            else:
                curve.append(gacv(make_fit(sol, y, upper, weights, K_diag, R)))
    k = _first_minimizer(curve)
    return lams[k], {"log2_nlambda": [float(v) for v in log2_nlambda], name: [float(v) for v in curve]}


def path_over_M(R, y, upper, lam0, M_grid, rounds=1, threshold=DEFAULT_THRESHOLD, solver="cvxopt"):
    """The COSSO fit at every M (ascending); the SVM at θ = 1 is shared by all of them."""
    first = svm_step(R, np.ones(R.shape[0]), y, upper, lam0, solver)
    return [alternate(R, y, upper, lam0, M, first, rounds, threshold, solver) for M in M_grid]


def in_sample_curves(steps, R, y, upper, weights, p=None) -> dict:
    """GACV of each M's final SVM step (Gram R_θ), and GCKL when the true p is known."""
    out = {"gacv": []}
    if p is not None:
        out["gckl"] = []
    for st in steps:
        K = combine(R, st.theta)
        fit = make_fit(st.sol, y, upper, weights, np.diag(K).copy(), kernel_radius(K))
        out["gacv"].append(gacv(fit))
        if p is not None:
            out["gckl"].append(gckl_values(st.sol.f, p, weights.L_pos, weights.L_neg))
    return out


def cv_hinge_curve(R, y, upper, lam0, M_grid, folds=5, seed=0, rounds=1,
                   threshold=DEFAULT_THRESHOLD, solver="cvxopt") -> list[float]:
    """k-fold CV of the weighted hinge over the M grid (Zhang 2006, §4.2): each fold refits the
    whole COSSO path at λ' = nλ0/m on its m kept points (the same C = 1/(2nλ0); L fixed)."""
    n = len(y)
    F = np.full((len(M_grid), n), np.nan)
    for tr, te in stratified_folds(y, folds, seed):
        Rtr = R[:, tr][:, :, tr]
        lam = lam0 * n / len(tr)
        try:
            steps = path_over_M(Rtr, y[tr], upper[tr], lam, M_grid, rounds, threshold, solver)
        except SVMCoreError:
            continue
        Rte = R[:, te][:, :, tr]
        for k, st in enumerate(steps):
            F[k, te] = combine(Rte, st.theta) @ coefficients(st.sol, y[tr]) + st.sol.b
    return [weighted_hinge(f, y, upper) if np.all(np.isfinite(f)) else np.nan for f in F]


def pick_M(curves: dict, rule: str) -> int:
    """Index of the M chosen by ``rule``: the first (smallest) minimiser of its curve."""
    return _first_minimizer(curves[CURVE_OF[rule]])
