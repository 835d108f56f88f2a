"""Soft classification: how well GACV and ranGACV pick (λ, σ), and how long a grid takes.

Part 1 (quality): lin1d and wahba2d, n = 200, 20 replicates each; on a 26 × 13 grid the median CKL
inefficiency (CKL at the criterion's pick / grid minimum of CKL) of exact GACV and of ranGACV with
R = 1, 5, 20 (Lin et al., eqs 8 and 10), and how often the CKL minimizer sits on the grid's edge.
Part 2 (time): the family's grid runner on wahba2d, 26 λ × 13 σ, n = 200 and 500 (obs, GACV,
ranGACV R = 5, CKL) and n = 2000 (ranGACV R = 5 and CKL only, on two workers the sweep starts,
on two already running, and as a new process's first sweep), with peak memory.

Part 3 (solvers): the full-rank column at n = 2000 with G formed and factored against the Woodbury
form, in the same process.

Run: ``PYTHONPATH=. python bench/soft_gacv.py [quality] [timing] [solvers]`` (default: all three;
writes bench/soft_gacv_results.md, keeping the sections of the parts not rerun).
"""
from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed

from svmcore.datasets.simulations import make_simulation
from svmcore.families.soft.criteria import ckl, draw_deltas, gacv, rangacv
from svmcore.families.soft.newton import KernelBasis, solve_path, to01
from svmcore.grid import sweep, workers_running
from svmcore.kernels import gaussian_gram, squared_distances
from svmcore.spec import GridSpec

#: the timing grid: 26 log2(nλ) × 13 log2σ
LAMBDAS = "-20:5:1"
#: the quality grid: 26 log2(nλ) reaching further left, since CKL's minimum slides along a ridge
#: towards large σ and small λ (lin1d's CKL minimizer reaches log2(nλ) ≈ −32 at σ = 2)
Q_LAMBDAS = "-30:7.5:1.5"
SIGMAS = {"lin1d": "-4:2:0.5", "wahba2d": "-3:3:0.5"}          # 13 values of log2 σ each
REPS = (1, 5, 20)
N_REPLICATES = 20
OUT = Path(__file__).with_name("soft_gacv_results.md")


def one_replicate(name: str, seed: int, n: int = 200) -> dict:
    """Every criterion on the grid for one sample; returns the picks' inefficiencies."""
    data = make_simulation(name, n, seed)
    grid = GridSpec.parse(Q_LAMBDAS, SIGMAS[name])
    l2 = grid.log2_nlambda.values()
    lams = 2.0 ** l2 / n
    y01 = to01(data.y)
    deltas = {R: draw_deltas(n, R, 1000 + seed) for R in REPS}
    sq = squared_distances(data.X)
    shape = (grid.log2_sigma.count, len(lams))
    vals = {k: np.full(shape, np.nan) for k in ["ckl", "gacv"] + [f"rangacv{R}" for R in REPS]}
    for i, ls in enumerate(grid.log2_sigma.values()):
        basis = KernelBasis.from_gram(gaussian_gram(None, sigma=2.0 ** ls, sqdist=sq))
        for j, sol in enumerate(solve_path(basis, y01, lams)):
            vals["ckl"][i, j] = ckl(sol, data.p)
            vals["gacv"][i, j] = gacv(sol, y01)
            for R in REPS:
                vals[f"rangacv{R}"][i, j] = rangacv(sol, y01, deltas[R])
    c = vals["ckl"]
    cmin = np.nanmin(c)
    bi, bj = np.unravel_index(np.nanargmin(c), c.shape)
    out = {"edge": bool(bi in (0, shape[0] - 1) or bj in (0, shape[1] - 1)),
           "ckl_pick": (float(l2[bj]), float(grid.log2_sigma.values()[bi]))}
    for k, v in vals.items():
        if k == "ckl":
            continue
        i, j = np.unravel_index(np.nanargmin(v), v.shape)
        out[k] = float(c[i, j] / cmin)
        out[k + "_edge"] = bool(i in (0, shape[0] - 1) or j in (0, shape[1] - 1))
    return out


