"""The path's compiled loop (``solvers/_events.py``, used from ``COMPILED_FROM_N`` points) against
the numpy code it stands in for, which is the reference: each event it crosses, from the same
state, equals the numpy code's crossing of that event; whole columns give the same answers. (The
paper grid with the loop on against the stored tables: ``test_refactor_identity.py``.)"""
from __future__ import annotations

import copy

import numpy as np
import pytest

import svmcore.families.svm.solvers.path as P
from svmcore.datasets.simulations import make_wahba2d
from svmcore.families.svm.solvers._common import kkt_residual, rounding_floor
from svmcore.kernels import gaussian_gram
from svmcore.weights import class_weights_from_costs
from test_path import _objective  # (1/n) Σ L(y_i)(1 − y_i f_i)_+ + λ c'Kc, independent of svmcore

LOG2_NLAM = np.arange(-25.0, 0.01, 1.0)


def _inputs(n, duplicates=0, offset=0.0):
    """wahba2d's X, y; ``duplicates`` of its first points repeated at the end (their kernel rows
    equal: the path parks them while their twin is in the elbow), moved by ``offset`` in x_1
    (nearly equal rows: they meet the margin apart, each nearly dependent on the elbow that holds
    its twin)."""
    d = make_wahba2d(n - duplicates, 0)
    twins = d.X[:duplicates] + np.array([offset, 0.0])
    return np.vstack([d.X, twins]), np.r_[d.y, d.y[:duplicates]]


def _column(n, log2_sigma, cost_b=1.0, duplicates=0, offset=0.0):
    """wahba2d's kernel column (``_inputs``), its upper bounds and the paper's λ."""
    X, y = _inputs(n, duplicates, offset)
    upper = class_weights_from_costs(y, 1.0, cost_b).upper_bounds(y)
    return gaussian_gram(X, sigma=2.0 ** log2_sigma), y, upper, 2.0 ** LOG2_NLAM / n


def _clone(path):
    """A copy of the path's state that shares only K (``_Path``'s arrays are changed in place)."""
    other = copy.copy(path)
    for name in ("alpha", "status", "h", "park_bound", "KE", "KP", "A", "_Ebuf", "_dx"):
        setattr(other, name, getattr(path, name).copy())
    other.E = other._Ebuf[:path.m]
    other.F = copy.deepcopy(path.F)
    return other


def _bordered(K, E):
    """The bordered elbow matrix [[0, 1'], [1, K_EE]] of the points E."""
    M = len(E) + 1
    A = np.zeros((M, M))
    A[0, 1:] = A[1:, 0] = 1.0
    A[1:, 1:] = K[np.ix_(E, E)]
    return A


def _twin_classes(K, y):
    """Each point's class of exact twins (equal kernel rows and labels), numbered."""
    return np.unique(np.c_[K, y], axis=0, return_inverse=True)[1].ravel()


def _same_state(a, b, s_before, rate=1.0, seg=None, old_E=None, inverse_within=100.0,
                twin=None):
    """Two states after the same event from s_before: the same partition, s, α and h to
    rounding, and an inverse of A as good as the numpy code's. Both codes accept the segment's
    direction x at a residual of 1e-12 (1 + max K_ii max|x|), so x, and the step t ≤ s_before
    to the event, are known to a relative 1e-12 times the condition number of A (estimated in
    the ∞-norm from A and the numpy code's inverse), divided by the entering point's rate
    towards the margin when that is below 1 (``rate``: t = gap / rate; a point nearly dependent
    on the elbow moves with it, at rates down to 1e-5 here). α, α_0 and h are compared at the
    numpy code's s: the loop's are moved there along the numpy code's segment ``seg`` (elbow
    ``old_E`` before the event), on which they are affine in s. ``twin``: ``_twin_classes`` of
    the states' K and y, when the caller has them."""
    np.testing.assert_array_equal(a.status, b.status)
    np.testing.assert_array_equal(np.sort(a.E), np.sort(b.E))
    cond = _cond(b) if b.m else 1.0
    assert abs(a.s - b.s) <= 4e-12 * max(cond, 1.0) * s_before / min(rate, 1.0)
    h, alpha, alpha0 = _moved_to(a, b.s, seg, old_E)
    h_tol = 1e-7 * max(1.0, np.abs(b.h).max())
    np.testing.assert_allclose(h, b.h, rtol=0, atol=h_tol)
    parked = b.status == P._P
    np.testing.assert_allclose(a.park_bound[parked], b.park_bound[parked], rtol=1e-6)
    # α: equal off the elbow; on it, determined only up to the near-null space of the bordered
    # elbow matrix (module docstring of path.py), so the difference must be invisible in the
    # margins h = K D_y α + α_0 and in the balance y'α, and small
    d_alpha = alpha - b.alpha
    off = a.status != P._E
    np.testing.assert_allclose(d_alpha[off], 0.0, rtol=0, atol=1e-12 * a.upper.max())
    np.testing.assert_allclose(a.K @ (a.y * d_alpha) + (alpha0 - b.alpha0), 0.0, rtol=0,
                               atol=h_tol)
    assert abs(a.y @ d_alpha) <= 1e-9 * a.upper.sum()
    # exact twins (equal kernel rows and labels) share α only through its sum: which of them
    # the elbow holds and which is parked is decided by rounding
    twin = _twin_classes(a.K, a.y) if twin is None else twin
    np.testing.assert_allclose(np.bincount(twin, alpha), np.bincount(twin, b.alpha), rtol=0,
                               atol=1e-5 * a.upper.max())
    # A⁻¹: of a nearly singular A (entries up to 1e6 at σ = 2), so compared by how well each
    # inverts its own A, not entry by entry (there they differ by the condition number times the
    # rounding of the products that update them, summed in another order)
    M = a.m + 1
    miss_a = np.abs(a.A[:M, :M] @ a.F.B[:M, :M] - np.eye(M)).max()
    miss_b = np.abs(b.A[:M, :M] @ b.F.B[:M, :M] - np.eye(M)).max()
    # (within ``inverse_within`` of the numpy code's residual, or both small enough that a
    # refinement step against A gains three digits, which is what the loop's directions need of
    # it; the caller holds the median ratio over its walk: one event's ratio is rounding's
    # luck, amplified by the condition number: 6–26× at worst per column, median 1.0–1.04, on
    # OpenBLAS's Haswell kernels and a Zen 3 core, 14× on its SkylakeX ones)
    assert miss_a <= max(inverse_within * miss_b, 1e-9) or max(miss_a, miss_b) <= 1e-3, \
        (miss_a, miss_b)
    return miss_a, miss_b


