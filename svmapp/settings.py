"""Dashboard settings without Streamlit: defaults, presets, the query-string round trip, data
loading and the sweep call. Pages and the sidebar (``svmapp.ui``) use these; tests call them directly.
"""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from svmcore._validation import SVMCoreError
from svmcore.datasets.base import Dataset
from svmcore.datasets.load import stratified_subsample, train_test_split
from svmcore.datasets.simulations import SIMULATIONS, make_simulation
from svmcore.families.svm.criteria import ALL_CRITERIA, IN_SAMPLE, TARGETS
from svmcore.spec import DataSpec, GridSpec, RunSpec, make_spec
from svmcore.viz.views import LABELS
from svmcore.weights import class_weights_from_costs

try:  # written in parallel by another engineer: keep the app working without it
    from svmcore.datasets.bundled import list_bundled, load_bundled
except ImportError:  # pragma: no cover
    list_bundled = lambda: []  # noqa: E731
    load_bundled = None
try:
    from svmcore.datasets.csvload import (MISSING_TOKENS, CSVLoadError, dataset_from_table,
                                         default_positive, read_csv_table)
except ImportError:  # pragma: no cover
    class CSVLoadError(ValueError):
        pass
    dataset_from_table = read_csv_table = None
    MISSING_TOKENS = frozenset({"", "na", "n/a", "nan", "null", "none", "?"})

    def default_positive(values):
        return sorted(map(str, values))[-1]

SOURCES = ("simulation", "bundled", "upload")
SOLVERS = ("auto", "path", "cvxopt", "libsvm")

#: the view that appears first: wahba2d (Wahba et al. 2001, §1.8), n = 200, a quick 13 × 7 grid
DEFAULTS = {
    "source": "simulation", "dataset": "wahba2d", "n": 200, "seed": 0,
    "cost_a": 1.0, "cost_b": 1.0, "prior_a": None,
    "lam": "-20:8:2", "sig": "-3:3:1", "extend": True,
    "criteria": ["obs", "gacv", "xa", "brxa", "sure", "gckl", "misclass", "brmisclass"],
    "rho": 2, "folds": 5, "test_frac": 0.3, "n_max": 2000, "solver": "auto",
    # uploaded CSV only
    "label": None, "positive": None, "p_column": None, "features": None, "standardize": True,
    "dropna": False,
}

#: default n of each simulation in the app (smaller than the papers' where the QP gets slow)
SIM_N = {"wahba2d": 200, "lin1d": 257, "solo_xor": 200, "zhang_additive": 200,
         "zhang_interaction": 200, "navia_a": 200, "navia_b": 200, "twonorm": 200,
         "ringnorm": 200, "waveform": 200}

#: the paper's σ range and λ step, with log2(nλ) up to 8 so that GACV's and XA's minimizers are
#: inside (they sit right of 0 on wahba2d)
PAPER_GRID = {"lam": "-25:8:1", "sig": "-3:3:0.5"}

PRESETS = {
    "Figure 1.4 (left): standard case, wahba2d": {
        "source": "simulation", "dataset": "wahba2d", "n": 200, "seed": 0,
        "cost_a": 1.0, "cost_b": 1.0, "prior_a": None, **PAPER_GRID,
        "criteria": ["obs", "gacv", "xa", "brxa", "sure", "gckl", "misclass", "brmisclass"]},
    "Figure 1.4 (right): nonstandard C_A=1, C_B=2, π_A=0.1": {
        "source": "simulation", "dataset": "wahba2d", "n": 200, "seed": 0,
        "cost_a": 1.0, "cost_b": 2.0, "prior_a": 0.1, **PAPER_GRID,
        "criteria": ["gacv", "xa", "brxa", "gckl", "misclass", "brmisclass"]},
    "Figure 1.5: GCKL, GACV, BRMISCLASS, BRXA surfaces (nonstandard)": {
        "source": "simulation", "dataset": "wahba2d", "n": 200, "seed": 0,
        "cost_a": 1.0, "cost_b": 2.0, "prior_a": 0.1, **PAPER_GRID,
        "criteria": ["gckl", "gacv", "brmisclass", "brxa"]},
    "Solo's SURE surface on solo_xor": {
        "source": "simulation", "dataset": "solo_xor", "n": 200, "seed": 0,
        "cost_a": 1.0, "cost_b": 1.0, "prior_a": None, "lam": "-24:0:1", "sig": "-3:3:0.5",
        "criteria": ["sure", "gacv", "xa", "gckl", "misclass"]},
    "Quick look (default)": dict(DEFAULTS),
}

