"""Pure Plotly figure builders for the dashboard and for reports (no Streamlit here).

- ``criterion_contour`` / ``contour_grid``: a criterion over the (log2 nλ, log2 σ) grid (Wahba et al. 2001,
  Fig 1.5), its own minimizer marked, optionally the other criteria's, hover text with every
  criterion's value, and a transparent scatter of grid points so a click selects (λ, σ).
- ``decision_figure``: data and the f = 0 curve of each criterion's chosen fit, the clicked point's,
  and the Bayes boundary p_s = L(−1)/(L(−1)+L(+1)) when the true p is known (Wahba et al. 2001, Fig 1.4).
- ``loss_figure``: misclassification count, hinge and logistic losses (Wahba et al. 2001, Fig 1.1).
- ``path_figure`` and ``gckl_figure``: f(x) for nλ = 2^-1…2^-25 and GCKL against λ (Fig 1.3).
"""
from __future__ import annotations

import re
from typing import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ..grid import usable
from ..views import LOG_SCALE, OUTPUTS, DecisionView, PathView, current_outputs, label

#: colours of the two classes' data points (never used for a criterion)
CLASS_COLORS = ("#1f4e79", "#c0504d")
#: one colour, line dash and minimizer marker per criterion label, the same in every figure, read
#: from the criteria registries (``svmcore.families``: Okabe-Ito and Paul Tol's colour-blind-safe
#: palettes, none near the class colours); plus the clicked point and the Bayes rule
_BY_LABEL = {o.label: o for o in OUTPUTS.values()}
COLORS = {**{lab: o.colour for lab, o in _BY_LABEL.items()},
          "selected": "#000000", "true (Bayes)": "#000000"}
DASHES = {**{lab: o.dash for lab, o in _BY_LABEL.items()},
          "selected": "solid", "true (Bayes)": "dot"}
MARK_SYMBOLS = {lab: o.symbol for lab, o in _BY_LABEL.items()}
SYMBOLS = ["star", "diamond", "triangle-up", "square", "pentagon", "hexagon", "cross", "x",
           "triangle-down", "star-diamond", "hourglass", "bowtie"]
#: ring around a minimizer on a grid edge, and the marker of flagged fits
EDGE_COLOR = "#F28E00"
FLAG_COLOR = "#8A8A8A"
FLAG_HOVER = "flagged: KKT residual above tolerance, left out of picks"
#: a thin frame around each contour panel (the half-step margin around the grid shows)
FRAME = dict(showline=True, linecolor="#d0d0d0", linewidth=1, mirror=True)
AXIS_X = "log<sub>2</sub>(nλ)"
AXIS_Y = "log<sub>2</sub> σ"


def _output_by_label(name: str):
    """The registry Output whose label is ``name`` (families registered now), or None."""
    return next((o for o in current_outputs().values() if o.label == name), None)


def color_of(name: str) -> str:
    """The colour of a criterion label (``COLORS``, then the registries), grey for unknown names."""
    o = None if name in COLORS else _output_by_label(name)
    return COLORS.get(name) or (o.colour if o is not None else "#444444")


def dash_of(name: str) -> str:
    """The line dash of a criterion label (``DASHES``, then the registries), solid if unknown."""
    o = None if name in DASHES else _output_by_label(name)
    return DASHES.get(name) or (o.dash if o is not None else "solid")


def _fmt(v) -> str:
    try:
        v = float(v)
    except (TypeError, ValueError):
        return str(v)
    if not np.isfinite(v):
        return "inf" if v > 0 else ("nan" if np.isnan(v) else "-inf")
    if v != 0 and (abs(v) >= 1e4 or abs(v) < 1e-3):
        return f"{v:.3e}"
    return f"{v:.4f}"


