"""Benchmark: the exact regularization path against pointwise cvxopt and LIBSVM (docs/svm.md).

wahba2d simulation (Wahba et al. 2001, §1.8), the paper's grid: 26 λ (log2(nλ) = −25 … 0) × 13 σ
(log2 σ = −3 … 3 in steps of ½), standard (L ≡ 1) and nonstandard (L(+1) = 0.5, L(−1) = 1.5)
weights. For each size n:

* path: ``solve_path`` on every σ column (all 13), timed per column;
* cvxopt: ``solve_cvxopt`` at every (σ, λ) of the columns that fit in ``--cvx-budget`` seconds
  (columns are taken spread over the σ range; a column is started only while budget remains);
* LIBSVM: one SMO fit per λ at LIBSVM's default tolerance (``solve_libsvm(tol=1e-3)``, no
  retries), per column in a subprocess killed at the remaining ``--libsvm-budget`` (a column that
  does not finish is reported "not finished", with the lower bound its run time gives the ratio).

Ratios are on identical work (the same columns). The criteria columns give the largest relative
deviation of GACV, XA and BRXA (svmcore.families.svm.criteria) between path and cvxopt over the common points.

Usage: python bench/path_vs_pointwise.py [--sizes 200,500] [--quick] [--cvx-budget S]
       [--libsvm-budget S] [--seed N]
"""
from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from svmcore.kernels import gaussian_gram, kernel_radius, squared_distances  # noqa: E402
from svmcore.families.svm.solvers.path import solve_path  # noqa: E402
from svmcore.families.svm.solvers.qp import solve_cvxopt  # noqa: E402

LOG2_NLAM = np.arange(-25, 1, dtype=float)
LOG2_SIGMA = np.arange(-3.0, 3.01, 0.5)


def wahba2d(n, seed):
    """Wahba et al. 2001, §1.8 wahba2d; svmcore.datasets.simulations.make_wahba2d when available."""
    try:
        from svmcore.datasets.simulations import make_wahba2d
        ds = make_wahba2d(n, seed)
        return ds.X, ds.y
    except ImportError:
        rng = np.random.default_rng(seed)
        na = int(round(0.4 * n))
        X = np.vstack([rng.normal(0.0, 1.0, (na, 2)),
                       rng.normal([2.0, 2.0], np.sqrt([2.0, 1.0]), (n - na, 2))])
        return X, np.r_[np.ones(na), -np.ones(n - na)]


def _criteria(sol, y, upper, K_diag, radius):
    """GACV, XA (ρ = 2), BRXA of one solution (svmcore.families.svm.criteria, docs/svm.md)."""
    from svmcore.families.svm.criteria import brxa, gacv, xa
    from svmcore.families.svm.fit import make_fit
    from svmcore.weights import ClassWeights

    w = ClassWeights(float(upper[y > 0][0]), float(upper[y < 0][0]))
    fit = make_fit(sol, y, upper, w, K_diag, radius)
    return np.array([gacv(fit), xa(fit), brxa(fit)])


def _libsvm_column(conn, X, y, upper, sigma, lams):
    """LIBSVM as it is normally used: one SMO fit per λ at its default tolerance 1e-3 (no
    retries at tighter tolerances; the answers are less exact than the path's)."""
    from svmcore.families.svm.solvers.libsvm import solve_libsvm
    K = gaussian_gram(X, sigma=sigma)
    t = time.perf_counter()
    for lam in lams:
        solve_libsvm(K, y, upper, lam, tol=1e-3, min_tol=1e-3)
    conn.send(time.perf_counter() - t)
    conn.close()


def run_libsvm(X, y, upper, sigmas, lams, budget):
    """Per-column LIBSVM in a subprocess, each killed at the remaining budget. Returns the
    finished columns, their total time, and the column cut off with the seconds it had run."""
    done, t_total, left = [], 0.0, budget
    cut = None
    ctx = mp.get_context("fork")
    for sigma in sigmas:
        if left <= 0:
            break
        a, b = ctx.Pipe(duplex=False)
        p = ctx.Process(target=_libsvm_column, args=(b, X, y, upper, sigma, lams))
        t0 = time.perf_counter()
        p.start()
        ok = a.poll(left)
        if ok:
            dt = a.recv()
            p.join()
            done.append(sigma)
            t_total += dt
        else:
            p.kill()
            p.join()
            cut = (sigma, time.perf_counter() - t0)
        left -= time.perf_counter() - t0
        if not ok:
            break
    return done, t_total, cut


def _path_column(X, y, upper, sigma, lams):
    """One σ column as the sweep computes it in a worker: Gram matrix, then the path."""
    K = gaussian_gram(X, sigma=sigma)
    return solve_path(K, y, upper, lams)[0].info["fallbacks"]


