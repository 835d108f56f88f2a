"""The Streamlit side of the dashboard: shared sidebar, session state, running the sweep with a
progress bar, result store, query-parameter mirroring and download buttons.

Pages import this module and call ``require_result()``; ``app.py`` calls ``init_state()``,
``sidebar()`` and ``run_if_requested()`` before running the selected page.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import time
from collections import OrderedDict
from functools import partial

import numpy as np
import streamlit as st

from svmapp import settings as S
from svmapp import estimate as E
from svmapp import widgets as W
from svmcore.datasets.bundled import load_bundled
from svmcore.datasets.csvload import default_positive
from svmcore.datasets.simulations import SIMULATIONS

SS = st.session_state
#: a sweep estimated at no more than this runs by itself when a setting changes
AUTO_RUN_SECONDS = 2.0
#: exact LOO is offered only when its estimated extra time is within this budget
LOO_BUDGET_SECONDS = 300.0
#: every widget of the shared sidebar (their values survive pages that do not draw them)
APP_KEYS = ("w_source", "w_sim", "w_bundled", "w_n", "w_seed", "w_criteria", "w_cv", "w_loo",
            "w_test_fraction", "w_n_max", "w_preset", "w_label", "w_positive", "w_pcol", "w_features",
            "w_standardize", "w_dropna", "w_present", "w_image_format", *S.VIEW_KEYS)
#: the run parameters whose widgets are generated from their Param (``svmapp.widgets``)
GRID_NAMES = ("kernel", "log2_nlambda", "log2_sigma", "extend_grid")


def generated_params() -> list:
    """The Params drawn by ``svmapp.widgets``: kernel and grid, then the family's own table."""
    return [S.run_param(n) for n in GRID_NAMES] + list(S.FAMILY.params)


def widget_keys() -> list[str]:
    keys = list(APP_KEYS)
    for p in generated_params():
        keys += [W.key(p), W.on_key(p)]
    return keys
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")


def plain(text) -> str:
    """``text`` with Markdown's special characters escaped, so that Streamlit shows it as typed:
    a file name or a cell such as ``[click](http://…)`` never becomes a live link."""
    return _MD_SPECIAL.sub(r"\\\1", str(text))


def keep_widget_state() -> None:
    """Streamlit forgets a widget's value on a run that does not draw it; re-assigning the key at
    the top of every run keeps the sidebar's settings across pages that have no sidebar."""
    for k in widget_keys():
        if k in SS:
            SS[k] = SS[k]


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
    SS.w_n = int(s["n"] if s.get("n") is not None else S.SIM_N.get(s["dataset"], 200))
    SS.w_seed = int(s["seed"])
    for p in generated_params():
        W.put(p, SS, s.get(p.name, p.default))
    single = S.single_fit_criteria()
    SS.w_criteria = [c for c in s["criteria"] if c in single]
    SS.w_cv = "cv" in s["criteria"]
    SS.w_loo = "loo" in s["criteria"]
    SS.w_test_fraction = float(s["test_fraction"])
    SS.w_n_max = int(s["n_max"] if s.get("n_max") is not None else S.DEFAULTS["n_max"])
    SS.w_dropna = bool(s.get("dropna", False))


def _widget_settings() -> dict:
    """Settings as the widgets currently hold them (flat values by Param name; never clamped:
    the spec names a value it refuses)."""
    src = SS.get("w_source", "simulation")
    dataset = {"simulation": SS.get("w_sim", "wahba2d"), "bundled": SS.get("w_bundled"),
               "upload": SS.get("upload_name", "uploaded")}[src]
    crit = list(SS.get("w_criteria", [])) + (["cv"] if SS.get("w_cv") else []) + \
        (["loo"] if SS.get("w_loo") and SS.get("loo_ok", True) else [])
    s = {**S.defaults(), "source": src, "dataset": dataset, "n": SS.get("w_n", 200),
         "seed": SS.get("w_seed", 0), "criteria": crit,
         "test_fraction": SS.get("w_test_fraction", S.DEFAULTS["test_fraction"]),
         "n_max": SS.get("w_n_max", S.DEFAULTS["n_max"])}
    s.update({p.name: W.value(p, SS) for p in generated_params()})
    if src == "upload":
        s.update(label=SS.get("w_label"), positive=SS.get("w_positive"),
                 p_column=None if SS.get("w_pcol") in (None, "(none)") else SS.get("w_pcol"),
                 features=list(SS.get("w_features") or []) or None,
                 standardize=bool(SS.get("w_standardize", True)), dropna=bool(SS.get("w_dropna", False)))
    return s


