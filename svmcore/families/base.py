"""The interface between the generic grid runner and a model family.

The runner (``svmcore.grid``) owns the loop over σ columns: it builds one Gram matrix per σ and
hands the family a :class:`Column`. The family fits along λ (warm starts, a path, Newton steps…)
and returns one row dict per λ with its criteria and diagnostics. Everything family-specific
(solvers, criteria, options) lives in the family's own subpackage; the runner never branches on
the family's name.

A new family is a subpackage of ``svmcore.families`` with a ``family.py`` that defines an object
satisfying :class:`ModelFamily`, plus one entry in ``svmcore.families.FAMILIES``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping, Protocol, Sequence, runtime_checkable

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
    K : (n, n) Gram matrix of the Gaussian kernel at ``sigma`` (computed once per column).
    sigma, log2_sigma : the kernel width and its log2.
    log2_nlambda : (m,) the requested log2(nλ) values, in grid order (ascending).
    lambdas : (m,) λ = 2^log2_nlambda / n.
    weights : the class weights L(±1) from the spec's costs and priors (Wahba et al. 2001, §1.7).
    spec : the validated RunSpec (criteria, folds, seeds, family options).
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

    def base_row(self, k: int) -> dict:
        """The coordinates every row starts with: log2_sigma, log2_nlambda, sigma, lambda."""
        return {"log2_sigma": self.log2_sigma, "log2_nlambda": float(self.log2_nlambda[k]),
                "sigma": self.sigma, "lambda": float(self.lambdas[k])}


@runtime_checkable
class ModelFamily(Protocol):
    """What a model family supplies to the grid runner, the CLI, the app and studies.

    Attributes
    ----------
    name : registry key and ``--model`` value (``"svm"``, ``"logistic"``, …).
    title : display name.
    criteria : names a user may request (``RunSpec.criteria``).
    targets : the subset of ``criteria`` that needs the true P(A|x) (simulations or a p column).
    option_constraints : family options (``RunSpec.options``) and their constraints, in the form
        of :data:`svmcore.spec.Constraint`; validated with the rest of the spec.
    """

    name: str
    title: str
    criteria: tuple[str, ...]
    targets: tuple[str, ...]
    option_constraints: Mapping[str, Any]

    def default_criteria(self, has_truth: bool) -> tuple[str, ...]:
        """Criteria computed when the spec names none."""

    def result_columns(self, criteria: Sequence[str]) -> list[str]:
        """Table columns produced by the requested criteria (a criterion may give several)."""

    def diagnostic_columns(self) -> list[str]:
        """Per-row diagnostics after the criteria (solver, residuals, iteration counts…)."""

    def target_for(self, spec: "RunSpec") -> str | None:
        """The column a criterion's inefficiency is measured against, or None."""

    def check(self, spec: "RunSpec", n: int, n_pos: int, n_neg: int) -> None:
        """Family rules that need the data's size (row limits, folds ≤ class size…).

        Raise ``SVMCoreError`` naming the problem.
        """

    def column(self, col: Column) -> list[dict]:
        """Fit along λ for one σ column; one row per λ, in order, never raising for one bad λ
        (record it in the row's ``fit_error``)."""

    def fit_at(self, spec: "RunSpec", data: "Dataset", log2_nlambda: float, log2_sigma: float):
        """The fitted model at one grid point; it has ``decision_function(X)``."""
