"""The linear and the prototype-kernel machines trained by IRWLS (Navia-Vázquez et al. 2004).

``fit_linear``: f(x) = x'w + b, regulariser ½‖w‖² (eq 20).
``fit_kernel``: f(x) = Σ_j β_j K(c_j, x) + b on R prototypes c_j (the semiparametric machine,
eqs 23–27), regulariser ½ β' I_Ψ β with (I_Ψ)_jk = K(c_j, c_k); Gaussian kernel
K(x, c) = exp(−‖x − c‖²/(2σ²)); prototypes by k-means (the paper uses FSCL clustering).
Both: ``method="svc"`` runs the classic SVC (hinge) from the least-squares start; ``"usvc"``
runs the SVC first, then the unbiased SVC with θ̃_s from there (or from least squares).
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ..._validation import SVMCoreError, check_labels, check_matrix
from ...kernels import gaussian_gram
from .irwls import IRWLSFit, irwls, least_squares_start, whitening
from .losses import K_EPS, hinge_alpha, usvc_alpha

METHODS = ("ls", "svc", "usvc")


@dataclass
class IRWLSSettings:
    """Settings shared by both machines (defaults: the paper's experiment 1)."""

    method: str = "usvc"
    C: float = 10.0
    s: float = 2.0
    k_eps: float = K_EPS
    damping: float = 0.2
    start: str = "svc"          # USVC start: "svc" (the paper's choice) or "ls"
    tol: float = 1e-8
    max_iter: int = 5000

    def check(self) -> "IRWLSSettings":
        if self.method not in METHODS:
            raise SVMCoreError(f"method must be one of {', '.join(METHODS)}, got {self.method!r}")
        if self.start not in ("svc", "ls"):
            raise SVMCoreError(f"start must be 'svc' or 'ls', got {self.start!r}")
        if not (self.C > 0 and np.isfinite(self.C)):
            raise SVMCoreError(f"C must be a positive finite number, got {self.C!r}")
        if not 0.0 <= self.damping < 1.0:
            raise SVMCoreError(f"damping d must be in [0, 1), got {self.damping!r}")
        if not self.s >= 1.0:
            raise SVMCoreError(f"s must be at least 1, got {self.s!r}")
        return self


def train(Z, y, st: IRWLSSettings) -> tuple[IRWLSFit, IRWLSFit | None]:
    """Run the method of ``st`` on design Z; returns (final fit, the SVC stage or None)."""
    c0, b0 = least_squares_start(Z, y)
    kw = dict(damping=st.damping, tol=st.tol, max_iter=st.max_iter)
    if st.method == "ls":
        p = np.vstack([c0])
        return IRWLSFit(c0, b0, 0, True, "regularized least squares (a_i = 1)", p, np.array([b0])), None
    svc = irwls(Z, y, lambda u: hinge_alpha(u, st.C), c0, b0, **kw)
    if st.method == "svc":
        return svc, None
    cs, bs = (svc.coef, svc.b) if st.start == "svc" else (c0, b0)
    return irwls(Z, y, lambda u: usvc_alpha(u, st.C, st.s, st.k_eps), cs, bs, **kw), svc


@dataclass
class LinearMachine:
    """f(x) = x'w + b fitted by IRWLS.   fit, svc_stage : the IRWLSFit(s)."""

    w: np.ndarray
    b: float
    fit: IRWLSFit
    svc_stage: IRWLSFit | None
    settings: IRWLSSettings

    def decision_function(self, X) -> np.ndarray:
        return check_matrix(X) @ self.w + self.b

    def predict(self, X) -> np.ndarray:
        return np.where(self.decision_function(X) > 0, 1.0, -1.0)


@dataclass
class KernelMachine:
    """f(x) = Σ_j β_j exp(−‖x − c_j‖²/(2σ²)) + b (eq 27 with the intercept of eq 25)."""

    centers: np.ndarray
    sigma: float
    beta: np.ndarray
    b: float
    fit: IRWLSFit
    svc_stage: IRWLSFit | None
    settings: IRWLSSettings

    def decision_function(self, X) -> np.ndarray:
        return gaussian_gram(check_matrix(X), self.centers, self.sigma) @ self.beta + self.b

    def predict(self, X) -> np.ndarray:
        return np.where(self.decision_function(X) > 0, 1.0, -1.0)


def fit_linear(X, y, settings: IRWLSSettings | None = None, **kw) -> LinearMachine:
    """Linear machine by IRWLS (eq 20). ``kw`` overrides fields of ``settings``."""
    st = _settings(settings, kw)
    X, y = check_matrix(X), check_labels(y)
    fit, svc = train(X, y, st)
    return LinearMachine(fit.coef, fit.b, fit, svc, st)


def kmeans_prototypes(X, R: int, seed: int = 0) -> np.ndarray:
    """R prototypes by k-means (scikit-learn, ``random_state=seed``); the paper uses FSCL."""
    from sklearn.cluster import KMeans

    X = check_matrix(X)
    if not 2 <= R <= X.shape[0]:
        raise SVMCoreError(f"prototypes R must be between 2 and the number of rows ({X.shape[0]}), "
                           f"got {R}")
    n_distinct = np.unique(X, axis=0).shape[0]
    if R > n_distinct:
        raise SVMCoreError(f"prototypes R = {R} exceeds the {n_distinct} distinct training points")
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        return KMeans(n_clusters=R, random_state=seed, n_init=1).fit(X).cluster_centers_


def fit_kernel(X, y, sigma: float, prototypes: int | np.ndarray = 50, seed: int = 0,
               settings: IRWLSSettings | None = None, **kw) -> KernelMachine:
    """Semiparametric Gaussian-kernel machine on R prototypes (eqs 23–27).

    Parameters
    ----------
    X, y : training data.   sigma : kernel width σ of exp(−‖x − c‖²/(2σ²)).
    prototypes : R (k-means with ``seed``) or an (R, d) array of centers.
    settings, kw : IRWLSSettings and overrides.
    """
    st = _settings(settings, kw)
    X, y = check_matrix(X), check_labels(y)
    if not (np.isfinite(sigma) and sigma > 0):
        raise SVMCoreError(f"sigma must be a positive finite number, got {sigma!r}")
    t0 = time.perf_counter()
    centers = (kmeans_prototypes(X, int(prototypes), seed) if np.ndim(prototypes) == 0
               else check_matrix(prototypes, "prototypes"))
    T = whitening(gaussian_gram(centers, None, sigma))
    fit, svc = train(gaussian_gram(X, centers, sigma) @ T, y, st)
    fit.seconds = time.perf_counter() - t0
    return KernelMachine(centers, float(sigma), T @ fit.coef, fit.b, fit, svc, st)


def _settings(settings, kw) -> IRWLSSettings:
    base = settings or IRWLSSettings()
    if kw:
        base = IRWLSSettings(**{**base.__dict__, **kw})
    return base.check()