def init_state(read_link: bool = True) -> None:
    """First run of a session: settings from the query string (a pasted link) or the defaults.
    Each problem of the link is one note naming its key; the rest of the link is used. A session
    that opens on a page with a link of its own (``read_link`` False) starts from the defaults.
    Every page's link may carry presentation mode and a lesson step (its banner); a refused one is
    a note."""
    if "requested" in SS:
        return
    query = st.query_params.to_dict()
    own = {k: v for k, v in query.items() if k not in S.EVERY_PAGE_KEYS}
    qs, view, notes = S.read_link(own if read_link else {})
    common, SS.every_page_notes = S.read_every_page_link(query)   # presentation mode, lesson step
    view.update(common)
    s = qs or S.settings_from()
    SS.link_note = " ".join(notes) or None
    for k in S.VIEW_KEYS:               # the rest of the view: panels, curves
        if k in view:
            SS[k] = list(view[k]) if isinstance(view[k], tuple) else view[k]
    SS.requested = s
    SS.applied = None
    SS.result_key = None
    SS.selected = view.get("selected")
    SS.selected_marked = SS.selected is not None     # a linked point is marked on the surfaces
    SS.features = view.get("slice_features") or (0, 1)
    SS.run_now = False
    SS.run_error = None
    SS.upload_table = None
    SS.upload_error = None
    _set_widgets(s)
    SS.w_preset = preset_of(s)


def preset_of(s: dict) -> str:
    """The preset whose settings are ``s``, else CUSTOM (the preset box shows what is shown)."""
    for name in S.PRESETS:
        try:
            if S.preset_settings(name) == s:
                return name
        except S.SVMCoreError:
            continue
    return CUSTOM


def apply_values(values: dict, what: str) -> bool:
    """Flat run and view values (a preset, a lesson step, a settings file) become the whole view:
    widgets, requested settings (run next), panels, curves, markers, columns, the clicked point,
    presentation mode and axes; a value its Param or the spec refuses gives one note naming it
    and changes nothing. Call from a callback (before the widgets are drawn)."""
    try:
        s, view = S.values_settings(values, what)
    except S.SVMCoreError as exc:
        SS.link_note = str(exc)
        return False
    view = S.view_state(view)
    _set_widgets(s)
    SS.requested = s
    SS.run_now = True
    for k in S.VIEW_KEYS:
        if k in values or k not in PERSISTENT_VIEW:
            SS[k] = view[k]
    SS.selected = view["selected"]
    SS.selected_marked = SS.selected is not None     # marked on the surfaces until a click
    SS.keep_selected = True             # the new result keeps the point the view names
    SS.features = view["slice_features"] or (0, 1)
    return True


#: display preferences a preset or a lesson step keeps unless it names them
PERSISTENT_VIEW = ("w_present", "tun_axes")


def load_preset(name: str | None = None) -> None:
    """Callback of the preset button: the preset owns the whole view (``apply_values``)."""
    name = name or SS.get("w_preset")
    if name in S.PRESETS and apply_values(S.PRESETS[name], f"preset {name!r}"):
        SS.preset_loaded = name


def _on_submit() -> None:
    SS.requested = _widget_settings()
    SS.run_now = True
    SS.cancelled = SS.failed = None


def _on_dataset_change() -> None:
    """A new data set: suggest its sensible quick grid ranges and its default n."""
    src = SS.get("w_source")
    try:
        if src == "simulation":
            name = SS.get("w_sim")
            SS.w_n = S.SIM_N.get(name, 200)
            data = S.make_simulation(name, n=min(SS.w_n, 300))
        elif src == "bundled" and S.list_bundled():
            if SS.get("w_bundled") not in S.list_bundled():
                SS.w_bundled = S.list_bundled()[0]
            data = load_bundled(SS.w_bundled)
        else:
            return
        SS.w_log2_nlambda, SS.w_log2_sigma = S.nice_ranges(data)
    except Exception:
        pass


# ------------------------------------------------------------------ sidebar
def sidebar() -> None:
    """The shared sidebar: Run, presets, data, costs and priors, grid, criteria.

    No form: every change reruns the script, so the view can say at once that it is stale, the
    estimate and the L(±1) values follow the widgets, and a cheap sweep runs by itself.
    """
    with st.sidebar:
        up = SS.get("w_upload") if SS.get("w_source") == "upload" else None
        if up is not None:              # parse first, so that Run and the estimate know the file
            handle_upload(up.getvalue(), up.name)
            if SS.get("upload_table") is not None:
                _upload_defaults(SS.upload_table)
        _run_controls()
        st.markdown("### Presets")
        st.selectbox("Preset", [CUSTOM] + list(S.PRESETS), key="w_preset", label_visibility="collapsed",
                     help="Shows the preset that matches the view, or (custom)")
        st.button("Load preset and run", key="w_preset_btn", on_click=load_preset,
                  disabled=SS.get("w_preset", CUSTOM) == CUSTOM,
                  help="Load this preset's settings and run its sweep", width="stretch")
        if SS.get("link_note"):
            st.info(plain(SS.link_note))
        _data_widgets()
        _model_widgets()
        st.markdown("### Kernel and grid")
        W.render_table([S.run_param(n) for n in GRID_NAMES], st)
        _criteria_widgets()
        st.toggle("presentation mode", key="w_present",
                  help="A projector layout: surfaces and the decision curve on one screen, large fonts; "
                       "the sidebar collapses but stays available (in the link as present=1)")


