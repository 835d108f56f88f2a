"""The path's common events, compiled (numba): one elbow point entering or leaving at a time.

``path._solve_path`` follows the path event by event. Most events are simple: the segment's
direction A⁻¹[0; y_E] passes its residual check; one point, and only one, meets its event first;
and no requested λ lies on the segment. For those, ``run_events`` does in one compiled loop what
``_next_event`` and ``_cross_event`` do in numpy (the same formulas on the same arrays of
``_Path``), without Python's overhead per event: the pass over the elbow's kernel rows for dh,
the direction's residual check (from dh, whose elbow entries are A's rows times x: no pass over
A unless the check fails), the steps to each point's event, the move, and the
bordering or downdating of A⁻¹ (``ExplicitInverse``), of the tracked direction and of the parked
points' bounds. An entering point whose Schur pivot is below 1e-6·max K_ii is looked at again as
``try_add`` does (``_careful_pivot``: A⁻¹u refined against A) and bordered in, or parked when it
is within ``dep_level`` of the elbow's affine hull (n = 2000, log2 σ ≥ 0: about 800 such events
a column, each a round trip to the numpy code before). Where that refinement misses, an elbow
below ``REBUILT_BELOW`` points has its inverse rebuilt, the pivot looked at again from it, and
the inverse rebuilt once more with the point in it, as ``try_add``'s LU solve and refactor do
(n = 2000, the paper grid: 340 of its 371 such round trips to the numpy code gone, 0.97 of the
time, 8 alternated pairs). An entering point with a pivot below
1e-2·max K_ii on an elbow of 128–499 points, or below 1e-3·max K_ii on a larger one, has A⁻¹u
refined once against A before it is bordered in (``_refined_w``, ``_refines_w``), which the
numpy code does not do. Another
difference: a tracked direction that misses the check is refined from itself (x += A⁻¹ r, up
to three times; the first step's r read off dh, the others' from A) before it is solved afresh
as ``solve_elbow`` does; the numpy code solves afresh at once. Where that misses too, an elbow
below ``REBUILT_BELOW`` points has its inverse rebuilt in the loop (``_rebuilt``: what the numpy
code's ``solve_elbow`` does next, without a round trip to it; n = 2000, σ ≥ 2^-1, 300–500 such
hand-backs a column before). After a miss, the next direction
is checked on A first (``_checked_on_A``: |E|² numbers instead of the |E|·n of a pass
for dh), and dh computed once it passes: misses come in runs (n = 2000: 46 % of the events at
σ = 2^-2, 70–80 % from σ = 2^-1.5 to 2^0.5), and each used to cost a second pass for dh.

The work is bound by memory traffic: at |E| = 1000, n = 2000 an event reads the elbow's kernel
rows (16 MB) and A⁻¹ (8 MB), more than stays in a 32 MB cache between events. So A⁻¹'s rank-one
changes are held back (A⁻¹ = B + Σ_k PL_k PR_k', at most ``PENDING``) and written into B row by
row, each entry getting the same products in the same order as an update at every event would
give it: an event reads B once instead of reading it, then reading and writing it again
(n = 2000, log2 σ = −3 … −2: 8 % less time with the first refinement step from dh).

Anything else ends the loop *before* that event, with the state untouched for it (``BAIL``): the
numpy code then takes the event (a requested λ on the segment, a direction that fails its check
from a rebuilt inverse or on an elbow too large to rebuild in the loop,
ties and zero-length steps, a small pivot that refinement against A cannot settle on a large
elbow, the last elbow point leaving). A
leave after which parked points are offered back to the elbow ends the loop *after* the event's
own updates (``UNPARK``): the caller offers them (``path._unpark``). Every ``exact_every``
events the loop recomputes α_E, α_0 and h from the elbow system itself (``_exact_state``, as
``_Path.exact_state`` does from the owner's reference product) and goes on; where that needs the
numpy code (a new reference product, a solve that refinement does not settle), or the inverse
is due for a rebuild, the loop ends after the event and the owner does it. Its budget ends at
the next cancel check (``cancel.CHECK_EVERY`` events), so cancel checks and the event cap keep
their places. (Recomputed in the loop, the state costs the passes it needs and no round trip:
n = 2000, the paper grid in one process, 0.97 of the time in 4 pairs run side by side, one per
core (0.91 in 3 pairs run one after the other, where the machine's drift is larger); the
largest KKT residual 2.06e-6 against 3.74e-6, ``bench/scale_history.md``.)

The arithmetic is that of the numpy code, but sums run in another order than BLAS's: the path's
answers (recomputed from the partition at each requested λ) agree to rounding.

The helpers are plain ``@njit`` functions, called, not inlined by numba (``inline="always"``
retyped each helper at every call: a new installation's first path compiled for 112 s on two
Zen 3 cores, 58 s without, 45–50 s with ``ZERO``). LLVM still inlines them when it links the loop: the answers are
bitwise the same and the paper grid's columns take the same time (``bench/scale_history.md``).
"""
from __future__ import annotations

import numpy as np
from numba import njit

RAN = 0          # the budget of events was used, or the owner's bookkeeping is due
BAIL = 1         # the next event is for the numpy code (nothing of it was done)
UNPARK = 2       # the last event removed an elbow point; parked points are offered back
DUE = 3          # (within the loop) the owner's bookkeeping is due: returned as RAN
EXACT = 4        # (within the loop) the state's recomputation is due (``_exact_state``)

_R, _L, _E, _P = 0, 1, 2, 3      # as path.py
#: 0 typed int64: a literal 0 where a count or an index starts is typed Literal[int](0) at first,
#: and numba then compiles each helper it is passed to twice (for that and for int64)
ZERO = np.int64(0)


@njit
def _symv(M, x, size, out):
    """out[:size] = M[:size, :size]' x[:size] by rows (M symmetric up to rounding), each entry
    summed over the rows in their order: out_i = (((0 + x_0 M_0i) + x_1 M_1i) + …), the terms
    with x_j = 0 left out. Four rows with nonzero x_j are taken together (each out_i held in a
    register across them): the same sums in 0.55–0.82 of the time at |E| = 100–950 (hot in
    cache; at 1,400, where memory bounds it, no faster).
    (Summing the four rows' terms first, as ``_rates`` does, was 25–35 % faster on A and B, but
    a bordered inverse of a nearly singular A (condition 1e11) then came out 500 times further
    from A⁻¹ than the numpy code's: ``test_each_compiled_event_equals_the_numpy_crossing``.)"""
    for i in range(size):
        out[i] = 0.0
    j = 0
    while j < size:
        if j + 3 < size and x[j] != 0.0 and x[j + 1] != 0.0 and x[j + 2] != 0.0 \
                and x[j + 3] != 0.0:
            x0, x1, x2, x3 = x[j], x[j + 1], x[j + 2], x[j + 3]
            r0, r1, r2, r3 = M[j], M[j + 1], M[j + 2], M[j + 3]
            for i in range(size):
                out[i] = (((out[i] + x0 * r0[i]) + x1 * r1[i]) + x2 * r2[i]) + x3 * r3[i]
            j += 4
            continue
        xj = x[j]
        if xj != 0.0:
            for i in range(size):
                out[i] += xj * M[j, i]
        j += 1


