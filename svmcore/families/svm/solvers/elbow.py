"""The maintained inverse of the bordered elbow matrix of the regularization path.

While the path (``path.py``; Hastie, Rosset, Tibshirani & Zhu 2004, §3 and §6) follows the SVM
solution in s = 2nλ, every step solves a system with the bordered elbow matrix
``A = [[0, 1'], [1, K_EE]]`` (E = the elbow, the points with y f = 1). Points enter and leave E one
at a time, so the inverse of A is updated rather than recomputed. Two representations, with the
same interface (``apply``, ``direction``, ``prepare_add``/``commit_add``, ``remove``,
``k``/``kmax``):

* ``ExplicitInverse``: A⁻¹ itself, bordered or downdated by rank-one changes (small elbows);
* ``SchurInverse``: a fixed base inverse plus a Schur complement of the changes since it was
  formed (block LU; large elbows).

The owner (``path._Path``) rebuilds either from scratch once ``k`` (changes since the last
rebuild) reaches ``kmax()``, which bounds the accumulated rounding drift.
"""
from __future__ import annotations

import numpy as np
from scipy.linalg import lapack

#: elbows of at least this many points are inverted through a Cholesky factor of K_EE
#: (``invert_bordered``) when that factor says K_EE is well conditioned
CHOLESKY_FROM = 500
#: largest (max L_ii / min L_ii)² of that factor (at most K_EE's condition number) at which it is
#: used. On the path's elbows (wahba2d, n = 2000 and 5000) up to 1e7 the inverse it gives misses
#: A⁻¹ by as much as LU's (max |I − A B| 0.6–1.7 times LU's; 10 times at worst); above, on the
#: ill-conditioned elbows of wide kernels, by up to 400 times
CHOLESKY_COND = 1e7
#: elbows of at least this many points that are not inverted through Cholesky are inverted by
#: LAPACK's getri (``lu_inverse``), smaller ones by ``np.linalg.inv`` (``invert_bordered``)
LU_INVERSE_FROM = 200


def invert_bordered(A_E):
    """A⁻¹ for the bordered elbow matrix A = [[0, 1'], [1, K_EE]] (HRTZ 2004 §6).

    From ``CHOLESKY_FROM`` points: K_EE = LL' (LAPACK potrf), G = K_EE⁻¹ (potri) and

        A⁻¹ = [[−1/c, g'/c], [g/c, G − g g'/c]],  g = G 1,  c = 1'g,

    about half the flops of an LU inversion (|E| = 2500, one thread: 0.31–0.51 s against 0.93 s).
    Only when (max L_ii / min L_ii)² ≤ ``CHOLESKY_COND``: on ill-conditioned K_EE the difference
    G − g g'/c loses what LU on A keeps. Else LU (``lu_inverse`` from ``LU_INVERSE_FROM`` points,
    ``np.linalg.inv`` below), and the pseudo-inverse for an exactly singular A. getri's
    inversion takes 0.65 of numpy's time (|E| = 300 / 450: 2.25 / 6.35 ms against 3.45 /
    9.48 ms, one thread), which the rebuilds of the n = 2000 paper grid's columns σ = 2^-2 and
    2^-1.5 feel (their elbows hold 300–550 points and are rebuilt 59 and 143 times): those
    columns 0.90–0.96 of the time, the whole grid 0.965 / 0.977 (two A/B runs of 5 pairs,
    seeds 0–2 with the same repairs and largest KKT residuals). Below 200 points an inversion
    takes a fraction of a millisecond, and on the ill-conditioned small elbows of wide kernels
    the two LU inverses round differently enough to move the tail's route: with ``lu_inverse``
    for every elbow, wahba2d n = 2000 needed three working-set repairs instead of one
    (σ = 2^1 and 2^2.5) and took 1.035 of the time (A/B, 5 pairs)."""
    M = A_E.shape[0]
    if M - 1 >= CHOLESKY_FROM:
        L, info = lapack.dpotrf(A_E[1:, 1:], lower=1, clean=0)
        d = np.diag(L)
        if info == 0 and d.min() > 0 and (d.max() / d.min()) ** 2 <= CHOLESKY_COND:
            G, info = lapack.dpotri(L, lower=1)
            if info == 0:
                G = np.tril(G) + np.tril(G, -1).T
                g = G.sum(axis=1)
                c = g.sum()
                h = g / np.sqrt(c)                    # g g'/c = h h', symmetric as computed
                B = np.empty((M, M))
                B[0, 0] = -1.0 / c
                B[0, 1:] = B[1:, 0] = g / c
                B[1:, 1:] = G - np.outer(h, h)
                return B
    try:
        return lu_inverse(A_E) if M - 1 >= LU_INVERSE_FROM else np.linalg.inv(A_E)
    except np.linalg.LinAlgError:
        return np.linalg.pinv(A_E)


