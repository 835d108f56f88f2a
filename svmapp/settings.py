"""Dashboard settings without Streamlit: defaults, presets, the query-string round trip, data
loading and the sweep call. Pages and the sidebar (``svmapp.ui``) use these; tests call them directly.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from numbers import Integral

from svmcore._validation import SVMCoreError
from svmcore.datasets.base import Dataset

from svmcore import codec
from svmcore.families import get_family
from svmcore.families.svm.criteria import ALL_CRITERIA, IN_SAMPLE, TARGETS
from svmcore.params import Boolean, Interval, ListOf, Options, Param, Text
from svmcore.spec import GridSpec, RunSpec, spec_params
from svmcore.views import LABELS
from svmcore.weights import class_weights_from_costs

from svmcore.datasets.bundled import list_bundled
from svmcore.datasets.csvload import MISSING_TOKENS, CSVLoadError, read_csv_table

SOURCES = ("simulation", "bundled", "upload")
#: the model the sidebar's sweep runs (its parameter table draws the sidebar's model widgets)
MODEL = "svm"
FAMILY = get_family(MODEL)
#: settings of the sidebar that are no run parameter: drop the upload's rows with missing cells
APP_ONLY = ("dropna",)


def run_param(name: str) -> Param:
    """The run, data or grid Param ``name`` of the sidebar's model (labels, help and bounds)."""
    return next(p for p in spec_params(FAMILY) if p.name == name)


#: the view that appears first: wahba2d (Wahba et al. 2001, §1.8), n = 200, a quick 13 × 7 grid;
#: every other setting is its Param's default (settings are flat values by Param name)
APP_DEFAULTS = {
    "source": "simulation", "dataset": "wahba2d", "n": 200, "seed": 0,
    "log2_nlambda": "-20:8:2", "log2_sigma": "-3:3:1", "extend_grid": True,
    "criteria": ["obs", "gacv", "xa", "brxa", "sure", "gckl", "misclass", "brmisclass"],
    "test_fraction": 0.3, "n_max": 2000, "dropna": False,
}


def defaults() -> dict:
    """The app's default settings: the family's Params (read now, so a Param added to the table
    is a setting too), the data and run tables' defaults, then ``APP_DEFAULTS``."""
    out = {p.name: p.default for p in spec_params(FAMILY)
           if p.name not in ("model", "data", "split_seed")}
    out.update({p.name: p.default for p in FAMILY.params})
    out.update(APP_DEFAULTS)
    out["criteria"] = list(out["criteria"])
    return out


DEFAULTS = defaults()

#: default n of each simulation in the app (smaller than the papers' where the QP gets slow)
SIM_N = {"wahba2d": 200, "lin1d": 257, "solo_xor": 200, "zhang_additive": 200,
         "zhang_interaction": 200, "navia_a": 200, "navia_b": 200, "twonorm": 200,
         "ringnorm": 200, "waveform": 200}

#: the paper's σ range and λ step, with log2(nλ) up to 8 so that GACV's and XA's minimizers are
#: inside (they sit right of 0 on wahba2d)
PAPER_GRID = {"log2_nlambda": "-25:8:1", "log2_sigma": "-3:3:0.5"}

#: the decision curves of Wahba et al. (2001) Fig 1.4: left (standard), right (nonstandard)
FIG14_LEFT = {"tun_shown": ["gacv", "xa", "gckl", "misclass"], "tun_curves": ["gacv", "xa", "misclass"]}
FIG14_RIGHT = {"tun_shown": ["gacv", "brxa", "gckl", "brmisclass"],
               "tun_curves": ["gacv", "brxa", "brmisclass"]}
NONSTANDARD = {"cost_a": 1.0, "cost_b": 2.0, "prior_a": 0.1}

