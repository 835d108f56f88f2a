"""Profile of the exact λ-path (svmcore.families.svm.solvers.path): where the time goes.

wahba2d (Wahba et al. 2001, §1.8), one σ column after another, ``solve_path`` on every λ of the
grid (default: the paper grid, 26 λ × 13 σ). The path's own functions are wrapped (in this
script only) to count and time:

* phases: the start (LIBSVM/cvxopt at the largest λ), ``_next_event`` (rates and step lengths),
  ``_answer_segment`` (answers at the requested λ, KKT checks), ``_cross_event`` (set updates);
* events by type (elbow point leaves to L / to R, point enters, empty-elbow pair, zero-length
  step) and by elbow size |E| (powers of two);
* repair steps of ``REPAIR_LADDER`` and ``_recover`` (calls, successes, seconds);
* per σ column: seconds, events, largest elbow, largest KKT residual;
* where the columns spend their λ (``--octaves``, summed over the σ columns asked for): per octave
  of log2(nλ) between requested λ, the seconds of the compiled loop (and its events), of the
  numpy code's events, of the owner's bookkeeping after them (inverses rebuilt, the state
  recomputed), of the answers; and the start's and the tail's working sets apart. The events by
  type and by elbow size above are the numpy code's only: from ``COMPILED_FROM_N`` points most
  events are crossed in the compiled loop, which this table counts;
* the arithmetic every event must do: the slopes dh = K_{·E} dβ_E + dα_0 of all n points, one
  pass over the elbow's |E| × n kernel rows. The elbow size of each direction is recorded and the
  same products (``x @ KE[:m]``, one BLAS thread) are timed afterwards on a sample of those sizes:
  their sum is the floor for any implementation of this algorithm, against which the path's
  per-event overhead (Python, small numpy calls, the |E|² elbow algebra) is read;

and the functions with the most own time under cProfile.

The points are passed in the kernel's locality order, as the app and ``bench/scale.py`` pass them
(``locality.locality_order``; used from ``locality.MIN_POINTS`` points); ``--no-order`` leaves them
as drawn (the passes then read whole kernel rows: n = 5000, σ = 2^-3 took about 1.5 times as long).

Usage: python bench/profile_path.py [--n 500] [--cost-b 1] [--lam -25:0:1] [--sigma -3:3:0.5]
       [--top 15] [--no-cprofile] [--no-order] [--octaves] [--compare-direction-rtol 1e-12]
"""
from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import time
from collections import defaultdict

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from svmcore.datasets.simulations import make_wahba2d  # noqa: E402
from svmcore.families.svm.solvers import path as P  # noqa: E402
from svmcore.families.svm.solvers.locality import locality_order  # noqa: E402
from svmcore.kernels import gaussian_gram  # noqa: E402
from svmcore.weights import class_weights_from_costs  # noqa: E402

SECONDS = defaultdict(float)
CALLS = defaultdict(int)
EVENTS = defaultdict(int)
EV_SECONDS = defaultdict(float)
BY_SIZE = defaultdict(lambda: [0, 0.0, 0.0])    # events, s in _cross_event, s in _next_event
DIRECTION_SIZES = []                            # |E| at each direction (one per non-empty segment)
REPAIRS = defaultdict(lambda: [0, 0, 0.0])      # calls, successes, seconds
OCTAVES = defaultdict(lambda: defaultdict(float))   # octave of log2(nλ) → part → seconds, counts
OCTAVE_PARTS = ("loop", "numpy events", "bookkeeping", "answers")


def _timed(name, fn):
    def wrapper(*a, **kw):
        t = time.perf_counter()
        try:
            return fn(*a, **kw)
        finally:
            SECONDS[name] += time.perf_counter() - t
            CALLS[name] += 1
    return wrapper


def _event_kinds(run, seg):
    if seg.empty:
        return ["empty-elbow pair enters"]
    kinds = []
    tol_t = seg.t + 1e-12 * seg.s
    leave = seg.te <= tol_t
    kinds += ["elbow → L"] * int(np.sum(leave & (seg.v > 0)))
    kinds += ["elbow → R"] * int(np.sum(leave & (seg.v <= 0)))
    kinds += ["enters elbow"] * int(np.sum(seg.tm <= tol_t))
    if seg.t <= 1e-14 * seg.s:
        kinds.append("(zero-length step)")
    return kinds