PENDING = 8      # rank-one changes of A⁻¹ held back (PL, PR) before they are written into B


@njit
def _bsymv(B, PL, PR, npend, x, size, out):
    """out = A⁻¹ x with A⁻¹ = B + Σ_k PL_k PR_k' (the changes not yet written into B)."""
    _symv(B, x, size, out)
    for k in range(npend):
        t = 0.0
        for i in range(size):
            t += PR[k, i] * x[i]
        for i in range(size):
            out[i] += PL[k, i] * t


@njit
def _flush(B, PL, PR, npend, size):
    """Write the held-back changes into B, row by row (each row once through the cache); every
    entry gets B_ij += PL_ki PR_kj in the order of the changes, as the eager updates did. With
    all ``PENDING`` changes held and no zero among a pair of rows' PL entries, the pair is
    written together (``_flush_pair``): the same sums, with each entry held in a register
    across its eight updates and each PR entry read once for both rows (|E| = 950: 0.41 of the
    time of a row and a change at a time, ``bench/scale_history.md``)."""
    i = ZERO
    while i < size:
        if npend == PENDING == 8 and i + 1 < size and _pair_held(PL, i):
            _flush_pair(B, PL, PR, i, size)
            i += 2
            continue
        for k in range(npend):
            a = PL[k, i]
            if a != 0.0:
                for j in range(size):
                    B[i, j] += a * PR[k, j]
        i += 1
    return 0


@njit
def _pair_held(PL, i):
    """Whether rows i and i + 1 take every held-back change (no zero PL entry: a row bordered
    in after a change holds a zero there and must not be touched by it)."""
    for k in range(PENDING):
        if PL[k, i] == 0.0 or PL[k, i + 1] == 0.0:
            return False
    return True


@njit
def _flush_pair(B, PL, PR, i, size):
    """Rows i and i + 1 of B += Σ_k PL_k PR_k' for the ``PENDING`` (= 8) held-back changes, each
    entry's eight updates in the order of the changes (``_flush``'s sums, written out)."""
    p0, p1, p2, p3, p4, p5, p6, p7 = PR[0], PR[1], PR[2], PR[3], PR[4], PR[5], PR[6], PR[7]
    a0, a1, a2, a3 = PL[0, i], PL[1, i], PL[2, i], PL[3, i]
    a4, a5, a6, a7 = PL[4, i], PL[5, i], PL[6, i], PL[7, i]
    b0, b1, b2, b3 = PL[0, i + 1], PL[1, i + 1], PL[2, i + 1], PL[3, i + 1]
    b4, b5, b6, b7 = PL[4, i + 1], PL[5, i + 1], PL[6, i + 1], PL[7, i + 1]
    r, t = B[i], B[i + 1]
    for j in range(size):
        q0, q1, q2, q3, q4, q5, q6, q7 = p0[j], p1[j], p2[j], p3[j], p4[j], p5[j], p6[j], p7[j]
        r[j] = (((((((r[j] + a0 * q0) + a1 * q1) + a2 * q2) + a3 * q3) + a4 * q4) + a5 * q5)
                + a6 * q6) + a7 * q7
        t[j] = (((((((t[j] + b0 * q0) + b1 * q1) + b2 * q2) + b3 * q3) + b4 * q4) + b5 * q5)
                + b6 * q6) + b7 * q7


@njit
def _residual(A, x, y, E, m, r):
    """r = [0; y_E] − A x; returns max |r|."""
    M = m + 1
    _symv(A, x, M, r)
    r[0] = -r[0]
    worst = abs(r[0])
    for j in range(m):
        r[j + 1] = y[E[j]] - r[j + 1]
        worst = max(worst, abs(r[j + 1]))
    return worst


@njit
def _xmax(x, M):
    out = 0.0
    for j in range(1, M):
        out = max(out, abs(x[j]))
    return out


@njit
def _checked_on_A(A, B, PL, PR, npend, x, y, E, m, kscale, r, d, rtol):
    """The tracked direction's check against A (a pass over A, |E|², instead of the pass over the
    elbow's kernel rows, |E|·n, that reads it off dh): True when x passes; else x takes one
    refinement step, x += A⁻¹r (as ``_refined``'s, with r from A), and False."""
    M = m + 1
    if _residual(A, x, y, E, m, r) <= rtol * (1.0 + kscale * _xmax(x, M)):
        return True
    _bsymv(B, PL, PR, npend, r, M, d)
    for j in range(M):
        x[j] += d[j]
    return False


@njit
def _direction(A, B, PL, PR, npend, x, y, E, m, kscale, r, d, rtol, tries):
    """The segment's direction x = A⁻¹[0; y_E] to the residual bound rtol (1 + max K_ii
    max|x_E|) (``_Path.direction``'s, with rtol 1e-12 or ``DIRECTION_RTOL``): the tracked x,
    refined from itself (checked ``tries`` times, three in all with ``_refined``'s), else
    ``solve_elbow`` without its rescue (``_afresh``). False when that misses."""
    for _ in range(tries):
        if _checked_on_A(A, B, PL, PR, npend, x, y, E, m, kscale, r, d, rtol):
            return True
    return _afresh(A, B, PL, PR, npend, x, y, E, m, kscale, r, d, rtol)


@njit
def _afresh(A, B, PL, PR, npend, x, y, E, m, kscale, r, d, rtol):
    """x = A⁻¹[0; y_E] solved afresh, B[0; y_E] refined against A in up to three steps until its
    residual is at most rtol (1 + max K_ii max|x_E|), as ``solve_elbow`` does; True when it
    then passes that or 1e-13 (1 + …)."""
    M = m + 1
    r[0] = 0.0
    for j in range(m):
        r[j + 1] = y[E[j]]
    _bsymv(B, PL, PR, npend, r, M, x)             # B symmetric up to rounding
    scale = 1.0 + kscale * _xmax(x, M)
    for _ in range(3):
        if _residual(A, x, y, E, m, r) <= rtol * scale:
            return True
        _bsymv(B, PL, PR, npend, r, M, d)
        for j in range(M):
            x[j] += d[j]
    return _residual(A, x, y, E, m, r) <= 1e-13 * scale