def quality(lines: list) -> None:
    lines += ["## CKL inefficiency (median over 20 replicates, n = 200)", "",
              f"Grid: log2(nλ) = {Q_LAMBDAS} (26) × log2σ = lin1d {SIGMAS['lin1d']}, wahba2d "
              f"{SIGMAS['wahba2d']} (13). ranGACV's δ draws are seeded per replicate.", "",
              "| data | GACV | ranGACV R=1 | R=5 | R=20 | CKL minimizer on an edge "
              "| criterion pick on an edge |",
              "|---|---|---|---|---|---|---|"]
    for name in ("lin1d", "wahba2d"):
        t0 = time.perf_counter()
        res = Parallel(n_jobs=2)(delayed(one_replicate)(name, s) for s in range(N_REPLICATES))
        keys = ["gacv"] + [f"rangacv{R}" for R in REPS]
        med = {k: np.median([r[k] for r in res]) for k in keys}
        q = {k: (np.percentile([r[k] for r in res], 25), np.percentile([r[k] for r in res], 75))
             for k in keys}
        edges = sum(r["edge"] for r in res)
        crit_edges = {k: sum(r[k + "_edge"] for r in res) for k in keys}
        cells = " | ".join(f"{med[k]:.4f} ({q[k][0]:.3f}–{q[k][1]:.3f})" for k in keys)
        lines.append(f"| {name} | {cells} | {edges}/{N_REPLICATES} | "
                     + ", ".join(f"{k} {v}" for k, v in crit_edges.items()) + " |")
        picks = [r["ckl_pick"] for r in res]
        lines.append(f"|  | CKL picks log2(nλ) {min(p[0] for p in picks):g}…{max(p[0] for p in picks):g}, "
                     f"log2σ {min(p[1] for p in picks):g}…{max(p[1] for p in picks):g} "
                     f"({time.perf_counter() - t0:.0f} s) | | | | | |")
        print(lines[-2], lines[-1], sep="\n", flush=True)
    lines += ["", "Cells: median (interquartile range) of CKL(pick)/min CKL.", ""]


def timing(lines: list) -> None:
    lines += ["## Time per grid (wahba2d, 26 λ × 13 σ, the family's grid runner)", "",
              "| n | criteria | workers | seconds | Newton iterations | not converged | peak RSS (MB) |",
              "|---|---|---|---|---|---|---|"]
    cases = [(200, ["obs", "gacv", "rangacv", "ckl"], 1), (500, ["obs", "gacv", "rangacv", "ckl"], 1),
             (500, ["obs", "gacv", "rangacv", "ckl"], 2), (2000, ["rangacv", "ckl"], 2)]
    for n, crit, jobs in cases:
        data = make_simulation("wahba2d", n, 0)
        running = workers_running()
        t0 = time.perf_counter()
        res = sweep(data, GridSpec.parse(LAMBDAS, SIGMAS["wahba2d"]), model="logistic",
                    criteria=crit, options={"rangacv_reps": 5}, n_jobs=jobs)
        secs = time.perf_counter() - t0
        rss = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                  resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024
        t = res.table
        how = "" if jobs == 1 else " (running)" if running else " (started)"
        lines.append(f"| {n} | {', '.join(crit)} | {jobs}{how} | {secs:.1f} | {int(t.iterations.sum())} | "
                     f"{int((~t.converged.astype(bool)).sum())} | {rss:.0f} |")
        print(lines[-1], flush=True)
    table_end = len(lines)
    lines += ["", "Workers: (started) the sweep started its two worker processes, (running) it found "
              "them up from the sweep before, as the app's later sweeps do. The last row is the "
              "n = 2000 grid as a new `python` process's first sweep (its imports not timed).",
              "", "Peak RSS: the larger of this process's and its (reaped) worker processes' maxima "
              "(ru_maxrss); loky workers still alive are not counted, hence the next line.", ""]
    code = ("from svmcore.datasets.simulations import make_simulation; from svmcore.grid import sweep; "
            "from svmcore.spec import GridSpec; d = make_simulation('wahba2d', 2000, 0); "
            f"sweep(d, GridSpec.parse('{LAMBDAS}', '-3'), model='logistic', criteria=['rangacv', 'ckl'], "
            "options={'rangacv_reps': 5}, n_jobs=1)")
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    lines += [f"One worker's peak: the full-rank column (n = 2000, log2σ = −3, 26 λ, ranGACV R = 5) "
              f"alone in a fresh process: {time.perf_counter() - t0:.1f} s, peak RSS {rss:.0f} MB.", ""]
    print(lines[-2], flush=True)
    # last: the new process's workers would otherwise enter the children's ru_maxrss above
    lines.insert(table_end, f"| 2000 | rangacv, ckl | 2 (started, in a new process) | "
                            f"{_fresh_workers_grid():.1f} | | | |")
    print(lines[table_end], flush=True)