def _bucket(m: int) -> int:
    return 0 if m == 0 else 1 << int(np.log2(m))


def _instrument():
    """Wrap the path's phases, event crossing and repair steps with counters."""
    cross = P._cross_event

    def cross_event(run, seg):
        m = run.path.m
        t = time.perf_counter()
        cross(run, seg)
        dt = time.perf_counter() - t
        kinds = _event_kinds(run, seg)
        for k in kinds:
            EVENTS[k] += 1
            EV_SECONDS[k] += dt / len(kinds)
        b = BY_SIZE[_bucket(m)]
        b[0] += 1
        b[1] += dt
    P._cross_event = cross_event
    next_event = P._next_event

    def timed_next_event(path, y, upper):
        t = time.perf_counter()
        try:
            return next_event(path, y, upper)
        finally:
            BY_SIZE[_bucket(path.m)][2] += time.perf_counter() - t
    P._next_event = timed_next_event
    direction = P._Path.direction

    def timed_direction(path):
        DIRECTION_SIZES.append(path.m)
        return direction(path)
    P._Path.direction = timed_direction
    for name in ("_start", "_next_event", "_answer_segment"):
        setattr(P, name, _timed(name, getattr(P, name)))

    def repair(step):
        def wrapper(run, sol):
            t = time.perf_counter()
            out = step(run, sol)
            r = REPAIRS[step.__name__]
            r[0] += 1
            r[1] += out is not None
            r[2] += time.perf_counter() - t
            return out
        return wrapper
    P.REPAIR_LADDER = tuple(repair(s) for s in P.REPAIR_LADDER)
    rec = P._recover

    def recover(run, reason):
        t = time.perf_counter()
        rec(run, reason)
        r = REPAIRS["_recover (path failed)"]
        r[0] += 1
        r[1] += 1
        r[2] += time.perf_counter() - t
    P._recover = recover


def _octave(s: float) -> int:
    """The octave of log2(nλ) = log2(s/2) that a segment starting at s lies in: octave o holds
    the λ from log2(nλ) = o + 1 (exclusive) down to o, its requested λ answered at o."""
    return int(np.ceil(np.log2(s / 2.0) - 1e-9)) - 1 if s > 0 else -10 ** 6


def _per_octave(name: str, part: str, path_of) -> None:
    """Wrap ``P.<name>`` to add its seconds (and calls, and the compiled loop's events) to
    ``OCTAVES`` under the octave of the path's s when it was called."""
    fn = getattr(P, name)

    def wrapper(*a, **kw):
        path = path_of(a)
        row = OCTAVES[_octave(path.s)] if path is not None else OCTAVES[part]
        row["|E|"] = max(row["|E|"], path.m if path is not None else 0)
        t = time.perf_counter()
        out = fn(*a, **kw)
        row[part] += time.perf_counter() - t
        row[part + " calls"] += 1
        if part == "loop":
            row["loop events"] += out[0]
        return out
    setattr(P, name, wrapper)


def _instrument_octaves() -> None:
    """Time the phases per octave of λ (``--octaves``)."""
    _per_octave("_run_compiled", "loop", lambda a: a[0])
    _per_octave("_cross_event", "numpy events", lambda a: a[0].path)
    _per_octave("_after_event", "bookkeeping", lambda a: a[0].path)
    _per_octave("_answer_segment", "answers", lambda a: a[0].path)
    _per_octave("_start_path", "start", lambda a: None)
    _per_octave("_answer_tail", "tail", lambda a: None)


