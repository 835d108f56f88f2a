"""The Unbiased SVC page renders, keeps its settings in its link, and its figure builders work
without a browser (the surface's legend clear of its colour bar)."""
import re
from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

from svmapp import usvc_page as U
from svmcore.datasets.simulations import make_navia_b, make_wahba2d, navia_threshold_error
from svmcore.families.usvc import fit_kernel, fit_linear
from svmcore.viz import usvc as vz

PAGE = str(Path(__file__).resolve().parents[1] / "app_pages" / "usvc.py")
SMALL = {"model": "usvc", "dataset": "navia_b", "n": "100", "seed": "4", "C": "5", "s": "3",
         "prototypes": "6", "ksig": "0.5", "kC": "2", "kn": "60"}


def _page(query=None) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.query_params.update(query or {})
    return at.run()


def test_page_renders():
    at = _page()
    assert not at.exception
    assert at.title[0].value == "Unbiased SVC"
    assert len(at.dataframe) == 1 and not at.error
    assert dict(at.query_params)["dataset"] == "navia_a"          # the link holds the settings


def test_link_round_trip():
    at = _page(SMALL)
    assert not at.exception and not at.error and not at.info
    assert at.selectbox(key="usvc_dataset").value == "navia_b"
    assert [at.number_input(key=U.PREFIX + k).value for k in ("n", "seed", "C", "s", "prototypes",
                                                              "kernel_log2_sigma", "kernel_C",
                                                              "kernel_n")] == [100, 4, 5, 3, 6, 0.5, 2, 60]
    assert dict(at.query_params) == SMALL                          # written back as it was read
    table = at.dataframe[0].value
    # the thresholds' theoretical errors, recomputed from the table's thresholds
    np.testing.assert_allclose(table["theoretical CE"],
                               navia_threshold_error("navia_b", table["threshold"].to_numpy()), atol=1e-3)
    assert at.text[0].value.startswith("navia_b: n = 100 training points (seed 4)")
    again = _page(dict(at.query_params))                           # the link of the shown view
    assert again.dataframe[0].value.equals(table) and [t.value for t in again.text] == \
        [t.value for t in at.text]


def test_each_bad_link_key_is_one_note_naming_it():
    at = _page({"dataset": "wahba2d", "C": "-1", "what": "x"})
    assert not at.exception
    notes = [re.sub(r"\\(.)", r"\1", i.value) for i in at.info]
    assert len(notes) == 3
    for key in ("dataset", "C", "what"):
        assert sum(f"'{key}'" in n for n in notes) == 1, (key, notes)
    assert at.selectbox(key="usvc_dataset").value == "navia_a" and at.number_input(key="usvc_C").value == 10


def test_figures(sent_array):
    d = make_navia_b(150, 0)
    m = fit_linear(d.X, d.y, method="usvc", C=10.0)
    f = vz.surface_figure(d.X[:, 0], d.y, 10.0, "usvc", paths={"u": (m.fit.coef_path, m.fit.b_path)},
                          th_grid=np.linspace(0, 1, 21), w_grid=np.linspace(1, 20, 15))
    assert len(f.data) == 4 and np.array(f.data[0].z).shape == (15, 21)
    assert len(vz.threshold_error_figure("navia_b", d.X[:, 0], d.y, {"USVC": 0.5}).data) == 2
    assert len(vz.class_densities("navia_a").data) == 2
    w = make_wahba2d(100, 0)
    km = fit_kernel(w.X, w.y, 1.0, 8, method="svc", C=1.0)
    fig = vz.kernel_machine_figure(w, {"k": km}, resolution=30)
    assert len(fig.data) == 5
    _values_as_sent(fig, w, km, sent_array)


def _values_as_sent(fig, data, machine, sent_array, resolution=30):
    """The zero curves' values travel as float32: each is the machine's (or p's) float64 value,
    computed here, to float32's rounding."""
    gx, gy = fig.data[2].x, fig.data[2].y
    G = np.column_stack([np.tile(gx, resolution), np.repeat(gy, resolution)])
    exact = {"k": machine.decision_function(G), "Bayes": data.p_fn(G)}
    for trace in fig.data:
        if trace.type == "contour":
            z = sent_array(trace.z)
            assert z.dtype == np.float32
            np.testing.assert_allclose(z.ravel(), exact[trace.name], rtol=1e-6, atol=1e-12)


def test_close_thresholds_get_labels_at_different_heights():
    f = vz.threshold_error_figure("navia_a", thresholds={"LS": 0.358, "SVC": 0.401, "USVC": 0.478, "none": None})
    notes = sorted(f.layout.annotations, key=lambda a: a.x)
    assert [a.text for a in notes] == ["LS: 0.358", "SVC: 0.401", "USVC: 0.478"]
    assert len({a.y for a in notes}) == 3 and all(a.yref == "paper" for a in notes)
    assert [sh.x0 for sh in f.layout.shapes] == [0.358, 0.401, 0.478]       # a line at each


def test_surface_legend_clear_of_the_colour_bar():
    d = make_navia_b(60, 0)
    f = vz.surface_figure(d.X[:, 0], d.y, 10.0, "svc", th_grid=np.linspace(0, 1, 11),
                          w_grid=np.linspace(1, 20, 8))
    bar, leg = f.data[0].colorbar, f.layout.legend
    left, right = f.layout.xaxis.domain, f.layout.xaxis2.domain
    # the colour bar stands in the gap between the surface and the profile panel ...
    assert left[1] < bar.x < right[0] and bar.xanchor == "left"
    # ... and the legend is horizontal in the bottom margin, below both panels
    assert leg.orientation == "h" and leg.yref == "container" and leg.y == 0 and leg.yanchor == "bottom"
    assert f.layout.margin.b >= 100
    # the profile's axis is on the right (in the right margin), so the gap holds the bar alone
    assert f.layout.yaxis2.side == "right" and f.layout.margin.r >= 40
