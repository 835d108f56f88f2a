"""--extend-grid: the grid grows in its own step until every criterion's pick is strictly inside
(or at a hard limit), and every number in the grown table equals a plain run on the final grid."""
import numpy as np
import pytest

from svmcore.datasets import load_dataset
from svmcore.datasets.simulations import make_wahba2d
from svmcore.grid import sweep
from svmcore.spec import LOG2_NLAMBDA_LIMITS, LOG2_SIGMA_LIMITS, Axis, GridSpec

CRIT = ["gacv", "xa", "brxa", "misclass", "brmisclass"]


def _check(res, plain):
    g = res.spec.grid
    lam, sig = g.log2_nlambda.values(), g.log2_sigma.values()
    t = res.table
    assert len(t) == g.size                      # the whole final grid, once each
    np.testing.assert_array_equal(np.unique(t.log2_nlambda), lam)
    np.testing.assert_array_equal(np.unique(t.log2_sigma), sig)
    for c in res.columns:
        p = res.pick(c)
        assert not p.edge or p.at_limit, (c, p)
        # the pick is a true minimizer of the usable rows (independently: a plain argmin)
        v = t[c].to_numpy(float)
        assert v[p.row] == np.nanmin(np.where(t.flagged, np.nan, v))
    # the rows added by growth equal a run without extension on the final grid
    for c in CRIT:
        if c in t:
            np.testing.assert_allclose(t[c].to_numpy(float), plain.table[c].to_numpy(float),
                                       rtol=1e-9, atol=1e-12, err_msg=c)


@pytest.mark.parametrize("costs", [{}, dict(cost_a=1, cost_b=2, prior_a=0.1)])
def test_wahba2d_picks_end_inside(costs):
    d = make_wahba2d(100, seed=3)
    crit = CRIT[:3] + (["misclass"] if not costs else ["brmisclass"])
    res = sweep(d, GridSpec.parse("-8:0:2", "-1:0:1"), criteria=crit, extend_grid=True, **costs)
    assert res.spec.grid.size > 10                # it did grow
    plain = sweep(d, res.spec.grid, criteria=crit, **costs)
    _check(res, plain)


def test_bundled_data_picks_end_inside():
    d = load_dataset("haberman").subset(np.arange(0, 306, 3))
    res = sweep(d, GridSpec.parse("-6:0:3", "0:1:1"), criteria=["gacv", "xa"], extend_grid=True)
    plain = sweep(d, res.spec.grid, criteria=["gacv", "xa"])
    _check(res, plain)


def test_growth_stays_on_the_lattice_and_within_limits():
    from svmcore.grid import _grown_grid
    every_edge = {"small-λ edge", "large-λ edge", "small-σ edge", "large-σ edge"}
    # no whole step fits: −39 − 1.5 < −40, 19 + 1.5 > 20, ±9.75 ± 0.5 beyond ±10
    assert _grown_grid(GridSpec(Axis(-39.0, 19.0, 1.5), Axis(-9.75, 9.75, 0.5)), every_edge) is None
    # one step fits at each end (and only one)
    g1 = _grown_grid(GridSpec(Axis(-38.0, 18.0, 1.5), Axis(-9.0, 9.0, 0.75)), every_edge)
    assert g1.log2_nlambda == Axis(-39.5, 19.5, 1.5) and g1.log2_sigma == Axis(-9.75, 9.75, 0.75)
    assert g1.log2_nlambda.start >= LOG2_NLAMBDA_LIMITS[0] and g1.log2_sigma.stop <= LOG2_SIGMA_LIMITS[1]
    g2 = _grown_grid(GridSpec(Axis(-6.0, 0.0, 2.0), Axis(0.0, 0.0, 0.0)), {"large-λ edge"})
    assert g2.log2_nlambda == Axis(-6.0, 4.0, 2.0)   # k = max(2, ceil(4/4)) = 2 steps of 2
    assert g2.log2_sigma == Axis(0.0, 0.0, 0.5)


