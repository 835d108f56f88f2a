"""Exact repair of a near-solution of the SVM dual by a working-set method (docs/svm.md).

A regularization-path solver can end up at some λ with an answer (α, b) that is almost exact but
whose KKT residual (``kkt_residual``) is a little too large — typically at very small λ with a
Gaussian kernel of large σ, where K is numerically low-rank and only a few points are free. Solving
the whole dual again with cvxopt costs O(n³) per interior-point iteration; here only a working set
W (the free points, the KKT violators and the bound points nearest the margin) is optimized, with
every α outside W fixed:

    min ½ β_W' K_WW β_W / s + β_W' K_WF β_F / s − e'α_W   s.t. 0 ≤ α_W ≤ L_W,  y_W'α_W = −y_F'α_F,

β = D_y α, s = 2nλ. The answer is finished exactly on all n points (``finish_dual``; briefly when
it is still far off, residual above ``NEAR_SOLUTION``) and accepted
when its KKT residual on all points is ≤ max(tol, rounding floor of f); otherwise the new violators
join W and the sub-problem is solved again. The result is therefore certified by the full KKT check;
``None`` means the repair did not get there (the caller then solves the full problem).
"""
from __future__ import annotations

import numpy as np

from ._common import (BOUND_RTOL, FAR_STALL_ROUNDS, NEAR_SOLUTION, STALL_ROUNDS, DualSolution,
                      decision_values, finish_dual, interval_midpoint, kkt_violations,
                      rounding_floor, snap_to_bounds, zero_scale)
from .qp import solve_restricted_dual

#: cvxopt options of the sub-problem. The iterations run until the gap is lost in rounding
#: (relative gap ε: at tiny λ the objective, in v = α/m, is ~1e13 after a large move, and a
#: relative gap of 1e-11 still leaves y f wrong by ~0.1) with the residuals at their rounding
#: levels (``qp._rounding_scales``), or ``maxiters`` ("unknown", last iterate). The sub-problem
#: is small: an iteration costs O(|W|³).
_OPTIONS = {"show_progress": False, "abstol": 1e-300, "reltol": float(np.finfo(float).eps),
            "feastol": 1e-11, "maxiters": 60}


def _best_intercept(g, y, alpha, upper, rtol: float = BOUND_RTOL, scale: float = 1.0) -> float:
    """The b that minimizes the largest KKT violation of the points for fixed g = K D_y α / s.

    Each point bounds b from one side (a bound point) or both (a free point); the largest violation
    max(0, max lo − b, b − min hi) is smallest at the midpoint of [min hi, max lo] when these cross,
    and anywhere in [max lo, min hi] (midpoint taken) otherwise.
    """
    at0 = alpha <= rtol * scale * upper
    atL = alpha >= (1.0 - rtol) * upper
    need_ge = ~atL          # y (g + b) ≥ 1 : α = 0 or free
    need_le = ~at0          # y (g + b) ≤ 1 : α = L or free
    pos = y > 0
    lo_parts = np.r_[(1.0 - g)[need_ge & pos], (-1.0 - g)[need_le & ~pos]]
    hi_parts = np.r_[(-1.0 - g)[need_ge & ~pos], (1.0 - g)[need_le & pos]]
    return interval_midpoint(lo_parts, hi_parts)


def _select(viol, margin, free, member, k_viol, min_size, tol):
    """Grow the working set ``member`` (bool mask, modified copy returned): the free points, the
    ``k_viol`` largest violators (> tol) outside it, then the bound points nearest the margin until
    it holds at least ``min_size`` points."""
    W = member | free
    out = np.flatnonzero(~W & (viol > tol))
    if out.size:
        if out.size > k_viol:
            out = out[np.argpartition(-viol[out], k_viol - 1)[:k_viol]]
        W[out] = True
    short = min_size - int(W.sum())
    if short > 0:
        rest = np.flatnonzero(~W)
        if rest.size > short:
            rest = rest[np.argpartition(margin[rest], short - 1)[:short]]
        W[rest] = True
    return W