#: elbows below this many points have a drifted inverse rebuilt in the loop (``_rebuilt``), as
#: ``elbow.invert_bordered`` inverts them (LAPACK's gesv on the identity, ``np.linalg.inv``);
#: larger ones are handed to the numpy code (getri, Cholesky)
REBUILT_BELOW = 200


@njit
def _rebuilt(A, B, PL, PR, m):
    """B = A⁻¹ afresh, the held-back changes dropped, as ``ExplicitInverse`` makes it for the
    numpy code: LAPACK's gesv on the identity (``np.linalg.inv``'s algorithm; numba calls
    SciPy's LAPACK, so the last bits may differ). False, with B and the changes as they were,
    when A is singular to working precision or the elbow has ``REBUILT_BELOW`` points or more.
    (gesv's X has a small right residual |I − AX|; the loop's products read B by rows, Xᵀr,
    whose right residual is X's left one, as they do from every inverse the numpy code builds.
    Stored as Xᵀ instead, the products were better and the leaves, which read B's column,
    worse: on the ill-conditioned small elbows of σ = 2, n = 200 neither was as good at every
    event as the numpy code's crossing from X.)"""
    M = m + 1
    if m >= REBUILT_BELOW:
        return False
    try:
        inverse = np.linalg.solve(np.ascontiguousarray(A[:M, :M]), np.eye(M))
    except Exception:                                            # noqa: BLE001
        return False
    B[:M, :M] = inverse
    PL[:, :] = 0.0
    PR[:, :] = 0.0
    return True


@njit(cache=True, nogil=True)
def _solved(A, B, PL, PR, npend, Fk, x, y, E, m, kscale, r, d, rtol):
    """The segment's direction: ``_direction`` (the tracked x checked twice more, then
    B[0; y_E] refined), else, where that misses, the inverse rebuilt in the loop (``_rebuilt``)
    and x solved afresh from it (``_afresh``). Returns (whether x passed, the changes
    held back, the changes since the inverse's rebuild). From the rebuilt inverse x is refined
    to 1e-15, as ``solve_elbow`` refines it after its rebuild."""
    if _direction(A, B, PL, PR, npend, x, y, E, m, kscale, r, d, rtol, 2):
        return True, npend, Fk
    if not _rebuilt(A, B, PL, PR, m):
        return False, npend, Fk
    return _afresh(A, B, PL, PR, ZERO, x, y, E, m, kscale, r, d, 1e-15), ZERO, ZERO


@njit
def _refined(B, PL, PR, npend, KE, KP, x, y, E, m, n, kscale, dh, r, d, rtol, blk):
    """The tracked direction's first refinement step, x += A⁻¹r, with r = [0; y_E] − A x read off
    its rates dh (``_rates_residual``), then its new rates and their check: a pass over B and one
    over the elbow's kernel rows (which the rates need anyway), where ``_direction`` also makes
    two passes over A. True when x then passes (dh holds its rates)."""
    M = m + 1
    total = 0.0
    for j in range(m):
        total += x[j + 1]
        r[j + 1] = y[E[j]] - dh[E[j]]
    r[0] = -total
    _bsymv(B, PL, PR, npend, r, M, d)
    for j in range(M):
        x[j] += d[j]
    _rates(KE, KP, x, m, n, dh, E, blk)
    return _rates_residual(x, y, E, m, dh) <= rtol * (1.0 + kscale * _xmax(x, M))


@njit
def _rates(KE, KP, x, m, n, dh, E, blk):
    """dh = x[1:] K_E + x[0] (the margins' rates, one pass over the elbow's kernel rows): over
    each row's runs when the path keeps ``locality.KernelBlocks`` (blk: its order, pos, ptr,
    start, stop and a scratch vector; KP: the rows' runs packed, ``pack_runs``), else four whole
    rows at a time: four streams from memory, and dh read and written a quarter as often
    (n = 2000, |E| = 953: 0.18 ms against 0.24 ms one row at a time; the whole grid 0.95 of
    that, ``bench/scale_history.md``)."""
    order, pos, ptr, start, stop, buf = blk
    if pos.size:
        rates(KP, x, m, E, ptr, start, stop, pos, dh, buf)
        return
    for i in range(n):
        dh[i] = x[0]
    j = 0
    while j + 4 <= m:
        x0, x1, x2, x3 = x[j + 1], x[j + 2], x[j + 3], x[j + 4]
        for i in range(n):
            dh[i] += x0 * KE[j, i] + x1 * KE[j + 1, i] + x2 * KE[j + 2, i] + x3 * KE[j + 3, i]
        j += 4
    for k in range(j, m):
        xk = x[k + 1]
        for i in range(n):
            dh[i] += xk * KE[k, i]


@njit
def _column(blk, p):
    """Point p's column in KE (its position in the blocks' order, or p)."""
    pos = blk[1]
    return pos[p] if pos.size else p


@njit
def _rates_residual(x, y, E, m, dh):
    """max |[0; y_E] − A x| from the rates: A x = [Σ x_E; dh_E] (the rows of A below its first
    are the elbow's kernel rows and a 1, which the pass for dh has just summed): the tracked
    direction's check without a pass over A."""
    total = 0.0
    worst = 0.0
    for j in range(m):
        total += x[j + 1]
        p = E[j]
        worst = max(worst, abs(y[p] - dh[p]))
    return max(worst, abs(total))


@njit
def _first_event(y, upper, alpha, status, h, dh, x, E, m, s, tm, te):
    """``_next_event``'s steps: tm (non-elbow points to the margin), te (elbow α to a bound);
    returns the first step (inf: none before s = 0; nan: a nan among them)."""
    n = y.size
    t_ev = np.inf
    for i in range(n):
        tm[i] = np.inf
        st = status[i]
        if st == _L or st == _R:
            sgn = 1.0 if st == _L else -1.0
            rho = 1.0 - y[i] * dh[i]
            if sgn * rho > 1e-11:
                tm[i] = max(-(y[i] * h[i] - s) / rho, 0.0)
            if tm[i] != tm[i] or rho != rho:
                return np.nan
            if tm[i] < t_ev:
                t_ev = tm[i]
    for j in range(m):
        p = E[j]
        v = -y[p] * x[j + 1]
        vtol = 1e-13 * upper[p] / max(s, 1e-300)
        te[j] = np.inf
        if v < -vtol:
            te[j] = max(alpha[p] / -v, 0.0)
        elif v > vtol:
            te[j] = max((upper[p] - alpha[p]) / v, 0.0)
        if te[j] != te[j] or v != v:
            return np.nan
        if te[j] < t_ev:
            t_ev = te[j]
    if t_ev >= s:
        t_ev = np.inf
    return t_ev


