"""One frozen, validated run specification: ``RunSpec`` = model + data + grid + kernel + the
family's parameters.

Every entry point builds a ``RunSpec`` and nothing else: the CLI from its arguments, the app from
its widgets and links, studies and estimators from their settings. The rules are declared once, as
:class:`~svmcore.params.Param` tables: ``DATA_PARAMS`` and ``GRID_PARAMS`` here, ``run_params`` (the
model, its kernel and criteria) and each family's ``params``. :func:`validate` checks a spec against
them; the cache key, the saved JSON and links (``svmcore.codec``) are generated from the same
tables, so a parameter a family does not declare is in none of them.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
from dataclasses import asdict, dataclass, field, replace
from numbers import Integral, Real
from typing import Any, Mapping

import numpy as np

from ._validation import SVMCoreError
from .params import Boolean, Interval, ListOf, OneOf, Options, Param, Text  # noqa: F401 (re-exported)

# ------------------------------------------------------------------ limits (one place)
#: log2(nλ) and log2 σ must lie in these closed ranges (also the adaptive grid's hard limits)
LOG2_NLAMBDA_LIMITS = (-40.0, 20.0)
LOG2_SIGMA_LIMITS = (-10.0, 10.0)
#: most values on one grid axis, and in the whole grid
MAX_AXIS_POINTS = 2001
MAX_GRID_POINTS = 20_000
#: largest training set (issue 21: real data at full size up to 10,000 rows). One n×n Gram matrix
#: per σ column and worker is held (800 MB at this cap), and the exact path's cost grows like n³
#: (n = 1600: 20 s for the app's default grid; n = 2000: 45 s for the paper grid): the app and the
#: CLI state the estimate before such a sweep, and the app's default ``n_max`` subsamples to 2000
MAX_ROWS = 10_000
#: exact leave-one-out refits every support vector at every λ
LOO_MAX_ROWS = 1000
MIN_ROWS = 10
#: largest fresh test sample of a simulation
MAX_TEST_ROWS = 200_000
MAX_SEED = 2**32 - 1


# ------------------------------------------------------------------ constraints
SEED = Interval(Integral, 0, MAX_SEED)


# ------------------------------------------------------------------ axes and grid
def _finite(text: str, what: str, name: str) -> float:
    try:
        v = float(text)
    except (TypeError, ValueError):
        raise SVMCoreError(f"{name}: {what} must be a number, got {text!r}") from None
    if not math.isfinite(v):
        raise SVMCoreError(f"{name}: {what} must be finite, got {text!r}")
    return v


@dataclass(frozen=True)
class Axis:
    """A grid axis START:STOP:STEP (STOP included when on the grid); STEP 0 means the single START.

    Values are rounded to 12 decimals so that ``-25:0:1`` gives exact integers.
    """

    start: float
    stop: float
    step: float

    @classmethod
    def parse(cls, text, name: str, limits: tuple[float, float]) -> "Axis":
        """Parse "START:STOP:STEP" or a single number; every value must lie within ``limits``."""
        if isinstance(text, Axis):
            ax = text
        else:
            parts = str(text).strip().split(":")
            if len(parts) == 1:
                v = _finite(parts[0], "the value", name)
                ax = cls(v, v, 0.0)
            elif len(parts) == 3:
                start, stop, step = (_finite(p, w, name) for p, w in
                                     zip(parts, ("START", "STOP", "STEP")))
                if step <= 0:
                    raise SVMCoreError(f"{name}: STEP must be positive, got {step:g}")
                if stop < start:
                    raise SVMCoreError(f"{name}: STOP ({stop:g}) is below START ({start:g})")
                ax = cls(start, stop, step)
            else:
                raise SVMCoreError(f"{name} must be START:STOP:STEP or one number, got {text!r}")
        ax.check(name, limits)
        return ax

    def check(self, name: str, limits: tuple[float, float]) -> None:
        lo, hi = limits
        if not (lo <= self.start and self.stop <= hi):
            raise SVMCoreError(f"{name} must stay within [{lo:g}, {hi:g}], got "
                               f"{self.start:g}…{self.stop:g}")
        if self.step > 0:
            count = math.floor((self.stop - self.start) / self.step + 1e-9) + 1
            if count > MAX_AXIS_POINTS:
                raise SVMCoreError(f"{name} has {count} values; at most {MAX_AXIS_POINTS} are allowed")
            if self.step < 1e-6:
                raise SVMCoreError(f"{name}: STEP must be at least 1e-06, got {self.step:g}")

    @property
    def count(self) -> int:
        if self.step == 0:
            return 1
        return math.floor((self.stop - self.start) / self.step + 1e-9) + 1

    def values(self) -> np.ndarray:
        if self.step == 0:
            return np.array([self.start])
        return np.round(self.start + self.step * np.arange(self.count), 12)

    @property
    def text(self) -> str:
        if self.step == 0:
            return f"{self.start:g}"
        return f"{self.start:g}:{self.stop:g}:{self.step:g}"


@dataclass(frozen=True)
class GridSpec:
    """log2(nλ) × log2(σ) (Gaussian kernel exp(−‖x − x'‖²/(2σ²)))."""

    log2_nlambda: Axis
    log2_sigma: Axis

    @classmethod
    def parse(cls, log2_nlambda, log2_sigma) -> "GridSpec":
        g = cls(Axis.parse(log2_nlambda, "log2(nλ)", LOG2_NLAMBDA_LIMITS),
                Axis.parse(log2_sigma, "log2(σ)", LOG2_SIGMA_LIMITS))
        if g.size > MAX_GRID_POINTS:
            raise SVMCoreError(f"the grid has {g.log2_nlambda.count} × {g.log2_sigma.count} = "
                               f"{g.size} points; at most {MAX_GRID_POINTS} are allowed")
        return g

    @classmethod
    def paper(cls) -> "GridSpec":
        """Wahba et al. (2001) Fig 1.3's λ range, log2(nλ) = −25…0 step 1, × log2 σ = −3…3 step 0.5."""
        return cls.parse("-25:0:1", "-3:3:0.5")

    @property
    def size(self) -> int:
        return self.log2_nlambda.count * self.log2_sigma.count



@dataclass(frozen=True)
class AxisText:
    """A grid axis "START:STOP:STEP" or one number within ``limits`` (value: its normalised text)."""

    limits: tuple[float, float]

    def check(self, name: str, value) -> str:
        return Axis.parse(value, name, self.limits).text

    parse = check

    def describe(self) -> str:
        return f"START:STOP:STEP or one number within [{self.limits[0]:g}, {self.limits[1]:g}]"

    def invalid(self):
        return f"0:{self.limits[1] + 5:g}:1"

    invalid_text = invalid


# ------------------------------------------------------------------ data source
@dataclass(frozen=True)
class DataSpec:
    """Where the training data come from.

    source : "simulation" (``name``, ``n``, ``seed``), "bundled" (``name``), "csv" (``path``,
    ``label``, ``positive``, ``p_column``, ``features``; ``name`` is a display name and
    ``fingerprint`` a hash of the file's bytes for the cache key) or "inline" (a Dataset passed
    in code; ``fingerprint`` identifies it).
    test_fraction, split_seed : a stratified held-out split of real data (0: none).
    test_n : a fresh test sample of a simulation (seed + 1), for the single-run families.
    n_max : at most this many training rows (stratified subsample), or None for all.
    """

    source: str = "simulation"
    name: str = "wahba2d"
    n: int | None = None
    seed: int = 0
    path: str | None = None
    label: str | None = None
    positive: str | None = None
    p_column: str | None = None
    features: tuple[str, ...] | None = None
    standardize: bool = True
    test_fraction: float = 0.0
    split_seed: int = 0
    n_max: int | None = None
    test_n: int = 0
    fingerprint: str = ""


#: a data set's name: a listed simulation or bundled set, or the display name of a CSV file
_NAME = Text(200, r"[^\x00-\x1f]+", "a name without control characters")
_COLUMN = Text(200, r"[^\x00-\x1f]+", "a column name")
_ROWS = OneOf((None, Interval(Integral, MIN_ROWS, MAX_ROWS)))

#: the data table; ``dataset`` is DataSpec.name and ``data`` DataSpec.path (see DATA_FIELDS)
DATA_PARAMS: tuple[Param, ...] = (
    Param("source", Options(("simulation", "bundled", "csv", "inline")), "simulation", "data source",
          "where the data come from (the CLI derives it from --dataset or --data)",
          cli_flag=None, widget="select"),
    Param("dataset", _NAME, "wahba2d", "data set",
          "a simulation or bundled data set (see `svmcore datasets`)", widget="select"),
    Param("n", _ROWS, None, "n", "sample size of a simulation (none: its default)", unit="rows",
          widget="int"),
    Param("seed", SEED, 0, "seed", "seed of a simulation", widget="int"),
    Param("data", OneOf((None, Text(4096, r"[^\x00]+", "a file path"))), None, "CSV file",
          "a CSV file with a header row", url_key=None, widget="none"),
    Param("label", OneOf((None, _COLUMN)), None, "label column", "label column of the CSV",
          widget="select"),
    Param("positive", OneOf((None, _COLUMN)), None, "class A", "label value of class A (y = +1)",
          widget="select"),
    Param("p_column", OneOf((None, _COLUMN)), None, "P(A|x) column",
          "column with the true P(A|x), if known", widget="select"),
    Param("features", OneOf((None, ListOf(_COLUMN, 10_000, 1))), None, "features",
          "feature columns (none: all others)", widget="multiselect"),
    Param("standardize", Boolean(), True, "standardize", "scale CSV features to mean 0, sd 1",
          widget="checkbox"),
    Param("test_fraction", Interval(Real, 0.0, 0.5, "left"), 0.0, "test fraction",
          "stratified share of real data held out as a test set", aliases=("test_frac",),
          widget="slider", step=0.05),
    Param("split_seed", SEED, 0, "split seed",
          "seed of the test split and subsample (default: the --seed)", widget="int"),
    Param("test_n", Interval(Integral, 0, MAX_TEST_ROWS), 0, "test sample size",
          "size of a fresh test sample of a simulation, drawn with seed + 1 (0: none)", unit="rows",
          widget="int"),
    Param("n_max", _ROWS, None, "most training rows",
          "stratified subsample of real data to at most this many rows (none: all)", unit="rows",
          widget="int"),
)
#: DATA_PARAMS names whose DataSpec field is named otherwise
DATA_FIELDS = {"dataset": "name", "data": "path"}

#: the grid table (Wahba et al. 2001, Fig 1.3: log2(nλ) × log2 σ)
GRID_PARAMS: tuple[Param, ...] = (
    Param("log2_nlambda", AxisText(LOG2_NLAMBDA_LIMITS), "-25:0:1", "log2(nλ)",
          "the λ axis as START:STOP:STEP of log2(nλ); C = 1/(2nλ)", aliases=("lam",), widget="text"),
    Param("log2_sigma", AxisText(LOG2_SIGMA_LIMITS), "-3:3:0.5", "log2 σ",
          "the kernel-width axis as START:STOP:STEP of log2 σ; γ = 1/(2σ²)", aliases=("sig",),
          widget="text"),
    Param("extend_grid", Boolean(), False, "grow the grid",
          "grow the grid in its own step until every criterion's minimizer is inside",
          aliases=("extend",), widget="checkbox"),
)


def run_params(family) -> tuple[Param, ...]:
    """The model, kernel and criteria entries for ``family`` (their choices are the family's)."""
    from .families import FAMILIES
    from .kernels import KERNELS

    return (
        Param("model", Options(tuple(FAMILIES)), "svm", "model family",
              "the model family (svm, logistic, cosso, usvc: see the README)", widget="select"),
        Param("kernel", Options(tuple(family.kernels)), family.kernels[0], "kernel",
              "; ".join(f"{k}: {KERNELS[k].formula}" for k in family.kernels if k in KERNELS)
              or "the family's own kernel", widget="select"),
        Param("criteria", ListOf(Options(tuple(family.criteria_names)), 50), (), "criteria",
              "criteria to compute (none: the family's defaults)", widget="multiselect"),
    )


def spec_params(family) -> tuple[Param, ...]:
    """Every parameter of a run of ``family``: run, data, grid, then the family's own."""
    return run_params(family) + DATA_PARAMS + GRID_PARAMS + tuple(family.params)


# ------------------------------------------------------------------ the run spec
@dataclass(frozen=True)
class RunSpec:
    """Everything that determines a run's numbers. Build it with :func:`make_spec`.

    Attributes
    ----------
    model : family name (``svmcore.families.FAMILIES``).
    data : DataSpec.   grid : GridSpec.   kernel : a name from the family's ``kernels``.
    criteria : the criteria to compute (names in the family's criteria registry).
    extend_grid : grow the grid until minimizers are inside.
    params : the family's parameters (every one the family declares, defaults filled in) as sorted
        (name, value) pairs. Each reads as an attribute too: ``spec.cost_a``.
    """

    model: str = "svm"
    data: DataSpec = field(default_factory=DataSpec)
    grid: GridSpec = field(default_factory=GridSpec.paper)
    kernel: str = "gaussian"
    criteria: tuple[str, ...] = ()
    extend_grid: bool = False
    params: tuple[tuple[str, Any], ...] = ()

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        for k, v in object.__getattribute__(self, "params"):
            if k == name:
                return v
        raise AttributeError(f"model {self.model!r} has no parameter {name!r}")

    # ---------------------------------------------------------------- derived
    @property
    def family(self):
        from .families import get_family
        return get_family(self.model)

    def get(self, name: str, default=None):
        """The family parameter ``name``, or ``default`` when the family has none by that name."""
        return dict(self.params).get(name, default)

    option = get

    @property
    def is_standard(self) -> bool:
        """Equal costs and the sample's own priors: L ≡ 1."""
        return self.get("cost_a", 1.0) == self.get("cost_b", 1.0) == 1.0 and self.get("prior_a") is None

    def weights(self, y):
        """ClassWeights L(±1) for labels ``y`` (Wahba et al. 2001, §1.7); L ≡ 1 for a family
        without costs."""
        from .weights import class_weights_from_costs
        return class_weights_from_costs(y, self.get("cost_a", 1.0), self.get("cost_b", 1.0),
                                        self.get("prior_a"))

    def to_dict(self) -> dict:
        """Plain JSON-able dict (axes as "START:STOP:STEP" text), with a format version."""
        d = asdict(self)
        d["grid"] = {"log2_nlambda": self.grid.log2_nlambda.text,
                     "log2_sigma": self.grid.log2_sigma.text}
        d["criteria"] = list(self.criteria)
        d["params"] = {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.params}
        d["data"]["features"] = None if self.data.features is None else list(self.data.features)
        d["version"] = SPEC_VERSION
        return d

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))

    def key(self, salt: str = "") -> str:
        """Content hash of the spec (and ``salt``, e.g. a code fingerprint): the cache key."""
        return hashlib.sha256((self.to_json() + "|" + salt).encode()).hexdigest()[:24]

    def with_grid(self, grid: GridSpec) -> "RunSpec":
        return replace(self, grid=grid)

    def with_params(self, **values) -> "RunSpec":
        """A validated copy with some family parameters changed."""
        return validate(replace(self, params=tuple(sorted({**dict(self.params), **values}.items()))))


