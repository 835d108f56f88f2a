"""The engine side of the dashboard's views: sensible grids, fits at chosen grid points, decision
meshes, regularization paths, the per-criterion summary table, and display labels from the
criteria registries.

Everything here computes and returns plain numbers, arrays and DataFrames; ``svmcore.viz`` only
draws them, and the Streamlit pages call both. Nothing here imports Streamlit or Plotly.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
import pandas as pd

from .families.svm.criteria import IN_SAMPLE, RESAMPLING, TARGETS, gckl_values, brmisclass_values
from .datasets.base import Dataset
from .datasets.load import stratified_subsample, train_test_split  # noqa: F401  (re-exported)
from .families.svm.fit import SVMFit, fit_svm, make_fit, solve_lambdas
from .kernels import Kernel, gaussian_gram, kernel_radius
from .weights import ClassWeights, bayes_threshold, class_weights_from_costs

def _registry_outputs() -> tuple[dict, dict]:
    """({column: Output} of the SVM sweep: its registry's outputs and its held-out scores,
    {column: Output} over every family's registry, the SVM's first)."""
    from .families import all_families, get_family
    from .families.svm.criteria import HOLDOUT_OUTPUTS

    svm = {**get_family("svm").outputs(), **{o.name: o for o in HOLDOUT_OUTPUTS}}
    every = dict(svm)
    for fam in all_families():
        for name, o in fam.outputs().items():
            every.setdefault(name, o)
    return svm, every


#: the SVM sweep's result columns (``SWEEP_OUTPUTS``) and every family's (``OUTPUTS``), each with
#: how figures show it: read from the criteria registries, never kept by hand
SWEEP_OUTPUTS, OUTPUTS = _registry_outputs()
#: display names of the sweep's result-table columns
LABELS = {name: o.label for name, o in SWEEP_OUTPUTS.items()}
#: columns that grow like 1/λ (or faster) and need a log colour scale
LOG_SCALE = tuple(name for name, o in SWEEP_OUTPUTS.items() if o.scale == "log")


def current_outputs() -> dict:
    """{column: Output} over the families registered now (the SVM's first): a criterion added to
    a registry after import is found too."""
    return _registry_outputs()[1]


def label(column: str) -> str:
    """Display name of a result column (``gacv`` → ``GACV``)."""
    if column in LABELS:
        return LABELS[column]
    out = OUTPUTS.get(column) or current_outputs().get(column)
    return column if out is None else out.label


# ------------------------------------------------------------------ grids
def suggested_ranges(data: Dataset, quick: bool = True) -> tuple[str, str]:
    """Sensible ("log2(nλ) range", "log2 σ range") strings for a data set.

    log2(nλ) always spans −25…0 (Wahba et al. 2001, Fig 1.3). The σ range is centred on log2 of the median
    pairwise distance, ±3, except for wahba2d where the paper's −3…3 is used. ``quick`` takes
    steps 2 and 1 (91 points) instead of the paper's 1 and 0.5 (338 points).
    """
    lam = "-24:0:2" if quick else "-25:0:1"
    step = 1 if quick else 0.5
    if data.name in ("wahba2d", "solo_xor"):
        c = 0
    else:
        X = data.X
        rng = np.random.default_rng(0)
        idx = rng.choice(data.n, size=min(data.n, 300), replace=False)
        Z = X[idx]
        d2 = ((Z[:, None, :] - Z[None, :, :]) ** 2).sum(-1)
        med = float(np.median(np.sqrt(d2[np.triu_indices(len(Z), 1)])))
        c = int(np.round(np.log2(med))) if med > 0 else 0
    return lam, f"{c - 3}:{c + 3}:{step:g}"


# ------------------------------------------------------------------ fits at grid points
def fit_at(data: Dataset, log2_nlambda: float, log2_sigma: float,
           weights: ClassWeights | None = None, solver: str = "cvxopt") -> SVMFit:
    """The SVM at one grid point: λ = 2^log2_nlambda / n, Gaussian σ = 2^log2_sigma.

    One λ at a time the pointwise QP is quicker than following the whole path down to λ; when it
    fails the automatic choice is tried.
    """
    lam = 2.0 ** float(log2_nlambda) / data.n
    kernel = Kernel("gaussian", sigma=2.0 ** float(log2_sigma))
    weights = weights or class_weights_from_costs(data.y)
    try:
        return fit_svm(data.X, data.y, lam, kernel, weights, solver=solver)
    except Exception:
        if solver == "auto":
            raise
        return fit_svm(data.X, data.y, lam, kernel, weights, solver="auto")


def chosen_points(result, columns: Sequence[str] | None = None) -> dict:
    """{column: (log2_nlambda, log2_sigma)} of each criterion's grid minimizer (skips all-NaN ones)."""
    out = {}
    for col in columns or result.columns:
        if col not in result.table.columns:
            continue
        row = result.minimizer(col)
        if row is not None:
            out[col] = (float(row["log2_nlambda"]), float(row["log2_sigma"]))
    return out


def decision_columns(result) -> list[str]:
    """The criteria whose chosen fits the decision panel draws by default: the in-sample proxies
    that were computed, plus the target (MISCLASS, or BRMISCLASS when nonstandard) when known."""
    cols = [c for c in ("gacv", "xa", "brxa", "sure", "cv_error", "loo_error")
            if c in result.table.columns and np.isfinite(result.table[c].to_numpy(float)).any()]
    standard = result.weights is None or result.weights.is_standard
    tgt = "misclass" if standard else "brmisclass"
    if tgt in result.table.columns:
        cols.append(tgt)
    if not standard and "xa" in cols and "brxa" in cols:
        cols.remove("xa")          # Fig 1.4 right: GACV, BRXA, BRMISCLASS
    if standard and "brxa" in cols and "xa" in cols:
        cols.remove("brxa")        # Fig 1.4 left: GACV, XA, MISCLASS (BRXA = XA(ρ=1) here)
    return cols


def default_panels(result) -> list[str]:
    """The panels shown first: each proxy beside its target, as in Wahba et al. (2001) Fig 1.5 —
    GACV with GCKL, and XA with MISCLASS (BRXA with BRMISCLASS in the nonstandard case). Without a
    known P(A|x): the computed proxies and the held-out error. The other criteria are one click away;
    fewer panels also draw faster (bench/first_view.py)."""
    t = result.table
    standard = result.weights is None or result.weights.is_standard
    want = ["gacv", "xa" if standard else "brxa", "gckl", "misclass" if standard else "brmisclass",
            "cv_error", "loo_error", "test_error"]
    have = [c for c in want if c in t.columns and np.isfinite(t[c].to_numpy(float)).any()]
    return have or [c for c in result.columns if c in t.columns]


@dataclass
class DecisionView:
    """Everything a decision-curve figure needs.

    kind : "2d" (mesh of f over two features), "1d" (f(x) curves) or "slice" (2-D slice of a
    d > 2 problem with the other features at their medians).
    axes : (x values, y values) of the mesh, or (x values, None) in 1-D.
    surfaces : {label: f on the mesh (ny, nx) or on the line (nx,)}; f = 0 is the decision curve.
    points : {label: (log2_nlambda, log2_sigma)} the grid point each surface comes from.
    p_mesh : true P(A|x) on the mesh/line when known (Bayes boundary at ``threshold``).
    """

    kind: str
    features: tuple
    feature_names: tuple
    axes: tuple
    surfaces: dict
    points: dict
    X: np.ndarray
    y: np.ndarray
    threshold: float
    p_mesh: np.ndarray | None = None
    caption: str = ""
    class_names: tuple = ("A", "B")
    medians: dict = field(default_factory=dict)


def _mesh(data: Dataset, features: tuple, resolution: int):
    j, k = features
    X = data.X
    pad = lambda v: 0.08 * (v.max() - v.min() + 1e-12)  # noqa: E731
    xs = np.linspace(X[:, j].min() - pad(X[:, j]), X[:, j].max() + pad(X[:, j]), resolution)
    ys = np.linspace(X[:, k].min() - pad(X[:, k]), X[:, k].max() + pad(X[:, k]), resolution)
    gx, gy = np.meshgrid(xs, ys)
    med = np.median(X, axis=0)
    M = np.tile(med, (gx.size, 1))
    M[:, j] = gx.ravel()
    M[:, k] = gy.ravel()
    return xs, ys, M


def decision_view(data: Dataset, result, weights: ClassWeights | None = None,
                  columns: Sequence[str] | None = None, selected: tuple | None = None,
                  features: tuple = (0, 1), resolution: int = 70, solver: str = "cvxopt",
                  fits: dict | None = None) -> DecisionView:
    """Fit the SVM chosen by each criterion (and the clicked grid point) and evaluate f on a mesh.

    ``selected`` is a (log2_nlambda, log2_sigma) pair or None. ``fits`` is an optional dict used as
    a cache {(log2_nlambda, log2_sigma): SVMFit} across calls.
    """
    weights = weights or class_weights_from_costs(data.y)
    columns = list(columns) if columns is not None else decision_columns(result)
    points = {label(c): pt for c, pt in chosen_points(result, columns).items()}
    if selected is not None:
        points["selected"] = (float(selected[0]), float(selected[1]))
    fits = {} if fits is None else fits
    if data.d == 1:
        kind = "1d"
        x = data.X[:, 0]
        pad = 0.02 * (x.max() - x.min() + 1e-12)
        xs = np.linspace(x.min() - pad, x.max() + pad, 400)
        M = xs[:, None]
        axes = (xs, None)
        features = (0,)
        caption = ""
    else:
        if data.d == 2:
            features = (0, 1)
        features = tuple(int(f) for f in features)
        if len(set(features)) != 2 or max(features) >= data.d:
            raise ValueError(f"features must be two different column indices < {data.d}")
        kind = "2d" if data.d == 2 else "slice"
        xs, ys, M = _mesh(data, features, resolution)
        axes = (xs, ys)
        caption = ""
        if kind == "slice":
            others = [data.feature_names[i] for i in range(data.d) if i not in features]
            shown = ", ".join(others[:6]) + (" …" if len(others) > 6 else "")
            caption = (f"Slice through {data.feature_names[features[0]]} × "
                       f"{data.feature_names[features[1]]}; the other {len(others)} features "
                       f"({shown}) are held at their medians. Points are projected onto the slice.")
    surfaces = {}
    for name, (l2n, l2s) in points.items():
        key = (round(l2n, 9), round(l2s, 9))
        if key not in fits:
            fits[key] = fit_at(data, l2n, l2s, weights, solver)
        f = fits[key].decision_function(M)
        surfaces[name] = f if kind == "1d" else f.reshape(len(axes[1]), len(axes[0]))
    p_mesh = None
    if data.p_fn is not None:
        try:
            p = np.asarray(data.p_fn(M), float).ravel()
            p_mesh = p if kind == "1d" else p.reshape(len(axes[1]), len(axes[0]))
        except Exception:  # a p_fn that cannot take this slice: no Bayes boundary
            p_mesh = None
    names = tuple(data.feature_names[i] for i in features)
    return DecisionView(kind, features, names, axes, surfaces, points, data.X, data.y,
                        bayes_threshold(weights), p_mesh, caption, tuple(data.class_names),
                        {data.feature_names[i]: float(np.median(data.X[:, i]))
                         for i in range(data.d) if i not in features})


# ------------------------------------------------------------------ regularization path (Fig 1.3)
@dataclass
class PathView:
    """f(x) along a λ path at one σ (1-D data), with GCKL at each λ."""

    x: np.ndarray
    F: np.ndarray                   # (len(log2_nlambda), len(x))
    log2_nlambda: np.ndarray
    log2_sigma: float
    gckl: np.ndarray | None
    misclass: np.ndarray | None
    p_x: np.ndarray | None          # p(x) on x when known
    X: np.ndarray = None
    y: np.ndarray = None
    threshold: float = 0.5


def regularization_path(data: Dataset, log2_sigma: float,
                        log2_nlambda: Sequence[float] = tuple(range(-1, -26, -1)),
                        weights: ClassWeights | None = None, solver: str = "auto",
                        n_x: int = 300) -> PathView:
    """Fits at every nλ in ``log2_nlambda`` for one Gaussian σ (Wahba et al. 2001, Fig 1.3) on 1-D data.

    GCKL and MISCLASS (Wahba et al. 2001, eqs 1.27, 1.20) are evaluated at the training points when the true
    p is known.
    """
    if data.d != 1:
        raise ValueError("the regularization-path view is for 1-D data (e.g. lin1d)")
    weights = weights or class_weights_from_costs(data.y)
    l2 = np.asarray(log2_nlambda, float)
    lams = list(2.0 ** l2 / data.n)
    sigma = 2.0 ** float(log2_sigma)
    kernel = Kernel("gaussian", sigma=sigma)
    K = gaussian_gram(data.X, sigma=sigma)
    upper = weights.upper_bounds(data.y)
    sols = solve_lambdas(K, data.y, upper, lams, solver)
    x = np.linspace(data.X[:, 0].min(), data.X[:, 0].max(), n_x)
    F = np.full((len(l2), n_x), np.nan)
    g = np.full(len(l2), np.nan) if data.p is not None else None
    m = np.full(len(l2), np.nan) if data.p is not None else None
    K_diag, R = np.diag(K).copy(), kernel_radius(K)
    for i, sol in enumerate(sols):
        if isinstance(sol, Exception):
            continue
        fit = make_fit(sol, data.y, upper, weights, K_diag, R, data.X, kernel)
        F[i] = fit.decision_function(x[:, None])
        if data.p is not None:
            g[i] = gckl_values(fit.f, data.p, weights.L_pos, weights.L_neg)
            m[i] = brmisclass_values(fit.f, data.p)
    p_x = np.asarray(data.p_fn(x[:, None]), float).ravel() if data.p_fn is not None else None
    return PathView(x, F, l2, float(log2_sigma), g, m, p_x, data.X, data.y,
                    bayes_threshold(weights))


# ------------------------------------------------------------------ summary table
def summary_table(result) -> pd.DataFrame:
    """One row per criterion: its grid minimizer, value there, MISCLASS/BRMISCLASS there,
    inefficiency (with the range over tied minimizers), n_sv and test error when a test set exists."""
    t = result.table
    ineff = result.inefficiencies()
    rows = []
    for col in result.columns:
        if col not in t.columns:
            continue
        r = result.minimizer(col)
        if r is None:
            rows.append({"criterion": label(col), "column": col})
            continue
        ties = result.pick(col).ties
        row = {"criterion": label(col), "column": col,
               "log2(nλ)": float(r["log2_nlambda"]), "log2 σ": float(r["log2_sigma"]),
               "value": float(r[col]), "tied minimizers": ties}
        for tgt in ("misclass", "brmisclass", "test_error", "test_cost_error"):
            if tgt in t.columns:
                row[label(tgt)] = float(r[tgt])
        if col in ineff:
            val, lo, hi = ineff[col]
            row["inefficiency"] = val
            row["inefficiency range"] = f"{lo:.4f}" if np.isclose(lo, hi) else f"{lo:.4f}–{hi:.4f}"
        row["n_sv"] = int(r["n_sv"]) if np.isfinite(r["n_sv"]) else None
        p = result.pick(col)
        row["on an edge"] = p.edge + (" (hard limit)" if p.at_limit else "") if p.edge else ""
        row["note"] = p.note
        rows.append(row)
    return pd.DataFrame(rows)


__all__ = ["OUTPUTS", "LABELS", "LOG_SCALE", "label", "suggested_ranges",
           "train_test_split", "stratified_subsample", "fit_at", "chosen_points",
           "decision_columns", "DecisionView", "decision_view", "PathView",
           "regularization_path", "summary_table", "IN_SAMPLE", "TARGETS", "RESAMPLING"]
