"""Benchmark: the exact path on the paper grid against LIBSVM, as n grows (issue 21).

wahba2d (Wahba et al. 2001, §1.8), the paper grid (26 λ: log2(nλ) = −25 … 0; 13 σ: log2 σ =
−3 … 3 step ½), one process, one σ column after another (one n×n Gram matrix held at a time).
For each n it prints, measured in the same process:

* path: seconds for the whole grid (Gram matrices included; ``solve_path`` per column);
* 338 × LIBSVM: 338 times the median time of one central fit, sklearn ``SVC(C=0.5, gamma=0.5)``
  on the same data (the cost of the grid if every point were that easy a LIBSVM fit): five fits
  before the grid and, for the one-process grid, one before each σ column, so that the
  yardstick is timed across the same minutes as the path (a shared host's speed drifts by a
  third from one minute to the next; five fits in one moment put 338 fits at 12.1–17.6 s in
  four runs here);
* their ratio (path / 338 × LIBSVM), the events, the largest KKT residual, and the process's
  peak resident memory (``ru_maxrss``) with the size of one Gram matrix;
* the app's estimate of the grid (``svmcore.timing.sweep_estimate``: the build machine's rates,
  ``svmcore/data/rates.json``, scaled to this machine; on K workers ceil(13 / K) columns' worth,
  as ``timing.on_workers`` prices it) and measured ÷ estimated (goal: within [0.5, 2]).

The solver is called below the spec (no MAX_ROWS). Run with OPENBLAS_NUM_THREADS=1 for the
one-core figure. ``--jobs 2`` also times the σ columns on two worker processes (loky, as the
sweep runner does): each worker builds its own column's Gram matrix from X, so at most one n×n
matrix per worker is alive, and each reports its own peak resident memory. That first grid pays
the workers' start (spawn, and imports: scikit-learn's alone is about 1 s a worker). ``--running K``
then times K more grids on the same workers, still running, as the app's later sweeps find them
(loky's reusable executor keeps them ``grid.WORKER_IDLE_SECONDS``).

``--threads K`` also times the σ columns on K threads of this process, as ``grid.run_grid`` runs
the path's columns from ``COMPILED_FROM_N`` points (``SVMFamily.columns_in_threads``: the compiled
loop and BLAS release the GIL), BLAS on one thread: nothing to start, one Gram matrix per thread,
the whole process's peak memory. LIBSVM's fits are timed before and after it.

``--ab`` times the one-process grid twice more for each n, alternated in the same process: with
the path's compiled event loop off (numpy code only) and on for every column (``COMPILED_FROM_N``
set to 10⁹ and to 0), and prints their ratio (the loop loaded first, as below).

``--locality-ab`` times the one-process grid without and with the points' order
(``solve_path``'s ``point_order``, ``locality.locality_order``; the app passes it from 1,000
points), alternated twice, and prints their ratio.

The one-process grid is timed with the path's compiled loop loaded first (``compile_event_loop``:
numba's cache read, about 1 s; on a new installation it compiles, about 50 s), as scikit-learn is
imported and warmed before the LIBSVM fits are timed; that once-per-process cost is printed
apart.

Usage: python bench/scale.py [--sizes 500,2000,5000] [--big] [--seed 0] [--verbose] [--jobs 2]
       [--running 2] [--workers-only] [--threads 2] [--ab] [--locality-ab]
       (--big adds n = 10,000; --workers-only skips the one-process grid)
"""
from __future__ import annotations

import argparse
import math
import os
import resource
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from svmcore.datasets.simulations import make_wahba2d  # noqa: E402
from svmcore.families.svm.solvers import path as path_module  # noqa: E402
from svmcore.families.svm.solvers.locality import locality_order  # noqa: E402
from svmcore.families.svm.solvers.path import solve_path  # noqa: E402
from svmcore.kernels import gaussian_gram  # noqa: E402
from svmcore.spec import DataSpec, make_spec  # noqa: E402
from svmcore.timing import sweep_estimate  # noqa: E402

LOG2_NLAM = np.arange(-25, 1, dtype=float)
LOG2_SIGMA = np.arange(-3.0, 3.01, 0.5)


def central_fits(X, y, repeats=5):
    """Seconds of ``repeats`` sklearn SVC(C=0.5, gamma=0.5) fits (RBF, σ = 1), one by one."""
    from sklearn.svm import SVC
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        SVC(C=0.5, gamma=0.5).fit(X, y)
        times.append(time.perf_counter() - t)
    return times


def central_fit_seconds(X, y, repeats=5):
    """Median seconds of one sklearn SVC(C=0.5, gamma=0.5) fit (RBF, σ = 1)."""
    return float(np.median(central_fits(X, y, repeats)))


