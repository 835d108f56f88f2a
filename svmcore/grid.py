"""The generic grid runner: one Gram matrix per σ column, the family fits along λ.

``run_grid(spec, data)`` serves the app, the CLI, studies and benchmarks. It never branches on the
model family: the family (``svmcore.families``) turns a :class:`~svmcore.families.base.Column`
into rows. With ``spec.extend_grid`` the grid grows, in its own step, until every criterion's
pick is strictly inside or a hard limit is reached (``svmcore.spec`` limits); new λ below an old
column's smallest carry on from where its fits stopped (``ColumnEnds``), for a family that can.
Parallel columns run on threads of this process where the family says their work releases the
GIL (``ModelFamily.columns_in_threads``: the path's compiled loop), else on loky worker processes.
"""
from __future__ import annotations

import functools
import math
import time
from dataclasses import dataclass, field, replace
from typing import Callable

import numpy as np
import pandas as pd

from ._validation import SVMCoreError
from .cancel import Cancelled, cancellable
from .datasets.base import Dataset
from .families.base import Column
from .kernels import KERNELS
from .spec import (LOG2_NLAMBDA_LIMITS, LOG2_SIGMA_LIMITS, MAX_GRID_POINTS, Axis, DataSpec, GridSpec,
                   RunSpec, clamp_jobs, make_spec)

BASE_COLUMNS = ["log2_sigma", "log2_nlambda", "sigma", "lambda"]


# ------------------------------------------------------------------ picks
@dataclass(frozen=True)
class Pick:
    """A criterion's choice on the grid.

    row : index into the table.   ties : how many usable rows share the minimum.
    edge : "" when strictly inside, else which edge(s) ("left λ", "top σ", …).
    at_limit : the edge is a hard limit of the spec (the grid cannot grow there).
    note : e.g. why a global minimum was passed over (SURE's degenerate plateau).
    """

    row: int
    ties: int
    edge: str = ""
    at_limit: bool = False
    note: str = ""


def usable(table: pd.DataFrame, column: str) -> np.ndarray:
    """Rows that may be picked: finite value, no fit error, not flagged (e.g. a KKT residual above
    the family's tolerance)."""
    v = table[column].to_numpy(float)
    ok = np.isfinite(v)
    if "fit_error" in table.columns:
        ok &= table["fit_error"].fillna("").astype(str).to_numpy() == ""
    if "flagged" in table.columns:
        ok &= ~table["flagged"].fillna(False).to_numpy(bool)
    return ok


def pick(table: pd.DataFrame, column: str, family=None) -> Pick | None:
    """The grid point ``column`` chooses: the family's rule when it has one, else the first
    minimizer in grid order; its ties and whether every tied minimizer sits on an edge."""
    chosen = None if family is None else family.pick_rows(table, column, usable(table, column))
    if chosen is None:
        ok = usable(table, column)
        if not ok.any():
            return None
        v = table[column].to_numpy(float)
        best = np.min(v[ok])
        tied = np.flatnonzero(ok & np.isclose(v, best, rtol=1e-12, atol=0))
        note = ""
    else:
        tied, note = chosen
        if len(tied) == 0:
            return None
    edge, at_limit = _edge_of(table, tied)
    return Pick(int(tied[0]), len(tied), edge, at_limit, note)


