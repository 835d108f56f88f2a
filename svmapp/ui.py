"""The Streamlit side of the dashboard: shared sidebar, session state, running the sweep with a
progress bar, result store, query-parameter mirroring and download buttons.

Pages import this module and call ``require_result()``; ``app.py`` calls ``init_state()``,
``sidebar()`` and ``run_if_requested()`` before running the selected page.
"""
from __future__ import annotations

import hashlib
import json
import time
from collections import OrderedDict
from functools import partial

import numpy as np
import streamlit as st

from svmapp import settings as S
from svmcore.datasets.simulations import SIMULATIONS
from svmcore.spec import GridSpec

SS = st.session_state
SINGLE_FIT_CRITERIA = ["obs", "gacv", "xa", "brxa", "sure", "gckl", "misclass", "brmisclass"]


# ------------------------------------------------------------------ shared result store
@st.cache_resource(show_spinner=False)
def _store() -> "OrderedDict":
    """Results shared by every session of this server, keyed by settings + data hash (LRU 24)."""
    return OrderedDict()


def _store_get(key):
    st_ = _store()
    if key in st_:
        st_.move_to_end(key)
        return st_[key]
    return None


def _store_put(key, value):
    st_ = _store()
    st_[key] = value
    st_.move_to_end(key)
    while len(st_) > 24:
        st_.popitem(last=False)


# ------------------------------------------------------------------ widgets <-> settings
def _set_widgets(s: dict) -> None:
    """Write settings into the widgets' session-state keys (before the widgets are drawn)."""
    SS.w_source = s["source"]
    if s["source"] == "simulation":
        SS.w_sim = s["dataset"] if s["dataset"] in SIMULATIONS else "wahba2d"
    elif s["source"] == "bundled":
        SS.w_bundled = s["dataset"]
    SS.w_n = int(s["n"])
    SS.w_seed = int(s["seed"])
    SS.w_cost_a = float(s["cost_a"])
    SS.w_cost_b = float(s["cost_b"])
    SS.w_prior_custom = s["prior_a"] is not None
    SS.w_prior_a = float(s["prior_a"]) if s["prior_a"] is not None else 0.5
    SS.w_lam = s["lam"]
    SS.w_sig = s["sig"]
    SS.w_criteria = [c for c in s["criteria"] if c in SINGLE_FIT_CRITERIA]
    SS.w_cv = "cv" in s["criteria"]
    SS.w_loo = "loo" in s["criteria"]
    SS.w_rho = int(s["rho"])
    SS.w_folds = int(s["folds"])
    SS.w_test_frac = float(s["test_frac"])
    SS.w_n_max = int(s["n_max"])
    SS.w_solver = s.get("solver", "auto")


def _widget_settings() -> dict:
    """Settings as the widgets currently hold them."""
    src = SS.get("w_source", "simulation")
    dataset = {"simulation": SS.get("w_sim", "wahba2d"), "bundled": SS.get("w_bundled"),
               "upload": SS.get("upload_name", "uploaded")}[src]
    crit = list(SS.get("w_criteria", [])) + (["cv"] if SS.get("w_cv") else []) + \
        (["loo"] if SS.get("w_loo") and SS.get("loo_ok", True) else [])
    s = {"source": src, "dataset": dataset, "n": SS.get("w_n", 200), "seed": SS.get("w_seed", 0),
         "cost_a": SS.get("w_cost_a", 1.0), "cost_b": SS.get("w_cost_b", 1.0),
         "prior_a": SS.get("w_prior_a") if SS.get("w_prior_custom") else None,
         "lam": SS.get("w_lam", S.DEFAULTS["lam"]).strip(),
         "sig": SS.get("w_sig", S.DEFAULTS["sig"]).strip(),
         "criteria": crit, "rho": SS.get("w_rho", 2), "folds": SS.get("w_folds", 5),
         "test_frac": SS.get("w_test_frac", 0.3), "n_max": SS.get("w_n_max", 300),
         "solver": SS.get("w_solver", "auto")}
    if src == "upload":
        s.update(label=SS.get("w_label"), positive=SS.get("w_positive"),
                 p_column=None if SS.get("w_pcol") in (None, "(none)") else SS.get("w_pcol"),
                 features=list(SS.get("w_features") or []) or None,
                 standardize=bool(SS.get("w_standardize", True)))
    return S.clean(s)


