"""Simulation study: each criterion's inefficiency over many replicate samples (or data splits)."""
import time

import streamlit as st

from svmapp import links
from svmapp import study_page as Q
from svmapp import ui
from svmapp import widgets as W
from svmapp.ui import plain
from svmcore._validation import SVMCoreError
from svmcore.study import PAPER_INEFFICIENCY, scheduler_from_env, summarize
from svmcore.viz.study import inefficiency_box, minimizer_scatter

SS = st.session_state
PARAMS = Q.page_params()
P = {p.name: p for p in PARAMS}

st.caption("This page has its own settings below; the sidebar's settings don't apply here.")
st.title("Simulation study")
ui.lesson_banner()
st.markdown("Run the tuning criteria on many replicate samples and compare how far each one's "
            "pick is from the best point of the grid (inefficiency = target at the pick ÷ the "
            "target's grid minimum; Wahba, Lin, Lee & Zhang 2001, §1.8).")
links.show_notes(links.restore(PARAMS, Q.PREFIX, Q.MODEL))
crit = Q.criteria_param(P["criteria"], SS["study_dataset"])
SS["study_criteria"] = [c for c in SS["study_criteria"] if c in crit.constraint.item.choices]
row = [P["dataset"], P["n"] if SS["study_dataset"] in Q.SIMS else P["test_fraction"], P["seed"],
       P["replicates"], P["log2_nlambda"], P["log2_sigma"]]
for col, p in zip(st.columns(3) + st.columns(3), row):
    W.render(p, col, prefix=Q.PREFIX)
W.render(crit, st, prefix=Q.PREFIX)
for col, name in zip(st.columns(5), ("standard", "nonstandard", "cost_a", "cost_b", "prior_a")):
    W.render(P[name], col, prefix=Q.PREFIX)
values = links.values(PARAMS, Q.PREFIX)
scheduler = scheduler_from_env()
st.caption(f"Runs on the Dask cluster at {plain(scheduler)}" if scheduler else
           "Runs on this machine's cores (set SVMAPP_DASK_SCHEDULER to use a Dask cluster).")

b1, b2, _ = st.columns([1, 1, 4])
run_clicked = b1.button("Run study", type="primary", key="study_run")
if b2.button("Cancel", key="study_cancel") and SS.get("study_job") is not None:
    SS["study_job"]["event"].set()
job = SS.get("study_job")
if (run_clicked or links.opened_from_link(Q.PREFIX)) and (job is None or not job["thread"].is_alive()):
    try:
        SS["study_job"] = Q.start(values, scheduler)
        SS["study_values"] = values
    except SVMCoreError as exc:
        st.error(plain(exc))
job = SS.get("study_job")
if job is not None:
    bar = st.progress(0.0, text="starting…")
    while job["thread"].is_alive():
        bar.progress(job["done"] / max(1, job["total"]), text=f"{job['done']}/{job['total']} tasks")
        time.sleep(0.2)
    bar.empty()
    SS["study_job"] = None
    kind, what = Q.outcome(job)
    if kind == "result":
        SS["study_result"] = (what, SS["study_values"])
    elif kind == "cancelled":
        st.info("Cancelled; the earlier result (if any) is shown.")
    else:
        st.error(plain(what))

if SS.get("study_result") is None:
    st.info("Choose the settings and press **Run study**.")
    st.stop()
res, shown = SS["study_result"]
links.write({**shown, "strip": values["strip"]}, Q.MODEL, PARAMS)
t = res.timing
st.caption(f"{res.replicates} replicates × {len(res.weightings)} weightings: {t['tasks']} tasks on "
           f"{plain(t['backend'])} in {t['wall_seconds']:.1f} s ({t['tasks_per_second']:.1f} tasks/s).")
W.render(P["strip"], st, prefix=Q.PREFIX)
paper = PAPER_INEFFICIENCY if res.spec.data.name == "wahba2d" else {}
st.plotly_chart(inefficiency_box(res.table, paper, strip=values["strip"]), key="study_box")
if paper:
    st.caption("Diamonds: the paper's values for its one sample of wahba2d (n = 200): standard GACV "
               "1.0064, XA 1.0062–1.0094; nonstandard GACV 1.151, BRXA 1.166.")
st.plotly_chart(minimizer_scatter(res.table), key="study_scatter")
st.dataframe(summarize(res.table), hide_index=True, key="study_summary")
with st.expander("All rows"):
    st.dataframe(res.table, hide_index=True)
st.download_button("Download table (CSV)", res.table.to_csv(index=False), "study.csv", "text/csv",
                   key="study_download")
if st.button("Save this run", key="study_save"):
    st.text(f"saved to {Q.save(res)}")
