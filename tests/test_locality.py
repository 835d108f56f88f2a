"""The kernel's locality for the path's passes (``solvers/locality.py``): the point order, the
runs of each kernel row that hold entries above τ, the rates summed over them, and whole columns
with and without them. Checked against brute force (every entry of K) and numpy's products."""
from __future__ import annotations

import numpy as np
import pytest

import svmcore.families.svm.solvers.path as P
from svmcore.datasets.simulations import make_wahba2d
from svmcore.families.svm.solvers import _events, locality
from svmcore.families.svm.solvers._common import kkt_residual, rounding_floor
from svmcore.kernels import gaussian_gram
from test_path import _objective  # (1/n) Σ L(y_i)(1 − y_i f_i)_+ + λ c'Kc, independent of svmcore


def _chunk_diameters(X, order):
    """The largest distance within each chunk of ``CHUNK`` consecutive points of the order."""
    c = locality.CHUNK
    out = []
    for a in range(0, len(order) - c + 1, c):
        Z = X[order[a:a + c]]
        out.append(np.sqrt(((Z[:, None] - Z[None]) ** 2).sum(-1)).max())
    return np.array(out)


def test_the_order_is_a_permutation_of_compact_chunks():
    """Uniform points in the unit square: the order holds every point once, and its chunks
    (16 points, about 1/64 of the square's area at n = 1024) are compact: a median diameter
    below 0.3, where chunks of the input order span the square (about 1)."""
    X = np.random.default_rng(0).random((1024, 2))
    order = locality.locality_order(X)
    np.testing.assert_array_equal(np.sort(order), np.arange(1024))
    assert np.median(_chunk_diameters(X, order)) < 0.3
    assert np.median(_chunk_diameters(X, np.arange(1024))) > 0.8
    X1 = np.random.default_rng(1).random((100, 1))        # one coordinate: sorted
    np.testing.assert_array_equal(X1[locality.locality_order(X1), 0], np.sort(X1[:, 0]))


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_the_runs_hold_every_entry_above_tau_and_no_empty_chunk(sign):
    """Brute force over every entry: each row's runs cover the positions of all its entries
    above τ in absolute value (negative kernels too) and no chunk without one; runs are
    sorted, disjoint and not adjacent (merged); ``row_len`` and ``cover`` count them."""
    d = make_wahba2d(300, 0)
    K = sign * gaussian_gram(d.X, sigma=2.0 ** -2.5)
    order = locality.locality_order(d.X)
    tau = 2.0 ** -56 / 300
    b = locality.KernelBlocks.from_gram(K, order)
    c = locality.CHUNK
    covered_total = 0
    for i in range(300):
        st, sp = b.start[b.ptr[i]:b.ptr[i + 1]], b.stop[b.ptr[i]:b.ptr[i + 1]]
        assert np.all(st < sp) and np.all(sp[:-1] < st[1:])
        covered = np.zeros(300, bool)
        for a, z in zip(st, sp):
            covered[a:z] = True
        need = np.zeros(300, bool)
        need[b.pos[np.abs(K[i]) > tau]] = True
        assert np.all(covered[need])
        for a in range(0, 300, c):                       # a kept chunk holds a needed entry
            assert covered[a] == need[a:a + c].any()
        covered_total += covered.sum()
        assert b.row_len[i] == covered.sum()
    assert b.cover == pytest.approx(covered_total / 300 ** 2)
    assert b.cover < 0.6


def _packed_elbow(m):
    """A 400-point σ = 2^-3 kernel's blocks and m random elbow rows' packed runs (what is not
    packed is NaN, so that reading it shows): (K, order, blocks, E, KP, the generator)."""
    d = make_wahba2d(400, 1)
    K = gaussian_gram(d.X, sigma=2.0 ** -3)
    order = locality.locality_order(d.X)
    b = locality.KernelBlocks.from_gram(K, order)
    rng = np.random.default_rng(m)
    E = rng.choice(400, m, replace=False).astype(np.intp)
    KE = np.ascontiguousarray(K[E][:, order])
    KP = np.full((m, int(b.row_len.max())), np.nan)
    for k in range(m):
        _events.pack_runs(KE[k], E[k], b.ptr, b.start, b.stop, KP[k])
    return K, order, b, E, KP, rng