CUSTOM = "(custom)"


def _data_widgets() -> None:
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
    sim = src == "simulation"
    c1, c2 = st.columns(2)
    _data_number(c1, "n", disabled=not sim, step=10)
    _data_number(c2, "seed")
    if not sim:
        c1, c2 = st.columns(2)
        _data_number(c1, "n_max", step=10)
        p = S.run_param("test_fraction")
        kw = W.number_bounds(p)
        top = kw["max_value"] if "max_value" in kw else p.constraint.high - kw["step"]
        c2.slider(p.label, kw.get("min_value", 0.0), top, step=kw["step"], key="w_test_fraction",
                  help=p.describe())


def _data_number(ui, name: str, disabled: bool = False, step=None) -> None:
    """A data number widget whose label, help and bounds are its DATA_PARAMS entry's."""
    p = S.run_param(name)
    kw = W.number_bounds(p)
    if step is not None:
        kw["step"] = step
    label = f"{p.label} ({p.unit})" if p.unit else p.label
    ui.number_input(label, key=f"w_{name}", disabled=disabled, help=p.describe(), **kw)


def _model_widgets() -> None:
    """The family's parameter table, drawn by iterating it (a new Param appears here with no
    other edit), then L(±1) of the costs and priors."""
    st.markdown(f"### {S.FAMILY.title}")
    W.render_table(S.FAMILY.params, st)
    _weights_caption()


def _criteria_widgets() -> None:
    st.markdown("### Criteria")
    single = S.single_fit_criteria()
    targets = ", ".join(S.criterion(c).label for c in single if S.criterion(c).is_target)
    st.multiselect("single-fit criteria and targets", single, key="w_criteria",
                   format_func=_crit_label, help=f"Targets ({targets}) need the true P(A|x). " +
                   " ".join(S.criterion(c).help + "." for c in single))
    est = _estimates(_widget_settings())
    cv, loo = S.criterion("cv"), S.criterion("loo")
    st.checkbox(f"{cv.label} ({_fmt_s(est['cv'])} extra)", key="w_cv", help=cv.help)
    ok = est["loo"] is None or est["loo"] <= LOO_BUDGET_SECONDS
    SS.loo_ok = ok
    st.checkbox(f"exact {loo.label} ({_fmt_s(est['loo'])} extra)", key="w_loo", disabled=not ok,
                help=loo.help if ok else
                "Not offered: estimated above 5 min at this n and grid. Reduce n or the grid.")


def _run_controls() -> None:
    """Run button, the grid size and the estimate, at the top of the sidebar (always in view)."""
    pending = _widget_settings()
    est = _estimates(pending)
    problem = est["problem"]
    stale = is_stale(pending)
    st.button("Run sweep", key="w_run", type="primary" if stale else "secondary", on_click=_on_submit,
              disabled=bool(problem), width="stretch",
              help="Runs the sweep for the settings below; cheap sweeps run by themselves")
    if problem and pending["source"] == "upload" and SS.get("upload_table") is None:
        st.caption("Upload a readable CSV file below to run a sweep on it.")
    elif problem:
        st.error(plain(problem))
    else:
        grows = (f", {_fmt_s(est['most'])} if the grid grows once" if est["most"] is not None
                 and est["total"] is not None and est["most"] > est["total"] else "")
        what = "threads" if est["threads"] else "worker processes"
        on = f" on {est['workers']} {what}" if est["workers"] > 1 else ""
        if est["start"]:
            on += f" ({_fmt_s(est['start'])} of it starting them)"
        if est["compile"] and est["first_use"] == "compile":
            on += (f", {_fmt_s(est['compile'])} of it compiling the path's loop (once after "
                   "installing)")
        elif est["compile"]:
            on += f", {_fmt_s(est['compile'])} of it loading the path's compiled loop (once a process)"
        st.caption(f"Grid: {est['points']} points at n ≈ {est['n']}; estimated {_fmt_s(est['total'])}"
                   f"{on}{grows} ({est['source']}).")


def _crit_label(c: str) -> str:
    from svmcore.views import label
    return label(c)


def _fmt_s(t) -> str:
    if t is None:
        return "time unknown"
    return f"≈ {t:.1f} s" if t < 10 else (f"≈ {t:.0f} s" if t < 90 else f"≈ {t / 60:.1f} min")


# ------------------------------------------------------------------ staleness and auto-run
def _estimates(s: dict) -> dict:
    return E.estimates(s, SS.get("upload_table"), SS.get("upload_error"))


def is_stale(pending: dict | None = None) -> bool:
    """Whether the widgets hold settings other than the shown result's."""
    applied = SS.get("applied")
    return applied is not None and (pending or _widget_settings()) != applied


