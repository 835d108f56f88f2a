"""Teaching text: each criterion's formula and what it estimates."""
import streamlit as st

st.title("The tuning criteria")
st.markdown(
    "Notation (Wahba et al. 2001, §1.5–1.7; docs/svm.md): the SVM minimises "
    "(1/n) Σ L(y_i)(1 − y_i f(x_i))₊ + λ‖h‖², f = b + h. Write f_i = f(x_i), "
    "ξ_i = (1 − y_i f_i)₊, α_i ∈ [0, L(y_i)] the dual variables, a_i = α_i/(2nλ) and "
    "θ_i = a_i K(x_i, x_i). [τ]_* = 1 if τ ≥ 0, else 0. p_i = P(A | x_i) is known only in a simulation.")

ROWS = [
    ("OBS", r"\mathrm{OBS}(\lambda)=\frac1n\sum_i L(y_i)\,\xi_i",
     "The training hinge loss (1.13): always decreases as λ → 0, so it cannot tune on its own."),
    ("GACV", r"\mathrm{GACV}(\lambda)=\mathrm{OBS}+\frac1n\Big[2\!\!\sum_{y_if_i<-1}\!\!L(y_i)\theta_i"
             r"+\!\!\sum_{-1\le y_if_i\le1}\!\!L(y_i)\theta_i\Big]",
     "A leave-one-out approximation (1.19/1.26) of the hinge loss on new data, i.e. a proxy for GCKL."),
    ("XA", r"\mathrm{XA}(\lambda)=\frac1n\,\#\{i:\ \xi_i+\rho\,a_i R\ge1\}",
     "Joachims' ξα estimate (1.21) of the leave-one-out error rate; with ρ = 2 it bounds the LOO error count."),
    ("BRXA", r"\mathrm{BRXA}(\lambda)=\frac1n\sum_i L(y_i)\big([-y_if_i]_*+1\{0<y_if_i\le\theta_i\}\big)",
     "The cost-weighted (nonstandard) ξα (1.28): a proxy for BRMISCLASS."),
    ("SURE", r"\mathrm{SURE}(\lambda)=\frac1n\Big[\sum_i e^{-y_if_i}+\frac{2}{n\lambda}\sum_i"
             r"\hat w_i\,1\{\alpha_i=L(y_i)\}K_{ii}\Big],\ \hat w_i=\hat p_i(1-\hat p_i)",
     "Solo's Stein unbiased risk estimate for a logistic-type χ² risk (standard case)."),
    ("GCKL", r"\mathrm{GCKL}(\lambda)=\frac1n\sum_i\big[L(+1)p_i(1-f_i)_++L(-1)(1-p_i)(1+f_i)_+\big]",
     "The target (1.27): the expected weighted hinge loss of a new y at the same x_i."),
    ("MISCLASS", r"\mathrm{MISCLASS}(\lambda)=\frac1n\sum_i\big[p_i[-f_i]_*+(1-p_i)[f_i]_*\big]",
     "The expected misclassification rate at the x_i (1.20): what one really wants small."),
    ("BRMISCLASS", r"\mathrm{BRMISCLASS}(\lambda)=\frac1n\sum_i\big[L(+1)p_i[-f_i]_*+L(-1)(1-p_i)[f_i]_*\big]",
     "The expected cost-weighted misclassification (1.29), the target in the nonstandard case."),
    ("CV", r"\mathrm{CV}_{\rm hinge}=\frac1n\sum_i L(y_i)\big(1-y_if^{[-k(i)]}(x_i)\big)_+",
     "k-fold cross validation: refits without each fold; CV error counts sign errors instead."),
    ("LOO", r"V_0(\lambda)=\frac1n\sum_k L(y_k)\big(1-y_kf^{[-k]}(x_k)\big)_+",
     "Exact leave-one-out, the quantity GACV approximates; only support vectors need a refit."),
]
for name, formula, text in ROWS:
    st.markdown(f"#### {name}")
    st.latex(formula)
    st.markdown(text)

st.markdown("#### The nonstandard case (Wahba et al. 2001, §1.7)")
st.latex(r"L(+1)=\frac{C_B\,\pi_A}{\pi_A^s},\qquad L(-1)=\frac{C_A\,\pi_B}{\pi_B^s},\qquad "
         r"\text{Bayes rule: A where } p_s(x)>\frac{L(-1)}{L(-1)+L(+1)}")
st.markdown("C_A is the cost of calling a B an A, C_B of calling an A a B; π are the target "
            "population's class frequencies and π^s the sample's. Example: π_A^s = 0.4, C_A = 1, "
            "C_B = 2, π_A = 0.1 give L(−1) = 1.5 and L(+1) = 0.5.")
st.markdown("**Inefficiency** of a criterion = MISCLASS (BRMISCLASS) at its chosen (λ, σ) ÷ the grid "
            "minimum of MISCLASS (BRMISCLASS); 1 is as good as the grid allows.")
