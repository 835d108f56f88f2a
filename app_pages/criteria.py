"""Teaching text: each criterion's formula and what it estimates."""
import streamlit as st

from svmapp import ui

from svmcore.families import get_family

#: each criterion's formula (Wahba et al. 2001; Solo); its name, help and target are the registry's
FORMULAS = {
    "obs": r"\mathrm{OBS}(\lambda)=\frac1n\sum_i L(y_i)\,\xi_i",
    "gacv": r"\begin{aligned}\mathrm{GACV}(\lambda)=\mathrm{OBS}&+\frac1n\Big[2\!\!\sum_{y_if_i<-1}\!\!"
            r"L(y_i)\theta_i\\&+\!\!\sum_{-1\le y_if_i\le1}\!\!L(y_i)\theta_i\Big]\end{aligned}",
    "xa": r"\mathrm{XA}(\lambda)=\frac1n\,\#\{i:\ \xi_i+\rho\,a_i R\ge1\}",
    "brxa": r"\mathrm{BRXA}(\lambda)=\frac1n\sum_i L(y_i)\big([-y_if_i]_*+1\{0<y_if_i\le\theta_i\}\big)",
    "sure": r"\begin{aligned}\mathrm{SURE}(\lambda)=\frac1n\Big[&\sum_i e^{-y_if_i}\\&+\frac{2}{n\lambda}"
            r"\sum_i\hat w_i\,1\{\alpha_i=L(y_i)\}K_{ii}\Big],\\ \hat w_i&=\hat p_i(1-\hat p_i)\end{aligned}",
    "gckl": r"\begin{aligned}\mathrm{GCKL}(\lambda)=\frac1n\sum_i\big[&L(+1)p_i(1-f_i)_+\\&+L(-1)(1-p_i)"
            r"(1+f_i)_+\big]\end{aligned}",
    "misclass": r"\mathrm{MISCLASS}(\lambda)=\frac1n\sum_i\big[p_i[-f_i]_*+(1-p_i)[f_i]_*\big]",
    "brmisclass": r"\begin{aligned}\mathrm{BRMISCLASS}(\lambda)=\frac1n\sum_i\big[&L(+1)p_i[-f_i]_*\\&+"
                  r"L(-1)(1-p_i)[f_i]_*\big]\end{aligned}",
    "cv": r"\mathrm{CV}_{\rm hinge}=\frac1n\sum_i L(y_i)\big(1-y_if^{[-k(i)]}(x_i)\big)_+",
    "loo": r"V_0(\lambda)=\frac1n\sum_k L(y_k)\big(1-y_kf^{[-k]}(x_k)\big)_+",
}
NEEDS = {"fit": "from one fit", "truth": "a target: needs the true P(A|x)",
         "refits": "refits the SVM without held-out points", "heldout": "needs a test set"}

st.title("The tuning criteria")
ui.lesson_banner()
st.html("<style>.katex-display { overflow-x: auto; overflow-y: hidden; padding: 2px 0; }</style>")
st.markdown(
    "Notation (Wahba et al. 2001, §1.5–1.7; docs/svm.md): the SVM minimises "
    "(1/n) Σ L(y_i)(1 − y_i f(x_i))₊ + λ‖h‖², f = b + h. Write f_i = f(x_i), "
    "ξ_i = (1 − y_i f_i)₊, α_i ∈ [0, L(y_i)] the dual variables, a_i = α_i/(2nλ) and "
    "θ_i = a_i K(x_i, x_i). [τ]_* = 1 if τ ≥ 0, else 0. p_i = P(A | x_i) is known only in a simulation.")

family = get_family("svm")
by_name = {c.name: c for c in family.criteria}
for crit in family.criteria:            # the registry: label, help, what it needs and estimates
    st.markdown(f"#### {crit.label}")
    if crit.name in FORMULAS:
        st.latex(FORMULAS[crit.name])
    st.markdown(crit.help + ".")
    target = by_name.get(crit.target)
    st.caption(NEEDS.get(crit.needs, crit.needs) + (f" · estimates {target.label}" if target else ""))

st.markdown("#### The nonstandard case (Wahba et al. 2001, §1.7)")
st.latex(r"L(+1)=\frac{C_B\,\pi_A}{\pi_A^s},\qquad L(-1)=\frac{C_A\,\pi_B}{\pi_B^s}")
st.latex(r"\text{Bayes rule: A where } p_s(x)>\frac{L(-1)}{L(-1)+L(+1)}")
st.markdown("C_A is the cost of calling a B an A, C_B of calling an A a B; π are the target "
            "population's class frequencies and π^s the sample's. Example: π_A^s = 0.4, C_A = 1, "
            "C_B = 2, π_A = 0.1 give L(−1) = 1.5 and L(+1) = 0.5.")
st.markdown("**Inefficiency** of a criterion = MISCLASS (BRMISCLASS) at its chosen (λ, σ) ÷ the grid "
            "minimum of MISCLASS (BRMISCLASS); 1 is as good as the grid allows.")
