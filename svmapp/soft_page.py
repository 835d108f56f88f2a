"""The Soft classification page's settings and work: the logistic family's Params, the sweep, the
fits at each criterion's pick, ranGACV's draws along the picked σ column, and the figures."""
from __future__ import annotations

from dataclasses import replace
from numbers import Integral
from typing import Any, Mapping

import numpy as np
import streamlit as st

from svmcore._validation import SVMCoreError
from svmcore.families import get_family
from svmcore.params import Boolean, Interval, Options, Param
from svmcore.spec import spec_params

MODEL = "logistic"
PREFIX = "soft_"
SETS = ("wahba2d", "lin1d", "zhang_interaction", "solo_xor")
SHOWN = {"ckl": "CKL", "gacv": "GACV", "rangacv": "ranGACV", "cv_deviance": "CV"}
#: the default run: on solo_xor (n = 150, seed 0) the picks of CKL, GACV, ranGACV and CV all lie
#: strictly inside this grid (tests/test_soft_page.py computes them). On wahba2d no grid holds
#: them: each criterion's minimum over λ keeps falling as σ grows (its p is nearly logistic-linear)
DEFAULT_DATA, DEFAULT_LAMBDA, DEFAULT_SIGMA = "solo_xor", "-14:2:2", "-1:3:1"
#: ranGACV's spread: draws along the picked σ column (seed fixed so the figure is reproducible)
SPREAD_DRAWS, SPREAD_SEED = 10, 1

_PAGE = {  # name: changes to the logistic family table's row
    "dataset": dict(constraint=Options(SETS), default=DEFAULT_DATA),
    "n": dict(constraint=Interval(Integral, 40, 1000), default=150, unit="", step=10),
    "seed": dict(constraint=Interval(Integral, 0, 10_000)),
    "log2_nlambda": dict(default=DEFAULT_LAMBDA, label="log₂(nλ) START:STOP:STEP"),
    "log2_sigma": dict(default=DEFAULT_SIGMA, label="log₂σ START:STOP:STEP"),
    "rangacv_reps": dict(constraint=Interval(Integral, 1, 100), default=5),
}
USE_CV = Param("use_cv", Boolean(), True, "5-fold CV (slow)",
               "also tune by 5-fold cross-validated deviance", url_key="cv", widget="checkbox")


def page_params() -> list[Param]:
    """The page's settings, in the order drawn."""
    rows = {p.name: p for p in spec_params(get_family(MODEL))}
    return [replace(rows[name], **changes) for name, changes in _PAGE.items()] + [USE_CV]


def shown(use_cv: bool) -> dict[str, str]:
    """{criterion column: label} of the criteria compared."""
    return {k: v for k, v in SHOWN.items() if use_cv or k != "cv_deviance"}


@st.cache_data(show_spinner=False, max_entries=8)
def sweeps(name: str, n: int, seed: int, lam_text: str, sig_text: str, reps: int, criteria: tuple):
    """(data, logistic sweep, SVM sweep by GACV) on the grid."""
    from svmcore.datasets.simulations import make_simulation
    from svmcore.grid import sweep
    from svmcore.spec import GridSpec

    data = make_simulation(name, n, seed)
    grid = GridSpec.parse(lam_text, sig_text)
    res = sweep(data, grid, model=MODEL, criteria=list(criteria), cv_folds=5,
                options={"rangacv_reps": reps})
    svm = sweep(data, grid, model="svm", criteria=["gacv"])
    return data, res, svm


def picks(values: Mapping[str, Any]):
    """(data, sweep, svm sweep, {label: the pick's table row or None})."""
    crit = shown(bool(values["use_cv"]))
    data, res, svm = sweeps(values["dataset"], int(values["n"]), int(values["seed"]),
                            values["log2_nlambda"], values["log2_sigma"], int(values["rangacv_reps"]),
                            tuple(crit))
    return data, res, svm, {lab: res.minimizer(col) for col, lab in crit.items()}


def _rows(res, chosen: dict, crit: dict) -> list[dict]:
    ineff = res.inefficiencies()
    return [{"criterion": lab, "log2(nλ)": row["log2_nlambda"], "log2σ": row["log2_sigma"],
             "CKL there": row["ckl"], "inefficiency": 1.0 if col == "ckl" else ineff.get(col, (np.nan,))[0]}
            for col, lab in crit.items() if (row := chosen[lab]) is not None]


