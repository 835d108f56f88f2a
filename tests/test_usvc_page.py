"""The Unbiased SVC page renders, and its figure builders work without a browser."""
from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

from svmcore.datasets.simulations import make_navia_b, make_wahba2d
from svmcore.families.usvc import fit_kernel, fit_linear
from svmcore.viz import usvc as vz

PAGE = str(Path(__file__).resolve().parents[1] / "app_pages" / "usvc.py")


def test_page_renders():
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.run()
    assert not at.exception
    assert at.title[0].value == "Unbiased SVC"
    assert len(at.dataframe) == 1 and not at.error


def test_figures():
    d = make_navia_b(150, 0)
    m = fit_linear(d.X, d.y, method="usvc", C=10.0)
    f = vz.surface_figure(d.X[:, 0], d.y, 10.0, "usvc", paths={"u": (m.fit.coef_path, m.fit.b_path)},
                          th_grid=np.linspace(0, 1, 21), w_grid=np.linspace(1, 20, 15))
    assert len(f.data) == 4 and np.array(f.data[0].z).shape == (15, 21)
    assert len(vz.threshold_error_figure("navia_b", d.X[:, 0], d.y, {"USVC": 0.5}).data) == 2
    assert len(vz.class_densities("navia_a").data) == 2
    w = make_wahba2d(100, 0)
    km = fit_kernel(w.X, w.y, 1.0, 8, method="svc", C=1.0)
    assert len(vz.kernel_machine_figure(w, {"k": km}, resolution=30).data) == 5
