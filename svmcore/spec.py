"""One frozen, validated run specification: ``RunSpec``.

Every entry point builds a ``RunSpec`` and nothing else: the CLI from its arguments, the app from
its widgets and from the URL, studies from their settings. All rules (types, ranges, caps) are in
this module, in the declarative tables ``RUN_CONSTRAINTS`` and ``DATA_CONSTRAINTS`` (the idea of
scikit-learn's ``_parameter_constraints``), checked once by :func:`validate`. A result carries its
spec; the cache key and the URL are derived from it (:meth:`RunSpec.key`, :meth:`RunSpec.to_query`).
"""
from __future__ import annotations

import hashlib
import json
import math
import os
from dataclasses import asdict, dataclass, field, fields, replace
from numbers import Integral, Real
from typing import Any, Mapping

import numpy as np

from ._validation import SVMCoreError

# ------------------------------------------------------------------ limits (one place)
#: log2(nλ) and log2 σ must lie in these closed ranges (also the adaptive grid's hard limits)
LOG2_NLAMBDA_LIMITS = (-40.0, 20.0)
LOG2_SIGMA_LIMITS = (-10.0, 10.0)
#: most values on one grid axis, and in the whole grid
MAX_AXIS_POINTS = 2001
MAX_GRID_POINTS = 20_000
#: largest training set: one n×n Gram matrix per σ column in memory
MAX_ROWS = 5000
#: exact leave-one-out refits every support vector at every λ
LOO_MAX_ROWS = 1000
MIN_ROWS = 10
MAX_SEED = 2**32 - 1


# ------------------------------------------------------------------ constraints
@dataclass(frozen=True)
class Interval:
    """A numeric range constraint: ``kind`` is Integral or Real; ``closed`` as in scikit-learn."""

    kind: type
    low: float | None
    high: float | None
    closed: str = "both"           # "both", "left", "right", "neither"

    def check(self, name: str, value) -> Any:
        if isinstance(value, bool) or not isinstance(value, (Integral, Real)):
            raise SVMCoreError(f"{name} must be a number, got {value!r}")
        if self.kind is Integral and float(value) != int(value):
            raise SVMCoreError(f"{name} must be a whole number, got {value!r}")
        v = int(value) if self.kind is Integral else float(value)
        if not math.isfinite(float(v)):
            raise SVMCoreError(f"{name} must be a finite number, got {value!r}")
        lo_ok = self.low is None or (v >= self.low if self.closed in ("both", "left") else v > self.low)
        hi_ok = self.high is None or (v <= self.high if self.closed in ("both", "right") else v < self.high)
        if not (lo_ok and hi_ok):
            raise SVMCoreError(f"{name} must be in {self.describe()}, got {value!r}")
        return v

    def describe(self) -> str:
        left = "[" if self.closed in ("both", "left") else "("
        right = "]" if self.closed in ("both", "right") else ")"
        fmt = (lambda v: f"{int(v)}") if self.kind is Integral else (lambda v: f"{v:g}")
        lo = "-inf" if self.low is None else fmt(self.low)
        hi = "inf" if self.high is None else fmt(self.high)
        return f"{left}{lo}, {hi}{right}"


@dataclass(frozen=True)
class Options:
    """The value must be one of ``choices``."""

    choices: tuple

    def check(self, name: str, value) -> Any:
        if value not in self.choices:
            raise SVMCoreError(f"{name} must be one of {', '.join(map(str, self.choices))}; "
                               f"got {value!r}")
        return value


@dataclass(frozen=True)
class OneOf:
    """Any of several constraints (e.g. a number or None)."""

    options: tuple

    def check(self, name: str, value) -> Any:
        errors = []
        for c in self.options:
            if c is None:
                if value is None:
                    return None
                continue
            try:
                return c.check(name, value)
            except SVMCoreError as exc:
                errors.append(str(exc))
        raise SVMCoreError(errors[-1] if errors else f"{name}: invalid value {value!r}")


Constraint = Interval | Options | OneOf

SEED = Interval(Integral, 0, MAX_SEED)

