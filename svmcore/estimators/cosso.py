"""``COSSOSVC``: the COSSO SVM (Zhang 2006) as a scikit-learn estimator, with feature selection.

Fitting and tuning are the ``cosso`` family's (``CossoFamily.fit`` → ``fit_cosso``): λ0 at θ = 1
over the exact λ-path, then the budget M on a geometric grid by the chosen rule.
"""
from __future__ import annotations

import numpy as np

from ..families.cosso.fit import DEFAULT_THRESHOLD
from ..families.cosso.kernels import UnitScaling, weighted_gram
from ..families.svm.fit import SVMFit  # noqa: F401  (documents the type of ``fit.svm``)
from ._base import BinaryKernelClassifier, _make_spec, seed_of


class COSSOSVC(BinaryKernelClassifier):
    """COSSO SVM: hinge loss + Σ_α θ_α-weighted SS-ANOVA components, Σ θ_α ≤ M (Zhang 2006).

    f(x) = b + Σ_i c_i Σ_α θ_α R_α(x, x_i) (Zhang 2006, eq 3.3), inputs mapped to [0, 1] by their
    training range. A component with θ_α ≤ ``threshold`` is not selected.

    Parameters
    ----------
    tune : {"cv", "gacv", "gckl"}
        Rule for λ0 and M (Zhang 2006, §4.2): k-fold CV of the weighted hinge; GACV of the final
        SVM step (Wahba et al. 2001, eq 1.26); GCKL (eq 1.27), which needs the true P(A | x) given
        to ``fit`` as ``p`` (simulations only).
    n_M : number of M values on the grid [0.05, q].   interactions : add two-way interactions.
    rounds : LP steps per M (1: the one-step rule).   threshold : selection threshold on θ.
    cost_a, cost_b, prior_a, class_weight : as in :class:`~svmcore.estimators.TunedSVC`
        (the hinge weights L(±1), Zhang 2006, eq 5.1).
    cv : folds.   random_state : seed of the folds (None: 0).

    Attributes
    ----------
    classes_, theta_ (per component), components_ (names), selected_features_ (indices of the
    input columns in a selected component), M_, lambda0_, curves_, intercept_, coef_,
    n_features_in_.

    Notes
    -----
    Constant input columns carry no information and are dropped before the fit (θ = 0 for them).
    """

    _STATE = ("theta_", "components_", "comps_", "kept_", "selected_features_", "M_", "lambda0_",
              "curves_", "M_grid_", "low_", "span_", "U_", "coef_", "intercept_", "threshold_",
              "n_features_in_")

    def __init__(self, tune="cv", n_M=20, interactions=False, rounds=1, threshold=DEFAULT_THRESHOLD,
                 cost_a=1.0, cost_b=1.0, prior_a=None, class_weight=None, cv=5, random_state=None):
        self.tune = tune
        self.n_M = n_M
        self.interactions = interactions
        self.rounds = rounds
        self.threshold = threshold
        self.cost_a = cost_a
        self.cost_b = cost_b
        self.prior_a = prior_a
        self.class_weight = class_weight
        self.cv = cv
        self.random_state = random_state

    def fit(self, X, y, p=None):
        """Fit and tune; ``p`` (the true P(classes_[1] | x_i)) is needed only by tune="gckl"."""
        from ..datasets.base import Dataset

        X, ypm = self._encode(X, y)
        fa, fb = self._class_weight_factors(ypm)
        kept = np.flatnonzero(np.ptp(X, axis=0) > 0)
        if len(kept) == 0:
            raise ValueError("every input column is constant; COSSO has nothing to select from")
        spec = _make_spec("cosso", X.shape[0], cost_a=self.cost_a * fa, cost_b=self.cost_b * fb,
                          prior_a=self.prior_a, cv_folds=self.cv, cv_seed=seed_of(self.random_state),
                          options={"tune": self.tune, "n_M": self.n_M, "interactions": self.interactions,
                                   "rounds": self.rounds, "threshold": self.threshold})
        if self.tune == "gckl" and p is None:
            raise ValueError("tune='gckl' needs the true P(A|x): pass p to fit, or use 'cv' or 'gacv'")
        data = Dataset("inline", X[:, kept], ypm, p=p, feature_names=[str(j) for j in kept])
        res = spec.family.fit(spec, data)
        m = res.model
        self.kept_ = kept
        self.comps_ = [list(c) for c in m.comps]
        self.components_ = [":".join(f"x{kept[j]}" for j in c) for c in m.comps]
        self.theta_ = np.asarray(m.theta, float)
        on = self.theta_ > m.threshold
        self.selected_features_ = np.array(sorted({int(kept[j]) for c, s in zip(m.comps, on) if s
                                                   for j in c}), dtype=int)
        self.M_, self.lambda0_, self.threshold_ = float(m.M), float(res.lambda0), float(m.threshold)
        self.M_grid_ = np.asarray(res.M_grid, float)
        self.curves_ = res.curves
        self.low_, self.span_, self.U_ = m.scaling.low, m.scaling.span, m.U
        self.coef_, self.intercept_ = np.asarray(m.c, float), np.array([float(m.b)])
        return self

    def decision_function(self, X):
        """f(x) = b + R_θ(x, X_train) c, x mapped to [0, 1] by the training range (clipped)."""
        X = self._check_X(X)
        U = UnitScaling(np.asarray(self.low_), np.asarray(self.span_)).transform(X[:, self.kept_])
        comps = [tuple(int(j) for j in c) for c in self.comps_]
        return weighted_gram(U, self.U_, comps, self.theta_) @ self.coef_ + self.intercept_[0]

    def _card_fit(self) -> dict:
        return {"pick": {"M": self.M_, "lambda0": self.lambda0_, "tune": self.tune},
                "theta": dict(zip(self.components_, self.theta_.tolist())),
                "selected features": [int(j) for j in self.selected_features_]}
