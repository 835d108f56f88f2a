"""The θ step of the COSSO SVM: a linear program with (b, c) fixed (Zhang 2006, eq 4.3).

With g_α = R_α c (the columns of G, n × q) and f_i = b + Σ_α θ_α g_αi, the weighted objective
(Zhang 2006, eqs 4.1 and 5.1) restricted to θ is

    min_{z, θ}  (1/n) Σ_i L(y_i) z_i + λ0 Σ_α θ_α c'R_α c
    s.t.        z_i ≥ 1 − y_i (Σ_α θ_α g_αi + b),  z ≥ 0,  Σ_α θ_α ≤ M,  θ ≥ 0,

solved by HiGHS through ``scipy.optimize.linprog``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse
from scipy.optimize import linprog

from ..._validation import SVMCoreError


@dataclass
class ThetaLP:
    """Solution of the θ step: θ (q,), slacks z (n,), the LP objective and HiGHS's status text."""

    theta: np.ndarray
    z: np.ndarray
    objective: float
    message: str


def theta_step_data(R, c) -> tuple[np.ndarray, np.ndarray]:
    """G (n, q) with columns g_α = R_α c, and the penalty coefficients c'R_α c = c'g_α (q,)."""
    G = np.einsum("aij,j->ia", R, c)
    return G, G.T @ c


def lp_objective(theta, G, quad, y, b, upper, lam0) -> float:
    """(1/n) Σ L(y_i)(1 − y_i(Gθ + b)_i)_+ + λ0 θ'quad: the LP's objective at its optimal z."""
    z = np.maximum(0.0, 1.0 - y * (G @ theta + b))
    return float(np.mean(upper * z) + lam0 * quad @ theta)


def solve_theta_lp(G, quad, y, b: float, upper, lam0: float, M: float) -> ThetaLP:
    """Solve eq 4.3 (Zhang 2006) for θ with (b, c) fixed; weights L(y_i) = ``upper`` (eq 5.1).

    Parameters
    ----------
    G : (n, q) with columns g_α = R_α c.   quad : (q,) c'R_α c ≥ 0.
    y : ±1 labels.   b : the SVM step's intercept.   upper : L(y_i).
    lam0 : λ0 > 0.   M : bound on Σ θ_α (M > 0).
    """
    G = np.asarray(G, float)
    n, q = G.shape
    if not M > 0:
        raise SVMCoreError(f"M must be positive, got {M!r}")
    # variables x = [θ (q), z (n)]
    cost = np.r_[lam0 * np.maximum(np.asarray(quad, float), 0.0), np.asarray(upper, float) / n]
    hinge = sparse.hstack([sparse.csr_matrix(-(y[:, None] * G)), -sparse.identity(n)])
    budget = sparse.hstack([sparse.csr_matrix(np.ones((1, q))), sparse.csr_matrix((1, n))])
    A = sparse.vstack([hinge, budget]).tocsr()
    rhs = np.r_[-(1.0 - y * b), M]
    res = linprog(cost, A_ub=A, b_ub=rhs, bounds=(0, None), method="highs")
    if res.status != 0:
        raise SVMCoreError(f"the θ linear program failed: {res.message}")
    theta = np.maximum(res.x[:q], 0.0)
    return ThetaLP(theta, res.x[q:], float(res.fun), str(res.message))
