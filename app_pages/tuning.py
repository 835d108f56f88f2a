"""Tuning surfaces: one contour panel per criterion over (log2 nλ, log2 σ), and beside them the
decision curves of the chosen fits; a click on a grid point adds its curve (Wahba et al. 2001,
Figs 1.4–1.5). Layout only: the logic is in svmapp/tuning.py."""
import streamlit as st

from svmapp import tuning as T
from svmapp import ui

SS = st.session_state
present = ui.presenting()

if not present:
    st.html(T.COMPACT_CSS)       # the surfaces and the decision panel start high on the screen
if not present and not SS.get("lesson"):
    st.title("How each criterion tunes the SVM")
ui.lesson_banner()
res = ui.require_result()
if res is None:
    st.stop()
result, loaded = res
if not present:
    ui.settings_badge(compact=True)
T.live_view(result, loaded, present)
if not present:
    T.how_to_read()
ui.use_this_model(result, loaded.train, SS.get("selected"))
st.divider()
T.exports(result)
