"""Turn a ``DataSpec`` into training (and held-out) Datasets, checking sizes before any work."""
from __future__ import annotations

import numpy as np

from numbers import Integral, Real

from .._validation import SVMCoreError
from ..spec import DATA_PARAMS, MAX_ROWS, MAX_TEST_ROWS, SEED, DataSpec, Interval
from .base import Dataset
from .simulations import SIMULATIONS, make_simulation

from ..limits import MAX_CSV_BYTES, MIN_TEST_ROWS_PER_CLASS, MIN_TRAIN_ROWS_PER_CLASS  # noqa: F401
#: smallest and largest fresh test sample drawn from a simulation
MIN_TEST_ROWS = 10


def stratified_split(y: np.ndarray, test_fraction: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(train, test) row indices, each in file order: ``test_fraction`` of each class held out at
    random (at least one row); refused when fewer than ``MIN_TRAIN_ROWS_PER_CLASS`` rows of a
    class would be left for training."""
    rng = np.random.default_rng(seed)
    test = []
    for cls in (1.0, -1.0):
        idx = np.flatnonzero(y == cls)
        k = max(int(round(test_fraction * len(idx))), MIN_TEST_ROWS_PER_CLASS)
        _check_split_counts(cls, len(idx), len(idx) - k, k, test_fraction)
        test.append(rng.choice(idx, size=k, replace=False))
    mask = np.zeros(len(y), bool)
    mask[np.concatenate(test)] = True
    return np.flatnonzero(~mask), np.flatnonzero(mask)


def _check_split_counts(cls: float, total: int, train: int, test: int, test_fraction: float) -> None:
    """Refuse a split that leaves a class too few training or test rows (``svmcore.limits``)."""
    if train < MIN_TRAIN_ROWS_PER_CLASS or test < MIN_TEST_ROWS_PER_CLASS:
        name = "A (+1)" if cls > 0 else "B (-1)"
        raise SVMCoreError(
            f"test fraction {test_fraction:g} leaves {train} training and {test} test rows of class "
            f"{name} (it has {total}); at least {MIN_TRAIN_ROWS_PER_CLASS} training and "
            f"{MIN_TEST_ROWS_PER_CLASS} test rows per class are needed: lower the test fraction "
            "or give more data")


def train_test_split(data: Dataset, test_fraction: float, seed: int = 0):
    """Stratified split into (train, test); ``test_fraction`` ≤ 0 returns (data, None)."""
    if not test_fraction or test_fraction <= 0:
        return data, None
    tr, te = stratified_split(data.y, test_fraction, seed)
    return data.subset(tr, data.name), data.subset(te, data.name + " (test)")


def stratified_subsample(data: Dataset, n_max: int | None, seed: int = 0) -> Dataset:
    """At most ``n_max`` rows, keeping the class proportions (the data set itself if small)."""
    if not n_max or data.n <= n_max:
        return data
    rng = np.random.default_rng(seed)
    keep = []
    for cls in (1.0, -1.0):
        idx = np.flatnonzero(data.y == cls)
        k = max(2, int(round(n_max * len(idx) / data.n)))
        keep.extend(rng.choice(idx, size=min(k, len(idx)), replace=False))
    return data.subset(np.sort(np.asarray(keep, int)))


def load_data(ds: DataSpec, max_rows: int = MAX_ROWS, table=None) -> tuple[Dataset, Dataset | None]:
    """(train, test or None) for a validated DataSpec.

    ``table`` is an already-read CSV table (the app's upload); otherwise ``ds.path`` is read. Sizes
    are checked before data are generated or read: a simulation's n, a file's bytes.
    """
    if ds.source == "simulation":
        if ds.name not in SIMULATIONS:
            raise SVMCoreError(f"unknown simulation {ds.name!r}; choose one of {', '.join(SIMULATIONS)}")
        if ds.n is not None and ds.n > max_rows:
            raise SVMCoreError(f"n is limited to {max_rows} rows here; got {ds.n}")
        data = make_simulation(ds.name, ds.n, ds.seed)
    elif ds.source == "bundled":
        from .bundled import BUNDLED, load_bundled
        if ds.name not in BUNDLED:
            raise SVMCoreError(f"unknown data set {ds.name!r}; simulations: {', '.join(SIMULATIONS)}; "
                               f"bundled: {', '.join(BUNDLED)}")
        data = load_bundled(ds.name, standardize=ds.standardize)
    elif ds.source == "csv":
        data = _load_csv(ds, max_rows, table)
    else:
        raise SVMCoreError(f"data source {ds.source!r} cannot be loaded from a spec")
    train, test = train_test_split(data, ds.test_fraction, ds.split_seed)
    train = stratified_subsample(train, ds.n_max, ds.split_seed)
    if train.n > max_rows:
        raise SVMCoreError(f"the training set is limited to {max_rows} rows; it has {train.n}")
    return train, test


def _load_csv(ds: DataSpec, max_rows: int, table) -> Dataset:
    from .csvload import dataset_from_table, read_csv_table

    if not ds.label:
        raise SVMCoreError("a CSV file needs a label column (--label COL)")
    if table is None:
        if not ds.path:
            raise SVMCoreError("no CSV file given")
        table = read_csv_table(ds.path)  # under the byte, row and column caps of svmcore.limits
    limit = max_rows if not ds.test_fraction else int(max_rows / (1 - ds.test_fraction))
    if not ds.n_max and len(table) > limit:
        held = f" after holding out {ds.test_fraction:g}" if ds.test_fraction else ""
        raise SVMCoreError(f"{ds.name or 'the CSV file'} has {len(table)} data rows; a fit or sweep "
                           f"trains on at most {max_rows} (svmcore.spec.MAX_ROWS){held}, so at most "
                           f"{limit} rows are accepted")
    return dataset_from_table(table, ds.label, positive=ds.positive, p_column=ds.p_column,
                              features=list(ds.features) if ds.features else None,
                              standardize=ds.standardize, name=ds.name or "uploaded")


def holdout_split(data: Dataset, test_fraction: float, seed: int) -> tuple[Dataset, Dataset]:
    """Stratified (train, test) of real data for the one-shot commands (``cosso``, ``usvc``),
    rows in file order; Zhang (2006, §5.3) holds out 1/3, Navia-Vázquez et al. (2004) 1/5."""
    from sklearn.model_selection import train_test_split as sk_split

    Interval(Real, 0.0, 1.0, "neither").check("test_fraction", test_fraction)
    try:
        tr, te = sk_split(np.arange(data.n), test_size=test_fraction, stratify=data.y,
                          random_state=seed)
    except ValueError as exc:
        raise SVMCoreError(f"cannot split {data.name!r} by class with test_fraction "
                           f"{test_fraction:g}: {exc}") from None
    for cls in (1.0, -1.0):
        _check_split_counts(cls, int(np.sum(data.y == cls)), int(np.sum(data.y[tr] == cls)),
                            int(np.sum(data.y[te] == cls)), test_fraction)
    return data.subset(np.sort(tr)), data.subset(np.sort(te), data.name + " (test)")


def sample_and_test(*, dataset: str | None, path: str | None, label: str | None,
                    positive: str | None, n: int | None, seed: int, test_n: int,
                    test_fraction: float) -> tuple[Dataset, Dataset]:
    """(train, test) for the one-shot commands: a simulation of size ``n`` and a fresh sample of
    ``test_n`` points drawn with ``seed + 1``; or a bundled set or CSV file split by
    :func:`holdout_split`. Sizes and seeds are checked before any data are made."""
    from . import load_dataset
    from .csvload import load_csv

    if bool(dataset) == bool(path):
        raise SVMCoreError("give exactly one of --dataset NAME or --data FILE.csv --label COL")
    n = next(p for p in DATA_PARAMS if p.name == "n").check(n)
    seed = SEED.check("seed", seed)
    if dataset in SIMULATIONS:
        test_n = Interval(Integral, MIN_TEST_ROWS, MAX_TEST_ROWS).check("test_n", test_n)
        return make_simulation(dataset, n, seed), make_simulation(dataset, test_n, seed + 1)
    if dataset:
        full = load_dataset(dataset, n, seed)
    else:
        if not label:
            raise SVMCoreError("--data needs --label COL (the column holding the classes)")
        full = load_csv(path, label=label, positive=positive, max_rows=MAX_ROWS,
                        criteria_note=f"a one-shot fit (svmcore.spec.MAX_ROWS = {MAX_ROWS})")
    return holdout_split(full, test_fraction, seed)



def load_run_data(ds: DataSpec) -> tuple[Dataset, Dataset]:
    """(train, test) of a single-run family (COSSO, USVC) from a validated DataSpec: a simulation
    and a fresh sample of ``test_n`` points (seed + 1), or real data split by ``test_fraction``."""
    if ds.source not in ("simulation", "bundled", "csv"):
        raise SVMCoreError(f"data source {ds.source!r} cannot be loaded from a spec")
    return sample_and_test(dataset=None if ds.source == "csv" else ds.name,
                           path=ds.path if ds.source == "csv" else None, label=ds.label,
                           positive=ds.positive, n=ds.n, seed=ds.seed, test_n=ds.test_n,
                           test_fraction=ds.test_fraction)
