"""How long a sweep will take, from measured rates.

A :class:`RateBook` holds measured seconds, keyed by the solver and the workload (the in-sample
criteria alone, or with k-fold CV, or with exact leave-one-out), each at the n it was measured at,
in the unit the solver's cost follows (issue 21, ``bench/estimate_accuracy.py``):

* the path solver (``per="column"``): seconds per σ column. One path per column answers every λ
  of it, so its cost hardly depends on how many λ the column has (n = 300: 0.04–0.08 s per column
  for 5, 15 or 26 λ, while seconds per point varied fivefold);
* the soft family (``SOFT``, ``per="point"``): seconds per grid point, measured over a whole grid
  (one Newton fit per λ, warm-started along it; a full-rank σ column costs O(n³) per iteration);
* pointwise solvers (``per="point"`` with ``log2_nlambda``): seconds per grid point at each
  measured log2(nλ). LIBSVM's and cvxopt's work grows steeply as λ falls (C = 1/(2nλ) rises), so
  a grid's estimate sums the rate at each of its λ, interpolated on log seconds between the
  measured λ (the nearest measured one beyond them).

An estimate for another n scales the nearest measurement by (n / n₀)^p, with p taken from two
measurements of the same key that bracket n when there are such, else ``DEFAULT_POWER``.
:func:`sweep_estimate` prices, when the grid may grow (``extend_grid``), one growth step toward small
λ (where picks usually sit; the C_B = 4.5 default view grows there once) as ``step``. Whether a
grid grows is known only once its picks are: the point estimate ``total`` is the midpoint between
no growth and one step (base + step/2), and the app shows both ends.

The app starts from ``svmcore/data/rates.json`` (written on the build machine by
``bench/measure_rates.py``) and adds every finished sweep, so estimates follow the machine it runs on.
Before its first sweep, the build machine's rates are scaled to this machine's speed: the file also
holds the seconds of a small reference problem per solver (``REFERENCE``) on the build machine, which
each process times once here (``machine_speed``). The factor is per solver, because they spend their
time differently (LIBSVM in C, the path in numpy and Python, cvxopt in BLAS and Python): on an AMD
EPYC the build machine's rates overestimated by 1.1–2.4× before this scaling. No Streamlit here.
"""
from __future__ import annotations

import json
import math
import threading
from dataclasses import dataclass, field
from importlib import resources
from typing import Iterable, Sequence

import numpy as np

#: growth of seconds per point with n when only one measurement is at hand (the path solver's
#: elbow systems and the QP grow a little faster than n²; bench/path_vs_pointwise.py)
DEFAULT_POWER = 2.3
#: the unit in which each solver's cost is recorded (module docstring); others: ``"point"``
COLUMN_SOLVERS = ("path",)
#: the reference problem of each solver for the machine's speed (``reference_seconds``): wahba2d
#: with n rows, the Gaussian kernel at these log2 σ, these log2(nλ) (the path: one path over them,
#: the app's default λ; the others: one fit each). A few tens of ms each on the build machine.
REFERENCE = {"path": (300, (-1.0,), tuple(range(-20, 9, 2))),
             "libsvm": (400, (0.0,), (-12.0, -8.0, -4.0, 0.0)),
             "cvxopt": (300, (0.0,), (-4.0, 0.0, 4.0)),
             "newton": (300, (-2.0,), tuple(range(-20, 9, 4)))}
#: the soft family's (penalized likelihood) key in the rate book: its Newton solves are priced per
#: grid point (one warm-started fit per λ, O(n³) per iteration where K has full rank), measured on
#: the family's default criteria (exact GACV among them), without exact GACV (``soft_workload``)
#: and with CV deviance (``"cv5"``)
SOFT = "newton"


def workload(criteria: Sequence[str], cv_folds: int = 5) -> str:
    """The key of what a grid point costs: ``insample``, ``cv5`` (k-fold CV with k = 5), ``loo``,
    or ``cv5+loo``."""
    parts = [f"cv{int(cv_folds)}"] if "cv" in criteria else []
    parts += ["loo"] if "loo" in criteria else []
    return "+".join(parts) or "insample"


