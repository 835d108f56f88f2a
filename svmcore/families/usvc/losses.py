"""Losses of the unbiased SVC and their derivatives (Navia-Vázquez et al. 2004, eq 6).

ξ is the margin slack ξ = (1 − y f)_+. The classic SVC charges C ξ (Vapnik's L1 slack, eq 4);
the unbiased SVC charges C θ̃_s(ξ), a smooth step centred at ξ = 1 (y f = 0, the decision
boundary), so that a misclassified point costs about C however far it lies from the boundary.
See ``docs/usvc.md``.
"""
from __future__ import annotations

import numpy as np

#: default k_ε of eq 6 (a very small constant that keeps a slope at ξ = 0, so that the
#: maximal-margin solution is still found on separable data)
K_EPS = 1e-4


def _kappa(s: float, k_eps: float) -> float:
    return float(k_eps) ** (1.0 / float(s))


def theta_s(xi, s: float = 2.0, k_eps: float = K_EPS) -> np.ndarray:
    """Smoothed error count θ̃_s(ξ) (Navia-Vázquez et al. 2004, eq 6).

    With κ = k_ε^{1/s}:
    θ̃_s(ξ) = (ξ + κ)^s / (2 (1 + κ)^s) for 0 ≤ ξ < 1 and 1 − (1 + κ)^s / (2 (ξ + κ)^s) for ξ ≥ 1.

    Parameters
    ----------
    xi : array of slacks ξ ≥ 0 (negative values are treated as 0, i.e. ξ = (1 − y f)_+).
    s : steepness (s → ∞ approaches the step at ξ = 1).   k_eps : k_ε.

    Returns
    -------
    ndarray, same shape as ``xi``; θ̃_s(1) = ½ and θ̃_s → 1 as ξ → ∞.
    """
    xi = np.maximum(np.asarray(xi, dtype=float), 0.0)
    k = _kappa(s, k_eps)
    low = (xi + k) ** s / (2.0 * (1.0 + k) ** s)
    high = 1.0 - (1.0 + k) ** s / (2.0 * (np.maximum(xi, 1.0) + k) ** s)
    return np.where(xi < 1.0, low, high)


def theta_s_prime(xi, s: float = 2.0, k_eps: float = K_EPS) -> np.ndarray:
    """dθ̃_s/dξ of eq 6: s (ξ + κ)^{s−1} / (2 (1 + κ)^s) below 1, s (1 + κ)^s / (2 (ξ + κ)^{s+1}) above.

    Both branches equal s / (2 (1 + κ)) at ξ = 1, so θ̃_s is continuously differentiable.
    """
    xi = np.maximum(np.asarray(xi, dtype=float), 0.0)
    k = _kappa(s, k_eps)
    low = s * (xi + k) ** (s - 1.0) / (2.0 * (1.0 + k) ** s)
    high = s * (1.0 + k) ** s / (2.0 * (np.maximum(xi, 1.0) + k) ** (s + 1.0))
    return np.where(xi < 1.0, low, high)


def hinge(xi) -> np.ndarray:
    """Vapnik's slack cost ξ (eq 4), for ξ = (1 − y f)_+."""
    return np.maximum(np.asarray(xi, dtype=float), 0.0)


def hinge_alpha(u, C: float) -> np.ndarray:
    """α_i of the classic SVC from u_i = e_i y_i = 1 − y_i f_i: C where u_i > 0, else 0.

    This is C times the hinge's derivative (eq 21 with θ(ξ) = ξ).
    """
    return np.where(np.asarray(u) > 0.0, float(C), 0.0)


def usvc_alpha(u, C: float, s: float = 2.0, k_eps: float = K_EPS) -> np.ndarray:
    """α_i of the unbiased SVC (Navia-Vázquez et al. 2004, eq 21): 0 where e_i y_i < 0, else
    C θ̃_s'(ξ_i) with ξ_i = e_i y_i."""
    u = np.asarray(u, dtype=float)
    return np.where(u >= 0.0, float(C) * theta_s_prime(u, s, k_eps), 0.0)
