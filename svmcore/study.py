"""Replicate studies: how often and how badly each criterion misses, over many samples.

R replicate samples of a simulation (replicate r has data seed ``base seed + r``) or R random
stratified train/test splits of a real data set (split seed ``base split seed + r``); for each, one
or more weightings (costs and priors, Wahba, Lin, Lee & Zhang 2001 §1.7) over the spec's grid. Per
replicate × weighting × criterion the table records the criterion's pick, the target there and the
inefficiency = target at the pick / the target's grid minimum (Wahba et al. 2001, §1.8; the
held-out test error for real data). See ``docs/studies.md``.

Work is split into pure tasks: one per replicate × σ column (the Gram matrix is built once per
task and serves every weighting), or one per replicate for grids that grow (``extend_grid``) and
one per replicate × weighting for families whose study task is not a grid (they define
``run(spec, data, test) -> dict`` with ``"test_error"``). Results are assembled by task key, so a
task run twice (a lost worker) is counted once. Backends: the calling process, local worker
processes, or a Dask cluster; the numbers do not depend on the backend.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable, Sequence

import numpy as np
import pandas as pd

from ._validation import SVMCoreError
from .datasets.base import Dataset
from .datasets.load import stratified_split
from .grid import Cancelled, GridResult, column_rows, inefficiency, run_grid
from .kernels import KERNELS
from .limits import DASK_STALL_SECONDS, MAX_REPLICATES
from .spec import MAX_SEED, RunSpec, clamp_jobs, validate

TABLE_COLUMNS = ["replicate", "seed", "case", "criterion", "log2_nlambda", "log2_sigma", "target",
                 "inefficiency"]
#: columns that describe a fit rather than choose one
NOT_CRITERIA = ("n_sv", "train_error")
#: Wahba et al. (2001) §1.8, one sample of wahba2d (n = 200): inefficiency per case and criterion
PAPER_INEFFICIENCY = {("standard", "gacv"): (1.0064, 1.0064), ("standard", "xa"): (1.0062, 1.0094),
                      ("nonstandard", "gacv"): (1.151, 1.151), ("nonstandard", "brxa"): (1.166, 1.166)}


# ------------------------------------------------------------------ settings
@dataclass(frozen=True)
class Weighting:
    """A named case of costs and prior: C_A, C_B and π_A (None: the sample's own proportion)."""

    name: str
    cost_a: float = 1.0
    cost_b: float = 1.0
    prior_a: float | None = None

    def as_dict(self) -> dict:
        return {"name": self.name, "cost_a": self.cost_a, "cost_b": self.cost_b, "prior_a": self.prior_a}


STANDARD = Weighting("standard")
#: the nonstandard case of Wahba et al. (2001) §1.8: C_A = 1, C_B = 2, π_A = 0.1
NONSTANDARD = Weighting("nonstandard", 1.0, 2.0, 0.1)


@dataclass
class StudyResult:
    """The per replicate × case × criterion table (deterministic) and the run's timings."""

    table: pd.DataFrame
    spec: RunSpec
    replicates: int
    weightings: tuple
    timing: dict = field(default_factory=dict)

    @property
    def settings(self) -> dict:
        """What besides the spec determines the table (for the saved-run hash)."""
        return {"replicates": self.replicates, "weightings": [w.as_dict() for w in self.weightings]}

    def summary(self) -> pd.DataFrame:
        """Median and quartiles of the inefficiency per case × criterion."""
        return summarize(self.table)


def summarize(table: pd.DataFrame) -> pd.DataFrame:
    """Median [Q1, Q3] of inefficiency and of the target per case × criterion, in table order."""
    g = table.groupby(["case", "criterion"], sort=False)
    out = g["inefficiency"].agg(median="median", q1=lambda s: s.quantile(0.25),
                                q3=lambda s: s.quantile(0.75), count="count")
    out["target_median"] = g["target"].median()
    return out.reset_index()


# ------------------------------------------------------------------ data per replicate
def prepare_simulation(name: str, n: int | None, seed: int, kernel: str = "gaussian",
                       test_n: int = 0) -> dict:
    """One simulated replicate as plain arrays (pure: same arguments, same arrays), with the
    kernel's distances and, when ``test_n``, a fresh test sample drawn with ``seed + 1``."""
    from .datasets import make_simulation

    d = make_simulation(name, n, seed)
    t = make_simulation(name, test_n, seed + 1) if test_n else None
    return {"name": d.name, "X": d.X, "y": d.y, "p": d.p, "Xt": None if t is None else t.X,
            "yt": None if t is None else t.y, "pt": None if t is None else t.p,
            "dist": _distances(kernel, d.X)}


def prepare_split(base: dict, test_fraction: float, seed: int, kernel: str = "gaussian") -> dict:
    """One random stratified split of real data ``base`` ({name, X, y}) as plain arrays (pure)."""
    tr, te = stratified_split(base["y"], test_fraction, seed)
    X = base["X"][tr]
    return {"name": base["name"], "X": X, "y": base["y"][tr], "p": None, "Xt": base["X"][te],
            "yt": base["y"][te], "pt": None, "dist": _distances(kernel, X)}


def _distances(kernel: str, X):
    """What the kernel's Gram matrices are built from, once per replicate (None for a family's own
    kernel, e.g. COSSO's SS-ANOVA)."""
    return KERNELS[kernel].distances(X) if kernel in KERNELS else None


def _datasets(prep: dict) -> tuple[Dataset, Dataset | None]:
    data = Dataset(prep["name"], prep["X"], prep["y"], prep["p"])
    test = None if prep["Xt"] is None else Dataset(prep["name"] + " (test)", prep["Xt"], prep["yt"],
                                                   prep.get("pt"))
    return data, test


# ------------------------------------------------------------------ tasks (pure, module level)
def column_task(prep: dict, specs: Sequence[RunSpec], log2_sigma: float, log2_nl) -> tuple[list, float]:
    """One replicate × σ column for every weighting: ([rows of spec 0, rows of spec 1, …], seconds).

    The Gram matrix is built once and handed to the family as a :class:`Column` per weighting.
    """
    t0 = time.perf_counter()
    data, test = _datasets(prep)
    return column_rows(specs, data, test, prep["dist"], log2_sigma, log2_nl), time.perf_counter() - t0


def replicate_task(prep: dict, specs: Sequence[RunSpec]) -> tuple[list, float]:
    """One replicate on a grid that grows (``extend_grid``): [(table, spec) per weighting], seconds."""
    t0 = time.perf_counter()
    data, test = _datasets(prep)
    out = []
    for spec in specs:
        res = run_grid(spec, data, test, n_jobs=1)
        out.append((res.table, res.spec))
    return out, time.perf_counter() - t0


def run_task(prep: dict, spec: RunSpec) -> tuple[dict, float]:
    """One replicate × weighting of a single-run family: ``FAMILY.study_row(spec, data, test)``."""
    t0 = time.perf_counter()
    data, test = _datasets(prep)
    return dict(spec.family.study_row(spec, data, test)), time.perf_counter() - t0


# ------------------------------------------------------------------ the plan
@dataclass(frozen=True)
class Task:
    """key: unique and stable; fn: a task above; replicate: index into the prepared data."""

    key: str
    replicate: int
    fn: Callable
    args: tuple


def _study_token(spec: RunSpec, replicates: int, weightings, data_fp: str) -> str:
    text = json.dumps([spec.to_json(), replicates, [w.as_dict() for w in weightings], data_fp])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _case_specs(spec: RunSpec, weightings, real: bool) -> list[RunSpec]:
    fam = spec.family
    has_costs = {"cost_a", "cost_b", "prior_a"} <= {p.name for p in fam.params}
    out = []
    for w in weightings:
        if not has_costs and w != STANDARD:
            raise SVMCoreError(f"model {spec.model!r} has no costs or priors: study the standard "
                               "case only")
        s = spec.with_params(cost_a=w.cost_a, cost_b=w.cost_b, prior_a=w.prior_a) if has_costs else spec
        tgt = None if real else fam.target_for(s)
        if tgt in fam.criteria_names and tgt not in s.criteria:
            s = replace(s, criteria=s.criteria + (tgt,))
        out.append(s)
    return out


def _target(spec: RunSpec, real: bool) -> str | None:
    if not real:
        return spec.family.target_for(spec)
    hold = spec.family.holdout_columns
    return "test_cost_error" if not spec.is_standard and "test_cost_error" in hold else "test_error"


def plan(specs: list[RunSpec], replicates: int, token: str) -> list[Task]:
    """Tasks of a study: per replicate × σ column, per replicate (growing grid), or per
    replicate × weighting (families with ``run``)."""
    fam, spec = specs[0].family, specs[0]
    tasks = []
    for r in range(replicates):
        if fam.single_run:
            tasks += [Task(f"study-{token}-run-{r}-{c}", r, run_task, (s,)) for c, s in enumerate(specs)]
        elif spec.extend_grid:
            tasks.append(Task(f"study-{token}-rep-{r}", r, replicate_task, (specs,)))
        else:
            lam = spec.grid.log2_nlambda.values()
            tasks += [Task(f"study-{token}-col-{r}-{j}", r, column_task, (specs, float(ls), lam))
                      for j, ls in enumerate(spec.grid.log2_sigma.values())]
    return tasks


# ------------------------------------------------------------------ backends
_WORKER_PREPS: list | None = None


def _init_worker(preps: list) -> None:
    from .signals import exit_with_parent

    global _WORKER_PREPS
    _WORKER_PREPS = preps
    exit_with_parent()


class ClusterFailed(SVMCoreError):
    """The Dask cluster could not finish the study (workers or scheduler lost, no progress)."""


def _local_call(task: Task):
    return task.fn(_WORKER_PREPS[task.replicate], *task.args)


def _run_inline(tasks, preps, on_done, cancel) -> None:
    for t in tasks:
        if cancel is not None and cancel():
            raise Cancelled()
        on_done(t.key, t.fn(preps[t.replicate], *t.args))


def _run_processes(tasks, preps, jobs, on_done, cancel) -> None:
    """Local worker processes (a private loky executor, shut down afterwards: the global reusable
    one belongs to joblib.Parallel); each worker receives the prepared data once, at start-up,
    through the executor's initializer."""
    from concurrent.futures import as_completed

    from joblib.externals.loky import ProcessPoolExecutor

    ex = ProcessPoolExecutor(max_workers=jobs, initializer=_init_worker, initargs=(preps,))
    futs = {ex.submit(_local_call, t): t.key for t in tasks}
    finished = False
    try:
        for f in as_completed(futs):
            on_done(futs[f], f.result())
            if cancel is not None and cancel():
                raise Cancelled()
        finished = True
    finally:
        for f in futs:
            f.cancel()
        if not finished:   # interrupted (Ctrl-C, SIGTERM, cancel, a failure): kill the workers
            _kill_workers(ex)   # else the exit would join workers busy with a long task
        ex.shutdown(wait=not finished, kill_workers=not finished)


def _kill_workers(ex) -> None:
    """Kill a loky executor's worker processes, each that is still there: the interrupt that
    brought us here must propagate, not a worker that ended or was closed meanwhile."""
    for proc in list(getattr(ex, "_processes", {}).values()):
        try:
            proc.kill()
        except (ValueError, OSError, AttributeError):   # closed, already gone
            pass


def _connect(scheduler):
    from distributed import Client

    if isinstance(scheduler, Client):
        return scheduler, False
    try:
        return Client(str(scheduler), timeout="15s"), True
    except (OSError, TimeoutError, ValueError) as exc:
        raise SVMCoreError(f"could not connect to the Dask scheduler at {scheduler}: {exc}") from None


def _submit_dask(client, tasks, source, token, retries):
    """Submit the preparation futures (one per replicate) and the tasks; (task futures, preps)."""
    if source["kind"] == "split":
        [base] = client.scatter([source["base"]], broadcast=True, hash=True)
        preps = [client.submit(prepare_split, base, source["test_fraction"], seed, source["kernel"],
                               key=f"study-{token}-prep-{r}", pure=True, retries=retries)
                 for r, seed in enumerate(source["seeds"])]
    else:
        preps = [client.submit(prepare_simulation, source["name"], source["n"], seed,
                               source["kernel"], source["test_n"], key=f"study-{token}-prep-{r}",
                               pure=True, retries=retries)
                 for r, seed in enumerate(source["seeds"])]
    futs = [client.submit(t.fn, preps[t.replicate], *t.args, key=t.key, pure=True, retries=retries)
            for t in tasks]
    return futs, preps


def _collect_dask(futs, on_done, cancel, stall_seconds: float) -> None:
    """Hand each finished future to ``on_done``; ClusterFailed (one line) when a task fails, is
    cancelled (the scheduler was lost) or nothing finishes for ``stall_seconds``. A future whose
    worker was lost ("lost") waits for a worker to recompute it, within the same stall time."""
    from concurrent.futures import CancelledError

    from distributed import wait

    pending, total, last = set(futs), len(futs), time.monotonic()
    while pending:
        waiting = [f for f in pending if f.status == "pending"]
        if waiting:
            try:
                wait(waiting, timeout=1.0, return_when="FIRST_COMPLETED")
            except TimeoutError:
                pass
            except CancelledError:       # the client lost its scheduler: every future cancelled
                raise ClusterFailed(f"the Dask study stopped: the scheduler was lost; "
                                    f"{total - len(pending)} of {total} tasks had finished; no "
                                    "table was written") from None
        else:
            time.sleep(0.2)             # only lost tasks left: a returning worker recomputes them
        for f in [f for f in pending if f.status in ("finished", "error", "cancelled")]:
            # each wait below is bounded by what is left of the stall time, so that several
            # results lost with their workers cannot add up to many stall times
            left = last + stall_seconds - time.monotonic()
            if left <= 0:
                break
            if f.status != "finished":
                why = _failure(f, min(left, 5.0))
                if why is None:
                    continue            # an "error" that a retry has since cleared
                raise ClusterFailed(f"the Dask study stopped: {why}; "
                                    f"{total - len(pending)} of {total} tasks had finished; "
                                    "no table was written")
            try:        # bounded: a result held only by a worker lost meanwhile is recomputed
                res = f.result(timeout=min(left, 5.0))
            except TimeoutError:
                continue
            except CancelledError:
                raise ClusterFailed(f"the Dask study stopped: the scheduler was lost; "
                                    f"{total - len(pending)} of {total} tasks had finished; no "
                                    "table was written") from None
            pending.discard(f)
            on_done(f.key, res)
            last = time.monotonic()
            if cancel is not None and cancel():
                raise Cancelled()
        if pending and time.monotonic() - last > stall_seconds:
            raise ClusterFailed(f"the Dask study made no progress for {stall_seconds:.0f} s (every "
                                f"worker lost?); {total - len(pending)} of {total} tasks had "
                                "finished; no table was written")


def _failure(f, timeout: float) -> str | None:
    """Why a cancelled or erred future stops the study; None when its "error" was transient. A
    worker killed mid-task can leave a future "error" for a moment while the scheduler retries it
    (``retries``): its exception is then None (finished) or not yet known (pending again)."""
    if f.status == "cancelled":
        return "the scheduler was lost"
    try:
        exc = f.exception(timeout=timeout)
    except TimeoutError:
        return None
    if exc is None:
        return None
    return f"a task failed ({type(exc).__name__}: {str(exc)[:160]})"


def _run_dask(tasks, source, replicates, token, scheduler, on_done, cancel, retries: int,
              stall_seconds: float = DASK_STALL_SECONDS) -> int:
    """A Dask cluster: real data scattered once to every worker, each replicate's data one task
    (a future the column tasks share), every task pure and keyed, so a lost one is recomputed.
    Stops with one line (:class:`ClusterFailed`) when the cluster is lost or stalls."""
    import contextlib

    client, own = _connect(scheduler)
    futs = preps = []
    try:
        try:
            futs, preps = _submit_dask(client, tasks, source, token, retries)
            _collect_dask(futs, on_done, cancel, stall_seconds)
            return len(client.scheduler_info().get("workers", {}))
        except (OSError, TimeoutError) as exc:  # the scheduler's connection broke
            raise ClusterFailed(f"the Dask study stopped: the scheduler was lost "
                                f"({type(exc).__name__}); no table was written") from None
        finally:
            with contextlib.suppress(Exception):
                client.cancel(futs + preps)
    finally:
        if own:
            with contextlib.suppress(Exception):
                client.close(timeout=5)


# ------------------------------------------------------------------ assembly
def _criterion_columns(spec: RunSpec, user_criteria: Sequence[str]) -> list[str]:
    cols = spec.family.result_columns(user_criteria)
    return [c for c in dict.fromkeys(cols) if c not in NOT_CRITERIA]


def _pick_rows(table: pd.DataFrame, spec: RunSpec, columns, target: str | None) -> list[dict]:
    """Per criterion column: pick, target there and inefficiency (Wahba et al. 2001, §1.8)."""
    res = GridResult(table, spec)
    out = []
    for c in columns:
        row = {"criterion": c, "log2_nlambda": np.nan, "log2_sigma": np.nan, "target": np.nan,
               "inefficiency": np.nan}
        p = res.pick(c) if c in table.columns else None
        if p is not None:
            row["log2_nlambda"] = float(table["log2_nlambda"].iloc[p.row])
            row["log2_sigma"] = float(table["log2_sigma"].iloc[p.row])
            if target is not None and target in table.columns:
                row["target"] = float(table[target].iloc[p.row])
                row["inefficiency"] = inefficiency(res, c, target)[0]
        out.append(row)
    return out


def _grid_table(rows: Iterable[dict]) -> pd.DataFrame:
    t = pd.DataFrame(list(rows))
    return t.sort_values(["log2_sigma", "log2_nlambda"], kind="stable").reset_index(drop=True)


def assemble(tasks: list[Task], results: dict, specs: list[RunSpec], weightings, user_criteria,
             seeds: list[int], real: bool) -> pd.DataFrame:
    """The study table from the finished tasks' results (by key), sorted by replicate, case
    (in the order given) and criterion (in the order requested)."""
    missing = [t.key for t in tasks if t.key not in results]
    if missing:
        raise RuntimeError(f"{len(missing)} study tasks have no result (first: {missing[0]})")
    by_rep: dict[int, list[Task]] = {}
    for t in tasks:
        by_rep.setdefault(t.replicate, []).append(t)
    rows = []
    for r in sorted(by_rep):
        reps = by_rep[r]
        for c, (w, spec) in enumerate(zip(weightings, specs, strict=True)):
            head = {"replicate": r, "seed": seeds[r], "case": w.name}
            if reps[0].fn is run_task:       # a single-run family: one row per figure
                rows += [{**head, "criterion": name, "log2_nlambda": np.nan, "log2_sigma": np.nan,
                          "target": float(v), "inefficiency": np.nan}
                         for name, v in results[reps[c].key].items()]
                continue
            if reps[0].fn is replicate_task:
                table, grown = results[reps[0].key][c]
            else:
                table = _grid_table(row for t in reps for row in results[t.key][c])
                grown = spec
            cols = _criterion_columns(spec, user_criteria)
            rows += [{**head, **x} for x in _pick_rows(table, grown, cols, _target(spec, real))]
    return pd.DataFrame(rows, columns=TABLE_COLUMNS)


# ------------------------------------------------------------------ the entry point
def _source(spec: RunSpec, replicates: int, data: Dataset | None) -> tuple[dict, list[int], str]:
    """What each replicate's data come from, the per-replicate seeds, and a data fingerprint."""
    d = spec.data
    if data is None and d.source == "simulation":
        base_seed = d.seed
        seeds = [base_seed + r for r in range(replicates)]
        if seeds[-1] > MAX_SEED:
            raise SVMCoreError(f"seed + replicates must stay ≤ {MAX_SEED}")
        test_n = d.test_n if spec.family.single_run else 0
        if spec.family.single_run and not test_n:
            raise SVMCoreError(f"a study of {spec.model!r} on a simulation needs a fresh test sample: "
                               "give --test-n (e.g. 10000)")
        return {"kind": "simulation", "name": d.name, "n": d.n, "seeds": seeds, "kernel": spec.kernel,
                "test_n": test_n}, seeds, ""
    if data is None:
        if d.source != "bundled":
            raise SVMCoreError(f"a study needs a simulation, a bundled data set or a Dataset; got "
                               f"source {d.source!r}")
        from .datasets.bundled import load_bundled
        data = load_bundled(d.name, standardize=d.standardize)
    if not d.test_fraction or d.test_fraction <= 0:
        raise SVMCoreError("a study on real data needs a held-out test fraction (e.g. 0.3)")
    seeds = [d.split_seed + r for r in range(replicates)]
    if seeds[-1] > MAX_SEED:
        raise SVMCoreError(f"split seed + replicates must stay ≤ {MAX_SEED}")
    fp = hashlib.sha256(np.ascontiguousarray(data.X).tobytes() + data.y.tobytes()).hexdigest()[:16]
    base = {"name": data.name, "X": data.X, "y": data.y}
    return {"kind": "split", "base": base, "test_fraction": float(d.test_fraction), "seeds": seeds,
            "kernel": spec.kernel}, seeds, fp


def _check(specs: list[RunSpec], prep: dict, real: bool) -> None:
    n, y = len(prep["y"]), prep["y"]
    fam = specs[0].family
    for s in specs:
        fam.check(s, n, int(np.sum(y > 0)), int(np.sum(y < 0)))
        need = [c for c in s.criteria if c in fam.targets]
        if real and need:
            raise SVMCoreError(f"{', '.join(need)} need the true P(A|x), unknown for real data; the "
                               f"study's target is the held-out test error")


def run_study(spec: RunSpec, replicates: int, weightings: Sequence[Weighting] = (STANDARD,), *,
              data: Dataset | None = None, scheduler=None, n_jobs: int | None = 0,
              progress: Callable[[int, int], None] | None = None,
              cancel: Callable[[], bool] | None = None, retries: int = 3,
              stall_seconds: float = DASK_STALL_SECONDS) -> StudyResult:
    """Run a replicate study.

    Parameters
    ----------
    spec : validated RunSpec: model, grid, criteria (empty: the family's defaults), solver, and
        the data — ``source="simulation"`` (name, n, seed = replicate 0's seed) or real data
        (``source="bundled"`` or ``data=`` a Dataset) with ``test_fraction`` and ``split_seed``.
    replicates : R ≥ 1.
    weightings : the cases, each a :class:`Weighting` (name, C_A, C_B, π_A); names unique.
    scheduler : None for local cores, or a Dask scheduler address ("tcp://host:8786") or Client.
    n_jobs : local worker processes (1: in this process; 0/None: every core; clamped to cores).
    progress : progress(tasks_done, tasks_total) after each finished task.
    cancel : polled after each finished task; True stops the study (:class:`~svmcore.grid.Cancelled`).
    retries : Dask retries of a task that raised (a lost worker's tasks are rescheduled anyway).
    stall_seconds : a Dask study with no finished task for this long stops with
        :class:`ClusterFailed` (every worker lost); so does a lost scheduler. Nothing is returned.

    Returns
    -------
    StudyResult; ``table`` has one row per replicate × weighting × criterion: replicate, seed,
    case, criterion, log2_nlambda, log2_sigma, target (at the pick) and inefficiency.
    """
    t0 = time.perf_counter()
    if isinstance(replicates, bool) or not isinstance(replicates, (int, np.integer)) or replicates < 1:
        raise SVMCoreError(f"replicates must be a whole number ≥ 1, got {replicates!r}")
    if replicates > MAX_REPLICATES:
        raise SVMCoreError(f"replicates are limited to {MAX_REPLICATES} (svmcore.limits."
                           f"MAX_REPLICATES); got {replicates}")
    weightings = tuple(weightings)
    names = [w.name for w in weightings]
    if not weightings or len(set(names)) != len(names):
        raise SVMCoreError(f"give one or more weightings with distinct names, got {names}")
    spec = validate(spec)
    source, seeds, data_fp = _source(spec, int(replicates), data)
    real = source["kind"] == "split"
    if not spec.criteria:
        spec = replace(spec, criteria=tuple(spec.family.default_criteria(not real)))
    user_criteria = spec.criteria
    specs = _case_specs(spec, weightings, real)
    first = _prepare(source, 0)
    _check(specs, first, real)
    token = _study_token(spec, int(replicates), weightings, data_fp)
    tasks = plan(specs, int(replicates), token)
    results: dict[str, Any] = {}
    busy: dict[str, float] = {}

    def on_done(key, res):
        if key in results:          # a task delivered twice is counted once
            return
        if not (isinstance(res, tuple) and len(res) == 2):   # never take an error for a result
            raise ClusterFailed(f"study task {key} gave no result ({type(res).__name__})")
        results[key], busy[key] = res[0], res[1]
        if progress is not None:
            progress(len(results), len(tasks))

    backend, workers = _dispatch(tasks, source, first, int(replicates), token, scheduler, n_jobs,
                                 on_done, cancel, (retries, stall_seconds))
    table = assemble(tasks, results, specs, weightings, user_criteria, seeds, real)
    wall = time.perf_counter() - t0
    timing = {"wall_seconds": wall, "task_seconds": float(sum(busy.values())), "tasks": len(tasks),
              "tasks_per_second": len(tasks) / wall if wall > 0 else math.inf, "backend": backend,
              "workers": workers, "task_seconds_each": [busy[t.key] for t in tasks]}
    return StudyResult(table, spec, int(replicates), weightings, timing)


def _prepare(source: dict, r: int) -> dict:
    seed = source["seeds"][r]
    if source["kind"] == "split":
        return prepare_split(source["base"], source["test_fraction"], seed, source["kernel"])
    return prepare_simulation(source["name"], source["n"], seed, source["kernel"], source["test_n"])


def _dispatch(tasks, source, first, replicates, token, scheduler, n_jobs, on_done, cancel, dask_opts):
    if scheduler is not None:
        return "dask", _run_dask(tasks, source, replicates, token, scheduler, on_done, cancel, *dask_opts)
    preps = [first] + [_prepare(source, r) for r in range(1, replicates)]
    jobs = 1 if n_jobs == 1 else clamp_jobs(n_jobs, len(tasks))
    if jobs == 1:
        _run_inline(tasks, preps, on_done, cancel)
    else:
        _run_processes(tasks, preps, jobs, on_done, cancel)
    return "local", jobs


def scheduler_from_env() -> str | None:
    """The Dask scheduler address in ``SVMAPP_DASK_SCHEDULER`` (None when unset or empty)."""
    v = os.environ.get("SVMAPP_DASK_SCHEDULER", "").strip()
    return v or None