#: the saved-JSON format of a RunSpec (1: costs, ρ, solver and options at the top level)
SPEC_VERSION = 2


def _check_data(data: DataSpec) -> DataSpec:
    vals = {}
    for p in DATA_PARAMS:
        field_name = DATA_FIELDS.get(p.name, p.name)
        try:
            vals[field_name] = p.check(getattr(data, field_name))
        except SVMCoreError as exc:
            raise SVMCoreError(f"data: {exc}") from None
    data = replace(data, **vals)
    if data.source == "csv" and not (data.label and data.path):
        raise SVMCoreError("a CSV data source needs a file and a label column")
    return data


def _check_criteria(spec: RunSpec, family) -> tuple[str, ...]:
    crit = [str(c).strip().lower() for c in spec.criteria if str(c).strip()]
    if spec.criteria and not crit:
        raise SVMCoreError("the criteria list is empty; choose from " + ", ".join(family.criteria_names))
    unknown = [c for c in crit if c not in family.criteria_names]
    if unknown:
        raise SVMCoreError(f"unknown criteria {unknown} for model {spec.model!r}; choose from "
                           f"{', '.join(family.criteria_names)}")
    return tuple(dict.fromkeys(crit))


def _check_params(spec: RunSpec, family) -> tuple[tuple[str, Any], ...]:
    given = dict(spec.params)
    declared = {p.name: p for p in family.params}
    bad = sorted(set(given) - set(declared))
    if bad:
        raise SVMCoreError(f"model {spec.model!r} has no parameter {bad[0]!r}; its parameters: "
                           f"{', '.join(declared) or 'none'}")
    return tuple(sorted((name, p.check(given.get(name, p.default))) for name, p in declared.items()))