def changed_settings(pending: dict) -> list[str]:
    """'name: shown → pending' for each setting that differs (for the stale banner)."""
    applied = SS.get("applied") or {}
    out = []
    for k, v in pending.items():
        if applied.get(k) != v:
            a, b = applied.get(k), v
            a = ",".join(a) if isinstance(a, list) else a
            b = ",".join(b) if isinstance(b, list) else b
            out.append(f"{k}: {a} → {b}")
    return out


def auto_run() -> None:
    """Run the widgets' settings by themselves when they differ from the shown result and the
    sweep is estimated at ≤ AUTO_RUN_SECONDS (not after a cancel or a failure of the same settings)."""
    if SS.get("run_now") or SS.get("applied") is None:
        return
    pending = _widget_settings()
    if not is_stale(pending) or pending in (SS.get("cancelled"), SS.get("failed")):
        return
    est = _estimates(pending)
    if est["problem"] or est["total"] is None or est["total"] > AUTO_RUN_SECONDS:
        return
    SS.requested = pending
    SS.run_now = True


def stale_banner() -> None:
    """On result pages: say at once that the settings differ from the shown result, with Run."""
    pending = _widget_settings()
    if not is_stale(pending):
        return
    est = _estimates(pending)
    box = st.container(border=True, key="stale_banner")
    c1, c2 = box.columns([5, 1], vertical_alignment="center")
    what = "; ".join(changed_settings(pending)[:4])
    text = (f"Stale: the settings changed ({what}). The panels below still show the earlier result. "
            f"The new sweep is estimated at {_fmt_s(est['total'])}.") if not est["problem"] else \
        f"Stale: the settings changed, but they cannot run: {est['problem']}"
    c1.warning(plain(text), icon=":material/history:")
    c2.button("Run sweep", key="w_run_main", type="primary", on_click=_on_submit,
              disabled=bool(est["problem"]), width="stretch")


def _on_cancel() -> None:
    SS.cancelled = SS.get("requested")
    SS.cancel_note = "Sweep cancelled; the earlier result is kept."
    timing_log("cancel pressed")


def timing_log(event: str) -> None:
    """One line on the server's console with SVMAPP_TIMING set (the browser tests keep it): the
    run's and the live view's seconds, cancels, stopped and finished sweeps."""
    if os.environ.get("SVMAPP_TIMING"):
        print(f"[svmapp] {event}", flush=True)


@st.cache_data(show_spinner=False, max_entries=64)
def _train_labels(settings_json: str) -> np.ndarray:
    """The training labels of (simulated or bundled) settings."""
    return S.load_data(json.loads(settings_json)).train.y


def weights_html(w: dict | None) -> str:
    """L(+1) = C_B π_A/π_A^s and L(−1) = C_A π_B/π_B^s (Wahba et al. 2001, §1.7) as small HTML, with
    the numbers of ``ClassWeights.as_dict()`` when given. Plain HTML, not LaTeX: KaTeX is half a
    megabyte of scripts that the default view would otherwise load for these two lines."""
    sub = "<sub>{}</sub>".format
    rows = [("+1", "B", "A"), ("−1", "A", "B")]
    lines = []
    for label, cost, prior in rows:
        text = (f"L({label}) = C{sub(cost)}&thinsp;π{sub(prior)} / π{sub(prior)}<sup>s</sup>")
        if w is not None:
            p = w["prior_a"] if prior == "A" else 1.0 - w["prior_a"]
            ps = w["sample_prior_a"] if prior == "A" else 1.0 - w["sample_prior_a"]
            c = w["cost_b"] if cost == "B" else w["cost_a"]
            L = w["L_pos"] if label == "+1" else w["L_neg"]
            text += f" = {c:g}·{p:.3g} / {ps:.3g} = <b>{L:.3g}</b>"
        lines.append(text)
    return '<div style="line-height: 1.7">' + "<br>".join(lines) + "</div>"


def _weights_caption() -> None:
    """L(+1), L(−1) of the settings in the widgets beside their formula (Wahba et al. 2001, §1.7)."""
    s = _widget_settings()
    try:
        if s["source"] == "upload":
            y = S.load_data(s, SS.get("upload_table"), SS.get("upload_name", "uploaded")).train.y
        else:
            y = _train_labels(json.dumps(S.jsonable(s), sort_keys=True))
        w = S.weights_for(s, y).as_dict()
        ps = w["sample_prior_a"]
    except Exception:
        st.html(weights_html(None))
        return
    st.html(weights_html(w))
    st.caption(f"Sample proportions π_A^s = {ps:.3f}, π_B^s = {1 - ps:.3f}; Bayes threshold on p_s: "
               f"{w['L_neg'] / (w['L_neg'] + w['L_pos']):.3g} (for the settings above).")


