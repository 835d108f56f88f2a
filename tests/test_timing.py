"""svmcore.timing: rates recorded, interpolated on the log-log line, extrapolated, persisted as data."""
import json
import math

import pytest

from svmcore.timing import DEFAULT_POWER, RateBook, workload


def test_workload_keys():
    assert workload(["gacv", "xa"]) == "insample"
    assert workload(["gacv", "cv"], 10) == "cv10"
    assert workload(["loo", "cv"], 5) == "cv5+loo"


def test_exact_interpolated_and_extrapolated_rates():
    book = RateBook()
    book.add("path", "insample", 100, 10, 1.0)            # 0.1 s/point at n = 100
    book.add("path", "insample", 400, 10, 16.0)           # 1.6 s/point at n = 400: slope 2
    assert book.seconds_per_point("path", "insample", 100) == pytest.approx(0.1)
    # between the two: on the line through them, 0.1 * (200/100)^2
    assert book.seconds_per_point("path", "insample", 200) == pytest.approx(0.4)
    # beyond: the measured slope (2), from the nearest measurement
    assert book.seconds_per_point("path", "insample", 800) == pytest.approx(1.6 * 4)
    # whole-grid per-point records: the rate times the points (10 λ × 5 columns)
    assert book.grid_seconds("path", workload(["gacv"]), 200, list(range(10)), 5) == pytest.approx(20.0)
    assert book.seconds_per_point("cvxopt", "insample", 200) is None      # never measured
    assert book.grid_seconds("path", workload(["cv"]), 200, [0.0], 5) is None


def test_one_measurement_uses_the_default_power_and_median_of_repeats():
    book = RateBook()
    for sec in (1.0, 3.0, 2.0):
        book.add("path", "loo", 100, 1, sec)
    assert book.seconds_per_point("path", "loo", 100) == 2.0
    assert book.seconds_per_point("path", "loo", 50) == pytest.approx(2.0 * 0.5 ** DEFAULT_POWER)


def test_bad_records_are_ignored_and_round_trip_is_data_only():
    book = RateBook()
    book.add("path", "insample", 100, 0, 1.0)
    book.add("path", "insample", 100, 5, math.nan)
    assert book.records == []
    book.add("path", "insample", 100, 4, 2.0)
    back = RateBook.from_records(json.loads(book.to_json())["records"] + [{"solver": "x"}])
    assert back.records == book.records


def test_baseline_rates_were_measured_here():
    """The shipped rates come from bench/measure_rates.py: positive, and growing with n."""
    book = RateBook.baseline()
    assert book.records, "svmcore/data/rates.json is missing"
    small = book.seconds_per_column("path", "insample", 100)
    large = book.seconds_per_column("path", "insample", 400)
    assert 0 < small < large
    for solver in ("cvxopt", "libsvm"):          # per point at each λ: dearer at small λ
        assert book.grid_seconds(solver, "insample", 100, [-20], 1) > \
            book.grid_seconds(solver, "insample", 100, [8], 1) > 0
    soft = [book.seconds_per_point("newton", "insample", n) for n in (100, 400, 1600, 5000)]
    assert 0 < soft[0] < soft[1] < soft[2] < soft[3]     # the soft family's, per point


def test_the_largest_training_set_is_priced_from_a_measurement():
    """The path's in-sample rate is measured up to the largest training set the app and the CLI
    take (``spec.MAX_ROWS``), so its estimate is read between measurements, not extrapolated from
    small n (from 1,600 points the cost per column followed n^3.1, then n^3.7 to 5000, then n^2.9
    to 10,000: extrapolated, the n = 10,000 paper grid was estimated at twice its time); and the
    rate grows with n over the measured range."""
    from svmcore.spec import MAX_ROWS

    rates = RateBook.baseline(calibrate=False)._rates("path", "insample", "column")
    assert max(rates) >= MAX_ROWS
    ns = sorted(n for n in rates if n >= 1000)       # (the compiled loop starts at 1,000)
    assert len(ns) >= 4 and all(rates[a] < rates[b] for a, b in zip(ns, ns[1:]))


def test_path_rates_are_per_column_whatever_the_number_of_lambdas():
    """The path answers every λ of a column from one path: its estimate is seconds per column
    times the columns, the same for 3 or 30 λ."""
    book = RateBook()
    book.add("path", "insample", 200, 7, 0.7, per="column")        # 0.1 s per column
    assert book.seconds_per_column("path", "insample", 200) == pytest.approx(0.1)
    assert book.seconds_per_point("path", "insample", 200) is None   # not a per-point record
    assert book.grid_seconds("path", "insample", 200, [-4, 0, 4], 5) == pytest.approx(0.5)
    assert book.grid_seconds("path", "insample", 200, list(range(-20, 10)), 5) == pytest.approx(0.5)


