"""Figures of the unbiased SVC (Navia-Vázquez et al. 2004, Figs 2–4); pure Plotly builders."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ..datasets.simulations import NAVIA, navia_pos_pdf, navia_threshold_error
from ..families.usvc.surface import empirical_threshold_error, profile, surface, trajectory
from .layout import LEGEND_BELOW, MARGIN_BELOW


def class_densities(name: str, grid=None) -> go.Figure:
    """Prior-weighted class densities π_± f(x | ±1) of navia_a / navia_b (Fig 2a–b)."""
    prior, comps = NAVIA[name]
    x = np.linspace(-0.1, 1.2, 600) if grid is None else np.asarray(grid, float)
    pos = navia_pos_pdf(x, comps)
    neg = ((x >= 0) & (x <= 0.5)) / 0.5
    fig = go.Figure([go.Scatter(x=x, y=prior * pos, name="π₊ f(x | +1)"),
                     go.Scatter(x=x, y=(1 - prior) * neg, name="π₋ f(x | −1)", line=dict(dash="dash"))])
    fig.update_layout(title=f"{name}: class densities", xaxis_title="x", yaxis_title="density")
    return fig


def threshold_error_figure(name: str, x=None, y=None, thresholds: dict | None = None) -> go.Figure:
    """Theoretical (and empirical) error of "+1 where x > Th", with chosen thresholds (Fig 2c–d)."""
    th = np.linspace(0.0, 1.0, 401)
    fig = go.Figure(go.Scatter(x=th, y=navia_threshold_error(name, th), name="theoretical CE"))
    if x is not None:
        fig.add_scatter(x=th, y=empirical_threshold_error(x, y, th), name="training CE",
                        line=dict(dash="dot"))
    chosen = sorted((float(t), label) for label, t in (thresholds or {}).items()
                    if t is not None and np.isfinite(t))
    for k, (t, label) in enumerate(chosen):      # one height each: close thresholds' labels clear
        fig.add_vline(x=t, line_dash="dash")
        fig.add_annotation(x=t, y=1.0 - 0.08 * k, xref="x", yref="paper", text=f"{label}: {t:.3f}",
                           showarrow=False, xanchor="left", yanchor="bottom", bgcolor="rgba(255,255,255,0.7)")
    fig.update_layout(title=f"{name}: error vs threshold", xaxis_title="threshold Th",
                      yaxis_title="classification error")
    return fig


def surface_figure(x, y, C: float, loss: str, s: float = 2.0, paths: dict | None = None,
                   th_grid=None, w_grid=None) -> go.Figure:
    """L̃_P(Th, w)/(C n) over (Th, w) with IRWLS trajectories (Figs 3a, 3c), and its profile."""
    th = np.linspace(0.0, 1.0, 101) if th_grid is None else np.asarray(th_grid)
    w = np.linspace(0.25, 25.0, 100) if w_grid is None else np.asarray(w_grid)
    n = len(np.ravel(y))
    S = surface(x, y, th, w, C, loss, s)
    prof, wmin = profile(S, w, C, n)
    # the colour bar stands in the gap, and the profile's axis is on its right, so that at a
    # phone's width (390 px) neither the bar nor the two titles run into each other
    fig = make_subplots(1, 2, horizontal_spacing=0.2,
                        subplot_titles=(f"{loss.upper()} surface L̃_P / (C n)", "min over w"))
    right = fig.layout.xaxis.domain[1]
    fig.add_trace(go.Contour(x=th, y=w, z=np.log10(S / (C * n)), colorscale="Viridis", name="surface",
                             colorbar=dict(title="log10", x=right + 0.01, xanchor="left",
                                           thickness=14)), 1, 1)
    fig.add_scatter(x=th, y=wmin, mode="lines", line=dict(dash="dash", color="white"),
                    name="min over w", row=1, col=1)
    for label, (coef_path, b_path) in (paths or {}).items():
        tk, wk = trajectory(coef_path, b_path)
        fig.add_scatter(x=tk, y=wk, mode="lines+markers", marker=dict(size=4), name=label, row=1, col=1)
    fig.add_scatter(x=th, y=prof, name="profile", row=1, col=2)
    fig.update_xaxes(title_text="Th", range=[th[0], th[-1]])
    fig.update_yaxes(title_text="w", range=[w[0], w[-1]], row=1, col=1)
    fig.update_yaxes(side="right", row=1, col=2)
    fig.update_layout(legend=LEGEND_BELOW, margin={**MARGIN_BELOW, "r": 40}, height=500)  # r: the ticks
    return fig


def test_error_bars(results: dict) -> go.Figure:
    """Train and test error side by side, results = {label: (train, test)}."""
    labels = list(results)
    fig = go.Figure([go.Bar(x=labels, y=[results[k][0] for k in labels], name="train"),
                     go.Bar(x=labels, y=[results[k][1] for k in labels], name="test")])
    fig.update_layout(barmode="group", yaxis_title="classification error", title="errors")
    return fig


def kernel_machine_figure(data, machines: dict, resolution: int = 120) -> go.Figure:
    """2-D data with the zero level of each machine's decision function (``decision_function``)
    and the Bayes rule p = ½; their values travel as float32 (314 kB, not 604 kB, for the Unbiased
    SVC page's two machines and the Bayes rule). Not as int8 around the level
    (``plots.level_bytes``): a prototype machine's f is nearly flat far from its prototypes, and
    its zero curve came out jagged there."""
    X = data.X
    lo, hi = X.min(0) - 0.5, X.max(0) + 0.5
    gx, gy = np.linspace(lo[0], hi[0], resolution), np.linspace(lo[1], hi[1], resolution)
    G = np.column_stack([np.repeat(gx[None, :], resolution, 0).ravel(),
                         np.repeat(gy[:, None], resolution, 1).ravel()])
    fig = go.Figure()
    for cls, sym in ((1.0, "circle"), (-1.0, "x")):
        m = data.y == cls
        fig.add_scatter(x=X[m, 0], y=X[m, 1], mode="markers", marker=dict(symbol=sym, size=5),
                        name=f"class {cls:+.0f}")
    palette = ("#d62728", "#1f77b4", "#2ca02c", "#9467bd")
    for k, (label, mach) in enumerate(machines.items()):
        Z = mach.decision_function(G).reshape(resolution, resolution)
        color = palette[k % len(palette)]
        fig.add_trace(go.Contour(x=gx, y=gy, z=Z.astype(np.float32),
                                 contours=dict(start=0, end=0, size=1, coloring="none"),
                                 line=dict(color=color, width=2), showscale=False, name=label,
                                 showlegend=True))
        if hasattr(mach, "centers"):
            fig.add_scatter(x=mach.centers[:, 0], y=mach.centers[:, 1], mode="markers",
                            marker=dict(symbol="diamond", size=7, color=color), name=f"{label} prototypes")
    if data.p_fn is not None:
        P = data.p_fn(G).reshape(resolution, resolution)
        fig.add_trace(go.Contour(x=gx, y=gy, z=P.astype(np.float32),
                                 contours=dict(start=0.5, end=0.5, size=1, coloring="none"),
                                 line=dict(color="black", dash="dot"), showscale=False, name="Bayes",
                                 showlegend=True))
    fig.update_layout(title="decision boundaries f(x) = 0", xaxis_title="x1", yaxis_title="x2")
    return fig