def sklearn_params(log2_nlambda, log2_sigma) -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's (C, γ) of grid points: C = 1/(2nλ) = 1/(2·2^log2_nlambda) and, for the kernel
    exp(−‖x − x'‖²/(2σ²)), γ = 1/(2σ²) with σ = 2^log2_sigma (``docs/svm.md``)."""
    l2n = np.asarray(log2_nlambda, float)
    l2s = np.asarray(log2_sigma, float)
    return 1.0 / (2.0 * 2.0 ** l2n), 1.0 / (2.0 * 4.0 ** l2s)


def hover_data(result, columns: Sequence[str] | None = None) -> tuple[np.ndarray, list[str], list[str]]:
    """What a panel's hover shows, as numbers: (customdata, criterion labels, notes per row).

    customdata is float32, one row per grid point: log2 nλ, log2 σ, scikit-learn's C and γ, n_sv,
    then each criterion; ``hover_template`` formats it in the browser. Sending numbers instead of one
    string per point makes a panel about three times smaller. notes: a failed or flagged fit, else "".
    """
    t = result.table
    cols = [c for c in (columns or result.columns) if c in t.columns]
    C, gamma = sklearn_params(t["log2_nlambda"], t["log2_sigma"])
    data = np.column_stack([t["log2_nlambda"].to_numpy(float), t["log2_sigma"].to_numpy(float), C, gamma,
                            t["n_sv"].to_numpy(float)] + [t[c].to_numpy(float) for c in cols])
    flagged = _flagged(t)
    errors = t["fit_error"].fillna("").astype(str).to_numpy() if "fit_error" in t.columns else [""] * len(t)
    notes = [("<br>fit failed: " + e[:80] if e else "") + ("<br>" + FLAG_HOVER if f else "")
             for e, f in zip(errors, flagged)]
    return data.astype(np.float32), [label(c) for c in cols], notes


def hover_template(labels: Sequence[str], bold: str | None = None) -> str:
    """The hovertemplate of ``hover_data``'s customdata; ``bold`` is this panel's criterion."""
    lines = ["log2(nλ) = %{customdata[0]:g}, log2 σ = %{customdata[1]:g}",
             "sklearn: C = 1/(2nλ) = %{customdata[2]:.5g}, γ = 1/(2σ²) = %{customdata[3]:.5g}",
             "n_sv = %{customdata[4]:.0f}"]
    for k, name in enumerate(labels):
        shown = f"<b>{name}</b>" if name == bold else name
        lines.append(f"{shown} = %{{customdata[{k + 5}]:.4~g}}")
    return "<br>".join(lines) + "%{text}<extra></extra>"


def _flagged(table) -> np.ndarray:
    """The table's ``flagged`` column as booleans (all False when absent)."""
    if "flagged" not in table.columns:
        return np.zeros(len(table), bool)
    return table["flagged"].fillna(False).to_numpy(bool)


def _color_values(column: str, Z: np.ndarray, log_scale: bool | None):
    """(values to colour, colourbar title, zmin, zmax): log10 for criteria growing like 1/λ,
    infinities and the top 5 % clipped so that the region near the minimum keeps its contrast."""
    Z = np.asarray(Z, float)
    use_log = (column in LOG_SCALE) if log_scale is None else log_scale
    finite = Z[np.isfinite(Z)]
    if use_log and finite.size and np.nanmin(finite) > 0:
        with np.errstate(divide="ignore", invalid="ignore"):
            V = np.log10(Z)
        title = "log<sub>10</sub>"
    else:
        V = Z.copy()
        title = ""
    fin = V[np.isfinite(V)]
    if fin.size == 0:
        return V, title, None, None
    lo, hi = float(fin.min()), float(np.quantile(fin, 0.95))
    if hi <= lo:
        hi = float(fin.max()) if fin.max() > lo else lo + 1e-9
    V = np.where(np.isposinf(V), hi, V)
    return np.clip(V, lo, hi), title, lo, hi


#: legend entries of the contour panels, each once per figure: (group, text, marker)
LEGEND_KEYS = {
    "own-min": ("this panel's minimizer",
                dict(symbol="star", size=13, color="white", line=dict(width=1.5, color="#333333"))),
    "ties": ("tied minimizers", dict(symbol="circle-open", size=9, color="#333333", line=dict(width=1.5))),
    "selected": ("clicked point", dict(symbol="circle-open", size=13, color="#ff2b2b", line=dict(width=3))),
    "edge": ("minimizer on a grid edge",
             dict(symbol="circle-open", size=15, color=EDGE_COLOR, line=dict(width=3))),
    # short enough for a projector panel's width (browser test: no entry cut at the panel's edge);
    # the notes above the panels and the hover say the rest
    "limit": ("minimizer at the grid's hard limit",
              dict(symbol="square-open", size=15, color=EDGE_COLOR, line=dict(width=3))),
    "plateau": ("SURE's degenerate plateau",
                dict(symbol="line-ne", size=7, color="#dddddd", line=dict(width=1, color="#dddddd"))),
    "flagged": ("flagged fit (KKT check failed)",
                dict(symbol="x-thin-open", size=8, color=FLAG_COLOR, line=dict(width=1.5, color=FLAG_COLOR))),
}


def _legend_key(fig: go.Figure, group: str, kw: dict) -> None:
    """A legend-only entry for ``group`` (``LEGEND_KEYS``) unless the figure has it already."""
    if any(tr.legendgroup == group and tr.meta == "key" for tr in fig.data):
        return
    text, marker = LEGEND_KEYS[group]
    fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name=text, legendgroup=group,
                             showlegend=True, marker=marker, hoverinfo="skip", meta="key",
                             cliponaxis=False), **kw)


def _marks(fig, kw, x, y, name, group, marker, meta):
    """Markers that never take the hover (the grid overlay below does) and are never clipped."""
    fig.add_trace(go.Scatter(x=list(np.atleast_1d(x)), y=list(np.atleast_1d(y)), mode="markers",
                             name=name, legendgroup=group, showlegend=False, hoverinfo="skip",
                             cliponaxis=False, marker=marker, meta=meta), **kw)


def edge_text(p) -> str:
    """'on the grid edge (…)' or 'at the hard limit (…)' for a Pick on an edge, else ''."""
    if p is None or not p.edge:
        return ""
    return f"{'at the hard limit' if p.at_limit else 'on the grid edge'} ({p.edge})"


def _mark_minimizer(fig, result, column, kw, notes):
    """This panel's pick (star), its ties (open circles) and a ring when it is on an edge; the
    pick's hover note says so."""
    t = result.table
    p = result.pick(column)
    if p is None:
        return
    name = label(column)
    v = t[column].to_numpy(float)
    tied = np.flatnonzero(usable(t, column) & np.isclose(v, v[p.row], rtol=1e-12, atol=0))
    lam, sig = t["log2_nlambda"].to_numpy(float), t["log2_sigma"].to_numpy(float)
    if len(tied) > 1:
        _legend_key(fig, "ties", kw)
        _marks(fig, kw, lam[tied], sig[tied], f"{name} ties", "ties",
               dict(symbol="circle-open", size=9, color="white", line=dict(width=1.5)), "ties")
    where = edge_text(p)
    if where:
        group = "limit" if p.at_limit else "edge"
        _legend_key(fig, group, kw)
        ring = {**LEGEND_KEYS[group][1], "size": 25}     # around the star, not under it
        _marks(fig, kw, lam[p.row], sig[p.row], f"{name} minimizer {where}", group, ring, group)
    _legend_key(fig, "own-min", kw)
    _marks(fig, kw, lam[p.row], sig[p.row], f"{name} minimizer", "own-min",
           dict(symbol="star", size=17, color="white", line=dict(width=1.5, color=color_of(name))),
           "own-min")
    notes[p.row] += f"<br>★ {name}'s minimizer" + (f", {where}" if where else "")