def _moved_to(a, s, seg, old_E):
    """State a's h, α and α_0 after a point entered (or was parked), moved along the segment
    ``seg`` (d/ds: dh, da0, and −v on the elbow ``old_E``) from a.s to s. After a leave they are
    returned as they are: the leaving α was set to its bound at a's own s."""
    h, alpha, alpha0 = a.h.copy(), a.alpha.copy(), a.alpha0
    if seg is None or seg.empty or np.any(a.status[old_E] != P._E):
        return h, alpha, alpha0
    ds = s - a.s
    alpha[old_E] -= ds * seg.v
    return h + ds * seg.dh, alpha, alpha0 + ds * seg.da0


@pytest.mark.parametrize("log2_sigma,cost_b,duplicates,offset,blocks",
                         [(-1.0, 1.0, 0, 0.0, False), (1.0, 1.0, 0, 0.0, False),
                          (2.5, 4.5, 0, 0.0, False), (1.0, 4.5, 20, 0.0, False),
                          (0.0, 4.5, 20, 0.0, False), (0.0, 4.5, 20, 1e-6, False),
                          (1.0, 1.0, 20, 1e-4, False), (-3.0, 1.0, 0, 0.0, True),
                          (-3.0, 4.5, 20, 1e-7, True)])
def test_each_compiled_event_equals_the_numpy_crossing(monkeypatch, log2_sigma, cost_b,
                                                       duplicates, offset, blocks):
    """Follow a column with the numpy code. Before each of its events, hand a copy of the state
    to the compiled loop for one event: when it takes the event, the resulting state must be the
    numpy code's (the same partition; s, α, h and A⁻¹ to rounding: α of exact twins through its
    sum, and A⁻¹ within 100× of the numpy code's |A B − I| at each event and 1.5× at the
    median over the column). σ = 2^2.5 has a nearly
    singular elbow matrix; C_B = 4.5 unequal upper bounds; 20 repeated points are parked (their
    bounds move on every leave). Twins 1e-6 or 1e-4 apart meet the margin one at a time, each
    with a small pivot (below 1e-6·max K_ii) once its twin is in the elbow: the loop recomputes
    it against A (``_events._careful_pivot``) and borders the point in, or parks it when it is
    within 1e-11 of the elbow's hull (some at 1e-6). With ``blocks`` (σ = 2^-3, the points in
    ``locality_order``) both codes keep the elbow's kernel rows in the blocks' column order and
    sum the rates over their runs (``locality.KernelBlocks``). Which events a column with twins
    offers the loop is decided by rounding (ties), so those columns are walked at 160, 200 and
    240 points until the events they must show are there (on OpenBLAS's SkylakeX kernels the
    160-point columns of σ = 1 and 2^0 with exact twins showed 4 and 1 events with parked points;
    at 200 points 17)."""
    from svmcore.families.svm.solvers import locality

    monkeypatch.setattr(P, "COMPILED_FROM_N", 10 ** 9)
    monkeypatch.setattr(locality, "MIN_POINTS", 0)
    # the start as finish_dual and the working set make it: with exact duplicates the dual's
    # solution is not unique, and from the homotopy's (as exact) the 20-duplicate, σ = 1 column
    # takes another route, on which the loop meets parked points at none of its events
    monkeypatch.setattr(P, "_start_by_homotopy", lambda *a, **k: None)
    sizes = (300,) if blocks else (160, 200, 240) if duplicates else (160,)
    for n in sizes:                # (σ = 2^-3 has fewer events a point)
        counts, misses = _walk(n, log2_sigma, cost_b, duplicates, offset, blocks)
        if _shows_enough(counts, duplicates, offset, blocks):
            break
    assert _shows_enough(counts, duplicates, offset, blocks), counts
    ratio = [a / b for a, b in misses if max(a, b) > 1e-9]
    assert not ratio or np.median(ratio) <= 1.5, np.quantile(ratio, [0.5, 0.9, 1.0])


def _shows_enough(counts, duplicates, offset, blocks):
    """Whether a walk's counts (``_follow``) show the events its column is there for."""
    taken, offered, parked_seen, parked_now, small = counts
    if blocks:                    # twins 1e-7 apart: some are parked (their bounds read KE)
        return taken >= 100 and parked_seen >= 5 * (duplicates > 0)
    if offset:                    # the loop took nearly dependent points (1e-6: and parked some)
        return taken >= 60 and small >= 5 and parked_now >= 3 * (offset == 1e-6)
    if duplicates:                # twins meet the margin together: ties, for the numpy code
        return taken >= 15 and parked_seen >= 5
    return offered > 100 and taken >= 0.6 * offered


def _walk(n, log2_sigma, cost_b, duplicates, offset, blocks):
    """Follow one column of ``n`` points (``_follow``): its counts, and each compared event's
    |A B − I| of the loop's inverse and of the numpy code's."""
    from svmcore.families.svm.solvers import locality

    K, y, upper, lams = _column(n, log2_sigma, cost_b, duplicates, offset)
    order = locality.locality_order(_inputs(n, duplicates, offset)[0]) if blocks else None
    run = P._setup(K, y, upper, lams, 1e-8, True, None, 1e-11, None, point_order=order)
    assert (run.blocks is not None) == blocks
    P._start_path(run, None)
    with np.errstate(divide="ignore", invalid="ignore"):     # as solve_path
        return _follow(run, K, y, upper)


def _numpy_walk(run, y, upper, max_events, with_event=False):
    """Follow the path by the numpy code's events and bookkeeping (``_solve_path`` without the
    compiled loop) to its last λ or ``max_events`` events, yielding its state before each event
    is looked for (a caller that changes the state works on a ``_clone``); with ``with_event``,
    the state and the segment to its next event, (path, seg), the state then holding the
    direction that segment computed."""
    with np.errstate(divide="ignore", invalid="ignore"):     # as solve_path
        while run.k < run.s_req.size and run.total_events < max_events:
            if with_event:
                seg = P._next_event(run.path, y, upper)
                yield run.path, seg
            else:
                yield run.path
                seg = P._next_event(run.path, y, upper)
            if P._answer_segment(run, seg):
                continue
            if run.k >= run.s_req.size:
                break
            P._move_to_event(run.path, seg)
            P._update_sets(run.path, seg, upper)
            run.path.n_events += 1
            run.total_events += 1
            P._after_event(run)