def init_state() -> None:
    """First run of a session: settings from the query string (a pasted link) or the defaults."""
    if "requested" in SS:
        return
    qs, sel, feat = S.from_query(st.query_params.to_dict())
    s = qs or S.clean(S.DEFAULTS)
    if s["source"] == "upload":       # an upload cannot come from a link
        SS.link_note = "The link referred to an uploaded CSV, which a link cannot carry: upload it again."
        s = S.clean(S.DEFAULTS)
    SS.requested = s
    SS.applied = None
    SS.result_key = None
    SS.selected = sel
    SS.features = feat or (0, 1)
    SS.run_now = False
    SS.run_error = None
    SS.upload_table = None
    SS.upload_error = None
    _set_widgets(s)


def load_preset(name: str | None = None) -> None:
    """Callback of the preset button: widgets, requested settings, and a run."""
    name = name or SS.get("w_preset") or next(iter(S.PRESETS))
    s = S.clean({**S.DEFAULTS, **S.PRESETS[name]})
    _set_widgets(s)
    SS.requested = s
    SS.run_now = True
    SS.selected = None
    SS.preset_loaded = name


def _on_submit() -> None:
    SS.requested = _widget_settings()
    SS.run_now = True


def _on_dataset_change() -> None:
    """A new data set: suggest its sensible quick grid ranges and its default n."""
    src = SS.get("w_source")
    try:
        if src == "simulation":
            name = SS.get("w_sim")
            SS.w_n = S.SIM_N.get(name, 200)
            data = S.make_simulation(name, n=min(SS.w_n, 300))
        elif src == "bundled" and S.load_bundled is not None and S.list_bundled():
            if SS.get("w_bundled") not in S.list_bundled():
                SS.w_bundled = S.list_bundled()[0]
            data = S.load_bundled(SS.w_bundled)
        else:
            return
        SS.w_lam, SS.w_sig = S.nice_ranges(data)
    except Exception:
        pass


