"""Replicate study of Wahba, Lin, Lee & Zhang (2001) §1.8 on local cores and on a Dask cluster.

wahba2d, n = 200, R replicates (seed r); the standard case and the nonstandard one (C_A = 1,
C_B = 2, π_A = 0.1); grid log2(nλ) = −25…8 step 1 × log2 σ = −3…3 step 0.5; criteria GACV, XA,
BRXA and the targets MISCLASS, BRMISCLASS. Runs the study on local worker processes and on a
localhost LocalCluster of 2 worker processes, checks that the tables are identical, and writes
wall time, tasks/s, an estimate for a 64-core cluster and the inefficiency quartiles to
``bench/study_dask_results.md``.

    PYTHONPATH=. python bench/study_dask.py --replicates 100
"""
from __future__ import annotations

import argparse
import os
import platform
import time
from pathlib import Path

import numpy as np
import pandas as pd

from svmcore.spec import make_spec
from svmcore.study import NONSTANDARD, PAPER_INEFFICIENCY, STANDARD, run_study, summarize

CRITERIA = "gacv,xa,brxa,misclass,brmisclass"


def study_spec(n: int):
    return make_spec("svm", data={"source": "simulation", "name": "wahba2d", "n": n, "seed": 0},
                     log2_nlambda="-25:8:1", log2_sigma="-3:3:0.5", criteria=CRITERIA)


def estimate(timing: dict, cores: int, overhead_s: float) -> float:
    """Wall time on ``cores`` single-threaded workers: the longest of total task-seconds / cores
    and the longest task, plus a fixed overhead (scheduler, data, result transfer)."""
    each = np.asarray(timing["task_seconds_each"])
    return max(each.sum() / cores, each.max()) + overhead_s


def run_local(spec, R, jobs):
    t0 = time.perf_counter()
    res = run_study(spec, R, (STANDARD, NONSTANDARD), n_jobs=jobs)
    return res, time.perf_counter() - t0


def run_dask(spec, R):
    from distributed import Client, LocalCluster

    t0 = time.perf_counter()
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      silence_logs=40) as cluster, Client(cluster) as client:
        t1 = time.perf_counter()
        res = run_study(spec, R, (STANDARD, NONSTANDARD), scheduler=client)
    return res, time.perf_counter() - t1, t1 - t0


def _timing_row(name, res, wall, extra=""):
    t = res.timing
    return (f"| {name} | {t['workers']} | {t['tasks']} | {wall:.1f} | {t['tasks'] / wall:.2f} | "
            f"{t['task_seconds']:.1f} | {np.median(t['task_seconds_each']):.3f} | {extra} |")


def markdown(R, n, local, local_wall, dask, dask_wall, start_s, identical) -> str:
    lt = local.timing
    over = max(0.0, local_wall - lt["task_seconds"] / max(1, lt["workers"]))
    est = estimate(lt, 64, min(over, 5.0) + 2.0)
    lines = [
        "# Replicate study on local cores and on Dask (Wahba et al. 2001, §1.8)",
        "",
        f"wahba2d, n = {n}, R = {R} replicates (data seed r), both weightings (standard; C_A=1, "
        f"C_B=2, π_A=0.1), grid log2(nλ) = −25…8 step 1 × log2 σ = −3…3 step 0.5 (34 × 13), criteria "
        f"{CRITERIA}. One task = one replicate × σ column (both weightings share its Gram matrix).",
        "",
        f"Machine: {os.cpu_count()} cores, Python {platform.python_version()}; other work ran "
        "concurrently on the same cores, so the times are upper bounds.",
        "",
        "| backend | workers | tasks | wall s | tasks/s | task-seconds | median task s | note |",
        "|---|---|---|---|---|---|---|---|",
        _timing_row("local processes (loky)", local, local_wall),
        _timing_row("Dask LocalCluster (localhost)", dask, dask_wall,
                    f"cluster start {start_s:.1f} s, not included"),
        "",
        f"Tables identical on both backends: **{identical}**.",
        "",
        f"Estimate for a 64-core cluster (one single-threaded worker per core): max(task-seconds / 64, "
        f"longest task) + overhead = {lt['task_seconds']:.1f} / 64 + ... ≈ **{est:.1f} s** "
        f"(overhead taken as 2 s + the local run's own overhead, capped at 5 s; the task-seconds were "
        f"measured on a loaded machine).",
        "",
        "## Inefficiency per case × criterion: median [Q1, Q3]",
        "",
        "| case | criterion | median [Q1, Q3] | median target | paper (one sample) |",
        "|---|---|---|---|---|",
    ]
    for r in summarize(local.table).itertuples():
        p = PAPER_INEFFICIENCY.get((r.case, r.criterion))
        ptxt = "" if p is None else (f"{p[0]:g}" if p[0] == p[1] else f"{p[0]:g}–{p[1]:g}")
        lines.append(f"| {r.case} | {r.criterion} | {r.median:.4f} [{r.q1:.4f}, {r.q3:.4f}] | "
                     f"{r.target_median:.4f} | {ptxt} |")
    lines += ["", "The paper's values are from its single sample; the quartiles show how much one "
              "sample's value can vary."]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--replicates", type=int, default=100)
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--jobs", type=int, default=0, help="local processes (0: all cores)")
    ap.add_argument("--out", default=str(Path(__file__).with_name("study_dask_results.md")))
    args = ap.parse_args(argv)
    spec = study_spec(args.n)
    local, local_wall = run_local(spec, args.replicates, args.jobs)
    print(f"local: {local_wall:.1f} s", flush=True)
    dask, dask_wall, start_s = run_dask(spec, args.replicates)
    print(f"dask: {dask_wall:.1f} s (+ {start_s:.1f} s start)", flush=True)
    identical = local.table.equals(dask.table)
    pd.testing.assert_frame_equal(local.table, dask.table, check_exact=True)
    text = markdown(args.replicates, args.n, local, local_wall, dask, dask_wall, start_s, identical)
    Path(args.out).write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