def _follow(run, K, y, upper):
    """``test_each_compiled_event_equals_the_numpy_crossing``'s walk: (events the loop took,
    events offered to it, of those with parked points, of those that parked a point, of those
    where a point entered with a pivot below ``try_add``'s 1e-6·max K_ii), and each taken
    event's pair of inverse residuals (``_same_state``)."""
    taken = offered = parked_seen = parked_now = small = 0
    misses, twin = [], _twin_classes(K, y)
    while run.k < run.s_req.size and run.total_events < 3000:
        path = run.path
        events = 0
        if P._compilable(path):
            mine = _clone(path)
            events, unpark = P._run_compiled(mine, run.s_req[run.k], 1, 1)
            offered += 1
        seg = P._next_event(path, y, upper)
        if P._answer_segment(run, seg):
            continue
        if run.k >= run.s_req.size:
            break
        s_before, rate, old_E = path.s, _entering_rate(seg), path.E.copy()
        small_pivot = _small_pivot(path, seg)
        if events and (_straddles(seg, path) or seg.t == 0.0):
            events = 0                    # rounding decides whether that point has an event, or
            #                             # (a zero-length step) in which order tied events come
        parked_before = np.sum(path.status == P._P)
        P._move_to_event(path, seg)
        P._update_sets(path, seg, upper)            # (without the bookkeeping that follows)
        if events:
            taken += 1
            if unpark:
                P._unpark(mine, upper)
            parked_seen += int(np.any(path.status == P._P))
            parked_now += int(np.sum(path.status == P._P) > parked_before)
            small += int(small_pivot)
            misses.append(_same_state(mine, path, s_before, rate, seg, old_E, twin=twin))
        path.n_events += 1
        run.total_events += 1
        P._after_event(run)
    return (taken, offered, parked_seen, parked_now, small), misses


@pytest.mark.parametrize("n,log2_sigma,large", [(500, -1.5, False), (1200, -2.5, True)])
def test_a_small_pivot_borders_the_inverse_with_a_refined_w(n, log2_sigma, large):
    """On elbows of ``REFINED_FROM`` … ``REFINED_BELOW`` − 1 points an entering point whose Schur
    pivot c is below ``REFINED_PIVOT``·max K_ii, and on larger elbows one whose pivot is below
    ``LARGE_REFINED_PIVOT``·max K_ii, has w = A⁻¹u refined once against A before the
    loop borders the inverse with it (``_events._refined_w``): the inverse's new column, −w/c
    over w w'/c, then inverts the new A (|A B e_new − e_new|) better than the same bordering
    with w = B u as it is (``ExplicitInverse.commit_add`` on a copy of the state's inverse) at
    every such event, by more than 100× at the median (n = 500, σ = 2^-1.5: 173 such events,
    1e-4 of the residual at the median; n = 1200, σ = 2^-2.5, elbows of 500 points or more: 19).
    The path is followed by the numpy code; the loop crosses one event from a copy of each state."""
    from svmcore.families.svm.solvers import _events

    K, y, upper, lams = _column(n, log2_sigma)
    run = P._setup(K, y, upper, lams, 1e-8, True, None, 1e-11, None, compiled=large or None)
    P._start_path(run, None)                    # (compiled: large elbows' inverses explicit)
    low, high = ((_events.REFINED_BELOW, n) if large
                 else (_events.REFINED_FROM, _events.REFINED_BELOW))
    pivot = _events.LARGE_REFINED_PIVOT if large else _events.REFINED_PIVOT
    ratios = []
    for path, seg in _numpy_walk(run, y, upper, 2000, with_event=True):
        if (P._compilable(path) and low <= path.m < high
                and _small_pivot(path, seg, pivot)):     # (copies only there: 9–35 MB each)
            ratios += _new_column_residual_ratio(run, path, K, pivot)
    assert len(ratios) >= (10 if large else 50), len(ratios)
    assert max(ratios) < 1.0 and np.median(ratios) < 1e-2, (max(ratios), np.median(ratios))


def _new_column_residual_ratio(run, path, K, pivot):
    """[|A B e − e| of the loop's inverse over that of the plain bordering], e the new column,
    when the loop's next event (from a copy of the state) is a point entering with a pivot
    below ``pivot``·max K_ii; else []."""
    m = path.m
    mine = _clone(path)
    events, _ = P._run_compiled(mine, run.s_req[run.k], 1, 1)
    if events != 1 or mine.m != m + 1:
        return []
    p = mine.E[m]
    plain = copy.deepcopy(path.F)
    c, data = plain.prepare_add(p, path._border(p), K[p, p])
    if not c < pivot * path.kscale:
        return []
    plain.commit_add(data)
    M = m + 2
    A, e = mine.A[:M, :M], np.eye(M)[:, M - 1]
    return [np.abs(A @ mine.F.B[:M, M - 1] - e).max() / np.abs(A @ plain.B[:M, M - 1] - e).max()]


def _small_pivot(path, seg, below=1e-6):
    """Whether the point entering at the segment's end has a Schur pivot K_pp − u'A⁻¹u below
    ``below``·max K_ii (by default ``try_add``'s bar, under which it recomputes the pivot against
    A: ``_events._careful_pivot``); ``path.F`` is left unchanged."""
    p = _entering_point(seg)
    if p is None or path.m == 0:
        return False
    u = path._border(p)
    c, _ = path.F.prepare_add(p, u, path.K[p, p])
    return not c > below * path.kscale


def _entering_rate(seg):
    """|d(y f − 1)/dt| of the point that enters at the segment's end (1 when one leaves)."""
    p = _entering_point(seg)
    return 1.0 if p is None else float(abs(seg.rho[p]))


def _entering_point(seg):
    """The margin point whose event ends the segment (None when an elbow point leaves)."""
    if seg.empty or seg.tm is None:
        return None
    p = int(np.argmin(seg.tm))
    return p if seg.tm[p] <= seg.t + 1e-12 * seg.s else None


def _straddles(seg, path):
    """Whether a left or right point's rate towards the margin is within its error of the 1e-11
    below which it has no event on the segment, so either code may rightly take that event or
    not. The rates carry the direction's error, 1e-12 times the condition number of A relative
    (``_cond``: up to 2e9 here); a repeated point whose twin is in the elbow has rate 0 in exact
    arithmetic, and its rounding noise is far below 1e-11 while A is well conditioned."""
    rate = np.abs(seg.rho[(path.status == P._L) | (path.status == P._R)])
    return bool(np.any(np.abs(rate - 1e-11) <= max(1e-12, 1e-13 * _cond(path))))


