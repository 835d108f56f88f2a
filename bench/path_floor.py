"""Benchmark: the memory passes every event of the exact path must make, alone, against LIBSVM.

Issue 21 asks for the paper grid (26 λ × 13 σ) at n = 2000 in less time than 338 easy LIBSVM fits
(``bench/scale.py``). This script asks how close an exact event-by-event path can come on this
machine, whatever the code around its passes: it records the path's events, then replays only the
passes over memory those events need, in a compiled loop, on arrays of the same sizes.

Each event of the path (docs/svm.md §4) needs

* the margins' rates dh = K_{·E} x_E + x_0 of the points not in the elbow, to find the next event:
  a pass over (n − |E|) × |E| kernel entries;
* for an entering point p, w = A⁻¹[1; K_Ep], to border the inverse: a pass over A⁻¹, (|E|+1)².

The compiled loop (``solvers/_events.py``) also reads the elbow's own kernel columns (the pass
for dh runs over all n points, so that the tracked direction is checked against A at every event
without a pass over A): a pass over n × |E| entries instead of (n − |E|) × |E|.

The events are recorded from ``solve_path`` with the numpy code (``compiled=False``; the compiled
loop crosses the same events, docs/svm.md §4), elbow size before each event and whether a point
entered. The replay then times, per σ column, on random arrays of the recorded sizes (the cost
depends only on the sizes):

* ``as built``: n × |E| rates (float64) + A⁻¹ for each entering point, as the compiled loop does;
* ``minimum``: (n − |E|) × |E| rates (float64) + A⁻¹ for each entering point; no check of the
  direction at all;
* ``minimum, K float32``: the same with the kernel rows in single precision (summed in double).

and prints them beside the path's own time for the column and 338 × the central LIBSVM fit
(``bench/scale.py``'s yardstick), measured in the same process, one BLAS thread. A second table
splits the path's own time by phase, summed over the grid: the compiled loop (``run_events``),
events taken by the numpy code, ``exact_state`` (every ``_Path.exact_every`` events), rebuilds of the
inverse, the start (LIBSVM at the largest λ, finished exactly) and the answers at the requested
λ (nested calls are counted in both).

Usage: OPENBLAS_NUM_THREADS=1 python bench/path_floor.py [--n 2000] [--seed 0]
       [--sigma -3:3:0.5] [--lam -25:0:1]
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np
from numba import njit

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from svmcore.datasets.simulations import make_wahba2d  # noqa: E402
from svmcore.families.svm.solvers import path as P  # noqa: E402
from svmcore.families.svm.solvers import _events  # noqa: E402
from svmcore.families.svm.solvers._events import _rates, _symv  # noqa: E402
from svmcore.kernels import gaussian_gram  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scale import central_fit_seconds  # noqa: E402


@njit(cache=False, nogil=True)
def _replay(KE, B, sizes, enters, n, elbow_rows, dh, x, u, w, whole_rows):
    """The passes of the recorded events, with the compiled loop's own kernels: the rates
    (``_events._rates``) over ``n`` (or n − |E| when not elbow_rows) columns of the first |E| rows
    of KE, then A⁻¹u (``_events._symv``) for an entering point. Returns a checksum so that
    nothing is optimized away."""
    check = 0.0
    packed, none = np.empty((0, 0)), whole_rows[0]      # (whole_rows: ``path._no_blocks()``)
    for e in range(sizes.size):
        m = sizes[e]
        _rates(KE, packed, x, m, n if elbow_rows else n - m, dh, none, whole_rows)
        check += dh[0]
        if enters[e]:
            _symv(B, u, m + 1, w)
            check += w[0]
    return check


PHASES = {"compiled loop": (_events, "run_events"), "numpy events": (P, "_cross_event"),
          "numpy rates": (P, "_next_event"), "exact_state": (P._Path, "exact_state"),
          "inverse rebuilt": (P._Path, "refactor"), "start": (P, "_start"),
          "answers": (P, "_answer_segment")}


def timed_phases():
    """Wrap the path's phases with timers; returns {phase: [seconds, calls]}."""
    acc = {name: [0.0, 0] for name in PHASES}
    for name, (owner, attr) in PHASES.items():
        fn = getattr(owner, attr)

        def wrapper(*a, _fn=fn, _slot=acc[name], **kw):
            t = time.perf_counter()
            try:
                return _fn(*a, **kw)
            finally:
                _slot[0] += time.perf_counter() - t
                _slot[1] += 1
        setattr(owner, attr, wrapper)
    return acc