def _upload_widgets() -> None:
    up = st.file_uploader("CSV file (header row, one label column)", type=["csv", "txt"],
                          key="w_upload")
    if up is None:
        st.caption("Upload a CSV to choose its label column, class A and features.")
        return
    handle_upload(up.getvalue(), up.name)
    if SS.get("upload_error"):
        st.error(plain(f"Could not read {SS.upload_file}: {SS.upload_error}"))
        return
    table = SS.upload_table
    cols = list(table.columns)
    with st.expander(f"Preview: {len(table)} rows × {len(cols)} columns", expanded=False):
        preview = table.head(8).copy()
        preview.attrs = {}
        st.dataframe(preview, hide_index=True)
    _upload_defaults(table)
    st.selectbox("label column", cols, key="w_label")
    values = S.label_values(table, SS.w_label)
    st.selectbox("class A value (+1)", values, key="w_positive", index=None,
                 placeholder="choose class A",
                 help="Rows with this label are class A; every other value is class B")
    if len(values) > 2 and SS.get("w_positive") is None:
        st.warning(f"The label column has {len(values)} classes: choose which one is class A "
                   "(every other value becomes class B).")
    others = [c for c in cols if c != SS.w_label]
    st.selectbox("true P(A|x) column (optional)", ["(none)"] + others, key="w_pcol")
    feats = [c for c in others if c != SS.w_pcol]
    text_cols = [c for c in SS.upload_text_cols if c in feats]
    st.multiselect("features", feats, key="w_features",
                   help="Columns with text cells are left out by default")
    if text_cols:
        st.caption(plain("Text columns left out of the features: " + ", ".join(map(str, text_cols[:10]))))
    if "w_standardize" not in SS:
        SS.w_standardize = True
    st.checkbox("standardize features", key="w_standardize")
    n_missing = S.count_missing(table, S.used_columns(table, _widget_settings()))
    st.checkbox(f"drop rows with missing values ({n_missing} rows)", key="w_dropna",
                disabled=n_missing == 0 and not SS.get("w_dropna"))


def _upload_defaults(table) -> None:
    """The label column (guessed), class A (when there are two classes), no P column, and the
    numeric columns as features; kept when they are still valid for this table."""
    cols = list(table.columns)
    if SS.get("w_label") not in cols:
        guess = [c for c in cols if str(c).lower() in ("label", "class", "y", "target", "diagnosis")]
        SS.w_label = guess[0] if guess else cols[-1]
    values = S.label_values(table, SS.w_label)
    if SS.get("w_positive") not in values:
        SS.w_positive = default_positive(values) if len(values) == 2 else None
    others = [c for c in cols if c != SS.w_label]
    if SS.get("w_pcol") not in ["(none)"] + others:
        SS.w_pcol = "(none)"
    feats = [c for c in others if c != SS.w_pcol]
    if SS.get("w_features") is None or any(f not in feats for f in SS.w_features):
        SS.w_features = [c for c in feats if c not in SS.upload_text_cols]


def _safe_name(name: str) -> str:
    """A file name reduced to letters, digits and ._- (it appears in titles, exports and links)."""
    stem = (name or "uploaded").rsplit(".", 1)[0]
    return re.sub(r"[^A-Za-z0-9._-]+", "_", stem).strip("._")[:60] or "uploaded"


def handle_upload(data: bytes, name: str) -> None:
    """Parse uploaded bytes once per distinct content; a failure is kept as ``upload_error``.

    Testable without a browser: tests may call it.
    """
    fp = hashlib.sha1(data).hexdigest()
    if SS.get("upload_fp") == fp:
        return
    SS.upload_fp = fp
    SS.upload_name = _safe_name(name)
    SS.upload_file = re.sub(r"[^A-Za-z0-9._ -]+", "_", name or "uploaded")[:80]
    SS.w_features = None
    SS.features = (0, 1)                 # a new file: its slice features start over (issue 22)
    for k in ("tun_f0", "tun_f1"):
        SS.pop(k, None)
    try:
        SS.upload_table = S.parse_upload(data)
        SS.upload_text_cols = S.text_columns(SS.upload_table)    # once per file: it reads every cell
        SS.upload_error = None
    except Exception as exc:  # CSVLoadError or anything the parser did not foresee
        SS.upload_table = None
        SS.upload_text_cols = []
        SS.upload_error = str(exc)


# ------------------------------------------------------------------ running
def current():
    """(SweepResult, Loaded) of the applied settings, or None."""
    key = SS.get("result_key")
    return None if key is None else _store_get(key)


def _fail(message: str, s: dict) -> None:
    SS.run_error = message
    SS.failed = s
    st.error(plain(message + (" — the previous results are kept." if current() else "")))


