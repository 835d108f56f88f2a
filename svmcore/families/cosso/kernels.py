"""SS-ANOVA kernels on [0, 1]^d for the COSSO SVM (Zhang 2006, eq 2.4; Wahba 1990; Gu 2002).

Inputs are first mapped to [0, 1] by the training data's min-max range (test points are clipped to
it). The main-effect kernel of the second-order Sobolev space W_2[0, 1] with its constant removed is

    R(s, t) = k1(s) k1(t) + k2(s) k2(t) − k4(|s − t|),
    k1(t) = t − ½,  k2(t) = (k1(t)² − 1/12)/2,  k4(t) = (k1(t)⁴ − k1(t)²/2 + 7/240)/24,

and the kernel of a two-way interaction space is the product R_j · R_k. ``docs/cosso.md``.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np

from ..._validation import SVMCoreError, check_matrix

#: largest Σ_α (n × n) component Gram matrices kept in memory, in float64 entries
MAX_GRAM_ENTRIES = 60_000_000


def k1(t):
    """k1(t) = t − ½ (scaled Bernoulli polynomial B1)."""
    return np.asarray(t, float) - 0.5


def k2(t):
    """k2(t) = (k1(t)² − 1/12)/2 (B2/2!)."""
    u = k1(t)
    return 0.5 * (u * u - 1.0 / 12.0)


def k4(t):
    """k4(t) = (k1(t)⁴ − k1(t)²/2 + 7/240)/24 (B4/4!)."""
    u2 = k1(t) ** 2
    return (u2 * u2 - 0.5 * u2 + 7.0 / 240.0) / 24.0


def main_effect_gram(s, t) -> np.ndarray:
    """R(s_i, t_j) for 1-D arrays s (m,) and t (n,) in [0, 1]: an (m, n) matrix (Zhang 2006, eq 2.4)."""
    s = np.asarray(s, float).reshape(-1, 1)
    t = np.asarray(t, float).reshape(1, -1)
    return k1(s) * k1(t) + k2(s) * k2(t) - k4(np.abs(s - t))


@dataclass(frozen=True)
class UnitScaling:
    """Min-max map of each input column to [0, 1], fitted on training data.

    ``low`` and ``span`` per column; a constant column is rejected (it carries no information and
    would divide by zero). New points are clipped to [0, 1].
    """

    low: np.ndarray
    span: np.ndarray

    @classmethod
    def fit(cls, X) -> "UnitScaling":
        X = check_matrix(X)
        low, high = X.min(axis=0), X.max(axis=0)
        span = high - low
        if np.any(span <= 0):
            j = int(np.flatnonzero(span <= 0)[0])
            raise SVMCoreError(f"input column {j + 1} is constant on the training data; drop it")
        return cls(low, span)

    def transform(self, X) -> np.ndarray:
        X = check_matrix(X)
        if X.shape[1] != self.low.shape[0]:
            raise SVMCoreError(f"expected {self.low.shape[0]} input columns, got {X.shape[1]}")
        return np.clip((X - self.low) / self.span, 0.0, 1.0)

    def inverse(self, U) -> np.ndarray:
        return np.asarray(U, float) * self.span + self.low


def components(d: int, interactions: bool = False) -> list[tuple[int, ...]]:
    """ANOVA components: (j,) for every main effect, then (j, k), j < k, when ``interactions``."""
    comps = [(j,) for j in range(d)]
    if interactions:
        comps += list(combinations(range(d), 2))
    return comps


def component_names(comps, feature_names=None) -> list[str]:
    """"x1", …, "x1:x2" (or the data set's feature names joined by ":")."""
    def nm(j):
        return str(feature_names[j]) if feature_names is not None else f"x{j + 1}"
    return [":".join(nm(j) for j in c) for c in comps]


def check_size(n_rows: int, n_cols: int, n_comps: int) -> None:
    """Refuse component Gram stacks that would not fit in memory (``MAX_GRAM_ENTRIES``)."""
    if n_rows * n_cols * n_comps > MAX_GRAM_ENTRIES:
        raise SVMCoreError(f"{n_comps} ANOVA components on {n_rows} points need "
                           f"{n_rows * n_cols * n_comps:,} kernel entries (limit "
                           f"{MAX_GRAM_ENTRIES:,}); use fewer points, or no interactions")


def component_grams(U, V, comps) -> np.ndarray:
    """Stack (q, m, n) of the component kernels R_α(u_i, v_j) for inputs already in [0, 1].

    Main effects are ``main_effect_gram`` of one column; interactions the product of two.
    """
    U = np.asarray(U, float)
    V = np.asarray(V, float)
    check_size(U.shape[0], V.shape[0], len(comps))
    used = sorted({j for c in comps for j in c})
    main = {j: main_effect_gram(U[:, j], V[:, j]) for j in used}
    out = np.empty((len(comps), U.shape[0], V.shape[0]))
    for a, c in enumerate(comps):
        out[a] = main[c[0]] if len(c) == 1 else main[c[0]] * main[c[1]]
    return out


def weighted_gram(U, V, comps, theta) -> np.ndarray:
    """R_θ(u_i, v_j) = Σ_α θ_α R_α(u_i, v_j), (m, n), built from the components with θ_α > 0
    only and without the (q, m, n) stack (for many new points)."""
    U = np.asarray(U, float)
    V = np.asarray(V, float)
    out = np.zeros((U.shape[0], V.shape[0]))
    cache: dict = {}

    def main(j):
        if j not in cache:
            cache[j] = main_effect_gram(U[:, j], V[:, j])
        return cache[j]

    for c, th in zip(comps, theta, strict=True):
        if th > 0:
            out += th * (main(c[0]) if len(c) == 1 else main(c[0]) * main(c[1]))
    return out


def combine(R, theta) -> np.ndarray:
    """R_θ = Σ_α θ_α R_α from a (q, n, n) stack."""
    return np.tensordot(np.asarray(theta, float), R, axes=(0, 0))