def record_events(K, y, upper, lams):
    """(elbow size before each event, whether a point entered) along the numpy path."""
    sizes, enters = [], []
    cross = P._cross_event

    def recording(run, seg):
        m = run.path.m
        cross(run, seg)
        sizes.append(m)
        enters.append(run.path.m > m)
    P._cross_event = recording
    try:
        P.solve_path(K, y, upper, lams, compiled=False)
    finally:
        P._cross_event = cross
    return np.asarray(sizes, dtype=np.int64), np.asarray(enters, dtype=np.bool_)


def _phase_split(K, y, upper, lams, phases):
    """Add one more run of the column, its phases timed, to ``phases``."""
    saved = {name: getattr(o, a) for name, (o, a) in PHASES.items()}
    acc = timed_phases()
    try:
        P.solve_path(K, y, upper, lams)
    finally:
        for name, (o, a) in PHASES.items():
            setattr(o, a, saved[name])
    return {name: [phases[name][0] + acc[name][0], phases[name][1] + acc[name][1]]
            for name in PHASES}


def replay_seconds(sizes, enters, n, elbow_rows, dtype, seed=0):
    """Seconds of ``_replay`` on random arrays of the recorded sizes (best of two)."""
    if sizes.size == 0:
        return 0.0
    rng = np.random.default_rng(seed)
    top = int(sizes.max()) + 1
    KE = rng.random((top, n)).astype(dtype)
    B = rng.random((top + 1, top + 1))
    dh = np.empty(n)                                # (summed in double precision)
    x, u, w = rng.random(top + 1), rng.random(top + 1), np.empty(top + 1)
    best = np.inf
    for _ in range(2):
        t = time.perf_counter()
        _replay(KE, B, sizes, enters, n, elbow_rows, dh, x, u, w, P._no_blocks())
        best = min(best, time.perf_counter() - t)
    return best


def _axis(text):
    a, b, c = (float(v) for v in text.split(":"))
    return np.arange(a, b + c / 2, c)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--lam", default="-25:0:1", help="log2(nλ) START:STOP:STEP")
    ap.add_argument("--sigma", default="-3:3:0.5", help="log2 σ START:STOP:STEP")
    args = ap.parse_args(argv)
    data = make_wahba2d(args.n, args.seed)
    X, y, n = data.X, data.y, args.n
    upper = np.ones(n)
    lams = 2.0 ** _axis(args.lam) / n
    libsvm = 338 * central_fit_seconds(X, y)
    _replay(np.zeros((2, 4)), np.zeros((3, 3)), np.array([1]), np.array([True]), 4, True,
            np.zeros(4), np.zeros(3), np.zeros(3), np.zeros(3), P._no_blocks())   # compile first
    _replay(np.zeros((2, 4), np.float32), np.zeros((3, 3)), np.array([1]), np.array([True]), 4,
            True, np.zeros(4), np.zeros(3), np.zeros(3), np.zeros(3), P._no_blocks())
    print(f"wahba2d n={n} seed={args.seed}, {lams.size} λ × {_axis(args.sigma).size} σ, "
          f"338 × central LIBSVM fit: {libsvm:.2f} s\n")
    head = ("log2σ", "events", "mean|E|", "path s", "as built", "minimum", "min f32")
    print("{:>6} {:>7} {:>8} {:>8} {:>9} {:>9} {:>9}".format(*head))
    totals = np.zeros(4)
    phases = {name: [0.0, 0] for name in PHASES}
    for ls in _axis(args.sigma):
        K = gaussian_gram(X, sigma=2.0 ** ls)
        t = time.perf_counter()
        P.solve_path(K, y, upper, lams)
        path_s = time.perf_counter() - t
        sizes, enters = record_events(K, y, upper, lams)
        phases = _phase_split(K, y, upper, lams, phases)
        del K
        row = np.array([path_s,
                        replay_seconds(sizes, enters, n, True, np.float64),
                        replay_seconds(sizes, enters, n, False, np.float64),
                        replay_seconds(sizes, enters, n, False, np.float32)])
        totals += row
        print(f"{ls:6.1f} {sizes.size:7d} {sizes.mean() if sizes.size else 0:8.0f} "
              + " ".join(f"{v:9.3f}" for v in row), flush=True)
    print(f"{'total':>6} {'':7} {'':8} " + " ".join(f"{v:9.3f}" for v in totals))
    print(f"\nthe path's time by phase, whole grid (a second run with timers; {totals[0]:.2f} s "
          "without):")
    for name, (sec, calls) in phases.items():
        print(f"  {name:<16} {sec:8.3f} s {calls:8d} calls")
    print(f"\nratio to 338 × LIBSVM ({libsvm:.2f} s): path {totals[0] / libsvm:.2f}, passes as "
          f"built {totals[1] / libsvm:.2f}, minimum {totals[2] / libsvm:.2f}, minimum with K in "
          f"float32 {totals[3] / libsvm:.2f}")


if __name__ == "__main__":
    main()
