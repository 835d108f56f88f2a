"""The weighted SVM as a model family (Wahba, Lin, Lee & Zhang 2001; Solo's SURE).

One σ column: the dual is solved at every λ of the column (the exact λ-path by default), then
every in-sample criterion is a plain function of each fit (``criteria.py``) and the resampling
criteria refit along λ (``resampling.py``). See ``docs/svm.md``.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from numbers import Real

from ..._validation import SVMCoreError
from ...kernels import Kernel, kernel_radius
from ...params import Interval, Options, Param
from ...spec import LOO_MAX_ROWS, MAX_ROWS
from ..base import ModelFamily
from ..common import COSTS, CV_FOLDS, CV_SEED
from .criteria import (CRITERIA, HOLDOUT_OUTPUTS, IN_SAMPLE, TARGETS, at_upper_bound, holdout_scores,
                       in_sample_criteria)
from .fit import SVMFit, choose_solver, fit_svm, make_fit, path_end, solve_lambdas
from .resampling import hinge_and_error, kfold_paths, loo_decision_values
from .solvers.locality import MIN_POINTS as LOCALITY_FROM
from .solvers.locality import locality_order

HOLDOUT_COLUMNS = tuple(o.name for o in HOLDOUT_OUTPUTS)

#: the SVM's parameters (the generic data, grid and kernel tables are in ``svmcore.spec``)
PARAMS = COSTS + (
    Param("xa_rho", Interval(Real, 0.0, 10.0, "right"), 2.0, "ρ of XA",
          "ρ of Joachims' ξα (eq 1.21): 2 bounds the leave-one-out count, 1 is SVMlight's",
          aliases=("rho",), step=0.1),
    CV_FOLDS, CV_SEED,
    Param("solver", Options(("auto", "path", "cvxopt", "libsvm")), "auto", "solver",
          "the dual solver (auto: the exact λ-path)", widget="select"),
)


@dataclass(frozen=True)
class PathEnd:
    """Where an SVM column's paths stopped (``SVMFamily.column_with_end``): the full sample's
    answer at the column's smallest λ and each CV fold's (``fit.path_end``: None where a path
    cannot carry on from it; ``folds`` None without CV). Grid growth toward small λ hands it back
    as ``Column.start``, and the paths carry on from there instead of from the top."""

    full: object = None
    folds: tuple | None = None


class SVMFamily(ModelFamily):
    """Weighted SVM, f = b + h minimising (1/n) Σ L(y_i)(1 − y_i f_i)_+ + λ‖h‖² (eq 1.25)."""

    name = "svm"
    title = "Support vector machine (hinge loss)"
    params = PARAMS
    criteria = CRITERIA
    kernels = ("gaussian", "laplacian", "linear")
    #: KKT residual above which a fit is flagged and left out of minimizer selection
    kkt_flag = 1e-5
    #: criteria whose pick may sit on an edge without growing the grid (OBS always falls as λ → 0)
    edge_exempt = ("obs",)
    holdout_columns = HOLDOUT_COLUMNS
    info_columns = ("n_sv", "train_error")

    def default_criteria(self, has_truth: bool) -> tuple[str, ...]:
        return IN_SAMPLE + (TARGETS if has_truth else ())

    def diagnostic_columns(self) -> list[str]:
        return ["solver", "kkt_residual", "flagged", "fit_error"]

    def unusable(self, table) -> np.ndarray:
        """Rows whose fit is not trusted: KKT residual above ``kkt_flag`` (flagged in the panels,
        left out of every pick)."""
        return table["kkt_residual"].to_numpy(float) > self.kkt_flag

    def pick_rows(self, table, column: str, ok: np.ndarray):
        """SURE's pick skips its degenerate plateau and the plateau's rim (Solo; ``docs/svm.md``).
        Where no point is at its bound the complexity term vanishes and SURE's global minimum is a
        flat plateau at small λ. A point off the plateau whose next smaller λ in its σ column is on
        the plateau, and lower, is SURE falling onto it (the rim, ``plateau_rim``), not a minimum
        of its own: as σ shrinks every column's rim falls toward the plateau's e⁻¹, so a rim pick
        would drive the grid's growth toward small σ to the hard limit. The pick is the best point
        off both (the best rim point, with a note, where there is no other). Other criteria: None
        (the plain minimum)."""
        if column != "sure" or "sure_degenerate" not in table.columns:
            return None
        degenerate = table["sure_degenerate"].fillna(False).to_numpy(bool)
        v = table[column].to_numpy(float)
        off = ok & ~degenerate
        if not off.any():
            return None
        inner = off & ~plateau_rim(table, v, degenerate)          # off the plateau and its rim
        keep = inner if inner.any() else off
        best = np.min(v[keep])
        tied = np.flatnonzero(keep & np.isclose(v, best, rtol=1e-12, atol=0))
        notes = []
        if (ok & degenerate).any() and np.min(v[ok & degenerate]) < best:
            notes += ["SURE's global minimum lies on its degenerate plateau (no point at its bound, "
                      "so the complexity term vanishes)", "the pick is the best point off the plateau"]
        if not inner.any():
            notes.append("every point off the plateau is on its rim (falling onto it in λ); the pick "
                         "is the best of them")
        elif (off & ~inner).any() and np.min(v[off & ~inner]) < best:
            notes.append("lower points on the plateau's rim (next to it in λ, falling onto it) are "
                         "passed over too")
        return tied, "; ".join(notes)

    def target_for(self, spec) -> str | None:
        """MISCLASS, or BRMISCLASS in the nonstandard case (Wahba et al. 2001, §1.8)."""
        return "misclass" if spec.is_standard else "brmisclass"

    def check(self, spec, n: int, n_pos: int, n_neg: int) -> None:
        limit, what = (LOO_MAX_ROWS, "exact leave-one-out (LOO)") if "loo" in spec.criteria \
            else (MAX_ROWS, "the sweep (one n×n Gram matrix per σ)")
        if n > limit:
            raise SVMCoreError(f"{what} is limited to {limit} rows; this data set has {n}")
        if "cv" in spec.criteria and not (2 <= spec.cv_folds <= min(n_pos, n_neg)):
            raise SVMCoreError(f"cv_folds must be between 2 and the size of the smaller class "
                               f"({min(n_pos, n_neg)}), got {spec.cv_folds}")

    def columns_in_threads(self, spec, n: int) -> bool:
        """The path's columns run on threads where every path of them crosses its events in the
        compiled loop, which releases the GIL (``path.COMPILED_FROM_N`` points or more, the CV
        folds' and LOO's paths included): wahba2d, the paper grid in one process, two threads
        against one column after another, n = 2000 7.99 / 8.61 s against 17.03 / 15.46 s, n = 500
        0.58–0.72 s against 0.80–0.84 s; at n = 200, where the numpy code crosses the events,
        1.09–1.12 s against 0.69–0.80 s (Zen 3, 2 cores, 2026-12-02)."""
        from .solvers.path import COMPILED_FROM_N

        smallest = n - 1 if "loo" in spec.criteria else n
        if "cv" in spec.criteria:
            smallest = min(smallest, n - -(-n // spec.cv_folds))      # the largest fold left out
        return choose_solver(spec.solver, n) == "path" and smallest >= COMPILED_FROM_N

    def column(self, col) -> list[dict]:
        """All rows of one σ column: every λ, every criterion (one Gram matrix)."""
        return self.column_with_end(col)[0]

    def column_with_end(self, col) -> tuple[list[dict], "PathEnd"]:
        """``column``'s rows and where its paths stopped (``PathEnd``); with ``col.start`` (such
        an end of this σ column), the paths carry on from it for the λ below its own."""
        spec, data = col.spec, col.data
        y, K = data.y, col.K
        upper = col.weights.upper_bounds(y)
        solver = choose_solver(spec.solver, data.n)
        K_diag, R = np.diag(K).copy(), kernel_radius(K)
        kernel = Kernel(spec.kernel, sigma=col.sigma)
        t0 = time.perf_counter()
        lams = list(col.lambdas)
        order = locality_order(data.X) if data.n >= LOCALITY_FROM else None
        start = col.start or PathEnd(None)
        sols = solve_lambdas(K, y, upper, lams, solver, point_order=order, start=start.full)
        registry = {c.name: c for c in self.criteria}
        insample = [c for c in spec.criteria if registry[c].needs in ("fit", "truth")]
        rows = []
        for k, sol in enumerate(sols):
            row = col.base_row(k)
            if isinstance(sol, Exception):
                row.update(n_sv=np.nan, train_error=np.nan, solver=solver, kkt_residual=np.nan,
                           fit_error=f"{type(sol).__name__}: {sol}")
                rows.append(row)
                continue
            fit = make_fit(sol, y, upper, col.weights, K_diag, R, data.X, kernel)
            row.update(n_sv=fit.n_sv, train_error=fit.train_error(), solver=fit.solver,
                       kkt_residual=fit.kkt_residual, fit_error="")
            if "sure" in insample:
                row["sure_degenerate"] = not bool(np.any(at_upper_bound(fit)))
            try:
                row.update(in_sample_criteria(fit, insample, data.p, spec=spec, registry=registry))
                if col.test is not None:
                    row.update(holdout_scores(fit, col.test.X, col.test.y))
            except Exception as exc:  # one bad point must not stop the column
                row["fit_error"] = f"{type(exc).__name__}: {exc}"
            rows.append(row)
        folds = self._resampling(col, rows, sols, upper, solver, start.folds)
        for row in rows:
            row["seconds"] = (time.perf_counter() - t0) / len(rows)
        return rows, PathEnd(path_end(lams, sols), folds)

    @staticmethod
    def _resampling(col, rows, sols, upper, solver, fold_starts=None) -> tuple | None:
        """CV's and LOO's columns into ``rows``; the CV folds' path ends (None without CV)."""
        spec, y, lams = col.spec, col.data.y, list(col.lambdas)
        ends = None
        if "cv" in spec.criteria:
            F, ends = kfold_paths(col.K, y, upper, lams, spec.cv_folds, spec.cv_seed, solver,
                                  fold_starts)
            for row, h, e in zip(rows, *hinge_and_error(F, y, upper)):
                row.update(cv_hinge=h, cv_error=e)
        if "loo" in spec.criteria:
            F = loo_decision_values(col.K, y, upper, lams, sols, solver)
            for row, h, e in zip(rows, *hinge_and_error(F, y, upper)):
                row.update(loo_hinge=h, loo_error=e)
        return None if ends is None else tuple(ends)

    def fit_payload(self, spec, data, log2_nlambda: float, log2_sigma: float) -> dict:
        """JSON for ``svmcore fit``: the fit at one grid point and its in-sample criteria."""
        lam, sigma = 2.0 ** log2_nlambda / data.n, 2.0 ** log2_sigma
        weights = spec.weights(data.y)
        fit = fit_svm(data.X, data.y, lam, Kernel(spec.kernel, sigma=sigma), weights, spec.solver)
        crit = in_sample_criteria(fit, self.default_criteria(data.has_truth), data.p, spec=spec)
        return {"model": self.name, "log2_nlambda": log2_nlambda, "log2_sigma": log2_sigma,
                "lambda": lam, "sigma": sigma, "kernel": spec.kernel, "b": fit.b, "alpha": fit.alpha.tolist(),
                "f": fit.f.tolist(), "criteria": crit, "n_sv": fit.n_sv,
                "weights": weights.as_dict(), "solver": fit.solver,
                "kkt_residual": fit.kkt_residual}

    def fit_at(self, spec, data, log2_nlambda: float, log2_sigma: float) -> SVMFit:
        """The SVM at one grid point; the pointwise QP, else the automatic solver."""
        lam = 2.0 ** float(log2_nlambda) / data.n
        kernel = Kernel(spec.kernel, sigma=2.0 ** float(log2_sigma))
        weights = spec.weights(data.y)
        try:
            return fit_svm(data.X, data.y, lam, kernel, weights, solver="cvxopt")
        except Exception:
            return fit_svm(data.X, data.y, lam, kernel, weights, solver="auto")


def plateau_rim(table, values: np.ndarray, degenerate: np.ndarray) -> np.ndarray:
    """Rows off SURE's degenerate plateau whose next smaller λ in the same σ column is on the
    plateau with a lower value: where SURE falls onto the plateau (``SVMFamily.pick_rows``)."""
    lam = table["log2_nlambda"].to_numpy(float)
    sig = table["log2_sigma"].to_numpy(float)
    order = np.lexsort((lam, sig))               # by σ, then λ upward: the row before is the
    s, d, v = sig[order], degenerate[order], values[order]    # next smaller λ of its column
    rim = np.zeros(len(order), bool)
    rim[1:] = (s[1:] == s[:-1]) & d[:-1] & ~d[1:] & (v[:-1] < v[1:])
    out = np.zeros(len(order), bool)
    out[order] = rim
    return out


FAMILY = SVMFamily()
