"""Benchmark: TunedSVC (GACV, XA, 5-fold CV from the λ-path) against GridSearchCV(SVC()).

On every bundled real data set (``svmcore.datasets.bundled``), ``--splits`` random stratified
splits (seeds 0, 1, …): at most ``--max-rows`` training rows (the rest, up to ``--max-test`` rows,
is the test set). Every method is a ``Pipeline(StandardScaler(), …)`` fitted on the training rows
only, on the same grid: log2(nλ) = ``--log2-nlambda`` × log2 σ = ``--log2-sigma``, i.e.
C = 2^(−log2 nλ)/2 and γ = 1/(2σ²) for ``GridSearchCV(SVC(), cv=5)`` (accuracy, its default).
TunedSVC uses ``extend_grid=False`` so both see exactly the same grid; one process, one thread
(OPENBLAS_NUM_THREADS=1 is set before numpy loads).

Reported per set and method: test error mean and sd over the splits, wall time per split (mean),
the time of GridSearchCV divided by the method's, and whether the method's mean error differs from
GridSearchCV's by more than the standard error of the paired differences (sd/√splits).

Usage: python bench/estimators_vs_gridsearch.py [--splits 10] [--max-rows 300] [--sets a,b]
       [--out bench/estimators_vs_gridsearch_results.md]
"""
from __future__ import annotations

import argparse
import os
import sys
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numpy as np
from sklearn.model_selection import GridSearchCV, StratifiedShuffleSplit
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from svmcore import TunedSVC
from svmcore.datasets.bundled import BUNDLED, load_bundled
from svmcore.spec import Axis

METHODS = ("TunedSVC gacv", "TunedSVC xa", "TunedSVC cv", "GridSearchCV(SVC)")


def make_models(lam: str, sig: str) -> dict:
    """The four pipelines on one grid."""
    l2n = Axis.parse(lam, "log2(nλ)", (-40, 20)).values()
    l2s = Axis.parse(sig, "log2(σ)", (-10, 10)).values()
    grid = {"svc__C": list(0.5 * 2.0 ** -l2n), "svc__gamma": list(1.0 / (2.0 * 4.0 ** l2s))}
    out = {f"TunedSVC {c}": make_pipeline(StandardScaler(), TunedSVC(
        criterion=c, log2_nlambda=lam, log2_sigma=sig, extend_grid=False, n_jobs=1))
        for c in ("gacv", "xa", "cv")}
    out["GridSearchCV(SVC)"] = GridSearchCV(make_pipeline(StandardScaler(), SVC()), grid, cv=5, n_jobs=1)
    return out


def run_set(name: str, args) -> dict:
    """{method: (errors, seconds)} over the splits of one data set."""
    data = load_bundled(name, standardize=False)
    X, y = data.X, data.y
    n_train = min(args.max_rows, int(0.67 * len(y)))
    n_test = min(args.max_test, len(y) - n_train)
    split = StratifiedShuffleSplit(args.splits, train_size=n_train, test_size=n_test, random_state=0)
    res = {m: ([], []) for m in METHODS}
    for tr, te in split.split(X, y):
        for m, model in make_models(args.log2_nlambda, args.log2_sigma).items():
            t0 = time.perf_counter()
            model.fit(X[tr], y[tr])
            res[m][1].append(time.perf_counter() - t0)
            res[m][0].append(float(np.mean(model.predict(X[te]) != y[te])))
    return {m: (np.array(e), np.array(s)) for m, (e, s) in res.items()} | {"_n": (n_train, n_test)}


def table(results: dict, splits: int) -> list[str]:
    lines = ["| data set | n train / test | method | test error mean ± sd | s per split | GridSearchCV "
             "time ÷ this | error differs (> 1 SE)? |", "|---|---|---|---|---|---|---|"]
    for name, r in results.items():
        gs_e, gs_t = r["GridSearchCV(SVC)"]
        for m in METHODS:
            e, t = r[m]
            d = e - gs_e
            se = d.std(ddof=1) / np.sqrt(splits) if splits > 1 else np.nan
            differs = "—" if m.startswith("Grid") else (
                f"{'yes' if abs(d.mean()) > se else 'no'} ({d.mean():+.3f} ± {se:.3f})")
            lines.append(f"| {name} | {r['_n'][0]} / {r['_n'][1]} | {m} | {e.mean():.3f} ± "
                         f"{e.std(ddof=1) if splits > 1 else 0:.3f} | {t.mean():.2f} | "
                         f"{gs_t.mean() / t.mean():.1f} | {differs} |")
    return lines


def summary(results: dict) -> list[str]:
    tot = {m: sum(r[m][1].sum() for r in results.values()) for m in METHODS}
    gs = tot["GridSearchCV(SVC)"]
    return ["", "Total wall time over all sets and splits: " + ", ".join(
        f"{m} {tot[m]:.1f} s (GridSearchCV ÷ this = {gs / tot[m]:.1f})" for m in METHODS)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--splits", type=int, default=10)
    ap.add_argument("--max-rows", type=int, default=300, help="training rows per split (cap)")
    ap.add_argument("--max-test", type=int, default=1000)
    ap.add_argument("--sets", default=",".join(BUNDLED))
    ap.add_argument("--log2-nlambda", default="-10:4:1")
    ap.add_argument("--log2-sigma", default="-2:4:0.5")
    ap.add_argument("--out", help="also write the table (Markdown) here")
    args = ap.parse_args(argv)
    results, t0 = {}, time.perf_counter()
    for name in args.sets.split(","):
        results[name] = run_set(name, args)
        print(f"{name} done ({time.perf_counter() - t0:.0f} s)", file=sys.stderr, flush=True)
    head = [f"# TunedSVC vs GridSearchCV(SVC) — {args.splits} stratified splits per set, at most "
            f"{args.max_rows} training rows, grid log2(nλ) = {args.log2_nlambda} × log2 σ = "
            f"{args.log2_sigma} ({len(make_models(args.log2_nlambda, args.log2_sigma))} methods; "
            "one process, OPENBLAS_NUM_THREADS=1)", "",
            "`python bench/estimators_vs_gridsearch.py " + " ".join(argv or sys.argv[1:]) + "`", ""]
    text = "\n".join(head + table(results, args.splits) + summary(results)) + "\n"
    print(text)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