def add_criterion_contour(fig: go.Figure, result, column: str, *, row=None, col=None,
                          hover: tuple | None = None, show_others: Sequence[str] = (),
                          selected: tuple | None = None, log_scale: bool | None = None,
                          colorbar: dict | None = None) -> go.Figure:
    """Add one criterion's contour, its minimizer(s) (ringed when on a grid edge), flagged fits,
    optional other minimizers, the selected point and the clickable grid-point overlay to ``fig``
    (at subplot row/col if given). Legend entries are added once per figure."""
    xs, ys, Z = result.surface(column)
    V, cbt, lo, hi = _color_values(column, Z, log_scale)
    name = label(column)
    kw = {} if row is None else {"row": row, "col": col}
    fig.add_trace(go.Contour(
        x=xs, y=ys, z=V, name=name, colorscale="Viridis", zmin=lo, zmax=hi, ncontours=18,
        contours=dict(coloring="heatmap", showlines=True), line=dict(width=0.5, color="rgba(255,255,255,0.35)"),
        connectgaps=False, hoverinfo="skip", showscale=True, showlegend=False,
        colorbar={**dict(title=dict(text=f"{name} {cbt}".strip(), side="right"), thickness=8, len=0.95,
                         xpad=2, tickfont=dict(size=9)), **(colorbar or {})}), **kw)
    # transparent grid-point overlay: hover shows every criterion, a click selects (λ, σ)
    t = result.table
    data, labels, notes = hover if hover is not None else hover_data(result)
    notes = list(notes)
    if column == "sure" and "sure_degenerate" in t.columns:     # hatch SURE's degenerate plateau
        flat = t["sure_degenerate"].fillna(False).to_numpy(bool)
        if flat.any():
            _legend_key(fig, "plateau", kw)
            _marks(fig, kw, t["log2_nlambda"].to_numpy(float)[flat], t["log2_sigma"].to_numpy(float)[flat],
                   "SURE degenerate plateau", "plateau", LEGEND_KEYS["plateau"][1], "plateau")
    flagged = _flagged(t)
    if flagged.any():
        _legend_key(fig, "flagged", kw)
        _marks(fig, kw, t["log2_nlambda"].to_numpy(float)[flagged], t["log2_sigma"].to_numpy(float)[flagged],
               "flagged fits", "flagged", LEGEND_KEYS["flagged"][1], "flagged")
    _mark_minimizer(fig, result, column, kw, notes)
    fig.add_trace(go.Scatter(
        x=t["log2_nlambda"], y=t["log2_sigma"], mode="markers", name=f"{name} grid",
        marker=dict(size=14, color="rgba(0,0,0,0)", line=dict(width=0)),
        # a click shows at once in the browser (Plotly's selection style), before the server answers
        selected=dict(marker=dict(color="#ff2b2b", size=14, opacity=0.9)), unselected=dict(marker=dict(opacity=0)),
        customdata=data, text=notes, hovertemplate=hover_template(labels, bold=name), showlegend=False,
        cliponaxis=False, meta="grid"), **kw)
    for other in (c for c in show_others if c != column and c in t.columns):
        ro = result.minimizer(other)
        if ro is None:
            continue
        on = label(other)
        first = not any(tr.legendgroup == f"min-{on}" for tr in fig.data)
        fig.add_trace(go.Scatter(
            x=[float(ro["log2_nlambda"])], y=[float(ro["log2_sigma"])], mode="markers",
            name=f"{on} minimizer", hoverinfo="skip", showlegend=first, legendgroup=f"min-{on}",
            cliponaxis=False, meta="other-min",
            marker=dict(symbol=MARK_SYMBOLS.get(on, "diamond"), size=10, color=color_of(on),
                        line=dict(width=1, color="white"))), **kw)
    if selected is not None:
        _legend_key(fig, "selected", kw)
        _marks(fig, kw, float(selected[0]), float(selected[1]), "selected", "selected",
               dict(symbol="circle-open", size=18, color="#ff2b2b", line=dict(width=3)), "selected")
    return fig


def _bottom_legend(fig: go.Figure, font_size: int = 10) -> None:
    """A horizontal legend below the plot area (clear of the colourbars at the right)."""
    fig.update_layout(showlegend=True, legend=dict(
        orientation="h", x=0, xanchor="left", y=0, yanchor="bottom", yref="container",
        font=dict(size=font_size), itemsizing="constant", tracegroupgap=2, bgcolor="rgba(0,0,0,0)"))


#: room above and below a title block (px)
TITLE_PAD_PX = 10
#: sizes of the two styles: a screen, and a projector read from the back of a room
STYLES = {"screen": dict(legend=11, title=14, tick=11, other=11, star=17, cbar=10, note=9),
          "projector": dict(legend=15, title=19, tick=14, other=17, star=24, cbar=14, note=11)}


def sklearn_axes(fig: go.Figure, xs: np.ndarray, ys: np.ndarray, font: int = 11) -> None:
    """Relabel the (log2 nλ, log2 σ) axes with scikit-learn's C = 1/(2nλ) = 2^(−log2 nλ − 1) and
    γ = 1/(2σ²) = 2^(−2 log2 σ − 1) on log scales, both increasing away from the origin (the data
    stay in log2 units, so a click still reports the grid point)."""
    def ticks(v, every):
        lo, hi = float(np.min(v)), float(np.max(v))
        return [t for t in np.arange(np.floor(lo), np.ceil(hi) + 1e-9, every) if lo - 1e-9 <= t <= hi + 1e-9]
    xt = ticks(xs, max(1, round((xs.max() - xs.min()) / 6)))
    yt = ticks(ys, max(0.5, round((ys.max() - ys.min()) / 5 * 2) / 2))
    fig.update_xaxes(title_text="C = 1/(2nλ) (log scale)", tickvals=xt,
                     ticktext=[f"2<sup>{-t - 1:g}</sup>" for t in xt], autorange="reversed",
                     range=None, tickfont=dict(size=font))
    fig.update_yaxes(title_text="γ = 1/(2σ²) (log scale)", tickvals=yt,
                     ticktext=[f"2<sup>{-2 * t - 1:g}</sup>" for t in yt], autorange="reversed",
                     range=None, tickfont=dict(size=font))