# ------------------------------------------------------------------ sidebar
def sidebar() -> None:
    """The shared sidebar: presets, data, costs and priors, grid, criteria, Run sweep."""
    sb = st.sidebar
    with sb:
        st.markdown("### Presets")
        st.selectbox("Preset", list(S.PRESETS), key="w_preset", label_visibility="collapsed")
        st.button("Load preset and run", key="w_preset_btn", on_click=load_preset,
                  help="Load this preset's settings and run its sweep", width="stretch")
        if SS.get("link_note"):
            st.info(SS.link_note)

        st.markdown("### Data")
        st.radio("Source", ["simulation", "bundled", "upload"], key="w_source", horizontal=True,
                 format_func={"simulation": "Simulation", "bundled": "Real data",
                              "upload": "Upload CSV"}.get, on_change=_on_dataset_change)
        src = SS.w_source
        if src == "simulation":
            st.selectbox("Simulation", list(SIMULATIONS), key="w_sim", on_change=_on_dataset_change,
                         help="The papers' simulations; each knows its true P(A|x)")
        elif src == "bundled":
            names = S.list_bundled()
            if not names:
                st.warning("No bundled data sets in this build.")
            else:
                if SS.get("w_bundled") not in names:
                    SS.w_bundled = names[0]
                st.selectbox("Data set", names, key="w_bundled", on_change=_on_dataset_change)
        else:
            _upload_widgets()

    with sb.form("settings_form", border=False):
        sim = src == "simulation"
        c1, c2 = st.columns(2)
        c1.number_input("n (simulated sample size)", 20, 2000, step=10, key="w_n", disabled=not sim)
        c2.number_input("seed", 0, 10_000, step=1, key="w_seed",
                        help="Simulation seed; also seeds the CV folds, the test split and subsampling")
        c1, c2 = st.columns(2)
        c1.number_input("n max (train subsample)", 30, 5000, step=10, key="w_n_max", disabled=sim,
                        help="Real data: the QP gets slow beyond a few hundred rows; a stratified "
                             "subsample keeps it interactive")
        c2.slider("test fraction", 0.0, 0.5, step=0.05, key="w_test_frac", disabled=sim,
                  help="Held out (stratified) when P(A|x) is unknown: gives test hinge and test error")

        st.markdown("### Costs and priors")
        c1, c2 = st.columns(2)
        c1.number_input("C_A (B called A)", 0.01, 100.0, step=0.5, key="w_cost_a", format="%.2f")
        c2.number_input("C_B (A called B)", 0.01, 100.0, step=0.5, key="w_cost_b", format="%.2f")
        st.checkbox("target prior π_A differs from the sample", key="w_prior_custom")
        st.slider("π_A (target population)", 0.01, 0.99, step=0.01, key="w_prior_a")
        _weights_caption()

        st.markdown("### Grid (Gaussian kernel)")
        c1, c2 = st.columns(2)
        c1.text_input("log2(nλ) start:stop:step", key="w_lam", help="Paper: -25:0:1")
        c2.text_input("log2 σ start:stop:step", key="w_sig", help="Paper: -3:3:0.5")
        size, n_est = _grid_size_and_n()

        st.markdown("### Criteria")
        st.multiselect("single-fit criteria and targets", SINGLE_FIT_CRITERIA, key="w_criteria",
                       format_func=_crit_label,
                       help="Targets (GCKL, MISCLASS, BRMISCLASS) need the true P(A|x)")
        c1, c2, c3 = st.columns([1, 1, 1.3])
        c1.selectbox("XA's ρ", [1, 2], key="w_rho")
        c2.number_input("CV folds", 2, 20, key="w_folds")
        c3.selectbox("solver", list(S.SOLVERS), key="w_solver",
                     help="auto: the whole-λ path when available, else the cvxopt QP")
        spf = _seconds_per_fit(n_est)
        from svmcore.viz.views import estimate_seconds
        base = estimate_seconds(n_est, size, 1, [], seconds_per_fit=spf) if size else 0.0
        cv_t = estimate_seconds(n_est, size, 1, ["cv"], SS.get("w_folds", 5), spf) - base if size else 0
        st.checkbox(f"k-fold CV (≈ {_fmt_s(cv_t)} extra)", key="w_cv")
        ok, loo_t = S.affordable_loo(n_est, size or 1, spf)
        SS.loo_ok = ok
        st.checkbox(f"exact LOO (≈ {_fmt_s(loo_t)} extra)", key="w_loo", disabled=not ok,
                    help="One refit per support vector at every grid point" if ok else
                    "Not offered: too slow at this n and grid (budget 5 min). Reduce n or the grid.")
        st.caption(f"Grid: {size} points at n ≈ {n_est}; estimated time ≈ {_fmt_s(base)} "
                   "for the single-fit criteria.")
        st.form_submit_button("Run sweep", type="primary", on_click=_on_submit, width="stretch")



def _crit_label(c: str) -> str:
    from svmcore.viz.views import label
    return label(c)


def _fmt_s(t: float) -> str:
    return f"{t:.0f} s" if t < 90 else f"{t / 60:.1f} min"