@pytest.mark.parametrize("m", [1, 5, 64])
def test_the_rates_over_runs_equal_the_dense_product(m):
    """``_events.rates`` (the elbow's rows in the blocks' column order, their runs packed by
    ``pack_runs`` and summed) against numpy's x[1:] K_E + x[0] over whole rows, in the points'
    own order: equal to rounding plus what the skipped entries (each at most τ) can add."""
    K, order, b, E, KP, rng = _packed_elbow(m)
    x = rng.standard_normal(m + 1) * 10.0
    out, buf = np.empty(400), np.empty(400)
    _events.rates(KP, x, m, E, b.ptr, b.start, b.stop, b.pos, out, buf)
    dense = x[1:] @ K[E] + x[0]
    bound = 4e-16 * (m + 1) * (np.abs(x[1:]) @ np.abs(K[E]) + abs(x[0])) \
        + 2.0 ** -56 / 400 * np.abs(x[1:]).sum()
    assert np.all(np.abs(out - dense) <= bound)
    assert np.abs(out - dense).max() > 0 or m == 1      # (rounding: not the same sums)


@pytest.mark.parametrize("m", [1, 5, 64])
def test_the_row_products_over_runs_equal_the_dense_product(m):
    """``_events.row_products`` (the elbow system's right-hand side over the packed runs) against
    numpy's K_E v over whole rows: equal to rounding plus what the skipped entries (each at most
    τ) can add, and exactly 0 for a row whose runs meet none of v's nonzero entries."""
    K, order, b, E, KP, rng = _packed_elbow(m)
    v = rng.standard_normal(400) * (rng.random(400) < 0.5)
    out = np.full(m, np.nan)
    _events.row_products(KP, v[order], m, E, b.ptr, b.start, b.stop, out)
    dense = K[E] @ v
    bound = 4e-16 * 400 * (np.abs(K[E]) @ np.abs(v)) + 2.0 ** -56 * np.abs(v).sum()
    assert np.all(np.abs(out - dense) <= bound)
    far = np.zeros(400)
    runs = np.concatenate([np.arange(b.start[q], b.stop[q])
                           for q in range(b.ptr[E[0]], b.ptr[E[0] + 1])])
    outside = np.setdiff1d(np.arange(400), runs)
    assert outside.size > 0                               # v only where row E[0] is skipped
    far[order[outside]] = 1.0
    _events.row_products(KP, far[order], m, E, b.ptr, b.start, b.stop, out)
    assert out[0] == 0.0 and np.abs(K[E[0]] @ far) <= 2.0 ** -56 * outside.size