def _cond(path):
    """The condition number of the bordered elbow matrix A in the ∞-norm, from its inverse."""
    M = path.m + 1
    return np.abs(path.A[:M, :M]).sum(1).max() * np.abs(path.F.B[:M, :M]).sum(1).max()


@pytest.mark.parametrize("log2_sigma,cost_b,large_from,schur_from,give_up", [
    (-2.0, 1.0, None, None, False), (0.0, 1.0, None, None, False),
    (1.0, 4.5, None, None, False), (3.0, 1.0, None, None, False), (-2.0, 1.0, 0, None, False),
    (1.0, 4.5, 0, None, False), (0.0, 1.0, None, 30, False), (1.0, 4.5, None, 20, None),
    (0.0, 1.0, None, 30, True), (1.0, 4.5, None, 20, True)])
def test_compiled_columns_answer_as_the_numpy_path(monkeypatch, log2_sigma, cost_b, large_from,
                                                   schur_from, give_up):
    """A whole column (n = 300, log2(nλ) = −25 … 0) with the compiled loop and without: every
    answer within its KKT bound (recomputed here from α and b), the same objective to 1e-9
    relative or to the KKT bound, and the loop took most events. With ``large_from`` = 0 every
    direction is accepted at the large elbows' ``DIRECTION_RTOL``, as elbows of 500 points or
    more are (n = 300 has none); with ``schur_from`` the elbow passes ``COMPILED_SCHUR_FROM``, where
    its explicit inverse is kept (``give_up`` False), kept while it lasts (None: the default rule,
    ``_Path._count_short_lived``, whichever way it goes; at σ = 2, C_B = 4.5 it gave up after six
    short-lived inverses and keeps them with 32), or given up at its first rebuild (True): the
    column's large elbows then go to the numpy code's block-LU inverse, and the elbows cross from
    the loop to block-LU and back."""
    from svmcore.families.svm.solvers import _events

    K, y, upper, lams = _column(300, log2_sigma, cost_b)
    monkeypatch.setattr(P, "COMPILED_FROM_N", 10 ** 9)
    ref = P.solve_path(K, y, upper, lams)
    crossed = []
    real = _events.run_events
    monkeypatch.setattr(_events, "run_events", lambda *a: _count(real, crossed, *a))
    monkeypatch.setattr(P, "COMPILED_FROM_N", 0)
    if large_from is not None:      # every elbow's direction at the large elbows' tolerance
        monkeypatch.setattr(P._Path, "LARGE_FROM", large_from)
    if schur_from is not None:      # large elbows, their explicit inverse kept while it lasts
        monkeypatch.setattr(P, "COMPILED_SCHUR_FROM", schur_from)
    if give_up:                     # ... or given up at its first rebuild
        monkeypatch.setattr(P, "EXPLICIT_LASTS", 10 ** 9)
        monkeypatch.setattr(P, "EXPLICIT_SHORT_LIVED", 1)
    elif give_up is False:          # ... or kept
        monkeypatch.setattr(P, "EXPLICIT_SHORT_LIVED", 10 ** 9)
    built = []

    class Counted(P.SchurInverse):
        def __init__(self, *args, **kwargs):
            built.append(1)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(P, "SchurInverse", Counted)
    sols = P.solve_path(K, y, upper, lams)
    assert sum(crossed) >= (0.6 if give_up is False else 0.1) * sols[0].info["events"]
    assert give_up is None or bool(built) == give_up
    n = len(y)
    for a, b in zip(sols, ref):
        c = y * a.alpha / (2 * n * a.lam)
        f = K @ c + a.b
        floor = rounding_floor(K, y, a.alpha, a.lam, a.b)
        assert kkt_residual(y, f, a.alpha, upper, scale=min(1.0, 2 * n * a.lam)) <= \
            max(1e-8, floor)
        # both within the KKT bound: each objective within about that bound times the mean
        # weight of the hinge of the optimum (f off by ε moves (1/n)Σ L_i(1 − y_i f_i)_+ by ≤ ε L̄)
        assert _objective(K, y, upper, a) == pytest.approx(
            _objective(K, y, upper, b), rel=1e-9, abs=2 * max(1e-8, floor) * upper.mean())


def test_large_explicit_inverses_that_do_not_last_give_the_column_to_block_lu(monkeypatch):
    """With the compiled loop an elbow of ``COMPILED_SCHUR_FROM`` points or more keeps its
    explicit inverse (so that the loop crosses its events) until ``EXPLICIT_SHORT_LIVED`` such
    inverses in a row were rebuilt within ``EXPLICIT_LASTS`` changes; one that lasted starts the
    count afresh. From then on the column's large elbows are rebuilt as block-LU, each rebuild
    inverting A; the numpy code alone counts nothing."""
    K, y, upper, _ = _column(300, -2.0)
    monkeypatch.setattr(P, "COMPILED_SCHUR_FROM", 20)
    path = P._Path(K, y, upper, compiled=True)
    path.status = np.zeros(len(y), dtype=np.int8)
    for p in range(30):
        assert path.try_add(p)
    A = path.A[:31, :31]
    rhs = np.r_[0.0, y[path.E]]

    def rebuilt(changes):
        path.F.k = changes
        path.refactor()
        assert np.abs(A @ path.F.apply(rhs) - rhs).max() <= 1e-9 * np.abs(rhs).max()
        return type(path.F).__name__

    assert path.F.k == 29                                  # 29 bordered in since the first
    for _ in range(P.EXPLICIT_SHORT_LIVED - 1):
        assert rebuilt(P.EXPLICIT_LASTS - 1) == "ExplicitInverse"
    assert rebuilt(P.EXPLICIT_LASTS) == "ExplicitInverse"  # it lasted: counted afresh
    assert path._short_lived == 0
    for _ in range(P.EXPLICIT_SHORT_LIVED - 1):
        assert rebuilt(0) == "ExplicitInverse"
    assert rebuilt(0) == "SchurInverse"
    assert path.SCHUR_FROM == 20
    numpy_only = P._Path(K, y, upper)
    numpy_only.status = np.zeros(len(y), dtype=np.int8)
    for p in range(30):
        numpy_only.try_add(p)
    for _ in range(2 * P.EXPLICIT_SHORT_LIVED):
        numpy_only.refactor()
    assert numpy_only._short_lived == 0 and isinstance(numpy_only.F, P.ExplicitInverse)