def validate(spec: RunSpec) -> RunSpec:
    """Check every field of ``spec`` against the tables; returns a normalised copy (numbers
    coerced, the family's parameters filled with their defaults) or raises ``SVMCoreError``
    naming the first problem."""
    from .families import FAMILIES, get_family

    if spec.model not in FAMILIES:
        raise SVMCoreError(f"unknown model {spec.model!r}; choose from {', '.join(FAMILIES)}")
    family = get_family(spec.model)
    run = {p.name: p for p in run_params(family)}
    kernel = run["kernel"].check(spec.kernel)
    extend = GRID_PARAMS[2].check(spec.extend_grid)
    grid = GridSpec.parse(spec.grid.log2_nlambda, spec.grid.log2_sigma)
    return replace(spec, data=_check_data(spec.data), grid=grid, kernel=kernel,
                   criteria=_check_criteria(spec, family), extend_grid=extend,
                   params=_check_params(spec, family))


def make_spec(model: str = "svm", *, data: DataSpec | Mapping | None = None,
              log2_nlambda="-25:0:1", log2_sigma="-3:3:0.5", kernel: str | None = None,
              criteria=(), extend_grid: bool = False, options: Mapping | None = None,
              **params) -> RunSpec:
    """Build and validate a RunSpec from plain values (axis text, numbers, lists).

    ``params`` are the family's parameters by name (``cost_a=2``); ``options`` is the same as a
    mapping. A name the family does not declare is refused, naming it.
    """
    from .families import get_family

    family = get_family(model) if isinstance(model, str) else None
    if data is None:
        data = DataSpec()
    elif isinstance(data, Mapping):
        d = dict(data)
        if d.get("features") is not None:
            d["features"] = tuple(d["features"])
        data = DataSpec(**d)
    if criteria is None:
        criteria = ()
    criteria = tuple(criteria.split(",")) if isinstance(criteria, str) else tuple(criteria)
    values = {**dict(options or {}), **params}
    grid = GridSpec.parse(log2_nlambda, log2_sigma)
    if kernel is None:
        kernel = family.kernels[0] if family is not None else "gaussian"
    return validate(RunSpec(model=model, data=data, grid=grid, kernel=kernel, criteria=criteria,
                            extend_grid=extend_grid, params=tuple(sorted(values.items()))))


