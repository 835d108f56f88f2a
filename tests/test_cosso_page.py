"""The COSSO page renders, fits a small simulation and draws its figures; the figure builders."""
from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

from svmcore.datasets.simulations import make_simulation
from svmcore.families.cosso.family import fit_cosso, payload
from svmcore.viz import cosso as figs

PAGE = str(Path(__file__).resolve().parents[1] / "app_pages" / "cosso.py")


def test_page_renders_and_fits():
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    assert not at.exception
    assert at.title[0].value == "Variable selection (COSSO)"
    assert any("sidebar" in c.value for c in at.caption)
    at.number_input(key="cosso_n").set_value(60)
    at.number_input(key="cosso_nM").set_value(5)
    at.button(key="cosso_fit").click().run()
    assert not at.exception and not at.error
    assert len(at.metric) == 4
    assert any(t.value.startswith("selected:") for t in at.text)
    assert "cosso_result" in at.session_state


def test_figures_from_a_fit():
    data = make_simulation("zhang_additive", 50, 2)
    test = make_simulation("zhang_additive", 300, 3)
    res = fit_cosso(data.X, data.y, p=data.p, n_M=4)
    out = payload(res, data, test)
    f = figs.theta_path_figure(out)
    assert len(f.data) == 10
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