@pytest.mark.parametrize("points,size", [(100, 202), (299, 300 + 256)])
def test_the_explicit_inverse_grows_by_doubling_up_to_a_cap(points, size):
    """``ExplicitInverse.reserve`` doubles B for small elbows (101 rows: 202) and adds at most
    ``elbow.GROW_AT_MOST`` rows and columns to large ones (300 rows: 556, not 600; a large
    elbow's doubled inverse would hold four times its numbers), keeping the inverse as it was."""
    from svmcore.families.svm.solvers.elbow import GROW_AT_MOST, ExplicitInverse

    assert GROW_AT_MOST == 256
    K, _, _, _ = _column(400, -2.0)
    F = ExplicitInverse(_bordered(K, np.arange(points)))
    before = F.B.copy()
    F.reserve(F.B.shape[0] - F.M + 1)                  # one more than its room
    assert F.B.shape == (size, size)
    np.testing.assert_array_equal(F.B[:F.M, :F.M], before[:F.M, :F.M])


@pytest.mark.parametrize("log2_sigma", [-1.0, 1.0])
def test_held_back_changes_of_the_inverse_are_all_written(monkeypatch, log2_sigma):
    """The loop holds back the inverse's rank-one changes (``_events.PENDING`` at a time) and
    writes them into B as it goes and before it returns. After runs of more events than that,
    B must invert the elbow matrix A the path returns with, to rounding times A's condition
    number, and be symmetric: a change left out or written twice misses by O(1)."""
    from svmcore.families.svm.solvers import _events

    K, y, upper, lams = _column(300, log2_sigma)
    monkeypatch.setattr(P, "COMPILED_FROM_N", 10 ** 9)
    monkeypatch.setattr(P._Path, "EXACT_EVERY_SMALL", 10 ** 6)   # no return for the bookkeeping
    monkeypatch.setattr(P._Path, "EXACT_EVERY_LARGE", 10 ** 6)
    run = P._setup(K, y, upper, lams, 1e-8, True, None, 1e-11, None)
    P._start_path(run, None)
    checked = 0
    for path in _numpy_walk(run, y, upper, 10 ** 6):
        if checked == 5:
            break
        if P._compilable(path):
            mine = _clone(path)
            events, _ = P._run_compiled(mine, run.s_req[run.k], 3 * _events.PENDING, 1)
            if events > _events.PENDING and not mine.needs_refactor():
                M = mine.m + 1
                A, B = mine.A[:M, :M], mine.F.B[:M, :M]
                tol = 1e-13 * _cond(mine) * M
                assert np.abs(A @ B - np.eye(M)).max() <= tol
                assert np.abs(B - B.T).max() <= tol * np.abs(B).max()
                checked += 1
    assert checked == 5


def test_a_direction_checked_on_A_passes_or_takes_one_refinement_step():
    """``_events._checked_on_A`` (the loop's check after a missed direction): the exact direction
    A⁻¹[0; y_E] (numpy's solve) passes unchanged; one off by 1e-6 fails and takes exactly one
    step x += A⁻¹(r), r = [0; y_E] − A x, with A⁻¹ = B + PL_0 PR_0' (a change held back; B
    symmetric, as the loop's)."""
    from svmcore.families.svm.solvers import _events

    K, y, _, _ = _column(60, 0.0)
    E, m = np.arange(0, 40, 2), 20
    M = m + 1
    A = _bordered(K, E)
    rhs = np.r_[0.0, y[E]]
    inverse = np.linalg.inv(A)
    rng = np.random.default_rng(0)
    PL, PR = np.zeros((_events.PENDING, M)), np.zeros((_events.PENDING, M))
    PL[0] = rng.standard_normal(M)                  # symmetric, as the loop's changes are
    PR[0] = -0.5 * PL[0]
    B = inverse - np.outer(PL[0], PR[0])
    r, d = np.empty(M), np.empty(M)
    exact = np.linalg.solve(A, rhs)
    kscale = K.diagonal().max()
    x = exact.copy()
    assert _events._checked_on_A(A, B, PL, PR, 1, x, y, E, m, kscale, r, d, 1e-12)
    np.testing.assert_array_equal(x, exact)
    off = exact + 1e-6 * rng.standard_normal(M)
    x = off.copy()
    assert not _events._checked_on_A(A, B, PL, PR, 1, x, y, E, m, kscale, r, d, 1e-12)
    step = off + inverse @ (rhs - A @ off)
    np.testing.assert_allclose(x, step, rtol=0, atol=1e-9 * np.abs(exact).max())
    assert np.abs(x - exact).max() < 1e-3 * np.abs(off - exact).max()


@pytest.mark.parametrize("size", [1, 2, 3, 4, 5, 8, 9, 14, 41, 101])
def test_the_products_with_A_and_B_sum_row_by_row_as_numpy(size):
    """``_events._symv`` (rows with nonzero x four at a time, each entry kept across them):
    out_i = Σ_j x_j M_ji summed over the rows in their order, the rows with x_j = 0 left out,
    bitwise as numpy's elementwise sums row after row; nothing past ``size`` is read (nan
    there)."""
    from svmcore.families.svm.solvers import _events

    rng = np.random.default_rng(size)
    M = np.full((size + 2, size + 2), np.nan)
    M[:size, :size] = rng.standard_normal((size, size))
    x = np.r_[rng.standard_normal(size), np.nan, np.nan]
    x[:size][rng.random(size) < 0.3] = 0.0          # rows that are skipped, between blocks
    expected = np.zeros(size)
    for j in range(size):
        if x[j] != 0.0:
            expected = expected + x[j] * M[j, :size]
    out = np.full(size + 2, np.nan)
    _events._symv(M, x, size, out)
    np.testing.assert_array_equal(out[:size], expected)


