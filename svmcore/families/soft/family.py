"""Penalized-likelihood ("logistic") soft classification as a model family.

Wahba et al. (2001), §1.2, and Lin, Wahba, Xiang, Gao, Klein & Klein, "The bias-variance tradeoff
and the randomized GACV": minimise (1/n) Σ [−y_i f_i + log(1 + e^{f_i})] + λ c'Kc, f = b + Kc,
y_i = 1 for class A, 0 for B. One σ column: one eigendecomposition of the Gram matrix, Newton–
Raphson from the largest λ to the smallest with warm starts (``newton.py``), then every criterion
as a plain function of each solution (``criteria.py``). See ``docs/soft.md``.

Columns: the requested criteria (``obs``, ``gacv``, ``rangacv``, ``ckl``, ``cv_deviance``), then
``test_deviance`` when the runner passes a held-out set (a hold-out column, as the SVM's test
scores, not a criterion one requests), then the diagnostics ``iterations``, ``converged``,
``fit_error`` and ``note`` (plain-words remarks: saturated/separable fit, non-convergence).
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from numbers import Integral

import numpy as np
from scipy.special import expit

from ..._validation import SVMCoreError
from ...kernels import Kernel
from ...params import Param
from ...spec import MAX_SEED, Interval
from ..base import Criterion, ModelFamily, Output
from ..common import CV_FOLDS, CV_SEED
from .criteria import (HOLDOUT_COLUMNS, IN_SAMPLE, TARGETS, cv_deviance_values, deviance, draw_deltas,
                       in_sample_criteria, kfold_decision_values)
from .newton import (KernelBasis, LogisticSolution, iter_path, newton_logistic,
                     one_blas_thread, to01)

#: most training rows of a soft classification sweep: its cost per σ column is an n×n
#: eigendecomposition and O(n³) Newton steps (n = 2000: 17 s for the σ = 2^-3 column), so it keeps
#: the cap the SVM had before issue 21 raised that to 10,000
SOFT_MAX_ROWS = 5000

DEFAULT_REPS = 5
DEFAULT_SEED = 0


@dataclass
class LogisticFit:
    """The soft classifier at one (λ, σ): f(x) = b + Σ c_i K(x, x_i), p̂(x) = 1/(1 + e^{−f(x)}).

    ``solution`` keeps the Newton solution (f, p̂, W, the factor of G) for the criteria.
    """

    X_train: np.ndarray
    sigma: float
    lam: float
    b: float
    c: np.ndarray
    solution: LogisticSolution
    kernel: str = "gaussian"

    def decision_function(self, X) -> np.ndarray:
        """f(x), the fitted logit of P(A | x)."""
        K = Kernel(self.kernel, sigma=self.sigma).gram(np.asarray(X, float), self.X_train)
        return self.b + K @ self.c

    def predict_proba(self, X) -> np.ndarray:
        """p̂(x) = P̂(A | x), a 1-D array (class A = +1)."""
        return expit(self.decision_function(X))

    def predict(self, X) -> np.ndarray:
        """±1 labels: A where p̂(x) > ½."""
        return np.where(self.decision_function(X) > 0, 1.0, -1.0)


def options_of(spec) -> tuple[int, int]:
    """(rangacv_reps, rangacv_seed) from the spec's family options (defaults 5 and 0)."""
    return (int(spec.option("rangacv_reps", DEFAULT_REPS)),
            int(spec.option("rangacv_seed", DEFAULT_SEED)))


def _out(name, label, colour, dash, symbol, **kw):
    return (Output(name, label, colour, dash, symbol, **kw),)


#: the soft classifier's criteria; the column computes them from each Newton solution
#: (``criteria.in_sample_criteria``, ``cv_deviance_values``), so ``fn`` is None here
CRITERIA = (
    Criterion("obs", "OBS", "OBS: the observed deviance (ranGACV paper, eq 2); it always falls as "
              "λ → 0", outputs=_out("obs", "OBS", "#8C564B", "2px,3px", "pentagon")),
    Criterion("gacv", "GACV", "GACV for penalized likelihood (ranGACV paper, eq 5), an estimate of "
              "CKL", target="ckl", outputs=_out("gacv", "GACV", "#009E73", "solid", "diamond")),
    Criterion("rangacv", "ranGACV", "randomized GACV: the trace term from R perturbations "
              "(ranGACV paper, eq 10)", target="ckl",
              outputs=_out("rangacv", "ranGACV", "#332288", "dash", "triangle-up")),
    Criterion("ckl", "CKL", "CKL: the target, comparative Kullback–Leibler distance (ranGACV paper, "
              "eq 3); needs the true p", needs="truth",
              outputs=_out("ckl", "CKL", "#DDAA33", "longdashdot", "hexagon")),
    Criterion("cv_deviance", "CV deviance", "k-fold cross-validated deviance", needs="refits",
              outputs=_out("cv_deviance", "CV deviance", "#44AA99", "4px,4px", "star-diamond")),
)

PARAMS = (
    CV_FOLDS, CV_SEED,
    Param("rangacv_reps", Interval(Integral, 1, 1000), DEFAULT_REPS, "ranGACV R",
          "replicate perturbations δ of ranGACV (ranGACV paper, eq 10)", widget="int"),
    Param("rangacv_seed", Interval(Integral, 0, MAX_SEED), DEFAULT_SEED, "ranGACV seed",
          "seed of ranGACV's δ draws", widget="int"),
)


