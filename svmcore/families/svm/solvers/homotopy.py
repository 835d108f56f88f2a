"""An exact solution of the weighted SVM dual from a near one at the same λ (docs/svm.md): the
path's start (``path._start``) finishes SMO's answer this way before it tries a working set.

A near solution (α̃, b̃) at s = 2nλ, with f̃ = K c̃ + b̃ and e_i = y_i f̃_i − 1, is the exact
solution of the dual whose margins and equality are moved by t = 1 in

    y_i f_i = 1 + t ε_i on the free set,  ≥ 1 + t ε_i at α_i = 0,  ≤ 1 + t ε_i at α_i = L(y_i),
    Σ y_i α_i = t δ,

with ε_i = e_i on the free points, min(0, e_i) at 0, max(0, e_i) at L, and δ = y'α̃. As t falls
from 1 to 0 the solution is piecewise linear in t, with the events of the regularization path
(HRTZ 2004 §3): an elbow α reaches a bound, or a bound point reaches its (moving) margin. On a
segment the elbow system of ``path._Path`` holds with right-hand side [tδ − 1'β_F; s y_E (1 + t
ε_E) − K_EF β_F], so (α_0, β_E) moves along A⁻¹[δ; s y_E ε_E] and h = K β + α_0 along that
direction's rates. At t = 0 the state solves the problem itself; ``_Path.exact_state`` then
recomputes it from the elbow system. Each event costs one elbow solve and one pass over the
elbow's kernel rows, and there are about as many events as points SMO placed in the wrong set
(wahba2d, n = 2000, SMO at 1e-5: 0–30 of 2,000), where a working-set repair solves QPs over all
the free points.

Points dependent on the elbow (within ``dep_tol``, as on the path) are parked at their α: at a
bound, or where SMO left them. Their margins follow the elbow's only up to their distance to its
hull, so the caller finishes the answer on its partition (``finish_dual``) when its residual is
above what it needs. Not handled (None: the caller goes on to the working set): an empty elbow,
more than ``max_events`` events, a direction steeper than ``STEEPEST``, an elbow of
``RESCUE_BELOW`` points or more whose system refinement on the maintained inverse cannot solve
(n = 10,000, σ = 2^-2.5: 2,566 elbow points and 475 parked, a direction of size 1e5 for margins
moved by 1e-5, and every inverse rebuilt).
"""
from __future__ import annotations

import numpy as np

from ....cancel import CHECK_EVERY
from ....cancel import check as check_cancel
from ._common import snap_to_bounds
from .path import _E, _L, _R


#: elbow size below which a solve that refinement misses is rescued by a rebuilt inverse (at most
#: ~40 ms); from it the homotopy gives up instead (n = 10,000: a rebuild and an LU solve, 1.3 s,
#: at every event)
RESCUE_BELOW = 1000


#: largest dβ_E/dt, in units of max L(y_i), the homotopy follows. α stays in [0, L], so a
#: direction far steeper than that zig-zags through tiny steps in the elbow's ill-conditioned
#: directions: wahba2d at s = 2, n = 2000 (every start exact): 4e-3 … 1.3e2; n = 5000, σ = 2^-2.5
#: … 2^-1.5 (none exact; σ = 2^-2 used up its 350 events): 4.4e3 … 1.2e5
STEEPEST = 1e3


def exact_by_homotopy(P, s, alpha, b, max_events):
    """Move ``P`` (a fresh ``path._Path``) to the exact solution at s = 2nλ from the near one
    (α, b), following the homotopy above (module docstring). Returns the events crossed, or
    None when it could not (``P`` is then in no defined state)."""
    y = P.y
    alpha = snap_to_bounds(alpha, P.upper, scale=min(1.0, float(s)))
    P.set_solution(s, alpha, b)                 # the partition, elbow inverse (α_E recomputed)
    if P.m == 0:
        return None
    P.alpha = alpha.copy()                      # back to the near solution: t = 1
    P.alpha0 = float(s * b)
    beta = y * alpha
    P.h = P.K @ beta + P.alpha0
    P._dx = None
    e = y * P.h / s - 1.0
    st = P.status
    eps = np.where(st == _E, e, np.where(st == _R, np.minimum(e, 0.0), np.maximum(e, 0.0)))
    delta = float(beta.sum())
    t = 1.0
    for event in range(max_events):
        if event % CHECK_EVERY == CHECK_EVERY - 1:
            check_cancel()
        step = _next(P, s, t, eps, delta)
        if step is None:
            return None
        tau, leave, enter, x, dh = step
        P.alpha[P.E] -= tau * y[P.E] * x[1:]
        P.alpha0 -= tau * x[0]
        P.h = P.h - tau * dh
        t -= tau
        if t <= 0.0:
            P.exact_state()
            return event               # (the last segment ended at t = 0, not at an event)
        if not _cross(P, leave, enter, x) or (P.stale and P.m >= RESCUE_BELOW):
            return None
    return None


def _next(P, s, t, eps, delta):
    """The segment from t: its step τ to the first event (τ = t when none comes before t = 0),
    the elbow position that leaves or the point that enters there (−1: none), the direction
    x = d(α_0, β_E)/dt and the rates dh/dt. None when refinement on the maintained inverse
    cannot solve for x from ``RESCUE_BELOW`` elbow points (an elbow this ill-conditioned and
    large is the working set's), or when x is steeper than ``STEEPEST``."""
    y, E, m = P.y, P.E, P.m
    if P.needs_refactor():
        P.refactor()
    rhs = np.empty(m + 1)
    rhs[0] = delta
    rhs[1:] = s * y[E] * eps[E]
    x = P.solve_elbow(rhs, rtol=1e-12, rescue=m < RESCUE_BELOW)
    if P.stale or not np.abs(x[1:]).max() <= STEEPEST * P.upper.max():
        return None
    dh = P._rates(x)
    gap = y * P.h - s * (1.0 + t * eps)         # ≥ 0 at α = 0, ≤ 0 at α = L
    rate = s * eps - y * dh                     # d gap / dτ, τ = t_k − t
    st = P.status
    with np.errstate(divide="ignore", invalid="ignore"):
        tm = np.where((st == _R) & (rate < 0), gap / -rate,
                      np.where((st == _L) & (rate > 0), -gap / rate, np.inf))
        v = -y[E] * x[1:]                       # dα_E/dτ
        uE, aE = P.upper[E], P.alpha[E]
        te = np.where(v < 0, aE / -v, np.where(v > 0, (uE - aE) / v, np.inf))
    tm = np.maximum(tm, 0.0)
    te = np.maximum(te, 0.0)
    i, j = int(np.argmin(tm)), int(np.argmin(te))
    tau = min(tm[i], te[j], t)
    if tau == t:
        return t, -1, -1, x, dh
    if te[j] <= tm[i]:
        return tau, j, -1, x, dh
    return tau, -1, i, x, dh


def _cross(P, leave, enter, x):
    """Apply the event: elbow position ``leave`` goes to the bound it reached, or point
    ``enter`` joins the elbow (parked at its α when dependent on it, as on the path). False when
    the last elbow point would leave."""
    if enter >= 0:
        if not P.try_add(enter):
            P.park(np.array([enter]))
        return True
    if P.m == 1:
        return False
    p = P.E[leave]
    up = -P.y[p] * x[leave + 1] > 0            # α_p was rising as t fell
    P.alpha[p] = P.upper[p] if up else 0.0
    P.status[p] = _L if up else _R
    P.remove(leave)
    return True
