"""Guided lessons: a story told with the app live. Each step sets a view (through the same settings
and codec as a link, so each step IS a link) and says what to notice; every control stays usable."""
import streamlit as st

from svmapp import lessons as L
from svmapp import ui

st.title("Guided lessons")
st.markdown(
    "Press **Show** on a step: the app opens that step's page with its data, costs, grid, panels and "
    "curves, and a banner at the top says what to notice, with **Back** and **Next**. Every control "
    "stays live: change one thing and watch. Each step is also a link you can paste into a slide.")
st.toggle("presentation mode", key="w_present",
          help="A projector layout: the surfaces and the decision curve on one screen, large fonts")

for les in L.LESSONS:
    st.subheader(les.title)
    st.caption(les.intro)
    for k, step in enumerate(les.steps, start=1):
        with st.container(border=True, key=f"lesson_{les.id}_{k}"):
            left, right = st.columns([6, 1], vertical_alignment="center")
            left.markdown(f"**{k}. {ui.plain(step.title)}** · *{L.PAGES[step.page][1] or 'tuning'} page*  \n"
                          f"{ui.plain(step.text)}  \n[link to this step]({L.step_url(les, k)})")
            right.button("Show", key=f"go_{les.id}_{k}", type="primary", icon=":material/play_arrow:",
                         on_click=ui.go_step, args=(les.id, k), width="stretch")