def settings_note(fig: go.Figure, text: str, size: int = 9) -> None:
    """The settings line inside the figure (so a PNG/SVG export carries it), at the bottom left,
    in the bottom margin (shifted down by it, in pixels)."""
    bottom = fig.layout.margin.b or 40
    fig.add_annotation(text=note_text(text), xref="paper", yref="paper", x=0, y=0, yshift=-bottom + 1,
                       xshift=-40,
                       xanchor="left", yanchor="bottom", showarrow=False, align="left",
                       font=dict(size=size, color="#777777"), name="settings")


def criterion_contour(result, column: str, *, show_others: Sequence[str] = (),
                      selected: tuple | None = None, hover: tuple | None = None,
                      log_scale: bool | None = None, height: int = 340,
                      legend: bool = True, style: str = "screen", axes: str = "log2",
                      settings: str | None = None) -> go.Figure:
    """One criterion over the (log2 nλ, log2 σ) grid as a standalone figure (one contour trace),
    with a legend of its markers below the plot (``legend=False`` leaves it out). ``style``
    "projector" enlarges fonts and markers (``STYLES``); ``axes`` "sklearn" labels the axes with C
    and γ (``sklearn_axes``); ``settings`` (``settings_line``) is written inside the figure."""
    sz = STYLES[style]
    fig = go.Figure()
    add_criterion_contour(fig, result, column, hover=hover, show_others=show_others,
                          selected=selected, log_scale=log_scale)
    r = result.minimizer(column)
    sub = "" if r is None else (f"min {_fmt(r[column])} at ({r['log2_nlambda']:g}, "
                                f"{r['log2_sigma']:g})")
    p = result.pick(column)
    if p is not None and p.edge:      # short here; the hover and legend name the edge
        sub += " — at the hard limit" if p.at_limit else " — on the grid edge"
    fig.update_layout(
        title=dict(text=f"<b>{label(column)}</b>  <span style='font-size:{sz['tick']}px'>{sub}</span>",
                   x=0.02, y=0.97, font=dict(size=sz["title"])),
        height=height, margin=dict(l=48, r=4, t=36 + (sz["title"] - 14), b=42 + _legend_px(fig, sz, legend, style)
                                   + ((sz["note"] + 4) * _lines(settings) + 4 if settings else 0)),
        clickmode="event+select", dragmode=False, hovermode="closest", plot_bgcolor="white",
        font=dict(size=sz["tick"]))
    if legend:
        _bottom_legend(fig, sz["legend"])
    else:
        fig.update_layout(showlegend=False)
    if style != "screen":
        _enlarge_markers(fig, sz)
    fig.update_xaxes(title_text=AXIS_X, showgrid=False, zeroline=False, range=_edges(xs_of(result)),
                     title_standoff=4, automargin=True, **FRAME)
    fig.update_yaxes(title_text=AXIS_Y, showgrid=False, zeroline=False, range=_edges(ys_of(result)),
                     title_standoff=2, automargin=True, **FRAME)
    if axes == "sklearn":
        sklearn_axes(fig, xs_of(result), ys_of(result), sz["tick"])
    if settings:
        settings_note(fig, settings, sz["note"])
        if legend:      # the legend above the settings line
            fig.update_layout(legend_y=((sz["note"] + 4) * _lines(settings) + 6) / height)
    return fig


def note_text(text: str, width: int = 50) -> str:
    """The settings line wrapped for a narrow panel: at its " · " parts, and a part longer than
    ``width`` characters again at its commas."""
    lines = []
    for line in wrap_line(text, width).split("<br>"):
        lines.append(wrap_line(line, width, sep=", ") if len(line) > width else line)
    return "<br>".join(lines)


def _lines(text: str) -> int:
    return note_text(text).count("<br>") + 1


def _legend_px(fig: go.Figure, sz: dict, legend: bool, style: str) -> int:
    """Room for the legend below a panel: one entry a line (a panel is often too narrow for two)."""
    if not legend:
        return 0
    entries = sum(1 for t in fig.data if t.showlegend)
    return max(2, entries) * (sz["legend"] + 10) + 10


def _enlarge_markers(fig: go.Figure, sz: dict) -> None:
    """Projector sizes: other minimizers' markers, the stars and the colour bar's ticks."""
    for tr in fig.data:
        if tr.type == "contour":
            tr.colorbar.tickfont.size = sz["cbar"]
            tr.colorbar.thickness = 14
        elif tr.meta == "other-min" or (tr.meta == "key" and tr.legendgroup.startswith("min-")):
            tr.marker.size = sz["other"]
        elif tr.meta in ("own-min", "selected"):
            tr.marker.size = sz["star"]


def xs_of(result) -> np.ndarray:
    return np.unique(result.table["log2_nlambda"].to_numpy(float))


def ys_of(result) -> np.ndarray:
    return np.unique(result.table["log2_sigma"].to_numpy(float))


def _edges(v: np.ndarray) -> list:
    """Axis range covering the grid plus half a grid step at both ends (markers at the edges are
    whole); a single value gets ±0.5."""
    v = np.asarray(v, float)
    h = 0.5 * (np.min(np.diff(v)) if len(v) > 1 else 1.0)
    return [float(v.min() - h), float(v.max() + h)]


