"""The tuning page's logic (``app_pages/tuning.py`` is layout only): the view's controls, the
criterion surfaces and the decision panel side by side, in one ``st.fragment`` so that a click on a
grid point reruns only this part (not the sidebar, not the estimate), and the settings file loader.
"""
from __future__ import annotations

import json
import time
from dataclasses import replace

import numpy as np
import streamlit as st

from svmapp import settings as S
from svmapp import ui
from svmcore import views as explore
from svmcore.viz import plots

SS = st.session_state

HOW_TO_READ = """
* Each panel is one tuning criterion at every grid point: horizontal axis log₂(nλ) (left = little
  smoothing, right = heavy smoothing; scikit-learn's C = 1/(2nλ)), vertical axis log₂σ of the Gaussian
  kernel exp(−‖x − x′‖²/(2σ²)) (scikit-learn's γ = 1/(2σ²)); the **axes** switch relabels them with C
  and γ. Dark is small.
* The **star** is the panel's own minimizer, the (λ, σ) that criterion picks; hollow circles mark tied
  minimizers (XA is a count and ties often). A minimizer on the grid's edge gets its own marker and a
  warning above: the true minimum may lie beyond it. Grey crosses are fits whose KKT residual is
  above tolerance; they are left out of every pick.
* {log_cols} are coloured on a log₁₀ scale, clipped at their 95th percentile: they grow like 1/λ at
  small λ and would otherwise wash out the picture. Every other panel uses a linear scale.
* GCKL, MISCLASS and BRMISCLASS are the *targets*: they use the true P(A|x), which only a simulation
  knows. A good criterion's star sits where its target is small (Wahba, Lin, Lee & Zhang 2001, §1.8).
* **Hover** a panel to read every criterion's value and scikit-learn's C and γ at that point; **click**
  a grid point to fit the SVM there and add its decision curve ("clicked point") to the panel beside.
"""


#: less padding above the page, so that the decision panel is in view at 1440×900
COMPACT_CSS = """<style>
[data-testid="stMainBlockContainer"] { padding-top: 3.2rem; }
</style>"""


def how_to_read() -> None:
    with st.expander("How to read this page", expanded=False):
        st.markdown(HOW_TO_READ.format(log_cols=", ".join(explore.label(c) for c in explore.LOG_SCALE)))


def _init_view(result, cols_all) -> None:
    """Panels and curves the result has (a linked or preset list is kept where it can be)."""
    if SS.get("tun_shown") is not None:
        SS.tun_shown = [c for c in SS.tun_shown if c in cols_all]
    if not SS.get("tun_shown"):
        SS.tun_shown = explore.default_panels(result)
    if SS.get("tun_curves") is not None:
        SS.tun_curves = [c for c in SS.tun_curves if c in cols_all]
    else:
        SS.tun_curves = explore.decision_columns(result)
    if SS.get("tun_ncols") not in (1, 2, 3, 4):
        SS.tun_ncols = 2
    if SS.get("tun_axes") not in ("log2", "sklearn"):
        SS.tun_axes = "log2"


def view_controls(result, cols_all, present: bool) -> None:
    """Panels, curves, other minimizers, panels per row and axes (in a popover when presenting)."""
    if present:
        badge, pop = st.columns([5, 1.4], vertical_alignment="center")
        with badge:
            ui.settings_badge(compact=True)
    box = pop.popover("Panels, curves, axes", icon=":material/tune:") if present else st.container()
    with box:
        a, b, c = (st.container(), st.container(), st.container()) if present else \
            st.columns([2.6, 2.2, 3], vertical_alignment="bottom")
        a.multiselect("Criteria to show", cols_all, format_func=explore.label, key="tun_shown")
        b.multiselect("Decision curves of the fits chosen by", cols_all, format_func=explore.label,
                      key="tun_curves")
        c1, c2, c3 = c.columns([1.2, 0.9, 1.5], vertical_alignment="bottom")
        c1.toggle("others", key="tun_others",
                  help="Mark every shown criterion's minimizer in each panel (legend below the panels)")
        c2.selectbox("per row", [1, 2, 3, 4], key="tun_ncols", help="Panels per row: fewer on narrow screens")
        c3.selectbox("axes", ["log2", "sklearn"], key="tun_axes",
                     format_func={"log2": "log₂nλ, log₂σ", "sklearn": "C, γ"}.get,
                     help="log₂(nλ) and log₂σ, or scikit-learn's C = 1/(2nλ) and γ = 1/(2σ²) on log scales")


