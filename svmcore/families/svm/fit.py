"""The fitted SVM (``SVMFit``) and the backend registry (Wahba et al. 2001, eqs 1.9, 1.25)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from ..._validation import SVMCoreError, check_lambda, check_labels, check_matrix
from ...cancel import check as check_cancel
from ...kernels import Kernel, kernel_radius
from .solvers._common import DualSolution
from ...weights import ClassWeights, standard_weights


@dataclass
class SVMFit:
    """One solution of the weighted SVM at one λ, in the paper's parameterization.

    Attributes
    ----------
    lam : λ.   alpha : α_i ∈ [0, L(y_i)] (paper scale).   b : intercept.   f : f(x_i).
    y : ±1 labels.   upper : L(y_i).   weights : the ClassWeights.   K_diag : K_ii.
    radius : R = max K_ii − min K_ij (XA's default, docs/svm.md).
    solver, n_iter, kkt_residual, polished, info : diagnostics.
    X, kernel : training inputs and kernel, for ``decision_function`` on new points.
    """

    lam: float
    alpha: np.ndarray
    b: float
    f: np.ndarray
    y: np.ndarray
    upper: np.ndarray
    weights: ClassWeights
    K_diag: np.ndarray
    radius: float
    solver: str = ""
    n_iter: int = 0
    kkt_residual: float = float("nan")
    polished: bool = False
    info: dict | None = None
    X: np.ndarray | None = None
    kernel: Kernel | None = None

    @property
    def n(self) -> int:
        return int(self.y.shape[0])

    @property
    def a(self) -> np.ndarray:
        """LIBSVM-scale dual variables a_i = α_i / (2nλ) (docs/svm.md)."""
        return self.alpha / (2.0 * self.n * self.lam)

    @property
    def c(self) -> np.ndarray:
        """Coefficients c = D_y α / (2nλ) of f = b + Σ c_i K(·, x_i)."""
        return self.y * self.a

    @property
    def theta(self) -> np.ndarray:
        """θ_i = α_i K_ii / (2nλ) (docs/svm.md), exactly 0 where α_i = 0."""
        return self.a * self.K_diag

    @property
    def n_sv(self) -> int:
        return int(np.count_nonzero(self.alpha > 0))

    @property
    def xi(self) -> np.ndarray:
        """Hinge slacks ξ_i = (1 − y_i f_i)_+."""
        return np.maximum(0.0, 1.0 - self.y * self.f)

    def primal_objective(self) -> float:
        """(1/n) Σ L(y_i) ξ_i + λ c'Kc, with c'Kc = c'(f − b) (Wahba et al. 2001, eq 1.9)."""
        return float(np.mean(self.upper * self.xi) + self.lam * self.c @ (self.f - self.b))

    def train_error(self) -> float:
        """Fraction of training points with y_i f_i ≤ 0 (f = 0 counts as an error, docs/svm.md)."""
        return float(np.mean(self.y * self.f <= 0))

    def decision_function(self, X_new) -> np.ndarray:
        """f(x) = b + Σ_i c_i K(x, x_i) at new points."""
        if self.X is None or self.kernel is None:
            raise SVMCoreError("this fit was made from a Gram matrix; it has no inputs to evaluate at")
        X_new = check_matrix(X_new, "X_new")
        sv = self.alpha > 0
        return self.kernel.gram(X_new, self.X[sv]) @ self.c[sv] + self.b


def _solver_registry() -> dict[str, Callable]:
    from .solvers.libsvm import solve_libsvm
    from .solvers.qp import solve_cvxopt

    reg = {"cvxopt": solve_cvxopt, "libsvm": solve_libsvm}
    return reg


POINTWISE_SOLVERS = ("cvxopt", "libsvm")


def available_solvers() -> list[str]:
    """Names accepted by ``solve_lambdas`` and the CLI's ``--solver``."""
    names = list(POINTWISE_SOLVERS)
    try:
        from .solvers import path  # noqa: F401
        names = ["auto", "path"] + names
    except ImportError:
        pass
    return names


def choose_solver(solver: str, n: int) -> str:
    """Resolve ``auto``: the path solver when available, else cvxopt (steadier than SMO at small λ)."""
    if solver != "auto":
        return solver
    return "path" if "path" in available_solvers() else "cvxopt"


def solve_lambdas(K, y, upper, lams: Sequence[float], solver: str = "auto",
                  point_order=None, start: DualSolution | None = None,
                  twins: bool = True) -> list[DualSolution]:
    """Solve the dual at every λ in ``lams`` for one Gram matrix (order kept).

    A pointwise backend is called once per λ; the path backend follows the whole path (with
    ``point_order``, ``locality.locality_order`` of the inputs, its passes read only the kernel
    entries above rounding: ``solve_path``). With ``start``, a path answer of this problem at some
    λ₀ (``path_end``), the path carries on from it for the λ below λ₀ instead of following the
    path down to λ₀ again (grid growth toward small λ); the λ at or above λ₀ are solved as
    without it. An exception at one λ is returned in place of that λ's solution (the caller
    records it), not raised.

    Exact twins (same label, bitwise-equal kernel rows: repeated rows of the data) are solved as
    one point with their bounds summed and their α split back in proportion to the bounds
    (``solvers.twins``; the same problem, without the singular elbows twins make). ``twins=False``
    skips looking for them (a subset of a problem known to have none: CV folds, LOO). The path
    crosses the merged problem's events where it would the whole one's (compiled from
    ``path.COMPILED_FROM_N`` points of the whole, as ``SVMFamily.columns_in_threads`` assumes):
    wisconsin's 683 rows merge to 460, and in the numpy code its grid took 1.6 s against 0.9 s.
    """
    from .solvers.path import COMPILED_FROM_N
    from .solvers.twins import find_twins

    found = find_twins(K, y, upper) if twins else None
    if found is None:
        return _solve_each(K, y, upper, lams, solver, point_order, start)
    Km, ym, um, order = found.problem(K, y, point_order)
    start = None if start is None else found.merge(start)
    sols = _solve_each(Km, ym, um, [lam * found.scale for lam in lams], solver, order, start,
                       compiled=len(y) >= COMPILED_FROM_N)
    return [found.expand(sol) for sol in sols]


def _solve_each(K, y, upper, lams, solver, point_order, start, compiled=None) -> list:
    """``solve_lambdas`` on a problem without twins (``compiled``: ``solve_path``'s)."""
    solver = choose_solver(solver, len(y))
    if solver == "path":
        from .solvers.diagonal import is_diagonal, solve_diagonal

        if is_diagonal(K):             # every point on its own: the path's answers in closed form
            return [solve_diagonal(K, y, upper, lam) for lam in lams]
        return _solve_on_path(K, y, upper, list(lams), point_order, start, compiled)
    reg = _solver_registry()
    if solver not in reg:
        raise SVMCoreError(f"unknown solver {solver!r}; use one of {available_solvers()}")
    out = []
    for lam in lams:
        check_cancel()                     # a sweep's cancel, between pointwise fits
        try:
            out.append(reg[solver](K, y, upper, lam))
        except Exception as exc:  # one failed grid point must not stop the sweep
            out.append(exc)
    return out


def _solve_on_path(K, y, upper, lams: list, point_order, start, compiled=None) -> list:
    """``solve_path`` at ``lams``; with ``start``, the λ below start.lam by a path from it."""
    from functools import partial

    from .solvers.path import solve_path

    solve_path = partial(solve_path, compiled=compiled)
    below = [k for k, lam in enumerate(lams) if start is not None and lam < start.lam]
    if not below:
        return solve_path(K, y, upper, lams, point_order=point_order)
    out = [None] * len(lams)
    above = sorted(set(range(len(lams))) - set(below))
    if above:
        for k, sol in zip(above, solve_path(K, y, upper, [lams[k] for k in above],
                                            point_order=point_order)):
            out[k] = sol
    carried = solve_path(K, y, upper, [start.lam] + [lams[k] for k in below], start=start,
                         point_order=point_order)
    for k, sol in zip(below, carried[1:]):            # (the start's own λ is answered again)
        out[k] = sol
    return out


def path_end(lams: Sequence[float], sols: Sequence) -> DualSolution | None:
    """The path's answer at the smallest of ``lams``, when a later path may carry on from it
    (``solve_lambdas``'s ``start``): a path answer within the path's tolerance or its rounding
    floor (``path.within_tolerance``); else None (an exception, a pointwise solver's answer)."""
    if len(sols) == 0:
        return None
    sol = sols[int(np.argmin(lams))]
    if isinstance(sol, Exception) or sol.solver != "path":
        return None
    from .solvers.path import within_tolerance

    return sol if within_tolerance(sol) else None


def make_fit(sol: DualSolution, y, upper, weights: ClassWeights, K_diag, radius,
             X=None, kernel=None) -> SVMFit:
    """Wrap a backend's DualSolution as an SVMFit."""
    return SVMFit(sol.lam, sol.alpha, sol.b, sol.f, y, upper, weights, K_diag, radius,
                  sol.solver, sol.n_iter, sol.kkt_residual, sol.polished, sol.info, X, kernel)


def fit_svm(X, y, lam: float, kernel: Kernel | None = None, weights: ClassWeights | None = None,
            solver: str = "cvxopt") -> SVMFit:
    """Fit the cost- and prior-weighted SVM (Wahba et al. 2001, eq 1.25) at one λ.

    Parameters
    ----------
    X : (n, d) inputs.  y : ±1 labels.  lam : λ > 0 (LIBSVM's C = 1/(2nλ)).
    kernel : Kernel (default Gaussian, σ = 1).  weights : ClassWeights (default L ≡ 1).
    solver : "cvxopt", "libsvm", "path" or "auto".
    """
    X = check_matrix(X)
    y = check_labels(y)
    lam = check_lambda(lam)
    kernel = kernel or Kernel()
    weights = weights or standard_weights()
    K = kernel.gram(X)
    upper = weights.upper_bounds(y)
    sol = solve_lambdas(K, y, upper, [lam], solver)[0]
    if isinstance(sol, Exception):
        raise sol
    return make_fit(sol, y, upper, weights, np.diag(K).copy(), kernel_radius(K), X, kernel)
