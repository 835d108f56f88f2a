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

from typing import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .views import LOG_SCALE, DecisionView, PathView, label

#: one colour per criterion, the same in every figure
COLORS = {
    "GACV": "#d62728", "XA": "#1f77b4", "BRXA": "#1f77b4", "SURE": "#9467bd", "OBS": "#8c564b",
    "GCKL": "#ff7f0e", "MISCLASS": "#2ca02c", "BRMISCLASS": "#2ca02c", "CV hinge": "#e377c2",
    "CV error": "#e377c2", "LOO hinge": "#17becf", "LOO error": "#17becf",
    "test hinge": "#7f7f7f", "test error": "#7f7f7f", "test cost error": "#7f7f7f",
    "selected": "#000000", "true (Bayes)": "#000000",
}
SYMBOLS = ["star", "diamond", "triangle-up", "square", "pentagon", "hexagon", "cross", "x",
           "triangle-down", "star-diamond", "hourglass", "bowtie"]
AXIS_X = "log<sub>2</sub>(nλ)"
AXIS_Y = "log<sub>2</sub> σ"


def color_of(name: str) -> str:
    return COLORS.get(name, "#444444")


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


def hover_texts(result, columns: Sequence[str] | None = None) -> list[str]:
    """One hover string per table row: the grid point and every criterion's value there."""
    t = result.table
    cols = [c for c in (columns or result.columns) if c in t.columns]
    out = []
    for _, r in t.iterrows():
        lines = [f"log2(nλ) = {r['log2_nlambda']:g}, log2 σ = {r['log2_sigma']:g}",
                 f"n_sv = {_fmt(r['n_sv']) if not np.isfinite(r['n_sv']) else int(r['n_sv'])}"]
        lines += [f"{label(c)} = {_fmt(r[c])}" for c in cols]
        if isinstance(r.get("fit_error"), str) and r.get("fit_error"):
            lines.append(f"fit failed: {r['fit_error'][:80]}")
        out.append("<br>".join(lines))
    return out


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


def add_criterion_contour(fig: go.Figure, result, column: str, *, row=None, col=None,
                          hover: list[str] | None = None, show_others: Sequence[str] = (),
                          selected: tuple | None = None, log_scale: bool | None = None,
                          colorbar: dict | None = None) -> go.Figure:
    """Add one criterion's contour, its minimizer(s), optional other minimizers, the selected
    point and the clickable grid-point overlay to ``fig`` (at subplot row/col if given)."""
    xs, ys, Z = result.surface(column)
    V, cbt, lo, hi = _color_values(column, Z, log_scale)
    name = label(column)
    kw = {} if row is None else {"row": row, "col": col}
    fig.add_trace(go.Contour(
        x=xs, y=ys, z=V, name=name, colorscale="Viridis", zmin=lo, zmax=hi, ncontours=18,
        contours=dict(coloring="heatmap", showlines=True), line=dict(width=0.5, color="rgba(255,255,255,0.35)"),
        connectgaps=False, hoverinfo="skip", showscale=True,
        colorbar={**dict(title=dict(text=cbt, side="top"), thickness=10, len=0.95, xpad=4), **(colorbar or {})}), **kw)
    # transparent grid-point overlay: hover shows every criterion, a click selects (λ, σ)
    t = result.table
    hover = hover if hover is not None else hover_texts(result)
    tag = f"<br>{name} = "
    hover = [h.replace(tag, f"<br><b>{name}</b> = ", 1) for h in hover]   # this panel's line in bold
    fig.add_trace(go.Scatter(
        x=t["log2_nlambda"], y=t["log2_sigma"], mode="markers", name=f"{name} grid",
        marker=dict(size=14, color="rgba(0,0,0,0)", line=dict(width=0)),
        customdata=np.c_[t["log2_nlambda"].to_numpy(float), t["log2_sigma"].to_numpy(float)],
        hovertext=hover, hovertemplate="%{hovertext}<extra></extra>", showlegend=False,
        meta="grid"), **kw)
    # this criterion's minimizer (and tied grid points, common for XA which is a count)
    r = result.minimizer(column)
    if r is not None:
        v = t[column].to_numpy(float)
        best = float(r[column])
        tied = np.isclose(v, best, rtol=1e-12, atol=0) & np.isfinite(v)
        if tied.sum() > 1:
            fig.add_trace(go.Scatter(
                x=t.loc[tied, "log2_nlambda"], y=t.loc[tied, "log2_sigma"], mode="markers",
                name=f"{name} ties", hoverinfo="skip", showlegend=False,
                marker=dict(symbol="circle-open", size=9, color="white", line=dict(width=1.5))),
                **kw)
        fig.add_trace(go.Scatter(
            x=[float(r["log2_nlambda"])], y=[float(r["log2_sigma"])], mode="markers",
            name=f"{name} minimizer", hoverinfo="skip", showlegend=False,
            marker=dict(symbol="star", size=17, color="white",
                        line=dict(width=1.5, color=color_of(name)))), **kw)
    for k, other in enumerate(c for c in show_others if c != column and c in t.columns):
        ro = result.minimizer(other)
        if ro is None:
            continue
        on = label(other)
        fig.add_trace(go.Scatter(
            x=[float(ro["log2_nlambda"])], y=[float(ro["log2_sigma"])], mode="markers",
            name=f"{on} minimizer", hoverinfo="skip", showlegend=False,
            marker=dict(symbol=SYMBOLS[(k + 1) % len(SYMBOLS)], size=10, color=color_of(on),
                        line=dict(width=1, color="white"))), **kw)
    if selected is not None:
        fig.add_trace(go.Scatter(
            x=[float(selected[0])], y=[float(selected[1])], mode="markers", name="selected",
            hoverinfo="skip", showlegend=False,
            marker=dict(symbol="circle-open", size=18, color="#ff2b2b", line=dict(width=3))), **kw)
    return fig


