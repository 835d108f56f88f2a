"""``UnbiasedSVC``: the unbiased SVC of Navia-Vázquez et al. (2004), trained by damped IRWLS.

The machine is the ``usvc`` family's (``fit_machine`` → ``fit_linear`` / ``fit_kernel``).
"""
from __future__ import annotations

import math

import numpy as np

from ..families.usvc.family import fit_machine
from ..kernels import gaussian_gram
from ._base import BinaryKernelClassifier, _make_spec, seed_of

USVC_KERNELS = {"linear": "linear", "gaussian": "rbf", "rbf": "rbf"}


class UnbiasedSVC(BinaryKernelClassifier):
    """½‖w‖² + C Σ θ̃_s(ξ_i), a smoothed error count, by IRWLS (Navia-Vázquez et al. 2004, eq 5).

    Parameters
    ----------
    s : float ≥ 1
        Shape of θ̃_s (larger: closer to the 0/1 count).
    C : float
        Weight of the loss.
    kernel : {"linear", "gaussian"}
        f(x) = x'w + b (eq 20), or f(x) = Σ_j β_j exp(−‖x − c_j‖²/(2σ²)) + b on k-means prototypes
        c_j (the semiparametric machine, eqs 23–27).
    sigma : Gaussian width σ.   prototypes : number of prototypes R (at most the distinct rows).
    method : {"usvc", "svc", "ls"}   damping, k_eps, start, max_iter : IRWLS settings
        (``svmcore/families/usvc/machines.py``).
    random_state : seed of k-means (None: 0).

    Attributes
    ----------
    classes_, intercept_, coef_ (linear w), centers_, beta_, sigma_ (Gaussian), threshold_
    (−b/w of a one-input linear machine, in the input's units, else None), converged_, n_iter_.
    """

    _STATE = ("intercept_", "coef_", "centers_", "beta_", "sigma_", "threshold_", "converged_",
              "n_iter_", "n_features_in_")

    def __init__(self, s=2.0, C=10.0, kernel="linear", sigma=1.0, prototypes=50, method="usvc",
                 damping=0.2, k_eps=1e-4, start="svc", max_iter=5000, random_state=None):
        self.s = s
        self.C = C
        self.kernel = kernel
        self.sigma = sigma
        self.prototypes = prototypes
        self.method = method
        self.damping = damping
        self.k_eps = k_eps
        self.start = start
        self.max_iter = max_iter
        self.random_state = random_state

    def fit(self, X, y):
        """Train the machine by IRWLS (the SVC stage first, then the unbiased loss)."""
        X, ypm = self._encode(X, y)
        if self.kernel not in USVC_KERNELS:
            raise ValueError(f"kernel must be 'linear' or 'gaussian'; got {self.kernel!r}")
        if not (isinstance(self.sigma, (int, float)) and self.sigma > 0 and math.isfinite(self.sigma)):
            raise ValueError(f"sigma must be a positive number; got {self.sigma!r}")
        kernel = USVC_KERNELS[self.kernel]
        R = min(int(self.prototypes), np.unique(X, axis=0).shape[0])
        spec = _make_spec("usvc", X.shape[0], kernel="linear" if kernel == "linear" else "gaussian",
                          log2_sigma=repr(math.log2(self.sigma)), method=self.method, s=self.s,
                          prototypes=max(R, 2), damping=self.damping, C=self.C, k_eps=self.k_eps,
                          start=self.start, max_iter=self.max_iter,
                          prototype_seed=seed_of(self.random_state))
        m = fit_machine(spec, X, ypm)
        self.intercept_ = np.array([float(m.b)])
        self.converged_, self.n_iter_ = bool(m.fit.converged), int(m.fit.iterations)
        if kernel == "linear":
            self.coef_ = np.asarray(m.w, float)
            self.centers_ = self.beta_ = self.sigma_ = None
            w = self.coef_
            self.threshold_ = float(-m.b / w[0]) if w.size == 1 and w[0] != 0 else None
        else:
            self.coef_ = self.threshold_ = None
            self.centers_, self.beta_, self.sigma_ = m.centers, np.asarray(m.beta, float), float(m.sigma)
        return self

    def decision_function(self, X):
        """f(x) = x'w + b, or Σ_j β_j K(x, c_j) + b."""
        X = self._check_X(X)
        if self.coef_ is not None:
            return X @ np.asarray(self.coef_) + self.intercept_[0]
        return gaussian_gram(X, np.asarray(self.centers_), self.sigma_) @ self.beta_ + self.intercept_[0]

    def _card_fit(self) -> dict:
        return {"fit": {"intercept": float(self.intercept_[0]), "threshold": self.threshold_,
                        "converged": self.converged_, "iterations": self.n_iter_}}
