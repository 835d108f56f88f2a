"""Unbiased SVC (Navia-Vázquez et al. 2004): threshold surfaces, trajectories, kernel machine."""
import numpy as np
import streamlit as st

from svmapp.ui import plain as _plain
from svmcore._validation import SVMCoreError
from svmcore.datasets.simulations import make_simulation, navia_threshold_error
from svmcore.families.svm.fit import fit_svm
from svmcore.families.usvc import fit_kernel, fit_linear
from svmcore.kernels import Kernel
from svmcore.viz import usvc as vz

st.caption("This page has its own controls; the sidebar settings don't apply here.")
st.title("Unbiased SVC")
st.markdown("The classic SVC charges C ξ per slack; the unbiased SVC charges C θ̃ₛ(ξ), a smooth step "
            "at the boundary, and is trained by damped iterated reweighted least squares "
            "(Navia-Vázquez et al. 2004, eqs 6, 20–22). See docs/usvc.md.")

c1, c2, c3, c4, c5 = st.columns(5)
case = c1.selectbox("case", ["navia_a", "navia_b"], key="usvc_case")
n = c2.number_input("n", 50, 2000, 500, step=50, key="usvc_n")
seed = c3.number_input("seed", 0, 10_000, 0, key="usvc_seed")
C = c4.number_input("C", 0.01, 1000.0, 10.0, key="usvc_C")
s = c5.number_input("s", 1.0, 10.0, 2.0, key="usvc_s")

try:
    d = make_simulation(case, int(n), int(seed))
    t = make_simulation(case, 5000, int(seed) + 1)
    x = d.X[:, 0]
    ls = fit_linear(d.X, d.y, method="ls", C=C)
    us = fit_linear(d.X, d.y, method="usvc", C=C, s=s, start="ls")
    svc = us.svc_stage
    ths = {"LS": -ls.b / ls.w[0], "SVC": -svc.b / svc.coef[0], "USVC": -us.b / us.w[0]}
    st.plotly_chart(vz.class_densities(case), key="usvc_dens")
    st.plotly_chart(vz.threshold_error_figure(case, x, d.y, ths), key="usvc_therr")
    paths = {"SVC (IRWLS from LS)": (svc.coef_path, svc.b_path)}
    st.plotly_chart(vz.surface_figure(x, d.y, C, "svc", paths=paths), key="usvc_surf_svc")
    paths["USVC (from SVC)"] = (us.fit.coef_path, us.fit.b_path)
    st.plotly_chart(vz.surface_figure(x, d.y, C, "usvc", s, paths=paths), key="usvc_surf_usvc")
    errs = {}
    for label, (w, b) in {"LS": (ls.w, ls.b), "SVC": (svc.coef, svc.b), "USVC": (us.w, us.b)}.items():
        errs[label] = (float(np.mean(np.where(d.X @ w + b > 0, 1, -1) != d.y)),
                       float(np.mean(np.where(t.X @ w + b > 0, 1, -1) != t.y)))
    st.plotly_chart(vz.test_error_bars(errs), key="usvc_bars")
    st.text(f"{case}: n = {int(n)} training points (seed {int(seed)}); test errors on 5000 new points")
    st.dataframe({"algorithm": list(ths), "threshold": [round(v, 4) for v in ths.values()],
                  "theoretical CE": [float(navia_threshold_error(case, v)) for v in ths.values()],
                  "test CE (5000)": [errs[k][1] for k in ths]}, key="usvc_table")
    if not us.fit.converged:
        st.warning(us.fit.message)
except SVMCoreError as exc:
    st.error(_plain(exc))

st.subheader("Kernel machine on prototypes (wahba2d)")
k1, k2, k3, k4 = st.columns(4)
R = k1.number_input("prototypes R", 2, 200, 20, key="usvc_R")
log2_sigma = k2.number_input("log2 σ", -5.0, 5.0, 0.0, key="usvc_log2s")
Ck = k3.number_input("C (kernel)", 0.01, 1000.0, 1.0, key="usvc_Ck")
nk = k4.number_input("n (wahba2d)", 50, 1000, 200, step=50, key="usvc_nk")
try:
    w2 = make_simulation("wahba2d", int(nk), int(seed))
    sig = 2.0 ** log2_sigma
    km = fit_kernel(w2.X, w2.y, sig, int(R), seed=int(seed), method="usvc", C=Ck)
    sv = fit_svm(w2.X, w2.y, 1.0 / (2 * w2.n * Ck), Kernel("gaussian", sigma=sig), None, solver="cvxopt")
    st.plotly_chart(vz.kernel_machine_figure(w2, {"USVC on prototypes": km, "SVM (all points)": sv}),
                    key="usvc_kernel")
    st.text(f"USVC: {km.fit.iterations} iterations, converged {km.fit.converged}; "
            f"SVM: {sv.n_sv} support vectors")
except SVMCoreError as exc:
    st.error(_plain(exc))
