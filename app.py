"""SVM tuning dashboard: how GACV, XA, BRXA, SURE and friends choose (λ, σ).

Run with ``streamlit run app.py``. The entry point builds the navigation and the shared sidebar;
the pages in ``app_pages/`` read the session state, call ``svmcore`` and draw. (Not ``pages/``:
with a ``pages/`` folder next to the entry point, Streamlit 1.67's AppTest falls back to the legacy
multipage mode and reruns a page script without this entry point, losing the sidebar.)
"""
import os
import time

import streamlit as st

from svmapp import ui

_present = st.session_state.get("w_present", st.query_params.get("present") in ("1", "true", "yes"))
st.set_page_config(page_title="SVM tuning explorer", page_icon=":material/insights:", layout="wide",
                   initial_sidebar_state="collapsed" if _present else "auto")

PAGES = [
    st.Page("app_pages/tuning.py", title="Tuning surfaces", icon=":material/grid_on:", default=True),
    st.Page("app_pages/lessons.py", title="Guided lessons", icon=":material/school:", url_path="lessons"),
    st.Page("app_pages/summary.py", title="Summary table", icon=":material/table_chart:", url_path="summary"),
    st.Page("app_pages/path.py", title="Regularization path", icon=":material/show_chart:", url_path="path"),
    st.Page("app_pages/losses.py", title="Loss functions", icon=":material/functions:", url_path="losses"),
    st.Page("app_pages/criteria.py", title="The criteria", icon=":material/menu_book:", url_path="criteria"),
]
#: pages of the other model families and of studies: each has its own controls in the page
OTHER_PAGES = [
    ("app_pages/soft.py", "Soft classification", ":material/blur_on:", "soft"),
    ("app_pages/cosso.py", "Variable selection (COSSO)", ":material/filter_alt:", "cosso"),
    ("app_pages/usvc.py", "Unbiased SVC", ":material/balance:", "usvc"),
    ("app_pages/study.py", "Simulation study", ":material/stacked_bar_chart:", "study"),
    ("app_pages/saved_runs.py", "Saved runs", ":material/folder_open:", "saved"),
]
PAGES += [st.Page(path, title=title, icon=icon, url_path=url)
          for path, title, icon, url in OTHER_PAGES
          if os.path.exists(os.path.join(os.path.dirname(os.path.abspath(__file__)), path))]
#: the pages that read the shared sidebar (the SVM sweep's settings)
SIDEBAR_PAGES = ("Tuning surfaces", "Summary table")

_T0 = time.perf_counter()
RESULT_PAGES = ("Tuning surfaces", "Summary table")

ui.keep_widget_state()
first_run = "requested" not in st.session_state
page = st.navigation(PAGES)
ui.init_state(read_link=page.title in SIDEBAR_PAGES + ("Guided lessons",))
ui.follow_goto(page)         # a lesson step's button: its page
ui.presentation_mode()
# Run sweep / Load preset pressed, a cheap change (it runs by itself), or the first visit to a page
# that shows results
if first_run and page.title in RESULT_PAGES:
    ui.plotly_preload()      # the browser fetches and compiles plotly.js while the rest streams in
if page.title in SIDEBAR_PAGES:
    ui.auto_run()
ui.run_if_requested(force_default=page.title in RESULT_PAGES)
_T1 = time.perf_counter()
if page.title in SIDEBAR_PAGES:
    ui.sidebar()
try:
    page.run()
finally:                 # drawn even when the page stops early (st.stop)
    _T2 = time.perf_counter()
    if page.title in SIDEBAR_PAGES:
        ui.sync_query()  # the other pages' links are their own
ui.timing_log(f"run {_T1 - _T0:.2f}s page {_T2 - _T1:.2f}s sidebar {time.perf_counter() - _T2:.2f}s")
