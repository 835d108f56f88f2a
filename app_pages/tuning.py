"""Tuning surfaces: one contour panel per criterion over (log2 nλ, log2 σ); a click on a grid
point selects (λ, σ) and redraws the decision panel below (Wahba et al. 2001, Figs 1.4–1.5)."""
import numpy as np
import streamlit as st

from svmapp import ui
from svmapp.settings import weights_for
from svmcore.viz import plots, views as explore

SS = st.session_state

st.title("How each criterion tunes the SVM")
res = ui.require_result()
if res is None:
    st.stop()
result, loaded = res
data = loaded.train
ui.settings_badge()

with st.expander("How to read this page", expanded=False):
    st.markdown(
        """
* Each panel is one tuning criterion evaluated at every grid point: horizontal axis log₂(nλ)
  (left = little smoothing, right = heavy smoothing), vertical axis log₂σ of the Gaussian kernel.
  Dark is small. The **white star** is the panel's own minimizer — the (λ, σ) that criterion would pick;
  hollow circles mark tied minimizers (XA is a count and ties often).
* GACV, SURE, OBS, GCKL and the hinge losses are coloured on a log₁₀ scale and clipped at their
  95th percentile: GACV and SURE grow like 1/λ at small λ and would otherwise wash out the picture.
* GCKL, MISCLASS and BRMISCLASS are the *targets*: they use the true P(A|x), which only a simulation
  knows. A good criterion's star sits where the target is small.
* **Hover** a panel to read every criterion's value at that grid point; **click** a grid point to
  fit the SVM there and add its decision curve (black, "clicked point") to the panel below.
"""
    )

cols_all = [c for c in result.columns if c in result.table.columns]
c1, c2, c3 = st.columns([4, 1.2, 1])
default = [c for c in cols_all if c not in ("obs", "brmisclass" if "misclass" in explore.decision_columns(result)
                                            else "misclass")] or cols_all
shown = c1.multiselect("Criteria to show", cols_all, default=default, format_func=explore.label,
                       key=f"tun_shown_{SS.result_key}")
others = c2.toggle("mark other minimizers", value=False, key="tun_others",
                   help="Mark every shown criterion's minimizer in each panel")
ncols = c3.selectbox("panels per row", [2, 3, 4], index=1, key="tun_ncols")

sel = SS.get("selected")
hover = plots.hover_texts(result, cols_all)
for start in range(0, len(shown), ncols):
    row = st.columns(ncols)
    for col, crit in zip(row, shown[start:start + ncols]):
        fig = plots.criterion_contour(result, crit, show_others=shown if others else (),
                                      selected=sel, hover=hover)
        key = f"contour_{crit}_{SS.result_key}"
        col.plotly_chart(fig, key=key, on_select=ui.pick_callback(key), selection_mode="points",
                         config={"displayModeBar": False}, theme=None)

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


curves = st.multiselect("Decision curves of the fits chosen by", cols_all,
                        default=explore.decision_columns(result), format_func=explore.label,
                        key=f"tun_curves_{SS.result_key}")
with st.spinner("Fitting the chosen SVMs …"):
    view = _decision_view(SS.result_key, sel, features, tuple(curves), data, result,
                          weights_for(SS.applied, data.y))
dfig = plots.decision_figure(view)
st.plotly_chart(dfig, key=f"decision_{SS.result_key}", config={"displayModeBar": False}, theme=None)
if view.caption:
    st.caption(view.caption)
if view.p_mesh is None:
    st.caption("No Bayes boundary: the true P(A|x) of this data set is unknown.")
else:
    st.caption(f"Dotted black: the Bayes rule p_s(x) = L(−1)/(L(−1)+L(+1)) = {view.threshold:.3g} "
               "(Wahba et al. 2001, §1.7); the other curves are f(x) = 0 of the fit each criterion picks.")

st.divider()
ui.downloads(result, {"Surfaces": lambda: plots.contour_grid(result, shown or cols_all, selected=sel),
                      "Decision curves": lambda: dfig}, prefix=data.name)