def test_growth_stops_for_a_criterion_that_is_flat_toward_an_edge(monkeypatch):
    """A criterion 1 + nλ falls without end as λ → 0, by less and less: it drives the growth only
    while one growth step still lowers its minimum by more than FLAT_RTOL, then the grid stops
    (with a note) instead of growing to the hard limit log2(nλ) = −40. What the stopped grid
    misses is checked against the same criterion on the whole range down to the limit."""
    from svmcore import families
    from svmcore.families.base import Criterion, Output, check_family
    from svmcore.families.svm.family import SVMFamily
    from svmcore.grid import FLAT_RTOL, run_grid
    from svmcore.spec import make_spec

    slope = Criterion("slope", "SLOPE", "1 + nλ (a test entry)", lambda fit, ctx: 1.0 + fit.lam * fit.n,
                      outputs=(Output("slope", "SLOPE", "#123456"),))

    class SlopeFamily(SVMFamily):
        name = "slopefam"
        criteria = SVMFamily.criteria + (slope,)

    fam = SlopeFamily()
    check_family(fam)
    monkeypatch.setitem(families.FAMILIES, "slopefam", "unused")
    monkeypatch.setitem(families._LOADED, "slopefam", fam)
    data = make_wahba2d(40, 0)
    spec = make_spec("slopefam", data={"source": "inline", "name": "w"}, log2_nlambda="-6:0:2",
                     log2_sigma="0", criteria=["slope"], extend_grid=True)
    res = run_grid(spec, data, n_jobs=1)
    low = res.spec.grid.log2_nlambda.start
    assert -40 < low < -6
    assert any(n.startswith("slope: the last growth step lowered its minimum") for n in res.notes)
    found = res.table["slope"].min()
    full = run_grid(make_spec("slopefam", data={"source": "inline", "name": "w"}, log2_nlambda="-40:0:2",
                              log2_sigma="0", criteria=["slope"]), data, n_jobs=1)
    best = full.table["slope"].min()
    assert best <= found and (found - best) / best < 4 * FLAT_RTOL
    np.testing.assert_allclose(best, 1.0 + 2.0 ** -40, rtol=1e-12)


def _objective(K, y, upper, sol):
    """(1/n) Σ L(y_i)(1 − y_i f_i)_+ + λ c'Kc, c = y α / (2nλ) (docs/svm.md)."""
    c = y * sol.alpha / (2 * len(y) * sol.lam)
    return float(np.mean(upper * np.maximum(0.0, 1.0 - y * sol.f)) + sol.lam * c @ K @ c)


@pytest.mark.parametrize("log2_sigma", [-1.0, 1.0, 3.0])
def test_a_path_carried_on_from_its_last_answer_crosses_the_same_events(log2_sigma):
    """A growth step toward small λ carries each column's path on from its answer at the old
    smallest λ (``solve_lambdas``'s ``start``) instead of following it down from the top again.
    The carried path crosses exactly the events the whole path crosses below that λ, and its
    answers are as exact: KKT residuals within the path's tolerance or rounding floor, and primal
    objectives equal to the whole path's within the duality gap those residuals allow."""
    from svmcore.families.svm.fit import path_end, solve_lambdas
    from svmcore.families.svm.solvers.path import within_tolerance
    from svmcore.kernels import gaussian_gram

    d = make_wahba2d(200, 0)
    y, n = d.y, 200
    upper = np.where(y > 0, 1.0, 4.5)                     # the C_B = 4.5 view's costs
    K = gaussian_gram(d.X, sigma=2.0 ** log2_sigma)
    base = list(2.0 ** np.arange(-20.0, 9.0, 2.0) / n)
    new = list(2.0 ** np.arange(-28.0, -21.0, 2.0) / n)
    top = solve_lambdas(K, y, upper, base)
    end = path_end(base, top)
    assert end is not None and end.lam == min(base)
    carried = solve_lambdas(K, y, upper, new, start=end)
    whole = solve_lambdas(K, y, upper, base + new)[len(base):]
    assert top[0].info["events"] + carried[0].info["events"] == whole[0].info["events"]
    assert carried[0].info["events"] > 0
    for c, w in zip(carried, whole):
        assert within_tolerance(c) and c.info["fallbacks"] == 0
        gap = np.mean(upper) * (c.kkt_residual + w.kkt_residual)
        assert abs(_objective(K, y, upper, c) - _objective(K, y, upper, w)) <= gap


def test_growth_toward_small_lambda_carries_each_column_on(monkeypatch):
    """In a sweep that grows toward small λ, every old column's new λ (and every CV fold's) come
    from a path carried on from where the column stopped, and the table equals a plain run on the
    final grid (``_check``)."""
    from svmcore.families.svm.solvers import path

    real, starts = path.solve_path, []

    def spy(K, y, upper, lams, **kw):
        starts.append(kw.get("start") is not None)
        return real(K, y, upper, lams, **kw)

    monkeypatch.setattr(path, "solve_path", spy)
    d = make_wahba2d(100, seed=3)
    costs, crit = dict(cost_a=1, cost_b=2, prior_a=0.1), ["gacv", "xa", "cv", "brmisclass"]
    res = sweep(d, GridSpec.parse("-8:0:2", "-1:0:1"), criteria=crit, extend_grid=True, **costs)
    grid = res.spec.grid
    assert grid.log2_nlambda.start < -8
    # every path a growth step toward small λ asked for in the two first columns carried on
    assert sum(starts) >= 2 * (1 + 5)                    # the full sample and five CV folds
    plain = sweep(d, grid, criteria=crit, **costs)
    _check(res, plain)
    np.testing.assert_allclose(res.table["cv_hinge"], plain.table["cv_hinge"], rtol=1e-9)