def test_pointwise_rates_are_summed_over_the_grids_lambdas():
    """Pointwise solvers: the rate at each λ, interpolated on log seconds between measured λ and
    held at the nearest one beyond them, summed over the grid's λ, times the columns."""
    book = RateBook()
    book.add("libsvm", "insample", 100, 2, 2 * 0.01, log2_nlambda=0.0)
    book.add("libsvm", "insample", 100, 2, 2 * 1.00, log2_nlambda=-8.0)
    # λ = 0: 0.01; −4: geometric mean 0.1; −8 and −12 (beyond): 1.0; 4 (beyond): 0.01
    expect = 0.01 + 0.1 + 1.0 + 1.0 + 0.01
    assert book.grid_seconds("libsvm", "insample", 100, [0, -4, -8, -12, 4], 3) == pytest.approx(3 * expect)


def test_sweep_estimate_prices_one_growth_step_toward_small_lambda():
    """With grid growth on, the first growth step toward small λ is priced (for the path a rerun of
    every column: its new λ lie below the old ones; nothing at the hard limit), and the point
    estimate is the midpoint between no growth and that step."""
    from svmcore.spec import make_spec
    from svmcore.timing import sweep_estimate

    book = RateBook()
    book.add("path", "insample", 200, 1, 0.1, per="column")
    book.add("path", "cv5", 200, 1, 0.5, per="column")
    data = {"source": "simulation", "name": "wahba2d", "n": 200}
    spec = make_spec("svm", data=data, log2_nlambda="-20:8:2", log2_sigma="-3:3:1",
                     criteria=["gacv", "cv"], extend_grid=True, solver="path")
    est = sweep_estimate(spec, 200, book)
    assert est.base == pytest.approx(7 * 0.5) and est.cv == pytest.approx(7 * 0.4)
    assert est.step == pytest.approx(7 * 0.5) and est.most == pytest.approx(7.0)
    assert est.total == pytest.approx(3.5 + 0.5 * 3.5)
    off = sweep_estimate(make_spec("svm", data=data, log2_nlambda="-20:8:2", log2_sigma="-3:3:1",
                                   criteria=["gacv"], extend_grid=False, solver="path"), 200, book)
    assert off.step == 0.0 and off.total == off.most == pytest.approx(0.7)
    at_limit = make_spec("svm", data=data, log2_nlambda="-40:8:2", log2_sigma="-3:3:1",
                         criteria=["gacv"], extend_grid=True, solver="path")
    assert sweep_estimate(at_limit, 200, book).step == 0.0
    assert sweep_estimate(make_spec("svm", data=data, criteria=["gacv", "loo"], solver="path"),
                          200, book) is None                    # LOO never measured


def test_sweep_estimate_prices_the_soft_family_per_grid_point():
    """The soft family (penalized likelihood) is priced per grid point under ``SOFT``: the in-sample
    rate times the points (with exact GACV, the family's default, or without it), its CV deviance
    as the "cv5" workload's extra, and a growth step as the new λ's points; a workload never
    measured gives no estimate."""
    from svmcore.spec import make_spec
    from svmcore.timing import SOFT, soft_workload, sweep_estimate

    assert soft_workload([]) == soft_workload(["obs", "gacv"]) == "insample"
    assert soft_workload(["rangacv", "ckl"]) == "no_traces"
    book = RateBook()
    book.add(SOFT, "insample", 200, 100, 1.0)            # 0.01 s a point
    book.add(SOFT, "no_traces", 200, 100, 0.5)           # 0.005 s a point without exact GACV
    book.add(SOFT, "cv5", 200, 100, 3.0)                 # CV adds 0.02 s a point
    data = {"source": "simulation", "name": "wahba2d", "n": 200}

    def spec(**kw):
        return make_spec("logistic", data=data, log2_nlambda="-20:8:2", log2_sigma="-3:3:1", **kw)

    est = sweep_estimate(spec(criteria=["gacv", "rangacv"]), 200, book)
    assert est.solver == SOFT and est.base == pytest.approx(105 * 0.01) and est.step == 0.0
    assert sweep_estimate(spec(criteria=["rangacv", "ckl"]), 200, book).base == \
        pytest.approx(105 * 0.005)
    cv = sweep_estimate(spec(criteria=["gacv", "cv_deviance"], cv_folds=10), 200, book)
    assert cv.cv == pytest.approx(105 * 0.02 * 10 / 5)          # rescaled from 5 folds to 10
    assert cv.base == pytest.approx(105 * 0.01 + 105 * 0.04)
    grown = sweep_estimate(spec(criteria=["gacv"], extend_grid=True), 200, book)
    assert grown.step == pytest.approx(4 * 7 * 0.01)     # four steps of 2 below −20, seven σ
    # at 400 points: the one measured size scaled by DEFAULT_POWER
    assert sweep_estimate(spec(criteria=["gacv"]), 400, book).base == \
        pytest.approx(105 * 0.01 * 2.0 ** DEFAULT_POWER)
    assert sweep_estimate(spec(criteria=["gacv"]), 200, RateBook()) is None