@njit
def _enter_pivot(K, B, PL, PR, npend, KE, p, m, u, w, blk):
    """u = [1; K_Ep], w = A⁻¹u (``ExplicitInverse.prepare_add``); returns the pivot K_pp − u'w."""
    M = m + 1
    u[0] = 1.0
    col = _column(blk, p)
    for j in range(m):
        u[j + 1] = KE[j, col]
    _bsymv(B, PL, PR, npend, u, M, w)
    return _pivot_of(K, p, u, w, M)


@njit
def _pivot_of(K, p, u, w, M):
    """The entering point p's Schur pivot K_pp − u'w (w = A⁻¹u)."""
    c = K[p, p]
    for j in range(M):
        c -= u[j] * w[j]
    return c


@njit
def _w_residual(A, u, w, M, r):
    """r = u − A w; returns max |r|."""
    _symv(A, w, M, r)
    return _subtracted(u, r, M)


@njit
def _subtracted(v, r, M):
    """r = v − r (r holding a product); returns max |r|."""
    worst = 0.0
    for j in range(M):
        r[j] = v[j] - r[j]
        worst = max(worst, abs(r[j]))
    return worst


@njit
def _w_step(B, PL, PR, npend, r, M, w, d):
    """w += A⁻¹r with the held-back inverse (a refinement step of w = A⁻¹u, r its residual)."""
    _bsymv(B, PL, PR, npend, r, M, d)
    for j in range(M):
        w[j] += d[j]


@njit
def _careful_pivot(K, A, B, PL, PR, npend, p, m, u, w, r, d, kscale):
    """``try_add``'s second look at a small pivot: w = A⁻¹u (holding B u) refined against A to
    1e-13 as ``solve_elbow(u, rtol=1e-13, rescue=False)`` does, then the pivot K_pp − u'w. NaN
    when refinement misses or w is not finite (the numpy code then solves by LU)."""
    M = m + 1
    umax, wmax = 0.0, 0.0
    for j in range(M):
        umax = max(umax, abs(u[j]))
    for j in range(1, M):
        wmax = max(wmax, abs(w[j]))
    bound = 1e-13 * (umax + kscale * wmax)
    for step in range(4):
        if _w_residual(A, u, w, M, r) <= bound:
            break
        if step == 3:
            return np.nan
        _w_step(B, PL, PR, npend, r, M, w, d)
    for j in range(M):
        if not np.isfinite(w[j]):
            return np.nan
    return _pivot_of(K, p, u, w, M)


#: an entering point whose Schur pivot c is below ``REFINED_PIVOT``·max K_ii, on an elbow of
#: ``REFINED_FROM`` to ``REFINED_BELOW`` − 1 points, has w = A⁻¹u refined once against A before
#: it is bordered in (``_refined_w``). w enters the inverse's new row and column as w/c and its
#: rank-one change as w w'/c, so its error, amplified by 1/c, is what makes the explicit inverse
#: of an ill-conditioned elbow miss its checks within a few changes and be rebuilt. A step costs
#: a product with A and one with the inverse, 2 |E|² numbers: at n = 2000, σ = 2^-2 … 2^-1
#: (elbows of 150–550 points) the rebuilds fell from 53 / 137 / 304 to 32 / 80 / 180 and the
#: loop's hand-backs by a third, the columns 0.82–0.90 of the time; the whole grid 0.95 / 0.93
#: (seeds 0 / 1). Below 128 points (the wide kernels' small elbows, whose routes at tiny λ any
#: change of rounding moves) w is not refined. From 500 points (where a step for every pivot
#: below 1e-2 read more than the misses it spared: n = 2000, σ = 2^-2.5 1.06 of the time) only a
#: pivot below ``LARGE_REFINED_PIVOT``·max K_ii has it: there the misses grow with the elbow
#: (n = 10,000, σ = 2^-3: a refined direction solved afresh at 1 % of the events of elbows of
#: 2,100 points and half of those of 2,700–2,900, each several passes over A and its inverse,
#: 58 MB apiece), and the smallest pivots are where they start. Side by side there: pivots
#: below 1e-4 refined, 0.875 of the time (460.1 s against 525.8 s); below 1e-3, 0.917 of that
#: (422.1 s). n = 5000, σ = 2^-3 one after another: 1e-4 45.5 s, 1e-3 47.0 s, every pivot below
#: 1e-2 52.0 s, none 47.4–50.4 s (``bench/scale_history.md``)
REFINED_PIVOT = 1e-2
REFINED_FROM = 128
REFINED_BELOW = 500
LARGE_REFINED_PIVOT = 1e-3


@njit
def _refines_w(c, m, kscale):
    """Whether an entering point with Schur pivot c on an elbow of m points has w refined
    (``_refined_w``): c below ``REFINED_PIVOT``·max K_ii from ``REFINED_FROM`` points, below
    ``LARGE_REFINED_PIVOT``·max K_ii from ``REFINED_BELOW``."""
    if m < REFINED_FROM:
        return False
    return c < (REFINED_PIVOT if m < REFINED_BELOW else LARGE_REFINED_PIVOT) * kscale


@njit
def _refined_w(K, A, B, PL, PR, npend, p, m, u, w, r, d):
    """One refinement step of w = A⁻¹u against A (r = u − A w, w += A⁻¹r with the held-back
    inverse); returns the entering point p's pivot K_pp − u'w from the refined w."""
    M = m + 1
    _w_residual(A, u, w, M, r)
    _w_step(B, PL, PR, npend, r, M, w, d)
    return _pivot_of(K, p, u, w, M)