#: partial settings and views (Param names of the run and of ``VIEW_PARAMS``); each is checked by
#: the spec when it is loaded, and owns the whole view: a view value it leaves out is the default
PRESETS = {
    "Figure 1.4 (left): standard case, wahba2d": {
        "source": "simulation", "dataset": "wahba2d", "n": 200, "seed": 0,
        "cost_a": 1.0, "cost_b": 1.0, "prior_a": None, **PAPER_GRID,
        "criteria": ["obs", "gacv", "xa", "brxa", "sure", "gckl", "misclass", "brmisclass"],
        **FIG14_LEFT},
    "Figure 1.4 (right): nonstandard C_A=1, C_B=2, π_A=0.1": {
        "source": "simulation", "dataset": "wahba2d", "n": 200, "seed": 0, **NONSTANDARD, **PAPER_GRID,
        "criteria": ["gacv", "xa", "brxa", "gckl", "misclass", "brmisclass"], **FIG14_RIGHT},
    "Figure 1.5: GCKL, GACV, BRMISCLASS, BRXA surfaces (nonstandard)": {
        "source": "simulation", "dataset": "wahba2d", "n": 200, "seed": 0, **NONSTANDARD, **PAPER_GRID,
        "criteria": ["gckl", "gacv", "brmisclass", "brxa"],
        "tun_shown": ["gckl", "gacv", "brmisclass", "brxa"], "tun_curves": ["gacv", "brxa", "brmisclass"],
        "tun_others": True},
    "Solo's SURE surface on solo_xor": {
        "source": "simulation", "dataset": "solo_xor", "n": 200, "seed": 0,
        "cost_a": 1.0, "cost_b": 1.0, "prior_a": None, "log2_nlambda": "-24:0:1",
        "log2_sigma": "-3:3:0.5", "criteria": ["sure", "gacv", "xa", "gckl", "misclass"],
        "tun_shown": ["sure", "gacv", "gckl", "misclass"], "tun_curves": ["sure", "gacv", "misclass"]},
    "Quick look (default)": {},
}


def criterion(name: str):
    """The family's Criterion ``name`` (label, help, target, needs)."""
    return next(c for c in FAMILY.criteria if c.name == name)


def single_fit_criteria() -> list[str]:
    """Criteria computed from one fit (targets included), in the registry's order."""
    return [c.name for c in FAMILY.criteria if c.needs in ("fit", "truth")]


def sim_n(s: dict) -> int:
    """The simulation's sample size: the setting, or (none) the app's default for that data set."""
    return int(s["n"]) if s.get("n") is not None else SIM_N.get(s["dataset"], 200)


def panel_help(column: str) -> str:
    """One sentence under a result column's panel, from the registry (the criterion's help and
    the target it estimates; a held-out score's label)."""
    from svmcore.families.svm.criteria import HOLDOUT_OUTPUTS

    for c in FAMILY.criteria:
        if column in c.columns:
            target = next((t.label for t in FAMILY.criteria if t.name == c.target), None)
            return c.help + (f"; a proxy for {target}." if target and target not in c.help else ".")
    held = {o.name: o.label for o in HOLDOUT_OUTPUTS}
    return f"{held[column]} on the held-out test set." if column in held else ""


def settings_from(values: dict | None = None) -> dict:
    """Full settings: ``values`` (Param names) over the defaults, checked by the spec. Nothing is
    clamped: a value the spec refuses raises SVMCoreError naming it and what is allowed."""
    s = {**defaults(), **dict(values or {})}
    if isinstance(s.get("criteria"), (tuple, str)):
        s["criteria"] = list(s["criteria"].split(",") if isinstance(s["criteria"], str) else s["criteria"])
    if isinstance(s.get("features"), tuple):
        s["features"] = list(s["features"])
    spec_for(s)
    return s


def preset_settings(name: str) -> dict:
    """The run settings of a preset; SVMCoreError with one message when the spec refuses it."""
    return values_settings(PRESETS[name], f"preset {name!r}")[0]


