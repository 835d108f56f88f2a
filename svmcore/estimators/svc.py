"""``TunedSVC``: the weighted SVM tuned by GACV (or XA, BRXA, SURE, CV, LOO) in one path sweep.

The sweep is ``svmcore.grid.run_grid`` over log2(nλ) × log2 σ with the exact λ-path per σ
(Hastie, Rosset, Tibshirani & Zhu 2004), the pick is ``GridResult.pick`` and the refit is the SVM
family's ``fit_at`` (``fit_svm``): nothing is computed here that the family does not compute.
"""
from __future__ import annotations

import numpy as np

from ..grid import run_grid
from ..kernels import Kernel
from ._base import BinaryKernelClassifier, _make_spec, axis_text, seed_of

#: criterion name → (the SVM family's criterion, the table column whose minimum is the pick)
SVM_CRITERIA = {
    "gacv": ("gacv", "gacv"), "xa": ("xa", "xa"), "brxa": ("brxa", "brxa"), "sure": ("sure", "sure"),
    "obs": ("obs", "obs"), "cv": ("cv", "cv_error"), "cv_error": ("cv", "cv_error"),
    "cv_hinge": ("cv", "cv_hinge"), "loo": ("loo", "loo_error"), "loo_error": ("loo", "loo_error"),
    "loo_hinge": ("loo", "loo_hinge"),
}
#: the SVM family's kernels (``svmcore.kernels.KERNELS``): gaussian, laplacian, linear
KERNELS = ("gaussian", "laplacian", "linear")


