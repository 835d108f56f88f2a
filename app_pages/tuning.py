"""Tuning surfaces: one contour panel per criterion over (log2 nλ, log2 σ); a click on a grid
point selects (λ, σ) and redraws the decision panel below (Wahba et al. 2001, Figs 1.4–1.5)."""
import numpy as np
import streamlit as st

from svmapp import ui
from svmapp.settings import panel_help, weights_for
from svmcore.viz import plots
from svmcore import views as explore

SS = st.session_state

st.title("How each criterion tunes the SVM")
res = ui.require_result()
if res is None:
    st.stop()
result, loaded = res
data = loaded.train
ui.settings_badge()
present = bool(SS.get("w_present"))

with st.expander("How to read this page", expanded=False):
    log_cols = ", ".join(explore.label(c) for c in explore.LOG_SCALE)
    st.markdown(
        f"""
* Each panel is one tuning criterion at every grid point: horizontal axis log₂(nλ) (left = little
  smoothing, right = heavy smoothing; scikit-learn's C = 1/(2nλ)), vertical axis log₂σ of the Gaussian
  kernel exp(−‖x − x′‖²/(2σ²)) (scikit-learn's γ = 1/(2σ²)). Dark is small.
* The **star** is the panel's own minimizer, the (λ, σ) that criterion picks; hollow circles mark tied
  minimizers (XA is a count and ties often). A minimizer on the grid's edge gets its own marker and a
  warning above: the true minimum may lie beyond it. Grey crosses are fits whose KKT residual is
  above tolerance; they are left out of every pick.
* {log_cols} are coloured on a log₁₀ scale, clipped at their 95th percentile: they grow like 1/λ at
  small λ and would otherwise wash out the picture. Every other panel uses a linear scale.
* GCKL, MISCLASS and BRMISCLASS are the *targets*: they use the true P(A|x), which only a simulation
  knows. A good criterion's star sits where its target is small (Wahba, Lin, Lee & Zhang 2001, §1.8).
* **Hover** a panel to read every criterion's value and scikit-learn's C and γ at that point; **click**
  a grid point to fit the SVM there and add its decision curve ("clicked point") to the panel below.
"""
    )

cols_all = [c for c in result.columns if c in result.table.columns]
default = explore.default_panels(result)
if SS.get("tun_shown") is not None:
    SS.tun_shown = [c for c in SS.tun_shown if c in cols_all]
if not SS.get("tun_shown"):
    SS.tun_shown = default
if SS.get("tun_ncols") not in (1, 2, 3, 4):
    SS.tun_ncols = 2
shown = st.multiselect("Criteria to show", cols_all, format_func=explore.label, key="tun_shown")
c2, c3, _ = st.columns([1.3, 1, 2], vertical_alignment="center")
others = c2.toggle("other minimizers", key="tun_others",
                   help="Mark every shown criterion's minimizer in each panel (legend below the panels)")
ncols = c3.selectbox("panels per row", [1, 2, 3, 4], key="tun_ncols",
                     help="Fewer panels per row on narrow screens")

sel = SS.get("selected")
hover = plots.hover_data(result, cols_all)      # one numeric table for every panel
fmt = SS.get("w_image_format", "png")
for start in range(0, len(shown), ncols):
    row = st.columns(ncols)
    for col, crit in zip(row, shown[start:start + ncols]):
        fig = plots.criterion_contour(result, crit, show_others=shown if others else (),
                                      selected=sel, hover=hover)
        if present:
            fig.update_layout(font=dict(size=16))
        key = f"contour_{crit}_{SS.result_key}"
        col.plotly_chart(fig, key=key, on_select=ui.pick_callback(key), selection_mode="points",
                         config=plots.chart_config(plots.export_name(result, crit), fmt), theme=None)
        col.caption(panel_help(crit))

# ---------------------------------------------------------------- decision panel
st.subheader("Decision curves of the chosen fits")
if sel is not None:
    r = result.table[(np.isclose(result.table.log2_nlambda, sel[0]))
                     & (np.isclose(result.table.log2_sigma, sel[1]))]
    info = "" if r.empty else " · ".join(
        f"{explore.label(c)} {plots._fmt(r.iloc[0][c])}" for c in cols_all)
    st.markdown(f"**Clicked grid point** log₂(nλ) = {sel[0]:g}, log₂σ = {sel[1]:g} — {info}")
    if st.button("clear clicked point", key="tun_clear"):
        SS.selected = None
        ui.sync_query()
        st.rerun()
else:
    st.caption("Click a grid point in any panel above to add its decision curve.")
ui.use_this_model(result, data, sel)

features = (0, 1)
if data.d > 2:
    names = data.feature_names
    f0, f1 = SS.get("features") or (0, 1)
    f0, f1 = (f0 if f0 < data.d else 0), (f1 if f1 < data.d else 1)
    a, b = st.columns(2)
    j = a.selectbox("slice feature (x axis)", range(data.d), index=f0, format_func=names.__getitem__,
                    key="tun_f0")
    k = b.selectbox("slice feature (y axis)", range(data.d), index=f1 if f1 != j else (j + 1) % data.d,
                    format_func=names.__getitem__, key="tun_f1")
    if j == k:
        st.warning("Choose two different features.")
        st.stop()
    features = (j, k)
    if tuple(SS.get("features") or ()) != features:
        SS.features = features
        ui.sync_query()


@st.cache_data(show_spinner=False, max_entries=64)
def _decision_view(result_key, selected, features, columns, _data, _result, _weights):
    """Shared by every session: the chosen fits depend only on the result and the point."""
    return explore.decision_view(_data, _result, _weights, columns=list(columns),
                                 selected=selected, features=features, fits=ui.fits_cache(result_key))


if SS.get("tun_curves") is not None:
    SS.tun_curves = [c for c in SS.tun_curves if c in cols_all]
else:
    SS.tun_curves = explore.decision_columns(result)
curves = st.multiselect("Decision curves of the fits chosen by", cols_all, format_func=explore.label,
                        key="tun_curves")
with st.spinner("Fitting the chosen SVMs …"):
    view = _decision_view(SS.result_key, sel, features, tuple(curves), data, result,
                          weights_for(SS.applied, data.y))
settings = plots.settings_line(result)
dfig = plots.decision_figure(view, subtitle=settings)
if present:
    dfig.update_layout(font=dict(size=16))
st.plotly_chart(dfig, key=f"decision_{SS.result_key}", theme=None,
                config=plots.chart_config(plots.export_name(result, "decision"), fmt))
if view.caption:
    st.caption(view.caption)
if view.p_mesh is None:
    st.caption("No Bayes boundary: the true P(A|x) of this data set is unknown.")
else:
    what = "f(x)" if data.d == 1 else "f(x) = 0"
    st.caption(f"Dotted black: the Bayes rule p_s(x) = L(−1)/(L(−1)+L(+1)) = {view.threshold:.3g} "
               f"(Wahba et al. 2001, §1.7); the other curves are {what} of the fit each criterion picks.")

st.divider()
st.radio("Image format of the camera button in each chart's toolbar", ["png", "svg"], key="w_image_format",
         horizontal=True)
ui.downloads(result, {"Surfaces": lambda: plots.contour_grid(result, shown or cols_all, selected=sel),
                      "Decision curves": lambda: dfig}, prefix=plots.export_name(result, "sweep"))