class LogisticFamily(ModelFamily):
    """Penalized likelihood with a kernel of width σ; GACV and ranGACV estimate CKL."""

    name = "logistic"
    title = "Soft classification (penalized likelihood)"
    params = PARAMS
    criteria = CRITERIA
    kernels = ("gaussian", "laplacian")
    #: the in-sample deviance always falls as λ → 0: its pick may sit on an edge without growing the grid
    edge_exempt = ("obs",)
    holdout_columns = HOLDOUT_COLUMNS

    def default_criteria(self, has_truth: bool) -> tuple[str, ...]:
        return IN_SAMPLE + (TARGETS if has_truth else ())

    def diagnostic_columns(self) -> list[str]:
        return ["iterations", "converged", "fit_error", "note"]

    def target_for(self, spec) -> str | None:
        """CKL, the comparative Kullback–Leibler distance (ranGACV paper, eq 3)."""
        return "ckl"

    def check(self, spec, n: int, n_pos: int, n_neg: int) -> None:
        if n > SOFT_MAX_ROWS:
            raise SVMCoreError(f"the soft classification sweep is limited to {SOFT_MAX_ROWS} rows "
                               f"(an n×n eigendecomposition per σ and O(n³) Newton steps); this data "
                               f"set has {n}")
        if "cv_deviance" in spec.criteria and not (2 <= spec.cv_folds <= min(n_pos, n_neg)):
            raise SVMCoreError(f"cv_folds must be between 2 and the size of the smaller class "
                               f"({min(n_pos, n_neg)}), got {spec.cv_folds}")

    def column(self, col) -> list[dict]:
        """All rows of one σ column (one eigendecomposition, warm-started Newton along λ)."""
        spec, data = col.spec, col.data
        t0 = time.perf_counter()
        y01 = to01(data.y)
        reps, seed = options_of(spec)
        deltas = draw_deltas(data.n, reps, seed) if "rangacv" in spec.criteria else None
        insample = [c for c in spec.criteria if c != "cv_deviance"]
        kernel = Kernel(spec.kernel, sigma=col.sigma)
        K_test = None if col.test is None else kernel.gram(col.test.X, data.X)
        rows: list = [None] * len(col.lambdas)
        try:
            basis = KernelBasis.from_gram(col.K, exact_traces="gacv" in spec.criteria)
            path = iter_path(basis, y01, col.lambdas, presolve=deltas)    # ranGACV's Hδ
        except Exception as exc:  # e.g. the eigensolver failed: every row reports it
            path = ((k, exc) for k in range(len(col.lambdas)))
        with one_blas_thread():
            for k, sol in path:       # one solution alive at a time (its factor is (r+1)²)
                rows[k] = self._row(col, k, sol, y01, insample, deltas, K_test)
            if "cv_deviance" in spec.criteria:
                F = kfold_decision_values(col.K, data.y, list(col.lambdas), spec.cv_folds,
                                          spec.cv_seed)
                for row, v in zip(rows, cv_deviance_values(F, data.y), strict=True):
                    row["cv_deviance"] = float(v)
        for row in rows:
            row["seconds"] = (time.perf_counter() - t0) / len(rows)
        return rows

    @staticmethod
    def _row(col, k: int, sol, y01, insample, deltas, K_test) -> dict:
        row = col.base_row(k)
        if isinstance(sol, Exception):
            row.update(iterations=0, converged=False, note="",
                       fit_error=f"{type(sol).__name__}: {sol}")
            return row
        row.update(iterations=sol.iterations, converged=sol.converged, fit_error="")
        try:
            row.update(in_sample_criteria(sol, y01, insample, col.data.p, deltas))
            if K_test is not None:
                row["test_deviance"] = deviance(sol.b + K_test @ sol.c, to01(col.test.y))
        except Exception as exc:  # one bad point must not stop the column
            row["fit_error"] = f"{type(exc).__name__}: {exc}"
        row["note"] = sol.note          # after the criteria: exact GACV may add the ridge's note
        return row

    def fit_payload(self, spec, data, log2_nlambda: float, log2_sigma: float) -> dict:
        from .cli import fit_payload
        return fit_payload(spec, data, log2_nlambda, log2_sigma)

    def fit_at(self, spec, data, log2_nlambda: float, log2_sigma: float) -> LogisticFit:
        """The soft classifier at one grid point (a cold-started Newton fit)."""
        return fit_logistic(data.X, data.y, 2.0 ** float(log2_nlambda) / data.n,
                            2.0 ** float(log2_sigma), spec.kernel)


def fit_logistic(X, y, lam: float, sigma: float, kernel: str = "gaussian") -> LogisticFit:
    """Fit at one λ and σ; ``y`` is ±1 (class A = +1)."""
    X = np.asarray(X, float)
    basis = KernelBasis.from_gram(Kernel(kernel, sigma=sigma).gram(X))
    with one_blas_thread():
        sol = newton_logistic(basis, to01(y), lam)
    return LogisticFit(X, float(sigma), float(lam), sol.b, sol.c, sol, kernel)


FAMILY = LogisticFamily()
