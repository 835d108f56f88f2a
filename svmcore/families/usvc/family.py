"""The unbiased SVC (Navia-Vázquez et al. 2004) as a model family.

``run(spec, data, test)`` fits one machine with the spec's options (C, method, kernel…) and
returns the JSON payload of ``svmcore usvc``; ``column(col)`` fits the prototype machine along λ
(C = 1/(2nλ)) for one σ column of the generic grid. See ``docs/usvc.md``.
"""
from __future__ import annotations

import time
from numbers import Integral, Real
from typing import Sequence

import numpy as np

from ..._validation import SVMCoreError
from ...spec import MAX_ROWS, SEED, Interval, Options
from .machines import IRWLSSettings, fit_kernel, fit_linear, kmeans_prototypes

CRITERIA = ("train_error", "test_error", "cv_error")

OPTION_CONSTRAINTS = {
    "method": Options(("svc", "usvc", "ls")),
    "s": Interval(Real, 1, 10),
    "kernel": Options(("linear", "rbf")),
    "prototypes": Interval(Integral, 2, 500),
    "damping": Interval(Real, 0.0, 1.0, "left"),
    "C": Interval(Real, 1e-6, 1e6),
    "log2_sigma": Interval(Real, -10, 10),
    "k_eps": Interval(Real, 1e-12, 0.1),
    "start": Options(("svc", "ls")),
    "max_iter": Interval(Integral, 1, 100_000),
    "prototype_seed": SEED,
}

DEFAULTS = {"method": "usvc", "s": 2.0, "kernel": "linear", "prototypes": 50, "damping": 0.2,
            "C": 10.0, "log2_sigma": 0.0, "k_eps": 1e-4, "start": "svc", "max_iter": 5000,
            "prototype_seed": 0}


def settings_from_spec(spec, C: float | None = None) -> IRWLSSettings:
    """IRWLSSettings from the spec's family options (defaults: the paper's experiment 1)."""
    o = {k: spec.option(k, v) for k, v in DEFAULTS.items()}
    return IRWLSSettings(method=o["method"], C=float(o["C"] if C is None else C), s=float(o["s"]),
                         k_eps=float(o["k_eps"]), damping=float(o["damping"]), start=o["start"],
                         max_iter=int(o["max_iter"])).check()


def fit_machine(spec, X, y, C: float | None = None, centers=None):
    """The linear or prototype-kernel machine of ``spec`` on (X, y)."""
    st = settings_from_spec(spec, C)
    if spec.option("kernel", "linear") == "linear":
        return fit_linear(X, y, st)
    sigma = 2.0 ** float(spec.option("log2_sigma", 0.0))
    protos = int(spec.option("prototypes", 50)) if centers is None else centers
    return fit_kernel(X, y, sigma, protos, int(spec.option("prototype_seed", 0)), st)


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
           "damping": m.settings.damping, "kernel": spec.option("kernel", "linear"),
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


class USVCFamily:
    """Unbiased SVC: ½‖w‖² + C Σ θ̃_s(ξ_i) by damped IRWLS (Navia-Vázquez et al. 2004, eq 5)."""

    name = "usvc"
    title = "Unbiased SVC (IRWLS, smoothed error count)"
    criteria = CRITERIA
    targets: tuple = ()
    option_constraints = OPTION_CONSTRAINTS

    def default_criteria(self, has_truth: bool) -> tuple[str, ...]:
        return ("train_error", "test_error")

    def result_columns(self, criteria: Sequence[str]) -> list[str]:
        return list(dict.fromkeys(["train_error", *criteria]))

    def diagnostic_columns(self) -> list[str]:
        return ["iterations", "converged", "fit_error"]

    def target_for(self, spec) -> str | None:
        return "test_error"

    def check(self, spec, n: int, n_pos: int, n_neg: int) -> None:
        if n > MAX_ROWS:
            raise SVMCoreError(f"the unbiased SVC is limited to {MAX_ROWS} rows; this data set has {n}")
        R = int(spec.option("prototypes", 50))
        if spec.option("kernel", "linear") == "rbf" and R > n:
            raise SVMCoreError(f"prototypes R = {R} exceeds the {n} training rows")
        if "cv_error" in spec.criteria and not (2 <= spec.cv_folds <= min(n_pos, n_neg)):
            raise SVMCoreError(f"cv_folds must be between 2 and the size of the smaller class "
                               f"({min(n_pos, n_neg)}), got {spec.cv_folds}")

    def column(self, col) -> list[dict]:
        """The prototype machine at σ = col.sigma for every λ of the column (C = 1/(2nλ))."""
        from dataclasses import replace

        spec = replace(col.spec, options=tuple(sorted({**dict(col.spec.options),
                                                       "log2_sigma": col.log2_sigma}.items())))
        data, n = col.data, col.data.n
        centers = None
        if spec.option("kernel", "linear") == "rbf":
            centers = kmeans_prototypes(data.X, int(spec.option("prototypes", 50)),
                                        int(spec.option("prototype_seed", 0)))
        folds = _folds(data.y, spec.cv_folds, spec.cv_seed) if "cv_error" in spec.criteria else None
        rows = []
        for k, lam in enumerate(col.lambdas):
            t0, row = time.perf_counter(), col.base_row(k)
            C = 1.0 / (2.0 * n * float(lam))
            try:
                m = fit_machine(spec, data.X, data.y, C, centers)
                row.update(train_error=_error(m, data.X, data.y), iterations=m.fit.iterations,
                           converged=m.fit.converged, fit_error="")
                if col.test is not None:
                    row["test_error"] = _error(m, col.test.X, col.test.y)
                if folds is not None:
                    row["cv_error"] = _cv_error(spec, data, folds, C)
            except Exception as exc:  # one bad λ must not stop the column
                row.update(train_error=np.nan, iterations=0, converged=False,
                           fit_error=f"{type(exc).__name__}: {exc}")
            row["seconds"] = time.perf_counter() - t0
            rows.append(row)
        return rows

    def fit_at(self, spec, data, log2_nlambda: float, log2_sigma: float):
        C = 1.0 / (2.0 * 2.0 ** float(log2_nlambda))
        from dataclasses import replace
        spec = replace(spec, options=tuple(sorted({**dict(spec.options),
                                                   "log2_sigma": float(log2_sigma)}.items())))
        return fit_machine(spec, data.X, data.y, C)

    run = staticmethod(run)


def _folds(y, k: int, seed: int) -> np.ndarray:
    from sklearn.model_selection import StratifiedKFold

    out = np.empty(len(y), dtype=int)
    for j, (_, te) in enumerate(StratifiedKFold(k, shuffle=True, random_state=seed).split(y, y)):
        out[te] = j
    return out


def _cv_error(spec, data, folds, C: float) -> float:
    """k-fold CV misclassification (prototypes re-chosen on each training part)."""
    wrong = 0
    for j in np.unique(folds):
        tr, te = folds != j, folds == j
        m = fit_machine(spec, data.X[tr], data.y[tr], C)
        wrong += int(np.sum(m.predict(data.X[te]) != data.y[te]))
    return wrong / len(folds)


FAMILY = USVCFamily()
