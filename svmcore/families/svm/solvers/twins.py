"""Exact twins: training points with the same label and bitwise-equal kernel rows (repeated rows
of a data table: integer or rounded features, copies). See ``docs/svm.md`` §4 ("exact twins").

Twins i, j enter the dual only through α_i + α_j: their kernel rows and labels are the same, so
the objective and every constraint but 0 ≤ α ≤ L(y) depend on the sum alone. The problem with
the twins of each group replaced by one point with upper bound U = Σ L(y_i) over the group is
therefore the same problem, and a solution of one is a solution of the other. Kept apart, they
make the path's elbow matrix exactly singular each time two of them sit on the margin, and on
wahba2d rounded to one decimal (n = 1000, 848 distinct points) the path's σ = 2^-1 and 2^0
columns ran past a minute each and σ = 2^1 and 2^2 ended with KKT residuals of 6e2 and 8e2.

``find_twins`` finds the groups; ``Twins`` builds the merged problem and maps solutions both ways.
λ is rescaled so that 2nλ, the dual's scale, is the same with m < n points: the merged problem
is solved at λ n/m. A merged α is split over its group in proportion to the bounds,
α_i = α_group L(y_i)/U, the split that a strictly convex tie-break (least Σ α_i²/L(y_i)) picks;
every point of a group then has the same status (at 0, at its bound, or on the elbow), and the
criteria that are not linear in α (XA's and SURE's counts) see twins alike.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

#: rows of K compared at once while looking for twins (a block of K == diag: ROWS × n booleans)
ROWS = 512


@dataclass(frozen=True)
class Twins:
    """Groups of twins among n points: ``group[i]`` the merged point of point i (0 … m − 1),
    ``rep`` the first point of each group, ``share`` L(y_i)/U of each point and ``upper`` U of each
    merged point."""

    group: np.ndarray
    rep: np.ndarray
    share: np.ndarray
    upper: np.ndarray

    @property
    def scale(self) -> float:
        """n / m: the merged problem's λ is λ times this (2nλ unchanged)."""
        return len(self.group) / len(self.rep)

    def problem(self, K, y, point_order=None):
        """(K, y, upper, point_order) of the merged problem (K a copy of the kept rows and
        columns; the order restricted to the kept points)."""
        order = None
        if point_order is not None:
            pos = np.full(len(self.group), -1)
            pos[self.rep] = np.arange(len(self.rep))
            order = pos[np.asarray(point_order)]
            order = order[order >= 0]
        return K[np.ix_(self.rep, self.rep)], y[self.rep], self.upper, order

    def merge(self, sol):
        """A solution of the whole problem as one of the merged problem (α summed per group)."""
        alpha = np.bincount(self.group, weights=sol.alpha, minlength=len(self.rep))
        return replace(sol, lam=sol.lam * self.scale, alpha=alpha, f=sol.f[self.rep])

    def expand(self, sol):
        """A solution of the merged problem (or the exception in its place) as one of the whole
        problem: each group's α split in proportion to the bounds, f copied to every twin."""
        if isinstance(sol, Exception):
            return sol
        info = dict(sol.info, twins=len(self.group) - len(self.rep))
        return replace(sol, lam=sol.lam / self.scale, alpha=sol.alpha[self.group] * self.share,
                       f=sol.f[self.group], info=info)


def find_twins(K, y, upper) -> Twins | None:
    """The groups of exact twins (same label, bitwise-equal rows of ``K``), or None when there are
    none. Equal rows of a symmetric K have K_ij = K_ii = K_jj, so candidates come from one pass
    over K's upper triangle in blocks of ``ROWS`` rows; each candidate pair's rows are then
    compared whole (a K that is not exactly symmetric may hide twins, never invent them)."""
    n = len(y)
    diag = np.diagonal(K)
    pairs = []
    for lo in range(0, n, ROWS):
        i, j = np.nonzero(K[lo:lo + ROWS, lo:] == diag[lo:lo + ROWS, None])
        i += lo
        j += lo
        keep = (j > i) & (y[i] == y[j])
        pairs.append((i[keep], j[keep]))
    i = np.concatenate([p[0] for p in pairs])
    j = np.concatenate([p[1] for p in pairs])
    same = np.zeros(len(i), bool)
    for lo in range(0, len(i), ROWS):
        s = slice(lo, lo + ROWS)
        same[s] = (K[i[s]] == K[j[s]]).all(axis=1)
    if not same.any():
        return None
    graph = coo_matrix((np.ones(int(same.sum())), (i[same], j[same])), shape=(n, n))
    m, label = connected_components(graph, directed=False)
    rep = np.full(m, n)
    np.minimum.at(rep, label, np.arange(n))              # the first point of each component
    first = np.argsort(rep)                              # groups numbered by their first point
    group = np.empty(m, int)
    group[first] = np.arange(m)
    group = group[label]
    U = np.bincount(group, weights=upper, minlength=m)
    return Twins(group, rep[first], upper / U[group], U)