def test_the_packed_runs_follow_the_elbow(monkeypatch):
    """The path's packed rows (``_Path.KP``, what the passes read) stay the runs of its elbow's
    kernel rows (``KE``, themselves K's rows in the blocks' order) through every event, entering
    and leaving, in the compiled loop and the numpy code alike: checked after each event or
    batch of the loop's events (``_after_event``) of a 300-point σ = 2^-3 column; and the elbow
    system's right-hand side over them (``elbow_rhs(runs=True)``, ``exact_state``'s) is the one
    over whole rows to rounding plus what the skipped entries (each at most τ) can add."""
    monkeypatch.setattr(locality, "MIN_POINTS", 0)
    monkeypatch.setattr(P, "COMPILED_FROM_N", 0)
    d = make_wahba2d(300, 0)
    K = gaussian_gram(d.X, sigma=2.0 ** -3)
    sizes, real = [], P._after_event

    def checked(run):
        real(run)
        path, b = run.path, run.path.blocks
        for k, p in enumerate(path.E):
            runs = np.concatenate([np.arange(b.start[q], b.stop[q])
                                   for q in range(b.ptr[p], b.ptr[p + 1])])
            assert np.array_equal(path.KE[k], K[p, b.order])
            assert np.array_equal(path.KP[k, :runs.size], K[p, b.order[runs]])
        beta = path.y * path.alpha                  # exact_state's right-hand side, over runs
        whole = path.elbow_rhs(path.s, beta)
        over_runs = path.elbow_rhs(path.s, beta, runs=True)
        bF = np.where(np.isin(np.arange(300), path.E), 0.0, beta)
        bound = 4e-16 * 300 * (np.abs(K[path.E]) @ np.abs(bF)) + 2.0 ** -56 * np.abs(bF).sum()
        assert over_runs[0] == whole[0]
        assert np.all(np.abs(over_runs[1:] - whole[1:]) <= bound)
        sizes.append(path.m)

    monkeypatch.setattr(P, "_after_event", checked)
    sols = P.solve_path(K, d.y, np.ones(300), 2.0 ** np.arange(-20.0, 1.0) / 300,
                        point_order=locality.locality_order(d.X))
    assert len(sizes) > 20 and max(sizes) > 100 and min(sizes) < max(sizes) - 10, sizes
    assert max(s.kkt_residual for s in sols) <= 1e-8


def test_blocks_are_used_only_where_they_pay(monkeypatch):
    """``blocks_for``: none without an order or below ``MIN_POINTS``; none for a wide kernel
    (its runs cover nearly all of K); an order that is not a permutation is refused."""
    d = make_wahba2d(300, 0)
    order = locality.locality_order(d.X)
    narrow, wide = (gaussian_gram(d.X, sigma=2.0 ** s) for s in (-3.0, 0.0))
    assert locality.blocks_for(narrow, order) is None          # 300 < MIN_POINTS
    monkeypatch.setattr(locality, "MIN_POINTS", 0)
    assert locality.blocks_for(narrow, None) is None
    assert locality.blocks_for(narrow, order).cover <= locality.MAX_COVER
    assert locality.blocks_for(wide, order) is None
    with pytest.raises(ValueError, match="permutation"):
        locality.blocks_for(narrow, np.r_[order[:-1], order[0]])


@pytest.mark.parametrize("n,log2_sigma,cost_b,compiled,schur_from", [
    (300, -3.0, 1.0, False, None), (300, -2.5, 4.5, False, None), (300, -3.0, 4.5, True, None),
    (300, -3.0, 1.0, False, 40), (1000, -3.0, 1.0, None, None)])
def test_a_column_with_blocks_answers_as_without(monkeypatch, n, log2_sigma, cost_b, compiled,
                                                 schur_from):
    """A whole column (log2(nλ) = −25 … 0) with the points in ``locality_order`` (blocks in
    use) and without: every answer within its KKT bound, recomputed here from α, b and the
    whole of K, and the same objective to 1e-9 relative or that bound. n = 1000 is the default
    threshold (``MIN_POINTS``) with the compiled loop on, as the app and benchmarks run. With
    ``schur_from`` = 40 the elbows are large elbows of the numpy code (block-LU inverse), whose
    directions are then checked off their rates (``_Path._check_on_rates``), not on A."""
    from svmcore.weights import class_weights_from_costs

    if n < locality.MIN_POINTS:
        monkeypatch.setattr(locality, "MIN_POINTS", 0)
    checks = []
    if schur_from is not None:
        monkeypatch.setattr(P._Path, "SCHUR_FROM", schur_from)
        real = P._Path._check_on_rates
        monkeypatch.setattr(P._Path, "_check_on_rates", lambda self: _count(checks, real(self)))
    d = make_wahba2d(n, 0)
    y = d.y
    upper = class_weights_from_costs(y, 1.0, cost_b).upper_bounds(y)
    K = gaussian_gram(d.X, sigma=2.0 ** log2_sigma)
    lams = 2.0 ** np.arange(-25.0, 0.01) / n
    order = locality.locality_order(d.X)
    assert locality.blocks_for(K, order) is not None
    ref = P.solve_path(K, y, upper, lams, compiled=compiled)
    sols = P.solve_path(K, y, upper, lams, compiled=compiled, point_order=order)
    for a, b in zip(sols, ref):
        f = K @ (y * a.alpha / (2 * n * a.lam)) + a.b
        floor = rounding_floor(K, y, a.alpha, a.lam, a.b)
        bound = max(1e-8, floor)
        assert kkt_residual(y, f, a.alpha, upper, scale=min(1.0, 2 * n * a.lam)) <= bound
        assert _objective(K, y, upper, a) == pytest.approx(
            _objective(K, y, upper, b), rel=1e-9, abs=2 * bound * upper.mean())
    if schur_from is not None:                     # (checks without blocks: all False)
        assert sum(checks) >= 50, (sum(checks), len(checks))


