"""The Streamlit app under ``streamlit.testing.v1.AppTest``: every page, a small sweep, uploads,
presets, the query-string round trip. Tiny grids keep the whole file to well under a minute."""
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from svmapp import settings as S

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
PAGES = ["app_pages/tuning.py", "app_pages/summary.py", "app_pages/path.py", "app_pages/losses.py",
         "app_pages/criteria.py"]
TINY = {"n": "60", "log2_nlambda": "-12:0:4", "log2_sigma": "-1:1:1"}          # 4 × 3 grid, n = 60
GOOD_CSV = "\n".join(["a,b,c,label"] + [f"{i % 7},{(i * 3) % 11},{(i * 5) % 13},"
                                        f"{'yes' if (i % 7) + ((i * 3) % 11) > 8 else 'no'}"
                                        for i in range(80)]).encode()


def unescaped(text: str) -> str:
    """A message as the reader sees it (the app escapes Markdown in user strings)."""
    return re.sub(r"\\(.)", r"\1", text)


def new_app(query=None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update(query or TINY)
    return at


def no_exception(at: AppTest):
    assert not at.exception, [e.value for e in at.exception]


def test_default_view_and_every_page():
    """The real default (wahba2d, n = 200, 13 × 7 grid), then each page in the same session."""
    at = AppTest.from_file(APP, default_timeout=150)
    at.run()
    no_exception(at)
    assert at.session_state["applied"]["dataset"] == "wahba2d"
    keys = [c.key for c in at.get("plotly_chart")]
    assert sum(k.startswith("contour_") for k in keys) == 4      # GACV, XA, GCKL, MISCLASS (Fig 1.5's pairs)
    assert sum(k.startswith("decision_") for k in keys) == 1
    assert not at.error
    for page in PAGES[1:]:
        at.switch_page(page)
        at.run()
        no_exception(at)
        assert not at.error, (page, [e.value for e in at.error])
    at.switch_page("app_pages/path.py").run()
    assert len(at.get("plotly_chart")) == 3           # p(x) (Fig 1.2), small multiples, GCKL
    at.switch_page("app_pages/criteria.py").run()
    assert len(at.latex) >= 8                         # one formula per criterion


def test_small_sweep_from_the_form():
    at = new_app()
    at.run()
    no_exception(at)
    assert at.session_state["applied"]["log2_nlambda"] == "-12:0:4"
    at.text_input(key="w_log2_nlambda").set_value("-8:0:8")
    at.text_input(key="w_log2_sigma").set_value("0:1:1")
    at.number_input(key="w_n").set_value(50)
    at.multiselect(key="w_criteria").set_value(["gacv", "xa", "misclass"])
    at.checkbox(key="w_cv").check()
    at.button(key="w_run").click()
    at.run()
    no_exception(at)
    applied = at.session_state["applied"]
    assert (applied["log2_nlambda"], applied["log2_sigma"], applied["n"]) == ("-8:0:8", "0:1:1", 50)
    assert applied["criteria"] == ["gacv", "xa", "misclass", "cv"]
    assert any("grid log2(nλ) " in c.value and "× log2 σ " in c.value for c in at.caption)
    assert at.query_params["log2_nlambda"] in ("-8:0:8", ["-8:0:8"])      # mirrored in the URL
    at.switch_page("app_pages/summary.py").run()
    no_exception(at)
    df = at.dataframe[0].value
    assert {"GACV", "XA", "MISCLASS", "CV hinge", "CV error"} <= set(df["criterion"])


def test_bad_settings_show_error_and_keep_results():
    at = new_app()
    at.run()
    key = at.session_state["result_key"]
    at.text_input(key="w_log2_nlambda").set_value("0:-5:1")               # STOP below START
    at.button(key="w_run").click()
    at.run()
    no_exception(at)
    assert at.error and any("STOP" in e.value for e in at.error)
    assert at.session_state["result_key"] == key                 # earlier result kept
    assert len(at.get("plotly_chart")) >= 2                      # and still drawn


def test_bad_csv_upload_shows_error_without_exception():
    at = new_app()
    at.run()
    key = at.session_state["result_key"]
    at.radio(key="w_source").set_value("upload").run()
    no_exception(at)
    at.file_uploader(key="w_upload").set_value(("bad.csv", b"\x00\x01\x02 not a csv \xff\xfe", "text/csv"))
    at.run()
    no_exception(at)
    assert at.sidebar.error, "the loader's message is shown"
    assert "bad.csv" in unescaped(at.sidebar.error[0].value)
    assert at.button(key="w_run").disabled                      # nothing to run on
    assert at.session_state["result_key"] == key                 # the session keeps working
    assert len(at.get("plotly_chart")) >= 2                      # and still shows its result


def test_csv_with_one_class_fails_at_run_with_error():
    at = new_app()
    at.run()
    key = at.session_state["result_key"]
    at.radio(key="w_source").set_value("upload").run()
    one_class = b"x,y,label\n" + b"".join(f"{i},{i * 2},a\n".encode() for i in range(20))
    at.file_uploader(key="w_upload").set_value(("one.csv", one_class, "text/csv")).run()
    no_exception(at)
    # the settings cannot run: Run is disabled and the sidebar says why, before any work
    assert at.button(key="w_run").disabled
    assert any("class" in unescaped(e.value) for e in at.sidebar.error), [e.value for e in at.sidebar.error]
    assert at.session_state["result_key"] == key


def test_good_csv_upload_runs_with_a_test_set():
    at = new_app()
    at.run()
    at.radio(key="w_source").set_value("upload").run()
    at.file_uploader(key="w_upload").set_value(("toy.csv", GOOD_CSV, "text/csv")).run()
    no_exception(at)
    assert not at.sidebar.error
    assert at.selectbox(key="w_label").value == "label"
    at.selectbox(key="w_positive").set_value("yes")
    at.text_input(key="w_log2_nlambda").set_value("-8:0:8")
    at.text_input(key="w_log2_sigma").set_value("0:1:1")
    at.button(key="w_run").click().run()
    no_exception(at)
    assert not at.error, [e.value for e in at.error]
    assert at.session_state["applied"]["source"] == "upload"
    at.switch_page("app_pages/summary.py").run()
    no_exception(at)
    df = at.dataframe[0].value
    assert "test error" in df.columns


def test_preset_loads_its_settings(monkeypatch):
    name = "Figure 1.4 (right): nonstandard C_A=1, C_B=2, π_A=0.1"
    small = {**S.PRESETS[name], "n": 60, "log2_nlambda": "-12:0:6", "log2_sigma": "0:1:1"}   # fast
    monkeypatch.setitem(S.PRESETS, name, small)
    at = new_app()
    at.run()
    at.selectbox(key="w_preset").set_value(name).run()
    at.button(key="w_preset_btn").click().run()
    no_exception(at)
    applied = at.session_state["applied"]
    assert (applied["cost_a"], applied["cost_b"], applied["prior_a"]) == (1.0, 2.0, 0.1)
    assert at.number_input(key="w_cost_b").value == 2.0
    assert at.checkbox(key="w_prior_a_on").value
    assert at.number_input(key="w_prior_a").value == pytest.approx(0.1)
    assert any("nonstandard case" in c.value for c in at.caption)


def test_link_reproduces_view_and_selection():
    at = new_app({**TINY, "cost_b": "2", "prior_a": "0.1", "sel": "-4,0"})
    at.run()
    no_exception(at)
    assert at.session_state["applied"]["cost_b"] == 2.0
    assert tuple(at.session_state["selected"]) == (-4.0, 0.0)
    assert any("Clicked grid point" in m.value for m in at.markdown)


def test_hostile_link_is_refused_by_name_not_clamped():
    """Each refused value gives one note naming its key and what is allowed; that key keeps its
    default, the rest of the link is used; nothing is clamped and nothing crashes."""
    at = new_app({**TINY, "folds": "1", "prior_a": "7", "cost_a": "-3", "rho": "5",
                  "criteria": "gacv,bogus", "feat": "9,x"})
    at.run()
    no_exception(at)
    applied = at.session_state["applied"]
    assert (applied["cv_folds"], applied["prior_a"], applied["cost_a"]) == (5, None, 1.0)
    assert applied["xa_rho"] == 5.0 and applied["n"] == 60           # valid values are used
    note = unescaped(" ".join(i.value for i in at.info))
    for key in ("'folds'", "'prior_a'", "'cost_a'", "'criteria'", "'feat'"):
        assert key in note, (key, note)
    assert "[2, 50]" in note and "[0.001, 1000]" in note


def test_hostile_dataset_gives_one_note_and_the_defaults():
    at = new_app({**TINY, "dataset": "nope"})
    at.run()
    no_exception(at)
    assert at.session_state["applied"]["dataset"] == "wahba2d"
    assert any("nope" in unescaped(i.value) for i in at.info)


def test_query_round_trip_and_bad_links():
    s = S.settings_from({"cost_b": 2, "prior_a": 0.1, "criteria": ["gacv", "cv"], "kernel": "laplacian"})
    q = S.to_query(s, selected=(-3.0, 0.5), features=(1, 2), view={"tun_shown": ["gacv"], "tun_ncols": 3})
    back, view, notes = S.read_link(q)
    assert notes == [] and back == s
    assert view == {"tun_shown": ("gacv",), "tun_ncols": 3, "selected": (-3.0, 0.5),
                    "slice_features": (1, 2)}
    back, _, notes = S.read_link({"lam": "oops"})            # malformed: one note, the default
    assert back["log2_nlambda"] == S.DEFAULTS["log2_nlambda"] and len(notes) == 1 and "'lam'" in notes[0]
    assert S.read_link({"n": "abc"})[2][0].startswith("link key 'n'")
    assert S.read_link({}) == (None, {}, [])
    with pytest.raises(S.SVMCoreError, match="n must be in"):
        S.settings_from({"n": 10 ** 6})                        # never clamped


def test_disk_cache_round_trip(tmp_path, monkeypatch):
    monkeypatch.setenv("SVMAPP_CACHE", str(tmp_path))
    s = S.settings_from({"n": 60, "log2_nlambda": "-12:0:4", "log2_sigma": "-1:1:1", "criteria": ["gacv"]})
    loaded = S.load_data(s)
    key = S.spec_for(s, loaded.train.has_truth).key(S.code_fingerprint())
    assert S.disk_get(key) is None
    res = S.run(s, loaded)
    assert S.disk_put(key, res)
    back = S.disk_get(key)
    assert back.table.equals(res.table) and back.spec == res.spec
    monkeypatch.setenv("SVMAPP_CACHE", "off")
    assert S.disk_get(key) is None and not S.disk_put(key, res)


def test_bundled_real_data_with_slice_and_test_set():
    if not S.list_bundled():
        pytest.skip("no bundled data sets in this build")
    name = "heart" if "heart" in S.list_bundled() else S.list_bundled()[0]
    at = new_app()
    at.run()
    at.radio(key="w_source").set_value("bundled").run()
    at.selectbox(key="w_bundled").set_value(name).run()
    no_exception(at)
    at.number_input(key="w_n_max").set_value(60)
    at.text_input(key="w_log2_nlambda").set_value("-8:0:8")
    at.text_input(key="w_log2_sigma").set_value("1:2:1")
    at.multiselect(key="w_criteria").set_value(["gacv", "xa"])
    at.button(key="w_run").click().run()
    no_exception(at)
    assert not at.error, [e.value for e in at.error]
    applied = at.session_state["applied"]
    assert applied["source"] == "bundled" and applied["dataset"] == name
    assert any("held-out test set" in unescaped(c.value) for c in at.caption)
    assert any("held at their medians" in c.value for c in at.caption)   # d > 2: a slice
    at.selectbox(key="tun_f1").set_value(2).run()
    no_exception(at)
    assert tuple(at.session_state["features"]) == (0, 2)
    at.switch_page("app_pages/summary.py").run()
    assert "test error" in at.dataframe[0].value.columns


def test_use_this_model_rebuilds_the_clicked_model():
    """The "Use this model" snippet of the clicked point, executed, gives the family's fit there:
    the TunedSVC on a one-point grid and the plain scikit-learn SVC (LIBSVM) agree with fit_svm."""
    import numpy as np

    from svmcore.families.svm.fit import fit_svm
    from svmcore.kernels import Kernel

    at = new_app({**TINY, "cost_b": "2", "sel": "-4,0", "kernel": "laplacian"})
    at.run()
    no_exception(at)
    assert not [c for c in at.code if "TunedSVC" in c.value]    # drawn only on request
    at.toggle(key="use_model_show").set_value(True).run()
    code = [c.value for c in at.code if "TunedSVC" in c.value]
    assert len(code) == 1 and "laplacian_kernel" in code[0]
    data = S.load_data(at.session_state["applied"]).train
    spec = S.spec_for(at.session_state["applied"], data.has_truth)
    assert spec.kernel == "laplacian" and spec.cost_b == 2.0
    env = {"X": data.X, "y": data.y}
    exec(code[0], env)  # noqa: S102 - our own generated snippet, no user data in it
    ref = fit_svm(data.X, data.y, 2.0 ** -4 / data.n, Kernel("laplacian", sigma=1.0), spec.weights(data.y))
    np.testing.assert_allclose(env["model"].decision_function(data.X), ref.f, atol=1e-6)
    np.testing.assert_allclose(env["svc"].decision_function(data.X), ref.f, atol=1e-4)