def print_octaves() -> None:
    """The per-octave table of ``--octaves``: seconds (calls) of each part, the loop's events."""
    print("\nwhere the columns spend their λ (s, calls; octave o: log2(nλ) from o + 1 to o):")
    print(f"  {'octave':>6} " + " ".join(f"{k:>18}" for k in OCTAVE_PARTS)
          + f" {'loop events':>11} {'max |E|':>7}")
    for o in sorted((k for k in OCTAVES if isinstance(k, int)), reverse=True):
        r = OCTAVES[o]
        print(f"  {o:6d} " + " ".join(f"{r[k]:10.2f} ({int(r[k + ' calls']):5d})" for k in OCTAVE_PARTS)
              + f" {int(r['loop events']):11d} {int(r['|E|']):7d}")
    for part in ("start", "tail"):
        r = OCTAVES.get(part)
        if r:
            print(f"  {part}: {r[part]:.2f} s in {int(r[part + ' calls'])} call(s)")


def pass_floor(sizes, n: int, sample: int = 400, seed: int = 0) -> tuple[float, float]:
    """Seconds the passes dh = x @ K_E (|E| × n, float64) of every recorded direction take
    alone, estimated from ``sample`` of them timed with one BLAS thread on a random matrix (the
    cost depends only on the sizes), and the bytes they read per second."""
    from threadpoolctl import threadpool_limits

    sizes = np.asarray(sizes, dtype=np.intp)
    if sizes.size == 0:
        return 0.0, 0.0
    rng = np.random.default_rng(seed)
    KE = rng.standard_normal((int(sizes.max()) + 1, n))
    picked = rng.choice(sizes, size=min(sample, sizes.size), replace=False)
    per = []
    with threadpool_limits(limits=1, user_api="blas"):
        for m in picked:
            x = rng.standard_normal(m)
            t = time.perf_counter()
            for _ in range(5):
                _ = x @ KE[:m] + 1.0
            per.append((time.perf_counter() - t) / 5)
    seconds = float(np.mean(per)) * sizes.size
    return seconds, float(sizes.sum()) * n * 8 / max(seconds, 1e-12)


def _axis(text):
    a, b, c = (float(v) for v in text.split(":"))
    return np.arange(a, b + c / 2, c)