@pytest.mark.parametrize("npend", [1, 7, 8])
@pytest.mark.parametrize("size", [1, 2, 5, 6, 11])
def test_held_back_changes_are_written_as_numpys_sums(npend, size):
    """``_events._flush`` (with all ``PENDING`` changes held, two rows at a time): B_ij +=
    PL_ki PR_kj for k in order, bitwise as numpy's elementwise sums change after change; a row
    whose PL entry of a change is zero (bordered in after it) is not touched by that change,
    even where PR is not finite."""
    from svmcore.families.svm.solvers import _events

    rng = np.random.default_rng(10 * size + npend)
    B = rng.standard_normal((size + 1, size + 1))
    PL = rng.standard_normal((_events.PENDING, size + 1))
    PR = rng.standard_normal((_events.PENDING, size + 1))
    PL[npend:] = np.nan                             # changes not held are not read
    PL[:npend, size - 1] = 0.0                      # the last row joined after every change
    if size > 2:
        PL[0, 1] = 0.0                              # and row 1 after the first
    PR[:npend, size] = np.inf                       # a column past size is not read
    expected = B.copy()
    for k in range(npend):
        for i in range(size):
            if PL[k, i] != 0.0:
                expected[i, :size] = expected[i, :size] + PL[k, i] * PR[k, :size]
    _events._flush(B, PL, PR, npend, size)
    np.testing.assert_array_equal(B, expected)


@pytest.mark.parametrize("m", [0, 1, 2, 3, 4, 5, 7, 8, 9, 13])
def test_the_rates_pass_equals_numpys_product(m):
    """``_events._rates`` (four elbow rows a time, the rest one by one): dh = x[1:] K_E + x[0]
    as numpy's product, for elbows of every remainder modulo four, to rounding; rows of KE past
    the m-th (there: nan) are not read."""
    from svmcore.families.svm.solvers import _events

    rng = np.random.default_rng(m)
    n = 37
    KE = np.full((m + 3, n), np.nan)
    KE[:m] = rng.standard_normal((m, n))
    x = rng.standard_normal(m + 3)
    dh = np.full(n, np.nan)
    _events._rates(KE, np.empty((0, 0)), x, m, n, dh, np.arange(m), P._no_blocks())
    expected = x[1:m + 1] @ KE[:m] + x[0]
    bound = 4e-16 * (m + 1) * (np.abs(x[1:m + 1]) @ np.abs(KE[:m]) + abs(x[0]))
    assert np.all(np.abs(dh - expected) <= bound)


@pytest.mark.parametrize("size", [0, 1, 3, 4, 31, 32, 33, 70])
def test_support_products_sum_the_supports_rows(size):
    """``_events.support_products``: f = Σ_{j∈S} c_j K_j· and M = Σ_{j∈S} |c_j||K_j·| (K c and
    |K||c| for symmetric K with c zero outside S), against sums in extended precision, within
    the rounding bound of its blocked sums (``SUPPORT_BLOCK`` rows apart, then added), for
    supports of every remainder modulo four and across blocks; rows outside S are not read."""
    from svmcore.families.svm.solvers import _events

    rng = np.random.default_rng(size)
    n = 90
    K = rng.standard_normal((n, n))
    S = np.sort(rng.choice(n, size, replace=False))
    c = np.zeros(n)
    c[S] = rng.standard_normal(size) * 1e6
    exact_f = (c[S].astype(np.longdouble) @ K[S].astype(np.longdouble)).astype(float)
    exact_M = np.abs(c[S]) @ np.abs(K[S])
    K[np.setdiff1d(np.arange(n), S)] = np.nan
    f, M = np.full(n, np.nan), np.full(n, np.nan)
    _events.support_products(K, c, S.astype(np.int64), f, M)
    bound = (12 + size / _events.SUPPORT_BLOCK) * np.finfo(float).eps * exact_M
    assert np.all(np.abs(f - exact_f) <= bound)
    assert np.all(np.abs(M - exact_M) <= bound)


def _count(real, crossed, *args):
    out = real(*args)
    crossed.append(out[1])
    return out



def test_compile_event_loop_crosses_events_in_the_loop(monkeypatch):
    """``compile_event_loop`` (the Docker build's step) runs the compiled loop, which crosses
    most of its small path's events, and leaves the module's function in place."""
    from svmcore.families.svm.solvers import _events

    crossed = []
    real = _events.run_events
    monkeypatch.setattr(_events, "run_events", lambda *a: _count(real, crossed, *a))
    P.compile_event_loop()
    assert sum(crossed) >= 20


def test_the_loop_runs_from_its_n_and_not_in_the_machines_reference_problem(monkeypatch):
    """Columns of ``COMPILED_FROM_N`` points cross their events in the compiled loop, one point
    fewer in the numpy code alone; the path's reference problem (``timing.REFERENCE``, which the
    app times in its own process to scale the rates) is below that n, so its timing never
    includes the loop's load, nor does the app's default view (wahba2d's default n)."""
    from svmcore.families.svm.solvers import _events
    from svmcore.timing import REFERENCE

    n0 = P.COMPILED_FROM_N
    assert REFERENCE["path"][0] < n0 and make_wahba2d(seed=0).X.shape[0] < n0
    crossed = []
    real = _events.run_events
    monkeypatch.setattr(_events, "run_events", lambda *a: _count(real, crossed, *a))
    for n, in_loop in ((n0 - 1, False), (n0, True)):
        crossed.clear()
        K, y, upper, lams = _column(n, 0.0)
        sols = P.solve_path(K, y, upper, lams[-6:])
        assert (sum(crossed) >= 0.5 * sols[0].info["events"]) == in_loop
        assert bool(crossed) == in_loop