def _spread(data, res, row, reps: int):
    """ranGACV over draws along the σ column of ``row`` (one Newton path)."""
    from svmcore.families.soft.criteria import rangacv_draws
    from svmcore.families.soft.newton import KernelBasis, solve_path, to01
    from svmcore.kernels import gaussian_gram
    from svmcore.viz import soft as sviz

    col = res.table[res.table["log2_sigma"] == row["log2_sigma"]]
    sols = solve_path(KernelBasis.from_gram(gaussian_gram(data.X, sigma=float(row["sigma"]))),
                      to01(data.y), col["lambda"].to_numpy(float))
    draws = rangacv_draws(sols, to01(data.y), reps, SPREAD_DRAWS, seed=SPREAD_SEED)
    return sviz.rangacv_spread(col["log2_nlambda"].to_numpy(float), col["gacv"].to_numpy(float),
                               draws, reps, col["ckl"].to_numpy(float), float(row["log2_sigma"]))


def _probability_figure(data, fits, svm_fit):
    """p̂(x) at each criterion's choice: curves for 1-D data, contour panels for 2-D, else None."""
    from svmcore.viz import soft as sviz

    if data.d == 1:
        x = np.linspace(data.X.min(), data.X.max(), 300)[:, None]
        return sviz.probability_curves(x[:, 0], {k: f.predict_proba(x) for k, f in fits.items()},
                                       p_true=None if data.p_fn is None else data.p_fn(x),
                                       svm_decision=svm_fit.decision_function(x),
                                       x_data=data.X[:, 0], y_data=data.y)
    if data.d == 2:
        return sviz.probability_contours(data.X, data.y, {k: f.predict_proba for k, f in fits.items()},
                                         p_fn=data.p_fn, svm_decision=svm_fit.decision_function)
    return None


def estimated_seconds(values: Mapping[str, Any]) -> float | None:
    """Seconds a run of ``values`` is estimated at (``svmcore.timing.sweep_estimate``, the app's
    rates): the soft sweep and the SVM's GACV sweep on the same grid, both in this process as
    ``sweeps`` runs them; None when the settings are not valid or either cannot be priced."""
    from svmcore.spec import make_spec
    from svmcore.timing import sweep_estimate

    from .estimate import rate_book

    n = int(values["n"])
    data = {"source": "simulation", "name": values["dataset"], "n": n, "seed": int(values["seed"])}
    grid = {"log2_nlambda": values["log2_nlambda"], "log2_sigma": values["log2_sigma"]}
    try:
        specs = (make_spec(MODEL, data=data, criteria=list(shown(bool(values["use_cv"]))), **grid),
                 make_spec("svm", data=data, criteria=["gacv"], **grid))
    except SVMCoreError:
        return None
    parts = [sweep_estimate(spec, n, rate_book()) for spec in specs]
    return None if None in parts else sum(est.total for est in parts)


def spinner_text(values: Mapping[str, Any]) -> str:
    """What the page says while a run fits: with the run's estimate when there is one."""
    secs = estimated_seconds(values)
    if secs is None:
        return "fitting the grid…"
    return f"fitting the grid (estimated {secs:.{1 if secs < 10 else 0}f} s)…"


def compute(values: Mapping[str, Any]) -> dict:
    """Everything the page shows for one run: the table rows, notes and figures."""
    from svmcore.families.soft.family import fit_logistic
    from svmcore.spec import make_spec

    crit = shown(bool(values["use_cv"]))
    data, res, svm, chosen = picks(values)
    svm_row = svm.minimizer("gacv")
    svm_fit = get_family("svm").fit_at(make_spec("svm"), data, svm_row["log2_nlambda"],
                                       svm_row["log2_sigma"])
    fits = {lab: fit_logistic(data.X, data.y, row["lambda"], row["sigma"])
            for lab, row in chosen.items() if row is not None}
    row = chosen["CKL"] if chosen["CKL"] is not None else chosen["GACV"]
    return {"settings": f"{values['dataset']}, n = {values['n']}, seed {values['seed']}, "
                        f"log2(nλ) {values['log2_nlambda']} × log2 σ {values['log2_sigma']}, "
                        f"R = {values['rangacv_reps']}" + (", with CV" if values["use_cv"] else ""),
            "rows": _rows(res, chosen, crit), "notes": list(res.notes), "d": data.d,
            "p_figure": _probability_figure(data, fits, svm_fit),
            "spread": _spread(data, res, row, int(values["rangacv_reps"])), "values": dict(values)}
