"""Variable selection (COSSO): the COSSO SVM of Zhang (2006) on a simulation or a bundled data set."""
import numpy as np
import streamlit as st

from svmapp.ui import plain as _plain
from svmcore._validation import SVMCoreError
from svmcore.datasets.bundled import list_bundled, load_bundled
from svmcore.datasets.simulations import make_simulation
from svmcore.families.cosso.cli import split_third
from svmcore.families.cosso.compare import plain_svm_test_error
from svmcore.families.cosso.family import fit_cosso, payload
from svmcore.viz import cosso as figs
from svmcore.weights import class_weights_from_costs

SIMS = ["zhang_additive", "zhang_interaction"]
BAYES = {"zhang_additive": 0.216, "zhang_interaction": 0.155}



st.title("Variable selection (COSSO)")
st.caption("The sidebar settings don't apply here: this page has its own controls below.")
st.markdown("COSSO SVM (Zhang 2006): SS-ANOVA components scaled by θ, Σθ ≤ M; one step "
            "(SVM at θ = 1 → linear program for θ → SVM refit), a component is selected when "
            "θ > threshold. See `docs/cosso.md`.")

c1, c2, c3 = st.columns(3)
name = c1.selectbox("Data", SIMS + list_bundled(), key="cosso_data")
is_sim = name in SIMS
n = c2.number_input("n (simulations)", 50, 1000, 250, 50, key="cosso_n", disabled=not is_sim)
seed = c3.number_input("seed (test sample / split)", 0, 10_000, 0, key="cosso_seed")
c4, c5, c6 = st.columns(3)
interactions = c4.checkbox("two-way interactions", value=name == "zhang_interaction",
                           key="cosso_interactions")
tune_opts = ["gckl", "cv", "gacv"] if is_sim else ["cv", "gacv"]
tune = c5.selectbox("tune λ0 and M by", tune_opts, key="cosso_tune")
rounds = c6.number_input("rounds (LP steps)", 1, 10, 1, key="cosso_rounds")
c7, c8, c9 = st.columns(3)
n_M = c7.number_input("M grid size", 4, 40, 20, key="cosso_nM")
cost_a = c8.number_input("C_A (cost of calling a B an A)", 0.01, 100.0, 1.0, key="cosso_cost_a")
cost_b = c9.number_input("C_B (cost of calling an A a B)", 0.01, 100.0, 1.0, key="cosso_cost_b")
compare = st.checkbox("compare with the plain Gaussian-kernel SVM (slower)", value=False,
                      key="cosso_compare")

if st.button("Fit COSSO", key="cosso_fit"):
    try:
        if is_sim:
            data = make_simulation(name, int(n), int(seed))
            test = make_simulation(name, 5000, int(seed) + 1)
        else:
            data, test = split_third(load_bundled(name), int(seed))
        w = class_weights_from_costs(data.y, cost_a, cost_b)
        with st.spinner("fitting and tuning…"):
            res = fit_cosso(data.X, data.y, p=data.p, interactions=interactions, tune=tune,
                            n_M=int(n_M), rounds=int(rounds), weights=w, cv_seed=int(seed),
                            feature_names=data.feature_names)
            out = payload(res, data, test)
            base = plain_svm_test_error(data, test, tune, cost_a, cost_b) if compare else None
        st.session_state["cosso_result"] = (out, res.model, data, base)
    except SVMCoreError as exc:
        st.error(_plain(exc))

if "cosso_result" in st.session_state:
    out, model, data, base = st.session_state["cosso_result"]
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("test error", f"{out['test_error']:.3f}")
    m2.metric("model size", out["model_size"])
    m3.metric("M", f"{out['M']:.3g}")
    m4.metric("seconds", f"{out['seconds']:.1f}")
    st.text("selected: " + (", ".join(out["selected"]) or "(none)"))
    st.text(f"λ0: log2(nλ0) = {out['log2_nlambda0']:g}; rounds at the chosen M: {out['rounds']}")
    st.plotly_chart(figs.tuning_figure(out), key="cosso_tuning_fig")
    st.plotly_chart(figs.theta_path_figure(out), key="cosso_theta_fig")
    st.plotly_chart(figs.component_figure(model, out.get("dataset")), key="cosso_comp_fig")
    sel = [a for a in np.argsort(-model.theta) if len(model.comps[a]) == 1][:2]
    if data.d >= 2:
        j, k = (sorted(model.comps[a][0] for a in sel) if len(sel) == 2 else (0, 1))
        st.plotly_chart(figs.region_figure(model, data.X, data.y, j, k), key="cosso_region_fig")
    errors = {"COSSO SVM": out["test_error"]}
    if base is not None:
        errors["Gaussian SVM"] = base["test_error"]
    st.plotly_chart(figs.comparison_figure(errors, BAYES.get(out.get("dataset"))),
                    key="cosso_compare_fig")
    st.dataframe({"component": list(out["theta"]), "θ": list(out["theta"].values())},
                 key="cosso_theta_table")
