"""The interface between the generic grid runner and a model family.

The runner (``svmcore.grid``) owns the loop over σ columns: it builds one Gram matrix per σ and
hands the family a :class:`Column`. The family fits along λ (warm starts, a path, Newton steps…)
and returns one row dict per λ with its criteria and diagnostics. Everything family-specific
(solvers, criteria, options) lives in the family's own subpackage; the runner never branches on
the family's name.

A new family is a subpackage of ``svmcore.families`` with a ``family.py`` that defines ``FAMILY``, an
instance of a :class:`ModelFamily` subclass, plus one entry in ``svmcore.families.FAMILIES``. The
registry checks the contract when it loads the family (:func:`check_family`): the required
members, and the capabilities it declares (``sweeps_grid``, ``single_run``, ``supports_study``),
which the runner, studies, CLI and app dispatch on. Nothing probes a family with ``hasattr``.

Criteria are declared in a registry, one :class:`Criterion` each (its function, what it needs, its
outputs with their labels, colours and scales, its target). Figures, panels, help, the criteria
page and picks read the registry; adding a criterion is one function and one entry.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from ..datasets.base import Dataset
    from ..spec import RunSpec
    from ..weights import ClassWeights


@dataclass(frozen=True)
class Column:
    """One σ column of the grid, as the runner hands it to a family.

    Attributes
    ----------
    data : the training Dataset.
    test : a held-out Dataset, or None.
    K : (n, n) Gram matrix of the spec's kernel at ``sigma`` (computed once per column).
    sigma, log2_sigma : the kernel width and its log2.
    log2_nlambda : (m,) the requested log2(nλ) values, in grid order (ascending).
    lambdas : (m,) λ = 2^log2_nlambda / n.
    weights : the class weights L(±1) from the spec's costs and priors (Wahba et al. 2001, §1.7).
    spec : the validated RunSpec (criteria, folds, seeds, family options).
    start : where an earlier run of this σ column stopped (the end ``ModelFamily.column_with_end``
        returned for it), from which a family may carry on toward smaller λ; None: from scratch.
    """

    data: "Dataset"
    test: "Dataset | None"
    K: np.ndarray
    sigma: float
    log2_sigma: float
    log2_nlambda: np.ndarray
    lambdas: np.ndarray
    weights: "ClassWeights"
    spec: "RunSpec"
    start: Any = None

    def base_row(self, k: int) -> dict:
        """The coordinates every row starts with: log2_sigma, log2_nlambda, sigma, lambda."""
        return {"log2_sigma": self.log2_sigma, "log2_nlambda": float(self.log2_nlambda[k]),
                "sigma": self.sigma, "lambda": float(self.lambdas[k])}



# ------------------------------------------------------------------ criteria registry
@dataclass(frozen=True)
class Output:
    """One table column a criterion writes, and how every figure shows it.

    scale : "log" for columns that grow like 1/λ (GACV, SURE): log colour scales.
    is_count : a count (XA): ties are common, so picks report their range.
    """

    name: str
    label: str
    colour: str
    dash: str = "solid"
    symbol: str = "circle"
    scale: str = "linear"
    is_count: bool = False


@dataclass(frozen=True)
class Criterion:
    """A tuning criterion or target of a family.

    name : what a user requests (``--criteria``, links).   label : display name.
    help : one sentence with the paper and equation.
    fn : a plain function ``fn(fit, ctx)`` of one fitted solution, or None when the family computes
        it from refits or the path (``needs``).
    needs : "fit" (one fit), "truth" (one fit and the true P(A|x): a target), "refits" (k-fold or
        leave-one-out refits), "heldout" (a test set).
    outputs : the table columns it writes (default: one column named ``name``).
    target : the target it estimates (GACV → GCKL), for the criteria page.
    heavy : refits at every grid point cost far more than the fit (exact LOO): the runner uses
        worker processes from smaller n.
    """

    name: str
    label: str
    help: str
    fn: Callable | None = None
    needs: str = "fit"
    outputs: tuple[Output, ...] = ()
    target: str | None = None
    heavy: bool = False

    @property
    def columns(self) -> tuple[str, ...]:
        return tuple(o.name for o in self.outputs)

    @property
    def is_target(self) -> bool:
        return self.needs == "truth"


@dataclass(frozen=True)
class FitContext:
    """What a criterion function may use besides the fit: the true p (targets) and the spec."""

    p: Any = None
    spec: Any = None


# ------------------------------------------------------------------ the contract
class ModelFamily(ABC):
    """What a model family supplies to the runner, studies, the CLI, the app and the estimators.

    Required: ``name``, ``title``, ``params`` (its parameter table, ``svmcore.params.Param``),
    ``criteria`` (its :class:`Criterion` registry), ``default_criteria``, ``diagnostic_columns``,
    ``fit_at``. Capabilities, declared (never probed):

    sweeps_grid : ``column(col)`` fits along λ for one σ column of the (λ, σ) grid.
    single_run : ``run(spec, data, test)`` fits and tunes on its own axis (COSSO's M) and returns
        a JSON payload; its studies use ``study_row``.
    supports_study : replicate studies (``svmcore.study``) work for it.
    kernels : kernel names it accepts (the first is the default).
    """

    name: str = ""
    title: str = ""
    params: tuple = ()
    criteria: tuple[Criterion, ...] = ()
    kernels: tuple[str, ...] = ("gaussian", "laplacian")
    sweeps_grid: bool = True
    single_run: bool = False
    supports_study: bool = True
    #: criteria whose pick may sit on an edge without growing the grid (e.g. OBS falls as λ → 0)
    edge_exempt: tuple[str, ...] = ()
    #: held-out columns written when the runner passes a test set
    holdout_columns: tuple[str, ...] = ()
    #: table columns that are neither criteria nor diagnostics (shown, never picked)
    info_columns: tuple[str, ...] = ()
    #: KKT (or convergence) residual above which a fit is flagged; None: never flagged
    kkt_flag: float | None = None
    #: defaults of generic parameters for the family's single run (``svmcore <name>``)
    run_defaults: dict = {}

    # ---------------------------------------------------------------- the registry
    @property
    def criteria_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.criteria)

    @property
    def targets(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.criteria if c.is_target)

    def criterion(self, name: str) -> Criterion:
        for c in self.criteria:
            if c.name == name:
                return c
        raise KeyError(name)

    def outputs(self) -> dict[str, Output]:
        """Every output column of every criterion, by column name."""
        return {o.name: o for c in self.criteria for o in c.outputs}

    def result_columns(self, criteria: Sequence[str]) -> list[str]:
        """Table columns of the requested criteria, after the family's info columns."""
        cols = list(self.info_columns)
        for name in criteria:
            cols.extend(self.criterion(name).columns)
        return list(dict.fromkeys(cols))

    # ---------------------------------------------------------------- required
    @abstractmethod
    def default_criteria(self, has_truth: bool) -> tuple[str, ...]:
        """Criteria computed when the spec names none."""

    @abstractmethod
    def diagnostic_columns(self) -> list[str]:
        """Per-row diagnostics after the criteria (solver, residuals, iteration counts…)."""

    @abstractmethod
    def fit_at(self, spec: "RunSpec", data: "Dataset", log2_nlambda: float, log2_sigma: float):
        """The fitted model at one grid point; it has ``decision_function(X)``."""

    # ---------------------------------------------------------------- optional, with defaults
    def target_for(self, spec: "RunSpec") -> str | None:
        """The column a criterion's inefficiency is measured against, or None."""
        return None

    def check(self, spec: "RunSpec", n: int, n_pos: int, n_neg: int) -> None:
        """Family rules that need the data's size; raise ``SVMCoreError`` naming the problem."""
        return None

    def column(self, col: Column) -> list[dict]:
        """Fit along λ for one σ column (``sweeps_grid``): one row per λ, in order, never raising
        for one bad λ (recorded in the row's ``fit_error``)."""
        raise NotImplementedError(f"{self.name} does not sweep (λ, σ)")

    def columns_in_threads(self, spec: "RunSpec", n: int) -> bool:
        """Whether the σ columns of ``spec`` on ``n`` rows may run on threads of one process
        (``grid.run_grid``) instead of worker processes: their work spends little time holding
        Python's GIL (compiled loops, BLAS and LAPACK). False (the default): processes."""
        return False

    def column_with_end(self, col: Column) -> tuple[list[dict], Any]:
        """``column(col)``'s rows and where the column's fits stopped, which a later run of the
        same σ column toward smaller λ (grid growth) gets as ``col.start`` to carry on from
        instead of starting again. The end is opaque to the runner; None (the default): a later
        run starts from scratch."""
        return self.column(col), None

    def run(self, spec: "RunSpec", data: "Dataset", test: "Dataset | None" = None) -> dict:
        """Fit and tune on the family's own axis (``single_run``): a JSON-able payload."""
        raise NotImplementedError(f"{self.name} has no single run")

    def study_row(self, spec: "RunSpec", data: "Dataset", test: "Dataset | None") -> dict:
        """One replicate of a study of a ``single_run`` family: its figures by name."""
        raise NotImplementedError(f"{self.name} has no study row")

    def paper_figures(self, spec: "RunSpec") -> dict:
        """The paper's published figures for this setting, by study-row name ({} when none)."""
        return {}

    def fit_payload(self, spec: "RunSpec", data: "Dataset", log2_nlambda: float,
                    log2_sigma: float) -> dict:
        """JSON of ``svmcore fit`` at one grid point."""
        raise NotImplementedError(f"{self.name} has no single-fit output")

    def unusable(self, table) -> np.ndarray:
        """Rows whose fit is not trusted (flagged, left out of every pick)."""
        return np.zeros(len(table), dtype=bool)

    def pick_rows(self, table, column: str, ok: np.ndarray):
        """A family's own pick rule for ``column``: (tied rows, note), or None for the plain
        minimum."""
        return None


REQUIRED_MEMBERS = ("name", "title", "params", "criteria", "kernels")


def check_family(family) -> None:
    """The contract, checked when a family is registered: a ModelFamily with its members, a
    unique parameter and criterion name each, every criterion with its outputs, a capability
    that matches what it overrides."""
    if not isinstance(family, ModelFamily):
        raise TypeError(f"{family!r} is not a ModelFamily")
    for m in REQUIRED_MEMBERS:
        if not getattr(family, m, None) and m != "params":
            raise TypeError(f"family {family.name or family!r} has no {m}")
    names = [p.name for p in family.params]
    reserved = {"model", "kernel", "criteria", "log2_nlambda", "log2_sigma", "extend_grid"}
    if len(set(names)) != len(names) or reserved & set(names):
        raise TypeError(f"family {family.name}: parameter names must be unique and not {sorted(reserved)}")
    crit = family.criteria_names
    if len(set(crit)) != len(crit) or any(not c.outputs for c in family.criteria):
        raise TypeError(f"family {family.name}: criteria must be unique and declare their outputs")
    cls = type(family)
    if family.sweeps_grid and cls.column is ModelFamily.column:
        raise TypeError(f"family {family.name} declares sweeps_grid but has no column()")
    if family.single_run and cls.run is ModelFamily.run:
        raise TypeError(f"family {family.name} declares single_run but has no run()")