def criterion_contour(result, column: str, *, show_others: Sequence[str] = (),
                      selected: tuple | None = None, hover: list[str] | None = None,
                      log_scale: bool | None = None, height: int = 340) -> go.Figure:
    """One criterion over the (log2 nλ, log2 σ) grid as a standalone figure (one contour trace)."""
    fig = go.Figure()
    add_criterion_contour(fig, result, column, hover=hover, show_others=show_others,
                          selected=selected, log_scale=log_scale)
    r = result.minimizer(column)
    sub = "" if r is None else (f"min {_fmt(r[column])} at ({r['log2_nlambda']:g}, "
                                f"{r['log2_sigma']:g})")
    fig.update_layout(
        title=dict(text=f"<b>{label(column)}</b>  <span style='font-size:12px'>{sub}</span>",
                   x=0.02, y=0.97),
        height=height, margin=dict(l=48, r=4, t=36, b=42), clickmode="event+select",
        dragmode=False, hovermode="closest", plot_bgcolor="white")
    fig.update_xaxes(title_text=AXIS_X, showgrid=False, zeroline=False, range=_edges(xs_of(result)),
                     title_standoff=4)
    fig.update_yaxes(title_text=AXIS_Y, showgrid=False, zeroline=False, range=_edges(ys_of(result)),
                     title_standoff=2)
    return fig


def xs_of(result) -> np.ndarray:
    return np.unique(result.table["log2_nlambda"].to_numpy(float))


def ys_of(result) -> np.ndarray:
    return np.unique(result.table["log2_sigma"].to_numpy(float))


def _edges(v: np.ndarray) -> list:
    """Axis range covering the grid plus 0.3 step (room for the markers at the edges)."""
    v = np.asarray(v, float)
    h = 0.3 * (np.min(np.diff(v)) if len(v) > 1 else 1.0)
    return [float(v.min() - h), float(v.max() + h)]


