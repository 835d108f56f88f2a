"""Unbiased SVC (Navia-Vázquez et al. 2004): threshold surfaces, trajectories, kernel machine."""
import streamlit as st

from svmapp import links
from svmapp import usvc_page as U
from svmapp import widgets as W
from svmapp import ui
from svmapp.ui import plain
from svmcore._validation import SVMCoreError
from svmcore.viz import usvc as vz

PARAMS = U.page_params()

ui.page_head("Unbiased SVC",
             "The classic SVC charges C ξ per slack; the unbiased SVC charges C θ̃ₛ(ξ), a smooth step "
             "at the boundary, and is trained by damped iterated reweighted least squares "
             "(Navia-Vázquez et al. 2004, eqs 6, 20–22). See docs/usvc.md.",
             "This page has its own controls; the sidebar settings don't apply here.")
links.show_notes(links.restore(PARAMS, U.PREFIX, U.MODEL))
with ui.controls_box():
    for col, p in zip(st.columns(5), PARAMS[:5]):
        W.render(p, col, prefix=U.PREFIX)
values = links.values(PARAMS, U.PREFIX)

try:
    lin = U.linear(values)
    x, y, C = lin["x"], lin["y"], lin["C"]
    dens, therr = st.columns(2) if ui.presenting() else (st.container(), st.container())
    dens.plotly_chart(vz.class_densities(lin["case"]), key="usvc_dens")
    therr.plotly_chart(vz.threshold_error_figure(lin["case"], x, y, lin["thresholds"]), key="usvc_therr")
    paths = {"SVC (IRWLS from LS)": lin["svc_path"]}
    st.plotly_chart(vz.surface_figure(x, y, C, "svc", paths=paths), key="usvc_surf_svc")
    paths["USVC (from SVC)"] = lin["usvc_path"]
    st.plotly_chart(vz.surface_figure(x, y, C, "usvc", lin["s"], paths=paths), key="usvc_surf_usvc")
    st.plotly_chart(vz.test_error_bars(lin["errors"]), key="usvc_bars")
    st.text(lin["caption"])
    st.dataframe(lin["table"], key="usvc_table")
    if lin["warning"]:
        st.warning(plain(lin["warning"]))
except SVMCoreError as exc:
    st.error(plain(exc))

st.subheader("Kernel machine on prototypes (wahba2d)")
for col, p in zip(st.columns(4), PARAMS[5:]):
    W.render(p, col, prefix=U.PREFIX)
values = links.values(PARAMS, U.PREFIX)
links.write(values, U.MODEL, PARAMS)
try:
    km = U.kernel(values)
    st.plotly_chart(vz.kernel_machine_figure(km["data"], km["machines"]), key="usvc_kernel")
    st.text(km["caption"])
except SVMCoreError as exc:
    st.error(plain(exc))
