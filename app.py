"""SVM tuning dashboard: how GACV, XA, BRXA, SURE and friends choose (λ, σ).

Run with ``streamlit run app.py``. The entry point builds the navigation and the shared sidebar;
the pages in ``pages/`` read the session state, call ``svmcore`` and draw.
"""
import streamlit as st

from svmapp import ui

st.set_page_config(page_title="SVM tuning explorer", page_icon="📈", layout="wide")

PAGES = [
    st.Page("pages/tuning.py", title="Tuning surfaces", icon="🗺️", default=True),
    st.Page("pages/summary.py", title="Summary table", icon="📋", url_path="summary"),
    st.Page("pages/path.py", title="Regularization path", icon="〰️", url_path="path"),
    st.Page("pages/losses.py", title="Loss functions", icon="📉", url_path="losses"),
    st.Page("pages/criteria.py", title="The criteria", icon="📚", url_path="criteria"),
]

ui.init_state()
page = st.navigation(PAGES)
ui.run_if_requested(force_default=True)   # first visit, or Run sweep / Load preset pressed
ui.sidebar()
page.run()
