"""The ``Dataset`` record every data source returns (simulation, bundled CSV, uploaded CSV)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .._validation import check_labels, check_matrix, check_probability


@dataclass
class Dataset:
    """Features, ±1 labels and, when known, the true P(A | x) of a two-class problem.

    Attributes
    ----------
    name : str
    X : (n, d) float array of features (already standardized if ``standardized``).
    y : (n,) float array of +1 (class A) / −1 (class B).
    p : (n,) float array of P(A | x_i) in the sampled population, or None when unknown.
    p_fn : callable mapping an (m, d) array to P(A | x), or None; lets plots draw the Bayes boundary.
    feature_names : list of str.
    class_names : (name of class A, name of class B).
    description : one line for the UI.
    source : provenance (citation or "simulation, seed S").
    standardized : whether X was centred and scaled; ``center``/``scale`` hold what was used.
    """

    name: str
    X: np.ndarray
    y: np.ndarray
    p: np.ndarray | None = None
    p_fn: Callable[[np.ndarray], np.ndarray] | None = None
    feature_names: list = field(default_factory=list)
    class_names: tuple = ("A", "B")
    description: str = ""
    source: str = ""
    standardized: bool = False
    center: np.ndarray | None = None
    scale: np.ndarray | None = None

    def __post_init__(self):
        self.X = check_matrix(self.X, "X")
        self.y = check_labels(self.y)
        if self.X.shape[0] != self.y.shape[0]:
            raise ValueError(f"X has {self.X.shape[0]} rows but y has {self.y.shape[0]}")
        self.p = check_probability(self.p, self.n, "p")
        if not self.feature_names:
            self.feature_names = [f"x{j + 1}" for j in range(self.d)]

    @property
    def n(self) -> int:
        return int(self.X.shape[0])

    @property
    def d(self) -> int:
        return int(self.X.shape[1])

    @property
    def has_truth(self) -> bool:
        """True when P(A | x) is known at the training points (targets GCKL, MISCLASS… computable)."""
        return self.p is not None

    def subset(self, idx, name: str | None = None) -> "Dataset":
        """Rows ``idx`` as a new Dataset (same p_fn, names and scaling)."""
        idx = np.asarray(idx)
        return Dataset(name or self.name, self.X[idx], self.y[idx],
                       None if self.p is None else self.p[idx], self.p_fn,
                       list(self.feature_names), self.class_names, self.description,
                       self.source, self.standardized, self.center, self.scale)


def standardize(X: np.ndarray):
    """Centre each column at its mean and scale to unit (population) standard deviation.

    Returns (Z, center, scale). Constant columns must be rejected before this is called.
    """
    center = X.mean(axis=0)
    scale = X.std(axis=0)
    scale = np.where(scale > 0, scale, 1.0)
    return (X - center) / scale, center, scale
