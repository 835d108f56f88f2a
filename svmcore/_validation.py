"""Input validation helpers (scikit-learn's check_array in spirit) and the package's error type."""
from __future__ import annotations

import numpy as np


class SVMCoreError(ValueError):
    """A problem with the user's input or settings; its message names what is wrong."""


def check_matrix(X, name: str = "X") -> np.ndarray:
    """Return X as a finite 2-D float array or raise SVMCoreError naming the problem."""
    X = np.asarray(X, dtype=float)
    if X.ndim == 1:
        X = X[:, None]
    if X.ndim != 2:
        raise SVMCoreError(f"{name} must be 2-D, got shape {X.shape}")
    if X.shape[0] == 0:
        raise SVMCoreError(f"{name} has no rows")
    bad = ~np.isfinite(X)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise SVMCoreError(f"{name} has a non-finite value {X[i, j]!r} at row {i}, column {j}")
    return X


def check_labels(y) -> np.ndarray:
    """Return labels as a float array of ±1 with both classes present."""
    y = np.asarray(y, dtype=float).ravel()
    if y.size == 0:
        raise SVMCoreError("no labels given")
    bad = ~np.isin(y, (-1.0, 1.0))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise SVMCoreError(f"labels must be +1 (class A) or -1 (class B); row {i} has {y[i]!r}")
    if not (y > 0).any() or not (y < 0).any():
        cls = "A (+1)" if (y > 0).all() else "B (-1)"
        raise SVMCoreError(f"only one class present (all rows are class {cls}); need both classes")
    return y


def check_probability(p, n: int, name: str = "p") -> np.ndarray | None:
    """Return true class probabilities as a float array in [0, 1] of length n, or None."""
    if p is None:
        return None
    p = np.asarray(p, dtype=float).ravel()
    if p.shape[0] != n:
        raise SVMCoreError(f"{name} has {p.shape[0]} values for {n} points")
    bad = ~np.isfinite(p) | (p < 0) | (p > 1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise SVMCoreError(f"{name} must lie in [0, 1]; row {i} has {p[i]!r}")
    return p


def check_lambda(lam: float) -> float:
    lam = float(lam)
    if not np.isfinite(lam) or lam <= 0:
        raise SVMCoreError(f"lambda must be a positive number, got {lam!r}")
    return lam
