"""The soft classification page and its figures (no browser)."""
import json
from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

from svmcore.datasets.simulations import make_simulation
from svmcore.families.soft.criteria import gacv, rangacv_draws
from svmcore.families.soft.family import fit_logistic
from svmcore.families.soft.newton import KernelBasis, solve_path, to01
from svmcore.kernels import gaussian_gram
from svmcore.viz import soft as sviz

PAGE = str(Path(__file__).resolve().parents[1] / "app_pages" / "soft.py")


def test_page_waits_for_run_then_renders_small_grid():
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.run()
    assert not at.exception and not at.get("plotly_chart")       # nothing computed before Run
    assert at.info and "Run" in at.info[0].value
    at.number_input(key="soft_n").set_value(50)
    at.text_input(key="soft_lam").set_value("-8:0:4")
    at.text_input(key="soft_sig").set_value("-1:0:1")
    at.number_input(key="soft_reps").set_value(1)
    at.button(key="soft_run").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error
    assert len(at.get("plotly_chart")) == 2
    assert at.title[0].value == "Soft classification"
    panels = [a["text"] for a in json.loads(at.get("plotly_chart")[0].proto.spec)["layout"]["annotations"]]
    assert panels == ["CKL", "GACV", "ranGACV", "CV"]
    # without CV: three panels; a widget change alone recomputes nothing
    at.checkbox(key="soft_cv").uncheck().run()
    assert len(at.get("plotly_chart")) == 2 and "with CV" in at.text[0].value
    at.button(key="soft_run").click().run()
    panels = [a["text"] for a in json.loads(at.get("plotly_chart")[0].proto.spec)["layout"]["annotations"]]
    assert panels == ["CKL", "GACV", "ranGACV"] and "with CV" not in at.text[0].value


def test_page_reports_bad_grid_text_as_plain_text():
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.run()
    at.text_input(key="soft_lam").set_value("*bold*_x_")
    at.button(key="soft_run").click().run()
    assert not at.exception
    # the message names the axis, and the user's text reaches the alert escaped, not as Markdown
    assert at.error and "log2\\(nλ\\)" in at.error[0].value
    assert "\\*bold\\*\\_x\\_" in at.error[0].value


def test_figures_have_expected_traces():
    d = make_simulation("lin1d", 40, 0)
    fit = fit_logistic(d.X, d.y, 2.0 ** -6 / 40, 0.25)
    x = np.linspace(0, 1, 50)
    fig = sviz.probability_curves(x, {"GACV": fit.predict_proba(x[:, None])}, p_true=d.p_fn(x),
                                  svm_decision=np.sin(6 * x), x_data=d.X[:, 0], y_data=d.y)
    names = [t.name for t in fig.data]
    assert "true p" in names and "p̂ (GACV)" in names and "SVM: 1{f > 0}" in names
    np.testing.assert_allclose(fig.data[-1].y, (np.sin(6 * x) > 0).astype(float))
    d2 = make_simulation("wahba2d", 40, 0)
    f2 = fit_logistic(d2.X, d2.y, 2.0 ** -4 / 40, 1.0)
    fig2 = sviz.probability_contours(d2.X, d2.y, {"CKL": f2.predict_proba, "GACV": f2.predict_proba},
                                     p_fn=d2.p_fn, svm_decision=f2.decision_function, steps=20)
    assert len(fig2.layout.annotations) == 2
    sols = solve_path(KernelBasis.from_gram(gaussian_gram(d2.X, sigma=1.0)), to01(d2.y),
                      2.0 ** np.arange(-6.0, 1.0) / 40)
    draws = rangacv_draws(sols, to01(d2.y), 2, 3, seed=0)
    assert draws.shape == (3, 7) and np.isfinite(draws).all()
    g = [gacv(s, to01(d2.y)) for s in sols]
    fig3 = sviz.rangacv_spread(np.arange(-6.0, 1.0), g, draws, 2)
    assert sum(t.name == "ranGACV, R = 2 (each draw)" for t in fig3.data) == 3