@st.cache_resource(show_spinner=False, max_entries=128)
def _contour(result_key, crit, others, style, axes, height, columns, marked, _result):
    """One panel's figure, shared by every session and rerun. A click does not change it (the
    chart's own selection shows the clicked point, and the browser need not redraw the panel);
    ``marked``, a point that came with a link, a preset or a lesson step, is drawn as a marker
    until the first click."""
    return plots.criterion_contour(_result, crit, show_others=others, selected=marked,
                                   hover=plots.hover_data(_result, list(columns)), style=style, axes=axes,
                                   settings=plots.settings_line(_result), height=height)


def surfaces(result, cols_all, present: bool) -> None:
    """One contour chart per shown criterion; a click selects the grid point (``ui.on_pick``)."""
    shown, ncols = SS.tun_shown, SS.tun_ncols
    fmt = SS.get("w_image_format", "png")
    others = tuple(shown) if SS.tun_others else ()
    sel = SS.get("selected")
    marked = tuple(sel) if sel is not None and SS.get("selected_marked") else None
    for start in range(0, len(shown), ncols):
        row = st.columns(ncols)
        for col, crit in zip(row, shown[start:start + ncols]):
            fig = _contour(SS.result_key, crit, others, "projector" if present else "screen", SS.tun_axes,
                           410 if present else 360, tuple(cols_all), marked, result)
            key = f"contour_{crit}_{SS.result_key}"
            col.plotly_chart(fig, key=key, on_select=ui.pick_callback(key), selection_mode="points",
                             config=plots.chart_config(plots.export_name(result, crit), fmt), theme=None)
            if not present:
                col.caption(S.panel_help(crit))


@st.cache_data(show_spinner=False, max_entries=64)
def _chosen_view(result_key, features, columns, _data, _result, _weights):
    """Shared by every session: the criteria's chosen fits on the mesh (no clicked point)."""
    return explore.decision_view(_data, _result, _weights, columns=list(columns), selected=None,
                                 features=features, fits=ui.fits_cache(result_key))


#: a column no table has: ``decision_view`` then draws the clicked point alone
NO_COLUMNS = ("(none)",)


def _decision_view(result_key, selected, features, columns, data, result, weights):
    """The chosen fits' view (cached) plus, on a click, the clicked point's fit alone on the same
    mesh: a click evaluates one fit, not every curve again."""
    base = _chosen_view(result_key, features, columns, data, result, weights)
    if selected is None:
        return base
    one = explore.decision_view(data, result, weights, columns=NO_COLUMNS, selected=selected,
                                features=features, fits=ui.fits_cache(result_key))
    return replace(base, surfaces={**base.surfaces, **one.surfaces}, points={**base.points, **one.points})


def slice_features(data) -> tuple[int, int] | None:
    """The two features of the decision panel's slice (chosen when d > 2); None when equal."""
    if data.d <= 2:
        return (0, 1)
    names = data.feature_names
    f0, f1 = SS.get("features") or (0, 1)
    f0, f1 = (f0 if f0 < data.d else 0), (f1 if f1 < data.d else 1)
    a, b = st.columns(2)
    j = a.selectbox("slice feature (x axis)", range(data.d), index=f0, format_func=names.__getitem__,
                    key="tun_f0")
    k = b.selectbox("slice feature (y axis)", range(data.d), index=f1 if f1 != j else (j + 1) % data.d,
                    format_func=names.__getitem__, key="tun_f1")
    if j == k:
        st.warning("Choose two different features.")
        return None
    if tuple(SS.get("features") or ()) != (j, k):
        SS.features = (j, k)
    return (j, k)