@njit
def _entering(K, A, B, PL, PR, npend, Fk, KE, p, m, u, w, r, d, kscale, blk):
    """``try_add``'s pivot for the entering point p: u = [1; K_Ep], w = A⁻¹u and c = K_pp − u'w
    (``_enter_pivot``); a small c looked at again against A (``_careful_pivot``), and where
    that misses on an elbow below ``REBUILT_BELOW`` points, from the inverse rebuilt
    (``_rebuilt``, as ``try_add``'s LU solve); a c just above it with w refined once
    (``_refined_w``). Returns (c, NaN when the numpy code must take it; the changes held back;
    the changes since the inverse's rebuild; whether it was rebuilt here, so that the caller
    rebuilds it again with the point, as ``try_add``'s refactor)."""
    c = _enter_pivot(K, B, PL, PR, npend, KE, p, m, u, w, blk)
    if c > 1e-6 * kscale:
        if _refines_w(c, m, kscale):
            c = _refined_w(K, A, B, PL, PR, npend, p, m, u, w, r, d)
        return c, npend, Fk, False
    c = _careful_pivot(K, A, B, PL, PR, npend, p, m, u, w, r, d, kscale)
    if c == c or m + 1 >= REBUILT_BELOW or not _rebuilt(A, B, PL, PR, m):
        return c, npend, Fk, False
    _enter_pivot(K, B, PL, PR, ZERO, KE, p, m, u, w, blk)
    c = _careful_pivot(K, A, B, PL, PR, ZERO, p, m, u, w, r, d, kscale)
    return c, ZERO, ZERO, True


@njit
def _enter(K, y, A, B, PL, PR, npend, KE, KP, E, status, x, p, m, u, w, c, blk):
    """Border A⁻¹ (the rank-one change held back in PL, PR), the tracked direction and A with p
    (``try_add``'s clear case, ``_track_add``, ``ExplicitInverse.commit_add``,
    ``_Path._append``). Returns the number of held-back changes."""
    M = m + 1
    ux = 0.0
    for j in range(M):
        ux += u[j] * x[j]
    xi = (y[p] - ux) / c
    for j in range(M):
        x[j] -= xi * w[j]
    x[M] = xi
    for k in range(npend):                       # the new row and column hold no pending change
        PL[k, M] = 0.0
        PR[k, M] = 0.0
    for j in range(M):
        PL[npend, j] = w[j]
        PR[npend, j] = w[j] / c
        B[M, j] = -PR[npend, j]
        B[j, M] = -PR[npend, j]
    PL[npend, M] = 0.0
    PR[npend, M] = 0.0
    B[M, M] = 1.0 / c
    A[M, 0] = 1.0
    A[0, M] = 1.0
    for j in range(m):
        A[M, j + 1] = K[p, E[j]]
        A[j + 1, M] = K[p, E[j]]
    A[M, M] = K[p, p]
    order = blk[0]
    if order.size:
        for j in range(order.size):
            KE[m, j] = K[p, order[j]]
        pack_runs(KE[m], p, blk[2], blk[3], blk[4], KP[m])
    else:
        KE[m, :] = K[p, :]
    E[m] = p
    status[p] = _E
    return npend + 1


@njit
def _leave(A, B, PL, PR, npend, KE, KP, E, status, park_bound, x, j, m, col, blk):
    """Remove elbow position j (the last moves into it): ``ExplicitInverse.remove`` (its
    rank-one change held back in PL, PR), the parked points' bounds (``_raise_park_bounds``),
    ``_track_remove`` and ``_Path.remove``'s moves. Returns the number of held-back changes."""
    M = m + 1
    r, last = j + 1, M - 1
    for i in range(M):
        col[i] = B[i, r]
    for k in range(npend):
        t = PR[k, r]
        for i in range(M):
            col[i] += PL[k, i] * t
    cr = col[r]
    for k in range(M):
        PL[npend, k] = col[k]
        PR[npend, k] = -(col[k] / cr)
    npend += 1
    if r != last:
        for k in range(M):
            B[r, k] = B[last, k]
        for k in range(M):
            B[k, r] = B[k, last]
        B[r, r] = B[last, last]
        for k in range(npend):
            PL[k, r] = PL[k, last]
            PR[k, r] = PR[k, last]
    ok = cr > 0
    for i in range(M):
        ok = ok and np.isfinite(col[i])
    for q in range(status.size):
        if status[q] == _P:
            if not ok:
                park_bound[q] = np.inf
            else:
                g = col[0]
                cq = _column(blk, q)
                for i in range(m):
                    g += col[i + 1] * KE[i, cq]
                park_bound[q] += g * g / cr
    xr = x[r] / cr
    for i in range(M):
        x[i] = x[i] - col[i] * xr
    x[r] = x[last]
    if j != m - 1:
        for k in range(M):
            A[r, k] = A[last, k]
        for k in range(M):
            A[k, r] = A[k, last]
        A[r, r] = A[last, last]
        KE[j, :] = KE[m - 1, :]
        KP[j, :] = KP[m - 1, :]
        E[j] = E[m - 1]
    return npend


@njit
def _settle_parked(alpha, status, park_bound, upper, s, dep_level, bound_rtol):
    """``_unpark`` when no parked point is offered back: parked points at a bound join that set.
    Returns False (nothing changed) when some parked point is offered."""
    for q in range(status.size):
        if status[q] == _P and park_bound[q] > dep_level:
            return False
    for q in range(status.size):
        if status[q] == _P:
            a = alpha[q]
            if a <= bound_rtol * min(1.0, s) * upper[q]:
                alpha[q] = 0.0
                status[q] = _R
            elif a >= (1 - bound_rtol) * upper[q]:
                alpha[q] = upper[q]
                status[q] = _L
    return True


@njit
def _single_event(tm, te, n, m, tol_t):
    """The one point whose event is within tol_t: (margin point, −1) or (−1, elbow position);
    (−1, −1) when there are several (a tie: ``_update_sets`` takes them together)."""
    first, leave, count = -1, -1, 0
    for i in range(n):
        if tm[i] <= tol_t:
            first, count = i, count + 1
    for j in range(m):
        if te[j] <= tol_t:
            leave, count = j, count + 1
    if count != 1:
        return -1, -1
    return first, leave


@njit
def _move(y, alpha, h, dh, x, E, m, t):
    """``_move_to_event``: α_E and h are affine in s on the segment; step them by t."""
    for j in range(m):
        p = E[j]
        alpha[p] = alpha[p] + t * (-y[p] * x[j + 1])
    for i in range(y.size):
        h[i] = h[i] - t * dh[i]