def test_build_rates_are_read_scaled_by_this_machines_speed_per_solver(monkeypatch):
    """The build machine's rates are read scaled, per solver, by this machine's seconds on the
    solver's reference problem over the build machine's (stored with the rates). A solver whose
    reference cannot be timed keeps the build machine's rates, and says so (speed None); records
    added on this machine are never scaled."""
    import svmcore.timing as T

    monkeypatch.setattr(T, "_SPEED", {})
    raw = RateBook.baseline(calibrate=False)
    calibration = RateBook.baseline().calibration
    assert set(calibration) == {"path", "libsvm", "cvxopt", "newton"}
    here = {"path": 2.0 * calibration["path"], "libsvm": 0.5 * calibration["libsvm"]}

    def timed_here(solver, repeats=2):
        if solver not in here:
            raise RuntimeError("cvxopt is not installed")
        return here[solver]

    monkeypatch.setattr(T, "reference_seconds", timed_here)
    book = RateBook.baseline()
    assert book.seconds_per_column("path", "insample", 300) == \
        pytest.approx(2.0 * raw.seconds_per_column("path", "insample", 300), rel=1e-12)
    for solver, factor in (("libsvm", 0.5), ("cvxopt", 1.0)):
        assert book.grid_seconds(solver, "insample", 300, [-12, -6, 0, 6], 3) == \
            pytest.approx(factor * raw.grid_seconds(solver, "insample", 300, [-12, -6, 0, 6], 3), rel=1e-12)
    assert book.speed == {"path": pytest.approx(2.0), "libsvm": pytest.approx(0.5), "cvxopt": None}
    assert 7000 not in raw._rates("path", "insample", "column")      # (a size not shipped)
    book.add("path", "insample", 7000, 4, 28.0, per="column")         # measured here: 7 s a column
    assert book.seconds_per_column("path", "insample", 7000) == pytest.approx(7.0)


def test_each_reference_problem_is_timed_and_stored_with_the_rates():
    """Every solver with shipped rates has a stored reference time, and its reference problem runs
    here (how fast is bench/estimate_accuracy.py's business, not a unit test's)."""
    from importlib import resources

    import svmcore.timing as T

    data = json.loads(resources.files("svmcore").joinpath("data/rates.json").read_text())
    assert set(data["calibration"]) == {r["solver"] for r in data["records"]} == set(T.REFERENCE)
    for solver in T.REFERENCE:
        sec = T.reference_seconds(solver, repeats=1)
        assert 0 < sec < math.inf and data["calibration"][solver] > 0, solver