@pytest.mark.parametrize("case", ["small", "large", "singular"])
def test_a_direction_the_drifted_inverse_misses_is_solved_from_a_rebuilt_one(case):
    """``_events._solved``: when the tracked direction and B[0; y_E] refined from a drifted B
    (here A⁻¹ plus noise of 1e-3 of its largest entry) both miss, the loop rebuilds B from A
    (LAPACK's gesv on the identity, as ``np.linalg.inv``) and solves afresh: the direction then
    equals numpy's solve of A to rounding times A's condition number, B inverts A, the
    held-back change is dropped and the counts of held-back changes and of changes since the
    rebuild are 0. From ``REBUILT_BELOW`` elbow points, and for an exactly singular A (an elbow
    point repeated), it misses (the numpy code takes the event) with B and the held-back change
    as they were."""
    from svmcore.families.svm.solvers import _events

    K, y, _, _ = _column(400, 0.0)
    m = {"small": 40, "large": _events.REBUILT_BELOW, "singular": 40}[case]
    E = np.arange(0, 2 * m, 2)
    if case == "singular":
        K = K.copy()
        K[E[1]], K[:, E[1]] = K[E[0]], K[:, E[0]]     # two elbow points with one kernel row
        K[E[1], E[1]] = K[E[0], E[0]]
    M = m + 1
    A = _bordered(K, E)
    rng = np.random.default_rng(0)
    noise = rng.standard_normal((M, M))
    inverse = np.linalg.inv(A) if case != "singular" else np.eye(M)
    B = inverse + 1e-3 * np.abs(inverse).max() * (noise + noise.T)
    before = B.copy()
    PL, PR = np.zeros((_events.PENDING, M)), np.zeros((_events.PENDING, M))
    PL[0], PR[0] = rng.standard_normal(M), rng.standard_normal(M)
    held = PL.copy(), PR.copy()
    x, r, d = rng.standard_normal(M), np.empty(M), np.empty(M)
    kscale = K.diagonal().max()
    ok, npend, Fk = _events._solved(A, B, PL, PR, 1, 7, x, y, E, m, kscale, r, d, 1e-12)
    if case != "small":
        assert (ok, npend, Fk) == (False, 1, 7)
        np.testing.assert_array_equal(B, before)
        np.testing.assert_array_equal(PL, held[0])
        np.testing.assert_array_equal(PR, held[1])
        return
    assert (ok, npend, Fk) == (True, 0, 0)
    assert not PL.any() and not PR.any()
    cond = np.abs(A).sum(1).max() * np.abs(inverse).sum(1).max()
    assert np.abs(A @ B - np.eye(M)).max() <= 1e-14 * cond
    exact = np.linalg.solve(A, np.r_[0.0, y[E]])
    assert np.abs(x - exact).max() <= 1e-13 * cond * np.abs(exact).max()


def test_an_event_from_a_lost_inverse_is_taken_as_after_the_numpy_codes_rebuild():
    """Hand the loop copies of the numpy code's states (n = 200, σ = 2, whose small elbows are
    ill-conditioned, condition numbers to 1e10) with the inverse lost (noise as large as its
    largest entry) and the tracked direction off by 1e-3 relative: no refinement from that
    inverse passes the direction's check, and the loop rebuilds the inverse itself
    (``_events._rebuilt``) and takes the event. Its state must be the one the loop reaches from
    the inverse the numpy code rebuilds there (``ExplicitInverse``, with ``solve_elbow``'s
    direction): the same partition, s, α and h to rounding (``_same_state``), and its inverse
    as good: the two LAPACKs (numba's calls SciPy's) invert these matrices with other last
    bits, which the next change amplifies by up to the condition number, so each event's
    |A B − I| is held within 100× of the other's (12.7× at worst here, at a condition number
    of 1.4e9) and their median ratio at 1.5 (1.0 here, 142 events). Its inverse then counts
    the one change since that rebuild."""
    K, y, upper, lams = _column(200, 1.0)
    run = P._setup(K, y, upper, lams, 1e-8, True, None, 1e-11, None)
    P._start_path(run, None)
    rng = np.random.default_rng(0)
    misses, twin = [], _twin_classes(K, y)
    for path in _numpy_walk(run, y, upper, 600):
        if not P._compilable(path) or path.m < 2 or path.F.k < 1:
            continue
        lost = _clone(path)
        M = lost.m + 1
        noise = rng.standard_normal((M, M))
        lost.F.B[:M, :M] += np.abs(lost.F.B[:M, :M]).max() * (noise + noise.T)
        lost._dx = lost._dx * (1.0 + 1e-3 * rng.standard_normal(M))
        rebuilt = _clone(lost)
        rebuilt.refactor()
        rebuilt._dx = rebuilt.solve_elbow(np.r_[0.0, y[rebuilt.E]], rtol=1e-12)
        seg = P._next_event(_clone(rebuilt), y, upper)
        s_before = lost.s
        events = P._run_compiled(lost, run.s_req[run.k], 1, 1)
        if P._run_compiled(rebuilt, run.s_req[run.k], 1, 1) != (1, False) or \
                _straddles(seg, rebuilt) or seg.t == 0.0:
            continue
        assert events == (1, False)
        misses.append(_same_state(lost, rebuilt, s_before, inverse_within=100.0, twin=twin))
        assert lost.F.k <= 1
    assert len(misses) >= 20, len(misses)
    ratio = [a / b for a, b in misses if max(a, b) > 1e-9]
    assert np.median(ratio) <= 1.5, np.quantile(ratio, [0.5, 0.9, 1.0])


