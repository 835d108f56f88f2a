"""Penalized-likelihood soft classification by Newton–Raphson (Wahba et al. 2001, §1.2;
Lin, Wahba, Xiang, Gao, Klein & Klein, "The bias-variance tradeoff and the randomized GACV", eq 2).

Problem (one σ, one λ)::

    minimise  (1/n) Σ [ −y_i f_i + log(1 + e^{f_i}) ] + λ c'Kc,    f = b + Kc,  y_i ∈ {0, 1},

b unpenalized. See ``docs/soft.md``.

Parameterization (why it is stable)
-----------------------------------
K is eigendecomposed once per σ column, K = U Λ U'. Directions with eigenvalues at or below the
eigensolver's own rounding level (λ_j ≤ n ε λ_max) are numerically zero and are dropped; the r
kept ones give the feature matrix Φ = U_r Λ_r^{1/2} (n × r). With c = U_r Λ_r^{-1/2} θ
(``KernelBasis.coefficients``; for a basis rotated from a pivoted Cholesky factor, below,
Φ(Φ'Φ)^{-1}θ with Φ'Φ as computed),

    f = b + Φ θ,      λ c'Kc = λ ‖θ‖²,

so the problem is a ridge-penalized logistic regression on the design X = [1, Φ] with the
penalty 2nλ on θ and none on b. The Newton matrix (summed scale, n times the objective)

    G = X'WX + 2nλ diag(0, I_r),    W = diag(p̂_i (1 − p̂_i)),

has every θ-eigenvalue ≥ 2nλ whatever W is: K^{-1} is never formed, no division by W, and the
Gram matrix's near-singularity only shows up as a smaller r (which also makes large-σ columns
cheap). A Gram matrix of low numerical rank is not eigendecomposed whole: a pivoted Cholesky
factor K = Φ_c Φ_c' (r' columns, stopped at ε max K_ii) is rotated by the eigenvectors of the
r' × r' matrix Φ_c'Φ_c, which are those of K in its range (``KernelBasis.from_gram``; n = 2000,
σ = 2: 0.035 s instead of 0.69 s). A Gram matrix of full numerical rank, when no exact traces
are needed, keeps its pivoted Cholesky factor itself as Φ (nothing to drop, Φ'Φ not diagonal),
and multiplies by it as the triangle it is (``TriangularDesign``: half the memory traffic of a
dense product; n = 2000, ranGACV and CKL, the σ = 2^-3 and 2^-2.5 columns 0.82 of the time, the
grid on two workers 29.0 s against 31.9 s, ranGACV equal to 3e-13 relative).
The same Cholesky factor of G gives the influence matrix at the solution,

    H = ∂f/∂y = X G^{-1} X',

which is the paper's [W + Σ_λ]^{-1} (ranGACV paper, before eq 8) restricted to the model space.

Two ways to solve with G
------------------------
Forming and factoring G costs n r² + r³/3 flops per Newton iteration: 4n³/3 for a full-rank
column (small σ), where it dominated the family's grid (n = 2000: 35 s of 63 s). When r > 0.65 n
(``WOODBURY_FROM``) the θ-block A = Φ'WΦ + c I (c = 2nλ) is inverted through the n × n matrix
M = W^{1/2} Φ Φ' W^{1/2} + c I instead (Woodbury):

    A^{-1} x = (x − Φ' W^{1/2} M^{-1} W^{1/2} Φ x) / c,

one Cholesky factor of M (n³/3 flops, eigenvalues ≥ c whatever W is, so no division by W either),
and the unpenalized b by block elimination with the scalar Schur complement
s = 1'W1 − v'A^{-1}v, v = Φ'W1 (``WoodburyFactor``). Both give G^{-1} to rounding; G's own
Cholesky factor, which the exact traces of H need, is formed once at the solution when asked for
(``LogisticSolution.chol``). A Schur complement lost to rounding (saturated fits: W underflows)
falls back to factoring G, with its ridge.

Convergence rule
----------------
At the current iterate the Newton step Δ = −G^{-1} g and the Newton decrement d = −g'Δ are
computed (d/(2n) estimates J − J_min, J the objective). The fit is *converged* when
d / (2n) ≤ tol · (1 + |J|) with tol = 1e-18 and the step would move no f_i by more than
ftol · (1 + max|f|) with ftol = 1e-9, or, at the rounding floor, when d/(2n) ≤ 1e-10 · (1 + |J|)
and d fell less than tenfold since the last iteration (quadratic convergence has stopped). The
decrement weighs f_i by p̂_i(1 − p̂_i), which vanishes at saturated points, so it alone let f stray:
on wahba2d and lin1d grids down to log2(nλ) = −35 (n = 200, 300), f was off by up to 2e-7 of
1 + max|f| (three dense Newton steps from the answer as the reference); with the step test, by
at most 1e-9. The iterate is then kept as it is, so the factor of G in hand solves with G at the
reported solution (exact H, no extra factorization; "Reusing a factor" below). Otherwise the step
is taken with step halving (Armijo test with constant 1e-4, at most 60 halvings), except below the
stall level, where the decrease is smaller than J's rounding and the full step is taken. Each λ of a column
starts from the second-order prediction of the previous solution (``predictor``).

Reusing a factor
----------------
The logistic weight w(f) = p̂(1 − p̂) has |d log w / df| = |1 − 2p̂| ≤ 1, so after f moves by at most
ν in every coordinate each w_i changes by a factor within [e^{−ν}, e^{ν}], and with the penalty
unchanged e^{−ν} G₀ ⪯ G ⪯ e^{ν} G₀ (G₀ the matrix at the earlier f). Preconditioned by G₀'s factor,
conjugate gradients on G then converge at a rate of about ν/2 per iteration. While f stays within
``LAG_MAX_DF`` = 1e-4 of where the factor in hand was formed, Newton keeps that factor
(``LaggedFactor``): in practice the last iteration at each λ, which only confirms convergence and
whose factor serves H, the tangents and ranGACV at the solution. Solves then run to a residual of
1e-14 of the right-hand side (2–3 iterations). On the n = 2000, σ = 2^-3 column this removes 24
of 97 factorizations; f moves by 2e-11 and ranGACV by 5e-14 relative (``bench/soft_gacv.py``).

A Newton step that cannot be the last (the first at each λ, from the predicted start, or one
after a step that moved some f_i by more than ``FAR_STEP`` = 2e-2, so this one will move f by more
than ``LAG_MAX_DF`` and another will follow) is an inexact Newton step (Dembo, Eisenstat &
Steihaug 1982, SIAM J. Numer. Anal. 19): solved to a residual of ``FAR_STEP_RTOL`` = 1e-3 of the
gradient, it leaves the next iterate about 1e-3 of the step farther from the solution than an
exact step would, which the next steps, solved to ``STEP_RTOL``, remove; convergence is judged
on those only. Such a step keeps the factor in hand, the previous λ's last factor included (on a
grid of octaves λ halves between them, so G₀/2 ⪯ G before W's change), while f is within
``LAG_STEP_DF`` = 2 of where a Woodbury factor was formed, and whatever f's move on G's own
factor (``LAG_STEP_DF_G``: its conjugate-gradient iterations cost about a twentieth of forming
and factoring G); a solve that misses its goal in ``LAG_MAX_CG`` iterations forms its own
factor. From the previous λ's factor the first step at a λ took 3–9 iterations (f 0.1 … 49 away
in the largest coordinate; the bound above is loose), so each λ forms one factor, after that
step, which also serves the last step, H and ranGACV's δ (riding in its conjugate gradients).
``FAR_STEP`` is where the next step falls below ``LAG_MAX_DF`` (a step of 1e-2 was followed by
1e-5, 3e-2 by 2e-4). On the n = 2000 wahba2d columns (ranGACV R = 5 and CKL, one process, two runs
each, new processes alternated with the code before, which solved every step to ``STEP_RTOL``
and kept a factor for such a step only within 0.2): σ = 2^-3 61 → 41 factorizations, 9.2–9.8 →
7.7 s; 2^-2.5 71 → 45, 10.4–10.7 → 9.0–9.1 s; 2^-2 70 → 47, 13.7–14.4 → 12.0–12.4 s; 2^-1.5
(G's own factor) 71 → 32, 9.2–9.9 → 7.0–7.3 s; 2^-1 64 → 30, 3.9 → 2.8–3.1 s; 1–5 more Newton
iterations per column; f within 9.5e-10 of 1 + max|f| (each answer is within ``ftol`` of the
solution) and ranGACV within 3.7e-10 relative. With ``LAG_STEP_DF`` unbounded on Woodbury
factors the σ = 2^-3 and 2^-2 columns formed 27–29 factors but took 3–8 % longer: there a
conjugate-gradient iteration makes four passes over Φ and M.

How exactly each solve is done
------------------------------
What is reported at a solution (H, the traces, ranGACV) is solved to a residual of 1e-14 of the
right-hand side (``EXACT_RTOL``). A Newton step only has to point the iteration the right way: it
runs to 1e-8 (``STEP_RTOL``; one that another will follow to 1e-3, above), so a step's relative
error is far below the quadratic convergence's own, and the convergence test, made on such a step,
still sees the decrement and the change in f to eight digits. The tangents behind the next λ's
starting point run to 1e-6 (``PREDICT_RTOL``): that start is 5e-3 … 1 away from the next solution
in f anyway. On the n = 2000, σ = 2^-2 column this saves a third of the solves (355 instead of 511
with the Woodbury factor), with the same Newton iterations and factorizations, ranGACV equal to
3e-10 relative. The last Newton step, which runs on a lagged factor and in practice only confirms
convergence, also solves ranGACV's X'δ (to 1e-14) and the first tangent's system (to 1e-6) in the
same conjugate gradients (``_newton_step``): one pass over the matrices per iteration for all seven
columns instead of three separate runs (n = 2000 grid: 38.6 s of columns instead of 39.8 s; ranGACV
equal to 2e-10 relative, 6e-9 at log2(nλ) = −20, where G's condition number lets any two solves to
that residual differ so much).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Sequence

import numpy as np
from scipy.linalg import LinAlgError, cho_solve, cholesky, eigh, solve_triangular
from scipy.linalg.blas import dsyrk, dtrmm, dtrmv, dtrsv
from scipy.linalg.lapack import dpstrf
from scipy.special import expit

from ...cancel import check as check_cancel

#: the fit is called saturated when every |y_i − p̂_i| is below this: f separates the classes and
#: grows without bound as λ → 0 (at log2(nλ) = −40, the smallest allowed, |f| is only ~25 on a
#: well-separated toy set, so a stricter 1e-12 would never fire on the grid)
SATURATION = 1e-6

#: residual, relative to the right-hand side, to which solves with G run (module docstring, "How
#: exactly each solve is done"): H, the traces and ranGACV at a solution; a Newton step; the
#: tangents behind the next λ's starting point
EXACT_RTOL = 1e-14
STEP_RTOL = 1e-8
PREDICT_RTOL = 1e-6
#: the same for a Newton step that another will follow (``FAR_STEP``): an inexact Newton step
#: (module docstring, "Reusing a factor")
FAR_STEP_RTOL = 1e-3


def one_blas_thread():
    """A context in which BLAS runs on one thread, for the Newton fits and the criteria at their
    solutions: their products, triangular solves and factorizations are of n ≤ a few thousand,
    where OpenBLAS's threads cost more than they bring (AMD EPYC, 2 cores, the machine's default
    of two threads against one: an n = 800, σ = 2^-2 column of the family's default criteria
    5.8–6.3 s against 1.9–2.0 s, an n = 2000 one 23.7–24.0 s against 18.5–20.1 s, the timing
    reference 0.11–0.16 s against 0.05 s; ``bench/scale_history.md``, thirty-first session).
    The eigendecomposition behind ``KernelBasis`` is left to the machine's threads (n = 2000:
    0.8 s against 1.2 s on one). Worker processes run one thread anyway (joblib's loky); this is
    for fits in the calling process (small sweeps, ``--jobs 1``, single fits, the estimators),
    limited as the path's solver limits its own (``threadpool_limits``)."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1, user_api="blas")


def softplus(f: np.ndarray) -> np.ndarray:
    """log(1 + e^f) without overflow."""
    return np.logaddexp(0.0, f)


def to01(y: np.ndarray) -> np.ndarray:
    """±1 labels (class A = +1) as the 0/1 responses of the likelihood: 1 for A, 0 for B."""
    return (np.asarray(y, float) > 0).astype(float)


#: pivoted-Cholesky rank, as a fraction of n, up to which ``KernelBasis.from_gram`` rotates the
#: pivoted factor into the eigenbasis (n r'² + r'³ flops) instead of eigendecomposing K (n³): at
#: n = 2000, one BLAS thread, the rotation took 0.013 s against 0.67 s for eigh at r' = 72, 0.57 s
#: against 0.85 s at r' = 0.5 n, 0.62 s against 0.80 s at 0.68 n, but 1.29 s against 0.90 s at 0.92 n
ROTATE_UP_TO = 0.7


@dataclass(frozen=True)
class KernelBasis:
    """X = [1, Φ] with ΦΦ' the Gram matrix without its noise-level directions: Φ'Φ = Λ diagonal
    (the kept eigenvalues) for an "eigen" or "rotated" basis, not for a "pivoted" one (module
    docstring, "Parameterization").

    Attributes
    ----------
    evals : (r,) kept eigenvalues (> n ε λ_max); None for a "pivoted" basis.
    dense : (n, r + 1) design X = [1, Φ]; None for a "pivoted" basis, whose ``X`` is formed
        from ``tri`` only if asked for (its fits multiply through ``design``).
    XtX : (r + 1, r + 1) X'X, used by tr H and the kernel coefficients; its Φ'Φ block is diag(Λ)
        for an "eigen" basis (orthonormal U to rounding), the product as computed for a "rotated"
        one; None for a "pivoted" one.
    kind : "eigen" (eigh of K), "rotated" (a pivoted Cholesky factor rotated into the eigenbasis)
        or "pivoted" (K's full-rank pivoted Cholesky factor itself, Φ'Φ not diagonal: only when
        the caller needs no exact traces, ``from_gram``).
    pivots : for "pivoted", the permutation p with K[p][:, p] = L L' and Φ[p] = L.
    gram : for "pivoted", K itself (= ΦΦ' to rounding, nothing dropped): the Woodbury form's ΦΦ'.
    tri : for "pivoted", the n × n Fortran-ordered array whose lower triangle is L (LAPACK's
        ``dpstrf`` output): products with X and Φ by BLAS's triangular kernels (``design``).
    """

    evals: np.ndarray | None
    dense: np.ndarray | None
    XtX: np.ndarray | None
    kind: str = "eigen"
    pivots: np.ndarray | None = None
    gram: np.ndarray | None = field(default=None, repr=False)
    tri: np.ndarray | None = field(default=None, repr=False)

    @classmethod
    def from_gram(cls, K: np.ndarray, exact_traces: bool = True) -> "KernelBasis":
        """Φ = U_r Λ_r^{1/2} from the eigendecomposition of ``K``, its directions at the eigensolver's
        noise level dropped. A Gram matrix of low numerical rank (large σ) is first factored by
        pivoted Cholesky, K = Φ_c Φ_c' (Φ_c n × r'), stopped where the largest remaining pivot is
        below ε max K_ii (the rest of K then has norm ≤ n ε λ_max, the eigen rule's own bound);
        when r' ≤ ``ROTATE_UP_TO`` · n the eigenvectors come from the small r' × r' matrix
        Φ_c'Φ_c = V Λ V' instead of K itself, Φ = Φ_c V, and the same drop rule applies. When K
        is numerically of full rank (r' = n, nothing to drop) and ``exact_traces`` is False, Φ_c
        itself is the basis ("pivoted"): the same fits without the n³ eigendecomposition, but
        Φ'Φ is not diagonal, so the exact traces of GACV cost n r² more per λ (``traces``)."""
        K = np.asarray(K, float)
        n = K.shape[0]
        kind, evals, Phi, piv, tri = _pivoted_cholesky_basis(K, exact_traces)
        if kind == "pivoted":           # X formed only if asked for (``X``)
            return cls(None, None, None, kind, piv, K, tri)
        if kind == "eigen":
            evals, U = eigh(K, check_finite=False)
            keep = _kept(evals, n)
            evals, Phi = evals[keep], U[:, keep] * np.sqrt(evals[keep])
        X = np.empty((n, Phi.shape[1] + 1))
        X[:, 0] = 1.0
        X[:, 1:] = Phi
        if kind == "rotated":
            XtX = X.T @ X
        else:                  # "eigen": the arrow [[n, 1'Φ], [Φ'1, Λ]], no n r² product
            XtX = np.diag(np.r_[float(n), evals])
            XtX[0, 1:] = XtX[1:, 0] = Phi.sum(axis=0)
        return cls(evals, X, XtX, kind)

    @cached_property
    def X(self) -> np.ndarray:
        """The design [1, Φ] as an (n, r + 1) array; for a "pivoted" basis formed on first use
        from its triangle (Φ[p] = L): its fits multiply through ``design`` and never ask for it,
        so it holds one n × n array (L) instead of two."""
        if self.dense is not None:
            return self.dense
        X = np.empty((self.n, self.n + 1))
        X[:, 0] = 1.0
        X[self.pivots, 1:] = np.tril(self.tri)
        return X

    @cached_property
    def design(self):
        """X for products X z and X'u: X itself, or for a "pivoted" basis an operator that
        multiplies by its triangle (``TriangularDesign``)."""
        return self.X if self.tri is None else TriangularDesign(self.tri, self.pivots, True)

    @cached_property
    def phi(self):
        """Φ for products Φ x and Φ'u, as ``design`` gives X."""
        return self.X[:, 1:] if self.tri is None else TriangularDesign(self.tri, self.pivots, False)

    def coefficients(self, theta: np.ndarray) -> np.ndarray:
        """Kernel coefficients c with Kc = Φθ: c = Φ(Φ'Φ)^{-1}θ, i.e. U_r Λ_r^{-1/2}θ for an
        eigenbasis; a rotated basis's Φ'Φ is diagonal only to its rounding (1e-7 of √(λ_i λ_j) at
        worst), so it is solved with as computed (scaled to unit diagonal, ≈ I)."""
        if self.kind == "eigen":
            return self.X[:, 1:] @ (theta / self.evals)
        if self.kind == "pivoted":        # Φ'c = L'c[p] = θ, L = Φ[p] lower triangular
            c = np.empty_like(theta)
            c[self.pivots] = solve_triangular(self.tri, theta, trans="T", lower=True,
                                              check_finite=False)
            return c
        scale, chol = self._phi_gram_factor
        return self.X[:, 1:] @ (scale * _cho_solve(chol, scale * theta))

    @cached_property
    def _phi_gram_factor(self) -> tuple:
        A = self.XtX[1:, 1:]
        scale = 1.0 / np.sqrt(np.diag(A))
        return scale, (cholesky(A * np.outer(scale, scale), lower=False, check_finite=False), False)

    @cached_property
    def phi_gram(self) -> np.ndarray:
        """ΦΦ' = U_r Λ_r U_r' (the Gram matrix without its dropped directions), n × n, formed
        once per basis for the Woodbury solves; K itself for a "pivoted" basis (no n³ product,
        no second n × n array)."""
        if self.gram is not None:
            return self.gram
        Phi = self.X[:, 1:]
        return Phi @ Phi.T

    @property
    def n(self) -> int:
        return (self.tri if self.dense is None else self.dense).shape[0]

    @property
    def rank(self) -> int:
        return self.n if self.dense is None else self.dense.shape[1] - 1


class TriangularDesign:
    """X = [1, Φ] (``intercept``) or Φ of a "pivoted" basis, whose Φ is a row permutation of a
    lower-triangular L (Φ[p] = L), as an operator: ``X @ z`` and ``X.T @ u`` multiply by L with
    BLAS's triangular kernels (``dtrmv``, ``dtrmm``), which read only the triangle. n = 2000, one
    thread: 0.70 ms against 1.59 ms for a vector, 2.8 ms against 7.7 ms for seven columns."""

    def __init__(self, L: np.ndarray, p: np.ndarray, intercept: bool, transposed: bool = False):
        self.L, self.p, self.intercept, self.transposed = L, p, intercept, transposed

    @property
    def T(self) -> "TriangularDesign":
        return TriangularDesign(self.L, self.p, self.intercept, not self.transposed)

    def __matmul__(self, v: np.ndarray) -> np.ndarray:
        return self._tmul(v) if self.transposed else self._mul(v)

    def _mul(self, z):
        """X z: out[p] = L z_θ (+ b)."""
        body = z[1:] if self.intercept else z
        out = np.empty(body.shape)
        out[self.p] = _triangular_product(self.L, body, trans=False)
        if self.intercept:
            out += z[0]
        return out

    def _tmul(self, u):
        """X'u = [1'u; L'u[p]]."""
        up = u[self.p]
        body = _triangular_product(self.L, up, trans=True)
        if not self.intercept:
            return body
        return np.concatenate((up.sum(axis=0, keepdims=True), body))


def _triangular_product(L: np.ndarray, v: np.ndarray, trans: bool) -> np.ndarray:
    """L v or L'v for L the lower triangle of the Fortran-ordered ``L`` (v: (n,) or (n, k))."""
    if v.ndim == 1:
        return dtrmv(L, v, lower=1, trans=int(trans))
    return dtrmm(1.0, L, v, lower=1, trans_a=int(trans))


@dataclass
class LogisticSolution:
    """The Newton solution at one λ, with the Cholesky factor of G at that solution.

    Attributes
    ----------
    lam : λ.   b : intercept.   theta : (r,) coefficients on Φ.   f, p : (n,) f_i and p̂_i.
    w : (n,) p̂_i(1 − p̂_i).   objective : J at the solution.
    iterations : Newton iterations used.   factorizations : exact factors of G formed for them.
    converged : the decrement test passed.
    note : "" or a plain-words remark (saturated/separable fit, regularized factorization…).
    """

    lam: float
    b: float
    theta: np.ndarray
    f: np.ndarray
    p: np.ndarray
    w: np.ndarray
    objective: float
    iterations: int
    converged: bool
    note: str
    basis: KernelBasis = field(repr=False)
    factor: object = field(repr=False, default=None)     # Cholesky-, Woodbury- or LaggedFactor
    factorizations: int = 0
    #: solves done with the last Newton step (``_newton_step``): (V, G^{-1}X'V to EXACT_RTOL, the
    #: first tangent's G^{-1}aEz to PREDICT_RTOL), or None
    presolved: tuple | None = field(repr=False, default=None)
    #: (the last exact factor formed, f at its forming, λ): the next λ's fit may precondition its
    #: first steps with it (``newton_logistic``'s ``held``)
    held: tuple | None = field(repr=False, default=None)

    @property
    def z(self) -> np.ndarray:
        return np.concatenate(([self.b], self.theta))

    @property
    def c(self) -> np.ndarray:
        """Kernel coefficients, f = b + Kc: c = U_r Λ_r^{-1/2} θ (= (y − p̂)/(2nλ) at the optimum)."""
        return self.basis.coefficients(self.theta)

    @property
    def chol(self) -> tuple:
        """G's upper Cholesky factor at the solution, ``(R, False)`` (formed on demand after a
        Woodbury solve; if that needs the ridge of ``_factor``, ``note`` says so from then on)."""
        R = self.factor.cholesky()
        late = self.factor.note
        if late and late not in self.note:
            self.note = "; ".join(v for v in (self.note, late) if v)
        return R

    def solve(self, rhs: np.ndarray, rtol: float = EXACT_RTOL) -> np.ndarray:
        """G^{-1} rhs with the factor in hand, to a residual of ``rtol`` of rhs (module docstring,
        "How exactly each solve is done")."""
        return self.factor.solve(rhs, rtol)

    def apply_H(self, V: np.ndarray) -> np.ndarray:
        """H V = X G^{-1} X' V (H = ∂f/∂y; ranGACV paper, eq 10's f^{y+δ} − f^y for V = δ); for the
        ``presolve`` array given to ``newton_logistic``, from the solves done with its last step."""
        X = self.basis.design
        if self.presolved is not None and V is self.presolved[0]:
            return X @ self.presolved[1]
        return X @ self.solve(X.T @ V)

    def H_dense(self) -> np.ndarray:
        """The n × n influence matrix H, formed explicitly (small n, tests and exact GACV checks)."""
        return self.apply_H(np.eye(self.basis.n))


def _kept(evals: np.ndarray, n: int) -> np.ndarray:
    """The eigenvalues above the eigensolver's noise level, n ε λ_max (at least the largest)."""
    top = max(float(evals[-1]), 0.0)
    keep = evals > n * np.finfo(float).eps * top
    return keep if keep.any() else evals >= top


def _pivoted_cholesky_basis(K: np.ndarray, exact_traces: bool) -> tuple:
    """(kind, evals, Φ, p, L) from a pivoted Cholesky factor of K (``KernelBasis.from_gram``):
    "rotated" into its eigenbasis when its rank r' ≤ ``ROTATE_UP_TO`` · n (Φ, no p or L);
    "pivoted" when r' = n and no exact traces are needed (Φ[p] = L, returned as p and the
    Fortran-ordered factor whose lower triangle is L); else ("eigen", None, None, None, None),
    and the caller eigendecomposes K (also when K is not finite or its diagonal not
    positive)."""
    n = K.shape[0]
    none = ("eigen", None, None, None, None)
    top_diag = float(np.max(np.diag(K))) if n else 0.0
    if not (top_diag > 0 and np.isfinite(K).all()):
        return none
    C, piv, rank, info = dpstrf(K, lower=1, tol=np.finfo(float).eps * top_diag)
    rotate = rank <= ROTATE_UP_TO * n
    if info < 0 or not (rotate or (rank == n and not exact_traces)):
        return none
    p = piv - 1
    if not rotate:     # K[p][:, p] = L L', L = C's lower triangle (Fortran-ordered, r' = n)
        return "pivoted", None, None, p, C
    Phi_c = np.empty((n, rank))
    Phi_c[p] = np.tril(C[:, :rank])                  # L = C's first r' columns
    evals, V = eigh(dsyrk(1.0, Phi_c, trans=1), lower=False, overwrite_a=True, check_finite=False)
    keep = _kept(evals, n)
    return "rotated", evals[keep], Phi_c @ V[:, keep], None, None


def penalty_weights(basis: KernelBasis, lam: float) -> np.ndarray:
    """The diagonal of a E = 2nλ diag(0, I) over z = (b, θ): no penalty on b (the Newton step's
    gradient and G, and the tangents' a E z)."""
    pen = np.full(basis.rank + 1, 2.0 * basis.n * lam)
    pen[0] = 0.0
    return pen


def objective(f: np.ndarray, theta: np.ndarray, y01: np.ndarray, lam: float) -> float:
    """J = (1/n) Σ [−y f + log(1 + e^f)] + λ‖θ‖² (λ‖θ‖² = λ c'Kc)."""
    return float(np.mean(softplus(f) - y01 * f) + lam * (theta @ theta))


def _factor(G: np.ndarray) -> tuple[tuple, str]:
    """Upper Cholesky factor of G as ``(R, False)`` for ``cho_solve`` (the lower triangle is zero,
    so LAPACK's triangular inverse can be applied to it directly). When W underflows (saturated
    fits) the b-row can lose definiteness in floating point: retry with a relative ridge of
    1e-12 on the diagonal."""
    try:
        return (cholesky(G, lower=False, check_finite=False), False), ""
    except LinAlgError:
        ridge = 1e-12 * max(float(np.max(np.diag(G))), 1e-300)
        return ((cholesky(G + ridge * np.eye(G.shape[0]), lower=False, check_finite=False), False),
                "Newton matrix regularized (W underflow)")


def _cho_solve(factor: tuple, rhs: np.ndarray) -> np.ndarray:
    """A^{-1} rhs from a Cholesky factor ``(C, lower)`` of A, as ``cho_solve`` takes it. A single
    right-hand side goes through two BLAS triangular solves (dtrsv): LAPACK's dpotrs, which
    ``cho_solve`` calls, solves one column with OpenBLAS's dtrsm, about three times slower
    (n = 2000, one thread: 3.8 ms against 1.3 ms). Several columns stay with ``cho_solve``."""
    C, lower = factor
    if rhs.ndim != 1:
        return cho_solve(factor, rhs, check_finite=False)
    T, low = (C, lower) if C.flags.f_contiguous else (C.T, not lower)   # T Fortran-ordered
    # A = F F' with F the lower-triangular one of T and T': solve with F, then with F'
    y = dtrsv(T, rhs, lower=low, trans=0 if low else 1)
    return dtrsv(T, y, lower=low, trans=1 if low else 0, overwrite_x=1)


def _initial(basis: KernelBasis, y01: np.ndarray) -> np.ndarray:
    z = np.zeros(basis.rank + 1)
    ybar = np.clip(np.mean(y01), 1e-3, 1 - 1e-3)
    z[0] = np.log(ybar / (1 - ybar))
    return z


def _newton_matrix(X, w, pen) -> np.ndarray:
    """G = X'WX + diag(pen), upper triangle only (BLAS syrk: half the flops of a full product)."""
    G = dsyrk(1.0, X * np.sqrt(w)[:, None], trans=1)
    G[np.diag_indices_from(G)] += pen
    return G


def _apply_G(X, w, pen, x) -> np.ndarray:
    """G x = X'W X x + pen x without forming G (O(n r); x: (r+1,) or (r+1, k))."""
    if x.ndim > 1:
        w, pen = w[:, None], pen[:, None]
    return X.T @ (w * (X @ x)) + pen * x


#: rank, as a fraction of n, above which the Newton systems go through the n × n Woodbury form
#: (n³/3 flops per iteration against n r² + r³/3 for forming and factoring G; equal at r ≈ 0.53 n,
#: but a Woodbury solve makes several passes over Φ and M where G's factor makes one over an
#: (r+1)² triangle). Measured, wahba2d columns (ranGACV and CKL, 26 λ, one process): n = 2000,
#: r/n = 0.57 / 0.61 G's factor 9.3–10.2 s against 11.6–12.0 s / 11.6 against 12.3 s, r/n = 0.69 /
#: 0.76 13.4 against 12.6 s / 15.7 against 13.7 s; n = 1000, r/n = 0.60: 1.40–1.48 s against
#: 1.67–1.70 s; n = 500, r/n = 0.64: 0.27–0.29 s against 0.29–0.32 s.
WOODBURY_FROM = 0.65


class CholeskyFactor:
    """G = X'WX + diag(pen) formed (BLAS syrk) and factored (``_factor``)."""

    def __init__(self, basis: KernelBasis, w: np.ndarray, pen: np.ndarray):
        self.chol, self.note = _factor(_newton_matrix(basis.X, w, pen))

    def solve(self, rhs: np.ndarray, rtol: float = 0.0) -> np.ndarray:
        """G^{-1} rhs by the Cholesky factor (backward stable: ``rtol`` is not needed)."""
        return _cho_solve(self.chol, rhs)

    precondition = solve        # a ``LaggedFactor``'s preconditioner

    def cholesky(self) -> tuple:
        return self.chol


class WoodburyFactor:
    """G^{-1} without forming G (module docstring, "Two ways to solve with G"): a Cholesky factor
    of M = W^{1/2} ΦΦ' W^{1/2} + cI and the intercept's Schur complement. Raises
    ``LinAlgError`` when that complement is lost to rounding (the caller then forms G). ``note``
    is "" until ``cholesky`` needs ``_factor``'s ridge."""

    def __init__(self, basis: KernelBasis, w: np.ndarray, pen: np.ndarray):
        self.basis, self.w, self.pen = basis, w, pen
        self.c = float(pen[1])
        self.sw = np.sqrt(w)
        M = basis.phi_gram * self.sw[:, None]
        M *= self.sw[None, :]
        M[np.diag_indices_from(M)] += self.c
        # M is C-ordered: its transpose is the Fortran array LAPACK wants (no 8n² copy), and its
        # lower triangle is M's upper one; M = L L'
        self.L = cholesky(M.T, lower=True, overwrite_a=True, check_finite=False)
        self.v = basis.phi.T @ w
        self.Ainv_v = self._Ainv(self.v)
        self.schur = float(np.sum(w) - self.v @ self.Ainv_v)
        if not self.schur > 1e-10 * float(np.sum(w)):
            raise LinAlgError("intercept's Schur complement lost to rounding")
        self._chol = None
        self.note = ""

    def _Ainv(self, x: np.ndarray) -> np.ndarray:
        """A^{-1} x, A = Φ'WΦ + cI (x: (r,) or (r, k))."""
        Phi = self.basis.phi
        sw = self.sw if x.ndim == 1 else self.sw[:, None]
        u = _cho_solve((self.L, True), sw * (Phi @ x))
        return (x - Phi.T @ (sw * u)) / self.c

    def solve(self, rhs: np.ndarray, rtol: float = EXACT_RTOL, refine: int = 2) -> np.ndarray:
        """G^{-1} rhs, refined up to ``refine`` times against G itself while the residual is above
        ``rtol`` of rhs: at small λ the Woodbury form alone loses digits to cancellation (relative
        error 1e-6 at log2(nλ) = −20, n = 400); two refinement steps bring it to the level of G's
        own Cholesky solve."""
        x = self._solve_once(rhs)
        for _ in range(refine):
            r = rhs - _apply_G(self.basis.design, self.w, self.pen, x)
            if np.all(np.abs(r).max(axis=0) <= rtol * np.abs(rhs).max(axis=0)):   # per column
                break
            x = x + self._solve_once(r)
        return x

    def _solve_once(self, rhs: np.ndarray) -> np.ndarray:
        """G^{-1} rhs by block elimination of b: z_θ = A^{-1}(g_θ − v z_b); unrefined, it is a
        ``LaggedFactor``'s preconditioner (``precondition``)."""
        t = self._Ainv(rhs[1:])
        zb = (rhs[0] - self.v @ t) / self.schur
        out = np.empty_like(t, shape=rhs.shape)
        out[0] = zb
        out[1:] = t - (np.outer(self.Ainv_v, zb) if rhs.ndim > 1 else self.Ainv_v * zb)
        return out

    def precondition(self, rhs: np.ndarray) -> np.ndarray:
        return self._solve_once(rhs)

    def cholesky(self) -> tuple:
        """G's own Cholesky factor at this W (formed once, when the exact traces ask for it; its
        ridge note, if any, becomes this factor's ``note``)."""
        if self._chol is None:
            self._chol, self.note = _factor(_newton_matrix(self.basis.X, self.w, self.pen))
        return self._chol


def newton_factor(basis: KernelBasis, w: np.ndarray, pen: np.ndarray, solver: str = "auto"):
    """The factor that solves with G: ``WoodburyFactor`` for ``solver="woodbury"`` or, with
    ``"auto"``, when r > ``WOODBURY_FROM`` · n; else (or when its Schur complement is lost)
    ``CholeskyFactor``."""
    if solver not in ("auto", "cholesky", "woodbury"):
        raise ValueError(f"solver must be 'auto', 'cholesky' or 'woodbury', got {solver!r}")
    if solver == "woodbury" or (solver == "auto" and basis.rank > WOODBURY_FROM * basis.n):
        try:
            return WoodburyFactor(basis, w, pen)
        except LinAlgError:
            pass
    return CholeskyFactor(basis, w, pen)


#: largest change of any f_i since the factor in hand was formed for which Newton keeps that factor,
#: as a preconditioner (module docstring, "Reusing a factor")
LAG_MAX_DF = 1e-4
#: the same for a Newton step that is not the last, solved to ``FAR_STEP_RTOL`` only, on a
#: Woodbury factor; the factor may be the previous λ's (module docstring, "Reusing a factor")
LAG_STEP_DF = 2.0
#: the same on G's own Cholesky factor: none (a conjugate-gradient iteration costs about a
#: twentieth of forming and factoring G; a solve that misses its goal forms its own factor)
LAG_STEP_DF_G = math.inf
#: a step that moved some f_i by more than this is followed by another (Newton's quadratic
#: convergence): the next step is not the last
FAR_STEP = 2e-2
#: most conjugate-gradient iterations of a lagged solve before it forms a factor of its own
LAG_MAX_CG = 8


class LaggedFactor:
    """Solves with G at (w, pen) by conjugate gradients preconditioned by ``base``, a factor of G
    at a nearby w (module docstring, "Reusing a factor"). A solve that has not reached a residual
    of 1e-14 of its right-hand side after ``LAG_MAX_CG`` iterations forms the exact factor at w
    (``newton_factor``) and solves with that from then on. ``formed`` counts those (0 or 1)."""

    def __init__(self, base, basis: KernelBasis, w: np.ndarray, pen: np.ndarray, solver: str):
        self.base, self.basis, self.w, self.pen, self.solver = base, basis, w, pen, solver
        self.formed, self.note, self._chol = 0, "", None

    def _cg(self, B: np.ndarray, rtol) -> np.ndarray | None:
        """Preconditioned CG on every column of B at once, to a residual of ``rtol`` (a float, or
        one per column) of the column; None when a column misses it."""
        x, r = np.zeros_like(B), B.copy()
        goal = rtol * np.abs(B).max(axis=0)
        live = goal > 0
        z = self.base.precondition(r)
        d, rz = z, np.einsum("ij,ij->j", r, z)
        for _ in range(LAG_MAX_CG):
            q = _apply_G(self.basis.design, self.w, self.pen, d)
            step = np.where(live, rz / np.where(live, np.einsum("ij,ij->j", d, q), 1.0), 0.0)
            x += step * d
            r -= step * q
            live = np.abs(r).max(axis=0) > goal
            if not live.any():
                return x
            z = self.base.precondition(r)
            rz_new = np.einsum("ij,ij->j", r, z)
            d = z + np.where(live, rz_new / np.where(live, rz, 1.0), 0.0) * d
            rz = rz_new
        return None

    def solve(self, rhs: np.ndarray, rtol: float = EXACT_RTOL) -> np.ndarray:
        if not self.formed:
            x = self._cg(rhs.reshape(len(rhs), -1), rtol)
            if x is not None:
                return x.reshape(rhs.shape)
            self.base, self.formed = newton_factor(self.basis, self.w, self.pen, self.solver), 1
            self.note = self.base.note
        return self.base.solve(rhs, rtol)

    def cholesky(self) -> tuple:
        """G's own Cholesky factor at this w (formed once, on demand, as ``WoodburyFactor``'s)."""
        if self._chol is None:
            self._chol, note = _factor(_newton_matrix(self.basis.X, self.w, self.pen))
            self.note = "; ".join(v for v in (self.note, note) if v)
        return self._chol


def _factor_near(basis, w, pen, solver, f, held, lam, far):
    """A ``LaggedFactor`` on the held exact factor while no f_i has moved more than
    ``LAG_MAX_DF`` since it was formed at this λ, or, for a step that is not the last (``far``),
    more than ``LAG_STEP_DF`` (``LAG_STEP_DF_G`` for G's own factor; and it needed no ridge);
    else a new exact factor. ``held`` is ``(exact factor, f at its forming, λ)`` or None."""
    if held is None or held[0].note:
        return newton_factor(basis, w, pen, solver)
    df = float(np.abs(f - held[1]).max())
    if df <= LAG_MAX_DF and held[2] == lam:
        return LaggedFactor(held[0], basis, w, pen, solver)
    if far and df <= (LAG_STEP_DF_G if isinstance(held[0], CholeskyFactor) else LAG_STEP_DF):
        return LaggedFactor(held[0], basis, w, pen, solver)
    return newton_factor(basis, w, pen, solver)


def newton_logistic(basis: KernelBasis, y01: np.ndarray, lam: float, z0: np.ndarray | None = None,
                    tol: float = 1e-18, stall_tol: float = 1e-10, ftol: float = 1e-9,
                    max_iter: int = 60, solver: str = "auto", lag: bool = True,
                    presolve: np.ndarray | None = None, held: tuple | None = None
                    ) -> LogisticSolution:
    """Minimise the penalized likelihood at one λ by damped Newton–Raphson (module docstring).

    Parameters
    ----------
    basis : ``KernelBasis`` of the Gram matrix.   y01 : (n,) 0/1 responses (may be perturbed).
    lam : λ > 0.   z0 : warm start (b, θ), e.g. the solution at the previous λ.
    tol : decrement tolerance, relative to 2n(1 + |J|).   max_iter : most Newton iterations.
    stall_tol : a decrement below this (same scale) that no longer falls tenfold per iteration is
        the rounding floor (quadratic convergence has stopped): converged as well.
    ftol : largest change of f the step below ``tol`` may still make, relative to 1 + max|f|
        (saturated points have weights near 0, so the decrement alone does not see their f).
    solver : how G is solved with: "auto", "cholesky" or "woodbury" (``newton_factor``).
    lag : reuse the factor in hand while f stays within ``LAG_MAX_DF`` of where it was formed
        (``LaggedFactor``), and solve a step that another will follow to ``FAR_STEP_RTOL``;
        False forms a factor at every iteration and solves every step to ``STEP_RTOL``.
    presolve : (n, k) array V whose H V will be asked for at the solution (ranGACV's δ): solved,
        with the first tangent's system, in the same conjugate gradients as a lagged step
        (``_newton_step``), which is in practice the last one.
    held : the previous λ's ``LogisticSolution.held``: its factor may precondition this λ's
        first steps (``LAG_STEP_DF``).

    Returns
    -------
    LogisticSolution (``converged`` False when ``max_iter`` ran out or no step decreased J;
    ``factorizations`` counts the exact factors formed).
    """
    X, n = basis.design, basis.n
    y01 = np.asarray(y01, float)
    pen = penalty_weights(basis, lam)
    z = _initial(basis, y01) if z0 is None else np.array(z0, float)
    f = X @ z
    J = objective(f, z[1:], y01, lam)
    converged, it, dec_prev, formed, far = False, 0, np.inf, 0, True
    while it < max_iter:
        it += 1
        p = expit(f)
        w = p * expit(-f)
        g = X.T @ (p - y01) + pen * z
        factor = _factor_near(basis, w, pen, solver, f, held if lag else None, lam, far)
        loose = far and lag             # a step that another will follow: inexact Newton
        step, presolved = _newton_step(factor, X, g, pen * z, presolve, loose)
        if getattr(factor, "formed", 1):       # a new factor, or a lagged one that had to form its own
            formed += 1
            held = (getattr(factor, "base", factor), f, lam)
        dec = float(-g @ step)
        scale = 2 * n * (1.0 + abs(J))
        # convergence is judged on steps solved to STEP_RTOL only
        if not loose and _done(dec, dec_prev, scale, tol, stall_tol, _f_change(X, step, f, ftol)):
            converged = True
            break
        dec_prev = dec
        stepped = _line_search(X, y01, lam, z, J, step, dec, stall_tol * scale)
        if stepped is None and loose:   # judge this iterate again with an accurate step
            far = False
            continue
        if stepped is None:     # no decrease at any step length: we sit at the rounding floor of J
            converged = dec <= stall_tol * scale
            break
        far = float(np.abs(stepped[1] - f).max()) > FAR_STEP
        z, f, J = stepped
    else:
        p = expit(f)
        factor, formed = newton_factor(basis, p * expit(-f), pen, solver), formed + 1
    p = expit(f)
    notes = [factor.note] if factor.note else []
    if not converged:
        notes.append(f"not converged after {it} Newton iterations")
    if np.all(np.abs(y01 - p) < SATURATION):
        notes.append("saturated: p̂ within 1e-6 of every label (the classes are separable at "
                     "this λ; f grows without bound as λ → 0)")
    return LogisticSolution(lam, float(z[0]), z[1:].copy(), f, p, p * expit(-f), J, it, converged,
                            "; ".join(notes), basis, factor, formed,
                            presolved if converged else None, held)


def _newton_step(factor, X, g, aEz, presolve, loose=False):
    """The Newton step −G^{-1}g to ``STEP_RTOL`` (``FAR_STEP_RTOL`` for a step that another will
    follow, ``loose``: never the solution, so nothing else is solved with it), and the solves at
    this iterate that are wanted if it is the solution: with a lagged factor (in practice the last
    iteration, which only confirms convergence) G^{-1}X'V for V = ``presolve`` (to
    ``EXACT_RTOL``) and the first tangent's G^{-1}aEz (to ``PREDICT_RTOL``) run in the same
    conjugate gradients, one pass over the matrices for all the columns. Returns (step,
    (V, G^{-1}X'V, G^{-1}aEz) or None)."""
    if loose:
        return -factor.solve(g, FAR_STEP_RTOL), None
    if presolve is None or not isinstance(factor, LaggedFactor) or factor.formed:
        return -factor.solve(g, STEP_RTOL), None
    XtV = X.T @ presolve
    B = np.column_stack([g, aEz, XtV])
    rtol = np.r_[STEP_RTOL, PREDICT_RTOL, np.full(XtV.shape[1], EXACT_RTOL)]
    x = factor.solve(B, rtol)
    return -x[:, 0], (presolve, x[:, 2:], x[:, 1])


def _done(dec: float, dec_prev: float, scale: float, tol: float, stall_tol: float,
          f_still: bool) -> bool:
    """The convergence rule (module docstring): the decrement below ``tol`` with f no longer
    moving (``f_still``), or at the rounding floor (below ``stall_tol`` and no longer falling
    tenfold)."""
    return (dec <= tol * scale and f_still) or (dec <= stall_tol * scale and dec >= 0.1 * dec_prev)


def _f_change(X: np.ndarray, step: np.ndarray, f: np.ndarray, ftol: float) -> bool:
    """Whether the step changes no f_i by more than ``ftol`` (1 + max|f|)."""
    return float(np.abs(X @ step).max()) <= ftol * (1.0 + float(np.abs(f).max()))


def _line_search(X, y01, lam, z, J, step, dec, stall_level):
    """Step halving from the full Newton step (Armijo constant 1e-4, at most 60 halvings):
    ``(z, f, J)``, or None when no step length decreases J. Below the stall level the decrease
    is under J's rounding: the Armijo test would compare noise (halving a good step there stalled
    a fit at a 2e-8 error in f), and the fit is deep inside Newton's quadratic region, so the full
    step is taken."""
    t, slope = 1.0, -dec / len(y01)
    for _ in range(60):
        z_new = z + t * step
        f_new = X @ z_new
        J_new = objective(f_new, z_new[1:], y01, lam)
        if J_new <= J + 1e-4 * t * slope or dec <= stall_level:
            return z_new, f_new, J_new
        t *= 0.5
    return None


def iter_path(basis: KernelBasis, y01: np.ndarray, lams: Sequence[float], **kw):
    """Yield (index into ``lams``, solution) from the largest λ to the smallest, each fit
    warm-started at the second-order prediction from the previous one (``predictor``). A failure at
    one λ is yielded as the exception in its place and the next λ starts afresh. Only the
    current solution is held, so a caller that consumes the solutions one by one keeps one
    (r+1)-square factor in memory, not one per λ."""
    lams = [float(v) for v in lams]
    y01 = np.asarray(y01, float)
    sol = None
    for k in sorted(range(len(lams)), key=lambda i: -lams[i]):
        check_cancel()                 # a sweep's cancel, between λ (not caught below)
        try:
            z0, held = (None, None) if sol is None else (predictor(sol, lams[k], y01), sol.held)
            sol = newton_logistic(basis, y01, lams[k], z0=z0, held=held, **kw)
            yield k, sol
        except Exception as exc:  # one bad λ must not stop the column
            sol = None
            yield k, exc


def solve_path(basis: KernelBasis, y01: np.ndarray, lams: Sequence[float], **kw) -> list:
    """All solutions of ``iter_path`` as a list in the order of ``lams``."""
    out: list = [None] * len(lams)
    with one_blas_thread():
        for k, sol in iter_path(basis, y01, lams, **kw):
            out[k] = sol
    return out


def tangents(sol: LogisticSolution, rtol: float = EXACT_RTOL) -> tuple[np.ndarray, np.ndarray]:
    """First and second derivatives of the solution z = (b, θ) in t = log λ, at the solution.

    With a = 2nλ and E = diag(0, I), the optimality condition is F(z, t) = X'(p̂ − y) + a E z = 0
    and G = ∂F/∂z = X'WX + aE. Differentiating once in t (da/dt = a)::

        G z' = −a E z,

    and twice (dG/dt = X' diag(w' ⊙ X z') X + aE, w' = dw/df = p̂(1 − p̂)(1 − 2p̂); then aEz = −Gz')::

        G z'' = G z' − X'(w' ⊙ (X z')²) − 2a E z'.

    Two solves with the factor in hand (to a residual of ``rtol``), O(n r) besides: no
    factorization.
    """
    X = sol.basis.design
    pen = penalty_weights(sol.basis, sol.lam)

    def aE(v):                                 # a E v: no penalty on b
        return pen * v

    if sol.presolved is not None and rtol >= PREDICT_RTOL:
        z1 = -sol.presolved[2]               # solved with the last Newton step
    else:
        z1 = -sol.solve(aE(sol.z), rtol)
    f1 = X @ z1
    z2 = z1 - sol.solve(X.T @ (sol.w * (1.0 - 2.0 * sol.p) * f1 * f1) + 2.0 * aE(z1), rtol)
    return z1, z2


def predictor(sol: LogisticSolution, lam_next: float, y01: np.ndarray | None = None) -> np.ndarray:
    """Second-order (Taylor in log λ) prediction of the solution at ``lam_next`` from the one in
    hand: z + Δ z' + Δ² z''/2 with Δ = log(λ'/λ) (``tangents``). It starts Newton closer than
    the tangent alone (wahba2d, n = 500, log2(nλ) steps of 1: the first decrement ~100× smaller,
    17–20 % fewer Newton iterations). Far from λ (steps of 6 in log2(nλ)) the quadratic term can
    overshoot: given the responses ``y01``, the tangent z + Δz' is kept when its objective at
    ``lam_next`` is lower (two O(n r) evaluations). The tangent is also used when z'' is not
    finite; the step halving guards against overshoot either way."""
    z1, z2 = tangents(sol, PREDICT_RTOL)
    d = float(np.log(lam_next / sol.lam))
    first = sol.z + d * z1
    if not np.all(np.isfinite(z2)):
        return first
    second = first + 0.5 * d * d * z2
    if y01 is not None:
        X = sol.basis.design
        if objective(X @ first, first[1:], y01, lam_next) < objective(X @ second, second[1:], y01,
                                                                       lam_next):
            return first
    return second
