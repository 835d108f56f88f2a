"""Figures of the regularization-path page (Wahba et al. 2001, Figs 1.2–1.3); pure Plotly builders.

- ``truth_figure``: Fig 1.2, the true p(x) of the 1-D example with its Bayes rule and the data.
- ``path_panels``: Fig 1.3 as small multiples of f(x) at a selection of λ, in ``ncols`` columns
  (fewer, larger panels than one per λ: 25 titles in 5 columns overlap on a phone).
"""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .layout import LEGEND_BELOW

BEST = "#d62728"
F_COLOUR = "#1f4e79"
BAYES_COLOUR = "#777777"


def shown_panels(m: int, every: int, best: int | None = None) -> list[int]:
    """Indices of the λ values drawn: every ``every``-th from the first, the last, and ``best``."""
    keep = set(range(0, m, max(1, int(every)))) | {m - 1}
    if best is not None:
        keep.add(int(best))
    return sorted(keep)


def _lam_title(v: float) -> str:
    return f"nλ = 2<sup>{int(v) if float(v).is_integer() else v:g}</sup>"


def truth_figure(x, p, threshold: float = 0.5, x_data=None, y_data=None, height: int = 340) -> go.Figure:
    """p(x), the level ``threshold`` and the Bayes rule 1{p(x) > threshold} (Wahba et al. 2001,
    Fig 1.2); the training labels (A at 1, B at 0) when given."""
    x, p = np.asarray(x, float), np.asarray(p, float)
    fig = go.Figure()
    if x_data is not None:
        y01 = (np.asarray(y_data) > 0).astype(float)
        fig.add_trace(go.Scatter(x=np.ravel(x_data), y=y01, mode="markers", name="data (A = 1, B = 0)",
                                 marker=dict(size=4, color="#999999", opacity=0.6)))
    fig.add_trace(go.Scatter(x=x, y=(p > threshold).astype(float), mode="lines", name="Bayes rule 1{p(x) > ½}",
                             line=dict(color=BAYES_COLOUR, dash="dot", width=2, shape="hv")))
    fig.add_trace(go.Scatter(x=x, y=p, mode="lines", name="p(x) = P(A | x)",
                             line=dict(color=BEST, width=2.5)))
    fig.add_hline(y=threshold, line=dict(color="#bbbbbb", width=1))
    fig.update_layout(height=height, plot_bgcolor="white", legend=LEGEND_BELOW,
                      margin=dict(l=45, r=10, t=50, b=90),
                      title=dict(text="p(x) and its Bayes rule (Fig 1.2)", x=0.02))
    fig.update_xaxes(title_text="x", showgrid=False)
    fig.update_yaxes(range=[-0.05, 1.05], tickvals=[0, 0.5, 1], showgrid=False)
    return fig


def path_panels(path, every: int = 3, ncols: int = 3, height_per_row: int = 190) -> go.Figure:
    """f(x) at every ``every``-th nλ of ``path`` (and at the GCKL minimizer, in red) in ``ncols``
    columns, with sign(p(x) − threshold) dotted (Wahba et al. 2001, Fig 1.3)."""
    best = None
    if path.gckl is not None and np.isfinite(path.gckl).any():
        best = int(np.nanargmin(path.gckl))
    idx = shown_panels(len(path.log2_nlambda), every, best)
    ncols = max(1, min(int(ncols), len(idx)))
    nrows = -(-len(idx) // ncols)
    titles = [_lam_title(path.log2_nlambda[i]) for i in idx]
    fig = make_subplots(rows=nrows, cols=ncols, subplot_titles=titles, shared_xaxes=True,
                        shared_yaxes=True, horizontal_spacing=0.04, vertical_spacing=0.3 / nrows)
    bayes = None if path.p_x is None else np.sign(path.p_x - path.threshold)
    for k, i in enumerate(idx):
        r, c = divmod(k, ncols)
        if bayes is not None:
            fig.add_trace(go.Scatter(x=path.x, y=bayes, mode="lines", name="sign(p(x) − ½)",
                                     line=dict(color=BAYES_COLOUR, width=1.2, dash="dot"),
                                     showlegend=k == 0, legendgroup="bayes", hoverinfo="skip"),
                          row=r + 1, col=c + 1)
        fig.add_trace(go.Scatter(x=path.x, y=np.clip(path.F[i], -2, 2), mode="lines", name="f(x)",
                                 line=dict(color=BEST if i == best else F_COLOUR, width=1.8),
                                 showlegend=k == 0, legendgroup="f",
                                 hovertemplate="x=%{x:.3f}, f=%{y:.3f}<extra>" + titles[k] + "</extra>"),
                      row=r + 1, col=c + 1)
    fig.update_yaxes(range=[-1.8, 1.8], showgrid=False, zeroline=True, zerolinecolor="#dddddd",
                     tickvals=[-1, 0, 1])
    fig.update_xaxes(showgrid=False, tickvals=[0, 0.5, 1])
    for k, a in enumerate(fig.layout.annotations):
        a.font = dict(size=12, color=BEST if idx[k] == best else None)
    fig.update_layout(height=height_per_row * nrows + 150, plot_bgcolor="white", legend=LEGEND_BELOW,
                      margin=dict(l=35, r=10, t=70, b=80),
                      title=dict(text=f"f(x) along the λ path, log<sub>2</sub> σ = {path.log2_sigma:g}",
                                 x=0.02))
    return fig
