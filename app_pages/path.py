"""Regularization path on lin1d (Wahba et al. 2001, Figs 1.2–1.3): p(x), f(x) for nλ = 2^-1 … 2^-25 and GCKL."""
import streamlit as st

from svmapp import links
from svmapp import path_page as R
from svmapp import ui
from svmapp import widgets as W
from svmcore.viz import path as pviz
from svmcore.viz import plots

PARAMS = R.page_params()

ui.page_head(
    "The regularization path (lin1d)",
    "The 1-D example of Wahba et al. 2001, §1.4: n = 257 points equally spaced on [0, 1], "
    "y ~ Bernoulli(p(x)) with p(x) = 0.5 − 0.4 cos(2πx), so sign(p(x) − ½) = +1 exactly on (¼, ¾). "
    "Each panel is the SVM solution f(x) at one nλ between 2^−1 and 2^−25 (red: the GCKL minimizer). "
    "Near the GCKL minimizer (red) f is close to sign(p(x) − ½): the SVM estimates the Bayes rule, "
    "not the probability — and only when λ is tuned.")
links.show_notes(links.restore(PARAMS, R.PREFIX, R.MODEL))
with ui.controls_box():
    for col, p in zip(st.columns(len(PARAMS)), PARAMS):
        W.render(p, col, prefix=R.PREFIX)
values = links.values(PARAMS, R.PREFIX)
links.write(values, R.MODEL, PARAMS)
with st.spinner("Following the path …"):
    path = R.path_of(values)
panels = pviz.path_panels(path, values["every"], values["columns"])
shown = [(pviz.truth_figure(path.x, path.p_x, path.threshold, path.X[:, 0], path.y), "path_truth"),
         (panels, "path_fig")]
for fig, key in shown[::-1] if ui.presenting() else shown:   # presenting: the path (Fig 1.3) first
    st.plotly_chart(fig, key=key, config={"displayModeBar": False})
best = R.minimizer(path)
if best is not None:
    st.metric("GCKL minimizer", f"nλ = 2^{best['log2_nlambda']:g}")
    st.caption(f"GCKL there = {best['gckl']:.4f}; MISCLASS = {best['misclass']:.4f}")
st.plotly_chart(plots.gckl_figure(path), key="gckl_fig", config={"displayModeBar": False})
st.markdown(
    "GCKL(λ) = (1/n) Σ [p_i (1 − f_i)₊ + (1 − p_i)(1 + f_i)₊] (eq 1.27) is the expected hinge "
    "loss on a new y at the same x_i; it needs the true p and so is known only in a simulation. "
    "GACV, XA and SURE are proxies for it (or for MISCLASS) computable from the data alone.")
st.download_button("Path figure (HTML)", data=lambda: plots.figure_html(panels, True),
                   file_name="lin1d_path.html", mime="text/html", on_click="ignore", key="dl_path")
