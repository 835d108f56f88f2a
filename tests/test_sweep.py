"""The sweep engine: grid, table, failures recorded per row, parallel = serial, Joachims' bound."""
import numpy as np
import pandas as pd
import pytest

from svmcore.families.svm import fit as fitmod
from svmcore._validation import SVMCoreError
from svmcore.datasets import load_dataset
from svmcore.datasets.simulations import make_solo_xor, make_wahba2d
from svmcore.families.svm.fit import fit_svm
from svmcore.kernels import Kernel
from svmcore.grid import BASE_COLUMNS, sweep
from svmcore.spec import Axis, GridSpec
from svmcore.weights import class_weights_from_costs


def parse_range(text):
    return Axis.parse(text, "axis", (-40, 20)).values()


def test_parse_range_includes_stop_on_the_grid():
    np.testing.assert_array_equal(parse_range("-25:0:1"), np.arange(-25, 1))
    np.testing.assert_allclose(parse_range("-3:3:0.5"), np.arange(-3, 3.01, 0.5))
    np.testing.assert_allclose(parse_range("0:1:0.3"), [0, 0.3, 0.6, 0.9])
    np.testing.assert_allclose(parse_range("2"), [2])
    for bad in ("a:b:c", "0:1", "0:1:0", "1:0:1"):
        with pytest.raises(SVMCoreError):
            parse_range(bad)


def test_table_rows_columns_and_values_match_single_fits():
    d = make_wahba2d(50, seed=3)
    w = class_weights_from_costs(d.y, 1, 2, 0.1)
    grid = GridSpec.parse("-6:0:3", "-1:1:1")
    res = sweep(d, grid, cost_a=1, cost_b=2, prior_a=0.1, solver="cvxopt",
                criteria=["obs", "gacv", "xa", "brxa", "sure", "gckl", "misclass", "brmisclass"])
    t = res.table
    assert len(t) == 9
    assert list(t.columns[:6]) == BASE_COLUMNS + ["n_sv", "train_error"]
    np.testing.assert_allclose(t["lambda"], 2.0 ** t.log2_nlambda / 50)
    np.testing.assert_allclose(t.sigma, 2.0 ** t.log2_sigma)
    # one row recomputed from an independent single fit with the kernel on raw inputs
    row = t.iloc[4]
    fit = fit_svm(d.X, d.y, row["lambda"], Kernel("gaussian", sigma=row.sigma), w, "libsvm")
    from svmcore.families.svm import criteria as C
    assert row.gacv == pytest.approx(C.gacv(fit), rel=1e-6)
    assert row.brxa == pytest.approx(C.brxa(fit))
    assert row.brmisclass == pytest.approx(C.brmisclass(fit, d.p))
    assert row.n_sv == fit.n_sv
    # the surface pivot has σ rows and λ columns
    xs, ys, Z = res.surface("gacv")
    assert Z.shape == (3, 3) and list(xs) == [-6, -3, 0] and list(ys) == [-1, 0, 1]
    assert Z[1, 1] == pytest.approx(row.gacv)


def test_a_failing_grid_point_is_recorded_not_raised(monkeypatch):
    d = make_wahba2d(40, seed=1)
    real = fitmod._solver_registry()["cvxopt"]

    def flaky(K, y, upper, lam):
        if abs(np.log2(lam * len(y)) + 2) < 1e-9:
            raise FloatingPointError("simulated breakdown")
        return real(K, y, upper, lam)

    monkeypatch.setattr(fitmod, "_solver_registry", lambda: {"cvxopt": flaky})
    res = sweep(d, GridSpec.parse("-4:0:2", "0:0:1"), solver="cvxopt")
    t = res.table
    bad = t[t.log2_nlambda == -2]
    assert "simulated breakdown" in bad.fit_error.iloc[0] and np.isnan(bad.gacv.iloc[0])
    assert (t[t.log2_nlambda != -2].fit_error == "").all()
    assert np.isfinite(t[t.log2_nlambda != -2].gacv).all()


def test_progress_and_parallel_equal_serial():
    d = make_wahba2d(40, seed=2)
    grid = GridSpec.parse("-4:0:2", "-1:1:1")
    calls = []
    serial = sweep(d, grid, solver="cvxopt", progress=lambda a, b: calls.append((a, b)))
    assert calls[0] == (0, 3) and calls[-1] == (3, 3)
    par = sweep(d, grid, solver="cvxopt", n_jobs=2)
    cols = ["gacv", "xa", "brxa", "sure", "gckl", "misclass"]
    pd.testing.assert_frame_equal(serial.table[cols], par.table[cols])


def test_targets_need_truth():
    d = load_dataset("sonar")
    with pytest.raises(SVMCoreError, match="gckl"):
        sweep(d, GridSpec.parse("0:0:1", "0:0:1"), criteria=["gckl"])


