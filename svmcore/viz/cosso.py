"""Plotly figures of the COSSO SVM (Zhang 2006); pure builders, no Streamlit.

- ``theta_path_figure``: θ_α against the budget M, the chosen M marked.
- ``tuning_figure``: each tuning curve against M with its minimiser.
- ``component_figure``: fitted main effects f_j(x_j) = θ_j Σ_i c_i R_j(x_j, x_ij) and, for the
  Zhang simulations, the true centred logit components (rescaled to the fit's range).
- ``region_figure``: f = 0 in a 2-D slice (other inputs at their training medians) with the data.
- ``comparison_figure``: test error of the COSSO SVM beside the plain Gaussian-kernel SVM.
"""
from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .layout import LEGEND_BELOW, MARGIN_BELOW


CURVE_LABELS = {"gckl": "GCKL", "cv_hinge": "5-fold CV hinge", "gacv": "GACV (refit step)"}

#: true additive logit components of Zhang (2006) Example 1, before centring
TRUE_COMPONENTS = {
    "zhang_additive": {0: lambda x: 3 * x, 1: lambda x: np.pi * np.sin(np.pi * x),
                       2: lambda x: 8 * x ** 5, 3: lambda x: 2 / (math.e - 1) * np.exp(x)},
}


def log_range(values, pad: float = 0.03) -> list[float]:
    """A log axis's range (log10 units) that fits ``values``, with ``pad`` of the span each side."""
    v = np.log10(np.asarray(values, float)[np.asarray(values, float) > 0])
    lo, hi = float(v.min()), float(v.max())
    span = max(hi - lo, 1e-3)
    return [lo - pad * span, hi + pad * span]


def theta_path_figure(payload: dict) -> go.Figure:
    """θ_α of every component against M (log axis fitted to the M grid), the chosen M dashed.

    The chosen M is a line trace, not a layout shape: a shape's or annotation's x on a log axis
    is read in log10 units by Plotly, which stretched the axis far past the grid."""
    fig = go.Figure()
    M = payload["M_grid"]
    for name, vals in payload["theta_path"].items():
        fig.add_trace(go.Scatter(x=M, y=vals, mode="lines+markers", name=name))
    top = max([1.0] + [float(np.nanmax(v)) for v in payload["theta_path"].values() if len(v)])
    fig.add_trace(go.Scatter(x=[payload["M"]] * 2, y=[0, top], mode="lines+text", name="chosen M",
                             text=["", f"M = {payload['M']:.3g}"], textposition="top left",
                             line=dict(color="black", dash="dash"), showlegend=False))
    fig.update_layout(title="θ against the budget M (Σθ ≤ M)", xaxis_title="M", yaxis_title="θ",
                      height=400)
    fig.update_xaxes(type="log", range=log_range(M))
    fig.update_yaxes(range=[-0.03 * top, 1.1 * top])
    return fig


def tuning_figure(payload: dict) -> go.Figure:
    """Each tuning curve against M, one panel per curve, its minimiser starred."""
    curves = payload["curves"]
    names = list(curves)
    fig = make_subplots(rows=1, cols=len(names), subplot_titles=[CURVE_LABELS.get(c, c) for c in names])
    M = np.asarray(payload["M_grid"])
    for k, c in enumerate(names, start=1):
        v = np.asarray(curves[c], float)
        fig.add_trace(go.Scatter(x=M, y=v, mode="lines+markers", name=CURVE_LABELS.get(c, c)),
                      row=1, col=k)
        if np.isfinite(v).any():
            i = int(np.nanargmin(v))
            fig.add_trace(go.Scatter(x=[M[i]], y=[v[i]], mode="markers", showlegend=False,
                                     marker=dict(symbol="star", size=14, color="black")), row=1, col=k)
        fig.update_xaxes(type="log", title_text="M", row=1, col=k)
    fig.update_layout(title=f"Tuning curves (M chosen by {payload['tune']})", height=380)
    return fig


