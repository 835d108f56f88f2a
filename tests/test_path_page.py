"""The regularization-path page: its link, p(x) of Fig 1.2, and panels that fit a phone."""
import re
from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

from svmapp import path_page as R
from svmcore.viz import path as pviz

PAGE = str(Path(__file__).resolve().parents[1] / "app_pages" / "path.py")
SMALL = {"model": "svm", "n": "65", "seed": "1", "log2_sigma": "-1", "every": "4", "cols": "2"}


def _page(query=None) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.query_params.update(query or {})
    return at.run()


def _notes(at):
    return [re.sub(r"\\(.)", r"\1", i.value) for i in at.info]


def test_link_round_trip():
    at = _page(SMALL)
    assert not at.exception and not at.error and not _notes(at)
    assert [at.number_input(key=f"path_{k}").value for k in ("n", "seed", "every", "columns")] == [65, 1, 4, 2]
    assert at.selectbox(key="path_log2_sigma").value == "-1"
    assert dict(at.query_params) == SMALL
    charts = at.get("plotly_chart")
    assert len(charts) == 3
    again = _page(dict(at.query_params))
    assert [c.proto.spec for c in again.get("plotly_chart")] == [c.proto.spec for c in charts]


def test_each_bad_link_key_is_one_note_naming_it():
    at = _page({"log2_sigma": "0.7", "n": "5", "what": "1"})
    assert not at.exception and not at.error
    notes = _notes(at)
    assert len(notes) == 3
    for key in ("log2_sigma", "n", "what"):
        assert sum(f"'{key}'" in n for n in notes) == 1, (key, notes)
    assert at.number_input(key="path_n").value == 257 and at.selectbox(key="path_log2_sigma").value == "0"


def test_truth_figure_is_lin1d_p_and_its_bayes_rule():
    pv = R.path(65, 0, 0.0)
    fig = pviz.truth_figure(pv.x, pv.p_x, pv.threshold, pv.X[:, 0], pv.y)
    by = {t.name: t for t in fig.data}
    x = np.asarray(by["p(x) = P(A | x)"].x)
    np.testing.assert_allclose(by["p(x) = P(A | x)"].y, 0.5 - 0.4 * np.cos(2 * np.pi * x), atol=1e-12)
    rule = np.asarray(by["Bayes rule 1{p(x) > ½}"].y)
    away = (np.abs(x - 0.25) > 1e-3) & (np.abs(x - 0.75) > 1e-3)      # off the two crossings
    np.testing.assert_array_equal(rule[away], ((x > 0.25) & (x < 0.75))[away])   # p > ½ on (¼, ¾)
    assert len(by["data (A = 1, B = 0)"].x) == 65


def test_panels_fit_a_390_px_screen():
    pv = R.path(65, 0, 0.0)
    fig = pviz.path_panels(pv, every=3, ncols=3)
    best = int(np.nanargmin(pv.gckl))
    shown = pviz.shown_panels(25, 3, best)
    assert set(shown) == set(range(0, 25, 3)) | {24, best}
    assert len(fig.layout.annotations) == len(shown)
    # at 390 px the chart is about 358 px wide; less the margins, each panel's domain must hold
    # its title at about 7 px a character (12 px font)
    plot_px = 358 - fig.layout.margin.l - fig.layout.margin.r
    for k, a in enumerate(fig.layout.annotations):
        axis = fig.layout["xaxis" if k == 0 else f"xaxis{k + 1}"]
        width = (axis.domain[1] - axis.domain[0]) * plot_px
        text = re.sub(r"<[^>]+>", "", a.text)
        assert len(text) * 7 <= width, (text, width)
    rows = -(-len(shown) // 3)
    assert fig.layout.height >= 190 * rows                # panels taller than the old 150 px rows