class TunedSVC(BinaryKernelClassifier):
    """Weighted Gaussian-kernel SVM whose (λ, σ) is picked by an in-sample criterion.

    Minimises (1/n) Σ L(y_i)(1 − y_i f(x_i))_+ + λ‖h‖², f = b + h (Wahba, Lin, Lee & Zhang 2001,
    eq 1.25; eq 1.9 when L ≡ 1), with K(x, x') = exp(−‖x − x'‖²/(2σ²)), over a grid of
    log2(nλ) × log2 σ. Each σ column is solved along the whole λ-path; the criterion is computed at
    every grid point and the model is refitted at its minimiser.

    Parameters
    ----------
    criterion : {"gacv", "xa", "brxa", "sure", "obs", "cv", "cv_hinge", "loo", "loo_hinge"}
        "gacv": GACV, eq 1.26 (eq 1.19 when L ≡ 1), the in-sample proxy of the leave-one-out
        hinge; "xa": Joachims' ξα, eq 1.21; "brxa": its cost-weighted form, eq 1.28; "sure": Solo's
        SURE (3.2)–(3.4); "obs": the training hinge, eq 1.13 (falls as λ → 0; for reference);
        "cv"/"loo": k-fold / exact leave-one-out misclassification (cost-weighted), "cv_hinge" /
        "loo_hinge": the same for the hinge (§1.5). Targets (GCKL, MISCLASS) need the true
        P(A | x) and are not allowed.
    log2_nlambda, log2_sigma : str, float or (start, stop, step)
        Grid axes as "START:STOP:STEP" (STOP included) or one number. scikit-learn's
        C = 1/(2nλ) = 2^(−log2_nlambda)/2 and γ = 1/(2σ²).
    kernel : {"gaussian", "laplacian", "linear"}
        The SVM family's kernels: exp(−‖x − x′‖²/(2σ²)), exp(−‖x − x′‖₁/σ) (scikit-learn's
        ``laplacian_kernel`` with γ = 1/σ), or ⟨x, x′⟩ (give one ``log2_sigma`` value).
    cost_a, cost_b : float
        C_A (cost of calling a ``classes_[0]`` point ``classes_[1]``) and C_B (the reverse).
    prior_a : float or None
        π_A, the frequency of ``classes_[1]`` where the model will be used (None: the sample's).
        L(+1) = C_B π_A/π_A^s, L(−1) = C_A π_B/π_B^s (§1.7; ``docs/svm.md`` §3).
    class_weight : dict, "balanced" or None
        Multiplies the costs exactly as LIBSVM's ``class_weight`` multiplies C per class:
        w[classes_[1]] multiplies C_B, w[classes_[0]] multiplies C_A.
    extend_grid : bool
        Grow the grid in its own step until the pick is strictly inside (``svmcore.grid``).
    cv : int
        Folds of the "cv" criteria.
    xa_rho : float
        ρ of XA (2: an upper bound on the leave-one-out error count).
    solver : {"auto", "path", "cvxopt", "libsvm"}
        Dual solver of the sweep ("auto": the exact λ-path).
    n_jobs : int or None
        Worker processes for the σ columns (None: 1).
    random_state : int, RandomState or None
        Seed of the CV folds (None: 0).

    Attributes
    ----------
    classes_, best_params_, best_index_, best_score_, surface_, support_, support_vectors_,
    dual_coef_, intercept_, n_support_, sigma_, lambda_, weights_, notes_, n_features_in_.
    ``dual_coef_`` holds c_i = y_i α_i/(2nλ) (LIBSVM's y_i a_i) of the support vectors, so
    f(x) = Σ dual_coef_ K(x, sv) + intercept_.

    Notes
    -----
    Per-point ``sample_weight`` is not supported by the λ-path (its box bounds are per class);
    sample weights constant within each class are exact and are mapped to the costs.
    """

    _STATE = ("support_", "support_vectors_", "dual_coef_", "intercept_", "n_support_", "sigma_",
              "lambda_", "best_params_", "best_index_", "best_score_", "weights_", "notes_",
              "n_features_in_", "n_train_")

    def __init__(self, criterion="gacv", log2_nlambda="-20:6:1", log2_sigma="-3:3:0.5",
                 kernel="gaussian", cost_a=1.0, cost_b=1.0, prior_a=None, class_weight=None,
                 extend_grid=True, cv=5, xa_rho=2.0, solver="auto", n_jobs=None, random_state=None):
        self.criterion = criterion
        self.log2_nlambda = log2_nlambda
        self.log2_sigma = log2_sigma
        self.kernel = kernel
        self.cost_a = cost_a
        self.cost_b = cost_b
        self.prior_a = prior_a
        self.class_weight = class_weight
        self.extend_grid = extend_grid
        self.cv = cv
        self.xa_rho = xa_rho
        self.solver = solver
        self.n_jobs = n_jobs
        self.random_state = random_state

    def _spec(self, n: int, fa: float = 1.0, fb: float = 1.0):
        """The RunSpec of this estimator's sweep (costs scaled by the class-weight factors)."""
        if self.criterion not in SVM_CRITERIA:
            raise ValueError(f"criterion must be one of {', '.join(SVM_CRITERIA)} (targets need the "
                             f"true P(A|x)); got {self.criterion!r}")
        if self.kernel not in KERNELS:
            raise ValueError(f"kernel must be one of {KERNELS} (the SVM family's kernels); got "
                             f"{self.kernel!r}")
        return _make_spec("svm", n, kernel=self.kernel, log2_nlambda=axis_text(self.log2_nlambda),
                          log2_sigma=axis_text(self.log2_sigma), cost_a=self.cost_a * fa,
                          cost_b=self.cost_b * fb, prior_a=self.prior_a,
                          criteria=(SVM_CRITERIA[self.criterion][0],), cv_folds=self.cv,
                          cv_seed=seed_of(self.random_state), xa_rho=self.xa_rho, solver=self.solver,
                          extend_grid=bool(self.extend_grid))

    def fit(self, X, y, sample_weight=None):
        """Sweep the grid, pick by ``criterion``, refit at the pick.

        Parameters
        ----------
        X : (n, d) array.   y : two classes.
        sample_weight : None, or weights constant within each class (see Notes).
        """
        X, ypm = self._encode(X, y)
        fa, fb = self._class_weight_factors(ypm, sample_weight)
        spec = self._spec(X.shape[0], fa, fb)
        data = self._dataset(X, ypm)
        res, fit = sweep_pick_refit(self, spec, data, SVM_CRITERIA[self.criterion][1])
        self.weights_ = res.weights.as_dict()
        self.n_train_ = int(X.shape[0])
        self._set_fit(fit, X)
        return self

    def _set_fit(self, fit, X) -> None:
        """Fitted arrays from an SVMFit (the support vectors: α_i > 0)."""
        sv = np.flatnonzero(fit.alpha > 0)
        self.support_ = sv
        self.support_vectors_ = X[sv]
        self.dual_coef_ = fit.c[sv][None, :]
        self.intercept_ = np.array([float(fit.b)])
        self.n_support_ = np.array([int(np.sum(fit.y[sv] < 0)), int(np.sum(fit.y[sv] > 0))])
        self.sigma_ = float(fit.kernel.sigma)
        self.lambda_ = float(fit.lam)

    def decision_function(self, X):
        """f(x) = Σ_i c_i K(x, x_i) + b over the support vectors; > 0 means ``classes_[1]``."""
        X = self._check_X(X)
        K = Kernel(self.kernel, sigma=self.sigma_).gram(X, self.support_vectors_)
        return K @ self.dual_coef_[0] + self.intercept_[0]

    def to_sklearn_svc(self):
        """An unfitted ``sklearn.svm.SVC`` with the same problem: C = 1/(2nλ), the kernel as
        scikit-learn names it (rbf with γ = 1/(2σ²); ``laplacian_kernel`` with γ = 1/σ as a
        callable; linear), class_weight = {classes_[1]: L(+1), classes_[0]: L(−1)}
        (``docs/svm.md`` §2)."""
        from functools import partial

        from sklearn.metrics.pairwise import laplacian_kernel
        from sklearn.svm import SVC

        w = self.weights_
        kernel = {"gaussian": "rbf", "linear": "linear"}.get(self.kernel) or \
            partial(laplacian_kernel, gamma=self.best_params_["gamma"])
        return SVC(C=self.best_params_["C"], gamma=self.best_params_.get("gamma", "scale"), kernel=kernel,
                   class_weight={self.classes_[1].item() if hasattr(self.classes_[1], "item")
                                 else self.classes_[1]: w["L_pos"],
                                 self.classes_[0].item() if hasattr(self.classes_[0], "item")
                                 else self.classes_[0]: w["L_neg"]}, tol=1e-10)

    def _card_fit(self) -> dict:
        return {"pick": {**self.best_params_, self.criterion: self.best_score_},
                "class weights L": {"L(+1)": self.weights_["L_pos"], "L(-1)": self.weights_["L_neg"]},
                "n_train": self.n_train_, "n_support": int(len(self.support_)),
                "notes": "; ".join(self.notes_) or "none"}