def test_the_loop_counts_as_compiled_from_numbas_cache_and_not_from_an_empty_one(tmp_path):
    """``event_loop_compiled``: True once ``compile_event_loop`` ran here, and in a new process
    reading the same numba cache (its index: these sources, this CPU); False in a new process
    whose numba cache is empty, where the first path of ``COMPILED_FROM_N`` points compiles.
    ``event_loop_loaded``: False in a new process until its first such path, True after it."""
    import os
    import subprocess
    import sys

    from svmcore.families.svm.solvers.path import compile_event_loop, event_loop_compiled

    compile_event_loop()
    assert event_loop_compiled()
    ask = "from svmcore.families.svm.solvers.path import event_loop_compiled as e; print(e())"
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

    def answer(env):
        out = subprocess.run([sys.executable, "-c", ask], env=env, cwd=root, capture_output=True,
                             text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        return out.stdout.strip()

    assert answer(dict(os.environ)) == "True"
    assert answer({**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}) == "False"
    ask = ("from svmcore.families.svm.solvers import path as p; a = p.event_loop_loaded(); "
           "import numpy as np; from svmcore.kernels import gaussian_gram; n = p.COMPILED_FROM_N; "
           "X = np.random.default_rng(0).normal(size=(n, 2)); y = np.where(X[:, 0] > 0, 1.0, -1.0); "
           "p.solve_path(gaussian_gram(X, sigma=1.0), y, np.ones(n), 2.0 ** np.arange(0, -9, -2.0) / n); "
           "print(a, p.event_loop_loaded())")
    assert answer(dict(os.environ)) == "False True"


def _fresh_rhs(K, y, path):
    """The elbow system's right-hand side at the path's s, from K itself:
    [−Σ_{j∉E} β_j ; s y_E − K_{E,∉E} β_{∉E}]."""
    beta = y * path.alpha
    out = np.ones(len(y), bool)
    out[path.E] = False
    return np.r_[-beta[out].sum(), path.s * y[path.E] - K[np.ix_(path.E, np.flatnonzero(out))]
                 @ beta[out]]


@pytest.mark.parametrize("n,log2_sigma,blocks", [(400, 1.0, False), (400, -3.0, True)])
def test_the_loops_recomputed_state_solves_the_elbow_system(monkeypatch, n, log2_sigma, blocks):
    """``_events._exact_state`` (the compiled loop's ``exact_state``), from states of a numpy
    walk that hold a reference product: α_E and α_0 solve the elbow system built from K to
    1e-13 of its scale, h equals K β + α_0 from scratch to rounding, and both agree with the
    numpy code's recomputation. Where the numpy code must recompute (no reference, s below half
    the reference's, more than n/8 changed points outside the elbow) it changes nothing."""
    from svmcore.families.svm.solvers import _events, locality

    monkeypatch.setattr(locality, "MIN_POINTS", 0)
    K, y, upper, lams = _column(n, log2_sigma)
    order = locality.locality_order(_inputs(n)[0]) if blocks else None
    run = P._setup(K, y, upper, lams, 1e-8, True, None, 1e-11, None, compiled=False,
                   point_order=order)
    assert (run.blocks is not None) == blocks
    P._start_path(run, None)
    checked = 0
    for k, path in enumerate(_numpy_walk(run, y, upper, 1500)):
        if k % 37 or path.m == 0 or getattr(path, "_href", None) is None \
                or not P._compilable(path) or path.s < 0.5 * path._href[3]:
            continue
        mine, theirs = _clone(path), _clone(path)
        theirs.exact_state()
        ok, alpha0 = _events._exact_state(K, y, mine.alpha, mine.status, mine.h, mine.KE,
                                          mine.KP, mine.A, mine.F.B, mine.E, mine.m, mine.s,
                                          mine.kscale, mine.reference(), mine._blk)
        if not ok:                    # more than n/8 changed: the numpy code makes a product
            np.testing.assert_array_equal(mine.alpha, path.alpha)
            continue
        checked += 1
        mine.alpha0 = alpha0
        x = np.r_[alpha0, y[mine.E] * mine.alpha[mine.E]]
        rhs = _fresh_rhs(K, y, mine)
        A = _bordered(K, mine.E)
        scale = np.abs(rhs).max() + mine.kscale * np.abs(x[1:]).max()
        assert np.abs(rhs - A @ x).max() <= 1e-13 * scale
        beta = y * mine.alpha
        fresh = K @ beta + alpha0
        assert np.abs(mine.h - fresh).max() <= 1e-12 * (1.0 + (np.abs(K) @ np.abs(beta)).max())
        # both residuals are at most 1e-13 · scale, so x − x_np = A⁻¹(r − r_np) is bounded by
        # ‖A⁻¹‖∞ 2e-13 · scale (twice that for the inverse's own error)
        x_np = np.r_[theirs.alpha0, y[theirs.E] * theirs.alpha[theirs.E]]
        inv_norm = np.abs(mine.F.B[:mine.m + 1, :mine.m + 1]).sum(1).max()
        assert np.abs(x - x_np).max() <= 4e-13 * inv_norm * scale
    assert checked >= 5, checked

    path = run.path
    path.exact_state()
    h_ref, b_ref, at = path.reference()
    cases = {"no reference": (np.empty(0), np.empty(0), np.array([0.0, np.nan])),
             "s below half": (h_ref, b_ref, np.array([at[0], 2.01 * path.s])),
             "many changed": (h_ref, b_ref + 1.0, at)}
    for name, ref in cases.items():
        mine = _clone(path)
        ok, _ = _events._exact_state(K, y, mine.alpha, mine.status, mine.h, mine.KE, mine.KP,
                                     mine.A, mine.F.B, mine.E, mine.m, mine.s, mine.kscale, ref,
                                     mine._blk)
        assert not ok, name
        np.testing.assert_array_equal(mine.alpha, path.alpha)
        np.testing.assert_array_equal(mine.h, path.h)


def _careful_pivot_misses(path, p):
    """Whether the loop's second look at p's small pivot (``_events._careful_pivot``: A⁻¹u from
    the path's inverse refined against A to 1e-13 in three steps) misses, as on the
    ill-conditioned small elbows of wide kernels."""
    from svmcore.families.svm.solvers import _events

    M = path.m + 1
    u, w = np.empty(M), np.empty(M)
    PL = PR = np.zeros((_events.PENDING, M))
    _events._enter_pivot(path.K, path.F.B, PL, PR, 0, path.KE, p, path.m, u, w, path._blk)
    c = _events._careful_pivot(path.K, path.A, path.F.B, PL, PR, 0, p, path.m, u, w,
                               np.empty(M), np.empty(M), path.kscale)
    return c != c


def test_a_small_pivot_refinement_misses_is_taken_after_a_rebuild_in_the_loop():
    """Where refinement against A cannot settle an entering point's small pivot from the loop's
    inverse, the loop rebuilds the inverse (``_events._rebuilt``, as ``try_add`` rebuilds it
    after its LU solve) and takes the event, where it used to hand it to the numpy code (n = 2000
    paper grid: 371 such round trips). Each such event's state equals the numpy code's crossing
    of it (``_same_state``: partition, s, α and h to rounding, an inverse as good), and the
    loop's inverse, rebuilt again with the point (``try_add``'s refactor after it), counts no
    change since."""
    from svmcore.families.svm.solvers import _events

    K, y, upper, lams = _column(500, 1.0)
    run = P._setup(K, y, upper, lams, 1e-8, True, None, 1e-11, None)
    P._start_path(run, None)
    twin, misses = _twin_classes(K, y), []
    with np.errstate(divide="ignore", invalid="ignore"):
        while run.k < run.s_req.size and run.total_events < 3000:
            path = run.path
            seg = P._next_event(path, y, upper)
            mine = None
            p = _entering_point(seg)
            if P._compilable(path) and p is not None and _small_pivot(path, seg) \
                    and _careful_pivot_misses(path, p):
                mine = _clone(path)
                taken = P._run_compiled(mine, run.s_req[run.k], 1, 1)
            if P._answer_segment(run, seg):
                continue
            if run.k >= run.s_req.size:
                break
            s_before, rate, old_E = path.s, _entering_rate(seg), path.E.copy()
            P._move_to_event(path, seg)
            P._update_sets(path, seg, upper)
            if mine is not None and taken == (1, _events.RAN) and not _straddles(seg, path) \
                    and seg.t > 0.0 and mine.status[p] == P._E:
                misses.append(_same_state(mine, path, s_before, rate, seg, old_E, twin=twin))
                assert mine.F.k == 0
            path.n_events += 1
            run.total_events += 1
            P._after_event(run)
    assert len(misses) >= 3, len(misses)         # 4 here
