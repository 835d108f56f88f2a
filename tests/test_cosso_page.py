"""The COSSO page renders, fits a small simulation, keeps its settings in its link and draws its
figures; the figure builders (axis fitted to the data, legend clear of the colour bar)."""
import re
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from svmapp import cosso_page as C
from svmapp import links
from svmapp import widgets as W
from svmcore import codec
from svmcore.datasets.simulations import make_simulation
from svmcore.families.cosso.family import fit_cosso, payload
from svmcore.viz import cosso as figs

PAGE = str(Path(__file__).resolve().parents[1] / "app_pages" / "cosso.py")
SMALL = {"n": 60, "n_M": 4, "seed": 3, "cost_b": 2.0}


def _page(query=None) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.query_params.update(query or {})
    return at.run()


def _widgets(at) -> dict:
    out = {}
    for kind in ("number_input", "selectbox", "checkbox"):
        for w in at.get(kind):
            if w.key and w.key.startswith(C.PREFIX):
                out[w.key] = w.value
    return out


def _plain(at, kind="info") -> list[str]:
    return [re.sub(r"\\(.)", r"\1", e.value) for e in at.get(kind)]


def test_page_renders_and_fits():
    at = _page()
    assert not at.exception
    assert at.title[0].value == "Variable selection (COSSO)"
    assert any("sidebar" in c.value for c in at.caption)
    assert "cosso_result" not in at.session_state                  # nothing fitted before the button
    at.number_input(key="cosso_n").set_value(60)
    at.number_input(key="cosso_n_M").set_value(5)
    at.button(key="cosso_fit").click().run()
    assert not at.exception and not at.error
    assert len(at.metric) == 4
    assert any(t.value.startswith("selected:") for t in at.text)
    assert "cosso_result" in at.session_state


def test_the_tuning_rule_box_shows_none_and_each_rule():
    """The optional tuning rule: its box shows the choice "none" (not an empty box, as a None value
    would), which reads back as None (the family's own rule); a rule chosen goes into the link."""
    at = _page()
    box = at.selectbox(key="cosso_tune")
    assert box.value == W.NONE_CHOICE and box.options[0] == "none"
    assert W.value(next(p for p in C.page_params() if p.name == "tune"), at.session_state, C.PREFIX) is None
    box.set_value("gacv")
    at.number_input(key="cosso_n").set_value(60)
    at.number_input(key="cosso_n_M").set_value(3)
    at.button(key="cosso_fit").click().run()
    assert not at.exception and not at.error
    assert at.session_state["cosso_result"]["out"]["tune"] == "gacv"
    assert at.query_params["tune"] in ("gacv", ["gacv"])
    again = _page(codec.last_values(at.query_params))
    assert again.selectbox(key="cosso_tune").value == "gacv"


def test_a_view_restored_from_its_link_equals_the_original():
    at = _page()
    for name, v in SMALL.items():
        at.number_input(key=C.PREFIX + name).set_value(v)
    at.checkbox(key="cosso_interactions").check()
    at.button(key="cosso_fit").click().run()
    assert not at.exception and not at.error
    query = dict(at.query_params)
    assert query["model"] == "cosso" and query["n_M"] == "4" and query["interactions"] == "true"
    first = at.session_state["cosso_result"]["out"]

    again = _page(query)                                      # a new session opens the link
    assert not again.exception and not again.error and not again.info
    assert _widgets(again) == _widgets(at)
    second = again.session_state["cosso_result"]["out"]       # the link runs the fit by itself
    assert {k: v for k, v in second.items() if k != "seconds"} == \
        {k: v for k, v in first.items() if k != "seconds"}
    assert [m.value for m in again.metric[:3]] == [m.value for m in at.metric[:3]]


def test_each_bad_link_key_is_one_note_naming_it():
    at = _page({"model": "cosso", "dataset": "nope", "n_M": "abc", "bogus": "1", "kernel": "ssanova"})
    assert not at.exception and not at.error
    notes = _plain(at)
    assert len(notes) == 4, notes
    for key in ("dataset", "n_M", "bogus", "kernel"):
        assert sum(f"'{key}'" in n for n in notes) == 1, (key, notes)
    assert "zhang_additive" in next(n for n in notes if "'dataset'" in n)   # the listed names
    assert at.selectbox(key="cosso_dataset").value == "zhang_additive"      # defaults kept
    assert at.number_input(key="cosso_n_M").value == 20
    assert "cosso_result" not in at.session_state                           # nothing to run