@njit
def _exact_state(K, y, alpha, status, h, KE, KP, A, B, E, m, s, kscale, ref, blk):
    """``_Path.exact_state`` in the loop: α_E and α_0 solved from the elbow system at s (the
    right-hand side over the elbow rows' runs, ``elbow_rhs(runs=True)``; A⁻¹ = B with no change
    held back, refined against A as ``solve_elbow`` refines, to 1e-15 and accepted at 1e-13) and
    h = K β + α_0 as ``_h_of`` corrects the owner's reference product (ref: h_ref, β_ref and
    [α_0 of it, its s]). Returns (True, α_0) with α_E and h updated in place, or (False, 0.0)
    with nothing changed where the numpy code must do it: no reference (its s is NaN), s below
    half its s, more than n/8 points outside the elbow changed since it (a new product), or a
    solve that refinement does not settle (its rescue rebuilds the inverse)."""
    h_ref, b_ref, at = ref
    n, M = y.size, m + 1
    if not s >= 0.5 * at[1]:
        return False, 0.0
    d = np.zeros(n)                         # β − β_ref outside the elbow
    outside, changed = 0.0, 0
    for i in range(n):
        if status[i] != _E:
            beta = y[i] * alpha[i]
            outside += beta
            d[i] = beta - b_ref[i]
            changed += d[i] != 0.0
    if changed > n // 8:
        return False, 0.0
    rhs, x, r, step = np.empty(M), np.empty(M), np.empty(M), np.empty(M)
    products = _elbow_products(y, alpha, status, KE, KP, E, m, blk)
    rhs[0] = -outside
    for j in range(m):
        rhs[j + 1] = s * y[E[j]] - products[j]
    _gemv(B, rhs, M, x)
    scale = 0.0
    for j in range(M):
        scale = max(scale, abs(rhs[j]))
    scale += kscale * _xmax(x, M)
    for _ in range(3):
        if _rhs_residual(A, x, rhs, M, r) <= 1e-15 * scale:
            break
        _gemv(B, r, M, step)
        for j in range(M):
            x[j] += step[j]
    if _rhs_residual(A, x, rhs, M, r) > 1e-13 * scale:
        return False, 0.0
    _h_corrected(K, y, h, h_ref, b_ref, at[0], d, x, E, m, KE, KP, blk)
    for j in range(m):
        alpha[E[j]] = y[E[j]] * x[j + 1]
    return True, x[0]


@njit
def _elbow_products(y, alpha, status, KE, KP, E, m, blk):
    """K_{E,·} β_{∉E} for the elbow's rows (``elbow_rhs``'s products): over their runs
    (``row_products``) with blocks, else over whole rows."""
    n = y.size
    order = blk[0]
    out = np.zeros(m)
    bF = np.empty(n)
    for i in range(n):
        bF[i] = 0.0 if status[i] == _E else y[i] * alpha[i]
    if order.size:
        v = np.empty(n)
        for j in range(n):
            v[j] = bF[order[j]]
        row_products(KP, v, m, E, blk[2], blk[3], blk[4], out)
        return out
    _gemv_rows(KE, bF, m, n, out)
    return out


@njit(fastmath={"reassoc"})
def _gemv_rows(M_, x, rows, cols, out):
    """out[:rows] = M_[:rows, :cols] x, as ``_gemv``."""
    for i in range(rows):
        row = M_[i]
        total = 0.0
        for j in range(cols):
            total += row[j] * x[j]
        out[i] = total


@njit
def _gemv(M_, x, size, out):
    """out = M_[:size, :size] x, each entry a dot product of a row (as ``ExplicitInverse.apply``
    and ``A @ x`` compute it), summed in an order of the compiler's choosing (vectorized, as
    BLAS's are)."""
    _gemv_rows(M_, x, size, size, out)


@njit
def _rhs_residual(A, x, rhs, M, r):
    """r = rhs − A x; returns max |r|."""
    _gemv(A, x, M, r)
    return _subtracted(rhs, r, M)


@njit
def _h_corrected(K, y, h, h_ref, b_ref, a0_ref, d, x, E, m, KE, KP, blk):
    """h = h_ref + (the elbow's change of β and α_0 through its kernel rows, ``_rates``) + (the
    other changed β through their rows of K), as ``_Path._h_of``'s correction."""
    n = y.size
    c = np.empty(m + 1)
    c[0] = x[0] - a0_ref
    for j in range(m):
        c[j + 1] = x[j + 1] - b_ref[E[j]]
    dh = np.empty(n)
    _rates(KE, KP, c, m, n, dh, E, blk)
    other = np.zeros(n)
    for q in range(n):
        dq = d[q]
        if dq != 0.0:
            row = K[q]
            for i in range(n):
                other[i] += dq * row[i]
    for i in range(n):
        h[i] = (h_ref[i] + dh[i]) + other[i]


@njit
def _exact_every(m, every):
    """Events between two recomputations of the state (``_Path.exact_every``; every: small
    elbows', large elbows', the size from which an elbow is large)."""
    return every[1] if m >= every[2] else every[0]


@njit(cache=True, nogil=True)
def run_events(K, y, upper, alpha, status, h, park_bound, KE, KP, A, B, E, x, s, alpha0, m,
               Fk, kscale, dep_level, bound_rtol, s_next, m_max, budget, every,
               total_events, large_from, large_rtol, blk, ref):
    """Cross up to ``budget`` simple events (module docstring) from the state (s, α_0, the
    elbow's first m points, A⁻¹ = B with Fk changes since its rebuild, the tracked direction
    x), while the elbow holds fewer than ``m_max`` points. The direction is accepted at a
    residual of 1e-12 (1 + max K_ii max|x|), ``large_rtol`` instead of 1e-12 from
    ``large_from`` elbow points (``_Path.DIRECTION_RTOL``, as the numpy code's large elbows).
    Every ``_exact_every(m, every)`` events the state is recomputed (``_exact_state``, from the
    owner's reference product ``ref``) and the loop goes on; where that is for the numpy code,
    or due after the last event of the budget, or the inverse is due for a rebuild, the loop
    ends (code RAN) and the owner does it.
    Arrays are updated in place (x must have room for m + budget + 1 entries, the others for
    m + budget elbow points); returns (code, events crossed, s, α_0, m, Fk, recomputations of
    the state here, events after which it was last recomputed here or −1).

    The inverse's rank-one changes are held back (PL, PR: A⁻¹ = B + Σ_k PL_k PR_k') and
    written into B every ``PENDING`` changes and before returning: each event then reads B
    once (A⁻¹u for an entering point) instead of reading it and writing it back."""
    PL, PR = np.zeros((PENDING, x.size)), np.zeros((PENDING, x.size))
    code, events, npend, exacts, exact_at = RAN, 0, ZERO, 0, -1
    while events < budget and code == RAN:
        code, done, s, alpha0, m, Fk, npend = _cross(
            K, y, upper, alpha, status, h, park_bound, KE, KP, A, B, PL, PR, E, x, s, alpha0, m,
            Fk, kscale, dep_level, bound_rtol, s_next, m_max, budget - events, every,
            total_events + events, large_from, large_rtol, blk)
        events += done
        npend = _flush(B, PL, PR, npend, m + 1)
        if code == EXACT and events < budget:
            ok, a0 = _exact_state(K, y, alpha, status, h, KE, KP, A, B, E, m, s, kscale, ref,
                                  blk)
            if ok:
                code, alpha0, exacts, exact_at = RAN, a0, exacts + 1, events
        if code == DUE or code == EXACT:
            return RAN, events, s, alpha0, m, Fk, exacts, exact_at
    return code, events, s, alpha0, m, Fk, exacts, exact_at


