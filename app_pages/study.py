"""Simulation study: each criterion's inefficiency over many replicate samples (or data splits)."""
import threading
import time

import streamlit as st

from svmapp.ui import plain as _plain
from svmcore._validation import SVMCoreError
from svmcore.datasets import list_datasets
from svmcore.families.svm.criteria import ALL_CRITERIA
from svmcore.grid import Cancelled
from svmcore.spec import make_spec
from svmcore.study import NONSTANDARD, PAPER_INEFFICIENCY, STANDARD, Weighting, run_study, scheduler_from_env, summarize
from svmcore.viz.study import inefficiency_box, minimizer_scatter

st.caption("This page has its own settings below; the sidebar's settings don't apply here.")
st.title("Simulation study")
st.markdown("Run the tuning criteria on many replicate samples and compare how far each one's "
            "pick is from the best point of the grid (inefficiency = target at the pick ÷ the "
            "target's grid minimum; Wahba, Lin, Lee & Zhang 2001, §1.8).")

sets = list_datasets()
c1, c2, c3 = st.columns(3)
dataset = c1.selectbox("Data", sets["simulations"] + sets["bundled"], key="study_dataset")
is_sim = dataset in sets["simulations"]
if is_sim:
    n = c2.number_input("n per replicate", 10, 2000, 100, step=10, key="study_n")
    seed = c3.number_input("seed of replicate 0", 0, 10**6, 0, key="study_seed")
else:
    frac = c2.number_input("test fraction", 0.05, 0.45, 0.3, step=0.05, key="study_frac")
    seed = c3.number_input("split seed of replicate 0", 0, 10**6, 0, key="study_seed_real")
c4, c5, c6 = st.columns(3)
R = c4.number_input("replicates R", 1, 1000, 10, key="study_R")
lam_text = c5.text_input("log2(nλ) START:STOP:STEP", "-20:4:2", key="study_lam")
sig_text = c6.text_input("log2 σ START:STOP:STEP", "-2:2:1", key="study_sig")
default_crit = ["gacv", "xa", "brxa", "misclass", "brmisclass"] if is_sim else ["gacv", "xa", "brxa"]
choices = [c for c in ALL_CRITERIA if is_sim or c not in ("gckl", "misclass", "brmisclass")]
criteria = st.multiselect("criteria", choices, default=default_crit, key="study_criteria")
w1, w2, w3, w4, w5 = st.columns(5)
use_std = w1.checkbox("standard", True, key="study_use_std")
use_non = w2.checkbox("nonstandard", True, key="study_use_non")
cost_a = w3.number_input("C_A", 0.01, 100.0, NONSTANDARD.cost_a, key="study_cost_a")
cost_b = w4.number_input("C_B", 0.01, 100.0, NONSTANDARD.cost_b, key="study_cost_b")
prior_a = w5.number_input("π_A", 0.01, 0.99, NONSTANDARD.prior_a, key="study_prior_a")
scheduler = scheduler_from_env()
st.caption(f"Runs on the Dask cluster at {_plain(scheduler)}" if scheduler else
           "Runs on this machine's cores (set SVMAPP_DASK_SCHEDULER to use a Dask cluster).")

b1, b2, _ = st.columns([1, 1, 4])
run_clicked = b1.button("Run study", type="primary", key="study_run")
cancel_clicked = b2.button("Cancel", key="study_cancel")


def _start() -> None:
    weightings = ([STANDARD] if use_std else []) + \
        ([Weighting("nonstandard", cost_a, cost_b, prior_a)] if use_non else [])
    if not weightings:
        raise SVMCoreError("choose at least one weighting")
    data = ({"source": "simulation", "name": dataset, "n": int(n), "seed": int(seed)} if is_sim else
            {"source": "bundled", "name": dataset, "test_fraction": float(frac), "split_seed": int(seed)})
    spec = make_spec("svm", data=data, log2_nlambda=lam_text, log2_sigma=sig_text, criteria=criteria)
    n_tasks = int(R) * spec.grid.log2_sigma.count
    job = {"done": 0, "total": n_tasks, "result": None, "error": None, "event": threading.Event()}

    def work():
        try:
            job["result"] = run_study(spec, int(R), weightings, scheduler=scheduler,
                                      n_jobs=1 if n_tasks <= 16 else 0,
                                      progress=lambda d, t: job.update(done=d, total=t),
                                      cancel=job["event"].is_set)
        except Cancelled:
            job["error"] = "cancelled"
        except Exception as exc:  # shown on the page; the earlier result stays
            job["error"] = exc

    job["thread"] = threading.Thread(target=work, daemon=True)
    job["thread"].start()
    st.session_state["study_job"] = job


job = st.session_state.get("study_job")
if cancel_clicked and job is not None:
    job["event"].set()
if run_clicked and (job is None or not job["thread"].is_alive()):
    try:
        _start()
    except SVMCoreError as exc:
        st.error(_plain(exc))
job = st.session_state.get("study_job")
if job is not None:
    bar = st.progress(0.0, text="starting…")
    while job["thread"].is_alive():
        bar.progress(job["done"] / max(1, job["total"]), text=f"{job['done']}/{job['total']} tasks")
        time.sleep(0.2)
    bar.empty()
    st.session_state["study_job"] = None
    if job["result"] is not None:
        st.session_state["study_result"] = job["result"]
    elif job["error"] == "cancelled":
        st.info("Cancelled; the earlier result (if any) is shown.")
    elif isinstance(job["error"], SVMCoreError):
        st.error(_plain(job["error"]))
    elif job["error"] is not None:
        st.error(_plain(f"{type(job['error']).__name__}: {job['error']}"))

res = st.session_state.get("study_result")
if res is None:
    st.info("Choose the settings and press **Run study**.")
    st.stop()

t = res.timing
st.caption(f"{res.replicates} replicates × {len(res.weightings)} weightings: {t['tasks']} tasks on "
           f"{_plain(t['backend'])} in {t['wall_seconds']:.1f} s ({t['tasks_per_second']:.1f} tasks/s).")
strip = st.toggle("points instead of boxes", False, key="study_strip")
paper = PAPER_INEFFICIENCY if res.spec.data.name == "wahba2d" else {}
st.plotly_chart(inefficiency_box(res.table, paper, strip=strip), key="study_box")
if paper:
    st.caption("Diamonds: the paper's values for its one sample of wahba2d (n = 200): standard GACV "
               "1.0064, XA 1.0062–1.0094; nonstandard GACV 1.151, BRXA 1.166.")
st.plotly_chart(minimizer_scatter(res.table), key="study_scatter")
summ = summarize(res.table)
st.dataframe(summ, hide_index=True, key="study_summary")
with st.expander("All rows"):
    st.dataframe(res.table, hide_index=True)
st.download_button("Download table (CSV)", res.table.to_csv(index=False), "study.csv", "text/csv",
                   key="study_download")
if st.button("Save this run", key="study_save"):
    from svmcore.store import runs_dir, save_run
    path = save_run(runs_dir(), "study", res.spec, res.table,
                    {"settings": res.settings, "seconds": t["wall_seconds"],
                     "weights": [w.as_dict() for w in res.weightings]})
    st.text(f"saved to {path}")