def path_parallel(X, y, upper, sigmas, lams, n_jobs):
    """Wall time of the whole grid with the σ columns spread over ``n_jobs`` workers (joblib, as
    ``svmcore.grid`` does it; workers started and warmed before the clock starts)."""
    from joblib import Parallel, delayed

    with Parallel(n_jobs=n_jobs) as par:
        par(delayed(_path_column)(X[:40], y[:40], upper[:40], 1.0, lams[-2:]) for _ in range(n_jobs))
        t = time.perf_counter()
        par(delayed(_path_column)(X, y, upper, s, lams) for s in sigmas)   # small σ (slow) first
        return time.perf_counter() - t


def spread(values, k):
    """k values spread over the list (ends included)."""
    if k >= len(values):
        return list(values)
    idx = np.unique(np.round(np.linspace(0, len(values) - 1, k)).astype(int))
    return [values[i] for i in idx]


def bench_size(n, weights, args):
    X, y = wahba2d(n, args.seed)
    upper = np.ones(n) if weights == "std" else np.where(y > 0, 0.5, 1.5)
    lams = 2.0 ** LOG2_NLAM / n
    sigmas = list(2.0 ** LOG2_SIGMA)
    if args.quick:
        sigmas = spread(sigmas, 4)
    D = squared_distances(X)

    # ---- path on every column
    path_t, path_sols, fb = {}, {}, 0
    for sigma in sigmas:
        K = gaussian_gram(X, sigma=sigma, sqdist=D)
        t = time.perf_counter()
        sols = solve_path(K, y, upper, lams)
        path_t[sigma] = time.perf_counter() - t
        path_sols[sigma] = sols
        fb += sols[0].info["fallbacks"]

    par_t = path_parallel(X, y, upper, sigmas, lams, args.jobs) if args.jobs > 1 else float("nan")

    if args.path_only:
        return {"n": n, "weights": weights, "columns": len(sigmas),
                "path_all": sum(path_t.values()), "fallbacks": fb, "path_par": par_t,
                "repairs": sum(path_sols[s][0].info.get("repairs", 0)
                               + path_sols[s][0].info.get("working_set_repairs", 0) for s in sigmas),
                "slowest": max(path_t.values())}

    # ---- cvxopt on the columns that fit the budget (spread over σ)
    cvx_t, cvx_sols = {}, {}
    cvx_idx = set(spread(list(range(len(lams))), args.cvx_lams or len(lams)))
    order = spread(sigmas, len(sigmas))
    # try the full set when affordable: estimate from one column
    left = args.cvx_budget
    est = None
    for sigma in _column_order(order):
        if left <= 0 or (est is not None and est > left):
            break
        K = gaussian_gram(X, sigma=sigma, sqdist=D)
        t = time.perf_counter()
        sols = [solve_cvxopt(K, y, upper, lams[i]) if i in cvx_idx else None
                for i in range(len(lams))]
        dt = (time.perf_counter() - t) * len(lams) / len(cvx_idx)   # per full column
        cvx_t[sigma], cvx_sols[sigma] = dt, sols
        left -= dt * len(cvx_idx) / len(lams)
        est = dt if est is None else max(est, 0.5 * est + 0.5 * dt)

    # ---- deviations of the criteria between path and cvxopt
    dev = np.zeros(3)
    dev_f = 0.0
    for sigma, csols in cvx_sols.items():
        K = gaussian_gram(X, sigma=sigma, sqdist=D)
        Kd, R = np.diag(K).copy(), kernel_radius(K)
        for ps, cs in zip(path_sols[sigma], csols):
            if cs is None:
                continue
            cp = _criteria(ps, y, upper, Kd, R)
            cc = _criteria(cs, y, upper, Kd, R)
            dev = np.maximum(dev, np.abs(cp - cc) / np.maximum(np.abs(cc), 1e-12))
            dev_f = max(dev_f, float(np.max(np.abs(ps.f - cs.f)) / max(1.0, np.max(np.abs(cs.f)))))

    # ---- LIBSVM
    lib_cols, lib_t, cut = ([], 0.0, None)
    if args.libsvm_budget > 0:
        lib_cols, lib_t, cut = run_libsvm(X, y, upper, _column_order(sigmas), lams,
                                          args.libsvm_budget)

    res = {
        "n": n, "weights": weights, "columns": len(sigmas),
        "path_all": sum(path_t.values()), "fallbacks": fb, "path_par": par_t,
        "cvx_cols": len(cvx_t), "cvx": sum(cvx_t.values()),
        "path_on_cvx": sum(path_t[s] for s in cvx_t),
        "lib_cols": len(lib_cols), "lib": lib_t,
        "path_on_lib": sum(path_t[s] for s in lib_cols),
        "dev": dev, "dev_f": dev_f, "cvx_est": len(cvx_idx) < len(lams),
        "lib_finished": len(lib_cols) == len(sigmas),
        # a column LIBSVM did not finish: its run time so far over the path's time on it
        "lib_cut_bound": cut[1] / path_t[cut[0]] if cut else float("nan"),
        "lib_cut_sigma": cut[0] if cut else float("nan"),
    }
    return res


