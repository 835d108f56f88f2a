"""The Unbiased SVC page's settings and work (Navia-Vázquez et al. 2004): its Params, the linear
machines on navia_a/navia_b and the kernel machine on wahba2d. No Streamlit here."""
from __future__ import annotations

from dataclasses import replace
from numbers import Integral, Real
from typing import Any, Mapping

import numpy as np

from svmcore.datasets.simulations import make_simulation, navia_threshold_error
from svmcore.families import get_family
from svmcore.params import Interval, Options, Param
from svmcore.spec import spec_params

MODEL = "usvc"
PREFIX = "usvc_"
CASES = ("navia_a", "navia_b")
#: the fresh test sample of the linear machines (drawn with seed + 1)
TEST_N = 5000

_PAGE = {  # name: changes to the usvc family table's row
    "dataset": dict(constraint=Options(CASES), default="navia_a", label="case"),
    "n": dict(constraint=Interval(Integral, 50, 2000), default=500, unit="", step=50),
    "seed": {}, "C": dict(constraint=Interval(Real, 0.01, 1000.0)), "s": {},
}
#: the kernel machine's own settings (view Params of this page)
KERNEL = [
    Param("prototypes", Interval(Integral, 2, 200), 20, "prototypes R",
          "R kernel prototypes (k-means) of the Gaussian machine", widget="int"),
    Param("kernel_log2_sigma", Interval(Real, -5.0, 5.0), 0.0, "log2 σ",
          "kernel width of the prototype machine, log2 σ", url_key="ksig", step=0.5),
    Param("kernel_C", Interval(Real, 0.01, 1000.0), 1.0, "C (kernel)",
          "penalty C of the kernel machine (the SVM beside it has nλ = 1/(2C))", url_key="kC"),
    Param("kernel_n", Interval(Integral, 50, 1000), 200, "n (wahba2d)",
          "training points of wahba2d for the kernel machine", url_key="kn", widget="int", step=50),
]


def page_params() -> list[Param]:
    """The page's settings: the linear machines' (from the family tables), then the kernel's."""
    rows = {p.name: p for p in spec_params(get_family(MODEL))}
    return [replace(rows[name], **changes) for name, changes in _PAGE.items()] + KERNEL


def _errors(X, y, w, b) -> float:
    return float(np.mean(np.where(X @ w + b > 0, 1, -1) != y))


def linear(values: Mapping[str, Any]) -> dict:
    """LS, SVC and USVC linear machines on the case: thresholds, errors and the table."""
    from svmcore.families.usvc import fit_linear

    case, n, seed, C = values["dataset"], int(values["n"]), int(values["seed"]), float(values["C"])
    d, t = make_simulation(case, n, seed), make_simulation(case, TEST_N, seed + 1)
    ls = fit_linear(d.X, d.y, method="ls", C=C)
    us = fit_linear(d.X, d.y, method="usvc", C=C, s=float(values["s"]), start="ls")
    svc = us.svc_stage
    coefs = {"LS": (ls.w, ls.b), "SVC": (svc.coef, svc.b), "USVC": (us.w, us.b)}
    ths = {k: float(-b / w[0]) for k, (w, b) in coefs.items()}
    errs = {k: (_errors(d.X, d.y, w, b), _errors(t.X, t.y, w, b)) for k, (w, b) in coefs.items()}
    table = {"algorithm": list(ths), "threshold": [round(v, 4) for v in ths.values()],
             "theoretical CE": [float(navia_threshold_error(case, v)) for v in ths.values()],
             "test CE (5000)": [errs[k][1] for k in ths]}
    return {"case": case, "x": d.X[:, 0], "y": d.y, "C": C, "s": float(values["s"]),
            "thresholds": ths, "errors": errs, "table": table,
            "svc_path": (svc.coef_path, svc.b_path), "usvc_path": (us.fit.coef_path, us.fit.b_path),
            "warning": None if us.fit.converged else us.fit.message,
            "caption": f"{case}: n = {n} training points (seed {seed}); test errors on {TEST_N} new points"}


def kernel(values: Mapping[str, Any]) -> dict:
    """The USVC on R prototypes and the plain SVM on all points of wahba2d."""
    from svmcore.families.svm.fit import fit_svm
    from svmcore.families.usvc import fit_kernel
    from svmcore.kernels import Kernel

    seed, C = int(values["seed"]), float(values["kernel_C"])
    data = make_simulation("wahba2d", int(values["kernel_n"]), seed)
    sigma = 2.0 ** float(values["kernel_log2_sigma"])
    km = fit_kernel(data.X, data.y, sigma, int(values["prototypes"]), seed=seed, method="usvc", C=C)
    sv = fit_svm(data.X, data.y, 1.0 / (2 * data.n * C), Kernel("gaussian", sigma=sigma), None,
                 solver="cvxopt")
    return {"data": data, "machines": {"USVC on prototypes": km, "SVM (all points)": sv},
            "caption": f"USVC: {km.fit.iterations} iterations, converged {km.fit.converged}; "
                       f"SVM: {sv.n_sv} support vectors"}