def _edge_of(table: pd.DataFrame, rows: np.ndarray) -> tuple[str, bool]:
    """Edges on which *all* of ``rows`` lie ("" if one of them is strictly inside)."""
    lam = table["log2_nlambda"].to_numpy(float)
    sig = table["log2_sigma"].to_numpy(float)
    lam_lo, lam_hi, sig_lo, sig_hi = lam.min(), lam.max(), sig.min(), sig.max()
    best = None
    for r in rows:
        e = []
        if lam_hi > lam_lo and lam[r] == lam_lo:
            e.append("small-λ edge")
        if lam_hi > lam_lo and lam[r] == lam_hi:
            e.append("large-λ edge")
        if sig_hi > sig_lo and sig[r] == sig_lo:
            e.append("small-σ edge")
        if sig_hi > sig_lo and sig[r] == sig_hi:
            e.append("large-σ edge")
        if not e:
            return "", False
        if best is None or len(e) < len(best[0]):
            best = (e, r)
    e, r = best
    # an edge is a hard limit when not one more step of the grid fits inside the spec's limits
    lam_step, sig_step = _last_step(lam), _last_step(sig)
    limit = {"small-λ edge": lam[r] - lam_step < LOG2_NLAMBDA_LIMITS[0] - 1e-9,
             "large-λ edge": lam[r] + lam_step > LOG2_NLAMBDA_LIMITS[1] + 1e-9,
             "small-σ edge": sig[r] - sig_step < LOG2_SIGMA_LIMITS[0] - 1e-9,
             "large-σ edge": sig[r] + sig_step > LOG2_SIGMA_LIMITS[1] + 1e-9}
    return ", ".join(e), all(limit[x] for x in e)


def _last_step(values: np.ndarray) -> float:
    """The spacing of a grid axis from its values (the axis has at least two on an edge)."""
    v = np.unique(values)
    return float(v[-1] - v[-2]) if len(v) > 1 else 0.0