def _sweep(s: dict, loaded, priced: dict):
    """Run the sweep in a worker thread while this script thread redraws the progress bar five times
    a second: fits done (as the σ columns report), elapsed time and time left, filled in between
    reports from the estimate. Cancel (or any rerun) stops the script at the next redraw; the worker
    then stops at its next σ column and the earlier result stays. The sweep runs on the processes its
    estimate counted (this server's rates decide, not the build machine's, which ``run_grid`` would
    read: near the 1 s bar the two could choose differently); ``priced`` is its estimate
    (``_estimates``)."""
    import queue
    import threading
    from concurrent.futures import ThreadPoolExecutor

    est = priced["total"]
    jobs = priced["workers"] if est is not None else None     # None: run_grid decides
    pts = S.grid_for(s).size
    holder = st.empty()
    box = holder.container(border=True)
    c1, c2 = box.columns([5, 1], vertical_alignment="center")
    bar = c1.progress(0.0, text=plain(f"Running the sweep on {loaded.note} ({pts} fits, estimated "
                                      f"{_fmt_s(est)}) …"))
    c2.button("Cancel", key="w_cancel", on_click=_on_cancel, width="stretch",
              help="Stop this sweep; the result shown before stays")
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
    reports: queue.Queue = queue.Queue()
    stop = threading.Event()
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="svmapp-sweep")
    t0 = time.perf_counter()
    job = pool.submit(S.run, s, loaded, lambda done, total: reports.put((done, total)), jobs, stop.is_set)
    done, total = 0, 1
    try:
        while True:
            while not reports.empty():
                done, total = reports.get_nowait()
            el = time.perf_counter() - t0
            frac = progress_fraction(done, total, el, est)
            left = max(el / frac - el, 0.0) if frac > 0 else est
            bar.progress(frac, text=f"Sweep: ≈ {int(frac * pts)} of {pts} fits ({done}/{total} σ columns "
                                    f"done) · {el:.1f} s · {_fmt_s(left)} left")
            if job.done():
                return job.result()
            time.sleep(0.2)
    finally:
        if not job.done():
            timing_log(f"sweep stopped by a rerun after {time.perf_counter() - t0:.1f} s")
        stop.set()                    # a cancel or a rerun: the worker stops at its next column
        pool.shutdown(wait=False)
        holder.empty()
        waiting.empty()


def progress_fraction(done: int, total: int, elapsed: float, estimate: float | None) -> float:
    """The bar's fill: the σ columns reported, moved on between reports by the elapsed share of the
    estimate, never past the next column's share (so an estimate that is too short cannot run ahead)."""
    reported = done / max(total, 1)
    if not estimate or done >= total:
        return min(reported, 1.0)
    ceiling = (done + 0.95) / total
    return float(min(max(reported, elapsed / estimate), ceiling))


def run_if_requested(force_default: bool = False) -> None:
    """Run the requested sweep when Run/Load was pressed, when a cheap change ran by itself, or
    (with ``force_default``) when no result exists yet. A failure shows one message and keeps the
    earlier result."""
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
        key = S.spec_for(s, loaded.train.has_truth, S.upload_fingerprint(s, SS.get("upload_fp", ""))) \
            .key(S.code_fingerprint())
    except Exception as exc:
        return _fail(f"Data or settings problem: {exc}", s)
    if _store_get(key) is None and s["source"] != "upload":
        cached = S.disk_get(key)            # a finished sweep from an earlier server run
        if cached is not None:
            _store_put(key, (cached, loaded))
    if _store_get(key) is None:
        priced = _estimates(s)
        try:
            result = _sweep(s, loaded, priced)
        except Exception as exc:
            return _fail(f"The sweep failed: {type(exc).__name__}: {exc}", s)
        timing_log(f"sweep finished in {result.seconds:.1f} s")
        # a sweep that compiled or loaded the path's loop: its time covers that too
        E.record_rate(result, loaded.train.n, paid_first_use=priced["compile"] > 0)
        _store_put(key, (result, loaded))
        if s["source"] != "upload":
            S.disk_put(key, result)
    keep = SS.pop("keep_selected", False) or SS.get("applied") is None
    if SS.get("result_key") != key and not keep:
        SS.selected = None
    SS.applied = s
    SS.result_key = key
    SS.selected = snap_to_grid(SS.get("selected"))      # a linked point lands on the grid
    SS.cancel_note = None
    try:
        SS.w_preset = preset_of(s)
    except st.errors.StreamlitAPIException:     # the preset box is already drawn in this run
        pass
    sync_query()


def require_result():
    """For pages that show results: run the default sweep on the first visit, then say whether the
    view is stale or a sweep was cancelled; (result, loaded) or None."""
    run_if_requested(force_default=True)
    res = current()
    if res is None:
        st.info("Choose settings in the sidebar and press **Run sweep**.")
        return None
    if SS.get("cancel_note"):
        st.info(SS.cancel_note, icon=":material/cancel:")
    stale_banner()
    return res


