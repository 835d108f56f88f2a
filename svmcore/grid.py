"""The (λ, σ) sweep: one Gram matrix per σ, every λ of the grid, every criterion, a tidy table.

The same function serves the app, the CLI and the benchmarks (DESIGN.md data flow).
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from ._validation import SVMCoreError
from .families.svm.criteria import (ALL_CRITERIA, IN_SAMPLE, RESAMPLING, TARGETS, holdout_scores,
                       in_sample_criteria, inefficiency, target_for)
from .datasets.base import Dataset
from .families.svm.fit import choose_solver, make_fit, solve_lambdas
from .kernels import Kernel, gaussian_gram, kernel_radius, squared_distances
from .families.svm.resampling import hinge_and_error, kfold_decision_values, loo_decision_values
from .weights import ClassWeights, class_weights_from_costs

BASE_COLUMNS = ["log2_sigma", "log2_nlambda", "sigma", "lambda", "n_sv", "train_error"]
DIAGNOSTIC_COLUMNS = ["solver", "kkt_residual", "fit_error"]


def parse_range(text: str, name: str = "range") -> np.ndarray:
    """"START:STOP:STEP" → grid values; STOP is included when it lies on the grid.

    A single number "X" gives [X].
    """
    try:
        parts = [float(t) for t in str(text).split(":")]
    except ValueError:
        raise SVMCoreError(f"{name} must be START:STOP:STEP with numbers, got {text!r}") from None
    if len(parts) == 1:
        return np.array(parts)
    if len(parts) != 3:
        raise SVMCoreError(f"{name} must be START:STOP:STEP, got {text!r}")
    start, stop, step = parts
    if step <= 0:
        raise SVMCoreError(f"{name}: STEP must be positive, got {step:g}")
    if stop < start:
        raise SVMCoreError(f"{name}: STOP ({stop:g}) is below START ({start:g})")
    k = int(np.floor((stop - start) / step + 1e-9))
    if k > 10000:
        raise SVMCoreError(f"{name} has {k + 1} values; at most 10001 allowed")
    return np.round(start + step * np.arange(k + 1), 12)


@dataclass
class Grid:
    """The sweep grid: log2(nλ) values × log2(σ) values (Gaussian kernel)."""

    log2_nlambda: np.ndarray
    log2_sigma: np.ndarray

    @classmethod
    def from_ranges(cls, log2_nlambda: str, log2_sigma: str) -> "Grid":
        return cls(parse_range(log2_nlambda, "log2(nλ)"), parse_range(log2_sigma, "log2(σ)"))

    @classmethod
    def paper(cls) -> "Grid":
        """Seed 000's grid: log2(nλ) = −25…0 step 1, log2 σ = −3…3 step 0.5."""
        return cls(np.arange(-25.0, 0.5, 1.0), np.arange(-3.0, 3.25, 0.5))

    @property
    def size(self) -> int:
        return len(self.log2_nlambda) * len(self.log2_sigma)


#: largest data sets the sweep accepts: an n×n Gram matrix per σ column in memory; LOO refits every
#: support vector at every λ
MAX_ROWS = 5000
LOO_MAX_ROWS = 1000


def row_limit(criteria: Sequence[str] | None) -> tuple[int, str]:
    """(most rows allowed, what imposes it) for a criteria list — for the CSV loader's message."""
    if criteria is not None and "loo" in [c.strip().lower() for c in criteria]:
        return LOO_MAX_ROWS, "exact leave-one-out (LOO)"
    return MAX_ROWS, "the sweep (one n×n Gram matrix per σ)"


def default_criteria(has_truth: bool) -> list[str]:
    """The in-sample criteria, plus the targets when P(A|x) is known."""
    return list(IN_SAMPLE) + (list(TARGETS) if has_truth else [])


def check_criteria(criteria: Sequence[str] | None, has_truth: bool) -> list[str]:
    """Validate a criteria list (names of ``ALL_CRITERIA``); targets need a known P(A|x)."""
    if criteria is None:
        return default_criteria(has_truth)
    crit = [c.strip().lower() for c in criteria if c.strip()]
    unknown = [c for c in crit if c not in ALL_CRITERIA]
    if unknown:
        raise SVMCoreError(f"unknown criteria {unknown}; choose from {', '.join(ALL_CRITERIA)}")
    need_p = [c for c in crit if c in TARGETS]
    if need_p and not has_truth:
        raise SVMCoreError(f"{', '.join(need_p)} need the true P(A|x): use a simulation or give a "
                           "probability column (--p-column)")
    return list(dict.fromkeys(crit))