def lu_inverse(A):
    """A⁻¹ by LAPACK's getrf and getri with its optimal workspace (blocked), as
    ``scipy.linalg.inv`` makes it but without its checks, and of Aᵀ: getri's inverse X has a
    small left residual |I − X A| (Du Croz & Higham 1992), so Xᵀ for Aᵀ is A⁻¹ with a small right
    residual |I − A A⁻¹|, the one a solve x = A⁻¹ r needs and ``np.linalg.inv`` gives (it solves
    A X = I: getrf, then getrs on n right-hand sides, a third more flops). Xᵀ of the
    Fortran-ordered X is in C order, as numpy's. One thread, bordered Gaussian matrices of
    wahba2d points, |E| = 1,000 / 2,000 / 2,500 (σ = 2^-2 / 2^-3 / 2^-3): 0.72 / 0.79 / 0.82 of
    ``np.linalg.inv``'s time, max |I − A A⁻¹| 6.2e-2 / 1.6e-6 / 1.5e-6 against 7.0e-2 / 2.5e-6 /
    2.2e-6. Raises ``LinAlgError`` where A is exactly singular (a zero pivot), as
    ``np.linalg.inv``."""
    lu, piv, info = lapack.dgetrf(A.T)
    if info == 0:
        lwork, info = lapack.dgetri_lwork(A.shape[0])
        inv, info = lapack.dgetri(lu, piv, lwork=int(lwork))
        if info == 0:
            return inv.T
    raise np.linalg.LinAlgError(f"singular matrix (LAPACK info {info})")


#: elbows of at least this many points have the explicit inverse's rank-one changes written in
#: place by a compiled loop (``_events.rank_one_update``; numba is loaded by then: the path
#: compiles its loop from ``path.COMPILED_FROM_N`` = 500 points). numpy's ``B += np.outer(u, v)``
#: forms a temporary |E|² array and passes over B twice: one thread, |E| = 600 / 1,200 / 2,400,
#: 0.53 / 4.9 / 17.5 ms against 0.08 / 1.1 / 3.5 ms, the same numbers bit for bit. The numpy
#: code's events on the largest elbows spend their time there (wahba2d, n = 10,000, σ = 2^-3,
#: log2(nλ) = −21 … −25: 2,513 changes at |E| ≈ 2,400, 42 s of the 178 s under cProfile; 180.7 → 150.5 s without)
RANK_ONE_COMPILED_FROM = 512


def add_outer(B, u, v, M):
    """B[:M, :M] += u v' in place (B a C-ordered array), rounded as numpy's outer product and
    sum round it."""
    if M >= RANK_ONE_COMPILED_FROM:
        from ._events import rank_one_update           # numba: imported by the first use

        rank_one_update(B, np.ascontiguousarray(u), np.ascontiguousarray(v), int(M))
    else:
        B[:M, :M] += np.outer(u, v)


#: most rows and columns ``ExplicitInverse.reserve`` adds at a time
GROW_AT_MOST = 256