PRESENTATION_CSS = """<style>
html, body, [data-testid="stAppViewContainer"] { font-size: 18px; }
.block-container, [data-testid="stMainBlockContainer"] { max-width: 100%; padding: 2.6rem 1.5rem 1rem; }
[data-testid="stMainBlockContainer"] [data-testid="stVerticalBlock"] { gap: 0.45rem; }
</style>"""


def plotly_preload() -> None:
    """A tiny, invisible chart as the page's first element: its arrival makes the browser load
    and compile plotly.js (about a second here) while the sidebar and the panels are still streaming,
    instead of after them (bench/first_view.py)."""
    import plotly.graph_objects as go

    fig = go.Figure(layout=dict(height=10, width=10, margin=dict(l=0, r=0, t=0, b=0),
                                xaxis=dict(visible=False), yaxis=dict(visible=False)))
    with st.container(height=1, border=False, key="plotly_preload"):
        st.plotly_chart(fig, config={"staticPlot": True, "displayModeBar": False}, theme=None,
                        key="plotly_preload_chart", width=1)


def presentation_mode() -> None:
    """A projector layout: larger fonts, less padding, the sidebar collapsed but still there (its
    controls stay usable); the page's title gives way to its figures. In the link (``present=1``)."""
    if presenting():
        st.html(PRESENTATION_CSS)


def presenting() -> bool:
    """Whether presentation mode (the projector layout, ``present=1``) is on."""
    return bool(SS.get("w_present"))


def page_head(title: str, intro: str | None = None, note: str | None = None) -> None:
    """A page's title, the lesson step's banner, its note and its introduction. Presenting, the
    figures get the screen: the banner stands for the title during a lesson, and the note and the
    introduction are left out."""
    present = presenting()
    if not present or not SS.get("lesson"):
        st.title(title)
    lesson_banner()
    if not present:
        if note:
            st.caption(note)
        if intro:
            st.markdown(intro)


def controls_box(label: str = "Settings"):
    """Where a page draws its own controls: the page itself, or a popover when presenting (with
    the switch that leaves presentation mode, as the sidebar has on the sweep's pages)."""
    if not presenting():
        return st.container()
    box = st.popover(label, icon=":material/tune:")
    box.toggle("presentation mode", key="w_present", help="Off: the page's normal layout")
    return box


def sync_query() -> None:
    """Mirror the applied settings, the clicked point and the slice features in the URL."""
    if SS.get("applied") is None:
        return
    q = S.to_query(SS.applied, SS.get("selected"), SS.get("features"),
                   {k: SS.get(k) for k in S.VIEW_KEYS})
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
    SS.selected_marked = False          # the chart's own selection shows a clicked point
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


# ------------------------------------------------------------------ lessons
def go_step(lesson_id: str, k: int) -> None:
    """Callback of a lesson's step button: the step's view (run settings and view on the sweep's
    pages; the lesson and step otherwise), then its page (``follow_goto``)."""
    from svmapp import lessons as L

    les = L.lesson(lesson_id)
    if les is None or not 1 <= k <= len(les.steps):
        return
    step = les.steps[k - 1]
    vals = L.step_values(les, k)
    if step.page in L.SWEEP_PAGES:
        if not apply_values(vals, f"lesson {lesson_id!r} step {k}"):
            return
    else:
        SS.lesson, SS.lesson_step = les.id, k
        SS.pop(f"{step.page}_link_read", None)      # the page reads the step's link (links.restore)
    query = None if step.page in L.SWEEP_PAGES else L.step_query(les, k)
    SS.goto = (L.PAGES[step.page][0], L.PAGES[step.page][1], query)


def follow_goto(page) -> None:
    """After the navigation: switch to the page a step button asked for (with its link's query on
    the pages that read their own link)."""
    goto = SS.pop("goto", None)
    if goto is None:
        return
    script, url_path, query = goto
    if page.url_path == url_path and query is None:
        return
    st.switch_page(script, query_params=query)


def lesson_banner() -> None:
    """The current lesson step's title, what to notice and previous/next buttons (the page's
    controls stay usable below)."""
    from svmapp import lessons as L

    for note in SS.pop("every_page_notes", None) or ():
        st.info(plain(note), icon=":material/link_off:")
    note = L.link_note(SS.get("lesson"), SS.get("lesson_step"))
    if note is not None:
        st.info(plain(note), icon=":material/link_off:")
        SS.lesson, SS.lesson_step = None, None
    les, k = L.lesson(SS.get("lesson")), SS.get("lesson_step")
    if les is None:
        return
    step = les.steps[k - 1]
    with st.container(border=True, key="lesson_banner"):
        # the projector: the text gets the room, Back is its arrow alone (whole down to 1024 px), no End
        present = presenting()
        widths = [12, 0.8, 1.6] if present else [7, 1.5, 1.5, 1.2]
        c0, c1, c2, *c3 = st.columns(widths, vertical_alignment="center")
        c0.markdown(f"**{plain(les.title)} · step {k} of {len(les.steps)}: {plain(step.title)}.** "
                    f"{plain(step.text)}")
        c1.button("" if present else "Back", key="lesson_prev", icon=":material/arrow_back:",
                  disabled=k == 1, help="Back: the previous step" if present else None,
                  on_click=go_step, args=(les.id, k - 1), width="stretch")
        c2.button("Next", key="lesson_next", icon=":material/arrow_forward:", type="primary",
                  disabled=k == len(les.steps), on_click=go_step, args=(les.id, k + 1), width="stretch")
        if c3:
            c3[0].button("End", key="lesson_end", help="Leave the lesson (the view stays)",
                         on_click=lambda: SS.update(lesson=None, lesson_step=None), width="stretch")


