"""The Simulation study page's settings and work: the svm family's Params (and the study's view
Params), the RunSpec and weightings they make, and the study as a background job with progress and
cancel. No Streamlit here: the page draws, polls the job and keeps the result."""
from __future__ import annotations

import threading
from dataclasses import replace
from numbers import Integral, Real
from typing import Any, Mapping

from svmcore import codec
from svmcore._validation import SVMCoreError
from svmcore.datasets import list_datasets
from svmcore.families import get_family
from svmcore.grid import Cancelled
from svmcore.params import Boolean, Interval, ListOf, Options, Param
from svmcore.spec import RunSpec, spec_params
from svmcore.study import NONSTANDARD, STANDARD, Weighting

MODEL = "svm"
PREFIX = "study_"
_SETS = list_datasets()
SIMS, REAL = tuple(_SETS["simulations"]), tuple(_SETS["bundled"])
#: criteria that need the true p (offered for simulations only)
TRUTH = tuple(c.name for c in get_family(MODEL).criteria if c.needs == "truth")
DEFAULT_CRITERIA = ("gacv", "xa", "brxa", "misclass", "brmisclass")

_PAGE = {  # name: changes to the svm family table's row
    "dataset": dict(constraint=Options(SIMS + REAL), default="wahba2d", label="Data"),
    "n": dict(constraint=Interval(Integral, 10, 2000), default=100, unit="", label="n per replicate",
              step=10),
    "seed": dict(constraint=Interval(Integral, 0, 10**6), label="seed of replicate 0"),
    "test_fraction": dict(constraint=Interval(Real, 0.05, 0.45), default=0.3),
    "log2_nlambda": dict(default="-20:4:2", label="log2(nλ) START:STOP:STEP"),
    "log2_sigma": dict(default="-2:2:1", label="log2 σ START:STOP:STEP"),
    "criteria": dict(default=DEFAULT_CRITERIA),
    "cost_a": dict(default=NONSTANDARD.cost_a, label="C_A"),
    "cost_b": dict(default=NONSTANDARD.cost_b, label="C_B"),
    "prior_a": dict(default=NONSTANDARD.prior_a, label="π_A"),
}
VIEW = [
    Param("replicates", Interval(Integral, 1, 1000), 10, "replicates R",
          "replicate samples (simulations) or data splits (real data)", url_key="R", widget="int"),
    Param("standard", Boolean(), True, "standard", "run the standard case (L ≡ 1)",
          widget="checkbox"),
    Param("nonstandard", Boolean(), True, "nonstandard",
          "run the nonstandard case with the costs and π_A beside it", widget="checkbox"),
    Param("strip", Boolean(), False, "points instead of boxes", "draw every replicate's point",
          widget="checkbox"),
]


def page_params() -> list[Param]:
    """The page's settings: the study's (from the svm tables), then its view settings."""
    rows = {p.name: p for p in spec_params(get_family(MODEL))}
    return [replace(rows[name], **changes) for name, changes in _PAGE.items()] + VIEW


def criteria_param(p: Param, dataset: str) -> Param:
    """The criteria Param narrowed to the data set: no truth criteria for real data."""
    if dataset in SIMS:
        return p
    choices = tuple(c for c in get_family(MODEL).criteria_names if c not in TRUTH)
    return replace(p, constraint=ListOf(Options(choices), 50),
                   default=tuple(c for c in p.default if c in choices))


def spec_of(values: Mapping[str, Any]) -> RunSpec:
    """The study's RunSpec (standard costs: the weightings carry the costs)."""
    v = {k: values[k] for k in ("dataset", "seed", "log2_nlambda", "log2_sigma", "criteria")}
    if values["dataset"] in SIMS:
        v["n"] = int(values["n"])
    else:
        v.update(test_fraction=float(values["test_fraction"]), split_seed=int(values["seed"]))
    return codec.spec_from_values({"model": MODEL, **v})


def weightings(values: Mapping[str, Any]) -> list[Weighting]:
    """The cases to run; at least one is needed."""
    out = ([STANDARD] if values["standard"] else []) + \
        ([Weighting("nonstandard", values["cost_a"], values["cost_b"], values["prior_a"])]
         if values["nonstandard"] else [])
    if not out:
        raise SVMCoreError("choose at least one weighting")
    return out


def start(values: Mapping[str, Any], scheduler: str | None) -> dict:
    """Start the study in a thread: the job dict (done, total, result, error, event, thread)."""
    from svmcore.study import run_study

    spec, cases, R = spec_of(values), weightings(values), int(values["replicates"])
    n_tasks = R * spec.grid.log2_sigma.count
    job = {"done": 0, "total": n_tasks, "result": None, "error": None, "event": threading.Event()}

    def work():
        try:
            job["result"] = run_study(spec, R, cases, scheduler=scheduler,
                                      n_jobs=1 if n_tasks <= 16 else 0,
                                      progress=lambda d, t: job.update(done=d, total=t),
                                      cancel=job["event"].is_set)
        except Cancelled:
            job["error"] = "cancelled"
        except Exception as exc:  # shown on the page; the earlier result stays
            job["error"] = exc

    job["thread"] = threading.Thread(target=work, daemon=True)
    job["thread"].start()
    return job


def outcome(job: dict) -> tuple[str, Any]:
    """("result", StudyResult), ("cancelled", None) or ("error", message) of a finished job."""
    if job["result"] is not None:
        return "result", job["result"]
    if job["error"] == "cancelled":
        return "cancelled", None
    err = job["error"]
    return "error", str(err) if isinstance(err, SVMCoreError) else f"{type(err).__name__}: {err}"


def save(res) -> str:
    """Save the study to the app's configured store (``svmcore.store.runs_dir``, the folder the
    Saved runs page reads); the folder written."""
    from svmcore.store import runs_dir, save_run

    return str(save_run(runs_dir(), "study", res.spec, res.table,
                        {"settings": res.settings, "seconds": res.timing["wall_seconds"],
                         "weights": [w.as_dict() for w in res.weightings]}))
