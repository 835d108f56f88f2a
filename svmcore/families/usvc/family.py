"""The unbiased SVC (Navia-Vázquez et al. 2004) as a model family.

``run(spec, data, test)`` fits one machine with the spec's options (C, method, kernel…) and
returns the JSON payload of ``svmcore usvc``; ``column(col)`` fits the prototype machine along λ
(C = 1/(2nλ)) for one σ column of the generic grid. See ``docs/usvc.md``.
"""
from __future__ import annotations

import time
from numbers import Integral, Real

import numpy as np

from ..._validation import SVMCoreError
from ...params import Param
from ...spec import MAX_ROWS, SEED, Interval, Options
from ..base import Criterion, ModelFamily, Output
from ..common import CV_FOLDS, CV_SEED, stratified_folds
from .machines import IRWLSSettings, fit_kernel, fit_linear, kmeans_prototypes

CRITERIA = (
    Criterion("train_error", "training error", "misclassification rate on the training data",
              outputs=(Output("train_error", "training error", "#8C564B", "2px,3px", "pentagon"),)),
    Criterion("test_error", "test error", "misclassification rate on the held-out data",
              needs="heldout", outputs=(Output("test_error", "test error", "#3B3B3B",
                                               "3px,3px,9px,3px", "star-square"),)),
    Criterion("cv_error", "CV error", "k-fold cross-validated misclassification", needs="refits",
              outputs=(Output("cv_error", "CV error", "#005F5F", "10px,2px", "hourglass"),)),
)

PARAMS = (
    Param("method", Options(("svc", "usvc", "ls")), "usvc", "method",
          "svc: the classic SVC; usvc: the unbiased SVC; ls: least squares", widget="select"),
    Param("s", Interval(Real, 1, 10), 2.0, "s", "steepness s of the smoothed step θ̃_s (eq 5)"),
    Param("C", Interval(Real, 1e-6, 1e6), 10.0, "C", "penalty C of a single run", cli_flag="--C"),
    Param("damping", Interval(Real, 0.0, 1.0, "left"), 0.2, "damping", "damping d of the IRWLS step",
          step=0.05),
    Param("prototypes", Interval(Integral, 2, 500), 50, "prototypes",
          "R kernel prototypes (k-means) of the Gaussian machine", widget="int"),
    Param("k_eps", Interval(Real, 1e-12, 0.1), 1e-4, "k_eps", "IRWLS stopping tolerance"),
    Param("start", Options(("svc", "ls")), "svc", "start", "the starting machine", widget="select"),
    Param("max_iter", Interval(Integral, 1, 100_000), 5000, "iterations", "most IRWLS iterations",
          widget="int"),
    Param("prototype_seed", SEED, 0, "prototype seed", "seed of the k-means prototypes",
          widget="int"),
    CV_FOLDS, CV_SEED,
)

#: Navia-Vázquez et al. (2004) Table 1: (error, threshold) by (data set, method)
PAPER = {("navia_a", "svc"): (0.271, 0.35), ("navia_a", "usvc"): (0.204, 0.49),
         ("navia_b", "svc"): (0.255, 0.40), ("navia_b", "usvc"): (0.198, 0.58)}


def settings_from_spec(spec, C: float | None = None) -> IRWLSSettings:
    """IRWLSSettings from the spec's parameters (defaults: the paper's experiment 1)."""
    return IRWLSSettings(method=spec.method, C=float(spec.C if C is None else C), s=float(spec.s),
                         k_eps=float(spec.k_eps), damping=float(spec.damping), start=spec.start,
                         max_iter=int(spec.max_iter)).check()


def fit_machine(spec, X, y, C: float | None = None, centers=None, log2_sigma: float | None = None):
    """The linear or prototype-kernel machine of ``spec`` on (X, y); a single run's σ is the
    grid's one log2_sigma value."""
    st = settings_from_spec(spec, C)
    if spec.kernel == "linear":
        return fit_linear(X, y, st)
    sigma = 2.0 ** float(spec.grid.log2_sigma.start if log2_sigma is None else log2_sigma)
    protos = int(spec.prototypes) if centers is None else centers
    return fit_kernel(X, y, sigma, protos, int(spec.prototype_seed), st)


def _error(machine, X, y) -> float:
    return float(np.mean(machine.predict(X) != y))


def _original_threshold(machine, data) -> float | None:
    """−b/w of a 1-D linear machine, mapped back through the Dataset's standardization."""
    if not hasattr(machine, "w") or machine.w.size != 1 or machine.w[0] == 0:
        return None
    th = -machine.b / float(machine.w[0])
    if data.standardized and data.center is not None:
        th = float(data.center[0]) + float(data.scale[0]) * th
    return float(th)


def run(spec, data, test=None) -> dict:
    """Fit one machine and return the ``svmcore usvc`` JSON payload (plain lists and numbers)."""
    t0 = time.perf_counter()
    m = fit_machine(spec, data.X, data.y)
    seconds = time.perf_counter() - t0
    fit = m.fit
    out = {"model": "usvc", "method": m.settings.method, "C": m.settings.C, "s": m.settings.s,
           "damping": m.settings.damping, "kernel": spec.kernel,
           "b": float(m.b), "threshold": _original_threshold(m, data),
           "train_error": _error(m, data.X, data.y),
           "test_error": None if test is None else _error(m, test.X, test.y),
           "n_test": None if test is None else test.n,
           "iterations": int(fit.iterations), "converged": bool(fit.converged),
           "message": fit.message, "seconds": seconds,
           "path": {"coef": fit.coef_path.tolist(), "b": fit.b_path.tolist()},
           "x": data.X.tolist(), "y": data.y.tolist()}
    if m.svc_stage is not None:
        out["svc_stage"] = {"iterations": int(m.svc_stage.iterations),
                            "converged": bool(m.svc_stage.converged),
                            "coef": m.svc_stage.coef.tolist(), "b": float(m.svc_stage.b)}
    if hasattr(m, "w"):
        out["w"] = m.w.tolist()
    else:
        out.update(w=None, beta=m.beta.tolist(), centers=m.centers.tolist(), sigma=m.sigma,
                   prototypes=int(m.centers.shape[0]))
    return out