@pytest.mark.parametrize("data", [
    make_wahba2d(60, seed=8), make_solo_xor(60, seed=9),
    load_dataset("haberman").subset(np.arange(0, 306, 5)),
    load_dataset("sonar").subset(np.arange(0, 208, 3)),
])
def test_joachims_xa_rho2_bounds_the_loo_error(data):
    # XA(ρ = 2, R = max K_ii − min K_ij) ≥ exact leave-one-out error rate (Joachims 2000)
    res = sweep(data, GridSpec.parse("-8:0:4", "-1:1:1"), criteria=["xa", "loo"],
                solver="cvxopt")
    t = res.table
    assert np.isfinite(t.loo_error).all()
    assert (t.xa >= t.loo_error - 1e-12).all(), t[["xa", "loo_error"]]
    assert (t.xa > t.loo_error).any()    # a bound, not an identity


def test_held_out_scores_match_sklearn_predictions():
    from sklearn.svm import SVC
    d = load_dataset("heart")
    train, test = d.subset(np.arange(0, 270, 2)), d.subset(np.arange(1, 270, 2))
    w = class_weights_from_costs(train.y, 1, 3, 0.3)
    res = sweep(train, GridSpec.parse("-3:-3:1", "1:1:1"), cost_a=1, cost_b=3, prior_a=0.3,
                criteria=["gacv"], solver="cvxopt", test=test)
    row = res.table.iloc[0]
    n = train.n
    svc = SVC(C=1 / (2 * n * row["lambda"]), kernel="rbf", gamma=1 / (2 * row.sigma ** 2), tol=1e-10,
              class_weight={1: w.L_pos, -1: w.L_neg}).fit(train.X, train.y.astype(int))
    f = svc.decision_function(test.X)
    yt = test.y
    L = np.where(yt > 0, w.L_pos, w.L_neg)
    assert row.test_hinge == pytest.approx(np.mean(L * np.maximum(0, 1 - yt * f)), rel=1e-6)
    assert row.test_error == pytest.approx(np.mean(yt * f <= 0))
    assert row.test_cost_error == pytest.approx(np.mean(L * (yt * f <= 0)))


def test_loo_row_limit_is_named():
    d = make_wahba2d(1001, seed=0)
    with pytest.raises(SVMCoreError, match="limited to 1000 rows; this data set has 1001"):
        sweep(d, GridSpec.parse("0", "0"), criteria=["loo"])


def test_auto_jobs_parallel_only_when_it_pays(monkeypatch):
    from svmcore.grid import auto_jobs

    monkeypatch.setattr("os.cpu_count", lambda: 4)
    assert auto_jobs(200, 13) == 1                      # ~0.8 s in one process
    assert auto_jobs(500, 13) == 4
    assert auto_jobs(500, 3) == 3                       # at most one worker per column
    assert auto_jobs(100, 13, True) == 4     # heavy refits (LOO) make every column heavy
    assert auto_jobs(100, 13, False) == 1
    monkeypatch.setattr("os.cpu_count", lambda: None)
    assert auto_jobs(5000, 13) == 1
    monkeypatch.setattr("os.cpu_count", lambda: 4)
    # an estimate (seconds in one process) decides over the size: workers only from 1 s on
    assert auto_jobs(500, 13, estimate=0.9) == 1
    assert auto_jobs(100, 13, True, estimate=0.9) == 1
    assert auto_jobs(200, 13, estimate=1.0) == 4
    assert auto_jobs(200, 3, estimate=60.0) == 3


def test_a_sweep_starts_workers_only_when_its_estimate_repays_them(monkeypatch):
    """run_grid asks the rates how long the sweep takes in one process, and starts workers from
    PARALLEL_FROM_SECONDS on, one per column up to the cores. (n = 300 on this 5 × 3 grid is
    estimated at about 0.2 s on the 2-core AMD EPYC: it took 0.09 s in one process and 1.1 s on two
    new workers, which every sweep from n = 300 used to start.) The estimates are set here, so that
    the test does not depend on this machine's speed."""
    import os

    from svmcore.grid import PARALLEL_FROM_SECONDS, run_grid
    from svmcore.spec import make_spec
    from svmcore.timing import Estimate

    data = make_wahba2d(300, seed=0)
    spec = make_spec("svm", log2_nlambda="-12:0:3", log2_sigma="-1:1:1", criteria=("gacv", "xa"))
    asked = []
    for seconds, workers in ((0.99 * PARALLEL_FROM_SECONDS, 1),
                             (PARALLEL_FROM_SECONDS, min(3, os.cpu_count() or 1))):
        monkeypatch.setattr("svmcore.timing.sweep_estimate",
                            lambda spec, n, book=None, s=seconds: asked.append(n) or Estimate(s))
        assert run_grid(spec, data).workers == workers
    assert asked == [300, 300]


