"""Soft classification: penalized likelihood tuned by CKL, GACV, ranGACV and CV (docs/soft.md)."""
import numpy as np
import streamlit as st

from svmapp.ui import plain as _plain
from svmcore._validation import SVMCoreError
from svmcore.datasets.simulations import make_simulation
from svmcore.families import get_family
from svmcore.families.soft.criteria import rangacv_draws
from svmcore.families.soft.family import fit_logistic
from svmcore.families.soft.newton import KernelBasis, solve_path, to01
from svmcore.grid import sweep
from svmcore.kernels import gaussian_gram
from svmcore.spec import GridSpec, make_spec
from svmcore.viz import soft as sviz

SETS = ["wahba2d", "lin1d", "zhang_interaction", "solo_xor"]
SHOWN = {"ckl": "CKL", "gacv": "GACV", "rangacv": "ranGACV", "cv_deviance": "CV"}

st.caption("This page has its own controls; the sidebar settings don't apply here.")
st.title("Soft classification")
st.markdown(
    "Penalized likelihood estimates the probability p(x) = P(A | x) itself, not only the sign of "
    "p − ½ that the SVM estimates: it minimises (1/n) Σ [−y_i f_i + log(1 + e^{f_i})] + λ c'Kc "
    "with f = b + Kc and y = 1 for class A, 0 for B, and p̂ = 1/(1 + e^{−f}) (Wahba et al. 2001, "
    "§1.2). λ and σ are tuned on the grid below by four criteria.")
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

c = st.columns(7)
name = c[0].selectbox("data set", SETS, key="soft_data")
n = c[1].number_input("n", 40, 1000, 150, step=10, key="soft_n")
seed = c[2].number_input("seed", 0, 10_000, 0, key="soft_seed")
lam_text = c[3].text_input("log₂(nλ) START:STOP:STEP", "-16:4:2", key="soft_lam")
sig_text = c[4].text_input("log₂σ START:STOP:STEP", "-2:1:1", key="soft_sig")
reps = c[5].number_input("ranGACV R", 1, 100, 5, key="soft_reps")
use_cv = c[6].checkbox("5-fold CV (slow)", True, key="soft_cv")
run_clicked = st.button("Run", type="primary", key="soft_run")




@st.cache_data(show_spinner=False, max_entries=8)
def _run(name, n, seed, lam_text, sig_text, reps, criteria):
    data = make_simulation(name, n, seed)
    grid = GridSpec.parse(lam_text, sig_text)
    res = sweep(data, grid, model="logistic", criteria=list(criteria), cv_folds=5,
                options={"rangacv_reps": reps})
    svm = sweep(data, grid, model="svm", criteria=["gacv"])
    return data, res, svm


def _probability_figure(data, fits, svm_fit):
    """p̂(x) at each criterion's choice: curves for 1-D data, contour panels for 2-D, else None."""
    if data.d == 1:
        x = np.linspace(data.X.min(), data.X.max(), 300)[:, None]
        return sviz.probability_curves(x[:, 0], {k: f.predict_proba(x) for k, f in fits.items()},
                                       p_true=None if data.p_fn is None else data.p_fn(x),
                                       svm_decision=svm_fit.decision_function(x),
                                       x_data=data.X[:, 0], y_data=data.y)
    if data.d == 2:
        return sviz.probability_contours(data.X, data.y, {k: f.predict_proba for k, f in fits.items()},
                                         p_fn=data.p_fn, svm_decision=svm_fit.decision_function)
    return None


def _compute(name, n, seed, lam_text, sig_text, reps, use_cv) -> dict:
    """Everything the page shows for one press of Run: the table rows, notes and figures."""
    shown = {k: v for k, v in SHOWN.items() if use_cv or k != "cv_deviance"}
    data, res, svm = _run(name, n, seed, lam_text, sig_text, reps, tuple(shown))
    picks = {lab: res.minimizer(col) for col, lab in shown.items()}
    ineff = res.inefficiencies()
    rows = [{"criterion": lab, "log2(nλ)": row["log2_nlambda"], "log2σ": row["log2_sigma"],
             "CKL there": row["ckl"],
             "inefficiency": 1.0 if col == "ckl" else ineff.get(col, (np.nan,))[0]}
            for col, lab in shown.items() if (row := picks[lab]) is not None]
    svm_row = svm.minimizer("gacv")
    svm_fit = get_family("svm").fit_at(make_spec("svm"), data, svm_row["log2_nlambda"],
                                       svm_row["log2_sigma"])
    fits = {lab: fit_logistic(data.X, data.y, row["lambda"], row["sigma"])
            for lab, row in picks.items() if row is not None}
    row = picks["CKL"] if picks["CKL"] is not None else picks["GACV"]
    col = res.table[res.table["log2_sigma"] == row["log2_sigma"]]
    sols = solve_path(KernelBasis.from_gram(gaussian_gram(data.X, sigma=float(row["sigma"]))),
                      to01(data.y), col["lambda"].to_numpy(float))
    draws = rangacv_draws(sols, to01(data.y), reps, 10, seed=1)
    spread = sviz.rangacv_spread(col["log2_nlambda"].to_numpy(float), col["gacv"].to_numpy(float),
                                 draws, reps, col["ckl"].to_numpy(float), float(row["log2_sigma"]))
    return {"settings": f"{name}, n = {n}, seed {seed}, log2(nλ) {lam_text} × log2 σ {sig_text}, "
                        f"R = {reps}" + (", with CV" if use_cv else ""),
            "rows": rows, "notes": list(res.notes), "d": data.d,
            "p_figure": _probability_figure(data, fits, svm_fit), "spread": spread}


if run_clicked:
    try:
        with st.spinner("fitting the grid…"):
            st.session_state["soft_result"] = _compute(name, int(n), int(seed), lam_text, sig_text,
                                                       int(reps), bool(use_cv))
    except SVMCoreError as exc:
        st.error(_plain(exc))


def _show(out: dict) -> None:
    """The kept result: table, p̂ figure, ranGACV's spread."""
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


out = st.session_state.get("soft_result")
if out is None:
    st.info("Choose the settings and press **Run** (small n and a coarse grid run in seconds).")
else:
    _show(out)