def _column_order(sigmas):
    """Middle σ first, then alternating outwards: a budget-cut subset still spans the range."""
    sig = list(sigmas)
    mid = len(sig) // 2
    out = [sig[mid]]
    for k in range(1, len(sig)):
        for j in (mid - k, mid + k):
            if 0 <= j < len(sig) and sig[j] not in out:
                out.append(sig[j])
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="200,500,1000,2000")
    ap.add_argument("--quick", action="store_true", help="4 σ columns instead of 13")
    ap.add_argument("--weights", default="std,ns")
    ap.add_argument("--cvx-budget", type=float, default=600.0, help="seconds of cvxopt per (n, weights)")
    ap.add_argument("--libsvm-budget", type=float, default=600.0,
                    help="seconds of LIBSVM per (n, weights); a column cut off is 'not finished'")
    ap.add_argument("--cvx-lams", type=int, default=0,
                    help="cvxopt on this many λ per column (spread); its column time is then "
                         "extrapolated to 26 λ and marked ~ (default: all)")
    ap.add_argument("--path-only", action="store_true", help="time the path solver only")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2,
                    help="also time the whole path grid with σ columns on this many workers "
                         "(as the sweep runs it); 1 = skip")
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s]
    # warm-up: imports (sklearn for the LIBSVM start, cvxopt) outside the timings
    Xw, yw = wahba2d(40, 0)
    Kw = gaussian_gram(Xw, sigma=1.0)
    solve_path(Kw, yw, np.ones(40), [1e-3, 1e-5])
    solve_cvxopt(Kw, yw, np.ones(40), 1e-3)
    rows = []
    if args.path_only:
        print(f"{'n':>5} {'L':>3} {'path s':>8} {'wall ∥':>7} {'slowest col':>11} {'fallbacks':>9} "
              f"{'repairs':>7}")
        for n in sizes:
            for w in args.weights.split(","):
                r = bench_size(n, w, args)
                rows.append(r)
                print(f"{n:>5} {w:>3} {r['path_all']:>8.2f} {r['path_par']:>7.2f} {r['slowest']:>11.2f} "
                      f"{r['fallbacks']:>9} {r['repairs']:>7}", flush=True)
        return rows
    hdr = (f"{'n':>5} {'L':>3} {'path(13)':>9} {'wall ∥':>7} {'fb':>3} | {'cvx cols':>8} {'cvx s':>8} {'path s':>7} "
           f"{'ratio':>7} | {'lib cols':>8} {'lib s':>8} {'path s':>7} {'ratio':>7} | "
           f"{'dGACV':>8} {'dXA':>8} {'dBRXA':>8} {'df':>8}")
    print(hdr, flush=True)
    for n in sizes:
        for w in args.weights.split(","):
            r = bench_size(n, w, args)
            rows.append(r)
            lib_cols = f"{r['lib_cols']}/{r['columns']}" + ("" if r["lib_finished"] else "*")
            ratio_c = r["cvx"] / r["path_on_cvx"] if r["cvx_cols"] else float("nan")
            ratio_l = r["lib"] / r["path_on_lib"] if r["lib_cols"] else float("nan")
            print(f"{n:>5} {w:>3} {r['path_all']:>9.2f} {r['path_par']:>7.2f} {r['fallbacks']:>3} | "
                  f"{r['cvx_cols']:>3}/{r['columns']:<4}{'~' if r['cvx_est'] else ' '}"
                  f"{r['cvx']:>8.1f} {r['path_on_cvx']:>7.2f} "
                  f"{ratio_c:>7.1f} | {lib_cols:>8} {r['lib']:>8.1f} {r['path_on_lib']:>7.2f} "
                  f"{ratio_l:>7.1f} | {r['dev'][0]:>8.1e} {r['dev'][1]:>8.1e} {r['dev'][2]:>8.1e} "
                  f"{r['dev_f']:>8.1e}", flush=True)
            if np.isfinite(r["lib_cut_bound"]):
                print(f"{'':>10}LIBSVM column σ = {r['lib_cut_sigma']:.3g} cut off: ratio there "
                      f"≥ {r['lib_cut_bound']:.0f}", flush=True)
    print("path(13): path solver on all σ columns, one after the other (s); wall ∥: the same grid "
          "with the columns on --jobs workers, as the sweep runs it; fb: cvxopt fallbacks inside the path; "
          "ratios = pointwise time / path time on the same columns; * = LIBSVM did not finish "
          "every column within its budget; ~ = cvxopt column time extrapolated from --cvx-lams λ per "
          "column; d*: largest relative deviation path vs cvxopt (df: of f, sup-norm).")
    return rows


if __name__ == "__main__":
    main()