def _fresh_workers_grid() -> float:
    """Seconds of the n = 2000 ranGACV grid as a new process's first sweep: its two worker
    processes start with it (the imports of the parent are not timed)."""
    code = ("import time; from svmcore.datasets.simulations import make_simulation; "
            "from svmcore.grid import sweep; from svmcore.spec import GridSpec; "
            "d = make_simulation('wahba2d', 2000, 0); t0 = time.perf_counter(); "
            f"sweep(d, GridSpec.parse('{LAMBDAS}', '{SIGMAS['wahba2d']}'), model='logistic', "
            "criteria=['rangacv', 'ckl'], options={'rangacv_reps': 5}, n_jobs=2); "
            "print(time.perf_counter() - t0)")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return float(out.stdout.split()[-1])


def solvers(lines: list) -> None:
    """The full-rank column (n = 2000, log2σ = −3, 26 λ, ranGACV R = 5) three ways, in this
    process, one after the other on the same basis: G formed and factored at every Newton
    iteration (``solver="cholesky", lag=False``, 4n³/3 flops per iteration), the Woodbury form at
    every iteration (``"woodbury", lag=False``, n³/3), and the Woodbury form reusing its factor
    while f moves less than 1e-4, and for a step that another will follow (solved to 1e-3 only)
    while f moves less than 2 (``"woodbury"``, the default; ``newton.LaggedFactor``)."""
    n = 2000
    data = make_simulation("wahba2d", n, 0)
    y01 = to01(data.y)
    lams = 2.0 ** np.arange(-20.0, 6.0) / n
    basis = KernelBasis.from_gram(gaussian_gram(data.X, sigma=2.0 ** -3))
    deltas = draw_deltas(n, 5, 0)
    ways = {"cholesky, a factor per iteration (n r² + r³/3 each)": dict(solver="cholesky", lag=False),
            "woodbury, a factor per iteration (n³/3 each)": dict(solver="woodbury", lag=False),
            "woodbury, factor reused (within 1e-4; a step that another will follow: inexact, "
            "within 2) (default)": dict(solver="woodbury")}
    out = {}
    for name, kw in ways.items():
        t0 = time.perf_counter()
        sols = solve_path(basis, y01, lams, **kw)
        crit = [rangacv(sol, y01, deltas) for sol in sols]
        out[name] = (time.perf_counter() - t0, sols, crit)
    lines += ["## Newton solves: G factored, the Woodbury form, a reused factor (same process)", "",
              f"n = {n}, log2σ = −3 (rank {basis.rank}), 26 λ, ranGACV R = 5, eigendecomposition "
              "not included. Differences are against the first row.", "",
              "| way | seconds | Newton iterations | factorizations | largest abs Δf | largest rel Δ ranGACV |",
              "|---|---|---|---|---|---|"]
    _, ref_sols, ref_crit = next(iter(out.values()))
    for name, (secs, sols, crit) in out.items():
        df = max(float(np.max(np.abs(a.f - b.f))) for a, b in zip(ref_sols, sols))
        dr = max(abs(a - b) / abs(a) for a, b in zip(ref_crit, crit))
        lines.append(f"| {name} | {secs:.1f} | {sum(x.iterations for x in sols)} | "
                     f"{sum(x.factorizations for x in sols)} | {df:.1e} | {dr:.1e} |")
    secs = [v[0] for v in out.values()]
    lines += ["", f"Ratios: cholesky / woodbury {secs[0] / secs[1]:.2f}; woodbury per iteration / "
              f"reused {secs[1] / secs[2]:.2f}.", ""]
    print("\n".join(lines[-11:]), flush=True)


#: each part's section heading in the results file, in the file's order
SECTIONS = {"quality": "## CKL inefficiency", "timing": "## Time per grid", "solvers": "## Newton solves"}


def _old_section(old: str, part: str) -> str:
    """The section ``part`` of the results file's text ``old`` ("" when absent)."""
    heads = list(SECTIONS.values())
    start = old.find(SECTIONS[part])
    if start < 0:
        return ""
    ends = [k for k in (old.find(h, start + 1) for h in heads) if k > start]
    return old[start:min(ends, default=len(old))].rstrip() + "\n"


def main() -> int:
    lines = ["# Soft classification: GACV / ranGACV quality and grid time", "",
             f"Written by `bench/soft_gacv.py`. Machine: {os.cpu_count()} cores, load average "
             f"{os.getloadavg()[0]:.1f} at the start; BLAS threads as set in the environment "
             f"(OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}); "
             f"Python {sys.version.split()[0]}.", ""]
    which = sys.argv[1:] or list(SECTIONS)
    old = OUT.read_text() if OUT.exists() else ""
    for part, run in (("quality", quality), ("timing", timing), ("solvers", solvers)):
        if part in which:
            run(lines)
        elif _old_section(old, part):       # keep the file's section of a part not rerun
            lines.append(_old_section(old, part))
    OUT.write_text("\n".join(lines) + "\n")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