def _scaled(rates: dict[int, float], n: int) -> float | None:
    """The rate at n from {n₀: rate}: exact, on the log-log line between two bracketing
    measurements, else the nearest one scaled with the measured slope (or ``DEFAULT_POWER``)."""
    if not rates:
        return None
    if n in rates:
        return rates[n]
    ns = sorted(rates)
    lo = max((m for m in ns if m < n), default=None)
    hi = min((m for m in ns if m > n), default=None)
    if lo is not None and hi is not None:          # interpolate on the log-log line
        p = math.log(rates[hi] / rates[lo]) / math.log(hi / lo)
        return rates[lo] * (n / lo) ** p
    near = lo if lo is not None else hi
    p = DEFAULT_POWER
    if len(ns) >= 2:                               # extrapolate with the measured slope
        a, b = (ns[-2], ns[-1]) if hi is None else (ns[0], ns[1])
        p = min(max(math.log(rates[b] / rates[a]) / math.log(b / a), 1.0), 3.5)
    return rates[near] * (n / near) ** p


def reference_seconds(solver: str, repeats: int = 2) -> float:
    """Seconds of ``solver``'s reference problem (``REFERENCE``) on this machine: the least of
    ``repeats`` timed runs after one untimed run (imports, first allocations)."""
    import time

    from .datasets.simulations import make_wahba2d
    from .families.soft import newton
    from .families.svm.solvers.libsvm import solve_libsvm
    from .families.svm.solvers.path import solve_path
    from .families.svm.solvers.qp import solve_cvxopt
    from .kernels import gaussian_gram

    n, log2_sigmas, log2_nlambdas = REFERENCE[solver]
    data = make_wahba2d(n, 0)
    upper = np.ones(n)
    lams = 2.0 ** np.asarray(log2_nlambdas, float) / n

    def run():
        for log2_sigma in log2_sigmas:
            K = gaussian_gram(data.X, sigma=2.0 ** log2_sigma)
            if solver == "path":
                solve_path(K, data.y, upper, lams)
            elif solver == SOFT:
                newton.solve_path(newton.KernelBasis.from_gram(K), newton.to01(data.y), lams)
            else:
                fit = solve_libsvm if solver == "libsvm" else solve_cvxopt
                for lam in lams:
                    fit(K, data.y, upper, float(lam))

    run()
    best = math.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - t0)
    return best


_SPEED: dict[str, float | None] = {}
_SPEED_LOCK = threading.Lock()


def machine_speed(calibration: dict) -> dict[str, float | None]:
    """{solver: this machine's seconds ÷ the build machine's} on each solver's reference problem,
    measured once per process; None for a solver whose reference could not be timed (its rates
    are then the build machine's, and the app says so). One measurement at a time: sessions that
    ask together wait for it instead of timing the problem against each other."""
    with _SPEED_LOCK:
        for solver, build in calibration.items():
            if solver not in _SPEED:
                try:
                    here = reference_seconds(solver) if solver in REFERENCE else math.nan
                    ratio = here / float(build) if here > 0 and float(build) > 0 else None
                except Exception:                                    # noqa: BLE001
                    ratio = None
                _SPEED[solver] = ratio if ratio is not None and math.isfinite(ratio) else None
        return {solver: _SPEED[solver] for solver in calibration}