CRITERIA_HELP = {
    "obs": "OBS: the observed weighted hinge loss (1.13)",
    "gacv": "GACV: generalized approximate cross validation (1.19/1.26)",
    "xa": "XA: Joachims' ξα leave-one-out bound (1.21)",
    "brxa": "BRXA: Bayes-risk ξα for the nonstandard case (1.28)",
    "sure": "SURE: Solo's Stein unbiased risk estimate",
    "gckl": "GCKL: the target, generalized comparative Kullback–Leibler (1.27); needs true p",
    "misclass": "MISCLASS (1.20); needs true p",
    "brmisclass": "BRMISCLASS (1.29); needs true p",
    "cv": "k-fold cross validation (hinge and error)",
    "loo": "exact leave-one-out (hinge and error); expensive",
}


def clean(settings: dict) -> dict:
    """Fill missing keys from DEFAULTS and coerce types (also used on query parameters)."""
    s = {**DEFAULTS, **{k: v for k, v in (settings or {}).items() if k in DEFAULTS}}
    s["source"] = s["source"] if s["source"] in SOURCES else "simulation"
    for k in ("n", "seed", "folds", "n_max"):
        s[k] = int(float(s[k]))
    for k in ("cost_a", "cost_b", "test_frac"):
        s[k] = float(s[k])
    s["rho"] = int(float(s["rho"]))
    # the sidebar widgets' bounds: a hand-edited link must not put a widget out of range
    clamp = lambda v, lo, hi: min(max(v, lo), hi)  # noqa: E731
    s["n"], s["n_max"] = clamp(s["n"], 20, 2000), clamp(s["n_max"], 30, 2000)
    s["seed"], s["folds"] = clamp(s["seed"], 0, 10_000), clamp(s["folds"], 2, 20)
    s["cost_a"], s["cost_b"] = clamp(s["cost_a"], 0.01, 100.0), clamp(s["cost_b"], 0.01, 100.0)
    s["test_frac"] = clamp(s["test_frac"], 0.0, 0.5)
    s["rho"] = 1 if s["rho"] == 1 else 2
    if s["source"] == "simulation" and s["dataset"] not in SIMULATIONS:
        s["dataset"] = DEFAULTS["dataset"]
    if s["source"] == "bundled" and s["dataset"] not in list_bundled():
        names = list_bundled()
        s.update(source="bundled", dataset=names[0]) if names else s.update(source="simulation",
                                                                            dataset=DEFAULTS["dataset"])
    s["solver"] = s["solver"] if s["solver"] in SOLVERS else "auto"
    s["prior_a"] = None if s["prior_a"] in (None, "", "None", "sample") else \
        min(max(float(s["prior_a"]), 0.01), 0.99)
    if isinstance(s["criteria"], str):
        s["criteria"] = [c for c in s["criteria"].split(",") if c]
    s["criteria"] = [c for c in s["criteria"] if c in ALL_CRITERIA]
    if isinstance(s["features"], str):
        s["features"] = [c for c in s["features"].split(",") if c] or None
    if isinstance(s["extend"], str):
        s["extend"] = s["extend"].lower() in ("1", "true", "yes")
    for k in ("standardize", "dropna"):
        if isinstance(s[k], str):
            s[k] = s[k].lower() in ("1", "true", "yes")
    for k in ("label", "positive", "p_column"):
        if s[k] in ("", "None"):
            s[k] = None
    return s


# ------------------------------------------------------------------ query string
_QP_KEYS = ("source", "dataset", "n", "seed", "cost_a", "cost_b", "prior_a", "lam", "sig",
            "criteria", "rho", "folds", "test_frac", "n_max", "solver", "extend")


def to_query(settings: dict, selected: tuple | None = None, features: tuple | None = None) -> dict:
    """Settings (and the clicked grid point) as flat strings for ``st.query_params``."""
    q = {}
    for k in _QP_KEYS:
        v = settings.get(k)
        if v is None:
            continue
        q[k] = ",".join(v) if isinstance(v, list) else (f"{v:g}" if isinstance(v, float) else str(v))
    if selected is not None:
        q["sel"] = f"{selected[0]:g},{selected[1]:g}"
    if features is not None:
        q["feat"] = ",".join(str(int(f)) for f in features)
    return q


