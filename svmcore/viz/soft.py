"""Figures of the soft classification family (pure Plotly, no Streamlit).

- ``probability_curves``: 1-D data, p̂(x) of each criterion's chosen fit against the true p(x),
  the labels as a rug, and the SVM's decision (its classification A/B) for contrast.
- ``probability_contours``: 2-D data, one panel per criterion side by side: contours of p̂
  (p̂ = ½ bold, other levels thin), the true p = ½ curve, the SVM's f = 0 curve, the data.
- ``rangacv_spread``: at one σ, the exact GACV against λ and ranGACV for several independent
  draws of the R perturbations: how much a ranGACV curve (and its minimizer) moves with the draw.
"""
from __future__ import annotations

from typing import Callable, Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .plots import COLORS as SVM_COLORS
from .plots import level_curve

#: one colour per criterion (the names as the page shows them), matching the SVM pages' palette:
#: GACV as there, CKL as its SVM analogue GCKL, CV as the CV hinge
COLORS = {"CKL": SVM_COLORS["GCKL"], "GACV": SVM_COLORS["GACV"], "ranGACV": "#332288",
          "CV": SVM_COLORS["CV hinge"], "OBS": SVM_COLORS["OBS"], "true p": "#000000", "SVM": "#CC6677"}
AXIS_X = "log<sub>2</sub>(nλ)"


def _color(name: str) -> str:
    return COLORS.get(name, "#444444")


def probability_curves(x: np.ndarray, curves: Mapping[str, np.ndarray], *,
                       p_true: np.ndarray | None = None, svm_decision: np.ndarray | None = None,
                       x_data: np.ndarray | None = None, y_data: np.ndarray | None = None,
                       title: str = "") -> go.Figure:
    """p̂(x) of each chosen fit on a 1-D grid ``x``.

    Parameters
    ----------
    x : (m,) evaluation points.   curves : {criterion: (m,) p̂ at x}.
    p_true : (m,) the true P(A | x), drawn black.   svm_decision : (m,) the SVM's f(x); drawn as
        its classification 1{f > 0} (the SVM estimates sign(p − ½), not p).
    x_data, y_data : the training points (y ±1), drawn as a rug at 0 and 1.
    """
    fig = go.Figure()
    x = np.asarray(x, float).ravel()
    if x_data is not None and y_data is not None:
        fig.add_trace(go.Scatter(x=np.ravel(x_data), y=(np.ravel(y_data) > 0).astype(float),
                                 mode="markers", name="data (y = 1 for A)",
                                 marker={"symbol": "line-ns-open", "size": 8, "color": "#999999"}))
    if p_true is not None:
        fig.add_trace(go.Scatter(x=x, y=np.ravel(p_true), mode="lines", name="true p",
                                 line={"color": _color("true p"), "width": 3}))
    for name, p in curves.items():
        fig.add_trace(go.Scatter(x=x, y=np.ravel(p), mode="lines", name=f"p̂ ({name})",
                                 line={"color": _color(name), "width": 2}))
    if svm_decision is not None:
        fig.add_trace(go.Scatter(x=x, y=(np.ravel(svm_decision) > 0).astype(float), mode="lines",
                                 name="SVM: 1{f > 0}",
                                 line={"color": _color("SVM"), "dash": "dash", "shape": "hv"}))
    fig.add_hline(y=0.5, line={"color": "#bbbbbb", "dash": "dot"})
    fig.update_layout(title=title or "Estimated P(A | x) at each criterion's choice",
                      xaxis_title="x", yaxis_title="P(A | x)", yaxis_range=[-0.05, 1.05],
                      height=420, margin={"l": 50, "r": 20, "t": 50, "b": 40})
    return fig


