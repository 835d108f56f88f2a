"""A kernel matrix diagonal to rounding: the dual splits into one problem per point, solved in
closed form. See ``docs/svm.md`` §4 ("a diagonal kernel matrix").

Standardized data with many features put every point far from every other, so at narrow σ the
Gaussian kernel's off-diagonal entries vanish next to its diagonal (200 features: about e^-50
at σ = 2 between nearest neighbours). With K = diag(d), f_i = d_i y_i α_i / s + b, s = 2nλ, and
the KKT conditions of point i involve only α_i and b:

    α_i = clip(s (1 − y_i b) / d_i, 0, L_i),

with b a root of Σ y_i α_i(b) = 0, a nonincreasing piecewise-linear function of b with its
breaks at b = ±1 and b = y_i (1 − d_i L_i / s). Where it is zero on an interval (every α at a
bound) b is the interval's midpoint, as ``_common.intercept_from_bounds`` takes it. The path
reaches the same answers after one event that puts every point on the margin, but pays for its
elbow inverse: |E| = n, an n × n inverse and two more n × n arrays (n = 5000, 200 features,
σ = 2^-1: 24.1 s and 2.1 GB for the column; 4.3 s and 431 MiB with this, 3.5 s of it the
squared distances, which a sweep makes once).

"Diagonal to rounding": every row's off-diagonal entries sum (in absolute value) to at most eps
times the smallest diagonal entry, so that they move f = K c + b by less than eps·max_i d_i |c_i|,
a quarter of the rounding floor (``_common.rounding_floor``). The answers' f and KKT residuals
are computed on the whole K all the same.
"""
from __future__ import annotations

import numpy as np

from ._common import EPS, DualSolution, decision_values, floor_of, kkt_residual, zero_scale

#: rows of K read at once while checking that it is diagonal (ROWS × n entries)
ROWS = 512


def is_diagonal(K) -> bool:
    """Whether K is diagonal to rounding (the module's docstring), its diagonal positive. Reads
    K in blocks of ``ROWS`` rows and stops at the first block that is not."""
    d = np.diag(K)
    n = len(d)
    if n == 0 or not d.min() > 0:
        return False
    limit = EPS * float(d.min())
    for start in range(0, n, ROWS):
        block = np.abs(K[start:start + ROWS])
        rows = np.arange(block.shape[0])
        block[rows, start + rows] = 0.0
        if block.sum(axis=1).max() > limit:
            return False
    return True


class _SumYAlpha:
    """g(b) = Σ y_i α_i(b), α_i(b) = clip(s (1 − y_i b)/d_i, 0, L_i), for −1 ≤ b ≤ 1. There a
    positive point sits at L_i while b ≤ t_i = 1 − d_i L_i/s and is free above; a negative one is
    free while b < u_i = d_i L_i/s − 1 and at L_i from there. With both kinds sorted by their
    break, g at any b is four partial sums: O(log n) a value after an O(n log n) setup."""

    def __init__(self, s, y, d, upper):
        self.s = s
        pos, neg = y > 0, y < 0
        self.t, self.Lp, self.Ip = self._sorted(1.0 - d[pos] * upper[pos] / s, upper[pos], d[pos])
        self.u, self.Ln, self.In = self._sorted(d[neg] * upper[neg] / s - 1.0, upper[neg], d[neg])

    @staticmethod
    def _sorted(breaks, upper, d):
        """The breaks sorted, with the partial sums of L and 1/d in that order (leading 0)."""
        order = np.argsort(breaks, kind="stable")
        return (breaks[order], np.r_[0.0, np.cumsum(upper[order])],
                np.r_[0.0, np.cumsum(1.0 / d[order])])

    @property
    def breaks(self) -> np.ndarray:
        """g's breaks within [−1, 1], with ±1, sorted."""
        b = np.unique(np.r_[-1.0, 1.0, self.t, self.u])
        return b[(b >= -1.0) & (b <= 1.0)]

    def __call__(self, b) -> np.ndarray:
        k = np.searchsorted(self.t, b, side="left")        # positives at L: t_i ≥ b (from k)
        j = np.searchsorted(self.u, b, side="right")       # negatives free: u_i > b (from j)
        return ((self.Lp[-1] - self.Lp[k]) + (1.0 - b) * self.s * self.Ip[k]
                - (1.0 + b) * self.s * (self.In[-1] - self.In[j]) - self.Ln[j])


def intercept(s, y, d, upper) -> float:
    """b: the midpoint of the set where Σ y_i α_i(b) = 0 (one point unless every α is at a bound
    there), found at g's sorted breaks and by linear interpolation between the two that bracket
    each end (g is linear between breaks)."""
    g_of = _SumYAlpha(s, y, d, upper)
    breaks = g_of.breaks
    g = g_of(breaks)                                 # nonincreasing: g[0] ≥ 0 ≥ g[-1]

    def crossing(k):
        """The zero of the line through breaks k − 1 and k (g[k − 1] > 0 > g[k])."""
        b0, b1, g0, g1 = breaks[k - 1], breaks[k], g[k - 1], g[k]
        return b0 + (b1 - b0) * g0 / (g0 - g1)

    first = int(np.argmax(g <= 0.0))                 # the first break where g ≤ 0
    lo = breaks[first] if first == 0 or g[first] == 0.0 else crossing(first)
    last = int(np.flatnonzero(g >= 0.0)[-1])         # the last break where g ≥ 0
    hi = breaks[last] if last == g.size - 1 or g[last] == 0.0 else crossing(last + 1)
    return 0.5 * (lo + hi)


def solve_diagonal(K, y, upper, lam) -> DualSolution:
    """The exact solution at λ for a K diagonal to rounding (``is_diagonal``): α and b in closed
    form, f = K c + b and the KKT residual on the whole K, its rounding floor in ``info``."""
    n = len(y)
    s = 2.0 * n * lam
    d = np.diag(K)
    b = intercept(s, y, d, upper)
    alpha = np.clip(s * (1.0 - y * b) / d, 0.0, upper)
    f = decision_values(K, y, alpha, lam, b)
    res = kkt_residual(y, f, alpha, upper, scale=zero_scale(n, lam))
    floor = floor_of(float(np.max(d * alpha / s)), b)   # (|K||c| = d |c| to rounding)
    return DualSolution(float(lam), alpha, float(b), f, "path", 0, res, True,
                        {"kkt_floor": floor, "diagonal": True})