@njit(cache=True, nogil=True)
def _cross(K, y, upper, alpha, status, h, park_bound, KE, KP, A, B, PL, PR, E, x, s, alpha0, m,
           Fk, kscale, dep_level, bound_rtol, s_next, m_max, budget, every,
           total_events, large_from, large_rtol, blk):
    """``run_events``'s loop, until ``PENDING`` changes of the inverse are held back (code RAN, with
    events to go), the inverse's rebuild is due (DUE), the state's recomputation is due (EXACT),
    or BAIL / UNPARK; returns (code, events crossed, s, α_0, m, Fk, changes held back)."""
    n = y.size
    dh, tm = np.empty(n), np.empty(n)
    te, r, u, w = np.empty(x.size), np.empty(x.size), np.empty(x.size), np.empty(x.size)
    d = np.empty(x.size)
    npend, parked, missed = ZERO, False, False
    for events in range(budget):
        if m >= m_max:
            return BAIL, events, s, alpha0, m, Fk, npend
        rtol = 1e-12 if m < large_from else large_rtol
        if parked:                                  # a parked point left x and dh as they were
            parked = False
        elif missed:                                # so did the last direction: check it on A
            missed = not _checked_on_A(A, B, PL, PR, npend, x, y, E, m, kscale, r, u, rtol)
            if missed:
                ok, npend, Fk = _solved(A, B, PL, PR, npend, Fk, x, y, E, m, kscale, r, u, rtol)
                if not ok:
                    return BAIL, events, s, alpha0, m, Fk, npend
            _rates(KE, KP, x, m, n, dh, E, blk)
        else:
            _rates(KE, KP, x, m, n, dh, E, blk)
            if _rates_residual(x, y, E, m, dh) > rtol * (1.0 + kscale * _xmax(x, m + 1)):
                missed = True
                if not _refined(B, PL, PR, npend, KE, KP, x, y, E, m, n, kscale, dh, r, u, rtol,
                                blk):
                    ok, npend, Fk = _solved(A, B, PL, PR, npend, Fk, x, y, E, m, kscale, r, u, rtol)
                    if not ok:
                        return BAIL, events, s, alpha0, m, Fk, npend
                    _rates(KE, KP, x, m, n, dh, E, blk)
        t = _first_event(y, upper, alpha, status, h, dh, x, E, m, s, tm, te)
        if not t > 1e-14 * s or s - s_next <= t:   # nan, a zero step, a requested λ, none
            return BAIL, events, s, alpha0, m, Fk, npend
        first, leave = _single_event(tm, te, n, m, t + 1e-12 * s)
        if (first < 0 and leave < 0) or (leave >= 0 and m == 1):
            return BAIL, events, s, alpha0, m, Fk, npend
        c, fresh = 0.0, False
        if first >= 0:                              # ``try_add``
            c, npend, Fk, fresh = _entering(K, A, B, PL, PR, npend, Fk, KE, first, m, u, w, r,
                                            d, kscale, blk)
            if c != c:
                return BAIL, events, s, alpha0, m, Fk, npend
        _move(y, alpha, h, dh, x, E, m, t)
        alpha0, s = alpha0 - t * x[0], s - t
        code = RAN
        if first >= 0 and not c > dep_level:        # dependent on the elbow: parked
            status[first], park_bound[first] = _P, dep_level
            parked = True
        elif first >= 0:
            npend = _enter(K, y, A, B, PL, PR, npend, KE, KP, E, status, x, first, m, u, w, c,
                           blk)
            m += 1
        else:
            p = E[leave]
            if -y[p] * x[leave + 1] > 0:
                alpha[p], status[p] = upper[p], _L
            else:
                alpha[p], status[p] = 0.0, _R
            npend = _leave(A, B, PL, PR, npend, KE, KP, E, status, park_bound, x, leave, m, u,
                           blk)
            m -= 1
            if not _settle_parked(alpha, status, park_bound, upper, s, dep_level, bound_rtol):
                code = UNPARK
        Fk += 0 if parked else 1
        if fresh and not parked and _rebuilt(A, B, PL, PR, m):
            npend, Fk = ZERO, ZERO                  # the inverse with the point, afresh
        total_events += 1
        if code == UNPARK:
            return code, events + 1, s, alpha0, m, Fk, npend
        if Fk >= max(64, m + 1):
            return DUE, events + 1, s, alpha0, m, Fk, npend
        if total_events % _exact_every(m, every) == 0:
            return EXACT, events + 1, s, alpha0, m, Fk, npend
        if npend == PENDING:
            return RAN, events + 1, s, alpha0, m, Fk, npend
    return RAN, budget, s, alpha0, m, Fk, npend