def criterion_columns(criteria: Sequence[str]) -> list[str]:
    """Result-table columns of the criteria (cv → cv_hinge, cv_error; loo → loo_hinge, loo_error)."""
    cols = []
    for c in criteria:
        cols.extend(RESAMPLING.get(c, (c,)))
    return cols


@dataclass
class SweepResult:
    """A tidy table (one row per grid point) and the settings that made it."""

    table: pd.DataFrame
    criteria: list
    settings: dict = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def columns(self) -> list[str]:
        return criterion_columns(self.criteria) + [c for c in ("test_hinge", "test_error",
                                                               "test_cost_error")
                                                   if c in self.table.columns]

    def surface(self, column: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(log2_nlambda values, log2_sigma values, Z[σ index, λ index]) for a contour plot."""
        piv = self.table.pivot_table(index="log2_sigma", columns="log2_nlambda", values=column,
                                     aggfunc="first", dropna=False)
        return piv.columns.to_numpy(float), piv.index.to_numpy(float), piv.to_numpy(float)

    def minimizer(self, column: str) -> pd.Series | None:
        """The grid row minimizing ``column`` (first one on ties; None when all NaN)."""
        v = self.table[column].to_numpy(float)
        if not np.isfinite(v).any():
            return None
        return self.table.iloc[int(np.nanargmin(np.where(np.isfinite(v), v, np.nan)))]

    def inefficiencies(self) -> dict:
        """Each criterion's inefficiency against MISCLASS (BRMISCLASS when nonstandard)."""
        w = self.settings.get("weights")
        tgt = target_for(None if w is None else ClassWeights(w["L_pos"], w["L_neg"]))
        if tgt not in self.table.columns:
            return {}
        return {c: inefficiency(self.table, c, tgt)
                for c in self.columns if c != tgt and c in self.table.columns}


def _column_rows(X, y, p, upper, weights, sigma, log2_sigma, lams, log2_nl, criteria, xa_rho,
                 cv_folds, cv_seed, solver, sqdist, X_test, y_test):
    """All rows of one σ column: Gram matrix once, every λ, every criterion."""
    n = len(y)
    K = gaussian_gram(None, sigma=sigma, sqdist=sqdist)
    K_diag = np.diag(K).copy()
    R = kernel_radius(K)
    kernel = Kernel("gaussian", sigma=sigma)
    t0 = time.perf_counter()
    sols = solve_lambdas(K, y, upper, lams, solver)
    insample = [c for c in criteria if c not in RESAMPLING]
    rows = []
    for lam, l2, sol in zip(lams, log2_nl, sols):
        row = {"log2_sigma": log2_sigma, "log2_nlambda": l2, "sigma": sigma, "lambda": lam}
        if isinstance(sol, Exception):
            row.update(n_sv=np.nan, train_error=np.nan, solver=solver, kkt_residual=np.nan,
                       fit_error=f"{type(sol).__name__}: {sol}")
            rows.append(row)
            continue
        fit = make_fit(sol, y, upper, weights, K_diag, R, X, kernel)
        row.update(n_sv=fit.n_sv, train_error=fit.train_error())
        try:
            row.update(in_sample_criteria(fit, insample, p, xa_rho))
            if X_test is not None:
                row.update(holdout_scores(fit, X_test, y_test))
            row.update(solver=fit.solver, kkt_residual=fit.kkt_residual, fit_error="")
        except Exception as exc:
            row.update(solver=fit.solver, kkt_residual=fit.kkt_residual,
                       fit_error=f"{type(exc).__name__}: {exc}")
        rows.append(row)
    if "cv" in criteria:
        F = kfold_decision_values(K, y, upper, lams, cv_folds, cv_seed, solver)
        h, e = hinge_and_error(F, y, upper)
        for row, hk, ek in zip(rows, h, e):
            row.update(cv_hinge=hk, cv_error=ek)
    if "loo" in criteria:
        F = loo_decision_values(K, y, upper, lams, sols, solver)
        h, e = hinge_and_error(F, y, upper)
        for row, hk, ek in zip(rows, h, e):
            row.update(loo_hinge=hk, loo_error=ek)
    for row in rows:
        row["seconds"] = (time.perf_counter() - t0) / len(rows)
    return rows


def auto_jobs(n: int, n_columns: int, criteria: Sequence[str] = ()) -> int:
    """Workers for the σ columns: all cores (at most one per column) when the columns are heavy
    enough to repay starting worker processes (a few seconds in a fresh process): n ≥ 300, or
    leave-one-out refits from n ≥ 100; else 1.

    Measured on the 2-core machine (bench/path_vs_pointwise.py, paper grid): n = 200 takes
    ~0.8 s in one process; n = 500 takes ~3 s in one process and ~2 s on two workers.
    """
    cores = os.cpu_count() or 1
    heavy = n >= 300 or ("loo" in criteria and n >= 100)
    return max(1, min(cores, n_columns)) if heavy else 1


def sweep(data: Dataset, grid: Grid, weights: ClassWeights | None = None,
          criteria: Sequence[str] | None = None, *, xa_rho: float = 2.0, cv_folds: int = 5,
          cv_seed: int = 0, solver: str = "auto", n_jobs: int | None = 1,
          progress: Callable[[int, int], None] | None = None,
          test: Dataset | None = None) -> SweepResult:
    """Fit the weighted SVM over the grid and compute every requested criterion (SPEC §2–5).

    Parameters
    ----------
    data : Dataset.  grid : Grid of log2(nλ) × log2(σ).  weights : ClassWeights (default L ≡ 1
    with π_A the sample proportion).  criteria : names from ``ALL_CRITERIA`` (default: in-sample
    ones plus targets when P(A|x) is known).  xa_rho : XA's ρ.  cv_folds, cv_seed : k-fold CV.
    solver : "auto", "path", "cvxopt" or "libsvm".  n_jobs : σ columns computed in parallel
    (joblib); None or 0: ``auto_jobs``.  progress : called as progress(columns_done,
    columns_total).  test : a held-out set
    for test_hinge / test_error / test_cost_error.

    Returns
    -------
    SweepResult, one table row per grid point; a failed fit fills its row's ``fit_error``.
    """
    t0 = time.perf_counter()
    weights = weights or class_weights_from_costs(data.y)
    criteria = check_criteria(criteria, data.has_truth)
    limit, what = row_limit(criteria)
    if data.n > limit:
        raise SVMCoreError(f"{what} is limited to {limit} rows; this data set has {data.n}")
    if "cv" in criteria and not (2 <= cv_folds <= min(np.sum(data.y > 0), np.sum(data.y < 0))):
        raise SVMCoreError(f"cv_folds must be between 2 and the size of the smaller class, got {cv_folds}")
    solver = choose_solver(solver, data.n)
    y, n = data.y, data.n
    upper = weights.upper_bounds(y)
    log2_nl = np.asarray(grid.log2_nlambda, float)
    lams = list(2.0 ** log2_nl / n)
    sqdist = squared_distances(data.X)
    X_test = y_test = None
    if test is not None:
        X_test, y_test = test.X, test.y
    jobs = [(float(2.0 ** ls), float(ls)) for ls in grid.log2_sigma]
    args = (data.X, y, data.p, upper, weights)
    rest = (lams, log2_nl, criteria, xa_rho, cv_folds, cv_seed, solver, sqdist, X_test, y_test)
    rows_by_sigma = {}
    total = len(jobs)
    if not n_jobs:
        n_jobs = auto_jobs(n, total, criteria)
    if progress:
        progress(0, total)
    if n_jobs == 1 or total == 1:
        for k, (sigma, ls) in enumerate(jobs):
            rows_by_sigma[ls] = _column_rows(*args, sigma, ls, *rest)
            if progress:
                progress(k + 1, total)
    else:
        from joblib import Parallel, delayed

        par = Parallel(n_jobs=n_jobs, return_as="generator_unordered")
        gen = par(delayed(lambda s, l: (l, _column_rows(*args, s, l, *rest)))(s, l) for s, l in jobs)
        for k, (ls, rows) in enumerate(gen):
            rows_by_sigma[ls] = rows
            if progress:
                progress(k + 1, total)
    rows = [r for _, ls in jobs for r in rows_by_sigma[ls]]
    table = pd.DataFrame(rows)
    cols = BASE_COLUMNS + criterion_columns(criteria)
    extra = [c for c in ("test_hinge", "test_error", "test_cost_error") if c in table.columns]
    for c in cols:
        if c not in table.columns:
            table[c] = np.nan
    table = table[cols + extra + DIAGNOSTIC_COLUMNS + ["seconds"]]
    settings = {"dataset": data.name, "n": n, "weights": weights.as_dict(), "criteria": criteria,
                "xa_rho": xa_rho, "cv_folds": cv_folds, "cv_seed": cv_seed, "solver": solver,
                "log2_nlambda": list(map(float, log2_nl)),
                "log2_sigma": list(map(float, grid.log2_sigma))}
    return SweepResult(table, criteria, settings, time.perf_counter() - t0)
