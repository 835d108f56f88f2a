"""How long the sweep that the settings describe will take, before it runs.

Seconds per grid point are measured, not modelled: ``svmcore.timing.RateBook`` starts from the
rates measured on the build machine (``bench/measure_rates.py``) and this server adds every sweep it
finishes, keyed by solver, workload (in-sample, k-fold CV, exact LOO) and n. The rough model of
``svmcore.views.estimate_seconds`` is used only for a solver that was never measured.
"""
from __future__ import annotations

import streamlit as st

from svmapp import settings as S


@st.cache_resource(show_spinner=False)
def rate_book():
    """Measured seconds per grid point, shared by every session: the build machine's rates
    (``svmcore/data/rates.json``) plus every sweep this server has run."""
    from svmcore.timing import RateBook
    return RateBook.baseline()


@st.cache_data(show_spinner=False, max_entries=32)
def _bundled_size(name: str) -> int:
    from svmcore.datasets.bundled import load_bundled
    return int(load_bundled(name).n)


def training_rows(s: dict, upload_table=None) -> int:
    """The number of training rows the settings give (without generating a simulation)."""
    if s["source"] == "simulation":
        return S.sim_n(s)
    if s["source"] == "bundled":
        full = _bundled_size(s["dataset"])
    else:
        t = upload_table
        if t is None:
            return 0
        full = len(t) - (S.count_missing(t, S.used_columns(t, s)) if s.get("dropna") else 0)
    train = full - int(round(full * float(s["test_fraction"])))
    return max(min(train, int(s["n_max"])), 0)


def estimates(s: dict, upload_table=None, upload_error: str | None = None) -> dict:
    """Grid size, n, and estimated seconds (total, CV extra, LOO extra) of the settings, from the
    measured rates (``svmcore.timing``); ``problem`` holds the validator's message when the
    settings are not valid."""
    from svmcore.families.svm.fit import choose_solver
    from svmcore.timing import workload
    from svmcore.views import estimate_seconds

    out = {"points": 0, "n": 0, "total": None, "cv": None, "loo": None, "source": "", "problem": ""}
    if s["source"] == "upload" and (upload_table is None or upload_error):
        out["problem"] = "upload a readable CSV file first"
        return out
    if s["source"] == "upload":
        values = S.label_values(upload_table, s.get("label"))
        if len(values) < 2:
            out["problem"] = (f"the label column {s.get('label')} has {len(values)} class value(s); "
                              "two classes are needed")
            return out
        if s.get("positive") is None:
            out["problem"] = "choose the class A value (+1) of the label column"
            return out
    try:
        # the validator needs some fingerprint for an upload; the real one (the bytes' hash) is for the key
        S.spec_for(s, None, "upload" if s["source"] == "upload" else "")
        out["points"] = S.grid_for(s).size
        out["n"] = training_rows(s, upload_table)
    except Exception as exc:
        out["problem"] = str(exc)
        return out
    n, pts, k = max(out["n"], 2), out["points"], int(s["cv_folds"])
    solver = choose_solver(s.get("solver", "auto"), n)
    book = rate_book()
    ins = book.seconds_per_point(solver, "insample", n)
    cvr = book.seconds_per_point(solver, workload(["cv"], k), n)
    cv5 = book.seconds_per_point(solver, "cv5", n)
    if cvr is None and ins is not None and cv5 is not None:
        cvr = ins + (cv5 - ins) * k / 5
    loor = book.seconds_per_point(solver, "loo", n)
    if ins is None:         # never measured for this solver: the rough model
        base = estimate_seconds(n, pts, 1, [])
        out.update(cv=estimate_seconds(n, pts, 1, ["cv"], k) - base,
                   loo=estimate_seconds(n, pts, 1, ["loo"]) - base, source=f"rough model for {solver}")
    else:
        base = ins * pts
        out.update(cv=None if cvr is None else max(cvr - ins, 0.0) * pts,
                   loo=None if loor is None else max(loor - ins, 0.0) * pts,
                   source=f"measured rates of the {solver} solver")
    total = base
    for part in ("cv", "loo"):
        if part in s["criteria"]:
            total = None if total is None or out[part] is None else total + out[part]
    out["total"] = total
    return out


def record_rate(result, n: int) -> None:
    """Add a finished sweep to the shared rate book (so estimates follow this machine)."""
    from svmcore.families.svm.fit import choose_solver
    from svmcore.timing import workload

    rate_book().add(choose_solver(result.spec.solver, n),
                    workload(result.spec.criteria, result.spec.cv_folds), n, len(result.table), result.seconds)