def preset_view(name: str) -> dict:
    """The whole view of a preset (every ``VIEW_PARAMS`` value; those it leaves out at their default)."""
    return values_settings(PRESETS[name], f"preset {name!r}")[1]


def split_view(values: dict) -> tuple[dict, dict]:
    """(run values, view values) of flat values keyed by Param name."""
    names = {p.name for p in VIEW_PARAMS}
    return ({k: v for k, v in values.items() if k not in names},
            {k: v for k, v in values.items() if k in names})


def full_view(view: dict | None = None) -> dict:
    """Every view value: ``view``'s, the others at their Param's default (a preset or a lesson step
    owns the whole view, so nothing carries over from the previous one)."""
    out = {p.name: p.default for p in VIEW_PARAMS}
    out.update(view or {})
    for k in ("tun_shown", "tun_curves"):
        if out.get(k) is not None:
            out[k] = list(out[k])
    return out


def check_view(view: dict) -> None:
    """Each view value checked by its Param (SVMCoreError naming it)."""
    by_name = {p.name: p for p in VIEW_PARAMS}
    for k, v in view.items():
        if v is not None:
            p = by_name[k]
            p.parse(p.format(tuple(v) if isinstance(v, list) else v))


def values_settings(values: dict, what: str = "settings") -> tuple[dict, dict]:
    """(full run settings, full view) of flat values (run and view Param names), each checked by
    its Param and the spec; SVMCoreError naming ``what`` and the value refused."""
    run, view = split_view(values)
    try:
        check_view(view)
        return settings_from(run), full_view(view)
    except SVMCoreError as exc:
        raise SVMCoreError(f"{what}: {exc}") from None


# ------------------------------------------------------------------ links
def _seq_param(name, url_key, label, helptext):
    return Param(name, ListOf(Options(tuple(LABELS)), 50), None, label, helptext, url_key=url_key,
                 cli_flag=None, widget="multiselect")


#: what a link carries besides the run settings: the tuning page's view (a Param table, so links
#: are written and read by ``svmcore.codec`` like the run settings)
VIEW_PARAMS: tuple[Param, ...] = (
    _seq_param("tun_shown", "show", "criteria to show", "the panels of the tuning page"),
    _seq_param("tun_curves", "curves", "decision curves", "the fits drawn in the decision panel"),
    Param("tun_ncols", Interval(Integral, 1, 4), 2, "panels per row", "panels per row",
          url_key="ncols", cli_flag=None, widget="int"),
    Param("tun_others", Boolean(), False, "other minimizers",
          "mark every shown criterion's minimizer in each panel", url_key="others", cli_flag=None),
    Param("selected", Text(60, r"[-+0-9.eE]+,[-+0-9.eE]+", "two numbers log2(nλ),log2 σ"), None,
          "clicked point", "the clicked grid point", url_key="sel", cli_flag=None, widget="none"),
    Param("slice_features", Text(20, r"[0-9]{1,4},[0-9]{1,4}", "two feature numbers i,j"), None,
          "slice features", "the two features of the decision panel's slice", url_key="feat",
          cli_flag=None, widget="none"),
    Param("w_present", Boolean(), False, "presentation mode",
          "a projector layout: surfaces and the decision curve on one screen, large fonts",
          url_key="present", cli_flag=None),
    Param("tun_axes", Options(("log2", "sklearn")), "log2", "axes",
          "log2: log2(nλ) and log2 σ; sklearn: scikit-learn's C = 1/(2nλ) and γ = 1/(2σ²) (log scale)",
          url_key="axes", cli_flag=None, widget="radio"),
    Param("lesson", Text(40, r"[a-z0-9_-]+", "a lesson's id"), None, "lesson",
          "the guided lesson this view is a step of", url_key="lesson", cli_flag=None, widget="none"),
    Param("lesson_step", Interval(Integral, 1, 50), None, "lesson step",
          "the step of the lesson (1 is the first)", url_key="step", cli_flag=None, widget="none"),
)
#: what every page's link may carry, whatever the page: presentation mode and the lesson step
#: being shown (the guided lessons, svmapp.lessons)
EVERY_PAGE_PARAMS = tuple(p for p in VIEW_PARAMS if p.name in ("w_present", "lesson", "lesson_step"))
EVERY_PAGE_KEYS = tuple(p.key for p in EVERY_PAGE_PARAMS)
#: session-state keys of the view that links carry
VIEW_KEYS = tuple(p.name for p in VIEW_PARAMS if p.name not in ("selected", "slice_features"))
#: view values a link leaves out when they are at their default (off switches, no lesson)
QUIET_DEFAULTS = ("w_present", "tun_axes", "tun_others", "lesson", "lesson_step")


