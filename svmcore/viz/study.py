"""Pure Plotly figures of replicate studies and saved runs (no Streamlit here).

- ``inefficiency_box``: inefficiency per criterion, one box (or strip) per weighting, with the
  values Wahba, Lin, Lee & Zhang (2001) §1.8 report for their one sample marked beside them.
- ``minimizer_scatter``: where each criterion's picks fall on the (log2 nλ, log2 σ) plane over the
  replicates (marker area ∝ how many replicates picked the point).
- ``grid_heatmap``: one column of a saved sweep's table over the grid.
"""
from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

CASE_COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]
AXIS_X = "log<sub>2</sub>(nλ)"
AXIS_Y = "log<sub>2</sub> σ"


def _cases(table: pd.DataFrame) -> list[str]:
    return list(dict.fromkeys(table["case"]))


def _criteria(table: pd.DataFrame) -> list[str]:
    return list(dict.fromkeys(table["criterion"]))


def inefficiency_box(table: pd.DataFrame, paper: Mapping | None = None, *, strip: bool = False,
                     title: str = "Inefficiency per criterion (1 = the target's own minimum)",
                     height: int = 420) -> go.Figure:
    """Inefficiency of each criterion over the replicates, grouped by weighting (case).

    ``paper`` maps (case, criterion) to a (low, high) pair drawn as a marker with a range bar
    (one sample's value in the paper, Wahba et al. 2001 §1.8). ``strip`` draws the points only.
    """
    fig = go.Figure()
    crits = _criteria(table)
    for k, case in enumerate(_cases(table)):
        sub = table[table["case"] == case]
        color = CASE_COLORS[k % len(CASE_COLORS)]
        common = dict(x=sub["criterion"].to_list(), y=sub["inefficiency"].to_numpy(float), name=case,
                      legendgroup=case, marker_color=color, offsetgroup=case,
                      customdata=np.stack([sub["replicate"].to_numpy(), sub["seed"].to_numpy()], 1),
                      hovertemplate="%{x}: %{y:.4f}<br>replicate %{customdata[0]} (seed "
                                    "%{customdata[1]})<extra>" + case + "</extra>")
        if strip:
            fig.add_trace(go.Box(**common, boxpoints="all", jitter=0.4, pointpos=0,
                                 fillcolor="rgba(0,0,0,0)", line_color="rgba(0,0,0,0)"))
        else:
            fig.add_trace(go.Box(**common, boxpoints="outliers"))
    for k, case in enumerate(_cases(table)):
        pts = [(c, lo, hi) for (pc, c), (lo, hi) in (paper or {}).items() if pc == case and c in crits]
        if not pts:
            continue
        c, lo, hi = zip(*pts, strict=True)
        mid = [(a + b) / 2 for a, b in zip(lo, hi, strict=True)]
        fig.add_trace(go.Scatter(
            x=list(c), y=mid, mode="markers", name=f"paper, {case}", legendgroup=case,
            offsetgroup=case, marker=dict(symbol="diamond-open", size=12, line_width=2,
                                          color=CASE_COLORS[k % len(CASE_COLORS)]),
            error_y=dict(type="data", symmetric=False, array=[b - m for b, m in zip(hi, mid, strict=True)],
                         arrayminus=[m - a for a, m in zip(lo, mid, strict=True)], width=6),
            hovertemplate="paper: %{y:.4f}<extra>" + case + "</extra>"))
    fig.update_layout(boxmode="group", scattermode="group", height=height, title=title,
                      yaxis_title="inefficiency", xaxis_title="criterion", plot_bgcolor="white",
                      margin=dict(l=50, r=10, t=50, b=40))
    fig.update_xaxes(categoryorder="array", categoryarray=crits)
    fig.update_yaxes(showgrid=True, gridcolor="#eee")
    return fig


def minimizer_counts(table: pd.DataFrame, case: str, criterion: str) -> pd.DataFrame:
    """How many replicates picked each (log2_nlambda, log2_sigma) for one case and criterion."""
    sub = table[(table["case"] == case) & (table["criterion"] == criterion)]
    sub = sub.dropna(subset=["log2_nlambda", "log2_sigma"])
    return (sub.groupby(["log2_nlambda", "log2_sigma"]).size().rename("count").reset_index())


def minimizer_scatter(table: pd.DataFrame, criteria: Sequence[str] | None = None, *,
                      height_per_row: int = 330) -> go.Figure:
    """Picks over the replicates on the (log2 nλ, log2 σ) plane: one panel per case, one colour
    per criterion, marker area ∝ the number of replicates that picked the point."""
    cases = _cases(table)
    crits = list(criteria) if criteria else _criteria(table)
    fig = make_subplots(rows=1, cols=max(1, len(cases)), subplot_titles=cases, shared_yaxes=True,
                        horizontal_spacing=0.06)
    R = max(1, table["replicate"].nunique())
    for j, case in enumerate(cases):
        for k, c in enumerate(crits):
            cnt = minimizer_counts(table, case, c)
            if cnt.empty:
                continue
            fig.add_trace(go.Scatter(
                x=cnt["log2_nlambda"], y=cnt["log2_sigma"], mode="markers", name=c, legendgroup=c,
                showlegend=j == 0, customdata=cnt["count"],
                marker=dict(color=CASE_COLORS[k % len(CASE_COLORS)], opacity=0.65, sizemode="area",
                            size=cnt["count"].to_numpy(float), sizeref=R / 900.0, sizemin=4,
                            line=dict(width=1, color="white")),
                hovertemplate=c + ": (%{x:g}, %{y:g}) picked %{customdata}×<extra></extra>"),
                row=1, col=j + 1)
    fig.update_xaxes(title_text=AXIS_X, showgrid=True, gridcolor="#eee")
    fig.update_yaxes(title_text=AXIS_Y, showgrid=True, gridcolor="#eee", col=1)
    fig.update_layout(height=height_per_row + 60, plot_bgcolor="white", title="Where the picks fall",
                      margin=dict(l=50, r=10, t=60, b=40))
    return fig


def grid_heatmap(table: pd.DataFrame, column: str, *, title: str | None = None,
                 height: int = 360) -> go.Figure:
    """One column of a grid table (a saved sweep) over (log2 nλ, log2 σ), its minimum marked."""
    piv = table.pivot_table(index="log2_sigma", columns="log2_nlambda", values=column,
                            aggfunc="first", dropna=False)
    x, y, Z = piv.columns.to_numpy(float), piv.index.to_numpy(float), piv.to_numpy(float)
    fig = go.Figure(go.Heatmap(x=x, y=y, z=Z, colorscale="Viridis", colorbar=dict(thickness=10),
                               hovertemplate="(%{x:g}, %{y:g}): %{z:.4g}<extra></extra>"))
    if np.isfinite(Z).any():
        i, j = np.unravel_index(np.nanargmin(np.where(np.isfinite(Z), Z, np.nan)), Z.shape)
        fig.add_trace(go.Scatter(x=[x[j]], y=[y[i]], mode="markers", name="minimum",
                                 marker=dict(symbol="star", size=14, color="white",
                                             line=dict(width=1, color="black"))))
    fig.update_layout(title=title or column, height=height, xaxis_title=AXIS_X, yaxis_title=AXIS_Y,
                      margin=dict(l=50, r=10, t=40, b=40))
    return fig
