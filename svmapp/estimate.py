"""How long the sweep that the settings describe will take, before it runs.

The seconds are measured, not modelled: ``svmcore.timing.RateBook`` starts from the rates measured
on the build machine (``bench/measure_rates.py``: the path per σ column, pointwise solvers per point
at each λ) and this server adds every sweep it finishes, keyed by solver, workload (in-sample,
k-fold CV, exact LOO) and n. With grid growth on, one growth step toward small λ is priced: the
estimate is the midpoint between no growth and that step, and ``most`` includes it whole
(``svmcore.timing.sweep_estimate``).
"""
from __future__ import annotations

from dataclasses import replace

import streamlit as st

from svmapp import settings as S


@st.cache_resource(show_spinner=False)
def rate_book():
    """Measured seconds per grid point, shared by every session: the build machine's rates
    (``svmcore/data/rates.json``, scaled to this machine's speed per solver on first use) plus
    every sweep this server has run."""
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
    """Grid size, n, and estimated wall seconds (total; most, with one growth step; CV and LOO
    extras) of the settings, from the measured rates (``svmcore.timing.sweep_estimate``), on the
    ``workers`` processes (or threads of the server's process, ``threads``:
    ``ModelFamily.columns_in_threads``) the sweep will run on (``svmcore.timing.on_workers``), with ``start``
    seconds of it starting them (``svmcore.timing.worker_start``: 0 while they are up) and
    ``compile`` seconds compiling the path's loop on a new installation, or loading it in a process
    that has not yet (``first_use`` says which: "compile", "load" or "";
    ``svmcore.timing.first_use``); ``one_process`` is the total in one process, without either.
    ``problem`` holds the validator's message when the settings are not valid."""
    from svmcore.timing import on_workers, sweep_estimate, waited_parts

    out = {"points": 0, "n": 0, "total": None, "most": None, "cv": None, "loo": None, "source": "",
           "problem": "", "workers": 1, "start": 0.0, "compile": 0.0, "first_use": "", "threads": False,
           "one_process": None}
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
        spec = S.spec_for(s, None, "upload" if s["source"] == "upload" else "")
        out["points"] = S.grid_for(s).size
        out["n"] = training_rows(s, upload_table)
    except Exception as exc:
        out["problem"] = str(exc)
        return out
    n = max(out["n"], 2)
    est = sweep_estimate(spec, n, rate_book())
    # CV's and LOO's extras are shown beside their checkboxes whether or not they are ticked
    every = sweep_estimate(replace(spec, criteria=tuple(dict.fromkeys(tuple(spec.criteria) + ("cv", "loo")))),
                           n, rate_book())
    cols = spec.grid.log2_sigma.count
    threads = spec.family.columns_in_threads(spec, n)
    if every is not None:
        share = _share(on_workers(every.total, cols, 0, threads)[0], every.total)
        out.update(cv=_times(every.cv, share), loo=_times(every.loo, share), source=_source(every.solver))
    if est is not None:
        wall, workers, start, (first_use, compile_) = waited_parts(est, cols, n, 0, threads)
        most = _times(est.most, _share(wall, est.total))
        out.update(total=wall + start + compile_, most=None if most is None else most + start + compile_,
                   workers=workers, start=start, compile=compile_, one_process=est.total,
                   first_use=first_use, threads=threads,
                   source=_source(est.solver))
    return out


def _share(wall: float | None, one_process: float | None) -> float:
    """Wall seconds per second in one process (1 when either is unknown or zero)."""
    return wall / one_process if wall and one_process else 1.0


def _times(seconds: float | None, share: float) -> float | None:
    return None if seconds is None else seconds * share


def _source(solver: str) -> str:
    """Where the estimate's rates come from: the build machine's, scaled to this machine's speed
    on the solver's reference problem (``svmcore.timing.machine_speed``), or said unscaled."""
    book = rate_book()
    factor = book.speed_of(solver)
    if factor is not None:
        return f"measured rates of the {solver} solver, scaled ×{factor:.2f} to this machine's speed"
    if solver in book.calibration:
        return (f"measured rates of the {solver} solver on the build machine: this machine's speed "
                "could not be measured")
    return f"measured rates of the {solver} solver"


def record_rate(result, n: int, paid_first_use: bool = False) -> None:
    """Add a finished sweep's requested grid to the shared rate book (so estimates follow this
    machine): the path per σ column, other solvers per point (``svmcore.timing``). Not recorded:
    a sweep whose grid grew (its time covers more than the grid it asked for), one that ran on
    worker processes (the book holds one process's seconds, as ``bench/measure_rates.py`` measures
    them; a parallel sweep's wall time includes starting the workers, which once made a 15-point
    grid at n = 300 that runs in 0.1 s look like 2 s, and is shared among them), and one that
    compiled or loaded the path's loop first (``paid_first_use``, its estimate's ``compile``)."""
    from svmcore.families.svm.fit import choose_solver
    from svmcore.timing import COLUMN_SOLVERS, workload

    if (result.spec.model != "svm" or len(result.table) != result.spec.grid.size
            or result.workers != 1 or paid_first_use):
        return
    solver = choose_solver(result.spec.solver, n)
    work = workload(result.spec.criteria, result.spec.cv_folds)
    if solver in COLUMN_SOLVERS:
        rate_book().add(solver, work, n, result.spec.grid.log2_sigma.count, result.seconds, per="column")
    elif result.spec.grid.log2_nlambda.count == 1:
        rate_book().add(solver, work, n, len(result.table), result.seconds,
                        log2_nlambda=float(result.spec.grid.log2_nlambda.start))
