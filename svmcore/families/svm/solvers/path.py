"""The entire regularization path of the weighted SVM (Hastie, Rosset, Tibshirani & Zhu 2004;
docs/svm.md).

Notation (docs/svm.md). s = 2nλ is HRTZ's λ_H, α_i ∈ [0, L(y_i)] is the dual variable, β = D_y α,
α_0 = s·b and h = s·f = K β + α_0. Points fall in three sets:

* elbow E: y_i f_i = 1, 0 ≤ α_i ≤ L(y_i), α_i free to move;
* left  L: y_i f_i ≤ 1, α_i = L(y_i);
* right R: y_i f_i ≥ 1, α_i = 0.

While the sets do not change, the elbow equations ``α_0 + K_EE β_E = s y_E − K_E,F β_F`` and
``1'β_E = −1'β_F`` (F = every point outside E, its α fixed) make (α_0, β_E) affine in s, and so is
h on every point (HRTZ 2004 §3, eq. 19–22). The path is followed downwards in s from an exact
solution at the largest requested λ (at s = ``START_S`` when that λ is so small that SMO would be
slow, ``SMO_EASY_S``; requested λ above s = ``POINTWISE_ABOVE_S`` are each solved on their own,
where that is cheaper than the path's events, and the path starts below them); the next breakpoint
is the first s at which an elbow α reaches 0 or L(y_i) or a left/right point reaches y f = 1 (HRTZ
§3.2). The inverse of the bordered elbow matrix ``[[0, 1'], [1, K_EE]]`` is maintained as points
enter and leave — explicitly with rank-one updates for small elbows, as a fixed base inverse plus a
Schur complement of the changes (block LU) for large ones — and rebuilt from time to time (large
elbows: by folding the changes into a new base with matrix products, ``SchurInverse.merged``, and
from scratch every ``MERGES + 1``-th time; from ``FACTORED_FROM`` points the base is held as LU
factors and refactored each time). The segment's direction A⁻¹[0; y_E] is carried through the same
bordering/downdating (small elbows) and accepted after one residual check; large elbows refine it
against A and pass over their kernel rows once, for dh. Given the points' order (``point_order``),
the elbow's kernel rows are held in it and those passes read only the runs of entries above
rounding (``locality.py``; narrow kernels).

Degenerate cases:

* empty elbow (HRTZ §4.1, §5): α is constant, α_0 is any value of an interval that closes when a
  left point of each class reaches the margin; both then enter. Until then b is the midpoint of the
  interval (``intercept_from_bounds``), the convention of ``finish_dual``.
* a point whose kernel row is (numerically) in the affine span of the elbow's rows (duplicates,
  Gaussian kernels with a large σ) would make the elbow matrix singular; it is not added but
  "parked" at its current α and margin, and reconsidered when the elbow loses a point and its
  distance to the elbow's hull may have grown past the tolerance (``park_bound``). At a
  start (``set_solution``) all free points are split at once (``affinely_independent``: one
  blocked Cholesky factorization in matrix products); one by one, each nearly dependent point of
  a large elbow cost an LU solve and a rebuild of the inverse (n = 5000, σ = 2^-2.5: over 400 s).
* several events at one s are applied together; zero-length steps are allowed (a bounded number).
  A run of ``TIE_RUN`` of them where f's rounding floor exceeds ``kkt_tol`` means that rounding,
  not the problem, orders the events: the remaining λ go to working-set QPs (``_hand_tail``), as
  they do after a working-set repair when the elbow parks more points than it holds.
* below the last event (no left point remains) a = α/s and f are constant: the formulas of the
  last segment remain exact for every smaller s.

At every requested λ the state is recomputed from the current partition (elbow system solved with
iterative refinement; LU-refined solves when that misses, ``_Path.solution_at``) and f = K c + b
evaluated as ``decision_values`` does; its KKT residual is checked. Above max(``kkt_tol``,
rounding floor) — and with ``fallback`` — the steps of ``REPAIR_LADDER`` are tried, cheapest
first, until one returns an answer: ``_repair_on_path`` (active-set rounds on the path's own
state at that λ; the path continues from there; ``info["repaired"]``), ``_repair_by_finish``
(``finish_dual`` on the path's answer), ``_repair_on_working_set`` (``solve_working_set``: cvxopt
on the free points, the violators and the points nearest the margin, certified by the KKT check on
all points; ``info["working_set_repairs"]``) and ``_repair_by_cvxopt`` (``solve_cvxopt`` on the
whole problem, ``info["fallback"]``, kept when its residual is smaller). The path restarts from an
answer of the last three. An answer far from any solution (residual above ``NEAR_SOLUTION``, e.g.
from a nearly singular elbow) skips the first two, which correct its own sets. When the path
itself fails (cycling, too many events, a singular system), ``_recover`` answers the next λ with
a working-set QP, else cvxopt, and restarts there.
The rounding floor 4·eps·max_i(|K||c| + |b|)_i is the accuracy to which f itself can be evaluated
at that λ: at λ ≈ 2^-25/n with points at the bound, no solver in this parameterization does better.

Layout: ``_solve_path`` is the main loop (event → answers on the segment → crossing); the
segment helpers (``_next_event``, ``_answer_segment``, ``_cross_event`` …), the repair steps and
the recovery follow it; ``_Path`` holds the state, and ``elbow.py`` the maintained inverse.

Accuracy note: with nearly singular elbow systems (Gaussian kernels with large σ, many elbow
points) α_E is only determined up to the near-null space of K_EE; f and the objective are still
accurate, and the KKT check at each requested λ catches the rare case where α_E leaves [0, L].
"""
from __future__ import annotations

import math
import os
import warnings
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from scipy.linalg import LinAlgWarning, lu_factor, lu_solve

from ....cancel import CHECK_EVERY, Cancelled
from ....cancel import check as check_cancel
from ._common import (BOUND_RTOL, EPS, NEAR_SOLUTION, DualSolution, decision_values, finish_dual,
                      floor_of, intercept_from_bounds, kkt_residual, rounding_floor)
from .elbow import ExplicitInverse, SchurInverse, affinely_independent, pivots_in_order
from .locality import blocks_for
from .qp import solve_cvxopt
from .working_set import solve_working_set

#: columns of at least this many points cross their simple events in the compiled loop
#: (``_compiled_events``, numba) and keep an explicit elbow inverse (from ``COMPILED_SCHUR_FROM``
#: elbow points while it lasts). Below it the numpy code alone, which is also the reference the
#: tests compare the loop with. The loop is faster at every n (the paper grid in one process,
#: Zen 3: n = 300 0.47 s against 1.26 s, 400 0.60 against 1.45, 500 0.73 against 2.13, 700 1.28
#: against 4.97; bench/scale.py --ab), but a process's first use loads it (about 0.6 s with
#: numba's import) and a new installation's first use compiles it (about 50 s, once): paid back
#: from about 500 points (a grid saves twice the load), not by the app's default view (n = 200)
#: nor by the machine's reference problem (``timing.REFERENCE``, n = 300), which stay numpy
COMPILED_FROM_N = 500
#: with the compiled loop, elbows of this size or more keep the explicit inverse (bordered and
#: downdated in the loop) while it lasts (``EXPLICIT_LASTS``), and go to the block-LU inverse of
#: the numpy code (from here factored, ``_Path.FACTORED_FROM``) once it does not. Where it
#: lasts, the loop crosses the events of large elbows at a fraction of the numpy code's cost:
#: n = 5000, σ = 2^-3 (elbows of 1,500–1,900 points, 13 rebuilds in 13,490 events, none for a
#: miss) 54.5 s against 77.3 s with block-LU from 1,500 (the twenty-second session). Where it
#: does not, each rebuild (an inversion, |E|³, 0.33 s at |E| = 1,800) costs more than the loop
#: saves: n = 10,000, σ = 2^-2.5 rebuilt its explicit inverse 350 times, every 9–40 events, and
#: took 603.8 s against 565.5 s (σ = 2^-2.5 695.5 s with the explicit inverse to 2,000 against
#: 614.9 s to 1,500 in the sixteenth session; below 1,500 the loop wins: n = 10,000, σ = 2^-2
#: 452.0 s with 1,500 against 549.2 s with 1,000, n = 2000, σ = 2^-3 1.50 s against 1.92 s)
COMPILED_SCHUR_FROM = 1500
#: a large explicit inverse rebuilt within this many changes did not last (its scheduled rebuild
#: comes after |E| + 1); ``EXPLICIT_SHORT_LIVED`` of them in a row give the column's large elbows
#: to block-LU for good. n = 10,000, σ = 2^-2.5: every large explicit inverse lasted 9–40
#: changes, from the column's 320th event; σ = 2^-3 (2,100–2,800 points, where the loop took
#: 519.1 s against 552.3 s) met four short-lived ones in a row at most (20–36 changes each,
#: around its 1,500th and 4,200th events), n = 5000, σ = 2^-3 none. With large elbows' small
#: pivots refined (``_events.LARGE_REFINED_PIVOT``, the twenty-third session) σ = 2^-2.5's
#: explicit inverses last longer: 68 large rebuilds instead of 350, 42 of them short-lived, at
#: most 21 in a row, and kept explicit the column took 433.7 s against 589.2 s given up after six
#: (side by side), so 32 in a row now
EXPLICIT_LASTS = 64
EXPLICIT_SHORT_LIVED = 32

_R, _L, _E, _P = 0, 1, 2, 3          # status codes: right (α=0), left (α=L), elbow, parked
_SGN = np.array([-1.0, 1.0, 0.0, 0.0])   # direction in which a non-elbow point meets the margin


def _no_blocks():
    """The compiled loop's blocks argument for whole rows (its arrays empty)."""
    e = np.empty(0, np.int64)
    return (e, e, e, e, e, np.empty(0))


class PathError(RuntimeError):
    """The path could not be continued (cycling, loss of accuracy)."""


