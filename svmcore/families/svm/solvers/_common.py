"""What every backend shares: the dual solution record, the exact finish (polish) and the KKT check.

The dual of the weighted SVM (Wahba et al. 2001, eqs 1.9, 1.25) is

    min ½ α' (D_y K D_y / (2nλ)) α − e'α   s.t. 0 ≤ α_i ≤ L(y_i),  y'α = 0,

with f = K D_y α / (2nλ) + b. An iterative solver returns α up to its tolerance. Once the sets
(α = 0, 0 < α < L, α = L) are known, the exact solution follows from one linear system on the free
("elbow") set: y_i f_i = 1 there and y'α = 0. ``finish_dual`` solves it and keeps the result when it
satisfies every KKT condition; otherwise it keeps the solver's own answer.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

#: double precision's machine epsilon (the rounding floors and backward errors' unit)
EPS = float(np.finfo(float).eps)
#: relative tolerance that decides α = 0 or α = L(y_i) (robust set memberships, docs/svm.md)
BOUND_RTOL = 1e-6

#: KKT residual above which an answer is not near a solution: its sets say little about the
#: solution's. The path's answers from nearly singular elbows (wahba2d, n = 3500 … 10,000,
#: σ ≥ 2^-1, log2(nλ) = −23 … −25: residuals 3e-4 … 2e8) were never once repaired on their own
#: sets, so the path skips those repairs; a working-set sub-problem's far answer is sometimes
#: finished into an exact one (n = 300), so ``finish_dual`` gives it a short try
#: (``FAR_STALL_ROUNDS``) instead of up to 2 × 9 dense solves (20 s each time at n = 10,000).
NEAR_SOLUTION = 1e-3
#: ``finish_dual``'s ``stall_rounds`` for a raw answer above its ``near``: on the 24 working-set
#: repairs of tests/test_working_set.py's problems (n = 300, zero and perturbed starts) 59
#: sub-problems were solved in all with 8 rounds and with 2, 60 with 1, 62 with no correction
FAR_STALL_ROUNDS = 2
#: ``finish_dual``'s ``stall_rounds`` by default (a near answer's correction)
STALL_ROUNDS = 8


@dataclass
class DualSolution:
    """α (paper scale, 0 ≤ α_i ≤ L(y_i)), b, f on the training points and diagnostics."""

    lam: float
    alpha: np.ndarray
    b: float
    f: np.ndarray
    solver: str
    n_iter: int = 0
    kkt_residual: float = float("nan")
    polished: bool = False
    info: dict = field(default_factory=dict)


def decision_values(K, y, alpha, lam, b) -> np.ndarray:
    """f_i = Σ_j K_ij y_j α_j / (2nλ) + b (docs/svm.md)."""
    n = len(y)
    return K @ (y * alpha) / (2.0 * n * lam) + b


def zero_scale(n: int, lam: float) -> float:
    """min(1, 2nλ): the scale of α near 0. Free α are 2nλ·a_i with a_i = O(1) at small λ, so "α = 0"
    is decided relative to L(y_i)·min(1, 2nλ), not L(y_i) (the solvers' scaled variable)."""
    return min(1.0, 2.0 * n * float(lam))


def snap_to_bounds(alpha, upper, rtol: float = BOUND_RTOL, scale: float = 1.0) -> np.ndarray:
    """Set α_i to exactly 0 when ≤ rtol·L(y_i)·scale and to L(y_i) when within rtol·L(y_i) of it
    (scale: ``zero_scale``)."""
    a = np.clip(np.asarray(alpha, float), 0.0, upper)
    a = np.where(a <= rtol * scale * upper, 0.0, a)
    return np.where(a >= (1.0 - rtol) * upper, upper, a)


def kkt_residual(y, f, alpha, upper, rtol: float = BOUND_RTOL, scale: float = 1.0) -> float:
    """Largest violation of the KKT conditions of the dual (docs/svm.md).

    α_i = 0 needs y_i f_i ≥ 1; α_i = L(y_i) needs y_i f_i ≤ 1; 0 < α_i < L(y_i) needs y_i f_i = 1;
    also y'α = 0 (scaled by Σ L) and 0 ≤ α ≤ L. "α_i = 0" means α_i ≤ rtol·L(y_i)·scale, with
    scale = ``zero_scale(n, λ)``; the default 1 is only right for 2nλ ≥ 1.
    """
    r = kkt_violations(y * f, alpha, upper, rtol, scale)
    box = max(0.0, float(np.max(-alpha)), float(np.max(alpha - upper)))
    eq = abs(float(y @ alpha)) / float(np.sum(upper))
    return float(max(r.max(initial=0.0), box, eq))


def kkt_violations(yf, alpha, upper, rtol: float = BOUND_RTOL, scale: float = 1.0) -> np.ndarray:
    """Per-point KKT violation, the rules of ``kkt_residual``: α = 0 needs y f ≥ 1, α = L needs
    y f ≤ 1, a free α needs y f = 1."""
    at0 = alpha <= rtol * scale * upper
    atL = alpha >= (1.0 - rtol) * upper
    return np.where(at0, np.maximum(0.0, 1.0 - yf),
                    np.where(atL, np.maximum(0.0, yf - 1.0), np.abs(yf - 1.0)))


def rounding_floor(K, y, alpha, lam, b, abs_K=None) -> float:
    """4·eps·(M + min(|b|, M + 1)), M = max_i (|K||c|)_i, c = y α / (2nλ): the accuracy to which
    f = K c + b can be evaluated, i.e. the smallest KKT residual any solver in this
    parameterization can be asked for at this λ. |b| enters capped at M + 1 (a solution has
    |b| ≤ |K c|_i + 1 on the margin), so a wild b cannot excuse itself by a large floor.
    ``abs_K``: |K| if already at hand (K itself for a nonnegative kernel)."""
    c = y * alpha / (2.0 * len(y) * lam)
    return floor_of(float(np.max((np.abs(K) if abs_K is None else abs_K) @ np.abs(c))), b)


def floor_of(M, b) -> float:
    """``rounding_floor`` from M = max_i (|K||c|)_i: 4·eps·(M + min(|b|, M + 1))."""
    return 4.0 * EPS * (M + min(abs(float(b)), M + 1.0))


def intercept_from_bounds(g, y, alpha, upper) -> float:
    """b when no α is strictly inside (0, L): the midpoint of the interval the KKT conditions allow.

    With g = K D_y α/(2nλ), α_i = 0 needs y_i(g_i + b) ≥ 1 and α_i = L needs y_i(g_i + b) ≤ 1. Every b
    in the resulting interval gives the same primal objective; like LIBSVM we take its midpoint.
    """
    at0 = alpha == 0
    lo_parts = np.r_[(1 - g)[at0 & (y > 0)], (-1 - g)[~at0 & (y < 0)]]
    hi_parts = np.r_[(-1 - g)[at0 & (y < 0)], (1 - g)[~at0 & (y > 0)]]
    return interval_midpoint(lo_parts, hi_parts)


def interval_midpoint(lo_parts, hi_parts) -> float:
    """Midpoint of [max lo_parts, min hi_parts] (of the crossed pair when they cross); the finite
    end when only one side exists; 0 with none."""
    lo = lo_parts.max() if lo_parts.size else -np.inf
    hi = hi_parts.min() if hi_parts.size else np.inf
    if np.isfinite(lo) and np.isfinite(hi):
        return float(0.5 * (lo + hi))
    if np.isfinite(lo):
        return float(lo)
    if np.isfinite(hi):
        return float(hi)
    return 0.0


def solve_on_partition(K, y, upper, lam, at_upper, free):
    """α and b from a set partition: y_i f_i = 1 on the free set, y'α = 0 (docs/svm.md).

    Returns (alpha, b). With no free point, b is the midpoint of the KKT interval.
    """
    n = len(y)
    s = 2.0 * n * lam
    alpha = np.where(at_upper, upper, 0.0)
    E = np.flatnonzero(free)
    if E.size == 0:
        g = K @ (y * alpha) / s
        return alpha, intercept_from_bounds(g, y, alpha, upper)
    U = np.flatnonzero(at_upper)
    rhs = np.empty(E.size + 1)
    rhs[:-1] = y[E] - K[np.ix_(E, U)] @ (y[U] * upper[U]) / s
    rhs[-1] = -float(y[U] @ upper[U])
    M = np.zeros((E.size + 1, E.size + 1))
    M[:-1, :-1] = K[np.ix_(E, E)] * (y[E] / s)[None, :]
    M[:-1, -1] = 1.0
    M[-1, :-1] = y[E]
    try:
        sol = np.linalg.solve(M, rhs)
        if not np.all(np.isfinite(sol)):
            raise np.linalg.LinAlgError
    except np.linalg.LinAlgError:
        sol = np.linalg.lstsq(M, rhs, rcond=None)[0]
    alpha[E] = sol[:-1]
    return alpha, float(sol[-1])


def finish_dual(K, y, upper, lam, alpha_raw, b_raw, solver: str, n_iter: int = 0,
                tol: float = 1e-8, info: dict | None = None, max_rounds: int = 30,
                stall_rounds: int = STALL_ROUNDS, to_floor: bool = False,
                near: float = np.inf, far_stall_rounds: int = FAR_STALL_ROUNDS,
                band_start: bool = True) -> DualSolution:
    """Exact solution from the sets the solver found (docs/svm.md), corrected until KKT holds.

    Starting from the solver's partition (α snapped to 0 / L within ``BOUND_RTOL``·``zero_scale``),
    solve the free-set system; move free points that left [0, L] to the bound they crossed and bound
    points that violate their KKT condition into the free set; repeat (at most ``max_rounds``, and
    at most ``stall_rounds`` after the best residual last fell: on nearly singular free sets the
    partition can swing between "every free α out of the box" and "hundreds of violators enter"
    without end, each round a dense solve). When that does not reach ``tol``, the same correction
    is started once more from the partition the solver's f indicates (y f within 1e-6·max(1, |f|)
    of 1: free; below: at L; above: at 0) — at tiny λ an interior-point α of a non-support vector
    (~1e-12) is not distinguishable from a small free α (2nλ·a), but its margin is; it also
    finishes cvxopt's answers at large λ (n = 800, s = 4: 4e-15 where the first start ends at
    0.029). ``band_start=False`` skips it: the path's start does, for its finish of SMO's answer
    and its working set's sub-problems, where it never came near a solution (wahba2d, s = 2:
    n = 5000, seeds 0 and 1, σ = 2^-3 … 2^-1.5, 17 finishes, residuals 2.5 … 10; n = 10,000,
    σ = 2^-2.5, 2 finishes, 14 and 17) and took 0.2–1.4 s at n = 5000 and 7.0–7.8 s at n = 10,000
    each time. With
    ``to_floor`` a round also stops the correction when its residual is within the rounding floor
    of f (``rounding_floor``), the most any solver can reach at that λ (callers that accept up to
    the floor). The result is kept when its KKT residual is below the raw answer's (``polished``
    says whether it is ≤ ``tol``, i.e. exact); otherwise the solver's raw answer is returned with
    ``polished=False``. A raw answer with a residual above ``near`` (e.g. ``NEAR_SOLUTION``) gets
    at most ``far_stall_rounds`` rounds after the best residual last fell (0: it is returned as
    it is, unfinished).
    """
    n = len(y)
    raw_alpha = np.clip(np.asarray(alpha_raw, float), 0.0, upper)
    raw_f = decision_values(K, y, raw_alpha, lam, b_raw)
    zs = zero_scale(n, lam)
    raw_res = kkt_residual(y, raw_f, raw_alpha, upper, scale=zs)
    if not raw_res <= near:
        stall_rounds = min(stall_rounds, far_stall_rounds)   # 0: no round (``_correct``)
    good_enough = _acceptance(K, y, lam, tol, to_floor)
    rounds = dict(tol=tol, zs=zs, max_rounds=max_rounds, stall_rounds=stall_rounds,
                  good_enough=good_enough)
    a0 = snap_to_bounds(raw_alpha, upper, scale=zs)
    best = _correct(K, y, upper, lam, a0 == upper, (a0 > 0) & (a0 < upper), **rounds)
    if (best is None or not good_enough(*best[:3])) and band_start:
        yf = y * raw_f
        band = 1e-6 * max(1.0, float(np.max(np.abs(raw_f))))
        other = _correct(K, y, upper, lam, yf < 1.0 - band, np.abs(yf - 1.0) <= band, **rounds)
        if other is not None and (best is None or other[0] < best[0]):
            best = other
    if best is not None and best[0] <= max(tol, raw_res):
        res, alpha, b, f = best
        return DualSolution(lam, alpha, float(b), f, solver, n_iter, res, res <= tol, info or {})
    return DualSolution(lam, raw_alpha, float(b_raw), raw_f, solver, n_iter, raw_res, False, info or {})


def _acceptance(K, y, lam, tol, to_floor):
    """``finish_dual``'s stopping test of a round, good_enough(res, α, b): res ≤ tol, or with
    ``to_floor`` res within the rounding floor of f at (α, b) (|K| formed once, when first needed)."""
    abs_K = None

    def good_enough(res, alpha, b):
        nonlocal abs_K
        if res <= tol or not to_floor:
            return res <= tol
        if abs_K is None:
            abs_K = K if K.min() >= 0 else np.abs(K)
        return res <= rounding_floor(K, y, alpha, lam, b, abs_K=abs_K)
    return good_enough


def _correct(K, y, upper, lam, at_upper, free, *, tol, zs, max_rounds, stall_rounds, good_enough):
    """``finish_dual``'s correction from one starting partition: the best (res, α, b, f) found, or
    None when no round got past the box (free α leaving [0, L] go to the bound they crossed, bound
    points violating KKT enter the free set; at most ``max_rounds``, at most ``stall_rounds`` after
    the best last fell, until ``good_enough``, a repeated partition or no violator)."""
    best = None
    seen = set()
    since_best = 0
    for _ in range(max_rounds):
        since_best += 1
        if since_best > stall_rounds:
            break
        alpha, b = solve_on_partition(K, y, upper, lam, at_upper, free)
        slack = 1e-10 * upper
        low = free & (alpha < -slack)
        high = free & (alpha > upper + slack)
        if low.any() or high.any():
            free = free & ~low & ~high
            at_upper = at_upper | high
            continue
        alpha = np.clip(alpha, 0.0, upper)
        f = decision_values(K, y, alpha, lam, b)
        res = kkt_residual(y, f, alpha, upper, scale=zs)
        if best is None or res < best[0]:
            best, since_best = (res, alpha, b, f), 0
            if good_enough(res, alpha, b):
                break
        yf = y * f
        viol0 = (~free & ~at_upper) & (yf < 1.0 - tol)
        violU = at_upper & (yf > 1.0 + tol)
        key = (free.tobytes(), at_upper.tobytes())
        if key in seen or not (viol0.any() or violU.any()):
            break
        seen.add(key)
        free = free | viol0 | violU
        at_upper = at_upper & ~violU
    return best
