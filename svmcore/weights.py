"""Class weights L(y) from misclassification costs and class priors (Wahba et al. 2001, §1.7)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validation import SVMCoreError, check_labels


@dataclass(frozen=True)
class ClassWeights:
    """Per-class weights of the hinge loss, L(+1) and L(−1).

    Attributes
    ----------
    L_pos, L_neg : float
        L(+1) = C_B π_A / π_A^s and L(−1) = C_A π_B / π_B^s (Wahba et al. 2001, §1.7, §1.8).
    cost_a, cost_b : float
        C_A (cost of calling a B an A) and C_B (cost of calling an A a B).
    prior_a : float
        π_A, the class-A frequency in the target population.
    sample_prior_a : float
        π_A^s = n_A / n in the training sample.
    """

    L_pos: float
    L_neg: float
    cost_a: float = 1.0
    cost_b: float = 1.0
    prior_a: float = 0.5
    sample_prior_a: float = 0.5

    @property
    def is_standard(self) -> bool:
        """True when L(+1) = L(−1) = 1 (the standard case)."""
        return bool(np.isclose(self.L_pos, 1.0) and np.isclose(self.L_neg, 1.0))

    @property
    def bayes_threshold(self) -> float:
        """Threshold on p_s(x): classify A where p_s(x) > L(−1)/(L(−1)+L(+1)) (docs/svm.md)."""
        return bayes_threshold(self)

    def upper_bounds(self, y) -> np.ndarray:
        """Per-point box bounds L(y_i) of the dual variables α_i (docs/svm.md)."""
        y = np.asarray(y)
        return np.where(y > 0, self.L_pos, self.L_neg).astype(float)

    def as_dict(self) -> dict:
        return {"L_pos": self.L_pos, "L_neg": self.L_neg, "cost_a": self.cost_a,
                "cost_b": self.cost_b, "prior_a": self.prior_a,
                "sample_prior_a": self.sample_prior_a}


def class_weights_from_costs(y, cost_a: float = 1.0, cost_b: float = 1.0,
                             prior_a: float | None = None) -> ClassWeights:
    """Weights L(+1), L(−1) of the nonstandard SVM (Wahba et al. 2001, §1.7).

    L(+1) = C_B π_A / π_A^s and L(−1) = C_A π_B / π_B^s, with π_A^s = n_A / n.

    Parameters
    ----------
    y : array of ±1
        Training labels; +1 is class A. Both classes must be present.
    cost_a : float
        C_A, the cost of calling a B an A. Must be > 0.
    cost_b : float
        C_B, the cost of calling an A a B. Must be > 0.
    prior_a : float or None
        π_A, class A's frequency in the target population, 0 < π_A < 1. None means the
        sample proportion (the standard case when the costs are equal).

    Returns
    -------
    ClassWeights

    Examples
    --------
    >>> y = [1] * 4 + [-1] * 6
    >>> w = class_weights_from_costs(y, cost_a=1, cost_b=2, prior_a=0.1)
    >>> round(w.L_neg, 12), round(w.L_pos, 12)
    (1.5, 0.5)
    """
    y = check_labels(y)
    for name, v in (("cost_a", cost_a), ("cost_b", cost_b)):
        if not np.isfinite(v) or v <= 0:
            raise SVMCoreError(f"{name} must be a positive number, got {v!r}")
    ps = float(np.mean(y > 0))
    if prior_a is None:
        prior_a = ps
    if not np.isfinite(prior_a) or not (0.0 < prior_a < 1.0):
        raise SVMCoreError(f"prior_a (π_A) must lie strictly between 0 and 1, got {prior_a!r}")
    L_pos = cost_b * prior_a / ps
    L_neg = cost_a * (1.0 - prior_a) / (1.0 - ps)
    return ClassWeights(L_pos=float(L_pos), L_neg=float(L_neg), cost_a=float(cost_a),
                        cost_b=float(cost_b), prior_a=float(prior_a), sample_prior_a=ps)


def standard_weights() -> ClassWeights:
    """L ≡ 1: the standard case."""
    return ClassWeights(1.0, 1.0)


def bayes_threshold(weights: ClassWeights) -> float:
    """p_s threshold of the Bayes rule, L(−1)/(L(−1)+L(+1)) (½ in the standard case)."""
    return weights.L_neg / (weights.L_neg + weights.L_pos)
