"""The COSSO SVM fit: alternate the SVM step (θ fixed) and the LP step ((b, c) fixed).

Zhang (2006), §4.1 and eq 4.1: minimise over θ ≥ 0, b, c

    (1/n) Σ L(y_i)(1 − y_i f_i)_+ + λ0 Σ_α θ_α c'R_α c + λ Σ_α θ_α,   f = b + R_θ c,

with the λ Σθ term replaced by the budget Σ θ_α ≤ M (eq 4.3) and weights L(y_i) from costs and
priors (eq 5.1). The SVM step is the project's weighted SVM with the Gram matrix R_θ at λ0
(``solve_lambdas``); the LP step is ``lp.solve_theta_lp``. The default rule is one step:
SVM at θ = 1 → LP → SVM refit at the new θ, with θ_α ≤ ``threshold`` set to 0 (``docs/cosso.md``).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..._validation import SVMCoreError
from ...kernels import kernel_radius
from ...weights import ClassWeights
from ..svm.fit import SVMFit, make_fit, solve_lambdas
from ..svm.solvers._common import DualSolution
from .kernels import UnitScaling, combine, weighted_gram
from .lp import lp_objective, solve_theta_lp, theta_step_data

#: θ_α above this is a selected component (and below it θ_α is set to 0 before the refit)
DEFAULT_THRESHOLD = 1e-6
#: rows of new points per block in ``decision_function``
PREDICT_BLOCK = 2000


def svm_step(R, theta, y, upper, lam0: float, solver: str = "cvxopt") -> DualSolution:
    """The SVM with kernel R_θ = Σ θ_α R_α at λ0 (Zhang 2006, eq 4.2); raises if the solver fails.

    c = D_y α/(2nλ0) and f = b + R_θ c, in the project's parameterization (LIBSVM's C = 1/(2nλ0)).
    """
    sol = solve_lambdas(combine(R, theta), y, upper, [lam0], solver)[0]
    if isinstance(sol, Exception):
        sol = solve_lambdas(combine(R, theta), y, upper, [lam0], "auto")[0]
    if isinstance(sol, Exception):
        raise SVMCoreError(f"the SVM step failed at λ0 = {lam0:g}: {sol}")
    return sol


def coefficients(sol: DualSolution, y) -> np.ndarray:
    """c = D_y α / (2nλ0)."""
    return y * sol.alpha / (2.0 * len(y) * sol.lam)


@dataclass
class Step:
    """One fitted COSSO model at one M: θ, the final SVM solution and diagnostics.

    rounds : LP steps taken.   converged : θ stopped changing before ``rounds`` ran out.
    lp_objective : objective of the last LP (Zhang 2006, eq 4.3).   history : θ after each LP.
    """

    M: float
    theta: np.ndarray
    sol: DualSolution
    rounds: int
    converged: bool
    lp_objective: float
    history: list = field(default_factory=list)


def alternate(R, y, upper, lam0: float, M: float, first: DualSolution | None = None,
              rounds: int = 1, threshold: float = DEFAULT_THRESHOLD, solver: str = "cvxopt",
              tol: float = 1e-6) -> Step:
    """Zhang (2006) §4.1 from θ = 1: ``rounds`` × (LP for θ, SVM refit at θ), stopping early when θ
    changes by at most ``tol`` (max-norm, relative to max(1, max θ)).

    ``first`` is the SVM at θ = 1 and λ0 (shared by every M, so computed once by the caller).
    θ_α ≤ ``threshold`` is set to 0 before each refit; a θ with every entry at 0 keeps the previous
    SVM (the constant-free fit f = b is not an SVM with a kernel).
    """
    q = R.shape[0]
    theta = np.ones(q)
    sol = first if first is not None else svm_step(R, theta, y, upper, lam0, solver)
    history, obj, converged = [], np.nan, False
    for _ in range(rounds):
        c = coefficients(sol, y)
        G, quad = theta_step_data(R, c)
        lp = solve_theta_lp(G, quad, y, sol.b, upper, lam0, M)
        new = np.where(lp.theta > threshold, lp.theta, 0.0)
        obj = lp.objective
        history.append(new)
        change = float(np.max(np.abs(new - theta))) / max(1.0, float(np.max(theta)))
        theta = new
        if not np.any(theta > 0):
            break
        sol = svm_step(R, theta, y, upper, lam0, solver)
        if change <= tol:
            converged = True
            break
    return Step(float(M), theta, sol, len(history), converged, obj, history)


@dataclass
class CossoFit:
    """A fitted COSSO SVM, f(x) = b + Σ_i c_i Σ_α θ_α R_α(x, x_i) (Zhang 2006, eq 3.3).

    Attributes
    ----------
    scaling : the min-max map to [0, 1].   U : training inputs in [0, 1].   y : ±1 labels.
    comps : ANOVA components (tuples of column indices).   names : "x1", "x1:x2", ….
    theta : θ (q,).   b, c : intercept and coefficients.   lam0 : λ0.   M : the budget Σ θ ≤ M.
    weights : ClassWeights L(±1).   svm : the final SVM step as an ``SVMFit`` (Gram R_θ).
    rounds : LP steps taken.   threshold : selection threshold on θ.
    """

    scaling: UnitScaling
    U: np.ndarray
    y: np.ndarray
    comps: list
    names: list
    theta: np.ndarray
    b: float
    c: np.ndarray
    lam0: float
    M: float
    weights: ClassWeights
    svm: SVMFit
    rounds: int = 1
    threshold: float = DEFAULT_THRESHOLD

    @property
    def selected(self) -> list[str]:
        """Names of the components with θ_α > threshold."""
        return [nm for nm, t in zip(self.names, self.theta, strict=True) if t > self.threshold]

    @property
    def f(self) -> np.ndarray:
        """Decision values at the training points."""
        return self.svm.f

    def decision_function(self, X) -> np.ndarray:
        """f(x) = b + R_θ(x, X_train) c at new points (raw units; scaled and clipped here)."""
        U = self.scaling.transform(X)
        out = np.empty(U.shape[0])
        for s in range(0, U.shape[0], PREDICT_BLOCK):
            blk = U[s:s + PREDICT_BLOCK]
            out[s:s + PREDICT_BLOCK] = weighted_gram(blk, self.U, self.comps, self.theta) @ self.c
        return out + self.b

    def predict(self, X) -> np.ndarray:
        """Class labels sign f(x), f = 0 counted as −1."""
        return np.where(self.decision_function(X) > 0, 1.0, -1.0)

    def component_function(self, j: int, x) -> np.ndarray:
        """Main effect f_j(x) = θ_j Σ_i c_i R_j(x, x_ij) at raw values x of input j (centred: each
        R_j integrates to 0 over [0, 1])."""
        a = self.comps.index((j,))
        u = np.clip((np.asarray(x, float) - self.scaling.low[j]) / self.scaling.span[j], 0, 1)
        from .kernels import main_effect_gram
        return self.theta[a] * (main_effect_gram(u, self.U[:, j]) @ self.c)


def to_fit(step: Step, R, scaling, U, y, upper, weights, comps, names, lam0,
           threshold=DEFAULT_THRESHOLD) -> CossoFit:
    """A ``CossoFit`` from one ``Step`` (its SVM as an SVMFit with Gram R_θ, for criteria)."""
    K = combine(R, step.theta)
    svm = make_fit(step.sol, y, upper, weights, np.diag(K).copy(), kernel_radius(K))
    return CossoFit(scaling, U, y, comps, names, step.theta, float(step.sol.b),
                    coefficients(step.sol, y), lam0, step.M, weights, svm, step.rounds, threshold)


def lp_value(step: Step, R, y, upper, lam0) -> float:
    """Objective of eq 4.1 without the λΣθ term at the final (θ, b, c): hinge + λ0 Σ θ_α c'R_α c."""
    G, quad = theta_step_data(R, coefficients(step.sol, y))
    return lp_objective(step.theta, G, quad, y, step.sol.b, upper, lam0)
