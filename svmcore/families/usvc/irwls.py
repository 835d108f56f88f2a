"""Iterated reweighted least squares (IRWLS) for the classic and the unbiased SVC.

Navia-Vázquez, Pérez-Cruz, Artés-Rodríguez & Figueiras-Vidal (2004), eqs 14–22 and 25–26. The
primal ½ β'Gβ + C Σ θ(ξ_i), ξ_i = (1 − y_i f_i)_+, f = Zβ + b, is minimised by repeating:

1. u_i = e_i y_i = 1 − y_i f_i with e_i = y_i − f_i (the current residuals);
2. α_i = C θ'(u_i) where u_i ≥ 0, else 0 (eq 21; θ the hinge or θ̃_s);
3. a_i = α_i / u_i where u_i ≥ 0, else 0 (eq 22, see the note on the factor 2 below), with u_i
   floored at ``u_floor`` so that a point on the margin gets a large but finite weight;
4. (β, b) ← the weighted ridge least squares min ½ β'Gβ + ½ Σ a_i (y_i − Z_iβ − b)² (eq 20;
   eqs 25–26 for the prototype kernel machine);
5. damping: (β_k, b_k) = d (β_{k−1}, b_{k−1}) + (1 − d) (β, b), d = 0.2 in the paper.

Stop at the fixed point: ‖Δ(β, b)‖ ≤ tol (1 + ‖(β, b)‖). A fixed point satisfies KKT eqs 9–10
(Σ α_i y_i = 0, Gβ = Σ α_i y_i z_i) with eq 21's α.

Factor 2. The paper writes a_i = 2α_i/(e_i y_i) (eqs 15, 22) with the term ½ Σ a_i e_i² (eq 16):
that matches the *value* of Σ α_i e_i y_i but twice its *gradient*, so the literal fixed point of
eq 20 satisfies w = 2 Σ α_i y_i φ(x_i), i.e. it minimises ½‖w‖² + 2C Σ θ(ξ_i). We use the
majorisation weight a_i = α_i/(e_i y_i) (C ξ ≤ C ξ²/(2ξ₀) + C ξ₀/2), whose fixed point is eq 5
with the stated C — the classic SVC with LIBSVM's C (checked against the QP in the tests).
``docs/usvc.md`` has the derivation.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from scipy.linalg import LinAlgError, cho_factor, cho_solve
from threadpoolctl import threadpool_limits

#: smallest u_i = e_i y_i used in a_i = α_i / u_i (a point on the margin gets a_i ≤ α_i / U_FLOOR)
U_FLOOR = 1e-8


@dataclass
class IRWLSFit:
    """The result of one IRWLS run.

    Attributes
    ----------
    coef : (p,) β (w for the linear machine).   b : intercept.
    iterations : weighted LS solves done.   converged : whether the fixed-point rule was met.
    message : why it stopped.   coef_path, b_path : (iterations + 1) iterates, the start first.
    alpha : α_i of eq 21 at the final iterate.   a : the weights a_i used in the last solve.
    seconds : wall time.
    """

    coef: np.ndarray
    b: float
    iterations: int
    converged: bool
    message: str
    coef_path: np.ndarray
    b_path: np.ndarray
    alpha: np.ndarray = field(repr=False, default=None)
    a: np.ndarray = field(repr=False, default=None)
    seconds: float = 0.0


def whitening(G: np.ndarray, rel_tol: float = 1e-12) -> np.ndarray:
    """T (p × k) with T'GT = I on the numerical range of the PSD matrix G (eigenvalues ≤ rel_tol·max dropped).

    For the prototype machine, β = Tγ turns ½ β' I_Ψ β into ½‖γ‖² and the design K into KT, whose
    rows are the coordinates of φ(x_i) in an orthonormal basis of span{φ(c_j)} (norm ≤ 1 for the
    Gaussian kernel), so every weighted LS below is a ridge problem with identity penalty.
    """
    G = 0.5 * (G + G.T)
    vals, vecs = np.linalg.eigh(G)
    keep = vals > rel_tol * max(vals.max(), 0.0)
    if not keep.any():
        raise ValueError("the prototype Gram matrix has no positive eigenvalue")
    return vecs[:, keep] / np.sqrt(vals[keep])


def weighted_ls(Z, y, a) -> tuple[np.ndarray, float]:
    """min over (γ, b) of ½‖γ‖² + ½ Σ a_i (y_i − Z_i γ − b)² (eq 20; eq 26 with eq 25's intercept).

    Normal equations [Z'D_aZ + I, Z'a; a'Z, a'1] (γ, b) = (Z'D_a y, a'y), symmetrically Jacobi-scaled
    and solved by Cholesky; a stacked least-squares solve is the fallback when Cholesky fails.
    """
    on = a > 0
    Zb = np.column_stack([Z[on], np.ones(int(on.sum()))])
    aa, yy = a[on], y[on]
    p = Z.shape[1]
    M = (Zb * aa[:, None]).T @ Zb
    M[np.arange(p), np.arange(p)] += 1.0
    rhs = Zb.T @ (aa * yy)
    if M[p, p] <= 0:                      # no weighted point: w = 0, and b is free; keep b = 0
        return np.zeros(p), 0.0
    sc = 1.0 / np.sqrt(np.diag(M))
    try:
        cf = cho_factor(M * sc[:, None] * sc[None, :])
        sol = cho_solve(cf, rhs * sc) * sc
    except LinAlgError:
        r = np.sqrt(aa)
        A = np.vstack([Zb * r[:, None], np.column_stack([np.eye(p), np.zeros(p)])])
        sol = np.linalg.lstsq(A, np.concatenate([r * yy, np.zeros(p)]), rcond=None)[0]
    return sol[:p], float(sol[p])


def irwls_weights(alpha, u, u_floor: float = U_FLOOR) -> np.ndarray:
    """a_i = α_i / max(u_i, u_floor) where u_i = e_i y_i ≥ 0, else 0 (eq 22 without its factor 2)."""
    return np.where(u >= 0.0, alpha / np.maximum(u, u_floor), 0.0)


def irwls(Z, y, alpha_rule: Callable[[np.ndarray], np.ndarray], coef0, b0: float, *,
          damping: float = 0.2, tol: float = 1e-8, max_iter: int = 1000,
          u_floor: float = U_FLOOR) -> IRWLSFit:
    """Run the damped IRWLS from (coef0, b0) (Navia-Vázquez et al. 2004, §2 steps 3–5).

    Parameters
    ----------
    Z : (n, p) design (X for the linear machine, the n×R kernel to prototypes otherwise).
    y : ±1 labels. The penalty is ½‖coef‖² (whiten first: ``whitening``).
    alpha_rule : u ↦ α (``losses.hinge_alpha`` or ``losses.usvc_alpha`` with C bound).
    coef0, b0 : the start.   damping : d in w_k = d w_{k−1} + (1 − d) w.
    tol : fixed-point tolerance.   max_iter : most weighted LS solves.
    """
    with threadpool_limits(1):   # small dense solves: one BLAS thread is fastest and shares the CPU
        return _irwls(Z, y, alpha_rule, coef0, b0, damping, tol, max_iter, u_floor)


def _irwls(Z, y, alpha_rule, coef0, b0, damping, tol, max_iter, u_floor) -> IRWLSFit:
    t0 = time.perf_counter()
    coef, b = np.asarray(coef0, dtype=float).copy(), float(b0)
    coefs, bs = [coef.copy()], [b]
    converged, msg, alpha, a = False, "", None, None
    for it in range(1, max_iter + 1):
        u = 1.0 - y * (Z @ coef + b)
        alpha = alpha_rule(u)
        a = irwls_weights(alpha, u, u_floor)
        c_ls, b_ls = weighted_ls(Z, y, a)
        c_new = damping * coef + (1.0 - damping) * c_ls
        b_new = damping * b + (1.0 - damping) * b_ls
        step = np.sqrt(np.sum((c_new - coef) ** 2) + (b_new - b) ** 2)
        scale = 1.0 + np.sqrt(np.sum(c_new ** 2) + b_new ** 2)
        coef, b = c_new, b_new
        coefs.append(coef.copy())
        bs.append(b)
        if not np.all(np.isfinite(coef)) or not np.isfinite(b):
            msg = f"the iterate became non-finite at iteration {it}"
            break
        if step <= tol * scale:
            converged = True
            msg = f"fixed point reached after {it} iterations (step {step:.2e})"
            break
    else:
        it = max_iter
        msg = (f"not converged: {max_iter} iterations reached, last relative step "
               f"{step / scale:.2e} > tol {tol:.0e} (the USVC objective is not convex; "
               f"raise max_iter or the damping)")
    u = 1.0 - y * (Z @ coef + b)
    alpha = alpha_rule(u)
    return IRWLSFit(coef, b, it, converged, msg, np.array(coefs), np.array(bs), alpha, a,
                    time.perf_counter() - t0)


def least_squares_start(Z, y) -> tuple[np.ndarray, float]:
    """Regularized least squares, ½‖γ‖² + ½ Σ (y_i − f_i)² (all a_i = 1: the paper's step 0)."""
    return weighted_ls(Z, y, np.ones(len(y)))