class ExplicitInverse:
    """Inverse of the bordered elbow matrix [[0, 1'], [1, K_EE]] kept explicitly, in elbow order.

    An entering point is a rank-one bordering update, a leaving point a rank-one downdate, each
    O(|E|²) (HRTZ 2004 §6). Few numpy calls per change: the cheapest choice for small elbows, where
    per-call overhead, not arithmetic, is the cost. Rebuilt by the owner every max(64, |E|) changes.
    """

    def __init__(self, A_E):
        M = A_E.shape[0]
        cap = M + 32
        self.B = np.zeros((cap, cap))
        self.B[:M, :M] = invert_bordered(A_E)
        self.M = M
        self.k = 0

    def kmax(self):
        return max(64, self.M)

    def apply(self, rhs):
        return self.B[:self.M, :self.M] @ rhs

    def direction(self, y, rhs):
        """The path's direction A⁻¹ rhs, rhs = [0; y_E] in elbow order (``apply``)."""
        return self.apply(rhs)

    def prepare_add(self, p, u, kpp):
        w = self.B[:self.M, :self.M] @ u
        c = kpp - u @ w
        return float(c), (w, c)

    def commit_add(self, data, w=None, c=None):
        """Border the inverse with the point prepared by ``prepare_add`` (or with a more accurate
        w = A⁻¹u and pivot c from the caller)."""
        if w is None:
            w, c = data
        M = self.M
        self.reserve(1)
        B = self.B
        add_outer(B, w, w / c, M)
        B[M, :M] = B[:M, M] = -w / c
        B[M, M] = 1.0 / c
        self.M = M + 1
        self.k += 1

    def reserve(self, extra):
        """Room in B for ``extra`` more elbow points, doubling up to ``GROW_AT_MOST`` at a time
        (the compiled loop borders B in place and cannot grow it; doubled, the explicit inverse
        of an elbow of 2,800 points would take 250 MB instead of 63)."""
        M = self.M
        if M + extra > self.B.shape[0]:
            B = np.zeros((max(M + min(M, GROW_AT_MOST), M + extra),) * 2)
            B[:M, :M] = self.B[:M, :M]
            self.B = B

    def remove(self, j):
        """Remove elbow position j; the last position moves into j (as in ``_Path.remove``).
        Returns the column of the inverse that was eliminated (before the move)."""
        M = self.M
        r, last = j + 1, M - 1
        B = self.B[:M, :M]
        col = B[:, r].copy()
        add_outer(self.B, -col, col / col[r], M)     # B − col col'/col_r, as rounded
        if r != last:
            B[r, :] = B[last, :]
            B[:, r] = B[:, last]
            B[r, r] = B[last, last]
        self.M = M - 1
        self.k += 1
        return col