@pytest.mark.filterwarnings("ignore:.*tasks have been successfully executed:UserWarning")
def test_workers_count_as_up_after_a_parallel_sweep_until_they_idle_out(monkeypatch):
    """The estimate prices starting the workers unless an earlier sweep's are still up
    (``grid.workers_running``): true during and after a finished parallel sweep, false once they
    have been idle past loky's timeout, after a cancelled sweep (joblib stops its busy workers),
    and never for a sweep in this process."""
    import os
    import time

    import svmcore.grid as G
    from svmcore.cancel import Cancelled
    from svmcore.spec import make_spec

    if (os.cpu_count() or 1) < 2:
        pytest.skip("one core: every sweep runs in this process")
    data = make_wahba2d(40, seed=0)
    spec = make_spec("svm", log2_nlambda="-8:0:4", log2_sigma="-1:1:1", criteria=("gacv",))
    monkeypatch.setattr(G, "_workers_seen", {})
    assert run_in_process(G, spec, data) == 1 and not G.workers_running()
    seen = []
    assert G.run_grid(spec, data, n_jobs=2, progress=lambda d, t: seen.append(G.workers_running())).workers == 2
    assert seen[1:] == [True] * 3 and G.workers_running()          # during (after the first column) and after
    later = time.monotonic() + G.WORKER_IDLE_SECONDS + 1
    with monkeypatch.context() as m:
        m.setattr(G.time, "monotonic", lambda: later)
        assert not G.workers_running()
    with pytest.raises(Cancelled):
        G.run_grid(spec, data, n_jobs=2, cancel=lambda: True)
    assert not G.workers_running()


def run_in_process(G, spec, data) -> int:
    return G.run_grid(spec, data, n_jobs=1).workers


@pytest.mark.parametrize("solver", ["path", "cvxopt"])
def test_cancel_is_polled_inside_a_column(monkeypatch, solver):
    """A long σ column stops at the cancel, not at its end: the path polls it every CHECK_EVERY
    events and pointwise solvers between λ (svmcore.cancel); nothing of the column is returned."""
    from svmcore import cancel as cancel_mod
    from svmcore.grid import Cancelled

    d = make_wahba2d(60, seed=1)
    polls, where = [], []

    def cancel():
        import traceback
        polls.append(1)
        where.append([f.name for f in traceback.extract_stack()])
        return len(polls) >= 2                 # the runner's poll, then the solver's first

    done = []
    with pytest.raises(Cancelled):
        sweep(d, GridSpec.parse("-12:0:2", "0:0:1"), solver=solver, cancel=cancel,
              progress=lambda a, b: done.append(a))
    assert done == [0]                          # no column finished
    inside = "_solve_path" if solver == "path" else "solve_lambdas"
    assert inside not in where[0] and inside in where[1]
    assert cancel_mod._CALLBACK.get() is None   # the callback does not outlive the sweep


def test_columns_on_threads_equal_one_column_after_another():
    """``run_grid(threads=True)``: the σ columns on two threads of this process give the table of
    one process bit for bit (grid growth and CV folds carried on included), report every column's
    progress, and a cancel stops the running columns (the solvers poll it) before it returns."""
    import threading

    from svmcore.cancel import Cancelled
    from svmcore.grid import run_grid
    from svmcore.spec import make_spec

    d = make_wahba2d(80, seed=4)
    spec = make_spec("svm", data={"source": "inline", "name": "w"}, log2_nlambda="-8:0:2",
                     log2_sigma="-1:1:1", criteria=["gacv", "xa", "cv", "misclass"], cost_b=2.0,
                     extend_grid=True)
    serial = run_grid(spec, d, n_jobs=1)
    seen = []
    par = run_grid(spec, d, n_jobs=2, threads=True, progress=lambda a, b: seen.append((a, b)))
    assert par.workers == 2 and par.spec.grid == serial.spec.grid
    cols = ["gacv", "xa", "cv_hinge", "cv_error", "misclass", "kkt_residual"]
    pd.testing.assert_frame_equal(serial.table[cols], par.table[cols], check_exact=True)
    assert seen[0] == (0, 3) and (3, 3) in seen
    names = []

    def cancel():
        names.append(threading.current_thread().name)
        return len(names) > 3

    with pytest.raises(Cancelled):
        run_grid(spec, d, n_jobs=2, threads=True, cancel=cancel)
    assert any(n.startswith("svmcore-column") for n in names)    # polled inside the columns
    assert not [t for t in threading.enumerate() if t.name.startswith("svmcore-column")]


def test_the_path_runs_its_columns_on_threads_where_its_loop_is_compiled():
    """``SVMFamily.columns_in_threads``: from ``COMPILED_FROM_N`` points, counting the CV folds'
    and LOO's smaller paths; never for the pointwise solvers."""
    from svmcore.families.svm.solvers.path import COMPILED_FROM_N as N
    from svmcore.spec import make_spec

    def spec(**kw):
        return make_spec("svm", data={"source": "inline", "name": "w"}, **kw)

    fam = spec().family
    assert fam.columns_in_threads(spec(), N) and not fam.columns_in_threads(spec(), N - 1)
    assert not fam.columns_in_threads(spec(solver="libsvm"), 10 * N)
    five = spec(criteria=["gacv", "cv"], cv_folds=5)
    assert fam.columns_in_threads(five, N * 5 // 4) and not fam.columns_in_threads(five, N * 5 // 4 - 1)
    assert not fam.columns_in_threads(spec(criteria=["loo"]), N)
    assert fam.columns_in_threads(spec(criteria=["loo"]), N + 1)
