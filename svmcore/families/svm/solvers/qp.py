"""cvxopt's interior-point QP on the SVM dual: the reference backend (Wahba et al. 2001, eq 1.25)."""
from __future__ import annotations

import numpy as np

from ._common import DualSolution, finish_dual

_OPTIONS = {"show_progress": False, "abstol": 1e-9, "reltol": 1e-9, "feastol": 1e-9,
            "maxiters": 100}


def solve_cvxopt(K, y, upper, lam, **options) -> DualSolution:
    """Solve the weighted SVM dual with ``cvxopt.solvers.qp`` (docs/svm.md).

    With s = 2nλ and m = min(1, s) the variable is v = α/m, so the problem solved is
    min ½ v' D_y K D_y v − (s/m) e'v, 0 ≤ v ≤ L(y)/m, y'v = 0: at large λ this is the α scale, at
    small λ LIBSVM's a = α/s scale, where the solution tends to the hard-margin one and stays O(1).
    The multiplier ν of the equality constraint gives b = ν·m/s. The interior-point answer is then
    finished exactly (``finish_dual``). This is ``solve_restricted_dual`` on all points from α = 0.
    """
    n = len(y)
    alpha, b, sol = solve_restricted_dual(K, y, upper, lam, np.zeros(n), np.arange(n),
                                          dict(_OPTIONS, **options))
    if sol["x"] is None:
        raise ArithmeticError(f"cvxopt returned no solution (status {sol['status']})")
    info = {"status": sol["status"]}
    return finish_dual(K, y, upper, lam, alpha, b, "cvxopt", int(sol["iterations"]), info=info)


def box_rows(w: int, spmatrix):
    """The 2w × w constraint matrix [−I; I] of the box, as a cvxopt sparse matrix. cvxopt's KKT
    solver forms G'DG each iteration: from a dense G that is 4w³ flops, from a sparse one a
    diagonal (n = 2500: 20.3 s → 2.6 s a solve, the same 20 iterations; ``bench/cvxopt_box.py``)."""
    return spmatrix([-1.0] * w + [1.0] * w, list(range(2 * w)), list(range(w)) * 2, (2 * w, w))


def solve_restricted_dual(K, y, upper, lam, alpha, Widx, options, to_rounding=False):
    """cvxopt on the dual restricted to the points Widx, every other α fixed (docs/svm.md).

    The variable is the change δ = (α_W − α_W⁰)/m from the current α⁰, m = min(1, 2nλ):

        min ½ δ' D K_WW D δ + (s/m)(y_W g_W − 1)'δ   s.t. −α_W⁰/m ≤ δ ≤ (L_W − α_W⁰)/m,
                                                          y_W'δ = −y'α⁰/m,

    g = K D_y α⁰ / s on W: the restricted dual times s/m², up to a constant (from α⁰ = 0 on all
    points, the whole dual in v = α/m). Written in α_W itself the linear term would hold
    K_WF β_F / s, which at tiny λ is huge and cancels almost exactly against K_WW β_W / s; cvxopt's
    relative stopping tests would then stop far from the solution. In δ the linear term is the
    gradient on W and the objective is the decrease itself.

    ``to_rounding``: cvxopt's residuals are asked for only to their rounding levels
    (``_rounding_scales``), so that its "optimal" exit can fire once the gap is lost in rounding
    (``reltol`` ε) instead of after ``maxiters`` iterations.

    Returns (α with α_W replaced, b, cvxopt's result dict); cvxopt's exceptions propagate.
    """
    from cvxopt import matrix, solvers, spmatrix

    n = len(y)
    s = 2.0 * n * lam
    m = min(1.0, s)
    yW, uW, aW = y[Widx], upper[Widx], alpha[Widx]
    gW = K[Widx] @ (y * alpha) / s
    w = Widx.size
    P = np.outer(yW, yW) * K[np.ix_(Widx, Widx)]
    q = (s / m) * (yW * gW - 1.0)
    G = box_rows(w, spmatrix)
    h = matrix(np.r_[aW / m, (uW - aW) / m])
    row = 1.0
    if to_rounding:
        row, level = _rounding_scales(P, q, aW, uW, m)
        options = dict(options, feastol=max(options["feastol"], level))
    A = matrix(row * yW.reshape(1, -1))
    rhs = matrix(-row * float(y @ alpha) / m)
    sol = solvers.qp(matrix(P), matrix(q), G, h, A, rhs, options=options)
    new = alpha.copy()
    if sol["x"] is not None:
        new[Widx] = np.clip(aW + np.asarray(sol["x"]).ravel() * m, 0.0, uW)
    # stationarity on a free point of W: (D K D δ)_i + (s/m)(y_i g_i − 1) + y_i ν = 0, i.e.
    # y_i (g_i' + ν m / s) = 1 with g' the new K D_y α / s: b = ν m / s (cvxopt's Lagrangian is
    # ½x'Px + q'x + ν'(Ax − b) + z'(Gx − h); with the row scaled its multiplier is ν / row)
    nu = float(np.asarray(sol["y"]).ravel()[0]) * row if sol["y"] is not None else np.nan
    return new, nu * m / s, sol


def _rounding_scales(P, q, aW, uW, m):
    """(row, level): the equality row's scale and the residual level cvxopt can be asked for.

    cvxopt measures the equality's residual |y_W'δ − r| relative to max(1, |r|), but its
    rounding is ε Σ|δ_i|, up to ε Σ L_i/m: at tiny λ far above any ``feastol`` (wahba2d
    n = 10,000, σ = 2^-3, log2(nλ) = −21: 1e-8, Σ|δ| = 9.6e7), so the "optimal" exit never fired
    and every sub-problem ran its ``maxiters``. Scaled by row = 1/max(1, Σ L_i/m) it is
    measured against the largest |y_W'δ| the box allows. The dual residual |Pδ + q + …| / max(1,
    |q|) rounds at ε ‖ |P| δ_max ‖ / max(1, |q|) (δ_max: the box's bounds on |δ|; there 1.6e-10
    reached, bound 4.6e-9): the level returned, 4 times that."""
    row = 1.0 / max(1.0, float(uW.sum()) / m)
    reach = np.maximum(aW, uW - aW) / m
    level = 4.0 * np.finfo(float).eps * float(np.linalg.norm(np.abs(P) @ reach))
    return row, level / max(1.0, float(np.linalg.norm(q)))
