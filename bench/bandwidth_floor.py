"""Benchmark: the least time any exact event-by-event path needs on this machine's memory bandwidth.

Issue 21 asks for the paper grid (26 λ × 13 σ) at n = 10,000 in under 10 minutes on two cores.
Each event of the exact path (docs/svm.md §4) needs the rates dh_i = K_{iE} x_E + x_0 of every
point i outside the elbow E, to find the next event: (n − |E|) × |E| kernel entries read from
memory, whatever the code around them. (A rigorous screen that skips far points did not help:
a bound on how far each margin can move since the last full pass, from the RKHS norm of the
change of α, left 68 % of the points outside the elbow as candidates after 8 events and 86 %
after 32, where under 3 % actually moved by half their distance to the margin; n = 2000,
σ = 2^-3, ``bench/scale_history.md``.)

This script counts those entries along the path, column by column, and divides by the bandwidth
of a streaming matrix-vector product measured here: one process alone, and two processes at
once (the two workers of a sweep share the memory bus). It prints, per σ column, the events,
Σ over events of (n − |E|)·|E|, the path's own seconds, and the floor in seconds for the kernel
rows in double precision (8 bytes an entry) and in single precision (4 bytes); then the floor
for the whole run on two workers (two-process bandwidth, columns assumed perfectly balanced).
The floor leaves out every other pass (A⁻¹ for an entering point, ``exact_state``, the start,
the answers): it is a lower bound, but only where the elbow's kernel rows do not stay in the
cache between events. The table gives their largest size, |E|·n·8 bytes: at n = 10,000 about
200 MB an event, far past a 32 MB L3, so the path streams them from memory; at n = 2000 at most
16 MB, mostly cached, and the streaming floor (6.2 s for the grid) is above what
``bench/path_floor.py`` measured replaying the same passes (2.11 s): there that replay is the
floor, not this.

The elbow size of events crossed in the compiled loop (up to ``_Path.exact_every``, 8 or 32, a
call) is taken as the mean of its sizes before and after the call (|E| moves by at most that
many in between).

Usage: OPENBLAS_NUM_THREADS=1 python bench/bandwidth_floor.py [--n 2000] [--seed 0]
       [--sigma -3:3:0.5] [--jobs 2]
"""
from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from svmcore.datasets.simulations import make_wahba2d  # noqa: E402
from svmcore.families.svm.solvers import path as P  # noqa: E402
from svmcore.kernels import gaussian_gram  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from path_floor import _axis  # noqa: E402
from scale import LOG2_NLAM, central_fit_seconds  # noqa: E402

#: the streamed matrix: 3,000 kernel rows of 10,000 points (240 MB in double precision), far
#: larger than any cache
STREAM_SHAPE = (3000, 10_000)


def _stream_seconds(dtype, repeats=20, barrier=None):
    """Median seconds of x @ M for an M of ``STREAM_SHAPE`` and ``dtype``, one BLAS thread."""
    from threadpoolctl import threadpool_limits

    rng = np.random.default_rng(0)
    M = rng.random(STREAM_SHAPE).astype(dtype)
    x = rng.random(STREAM_SHAPE[0]).astype(dtype)
    if barrier is not None:
        barrier.wait()
    times = []
    with threadpool_limits(limits=1, user_api="blas"):
        for _ in range(repeats):
            t = time.perf_counter()
            x @ M
            times.append(time.perf_counter() - t)
    return float(np.median(times))


def _stream_worker(dtype, barrier, out):
    out.put(_stream_seconds(dtype, barrier=barrier))


def bandwidth(dtype, procs):
    """Bytes a second that ``procs`` processes streaming at once read in all (each its own M)."""
    nbytes = np.dtype(dtype).itemsize * STREAM_SHAPE[0] * STREAM_SHAPE[1]
    if procs == 1:
        return nbytes / _stream_seconds(dtype)
    ctx = mp.get_context("spawn")
    barrier, out = ctx.Barrier(procs), ctx.Queue()
    workers = [ctx.Process(target=_stream_worker, args=(np.dtype(dtype).str, barrier, out))
               for _ in range(procs)]
    for w in workers:
        w.start()
    seconds = [out.get() for _ in workers]
    for w in workers:
        w.join()
    return sum(nbytes / s for s in seconds)