# ------------------------------------------------------------------ downloads
def downloads(result, figures: dict, prefix: str = "svm", table=None, table_label: str = "Results CSV") -> None:
    """A CSV (the whole result table, or ``table``), figures as standalone HTML and the settings
    as JSON, generated on click; every file name carries the settings (``prefix``)."""
    from svmcore.viz.plots import figure_html

    cols = st.columns(2 + len(figures))
    data = (table if table is not None else result.table)
    cols[0].download_button(table_label, data=lambda: data.to_csv(index=False),
                            file_name=f"{prefix}.csv", mime="text/csv", on_click="ignore",
                            key=f"dl_csv_{prefix}")
    link = S.to_query(SS.applied, SS.get("selected"), SS.get("features"), {k: SS.get(k) for k in S.VIEW_KEYS})
    settings = {"app_settings": SS.get("applied"), "run_spec": result.spec.to_dict(),
                "selected": SS.get("selected"), "link_query": link}
    cols[1].download_button("Settings JSON", data=lambda: json.dumps(S.jsonable(settings), indent=2),
                            file_name=f"{prefix}_settings.json", mime="application/json",
                            on_click="ignore", key=f"dl_json_{prefix}")
    for c, (name, fig) in zip(cols[2:], figures.items()):
        make = fig if callable(fig) else (lambda f=fig: f)
        c.download_button(f"{name} (HTML)", data=lambda make=make: figure_html(make(), True),
                          file_name=f"{prefix}_{name.lower().replace(' ', '_')}.html",
                          mime="text/html", on_click="ignore", key=f"dl_{prefix}_{name}")


def settings_badge(compact: bool = False) -> None:
    """One line saying what the shown result is; its notes as warnings (``compact``: as one
    caption line, for the projector layout)."""
    res = current()
    if res is None:
        return
    result, loaded = res
    w = result.weights
    kind = "standard" if w.is_standard else "nonstandard"
    g = result.spec.grid
    st.caption(f"**{plain(loaded.note)}** · {kind} case, L(+1) = {w.L_pos:.3g}, L(−1) = {w.L_neg:.3g} · "
               f"grid log2(nλ) {g.log2_nlambda.text} × log2 σ {g.log2_sigma.text} · "
               f"{result.spec.kernel} kernel · solver {result.spec.solver} · {result.seconds:.1f} s")
    if compact and result.notes:
        st.caption(":material/warning: " + plain(" · ".join(result.notes)))
        return
    for note in result.notes:
        st.warning(plain(note), icon=":material/warning:")


def use_this_model(result, data, selected) -> None:
    """"Use this model": the Python that rebuilds the clicked point's model or a criterion's pick
    (as ``TunedSVC`` on a one-point grid and as a plain ``sklearn.svm.SVC`` with the mapping
    stated), and the fitted model's JSON as a download (made only when asked for)."""
    from svmapp.model_snippet import fitted_model_json, model_snippet
    from svmcore.views import label

    fam = result.spec.family
    picks = [c for c in result.criteria if c in fam.criteria_names and fam.criterion(c).fn is not None
             and not fam.criterion(c).is_target and result.pick(c) is not None]
    choices = (["clicked point"] if selected is not None else []) + picks
    if not choices or result.spec.model != "svm":
        return
    with st.expander("Use this model (Python, JSON)"):
        # drawn on request: the code block's highlighter costs the first view ~0.4 s of browser time
        if not st.toggle("show the code", key="use_model_show"):
            return
        choice = st.selectbox("model", choices, key="use_model", format_func=lambda c: c if c ==
                              "clicked point" else f"{label(c)}'s pick")
        if choice == "clicked point":
            l2n, l2s = selected
        else:
            row = result.minimizer(choice)
            l2n, l2s = float(row["log2_nlambda"]), float(row["log2_sigma"])
        crit = choice if choice != "clicked point" else (picks[0] if picks else "gacv")
        st.code(model_snippet(result.spec, l2n, l2s, data.y, criterion=crit), language="python")
        st.download_button("fitted model (JSON)", file_name=f"svm_model_{l2n:g}_{l2s:g}.json",
                           data=partial(fitted_model_json, result.spec, data, l2n, l2s, crit),
                           mime="application/json", key="use_model_json")
