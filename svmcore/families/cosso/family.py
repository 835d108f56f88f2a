"""The COSSO SVM as a model family (Zhang 2006): variable selection in SS-ANOVA.

COSSO tunes the budget M on Σ θ_α (with λ0 fixed once at θ = 1), not the (λ, σ) grid of the
Gaussian-kernel families, so :meth:`CossoFamily.column` refuses; the entry points are
:func:`fit_cosso` (a :class:`CossoResult` holding the chosen :class:`~.fit.CossoFit`) and
:meth:`CossoFamily.run` (the JSON payload of the CLI, the page and replicate studies).
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np

from ..._validation import SVMCoreError, check_labels
from ...limits import MAX_COSSO_COMPONENTS
from ...params import Boolean, OneOf, Param
from ...spec import MAX_ROWS, Interval, Options
from ..base import Criterion, ModelFamily, Output
from ..common import COSTS, CV_FOLDS, CV_SEED
from ...weights import ClassWeights, standard_weights
from ..svm.criteria import brmisclass_values, gckl_values
from .fit import DEFAULT_THRESHOLD, CossoFit, to_fit
from .kernels import UnitScaling, check_size, combine, component_grams, component_names, components
from .tune import (CURVE_OF, choose_lambda0, cv_hinge_curve, in_sample_curves, m_grid, path_over_M,
                   pick_M)


@dataclass
class CossoResult:
    """The tuned COSSO SVM and its tuning record.

    model : the CossoFit at the chosen M.   M_grid : the grid.   k : index of the chosen M.
    curves : {criterion: values over M_grid}.   theta_path : (len(M_grid), q) θ at each M.
    rounds : LP steps at each M.   lambda0, lambda0_curve : λ0 and its curve at θ = 1.
    tune : the rule ("gckl", "cv" or "gacv").   seconds : wall time of the fit and tuning.
    """

    model: CossoFit
    M_grid: np.ndarray
    k: int
    curves: dict
    theta_path: np.ndarray
    rounds: list
    lambda0: float
    lambda0_curve: dict
    tune: str
    seconds: float


def fit_cosso(X, y, *, p=None, interactions: bool = False, tune: str | None = None, n_M: int = 20,
              rounds: int = 1, threshold: float = DEFAULT_THRESHOLD,
              weights: ClassWeights | None = None, cv_folds: int = 5, cv_seed: int = 0,
              solver: str = "cvxopt", feature_names=None) -> CossoResult:
    """Fit and tune the COSSO SVM (Zhang 2006, §4): λ0 at θ = 1 by ``tune``'s rule over the exact
    λ-path, then M on a geometric grid of ``n_M`` values in [0.05, q] by the same rule.

    Parameters
    ----------
    X : (n, d) inputs (mapped to [0, 1] by their min-max range).   y : ±1 labels.
    p : true P(A|x_i), needed by ``tune="gckl"`` (the default when given; else "cv").
    interactions : add all two-way interactions R_j·R_k.   rounds : most LP steps per M (1: the
    one-step rule).   threshold : θ_α ≤ threshold is 0 (not selected).
    weights : L(±1) on the hinge (Zhang 2006, eq 5.1).   cv_folds, cv_seed : the k-fold CV.
    solver : the SVM step's dual solver at a single λ (default cvxopt).
    """
    t0 = time.perf_counter()
    y = check_labels(y)
    tune = tune or ("gckl" if p is not None else "cv")
    if tune not in CURVE_OF:
        raise SVMCoreError(f"tune must be one of gckl, cv, gacv; got {tune!r}")
    if tune == "gckl" and p is None:
        raise SVMCoreError("tuning by GCKL needs the true P(A|x) (a simulation); use cv or gacv")
    weights = weights or standard_weights()
    upper = weights.upper_bounds(y)
    scaling = UnitScaling.fit(X)
    U = scaling.transform(X)
    if U.shape[0] != y.shape[0]:
        raise SVMCoreError(f"X has {U.shape[0]} rows but y has {y.shape[0]}")
    comps = components(U.shape[1], interactions)
    names = component_names(comps, feature_names)
    check_size(U.shape[0], U.shape[0], len(comps))
    R = component_grams(U, U, comps)
    lam0, lam_curve = choose_lambda0(combine(R, np.ones(len(comps))), y, upper, weights, tune, p,
                                     cv_folds, cv_seed)
    grid = m_grid(len(comps), n_M)
    steps = path_over_M(R, y, upper, lam0, grid, rounds, threshold, solver)
    curves = in_sample_curves(steps, R, y, upper, weights, p)
    if tune == "cv":
        curves["cv_hinge"] = cv_hinge_curve(R, y, upper, lam0, grid, cv_folds, cv_seed, rounds,
                                            threshold, solver)
    k = pick_M(curves, tune)
    model = to_fit(steps[k], R, scaling, U, y, upper, weights, comps, names, lam0, threshold)
    return CossoResult(model, grid, k, {c: [float(v) for v in vals] for c, vals in curves.items()},
                       np.array([st.theta for st in steps]), [st.rounds for st in steps], lam0,
                       lam_curve, tune, time.perf_counter() - t0)


def test_scores(model: CossoFit, test) -> dict:
    """Error rates on a held-out Dataset: ``test_error`` (labels), ``test_cost_error`` (L-weighted),
    ``test_hinge``; with the true p also ``test_misclass`` (expected error given p) and
    ``test_gckl``."""
    f = model.decision_function(test.X)
    y01 = (test.y > 0).astype(float)
    w = model.weights
    out = {"test_n": int(test.n), "test_error": brmisclass_values(f, y01),
           "test_cost_error": brmisclass_values(f, y01, w.L_pos, w.L_neg),
           "test_hinge": gckl_values(f, y01, w.L_pos, w.L_neg)}
    if test.p is not None:
        out["test_misclass"] = brmisclass_values(f, test.p)
        out["test_gckl"] = gckl_values(f, test.p, w.L_pos, w.L_neg)
    return out


def payload(res: CossoResult, data=None, test=None) -> dict:
    """The JSON-able summary of a tuned fit (CLI ``cosso``, the page, replicate studies)."""
    m = res.model
    out = {
        "model": "cosso", "tune": res.tune, "M": float(res.M_grid[res.k]),
        "M_grid": [float(v) for v in res.M_grid], "M_index": int(res.k), "curves": res.curves,
        "theta": {nm: float(t) for nm, t in zip(m.names, m.theta, strict=True)},
        "theta_path": {nm: [float(v) for v in res.theta_path[:, a]] for a, nm in enumerate(m.names)},
        "selected": m.selected, "model_size": len(m.selected), "components": list(m.names),
        "threshold": m.threshold, "lambda0": float(res.lambda0),
        "log2_nlambda0": float(np.log2(res.lambda0 * len(m.y))), "lambda0_curve": res.lambda0_curve,
        "rounds": int(m.rounds), "rounds_per_M": [int(r) for r in res.rounds], "b": float(m.b),
        "train_error": float(np.mean(m.y * m.f <= 0)), "weights": m.weights.as_dict(),
        "seconds": float(res.seconds),
    }
    if data is not None:
        out.update(dataset=data.name, n=int(data.n), d=int(data.d))
    if test is not None:
        out.update(test_scores(m, test))
    return out


PARAMS = COSTS + (
    CV_FOLDS, CV_SEED,
    Param("interactions", Boolean(), False, "interactions", "add all two-way interactions",
          widget="checkbox"),
    Param("tune", OneOf((None, Options(("gckl", "cv", "gacv")))), None, "tuning rule",
          "rule for λ0 and M (none: gckl for simulations, else cv)", widget="select"),
    Param("n_M", Interval(Integral, 2, 200), 20, "M values", "size of the M grid", cli_flag="--n-m",
          widget="int"),
    Param("rounds", Interval(Integral, 1, 50), 1, "LP rounds", "most LP steps per M", widget="int"),
    Param("threshold", Interval(Real, 0.0, 1.0), DEFAULT_THRESHOLD, "θ threshold",
          "θ_α above which a component is selected"),
    Param("solver", Options(("cvxopt", "libsvm")), "cvxopt", "solver", "the SVM step's dual solver",
          widget="select"),
)

CRITERIA = (
    Criterion("gckl", "GCKL", "GCKL at the training points (Zhang 2006, §4); needs the true p",
              needs="truth", outputs=(Output("gckl", "GCKL", "#DDAA33", "longdashdot", "hexagon"),)),
    Criterion("cv_hinge", "CV hinge", "5-fold cross-validated hinge loss (Zhang 2006, §4)",
              needs="refits", outputs=(Output("cv_hinge", "5-fold CV hinge", "#44AA99", "4px,4px",
                                              "star-diamond"),)),
    Criterion("gacv", "GACV", "GACV of the refit step (Zhang 2006, §4)", target="gckl",
              outputs=(Output("gacv", "GACV (refit step)", "#009E73", "solid", "diamond"),)),
)

#: Zhang (2006) Tables 1–4: (EMR, model size) by (simulation, n)
PAPER = {("zhang_additive", 250): (0.234, 5.07), ("zhang_additive", 500): (0.225, 4.46),
         ("zhang_interaction", 300): (0.198, 4.56), ("zhang_interaction", 500): (0.182, 3.56)}


class CossoFamily(ModelFamily):
    """COSSO SVM (Zhang 2006): hinge loss + Σ_α ‖P^α f‖ over SS-ANOVA components."""

    name = "cosso"
    title = "Variable selection (COSSO SVM, SS-ANOVA)"
    params = PARAMS
    criteria = CRITERIA
    kernels = ("ssanova",)
    sweeps_grid = False
    single_run = True
    #: Zhang (2006): a fresh test sample of 10,000 points, or 2/3–1/3 splits of real data
    run_defaults = {"test_n": 10_000, "test_fraction": 1 / 3}

    def default_criteria(self, has_truth: bool) -> tuple[str, ...]:
        return ("gckl", "gacv") if has_truth else ("cv_hinge", "gacv")

    def diagnostic_columns(self) -> list[str]:
        return ["rounds", "model_size"]

    def target_for(self, spec) -> str | None:
        return "test_error"

    def check(self, spec, n: int, n_pos: int, n_neg: int) -> None:
        self.check_counts(n, n_pos, n_neg, spec.option("tune", "cv"), spec.cv_folds)

    @staticmethod
    def check_counts(n: int, n_pos: int, n_neg: int, tune: str, cv_folds: int) -> None:
        """Row limit, and folds ≤ the smaller class when a CV rule is used."""
        if n > MAX_ROWS:
            raise SVMCoreError(f"COSSO is limited to {MAX_ROWS} rows; this data set has {n}")
        if tune == "cv" and not (2 <= cv_folds <= min(n_pos, n_neg)):
            raise SVMCoreError(f"cv_folds must be between 2 and the size of the smaller class "
                               f"({min(n_pos, n_neg)}), got {cv_folds}")

    def fit(self, spec, data) -> CossoResult:
        """The tuned fit for a validated RunSpec (options, costs and priors, CV settings)."""
        self.check(spec, data.n, int(np.sum(data.y > 0)), int(np.sum(data.y < 0)))
        d, inter = data.X.shape[1], bool(spec.interactions)
        if d + (d * (d - 1) // 2 if inter else 0) > MAX_COSSO_COMPONENTS:
            raise SVMCoreError(f"{d} features{' with their interactions' if inter else ''} exceed "
                               f"{MAX_COSSO_COMPONENTS} COSSO components (limits.MAX_COSSO_COMPONENTS)")
        solver = spec.solver
        return fit_cosso(data.X, data.y, p=data.p, interactions=bool(spec.option("interactions", False)),
                         tune=spec.option("tune"), n_M=int(spec.option("n_M", 20)),
                         rounds=int(spec.option("rounds", 1)),
                         threshold=float(spec.option("threshold", DEFAULT_THRESHOLD)),
                         weights=spec.weights(data.y), cv_folds=spec.cv_folds, cv_seed=spec.cv_seed,
                         solver=solver, feature_names=data.feature_names)

    def fit_at(self, spec, data, log2_nlambda=None, log2_sigma=None) -> CossoFit:
        """The tuned model (it has ``decision_function``); the grid coordinates are ignored."""
        return self.fit(spec, data).model

    def run(self, spec, data, test=None) -> dict:
        """Fit, tune and summarise: the payload of :func:`payload`."""
        return payload(self.fit(spec, data), data, test)

    def study_row(self, spec, data, test) -> dict:
        """One replicate of Zhang's Tables 1–4: EMR (test error on the fresh sample), the expected
        error given the true p, model size and the tuned M."""
        res = self.fit(spec, data)
        sc = test_scores(res.model, test)
        return {"test_error": sc["test_error"], "test_misclass": sc.get("test_misclass", np.nan),
                "model_size": float(len(res.model.selected)), "M": float(res.M_grid[res.k])}

    def paper_figures(self, spec) -> dict:
        """The paper's figures for this setting, by study-row name (empty when none)."""
        emr, size = PAPER.get((spec.data.name, spec.data.n), (None, None))
        return {} if emr is None else {"test_error": emr, "model_size": size}


FAMILY = CossoFamily()