def test_a_carried_path_answers_lambdas_on_both_sides_of_its_start_in_their_order():
    """``solve_lambdas`` with a start and λ on both sides of it (a growth step at both λ edges):
    the λ above come from a path of their own, those below from the path carried on, each in its
    place, and every answer agrees with the whole path's to its KKT tolerance (objectives within
    the duality gap, as above)."""
    from svmcore.families.svm.fit import path_end, solve_lambdas
    from svmcore.kernels import gaussian_gram

    d = make_wahba2d(120, 2)
    y, n = d.y, 120
    upper = np.ones(n)
    K = gaussian_gram(d.X, sigma=0.5)
    base = list(2.0 ** np.arange(-8.0, 1.0, 2.0) / n)
    end = path_end(base, solve_lambdas(K, y, upper, base))
    asked = list(2.0 ** np.array([-14.0, 4.0, -10.0, 2.0, -12.0]) / n)    # in no order
    got = solve_lambdas(K, y, upper, asked, start=end)
    whole = solve_lambdas(K, y, upper, asked)
    assert [g.lam for g in got] == asked
    assert got[0].info["start"] == "given" and got[1].info["start"] != "given"
    for g, w in zip(got, whole):
        gap = np.mean(upper) * (g.kkt_residual + w.kkt_residual) + 1e-12
        assert abs(_objective(K, y, upper, g) - _objective(K, y, upper, w)) <= gap


def _table(rows):
    import pandas as pd
    return pd.DataFrame(rows, columns=["log2_nlambda", "log2_sigma", "sure", "sure_degenerate"])


def test_sure_pick_passes_over_the_plateaus_rim():
    """A hand-made SURE surface. Column σ = 2^-1 falls from 0.66 onto its plateau (0.31) through
    0.55: that 0.55 is the rim, not a minimum. Column σ = 2^1 has an interior minimum 0.60 whose
    next smaller λ (0.90) is off the plateau. The pick is 0.60, with a note naming both; a point
    next to the plateau but lower than it (0.25 above 0.28) is a minimum, not a rim."""
    from svmcore.families.svm.family import FAMILY
    from svmcore.grid import pick

    t = _table([(0, -1, 0.66, False), (-4, -1, 0.55, False), (-8, -1, 0.31, True),
                (0, 1, 0.70, False), (-4, 1, 0.60, False), (-8, 1, 0.90, False), (-12, 1, 0.20, True)])
    p = pick(t, "sure", FAMILY)
    assert (t.log2_nlambda[p.row], t.log2_sigma[p.row]) == (-4, 1)
    assert "degenerate plateau" in p.note and "rim" in p.note
    t2 = _table([(0, 0, 0.40, False), (-4, 0, 0.25, False), (-8, 0, 0.28, True)])
    p2 = pick(t2, "sure", FAMILY)
    assert t2.sure[p2.row] == 0.25 and p2.note == ""
    t3 = _table([(0, 0, 0.60, False), (-4, 0, 0.50, False), (-8, 0, 0.30, True)])   # all rim
    p3 = pick(t3, "sure", FAMILY)       # 0.60 is not on the rim: its next smaller λ is off it
    assert t3.sure[p3.row] == 0.60
    t4 = _table([(0, 0, 0.50, False), (-4, 0, 0.30, True)])
    p4 = pick(t4, "sure", FAMILY)
    assert t4.sure[p4.row] == 0.50 and "every point off the plateau is on its rim" in p4.note


def test_sure_does_not_grow_the_default_view_toward_small_sigma_to_its_rim():
    """The app's default view (wahba2d n = 200, log2(nλ) −20…8 step 2, log2 σ −3…3) with growth.
    SURE's lowest point off its plateau sits on the plateau's rim at ever smaller σ (the rim falls
    toward e⁻¹ as K → I); picking it grew the grid to σ = 2^-8, twice the columns. Now the grown
    grid's SURE pick is the pick of the whole σ range down to the hard limit 2^-10, computed
    without growth."""
    from svmcore.grid import run_grid
    from svmcore.spec import make_spec

    data = make_wahba2d(200, 0)
    spec = make_spec("svm", data={"source": "inline", "name": "w"}, log2_nlambda="-20:8:2",
                     log2_sigma="-3:3:1", extend_grid=True)
    res = run_grid(spec, data, n_jobs=1)
    assert res.spec.grid.log2_sigma.start > -8
    full = run_grid(make_spec("svm", data={"source": "inline", "name": "w"}, log2_nlambda="-20:8:2",
                              log2_sigma=f"{LOG2_SIGMA_LIMITS[0]:g}:5:1", criteria=["sure"]),
                    data, n_jobs=1)
    got, want = res.minimizer("sure"), full.minimizer("sure")
    assert (got.log2_nlambda, got.log2_sigma) == (want.log2_nlambda, want.log2_sigma)
    assert got.sure == pytest.approx(want.sure, rel=1e-9)
