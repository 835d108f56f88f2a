"""Threshold error surfaces of the 1-D examples (Navia-Vázquez et al. 2004, §3, Figs 3–4).

A 1-D linear machine f(x) = w (x − Th) has threshold Th = −b/w. Each algorithm minimises a
surface over (Th, w): the SVC L̃_P = ½w² + C Σ ξ_i and the USVC L̃_P = ½w² + C Σ θ̃_s(ξ_i),
ξ_i = (1 − y_i f(x_i))_+. The profile min_w L̃_P(Th, w) / (C n) is the "error" curve the algorithm
really minimises along the threshold (the dashed cross-section of Figs 3b, 3d).
"""
from __future__ import annotations

import numpy as np

from ..._validation import SVMCoreError
from .losses import K_EPS, hinge, theta_s


def surface(x, y, th_grid, w_grid, C: float, loss: str = "usvc", s: float = 2.0,
            k_eps: float = K_EPS) -> np.ndarray:
    """L̃_P(Th, w) on the grid, shape (len(w_grid), len(th_grid)).

    Parameters
    ----------
    x : (n,) 1-D inputs.   y : ±1 labels.   th_grid, w_grid : the axes.
    C : penalty.   loss : "svc" (hinge ξ) or "usvc" (θ̃_s(ξ), eq 6).   s, k_eps : of θ̃_s.
    """
    x = np.asarray(x, dtype=float).ravel()
    y = np.asarray(y, dtype=float).ravel()
    th = np.asarray(th_grid, dtype=float)
    w = np.asarray(w_grid, dtype=float)
    if loss not in ("svc", "usvc"):
        raise SVMCoreError(f"loss must be 'svc' or 'usvc', got {loss!r}")
    cost = (lambda xi: hinge(xi)) if loss == "svc" else (lambda xi: theta_s(xi, s, k_eps))
    out = np.empty((w.size, th.size))
    shifted = x[None, :] - th[:, None]                       # (m_th, n)
    for k, wk in enumerate(w):                               # loop over the w axis, not the data
        xi = np.maximum(0.0, 1.0 - y[None, :] * wk * shifted)
        out[k] = 0.5 * wk * wk + C * cost(xi).sum(axis=1)
    return out


def profile(S: np.ndarray, w_grid, C: float, n: int) -> tuple[np.ndarray, np.ndarray]:
    """min over w of the surface at each Th, divided by C n; and the minimising w (Figs 3b, 3d)."""
    k = np.argmin(S, axis=0)
    return S[k, np.arange(S.shape[1])] / (C * n), np.asarray(w_grid)[k]


def empirical_threshold_error(x, y, th_grid) -> np.ndarray:
    """Training error of the rule "+1 where x > Th" at each Th."""
    x = np.asarray(x, dtype=float).ravel()
    y = np.asarray(y, dtype=float).ravel()
    pred = np.where(x[None, :] > np.asarray(th_grid, float)[:, None], 1.0, -1.0)
    return np.mean(pred != y[None, :], axis=1)


def trajectory(coef_path, b_path) -> tuple[np.ndarray, np.ndarray]:
    """(Th_k, w_k) = (−b_k / w_k, w_k) of a 1-D IRWLS run (NaN where w_k = 0)."""
    w = np.asarray(coef_path, dtype=float).reshape(len(b_path), -1)[:, 0]
    b = np.asarray(b_path, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        th = np.where(w != 0, -b / w, np.nan)
    return th, w
