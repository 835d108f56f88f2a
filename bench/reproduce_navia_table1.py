"""Navia-Vázquez et al. (2004) Table 1 (cases A, B) and the UCI protocol (Tables 2–3) on bundled data.

Usage: PYTHONPATH=. python bench/reproduce_navia_table1.py [--trials 100] [--splits 3]
Writes the tables to stdout (bench/navia_table1_results.md is a copy of one run).
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.model_selection import StratifiedKFold, train_test_split

from svmcore.datasets.bundled import list_bundled, load_bundled
from svmcore.datasets.simulations import make_navia_a, make_navia_b, make_wahba2d
from svmcore.families.usvc import fit_kernel, fit_linear

PAPER = {  # Table 1: train CE, test CE, threshold (means)
    "A": {"LS": (30.5, 30.7, 0.3), "SVC": (26.8, 27.1, 0.35), "USVC s=2": (19.9, 20.4, 0.49),
          "USVC s=4": (21.1, 21.8, 0.47)},
    "B": {"LS": (31.8, 31.7, 0.3), "SVC": (24.8, 25.5, 0.4), "USVC s=2": (19.7, 19.8, 0.58),
          "USVC s=4": (20.1, 19.7, 0.56)},
}


def _err(w, b, X, y):
    return 100 * np.mean(np.where(X @ w + b > 0, 1, -1) != y)


def table1(trials: int) -> None:
    for case, make in (("A", make_navia_a), ("B", make_navia_b)):
        res = {k: [] for k in PAPER[case]}
        nonconv, t0 = 0, time.perf_counter()
        for t in range(trials):
            tr, te = make(500, 2 * t), make(500, 2 * t + 1)
            ls = fit_linear(tr.X, tr.y, method="ls", C=10.0)
            u2 = fit_linear(tr.X, tr.y, method="usvc", C=10.0, s=2.0)
            u4 = fit_linear(tr.X, tr.y, method="usvc", C=10.0, s=4.0)
            nonconv += (not u2.fit.converged) + (not u4.fit.converged) + (not u2.svc_stage.converged)
            for key, (w, b) in {"LS": (ls.w, ls.b), "SVC": (u2.svc_stage.coef, u2.svc_stage.b),
                                "USVC s=2": (u2.w, u2.b), "USVC s=4": (u4.w, u4.b)}.items():
                res[key].append((_err(w, b, tr.X, tr.y), _err(w, b, te.X, te.y), -b / w[0]))
        print(f"\n### Case {case}: {trials} trials, n = 500 train + 500 test, linear, C = 10, d = 0.2 "
              f"({time.perf_counter() - t0:.1f} s; {nonconv} non-converged IRWLS runs)\n")
        print("| algorithm | train CE % (sd) | paper | test CE % (sd) | paper | Th (sd) | paper |")
        print("|---|---|---|---|---|---|---|")
        for key, rows in res.items():
            a = np.array(rows)
            m, s = a.mean(0), a.std(0, ddof=1)
            p = PAPER[case][key]
            print(f"| {key} | {m[0]:.1f} ({s[0]:.1f}) | {p[0]} | {m[1]:.1f} ({s[1]:.1f}) | {p[1]} | "
                  f"{m[2]:.3f} ({s[2]:.3f}) | {p[2]} |")


def _cv_pick(X, y, Cs, seed):
    """5-fold CV test error of SVC and USVC (s = 2) for each C; returns the best C for each."""
    err = {"SVC": np.zeros(len(Cs)), "USVC": np.zeros(len(Cs)), "LS": np.zeros(1)}
    for tr, te in StratifiedKFold(5, shuffle=True, random_state=seed).split(X, y):
        for k, C in enumerate(Cs):
            m = fit_linear(X[tr], y[tr], method="usvc", C=C, max_iter=2000)
            err["USVC"][k] += np.sum(m.predict(X[te]) != y[te])
            err["SVC"][k] += _err(m.svc_stage.coef, m.svc_stage.b, X[te], y[te]) * len(te) / 100
    return {k: Cs[int(np.argmin(v))] for k, v in err.items() if k != "LS"}


def uci(splits: int, Cs=(0.01, 0.1, 1.0, 10.0)) -> None:
    print(f"\n### Bundled real data, linear machine: {splits} random 80/20 splits, C by 5-fold CV "
          f"over {list(Cs)} (standardized inputs)\n")
    print("| data set | n | LS test CE % | SVC test CE % | USVC (s=2) test CE % | seconds |")
    print("|---|---|---|---|---|---|")
    for name in list_bundled():
        d = load_bundled(name)
        t0, out = time.perf_counter(), {"LS": [], "SVC": [], "USVC": []}
        for sp in range(splits):
            tr, te = train_test_split(np.arange(d.n), test_size=0.2, stratify=d.y, random_state=sp)
            X, y, Xt, yt = d.X[tr], d.y[tr], d.X[te], d.y[te]
            best = _cv_pick(X, y, Cs, sp)
            ls = fit_linear(X, y, method="ls")
            out["LS"].append(100 * np.mean(ls.predict(Xt) != yt))
            svc = fit_linear(X, y, method="svc", C=best["SVC"])
            out["SVC"].append(100 * np.mean(svc.predict(Xt) != yt))
            us = fit_linear(X, y, method="usvc", C=best["USVC"])
            out["USVC"].append(100 * np.mean(us.predict(Xt) != yt))
        cell = {k: f"{np.mean(v):.1f} ± {np.std(v, ddof=1) if len(v) > 1 else 0:.1f}"
                for k, v in out.items()}
        print(f"| {name} | {d.n} | {cell['LS']} | {cell['SVC']} | {cell['USVC']} | "
              f"{time.perf_counter() - t0:.1f} |")


def speed() -> None:
    d = make_navia_a(500, 0)
    t0 = time.perf_counter()
    m = fit_linear(d.X, d.y, method="usvc", C=10.0)
    t_lin = time.perf_counter() - t0
    w = make_wahba2d(2000, 0)
    t0 = time.perf_counter()
    k = fit_kernel(w.X, w.y, 1.0, 50, seed=0, method="usvc", C=1.0)
    t_ker = time.perf_counter() - t0
    print("\n### Speed (2-core machine shared with other jobs)\n")
    print(f"- linear USVC (SVC stage + USVC), navia_a n = 500: {t_lin:.3f} s "
          f"({m.svc_stage.iterations} + {m.fit.iterations} iterations)")
    print(f"- prototype machine R = 50, σ = 1, wahba2d n = 2000 (k-means + SVC + USVC): {t_ker:.2f} s "
          f"({k.svc_stage.iterations} + {k.fit.iterations} iterations, converged {k.fit.converged})")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=100)
    ap.add_argument("--splits", type=int, default=3)
    a = ap.parse_args()
    speed()
    table1(a.trials)
    uci(a.splits)