def link_values(s: dict) -> dict:
    """The settings as run-parameter values for a link (an upload is written as source csv)."""
    vals = {k: v for k, v in s.items() if k not in APP_ONLY}
    if vals.get("source") == "upload":
        vals["source"] = "csv"
    if vals.get("source") != "simulation":
        vals.pop("n", None)
    return vals


def to_query(s: dict, selected: tuple | None = None, features: tuple | None = None,
             view: dict | None = None) -> dict:
    """Settings, the clicked point, the slice features and the view as a link's parameters
    (``svmcore.codec.to_query`` over the model's and ``VIEW_PARAMS``' tables)."""
    quiet = {p.name: p.default for p in VIEW_PARAMS if p.name in QUIET_DEFAULTS}
    vals = {**link_values(s), **{k: v for k, v in dict(view or {}).items()
                                 if k not in quiet or v != quiet[k]}}
    if selected is not None:
        vals["selected"] = f"{selected[0]:g},{selected[1]:g}"
    if features is not None:
        vals["slice_features"] = ",".join(str(int(f)) for f in features)
    return codec.to_query(vals, codec.link_params(MODEL, extra=VIEW_PARAMS))


def _dedup_lists(q: dict, notes: list) -> dict:
    """A view list naming an entry twice keeps it once, with a note (ListOf refuses repeats)."""
    q = codec.last_values(q)
    for p in VIEW_PARAMS:
        if isinstance(p.constraint, ListOf) and p.key in q:
            items = [t.strip() for t in str(q[p.key]).split(",") if t.strip()]
            once = list(dict.fromkeys(items))
            if len(once) < len(items):
                twice = next(t for t in items if items.count(t) > 1)
                notes.append(f"link key {p.key!r} names {twice!r} twice; it was kept once")
                q[p.key] = ",".join(once)
    return q


def _point(text):
    try:
        a, b = (float(t) for t in str(text).split(","))
    except ValueError:
        return None
    return (a, b) if np.all(np.isfinite((a, b))) else None


def view_state(view: dict) -> dict:
    """View values as the session holds them: the clicked point and the slice features as tuples."""
    view = dict(view)
    if isinstance(view.get("selected"), str):
        view["selected"] = _point(view["selected"])
    if isinstance(view.get("slice_features"), str):
        view["slice_features"] = tuple(int(t) for t in view["slice_features"].split(","))
    return view


def view_text(view: dict) -> dict:
    """View values as their Params hold them: the clicked point and the slice features as text."""
    view = dict(view)
    if isinstance(view.get("selected"), tuple):
        view["selected"] = "{:g},{:g}".format(*view["selected"])
    if isinstance(view.get("slice_features"), tuple):
        view["slice_features"] = ",".join(str(int(f)) for f in view["slice_features"])
    return view