# ------------------------------------------------------------------ result
@dataclass
class GridResult:
    """A tidy table (one row per grid point), the spec that made it, and each criterion's pick."""

    table: pd.DataFrame
    spec: RunSpec
    seconds: float = 0.0
    weights: object = None
    notes: list = field(default_factory=list)
    #: processes the requested grid's σ columns ran on: 1 is this one; more are worker processes, and
    #: ``seconds`` (wall time) then includes starting them and is shared among them
    workers: int = 1

    @property
    def family(self):
        return self.spec.family

    @property
    def criteria(self) -> list[str]:
        return list(self.spec.criteria)

    @property
    def columns(self) -> list[str]:
        """Criterion and target columns of the table (no diagnostics)."""
        fam = self.family
        cols = [c for c in fam.result_columns(self.spec.criteria) if c not in fam.info_columns]
        cols += list(fam.holdout_columns)
        return [c for c in dict.fromkeys(cols) if c in self.table.columns]

    def surface(self, column: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(log2_nlambda values, log2_sigma values, Z[σ index, λ index]) for a contour plot."""
        piv = self.table.pivot_table(index="log2_sigma", columns="log2_nlambda", values=column,
                                     aggfunc="first", dropna=False)
        return piv.columns.to_numpy(float), piv.index.to_numpy(float), piv.to_numpy(float)

    def pick(self, column: str) -> Pick | None:
        return pick(self.table, column, self.family)

    def flagged_note(self) -> str:
        """One line naming how many fits were flagged and left out of every pick, or ""."""
        k = int(self.table["flagged"].sum()) if "flagged" in self.table.columns else 0
        if not k:
            return ""
        tol = self.family.kkt_flag
        why = f" (KKT residual above {tol:g})" if tol else ""
        return f"{k} of {len(self.table)} fits are flagged{why} and left out of every pick"

    def minimizer(self, column: str) -> pd.Series | None:
        """The table row ``column`` picks (None when no usable value)."""
        p = self.pick(column)
        return None if p is None else self.table.iloc[p.row]

    @property
    def target(self) -> str | None:
        t = self.family.target_for(self.spec)
        return t if t in self.table.columns else None

    def inefficiencies(self) -> dict:
        """{criterion: (value at its pick, min, max over tied picks)}: target there / target's
        grid minimum (Wahba et al. 2001, §1.8)."""
        tgt = self.target
        if tgt is None:
            return {}
        return {c: inefficiency(self, c, tgt) for c in self.columns if c != tgt}


def inefficiency(result: GridResult, criterion: str, target: str) -> tuple[float, float, float]:
    """Target at the criterion's pick divided by the target's grid minimum, with the range over
    tied picks (XA is a count and often ties: the paper's "1.0062–1.0094")."""
    t = result.table
    tgt = t[target].to_numpy(float)
    ok_t = usable(t, target)
    p = result.pick(criterion)
    if p is None or not ok_t.any():
        return (np.nan, np.nan, np.nan)
    tmin = np.min(tgt[ok_t])
    crit = t[criterion].to_numpy(float)
    tied = usable(t, criterion) & np.isclose(crit, crit[p.row], rtol=1e-12, atol=0)
    vals = tgt[tied] / tmin
    return (float(tgt[p.row] / tmin), float(np.nanmin(vals)), float(np.nanmax(vals)))


# ------------------------------------------------------------------ the runner
def _check_size(spec: RunSpec, data: Dataset) -> None:
    if not spec.family.sweeps_grid:
        raise SVMCoreError(f"model {spec.model!r} does not sweep (λ, σ): use `svmcore {spec.model}`")
    kernel = KERNELS.get(spec.kernel)
    if kernel is not None and not kernel.has_width and spec.grid.log2_sigma.count > 1:
        raise SVMCoreError(f"the {spec.kernel} kernel has no width σ: give one log2_sigma value, got "
                           f"{spec.grid.log2_sigma.text}")
    spec.family.check(spec, data.n, int(np.sum(data.y > 0)), int(np.sum(data.y < 0)))
    missing = [c for c in spec.criteria if c in spec.family.targets]
    if missing and not data.has_truth:
        raise SVMCoreError(f"{', '.join(missing)} need the true P(A|x): use a simulation or give a "
                           "probability column (--p-column)")


def resolve(spec: RunSpec, data: Dataset) -> RunSpec:
    """The spec with its criteria filled in from the family's defaults when it names none."""
    if spec.criteria:
        return spec
    return replace(spec, criteria=tuple(spec.family.default_criteria(data.has_truth)))


def column_rows(specs, data: Dataset, test: Dataset | None, dist, log2_sigma: float,
                log2_nl) -> list[list[dict]]:
    """The rows of one σ column for each spec (the same data and kernel; e.g. a study's
    weightings): the Gram matrix is built once from the kernel's precomputed distances, and each
    spec's family fits along λ. The one place a column is computed, for sweeps and studies."""
    K = KERNELS[specs[0].kernel].gram(dist, float(2.0 ** log2_sigma))
    return [spec.family.column(_column(spec, data, test, K, log2_sigma, log2_nl)) for spec in specs]


def _column(spec, data, test, K, log2_sigma, log2_nl, start=None) -> Column:
    l2 = np.asarray(log2_nl, float)
    return Column(data, test, K, float(2.0 ** log2_sigma), float(log2_sigma), l2, 2.0 ** l2 / data.n,
                  spec.weights(data.y), spec, start)


def _columns_task(spec, data, test, dist, log2_sigma, log2_nl, start=None):
    """One σ column of a sweep: its rows and where its fits stopped (``column_with_end``)."""
    K = KERNELS[spec.kernel].gram(dist, float(2.0 ** log2_sigma))
    return spec.family.column_with_end(_column(spec, data, test, K, log2_sigma, log2_nl, start))


#: joblib's loky workers exit after this many idle seconds (its default ``idle_worker_timeout``)
WORKER_IDLE_SECONDS = 300.0
#: "at": ``time.monotonic()`` when this process's last parallel sweep ended (inf while one runs)
_workers_seen: dict[str, float] = {}


def workers_running() -> bool:
    """Whether the worker processes of an earlier parallel sweep in this process should still be
    up: it ended less than ``WORKER_IDLE_SECONDS`` ago, or is running. A cancelled or failed one
    stops its workers (``_run_columns``), so the next sweep starts them again."""
    at = _workers_seen.get("at")
    return at is not None and time.monotonic() - at < WORKER_IDLE_SECONDS


def _run_columns(spec, data, test, sqdist, tasks, n_jobs, progress, cancel, threads=False):
    """Rows of each (log2_sigma, log2_nlambda values, start) task, in task order, and each task's
    end (``ModelFamily.column_with_end``); progress(done, total) after each task. With more than
    one job the tasks run on threads of this process (``threads``) or on worker processes."""
    total = len(tasks)
    jobs = workers_for(n_jobs, total)
    if jobs == 1:
        out = {}
        for k, task in enumerate(tasks):
            if cancel is not None and cancel():
                raise Cancelled()
            with cancellable(cancel):        # the solvers poll it inside a long column too
                out[k] = _columns_task(spec, data, test, sqdist, *task)
            if progress:
                progress(k + 1, total)
    else:
        run = _on_threads if threads else _on_processes
        out = run([(k, spec, data, test, sqdist, *task) for k, task in enumerate(tasks)], jobs,
                  progress, cancel)
    return [r for k in range(total) for r in out[k][0]], [out[k][1] for k in range(total)]


def _on_processes(calls, jobs, progress, cancel) -> dict:
    """{k: ``_columns_task``'s result} of each call (k, its arguments…) on ``jobs`` loky worker
    processes (reused by later sweeps; stopped on a cancel or a failure)."""
    from joblib import Parallel, delayed, parallel_config

    from .signals import exit_with_parent

    with parallel_config(backend="loky", initializer=exit_with_parent):  # workers end with us
        par = Parallel(n_jobs=jobs, return_as="generator_unordered")
    gen = par(delayed(_indexed)(*call) for call in calls)
    _workers_seen["at"], finished = math.inf, False
    try:
        out = _collected(gen, len(calls), progress, cancel)
        finished = True
    finally:
        gen.close()      # unfinished (a cancel, a failure): joblib kills the busy workers
        if finished:
            _workers_seen["at"] = time.monotonic()
        else:
            _workers_seen.pop("at", None)
    return out


def _on_threads(calls, jobs, progress, cancel) -> dict:
    """{k: ``_columns_task``'s result} of each call (k, its arguments…) on ``jobs`` threads of this
    process, BLAS on one thread each (``ModelFamily.columns_in_threads``: the columns' work
    releases the GIL). Nothing is started or copied: the threads share the data and the kernel's
    distances, and each holds its own Gram matrix. A cancel, a failure or an interrupt stops the
    running columns at their next poll (``cancel.check``) before this returns."""
    import threading
    from concurrent.futures import ThreadPoolExecutor, as_completed

    from threadpoolctl import threadpool_limits

    stop = threading.Event()

    def stopped() -> bool:
        return stop.is_set() or (cancel is not None and cancel())

    def one(k, *args):
        if stopped():
            raise Cancelled()
        with cancellable(stopped):
            return k, _columns_task(*args)

    with threadpool_limits(limits=1, user_api="blas"):
        pool = ThreadPoolExecutor(jobs, thread_name_prefix="svmcore-column")
        try:
            futures = [pool.submit(one, *call) for call in calls]
            out = _collected((f.result() for f in as_completed(futures)), len(calls), progress,
                             cancel)
        finally:
            stop.set()
            pool.shutdown(wait=True, cancel_futures=True)
    return out


def _collected(results, total: int, progress, cancel) -> dict:
    """{k: result} from (k, result) pairs as the columns finish, calling progress(done, total)
    after each and raising ``Cancelled`` when cancel() says so (the caller stops the rest)."""
    out: dict = {}
    for i, (k, result) in enumerate(results):
        out[k] = result
        if progress:
            progress(i + 1, total)
        if cancel is not None and cancel():
            raise Cancelled()
    return out


def workers_for(n_jobs: int | None, n_tasks: int) -> int:
    """Processes ``_run_columns`` uses for ``n_tasks`` σ columns: 1 (this one) for ``n_jobs=1``,
    else ``clamp_jobs``'s worker count."""
    return clamp_jobs(n_jobs, n_tasks) if n_jobs != 1 else 1


def _indexed(k, *args):
    return k, _columns_task(*args)


#: a sweep estimated below this many seconds in one process stays there. Starting the worker
#: processes costs about a second the first time; they then stay up for the next sweeps (loky's
#: reusable executor). AMD EPYC, 2 cores, wahba2d, in one process / on two new workers / on two
#: running ones: n = 300 on a 5 × 3 grid 0.09 / 1.1 / 0.08 s; the n = 500 paper grid 1.48 / 2.03 /
#: 0.76 s; n = 1000 on a 15 × 7 grid 3.04 / 2.86 / 1.67 s. Below 1 s the start would more than
#: double the wait; from 1 s the first sweep waits at most ~1 s longer and the later ones half as long.
PARALLEL_FROM_SECONDS = 1.0


def _auto_jobs_for(spec, n: int, threads: bool) -> int:
    """``run_grid``'s jobs when none are given: on threads one per σ column up to the cores (they
    cost nothing to start), else ``auto_jobs`` from the estimate in one process."""
    if threads:
        return clamp_jobs(0, spec.grid.log2_sigma.count)
    from .timing import estimate_seconds      # one process, from the measured rates

    heavy = any(spec.family.criterion(c).heavy for c in spec.criteria)
    return auto_jobs(n, spec.grid.log2_sigma.count, heavy, estimate_seconds(spec, n))


def auto_jobs(n: int, n_columns: int, heavy_refits: bool = False,
              estimate: float | None = None) -> int:
    """Workers for the σ columns: all cores (one per column at most) when the columns are heavy
    enough to repay starting worker processes, else 1 (this process).

    ``estimate`` is the sweep's estimated seconds in one process (``svmcore.timing.sweep_estimate``);
    when known, it decides: workers from ``PARALLEL_FROM_SECONDS`` on. Without it (a family or a
    workload never measured) the size decides: n ≥ 300, or n ≥ 100 with a criterion whose refits
    are heavy (``Criterion.heavy``: exact leave-one-out).
    """
    if estimate is not None:
        heavy = estimate >= PARALLEL_FROM_SECONDS
    else:
        heavy = n >= 300 or (heavy_refits and n >= 100)
    return clamp_jobs(0, n_columns) if heavy else 1


def run_grid(spec: RunSpec, data: Dataset, test: Dataset | None = None, *,
             progress: Callable[[int, int], None] | None = None,
             cancel: Callable[[], bool] | None = None, n_jobs: int | None = 0,
             threads: bool | None = None) -> GridResult:
    """Fit the spec's model family over its grid and compute every requested criterion.

    Parameters
    ----------
    spec : a validated RunSpec (``make_spec``); empty criteria mean the family's defaults.
    data, test : the training Dataset and an optional held-out one.
    progress : called as progress(columns_done, columns_total) after each σ column.
    cancel : polled between columns; when it returns True, :class:`Cancelled` is raised.
    n_jobs : parallel σ columns (0 or None: ``auto_jobs``; clamped to the cores).
    threads : run them on threads of this process instead of worker processes (None: where the
        family says its columns release the GIL, ``ModelFamily.columns_in_threads``).

    Returns
    -------
    GridResult, one row per grid point; a failed fit fills its row's ``fit_error``.
    """
    t0 = time.perf_counter()
    spec = resolve(spec, data)
    _check_size(spec, data)
    weights = spec.weights(data.y)
    sqdist = KERNELS[spec.kernel].distances(data.X)
    lam_ax, sig_ax = spec.grid.log2_nlambda, spec.grid.log2_sigma
    threads = spec.family.columns_in_threads(spec, data.n) if threads is None else bool(threads)
    if not n_jobs:
        n_jobs = _auto_jobs_for(spec, data.n, threads)
    tasks = [(float(ls), lam_ax.values(), None) for ls in sig_ax.values()]
    workers = workers_for(n_jobs, len(tasks))
    if progress:
        progress(0, len(tasks))
    run = functools.partial(_run_columns, threads=threads)
    rows, ends = run(spec, data, test, sqdist, tasks, n_jobs, progress, cancel)
    notes: list[str] = []
    if spec.extend_grid:
        lows = ColumnEnds()
        lows.add(tasks, ends)
        rows, spec = _extend(spec, data, test, weights, sqdist, rows, lows, n_jobs, progress, cancel,
                             notes, run)
    table = _tidy(rows, spec)
    res = GridResult(table, spec, time.perf_counter() - t0, weights, notes, workers)
    notes.extend(edge_warnings(res))
    if res.flagged_note():
        notes.append(res.flagged_note())
    for c in res.columns:
        p = res.pick(c)
        if p is not None and p.note:
            notes.append(f"{c}: {p.note}")
    return res


def _tidy(rows: list[dict], spec: RunSpec) -> pd.DataFrame:
    fam = spec.family
    table = pd.DataFrame(rows)
    crit = fam.result_columns(spec.criteria)
    extra = [c for c in fam.holdout_columns if c in table.columns]
    diag = fam.diagnostic_columns()
    cols = BASE_COLUMNS + crit + extra + diag + ["seconds"]
    for c in cols:
        if c not in table.columns:
            table[c] = np.nan
    table = table.sort_values(["log2_sigma", "log2_nlambda"], kind="stable").reset_index(drop=True)
    if "flagged" in cols:
        table["flagged"] = fam.unusable(table)
    return table[cols + [c for c in table.columns if c not in cols]]


def edge_warnings(res: GridResult) -> list[str]:
    """One line per criterion whose pick sits on an edge of the grid."""
    out = []
    exempt = res.family.edge_exempt
    for c in res.columns:
        if c in exempt:
            continue
        p = res.pick(c)
        if p is not None and p.edge:
            where = "at the hard limit" if p.at_limit else "on the grid's edge"
            out.append(f"{c}: its minimizer is {where} ({p.edge}); the true minimizer may lie beyond")
    return out


#: a criterion stops driving the grid's growth when one growth step lowered its minimum by less
#: than this, relative: it is flat toward that edge (a plateau, or falling without end like OBS)
FLAT_RTOL = 1e-6


class ColumnEnds:
    """Where each σ column's fits stopped at its smallest λ so far: {log2 σ: (log2(nλ), end)}, the
    end as the family returned it (``ModelFamily.column_with_end``). A growth step toward small
    λ hands it back as the column's start."""

    def __init__(self):
        self.lowest: dict[float, tuple] = {}

    def add(self, tasks, ends) -> None:
        """Record the ends of ``_run_columns``'s tasks where they reach below what is recorded."""
        for (ls, l2, _), end in zip(tasks, ends):
            low = float(np.min(l2))
            if ls not in self.lowest or low < self.lowest[ls][0]:
                self.lowest[ls] = (low, end)

    def start(self, log2_sigma: float):
        """The end at the column's smallest λ so far, or None."""
        return self.lowest.get(log2_sigma, (None, None))[1]


def _extend(spec, data, test, weights, sqdist, rows, lows, n_jobs, progress, cancel, notes,
            run=_run_columns):
    """Grow the axes in their own step until no pick is on an edge that can still move. A criterion
    whose minimum one step of growth lowered by less than ``FLAT_RTOL`` (relative) is flat toward
    that edge: it stops driving the growth, with a note, instead of pushing to the hard limit.
    New λ below a column's smallest are fitted on from where its fits stopped (``lows``)."""
    exempt = set(spec.family.edge_exempt)
    best: dict[str, float] = {}
    for _ in range(200):
        res = GridResult(_tidy(rows, spec), spec, 0.0, weights)
        edges = set()
        for c in res.columns:
            p = res.pick(c)
            if c in exempt or p is None or not p.edge:
                continue
            v = float(res.table[c].iloc[p.row])
            if c in best and best[c] - v <= FLAT_RTOL * abs(best[c]):
                exempt.add(c)
                notes.append(f"{c}: the last growth step lowered its minimum by less than "
                             f"{FLAT_RTOL:g} (relative) toward the {p.edge}; the grid stopped growing "
                             "for it there (a plateau or an endless slope)")
                continue
            best[c] = v
            edges.update(e.strip() for e in p.edge.split(","))
        grown = _grown_grid(spec.grid, edges)
        if grown is None:
            return rows, spec
        if grown.size > MAX_GRID_POINTS:
            notes.append(f"the grid stopped growing at {spec.grid.size} points (cap {MAX_GRID_POINTS})")
            return rows, spec
        rows = rows + _new_points(spec, grown, data, test, sqdist, lows, n_jobs, progress, cancel,
                                  run)
        spec = spec.with_grid(grown)
    return rows, spec


def _grown_grid(grid: GridSpec, edges: set) -> GridSpec | None:
    lam, sig = grid.log2_nlambda, grid.log2_sigma

    def grow(ax: Axis, lo: bool, hi: bool, limits, default_step: float) -> Axis:
        """``ax`` extended by up to k of its own steps at each chosen end, stopping at ``limits``."""
        step = ax.step or default_step
        k = max(2, math.ceil(ax.count / 4))
        room = lambda gap: min(k, math.floor(gap / step + 1e-9))  # whole steps that fit  # noqa: E731
        start = ax.start - room(ax.start - limits[0]) * step if lo else ax.start
        stop = ax.stop + room(limits[1] - ax.stop) * step if hi else ax.stop
        return Axis(round(start, 12), round(stop, 12), step)

    new_lam = grow(lam, "small-λ edge" in edges and lam.start > LOG2_NLAMBDA_LIMITS[0],
                   "large-λ edge" in edges and lam.stop < LOG2_NLAMBDA_LIMITS[1],
                   LOG2_NLAMBDA_LIMITS, 1.0)
    new_sig = grow(sig, "small-σ edge" in edges and sig.start > LOG2_SIGMA_LIMITS[0],
                   "large-σ edge" in edges and sig.stop < LOG2_SIGMA_LIMITS[1],
                   LOG2_SIGMA_LIMITS, 0.5)
    if new_lam == lam and new_sig == sig:
        return None
    return GridSpec(new_lam, new_sig)


def _new_points(spec, grown, data, test, sqdist, lows, n_jobs, progress, cancel, run=_run_columns):
    """Rows of the grid points in ``grown`` that ``spec.grid`` lacks (new λ in old columns, carried
    on from where each column stopped; whole new σ columns); ``lows`` is brought up to date."""
    old_l, old_s = set(spec.grid.log2_nlambda.values()), set(spec.grid.log2_sigma.values())
    all_l = grown.log2_nlambda.values()
    new_l = np.array([v for v in all_l if v not in old_l])
    tasks = []
    for ls in grown.log2_sigma.values():
        if ls in old_s:
            if len(new_l):
                tasks.append((float(ls), new_l, lows.start(float(ls))))
        else:
            tasks.append((float(ls), all_l, None))
    rows, ends = run(spec.with_grid(grown), data, test, sqdist, tasks, n_jobs, progress, cancel)
    lows.add(tasks, ends)
    return rows


# ------------------------------------------------------------------ convenience
def sweep(data: Dataset, grid: GridSpec | None = None, *, model: str = "svm",
          test: Dataset | None = None, progress=None, cancel=None, n_jobs: int | None = 1,
          **settings) -> GridResult:
    """``run_grid`` for a Dataset already in hand: ``settings`` are RunSpec fields
    (cost_a, cost_b, prior_a, criteria, xa_rho, cv_folds, solver, extend_grid, options …)."""
    grid = grid or GridSpec.paper()
    settings.setdefault("data", DataSpec(source="inline", name=data.name))
    spec = make_spec(model, log2_nlambda=grid.log2_nlambda, log2_sigma=grid.log2_sigma,
                     **settings)
    return run_grid(spec, data, test, progress=progress, cancel=cancel, n_jobs=n_jobs)