# ---------------------------------------------------------------- answers (path.py)
@njit(cache=True, nogil=True)
def support_products(K, c, S, f, M):
    """f = K c and M = |K| |c| for symmetric K, from the rows of K in S (the points with c ≠ 0):
    the decision values and the rounding floor's sums (``_common.rounding_floor``) of an answer
    in one pass over its support's rows, where BLAS makes two over all of K. Rows are taken four
    at a time and summed in blocks of ``SUPPORT_BLOCK`` before they are added to f and M: at tiny
    λ the terms of f cancel to 1e-7 of their size, and one running sum over all rows rounded
    the paper grid's answers (n = 2000) to KKT residuals 2–4 times BLAS's. n = 2000, one
    thread: 0.4 ms with half the points in S, 1.3 ms with all, against 2.15 ms for ``K @ c`` and
    ``K @ |c|``; n = 10,000: 18 / 35 ms against 74 ms."""
    n = f.size
    tf, tM = np.empty(n), np.empty(n)
    for i in range(n):
        f[i] = 0.0
        M[i] = 0.0
    for first in range(0, S.size, SUPPORT_BLOCK):
        last = min(first + SUPPORT_BLOCK, S.size)
        for i in range(n):
            tf[i] = 0.0
            tM[i] = 0.0
        q = first
        while q + 4 <= last:
            j0, j1, j2, j3 = S[q], S[q + 1], S[q + 2], S[q + 3]
            c0, c1, c2, c3 = c[j0], c[j1], c[j2], c[j3]
            a0, a1, a2, a3 = abs(c0), abs(c1), abs(c2), abs(c3)
            r0, r1, r2, r3 = K[j0], K[j1], K[j2], K[j3]
            for i in range(n):
                k0, k1, k2, k3 = r0[i], r1[i], r2[i], r3[i]
                tf[i] += (c0 * k0 + c1 * k1) + (c2 * k2 + c3 * k3)
                tM[i] += (a0 * abs(k0) + a1 * abs(k1)) + (a2 * abs(k2) + a3 * abs(k3))
            q += 4
        for p in range(q, last):
            j = S[p]
            cj, aj, row = c[j], abs(c[j]), K[j]
            for i in range(n):
                tf[i] += cj * row[i]
                tM[i] += aj * abs(row[i])
        for i in range(n):
            f[i] += tf[i]
            M[i] += tM[i]


#: rows summed apart before they join ``support_products``' totals
SUPPORT_BLOCK = 32


# ---------------------------------------------------------------- the numpy code's inverse (elbow.py)
@njit(cache=True, nogil=True)
def rank_one_update(B, u, v, M):
    """B[:M, :M] += u v' in place: the compiled loop's ``_flush`` with one held-back change, as
    an entry point cached for Python (``elbow.ExplicitInverse`` from
    ``elbow.RANK_ONE_COMPILED_FROM`` points). Each entry B_ij + u_i v_j is rounded as numpy's
    ``B[:M, :M] += np.outer(u, v)`` rounds it (no fused multiply-add: numba leaves fastmath off;
    a row with u_i = 0 is left as it is, which for finite v is the same), in one pass over the
    block instead of numpy's temporary |E|² array and the second pass that adds it."""
    _flush(B, u.reshape((1, u.size)), v.reshape((1, v.size)), 1, M)


# ---------------------------------------------------------------- locality (locality.py)
@njit(cache=True, nogil=True)
def kept_runs(K, chunk_of, n_chunks, chunk, tau, n):
    """``locality.KernelBlocks.from_gram``: each point's chunks (of ``chunk`` consecutive
    positions) that hold an entry of its kernel row above tau in absolute value (one pass over
    K), merged into runs of consecutive columns: (ptr, start, stop)."""
    keep = np.zeros(n_chunks, np.bool_)
    ptr = np.zeros(n + 1, np.int64)
    start = np.empty(16 * n, np.int64)
    stop = np.empty(16 * n, np.int64)
    q = 0
    for i in range(n):
        keep[:] = False
        for j in range(n):
            if abs(K[i, j]) > tau:
                keep[chunk_of[j]] = True
        b = 0
        while b < n_chunks:
            if keep[b]:
                e = b
                while e + 1 < n_chunks and keep[e + 1]:
                    e += 1
                if q == start.size:
                    start = np.concatenate((start, np.empty(start.size, np.int64)))
                    stop = np.concatenate((stop, np.empty(stop.size, np.int64)))
                start[q], stop[q] = b * chunk, min((e + 1) * chunk, n)
                q += 1
                b = e + 1
            else:
                b += 1
        ptr[i + 1] = q
    return ptr, start[:q].copy(), stop[:q].copy()


@njit(cache=True, nogil=True)
def rates(KP, x, m, E, ptr, start, stop, pos, out, buf):
    """out = x[1:] K_E + x[0] in the points' own order, from the elbow's kernel rows read over
    each row's runs only: KP's row k holds the runs of point E[k]'s row (columns in the blocks'
    order, ``locality.KernelBlocks``) one after another (``pack_runs``); buf (n) is scratch.
    Each run is one slice of the packed row and of buf, so numba vectorizes it (indexed one
    entry at a time, 3.2 ms against 0.8 ms for n = 5000, |E| = 1,900, σ = 2^-3), and a row's
    runs are one stream from memory: the same sums as over the runs of the whole rows, in
    0.55–0.72 of the time (n = 5000, |E| = 1,900, σ = 2^-3: 0.67–0.74 ms against 1.15–1.22 ms;
    n = 10,000, |E| = 2,450: 3.1 ms against 4.4 ms; ``bench/scale_history.md``)."""
    n = out.size
    for i in range(n):
        buf[i] = x[0]
    for k in range(m):
        xk = x[k + 1]
        row = KP[k]
        p = E[k]
        o = 0
        for q in range(ptr[p], ptr[p + 1]):
            a, b = start[q], stop[q]
            seg = buf[a:b]
            ks = row[o:o + b - a]
            for j in range(b - a):
                seg[j] += xk * ks[j]
            o += b - a
    for i in range(n):
        out[i] = buf[pos[i]]


@njit(cache=True, nogil=True, fastmath={"reassoc"})
def row_products(KP, v, m, E, ptr, start, stop, out):
    """out[k] = K[E[k], :] v for the elbow's rows, over their runs only (v in the blocks' order):
    ``rates``' pass the other way round, for the elbow system's right-hand side
    (``_Path.elbow_rhs``). Each run's products are summed in an order of the compiler's choosing
    (``reassoc``: vectorized, as BLAS's dot products are)."""
    for k in range(m):
        row = KP[k]
        p = E[k]
        o = 0
        total = 0.0
        for q in range(ptr[p], ptr[p + 1]):
            a, b = start[q], stop[q]
            seg = v[a:b]
            ks = row[o:o + b - a]
            part = 0.0
            for j in range(b - a):
                part += ks[j] * seg[j]
            total += part
            o += b - a
        out[k] = total


@njit(cache=True, nogil=True)
def pack_runs(row, p, ptr, start, stop, out):
    """out[:row_len[p]] = point p's runs of its kernel row (``row``, in the blocks' order), one
    after another: the packed row that ``rates`` reads."""
    o = 0
    for q in range(ptr[p], ptr[p + 1]):
        a, b = start[q], stop[q]
        out[o:o + b - a] = row[a:b]
        o += b - a