#: RunSpec fields other than data, grid, model, criteria and options
RUN_CONSTRAINTS: dict[str, Constraint] = {
    "cost_a": Interval(Real, 1e-3, 1e3),
    "cost_b": Interval(Real, 1e-3, 1e3),
    "prior_a": OneOf((None, Interval(Real, 0.0, 1.0, "neither"))),
    "xa_rho": Interval(Real, 0.0, 10.0, "right"),
    "cv_folds": Interval(Integral, 2, 50),
    "cv_seed": SEED,
    "solver": Options(("auto", "path", "cvxopt", "libsvm")),
    "extend_grid": Options((True, False)),
}

DATA_CONSTRAINTS: dict[str, Constraint] = {
    "source": Options(("simulation", "bundled", "csv", "inline")),
    "n": OneOf((None, Interval(Integral, MIN_ROWS, MAX_ROWS))),
    "seed": SEED,
    "test_fraction": Interval(Real, 0.0, 0.5, "left"),
    "split_seed": SEED,
    "n_max": OneOf((None, Interval(Integral, MIN_ROWS, MAX_ROWS))),
    "standardize": Options((True, False)),
}


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


# ------------------------------------------------------------------ data source
@dataclass(frozen=True)
class DataSpec:
    """Where the training data come from.

    source : "simulation" (``name``, ``n``, ``seed``), "bundled" (``name``), "csv" (``path``,
    ``label``, ``positive``, ``p_column``, ``features``; ``name`` is a display name and
    ``fingerprint`` a hash of the file's bytes for the cache key) or "inline" (a Dataset passed
    in code; ``fingerprint`` identifies it).
    test_fraction, split_seed : a stratified held-out split of real data (0: none).
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
    fingerprint: str = ""


# ------------------------------------------------------------------ the run spec
@dataclass(frozen=True)
class RunSpec:
    """Everything that determines a run's numbers. Build it with :func:`make_spec`.

    Attributes
    ----------
    model : family name (``svmcore.families.FAMILIES``).
    data : DataSpec.   grid : GridSpec.
    cost_a, cost_b : C_A (cost of calling a B an A) and C_B (calling an A a B).
    prior_a : π_A in the target population, or None for the sample proportion
        (weights L(±1): Wahba et al. 2001, §1.7; ``docs/svm.md``).
    criteria : the criteria to compute (names of the family's ``criteria``).
    xa_rho : ρ of Joachims' ξα (XA).   cv_folds, cv_seed : k-fold CV.
    solver : the SVM's dual solver.   extend_grid : grow the grid until minimizers are inside.
    options : family options as sorted (name, value) pairs, validated by the family.
    """

    model: str = "svm"
    data: DataSpec = field(default_factory=DataSpec)
    grid: GridSpec = field(default_factory=GridSpec.paper)
    cost_a: float = 1.0
    cost_b: float = 1.0
    prior_a: float | None = None
    criteria: tuple[str, ...] = ()
    xa_rho: float = 2.0
    cv_folds: int = 5
    cv_seed: int = 0
    solver: str = "auto"
    extend_grid: bool = False
    options: tuple[tuple[str, Any], ...] = ()

    # ---------------------------------------------------------------- derived
    @property
    def family(self):
        from .families import get_family
        return get_family(self.model)

    def option(self, name: str, default=None):
        return dict(self.options).get(name, default)

    @property
    def is_standard(self) -> bool:
        """Equal costs and the sample's own priors: L ≡ 1."""
        return self.cost_a == self.cost_b == 1.0 and self.prior_a is None

    def weights(self, y):
        """ClassWeights L(±1) for labels ``y`` (Wahba et al. 2001, §1.7)."""
        from .weights import class_weights_from_costs
        return class_weights_from_costs(y, self.cost_a, self.cost_b, self.prior_a)

    def to_dict(self) -> dict:
        """Plain JSON-able dict (axes as "START:STOP:STEP" text)."""
        d = asdict(self)
        d["grid"] = {"log2_nlambda": self.grid.log2_nlambda.text,
                     "log2_sigma": self.grid.log2_sigma.text}
        d["criteria"] = list(self.criteria)
        d["options"] = {k: v for k, v in self.options}
        d["data"]["features"] = None if self.data.features is None else list(self.data.features)
        return d

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))

    def key(self, salt: str = "") -> str:
        """Content hash of the spec (and ``salt``, e.g. a code fingerprint): the cache key."""
        return hashlib.sha256((self.to_json() + "|" + salt).encode()).hexdigest()[:24]

    def with_grid(self, grid: GridSpec) -> "RunSpec":
        return replace(self, grid=grid)


