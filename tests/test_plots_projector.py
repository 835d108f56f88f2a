"""The projector style, scikit-learn's C/γ axes, labelled colour bars and the settings line inside
the figures (so a PNG/SVG export carries it): svmcore.viz.plots, no Streamlit."""
import numpy as np
import pytest

from svmcore.datasets.simulations import make_simulation
from svmcore.grid import sweep
from svmcore.spec import GridSpec
from svmcore.views import label
from svmcore.viz import plots


@pytest.fixture(scope="module")
def result():
    d = make_simulation("wahba2d", n=60, seed=0)
    return sweep(d, GridSpec.parse("-10:0:2", "-1:1:1"))


def test_projector_style_is_readable_from_the_back(result):
    fig = plots.criterion_contour(result, "gacv", show_others=["gacv", "xa", "misclass"],
                                  selected=(-4.0, 0.0), style="projector")
    assert fig.layout.legend.font.size >= 14
    others = [t for t in fig.data if t.meta == "other-min"]
    assert others and all(t.marker.size >= 14 for t in others)
    cbar = next(t for t in fig.data if t.type == "contour").colorbar
    assert "GACV" in cbar.title.text and cbar.tickfont.size >= 14


def test_colour_bars_are_labelled_on_screen_too(result):
    for c in ("gacv", "xa"):
        cbar = next(t for t in plots.criterion_contour(result, c).data if t.type == "contour").colorbar
        assert label(c) in cbar.title.text


def test_sklearn_axes_label_c_and_gamma(result):
    fig = plots.criterion_contour(result, "gacv", axes="sklearn")
    x, y = fig.layout.xaxis, fig.layout.yaxis
    assert x.title.text.startswith("C = 1/(2nλ)") and y.title.text.startswith("γ = 1/(2σ²)")
    # log2 C = −log2(nλ) − 1 and log2 γ = −2 log2 σ − 1 at each tick
    for v, t in zip(x.tickvals, x.ticktext):
        assert t == f"2<sup>{-v - 1:g}</sup>"
    for v, t in zip(y.tickvals, y.ticktext):
        assert t == f"2<sup>{-2 * v - 1:g}</sup>"
    assert x.autorange == "reversed"       # C grows to the right
    grid = next(t for t in fig.data if t.meta == "grid")
    assert set(np.asarray(grid.x, float)) == set(np.arange(-10, 1, 2.0))     # clicks stay in log2 units


def test_settings_line_is_inside_the_exported_image(result):
    line = plots.settings_line(result)
    fig = plots.criterion_contour(result, "xa", settings=line)
    note = next(a.text for a in fig.layout.annotations if a.name == "settings")
    assert note == plots.note_text(line) and all(len(t) <= 52 for t in note.split("<br>"))
    assert note.replace("<br>", "") .replace(",", "").replace(" ", "").replace("·", "") == \
        line.replace(",", "").replace(" ", "").replace("·", "")      # every part of the line is kept
    assert "wahba2d" in line and "C_A = 1" in line
