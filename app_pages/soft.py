"""Soft classification: penalized likelihood tuned by CKL, GACV, ranGACV and CV (docs/soft.md)."""
import streamlit as st

from svmapp import links
from svmapp import soft_page as P
from svmapp import ui
from svmapp import widgets as W
from svmapp.ui import plain
from svmcore._validation import SVMCoreError

PARAMS = P.page_params()

ui.page_head(
    "Soft classification",
    "Penalized likelihood estimates the probability p(x) = P(A | x) itself, not only the sign of "
    "p − ½ that the SVM estimates: it minimises (1/n) Σ [−y_i f_i + log(1 + e^{f_i})] + λ c'Kc "
    "with f = b + Kc and y = 1 for class A, 0 for B, and p̂ = 1/(1 + e^{−f}) (Wahba et al. 2001, "
    "§1.2). λ and σ are tuned on the grid below by four criteria.",
    "This page has its own controls; the sidebar settings don't apply here.")
if not ui.presenting():
    with st.expander("What CKL, GACV and ranGACV are"):
        st.markdown(
            "- **CKL** (comparative Kullback–Leibler distance) is the target: the expected negative "
            "log-likelihood of a new label at the same x's, (1/n) Σ [−p_i f_i + log(1 + e^{f_i})]. "
            "It needs the true p, so it is known only in a simulation.\n"
            "- **GACV** (generalized approximate cross validation, Lin et al., eq 8) estimates CKL "
            "from the data alone: the training fit plus a correction built from the influence matrix "
            "H = ∂f/∂y (how much the fit at x_i moves when y_i moves). It approximates leave-one-out "
            "cross validation without refitting.\n"
            "- **ranGACV** (randomized GACV, eq 10) replaces the traces of H by a random probe: "
            "perturb the labels by small Gaussian noise δ, see how far the fit moves (one extra linear "
            "solve), and use δ'(f^{y+δ} − f^y) instead of tr H. Averaging R probes reduces its noise; "
            "the lower panel shows the spread over draws.\n"
            "- **CV** is k-fold cross validation of the same negative log-likelihood.")
links.show_notes(links.restore(PARAMS, P.PREFIX, P.MODEL))
with ui.controls_box():
    for col, p in zip(st.columns(len(PARAMS)), PARAMS):
        W.render(p, col, prefix=P.PREFIX)
    run = st.button("Run", type="primary", key="soft_run")
values = links.values(PARAMS, P.PREFIX)
if run or links.opened_from_link(P.PREFIX):
    try:
        with st.spinner(P.spinner_text(values)):
            st.session_state["soft_result"] = P.compute(values)
    except SVMCoreError as exc:
        st.error(plain(exc))

out = st.session_state.get("soft_result")
if out is None:
    st.info("Choose the settings and press **Run** (small n and a coarse grid run in seconds).")
else:
    links.write(out["values"], P.MODEL, PARAMS)
    st.text("shown: " + out["settings"])
    st.dataframe(out["rows"], key="soft_table")
    for note in out["notes"]:
        st.text(note)
    if out["p_figure"] is not None:
        st.plotly_chart(out["p_figure"], key="soft_curves" if out["d"] == 1 else "soft_contours")
    else:
        st.text(f"{out['d']} features: no picture of p̂(x); the table above compares the choices.")
    st.caption("The SVM (dashed) is the hinge-loss SVM at its own GACV choice: it classifies, it does "
               "not estimate p.")
    st.subheader("ranGACV's spread over draws")
    st.plotly_chart(out["spread"], key="soft_spread")