def _column(X, y, log2_sigma, locality=True):
    """One σ column (its Gram matrix made here, freed on return), the points in
    ``locality_order`` as the app passes them (``locality``=False: without): (events, largest KKT
    residual, this process's peak RSS in MiB, the column's seconds)."""
    t = time.perf_counter()
    n = len(y)
    K = gaussian_gram(X, sigma=2.0 ** log2_sigma)
    order = locality_order(X) if locality else None
    sols = solve_path(K, y, np.ones(n), 2.0 ** LOG2_NLAM / n, point_order=order)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return sols[0].info["events"], max(s.kkt_residual for s in sols), rss, time.perf_counter() - t


def path_grid(X, y, verbose=False, locality=True, fits=None):
    """Seconds for the paper grid with the path in this process, total events, largest KKT
    residual. With a list ``fits``, one central LIBSVM fit is timed before each column (not
    counted in the grid's seconds) and its seconds appended: the yardstick measured across the
    grid's own minutes (``main``)."""
    seconds, events, worst = 0.0, 0, 0.0
    for ls in LOG2_SIGMA:
        if fits is not None:
            fits.extend(central_fits(X, y, 1))
        t = time.perf_counter()
        ev, res, _, _ = _column(X, y, ls, locality)
        seconds += time.perf_counter() - t
        events += ev
        worst = max(worst, res)
        if verbose:
            print(f"  log2 σ = {ls:4.1f}: {seconds:8.2f} s so far, {ev} events", flush=True)
    return seconds, events, worst


def parallel_grid(X, y, jobs, verbose=False):
    """Seconds for the paper grid with the σ columns on ``jobs`` worker processes (smallest σ, the
    heaviest, first), the events, the largest KKT residual, the largest worker's peak RSS (MiB)
    and the sum of the columns' own seconds (a fresh worker's first column includes its start)."""
    from joblib import Parallel, delayed

    t = time.perf_counter()
    out = []
    for ls, o in zip(LOG2_SIGMA, Parallel(n_jobs=jobs, return_as="generator")(
            delayed(_column)(X, y, ls) for ls in LOG2_SIGMA)):
        out.append(o)
        if verbose:
            print(f"  log2 σ = {ls:4.1f}: {o[3]:8.2f} s in its worker, {o[0]} events, KKT {o[1]:.2e}, "
                  f"{time.perf_counter() - t:8.2f} s so far, worker peak {o[2]:.0f} MiB", flush=True)
    sec = time.perf_counter() - t
    return (sec, sum(o[0] for o in out), max(o[1] for o in out), max(o[2] for o in out),
            sum(o[3] for o in out))


def threaded_grid(X, y, threads, verbose=False):
    """Seconds for the paper grid with the σ columns on ``threads`` threads of this process
    (smallest σ first, as ``grid._on_threads`` submits them), the events, the largest KKT
    residual, the process's peak RSS (MiB) and the sum of the columns' own seconds."""
    from concurrent.futures import ThreadPoolExecutor

    from threadpoolctl import threadpool_limits

    t = time.perf_counter()
    with threadpool_limits(limits=1, user_api="blas"), ThreadPoolExecutor(threads) as pool:
        out = list(pool.map(lambda ls: _column(X, y, ls), LOG2_SIGMA))
    sec = time.perf_counter() - t
    if verbose:
        for ls, o in zip(LOG2_SIGMA, out):
            print(f"  log2 σ = {ls:4.1f}: {o[3]:8.2f} s on its thread, {o[0]} events", flush=True)
    return (sec, sum(o[0] for o in out), max(o[1] for o in out), max(o[2] for o in out),
            sum(o[3] for o in out))


def compiled_ab(X, y, verbose=False):
    """The one-process grid with the compiled loop off, then on (``COMPILED_FROM_N`` 10⁹, 0):
    ((seconds, events, largest KKT residual) off, the same on)."""
    keep = path_module.COMPILED_FROM_N
    try:
        path_module.compile_event_loop()          # load (or compile) the loop before timing
        out = []
        for threshold in (10 ** 9, 0):
            path_module.COMPILED_FROM_N = threshold
            out.append(path_grid(X, y, verbose))
        return out
    finally:
        path_module.COMPILED_FROM_N = keep


def locality_ab(X, y, verbose=False, pairs=2):
    """The one-process grid without the points' order and with it (``solve_path``'s
    ``point_order``: the passes over the elbow's kernel rows read only their entries above
    rounding), alternated ``pairs`` times: [(seconds, events, largest KKT residual) without, the
    same with] for each pair."""
    path_module.compile_event_loop()
    return [(path_grid(X, y, verbose, False), path_grid(X, y, verbose, True))
            for _ in range(pairs)]


def app_estimate(n, seed, workers=1):
    """The app's estimate of the paper grid's seconds at n (``sweep_estimate``, in-sample criteria,
    no growth) on ``workers`` processes: each runs ceil(13 / workers) columns (``on_workers``)."""
    spec = make_spec("svm", data=DataSpec("simulation", "wahba2d", n=n, seed=seed),
                     log2_nlambda="-25:0:1", log2_sigma="-3:3:0.5")
    est = sweep_estimate(spec, n)
    cols = LOG2_SIGMA.size
    return None if est is None else est.total * math.ceil(cols / workers) / cols


