"""Issue 18: the sidebar and links are generated from the parameter tables (svmcore.params).

A Param added to the SVM family's table appears among the sidebar's widgets and in the link with
no other edit; a link's values are read by their Params: valid values are used (never clamped), a
refused value or an unknown key gives one note naming it, old keys keep working."""
from numbers import Real
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from svmapp import settings as S
from svmapp import widgets as W
from svmcore.families import get_family
from svmcore.params import Interval, Param

APP = str(Path(__file__).resolve().parents[2] / "app.py")
TINY = {"n": "60", "log2_nlambda": "-12:0:4", "log2_sigma": "-1:1:1", "extend_grid": "false",
        "criteria": "gacv,xa"}
DUMMY = Param("dummy_knob", Interval(Real, 0, 1), 0.5, "dummy knob", "a test knob", step=0.1)


def app(query) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update(query)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def notes(at) -> str:
    return re.sub(r"\\(.)", r"\1", " ".join(i.value for i in at.sidebar.info))


@pytest.fixture
def dummy(monkeypatch):
    fam = get_family("svm")
    monkeypatch.setattr(type(fam), "params", tuple(fam.params) + (DUMMY,))
    return fam


class Recorder:
    """A stand-in for ``st``: records each widget call."""

    def __init__(self):
        self.calls = []

    def columns(self, n):
        return [self] * n

    def __getattr__(self, kind):
        return lambda label, *a, **kw: self.calls.append((kind, label, kw.get("key"), kw))


def test_a_new_param_is_drawn_from_the_table(dummy):
    rec = Recorder()
    W.render_table(dummy.params, rec)
    call = next(c for c in rec.calls if c[2] == "w_dummy_knob")
    assert call[0] == "number_input" and call[1] == "dummy knob"
    assert call[3]["min_value"] == 0.0 and call[3]["max_value"] == 1.0
    assert "a test knob" in call[3]["help"] and "[0, 1]" in call[3]["help"]


def test_a_new_param_is_in_the_sidebar_and_the_link(dummy):
    assert S.to_query(S.settings_from())["dummy_knob"] == "0.5"
    at = app({**TINY, "dummy_knob": "0.25"})
    assert at.number_input(key="w_dummy_knob").value == 0.25
    assert at.session_state["applied"]["dummy_knob"] == 0.25
    qp = {k: (v[0] if isinstance(v, list) else v) for k, v in at.query_params.items()}
    assert qp["dummy_knob"] == "0.25"


def test_cost_within_the_table_is_used_not_clamped():
    at = app({**TINY, "cost_a": "500"})
    assert at.number_input(key="w_cost_a").value == 500.0
    assert S.spec_for(at.session_state["applied"]).cost_a == 500.0
    assert not at.sidebar.info


def test_refused_cost_gives_one_note_naming_it():
    at = app({**TINY, "cost_a": "5000"})
    text = notes(at)
    assert text.count("cost_a") >= 1 and "[0.001, 1000]" in text
    assert len(at.sidebar.info) == 1
    assert at.session_state["applied"]["cost_a"] == 1.0


def test_unknown_key_is_named():
    at = app({**TINY, "bogus": "1"})
    assert "'bogus'" in notes(at)


def test_duplicate_view_entry_gives_a_note_not_an_exception():
    at = app({**TINY, "show": "gacv,gacv"})
    assert "'show'" in notes(at) and "twice" in notes(at)
    assert at.multiselect(key="tun_shown").value == ["gacv"]


def test_laplacian_kernel_from_a_link():
    at = app({**TINY, "kernel": "laplacian"})
    assert at.selectbox(key="w_kernel").value == "laplacian"
    assert "laplacian" in at.selectbox(key="w_kernel").options
    assert at.session_state["applied"]["kernel"] == "laplacian"


def test_old_link_keys_still_work():
    at = app({"n": "60", "lam": "-10:0:2", "sig": "0:1:1", "extend": "0", "rho": "1", "folds": "3"})
    applied = at.session_state["applied"]
    assert (applied["log2_nlambda"], applied["log2_sigma"], applied["extend_grid"]) == ("-10:0:2", "0:1:1", False)
    assert (applied["xa_rho"], applied["cv_folds"]) == (1.0, 3)
    assert at.text_input(key="w_log2_nlambda").value == "-10:0:2"
    assert not at.sidebar.info


def test_a_preset_the_spec_refuses_names_the_value(monkeypatch):
    monkeypatch.setitem(S.PRESETS, "bad", {"cost_a": 5000.0})
    with pytest.raises(S.SVMCoreError, match=r"preset 'bad': cost_a must be in \[0.001, 1000\]"):
        S.preset_settings("bad")