def compare_direction_rtol(data, upper, lams, sigmas, other: float) -> None:
    """A/B in this process: each σ column with ``_Path.DIRECTION_RTOL = other`` and with the
    module's value (CPU seconds, events, largest KKT residual, largest |Δf| between the two)."""
    y, ours = data.y, P._Path.DIRECTION_RTOL
    print(f"direction tolerance {other:g} (A) against {ours:g} (B), CPU seconds\n")
    print(f"{'log2σ':>6} {'A s':>8} {'B s':>8} {'A/B':>6} {'A ev':>7} {'B ev':>7} "
          f"{'A KKT':>9} {'B KKT':>9} {'max|Δf|':>9}")
    tot = [0.0, 0.0]
    for ls in sigmas:
        K = gaussian_gram(data.X, sigma=2.0 ** ls)
        runs = []
        for rtol in (other, ours):
            P._Path.DIRECTION_RTOL = rtol
            t = time.process_time()
            runs.append((P.solve_path(K, y, upper, lams), time.process_time() - t))
        P._Path.DIRECTION_RTOL = ours
        (a, ta), (b, tb) = runs
        tot[0] += ta
        tot[1] += tb
        df = max(float(np.max(np.abs(u.f - v.f))) for u, v in zip(a, b))
        print(f"{ls:6.1f} {ta:8.2f} {tb:8.2f} {ta / tb:6.2f} {a[0].info['events']:7d} "
              f"{b[0].info['events']:7d} {max(u.kkt_residual for u in a):9.2e} "
              f"{max(v.kkt_residual for v in b):9.2e} {df:9.1e}", flush=True)
    print(f"\ntotal {tot[0]:.1f} s (A) vs {tot[1]:.1f} s (B): {tot[0] / tot[1]:.2f}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=500)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cost-b", type=float, default=1.0)
    ap.add_argument("--lam", default="-25:0:1", help="log2(nλ) START:STOP:STEP")
    ap.add_argument("--sigma", default="-3:3:0.5", help="log2 σ START:STOP:STEP")
    ap.add_argument("--top", type=int, default=15)
    ap.add_argument("--no-cprofile", action="store_true",
                    help="time without cProfile (its overhead inflates the many small calls)")
    ap.add_argument("--no-order", action="store_true",
                    help="the points as drawn, not in the kernel's locality order the app passes")
    ap.add_argument("--octaves", action="store_true",
                    help="also where the columns spend their λ: seconds per octave of log2(nλ)")
    ap.add_argument("--compare-direction-rtol", type=float, default=None, metavar="RTOL",
                    help="instead of the profile: A/B of _Path.DIRECTION_RTOL = RTOL against the module's")
    args = ap.parse_args(argv)
    data = make_wahba2d(args.n, args.seed)
    y, n = data.y, args.n
    upper = class_weights_from_costs(y, 1.0, args.cost_b).upper_bounds(y)
    lams = 2.0 ** _axis(args.lam) / n
    from sklearn.svm import SVC  # noqa: F401  (import outside the timings)
    if args.compare_direction_rtol is not None:
        return compare_direction_rtol(data, upper, lams, _axis(args.sigma), args.compare_direction_rtol)
    _instrument()
    if args.octaves:
        _instrument_octaves()
    order = None if args.no_order else locality_order(data.X)
    prof = cProfile.Profile()
    print(f"wahba2d n={n} seed={args.seed} C_B={args.cost_b}: {lams.size} λ × "
          f"{_axis(args.sigma).size} σ\n")
    print(f"{'log2σ':>6} {'s':>7} {'events':>7} {'max|E|':>7} {'max KKT':>9}")
    total = 0.0
    for ls in _axis(args.sigma):
        K = gaussian_gram(data.X, sigma=2.0 ** ls)
        t = time.perf_counter()
        if not args.no_cprofile:
            prof.enable()
        sols = P.solve_path(K, y, upper, lams, point_order=order)
        prof.disable()
        dt = time.perf_counter() - t
        total += dt
        max_e = int(max(np.sum((s.alpha > 0) & (s.alpha < upper)) for s in sols))
        print(f"{ls:6.1f} {dt:7.3f} {sols[0].info['events']:7d} {max_e:7d} "
              f"{max(s.kkt_residual for s in sols):9.2e}", flush=True)
    print(f"\ntotal {total:.3f} s\n\nphases (s, calls):")
    for k, v in sorted(SECONDS.items(), key=lambda kv: -kv[1]):
        print(f"  {k:<18} {v:8.3f} {CALLS[k]:8d}")
    print(f"  {'_cross_event':<18} {sum(b[1] for b in BY_SIZE.values()):8.3f} "
          f"{sum(b[0] for b in BY_SIZE.values()):8d}")
    print("\nevents by type (count, s in _cross_event):")
    for k, v in sorted(EVENTS.items(), key=lambda kv: -kv[1]):
        print(f"  {k:<24} {v:8d} {EV_SECONDS[k]:8.3f}")
    print("\nevents by elbow size |E| (count, s in _cross_event, s in _next_event, ms per event):")
    for k in sorted(BY_SIZE):
        c, sc, sn = BY_SIZE[k]
        print(f"  |E| in [{k}, {max(2 * k - 1, 0)}]".ljust(22)
              + f"{c:8d} {sc:8.3f} {sn:8.3f} {1e3 * (sc + sn) / max(c, 1):8.3f}")
    if args.octaves:
        print_octaves()
    floor, rate = pass_floor(DIRECTION_SIZES, n)
    print(f"\nthe passes over K_E alone (the numpy code's {len(DIRECTION_SIZES)} directions, mean |E| "
          f"{np.mean(DIRECTION_SIZES) if DIRECTION_SIZES else 0:.0f}, {rate / 1e9:.0f} GB/s): {floor:.2f} s, "
          f"{100 * floor / max(total, 1e-12):.0f} % of the path's {total:.2f} s"
          + ("" if args.no_cprofile else " (under cProfile)"))
    print("\nrepairs (calls, successes, s):")
    for k, (c, ok, s) in REPAIRS.items():
        print(f"  {k:<24} {c:6d} {ok:6d} {s:8.3f}")
    if not REPAIRS:
        print("  none")
    if not args.no_cprofile:
        print(f"\ncProfile, top {args.top} by own time:")
        pstats.Stats(prof).sort_stats("tottime").print_stats(args.top)


if __name__ == "__main__":
    main()