def decision_panel(result, data, sel, features, present: bool):
    """The decision curves of the chosen fits and the clicked point's (the Bayes rule dotted)."""
    with st.spinner("Fitting the chosen SVMs …"):
        view = _decision_view(SS.result_key, sel, features, tuple(SS.tun_curves), data, result,
                              S.weights_for(SS.applied, data.y))
    dfig = plots.decision_figure(view, subtitle=plots.settings_line(result), legend_below=True,
                                 style="projector" if present else "screen",
                                 height=420 if present else 540)
    st.plotly_chart(dfig, key=f"decision_{SS.result_key}", theme=None,
                    config=plots.chart_config(plots.export_name(result, "decision"),
                                              SS.get("w_image_format", "png")))
    if present:
        return dfig
    if view.caption:
        st.caption(view.caption)
    if view.p_mesh is None:
        st.caption("No Bayes boundary: the true P(A|x) of this data set is unknown.")
    else:
        what = "f(x)" if data.d == 1 else "f(x) = 0"
        st.caption(f"Dotted black: the Bayes rule p_s(x) = L(−1)/(L(−1)+L(+1)) = {view.threshold:.3g} "
                   f"(Wahba et al. 2001, §1.7); the other curves are {what} of the fit each criterion picks.")
    return dfig


def clicked_point(result, cols_all, sel) -> None:
    """The clicked grid point's values and a button that clears it."""
    if sel is None:
        st.caption("Click a grid point in any panel to add its decision curve.")
        return
    r = result.table[(np.isclose(result.table.log2_nlambda, sel[0]))
                     & (np.isclose(result.table.log2_sigma, sel[1]))]
    info = "" if r.empty else " · ".join(
        f"{explore.label(c)} {plots._fmt(r.iloc[0][c])}" for c in cols_all)
    c, b = st.columns([6, 1], vertical_alignment="center")
    c.markdown(f"**Clicked grid point** log₂(nλ) = {sel[0]:g}, log₂σ = {sel[1]:g} — {info}")
    b.button("clear clicked point", key="tun_clear", on_click=lambda: SS.update(selected=None))


@st.fragment
def live_view(result, loaded, present: bool) -> None:
    """Controls, surfaces (left) and the decision panel (right, in view beside them); a click, a
    panel or a curve change reruns only this fragment."""
    t0 = time.perf_counter()
    cols_all = [c for c in result.columns if c in result.table.columns]
    _init_view(result, cols_all)
    view_controls(result, cols_all, present)
    sel = SS.get("selected")
    left, right = st.columns([3, 2] if SS.tun_ncols > 1 else [1, 1])
    with left:
        surfaces(result, cols_all, present)
    with right:
        features = slice_features(loaded.train)
        dfig = None if features is None else decision_panel(result, loaded.train, sel, features, present)
    clicked_point(result, cols_all, sel)
    ui.sync_query()
    SS.tun_decision_fig = dfig
    ui.timing_log(f"live view {time.perf_counter() - t0:.2f}s")


def load_settings(upload) -> list[str]:
    """A settings JSON (the page's own download, or a flat {link key: value}) read through the
    link codec: [] when its settings and view were applied, else one note per refused value."""
    try:
        doc = json.loads(bytes(upload).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        return [f"not a settings JSON file: {exc}"]
    query = doc.get("link_query", doc) if isinstance(doc, dict) else None
    if not isinstance(query, dict) or not query:
        return ["the file has no settings (expected the key 'link_query' or link keys)"]
    query = {str(k): str(v) for k, v in query.items()}
    s, view, notes = S.read_link(query)
    if notes or s is None:
        return notes or ["the file has no run settings"]
    ok = ui.apply_values({**s, **S.view_text(view)}, "settings file")
    return [] if ok else [SS.get("link_note") or "the settings were refused"]


def _on_settings_file() -> None:
    up = SS.get("tun_settings_file")
    if up is not None:
        SS.settings_file_notes = load_settings(up.getvalue())


def exports(result) -> None:
    """Image format of the toolbar's camera, the downloads, and loading a settings file back."""
    st.radio("Image format of the camera button in each chart's toolbar", ["png", "svg"],
             key="w_image_format", horizontal=True)
    shown = SS.get("tun_shown") or [c for c in result.columns if c in result.table.columns]
    dfig = SS.get("tun_decision_fig")
    figures = {"Surfaces": lambda: plots.contour_grid(result, shown, selected=SS.get("selected"))}
    if dfig is not None:
        figures["Decision curves"] = lambda: dfig
    ui.downloads(result, figures, prefix=plots.export_name(result, "sweep"))
    st.file_uploader("Load a settings JSON (the download above)", type=["json"], key="tun_settings_file",
                     on_change=_on_settings_file,
                     help="Read through the link codec: a value it refuses is named and nothing changes")
    for note in SS.pop("settings_file_notes", None) or []:
        st.error(ui.plain(f"Settings file refused: {note}"))