def contour_grid(result, columns: Sequence[str] | None = None, *, ncols: int = 3,
                 show_others: bool = False, selected: tuple | None = None,
                 panel_height: int = 300) -> go.Figure:
    """All criteria as small multiples in one figure (one contour trace per criterion)."""
    cols = [c for c in (columns or result.columns) if c in result.table.columns]
    nrows = max(1, -(-len(cols) // ncols))
    fig = make_subplots(rows=nrows, cols=ncols, subplot_titles=[label(c) for c in cols],
                        horizontal_spacing=0.09, vertical_spacing=0.12 if nrows > 1 else 0.1)
    hover = hover_texts(result, cols)
    for i, c in enumerate(cols):
        r, k = divmod(i, ncols)
        dom_x = fig.get_subplot(r + 1, k + 1).xaxis.domain
        dom_y = fig.get_subplot(r + 1, k + 1).yaxis.domain
        add_criterion_contour(fig, result, c, row=r + 1, col=k + 1, hover=hover,
                              show_others=cols if show_others else (), selected=selected,
                              colorbar=dict(x=dom_x[1] + 0.005, y=(dom_y[0] + dom_y[1]) / 2,
                                            len=(dom_y[1] - dom_y[0]) * 0.95, thickness=8))
    fig.update_xaxes(title_text=AXIS_X, showgrid=False, zeroline=False)
    fig.update_yaxes(title_text=AXIS_Y, showgrid=False, zeroline=False)
    fig.update_layout(height=panel_height * nrows + 60, margin=dict(l=50, r=30, t=50, b=40),
                      clickmode="event+select", hovermode="closest", plot_bgcolor="white",
                      title=dict(text=f"Tuning criteria over the grid — {result.spec.data.name}"))
    return fig


# ------------------------------------------------------------------ decision curves (Fig 1.4)
def _class_scatter(fig, view: DecisionView, xj, yj, **kw):
    A = view.y > 0
    a_name, b_name = view.class_names
    fig.add_trace(go.Scatter(x=xj[A], y=yj[A], mode="markers", name=f"{a_name} (+1)",
                             marker=dict(symbol="cross-thin-open", size=8, color="#1f4e79",
                                         line=dict(width=1.6, color="#1f4e79")),
                             hovertemplate="x=%{x:.3f}, y=%{y:.3f}<extra>" + f"{a_name}</extra>"),
                  **kw)
    fig.add_trace(go.Scatter(x=xj[~A], y=yj[~A], mode="markers", name=f"{b_name} (−1)",
                             marker=dict(symbol="circle-open", size=6, color="#c0504d",
                                         line=dict(width=1.1)),
                             hovertemplate="x=%{x:.3f}, y=%{y:.3f}<extra>" + f"{b_name}</extra>"),
                  **kw)


def _zero_contour(xs, ys, Z, value, name, color, dash="solid", width=2.2):
    return go.Contour(x=xs, y=ys, z=Z, name=name, showscale=False, showlegend=True,
                      contours=dict(start=value, end=value, size=1, coloring="none"),
                      line=dict(color=color, width=width, dash=dash), hoverinfo="skip")


def decision_figure(view: DecisionView, title: str | None = None, height: int = 520) -> go.Figure:
    """Data, each chosen fit's decision curve f = 0, the selected point's, and the Bayes boundary."""
    fig = go.Figure()
    dashes = ["solid", "dash", "dot", "dashdot", "longdash", "longdashdot"]
    if view.kind == "1d":
        xs = view.axes[0]
        x = view.X[:, 0]
        rng = np.random.default_rng(0)
        jit = rng.uniform(-0.05, 0.05, len(x))
        fig.add_trace(go.Scatter(x=x, y=np.where(view.y > 0, 1.0, -1.0) * 1.15 + jit,
                                 mode="markers", name="data (y = ±1)", opacity=0.5,
                                 marker=dict(size=4, color=np.where(view.y > 0, "#1f4e79", "#c0504d"))))
        for k, (name, f) in enumerate(view.surfaces.items()):
            fig.add_trace(go.Scatter(x=xs, y=np.clip(f, -3, 3), mode="lines", name=_legend(view, name),
                                     line=dict(color=color_of(name), width=2.4 if name == "selected" else 2,
                                               dash=dashes[k % len(dashes)])))
        if view.p_mesh is not None:
            fig.add_trace(go.Scatter(x=xs, y=np.sign(view.p_mesh - view.threshold), mode="lines",
                                     name=f"sign(p(x) − {view.threshold:.3g}) (Bayes)",
                                     line=dict(color="black", width=1.5, dash="dot")))
            fig.add_trace(go.Scatter(x=xs, y=view.p_mesh, mode="lines", name="p(x) = P(A|x)",
                                     line=dict(color="#999999", width=1.5)))
        fig.add_hline(y=0, line=dict(color="#bbbbbb", width=1))
        fig.update_xaxes(title_text=view.feature_names[0])
        fig.update_yaxes(title_text="f(x)", range=[-1.6, 1.6])
    else:
        xs, ys = view.axes
        j, k = view.features
        _class_scatter(fig, view, view.X[:, j], view.X[:, k])
        if view.p_mesh is not None:
            fig.add_trace(_zero_contour(xs, ys, view.p_mesh, view.threshold,
                                        f"true (Bayes): p<sub>s</sub> = {view.threshold:.3g}",
                                        "black", dash="dot", width=2.6))
        for m, (name, Z) in enumerate(view.surfaces.items()):
            if not (np.nanmin(Z) < 0 < np.nanmax(Z)):
                # no boundary in view: keep the legend entry honest
                fig.add_trace(go.Scatter(x=[None], y=[None], mode="lines",
                                         name=_legend(view, name) + " (no f = 0 in view)",
                                         line=dict(color=color_of(name), dash=dashes[m % len(dashes)])))
                continue
            fig.add_trace(_zero_contour(xs, ys, Z, 0.0, _legend(view, name), color_of(name),
                                        dash="solid" if name == "selected" else dashes[m % len(dashes)],
                                        width=3.2 if name == "selected" else 2.2))
        fig.update_xaxes(title_text=view.feature_names[0], range=[xs[0], xs[-1]], showgrid=False,
                         zeroline=False)
        fig.update_yaxes(title_text=view.feature_names[1], range=[ys[0], ys[-1]], showgrid=False,
                         zeroline=False)
    fig.update_layout(height=height, margin=dict(l=50, r=10, t=50, b=45), plot_bgcolor="white",
                      legend=dict(orientation="v", x=1.01, y=1, font=dict(size=12)),
                      title=dict(text=title or "Decision curves f = 0 of the chosen fits", x=0.02))
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