def wrap_line(text: str, width: int = 90, sep: str = " · ") -> str:
    """``text`` with <br> between its ``sep``-separated parts so that no line is much longer than
    ``width`` characters (Plotly does not wrap titles)."""
    lines, cur = [], ""
    for part in str(text).split(sep):
        if cur and len(cur) + len(sep) + len(part) > width:
            lines.append(cur)
            cur = part
        else:
            cur = part if not cur else cur + sep + part
    return "<br>".join(lines + [cur])


def _scale_note(result, column: str) -> str:
    """' (log<sub>10</sub>)' when the panel's colours are log10 of the criterion, else ''."""
    _, title, _, _ = _color_values(column, result.surface(column)[2], None)
    return f" <span style='font-size:10px'>({title} colour)</span>" if title else ""


def contour_grid(result, columns: Sequence[str] | None = None, *, ncols: int = 3,
                 show_others: bool = False, selected: tuple | None = None,
                 panel_height: int = 300, subtitle: str | None = None, legend: bool = True) -> go.Figure:
    """All criteria as small multiples in one figure (one contour trace per criterion), the run's
    settings (``settings_line``, or ``subtitle``) as the second title line, each colourbar inside
    its own panel's cell and one legend of the markers below."""
    cols = [c for c in (columns or result.columns) if c in result.table.columns]
    nrows = max(1, -(-len(cols) // ncols))
    top, bottom = 80, 60 + (60 if legend else 0)
    height = panel_height * nrows + top + bottom
    vspace = min(0.9 / max(nrows - 1, 1), 95 / (panel_height * nrows)) if nrows > 1 else 0.1
    fig = make_subplots(rows=nrows, cols=ncols, horizontal_spacing=0.06, vertical_spacing=vspace,
                        subplot_titles=[label(c) + _scale_note(result, c) for c in cols])
    cbar_w = 0.055 * 3 / ncols      # room for the colourbar and its tick labels inside the cell
    hover = hover_data(result, cols)
    for i, c in enumerate(cols):
        r, k = divmod(i, ncols)
        sp = fig.get_subplot(r + 1, k + 1)
        d0, d1 = sp.xaxis.domain
        dom_y = sp.yaxis.domain
        sp.xaxis.domain = (d0, d1 - cbar_w)
        fig.layout.annotations[i].x = (d0 + d1 - cbar_w) / 2
        add_criterion_contour(fig, result, c, row=r + 1, col=k + 1, hover=hover,
                              show_others=cols if show_others else (), selected=selected,
                              colorbar=dict(x=d1 - cbar_w + 0.004, xanchor="left", y=(dom_y[0] + dom_y[1]) / 2,
                                            len=(dom_y[1] - dom_y[0]) * 0.9, thickness=7,
                                            title=dict(text="")))
    for a in fig.layout.annotations:         # subplot titles: small, centred over the plot area
        a.font = dict(size=12)
        a.yshift = 2
    fig.update_xaxes(title_text=AXIS_X, showgrid=False, zeroline=False, range=_edges(xs_of(result)),
                     automargin=True, title_standoff=2, title_font=dict(size=11), tickfont=dict(size=10),
                     **FRAME)
    fig.update_yaxes(title_text=AXIS_Y, showgrid=False, zeroline=False, range=_edges(ys_of(result)),
                     automargin=True, title_standoff=2, title_font=dict(size=11), tickfont=dict(size=10),
                     **FRAME)
    sub = wrap_line(settings_line(result) if subtitle is None else subtitle)
    top += 14 * sub.count("<br>")
    fig.update_layout(height=height + 14 * sub.count("<br>"), margin=dict(l=50, r=20, t=top, b=bottom),
                      clickmode="event+select", hovermode="closest", plot_bgcolor="white",
                      title=dict(text=f"Tuning criteria over the grid — {result.spec.data.name}"
                                      f"<br><span style='font-size:11px'>{sub}</span>", x=0.01, y=0.98))
    if legend:
        _bottom_legend(fig)
    else:
        fig.update_layout(showlegend=False)
    return fig


# ------------------------------------------------------------------ decision curves (Fig 1.4)
def _class_scatter(fig, view: DecisionView, xj, yj, **kw):
    A = view.y > 0
    a_name, b_name = view.class_names
    fig.add_trace(go.Scatter(x=xj[A], y=yj[A], mode="markers", name=f"{a_name} (+1)",
                             marker=dict(symbol="cross-thin-open", size=8, color=CLASS_COLORS[0],
                                         line=dict(width=1.6, color=CLASS_COLORS[0])),
                             hovertemplate="x=%{x:.3f}, y=%{y:.3f}<extra>" + f"{a_name}</extra>"),
                  **kw)
    fig.add_trace(go.Scatter(x=xj[~A], y=yj[~A], mode="markers", name=f"{b_name} (−1)",
                             marker=dict(symbol="circle-open", size=6, color=CLASS_COLORS[1],
                                         line=dict(width=1.1)),
                             hovertemplate="x=%{x:.3f}, y=%{y:.3f}<extra>" + f"{b_name}</extra>"),
                  **kw)


def level_bytes(Z, value: float, window: float = 1.0) -> np.ndarray:
    """Z − value clipped to ±window and scaled to int8 (−126…126): the level curve at 0 is where
    Z = value, to 1/126 of the window; a quarter of float32's bytes in the figure's JSON (faster
    to send on each click and to parse in the browser)."""
    D = np.nan_to_num(np.asarray(Z, float) - value, nan=0.0)
    return np.round(np.clip(D / window, -1.0, 1.0) * 126).astype(np.int8)


def level_curve(xs, ys, Z, value: float, name: str, line: dict, *, window: float | None = None,
                labels: bool = False, **trace) -> go.Contour:
    """The curve Z = ``value`` alone (no fill, no hover). Z travels as float32, or as int8 around
    the level when a ``window`` is given (``level_bytes``: for values on a fixed scale, such as p
    or the tuning page's f; an SVM's f is nearly flat far from the data, where int8 made the
    Unbiased SVC page's zero curves jagged). ``trace``: further go.Contour settings."""
    z, at = (np.asarray(Z, np.float32), value) if window is None else (level_bytes(Z, value, window), 0)
    return go.Contour(x=xs, y=ys, z=z, name=name, showscale=False, hoverinfo="skip", line=line,
                      contours=dict(start=at, end=at, size=1, coloring="none", showlabels=labels),
                      **trace)


def _zero_contour(xs, ys, Z, value, name, color, dash="solid", width=2.2, window=1.0):
    """One level curve of Z at ``value`` in the legend; Z travels as int8 around the level."""
    return level_curve(xs, ys, Z, value, name, dict(color=color, width=width, dash=dash),
                       window=window, showlegend=True)


def decision_title(view: DecisionView, subtitle: str | None = None) -> str:
    """The decision figure's title: f(x) curves in 1-D, f = 0 curves in 2-D, with the settings
    as a smaller second line."""
    text = ("f(x) of the chosen fits (decision: f(x) = 0)" if view.kind == "1d"
            else "Decision curves f = 0 of the chosen fits")
    return text + (f"<br><span style='font-size:11px'>{subtitle}</span>" if subtitle else "")


def _decision_1d(fig: go.Figure, view: DecisionView) -> None:
    xs = view.axes[0]
    x = view.X[:, 0]
    rng = np.random.default_rng(0)
    jit = rng.uniform(-0.05, 0.05, len(x))
    fig.add_trace(go.Scatter(x=x, y=np.where(view.y > 0, 1.0, -1.0) * 1.15 + jit,
                             mode="markers", name="data (y = ±1)", opacity=0.5,
                             marker=dict(size=4, color=np.where(view.y > 0, *CLASS_COLORS))))
    for name, f in view.surfaces.items():
        fig.add_trace(go.Scatter(x=xs, y=np.clip(f, -3, 3), mode="lines", name=_legend(view, name),
                                 line=dict(color=color_of(name), width=2.4 if name == "selected" else 2,
                                           dash=dash_of(name))))
    if view.p_mesh is not None:
        fig.add_trace(go.Scatter(x=xs, y=np.sign(view.p_mesh - view.threshold), mode="lines",
                                 name=f"sign(p(x) − {view.threshold:.3g}) (Bayes)",
                                 line=dict(color="black", width=1.5, dash="dot")))
        fig.add_trace(go.Scatter(x=xs, y=view.p_mesh, mode="lines", name="p(x) = P(A|x)",
                                 line=dict(color="#999999", width=1.5)))
    fig.add_hline(y=0, line=dict(color="#bbbbbb", width=1))
    fig.update_xaxes(title_text=view.feature_names[0], automargin=True)
    fig.update_yaxes(title_text="f(x)", range=[-1.6, 1.6], automargin=True)


def _decision_2d(fig: go.Figure, view: DecisionView) -> None:
    xs, ys = view.axes
    j, k = view.features
    _class_scatter(fig, view, view.X[:, j], view.X[:, k])
    if view.p_mesh is not None:
        fig.add_trace(_zero_contour(xs, ys, view.p_mesh, view.threshold,
                                    f"true (Bayes): p<sub>s</sub> = {view.threshold:.3g}",
                                    "black", dash="dot", width=2.6, window=0.5))
    for name, Z in view.surfaces.items():
        if not (np.nanmin(Z) < 0 < np.nanmax(Z)):
            # no boundary in view: keep the legend entry honest
            fig.add_trace(go.Scatter(x=[None], y=[None], mode="lines",
                                     name=_legend(view, name) + " (no f = 0 in view)",
                                     line=dict(color=color_of(name), dash=dash_of(name))))
            continue
        fig.add_trace(_zero_contour(xs, ys, Z, 0.0, _legend(view, name), color_of(name),
                                    dash=dash_of(name), width=3.2 if name == "selected" else 2.2))
    fig.update_xaxes(title_text=view.feature_names[0], range=[xs[0], xs[-1]], showgrid=False,
                     zeroline=False, automargin=True)
    fig.update_yaxes(title_text=view.feature_names[1], range=[ys[0], ys[-1]], showgrid=False,
                     zeroline=False, automargin=True)


def decision_figure(view: DecisionView, title: str | None = None, height: int = 520,
                    subtitle: str | None = None, style: str = "screen",
                    legend_below: bool = False) -> go.Figure:
    """Data, each chosen fit's decision curve (f(x) itself in 1-D, f = 0 in 2-D) in its
    criterion's colour and dash, the selected point's, and the Bayes boundary; ``subtitle``
    (e.g. ``settings_line(result)``) is a second title line."""
    fig = go.Figure()
    if view.kind == "1d":
        _decision_1d(fig, view)
    else:
        _decision_2d(fig, view)
    subtitle = wrap_line(subtitle, 72 if legend_below else 110) if subtitle else subtitle
    text = decision_title(view, subtitle) if title is None else (
        title + (f"<br><span style='font-size:11px'>{subtitle}</span>" if subtitle else ""))
    sz = STYLES[style]
    # the title block hangs from the figure's top. Plotly anchors a title by its first line alone
    # (so the pad holds that line) and spaces every line 1.3 × the title's font size, whatever the
    # line's own size: the top margin is counted in those lines (browser test: title above plot)
    lines = 1 + (subtitle.count("<br>") + 1 if subtitle else 0)
    pad = TITLE_PAD_PX + sz["title"]
    top = pad + round(1.3 * sz["title"] * (lines - 1)) + 2 * TITLE_PAD_PX
    legend = dict(orientation="v", x=1.01, y=1, font=dict(size=max(12, sz["legend"])))
    if legend_below:
        legend = dict(orientation="h", x=0, xanchor="left", y=0, yanchor="bottom", yref="container",
                      font=dict(size=max(12, sz["legend"])))
    entries = sum(1 for t in fig.data if t.showlegend is not False)
    below = 8 + (sz["legend"] + 9) * -(-entries // 2) if legend_below else 0     # two entries a line
    fig.update_layout(height=height, margin=dict(l=50, r=10, t=top, b=45 + below),
                      plot_bgcolor="white", legend=legend, font=dict(size=sz["tick"]),
                      title=dict(text=text, x=0.02, y=1, yref="container", yanchor="top",
                                 pad=dict(t=pad), font=dict(size=sz["title"])))
    return fig


def _legend(view: DecisionView, name: str) -> str:
    l2n, l2s = view.points.get(name, (np.nan, np.nan))
    tag = "clicked point" if name == "selected" else name
    return f"{tag} ({l2n:g}, {l2s:g})"


# ------------------------------------------------------------------ Fig 1.1
def loss_figure(height: int = 420) -> go.Figure:
    """Misclassification count [−τ]_*, hinge (1 − τ)_+ and logistic losses against τ = y f
    (Wahba et al. 2001, Fig 1.1)."""
    tau = np.linspace(-2.0, 2.0, 801)
    fig = go.Figure()
    step = (tau <= 0).astype(float)
    fig.add_trace(go.Scatter(x=tau, y=step, mode="lines", name="[−τ]<sub>*</sub> misclassification",
                             line=dict(color="black", width=2.5, shape="hv")))
    fig.add_trace(go.Scatter(x=tau, y=np.maximum(0, 1 - tau), mode="lines",
                             name="(1 − τ)<sub>+</sub> hinge (SVM)", line=dict(color="#d62728", width=2.5)))
    fig.add_trace(go.Scatter(x=tau, y=np.log1p(np.exp(-tau)), mode="lines",
                             name="log<sub>e</sub>(1 + e<sup>−τ</sup>) (penalized likelihood)",
                             line=dict(color="#1f77b4", width=2.5, dash="dash")))
    fig.add_trace(go.Scatter(x=tau, y=np.log2(1 + np.exp(-tau)), mode="lines",
                             name="log<sub>2</sub>(1 + e<sup>−τ</sup>)",
                             line=dict(color="#1f77b4", width=1.5, dash="dot")))
    fig.update_layout(height=height, plot_bgcolor="white", margin=dict(l=50, r=10, t=50, b=45),
                      title=dict(text="Loss functions of τ = y f(x) (Wahba et al. 2001, Fig 1.1)", x=0.02),
                      legend=dict(x=0.55, y=0.98))
    fig.update_xaxes(title_text="τ = y f(x)", zeroline=True, zerolinecolor="#cccccc", showgrid=False)
    fig.update_yaxes(title_text="loss", range=[-0.1, 3.1], showgrid=True, gridcolor="#eeeeee")
    return fig


# ------------------------------------------------------------------ Fig 1.3
def path_figure(path: PathView, ncols: int = 5, height_per_row: int = 150) -> go.Figure:
    """f(x) for each nλ of the path as small multiples, with sign(p(x) − threshold) (Fig 1.3)."""
    m = len(path.log2_nlambda)
    nrows = max(1, -(-m // ncols))
    titles = [f"nλ = 2<sup>{int(v) if float(v).is_integer() else v:g}</sup>" for v in path.log2_nlambda]
    fig = make_subplots(rows=nrows, cols=ncols, subplot_titles=titles, shared_xaxes=True,
                        shared_yaxes=True, horizontal_spacing=0.02, vertical_spacing=0.06)
    bayes = None if path.p_x is None else np.sign(path.p_x - path.threshold)
    best = None
    if path.gckl is not None and np.isfinite(path.gckl).any():
        best = int(np.nanargmin(path.gckl))
    for i in range(m):
        r, c = divmod(i, ncols)
        if bayes is not None:
            fig.add_trace(go.Scatter(x=path.x, y=bayes, mode="lines", name="sign(p(x) − ½)",
                                     line=dict(color="#999999", width=1.2, dash="dot"),
                                     showlegend=i == 0, legendgroup="bayes", hoverinfo="skip"),
                          row=r + 1, col=c + 1)
        fig.add_trace(go.Scatter(x=path.x, y=np.clip(path.F[i], -2, 2), mode="lines", name="f(x)",
                                 line=dict(color="#d62728" if i == best else "#1f4e79", width=1.8),
                                 showlegend=i == 0, legendgroup="f",
                                 hovertemplate="x=%{x:.3f}, f=%{y:.3f}<extra>"
                                 + titles[i] + "</extra>"),
                      row=r + 1, col=c + 1)
    fig.update_yaxes(range=[-1.8, 1.8], showgrid=False, zeroline=True, zerolinecolor="#dddddd",
                     tickvals=[-1, 0, 1])
    fig.update_xaxes(showgrid=False, tickvals=[0, 0.5, 1] if path.x.min() >= 0 and path.x.max() <= 1 else None)
    if best is not None:
        fig.layout.annotations[best].font = dict(color="#d62728", size=13)
    fig.update_layout(height=height_per_row * nrows + 80, plot_bgcolor="white",
                      margin=dict(l=40, r=10, t=70, b=30),
                      title=dict(text=f"SVM solutions f(x) along the λ path, log<sub>2</sub> σ = "
                                      f"{path.log2_sigma:g} (red: GCKL minimizer)", x=0.02),
                      legend=dict(orientation="h", x=0.6, y=1.06))
    for a in fig.layout.annotations:
        if a.font is None or a.font.size is None:
            a.font = dict(size=11)
    return fig


def gckl_figure(path: PathView, height: int = 360) -> go.Figure:
    """GCKL (and MISCLASS) against log2(nλ) with the GCKL minimizer marked."""
    fig = go.Figure()
    if path.gckl is not None:
        fig.add_trace(go.Scatter(x=path.log2_nlambda, y=path.gckl, mode="lines+markers", name="GCKL",
                                 line=dict(color=color_of("GCKL"), width=2)))
        if np.isfinite(path.gckl).any():
            b = int(np.nanargmin(path.gckl))
            fig.add_trace(go.Scatter(x=[path.log2_nlambda[b]], y=[path.gckl[b]], mode="markers+text",
                                     name="GCKL minimizer", text=[f"  2^{path.log2_nlambda[b]:g}"],
                                     textposition="middle right",
                                     marker=dict(symbol="star", size=16, color=color_of("GCKL"),
                                                 line=dict(width=1, color="black"))))
    if path.misclass is not None:
        fig.add_trace(go.Scatter(x=path.log2_nlambda, y=path.misclass, mode="lines+markers",
                                 name="MISCLASS", line=dict(color=color_of("MISCLASS"), width=2, dash="dash")))
    fig.update_layout(height=height, plot_bgcolor="white", margin=dict(l=50, r=10, t=50, b=45),
                      title=dict(text="GCKL and MISCLASS against λ (known only in a simulation)", x=0.02))
    fig.update_xaxes(title_text=AXIS_X, showgrid=True, gridcolor="#eeeeee")
    fig.update_yaxes(title_text="value", showgrid=True, gridcolor="#eeeeee")
    return fig


def figure_html(fig: go.Figure, include_plotlyjs="cdn") -> str:
    """A figure as a standalone HTML page (plotly.js from the CDN by default, or embedded with True)."""
    return fig.to_html(include_plotlyjs=include_plotlyjs, full_html=True)


# ------------------------------------------------------------------ exports
def _n_fitted(result) -> int | None:
    """The number of training points of the fits: n = 2^log2(nλ)/λ from the table (the spec's n
    when the table cannot tell)."""
    t = result.table
    if {"lambda", "log2_nlambda"} <= set(t.columns) and len(t):
        with np.errstate(divide="ignore", invalid="ignore"):
            n = 2.0 ** t["log2_nlambda"].to_numpy(float) / t["lambda"].to_numpy(float)
        n = n[np.isfinite(n)]
        if n.size:
            return int(round(float(np.median(n))))
    return result.spec.data.n


def settings_line(result) -> str:
    """One line of the settings behind a result, for figure titles and exports: data and n,
    standard or nonstandard case (C_A, C_B, π_A and the weights L(±1); Wahba et al. 2001, §1.7),
    the grid, XA's ρ and the solver."""
    spec = result.spec
    n = _n_fitted(result)
    parts = [f"{spec.data.name}, n = {n if n is not None else '?'}"]
    prior = "sample" if spec.prior_a is None else f"{spec.prior_a:g}"
    case = "standard" if spec.is_standard else "nonstandard"
    parts.append(f"{case}: C_A = {spec.cost_a:g}, C_B = {spec.cost_b:g}, π_A = {prior}")
    w = result.weights
    if w is not None:
        parts.append(f"L(+1) = {w.L_pos:.4g}, L(−1) = {w.L_neg:.4g}")
    g = spec.grid
    parts.append(f"log2(nλ) {g.log2_nlambda.text}, log2 σ {g.log2_sigma.text}")
    parts.append(f"XA ρ = {spec.xa_rho:g}")
    parts.append(f"solver {spec.solver}")
    return " · ".join(parts)


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", str(text)).strip("-.") or "x"


def export_name(result, kind: str) -> str:
    """A file stem for an export of ``result``: kind, data name, n, costs and prior, grid; only
    the characters [A-Za-z0-9._-]."""
    spec = result.spec
    n = _n_fitted(result)
    g = spec.grid
    prior = "sample" if spec.prior_a is None else f"{spec.prior_a:g}"
    axis = lambda ax: "_".join(f"{v:g}" for v in (ax.start, ax.stop, ax.step))  # noqa: E731
    parts = [kind, spec.data.name, f"n{n if n is not None else 'NA'}",
             f"CA{spec.cost_a:g}", f"CB{spec.cost_b:g}", f"piA{prior}",
             f"nl{axis(g.log2_nlambda)}", f"s{axis(g.log2_sigma)}"]
    return "_".join(_safe(p) for p in parts)


#: the mode-bar buttons that the dashboard's figures do without (a click selects a grid point)
REMOVED_BUTTONS = ("zoom2d", "pan2d", "select2d", "lasso2d", "zoomIn2d", "zoomOut2d", "autoScale2d",
                   "resetScale2d")


def chart_config(filename: str, image_format: str = "png") -> dict:
    """A Plotly config: the mode bar only on hover, its camera button saving ``filename`` as a
    PNG or SVG at scale 2, and no zoom, pan, box or lasso buttons."""
    fmt = str(image_format).lower()
    if fmt not in ("png", "svg"):
        raise ValueError(f"image_format must be 'png' or 'svg', got {image_format!r}")
    return {"displayModeBar": "hover", "displaylogo": False,
            "modeBarButtonsToRemove": list(REMOVED_BUTTONS),
            "toImageButtonOptions": {"format": fmt, "filename": _safe(filename), "scale": 2}}