class USVCFamily(ModelFamily):
    """Unbiased SVC: ½‖w‖² + C Σ θ̃_s(ξ_i) by damped IRWLS (Navia-Vázquez et al. 2004, eq 5)."""

    name = "usvc"
    title = "Unbiased SVC (IRWLS, smoothed error count)"
    params = PARAMS
    criteria = CRITERIA
    kernels = ("linear", "gaussian")
    single_run = True
    info_columns = ("train_error",)
    #: Navia-Vázquez et al. (2004): a fresh test sample, or a 20 % split of real data; σ = 1
    run_defaults = {"test_n": 10_000, "test_fraction": 0.2, "log2_sigma": "0"}

    def default_criteria(self, has_truth: bool) -> tuple[str, ...]:
        return ("train_error", "test_error")

    def diagnostic_columns(self) -> list[str]:
        return ["iterations", "converged", "fit_error"]

    def target_for(self, spec) -> str | None:
        return "test_error"

    def check(self, spec, n: int, n_pos: int, n_neg: int) -> None:
        if n > MAX_ROWS:
            raise SVMCoreError(f"the unbiased SVC is limited to {MAX_ROWS} rows; this data set has {n}")
        R = int(spec.prototypes)
        if spec.kernel == "gaussian" and R > n:
            raise SVMCoreError(f"prototypes R = {R} exceeds the {n} training rows")
        if "cv_error" in spec.criteria and not (2 <= spec.cv_folds <= min(n_pos, n_neg)):
            raise SVMCoreError(f"cv_folds must be between 2 and the size of the smaller class "
                               f"({min(n_pos, n_neg)}), got {spec.cv_folds}")

    def column(self, col) -> list[dict]:
        """The prototype machine at σ = col.sigma for every λ of the column (C = 1/(2nλ))."""
        spec = col.spec
        data, n = col.data, col.data.n
        centers = None
        if spec.kernel == "gaussian":
            centers = kmeans_prototypes(data.X, int(spec.prototypes), int(spec.prototype_seed))
        folds = _folds(data.y, spec.cv_folds, spec.cv_seed) if "cv_error" in spec.criteria else None
        rows = []
        for k, lam in enumerate(col.lambdas):
            t0, row = time.perf_counter(), col.base_row(k)
            C = 1.0 / (2.0 * n * float(lam))
            try:
                m = fit_machine(spec, data.X, data.y, C, centers, col.log2_sigma)
                row.update(train_error=_error(m, data.X, data.y), iterations=m.fit.iterations,
                           converged=m.fit.converged, fit_error="")
                if col.test is not None:
                    row["test_error"] = _error(m, col.test.X, col.test.y)
                if folds is not None:
                    row["cv_error"] = _cv_error(spec, data, folds, C, col.log2_sigma)
            except Exception as exc:  # one bad λ must not stop the column
                row.update(train_error=np.nan, iterations=0, converged=False,
                           fit_error=f"{type(exc).__name__}: {exc}")
            row["seconds"] = time.perf_counter() - t0
            rows.append(row)
        return rows

    def fit_at(self, spec, data, log2_nlambda: float, log2_sigma: float):
        C = 1.0 / (2.0 * 2.0 ** float(log2_nlambda))
        return fit_machine(spec, data.X, data.y, C, log2_sigma=log2_sigma)

    def run(self, spec, data, test=None) -> dict:
        return run(spec, data, test)

    def study_row(self, spec, data, test) -> dict:
        """One trial of Navia-Vázquez et al. (2004) Table 1: test error and the threshold −b/w."""
        m = fit_machine(spec, data.X, data.y)
        th = _original_threshold(m, data)
        return {"test_error": _error(m, test.X, test.y), "threshold": np.nan if th is None else th,
                "iterations": float(m.fit.iterations)}

    def paper_figures(self, spec) -> dict:
        err, th = PAPER.get((spec.data.name, spec.method), (None, None))
        return {} if err is None else {"test_error": err, "threshold": th}


def _folds(y, k: int, seed: int) -> np.ndarray:
    """Each point's fold number in the families' common k-fold split (``stratified_folds``)."""
    out = np.empty(len(y), dtype=int)
    for j, (_, te) in enumerate(stratified_folds(y, k, seed)):
        out[te] = j
    return out


def _cv_error(spec, data, folds, C: float, log2_sigma: float) -> float:
    """k-fold CV misclassification (prototypes re-chosen on each training part)."""
    wrong = 0
    for j in np.unique(folds):
        tr, te = folds != j, folds == j
        m = fit_machine(spec, data.X[tr], data.y[tr], C, log2_sigma=log2_sigma)
        wrong += int(np.sum(m.predict(data.X[te]) != data.y[te]))
    return wrong / len(folds)


FAMILY = USVCFamily()