class SchurInverse:
    """Inverse of the bordered elbow matrix as a fixed base plus a Schur complement of changes.

    Block-LU update (Gill, Murray, Saunders & Wright 1984, "Sparse matrix methods in
    optimization"; the standard way to update an active-set KKT system): at a rebuild the inverse
    B0 of the bordered matrix A0 = [[0, 1'], [1, K_{E0 E0}]] is formed once. A point q that enters
    later adds a column v_q = [1; K_{E0, q}] (and its block K_{NN} among added points); a base point
    r that leaves is pinned to β_r = 0 by a unit column e_r whose multiplier absorbs its own,
    no longer enforced, equation. With V = [V_N, E_R], D = diag(K_NN, 0) and W = B0 V,

        [[A0, V], [V', D]] [x; z] = [g; h]  ⇔  S z = h − V' B0 g,  x = B0 g − W z,

    S = D − V' W (k × k, k = number of changes since the rebuild). A solve costs one product with
    B0 plus O(|E|·k); an entering point costs one product with B0; a leaving point none. For large
    elbows this replaces the two or three O(|E|²) passes of an explicit update by one. ``loc`` maps
    elbow positions to the augmented system: > 0 base position, < 0 −(1 + added index).

    With ``factored`` the base is held as LU factors of A0 (LAPACK getrf) instead of B0: every
    product B0 g is then two triangular solves (getrs), backward stable, and a rebuild costs a
    factorization, about a third of an inversion's flops (|E| = 2,500, one thread: 213 ms against
    778 ms for ``lu_inverse``; getrs 1.76 ms against 1.33 ms for the product with B0). Worth it
    for the largest, most ill-conditioned elbows, where refinement misses often and each miss
    rebuilds (``path._Path.FACTORED_FROM``). Such a base cannot be merged (``merged``).
    An exactly singular A0 (a zero pivot) falls back to the inverse (``invert_bordered``).
    """

    def __init__(self, K, A_E, E, B0=None, merges=0, factored=False):
        self.K = K
        self.E0 = np.array(E, dtype=np.intp)
        self.M0 = M0 = len(E) + 1
        self.merges = merges              # rebuilds by ``merged`` since the last inversion
        self.lu = None                    # (LU, pivots) of A0 when the base is factored
        if factored and B0 is None:
            lu, piv, info = lapack.dgetrf(A_E)
            if info == 0:
                self.lu = (lu, piv)
        if self.lu is None and B0 is None:
            B0 = invert_bordered(A_E)
        self.B0 = B0
        self.loc = np.arange(1, M0 + 32, dtype=np.intp)   # first m entries used
        self.m = M0 - 1
        self.N = []                       # added points, in column order
        self.R = []                       # base positions (1..|E0|) pinned to zero
        self.VN = np.empty((M0, 8))
        self.WN = np.empty((M0, 8))
        self.WR = np.empty((M0, 8))
        self.S = np.empty((0, 0))         # order: added points, then pinned base positions
        self._dir_base = None             # B0 [0; y_E0] (``direction``)

    @property
    def k(self):
        return len(self.N) + len(self.R)

    @property
    def factored(self):
        """Whether the base is held as LU factors of A0 (``lu``) instead of its inverse (``B0``)."""
        return self.lu is not None

    def _base(self, g):
        """A0⁻¹ g: a product with B0, or two triangular solves with A0's LU factors."""
        if self.lu is None:
            return self.B0 @ g
        return lapack.dgetrs(*self.lu, g)[0]

    def _base_column(self, b):
        """Column b of A0⁻¹."""
        if self.lu is None:
            return self.B0[:, b]
        e = np.zeros(self.M0)
        e[b] = 1.0
        return self._base(e)

    def kmax(self):
        return min(128, max(16, (self.M0 - 1) // 8))

    @staticmethod
    def _room(M, j):
        if j < M.shape[1]:
            return M
        out = np.empty((M.shape[0], 2 * M.shape[1]))
        out[:, :j] = M[:, :j]
        return out

    def merged(self):
        """The inverse of the current bordered elbow matrix, in elbow order, from the block
        inverse of the augmented system (block LU; O(|E|² k) matrix products, no inversion):

            [[A0, V], [V', D]]⁻¹ = [[B0 + W S⁻¹ W', −W S⁻¹], [−S⁻¹ W', S⁻¹]],

        read at the border, the base positions still in the elbow and the added points (a pinned
        base position's row and its multiplier's are dropped: with zero right-hand sides there
        they do not act on the others). Needs an explicit base (not ``factored``)."""
        if self.factored:
            raise ValueError("merged() needs the base's inverse; this base is factored")
        loc = self.loc[:self.m]
        kN, kR = len(self.N), len(self.R)
        base = np.r_[True, loc > 0]
        bi = np.r_[0, loc[loc > 0]]                     # border and base positions kept
        qi = -loc[loc < 0] - 1                          # added points, in elbow order
        Sinv = np.linalg.inv(self.S)
        W = np.hstack([self.WN[:, :kN], self.WR[:, :kR]])[bi]
        G = W @ Sinv
        M = self.m + 1
        B = np.empty((M, M))
        ib, ia = np.flatnonzero(base), np.flatnonzero(~base)
        B[np.ix_(ib, ib)] = self.B0[np.ix_(bi, bi)] + G @ W.T
        B[np.ix_(ib, ia)] = -G[:, qi]
        B[np.ix_(ia, ib)] = -G[:, qi].T
        B[np.ix_(ia, ia)] = Sinv[np.ix_(qi, qi)]
        return B

    def _solve(self, g, hN, x0=None):
        """[x; z_N] of the augmented system with right-hand side [g; h_N; 0] (``x0``: B0 g, when
        the caller has it)."""
        if x0 is None:
            x0 = self._base(g)
        if self.k == 0:
            return x0, hN[:0]
        kN, kR = len(self.N), len(self.R)
        t = np.empty(kN + kR)
        t[:kN] = hN - self.VN[:, :kN].T @ x0
        t[kN:] = -x0[self.R]
        z = np.linalg.solve(self.S, t)
        x = x0 - self.WN[:, :kN] @ z[:kN] - self.WR[:, :kR] @ z[kN:]
        return x, z[:kN]

    def apply(self, rhs):
        """The inverse of the current bordered elbow matrix applied to rhs (elbow order)."""
        loc = self.loc[:self.m]
        base = loc > 0
        g = np.zeros(self.M0)
        g[0] = rhs[0]
        g[loc[base]] = rhs[1:][base]
        hN = np.zeros(len(self.N))
        hN[-loc[~base] - 1] = rhs[1:][~base]
        return self._in_elbow_order(*self._solve(g, hN))

    def direction(self, y, rhs=None):
        """The path's direction A⁻¹[0; y_E] in elbow order (y: the labels of all n points; rhs,
        the same vector in elbow order, is not needed here).

        Its base part B0 [0; y_E0] is formed once per rebuild and serves until the next: a base
        position pinned since then keeps its entry of y, which is harmless, because the pinned
        position's equation is absorbed by its own multiplier (class docstring), so x does not
        depend on it. A direction then costs O(|E| k) besides the solve with S, instead of the
        |E0|² product of ``apply``."""
        if self._dir_base is None:
            g = np.zeros(self.M0)
            g[1:] = y[self.E0]
            self._dir_base = self._base(g)
        return self._in_elbow_order(*self._solve(None, y[np.asarray(self.N, dtype=np.intp)],
                                                 self._dir_base))

    def _in_elbow_order(self, xb, zN):
        """The augmented system's solution [x; z_N] read in elbow order."""
        loc = self.loc[:self.m]
        base = loc > 0
        x = np.empty(len(loc) + 1)
        x[0] = xb[0]
        x[1:][base] = xb[loc[base]]
        x[1:][~base] = zN[-loc[~base] - 1]
        return x

    def prepare_add(self, p, u, kpp):
        """Schur complement of point p against the current system, and the data to add it."""
        kp = self.K[p]
        v = np.empty(self.M0)
        v[0] = 1.0
        v[1:] = kp[self.E0]
        w = self._base(v)
        kN = len(self.N)
        t = np.empty(self.k)
        t[:kN] = kp[self.N] - self.VN[:, :kN].T @ w
        t[kN:] = -w[self.R]
        spp = kpp - v @ w
        c = spp - t @ np.linalg.solve(self.S, t) if t.size else spp
        return float(c), (p, v, w, t, spp)

    def commit_add(self, data, w=None, c=None):
        """Append a point prepared by ``prepare_add`` at the end of the elbow order. With ``c`` (a
        backward-stable Schur complement from the caller) the new diagonal entry of S is set so
        that S's last pivot equals c instead of the cancellation-prone spp − t'S⁻¹t."""
        p, v, w, t, spp = data           # (a caller's w, in elbow order, is not used here)
        if c is not None and t.size:
            spp = c + t @ np.linalg.solve(self.S, t)
        elif c is not None:
            spp = c
        kN = len(self.N)
        self.VN = self._room(self.VN, kN)
        self.WN = self._room(self.WN, kN)
        self.VN[:, kN] = v
        self.WN[:, kN] = w
        k = self.k
        S = np.empty((k + 1, k + 1))
        S[:kN, :kN] = self.S[:kN, :kN]
        S[:kN, kN + 1:] = self.S[:kN, kN:]
        S[kN + 1:, :kN] = self.S[kN:, :kN]
        S[kN + 1:, kN + 1:] = self.S[kN:, kN:]
        S[kN, :kN] = S[:kN, kN] = t[:kN]
        S[kN, kN + 1:] = S[kN + 1:, kN] = t[kN:]
        S[kN, kN] = spp
        self.S = S
        self.N.append(p)
        if self.m == self.loc.size:
            self.loc = np.r_[self.loc, np.zeros(self.m, dtype=np.intp)]
        self.loc[self.m] = -(kN + 1)
        self.m += 1

    def remove(self, j):
        """Remove elbow position j; the last position moves into j (as in ``_Path.remove``)."""
        lj = self.loc[j]
        kN, kR = len(self.N), len(self.R)
        if lj > 0:                                   # pin base position lj to zero
            b = lj
            col = self._base_column(b)
            self.WR = self._room(self.WR, kR)
            self.WR[:, kR] = col
            k = self.k
            S = np.empty((k + 1, k + 1))
            S[:k, :k] = self.S
            S[k, :kN] = S[:kN, k] = -self.WN[b, :kN]
            S[k, kN:k] = S[kN:k, k] = -col[self.R]
            S[k, k] = -col[b]
            self.S = S
            self.R.append(b)
        else:                                        # drop the q-th added point
            q = -lj - 1
            keep = np.r_[0:q, q + 1:kN]
            self.VN[:, q:kN - 1] = self.VN[:, keep[q:]]
            self.WN[:, q:kN - 1] = self.WN[:, keep[q:]]
            idx = np.r_[keep, kN:self.k]
            self.S = self.S[np.ix_(idx, idx)]
            del self.N[q]
            loc = self.loc[:self.m]
            loc[loc < lj] += 1
        self.m -= 1
        self.loc[j] = self.loc[self.m]



def affinely_independent(K, order, tol, block=64):
    """Split ``order`` into the points the elbow can hold and the ones it must park.

    Taken in the given order, a point joins when its feature vector is farther than ``tol``
    (squared distance) from the affine hull of the points that joined before it. That squared
    distance is the Schur complement ``K_pp − u'A⁻¹u`` of the bordered elbow matrix
    A = [[0, 1'], [1, K_EE]] with u = [1; K_Ep], which ``_Path.try_add`` tests point by point.
    Here it is the pivot of a Cholesky factorization, in the given order, of the kernel centred
    at the first point, K̃_pq = K_pq − K_p0 − K_0q + K_00, that skips the points whose pivot is
    at most ``tol`` (``pivots_in_order``, blocked): O(F² r) flops for F candidates and r joined
    points, in matrix products. Adding
    the points one by one instead costs an LU solve and a rebuild of the inverse, O(r³), for each
    nearly dependent point.

    Returns (joined, parked), both in the given order.
    """
    idx = np.asarray(order, dtype=np.intp)
    if idx.size == 0:
        return idx, idx
    K0 = K[np.ix_(idx, idx)]
    k0 = K0[:, 0].copy()
    keep = pivots_in_order(K0 - k0[:, None] - k0[None, :] + K0[0, 0], tol, block)
    keep[0] = True                     # its row and column of the centred kernel are zero
    return idx[keep], idx[~keep]


def pivots_in_order(S, tol, block=64, pivots=None):
    """Which rows of the positive semidefinite S a Cholesky factorization in the given order keeps
    when it skips every row whose pivot (its diagonal, less the kept rows' parts) is at most
    ``tol``: a boolean mask. For S the Schur complement of candidate points against the elbow,
    the pivot of a row is its squared distance to the affine hull of the elbow and of the
    candidates kept before it (``_Path.add_many``). Blocked: one matrix product per ``block``
    rows brings their columns up to date; only the decisions inside a block are sequential.
    ``pivots`` (an array of S's length), if given, receives the kept rows' pivots."""
    F = S.shape[0]
    keep = np.zeros(F, dtype=bool)
    L = np.zeros((F, min(F, 256)))                # columns of the kept rows
    r = 0
    for j0 in range(0, F, block):
        j1 = min(j0 + block, F)
        C = S[j0:, j0:j1] - L[j0:, :r] @ L[j0:j1, :r].T
        for t in range(j1 - j0):
            d = C[t, t]
            if not d > tol:
                continue
            if r == L.shape[1]:
                L = np.hstack([L, np.zeros((F, min(F, 2 * r) - r))])
            col = C[:, t] / np.sqrt(d)
            col[:t] = 0.0                          # rows before the pivot: lower triangular
            L[j0:, r] = col
            r += 1
            C[:, t + 1:] -= np.outer(col, col[t + 1:j1 - j0])
            keep[j0 + t] = True
            if pivots is not None:
                pivots[j0 + t] = d
    return keep