def test_sessions_asking_together_share_one_measurement(monkeypatch):
    """Two sessions whose first estimates come at once: the reference problem is timed once, not
    twice against each other (which would double both factors), and both get that factor."""
    import threading
    import time

    import svmcore.timing as T

    monkeypatch.setattr(T, "_SPEED", {})
    running, most, calls = [0], [0], [0]

    def timed_here(solver, repeats=2):
        running[0] += 1
        most[0] = max(most[0], running[0])
        calls[0] += 1
        time.sleep(0.05)
        running[0] -= 1
        return 0.3

    monkeypatch.setattr(T, "reference_seconds", timed_here)
    out = []
    threads = [threading.Thread(target=lambda: out.append(T.machine_speed({"path": 0.1})))
               for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert calls[0] == 1 and most[0] == 1
    assert out == [{"path": pytest.approx(3.0)}] * 3


def test_starting_the_workers_is_priced_only_when_they_are_not_up(monkeypatch):
    """``worker_start``: WORKER_START_SECONDS for a sweep on workers when no earlier sweep's are
    still up (grid.workers_running), else 0; never for a sweep in this process."""
    from svmcore.timing import WORKER_START_SECONDS, worker_start

    for running in (False, True):
        monkeypatch.setattr("svmcore.grid.workers_running", lambda r=running: r)
        assert worker_start(1) == 0.0
        assert worker_start(2) == (0.0 if running else WORKER_START_SECONDS)
    assert 0.5 <= WORKER_START_SECONDS <= 3.0       # measured ~1 s on 2 cores (its comment)


def test_a_sweep_on_workers_is_priced_by_the_columns_each_worker_runs(monkeypatch):
    """Under the bar (grid.PARALLEL_FROM_SECONDS) a sweep stays in one process and keeps its
    seconds; from the bar on it gets one worker per σ column up to the cores, and its wall time is
    ceil(columns / workers) columns' worth: 13 columns on 4 cores are 4 rounds, on 2 cores 7."""
    from svmcore.grid import PARALLEL_FROM_SECONDS
    from svmcore.timing import on_workers

    monkeypatch.setattr("os.cpu_count", lambda: 4)
    assert on_workers(None, 13) == (None, 1)
    below = 0.99 * PARALLEL_FROM_SECONDS
    assert on_workers(below, 13) == (below, 1)
    wall, workers = on_workers(13.0, 13)
    assert workers == 4 and wall == pytest.approx(4.0)
    wall, workers = on_workers(3.0, 3)                 # one worker per column at most
    assert workers == 3 and wall == pytest.approx(1.0)
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    wall, workers = on_workers(13.0, 13)
    assert workers == 2 and wall == pytest.approx(7.0)


def test_the_clis_wall_estimate_is_each_workers_share_plus_their_start(monkeypatch):
    """``wall_seconds`` (the CLI's note before long work): the one-process estimate with
    ``n_jobs`` = 1; with workers (``--jobs`` 2, or the default once over the bar) ceil(columns /
    workers) columns' worth plus ``WORKER_START_SECONDS`` when none are running; 13 columns on
    2 workers are 7 columns' worth. The n = 5000 soft default grid was announced at one
    process's time (about 42 minutes) and ran in about half on two workers."""
    from svmcore.spec import make_spec
    from svmcore.timing import WORKER_START_SECONDS, estimate_seconds, wall_seconds

    monkeypatch.setattr("os.cpu_count", lambda: 2)
    monkeypatch.setattr("svmcore.grid.workers_running", lambda: False)
    spec = make_spec("logistic", data={"source": "simulation", "name": "wahba2d", "n": 5000},
                     log2_nlambda="-20:5:1", log2_sigma="-3:3:0.5")
    one = estimate_seconds(spec, 5000)
    assert one > 60          # over the workers' bar on any machine
    assert wall_seconds(spec, 5000, n_jobs=1) == pytest.approx(one)
    for jobs in (0, 2):
        assert wall_seconds(spec, 5000, n_jobs=jobs) == pytest.approx(one * 7 / 13 + WORKER_START_SECONDS)


def test_compiling_the_loop_is_priced_for_the_path_from_its_n_until_compiled(monkeypatch):
    """``first_use_seconds``: ``LOOP_COMPILE_SECONDS`` for the path at ``COMPILED_FROM_N`` points
    or more while numba has not compiled its loop (``path.event_loop_compiled``); once compiled,
    ``LOOP_LOAD_SECONDS`` while this process has not loaded it (``path.event_loop_loaded``), or
    on workers that are not running yet; 0 below that n and for the pointwise solvers.
    ``wall_seconds`` adds it (the CLI's question before long work); ``estimate_seconds``, which
    chooses the workers (``grid.auto_jobs``), not."""
    from svmcore.families.svm.solvers.path import COMPILED_FROM_N
    from svmcore.spec import DataSpec, make_spec
    from svmcore.timing import (LOOP_COMPILE_SECONDS, LOOP_LOAD_SECONDS, estimate_seconds,
                                first_use, first_use_seconds, wall_seconds)

    spec = make_spec("svm", data=DataSpec(source="simulation", name="wahba2d"),
                     log2_nlambda="-25:0:1", log2_sigma="-3:3:0.5", solver="path", extend_grid=False)
    for compiled, loaded, running in [(False, False, False), (False, True, True), (True, False, False),
                                      (True, True, False), (True, False, True)]:
        for name, value in (("svmcore.families.svm.solvers.path.event_loop_compiled", compiled),
                            ("svmcore.families.svm.solvers.path.event_loop_loaded", loaded),
                            ("svmcore.grid.workers_running", running)):
            monkeypatch.setattr(name, lambda v=value: v)
        here = LOOP_COMPILE_SECONDS if not compiled else 0.0 if loaded else LOOP_LOAD_SECONDS
        there = LOOP_COMPILE_SECONDS if not compiled else 0.0 if running else LOOP_LOAD_SECONDS
        assert first_use_seconds("path", COMPILED_FROM_N) == here
        assert first_use_seconds("path", COMPILED_FROM_N, workers=2) == there
        assert first_use("path", COMPILED_FROM_N)[0] == ("compile" if not compiled else
                                                         "" if loaded else "load")
        assert first_use_seconds("path", COMPILED_FROM_N - 1) == 0.0
        assert first_use_seconds("libsvm", 10 * COMPILED_FROM_N) == 0.0
        plain = estimate_seconds(spec, COMPILED_FROM_N)
        assert wall_seconds(spec, COMPILED_FROM_N, n_jobs=1) == pytest.approx(plain + here)
    assert 30.0 <= LOOP_COMPILE_SECONDS <= 120.0      # measured 44.6–50.9 s on 2 cores (its comment)
    assert 0.1 <= LOOP_LOAD_SECONDS <= 1.0            # measured 0.29–0.39 s (its comment)