class _Path:
    """State of the path at the current breakpoint s: α, α_0, h = s f, partition, elbow inverse."""

    #: elbow size from which the block-LU (Schur) update replaces the explicit inverse
    SCHUR_FROM = 500
    #: elbow size from which a direction is accepted at ``DIRECTION_RTOL`` (its first answer's
    #: residual is 1e-13 … 1e-11 there); below it at 1e-12. The numpy code ties this to the block-LU
    #: inverse (``SCHUR_FROM``); the compiled loop, whose inverse is explicit, uses it as such
    #: (n = 2000, σ = 2^-3: 4.97 s → 3.2 s a column with the residual read off dh)
    LARGE_FROM = 500
    #: block-LU rebuilds by merging (``refactor(merge=True)``) between two fresh inversions
    MERGES = 7
    #: elbow size from which the block-LU base is held as LU factors of A0 instead of its inverse
    #: (``SchurInverse(factored=True)``): a rebuild is then one getrf, 0.27 of ``lu_inverse``'s
    #: time at |E| = 2,500, a product with the base two triangular solves (getrs, 1.3 of a gemv's
    #: time), and no rebuild is a merge. At n = 10,000 the elbows of the narrow columns are so
    #: ill-conditioned that refinement misses every 50–100 events and each miss rebuilds: σ = 2^-2.5
    #: 688.9 → 596.3 s (rebuilds 170 → 90 s), σ = 2^-3 663.8 → 608.9 s, side by side. From 1,000
    #: points n = 5000, σ = 2^-3 took 68.5 s against 60.0 s (few misses there: the slower products
    #: cost more than the cheaper rebuilds save); from 1,500 it took 56.9 s against 61.0 s, and
    #: σ = 2^-2.5 and 2^-2 the same events in 75.0 / 37.2 s against 75.1 / 39.6 s
    FACTORED_FROM = 1500
    #: relative residual at which a large elbow's direction is accepted (refinement steps against A
    #: until then, |E|² each; the one pass over K_E for dh, |E|·n, follows)
    DIRECTION_RTOL = 1e-11
    #: events between two recomputations of α_E, α_0 and h from the elbow system (``exact_state``),
    #: which bound the drift of stepping them along the segments. 32 for every elbow was tried at
    #: n = 2000: 15 % less time in most σ columns, but drift sent σ = 2^1.5 (elbows below 40
    #: points, condition numbers to 1e12) into repairs, 0.53 s → 16.4 s. So 32 only from
    #: ``EXACT_LARGE_FROM`` elbow points, where a recomputation costs two passes over the elbow's
    #: kernel rows and a refined solve (n = 2000 grid 0.93 of the time, n = 5000 σ = 2^-3 0.90,
    #: residuals as before: ``bench/scale_history.md``)
    EXACT_EVERY_SMALL = 8
    EXACT_EVERY_LARGE = 32
    EXACT_LARGE_FROM = 256

    def __init__(self, K, y, upper, dep_tol=1e-11, compiled=False, blocks=None):
        self.K = K
        self.y = y
        self.upper = upper
        self.n = n = len(y)
        self.kscale = max(float(np.max(np.abs(np.diag(K)))), 1e-300)
        self.abs_K = K if K.min() >= 0 else np.abs(K)     # for the rounding floor
        self.dep_tol = dep_tol
        cap = min(n, 64)
        self.KE = np.empty((cap, n))                    # rows K[E[j], :], grown on demand
        # with ``locality.KernelBlocks``, KE's columns are in the blocks' order (point p's in
        # column blocks.pos[p]) and the passes for the rates read KP: row j holds the runs of
        # KE's row j one after another (``_events.pack_runs``), so that a pass streams them
        # (rows as long as the longest point's runs; none without blocks)
        self.blocks = blocks
        self._blk = _no_blocks() if blocks is None else (*blocks[:5], np.empty(n))
        self.KP = np.empty((cap, 0 if blocks is None else int(np.max(blocks.row_len))))
        self.A = np.zeros((cap + 1, cap + 1))           # [[0, 1'], [1, K_EE]], elbow order
        self.F = None                                   # inverse of A (None: empty elbow)
        self.E = np.empty(0, dtype=np.intp)          # elbow points (a view of _Ebuf)
        self._Ebuf = np.empty(cap, dtype=np.intp)
        self.m = 0
        self.n_events = 0
        self.stale = False                              # the maintained inverse needs a rebuild
        self._changes = 0                               # elbow changes so far (A's version)
        self._lu = None                                 # (A's version, LU factors of A)
        self._dx = None                 # direction A⁻¹[0; y_E] (elbow order) kept up to date, or None
        self._carry = None              # refinement's last correction: (α_0 part, E, β_E part)
        self.park_bound = np.full(n, np.inf)    # ≥ a parked point's squared distance to the hull
        self.compiled = compiled
        self.exact_states = 0           # recomputations of the state (``exact_state``), all told
        self.exact_at = -1              # events after which the compiled loop last did exact_state
        self._short_lived = 0           # large explicit inverses rebuilt early (``refactor``)
        if compiled:                    # the compiled loop borders an explicit inverse cheaply
            self.SCHUR_FROM = 10 ** 9   # (``COMPILED_SCHUR_FROM`` once large ones do not last)

    @property
    def exact_every(self):
        """Events between two ``exact_state`` (a multiple of the small elbows' interval, so
        that the schedule stays on multiples of it as the elbow grows or shrinks)."""
        return self.EXACT_EVERY_LARGE if self.m >= self.EXACT_LARGE_FROM else self.EXACT_EVERY_SMALL

    @property
    def exact_schedule(self):
        """``exact_every``'s schedule for the compiled loop: (small elbows' interval, large
        elbows', the size from which an elbow is large)."""
        return self.EXACT_EVERY_SMALL, self.EXACT_EVERY_LARGE, self.EXACT_LARGE_FROM

    def reference(self):
        """``_h_of``'s reference product for the compiled loop's ``_exact_state``: (h_ref, β_ref,
        [its α_0, its s]); its s NaN when there is none."""
        ref = getattr(self, "_href", None)
        if ref is None:
            empty = np.empty(0)
            return empty, empty, np.array([0.0, np.nan])
        h_ref, b_ref, a0_ref, s_ref = ref
        return h_ref, b_ref, np.array([a0_ref, s_ref])

    # ------------------------------------------------------------------ elbow inverse
    def _grow(self, need=None):
        """Room for ``need`` elbow points (default: one more) in KE, KP and A, doubling."""
        cap = self.KE.shape[0]
        need = self.m + 1 if need is None else need
        if need <= cap:
            return
        new = min(self.n, max(2 * cap, need))
        m, m1 = self.m, self.m + 1
        KE = np.empty((new, self.n))
        KE[:m] = self.KE[:m]
        A = np.zeros((new + 1, new + 1))
        A[:m1, :m1] = self.A[:m1, :m1]
        KP = np.empty((new, self.KP.shape[1]))
        KP[:m] = self.KP[:m]
        self.KE, self.KP, self.A = KE, KP, A

    def reserve(self, extra):
        """Room for ``extra`` more elbow points in KE, KP, A, the elbow buffer and an explicit
        inverse (the compiled loop cannot grow them)."""
        need = min(self.n, self.m + extra)
        self._grow(need)
        self._room_in_E(need)
        if isinstance(self.F, ExplicitInverse):
            self.F.reserve(extra)

    def _room_in_E(self, need):
        """Room for ``need`` elbow points in the elbow buffer (E is a view of it), doubling."""
        if self._Ebuf.size < need:
            buf = np.empty(max(need, 2 * self._Ebuf.size), dtype=np.intp)
            buf[:self.m] = self.E
            self._Ebuf, self.E = buf, buf[:self.m]

    @property
    def dep_level(self):
        """The squared distance to the elbow's affine hull at or below which a point is parked:
        ``dep_tol``·max K_ii (the start's split, bursts, and parked points' bounds)."""
        return self.dep_tol * self.kscale

    def _pivot_joins(self, c, dep_tol=None) -> bool:
        """Whether a pivot c (a point's squared distance to the elbow's affine hull) lets the
        point join: above ``dep_tol``·max K_ii (``dep_level`` when dep_tol is None)."""
        return c > (self.dep_level if dep_tol is None else dep_tol * self.kscale)

    def _border(self, p):
        """u = [1; K_Ep], p's column of the bordered elbow matrix."""
        return np.r_[1.0, self.KE[:self.m, self._columns(p)]]

    def _columns(self, pts):
        """The points' columns in KE (their positions in the blocks' order, or themselves)."""
        return pts if self.blocks is None else self.blocks.pos[pts]

    def _rates(self, x):
        """x[1:] K_E + x[0] for every point (x: [α_0; β_E] or its rate): one pass over the
        elbow's kernel rows, over their runs only (packed in KP) with blocks."""
        m = self.m
        if self.blocks is None:
            return x[1:m + 1] @ self.KE[:m] + x[0]
        from ._events import rates         # numba: blocks exist only from 1,000 points

        out = np.empty(self.n)
        b = self.blocks
        rates(self.KP, np.ascontiguousarray(x, float), m, self.E, b.ptr, b.start, b.stop, b.pos,
              out, self._blk[5])
        return out

    def needs_refactor(self):
        """Whether the maintained inverse should be rebuilt (drift, or many changes since)."""
        return self.stale or (self.F is not None and self.F.k >= self.F.kmax())

    def _append(self, p):
        """Append point p to the elbow order (E, KE, KP, A)."""
        m = self.m
        self._grow()
        A = self.A
        kp = self.K[p]
        A[m + 1, 0] = A[0, m + 1] = 1.0
        A[m + 1, 1:m + 1] = A[1:m + 1, m + 1] = kp[self.E]
        A[m + 1, m + 1] = kp[p]
        self.KE[m] = kp if self.blocks is None else kp[self.blocks.order]
        if self.blocks is not None:
            from ._events import pack_runs

            b = self.blocks
            pack_runs(self.KE[m], p, b.ptr, b.start, b.stop, self.KP[m])
        self._room_in_E(m + 1)
        self._Ebuf[:m] = self.E
        self._Ebuf[m] = p
        self.E = self._Ebuf[:m + 1]
        self.m = m + 1
        self.status[p] = _E
        self._changes += 1

    def try_add(self, p, dep_tol=None, careful=True) -> bool:
        """Add point p to the elbow unless its row is dependent on the elbow's (Schur test)."""
        m = self.m
        if m == 0:
            self._append(p)
            self.refactor()
            self._dx = None
            return True
        if self.stale and self.F.k > 0:      # drifted; a fresh inverse that missed is kept
            self.refactor()
        u = self._border(p)
        kpp = self.K[p, p]
        c, data = self.F.prepare_add(p, u, kpp)
        if c > 1e-6 * self.kscale:
            if isinstance(self.F, ExplicitInverse):
                self._track_add(p, u, *data)
            else:
                self._dx = None
            self.F.commit_add(data)
            self._append(p)
            if self.F.k >= 4 * self.F.kmax():   # many adds without an event (set_solution)
                self.refactor()
            return True
        # small: recompute it backward-stably
        if not careful:
            return False
        w = self.solve_elbow(u, rtol=1e-13, rescue=False)
        if self.stale and self._factored():
            return self._add_on_fresh_factors(p, u, kpp, dep_tol)
        if self.stale:                   # ill-conditioned even after a rebuild: LU
            w = self._lu_solve(u)
            if w is None:
                return False
        if not np.all(np.isfinite(w)):
            return False
        c = kpp - u @ w
        if not self._pivot_joins(c, dep_tol):
            return False
        if self.stale:
            self._append(p)
            self.refactor()
            self._dx = None
            return True
        self._track_add(p, u, w, c)
        self.F.commit_add(data, w=w, c=c)   # with the backward-stable pivot
        self._append(p)
        return True

    def _factored(self) -> bool:
        """Whether the elbow's inverse is a block-LU base held as LU factors (``FACTORED_FROM``)."""
        return isinstance(self.F, SchurInverse) and self.F.factored

    def _add_on_fresh_factors(self, p, u, kpp, dep_tol) -> bool:
        """``try_add``'s last resort for a large elbow whose maintained inverse missed p's
        backward-stable pivot: the base is refactored (unless it is fresh: LAPACK getrf of A,
        the factorization ``_lu_solve`` would make), and p's pivot c = K_pp − u'A⁻¹u is read
        off those factors and p bordered into them as the base's first change. Before, an LU of
        A for the pivot and a second factorization of A with p in it for the new base: two
        factorizations where one serves (n = 10,000, σ = 2^-3: 0.3–0.4 s each, 47 such points
        in the column's first two octaves). False (p not added) when the pivot is at most
        ``dep_tol`` or A is exactly singular (no factors), as ``_lu_solve``; a fresh base that
        missed stays marked stale then, as in ``try_add``."""
        if self.F.k > 0:
            self.refactor()
        if not self._factored():
            return False
        c, data = self.F.prepare_add(p, u, kpp)
        if not self._pivot_joins(c, dep_tol):
            return False
        self.F.commit_add(data, c=c)
        self.stale = False              # fresh factors and one backward-stable change
        self._dx = None
        self._append(p)
        return True

    def add_in_order(self, cand) -> np.ndarray:
        """Offer the candidates to the elbow in the given order: together (``add_many``) from
        ``BURST`` of them on a non-empty elbow, else one by one (``try_add``). Returns the mask of
        those that joined."""
        if cand.size >= BURST and self.m > 0:
            keep = self.add_many(cand)
            if keep is not None:
                return keep
        return np.array([self.try_add(p) for p in cand], dtype=bool)

    def add_many(self, cand) -> np.ndarray:
        """Decide the entry of many candidates at once, in the given order, as ``try_add`` one
        after another would: a candidate joins when its squared distance to the affine hull of
        the elbow and of the candidates that joined before it exceeds ``dep_tol``·max K_ii. Those
        distances are the in-order pivots of the candidates' Schur complement
        S = K_CC − U'A⁻¹U, U = [1'; K_EC] (``pivots_in_order``): one LU of A and one product.
        Those that joined are bordered into a block-LU inverse (``SchurInverse``) with their
        in-order pivots while it has room for them; else (small elbows, or a stale inverse) the
        inverse is rebuilt once for all of them. One by one, each nearly dependent candidate of a
        large elbow cost an LU and a rebuild (n = 5000, σ = 2^-0.5: single events with hundreds
        of entering points took minutes), and a rebuild per burst still took a quarter of that
        column's 1,665 s. Returns the mask of those that joined, or None when A is singular
        (``add_in_order`` then adds them one by one)."""
        m = self.m
        U = np.empty((m + 1, cand.size))
        U[0] = 1.0
        U[1:] = self.KE[:m][:, self._columns(cand)]
        W = self._lu_solve(U)
        if W is None or not np.all(np.isfinite(W)):
            return None
        S = self.K[np.ix_(cand, cand)] - U.T @ W
        pivots = np.empty(cand.size)
        keep = pivots_in_order(0.5 * (S + S.T), self.dep_level, pivots=pivots)
        joined = cand[keep]
        if joined.size == 0:
            return keep
        self._dx = None
        if (self.stale or not isinstance(self.F, SchurInverse)
                or self.F.k + joined.size > self.F.kmax()):
            for p in joined:
                self._append(p)
            self.refactor()
            return keep
        for p, c in zip(joined, pivots[keep]):       # bordered in, with their in-order pivots
            _, data = self.F.prepare_add(p, self._border(p), self.K[p, p])
            self.F.commit_add(data, c=c)
            self._append(p)
        return keep

    def _lu_solve(self, u):
        """A⁻¹u by LU with partial pivoting (None when A is exactly singular). The factors are
        kept until the elbow changes: the nearly dependent candidates of one event (hundreds at
        n = 5000 once the elbow holds ~1,500 points) share one factorization instead of one each,
        and a fresh inverse that missed is not rebuilt again for each of them."""
        m1 = self.m + 1
        if self._lu is None or self._lu[0] != self._changes:
            with warnings.catch_warnings():       # an exactly singular A: a zero pivot, below
                warnings.simplefilter("ignore", LinAlgWarning)
                self._lu = (self._changes, lu_factor(self.A[:m1, :m1], check_finite=False))
        lu, piv = self._lu[1]
        if not np.all(np.isfinite(lu)) or np.any(np.diag(lu) == 0.0):
            return None
        return lu_solve((lu, piv), u, check_finite=False)

    def park(self, pts):
        """Park points the elbow cannot hold: their squared distance to its affine hull was
        found to be at most ``dep_tol``·max K_ii, which is where their bound starts."""
        self.status[pts] = _P
        self.park_bound[pts] = self.dep_level

    def _raise_park_bounds(self, j, col):
        """A parked point p is farther from the hull once elbow position j leaves, by
        (u_p'b)²/b_r with b = column r = j + 1 of A⁻¹ and u_p = [1; K_Ep] (the bordered inverse's
        downdate): O(|E|·parked) instead of deciding every parked point again (an LU of A)."""
        parked = np.flatnonzero(self.status == _P)
        if parked.size == 0:
            return
        r = j + 1
        if col is None or not col[r] > 0 or not np.all(np.isfinite(col)):
            self.park_bound[parked] = np.inf
            return
        g = col[0] + col[1:] @ self.KE[:self.m][:, self._columns(parked)]
        self.park_bound[parked] += g * g / col[r]

    def remove(self, j):
        """Remove the j-th elbow point (position in E) from the elbow."""
        m = self.m
        self._changes += 1
        if m == 1:
            self.park_bound[self.status == _P] = np.inf
            self.E = self.E[:0]
            self.m = 0
            self.F = None
            self._dx = None
            return
        col = None
        if isinstance(self.F, SchurInverse) and np.any(self.status == _P):
            e = np.zeros(m + 1)
            e[j + 1] = 1.0
            col = self.F.apply(e)
        col_removed = self.F.remove(j)
        self._raise_park_bounds(j, col if col is not None else col_removed)
        self._track_remove(j, col_removed)
        last = m - 1
        if j != last:                       # move the last elbow point into position j
            r, rl = j + 1, m
            A = self.A
            A[r, :m + 1] = A[rl, :m + 1]
            A[:m + 1, r] = A[:m + 1, rl]
            A[r, r] = A[rl, rl]
            self.KE[j] = self.KE[last]
            self.KP[j] = self.KP[last]
            self.E[j] = self.E[last]
        self.E = self.E[:last]
        self.m = last

    def _track_add(self, p, u, w, c):
        """The direction after p joins the elbow (bordering: w = A⁻¹u, pivot c = K_pp − u'w):
        ξ = (y_p − u'x)/c, x ← [x − ξ w; ξ]; O(|E|)."""
        x = self._dx
        if x is not None:
            xi = (self.y[p] - u @ x) / c
            self._dx = np.r_[x - xi * w, xi]

    def _track_remove(self, j, col):
        """The direction after elbow position j leaves (col: that column of the old A⁻¹; None
        drops the direction): x ← x − col x_r / col_r, the last entry moved into r; O(|E|)."""
        x = self._dx
        if x is None or col is None:
            self._dx = None
            return
        r, last = j + 1, x.size - 1
        x = x - col * (x[r] / col[r])
        x[r] = x[last]
        self._dx = x[:last]

    def refactor(self, merge=False):
        """Rebuild the inverse of the bordered elbow matrix (removes accumulated drift). With
        ``merge`` a block-LU inverse whose changes reached ``kmax`` folds them into a new base
        (``SchurInverse.merged``: matrix products, no inversion), except every ``MERGES + 1``-th
        time, when it is inverted afresh."""
        m = self.m
        self.stale = False
        self._carry = None                  # (``_carried_correction``: this inverse's errors)
        F = self.F
        self._count_short_lived(F)
        if (merge and m >= self.SCHUR_FROM and isinstance(F, SchurInverse) and F.k > 0
                and not F.factored and m < self.FACTORED_FROM and F.merges < self.MERGES):
            self.F = SchurInverse(self.K, None, self.E, B0=F.merged(), merges=F.merges + 1)
        elif m == 0:
            self.F = None
        elif m >= self.SCHUR_FROM:
            self.F = SchurInverse(self.K, self.A[:m + 1, :m + 1], self.E,
                                  factored=m >= self.FACTORED_FROM)
        else:
            self.F = ExplicitInverse(self.A[:m + 1, :m + 1])

    def _count_short_lived(self, F):
        """With the compiled loop: count the large explicit inverses (``COMPILED_SCHUR_FROM``
        points or more) rebuilt in a row within ``EXPLICIT_LASTS`` changes, and at
        ``EXPLICIT_SHORT_LIVED`` give the column's large elbows to the block-LU inverse."""
        if not (self.compiled and isinstance(F, ExplicitInverse) and F.M > COMPILED_SCHUR_FROM):
            return
        self._short_lived = self._short_lived + 1 if F.k < EXPLICIT_LASTS else 0
        if self._short_lived >= EXPLICIT_SHORT_LIVED:
            self.SCHUR_FROM = COMPILED_SCHUR_FROM

    def solve_elbow(self, rhs, refine=3, rtol=1e-15, rescue=True):
        """Solve the bordered elbow system backward-stably: the maintained inverse plus iterative
        refinement (to a relative residual ``rtol``); LU (then least squares) when refinement
        does not reach it."""
        m = self.m
        if self.stale and rescue:
            self.refactor()
        A = self.A[:m + 1, :m + 1]
        x = self.F.apply(rhs)
        scale = np.abs(rhs).max() + self.kscale * np.abs(x[1:]).max(initial=0.0)
        for _ in range(refine):
            r = rhs - A @ x
            if np.abs(r).max() <= rtol * scale:
                return x
            x = x + self.F.apply(r)
        r = rhs - A @ x
        if np.abs(r).max() <= 1e-13 * scale or self._at_rounding_floor(A, x, rhs, r):
            return x
        if not rescue:
            self.stale = True
            return x
        # the maintained inverse has drifted: rebuild it, then solve afresh with refinement
        self.refactor()
        x = self.F.apply(rhs)
        for _ in range(refine):
            r = rhs - A @ x
            if np.abs(r).max() <= 1e-15 * scale:
                return x
            x = x + self.F.apply(r)
        r = rhs - A @ x
        if np.abs(r).max() <= 1e-13 * scale or self._at_rounding_floor(A, x, rhs, r):
            return x
        try:
            x = np.linalg.solve(A, rhs)
            if np.all(np.isfinite(x)):
                return x
        except np.linalg.LinAlgError:
            pass
        return np.linalg.lstsq(A, rhs, rcond=None)[0]

    def _at_rounding_floor(self, A, x, rhs, r):
        """Whether the residual r = rhs − A x is at the floor of its own arithmetic: a componentwise
        backward error (Oettli–Prager) max_i |r_i| / (|A||x| + |rhs|)_i within 8·√(m+1)·eps, as
        LU with partial pivoting gives at best, so that no rebuilt inverse can do better.

        ``solve_elbow``'s relative tests scale the residual by |rhs| + max|K|·|x|, which misses the
        border row's sum: on an elbow of m points whose β share a size (a kernel matrix near the
        identity, as high-dimensional data give at narrow σ: every point on the margin) the
        residual of 1'β rounds to about √m·eps·Σ|β|, and each requested λ rebuilt the inverse and
        then solved by LU for nothing (n = 2000, 200 features, σ = 2^-1: 14.2 s for 26 λ)."""
        ax = np.abs(x)
        body = A[1:, 1:] if self.abs_K is self.K else np.abs(A[1:, 1:])   # |K_EE|
        bound = np.abs(rhs)
        bound[0] += ax[1:].sum()
        bound[1:] += ax[0] + body @ ax[1:]
        return bool(np.all(np.abs(r) <= 8.0 * np.sqrt(self.m + 1.0) * EPS * bound))

    def elbow_rhs(self, s, beta, runs=False):
        """Right-hand side of the elbow system at s = 2nλ: [−Σ_{j∉E} β_j ; s y_E − K_{E,·} β_{∉E}].
        ``runs``: with blocks, the products over the elbow rows' runs only (``KP``,
        ``_events.row_products``: what the passes for the rates read; for the state's
        recomputation, ``exact_state``, not for an answer's)."""
        E, m, b = self.E, self.m, self.blocks
        bF = beta.copy()
        bF[E] = 0.0
        if b is None:
            products = self.KE[:m] @ bF
        elif runs:
            from ._events import row_products

            products = np.empty(m)
            row_products(self.KP, bF[b.order], m, E, b.ptr, b.start, b.stop, products)
        else:
            products = self.KE[:m] @ bF[b.order]
        return np.r_[-bF.sum(), s * self.y[E] - products]

    # ------------------------------------------------------------------ state
    def set_solution(self, s, alpha, b):
        """Take an exact solution at s = 2nλ: partition, elbow inverse, exact α_E, h."""
        upper = self.upper
        alpha = np.clip(np.asarray(alpha, float), 0.0, upper)
        at0 = alpha <= BOUND_RTOL * min(1.0, float(s)) * upper
        atL = alpha >= (1.0 - BOUND_RTOL) * upper
        alpha = np.where(at0, 0.0, np.where(atL, upper, alpha))
        self.alpha = alpha
        self.status = np.where(atL, _L, _R).astype(np.int8)
        free = np.flatnonzero(~at0 & ~atL)
        self.E = np.empty(0, dtype=np.intp)
        self.m = 0
        self.s = float(s)
        self.alpha0 = float(s * b)
        # the free points join the elbow, the most interior first; dependent ones are parked
        order = free[np.argsort(-np.minimum(alpha[free], upper[free] - alpha[free]), kind="stable")]
        joined, parked = affinely_independent(self.K, order, self.dep_level)
        for p in joined:
            self._append(p)
        self.park(parked)
        self.refactor()
        self.exact_state()

    def exact_state(self):
        """Recompute α_E, α_0 from the elbow system at the current s, and h = K β + α_0."""
        self.exact_states += 1
        y, s, m = self.y, self.s, self.m
        beta = y * self.alpha
        if m > 0:
            E = self.E
            rhs = self.elbow_rhs(s, beta, runs=True)
            x = self.solve_elbow(rhs)
            self.alpha0 = float(x[0])
            beta[E] = x[1:]
            self.alpha[E] = y[E] * x[1:]
            self.h = self._h_of(beta, self.alpha0)
        else:
            g = self.K @ beta
            self.alpha0 = s * intercept_from_bounds(g / s, y, self.alpha, self.upper)
            self.h = g + self.alpha0

    def _h_of(self, beta, alpha0):
        """h = K β + α_0, as a correction of a reference product when few β outside the elbow
        changed: the elbow's change through its kernel rows in hand (``KE``, one |E| × n pass
        instead of n × n), the others' through their rows of K."""
        ref = getattr(self, "_href", None)
        if ref is not None:
            h_ref, b_ref, a0_ref, s_ref = ref
            if self.s >= 0.5 * s_ref:          # keep the reference's rounding error ≪ s
                d = beta - b_ref
                dE = d[self.E]
                d[self.E] = 0.0
                C = np.flatnonzero(d)
                if C.size <= self.n // 8:
                    if self.blocks is None:
                        h = h_ref + dE @ self.KE[:self.m] + (alpha0 - a0_ref)
                    else:
                        h = h_ref + self._rates(np.r_[alpha0 - a0_ref, dE])
                    if C.size:
                        h += d[C] @ self.K[C]
                    return h
        h = self.K @ beta + alpha0
        self._href = (h, beta.copy(), alpha0, self.s)
        return h

    def solution_at(self, s_req, lam, tol=0.0):
        """α, b, f at s_req ≤ s on the current segment (the partition is valid there).

        The elbow system is solved with the maintained inverse plus refinement; when the KKT
        residual exceeds max(tol, rounding floor), two more careful solves are tried (refinement
        with LU corrections from that answer, and LU from scratch) and the best answer is kept.
        """
        y, s, m = self.y, float(s_req), self.m
        beta = y * self.alpha
        if m == 0:
            g = self.K @ beta
            cands = [(None, intercept_from_bounds(g / s, y, self.alpha, self.upper))]
            rhs = A = None
        else:
            rhs = self.elbow_rhs(s, beta)
            A = self.A[:m + 1, :m + 1]
            cands = [(self.solve_elbow(rhs), None)]
        best = None
        for attempt in range(3):
            x, b = cands[-1]
            alpha = self.alpha.copy()
            if x is not None:
                alpha[self.E] = y[self.E] * x[1:]
                b = float(x[0]) / s
            f, floor = self._f_and_floor(alpha, s, b)
            res = kkt_residual(y, f, alpha, self.upper, scale=min(1.0, s))
            if best is None or res < best[0]:
                best = (res, alpha, b, f, floor)
            if best[0] <= max(tol, floor) or x is None:
                break
            try:
                if attempt == 0:                 # LU-corrected refinement from this answer
                    for _ in range(2):
                        x = x + np.linalg.solve(A, rhs - A @ x)
                else:                            # LU from scratch, one refinement step
                    x = np.linalg.solve(A, rhs)
                    x = x + np.linalg.solve(A, rhs - A @ x)
            except np.linalg.LinAlgError:
                break
            if not np.all(np.isfinite(x)):
                break
            cands.append((x, None))
        res, alpha, b, f, floor = best
        return DualSolution(float(lam), alpha, float(b), f, "path", self.n_events, res, True,
                            {"kkt_floor": floor})

    def _f_and_floor(self, alpha, s, b):
        """f = K c + b (as ``decision_values``), c = y α / s, and its rounding floor
        (``rounding_floor``: no solver in this parameterization does better). With the compiled
        loop (from ``COMPILED_FROM_N`` points) both from one pass over the rows of K where
        c ≠ 0 (``_events.support_products``; on the paper grid 20–70 % of the points), else
        from two BLAS products over all of K."""
        c = self.y * alpha / s
        if not self.compiled:
            f = self.K @ c + b
            return f, rounding_floor(self.K, self.y, alpha, s / (2.0 * self.n), b,
                                     abs_K=self.abs_K)
        from ._events import support_products

        f, M = np.empty(self.n), np.empty(self.n)
        support_products(self.K, c, np.flatnonzero(c), f, M)
        return f + b, floor_of(float(M.max(initial=0.0)), b)

    def repair_at(self, s_req, lam, tol, res0, rounds=20):
        """Move the state to s_req and correct its partition there (active-set rounds): elbow α
        outside [0, L] go to that bound, bound points violating KKT enter the elbow. Returns the
        solution when its KKT residual reaches max(tol, floor) (and beats ``res0``), else None;
        the state then stays at s_req either way, on failure with its partition rebuilt from the
        first answer (``set_solution``), which need not be the segment's: the caller starts a new
        segment (``_answer_segment``)."""
        y, upper = self.y, self.upper
        self.s = float(s_req)
        self.exact_state()
        first = None
        for _ in range(rounds):
            sol = self.solution_at(self.s, lam, tol)
            if first is None:
                first = sol
            thr = max(tol, sol.info["kkt_floor"])
            if sol.kkt_residual <= thr:
                if sol.kkt_residual < res0:
                    self.alpha = sol.alpha.copy()
                    self.alpha0 = sol.b * self.s
                    self.exact_state()
                    return sol
                break
            yf = y * sol.f
            changed = False
            if self.m > 0:
                aE = y[self.E] * (sol.alpha[self.E] * y[self.E])
                bad = np.flatnonzero((aE < 0) | (aE > upper[self.E]))
                for j in sorted(bad.tolist(), reverse=True):
                    p = self.E[j]
                    hi = aE[j] > upper[p]
                    self.alpha[p] = upper[p] if hi else 0.0
                    self.status[p] = _L if hi else _R
                    self.remove(j)
                    changed = True
            if not changed:
                st = self.status
                a = self.alpha
                at0 = (st == _R) | ((st == _P) & (a <= 0))
                atL = (st == _L) | ((st == _P) & (a >= upper))
                mid = (st == _P) & ~at0 & ~atL
                viol = np.flatnonzero((at0 & (yf < 1 - thr)) | (atL & (yf > 1 + thr)) |
                                      (mid & (np.abs(yf - 1) > thr)))
                for p in viol[np.argsort(-np.abs(yf[viol] - 1))][:max(1, self.m // 4 + 1)]:
                    changed |= self.try_add(p, dep_tol=1e-15)
            if not changed:
                break
            self.refactor()
            self.exact_state()
        # failed: back to the state the path had at s_req
        self.set_solution(self.s, first.alpha, first.b)
        return None

    # ------------------------------------------------------------------ one segment
    def direction(self):
        """d(α_0, β_E)/ds and dh/ds on the current segment."""
        m = self.m
        rhs = np.empty(m + 1)
        rhs[0] = 0.0
        rhs[1:] = self.y[self.E]
        # a direction (the state is corrected anyway), but still refined (to 1e-12 for small
        # elbows, DIRECTION_RTOL for large ones): without the residual check, ill-conditioned
        # elbows (n = 2000, σ = 2^-2) cycled at degenerate events. Large elbows' first answers
        # have residuals of 1e-13 … 1e-11 (n = 1500, σ = 2^-3): 1e-11 spares most refinement
        # steps (bench/profile_path.py --compare-direction-rtol 1e-12)
        if m >= self.SCHUR_FROM and not self.stale:
            # large elbows: the first answer checked against A (|E|² numbers) or off its rates
            # (``_check_on_rates``), then refined; a refined answer is checked off its rates,
            # A x = [Σ x_E; dh_E], from the one pass over K_E that an accepted direction needs
            # anyway (n = 10,000, σ = 2^-2.5, where 55 % of the first answers miss: 0.95 of the
            # time with a second check against A, side by side); solve_elbow itself when two
            # steps miss. (Residuals read off dh *updated* by a pass per step drifted: at
            # n = 5000, σ = 2^-2.5 46 % of the directions fell through to solve_elbow, 364 s
            # against 251 s for the column.)
            A = self.A[:m + 1, :m + 1]
            raw = self.F.direction(self.y, rhs)
            x = raw + self._carried_correction()
            on_rates = self._check_on_rates()
            for step in range(3):
                dh = self._rates(x) if on_rates or step else None
                r = rhs - (A @ x if dh is None else np.r_[x[1:].sum(), dh[self.E]])
                if np.abs(r).max() <= self.DIRECTION_RTOL * (1.0 + self.kscale * np.abs(x[1:]).max()):
                    self._carry = (x[0] - raw[0], self.E.copy(), x[1:] - raw[1:])
                    return x[0], x[1:], self._rates(x) if dh is None else dh
                if step < 2:
                    x = x + self.F.apply(r)
        x = self._dx
        if x is None or x.size != m + 1 or self.stale or not isinstance(self.F, ExplicitInverse) \
                or np.abs(rhs - self.A[:m + 1, :m + 1] @ x).max() > \
                1e-12 * (1.0 + self.kscale * np.abs(x[1:]).max()):
            x = self.solve_elbow(rhs, rtol=1e-12)    # (solve_elbow's own first check, on x)
        self._dx = x
        return x[0], x[1:], self._rates(x)

    def _carried_correction(self):
        """What refinement added to the block-LU direction at the last accepted direction, in
        the current elbow order (zero for points that entered since), while the inverse is the
        same (no rebuild since). The direction's error comes from the changes' columns and the
        small Schur system (refining the base's own direction changed nothing), which persist
        from event to event, so the last correction cancels most of the next one's: n = 5000,
        σ = 2^-3, the first direction missed its check at 3,125 of 13,371 events, 954 with the
        correction carried (a miss costs a product with the base and a second pass over the
        elbow's kernel rows)."""
        out = np.zeros(self.m + 1)
        if self._carry is None:
            return out
        d0, E, dE = self._carry
        by_point = np.zeros(self.n)
        by_point[E] = dE
        out[0] = d0
        out[1:] = by_point[self.E]
        return out

    def _check_on_rates(self) -> bool:
        """Whether a large elbow's first direction is checked off its rates, A x = [Σ x_E; dh_E]
        (one pass, which the accepted direction needs anyway), instead of on A: when the blocks'
        runs of the elbow's kernel rows hold fewer numbers than A's |E|². Checked on A, every
        direction costs a product with A besides its pass; checked off its rates, only one that
        misses costs a second pass (n = 5000, σ = 2^-3, where 63 % of the first directions miss:
        67.6 s against 75.8 s for the column, side by side; σ = 2^-2.5, where the runs hold
        more, is checked on A as before)."""
        return self.blocks is not None and int(self.blocks.row_len[self.E].sum()) < self.m ** 2

    def empty_elbow_event(self):
        """s at which the α_0-interval of an empty elbow closes, with the two points that enter."""
        y, g = self.y, self.h - self.alpha0
        Lp = np.flatnonzero((self.status == _L) & (y > 0))
        Lm = np.flatnonzero((self.status == _L) & (y < 0))
        if Lp.size == 0 or Lm.size == 0:
            return -np.inf, None, None
        jp = Lp[np.argmax(g[Lp])]
        jm = Lm[np.argmin(g[Lm])]
        return 0.5 * (g[jp] - g[jm]), jp, jm


def _start(K, y, upper, lam, kkt_tol):
    """An exact solution at the largest λ: LIBSVM at ``START_SMO_TOLS[0]``, its answer finished
    exactly by the homotopy (``_start_by_homotopy``), else by ``finish_dual``, else by a
    working-set QP (``solve_working_set``, certified by the KKT check on all points); else the
    same at the next tolerance; else LIBSVM to ``TIGHT_SMO_TOL``; else cvxopt.

    The homotopy (n = 2000, σ = 2^-2.5 … 2^-1.5: 0.05 / 0.06 / 0.02 s, 6–36 events) costs a
    fifth of the working set (0.24 / 0.31 / 0.04 s) and of ``finish_dual`` where that fails
    (0.1–0.15 s). From 5,000 points wahba2d's elbows are too ill-conditioned for it (it gives up
    within 0.05–1.2 s at n = 5000, 3 s at n = 10,000) and the working set does the work.

    An inexact start costs far more than the repair: from cvxopt's interior-point answer (n = 1600,
    σ = 2^-2, log2 nλ = 8, where LIBSVM's finish missed at 5e-8) the path met 20,843 zero-length
    events and took 177 s; repaired by the working set (0.04 s, residual 2e-14) it takes seconds.
    The working set is tried before a tighter SMO because it is the cheaper of the two wherever
    SMO's 1e-5 answer could not be finished (wahba2d at s = 2, CPU seconds, working set from the
    1e-5 answer against SMO at 1e-7: n = 2000, σ = 2^-2.5 … 2^-1.5: 0.30 / 0.37 / 0.05 against
    0.89 / 1.77 / 0.30; n = 5000, σ = 2^-3 … 2^-1: 9.9 / 12.2 / 1.7 / 0.23 / 0.06 against
    43.9 / 61.3 (not exact) / 17.6 / 1.9 / 0.20; n = 10,000, σ = 2^-2: 21.9 against 51.1, not
    exact). The first repair is asked for, and counts only when it reaches, the residual of a
    finished SMO answer (``START_EARLY_WS_TOL``). SMO's answer and the repair's sub-problems are
    finished without ``finish_dual``'s second start from the margins' band (``band_start``),
    which at s = 2 never came near a solution and took 7–8 s a finish at n = 10,000."""
    from .libsvm import solve_libsvm

    try:
        for tol, ws_tol in zip(START_SMO_TOLS, (START_EARLY_WS_TOL, kkt_tol)):
            want = min(ws_tol, kkt_tol)                 # asked for and required alike
            raw = solve_libsvm(K, y, upper, lam, tol=tol, min_tol=tol, finish=False,
                               max_iter=START_SMO_STEPS_PER_POINT * len(y))
            exact = _start_by_homotopy(K, y, upper, lam, raw, want)
            if exact is not None:
                return exact, False
            sol = finish_dual(K, y, upper, lam, raw.alpha, raw.b, "libsvm", raw.n_iter,
                              info=raw.info, band_start=False)
            if sol.polished and sol.kkt_residual <= kkt_tol:
                return sol, False
            ws = solve_working_set(K, y, upper, lam, sol.alpha, sol.b, tol=want,
                                   blas_threads=None, band_start=False,
                                   reltol=START_WS_RELTOL)
            if ws is not None and ws.kkt_residual <= want:
                return ws, False
        tight = solve_libsvm(K, y, upper, lam, tol=TIGHT_SMO_TOL, min_tol=TIGHT_SMO_TOL)
        if tight.kkt_residual <= kkt_tol:
            return tight, False
    except Cancelled:
        raise
    except Exception:                                            # noqa: BLE001
        pass
    return solve_cvxopt(K, y, upper, lam), True


def _start_by_homotopy(K, y, upper, lam, near, tol):
    """The exact solution at λ from SMO's answer ``near`` by ``homotopy.exact_by_homotopy``,
    when it gets there and its KKT residual is ≤ tol; else None."""
    from .homotopy import exact_by_homotopy

    n = len(y)
    s = 2.0 * n * lam
    P = _Path(K, y, upper)
    try:
        events = exact_by_homotopy(P, s, near.alpha, near.b, HOMOTOPY_EVENTS + n // 20)
    except (PathError, np.linalg.LinAlgError, FloatingPointError):
        return None
    if events is None:
        return None
    alpha, b = P.alpha.copy(), P.alpha0 / s
    f = decision_values(K, y, alpha, lam, b)
    res = kkt_residual(y, f, alpha, upper, scale=min(1.0, s))
    info = {"smo_tol": near.info.get("smo_tol"), "parked": int(np.sum(P.status == _P))}
    if res <= tol:
        return DualSolution(float(lam), alpha, float(b), f, "homotopy", events, res, True, info)
    # parked points kept SMO's α: their margins are off by up to their distance to the
    # elbow's hull; on the now right partition one exact solve of the free set finishes it
    sol = finish_dual(K, y, upper, lam, alpha, b, "homotopy", events, tol=tol, info=info)
    return sol if sol.polished and sol.kkt_residual <= tol else None


#: events the start's homotopy may take besides one per 20 points (``_start_by_homotopy``)
HOMOTOPY_EVENTS = 100

#: SMO's tolerances for the start, each followed by a working-set repair of its answer (``_start``)
START_SMO_TOLS = (1e-5, 1e-7)
#: SMO's steps at each of ``START_SMO_TOLS``, per point: where it has not reached the tolerance
#: by then, its answer goes to the same finishes. On wahba2d at s = 2 SMO takes at most 42 steps
#: per point at n = 2000 and 90 at n = 5000 (σ = 2^-2.5). On a low-rank kernel it crawls: the
#: linear kernel on 200 standardized features, n = 2000, took 7,400 steps per point (15.6 s) to
#: 1e-5, where 500 per point (1.7 s) and the working set from there (0.7 s, residual 4e-13) do.
START_SMO_STEPS_PER_POINT = 500
#: the residual a working-set repair of SMO's first answer must reach to be the start. Where it
#: succeeded on wahba2d (n = 2000 … 10,000) its answers were at 1e-14 … 2e-13, like the exact
#: starts ``finish_dual`` gives. At n = 10,000, σ = 2^-2.5 it stopped at 6.8e-9 (within the
#: path's 1e-8), and the path from that start ended with an answer 2.8e-2 off after 5,106 s;
#: from the old start (SMO at 1e-7 first) the column took 2,121 s with residuals ≤ 2.9e-7. Such
#: an answer is set aside and the start goes on to SMO at 1e-7 as before. The repair is asked
#: for this residual, not the path's: asked for 1e-8 its finish stops at the first round within
#: it (n = 10,000, σ = 2^-3: 8.6e-9 in 91 s, then SMO at 1e-7 took 500 s); asked for 1e-12 it
#: took one more round (94 s, 3.6e-13; σ = 2^-2.5: 71 s, 1.4e-13).
START_EARLY_WS_TOL = 1e-12

#: cvxopt's relative gap at which the start's working-set sub-problems stop (``_start``). The
#: working set's own options run each sub-problem to the rounding level (``working_set._OPTIONS``),
#: which tiny λ needs; the start is at s ≥ ``SMO_EASY_S``, where the dual is well scaled. wahba2d
#: from SMO's 1e-5 answer at s = 2 (one process, CPU seconds, the same three rounds, |W| and
#: final residual either way): n = 5000, σ = 2^-2.5 9.4 → 5.6 s; n = 10,000, σ = 2^-2.5
#: 69.1 → 42.8 s (cvxopt 49.4 → 23.9 s, 1.4e-13), σ = 2^-3 91.4 → 52.1 s (70.8 → 30.9 s,
#: 3.6e-13).
START_WS_RELTOL = 1e-12

#: SMO's tolerance for a start that neither ``finish_dual`` nor the working set could make exact.
#: Such starts have many nearly dependent free points (n = 5000, σ = 2^-2.5, s = 2: 2,479 free,
#: 873 of them within 1e-11 of the others' affine hull), so solving the free set's equations
#: amplifies SMO's error: only an SMO answer already within the KKT tolerance will do. There SMO
#: took 336 s to 1e-9 (finished to 2.5e-9), and the column's path 251 s after it, with no
#: repair; cvxopt's answer (160 s) had a residual of 3e-5, and the path never recovered from it.
TIGHT_SMO_TOL = 1e-9


#: the largest KKT residual a path accepts at a requested λ (``solve_path``'s default ``kkt_tol``)
KKT_TOL = 1e-8


def solve_path(K, y, upper, lams, *, kkt_tol: float = KKT_TOL, fallback: bool = True,
               start: DualSolution | None = None, max_events: int | None = None,
               dep_tol: float = 1e-11, blas_threads: int | None = 1,
               compiled: bool | None = None, point_order=None) -> list:
    """Exact regularization path of the weighted SVM evaluated at the requested λ (docs/svm.md).

    Follows the piecewise-linear path α(s), α_0(s) (s = 2nλ = HRTZ's λ_H) of Hastie, Rosset,
    Tibshirani & Zhu (2004, JMLR 5) from an exact solution at max(lams) downwards, with per-point
    upper bounds L(y_i) (unbalanced and weighted classes), empty-elbow segments, simultaneous events
    and dependent elbow points handled (module docstring).

    Parameters
    ----------
    K : (n, n) array
        Gram matrix (symmetric positive semidefinite).
    y : (n,) array of ±1
    upper : (n,) array
        L(y_i) > 0, the upper bound of α_i.
    lams : sequence of float
        λ values (> 0), in any order.
    kkt_tol : float
        Largest KKT residual (``kkt_residual``) accepted at a requested λ; larger → cvxopt.
    fallback : bool
        Whether to solve a failed λ with ``solve_cvxopt`` (and restart the path from it). Without
        fallback the path's answer is returned as is (check ``kkt_residual``).
    start : DualSolution, optional
        An exact solution at max(lams) to start from (default: LIBSVM + exact finish, or cvxopt),
        or a path's answer there ``within_tolerance`` (grid growth carries a path on from its
        last answer: ``set_solution`` recomputes the elbow's α from the answer's partition).
    max_events : int, optional
        Cap on the number of breakpoints (default 50 n + 1000).
    dep_tol : float
        Relative Schur-complement threshold below which a point is not added to the elbow.
    blas_threads : int or None
        BLAS threads while following the path (its matrices are small: one thread is much faster
        than several on a busy machine); None leaves the setting alone. cvxopt fallbacks run with
        the machine's default.
    compiled : bool or None
        Cross the simple events in the compiled loop (``_events``, numba). None: from
        ``COMPILED_FROM_N`` points on.
    point_order : (n,) permutation, optional
        The points in an order in which near points are near (``locality.locality_order`` of
        the inputs). With it, and where the kernel's rows are mostly below rounding (narrow
        Gaussian kernels, ``locality.blocks_for``), the passes over the elbow's kernel rows read
        only the runs of columns that hold entries above 2^-56·max K_ii / n. Only the speed
        depends on it; the answers are recomputed from the whole of K.

    Returns
    -------
    list of DualSolution
        One per λ in the input order, solver "path"; ``info`` holds ``fallback`` (this λ came from
        cvxopt), ``fallbacks`` (count over the call), ``events`` (breakpoints so far) and
        ``start`` (how the path was started).
    """
    if blas_threads is None:
        with np.errstate(divide="ignore", invalid="ignore"):
            return _solve_path(K, y, upper, lams, kkt_tol, fallback, start, max_events, dep_tol,
                               None, compiled, point_order)
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=int(blas_threads), user_api="blas"), \
            np.errstate(divide="ignore", invalid="ignore"):
        return _solve_path(K, y, upper, lams, kkt_tol, fallback, start, max_events, dep_tol,
                           threadpool_limits, compiled, point_order)


def within_tolerance(sol, kkt_tol: float = KKT_TOL) -> bool:
    """Whether a DualSolution's KKT residual is within ``kkt_tol`` or its answer's rounding floor
    (``info["kkt_floor"]``): the answers a path keeps as good, and may start from (``start``)."""
    return sol.kkt_residual <= max(kkt_tol, sol.info.get("kkt_floor", 0.0))


def _solve_path(K, y, upper, lams, kkt_tol, fallback, start, max_events, dep_tol, limiter,
                compiled=None, point_order=None):
    """The path's main loop (the order of Hastie's svmpath.R): find the next event, answer the
    requested λ on the segment before it (repairing answers that fail the KKT check), cross the
    event and update the sets; on a failure, recover at the next requested λ and restart."""
    run = _setup(K, y, upper, lams, kkt_tol, fallback, max_events, dep_tol, limiter, compiled, point_order)
    if run is None:
        return []
    _start_path(run, start)
    while run.k < run.s_req.size:
        if _hand_tail(run) and _answer_tail(run):
            break
        try:
            if run.total_events > run.max_events:
                raise PathError("too many events")
            if run.total_events % CHECK_EVERY == 0:
                check_cancel()                    # a sweep's cancel, inside a long column
            if _compiled_events(run):
                continue                          # simple events crossed, compiled
            seg = _next_event(run.path, run.y, run.upper)
            if _answer_segment(run, seg):
                continue                          # a repair moved the state: new segment
            if run.k >= run.s_req.size:
                break
            _cross_event(run, seg)
        except (PathError, np.linalg.LinAlgError, FloatingPointError) as exc:
            if not run.fallback:
                _answer_rest_as_is(run, str(exc))
                break
            _recover(run, str(exc))
    return _report(run)


# ---------------------------------------------------------------------------- one call's state
@dataclass
class _Run:
    """What one call of ``solve_path`` shares: the problem, the requested λ in decreasing order,
    the answers so far, the path's current state and the counters reported in ``info``."""

    K: np.ndarray
    y: np.ndarray
    upper: np.ndarray
    lams: np.ndarray                  # as requested
    order: np.ndarray                 # lams[order] is decreasing
    s_req: np.ndarray                 # 2nλ in that order
    kkt_tol: float
    fallback: bool
    dep_tol: float
    max_events: int
    limiter: object                   # threadpoolctl's ``threadpool_limits``, or None
    out: list
    start_kind: str = "given"
    path: _Path | None = None
    k: int = 0                        # next requested λ, in decreasing order
    total_events: int = 0
    zero_steps: int = 0               # consecutive zero-length steps
    zero_moved: int = 0               # points those steps moved between the sets
    tie_looked_at: bool = False       # whether their run was looked at (``_count_zero_step``)
    tie_runs: int = 0                 # runs of TIE_RUN zero-length steps below the floor
    tail_failed_at: int | None = None  # tie_runs when a working-set QP of the tail failed
    tail_failed_k: int = -1           # the requested λ (k) it failed at
    tail_failed_s: float = math.inf   # the path's s then
    tail_retried: int = 0             # tries again at that λ after the first failed
    repairs: int = 0
    ws_repairs: int = 0
    fallbacks: int = 0
    last_good: DualSolution | None = None   # last answer within tolerance
    start_cvxopt: tuple | None = None       # (s, answer) when the start was cvxopt's
    compiled: bool = False            # simple events in the compiled loop (``COMPILED_FROM_N``)
    blocks: object = None             # ``locality.KernelBlocks`` for the passes, or None

    @property
    def lam(self):
        """The k-th requested λ."""
        return self.lams[self.order[self.k]]

    def record(self, sol):
        """Store sol as the answer at the k-th λ; an answer within tolerance is remembered as a
        start for later working-set repairs."""
        self.out[self.order[self.k]] = sol
        if within_tolerance(sol, self.kkt_tol):
            self.last_good = sol

    def restart(self, sol):
        """Replace the path's state by a fresh one from sol, an exact answer at the k-th λ."""
        P = _Path(self.K, self.y, self.upper, dep_tol=self.dep_tol, compiled=self.compiled,
                  blocks=self.blocks)
        P.set_solution(self.s_req[self.k], sol.alpha, sol.b)
        self.path = P
        self.end_zero_run()

    def end_zero_run(self):
        """A step of nonzero length: no run of zero-length steps goes on."""
        self.zero_steps, self.zero_moved, self.tie_looked_at = 0, 0, False


def _setup(K, y, upper, lams, kkt_tol, fallback, max_events, dep_tol, limiter, compiled=None,
           point_order=None):
    """Checked inputs and the requested λ in decreasing order; None when no λ is requested."""
    K = np.asarray(K, float)
    y = np.asarray(y, float)
    upper = np.asarray(upper, float)
    lams = np.atleast_1d(np.asarray(lams, float))
    n = len(y)
    if lams.size == 0:
        return None
    if np.any(lams <= 0):
        raise ValueError("every λ must be positive")
    order = np.argsort(-lams, kind="stable")
    max_events = 50 * n + 1000 if max_events is None else int(max_events)
    return _Run(K, y, upper, lams, order, 2.0 * n * lams[order], kkt_tol, fallback, dep_tol,
                max_events, limiter, [None] * lams.size,
                compiled=n >= COMPILED_FROM_N if compiled is None else bool(compiled),
                blocks=blocks_for(K, point_order))


#: SMO's work grows with C = 1/s: below s = 2nλ = ``SMO_EASY_S`` (C = 8 per unit of L) a LIBSVM
#: start takes up to seconds (n = 2000, σ = 1: 1.5 s at log2(nλ) = −8; n = 200, C_B = 4.5, σ = 2:
#: 6 s at −22). A request whose largest λ is below it starts at s = ``START_S`` (the paper grid's
#: top, a few milliseconds) and follows the path down, which costs milliseconds.
SMO_EASY_S = 2.0 ** -3
START_S = 2.0


#: s = 2nλ above which a requested λ is answered on its own, by the start's exact solver
#: (``_start``), when the path is not given a start: the path starts at the largest requested λ
#: at or below it. Between s = 2^3 and 2 the elbow grows to a third of the points at narrow
#: kernels, and crossing those events costs more than solving each λ there afresh: wahba2d,
#: σ = 2^-3, the app's default λ (log2(nλ) = 8 … −20 step 2), n = 5000: from log2(nλ) = 8 the
#: path reached 0 after 12,205 events and 36.3 s; solved one by one (``_start``: LIBSVM at 1e-5
#: and a working-set finish, residuals ≤ 1.1e-13) 8, 6, 4, 2 and 0 took 2.4, 1.3, 1.1, 3.6 and
#: 10.1 s. Where the paper grid starts (log2(nλ) = 0, s = 2) nothing changes.
POINTWISE_ABOVE_S = START_S


def _start_path(run, start):
    """The path's state at the largest λ (at s = ``START_S`` when no start is given and that λ is
    below ``SMO_EASY_S``), from ``start`` or from ``_start``; without ``start``, the requested λ
    above ``POINTWISE_ABOVE_S`` are answered first (``_answer_above_start``)."""
    P = _Path(run.K, run.y, run.upper, dep_tol=run.dep_tol, compiled=run.compiled,
              blocks=run.blocks)
    run.path = P
    if start is None:
        _answer_above_start(run)
        s0 = run.s_req[run.k]
        s0 = START_S if s0 < SMO_EASY_S else s0
        start, used_cvx = _start(run.K, run.y, run.upper, s0 / (2.0 * len(run.y)), run.kkt_tol)
        run.start_kind = "cvxopt" if used_cvx else "libsvm"
        if used_cvx:
            run.start_cvxopt = (s0, start)
    else:
        s0 = run.s_req[0]
    P.set_solution(s0, start.alpha, start.b)


def _answer_above_start(run):
    """Answer each requested λ above s = ``POINTWISE_ABOVE_S`` but the last with ``_start``'s
    exact solver (a cvxopt answer counts as a fallback), so that the path starts at or below
    that s; the answers are recorded as the path's (solver "path", ``info["pointwise"]``)."""
    while run.k < run.s_req.size - 1 and run.s_req[run.k] > POINTWISE_ABOVE_S:
        check_cancel()
        sol, used_cvx = _start(run.K, run.y, run.upper, float(run.lam), run.kkt_tol)
        run.fallbacks += used_cvx
        _record_answer(run, sol, None, "cvxopt" if used_cvx else "pointwise", pointwise=True)
        run.k += 1


def _report(run):
    """The answers in the input order, with the call's counters in ``info``."""
    for sol in run.out:
        sol.info.setdefault("repaired", False)
        sol.info["start"] = run.start_kind        # (known only once the path has started)
        sol.info["repairs"] = run.repairs
        sol.info["working_set_repairs"] = run.ws_repairs
        sol.info["fallbacks"] = run.fallbacks
        sol.info["events"] = run.total_events
    return run.out


# ---------------------------------------------------------------------------- one segment
class _Segment(NamedTuple):
    """The current segment, from s down to its event at s − t (t = inf: none before s = 0).

    An empty elbow ends when the pair (jp, jm) enters; otherwise the segment's rates
    (dα_0/dt, dh/dt, dα_E/dt with t = s − s') and the step to each point's event are kept
    (``te``: elbow point reaches 0 or L; ``tm``: left/right point reaches the margin)."""

    s: float
    t: float
    empty: bool
    jp: int | None = None
    jm: int | None = None
    da0: float = 0.0
    dh: np.ndarray | None = None
    v: np.ndarray | None = None
    aE: np.ndarray | None = None
    te: np.ndarray | None = None
    tm: np.ndarray | None = None
    rho: np.ndarray | None = None


def _next_event(P, y, upper):
    """The segment from the path's current s to its next event (HRTZ 2004 §3.2)."""
    s = P.s
    if P.m == 0:
        s_ev, jp, jm = P.empty_elbow_event()
        t_ev = s - s_ev
        if t_ev < 0:
            t_ev = 0.0
        return _Segment(s, t_ev, True, jp, jm)
    da0, dbeta, dh = P.direction()
    gap = y * P.h - s                         # y f − 1, times s
    rho = 1.0 - y * dh                        # d gap / dt, t = s_k − s
    sgn = _SGN[P.status]                      # +1 left, −1 right, 0 elbow/parked
    # (divisions by ~0 are masked out; the caller silenced their warnings)
    tm = np.where(sgn * rho > 1e-11, np.maximum(-gap / rho, 0.0), np.inf)
    v = -y[P.E] * dbeta                       # dα_E/dt
    aE = P.alpha[P.E]
    uE = upper[P.E]
    vtol = 1e-13 * uE / max(s, 1e-300)
    te = np.where(v < -vtol, np.maximum(aE / -v, 0.0),
                  np.where(v > vtol, np.maximum((uE - aE) / v, 0.0), np.inf))
    t_ev = min(tm[int(np.argmin(tm))], te[int(np.argmin(te))])
    if t_ev >= s:                             # no event before s = 0
        t_ev = np.inf
    return _Segment(s, t_ev, False, da0=da0, dh=dh, v=v, aE=aE, te=te, tm=tm, rho=rho)


def _answer_segment(run, seg):
    """Answer every requested λ on the segment (s − t ≤ s_req ≤ s), checking each answer's KKT
    residual and trying ``REPAIR_LADDER`` when it fails. True when repairs were tried: the path's
    state then sits at (or was restarted from) that λ, and the caller starts a new segment. Where
    they all failed the answer is recorded as it is, and the state is still moved: the repair on
    the path's own state leaves it at that λ, its partition rebuilt from the answer
    (``_Path.repair_at``), which need not be the segment's (tight clusters of points with both
    labels: the elbow rebuilt with 85 points where the segment had 89, and crossing the old
    segment's event then failed on the mismatch)."""
    P = run.path
    while run.k < run.s_req.size and seg.s - run.s_req[run.k] <= seg.t:
        sol = P.solution_at(run.s_req[run.k], run.lam, run.kkt_tol)
        sol.info.update(fallback=False)
        ok = (sol.kkt_residual <= max(run.kkt_tol, sol.info["kkt_floor"])
              and np.all(np.isfinite(sol.f)))
        if not ok and run.fallback:
            if not _repaired(run, sol):
                run.record(sol)
            run.k += 1
            return True
        run.record(sol)
        run.k += 1
    return False


def _cross_event(run, seg):
    """Move the state to the event that ends the segment and update the sets there."""
    P = run.path
    if seg.empty:
        _close_empty_elbow(P, seg)
        P.n_events += 1
        run.total_events += 1
        return
    _move_to_event(P, seg)
    _count_zero_step(run, seg)
    _update_sets(P, seg, run.upper)
    P.n_events += 1
    run.total_events += 1
    _after_event(run)


def _after_event(run):
    """The owner's bookkeeping after an event: rebuild a drifted or much-changed inverse, and
    recompute the state from the elbow system every ``exact_every`` events."""
    P = run.path
    if P.needs_refactor():
        P.refactor(merge=not P.stale)
        P.exact_state()
    elif run.total_events % P.exact_every == 0 and P.exact_at != run.total_events:
        P.exact_state()


def _compiled_events(run) -> bool:
    """Cross the next simple events in the compiled loop (``_events.run_events``: one point
    entering or leaving at a time, explicit inverse, tracked direction, no requested λ on the
    segment), recomputing the state on its schedule itself (``_events._exact_state``), up to
    the next cancel check or other bookkeeping (``_after_event``). False when it crossed none:
    the numpy code takes the next event."""
    P = run.path
    budget = min(CHECK_EVERY - run.total_events % CHECK_EVERY,
                 run.max_events + 1 - run.total_events)
    if not run.compiled or budget <= 0 or not _compilable(P):
        return False
    events, unpark = _run_compiled(P, run.s_req[run.k], budget, run.total_events)
    if events == 0:
        return False
    run.total_events += events
    run.end_zero_run()
    if unpark:
        _unpark(P, run.upper)
    _after_event(run)
    return True


def _compilable(P) -> bool:
    """Whether the compiled loop can take the path's state: a non-empty elbow, a fresh explicit
    inverse and the tracked direction."""
    return (P.m > 0 and not P.stale and isinstance(P.F, ExplicitInverse) and P._dx is not None
            and P._dx.size == P.m + 1)


def _run_compiled(P, s_next, budget, total_events):
    """Run ``_events.run_events`` on the path's state (s_next: the next requested s, which ends
    the loop before it) and adopt what it returns: s, α_0, h, the elbow, the inverse's size and
    changes, the tracked direction. Returns (events crossed, whether the last one offers parked
    points back to the elbow: ``_unpark``)."""
    from . import _events               # numba: imported by the first path that uses it

    m = P.m
    P.reserve(budget)
    x = np.empty(m + budget + 2)
    x[:m + 1] = P._dx
    h = P.h.copy()                      # (P.h may be the reference product of ``_h_of``)
    code, events, s, alpha0, m, Fk, exacts, exact_at = _events.run_events(
        P.K, P.y, P.upper, P.alpha, P.status, h, P.park_bound, P.KE, P.KP, P.A, P.F.B, P._Ebuf, x,
        P.s, P.alpha0, m, P.F.k, P.kscale, P.dep_level, BOUND_RTOL, s_next, P.SCHUR_FROM,
        budget, P.exact_schedule, total_events, P.LARGE_FROM, P.DIRECTION_RTOL, P._blk, P.reference())
    P.exact_states += exacts
    if exact_at >= 0:
        P.exact_at = total_events + exact_at
    if events:
        P.s, P.alpha0, P.h, P.m = s, alpha0, h, m
        P.E = P._Ebuf[:m]
        P.F.M, P.F.k = m + 1, Fk
        P._dx = x[:m + 1].copy()
        P._changes += events
        P.n_events += events
    return events, code == _events.UNPARK


def compile_event_loop() -> None:
    """Load the compiled event loop, the kernels of the passes over runs and the explicit
    inverse's in-place rank-one change (``elbow.add_outer``), compiling them on a
    new installation (45–51 s on two Zen 3 cores, ``bench/scale_history.md``; about 3 s to load
    from numba's cache afterwards): the Docker image's build and the benchmarks call it so that
    no user or timing pays that. A 1000-point path (two Gaussian clouds, σ = 2^-3, its points'
    order: runs cover 37 % of K) crosses its events in the loop and reads its rows by runs (the
    points' order is used from ``locality.MIN_POINTS``, the loop from ``COMPILED_FROM_N``)."""
    from ....kernels import gaussian_gram
    from .locality import MIN_POINTS, locality_order

    rng = np.random.default_rng(0)
    half = max(COMPILED_FROM_N, MIN_POINTS) // 2
    X = np.r_[rng.normal(0.0, 1.0, (half, 2)), rng.normal(1.0, 1.0, (half, 2))]
    y = np.r_[-np.ones(half), np.ones(half)]
    solve_path(gaussian_gram(X, sigma=0.125), y, np.ones(2 * half),
               2.0 ** np.array([0.0, -1.0]) / (2 * half), point_order=locality_order(X))
    from ._events import rank_one_update      # the numpy code's large elbows (``elbow.add_outer``)

    rank_one_update(np.zeros((1, 1)), np.zeros(1), np.zeros(1), 1)


def _first_use_kernels() -> tuple:
    """numba's functions that a path of ``COMPILED_FROM_N`` points or more calls from Python."""
    from . import _events as ev

    return (ev.run_events, ev.support_products, ev.kept_runs, ev.rates, ev.row_products,
            ev.pack_runs, ev.rank_one_update)


def event_loop_loaded() -> bool:
    """Whether this process has loaded (or compiled) the compiled loop and its products
    (``_events.run_events``, ``support_products``), which every path of ``COMPILED_FROM_N``
    points or more calls: its next such path pays no load for them. (The passes over runs of a
    narrow kernel, from ``locality.MIN_POINTS`` points, load on their own first use.)"""
    from . import _events as ev

    return bool(ev.run_events.signatures and ev.support_products.signatures)


def event_loop_compiled() -> bool:
    """Whether a path of ``COMPILED_FROM_N`` points or more runs without compiling first: each of
    its compiled functions is loaded in this process, or numba's cache holds it for these sources
    and this CPU (the cache's index, as numba's own lookup keys it: signature, the CPU's name and
    features, the function's bytecode; stale sources give an empty index). False on a new
    installation, where the first such path compiles them (``compile_event_loop``)."""
    import hashlib

    from numba.core.registry import cpu_target

    cpu = cpu_target.target_context.codegen().magic_tuple()

    def cached(f) -> bool:
        code = hashlib.sha256(f.py_func.__code__.co_code).hexdigest()
        index = f._cache._cache_file._load_index()
        return any(key[1] == cpu and key[2][0] == code for key in index)

    return all(f.signatures or cached(f) for f in _first_use_kernels())


def _close_empty_elbow(P, seg):
    """At the end of an empty-elbow segment α_0 is fixed and the pair (jp, jm) enters (HRTZ §4.1)."""
    P.s = seg.s - seg.t
    g = P.h - P.alpha0
    P.alpha0 = P.s - g[seg.jp]
    P.h = g + P.alpha0
    P.try_add(seg.jp)
    if not P.try_add(seg.jm):
        raise PathError("empty elbow: dependent pair")


def _move_to_event(P, seg):
    """α_E, α_0 and h are affine in s on the segment: step them to s − t."""
    t = seg.t
    P.s = seg.s - t
    P.alpha[P.E] = seg.aE + t * seg.v
    P.alpha0 = P.alpha0 - t * seg.da0
    P.h = P.h - t * seg.dh


#: consecutive zero-length steps after which a tie below f's rounding floor hands the rest of
#: the path to working sets (``_count_zero_step``). Short runs are cheap and common (n = 200 and
#: 500: most 1–26 steps); the runs that cost seconds were 55–1,011 steps long, all at
#: log2(nλ) < −30. A single tie is not enough: at n = 2000 the paper grid's large-σ columns
#: meet isolated ties below the floor, and working sets there cost more than the path (σ = 2^2.5:
#: 1.7 s against 0.35 s).
TIE_RUN = 32
#: ... or once such a run has moved this share of the points between the sets, at least
#: ``TIE_STORM`` a step on average: a storm of ties in which hundreds of points enter and leave
#: at every step (n = 2000, seed 1, σ = 2^-0.5, log2(nλ) = −24.8: 150 leave and 200–400 enter
#: at each of 32 steps, 40 ms each, at an elbow of 350 points where the column's elbows hold
#: 100) costs more before ``TIE_RUN`` steps than the working sets after them. Ordinary ties move
#: one or two points a step.
TIE_MOVED = 0.25
TIE_STORM = 4


def _count_zero_step(run, seg):
    """Allow a bounded number of consecutive zero-length steps (degenerate breakpoints). A run of
    ``TIE_RUN`` of them, or a storm of them that moved ``TIE_MOVED`` of the points between the
    sets (``TIE_STORM`` a step or more), where f's rounding floor exceeds the KKT tolerance
    marks the rest of the path as decided by rounding (counted in ``tie_runs``; see
    ``_hand_tail``). Each run is looked at once."""
    if seg.t > 1e-14 * seg.s:
        run.end_zero_run()
        return
    run.zero_steps += 1
    if run.zero_steps > 10 + 2 * len(run.y):
        raise PathError("cycling at a degenerate breakpoint")
    if not seg.empty:
        leave, enter = _at_end(seg)
        run.zero_moved += leave.size + enter.size
    storm = run.zero_moved >= max(TIE_MOVED * len(run.y), TIE_STORM * run.zero_steps)
    if run.tie_looked_at or (run.zero_steps < TIE_RUN and not storm):
        return
    run.tie_looked_at = True
    P = run.path
    lam = P.s / (2.0 * len(run.y))
    floor = rounding_floor(run.K, run.y, P.alpha, lam, P.alpha0 / P.s, abs_K=P.abs_K)
    if floor > run.kkt_tol:
        run.tie_runs += 1


#: candidates from which an event decides their entry together (``_Path.add_many``)
BURST = 16


def _at_end(seg):
    """The events within a relative tolerance of the segment's end: (elbow positions that
    leave, points that meet the margin)."""
    tol_t = seg.t + 1e-12 * seg.s
    return np.flatnonzero(seg.te <= tol_t), np.flatnonzero(seg.tm <= tol_t)


def _update_sets(P, seg, upper):
    """Apply every event within a relative tolerance of the first: elbow points leave for the
    bound they reached (then parked points may enter), margin points enter the elbow (largest
    violation rate first; a dependent one is parked)."""
    leave, enter = _at_end(seg)
    if leave.size:
        for j in sorted(leave.tolist(), reverse=True):
            p = P.E[j]
            if seg.v[j] > 0:
                P.alpha[p] = upper[p]
                P.status[p] = _L
            else:
                P.alpha[p] = 0.0
                P.status[p] = _R
            P.remove(j)
        _unpark(P, upper)
    enter = enter[np.argsort(-np.abs(seg.rho[enter]))]
    st = P.status[enter]
    enter = enter[(st == _L) | (st == _R)]
    P.park(enter[~P.add_in_order(enter)])


def _unpark(P, upper):
    """After the elbow lost a point, parked points may enter: those whose distance to the hull
    may have grown past the tolerance (``park_bound``) are offered. One still dependent stays
    parked, unless its α is at a bound (then it joins that set)."""
    parked = np.flatnonzero(P.status == _P)
    offer = P.park_bound[parked] > P.dep_level
    joined = np.zeros(parked.size, dtype=bool)
    joined[offer] = P.add_in_order(parked[offer])
    P.park(parked[offer & ~joined])
    for p in parked[~joined]:
        a = P.alpha[p]
        if a <= BOUND_RTOL * min(1.0, P.s) * upper[p]:
            P.alpha[p], P.status[p] = 0.0, _R
        elif a >= (1 - BOUND_RTOL) * upper[p]:
            P.alpha[p], P.status[p] = upper[p], _L


# ---------------------------------------------------------------------------- repairs
def _repaired(run, sol):
    """Try ``REPAIR_LADDER`` in order, cheapest first; True when a step recorded an answer. An
    answer that is not near a solution (``NEAR_SOLUTION``) skips the repairs in ``ON_SETS`` and
    the working set starts from the last accepted answer."""
    far = not sol.kkt_residual <= NEAR_SOLUTION
    for step in REPAIR_LADDER:
        if far and step in ON_SETS:
            continue
        if step(run, sol) is not None:
            return True
    return False


def _repair_on_path(run, sol):
    """Active-set rounds on the path's own state at this λ (``_Path.repair_at``); the path
    continues from the repaired state."""
    fin = run.path.repair_at(run.s_req[run.k], run.lam, run.kkt_tol, sol.kkt_residual)
    if fin is None:
        return None
    run.repairs += 1
    fin.info.update(fallback=False, repaired=True)
    run.record(fin)
    return fin


def _repair_by_finish(run, sol):
    """``finish_dual`` on the path's answer, kept when within max(tol, floor) and better; the
    path restarts from it."""
    lam = float(run.lam)
    try:
        fin = finish_dual(run.K, run.y, run.upper, lam, sol.alpha, sol.b, "path", to_floor=True)
    except Exception:                                             # noqa: BLE001
        return None
    floor = rounding_floor(run.K, run.y, fin.alpha, lam, fin.b, abs_K=run.path.abs_K)
    if fin.kkt_residual <= max(run.kkt_tol, floor) and fin.kkt_residual < sol.kkt_residual:
        fin.info["kkt_floor"] = floor
        run.repairs += 1
        return _restart_from(run, fin, "repaired by finish_dual", "repaired")
    return None


def _repair_on_working_set(run, sol):
    """A working-set QP (``solve_working_set``); the path restarts from its answer."""
    ws = _working_set(run, sol)
    if ws is None:
        return None
    return _restart_from(run, ws, "repaired by a working-set QP", "working_set")


def _tail_by_working_sets(P) -> bool:
    """Whether the path should hand its remaining λ to working sets (asked once a working-set
    repair was needed): its elbow parks more points than it holds. The free points of the exact
    solutions then outnumber the kernel's numerical rank (tiny λ, a Gaussian kernel of large σ),
    and every event re-offers and re-bounds the parked points: n = 10,000, σ = 1, log2(nλ) −21 →
    −23 took 1,335 and 1,629 events at 127–146 ms each (170 s and 238 s), and both answers
    needed the working set anyway (7 s and 40 s)."""
    return int(np.count_nonzero(P.status == _P)) > max(P.m, 1)


def _hand_tail(run) -> bool:
    """Whether the remaining λ go to working sets (``_answer_tail``): after a long tie below f's
    rounding floor (``TIE_RUN``), or after a working-set repair when the elbow parks more than it
    holds; never before an answer to warm-start from. Once a working-set QP of the tail failed,
    only after a new long tie below the floor, at a later λ, or once (``TAIL_RETRIES``) at the λ
    it failed at when the path has come halfway there (in log s) from where it was then: where
    rounding orders the events the ties come every few events, and a try from the path's own
    answer, far off, failed each time (one standardized feature, n = 2000, σ = 2^-3: 175 tries
    in 42.5 s, 161 of them at the λ of the try before; none succeeded)."""
    if run.last_good is None:
        return False
    if run.tail_failed_at is not None:         # again only after a new long tie, nearer
        halfway = run.path.s <= math.sqrt(run.tail_failed_s * run.s_req[run.k])
        nearer = run.k > run.tail_failed_k or (run.tail_retried < TAIL_RETRIES and halfway)
        return run.tie_runs > run.tail_failed_at and nearer
    return run.tie_runs > 0 or bool(run.ws_repairs and _tail_by_working_sets(run.path))


#: tries of the tail again at the λ where it failed (``_hand_tail``): the first retry from a nearer
#: answer is the one that helped (``tests/test_path.py``, n = 500, C_B = 4.5, σ = 4, −40)
TAIL_RETRIES = 1

_TAIL_REASON = {False: "after the elbow parked most free points: a working-set QP",
                True: "after a tie below f's rounding floor: a working-set QP"}


def _answer_tail(run) -> bool:
    """Answer the remaining λ by working-set QPs, each warm-started from the answer before it and
    certified by the full KKT check, as every repair (a retry after a failed tail starts from the
    path's own answer). True when all are answered; False when one failed (``tail_failed_at``):
    the path, whose state is untouched, goes on."""
    prev = None if run.tail_failed_at is not None else run.last_good
    while run.k < run.s_req.size:
        check_cancel()
        ws = _tail_working_set(run, prev)
        if ws is None:
            run.tail_retried = run.tail_retried + 1 if run.k == run.tail_failed_k else 0
            run.tail_failed_at, run.tail_failed_k = run.tie_runs, run.k
            run.tail_failed_s = run.path.s
            return False
        run.ws_repairs += 1
        prev = _record_answer(run, ws, _TAIL_REASON[run.tie_runs > 0], "working_set",
                              tail=True)
        run.k += 1
    return True


#: ``solve_working_set``'s ``finish_rounds`` in the tail: each sub-problem's answer gets at most 2
#: correction rounds after its best residual last fell, and none when it is farther off than
#: ``NEAR_SOLUTION`` (the next sub-problem, with the new violators in W, is the correction). There
#: the free sets are nearly singular and a round (a dense solve of the free set, a product with
#: all of K) seldom helps: wahba2d, n = 10,000, the tails' working sets replayed from the same
#: starts, σ = 1: 42.8 s against 62.1 s with the default (8, 2), one near answer (4e-4) having
#: taken 8 rounds and 7.6 s without improving; σ = 2^-1: 58.8 s against 63.8 s; residuals
#: 0.09–0.46 of their rounding floors (0.11–0.46). Starts and repairs keep the default: at
#: n = 5000 the starts of σ = 2^-2 and 2^-1.5 took 6.5 s and 5.3 s longer with it.
TAIL_FINISH_ROUNDS = (2, 0)


def _tail_working_set(run, prev):
    """A working-set QP at the k-th λ from prev (the answer before it), else from the path's own
    answer there (its current segment's formulas: after a failed tail, the path may have moved
    close to that λ); None when both fail."""
    ws = None if prev is None else _ws_from(run, prev, TAIL_FINISH_ROUNDS)
    if ws is not None:
        return ws
    try:
        own = run.path.solution_at(run.s_req[run.k], run.lam)
    except Exception:                                             # noqa: BLE001
        return None
    return _ws_from(run, own, TAIL_FINISH_ROUNDS)


def _ws_from(run, begin, finish_rounds=None, max_size=None):
    """``solve_working_set`` at the k-th λ started from ``begin`` (``finish_rounds`` and
    ``max_size`` passed on when given); None when it fails or raises."""
    kw = {} if finish_rounds is None else {"finish_rounds": finish_rounds}
    if max_size is not None:
        kw["max_size"] = max_size
    try:
        return solve_working_set(run.K, run.y, run.upper, float(run.lam), begin.alpha, begin.b,
                                 tol=run.kkt_tol, blas_threads=None, **kw)
    except Exception:                                             # noqa: BLE001
        return None


def _repair_by_cvxopt(run, sol):
    """cvxopt on the whole problem, kept unless its residual is no smaller; the path restarts."""
    ref = _cvxopt_reference(run)
    if ref is None or ref.kkt_residual >= sol.kkt_residual:
        return None
    return _restart_from(run, ref, "KKT", "cvxopt")


#: the repairs of an answer that fails the KKT check, cheapest first; each records an accepted
#: answer at the k-th λ and returns it, or returns None
REPAIR_LADDER = (_repair_on_path, _repair_by_finish, _repair_on_working_set, _repair_by_cvxopt)
#: the repairs that correct the answer's own sets (tried only near a solution)
ON_SETS = (_repair_on_path, _repair_by_finish)


def _working_set(run, sol):
    """``solve_working_set`` from the path's near-solution, else from the last accepted answer at
    a larger λ (after a degenerate stretch the path's own state can be far off while the
    previous grid point's partition is still close); kept when better than sol. The working set
    may grow to all n points: the repair after it is cvxopt on all of them, no cheaper, and on
    ill-conditioned kernels not exact (one feature, n = 1000, σ = 2^-3, log2(nλ) = −7: a working
    set of up to n/2 gave up, cvxopt left a residual of 9.5e-3 and the path from it 1e-2 … 4.5 to
    −19; grown past n/2 it reached 4.5e-13 in 0.47 s)."""
    starts = (sol, run.last_good) if sol.kkt_residual <= NEAR_SOLUTION else (run.last_good, sol)
    for begin in starts:
        if begin is None or not (np.all(np.isfinite(begin.alpha)) and np.isfinite(begin.b)):
            continue
        ws = _ws_from(run, begin, max_size=len(run.y))
        if ws is not None and ws.kkt_residual < sol.kkt_residual:
            run.ws_repairs += 1
            return ws
    return None


def _cvxopt_reference(run):
    """``solve_cvxopt`` at the k-th λ with all BLAS threads (counted as a fallback); None if it
    fails. When the path started from cvxopt's answer at this λ, that answer (solving again gives
    the same; at n = 5000 a solve takes 160 s)."""
    run.fallbacks += 1
    if run.start_cvxopt is not None:
        s0, start = run.start_cvxopt
        if abs(s0 - run.s_req[run.k]) <= 1e-12 * s0:
            return start
    try:
        if run.limiter is None:
            return solve_cvxopt(run.K, run.y, run.upper, float(run.lam))
        with run.limiter(limits=os.cpu_count() or 1, user_api="blas"):
            return solve_cvxopt(run.K, run.y, run.upper, float(run.lam))
    except Exception:                                             # noqa: BLE001
        return None


def _restart_from(run, ref, reason, kind):
    """Record ref (a repaired or cvxopt answer) at the k-th λ and restart the path from it."""
    sol = _record_answer(run, ref, reason, kind)
    run.restart(sol)
    return sol


def _record_answer(run, ref, reason, kind, **info):
    """Record ref as the path's answer at the k-th λ (``kind``: "repaired", "working_set" or
    "cvxopt"; ``info`` adds to the answer's info), with its rounding floor, so that an answer
    within max(kkt_tol, floor) becomes the next warm start (``_Run.record``)."""
    floor = rounding_floor(run.K, run.y, ref.alpha, float(run.lam), ref.b, abs_K=run.path.abs_K)
    sol = DualSolution(float(run.lam), ref.alpha, ref.b, ref.f, "path", run.total_events,
                       ref.kkt_residual, ref.polished,
                       {"fallback": kind == "cvxopt",
                        "repaired": kind in ("repaired", "working_set"),
                        "error": reason, "kkt_floor": floor, **info})
    run.record(sol)
    return sol


# ---------------------------------------------------------------------------- failures
def _recover(run, reason):
    """After the path failed: a working-set QP from the path's own answer at the k-th λ, else
    cvxopt on the whole problem; the path restarts from that answer."""
    try:
        near = run.path.solution_at(run.s_req[run.k], run.lam)
    except Exception:                                             # noqa: BLE001
        n = len(run.y)
        near = DualSolution(float(run.lam), np.full(n, np.nan), np.nan, np.full(n, np.nan),
                            "path", 0, np.inf)
    ref = _working_set(run, near)
    if ref is not None:
        _restart_from(run, ref, reason + "; repaired by a working-set QP", "working_set")
    else:
        ref = _cvxopt_reference(run)
        if ref is None:
            raise PathError(f"path failed ({reason}) and cvxopt failed at lambda={run.lam:g}")
        _restart_from(run, ref, reason, "cvxopt")
    run.k += 1


def _answer_rest_as_is(run, reason):
    """Without fallback: the path's own answers (with their residuals) for the remaining λ."""
    n, P = len(run.y), run.path
    for kk in range(run.k, run.s_req.size):
        lam = run.lams[run.order[kk]]
        try:
            sol = P.solution_at(run.s_req[kk], lam)
        except Exception:                                         # noqa: BLE001
            sol = DualSolution(float(lam), np.full(n, np.nan), np.nan, np.full(n, np.nan),
                               "path", P.n_events)
        sol.info.update(fallback=False, error=reason)
        run.out[run.order[kk]] = sol
