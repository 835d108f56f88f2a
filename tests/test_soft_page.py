"""The soft classification page: runs, links, its default grid, and its figures (no browser)."""
import json
import re
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from svmapp import soft_page as P
from svmcore.datasets.simulations import make_simulation
from svmcore.families.soft.criteria import gacv, rangacv_draws
from svmcore.families.soft.family import fit_logistic
from svmcore.families.soft.newton import KernelBasis, solve_path, to01
from svmcore.kernels import gaussian_gram
from svmcore.spec import GridSpec
from svmcore.viz import soft as sviz

PAGE = str(Path(__file__).resolve().parents[1] / "app_pages" / "soft.py")
SMALL = {"model": "logistic", "dataset": "wahba2d", "n": "50", "seed": "0",
         "log2_nlambda": "-8:0:4", "log2_sigma": "-1:0:1", "rangacv_reps": "1", "cv": "true"}


def _page(query=None) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=180)
    at.query_params.update(query or {})
    return at.run()


def _panels(at):
    return [a["text"] for a in json.loads(at.get("plotly_chart")[0].proto.spec)["layout"]["annotations"]]


def _notes(at):
    return [re.sub(r"\\(.)", r"\1", i.value) for i in at.info if "link key" in i.value]


def test_page_waits_for_run_then_renders_small_grid():
    at = _page()
    assert not at.exception and not at.get("plotly_chart")       # nothing computed before Run
    assert at.info and "Run" in at.info[0].value
    at.selectbox(key="soft_dataset").set_value("wahba2d")
    at.number_input(key="soft_n").set_value(50)
    at.text_input(key="soft_log2_nlambda").set_value("-8:0:4")
    at.text_input(key="soft_log2_sigma").set_value("-1:0:1")
    at.number_input(key="soft_rangacv_reps").set_value(1)
    at.button(key="soft_run").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error
    assert len(at.get("plotly_chart")) == 2
    assert at.title[0].value == "Soft classification"
    assert _panels(at) == ["CKL", "GACV", "ranGACV", "CV"]
    assert dict(at.query_params) == SMALL                          # the link of the shown run
    # without CV: three panels; a widget change alone recomputes nothing
    at.checkbox(key="soft_use_cv").uncheck().run()
    assert len(at.get("plotly_chart")) == 2 and "with CV" in at.text[0].value
    at.button(key="soft_run").click().run()
    assert _panels(at) == ["CKL", "GACV", "ranGACV"] and "with CV" not in at.text[0].value
    assert dict(at.query_params)["cv"] == "false"


def test_link_restores_the_run():
    at = _page(SMALL)                                              # a link runs by itself
    assert not at.exception and not at.error and not _notes(at)
    assert at.selectbox(key="soft_dataset").value == "wahba2d"
    assert at.text_input(key="soft_log2_nlambda").value == "-8:0:4"
    assert at.number_input(key="soft_n").value == 50 and at.checkbox(key="soft_use_cv").value
    out = at.session_state["soft_result"]
    assert out["settings"] == "wahba2d, n = 50, seed 0, log2(nλ) -8:0:4 × log2 σ -1:0:1, R = 1, with CV"
    again = _page(dict(at.query_params))
    assert again.session_state["soft_result"]["rows"] == out["rows"]


def test_each_bad_link_key_is_one_note_naming_it():
    at = _page({"dataset": "iris", "log2_sigma": "3:1:1", "rangacv_reps": "0", "cost_a": "2"})
    assert not at.exception and not at.error
    notes = _notes(at)
    assert len(notes) == 4, notes
    for key in ("dataset", "log2_sigma", "rangacv_reps", "cost_a"):
        assert sum(f"'{key}'" in n for n in notes) == 1, (key, notes)
    assert "soft_result" not in at.session_state
    assert at.selectbox(key="soft_dataset").value == P.DEFAULT_DATA


def test_page_reports_bad_grid_text_as_plain_text():
    at = _page()
    at.text_input(key="soft_log2_nlambda").set_value("*bold*_x_")
    at.button(key="soft_run").click().run()
    assert not at.exception
    # the message names the axis, and the user's text reaches the alert escaped, not as Markdown
    assert at.error and "log2\\(nλ\\)" in at.error[0].value
    assert "\\*bold\\*\\_x\\_" in at.error[0].value


def _ckl(p, f):
    """CKL (ranGACV paper, eq 3): (1/n) Σ [−p_i f_i + log(1 + e^{f_i})]."""
    return float(np.mean(-p * f + np.logaddexp(0.0, f)))