def _count(seen, value):
    seen.append(value)
    return value


def test_the_residual_read_off_the_rates_is_the_one_on_A(monkeypatch):
    """What ``_Path.direction`` compares when it checks off the rates: A x = [Σ x_E; dh_E] for
    the bordered elbow matrix A = [[0, 1'], [1, K_EE]], the rates dh from the blocks' runs and
    any x (a start's elbow at n = 300, σ = 2^-3), to rounding plus the skipped entries."""
    monkeypatch.setattr(locality, "MIN_POINTS", 0)
    d = make_wahba2d(300, 0)
    K = gaussian_gram(d.X, sigma=2.0 ** -3)
    run = P._setup(K, d.y, np.ones(300), [2.0 ** -4 / 300], 1e-8, True, None, 1e-11, None,
                   point_order=locality.locality_order(d.X))
    P._start_path(run, None)
    path = run.path
    m = path.m
    assert run.blocks is not None and m >= 50
    x = np.random.default_rng(0).standard_normal(m + 1)
    A = np.zeros((m + 1, m + 1))
    A[0, 1:] = A[1:, 0] = 1.0
    A[1:, 1:] = K[np.ix_(path.E, path.E)]
    dh = path._rates(x)
    on_rates = np.r_[x[1:].sum(), dh[path.E]]
    bound = 4e-16 * (m + 1) * (np.abs(A) @ np.abs(x)) + 2.0 ** -56 / 300 * np.abs(x).sum()
    assert np.all(np.abs(on_rates - A @ x) <= bound)


def test_the_sweeps_criteria_do_not_depend_on_the_order(monkeypatch, tmp_path):
    """The app's path: a CLI sweep of wahba2d at n = 1000 (the family passes ``locality_order``
    from ``LOCALITY_FROM`` points) against the same sweep without it: every criterion equal to
    1e-9 relative (GACV, SURE and GCKL; ξα, BRXA, the error counts and n_sv exactly)."""
    import pandas as pd

    import svmcore.families.svm.family as family
    from svmcore.cli import main

    args = ["sweep", "--dataset", "wahba2d", "--n", "1000", "--log2-nlambda=-25:0:5",
            "--log2-sigma=-3:-2.5:0.5", "--jobs", "1", "--out"]
    assert family.LOCALITY_FROM <= 1000
    used = []
    real = P.blocks_for
    monkeypatch.setattr(P, "blocks_for", lambda K, order: _count(used, real(K, order)))
    main(args + [str(tmp_path / "with.csv")])
    assert sum(b is not None for b in used) == 2    # both columns' paths (not resampling's)
    monkeypatch.setattr(family, "LOCALITY_FROM", 10 ** 9)
    main(args + [str(tmp_path / "without.csv")])
    a, b = pd.read_csv(tmp_path / "with.csv"), pd.read_csv(tmp_path / "without.csv")
    assert len(a) == len(b) == 12
    for col in ("gacv", "sure", "gckl"):
        np.testing.assert_allclose(a[col], b[col], rtol=1e-9, atol=0)
    for col in ("xa", "brxa", "misclass", "brmisclass", "n_sv"):
        np.testing.assert_array_equal(a[col], b[col])
