"""``TunedKernelLogistic``: penalized-likelihood soft classification tuned by GACV, ranGACV or CV.

The sweep is ``svmcore.grid.run_grid`` with the ``logistic`` family (Newton–Raphson along λ per σ,
``svmcore/families/soft/``), the pick ``GridResult.pick`` and the refit the family's ``fit_at``.
"""
from __future__ import annotations

import numpy as np
from scipy.special import expit

from ..kernels import Kernel
from ._base import BinaryKernelClassifier, _make_spec, axis_text, seed_of
from .svc import KERNELS, sweep_pick_refit

#: criterion name → (the logistic family's criterion, its table column)
LOGISTIC_CRITERIA = {"gacv": ("gacv", "gacv"), "rangacv": ("rangacv", "rangacv"),
                     "cv": ("cv_deviance", "cv_deviance"), "obs": ("obs", "obs")}


class TunedKernelLogistic(BinaryKernelClassifier):
    """Gaussian-kernel penalized logistic regression with (λ, σ) picked by GACV, ranGACV or CV.

    Minimises (1/n) Σ [−y_i f_i + log(1 + e^{f_i})] + λ c'Kc, f = b + Kc, y_i ∈ {0, 1} (Wahba,
    Lin, Lee & Zhang 2001, §1.2; Lin, Wahba, Xiang, Gao, Klein & Klein, "The bias-variance tradeoff
    and the randomized GACV", eq 2), so p̂(x) = 1/(1 + e^{−f(x)}) estimates P(classes_[1] | x).

    Parameters
    ----------
    criterion : {"gacv", "rangacv", "cv", "obs"}
        GACV (ranGACV paper, eq 8), randomized GACV (eq 10; ``rangacv_reps`` draws seeded by
        ``random_state``), k-fold CV deviance (eq 5 with folds), or the in-sample deviance.
    log2_nlambda, log2_sigma : grid axes ("START:STOP:STEP" or one number).
    kernel : {"gaussian", "laplacian"}.   extend_grid : grow the grid until the pick is inside.
    cv : folds of "cv".   rangacv_reps : draws of ranGACV.
    n_jobs : worker processes for the σ columns (None: 1).   random_state : seed (None: 0).

    Attributes
    ----------
    classes_, best_params_, best_index_, best_score_, surface_, X_train_, coef_ (c),
    intercept_ (b), sigma_, lambda_, notes_, n_features_in_.

    Notes
    -----
    The family has no class or sample weights (the likelihood is unweighted).
    """

    _STATE = ("X_train_", "coef_", "intercept_", "sigma_", "lambda_", "best_params_", "best_index_",
              "best_score_", "notes_", "n_features_in_")

    def __init__(self, criterion="gacv", log2_nlambda="-20:4:1", log2_sigma="-3:3:0.5",
                 kernel="gaussian", extend_grid=True, cv=5, rangacv_reps=5, n_jobs=None,
                 random_state=None):
        self.criterion = criterion
        self.log2_nlambda = log2_nlambda
        self.log2_sigma = log2_sigma
        self.kernel = kernel
        self.extend_grid = extend_grid
        self.cv = cv
        self.rangacv_reps = rangacv_reps
        self.n_jobs = n_jobs
        self.random_state = random_state

    def _spec(self, n: int):
        if self.criterion not in LOGISTIC_CRITERIA:
            raise ValueError(f"criterion must be one of {', '.join(LOGISTIC_CRITERIA)} (CKL needs the "
                             f"true P(A|x)); got {self.criterion!r}")
        if self.kernel not in KERNELS:
            raise ValueError(f"kernel must be one of {KERNELS}; got {self.kernel!r}")
        seed = seed_of(self.random_state)
        return _make_spec("logistic", n, kernel=self.kernel, log2_nlambda=axis_text(self.log2_nlambda),
                          log2_sigma=axis_text(self.log2_sigma),
                          criteria=(LOGISTIC_CRITERIA[self.criterion][0],), cv_folds=self.cv,
                          cv_seed=seed, extend_grid=bool(self.extend_grid),
                          options={"rangacv_reps": self.rangacv_reps, "rangacv_seed": seed})

    def fit(self, X, y):
        """Sweep the grid, pick by ``criterion``, refit at the pick (a cold Newton fit)."""
        X, ypm = self._encode(X, y)
        spec = self._spec(X.shape[0])
        data = self._dataset(X, ypm)
        _, fit = sweep_pick_refit(self, spec, data, LOGISTIC_CRITERIA[self.criterion][1])
        self.X_train_, self.coef_ = fit.X_train, np.asarray(fit.c, float)
        self.intercept_ = np.array([float(fit.b)])
        self.sigma_, self.lambda_ = float(fit.sigma), float(fit.lam)
        return self

    def decision_function(self, X):
        """f(x) = b + Σ c_i K(x, x_i), the fitted logit of P(classes_[1] | x)."""
        X = self._check_X(X)
        return self.intercept_[0] + Kernel(self.kernel, sigma=self.sigma_).gram(X, self.X_train_) @ self.coef_

    def predict_proba(self, X):
        """(n, 2) array: P̂(classes_[0] | x), P̂(classes_[1] | x)."""
        p = expit(self.decision_function(X))
        return np.column_stack([1.0 - p, p])

    def predict_log_proba(self, X):
        return np.log(self.predict_proba(X))

    def _card_fit(self) -> dict:
        return {"pick": {**self.best_params_, self.criterion: self.best_score_},
                "notes": "; ".join(self.notes_) or "none"}
