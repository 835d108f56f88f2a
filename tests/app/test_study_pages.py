"""AppTests of the study and saved-runs pages (no browser)."""
import json
from pathlib import Path

import re

import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest

from svmcore.spec import make_spec
from svmcore.store import save_run

ROOT = Path(__file__).resolve().parents[2]


def _traces(at):
    return [json.loads(c.proto.spec)["data"] for c in at.get("plotly_chart")]


def _chart_types(at):
    return [[tr["type"] for tr in f] for f in _traces(at)]


def test_study_page_runs_tiny_study(monkeypatch, sent_array):
    monkeypatch.delenv("SVMAPP_DASK_SCHEDULER", raising=False)
    at = AppTest.from_file(str(ROOT / "app_pages/study.py"), default_timeout=60).run()
    assert not at.exception
    at.number_input(key="study_n").set_value(40)
    at.number_input(key="study_replicates").set_value(5)
    at.text_input(key="study_log2_nlambda").set_value("-6:0:2")
    at.text_input(key="study_log2_sigma").set_value("-1:1:1")
    at.multiselect(key="study_criteria").set_value(["gacv", "xa", "misclass"])
    at.button(key="study_run").click().run()
    assert not at.exception and not at.error
    res = at.session_state["study_result"][0]
    assert len(res.table) == 5 * 2 * 3 and res.table["replicate"].nunique() == 5
    types = _chart_types(at)
    assert types[0][:2] == ["box", "box"]                     # one box trace per weighting
    box = _traces(at)[0][0]
    assert box["name"] == "standard"
    std = res.table[res.table["case"] == "standard"]["inefficiency"].to_numpy(float)
    np.testing.assert_allclose(sent_array(box["y"]), std)
    assert "scatter" in types[1]
    # a bad axis is reported, the earlier result stays
    at.text_input(key="study_log2_nlambda").set_value("5:0:1")
    at.button(key="study_run").click().run()
    assert at.error and "STOP" in at.error[0].value
    assert at.session_state["study_result"][0] is res


def test_saved_runs_page(tmp_path, monkeypatch):
    spec = make_spec("svm", data={"source": "simulation", "name": "wahba2d", "n": 40},
                     log2_nlambda="-4:0:2", log2_sigma="-1:1:1", criteria="gacv")
    study = pd.DataFrame({"replicate": [0, 0, 1, 1], "seed": [0, 0, 1, 1], "case": ["standard"] * 4,
                          "criterion": ["gacv", "xa"] * 2, "log2_nlambda": [0.0, -2, 0, 0],
                          "log2_sigma": [1.0, 0, 1, 1], "target": [0.1, 0.12, 0.11, 0.1],
                          "inefficiency": [1.0, 1.2, 1.1, 1.0]})
    grid = pd.DataFrame({"log2_sigma": np.repeat([-1.0, 0, 1], 3), "log2_nlambda": np.tile([-4.0, -2, 0], 3),
                         "gacv": np.arange(9, dtype=float)})
    save_run(tmp_path, "study", spec, study, {"settings": {"replicates": 2}})
    save_run(tmp_path, "sweep", spec, grid, {})
    (tmp_path / "damaged").mkdir()
    monkeypatch.setenv("SVMAPP_RUNS_DIR", str(tmp_path))
    at = AppTest.from_file(str(ROOT / "app_pages/saved_runs.py"), default_timeout=60).run()
    assert not at.exception
    assert len(at.dataframe) >= 3                              # the list and two tables
    assert not at.text_input                                   # no folder typed by a visitor
    assert len(at.warning) == 1 and "damaged" in at.warning[0].value
    flat = [t for ts in _chart_types(at) for t in ts]
    assert "box" in flat and "heatmap" in flat


def test_study_page_shows_user_text_in_errors_as_plain_text(monkeypatch):
    monkeypatch.delenv("SVMAPP_DASK_SCHEDULER", raising=False)
    at = AppTest.from_file(str(ROOT / "app_pages/study.py"), default_timeout=60).run()
    at.text_input(key="study_log2_nlambda").set_value("*a*:[b](c)")
    at.button(key="study_run").click().run()
    assert not at.exception and at.error
    body = at.error[0].value                      # Markdown source: every special character escaped
    assert "\\*a\\*" in body and "\\[b\\]\\(c\\)" in body and "*a*" not in body.replace("\\*", "")


SMALL = {"model": "svm", "dataset": "wahba2d", "n": "40", "seed": "2", "R": "3",
         "log2_nlambda": "-6:0:3", "log2_sigma": "-1:1:1", "criteria": "gacv,misclass",
         "nonstandard": "false"}


def _study(query) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app_pages/study.py"), default_timeout=120)
    at.query_params.update(query)
    return at.run()


def test_study_link_reruns_the_same_study(monkeypatch):
    monkeypatch.delenv("SVMAPP_DASK_SCHEDULER", raising=False)
    at = _study(SMALL)
    assert not at.exception and not at.error
    assert not [i for i in at.info if "link key" in i.value]
    assert at.multiselect(key="study_criteria").value == ["gacv", "misclass"]
    assert at.number_input(key="study_replicates").value == 3
    assert not at.checkbox(key="study_nonstandard").value
    res, _ = at.session_state["study_result"]
    assert res.replicates == 3 and [w.name for w in res.weightings] == ["standard"]
    query = dict(at.query_params)
    assert {k: query[k] for k in SMALL} == SMALL
    again = _study(query)
    pd.testing.assert_frame_equal(again.session_state["study_result"][0].table, res.table)


def test_study_bad_link_keys_one_note_each(monkeypatch):
    monkeypatch.delenv("SVMAPP_DASK_SCHEDULER", raising=False)
    at = _study({"dataset": "mnist", "R": "0", "xyz": "1"})
    assert not at.exception and not at.error
    notes = [re.sub(r"\\(.)", r"\1", i.value) for i in at.info if "link key" in i.value]
    assert len(notes) == 3
    for key in ("dataset", "R", "xyz"):
        assert sum(f"'{key}'" in n for n in notes) == 1, (key, notes)
    assert "study_result" not in at.session_state
    assert at.selectbox(key="study_dataset").value == "wahba2d"


def test_real_data_offers_no_truth_criteria(monkeypatch):
    monkeypatch.delenv("SVMAPP_DASK_SCHEDULER", raising=False)
    at = _study({"dataset": "pima", "criteria": "gacv,misclass", "R": "1", "log2_nlambda": "-2:0:2",
                 "log2_sigma": "0", "nonstandard": "false"})
    assert not at.exception and not at.error
    notes = [i.value for i in at.info if "link key" in i.value]
    assert len(notes) == 0
    # misclass needs the true p: real data's criteria box leaves it out
    assert at.multiselect(key="study_criteria").value == ["gacv"]
    assert "misclass" not in at.multiselect(key="study_criteria").options
