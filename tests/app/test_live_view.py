"""The dashboard keeps up with its user (AppTest, no browser): a changed setting marks the view stale
at once, a cheap sweep runs by itself, an expensive one waits for Run, a rejected link shows one
message and the defaults, user strings stay text, and a label with three classes asks for class A."""
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from svmapp import settings as S
from svmapp import estimate as E
from svmapp import ui

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
TINY = {"n": "60", "lam": "-12:0:4", "sig": "-1:1:1", "extend": "0"}


def new_app(query=None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update(TINY if query is None else query)
    return at


def unescaped(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def ok(at):
    assert not at.exception, [e.value for e in at.exception]


def stale_texts(at) -> list[str]:
    return [unescaped(w.value) for w in at.warning if "Stale" in w.value]


def test_a_changed_setting_marks_the_view_stale_and_run_clears_it(monkeypatch):
    monkeypatch.setattr(ui, "AUTO_RUN_SECONDS", -1.0)        # nothing runs by itself here
    at = new_app()
    at.run()
    ok(at)
    key = at.session_state["result_key"]
    assert not stale_texts(at)
    at.number_input(key="w_cost_b").set_value(2.0).run()
    ok(at)
    texts = stale_texts(at)
    assert texts and "cost_b: 1.0 → 2.0" in texts[0]
    assert at.session_state["result_key"] == key              # the earlier result is still shown
    assert len(at.get("plotly_chart")) >= 2
    at.button(key="w_run_main").click().run()                  # the Run button beside the banner
    ok(at)
    assert at.session_state["result_key"] != key
    assert at.session_state["applied"]["cost_b"] == 2.0
    assert not stale_texts(at)


def test_a_cheap_sweep_runs_by_itself_and_an_expensive_one_waits():
    at = new_app()
    at.run()
    key = at.session_state["result_key"]
    at.text_input(key="w_log2_nlambda").set_value("-12:0:6").run()      # 3 × 3 at n = 60: a fraction of a second
    ok(at)
    assert at.session_state["applied"]["log2_nlambda"] == "-12:0:6"
    assert at.session_state["result_key"] != key
    assert not stale_texts(at)
    at.number_input(key="w_n").set_value(200).run()             # still cheap without LOO
    ok(at)
    assert at.session_state["applied"]["n"] == 200
    key = at.session_state["result_key"]
    at.checkbox(key="w_loo").check().run()                     # exact LOO at n = 200: well over 2 s
    ok(at)
    assert at.session_state["result_key"] == key
    assert stale_texts(at)


def test_estimates_come_from_measured_rates(monkeypatch):
    """The estimate is the path's measured seconds per σ column (svmcore/data/rates.json) times the
    columns; when the grid may grow, one growth step toward small λ (every column again) is priced:
    half of it in the estimate, all of it in the most. A sweep from the 1 s bar on runs on the
    workers (here 2 cores, already up: 4 rounds of the 7 columns), and its seconds are 4/7 of those."""
    from svmcore.grid import PARALLEL_FROM_SECONDS
    from svmcore.timing import RateBook, workload

    monkeypatch.setattr("os.cpu_count", lambda: 2)
    monkeypatch.setattr("svmcore.grid.workers_running", lambda: True)
    E.rate_book.clear()                                  # nothing recorded by earlier tests
    book = RateBook.baseline()

    def share(one_process):
        return 4 / 7 if one_process >= PARALLEL_FROM_SECONDS else 1.0

    for extend in (False, True):
        s = S.settings_from({"n": 200, "log2_nlambda": "-20:8:2", "log2_sigma": "-3:3:1",
                             "extend_grid": extend})
        per_col = book.seconds_per_column("path", workload(s["criteria"]), 200)
        est = E.estimates(s)
        assert est["points"] == 15 * 7 and est["n"] == 200
        one = per_col * 7 * (1.5 if extend else 1)
        assert est["one_process"] == pytest.approx(one)
        assert est["total"] == pytest.approx(one * share(one))
        assert est["most"] == pytest.approx(per_col * 7 * (2 if extend else 1) * share(one))
        loo = book.seconds_per_column("path", "loo", 200)
        assert (loo - per_col) * 7 > PARALLEL_FROM_SECONDS      # with LOO ticked: on the workers
        assert est["loo"] == pytest.approx((loo - per_col) * 7 * 4 / 7)
        assert "scaled ×" in est["source"] and "this machine's speed" in est["source"]


def test_the_estimate_counts_the_workers_a_long_sweep_runs_on(monkeypatch, request):
    """The paper grid at n = 1000 is well over the 1 s bar in one process: the app runs its 13 σ
    columns on one worker per core, so on 4 cores its estimate is ceil(13 / 4) = 4 columns' worth of
    the one-process estimate (per σ column, from the book) and the sidebar says so; when no
    earlier sweep's workers are up, starting them (``WORKER_START_SECONDS``) is added and said. The
    default view, under the bar, keeps its one-process seconds. The build machine's rates are read
    unscaled (this machine's speed factor set to 1): timed in a busy minute the factor once put the
    default view itself over the bar (a clean-clone CI run on a 2-core Zen 3). The path's columns
    are held to worker processes here, as other families' and smaller paths' are (from
    ``COMPILED_FROM_N`` points they run on threads: the next test)."""
    from svmcore.families.svm.family import SVMFamily
    from svmcore.timing import LOOP_LOAD_SECONDS, WORKER_START_SECONDS, RateBook, workload

    monkeypatch.setattr(SVMFamily, "columns_in_threads", lambda self, spec, n: False)
    monkeypatch.setattr("svmcore.timing._SPEED", {"path": 1.0, "libsvm": 1.0, "cvxopt": 1.0})
    monkeypatch.setattr("os.cpu_count", lambda: 4)
    monkeypatch.setattr("svmcore.grid.workers_running", lambda: True)
    monkeypatch.setattr("svmcore.families.svm.solvers.path.event_loop_compiled", lambda: True)
    E.rate_book.clear()
    request.addfinalizer(E.rate_book.clear)          # later tests get this machine's factor again
    book = RateBook.baseline()
    s = S.settings_from({"n": 1000, "log2_nlambda": "-25:0:1", "log2_sigma": "-3:3:0.5",
                         "extend_grid": False})
    one = book.seconds_per_column("path", workload(s["criteria"]), 1000) * 13
    est = E.estimates(s)
    assert est["one_process"] == pytest.approx(one) and one > 1.0
    assert est["workers"] == 4 and est["start"] == 0
    assert est["total"] == pytest.approx(one * 4 / 13)
    monkeypatch.setattr("svmcore.grid.workers_running", lambda: False)
    cold = E.estimates(s)
    assert cold["start"] == WORKER_START_SECONDS > 0
    # new workers also load the path's compiled loop (n = 1000 ≥ path.COMPILED_FROM_N), once
    assert cold["first_use"] == "load" and cold["compile"] == LOOP_LOAD_SECONDS > 0
    assert cold["total"] == pytest.approx(one * 4 / 13 + WORKER_START_SECONDS + LOOP_LOAD_SECONDS)
    small = E.estimates(S.settings_from({"n": 200, "log2_nlambda": "-20:8:2", "log2_sigma": "-3:3:1",
                                         "extend_grid": False}))
    assert small["workers"] == 1 and small["total"] == pytest.approx(small["one_process"])
    at = new_app({"n": "1000", "lam": "-25:0:1", "sig": "-3:3:0.5", "extend": "0"})
    monkeypatch.setattr(ui, "run_if_requested", lambda force_default=False: None)   # no sweep
    at.run()
    ok(at)
    assert any("on 4 worker processes (≈ 1.0 s of it starting them)" in c.value for c in at.sidebar.caption)


def test_the_estimate_counts_the_threads_a_compiled_path_runs_on(monkeypatch, request):
    """From ``COMPILED_FROM_N`` points the path's columns run on threads of the server's process
    (``SVMFamily.columns_in_threads``): one per column up to the cores whatever the estimate,
    nothing to start, the loop loaded once in this process; the sidebar says "threads"."""
    from svmcore.families.svm.solvers.path import COMPILED_FROM_N
    from svmcore.timing import LOOP_LOAD_SECONDS, RateBook, workload

    monkeypatch.setattr("svmcore.timing._SPEED", {"path": 1.0, "libsvm": 1.0, "cvxopt": 1.0})
    monkeypatch.setattr("os.cpu_count", lambda: 4)
    monkeypatch.setattr("svmcore.grid.workers_running", lambda: False)
    monkeypatch.setattr("svmcore.families.svm.solvers.path.event_loop_compiled", lambda: True)
    E.rate_book.clear()
    request.addfinalizer(E.rate_book.clear)
    book = RateBook.baseline()
    for n, loaded in ((1000, True), (1000, False), (COMPILED_FROM_N, True)):
        monkeypatch.setattr("svmcore.families.svm.solvers.path.event_loop_loaded", lambda v=loaded: v)
        s = S.settings_from({"n": n, "log2_nlambda": "-25:0:1", "log2_sigma": "-3:3:0.5",
                             "extend_grid": False})
        one = book.seconds_per_column("path", workload(s["criteria"]), n) * 13
        est = E.estimates(s)
        assert est["threads"] and est["workers"] == 4 and est["start"] == 0.0
        assert est["compile"] == (0.0 if loaded else LOOP_LOAD_SECONDS)
        assert est["total"] == pytest.approx(one * 4 / 13 + est["compile"])
    monkeypatch.setattr("svmcore.families.svm.solvers.path.event_loop_loaded", lambda: True)
    at = new_app({"n": "1000", "lam": "-25:0:1", "sig": "-3:3:0.5", "extend": "0"})
    monkeypatch.setattr(ui, "run_if_requested", lambda force_default=False: None)   # no sweep
    at.run()
    ok(at)
    caps = [c.value for c in at.sidebar.caption]
    assert any("on 4 threads" in c and "starting" not in c for c in caps), caps


def test_a_new_installation_s_estimate_counts_compiling_the_loop(monkeypatch):
    """Where numba has not compiled the path's loop yet (a new installation), a sweep of
    ``COMPILED_FROM_N`` points or more compiles it first: the estimate adds
    ``LOOP_COMPILE_SECONDS`` once (not per worker) and the sidebar says so; once compiled, a
    process that has not loaded it yet adds ``LOOP_LOAD_SECONDS``; below that n, and once
    loaded, nothing is added."""
    from svmcore.families.svm.solvers.path import COMPILED_FROM_N
    from svmcore.timing import LOOP_COMPILE_SECONDS, LOOP_LOAD_SECONDS

    monkeypatch.setattr("svmcore.grid.workers_running", lambda: True)
    s = S.settings_from({"n": COMPILED_FROM_N, "log2_nlambda": "-25:0:1", "log2_sigma": "-3:3:0.5",
                         "extend_grid": False})
    small = S.settings_from({"n": COMPILED_FROM_N // 2, "log2_nlambda": "-25:0:1",
                             "log2_sigma": "-3:3:0.5", "extend_grid": False})
    monkeypatch.setattr("svmcore.families.svm.solvers.path.event_loop_compiled", lambda: True)
    monkeypatch.setattr("svmcore.families.svm.solvers.path.event_loop_loaded", lambda: True)
    warm, warm_small = E.estimates(s), E.estimates(small)
    assert warm["compile"] == 0.0 and warm_small["compile"] == 0.0
    # compiled, not yet loaded in the processes that will run it (this one, or new workers: the
    # machine's speed decides which)
    monkeypatch.setattr("svmcore.families.svm.solvers.path.event_loop_loaded", lambda: False)
    monkeypatch.setattr("svmcore.grid.workers_running", lambda: False)
    first = E.estimates(s)
    assert first["first_use"] == "load" and first["compile"] == LOOP_LOAD_SECONDS
    assert first["total"] == pytest.approx(warm["total"] + first["start"] + LOOP_LOAD_SECONDS)
    monkeypatch.setattr("svmcore.grid.workers_running", lambda: True)
    monkeypatch.setattr("svmcore.families.svm.solvers.path.event_loop_compiled", lambda: False)
    cold, cold_small = E.estimates(s), E.estimates(small)
    assert cold["compile"] == LOOP_COMPILE_SECONDS > 0
    assert cold["total"] == pytest.approx(warm["total"] + LOOP_COMPILE_SECONDS)
    assert cold["workers"] == warm["workers"] and cold["one_process"] == warm["one_process"]
    assert cold_small == warm_small
    at = new_app({"n": str(COMPILED_FROM_N), "lam": "-25:0:1", "sig": "-3:3:0.5", "extend": "0"})
    monkeypatch.setattr(ui, "run_if_requested", lambda force_default=False: None)   # no sweep
    at.run()
    ok(at)
    assert any("≈ 50 s of it compiling the path's loop (once after installing)" in c.value
               for c in at.sidebar.caption)


def test_a_sweep_runs_on_the_processes_its_estimate_counted(monkeypatch):
    """The sidebar prices a sweep on the processes this server's rates choose, and the sweep runs on
    those (run_grid alone would choose from the build machine's rates); without an estimate,
    run_grid decides (n_jobs None)."""
    real_run, real_estimates = S.run, E.estimates
    asked = []

    def run(s, loaded, progress=None, n_jobs=None, cancel=None):
        asked.append(n_jobs)
        return real_run(s, loaded, progress, 1, cancel)          # one process here, whatever was asked

    monkeypatch.setattr(S, "run", run)
    for seed, (workers, total) in enumerate(((2, 1.5), (1, 0.3), (1, None)), start=11):
        monkeypatch.setattr(E, "estimates", lambda *a, w=workers, t=total, **k:
                            {**real_estimates(*a, **k), "workers": w, "total": t})
        at = new_app({**TINY, "seed": str(seed)})                # a sweep no earlier test ran
        at.run()
        ok(at)
    assert asked == [2, 1, None]


def test_an_estimate_says_when_this_machines_speed_could_not_be_measured(monkeypatch):
    """Where a solver's reference problem could not be timed, its rates are the build machine's,
    and the estimate's source says so instead of passing them off as this machine's."""
    from svmcore.timing import RateBook

    book = RateBook(calibration={"path": 0.07, "libsvm": 0.02}, speed={"path": None, "libsvm": 0.5})
    monkeypatch.setattr(E, "rate_book", lambda: book)
    assert E._source("path") == ("measured rates of the path solver on the build machine: this "
                                 "machine's speed could not be measured")
    assert E._source("libsvm") == "measured rates of the libsvm solver, scaled ×0.50 to this machine's speed"
    assert E._source("cvxopt") == "measured rates of the cvxopt solver"


def test_only_one_process_sweeps_enter_this_machines_rates(monkeypatch):
    """The book holds one process's seconds per σ column (as bench/measure_rates.py measures them).
    A sweep on worker processes is not recorded: its wall time includes starting the workers (at
    n = 300 beside a busy loop, that made a 15-point grid that runs in 0.1 s look like 2 s, over the
    auto-run bar) and is shared among them. A serial sweep is recorded, at its own seconds."""
    import os
    from dataclasses import replace

    from svmcore.datasets.simulations import make_simulation
    from svmcore.grid import run_grid
    from svmcore.spec import make_spec
    from svmcore.timing import RateBook

    book = RateBook()
    monkeypatch.setattr(E, "rate_book", lambda: book)
    data = make_simulation("wahba2d", 40, 0)
    spec = make_spec("svm", log2_nlambda="-8:0:4", log2_sigma="-1:1:1", criteria=("gacv",))
    serial, parallel = run_grid(spec, data, n_jobs=1), run_grid(spec, data, n_jobs=2)
    assert (serial.workers, parallel.workers) == (1, min(2, os.cpu_count() or 1))
    E.record_rate(replace(serial, workers=2), 40)      # the same sweep, as two workers report it
    assert book.records == []
    E.record_rate(serial, 40)
    assert len(book.records) == 1
    rec = book.records[0]
    assert (rec["solver"], rec["n"], rec["per"]) == ("path", 40, "column")
    assert rec["seconds_per_point"] == pytest.approx(serial.seconds / 3)


def test_rejected_link_shows_one_message_and_the_defaults():
    at = new_app({"n": "20", "lam": "-100:0:0.01", "sig": "-50:50:0.01"})
    at.run()
    ok(at)
    notes = [unescaped(i.value) for i in at.sidebar.info]
    assert len(notes) == 1 and "'lam'" in notes[0] and "'sig'" in notes[0] and "log2" in notes[0]
    applied = at.session_state["applied"]        # each refused key keeps its default; n = 20 is valid
    assert (applied["log2_nlambda"], applied["log2_sigma"], applied["n"]) == \
        (S.DEFAULTS["log2_nlambda"], S.DEFAULTS["log2_sigma"], 20)


def test_overflowing_link_and_hostile_view_values_do_not_crash():
    at = new_app({**TINY, "sig": "1100", "show": "gacv,__import__,xa", "ncols": "99", "sel": "nan,inf"})
    at.run()
    ok(at)
    assert at.session_state["applied"]["log2_sigma"] == S.DEFAULTS["log2_sigma"]
    assert at.sidebar.info


def test_link_restores_panels_curves_and_point():
    q = {**TINY, "criteria": "gacv,xa,sure,misclass", "show": "xa,gacv", "curves": "gacv", "ncols": "3",
         "others": "1", "sel": "-4,0"}
    at = new_app(q)
    at.run()
    ok(at)
    assert at.multiselect(key="tun_shown").value == ["xa", "gacv"]
    assert at.multiselect(key="tun_curves").value == ["gacv"]
    assert at.selectbox(key="tun_ncols").value == 3 and at.toggle(key="tun_others").value is True
    assert tuple(at.session_state["selected"]) == (-4.0, 0.0)
    qp = {k: (v[0] if isinstance(v, list) else v) for k, v in at.query_params.items()}
    assert qp["show"] == "xa,gacv" and qp["curves"] == "gacv" and qp["sel"] == "-4,0"


THREE = "\n".join(["a,b,label"] + [f"{i % 7},{(i * 3) % 11},{['red', 'green', 'blue'][i % 3]}"
                                  for i in range(60)]).encode()


def upload(at, name, data):
    at.radio(key="w_source").set_value("upload").run()
    at.file_uploader(key="w_upload").set_value((name, data, "text/csv")).run()
    ok(at)


def test_three_classes_ask_for_class_a():
    at = new_app()
    at.run()
    upload(at, "three.csv", THREE)
    assert at.selectbox(key="w_positive").value is None
    assert any("choose which one is class A" in w.value for w in at.sidebar.warning)
    assert at.button(key="w_run").disabled
    at.selectbox(key="w_positive").set_value("green").run()
    ok(at)
    assert not at.button(key="w_run").disabled
    at.button(key="w_run").click().run()
    ok(at)
    assert at.session_state["applied"]["positive"] == "green"
    assert not at.error, [e.value for e in at.error]


def test_user_strings_are_text_not_markdown():
    at = new_app()
    at.run()
    cell = "[click](http://example.com)"
    bad = f"x,label\n1,{cell}\n2,{cell}\n".encode()             # one class: the message quotes the cell
    upload(at, "[evil](http://x).csv", bad)
    shown = [e.value for e in at.sidebar.error] + [c.value for c in at.sidebar.caption]
    assert shown
    for text in shown:
        assert "](http" not in text                           # no live link anywhere
    assert ui.plain(cell) == r"\[click\]\(http\://example\.com\)"
    assert unescaped(ui.plain("a_b*c`d<e>")) == "a_b*c`d<e>"


def test_missing_values_can_be_dropped_and_text_columns_are_left_out():
    rows = ["a,b,kind,label"] + [f"{'' if i % 10 == 0 else i % 7},{(i * 3) % 11},t{i % 4},"
                                 f"{'yes' if i % 2 else 'no'}" for i in range(60)]
    at = new_app()
    at.run()
    upload(at, "gaps.csv", "\n".join(rows).encode())
    assert at.multiselect(key="w_features").value == ["a", "b"]          # "kind" is text
    assert "6 rows" in at.checkbox(key="w_dropna").label
    at.checkbox(key="w_dropna").check().run()
    at.text_input(key="w_log2_nlambda").set_value("-8:0:8").run()
    at.button(key="w_run").click().run()
    ok(at)
    assert not at.error, [e.value for e in at.error]
    assert any("6 rows with missing values dropped" in unescaped(c.value) for c in at.caption)


def test_drop_missing_and_text_columns_helpers():
    import pandas as pd
    t = pd.DataFrame({"a": ["1", "", "3", "NA"], "b": ["x", "2", "3", "4"], "y": ["p", "q", "p", "?"]})
    assert S.text_columns(t) == ["b", "y"]
    kept, n = S.drop_missing(t, ["a", "y"])
    assert n == 2 and kept["a"].tolist() == ["1", "3"]
    assert S.count_missing(t, ["b"]) == 0


def test_progress_fraction_moves_between_reports_but_never_past_the_next_column():
    f = ui.progress_fraction
    assert f(0, 4, 0.0, 10.0) == 0.0
    assert f(0, 4, 1.0, 10.0) == 0.1                    # between reports: the elapsed share
    assert f(0, 4, 9.0, 10.0) == 0.95 / 4               # an estimate that is too short stops here
    assert f(2, 4, 1.0, 10.0) == 0.5                    # a report is never undercut
    assert f(4, 4, 99.0, 10.0) == 1.0
    assert f(1, 3, 5.0, None) == 1 / 3                  # no estimate: reports only


def test_presentation_mode_keeps_the_controls_is_in_the_link_and_can_be_left():
    at = new_app()
    at.run()
    at.toggle(key="w_present").set_value(True).run()
    ok(at)
    css = [h.proto.body for h in at.get("html") if "<style" in h.proto.body]
    assert len(css) == 1 and "font-size" in css[0] and "display: none" not in css[0]
    assert at.sidebar.button(key="w_run")                  # the sidebar's controls are still there
    assert at.query_params["present"] in ("true", ["true"])
    assert not at.title                                    # the figures come first
    at.toggle(key="w_present").set_value(False).run()
    ok(at)
    assert "present" not in at.query_params
    assert not any("font-size" in h.proto.body for h in at.get("html"))
    assert len(at.get("plotly_chart")) >= 2


def test_weights_are_shown_as_html_with_hand_computed_values():
    """The sidebar's L(+1), L(−1) lines (HTML, not LaTeX: no KaTeX on the first view) carry the
    values of C_B π_A/π_A^s and C_A π_B/π_B^s computed here by hand."""
    from svmcore.weights import class_weights_from_costs

    y = [1] * 5 + [-1] * 15                          # π_A^s = 0.25
    w = class_weights_from_costs(y, cost_a=1.0, cost_b=2.0, prior_a=0.1).as_dict()
    html = ui.weights_html(w)
    assert "= 2·0.1 / 0.25 = <b>0.8</b>" in html      # 2 · 0.1 / 0.25
    assert "= 1·0.9 / 0.75 = <b>1.2</b>" in html      # 1 · 0.9 / 0.75
    assert "$" not in html and "\\frac" not in html
    assert "<b>" not in ui.weights_html(None) and "π<sub>A</sub>" in ui.weights_html(None)


def _marked(at):
    """The points drawn as the 'selected' marker in the contour panels."""
    import json

    pts = []
    for ch in at.get("plotly_chart"):
        for tr in json.loads(ch.proto.spec).get("data", []):
            if tr.get("meta") == "selected":
                pts.append((tr["x"][0], tr["y"][0]))
    return pts


def test_a_linked_point_is_marked_on_the_surfaces_until_a_click():
    """A point that comes with the link is drawn on every panel (the chart's own selection only
    shows a point clicked in this browser); once a click has chosen a point (``ui.on_pick`` clears
    the flag) the panels are the unmarked, cached ones again."""
    q = {**TINY, "criteria": "gacv,xa", "show": "gacv,xa", "sel": "-4,0"}
    at = new_app(q)
    at.run()
    ok(at)
    assert _marked(at) == [(-4.0, 0.0), (-4.0, 0.0)]           # both panels
    at.session_state["selected"] = (0.0, 1.0)                  # what a click leaves behind
    at.session_state["selected_marked"] = False
    at.run()
    ok(at)
    assert _marked(at) == []
    assert not _marked(new_app({**TINY, "criteria": "gacv,xa", "show": "gacv,xa"}).run())