def test_read_link_narrows_to_the_page():
    params = C.page_params()
    values, notes = links.read_link({"n": "5000", "tune": "gacv", "model": "svm"}, C.MODEL, params)
    assert values == {"tune": "gacv"}                 # n = 5000 is a valid spec but not on this page
    assert len(notes) == 2 and "'n'" in notes[1] and "'model'" in notes[0]
    q = links.link_query({"dataset": "pima", "n": 100, "tune": None, "compare": True}, C.MODEL, params)
    assert q == {"model": "cosso", "dataset": "pima", "n": "100", "compare": "true"}
    assert links.read_link(q, C.MODEL, params) == ({"dataset": "pima", "n": 100, "compare": True}, [])


def test_spec_of_page_values():
    spec = C.spec_of({"dataset": "zhang_additive", "n": 60, "seed": 2, "n_M": 4, "compare": True})
    assert (spec.model, spec.data.n, spec.data.seed, spec.data.test_n, spec.n_M) == \
        ("cosso", 60, 2, C.TEST_N, 4)
    real = C.spec_of({"dataset": "pima", "n": 60, "seed": 2})
    assert real.data.source == "bundled" and real.data.n is None
    assert real.data.test_fraction == pytest.approx(1 / 3)


@pytest.fixture(scope="module")
def small_fit():
    data = make_simulation("zhang_additive", 50, 2)
    test = make_simulation("zhang_additive", 300, 3)
    res = fit_cosso(data.X, data.y, p=data.p, n_M=4)
    return data, res, payload(res, data, test)


def test_figures_from_a_fit(small_fit):
    data, res, out = small_fit
    f = figs.theta_path_figure(out)
    assert [t.name for t in f.data[:10]] == [f"x{j}" for j in range(1, 11)]
    np.testing.assert_allclose(f.data[0].y, out["theta_path"]["x1"])
    t = figs.tuning_figure(out)
    assert {"gckl", "gacv"} <= set(out["curves"])
    star = [tr for tr in t.data if tr.marker.symbol == "star"]
    for k, name in enumerate(out["curves"]):
        assert star[k].x[0] == out["M_grid"][int(np.argmin(out["curves"][name]))]
    c = figs.component_figure(res.model, "zhang_additive")
    assert len(c.data) >= 1
    r = figs.region_figure(res.model, data.X, data.y, 0, 1, n_grid=20)
    assert r.data[0].z.shape == (20, 20)
    b = figs.comparison_figure({"COSSO SVM": 0.25, "Gaussian SVM": 0.3}, 0.216)
    assert list(b.data[0].y) == [0.25, 0.3]


def test_theta_axis_fits_the_m_grid(small_fit):
    _, _, out = small_fit
    f = figs.theta_path_figure(out)
    lo, hi = np.log10(min(out["M_grid"])), np.log10(max(out["M_grid"]))
    x0, x1 = f.layout.xaxis.range
    assert f.layout.xaxis.type == "log"
    # the range is the grid's, padded by 3 % of its span each side (not stretched by a shape)
    assert x0 == pytest.approx(lo - 0.03 * (hi - lo)) and x1 == pytest.approx(hi + 0.03 * (hi - lo))
    xs = np.log10(np.concatenate([np.asarray(tr.x, float) for tr in f.data]))
    assert xs.min() >= x0 and xs.max() <= x1
    assert not f.layout.shapes and not f.layout.annotations
    y0, y1 = f.layout.yaxis.range
    top = max(max(v) for v in out["theta_path"].values())
    assert y0 < 0 <= top <= y1 <= 1.1 * max(top, 1.0) + 1e-12


def test_region_legend_is_below_the_colour_bar(small_fit):
    data, res, _ = small_fit
    f = figs.region_figure(res.model, data.X, data.y, 0, 1, n_grid=10)
    leg, bar = f.layout.legend, f.data[0].colorbar
    # the colour bar stands beside the plot area (paper y in [0, 1], x past its right edge); the
    # legend lies in the bottom margin, below the plot area and its x-axis title
    assert leg.orientation == "h" and leg.yref == "container" and leg.y == 0
    assert leg.yanchor == "bottom" and f.layout.margin.b >= 100
    assert (bar.len or 1) <= 1 and (bar.x is None or bar.x >= 1)
