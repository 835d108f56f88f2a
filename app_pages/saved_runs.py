"""Saved runs: list the runs in the store folder and put two side by side."""
import os

import streamlit as st

from svmapp.ui import plain as _plain
from svmcore._validation import SVMCoreError
from svmcore.store import load_run, runs_dir, scan_runs
from svmcore.study import PAPER_INEFFICIENCY
from svmcore.viz.study import grid_heatmap, inefficiency_box, minimizer_scatter

st.caption("This page has its own settings below; the sidebar's settings don't apply here.")
st.title("Saved runs")
# Only the configured store is read, never a folder typed by a visitor.
root = runs_dir()
st.caption(f"Store: `{_plain(str(root))}` (set by the server's `SVMAPP_RUNS_DIR`).")
runs, damaged = scan_runs(root)
for folder, why in damaged:
    st.warning(_plain(f"skipped {os.path.basename(folder)}: {why}"))
if runs.empty:
    st.info("No saved runs in this folder yet: save one from the study page or with "
            "`svmcore study … --save DIR`.")
    st.stop()
st.dataframe(runs.drop(columns=["path"]), hide_index=True, key="saved_runs_list")


def _label(i: int) -> str:
    r = runs.iloc[i]
    return f"{r['kind']} · {r['data']} · {r['created']} · {r['key'][:8]}"


def _show(col, i: int, slot: str) -> None:
    try:
        spec, table, meta = load_run(runs["path"].iloc[i])
    except SVMCoreError as exc:
        col.error(_plain(exc))
        return
    col.text(f"{meta.get('kind')} run of {spec.model} on {spec.data.name}, created {meta.get('created')}")
    col.code(f"grid log2(nλ) {spec.grid.log2_nlambda.text} × log2 σ {spec.grid.log2_sigma.text}\n"
             f"criteria {', '.join(spec.criteria)}\nsettings {meta.get('settings', {})}")
    if meta.get("kind") == "study":
        paper = PAPER_INEFFICIENCY if spec.data.name == "wahba2d" else {}
        col.plotly_chart(inefficiency_box(table, paper, height=360), key=f"saved_runs_box_{slot}")
        col.plotly_chart(minimizer_scatter(table), key=f"saved_runs_scatter_{slot}")
    else:
        numeric = [c for c in table.columns if c not in ("log2_sigma", "log2_nlambda", "sigma", "lambda")
                   and table[c].dtype.kind == "f"]
        if numeric:
            c = col.selectbox("surface", numeric, key=f"saved_runs_col_{slot}")
            col.plotly_chart(grid_heatmap(table, c), key=f"saved_runs_surface_{slot}")
    col.dataframe(table, hide_index=True, height=260, key=f"saved_runs_table_{slot}")


left, right = st.columns(2)
a = left.selectbox("left", range(len(runs)), format_func=_label, key="saved_runs_left")
b = right.selectbox("right", range(len(runs)), index=min(1, len(runs) - 1), format_func=_label,
                    key="saved_runs_right")
_show(left, a, "left")
_show(right, b, "right")