def read_link(query: dict) -> tuple[dict | None, dict, list[str]]:
    """(settings or None when the link has none, view values, notes) of a link.

    Each key is read by its Param (``svmcore.codec.decode_query``, old keys through the Params'
    aliases): an unknown key or a refused value gives one note naming it, and that key keeps its
    default. Settings the spec refuses as a whole give one note and the defaults.
    """
    notes: list[str] = []
    values, problems = codec.decode_query(_dedup_lists(query, notes), extra=VIEW_PARAMS)
    notes += problems
    view = view_state({p.name: values.pop(p.name) for p in VIEW_PARAMS if p.name in values})
    if values.pop("model", MODEL) != MODEL:
        notes.append(f"this page shows the {MODEL} model; the link's model was ignored")
    if not values and not problems:
        return None, view, notes
    if values.get("source") in ("csv", "inline"):
        notes.append("The link referred to an uploaded CSV, which a link cannot carry: upload it again.")
        return settings_from(), view, notes
    if "dataset" in values and "source" not in values:
        values["source"] = "bundled" if values["dataset"] in list_bundled() else "simulation"
    try:
        return settings_from(values), view, notes
    except SVMCoreError as exc:
        notes.append(f"The link's settings were not used: {exc}. Showing the defaults.")
        return settings_from(), view, notes


def read_every_page_link(query: dict) -> tuple[dict, list[str]]:
    """({name: value} of the keys every page's link may carry, notes), read by their Params (the
    pages with links of their own read the rest). A refused lesson or step leaves out both: one
    note, and no step."""
    q = {k: v for k, v in dict(query).items() if k in EVERY_PAGE_KEYS}
    values, notes = codec.decode_query(q, extra=EVERY_PAGE_PARAMS)
    refused = {p.name for p in EVERY_PAGE_PARAMS if p.key in q and p.name not in values}
    if refused & {"lesson", "lesson_step"}:
        values.pop("lesson", None)
        values.pop("lesson_step", None)
    return values, notes


# ------------------------------------------------------------------ data
def _missing_mask(col) -> np.ndarray:
    """Cells the CSV loader would reject as missing (its own MISSING_TOKENS), so that dropping
    them leaves a table the loader accepts."""
    txt = col.astype(str).str.strip().str.lower()
    return (col.isna() | txt.isin(MISSING_TOKENS)).to_numpy(bool)


def _missing_rows(table, columns) -> np.ndarray:
    """Rows with a missing cell in any of ``columns``."""
    return np.any([_missing_mask(table[c]) for c in columns], axis=0)


def text_columns(table) -> list:
    """Columns with a non-missing cell that is not a number (left out of the features by default)."""
    import pandas as pd

    out = []
    for c in table.columns:
        col = table[c]
        keep = ~_missing_mask(col)
        num = pd.to_numeric(col[keep].astype(str).str.strip(), errors="coerce")
        if num.isna().any():
            out.append(c)
    return out


def label_values(table, label) -> list[str]:
    """The distinct non-empty values of an uploaded table's label column, as text (at most 200)."""
    if label not in table.columns:
        return []
    return sorted(set(table[label].astype(str).str.strip()) - {""})[:200]


def used_columns(table, s: dict) -> list:
    """The uploaded table's columns the settings use: label, P(A|x) column and features."""
    feats = s.get("features") or [c for c in table.columns if c not in (s.get("label"), s.get("p_column"))]
    cols = [s.get("label"), s.get("p_column"), *feats]
    return [c for c in dict.fromkeys(cols) if c is not None and c in table.columns]


def count_missing(table, columns) -> int:
    """Rows with a missing cell in any of ``columns``."""
    if table is None or not columns:
        return 0
    return int(_missing_rows(table, columns).sum())


def drop_missing(table, columns):
    """(table without the rows that have a missing cell in ``columns``, the number dropped)."""
    if not columns:
        return table, 0
    bad = _missing_rows(table, columns)
    return table.loc[~bad].reset_index(drop=True), int(bad.sum())


def upload_fingerprint(s: dict, content_hash: str) -> str:
    """What identifies uploaded data in the run spec: the bytes' hash, and whether rows were dropped."""
    if s["source"] != "upload":
        return ""
    return content_hash + (":dropna" if s.get("dropna") else "")


