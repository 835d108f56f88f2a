"""Figure content of svmcore.viz.plots (and the svmcore.views glue behind it); no Streamlit needed."""
import subprocess
import sys

import numpy as np
import plotly.graph_objects as go
import pytest

from svmcore import views as explore
from svmcore.viz import plots
from svmcore.datasets.base import Dataset
from svmcore.datasets.simulations import make_simulation
from svmcore.grid import sweep
from svmcore.spec import GridSpec
from svmcore.weights import class_weights_from_costs

GRID = GridSpec.parse("-12:0:4", "-1:1:1")     # 4 × 3 points


@pytest.fixture(scope="module")
def wahba():
    data = make_simulation("wahba2d", n=40, seed=1)
    return data, sweep(data, GRID)


@pytest.fixture(scope="module")
def no_truth():
    d = make_simulation("wahba2d", n=40, seed=2)
    data = Dataset("plain", d.X, d.y)          # P(A|x) unknown
    return data, sweep(data, GRID)


def contours(fig):
    return [t for t in fig.data if isinstance(t, go.Contour)]


def test_contour_grid_has_one_contour_per_criterion(wahba):
    _, res = wahba
    fig = plots.contour_grid(res)
    cs = contours(fig)
    assert len(cs) == len(res.columns)
    assert [c.name for c in cs] == [explore.label(c) for c in res.columns]


def _rim(t):
    """Rows whose next smaller λ in their σ column is on SURE's plateau and lower (a loop over the
    table, independent of the family's vectorised rule)."""
    out = np.zeros(len(t), bool)
    for i, r in enumerate(t.itertuples()):
        below = t[(t.log2_sigma == r.log2_sigma) & (t.log2_nlambda < r.log2_nlambda)]
        if len(below) and not r.sure_degenerate:
            nb = below.loc[below.log2_nlambda.idxmax()]
            out[i] = bool(nb.sure_degenerate) and nb.sure < r.sure
    return out


def test_minimizer_markers_at_grid_argmin(wahba):
    _, res = wahba
    fig = plots.contour_grid(res, show_others=False)
    t = res.table
    for col in res.columns:
        v = t[col].to_numpy(float)
        if col == "sure":   # SURE's pick skips its degenerate plateau and the plateau's rim
            v = np.where(t.sure_degenerate.to_numpy(bool) | _rim(t), np.nan, v)
        i = int(np.nanargmin(np.where(np.isfinite(v), v, np.nan)))
        marks = [tr for tr in fig.data if tr.name == f"{explore.label(col)} minimizer"]
        assert len(marks) == 1, col
        assert marks[0].x[0] == pytest.approx(t.log2_nlambda.iloc[i])
        assert marks[0].y[0] == pytest.approx(t.log2_sigma.iloc[i])


def test_single_panel_overlay_other_minimizers_and_selection(wahba):
    _, res = wahba
    fig = plots.criterion_contour(res, "gacv", show_others=["xa", "misclass"], selected=(-4, 0))
    assert len(contours(fig)) == 1
    grid = [tr for tr in fig.data if tr.meta == "grid"]
    assert len(grid) == 1
    g = grid[0]
    assert len(g.customdata) == GRID.size          # every grid point is clickable
    assert g.marker.color == "rgba(0,0,0,0)"       # and transparent
    for name in ("GACV", "XA", "SURE", "MISCLASS", "GCKL"):
        assert f"{name} = %{{customdata[" in g.hovertemplate or f"<b>{name}</b>" in g.hovertemplate
    # the hover's numbers are the table's: point, sklearn's C and γ, then each criterion
    cd = np.asarray(g.customdata, float)
    tab = res.table
    np.testing.assert_allclose(cd[:, 0], tab["log2_nlambda"], rtol=1e-6)
    np.testing.assert_allclose(cd[:, 2], 1 / (2 * 2.0 ** tab["log2_nlambda"]), rtol=1e-6)
    np.testing.assert_allclose(cd[:, 3], 1 / (2 * (2.0 ** tab["log2_sigma"]) ** 2), rtol=1e-6)
    shown = [c for c in res.columns if c in tab.columns]
    for k, c in enumerate(shown):
        np.testing.assert_allclose(cd[:, 5 + k], tab[c].to_numpy(float), rtol=1e-6, equal_nan=True)
    names = {tr.name for tr in fig.data}
    assert {"GACV minimizer", "XA minimizer", "MISCLASS minimizer", "selected"} <= names
    sel = next(tr for tr in fig.data if tr.name == "selected")
    assert (sel.x[0], sel.y[0]) == (-4, 0)


def test_gacv_and_sure_are_on_a_clipped_log_scale(wahba):
    _, res = wahba
    _, _, Z = res.surface("gacv")
    z = np.asarray(contours(plots.criterion_contour(res, "gacv"))[0].z, float)
    logz = np.log10(Z)
    assert np.nanmin(z) == pytest.approx(np.nanmin(logz))
    assert np.nanmax(z) <= np.nanmax(logz) + 1e-12
    assert np.nanmax(z) == pytest.approx(np.quantile(logz[np.isfinite(logz)], 0.95))
    # infinite values are clipped, not propagated
    V, title, lo, hi = plots._color_values("sure", np.array([[0.5, np.inf], [2.0, 4.0]]), None)
    assert np.isfinite(V).all() and "log" in title