def _row(n, seconds, libsvm_seconds, events, worst, rss, estimate=None, note=""):
    """One line of the table: the grid's seconds against 338 × LIBSVM's, what it found, and
    against the app's estimate."""
    est = "-" if estimate is None else f"{estimate:.1f} ({seconds / estimate:.2f})"
    print(f"{n:6d} {seconds:9.2f} {libsvm_seconds:14.2f} {seconds / libsvm_seconds:7.2f} {events:8d} "
          f"{worst:9.2e} {rss:13.0f} {8 * n * n / 2**20:9.0f} {est:>18}" + (f"   {note}" if note else ""),
          flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="500,2000,5000")
    ap.add_argument("--big", action="store_true", help="also n = 10,000")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--verbose", action="store_true", help="print each σ column's progress")
    ap.add_argument("--jobs", type=int, default=1, help="also time the columns on this many workers")
    ap.add_argument("--threads", type=int, default=0, metavar="K",
                    help="also time the columns on K threads of this process")
    ap.add_argument("--ab", action="store_true",
                    help="also the one-process grid with the compiled loop off and on")
    ap.add_argument("--locality-ab", action="store_true",
                    help="also the one-process grid without and with the points' order, twice")
    ap.add_argument("--running", type=int, default=0, metavar="K",
                    help="with --jobs: then K more grids on the same, running workers (the app's "
                         "later sweeps: no process start, imports done)")
    ap.add_argument("--workers-only", action="store_true",
                    help="with --jobs or --threads: time only the columns on workers or threads "
                         "(not the one-process grid)")
    args = ap.parse_args(argv)
    sizes = [int(v) for v in args.sizes.split(",") if v] + ([10_000] if args.big else [])
    cells = LOG2_NLAM.size * LOG2_SIGMA.size
    print(f"{'n':>6} {'path s':>9} {f'{cells}×LIBSVM s':>14} {'ratio':>7} {'events':>8} "
          f"{'max KKT':>9} {'peak RSS MiB':>13} {'Gram MiB':>9} {'app est. s (ratio)':>18}")
    loaded = False
    for n in sizes:
        data = make_wahba2d(n, args.seed)
        fits = central_fits(data.X, data.y)
        lib = float(np.median(fits))
        if not (args.workers_only and (args.jobs > 1 or args.threads > 1)):
            if not loaded:
                t = time.perf_counter()
                path_module.compile_event_loop()
                loaded = True
                print(f"(the path's compiled loop loaded, or compiled, before the first grid: "
                      f"{time.perf_counter() - t:.2f} s, once per process)", flush=True)
            t, events, worst = path_grid(data.X, data.y, args.verbose, fits=fits)
            lib = float(np.median(fits))
            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            _row(n, t, cells * lib, events, worst, rss, app_estimate(n, args.seed))
        if args.threads > 1:
            tp, ev, w, rss, cols = threaded_grid(data.X, data.y, args.threads, args.verbose)
            fits += list(central_fits(data.X, data.y))
            lib = float(np.median(fits))
            _row(n, tp, cells * lib, ev, w, rss, app_estimate(n, args.seed, args.threads),
                 f"({args.threads} threads of this process, wall; LIBSVM timed before and after; "
                 f"the columns' own seconds add up to {cols:.1f} s)")
        if args.ab:
            (t0, ev0, w0), (t1, ev1, w1) = compiled_ab(data.X, data.y, args.verbose)
            print(f"{n:6d} numpy only {t0:.2f} s ({ev0} events, max KKT {w0:.1e}); compiled loop "
                  f"{t1:.2f} s ({ev1} events, max KKT {w1:.1e}); ratio {t0 / t1:.2f}", flush=True)
        if args.locality_ab:
            for (t0, ev0, w0), (t1, ev1, w1) in locality_ab(data.X, data.y, args.verbose):
                print(f"{n:6d} without the order {t0:.2f} s ({ev0} events, max KKT {w0:.1e}); with "
                      f"it {t1:.2f} s ({ev1} events, max KKT {w1:.1e}); ratio {t1 / t0:.3f}", flush=True)
        if args.jobs > 1:
            tp, ev, w, wrss, cols = parallel_grid(data.X, data.y, args.jobs, args.verbose)
            est = app_estimate(n, args.seed, args.jobs)
            _row(n, tp, cells * lib, ev, w, wrss, est, f"({args.jobs} workers, wall; peak RSS of the "
                 f"largest worker; the columns' own seconds add up to {cols:.1f} s)")
            for _ in range(args.running):
                tp, ev, w, wrss, cols = parallel_grid(data.X, data.y, args.jobs, args.verbose)
                _row(n, tp, cells * lib, ev, w, wrss, est,
                     f"(the same {args.jobs} workers, running; columns {cols:.1f} s)")


if __name__ == "__main__":
    main()