def _plane(X: np.ndarray, steps: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    lo, hi = X.min(axis=0), X.max(axis=0)
    pad = 0.1 * (hi - lo)
    g1 = np.linspace(lo[0] - pad[0], hi[0] + pad[0], steps)
    g2 = np.linspace(lo[1] - pad[1], hi[1] + pad[1], steps)
    G1, G2 = np.meshgrid(g1, g2)
    return g1, g2, np.column_stack([G1.ravel(), G2.ravel()])


#: the window the true p − ½ travels in as int8 (``plots.level_curve``), to 0.5/126, as on the
#: tuning page's decision figure (the p̂ levels and the SVM's f = 0 travel as float32: the soft
#: page's figure is 1.4 MB, not 3.2 MB, on each rerun)
P_WINDOW = 0.5


def probability_contours(X: np.ndarray, y: np.ndarray, fits: Mapping[str, Callable], *,
                         p_fn: Callable | None = None, svm_decision: Callable | None = None,
                         levels: Sequence[float] = (0.1, 0.25, 0.75, 0.9), steps: int = 80,
                         titles: Mapping[str, str] | None = None) -> go.Figure:
    """One panel per criterion (side by side): contours of its p̂(x) over the data's plane.

    Parameters
    ----------
    X : (n, 2) data.   y : (n,) ±1 labels.   fits : {criterion: callable (m, 2) → p̂}.
    p_fn : the true P(A | x) (its ½ contour is drawn black).   svm_decision : the SVM's f(x)
        (its f = 0 curve is drawn dashed).   levels : thin p̂ contours besides the bold ½.
    titles : panel titles (default: the criterion's name).
    """
    X = np.asarray(X, float)
    names = list(fits)
    g1, g2, P = _plane(X, steps)
    fig = make_subplots(rows=1, cols=max(1, len(names)), shared_yaxes=True,
                        subplot_titles=[(titles or {}).get(k, k) for k in names] or [""])
    truth = None if p_fn is None else np.asarray(p_fn(P), float).reshape(steps, steps)
    svm = None if svm_decision is None else np.asarray(svm_decision(P), float).reshape(steps, steps)
    for j, name in enumerate(names, start=1):
        Z = np.asarray(fits[name](P), float).reshape(steps, steps)
        fig.add_trace(go.Contour(x=g1, y=g2, z=Z.astype(np.float32),
                                 contours={"coloring": "heatmap", "start": 0, "end": 1, "size": 0.05},
                                 colorscale="RdBu_r", zmin=0, zmax=1, opacity=0.35, showscale=j == 1,
                                 line={"width": 0}, name=f"p̂ {name}", hoverinfo="skip",
                                 colorbar={"title": "p̂"}),
                      row=1, col=j)
        for lev, width in [(v, 1) for v in levels] + [(0.5, 3)]:
            fig.add_trace(level_curve(g1, g2, Z, lev, f"p̂ = {lev:g} ({name})",
                                      {"color": _color(name), "width": width}, labels=True),
                          row=1, col=j)
        for Zc, who, dash in ((truth, "true p", "solid"), (svm, "SVM", "dash")):
            if Zc is not None:
                level, window = (0.5, P_WINDOW) if who == "true p" else (0.0, None)
                fig.add_trace(level_curve(g1, g2, Zc, level,
                                          "true p = ½" if who == "true p" else "SVM f = 0",
                                          {"color": _color(who), "width": 2, "dash": dash},
                                          window=window), row=1, col=j)
        for cls, sym in ((1.0, "circle"), (-1.0, "x")):
            m = np.asarray(y) == cls
            fig.add_trace(go.Scatter(x=X[m, 0], y=X[m, 1], mode="markers", showlegend=False,
                                     marker={"symbol": sym, "size": 5, "color": "#333333"},
                                     name="A" if cls > 0 else "B"), row=1, col=j)
    fig.update_layout(height=420, margin={"l": 40, "r": 20, "t": 50, "b": 40}, showlegend=False,
                      title="p̂ contours (bold: p̂ = ½; black: true p = ½; dashed: SVM f = 0)")
    return fig


def rangacv_spread(log2_nlambda: np.ndarray, gacv: np.ndarray, draws: np.ndarray, reps: int,
                   ckl: np.ndarray | None = None, log2_sigma: float | None = None) -> go.Figure:
    """Exact GACV against log2(nλ) at one σ, with ranGACV for independent draws (rows of
    ``draws``, each averaging ``reps`` perturbations), each draw's minimizer marked; CKL when
    known (ranGACV paper, eqs 8 and 10)."""
    x = np.asarray(log2_nlambda, float)
    draws = np.atleast_2d(np.asarray(draws, float))
    fig = go.Figure()
    for k, row in enumerate(draws):
        fig.add_trace(go.Scatter(x=x, y=row, mode="lines", legendgroup="ran",
                                 showlegend=k == 0, name=f"ranGACV, R = {reps} (each draw)",
                                 line={"color": _color("ranGACV"), "width": 1}, opacity=0.45))
    if draws.size and np.isfinite(draws).any():
        rows = np.where(np.isfinite(draws), draws, np.inf)
        best = np.argmin(rows, axis=1)
        fig.add_trace(go.Scatter(x=x[best], y=draws[np.arange(len(best)), best], mode="markers",
                                 name="ranGACV minimizers",
                                 marker={"color": _color("ranGACV"), "symbol": "triangle-up",
                                         "size": 9}))
    fig.add_trace(go.Scatter(x=x, y=gacv, mode="lines+markers", name="GACV (exact)",
                             line={"color": _color("GACV"), "width": 3}))
    if ckl is not None:
        fig.add_trace(go.Scatter(x=x, y=ckl, mode="lines", name="CKL (target)",
                                 line={"color": _color("CKL"), "width": 2, "dash": "dot"}))
    where = "" if log2_sigma is None else f" at log<sub>2</sub>σ = {log2_sigma:g}"
    fig.update_layout(title=f"ranGACV over {len(draws)} draws of its perturbations{where}",
                      xaxis_title=AXIS_X, yaxis_title="criterion", height=400,
                      margin={"l": 50, "r": 20, "t": 50, "b": 40})
    return fig
