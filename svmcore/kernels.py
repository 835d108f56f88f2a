"""Kernels and vectorized Gram matrices (Wahba et al. 2001, §1.8)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.spatial.distance import cdist

from ._validation import SVMCoreError


def squared_distances(X, Z=None) -> np.ndarray:
    """Pairwise squared Euclidean distances, exact zeros on the diagonal when Z is None."""
    X = np.asarray(X, dtype=float)
    if Z is None:
        D = cdist(X, X, "sqeuclidean")
        np.fill_diagonal(D, 0.0)
        return D
    return cdist(X, np.asarray(Z, dtype=float), "sqeuclidean")


def gaussian_gram(X, Z=None, sigma: float = 1.0, sqdist=None) -> np.ndarray:
    """Gaussian kernel K(x, x') = exp(−‖x − x'‖² / (2σ²)) (Wahba et al. 2001, §1.8).

    ``sqdist`` may pass precomputed squared distances so that a σ sweep computes them once.
    """
    if not sigma > 0:
        raise SVMCoreError(f"sigma must be positive, got {sigma!r}")
    if sqdist is None:
        return _exp_of_ratio(squared_distances(X, Z), 2.0 * sigma * sigma, in_place=True)
    return _exp_of_ratio(sqdist, 2.0 * sigma * sigma)


def laplacian_gram(X, Z=None, sigma: float = 1.0, l1dist=None) -> np.ndarray:
    """Laplacian kernel K(x, x') = exp(−‖x − x'‖₁ / σ): scikit-learn's ``laplacian_kernel`` with
    γ = 1/σ. Its width σ plays the Gaussian's role on the surfaces (larger σ, smoother f).

    ``l1dist`` may pass precomputed L1 distances so that a σ sweep computes them once.
    """
    if not sigma > 0:
        raise SVMCoreError(f"sigma must be positive, got {sigma!r}")
    if l1dist is None:
        return _exp_of_ratio(l1_distances(X, Z), sigma, in_place=True)
    return _exp_of_ratio(l1dist, sigma)


def _exp_of_ratio(D, scale: float, in_place: bool = False) -> np.ndarray:
    """exp(−D / scale) as one n × n array: in D itself (``in_place``, for distances made here) or
    in one new array (distances passed in, which a σ sweep shares); bitwise the same as
    ``np.exp(-D / scale)``, which holds two more n × n temporaries (at n = 10,000, 763 MiB each,
    and their first touch cost 1.6 s each in a fresh process; ``bench/scale_history.md``)."""
    out = np.divide(D, -scale, out=D if in_place else None)
    return np.exp(out, out=out)


def l1_distances(X, Z=None) -> np.ndarray:
    """Pairwise L1 (city-block) distances, exact zeros on the diagonal when Z is None."""
    X = np.asarray(X, dtype=float)
    D = cdist(X, X if Z is None else np.asarray(Z, dtype=float), "cityblock")
    if Z is None:
        np.fill_diagonal(D, 0.0)
    return D


def polynomial_gram(X, Z=None, degree: int = 2) -> np.ndarray:
    """Polynomial kernel (1 + ⟨x, x'⟩)^d (docs/svm.md)."""
    X = np.asarray(X, dtype=float)
    Z = X if Z is None else np.asarray(Z, dtype=float)
    G = X @ Z.T
    G += 1.0
    G **= int(degree)               # in place: one n × n array
    return G


def linear_gram(X, Z=None) -> np.ndarray:
    """Linear kernel ⟨x, x'⟩ (docs/svm.md)."""
    X = np.asarray(X, dtype=float)
    Z = X if Z is None else np.asarray(Z, dtype=float)
    return X @ Z.T


@dataclass(frozen=True)
class Kernel:
    """A kernel by name and parameter: ``gaussian`` and ``laplacian`` (width sigma),
    ``polynomial`` (degree), ``linear``."""

    name: str = "gaussian"
    sigma: float = 1.0
    degree: int = 2

    def __post_init__(self):
        if self.name not in ("gaussian", "laplacian", "polynomial", "linear"):
            raise SVMCoreError(f"unknown kernel {self.name!r}; use gaussian, laplacian, polynomial "
                               "or linear")

    def gram(self, X, Z=None) -> np.ndarray:
        if self.name == "gaussian":
            return gaussian_gram(X, Z, self.sigma)
        if self.name == "laplacian":
            return laplacian_gram(X, Z, self.sigma)
        if self.name == "polynomial":
            return polynomial_gram(X, Z, self.degree)
        return linear_gram(X, Z)


def kernel_radius(K: np.ndarray) -> float:
    """R = max_i K_ii − min_ij K_ij, an upper bound on K_ii − K_ij used by XA (docs/svm.md)."""
    return float(np.max(np.diag(K)) - np.min(K))


# ------------------------------------------------------------------ the registry
@dataclass(frozen=True)
class KernelDef:
    """A kernel the sweeps offer: ``distances(X)`` once per data set, then ``gram(D, sigma)`` once
    per σ column. ``has_width``: False for kernels without σ (the σ axis must be one value)."""

    name: str
    title: str
    has_width: bool
    formula: str

    def distances(self, X) -> np.ndarray:
        if self.name == "gaussian":
            return squared_distances(X)
        if self.name == "laplacian":
            return l1_distances(X)
        return np.asarray(X, dtype=float)          # linear: the features themselves

    def gram(self, D: np.ndarray, sigma: float) -> np.ndarray:
        """The Gram matrix from ``distances(X)`` at width ``sigma``."""
        if self.name == "gaussian":
            return gaussian_gram(None, sigma=sigma, sqdist=D)
        if self.name == "laplacian":
            return laplacian_gram(None, sigma=sigma, l1dist=D)
        return linear_gram(D)

    def kernel(self, sigma: float) -> Kernel:
        """The :class:`Kernel` that evaluates it at new points."""
        return Kernel(self.name, sigma=sigma)


#: kernels offered by the sweeps (``--kernel``, the app, links); a family lists those it supports
KERNELS: dict[str, KernelDef] = {
    "gaussian": KernelDef("gaussian", "Gaussian", True, "exp(−‖x − x′‖² / (2σ²))"),
    "laplacian": KernelDef("laplacian", "Laplacian", True, "exp(−‖x − x′‖₁ / σ)"),
    "linear": KernelDef("linear", "linear", False, "⟨x, x′⟩"),
}