def test_decision_figure_has_bayes_boundary_when_p_known(wahba):
    data, res = wahba
    w = class_weights_from_costs(data.y, 1, 2, 0.1)
    view = explore.decision_view(data, res, w, selected=(-4, 0), resolution=30)
    fig = plots.decision_figure(view)
    bayes = [tr for tr in fig.data if isinstance(tr, go.Contour) and "Bayes" in (tr.name or "")]
    assert len(bayes) == 1
    # the level travels as int8 around the threshold: the curve at 0 is p = L(−1)/(L(−1)+L(+1))
    t = w.L_neg / (w.L_neg + w.L_pos)
    assert bayes[0].contours.start == 0 and "p<sub>s</sub> = " + f"{t:.3g}" in bayes[0].name
    z = np.asarray(bayes[0].z)
    assert z.dtype == np.int8
    np.testing.assert_array_equal(np.sign(z), np.sign(plots.level_bytes(view.p_mesh, t, 0.5)))
    assert np.array_equal(np.sign(z) > 0, np.round(np.clip((view.p_mesh - t) / 0.5, -1, 1) * 126) > 0)
    assert any("clicked point" in (tr.name or "") for tr in fig.data)
    assert view.points["selected"] == (-4.0, 0.0)
    for name in ("GACV", "MISCLASS"):
        assert name in view.surfaces


def test_decision_figure_without_p_has_no_bayes_boundary(no_truth):
    data, res = no_truth
    view = explore.decision_view(data, res, resolution=25)
    fig = plots.decision_figure(view)
    assert view.p_mesh is None
    assert not any("Bayes" in (tr.name or "") for tr in fig.data)
    assert "misclass" not in explore.decision_columns(res)


def test_decision_slice_for_more_than_two_features():
    data = make_simulation("zhang_interaction", n=40, seed=0)
    res = sweep(data, GridSpec.parse("-8:0:8", "0:1:1"), criteria=["gacv", "misclass"])
    view = explore.decision_view(data, res, features=(0, 1), resolution=20)
    assert view.kind == "slice"
    assert "median" in view.caption and "x3" in view.caption
    assert view.p_mesh is not None and view.p_mesh.shape == (20, 20)
    assert len(contours(plots.decision_figure(view))) >= 2


def test_one_dimensional_decision_curves():
    data = make_simulation("lin1d", n=60, seed=0)
    res = sweep(data, GridSpec.parse("-10:0:5", "-1:0:1"), criteria=["gacv", "misclass"])
    view = explore.decision_view(data, res)
    fig = plots.decision_figure(view)
    assert view.kind == "1d"
    assert any("p(x)" in (tr.name or "") for tr in fig.data)
    assert any((tr.name or "").startswith("GACV") for tr in fig.data)


def test_loss_figure_fig_1_1():
    fig = plots.loss_figure()
    names = [tr.name for tr in fig.data]
    assert len(fig.data) >= 3
    hinge = next(tr for tr in fig.data if "hinge" in tr.name)
    tau = np.asarray(hinge.x)
    assert np.allclose(hinge.y, np.maximum(0, 1 - tau))
    assert any("misclassification" in n for n in names)
    step = next(tr for tr in fig.data if "misclassification" in tr.name)
    assert np.all(np.asarray(hinge.y) >= np.asarray(step.y) - 1e-12)  # convex upper bound


def test_regularization_path_small_multiples_and_gckl():
    data = make_simulation("lin1d", n=60, seed=0)
    l2 = [-1, -5, -9, -13]
    path = explore.regularization_path(data, 0.0, l2, n_x=50)
    fig = plots.path_figure(path, ncols=2)
    f_traces = [tr for tr in fig.data if tr.name == "f(x)"]
    assert len(f_traces) == len(l2)
    assert any("sign(p(x)" in (tr.name or "") for tr in fig.data)
    g = plots.gckl_figure(path)
    star = next(tr for tr in g.data if tr.name == "GCKL minimizer")
    assert star.x[0] == l2[int(np.nanargmin(path.gckl))]


def test_summary_table_rows(wahba):
    _, res = wahba
    tbl = explore.summary_table(res)
    assert list(tbl["column"]) == [c for c in res.columns]
    row = tbl.set_index("column").loc["gacv"]
    r = res.minimizer("gacv")
    assert row["log2(nλ)"] == r["log2_nlambda"] and row["log2 σ"] == r["log2_sigma"]
    assert row["inefficiency"] >= 1.0
    assert row["MISCLASS"] == pytest.approx(r["misclass"])


def test_figure_html_is_standalone(wahba):
    _, res = wahba
    html = plots.figure_html(plots.criterion_contour(res, "xa"), include_plotlyjs=True)
    assert "<html>" in html[:100] and "plotly" in html.lower() and len(html) > 1_000_000


def test_svmcore_does_not_import_streamlit():
    code = ("import sys, svmcore.viz.plots, svmcore.views; "
            "sys.exit(1 if 'streamlit' in sys.modules else 0)")
    root = str(__import__("pathlib").Path(__file__).parents[1])
    assert subprocess.run([sys.executable, "-c", code], cwd=root).returncode == 0