def validate(spec: RunSpec) -> RunSpec:
    """Check every field of ``spec`` against the tables above and the family's options.

    Returns a normalised copy (numbers coerced, criteria resolved against the family) or raises
    ``SVMCoreError`` naming the first problem.
    """
    from .families import FAMILIES, get_family

    if spec.model not in FAMILIES:
        raise SVMCoreError(f"unknown model {spec.model!r}; choose from {', '.join(FAMILIES)}")
    family = get_family(spec.model)
    top = {name: c.check(name, getattr(spec, name)) for name, c in RUN_CONSTRAINTS.items()}
    data = spec.data
    dvals = {name: c.check(f"data.{name}", getattr(data, name)) for name, c in DATA_CONSTRAINTS.items()}
    data = replace(data, **dvals)
    if data.source == "csv" and not (data.label or data.path):
        raise SVMCoreError("a CSV data source needs a file and a label column")
    grid = GridSpec.parse(spec.grid.log2_nlambda, spec.grid.log2_sigma)
    crit = [c.strip().lower() for c in spec.criteria if str(c).strip()]
    if spec.criteria and not crit:
        raise SVMCoreError("the criteria list is empty; choose from " + ", ".join(family.criteria))
    unknown = [c for c in crit if c not in family.criteria]
    if unknown:
        raise SVMCoreError(f"unknown criteria {unknown} for model {spec.model!r}; choose from "
                           f"{', '.join(family.criteria)}")
    opts = dict(spec.options)
    bad = sorted(set(opts) - set(family.option_constraints))
    if bad:
        raise SVMCoreError(f"model {spec.model!r} has no option {bad[0]!r}")
    opts = {k: family.option_constraints[k].check(k, v) for k, v in sorted(opts.items())}
    return replace(spec, data=data, grid=grid, criteria=tuple(dict.fromkeys(crit)),
                   options=tuple(sorted(opts.items())), **top)


def make_spec(model: str = "svm", *, data: DataSpec | Mapping | None = None,
              log2_nlambda="-25:0:1", log2_sigma="-3:3:0.5", **fields_) -> RunSpec:
    """Build and validate a RunSpec from plain values (axis text, numbers, lists)."""
    if data is None:
        data = DataSpec()
    elif isinstance(data, Mapping):
        d = dict(data)
        if d.get("features") is not None:
            d["features"] = tuple(d["features"])
        data = DataSpec(**d)
    if "criteria" in fields_ and fields_["criteria"] is not None:
        c = fields_["criteria"]
        fields_["criteria"] = tuple(c.split(",")) if isinstance(c, str) else tuple(c)
    elif "criteria" in fields_:
        fields_["criteria"] = ()
    if isinstance(fields_.get("options"), Mapping):
        fields_["options"] = tuple(sorted(fields_["options"].items()))
    known = {f.name for f in fields(RunSpec)}
    extra = sorted(set(fields_) - known)
    if extra:
        raise SVMCoreError(f"unknown setting {extra[0]!r}")
    grid = GridSpec.parse(log2_nlambda, log2_sigma)
    return validate(RunSpec(model=model, data=data, grid=grid, **fields_))


def spec_from_dict(d: Mapping) -> RunSpec:
    """Inverse of :meth:`RunSpec.to_dict` (validated); for saved runs and the cache."""
    d = dict(d)
    grid = d.pop("grid", {}) or {}
    return make_spec(d.pop("model", "svm"), data=d.pop("data", None),
                     log2_nlambda=grid.get("log2_nlambda", "-25:0:1"),
                     log2_sigma=grid.get("log2_sigma", "-3:3:0.5"), **d)


def clamp_jobs(jobs: int | None, n_tasks: int) -> int:
    """Workers for ``n_tasks`` independent tasks: at most one per task and one per core (≥ 1)."""
    cores = os.cpu_count() or 1
    if jobs is None or jobs <= 0:
        jobs = cores
    return max(1, min(int(jobs), cores, max(1, n_tasks)))