@dataclass
class Loaded:
    """The training set, the optional held-out test set, and one line describing both."""

    train: Dataset
    test: Dataset | None
    note: str


def parse_upload(data: bytes):
    """The uploaded bytes as a table of text cells; raises CSVLoadError with a readable message."""
    if read_csv_table is None:
        raise CSVLoadError("the CSV loader (svmcore.datasets.csvload) is not available")
    return read_csv_table(bytes(data))


def load_data(s: dict, upload_table=None, upload_name: str = "uploaded") -> Loaded:
    """The data the settings describe, by the engine's one loader
    (``svmcore.datasets.load.load_data`` of the settings' DataSpec): a simulation at ``n``; real
    data (bundled or uploaded) without a true-probability column split off a stratified test set
    of ``test_fraction``, the training part subsampled to at most ``n_max`` rows."""
    from svmcore.datasets.load import load_data as engine_load

    table, dropped = None, 0
    if s["source"] == "upload":
        if upload_table is None:
            raise CSVLoadError("no CSV file uploaded yet")
        if not s.get("label"):
            raise CSVLoadError("choose the label column of the uploaded file")
        table = upload_table
        if s.get("dropna"):
            table, dropped = drop_missing(table, used_columns(table, s))
    ds = spec_for(s).data
    if s["source"] == "upload":
        ds = replace(ds, name=upload_name)
    train, test = engine_load(ds, table=table)
    n_full = train.n + (0 if test is None else test.n)
    notes = [f"{ds.name}: n = {n_full}, d = {train.d}"]
    if s["source"] == "upload" and s.get("dropna"):
        notes.append(f"{dropped} rows with missing values dropped")
    if test is not None:
        notes.append(f"held-out test set {test.n} rows")
    if ds.n_max and s["source"] != "simulation" and train.n >= ds.n_max:
        notes.append(f"training subsample of {train.n} rows (n max)")
    return Loaded(train, test, "; ".join(notes))


def criteria_for(s: dict, has_truth: bool) -> list[str]:
    """The requested criteria that this data allows (targets need a known P(A|x))."""
    crit = [c for c in s["criteria"] if c in ALL_CRITERIA]
    if not has_truth:
        crit = [c for c in crit if c not in TARGETS]
    return crit or list(IN_SAMPLE)


def weights_for(s: dict, y):
    return class_weights_from_costs(y, s["cost_a"], s["cost_b"], s["prior_a"])


def grid_for(s: dict) -> GridSpec:
    return GridSpec.parse(s["log2_nlambda"], s["log2_sigma"])


def spec_values_for(s: dict, has_truth: bool | None = None) -> dict:
    """The settings as run-parameter values (``svmcore.codec.spec_from_values``): the app's
    upload is source "csv" named by its file; a simulation has no test fraction or n max, real
    data no n; with ``has_truth`` the criteria this data allows."""
    v = {k: val for k, val in s.items() if k not in APP_ONLY}
    src = v.get("source", "simulation")
    if src == "upload":
        v.update(source="csv", data=f"{v.pop('dataset', None) or 'uploaded'}.csv")
    else:
        v.update(label=None, positive=None, p_column=None, features=None)
    if src == "simulation":
        v.update(test_fraction=0.0, n_max=None, n=sim_n(s))
    else:
        v["n"] = None
        v["split_seed"] = v.get("seed", 0)        # the app's one seed also draws the test split
    if v.get("features"):
        v["features"] = tuple(v["features"])
    v["criteria"] = tuple(v.get("criteria") or ()) if has_truth is None else tuple(criteria_for(s, has_truth))
    return v


def spec_for(s: dict, has_truth: bool | None = None, fingerprint: str = "") -> RunSpec:
    """The validated RunSpec of the settings: the one validator the CLI uses too."""
    return codec.spec_from_values(spec_values_for(s, has_truth), fingerprint=fingerprint)


