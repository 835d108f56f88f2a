"""Loss functions (Wahba et al. 2001, Fig 1.1)."""
import streamlit as st

from svmapp import ui
from svmcore.viz import plots

st.title("Loss functions")
ui.lesson_banner()
st.plotly_chart(plots.loss_figure(), key="loss_fig")
st.markdown(
    "The SVM replaces the misclassification count $[-\\tau]_*$ (τ = y f(x)) by the hinge "
    "$(1-\\tau)_+$: modulo its slope, the hinge is the *closest convex upper bound* to the count, "
    "one heuristic reason why SVMs classify so well (Wahba et al. 2001, §1.3). The penalized-likelihood "
    "loss $\\log(1+e^{-\\tau})$ is also convex, and in base 2 it too bounds the count from above "
    "(Bin Yu's remark); it estimates the logit, whereas the SVM estimates sign(p(x) − ½).")