@dataclass
class RateBook:
    """Measured seconds: records of (solver, workload, n, seconds per unit, unit, log2 nλ).

    Records from the build machine (``baseline``) carry ``"build": True``; ``calibration`` holds
    that machine's seconds on each solver's reference problem. The first time a solver's rates are
    asked for, this machine's speed on the same problem is measured (``machine_speed``) and the
    build records of that solver are read scaled by it (``speed``: the factors so far; None where
    the reference could not be timed). Records added here are this machine's and never scaled."""

    records: list[dict] = field(default_factory=list)
    max_records: int = 400
    calibration: dict[str, float] = field(default_factory=dict)
    speed: dict[str, float | None] = field(default_factory=dict)

    def speed_of(self, solver: str) -> float | None:
        """This machine's seconds ÷ the build machine's for ``solver`` (measured on first use);
        None when there is no reference time for it or it could not be measured."""
        if solver not in self.speed and solver in self.calibration:
            self.speed[solver] = machine_speed({solver: self.calibration[solver]})[solver]
        return self.speed.get(solver)

    def add(self, solver: str, work: str, n: int, units: int, seconds: float, per: str = "point",
            log2_nlambda: float | None = None) -> None:
        """Record one finished run: ``units`` grid points (or σ columns, ``per="column"``) in
        ``seconds`` of wall time; ``log2_nlambda`` when every point had that λ."""
        if units <= 0 or not (seconds > 0 and math.isfinite(seconds)) or n <= 0:
            return
        rec = {"solver": solver, "workload": work, "n": int(n),
               "seconds_per_point": float(seconds) / int(units)}
        if per != "point":
            rec["per"] = per
        if log2_nlambda is not None:
            rec["log2_nlambda"] = float(log2_nlambda)
        self.records.append(rec)
        del self.records[:-self.max_records]

    def _rates(self, solver: str, work: str, per: str = "point", log2_nlambda=None) -> dict[int, float]:
        """{n: median seconds per unit} of one key."""
        by_n: dict[int, list[float]] = {}
        factor = self.speed_of(solver) or 1.0
        for r in self.records:
            if (r["solver"] == solver and r["workload"] == work and r.get("per", "point") == per
                    and r.get("log2_nlambda") == log2_nlambda):
                sec = float(r["seconds_per_point"]) * (factor if r.get("build") else 1.0)
                by_n.setdefault(int(r["n"]), []).append(sec)
        return {n: sorted(v)[len(v) // 2] for n, v in by_n.items()}

    def seconds_per_point(self, solver: str, work: str, n: int) -> float | None:
        """Estimated seconds per grid point at ``n`` from whole-grid records; None when this key was
        never measured that way."""
        return _scaled(self._rates(solver, work), n)

    def seconds_per_column(self, solver: str, work: str, n: int) -> float | None:
        """Estimated seconds per σ column at ``n``; None when never measured per column."""
        return _scaled(self._rates(solver, work, "column"), n)

    def _measured_lambdas(self, solver: str, work: str) -> list[float]:
        return sorted({float(r["log2_nlambda"]) for r in self.records
                       if r["solver"] == solver and r["workload"] == work and "log2_nlambda" in r})

    def grid_seconds(self, solver: str, work: str, n: int, log2_nlambda: Sequence[float],
                     n_sigma: int) -> float | None:
        """Estimated seconds of a grid (its λ values × ``n_sigma`` columns) in the solver's unit
        (module docstring); None when this key was never measured."""
        per_col = self.seconds_per_column(solver, work, n)
        if per_col is not None:
            return per_col * n_sigma if len(log2_nlambda) else 0.0
        measured = self._measured_lambdas(solver, work)
        if measured:
            rates = [_scaled(self._rates(solver, work, log2_nlambda=v), n) for v in measured]
            logs = np.interp(np.asarray(log2_nlambda, float), measured, np.log(rates))
            return float(np.exp(logs).sum()) * n_sigma
        per_pt = self.seconds_per_point(solver, work, n)
        return None if per_pt is None else per_pt * len(log2_nlambda) * n_sigma

    # -------------------------------------------------------------- data-only persistence
    def to_json(self, calibration: dict | None = None) -> str:
        """The records (and, from ``bench/measure_rates.py``, the reference seconds per solver)."""
        out = {"records": self.records}
        if calibration:
            out["calibration"] = calibration
        return json.dumps(out, indent=1)

    @classmethod
    def from_records(cls, records: Iterable[dict]) -> "RateBook":
        book = cls()
        for r in records:
            try:
                rec = {"solver": str(r["solver"]), "workload": str(r["workload"]), "n": int(r["n"]),
                       "seconds_per_point": float(r["seconds_per_point"])}
                if r.get("per", "point") != "point":
                    rec["per"] = str(r["per"])
                if r.get("log2_nlambda") is not None:
                    rec["log2_nlambda"] = float(r["log2_nlambda"])
            except (KeyError, TypeError, ValueError):
                continue
            book.records.append(rec)
        return book

    @classmethod
    def baseline(cls, calibrate: bool = True) -> "RateBook":
        """The rates measured on the build machine (``bench/measure_rates.py``), read scaled by
        this machine's speed per solver (class docstring) unless ``calibrate`` is False or the
        file has no reference time for the solver; empty if absent."""
        try:
            text = resources.files("svmcore").joinpath("data/rates.json").read_text()
            data = json.loads(text)
            book = cls.from_records(data["records"])
            calibration = {str(k): float(v) for k, v in data.get("calibration", {}).items()}
        except (FileNotFoundError, KeyError, ValueError, TypeError, AttributeError):
            return cls()
        for r in book.records:
            r["build"] = True
        if calibrate:
            book.calibration = {k: v for k, v in calibration.items() if v > 0 and math.isfinite(v)}
        return book


#: the share of one growth step in the point estimate (module docstring): the midpoint
GROWTH_SHARE = 0.5


@dataclass(frozen=True)
class Estimate:
    """Estimated seconds of a sweep: ``base`` (the requested grid, CV and LOO included), ``cv`` and
    ``loo`` (their parts of it; None when not requested or never measured) and ``step`` (one growth
    step toward small λ; 0 without ``extend_grid`` or at the hard limit). ``total`` = base +
    ``GROWTH_SHARE`` × step; ``most`` = base + step."""

    base: float
    step: float = 0.0
    cv: float | None = None
    loo: float | None = None
    solver: str = ""

    @property
    def total(self) -> float:
        return self.base + GROWTH_SHARE * self.step

    @property
    def most(self) -> float:
        return self.base + self.step


def _extra(book, solver, work, n, lams, n_sigma, ins, k=None):
    """Seconds a workload adds to the in-sample one (CV rescaled from 5 folds to k)."""
    t = book.grid_seconds(solver, work, n, lams, n_sigma)
    if t is None:
        return None
    extra = max(t - ins, 0.0)
    return extra * k / 5 if k else extra


def grid_estimate(book: RateBook, solver: str, criteria: Sequence[str], n: int,
                  log2_nlambda: Sequence[float], n_sigma: int, cv_folds: int = 5,
                  insample: str = "insample"):
    """(in-sample, CV extra, LOO extra) seconds of one grid, or None when in-sample (the workload
    ``insample``) was never measured; an extra is None when its workload was never measured (or
    not requested)."""
    ins = book.grid_seconds(solver, insample, n, log2_nlambda, n_sigma)
    if ins is None:
        return None
    cv = loo = None
    if "cv" in criteria:
        cv = _extra(book, solver, workload(["cv"], cv_folds), n, log2_nlambda, n_sigma, ins)
        if cv is None:
            cv = _extra(book, solver, "cv5", n, log2_nlambda, n_sigma, ins, int(cv_folds))
    if "loo" in criteria:
        loo = _extra(book, solver, "loo", n, log2_nlambda, n_sigma, ins)
    return ins, cv, loo


def sweep_estimate(spec, n: int, book: RateBook | None = None) -> Estimate | None:
    """Estimated seconds of the SVM or soft-classification sweep ``spec`` on ``n`` training rows
    (None for another family, or a solver or workload never measured). The soft family is priced
    per grid point under ``SOFT`` (its CV deviance as the workload "cv").

    Parameters
    ----------
    spec : RunSpec
        A validated spec (its solver, criteria, CV folds, grid and ``extend_grid`` are used).
    n : int
        Training rows.
    book : RateBook, optional
        Measured rates (default: the build machine's, ``RateBook.baseline()``).
    """
    if spec.model not in ("svm", "logistic"):
        return None
    from .families.svm.fit import choose_solver
    from .grid import _grown_grid

    book = RateBook.baseline() if book is None else book
    crit, k, insample = spec.criteria, spec.cv_folds, "insample"
    if spec.model == "svm":
        solver = choose_solver(spec.solver, n)
    else:
        solver, insample = SOFT, soft_workload(crit)
        crit = ["cv" if c == "cv_deviance" else c for c in crit]    # its k-fold CV, priced as "cv"
    lams = spec.grid.log2_nlambda.values()

    def price(log2_nlambda):
        return grid_estimate(book, solver, crit, n, log2_nlambda, spec.grid.log2_sigma.count, k,
                             insample)

    parts = price(lams)
    if parts is None or ("cv" in crit and parts[1] is None) or ("loo" in crit and parts[2] is None):
        return None
    ins, cv, loo = parts
    step = 0.0
    grown = _grown_grid(spec.grid, {"small-λ edge"}) if spec.extend_grid else None
    if grown is not None:
        g = price([v for v in grown.log2_nlambda.values() if v < min(lams)])
        step = sum(v for v in g if v is not None) if g else 0.0
    return Estimate(ins + (cv or 0.0) + (loo or 0.0), step, cv, loo, solver)


def soft_workload(criteria: Sequence[str]) -> str:
    """The soft family's in-sample key: ``"insample"`` with exact GACV (its traces need an
    eigenbasis and O(r³) a point; the family's defaults, also when ``criteria`` is empty), else
    ``"no_traces"`` (a full-rank Gram matrix then keeps its pivoted Cholesky factor as the basis)."""
    return "insample" if not criteria or "gacv" in criteria else "no_traces"


def on_workers(seconds: float | None, n_columns: int, n_jobs: int = 0,
               threads: bool = False) -> tuple[float | None, int]:
    """Wall seconds of a sweep estimated at ``seconds`` in one process, run as ``run_grid`` runs it
    with ``n_jobs`` (0: its default), and the processes (or threads) it runs on.

    ``grid.auto_jobs`` starts workers from ``grid.PARALLEL_FROM_SECONDS`` on, one per σ column up to
    the cores; on threads (``threads``: ``ModelFamily.columns_in_threads``) there is one per
    column up to the cores whatever the estimate. Each then runs ceil(columns / workers) columns.
    Starting them is not counted here (``worker_start``: they stay up between sweeps). (AMD EPYC,
    2 cores, running workers: the n = 1000 paper grid took 2.33 s against 5.41 s estimated in one
    process; this gives 2.91 s.)
    """
    from .grid import auto_jobs
    from .spec import clamp_jobs

    if seconds is None:
        return None, 1
    if n_jobs or threads:
        workers = clamp_jobs(n_jobs, n_columns)
    else:
        workers = auto_jobs(0, n_columns, estimate=seconds)
    return seconds * math.ceil(n_columns / workers) / n_columns, workers


#: seconds to start the worker processes (loky spawns them; each imports numpy, scipy and svmcore).
#: AMD EPYC, 2 cores: a 5 × 3 SVM grid at n = 300 took 0.91–1.13 s on new workers, 0.05–0.06 s on
#: running ones and 0.08–0.13 s in one process (three trials). Since the workers import
#: scikit-learn only when a fit needs it, the same grid of the soft family takes 0.58 s on new
#: workers (the SVM's still 1.05–1.12 s: its start calls LIBSVM); one figure serves every family,
#: so a soft sweep's start is overestimated by about 0.4 s
WORKER_START_SECONDS = 1.0


def worker_start(workers: int, threads: bool = False) -> float:
    """Seconds a sweep on ``workers`` processes spends starting them: ``WORKER_START_SECONDS`` when
    it runs on worker processes (``workers`` > 1, not ``threads``) and no earlier sweep's are
    still up (``grid.workers_running``); else 0."""
    from .grid import workers_running

    return WORKER_START_SECONDS if workers > 1 and not threads and not workers_running() else 0.0


#: seconds a new installation's first path of ``path.COMPILED_FROM_N`` points or more spends
#: compiling its event loop and the passes' kernels (``path.compile_event_loop``, numba's cache
#: emptied: 44.6–50.9 s on two Zen 3 cores, 2026-11-29). Workers that start together compile at
#: the same time, each on its own core, so a sweep pays it once in wall time
LOOP_COMPILE_SECONDS = 50.0


#: seconds a process spends loading the compiled loop from numba's cache before its first path of
#: ``path.COMPILED_FROM_N`` points or more: wahba2d, n = 500, the first compiled path 0.29–0.39 s
#: against 0.015–0.023 s for the next, in processes that had imported numba (as pricing the sweep
#: does: ``first_use`` asks ``event_loop_compiled``, 0.2 s the first time); 0.62–0.72 s with
#: numba's import (three processes each, two Zen 3 cores, 2026-12-02). Workers that start
#: together load it at the same time, so a sweep pays it once in wall time
LOOP_LOAD_SECONDS = 0.3


def first_use(solver: str, n: int, workers: int = 1, threads: bool = False) -> tuple[str, float]:
    """What a sweep on ``workers`` processes (or threads) does before the path (``solver``
    "path") of ``n`` ≥ ``COMPILED_FROM_N`` points can cross its events in the compiled loop, and
    its seconds: ("compile", ``LOOP_COMPILE_SECONDS``) where numba has not compiled the loop on
    this installation yet (``path.event_loop_compiled``); else ("load", ``LOOP_LOAD_SECONDS``) in
    this process, on one or on ``threads``, when it has not loaded it (``path.event_loop_loaded``),
    or on worker processes that are not running yet (``grid.workers_running``: running ones are
    taken to have loaded it); else ("", 0)."""
    if solver != "path":
        return "", 0.0
    from .families.svm.solvers.path import (COMPILED_FROM_N, event_loop_compiled,
                                            event_loop_loaded)
    from .grid import workers_running

    if n < COMPILED_FROM_N:
        return "", 0.0
    if not event_loop_compiled():
        return "compile", LOOP_COMPILE_SECONDS
    loaded = workers_running() if workers > 1 and not threads else event_loop_loaded()
    return ("", 0.0) if loaded else ("load", LOOP_LOAD_SECONDS)


def first_use_seconds(solver: str, n: int, workers: int = 1, threads: bool = False) -> float:
    """The seconds of ``first_use``."""
    return first_use(solver, n, workers, threads)[1]


def estimate_seconds(spec, n: int) -> float | None:
    """Estimated seconds of the sweep ``spec`` on ``n`` training rows in one process
    (``sweep_estimate``'s ``total``); None when it cannot be estimated."""
    est = sweep_estimate(spec, n)
    return None if est is None else est.total


def waited_parts(est: Estimate, n_columns: int, n: int, n_jobs: int = 0,
                 threads: bool = False) -> tuple[float, int, float, tuple[str, float]]:
    """What a user waits for the sweep estimated at ``est`` (one process) on ``n`` rows, run with
    ``n_jobs`` (0: ``run_grid``'s default) on worker processes or ``threads``: (its share on the
    workers, ``on_workers``; the processes or threads; starting them, ``worker_start``;
    compiling or loading the path's loop first, ``first_use``'s (what, seconds))."""
    wall, workers = on_workers(est.total, n_columns, n_jobs, threads)
    return (wall, workers, worker_start(workers, threads),
            first_use(est.solver, n, workers, threads))


def wall_seconds(spec, n: int, n_jobs: int = 0) -> float | None:
    """Seconds a user waits for ``run_grid(spec, ..., n_jobs=n_jobs)`` on ``n`` training rows: the
    one-process estimate (``sweep_estimate``) shared among the workers it runs on
    (``on_workers``), plus starting them (``worker_start``) and a first compile
    (``first_use_seconds``), as the app's estimate counts them; None when it cannot be estimated.
    (AMD EPYC, 2 cores: the soft family's default grid at n = 5000 was announced at 42 minutes,
    one process's time, and ran on two workers in about half.)"""
    est = sweep_estimate(spec, n)
    if est is None:
        return None
    wall, _, start, (_, compile_) = waited_parts(est, spec.grid.log2_sigma.count, n, n_jobs,
                                                 spec.family.columns_in_threads(spec, n))
    return wall + start + compile_


def confirm_long_work(seconds: float | None, yes: bool, stdin=None, stderr=None) -> None:
    """Announce work estimated over ``limits.CONFIRM_SECONDS`` on stderr, before it starts.

    On a terminal the work needs ``--yes`` (SVMCoreError otherwise); in a script (stdin not a
    terminal) it runs on after the note.
    """
    import sys

    from ._validation import SVMCoreError
    from .limits import CONFIRM_SECONDS

    if seconds is None or seconds <= CONFIRM_SECONDS:
        return
    stdin, stderr = stdin or sys.stdin, stderr or sys.stderr
    text = f"about {seconds / 60:.0f} min" if seconds >= 120 else f"about {seconds:.0f} s"
    print(f"note: this work is estimated at {text} (measured rates, svmcore/timing.py)",
          file=stderr, flush=True)
    if not yes and stdin is not None and stdin.isatty():
        raise SVMCoreError(f"estimated {text} of work, over {CONFIRM_SECONDS:.0f} s: give --yes to "
                           "run it, or shrink the grid, n or the criteria")
