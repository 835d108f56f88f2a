"""The Regularization path page's settings and work: lin1d's n and seed and the kernel width
(rows of the svm tables), the panels shown (view Params), and the cached path. The figures are
``svmcore.viz.path``'s."""
from __future__ import annotations

from dataclasses import replace
from numbers import Integral
from typing import Any, Mapping

import numpy as np
import streamlit as st

from svmcore.families import get_family
from svmcore.params import Interval, Options, Param
from svmcore.spec import spec_params

MODEL = "svm"
PREFIX = "path_"
#: nλ = 2^-1 … 2^-25, as in Wahba et al. (2001) Fig 1.3
LOG2_NLAMBDA = tuple(range(-1, -26, -1))
SIGMAS = tuple(f"{v:g}" for v in np.arange(-3.0, 2.5, 0.5))

_PAGE = {
    "n": dict(constraint=Interval(Integral, 50, 1000), default=257, unit="", step=1),
    "seed": dict(constraint=Interval(Integral, 0, 10_000)),
    "log2_sigma": dict(constraint=Options(SIGMAS), default="0", label="log₂ σ (Gaussian kernel)",
                       widget="select",
                       help="σ = 1 (log₂σ = 0) puts the GCKL minimizer near nλ = 2^−17, close to the "
                            "paper's 2^−18"),
}
VIEW = [
    Param("every", Interval(Integral, 1, 6), 3, "show every k-th λ",
          "panels: every k-th nλ of 2^−1 … 2^−25, the last and the GCKL minimizer", widget="int"),
    Param("columns", Interval(Integral, 1, 5), 3, "panels per row",
          "columns of the panel grid (1 or 2 on a phone)", url_key="cols", widget="int"),
]


def page_params() -> list[Param]:
    rows = {p.name: p for p in spec_params(get_family(MODEL))}
    return [replace(rows[name], **changes) for name, changes in _PAGE.items()] + VIEW


@st.cache_data(show_spinner=False, max_entries=16)
def path(n: int, seed: int, log2_sigma: float):
    """The SVM path on lin1d at one σ (``svmcore.views.regularization_path``)."""
    from svmcore import views
    from svmcore.datasets.simulations import make_simulation

    data = make_simulation("lin1d", n=n, seed=seed)
    return views.regularization_path(data, log2_sigma, LOG2_NLAMBDA)


def path_of(values: Mapping[str, Any]):
    return path(int(values["n"]), int(values["seed"]), float(values["log2_sigma"]))


def minimizer(pv) -> dict | None:
    """The GCKL minimizer: {"log2_nlambda", "gckl", "misclass"} or None."""
    if pv.gckl is None or not np.isfinite(pv.gckl).any():
        return None
    b = int(np.nanargmin(pv.gckl))
    return {"log2_nlambda": float(pv.log2_nlambda[b]), "gckl": float(pv.gckl[b]),
            "misclass": float(pv.misclass[b])}