def _grid_size_and_n() -> tuple[int, int]:
    try:
        size = GridSpec.parse(SS.w_lam, SS.w_sig).size
    except Exception as exc:
        st.error(str(exc))
        size = 0
    if SS.w_source == "simulation":
        n = int(SS.w_n)
    else:
        n = int(SS.w_n_max)
        if SS.get("applied") and SS.get("loaded_n"):
            n = min(n, int(SS.loaded_n))
    return size, n


def _seconds_per_fit(n: int):
    """Measured seconds per fit of the last sweep when it had a similar n, else None (model)."""
    res = current()
    if res is None:
        return None
    result, loaded = res
    if abs(loaded.train.n - n) > 0.2 * n:
        return None
    v = result.table["seconds"].to_numpy(float)
    return float(np.nanmean(v)) if np.isfinite(v).any() else None


def _weights_caption() -> None:
    """L(+1), L(−1) of the shown result beside their formula (Wahba et al. 2001, §1.7)."""
    res = current()
    if res is None:
        st.latex(r"\small L(+1)=\frac{C_B\,\pi_A}{\pi_A^s}")
        st.latex(r"\small L(-1)=\frac{C_A\,\pi_B}{\pi_B^s}")
        return
    w = res[0].weights.as_dict()
    st.latex(r"\small\begin{aligned}L(+1)&=\frac{C_B\,\pi_A}{\pi_A^s}\\&=\frac{%g\cdot %.3g}{%.3g}"
             r"=\mathbf{%.3g}\end{aligned}" % (w["cost_b"], w["prior_a"], w["sample_prior_a"], w["L_pos"]))
    st.latex(r"\small\begin{aligned}L(-1)&=\frac{C_A\,\pi_B}{\pi_B^s}\\&=\frac{%g\cdot %.3g}{%.3g}"
             r"=\mathbf{%.3g}\end{aligned}" % (w["cost_a"], 1 - w["prior_a"], 1 - w["sample_prior_a"],
                                               w["L_neg"]))
    st.caption(f"Sample proportions π_A^s = {w['sample_prior_a']:.3f}, π_B^s = "
               f"{1 - w['sample_prior_a']:.3f}; Bayes threshold on p_s: "
               f"{w['L_neg'] / (w['L_neg'] + w['L_pos']):.3g} (values of the last run; they update "
               "on **Run sweep**).")


def _upload_widgets() -> None:
    up = st.file_uploader("CSV file (header row, one label column)", type=["csv", "txt"],
                          key="w_upload")
    if up is None:
        st.caption("Upload a CSV to choose its label column, class A and features.")
        return
    handle_upload(up.getvalue(), up.name)
    if SS.get("upload_error"):
        st.error(f"Could not read {up.name}: {SS.upload_error}")
        return
    table = SS.upload_table
    cols = list(table.columns)
    if SS.get("w_label") not in cols:
        guess = [c for c in cols if c.lower() in ("label", "class", "y", "target", "diagnosis")]
        SS.w_label = guess[0] if guess else cols[-1]
    st.selectbox("label column", cols, key="w_label")
    values = sorted(set(table[SS.w_label].astype(str)) - {""})[:200]
    if SS.get("w_positive") not in values and values:
        try:
            SS.w_positive = S.default_positive(values) if len(values) == 2 else values[0]
        except Exception:
            SS.w_positive = values[0]
    st.selectbox("class A value (+1)", values, key="w_positive",
                 help="Rows with this label are class A; every other value is class B")
    others = [c for c in cols if c != SS.w_label]
    if SS.get("w_pcol") not in ["(none)"] + others:
        SS.w_pcol = "(none)"
    st.selectbox("true P(A|x) column (optional)", ["(none)"] + others, key="w_pcol")
    feats = [c for c in others if c != SS.w_pcol]
    if not SS.get("w_features") or any(f not in feats for f in SS.w_features):
        SS.w_features = feats
    st.multiselect("features", feats, key="w_features")
    if "w_standardize" not in SS:
        SS.w_standardize = True
    st.checkbox("standardize features", key="w_standardize")