def from_query(params: dict) -> tuple[dict | None, tuple | None, tuple | None]:
    """(settings or None, selected point or None, features or None) from query parameters;
    malformed values are ignored (a pasted link never crashes the app)."""
    params = {k: (v[-1] if isinstance(v, list) else v) for k, v in dict(params).items()}
    sel = feat = None
    try:
        if "sel" in params:
            a, b = params["sel"].split(",")
            sel = (float(a), float(b))
            sel = sel if np.all(np.isfinite(sel)) else None
    except ValueError:
        sel = None
    try:
        if "feat" in params:
            feat = tuple(int(x) for x in params["feat"].split(","))[:2]
            feat = feat if len(feat) == 2 else None
    except ValueError:
        feat = None
    if not any(k in params for k in _QP_KEYS):
        return None, sel, feat
    try:
        s = clean({k: params[k] for k in _QP_KEYS if k in params})
        spec_for(s)
    except (SVMCoreError, ValueError, TypeError, OverflowError):
        return None, sel, feat
    return s, sel, feat


def query_problem(params: dict) -> str:
    """Why a link's settings were rejected ("" when they are fine or absent): the validator's
    own message, shown once above the defaults."""
    params = {k: (v[-1] if isinstance(v, list) else v) for k, v in dict(params).items()}
    if not any(k in params for k in _QP_KEYS):
        return ""
    try:
        spec_for(clean({k: params[k] for k in _QP_KEYS if k in params}))
    except (SVMCoreError, ValueError, TypeError, OverflowError) as exc:
        return str(exc)
    return ""



#: what a link carries besides the settings: the tuning page's panels, markers and curves
VIEW_KEYS = ("tun_shown", "tun_curves", "tun_ncols", "tun_others")
_VIEW_QP = {"tun_shown": "show", "tun_curves": "curves", "tun_ncols": "ncols", "tun_others": "others"}


def view_to_query(view: dict) -> dict:
    """The view's state (shown criteria, decision curves, panels per row, other minimizers)."""
    q = {}
    for k, name in _VIEW_QP.items():
        v = view.get(k)
        if v is None:
            continue
        q[name] = ",".join(v) if isinstance(v, (list, tuple)) else str(int(v))
    return q


def view_from_query(params: dict) -> dict:
    """The view's state from a link; unknown criteria and out-of-range values are dropped."""
    params = {k: (v[-1] if isinstance(v, list) else v) for k, v in dict(params).items()}
    out = {}
    for k in ("tun_shown", "tun_curves"):
        if _VIEW_QP[k] in params:
            out[k] = [c for c in str(params[_VIEW_QP[k]]).split(",") if c in LABELS][:20]
    try:
        if "ncols" in params and int(params["ncols"]) in (1, 2, 3, 4):
            out["tun_ncols"] = int(params["ncols"])
    except ValueError:
        pass
    if "others" in params:
        out["tun_others"] = str(params["others"]) in ("1", "true", "True")
    return out


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
    full: Dataset
    note: str


def parse_upload(data: bytes):
    """The uploaded bytes as a table of text cells; raises CSVLoadError with a readable message."""
    if read_csv_table is None:
        raise CSVLoadError("the CSV loader (svmcore.datasets.csvload) is not available")
    return read_csv_table(bytes(data))


def upload_dataset(table, s: dict, name: str = "uploaded") -> Dataset:
    """Dataset from an uploaded table and the label / class-A / p column / features choices."""
    if not s.get("label"):
        raise CSVLoadError("choose the label column of the uploaded file")
    return dataset_from_table(table, s["label"], positive=s.get("positive"),
                              p_column=s.get("p_column"), features=s.get("features"),
                              standardize=bool(s.get("standardize", True)), name=name)