def _counted(n):
    """Wrap the path's two ways of taking events to count (events, Σ (n − |E|)·|E|); returns the
    counter and a function that restores the path."""
    acc = {"events": 0, "entries": 0.0, "largest": 0}
    next_event, run_compiled = P._next_event, P._run_compiled

    def counting_next(path, y, upper):
        acc["events"] += 1
        acc["entries"] += path.m * (n - path.m)
        acc["largest"] = max(acc["largest"], path.m)
        return next_event(path, y, upper)

    def counting_compiled(path, s_next, budget, total_events):
        m0 = path.m
        events, code = run_compiled(path, s_next, budget, total_events)
        m = 0.5 * (m0 + path.m)
        acc["events"] += events
        acc["entries"] += events * m * (n - m)
        acc["largest"] = max(acc["largest"], m0, path.m)
        return events, code

    P._next_event, P._run_compiled = counting_next, counting_compiled

    def restore():
        P._next_event, P._run_compiled = next_event, run_compiled
    return acc, restore


def column(n, seed, log2_sigma):
    """One σ column: (log2 σ, events, Σ (n − |E|)·|E|, the path's seconds, largest KKT, MB of
    the largest elbow's kernel rows)."""
    data = make_wahba2d(n, seed)
    K = gaussian_gram(data.X, sigma=2.0 ** log2_sigma)
    acc, restore = _counted(n)
    try:
        t = time.perf_counter()
        sols = P.solve_path(K, data.y, np.ones(n), 2.0 ** LOG2_NLAM / n)
        seconds = time.perf_counter() - t
    finally:
        restore()
    return (log2_sigma, acc["events"], acc["entries"], seconds,
            max(s.kkt_residual for s in sols), 8e-6 * acc["largest"] * n)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--sigma", default="-3:3:0.5", help="log2 σ START:STOP:STEP")
    ap.add_argument("--jobs", type=int, default=1, help="σ columns on this many worker processes")
    args = ap.parse_args(argv)
    bw = {(d, p): bandwidth(d, p) for d in (np.float64, np.float32) for p in (1, 2)}
    print(f"streaming x @ M, M {STREAM_SHAPE[0]} × {STREAM_SHAPE[1]}, one BLAS thread: "
          f"float64 {bw[np.float64, 1] / 1e9:.1f} GB/s one process, "
          f"{bw[np.float64, 2] / 1e9:.1f} GB/s two at once; float32 "
          f"{bw[np.float32, 1] / 1e9:.1f} / {bw[np.float32, 2] / 1e9:.1f} GB/s\n")
    sigmas = _axis(args.sigma)
    t = time.perf_counter()
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        rows = list(pool.map(column, [args.n] * sigmas.size, [args.seed] * sigmas.size,
                             sigmas.tolist()))
    wall = time.perf_counter() - t
    print(f"{'log2σ':>6} {'events':>8} {'entries G':>10} {'path s':>9} {'floor f64 s':>12} "
          f"{'floor f32 s':>12} {'max KKT':>9} {'rows MB':>8}")
    for ls, events, entries, seconds, kkt, rows_mb in rows:
        print(f"{ls:6.1f} {events:8d} {entries / 1e9:10.2f} {seconds:9.2f} "
              f"{8 * entries / bw[np.float64, 1]:12.2f} {4 * entries / bw[np.float32, 1]:12.2f} "
              f"{kkt:9.2e} {rows_mb:8.0f}")
    total = sum(r[2] for r in rows)
    print(f"\nn = {args.n}: columns {sum(r[3] for r in rows):.1f} s in all, {wall:.1f} s wall on "
          f"{max(1, args.jobs)} worker(s); Σ entries {total / 1e9:.2f} G")
    print(f"floor on two workers (two-process bandwidth): float64 "
          f"{8 * total / bw[np.float64, 2]:.1f} s, float32 {4 * total / bw[np.float32, 2]:.1f} s")
    print(f"floor in one process: float64 {8 * total / bw[np.float64, 1]:.1f} s, float32 "
          f"{4 * total / bw[np.float32, 1]:.1f} s")
    if sigmas.size * LOG2_NLAM.size == 338 and args.n <= 5000:
        data = make_wahba2d(args.n, args.seed)
        lib = 338 * central_fit_seconds(data.X, data.y)
        print(f"338 × the central LIBSVM fit: {lib:.2f} s")


if __name__ == "__main__":
    main()