def handle_upload(data: bytes, name: str) -> None:
    """Parse uploaded bytes once per distinct content; a failure is kept as ``upload_error``.

    Testable without a browser: tests may call it or set ``SS.upload_table`` directly.
    """
    fp = hashlib.sha1(data).hexdigest()
    if SS.get("upload_fp") == fp:
        return
    SS.upload_fp = fp
    SS.upload_name = (name or "uploaded").rsplit(".", 1)[0]
    try:
        SS.upload_table = S.parse_upload(data)
        SS.upload_error = None
    except Exception as exc:  # CSVLoadError or anything the parser did not foresee
        SS.upload_table = None
        SS.upload_error = str(exc)


# ------------------------------------------------------------------ running
def current():
    """(SweepResult, Loaded) of the applied settings, or None."""
    key = SS.get("result_key")
    return None if key is None else _store_get(key)


def run_if_requested(force_default: bool = False) -> None:
    """Run the requested sweep when Run/Load was pressed (or, with ``force_default``, when no
    result exists yet). A failure shows ``st.error`` and keeps the earlier result."""
    if not (SS.get("run_now") or (force_default and current() is None)):
        return
    SS.run_now = False
    s = SS.requested
    SS.run_error = None
    try:
        if s["source"] == "upload" and SS.get("upload_error"):
            raise S.CSVLoadError(SS.upload_error)
        loaded = S.load_data(s, SS.get("upload_table"), SS.get("upload_name", "uploaded"))
        S.grid_for(s)
    except Exception as exc:
        SS.run_error = f"Data or settings problem: {exc}"
        st.error(SS.run_error + (" — the previous results are kept." if current() else ""))
        return
    fp = SS.get("upload_fp", "") if s["source"] == "upload" else ""
    try:
        key = S.spec_for(s, loaded.train.has_truth, fp).key(S.code_fingerprint())
    except Exception as exc:
        SS.run_error = f"Settings problem: {exc}"
        st.error(SS.run_error + (" — the previous results are kept." if current() else ""))
        return
    if _store_get(key) is None and s["source"] != "upload":
        cached = S.disk_get(key)            # a finished sweep from an earlier server run
        if cached is not None:
            _store_put(key, (cached, loaded))
    if _store_get(key) is None:
        bar = st.progress(0.0, text=f"Running the sweep on {loaded.note} …")
        waiting = st.empty()
        if not SS.get("plotly_warm"):
            # something to read while the sweep runs; it also makes the browser fetch plotly.js
            # in parallel with the computation instead of after it (time to first view)
            from svmcore.viz.plots import loss_figure
            with waiting.container():
                st.caption("While the sweep runs: the losses the criteria are built on (Wahba et al. 2001, Fig 1.1).")
                st.plotly_chart(loss_figure(height=300), key="warmup_loss", theme=None,
                                config={"displayModeBar": False})
            SS.plotly_warm = True
        t0 = time.perf_counter()

        def progress(done, total):
            bar.progress(done / max(total, 1),
                         text=f"Sweep: σ column {done}/{total} ({time.perf_counter() - t0:.1f} s)")

        try:
            result = S.run(s, loaded, progress=progress)
        except Exception as exc:
            bar.empty()
            waiting.empty()
            SS.run_error = f"The sweep failed: {type(exc).__name__}: {exc}"
            st.error(SS.run_error + (" — the previous results are kept." if current() else ""))
            return
        bar.empty()
        waiting.empty()
        _store_put(key, (result, loaded))
        if s["source"] != "upload":
            S.disk_put(key, result)
    if SS.get("result_key") != key:
        SS.selected = SS.selected if SS.get("applied") is None else None
    SS.applied = s
    SS.result_key = key
    SS.loaded_n = _store_get(key)[1].train.n
    sync_query()


def require_result():
    """For pages that show results: run the default sweep on the first visit; (result, loaded)."""
    run_if_requested(force_default=True)
    res = current()
    if res is None:
        st.info("Choose settings in the sidebar and press **Run sweep**.")
    return res