def _make_feasible(W, y, upper, alpha, margin):
    """Add points to W until the equality y_W'α_W = −y_F'α_F is reachable inside the box of W."""
    while not W.all():
        target = -float(y[~W] @ alpha[~W])
        lo = -float(upper[W & (y < 0)].sum())
        hi = float(upper[W & (y > 0)].sum())
        if lo <= target <= hi:
            break
        # more room is needed on the side of the target: a y = +1 point j (above hi) or y = −1
        # point (below lo) joining W widens the range by L_j and moves the target by α_j, a net
        # gain of L_j − α_j: take points with α_j < L_j, nearest the margin first
        want = (y > 0) if target > hi else (y < 0)
        cand = np.flatnonzero(~W & want & (alpha < upper))
        if cand.size == 0:
            cand = np.flatnonzero(~W & want)
        if cand.size == 0:
            cand = np.flatnonzero(~W)
        k = min(cand.size, max(1, int(W.sum())))
        W[cand[np.argsort(margin[cand], kind="stable")[:k]]] = True
    return W


def _solve_sub(K, y, upper, lam, alpha, Widx, options):
    """``qp.solve_restricted_dual`` on W; (α, b, status), or None when cvxopt fails outright."""
    try:
        new, b, sol = solve_restricted_dual(K, y, upper, lam, alpha, Widx, options,
                                            to_rounding=True)
    except (ValueError, ArithmeticError):
        return None
    if sol["x"] is None:
        return None
    return new, b, sol["status"]


def solve_working_set(K, y, upper, lam, alpha, b, *, tol: float = 1e-8, max_rounds: int = 20,
                      min_size: int = 50, max_size: int | None = None, blas_threads: int | None = 1,
                      finish_rounds: tuple[int, int] = (STALL_ROUNDS, FAR_STALL_ROUNDS),
                      band_start: bool = True, **options) -> DualSolution | None:
    """Repair a near-solution (α, b) of the weighted SVM dual by a working-set method (docs/svm.md).

    Each round optimizes the dual over a working set W with cvxopt (everything outside W fixed at
    its current α), finishes the answer exactly on all n points with ``finish_dual`` (briefly when
    it is still far off: residual above ``NEAR_SOLUTION``) and checks its KKT residual on all
    points. W starts as the free points, the KKT violators (largest first) and
    the bound points with |y f − 1| smallest, at least ``min_size`` points; each round adds the new
    violators (twice as many as the previous round at most) until the residual is ≤ max(tol, floor),
    floor = ``rounding_floor`` (the rounding level of f = K c + b).

    Parameters
    ----------
    K : (n, n) array
        Gram matrix.
    y : (n,) array of ±1
    upper : (n,) array
        L(y_i) > 0.
    lam : float
        λ > 0.
    alpha, b : (n,) array, float
        The starting point (need not be feasible; a point far from the solution only costs rounds).
    tol : float
        KKT residual wanted.
    max_rounds : int
        Number of sub-problems solved before giving up.
    min_size : int
        Smallest working set.
    max_size : int, optional
        Largest working set: a sub-problem costs O(|W|³) per interior-point iteration, so beyond
        this size (large free sets, e.g. small σ) the repair gives up (``None``) at once. Default
        ``default_max_size(n)``.
    blas_threads : int or None
        BLAS threads during the repair (its systems are small: on a busy machine one thread is
        more than ten times faster than several); None leaves the setting alone.
    finish_rounds : (int, int)
        ``finish_dual``'s ``stall_rounds`` and ``far_stall_rounds`` for each sub-problem's answer
        (the path's tail asks for fewer: ``path.TAIL_FINISH_ROUNDS``).
    band_start : bool
        ``finish_dual``'s second start, from the margins' band, for each sub-problem's answer
        (the path's start leaves it out: ``path._start``).
    **options
        Passed to ``cvxopt.solvers.qp`` (override ``_OPTIONS``).

    Returns
    -------
    DualSolution or None
        Solver "working_set", ``n_iter`` = rounds, ``info`` = {"rounds", "size" (final |W|),
        "status" (cvxopt's, last sub-problem: "optimal" once the gap is lost in rounding,
        "unknown" after ``maxiters``, see ``_OPTIONS``), "kkt_floor"}; ``None`` when the residual did not reach
        max(tol, floor) within ``max_rounds`` (solve the full problem).
    """
    if max_size is None:
        max_size = default_max_size(len(y))
    if blas_threads is None:
        return _solve_working_set(K, y, upper, lam, alpha, b, tol, max_rounds, min_size, max_size,
                                  finish_rounds, band_start, options)
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=int(blas_threads), user_api="blas"):
        return _solve_working_set(K, y, upper, lam, alpha, b, tol, max_rounds, min_size, max_size,
                                  finish_rounds, band_start, options)


