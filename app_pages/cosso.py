"""Variable selection (COSSO): the COSSO SVM of Zhang (2006) on a simulation or a bundled data set."""
import streamlit as st

from svmapp import cosso_page as C
from svmapp import links
from svmapp import widgets as W
from svmapp import ui
from svmapp.ui import plain
from svmcore._validation import SVMCoreError
from svmcore.viz import cosso as figs

SS = st.session_state
PARAMS = C.page_params()

ui.page_head("Variable selection (COSSO)",
             "COSSO SVM (Zhang 2006): SS-ANOVA components scaled by θ, Σθ ≤ M; one step "
             "(SVM at θ = 1 → linear program for θ → SVM refit), a component is selected when "
             "θ > threshold. See `docs/cosso.md`.",
             "The sidebar settings don't apply here: this page has its own controls below.")
links.show_notes(links.restore(PARAMS, C.PREFIX, C.MODEL))

by_name = {p.name: p for p in PARAMS}
with ui.controls_box():
    cols = st.columns(3) + st.columns(3) + st.columns(3)
    for col, p in zip(cols, PARAMS[:-1]):
        W.render(p, col, prefix=C.PREFIX, disabled=p.name == "n" and SS["cosso_dataset"] not in C.SIMS)
    W.render(by_name["compare"], st, prefix=C.PREFIX)
    fit = st.button("Fit COSSO", key="cosso_fit")
values = links.values(PARAMS, C.PREFIX)

if fit or links.opened_from_link(C.PREFIX):
    try:
        with st.spinner("fitting and tuning…"):
            SS["cosso_result"] = C.run(values)
    except SVMCoreError as exc:
        st.error(plain(exc))

res = SS.get("cosso_result")
if res is not None:
    links.write(res["values"], C.MODEL, PARAMS)
    out, model, data = res["out"], res["model"], res["data"]
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("test error", f"{out['test_error']:.3f}")
    m2.metric("model size", out["model_size"])
    m3.metric("M", f"{out['M']:.3g}")
    m4.metric("seconds", f"{out['seconds']:.1f}")
    st.text("selected: " + (", ".join(out["selected"]) or "(none)"))
    st.text(f"λ0: log2(nλ0) = {out['log2_nlambda0']:g}; rounds at the chosen M: {out['rounds']}")
    shown = [(figs.tuning_figure(out), "cosso_tuning_fig"), (figs.theta_path_figure(out), "cosso_theta_fig")]
    for fig, key in shown[::-1] if ui.presenting() else shown:  # presenting: the selection path first
        st.plotly_chart(fig, key=key)
    st.plotly_chart(figs.component_figure(model, out.get("dataset")), key="cosso_comp_fig")
    if data.d >= 2:
        j, k = C.slice_axes(model)
        st.plotly_chart(figs.region_figure(model, data.X, data.y, j, k), key="cosso_region_fig")
    st.plotly_chart(figs.comparison_figure(C.errors(res), C.BAYES.get(out.get("dataset"))),
                    key="cosso_compare_fig")
    st.dataframe({"component": list(out["theta"]), "θ": list(out["theta"].values())},
                 key="cosso_theta_table")