def sync_query() -> None:
    """Mirror the applied settings, the clicked point and the slice features in the URL."""
    if SS.get("applied") is None:
        return
    q = S.to_query(SS.applied, SS.get("selected"), SS.get("features"))
    try:
        if dict(st.query_params.to_dict()) != q:
            st.query_params.from_dict(q)
    except Exception:
        pass


def on_pick(chart_key: str) -> None:
    """Callback of a contour chart's selection: the clicked grid point becomes ``SS.selected``."""
    ev = SS.get(chart_key)
    try:
        pts = ev["selection"]["points"]
    except (KeyError, TypeError):
        return
    if not pts:
        return
    p = pts[-1]
    cd = p.get("customdata")
    if isinstance(cd, (list, tuple)) and len(cd) >= 2:
        SS.selected = (float(cd[0]), float(cd[1]))
    elif "x" in p and "y" in p:
        SS.selected = (float(p["x"]), float(p["y"]))
    SS.selected = snap_to_grid(SS.selected)
    sync_query()


def snap_to_grid(pt):
    res = current()
    if res is None or pt is None:
        return pt
    t = res[0].table
    a = np.unique(t["log2_nlambda"].to_numpy(float))
    b = np.unique(t["log2_sigma"].to_numpy(float))
    return (float(a[np.argmin(np.abs(a - pt[0]))]), float(b[np.argmin(np.abs(b - pt[1]))]))


def pick_callback(chart_key: str):
    return partial(on_pick, chart_key)


@st.cache_resource(show_spinner=False, max_entries=8)
def fits_cache(result_key: str) -> dict:
    """Fits at grid points of one result, shared across sessions: {(log2 nλ, log2 σ): SVMFit}."""
    return {}


# ------------------------------------------------------------------ downloads
def downloads(result, figures: dict, prefix: str = "svm") -> None:
    """Results CSV, figures as standalone HTML, settings JSON (generated on click)."""
    from svmcore.viz.plots import figure_html

    cols = st.columns(2 + len(figures))
    cols[0].download_button("Results CSV", data=lambda: result.table.to_csv(index=False),
                            file_name=f"{prefix}_sweep.csv", mime="text/csv", on_click="ignore",
                            key=f"dl_csv_{prefix}")
    settings = {"app_settings": SS.get("applied"), "run_spec": result.spec.to_dict(),
                "selected": SS.get("selected"), "link_query": S.to_query(SS.applied, SS.get("selected"))}
    cols[1].download_button("Settings JSON", data=lambda: json.dumps(S.jsonable(settings), indent=2),
                            file_name=f"{prefix}_settings.json", mime="application/json",
                            on_click="ignore", key=f"dl_json_{prefix}")
    for c, (name, fig) in zip(cols[2:], figures.items()):
        make = fig if callable(fig) else (lambda f=fig: f)
        c.download_button(f"{name} (HTML)", data=lambda make=make: figure_html(make(), True),
                          file_name=f"{prefix}_{name.lower().replace(' ', '_')}.html",
                          mime="text/html", on_click="ignore", key=f"dl_{prefix}_{name}")


def settings_badge() -> None:
    """One line saying what the shown result is."""
    res = current()
    if res is None:
        return
    result, loaded = res
    w = result.weights
    kind = "standard" if w.is_standard else "nonstandard"
    g = result.spec.grid
    st.caption(f"**{loaded.note}** · {kind} case, L(+1) = {w.L_pos:.3g}, L(−1) = {w.L_neg:.3g} · "
               f"grid log2(nλ) {g.log2_nlambda.text} × log2 σ {g.log2_sigma.text} · "
               f"solver {result.spec.solver} · {result.seconds:.1f} s")
    for note in result.notes:
        st.warning(note, icon=":material/warning:")