def sweep_pick_refit(est, spec, data, column: str):
    """The estimators' fit: sweep ``spec``'s grid on ``data`` (``run_grid``), pick by ``column``
    (the family's pick rule), refit there (the family's ``fit_at``). Sets ``surface_``,
    ``best_index_``, ``best_score_``, ``best_params_`` and ``notes_`` on ``est``; returns
    (GridResult, fit)."""
    res = run_grid(spec, data, n_jobs=1 if est.n_jobs is None else est.n_jobs)
    pick = res.pick(column)
    if pick is None:
        raise ValueError(f"no usable grid point for {column}: every fit failed or was flagged")
    row = res.table.iloc[pick.row]
    l2n, l2s = float(row["log2_nlambda"]), float(row["log2_sigma"])
    est.surface_ = res.table
    est.best_index_ = int(pick.row)
    est.best_score_ = float(row[column])
    est.best_params_ = best_params(l2n, l2s, est.kernel)
    est.notes_ = list(res.notes) + ([f"{column}: pick on the {pick.edge}"] if pick.edge else [])
    return res, res.spec.family.fit_at(res.spec, data, l2n, l2s)


def best_params(log2_nlambda: float, log2_sigma: float, kernel: str = "gaussian") -> dict:
    """The pick in the grid's terms and in scikit-learn's: C = 1/(2nλ) = 2^(−log2 nλ)/2 (n cancels)
    and the kernel's γ: 1/(2σ²) for the Gaussian, 1/σ for the Laplacian, none for the linear
    kernel (``docs/svm.md`` §2)."""
    sigma = 2.0 ** log2_sigma
    out = {"log2_nlambda": log2_nlambda, "log2_sigma": log2_sigma, "sigma": sigma,
           "C": 0.5 * 2.0 ** (-log2_nlambda)}
    if kernel == "gaussian":
        out["gamma"] = 1.0 / (2.0 * sigma * sigma)
    elif kernel == "laplacian":
        out["gamma"] = 1.0 / sigma
    return out
