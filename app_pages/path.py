"""Regularization path on lin1d (Wahba et al. 2001, Figs 1.2–1.3): f(x) for nλ = 2^-1 … 2^-25 and GCKL."""
import numpy as np
import streamlit as st

from svmcore.datasets.simulations import make_simulation
from svmcore.viz import plots
from svmcore import views as explore


@st.cache_data(show_spinner=False, max_entries=16)
def _path(n: int, seed: int, log2_sigma: float):
    data = make_simulation("lin1d", n=n, seed=seed)
    return explore.regularization_path(data, log2_sigma, tuple(range(-1, -26, -1)))


st.title("The regularization path (lin1d)")
st.markdown(
    "The 1-D example of Wahba et al. 2001, §1.4: n = 257 points equally spaced on [0, 1], "
    "y ~ Bernoulli(p(x)) with p(x) = 0.5 − 0.4 cos(2πx), so sign(p(x) − ½) = +1 exactly on (¼, ¾). "
    "Each panel is the SVM solution f(x) at one nλ = 2^−1 … 2^−25 (left to right, top to bottom). "
    "Near the GCKL minimizer (red) f is close to sign(p(x) − ½): the SVM estimates the Bayes rule, "
    "not the probability — and only when λ is tuned.")
c1, c2, c3 = st.columns(3)
log2_sigma = c1.select_slider("log₂ σ (Gaussian kernel)", options=list(np.arange(-3.0, 2.5, 0.5)),
                              value=0.0, key="path_sigma",
                              help="σ = 1 (log₂σ = 0) puts the GCKL minimizer near nλ = 2^−17, "
                                   "close to the paper's 2^−18")
n = c2.number_input("n", 50, 1000, 257, step=1, key="path_n")
seed = c3.number_input("seed", 0, 10_000, 0, key="path_seed")
with st.spinner("Following the path …"):
    path = _path(int(n), int(seed), float(log2_sigma))
st.plotly_chart(plots.path_figure(path), key="path_fig", config={"displayModeBar": False})
left, right = st.columns([3, 2])
gfig = plots.gckl_figure(path)
left.plotly_chart(gfig, key="gckl_fig", config={"displayModeBar": False})
if path.gckl is not None and np.isfinite(path.gckl).any():
    b = int(np.nanargmin(path.gckl))
    right.metric("GCKL minimizer", f"nλ = 2^{path.log2_nlambda[b]:g}")
    right.caption(f"GCKL there = {path.gckl[b]:.4f}; MISCLASS = {path.misclass[b]:.4f}")
    right.markdown(
        "GCKL(λ) = (1/n) Σ [p_i (1 − f_i)₊ + (1 − p_i)(1 + f_i)₊] (eq 1.27) is the expected hinge "
        "loss on a new y at the same x_i; it needs the true p and so is known only in a simulation. "
        "GACV, XA and SURE are proxies for it (or for MISCLASS) computable from the data alone.")
from svmcore.viz.plots import figure_html  # noqa: E402

st.download_button("Path figure (HTML)", data=lambda: figure_html(plots.path_figure(path), True),
                   file_name="lin1d_path.html", mime="text/html", on_click="ignore", key="dl_path")
