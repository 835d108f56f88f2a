"""The COSSO page's settings and work (Zhang 2006): its Params, the spec they make, the fit.

The settings are rows of the COSSO family's tables (``spec_params(get_family("cosso"))``),
narrowed to what the page offers, plus one view setting (the comparison with the plain SVM). No
Streamlit here: the page draws the widgets and keeps the result.
"""
from __future__ import annotations

from dataclasses import replace
from numbers import Integral
from typing import Any, Mapping

import numpy as np

from svmcore import codec
from svmcore.datasets.bundled import list_bundled
from svmcore.datasets.load import load_run_data
from svmcore.families import get_family
from svmcore.params import Boolean, Interval, Options, Param
from svmcore.spec import RunSpec, spec_params

MODEL = "cosso"
PREFIX = "cosso_"
SIMS = ("zhang_additive", "zhang_interaction")
#: Bayes error of the simulations (Zhang 2006, §5.1)
BAYES = {"zhang_additive": 0.216, "zhang_interaction": 0.155}
#: a fresh test sample of a simulation; 1/3 of real data held out (Zhang 2006, §5.3)
TEST_N = 5000
TEST_FRACTION = 1 / 3

_PAGE = {  # name: changes to the family table's row
    "dataset": dict(constraint=Options(SIMS + tuple(list_bundled())), default="zhang_additive"),
    "n": dict(constraint=Interval(Integral, 50, 1000), default=250, unit="", label="n (simulations)",
              step=50),
    "seed": dict(label="seed (test sample / split)"),
    "interactions": {}, "tune": {}, "rounds": {}, "n_M": dict(label="M grid size"),
    "cost_a": {}, "cost_b": {},
}
COMPARE = Param("compare", Boolean(), False, "compare with the plain Gaussian-kernel SVM (slower)",
                "also tune the plain Gaussian-kernel SVM on a small grid and show its test error",
                widget="checkbox")


def page_params() -> list[Param]:
    """The page's settings, in the order drawn."""
    rows = {p.name: p for p in spec_params(get_family(MODEL))}
    return [replace(rows[name], **changes) for name, changes in _PAGE.items()] + [COMPARE]


def spec_of(values: Mapping[str, Any]) -> RunSpec:
    """The validated COSSO RunSpec of the page's values (n only for simulations)."""
    v = {k: values[k] for k in _PAGE if k in values}
    is_sim = v.get("dataset") in SIMS
    v.update(model=MODEL, test_n=TEST_N if is_sim else 0, test_fraction=0.0 if is_sim else TEST_FRACTION,
             cv_seed=int(v.get("seed", 0)))
    if not is_sim:
        v["n"] = None
    return codec.spec_from_values(v)


def run(values: Mapping[str, Any]) -> dict:
    """Fit and tune on the page's settings: {"out": payload, "model", "data", "base"}."""
    from svmcore.families.cosso.compare import plain_svm_test_error
    from svmcore.families.cosso.family import payload

    spec = spec_of(values)
    data, test = load_run_data(spec.data)
    res = get_family(MODEL).fit(spec, data)
    out = payload(res, data, test)
    base = (plain_svm_test_error(data, test, res.tune, spec.cost_a, spec.cost_b)
            if values.get("compare") else None)
    return {"out": out, "model": res.model, "data": data, "base": base,
            "values": dict(values)}


def slice_axes(model) -> tuple[int, int]:
    """The two inputs of the decision-region slice: the two main effects of largest θ."""
    main = [a for a in np.argsort(-model.theta) if len(model.comps[a]) == 1][:2]
    return tuple(sorted(model.comps[a][0] for a in main)) if len(main) == 2 else (0, 1)


def errors(result: dict) -> dict[str, float]:
    """Test errors to compare: the COSSO SVM's and, when computed, the plain SVM's."""
    out = {"COSSO SVM": result["out"]["test_error"]}
    if result["base"] is not None:
        out["Gaussian SVM"] = result["base"]["test_error"]
    return out