def default_max_size(n: int) -> int:
    """The largest working set worth solving for n points: max(500, n/2). A sub-problem of n/2
    points costs 1/8 of an interior-point iteration on the whole problem. At n = 5000 the
    path's own answers at the smallest λ of large-σ columns are lost to singular elbows
    (σ = 1, log2(nλ) = −25: cond 1e16, |α| ~ 3e6). There the repair needed |W| = 742 (four
    rounds, 19.9 s) and at σ = 2^0.5, log2(nλ) = −24, |W| = 1,564 (six rounds, 66 s); with the
    old fixed 500 it gave up and cvxopt on all 5,000 points took 705 s. The path's repair
    ladder passes n instead (``path._working_set``): cvxopt on all points comes next there."""
    return max(500, n // 2)


def _solve_working_set(K, y, upper, lam, alpha, b, tol, max_rounds, min_size, max_size,
                       finish_rounds, band_start, options):
    K = np.asarray(K, float)
    y = np.asarray(y, float)
    upper = np.asarray(upper, float)
    n = len(y)
    s = 2.0 * n * lam
    opts = dict(_OPTIONS, **options)
    min_size = min(int(min_size), n)
    abs_K = K if K.min() >= 0 else np.abs(K)          # for the rounding floor, once

    zs = zero_scale(n, lam)
    alpha = snap_to_bounds(alpha, upper, scale=zs)
    g = K @ (y * alpha) / s
    # judge the start with the b that suits its α best (a shifted b would make every point a
    # "violator"); the caller's b is kept when it is better
    b_star = _best_intercept(g, y, alpha, upper, scale=zs)
    b0 = float(b) if np.isfinite(b) else b_star
    if np.max(kkt_violations(y * (g + b_star), alpha, upper, scale=zs)) < \
            np.max(kkt_violations(y * (g + b0), alpha, upper, scale=zs)):
        b0 = b_star
    f = g + b0
    W = np.zeros(n, bool)
    free = (alpha > 0) & (alpha < upper)
    k_viol = max(min_size, int(free.sum()))
    for r in range(1, max_rounds + 1):
        yf = y * f
        viol = kkt_violations(yf, alpha, upper, scale=zs)
        margin = np.abs(yf - 1.0)
        before = int(W.sum())
        W = _select(viol, margin, free, W, k_viol, min_size, tol)
        if r > 1 and int(W.sum()) == before:
            # no new violator outside W (the last sub-problem was not accurate enough on its
            # own): grow W by the bound points nearest the margin instead
            W = _select(viol, margin, free, W, k_viol, min(n, before + k_viol), tol)
        W = _make_feasible(W, y, upper, alpha, margin)
        Widx = np.flatnonzero(W)
        if Widx.size > max_size:
            return None
        sub = _solve_sub(K, y, upper, lam, alpha, Widx, opts)
        if sub is None:
            k_viol *= 2
            if W.all():
                return None
            # grow W by the points nearest the margin and try again
            W = _select(viol, margin, free, W, k_viol, min(n, int(W.sum()) + k_viol), tol)
            continue
        a_new, b_new, status = sub
        info = {"rounds": r, "size": int(Widx.size), "status": status}
        sol = finish_dual(K, y, upper, lam, a_new, b_new, "working_set", tol=tol, info=info,
                          to_floor=True, near=NEAR_SOLUTION, stall_rounds=finish_rounds[0],
                          far_stall_rounds=finish_rounds[1], band_start=band_start)
        floor = rounding_floor(K, y, sol.alpha, lam, sol.b, abs_K=abs_K)
        sol.info["kkt_floor"] = floor
        if sol.kkt_residual <= max(tol, floor):
            sol.n_iter = r
            return sol
        if W.all():
            return None          # the whole problem was solved and it is still not good enough
        # continue from the finished answer (``finish_dual`` keeps the sub-problem's own answer
        # when its correction rounds did not improve on it)
        alpha = snap_to_bounds(sol.alpha, upper, scale=zs)
        f = decision_values(K, y, alpha, lam, sol.b)
        free = (alpha > 0) & (alpha < upper)
        k_viol *= 2
    return None