def load_data(s: dict, upload_table=None, upload_name: str = "uploaded") -> Loaded:
    """The data the settings describe, split into train/test when P(A|x) is unknown.

    Simulations are generated at ``n``; real data (bundled or uploaded) without a true-probability
    column get a stratified held-out test set of ``test_frac`` and the training part is subsampled to
    at most ``n_max`` rows so the sweep stays interactive.
    """
    src = s["source"]
    if src == "simulation":
        if s["dataset"] not in SIMULATIONS:
            raise ValueError(f"unknown simulation {s['dataset']!r}")
        full = make_simulation(s["dataset"], n=int(s["n"]), seed=int(s["seed"]))
    elif src == "bundled":
        if load_bundled is None:
            raise ValueError("bundled data sets are not available in this build")
        full = load_bundled(s["dataset"], standardize=True)
    else:
        if upload_table is None:
            raise CSVLoadError("no CSV file uploaded yet")
        dropped = 0
        if s.get("dropna"):
            upload_table, dropped = drop_missing(upload_table, used_columns(upload_table, s))
        full = upload_dataset(upload_table, s, upload_name)
    notes = [f"{full.name}: n = {full.n}, d = {full.d}"]
    if src == "upload" and s.get("dropna"):
        notes.append(f"{dropped} rows with missing values dropped")
    train, test = full, None
    if not full.has_truth and s["test_frac"] > 0:
        train, test = train_test_split(full, s["test_frac"], seed=int(s["seed"]))
        notes.append(f"held-out test set {test.n} rows")
    if src != "simulation" and s.get("n_max") and train.n > s["n_max"]:
        train = stratified_subsample(train, int(s["n_max"]), seed=int(s["seed"]))
        notes.append(f"training subsample of {train.n} rows (n max)")
    return Loaded(train, test, full, "; ".join(notes))


def criteria_for(s: dict, has_truth: bool) -> list[str]:
    """The requested criteria that this data allows (targets need a known P(A|x))."""
    crit = [c for c in s["criteria"] if c in ALL_CRITERIA]
    if not has_truth:
        crit = [c for c in crit if c not in TARGETS]
    return crit or list(IN_SAMPLE)


def weights_for(s: dict, y):
    return class_weights_from_costs(y, s["cost_a"], s["cost_b"], s["prior_a"])


def grid_for(s: dict) -> GridSpec:
    return GridSpec.parse(s["lam"], s["sig"])


def data_spec_for(s: dict, fingerprint: str = "") -> DataSpec:
    """The DataSpec of the sidebar settings (an upload is identified by its bytes' hash)."""
    src = {"simulation": "simulation", "bundled": "bundled"}.get(s["source"], "csv")
    real = src != "simulation"
    return DataSpec(src, s["dataset"] if src != "csv" else "uploaded",
                    n=int(s["n"]) if src == "simulation" else None, seed=int(s["seed"]),
                    label=s.get("label") if src == "csv" else None,
                    positive=s.get("positive") if src == "csv" else None,
                    p_column=s.get("p_column") if src == "csv" else None,
                    features=tuple(s["features"]) if src == "csv" and s.get("features") else None,
                    standardize=bool(s.get("standardize", True)),
                    test_fraction=float(s["test_frac"]) if real else 0.0, split_seed=int(s["seed"]),
                    n_max=int(s["n_max"]) if real and s.get("n_max") else None,
                    fingerprint=fingerprint)


def spec_for(s: dict, has_truth: bool | None = None, fingerprint: str = "") -> RunSpec:
    """The validated RunSpec of the settings: the one validator the CLI uses too."""
    crit = s["criteria"] if has_truth is None else criteria_for(s, has_truth)
    return make_spec("svm", data=data_spec_for(s, fingerprint), log2_nlambda=s["lam"],
                     log2_sigma=s["sig"], criteria=list(crit), cost_a=float(s["cost_a"]),
                     cost_b=float(s["cost_b"]), prior_a=s["prior_a"], xa_rho=float(s["rho"]),
                     cv_folds=int(s["folds"]), cv_seed=int(s["seed"]),
                     solver=s.get("solver", "auto"), extend_grid=bool(s.get("extend", True)))


def run(s: dict, loaded: Loaded, progress=None, n_jobs: int | None = None, cancel=None):
    """Run the sweep the settings describe on loaded data (``svmcore.grid.run_grid``; σ columns
    in parallel when that pays)."""
    from svmcore.grid import run_grid

    spec = spec_for(s, loaded.train.has_truth)
    return run_grid(spec, loaded.train, loaded.test, progress=progress, cancel=cancel,
                    n_jobs=n_jobs)


def nice_ranges(data: Dataset) -> tuple[str, str]:
    """Per-data-set sensible quick ranges (``svmcore.viz.views.suggested_ranges``)."""
    from svmcore.viz.views import suggested_ranges

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


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """Hash of the svmcore sources: a cached result is used only with the code that made it."""
    root = Path(__file__).resolve().parents[1]
    h = hashlib.sha1()
    for p in sorted((root / "svmcore").rglob("*.py")) + [root / "svmapp" / "settings.py"]:
        h.update(p.relative_to(root).as_posix().encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


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