def test_default_picks_are_strictly_inside_the_default_grid():
    values = {p.name: p.default for p in P.page_params()}
    data, res, _, picks = P.picks(values)
    grid = GridSpec.parse(values["log2_nlambda"], values["log2_sigma"])
    lam, sig = grid.log2_nlambda.values(), grid.log2_sigma.values()
    assert set(picks) == {"CKL", "GACV", "ranGACV", "CV"} and not res.notes     # no edge warning
    for label, row in picks.items():
        assert lam[0] < row["log2_nlambda"] < lam[-1], label
        assert sig[0] < row["log2_sigma"] < sig[-1], label
    # CKL's pick, recomputed from independent fits at every grid point
    n = data.n
    surface = np.array([[_ckl(data.p, fit_logistic(data.X, data.y, 2.0 ** a / n, 2.0 ** b)
                              .decision_function(data.X)) for a in lam] for b in sig])
    i, j = np.unravel_index(np.argmin(surface), surface.shape)
    assert (picks["CKL"]["log2_sigma"], picks["CKL"]["log2_nlambda"]) == (sig[i], lam[j])
    assert picks["CKL"]["ckl"] == pytest.approx(surface[i, j], rel=1e-6)
    assert lam[0] < lam[j] < lam[-1] and sig[0] < sig[i] < sig[-1]


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


def test_contour_levels_travel_small_and_keep_each_curve(sent_array):
    """The p̂ contours' figure sends float32 for the p̂ levels (labelled, each at its own level) and
    the SVM's f = 0, and int8 around ½ for the true p: each is the float64 value computed here from
    the callables, to float32's rounding, or on the same side of its curve."""
    d = make_simulation("wahba2d", 60, 1)
    fit = fit_logistic(d.X, d.y, 2.0 ** -4 / 60, 1.0)
    steps = 30
    fig = sviz.probability_contours(d.X, d.y, {"GACV": fit.predict_proba}, p_fn=d.p_fn,
                                    svm_decision=fit.decision_function, steps=steps)
    _, _, P = sviz._plane(d.X, steps)
    exact = {"p̂": fit.predict_proba(P), "true p = ½": d.p_fn(P), "SVM f = 0": fit.decision_function(P)}
    contours = [t for t in fig.data if t.type == "contour"]
    heat, levels, rest = contours[0], contours[1:6], contours[6:]
    assert sent_array(heat.z).dtype == np.float32
    np.testing.assert_allclose(sent_array(heat.z).ravel(), exact["p̂"], rtol=1e-6)
    assert [t.contours.start for t in levels] == [0.1, 0.25, 0.75, 0.9, 0.5]
    for t in levels:
        assert sent_array(t.z).dtype == np.float32 and t.contours.showlabels
    assert [t.name for t in rest] == ["true p = ½", "SVM f = 0"]
    z = sent_array(rest[1].z)
    assert z.dtype == np.float32 and rest[1].contours.start == 0
    np.testing.assert_allclose(z.ravel(), exact["SVM f = 0"], rtol=1e-6, atol=1e-12)
    z = sent_array(rest[0].z)
    assert z.dtype == np.int8 and rest[0].contours.start == rest[0].contours.end == 0
    side = np.asarray(exact["true p = ½"], float).reshape(steps, steps) - 0.5
    far = np.abs(side) > sviz.P_WINDOW / 126                      # not rounded to 0
    assert far.mean() > 0.9
    np.testing.assert_array_equal(np.sign(z)[far], np.sign(side)[far])


def test_a_run_is_estimated_before_it_starts():
    """The page prices a run from the measured rates (the soft sweep and the SVM's GACV sweep on the
    same grid): more points, more rows or the CV deviance cost more; unusable settings give no
    estimate instead of an error."""
    values = {"dataset": "wahba2d", "n": 200, "seed": 0, "log2_nlambda": "-8:0:4",
              "log2_sigma": "-1:0:1", "rangacv_reps": 5, "use_cv": False}
    base = P.estimated_seconds(values)
    assert base is not None and base > 0
    assert P.estimated_seconds({**values, "use_cv": True}) > base
    assert P.estimated_seconds({**values, "n": 800}) > base
    assert P.estimated_seconds({**values, "log2_nlambda": "-16:0:2"}) > base
    assert P.estimated_seconds({**values, "log2_sigma": "1:-1:1"}) is None     # START > STOP
    assert re.fullmatch(r"fitting the grid \(estimated \d+\.\d s\)…", P.spinner_text(values))
    assert P.spinner_text({**values, "log2_sigma": "1:-1:1"}) == "fitting the grid…"