def _flight_key(spec: RunSpec, loaded: Loaded) -> str:
    """The spec's key salted with the code and the training and test data's bytes."""
    import hashlib

    h = hashlib.sha256(spec.key(code_fingerprint()).encode())
    for d in (loaded.train, loaded.test):
        if d is not None:
            h.update(np.ascontiguousarray(d.X).tobytes())
            h.update(np.ascontiguousarray(d.y).tobytes())
    return h.hexdigest()


def run(s: dict, loaded: Loaded, progress=None, n_jobs: int | None = None, cancel=None):
    """Run the sweep the settings describe on loaded data (``svmcore.grid.run_grid``; σ columns
    in parallel when that pays).

    Single flight: identical sweeps requested at once by several sessions (the first minutes of a
    class after a deploy) run once; the others wait for that result (polling their own cancel).
    When the leading session cancels, a waiting one runs the sweep itself."""
    from svmcore.flight import single_flight
    from svmcore.grid import Cancelled, run_grid

    spec = spec_for(s, loaded.train.has_truth)
    return single_flight(("sweep", _flight_key(spec, loaded)),
                         lambda: run_grid(spec, loaded.train, loaded.test, progress=progress,
                                          cancel=cancel, n_jobs=n_jobs),
                         cancel=cancel, retry_on=(Cancelled,))


def nice_ranges(data: Dataset) -> tuple[str, str]:
    """Per-data-set sensible quick ranges (``svmcore.views.suggested_ranges``)."""
    from svmcore.views import suggested_ranges

    return suggested_ranges(data, quick=True)


def jsonable(s: dict) -> dict:
    return json.loads(json.dumps(s, default=lambda v: v.tolist() if isinstance(v, np.ndarray) else str(v)))


# ------------------------------------------------------------------ disk cache of sweep results
def cache_dir() -> Path | None:
    """Where finished sweeps are kept across server restarts: $SVMAPP_CACHE, else
    ~/.cache/svm-tuning-explorer; SVMAPP_CACHE=off disables it."""
    env = os.environ.get("SVMAPP_CACHE")
    if env is not None and env.strip().lower() in ("", "0", "off", "false", "no"):
        return None
    return Path(env) if env else Path.home() / ".cache" / "svm-tuning-explorer"


def code_fingerprint() -> str:
    """The engine's code fingerprint (``svmcore.store.code_fingerprint``): a cached result is used
    only with the code that made it."""
    from svmcore.store import code_fingerprint as engine_fingerprint
    return engine_fingerprint()


def _cache():
    """The bounded, data-only (Parquet + JSON) result cache, or None when switched off."""
    from svmcore.store import ResultCache

    d = cache_dir()
    return None if d is None else ResultCache(d, max_bytes=CACHE_MAX_BYTES)


#: the disk cache's bound; least recently used results are evicted beyond it
CACHE_MAX_BYTES = int(os.environ.get("SVMAPP_CACHE_MB", "256")) * 2**20


def disk_get(key: str):
    """The GridResult stored under ``key`` (which includes the code fingerprint), or None."""
    from svmcore.grid import GridResult
    from svmcore.spec import spec_from_dict
    from svmcore.weights import ClassWeights

    cache = _cache()
    hit = None if cache is None else cache.get(key)
    if hit is None:
        return None
    table, meta = hit
    try:
        return GridResult(table, spec_from_dict(meta["spec"]), float(meta["seconds"]),
                          ClassWeights(**meta["weights"]), list(meta.get("notes", [])))
    except Exception:       # an entry from another code version: a miss
        return None


def disk_put(key: str, result) -> bool:
    """Store a GridResult (best effort: a read-only or full disk only loses the cache)."""
    cache = _cache()
    if cache is None:
        return False
    meta = {"spec": result.spec.to_dict(), "seconds": result.seconds,
            "weights": result.weights.as_dict(), "notes": list(result.notes)}
    try:
        return cache.put(key, result.table, meta)
    except Exception:
        return False
