"""The kernel's locality for the path's passes: which kernel entries are too small to matter.

Every event of the path (``path.py``) passes over the elbow's kernel rows for the margins' rates,
dh = K_{·E} x (HRTZ 2004, eq. 21). With a narrow Gaussian kernel most of those entries are far
below rounding: wahba2d, n = 5000, σ = 2^-3: 84 % of K is below 2^-56/n. The points are put in
an order in which near points are near (``locality_order``: median splits of the inputs, a k-d
tree's leaves), cut into chunks of ``CHUNK`` consecutive points, and for each point the chunks
holding an entry of its kernel row above ``tau`` are kept as runs of consecutive columns
(``KernelBlocks``). The path keeps its elbow's kernel rows in that column order, and each
row's runs packed one after another, which a pass reads as one stream (``_events.pack_runs``,
``_events.rates``).

What is left out is below rounding: each skipped entry is at most τ = 2^-56·max K_ii / n, so dh
moves by at most 2^-56·max K_ii·max|x| (the largest term of the sum, K_ii|x_i|, is rounded by
2^-53 times itself). The answers at the requested λ are recomputed from the whole of K
(``_Path.solution_at``) either way. Measured on wahba2d (n = 5000, σ = 2^-3, one elbow of 1,900
points): the pass 1.17 ms over chunks against 3.06 ms for BLAS over whole rows; σ = 2^-2.5 2.08
against 2.77 ms; σ = 2^-2 no faster, so blocks are used only when their runs cover at most
``MAX_COVER`` of K.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

#: points a chunk of the order holds (the granularity of the runs)
CHUNK = 16
#: blocks are used when their runs cover at most this fraction of K (else whole rows: above
#: about half, the runs' pass is no faster than BLAS's over whole rows)
MAX_COVER = 0.5
#: below this many points the path's passes are cheap whatever they read (the paper grid in one
#: process with the compiled loop, wahba2d: n = 500 0.56–0.69 s, n = 700 1.20–1.31 s with the
#: points' order against 0.59–0.61 s and 1.10–1.23 s without, the same events)
MIN_POINTS = 1000


def locality_order(X, leaf_size: int = CHUNK) -> np.ndarray:
    """A permutation of the rows of X in which near points are near: the leaves of a k-d tree
    (split at the median of the widest coordinate until a node holds at most ``leaf_size``),
    left to right."""
    X = np.asarray(X, float)
    out, stack = [], [np.arange(len(X))]
    while stack:
        ix = stack.pop()
        if ix.size <= leaf_size:
            out.append(ix)
            continue
        sub = X[ix]
        widest = int(np.argmax(sub.max(axis=0) - sub.min(axis=0)))
        ix = ix[np.argsort(sub[:, widest], kind="stable")]
        half = ix.size // 2
        stack += [ix[half:], ix[:half]]            # the left half is taken next
    return np.concatenate(out) if out else np.arange(0)


class KernelBlocks(NamedTuple):
    """Point i's kernel row, read only over columns ``start[q]:stop[q]`` (positions in
    ``order``) for q in ``ptr[i]:ptr[i + 1]``. ``pos[i]`` is point i's position in ``order``;
    ``cover`` the fraction of K the runs read, ``row_len[i]`` how many numbers of row i."""

    order: np.ndarray
    pos: np.ndarray
    ptr: np.ndarray
    start: np.ndarray
    stop: np.ndarray
    cover: float
    row_len: np.ndarray

    @classmethod
    def from_gram(cls, K, order, tau=None, chunk=CHUNK) -> "KernelBlocks":
        """The runs of K (n × n, any order) for the point order ``order``: chunk b of point i is
        kept when some |K[i, order[j]]| > ``tau`` for j in the chunk (default
        2^-56·max K_ii / n)."""
        order = np.asarray(order, np.int64)
        n = order.size
        if tau is None:
            tau = 2.0 ** -56 * float(np.max(np.abs(np.diag(K)))) / max(n, 1)
        pos = np.empty(n, np.int64)
        pos[order] = np.arange(n)
        from ._events import kept_runs          # numba: imported by the first use

        ptr, start, stop = kept_runs(np.asarray(K, float), pos // chunk, -(-n // chunk), chunk,
                                     float(tau), n)
        lengths = np.r_[0, np.cumsum(stop - start)]
        row_len = lengths[ptr[1:]] - lengths[ptr[:-1]]
        return cls(order, pos, ptr, start, stop, float(lengths[-1]) / max(n * n, 1), row_len)


def blocks_for(K, order) -> KernelBlocks | None:
    """``KernelBlocks`` for the path when they pay: at least ``MIN_POINTS`` points, an order
    given, and runs covering at most ``MAX_COVER`` of K; else None (whole rows)."""
    if order is None or len(order) < MIN_POINTS:
        return None
    order = np.asarray(order)
    if order.shape != (K.shape[0],) or not np.array_equal(np.sort(order), np.arange(K.shape[0])):
        raise ValueError("order must be a permutation of the points")
    blocks = KernelBlocks.from_gram(K, order)
    return blocks if blocks.cover <= MAX_COVER else None