def component_figure(model, dataset_name: str | None = None, n_grid: int = 101) -> go.Figure:
    """Fitted main effects f_j over each input's training range, one panel per main effect
    with θ_j > 0; true centred components of the Zhang additive example when known."""
    mains = [a for a, c in enumerate(model.comps) if len(c) == 1 and model.theta[a] > 0]
    if not mains:
        fig = go.Figure()
        fig.update_layout(title="No main effect selected")
        return fig
    cols = min(4, len(mains))
    rows = -(-len(mains) // cols)
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=[model.names[a] for a in mains])
    truth = TRUE_COMPONENTS.get(dataset_name or "", {})
    for k, a in enumerate(mains):
        j = model.comps[a][0]
        x = np.linspace(model.scaling.low[j], model.scaling.low[j] + model.scaling.span[j], n_grid)
        fx = model.component_function(j, x)
        r, c = k // cols + 1, k % cols + 1
        fig.add_trace(go.Scatter(x=x, y=fx, name="fitted", line=dict(color="#1f77b4"),
                                 showlegend=k == 0), row=r, col=c)
        if j in truth:
            t = truth[j](x)
            t = t - t.mean()
            scale = np.max(np.abs(fx)) / max(np.max(np.abs(t)), 1e-12)
            fig.add_trace(go.Scatter(x=x, y=t * scale, name="true (centred, rescaled)",
                                     line=dict(color="black", dash="dash"), showlegend=k == 0),
                          row=r, col=c)
    fig.update_layout(title="Fitted components f_j(x_j) = θ_j Σ c_i R_j(x_j, x_ij)",
                      height=280 * rows)
    return fig


def region_figure(model, X, y, j: int = 0, k: int = 1, n_grid: int = 80) -> go.Figure:
    """f(x) in the (x_j, x_k) plane, other inputs at their training medians; f = 0 drawn; data."""
    X = np.asarray(X, float)
    lo, hi = X.min(axis=0), X.max(axis=0)
    gj, gk = np.linspace(lo[j], hi[j], n_grid), np.linspace(lo[k], hi[k], n_grid)
    A, B = np.meshgrid(gj, gk)
    Z = np.tile(np.median(X, axis=0), (A.size, 1))
    Z[:, j], Z[:, k] = A.ravel(), B.ravel()
    F = model.decision_function(Z).reshape(A.shape)
    fig = go.Figure(go.Contour(x=gj, y=gk, z=F, colorscale="RdBu", opacity=0.6, name="f",
                               contours=dict(showlines=False), colorbar=dict(title="f")))
    fig.add_trace(go.Contour(x=gj, y=gk, z=F, showscale=False, contours=dict(
        coloring="none", start=0, end=0, size=1), line=dict(color="black", width=2), name="f = 0"))
    for cls, colr, nm in ((1, "#d62728", "A (+1)"), (-1, "#1f77b4", "B (−1)")):
        m = y == cls
        fig.add_trace(go.Scatter(x=X[m, j], y=X[m, k], mode="markers", name=nm,
                                 marker=dict(color=colr, size=5, line=dict(width=0.5, color="white"))))
    names = model.names
    fig.update_layout(title="Decision regions in a 2-D slice (other inputs at their medians)",
                      xaxis_title=names[j], yaxis_title=names[k], height=480,
                      legend=LEGEND_BELOW, margin=MARGIN_BELOW)
    return fig


def comparison_figure(errors: dict, bayes: float | None = None) -> go.Figure:
    """Bar chart of test errors, {label: error}; the Bayes error as a line when known."""
    labels = list(errors)
    fig = go.Figure(go.Bar(x=labels, y=[errors[k] for k in labels],
                           text=[f"{errors[k]:.3f}" for k in labels], textposition="outside"))
    if bayes is not None:
        fig.add_hline(y=bayes, line_dash="dot", annotation_text=f"Bayes {bayes:.3f}")
    fig.update_layout(title="Test error", yaxis_title="misclassification rate", height=360)
    return fig