def spec_from_dict(d: Mapping) -> RunSpec:
    """Inverse of :meth:`RunSpec.to_dict` (validated); for saved runs and the cache.

    A version-1 dict (costs, ρ, folds, solver and ``options`` at the top level, no kernel) is read
    with those values moved into the family's parameters; values a family does not declare are
    dropped there, as that version ignored them too.
    """
    from .families import get_family

    d = dict(d)
    grid = d.pop("grid", {}) or {}
    model = d.pop("model", "svm")
    version = d.pop("version", 1)
    params = dict(d.pop("params", {}) or {})
    if version == 1:
        legacy = {**d.pop("options", {}), **{k: d.pop(k) for k in list(d) if k in _V1_TOP}}
        declared = {p.name for p in get_family(model).params}
        params.update({k: v for k, v in legacy.items() if k in declared})
    params = {k: (tuple(v) if isinstance(v, list) else v) for k, v in params.items()}
    extra = sorted(set(d) - {"data", "kernel", "criteria", "extend_grid"})
    if extra:
        raise SVMCoreError(f"unknown setting {extra[0]!r}")
    return make_spec(model, data=d.get("data"), log2_nlambda=grid.get("log2_nlambda", "-25:0:1"),
                     log2_sigma=grid.get("log2_sigma", "-3:3:0.5"), kernel=d.get("kernel"),
                     criteria=d.get("criteria") or (), extend_grid=bool(d.get("extend_grid", False)),
                     **params)


_V1_TOP = ("cost_a", "cost_b", "prior_a", "xa_rho", "cv_folds", "cv_seed", "solver")


def clamp_jobs(jobs: int | None, n_tasks: int) -> int:
    """Workers for ``n_tasks`` independent tasks: at most one per task and one per core (≥ 1)."""
    cores = os.cpu_count() or 1
    if jobs is None or jobs <= 0:
        jobs = cores
    return max(1, min(int(jobs), cores, max(1, n_tasks)))
