"""The entire regularization path of the weighted SVM (SPEC §2; Hastie, Rosset, Tibshirani & Zhu 2004).

Notation (SPEC §2). s = 2nλ is HRTZ's λ_H, α_i ∈ [0, L(y_i)] is the dual variable, β = D_y α,
α_0 = s·b and h = s·f = K β + α_0. Points fall in three sets:

* elbow E: y_i f_i = 1, 0 ≤ α_i ≤ L(y_i), α_i free to move;
* left  L: y_i f_i ≤ 1, α_i = L(y_i);
* right R: y_i f_i ≥ 1, α_i = 0.

While the sets do not change, the elbow equations ``α_0 + K_EE β_E = s y_E − K_E,F β_F`` and
``1'β_E = −1'β_F`` (F = every point outside E, its α fixed) make (α_0, β_E) affine in s, and so
is h on every point (HRTZ 2004 §3, eq. 19–22). The path is followed downwards in s from an exact
solution at the largest requested λ; the next breakpoint is the first s at which an elbow α reaches
0 or L(y_i) or a left/right point reaches y f = 1 (HRTZ §3.2). The inverse of the bordered elbow
matrix ``[[0, 1'], [1, K_EE]]`` is maintained as points enter and leave — explicitly with rank-one
updates for small elbows, as a fixed base inverse plus a Schur complement of the changes (block LU)
for large ones — and rebuilt from scratch from time to time.

Degenerate cases:

* empty elbow (HRTZ §4.1, §5): α is constant, α_0 is any value of an interval that closes when a
  left point of each class reaches the margin; both then enter. Until then b is the midpoint of the
  interval (``intercept_from_bounds``), the convention of ``finish_dual``.
* a point whose kernel row is (numerically) in the affine span of the elbow's rows (duplicates,
  Gaussian kernels with a large σ) would make the elbow matrix singular; it is not added but
  "parked" at its current α and margin, and reconsidered when the elbow loses a point.
* several events at one s are applied together; zero-length steps are allowed (a bounded number).
* below the last event (no left point remains) a = α/s and f are constant: the formulas of the
  last segment remain exact for every smaller s.

At every requested λ the state is recomputed from the current partition (elbow system solved with
iterative refinement) and f = K c + b evaluated as ``decision_values`` does; its KKT residual is
checked. Above max(``kkt_tol``, rounding floor) — and with ``fallback`` — the answer is repaired,
cheapest first: (1) LU-refined solves of the same elbow system; (2) active-set rounds on the path's
own state at that λ (the path then continues from the repaired state; ``info["repaired"]``);
(3) ``finish_dual`` on the path's answer; (4) a working-set QP from the path's answer
(``solve_working_set``: cvxopt on the free points, the violators and the points nearest the
margin, certified by the KKT check on all points; ``info["working_set_repairs"]``); (5)
``solve_cvxopt`` on the whole problem (``info["fallback"]``), kept when its residual is smaller.
The path restarts from a repaired answer. The rounding floor
4·eps·max_i(|K||c| + |b|)_i is the accuracy to which f itself can be evaluated at that λ: at
λ ≈ 2^-25/n with points at the bound, no solver in this parameterization does better.

Accuracy note: with nearly singular elbow systems (Gaussian kernels with large σ, many elbow
points) α_E is only determined up to the near-null space of K_EE; f and the objective are still
accurate, and the KKT check at each requested λ catches the rare case where α_E leaves [0, L].
"""
from __future__ import annotations

import numpy as np

from ._common import (BOUND_RTOL, DualSolution, finish_dual, intercept_from_bounds, kkt_residual,
                      rounding_floor)
from .working_set import solve_working_set

_R, _L, _E, _P = 0, 1, 2, 3          # status codes: right (α=0), left (α=L), elbow, parked
_SGN = np.array([-1.0, 1.0, 0.0, 0.0])   # direction in which a non-elbow point meets the margin


class PathError(RuntimeError):
    """The path could not be continued (cycling, loss of accuracy)."""


class _ExplicitInverse:
    """Inverse of the bordered elbow matrix [[0, 1'], [1, K_EE]] kept explicitly, in elbow order.

    An entering point is a rank-one bordering update, a leaving point a rank-one downdate, each
    O(|E|²) (HRTZ 2004 §6). Few numpy calls per change: the cheapest choice for small elbows, where
    per-call overhead, not arithmetic, is the cost. Rebuilt by the owner every max(64, |E|) changes.
    """

    def __init__(self, A_E):
        M = A_E.shape[0]
        cap = M + 32
        self.B = np.zeros((cap, cap))
        try:
            self.B[:M, :M] = np.linalg.inv(A_E)
        except np.linalg.LinAlgError:
            self.B[:M, :M] = np.linalg.pinv(A_E)
        self.M = M
        self.k = 0

    def kmax(self):
        return max(64, self.M)

    def apply(self, rhs):
        return self.B[:self.M, :self.M] @ rhs

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
        if M + 1 > self.B.shape[0]:
            B = np.zeros((2 * M, 2 * M))
            B[:M, :M] = self.B[:M, :M]
            self.B = B
        B = self.B
        B[:M, :M] += np.outer(w, w / c)
        B[M, :M] = B[:M, M] = -w / c
        B[M, M] = 1.0 / c
        self.M = M + 1
        self.k += 1

    def remove(self, j):
        """Remove elbow position j; the last position moves into j (as in ``_Path.remove``)."""
        M = self.M
        r, last = j + 1, M - 1
        B = self.B[:M, :M]
        col = B[:, r].copy()
        B -= np.outer(col, col / col[r])
        if r != last:
            B[r, :] = B[last, :]
            B[:, r] = B[:, last]
            B[r, r] = B[last, last]
        self.M = M - 1
        self.k += 1


class _SchurInverse:
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
    """

    def __init__(self, K, A_E, E):
        self.K = K
        self.E0 = np.array(E, dtype=np.intp)
        self.M0 = M0 = len(E) + 1
        try:
            self.B0 = np.linalg.inv(A_E)
        except np.linalg.LinAlgError:
            self.B0 = np.linalg.pinv(A_E)
        self.loc = np.arange(1, M0 + 32, dtype=np.intp)   # first m entries used
        self.m = M0 - 1
        self.N = []                       # added points, in column order
        self.R = []                       # base positions (1..|E0|) pinned to zero
        self.VN = np.empty((M0, 8))
        self.WN = np.empty((M0, 8))
        self.WR = np.empty((M0, 8))
        self.S = np.empty((0, 0))         # order: added points, then pinned base positions

    @property
    def k(self):
        return len(self.N) + len(self.R)

    def kmax(self):
        return min(128, max(16, (self.M0 - 1) // 8))

    @staticmethod
    def _room(M, j):
        if j < M.shape[1]:
            return M
        out = np.empty((M.shape[0], 2 * M.shape[1]))
        out[:, :j] = M[:, :j]
        return out

    def _solve(self, g, hN):
        """[x; z_N] of the augmented system with right-hand side [g; h_N; 0]."""
        x0 = self.B0 @ g
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
        added = ~base
        g = np.zeros(self.M0)
        g[0] = rhs[0]
        g[loc[base]] = rhs[1:][base]
        hN = np.zeros(len(self.N))
        hN[-loc[added] - 1] = rhs[1:][added]
        xb, zN = self._solve(g, hN)
        x = np.empty(len(loc) + 1)
        x[0] = xb[0]
        x[1:][base] = xb[loc[base]]
        x[1:][added] = zN[-loc[added] - 1]
        return x

    def prepare_add(self, p, u, kpp):
        """Schur complement of point p against the current system, and the data to add it."""
        kp = self.K[p]
        v = np.empty(self.M0)
        v[0] = 1.0
        v[1:] = kp[self.E0]
        w = self.B0 @ v
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
            col = self.B0[:, b]
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


class _Path:
    """State of the path at the current breakpoint s: α, α_0, h = s f, partition, elbow inverse."""

    #: elbow size from which the block-LU (Schur) update replaces the explicit inverse
    SCHUR_FROM = 500

    def __init__(self, K, y, upper, dep_tol=1e-11):
        self.K = K
        self.y = y
        self.upper = upper
        self.n = n = len(y)
        self.kscale = max(float(np.max(np.abs(np.diag(K)))), 1e-300)
        self.abs_K = K if K.min() >= 0 else np.abs(K)     # for the rounding floor
        self.dep_tol = dep_tol
        cap = min(n, 64)
        self.KE = np.empty((cap, n))                    # rows K[E[j], :], grown on demand
        self.A = np.zeros((cap + 1, cap + 1))           # [[0, 1'], [1, K_EE]], elbow order
        self.F = None                                   # inverse of A (None: empty elbow)
        self.E = np.empty(0, dtype=np.intp)          # elbow points (a view of _Ebuf)
        self._Ebuf = np.empty(cap, dtype=np.intp)
        self.m = 0
        self.n_events = 0
        self.stale = False                              # the maintained inverse needs a rebuild

    # ------------------------------------------------------------------ elbow inverse
    def _grow(self):
        cap = self.KE.shape[0]
        if self.m < cap:
            return
        new = min(self.n, 2 * cap)
        m, m1 = self.m, self.m + 1
        KE = np.empty((new, self.n))
        KE[:m] = self.KE[:m]
        A = np.zeros((new + 1, new + 1))
        A[:m1, :m1] = self.A[:m1, :m1]
        self.KE, self.A = KE, A

    def needs_refactor(self):
        """Whether the maintained inverse should be rebuilt (drift, or many changes since)."""
        return self.stale or (self.F is not None and self.F.k >= self.F.kmax())

    def _append(self, p):
        """Append point p to the elbow order (E, KE, A)."""
        m = self.m
        self._grow()
        A = self.A
        kp = self.K[p]
        A[m + 1, 0] = A[0, m + 1] = 1.0
        A[m + 1, 1:m + 1] = A[1:m + 1, m + 1] = kp[self.E]
        A[m + 1, m + 1] = kp[p]
        self.KE[m] = kp
        if m == self._Ebuf.size:
            self._Ebuf = np.r_[self._Ebuf, np.empty(m, dtype=np.intp)]
        self._Ebuf[:m] = self.E
        self._Ebuf[m] = p
        self.E = self._Ebuf[:m + 1]
        self.m = m + 1
        self.status[p] = _E

    def try_add(self, p, dep_tol=None, careful=True) -> bool:
        """Add point p to the elbow unless its row is dependent on the elbow's (Schur test)."""
        m = self.m
        if m == 0:
            self._append(p)
            self.refactor()
            return True
        if self.stale:
            self.refactor()
        u = np.empty(m + 1)
        u[0] = 1.0
        u[1:] = self.KE[:m, p]
        kpp = self.K[p, p]
        c, data = self.F.prepare_add(p, u, kpp)
        if c > 1e-6 * self.kscale:
            self.F.commit_add(data)
            self._append(p)
            if self.F.k >= 4 * self.F.kmax():   # many adds without an event (set_solution)
                self.refactor()
            return True
        # small: recompute it backward-stably
        if not careful:
            return False
        w = self.solve_elbow(u, rtol=1e-13, rescue=False)
        if self.stale:                   # ill-conditioned even after a rebuild: LU, once
            try:
                w = np.linalg.solve(self.A[:m + 1, :m + 1], u)
            except np.linalg.LinAlgError:
                return False
        if not np.all(np.isfinite(w)):
            return False
        c = kpp - u @ w
        if not c > (self.dep_tol if dep_tol is None else dep_tol) * self.kscale:
            return False
        if self.stale:
            self._append(p)
            self.refactor()
            return True
        self.F.commit_add(data, w=w, c=c)   # with the backward-stable pivot
        self._append(p)
        return True

    def remove(self, j):
        """Remove the j-th elbow point (position in E) from the elbow."""
        m = self.m
        if m == 1:
            self.E = self.E[:0]
            self.m = 0
            self.F = None
            return
        self.F.remove(j)
        last = m - 1
        if j != last:                       # move the last elbow point into position j
            r, rl = j + 1, m
            A = self.A
            A[r, :m + 1] = A[rl, :m + 1]
            A[:m + 1, r] = A[:m + 1, rl]
            A[r, r] = A[rl, rl]
            self.KE[j] = self.KE[last]
            self.E[j] = self.E[last]
        self.E = self.E[:last]
        self.m = last

    def refactor(self):
        """Rebuild the inverse of the bordered elbow matrix (removes accumulated drift)."""
        m = self.m
        self.stale = False
        if m == 0:
            self.F = None
        elif m >= self.SCHUR_FROM:
            self.F = _SchurInverse(self.K, self.A[:m + 1, :m + 1], self.E)
        else:
            self.F = _ExplicitInverse(self.A[:m + 1, :m + 1])

    def solve_elbow(self, rhs, refine=3, rtol=1e-15, rescue=True):
        """Solve the bordered elbow system backward-stably: the maintained inverse plus iterative
        refinement (to a relative residual ``rtol``); LU (then least squares) when refinement
        does not reach it."""
        m = self.m
        if self.stale and rescue:
            self.refactor()
        A = self.A[:m + 1, :m + 1]
        x = self.F.apply(rhs)
        scale = np.abs(rhs).max() + self.kscale * np.abs(x[1:]).max(initial=0.0)
        for _ in range(refine):
            r = rhs - A @ x
            if np.abs(r).max() <= rtol * scale:
                return x
            x = x + self.F.apply(r)
        r = rhs - A @ x
        if np.abs(r).max() <= 1e-13 * scale:
            return x
        if not rescue:
            self.stale = True
            return x
        # the maintained inverse has drifted: rebuild it, then solve afresh with refinement
        self.refactor()
        x = self.F.apply(rhs)
        for _ in range(refine):
            r = rhs - A @ x
            if np.abs(r).max() <= 1e-15 * scale:
                return x
            x = x + self.F.apply(r)
        if np.abs(rhs - A @ x).max() <= 1e-13 * scale:
            return x
        try:
            x = np.linalg.solve(A, rhs)
            if np.all(np.isfinite(x)):
                return x
        except np.linalg.LinAlgError:
            pass
        return np.linalg.lstsq(A, rhs, rcond=None)[0]

    def elbow_rhs(self, s, beta):
        """Right-hand side of the elbow system at s = 2nλ: [−Σ_{j∉E} β_j ; s y_E − K_{E,·} β_{∉E}]."""
        E, m = self.E, self.m
        bF = beta.copy()
        bF[E] = 0.0
        rhs = np.empty(m + 1)
        rhs[0] = -bF.sum()
        rhs[1:] = s * self.y[E] - self.KE[:m] @ bF
        return rhs

    # ------------------------------------------------------------------ state
    def set_solution(self, s, alpha, b):
        """Take an exact solution at s = 2nλ: partition, elbow inverse, exact α_E, h."""
        upper, y = self.upper, self.y
        alpha = np.clip(np.asarray(alpha, float), 0.0, upper)
        at0 = alpha <= BOUND_RTOL * min(1.0, float(s)) * upper
        atL = alpha >= (1.0 - BOUND_RTOL) * upper
        alpha = np.where(at0, 0.0, np.where(atL, upper, alpha))
        self.alpha = alpha
        self.status = np.where(atL, _L, _R).astype(np.int8)
        free = np.flatnonzero(~at0 & ~atL)
        self.E = np.empty(0, dtype=np.intp)
        self.m = 0
        self.s = float(s)
        self.alpha0 = float(s * b)
        # add the free points, the most interior first; dependent ones are parked
        order = free[np.argsort(-np.minimum(alpha[free], upper[free] - alpha[free]))]
        for p in order:
            if not self.try_add(p):
                self.status[p] = _P
        self.refactor()
        self.exact_state()

    def exact_state(self):
        """Recompute α_E, α_0 from the elbow system at the current s, and h = K β + α_0."""
        y, s, m = self.y, self.s, self.m
        beta = y * self.alpha
        if m > 0:
            E = self.E
            rhs = self.elbow_rhs(s, beta)
            x = self.solve_elbow(rhs)
            self.alpha0 = float(x[0])
            beta[E] = x[1:]
            self.alpha[E] = y[E] * x[1:]
            self.h = self._h_of(beta, self.alpha0)
        else:
            g = self.K @ beta
            self.alpha0 = s * intercept_from_bounds(g / s, y, self.alpha, self.upper)
            self.h = g + self.alpha0

    def _h_of(self, beta, alpha0):
        """h = K β + α_0, as a correction of a reference product when few β changed."""
        ref = getattr(self, "_href", None)
        if ref is not None:
            h_ref, b_ref, a0_ref, s_ref = ref
            if self.s >= 0.5 * s_ref:          # keep the reference's rounding error ≪ s
                C = np.flatnonzero(beta != b_ref)
                if C.size <= self.n // 8:
                    return h_ref + (beta[C] - b_ref[C]) @ self.K[C] + (alpha0 - a0_ref)
        h = self.K @ beta + alpha0
        self._href = (h, beta.copy(), alpha0, self.s)
        return h

    def solution_at(self, s_req, lam, tol=0.0):
        """α, b, f at s_req ≤ s on the current segment (the partition is valid there).

        The elbow system is solved with the maintained inverse plus refinement; when the KKT
        residual exceeds max(tol, rounding floor), two more careful solves are tried (refinement
        with LU corrections from that answer, and LU from scratch) and the best answer is kept.
        """
        y, s, m = self.y, float(s_req), self.m
        beta = y * self.alpha
        if m == 0:
            g = self.K @ beta
            cands = [(None, intercept_from_bounds(g / s, y, self.alpha, self.upper))]
            rhs = A = None
        else:
            rhs = self.elbow_rhs(s, beta)
            A = self.A[:m + 1, :m + 1]
            cands = [(self.solve_elbow(rhs), None)]
        best = None
        for attempt in range(3):
            x, b = cands[-1]
            alpha = self.alpha.copy()
            if x is not None:
                alpha[self.E] = y[self.E] * x[1:]
                b = float(x[0]) / s
            c = y * alpha / s
            f = self.K @ c + b                                   # as ``decision_values``
            # rounding level of f = K c + b: no solver in this parameterization does better
            floor = rounding_floor(self.K, y, alpha, s / (2.0 * self.n), b, abs_K=self.abs_K)
            res = kkt_residual(y, f, alpha, self.upper, scale=min(1.0, s))
            if best is None or res < best[0]:
                best = (res, alpha, b, f, floor)
            if best[0] <= max(tol, floor) or x is None:
                break
            try:
                if attempt == 0:                 # LU-corrected refinement from this answer
                    for _ in range(2):
                        x = x + np.linalg.solve(A, rhs - A @ x)
                else:                            # LU from scratch, one refinement step
                    x = np.linalg.solve(A, rhs)
                    x = x + np.linalg.solve(A, rhs - A @ x)
            except np.linalg.LinAlgError:
                break
            if not np.all(np.isfinite(x)):
                break
            cands.append((x, None))
        res, alpha, b, f, floor = best
        return DualSolution(float(lam), alpha, float(b), f, "path", self.n_events, res, True,
                            {"kkt_floor": floor})

    def repair_at(self, s_req, lam, tol, res0, rounds=20):
        """Move the state to s_req and correct its partition there (active-set rounds): elbow α
        outside [0, L] go to that bound, bound points violating KKT enter the elbow. Returns the
        solution when its KKT residual reaches max(tol, floor) (and beats ``res0``), else None;
        the state then stays at s_req either way (it is still on the path's partition)."""
        y, upper = self.y, self.upper
        self.s = float(s_req)
        self.exact_state()
        first = None
        for _ in range(rounds):
            sol = self.solution_at(self.s, lam, tol)
            if first is None:
                first = sol
            thr = max(tol, sol.info["kkt_floor"])
            if sol.kkt_residual <= thr:
                if sol.kkt_residual < res0:
                    self.alpha = sol.alpha.copy()
                    self.alpha0 = sol.b * self.s
                    self.exact_state()
                    return sol
                break
            yf = y * sol.f
            changed = False
            if self.m > 0:
                aE = y[self.E] * (sol.alpha[self.E] * y[self.E])
                bad = np.flatnonzero((aE < 0) | (aE > upper[self.E]))
                for j in sorted(bad.tolist(), reverse=True):
                    p = self.E[j]
                    hi = aE[j] > upper[p]
                    self.alpha[p] = upper[p] if hi else 0.0
                    self.status[p] = _L if hi else _R
                    self.remove(j)
                    changed = True
            if not changed:
                st = self.status
                a = self.alpha
                at0 = (st == _R) | ((st == _P) & (a <= 0))
                atL = (st == _L) | ((st == _P) & (a >= upper))
                mid = (st == _P) & ~at0 & ~atL
                viol = np.flatnonzero((at0 & (yf < 1 - thr)) | (atL & (yf > 1 + thr)) |
                                      (mid & (np.abs(yf - 1) > thr)))
                for p in viol[np.argsort(-np.abs(yf[viol] - 1))][:max(1, self.m // 4 + 1)]:
                    changed |= self.try_add(p, dep_tol=1e-15)
            if not changed:
                break
            self.refactor()
            self.exact_state()
        # failed: back to the state the path had at s_req
        self.set_solution(self.s, first.alpha, first.b)
        return None

    # ------------------------------------------------------------------ one segment
    def direction(self):
        """d(α_0, β_E)/ds and dh/ds on the current segment."""
        m = self.m
        rhs = np.empty(m + 1)
        rhs[0] = 0.0
        rhs[1:] = self.y[self.E]
        # a direction (the state is corrected anyway), but still refined to 1e-12: without the
        # residual check, ill-conditioned elbows (n = 2000, σ = 2^-2) cycled at degenerate events
        x = self.solve_elbow(rhs, rtol=1e-12)
        dh = x[1:] @ self.KE[:m] + x[0]
        return x[0], x[1:], dh

    def empty_elbow_event(self):
        """s at which the α_0-interval of an empty elbow closes, with the two points that enter."""
        y, g = self.y, self.h - self.alpha0
        Lp = np.flatnonzero((self.status == _L) & (y > 0))
        Lm = np.flatnonzero((self.status == _L) & (y < 0))
        if Lp.size == 0 or Lm.size == 0:
            return -np.inf, None, None
        jp = Lp[np.argmax(g[Lp])]
        jm = Lm[np.argmin(g[Lm])]
        return 0.5 * (g[jp] - g[jm]), jp, jm


def _start(K, y, upper, lam, kkt_tol):
    """An exact solution at the largest λ: LIBSVM finished exactly, else cvxopt."""
    from .libsvm import solve_libsvm
    from .qp import solve_cvxopt

    try:
        sol = solve_libsvm(K, y, upper, lam, tol=1e-5)    # finish_dual makes it exact
        if sol.polished and sol.kkt_residual <= kkt_tol:
            return sol, False
    except Exception:                                            # noqa: BLE001
        pass
    return solve_cvxopt(K, y, upper, lam), True


def solve_path(K, y, upper, lams, *, kkt_tol: float = 1e-8, fallback: bool = True,
               start: DualSolution | None = None, max_events: int | None = None,
               dep_tol: float = 1e-11, blas_threads: int | None = 1) -> list:
    """Exact regularization path of the weighted SVM evaluated at the requested λ (SPEC §2).

    Follows the piecewise-linear path α(s), α_0(s) (s = 2nλ = HRTZ's λ_H) of Hastie, Rosset,
    Tibshirani & Zhu (2004, JMLR 5) from an exact solution at max(lams) downwards, with per-point
    upper bounds L(y_i) (unbalanced and weighted classes), empty-elbow segments, simultaneous events
    and dependent elbow points handled (module docstring).

    Parameters
    ----------
    K : (n, n) array
        Gram matrix (symmetric positive semidefinite).
    y : (n,) array of ±1
    upper : (n,) array
        L(y_i) > 0, the upper bound of α_i.
    lams : sequence of float
        λ values (> 0), in any order.
    kkt_tol : float
        Largest KKT residual (``kkt_residual``) accepted at a requested λ; larger → cvxopt.
    fallback : bool
        Whether to solve a failed λ with ``solve_cvxopt`` (and restart the path from it). Without
        fallback the path's answer is returned as is (check ``kkt_residual``).
    start : DualSolution, optional
        An exact solution at max(lams) to start from (default: LIBSVM + exact finish, or cvxopt).
    max_events : int, optional
        Cap on the number of breakpoints (default 50 n + 1000).
    dep_tol : float
        Relative Schur-complement threshold below which a point is not added to the elbow.
    blas_threads : int or None
        BLAS threads while following the path (its matrices are small: one thread is much faster
        than several on a busy machine); None leaves the setting alone. cvxopt fallbacks run with
        the machine's default.

    Returns
    -------
    list of DualSolution
        One per λ in the input order, solver "path"; ``info`` holds ``fallback`` (this λ came from
        cvxopt), ``fallbacks`` (count over the call), ``events`` (breakpoints so far) and
        ``start`` (how the path was started).
    """
    if blas_threads is None:
        with np.errstate(divide="ignore", invalid="ignore"):
            return _solve_path(K, y, upper, lams, kkt_tol, fallback, start, max_events, dep_tol,
                               None)
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=int(blas_threads), user_api="blas"), \
            np.errstate(divide="ignore", invalid="ignore"):
        return _solve_path(K, y, upper, lams, kkt_tol, fallback, start, max_events, dep_tol,
                           threadpool_limits)


def _solve_path(K, y, upper, lams, kkt_tol, fallback, start, max_events, dep_tol, limiter):
    from .qp import solve_cvxopt

    def _cvxopt(lam):
        if limiter is None:
            return solve_cvxopt(K, y, upper, lam)
        import os
        with limiter(limits=os.cpu_count() or 1, user_api="blas"):
            return solve_cvxopt(K, y, upper, lam)

    K = np.asarray(K, float)
    y = np.asarray(y, float)
    upper = np.asarray(upper, float)
    lams = np.atleast_1d(np.asarray(lams, float))
    n = len(y)
    if lams.size == 0:
        return []
    if np.any(lams <= 0):
        raise ValueError("every λ must be positive")
    order = np.argsort(-lams, kind="stable")
    s_req = 2.0 * n * lams[order]
    max_events = 50 * n + 1000 if max_events is None else int(max_events)

    P = _Path(K, y, upper, dep_tol=dep_tol)
    if start is None:
        start, used_cvx = _start(K, y, upper, float(lams[order[0]]), kkt_tol)
        start_kind = "cvxopt" if used_cvx else "libsvm"
    else:
        start_kind = "given"
    P.set_solution(s_req[0], start.alpha, start.b)

    out = [None] * lams.size
    fallbacks = 0
    repairs = 0
    ws_repairs = 0
    last_good = [None]

    def _reference(k):
        nonlocal fallbacks
        fallbacks += 1
        try:
            return _cvxopt(float(lams[order[k]]))
        except Exception:                                         # noqa: BLE001
            return None

    def _repair(k, sol):
        nonlocal repairs
        try:
            fin = finish_dual(K, y, upper, float(lams[order[k]]), sol.alpha, sol.b, "path")
        except Exception:                                         # noqa: BLE001
            return None
        floor = rounding_floor(K, y, fin.alpha, float(lams[order[k]]), fin.b, abs_K=P.abs_K)
        if fin.kkt_residual <= max(kkt_tol, floor) and fin.kkt_residual < sol.kkt_residual:
            fin.info["kkt_floor"] = floor
            repairs += 1
            return fin
        return None

    def _working_set(k, sol):
        """Working-set cvxopt (svmcore.families.svm.solvers.working_set) from the path's near-solution, else
        from the last accepted answer at a larger λ (after a degenerate stretch the path's own
        state can be far off while the previous grid point's partition is still close)."""
        nonlocal ws_repairs
        starts = (sol, last_good[0]) if sol.kkt_residual <= 1e-3 else (last_good[0], sol)
        for begin in starts:
            if begin is None or not (np.all(np.isfinite(begin.alpha)) and np.isfinite(begin.b)):
                continue
            try:
                ws = solve_working_set(K, y, upper, float(lams[order[k]]), begin.alpha, begin.b,
                                       tol=kkt_tol, blas_threads=None)
            except Exception:                                     # noqa: BLE001
                ws = None
            if ws is not None and ws.kkt_residual < sol.kkt_residual:
                ws_repairs += 1
                return ws
        return None

    def _accepted(sol):
        """Remember sol as the last answer within tolerance (a start for later repairs)."""
        if sol.kkt_residual <= max(kkt_tol, sol.info.get("kkt_floor", 0.0)):
            last_good[0] = sol

    def _restart(k, ref, reason="KKT", kind="cvxopt"):
        """Record a replacement answer at the k-th λ and restart the path from it."""
        nonlocal zero_steps
        out[order[k]] = DualSolution(float(lams[order[k]]), ref.alpha, ref.b, ref.f, "path",
                                     total_events, ref.kkt_residual, ref.polished,
                                     {"fallback": kind == "cvxopt",
                                      "repaired": kind in ("repaired", "working_set"),
                                      "start": start_kind, "error": reason})
        _accepted(out[order[k]])
        Pn = _Path(K, y, upper, dep_tol=dep_tol)
        Pn.set_solution(s_req[k], ref.alpha, ref.b)
        zero_steps = 0
        return Pn

    zero_steps = 0
    k = 0                                         # next requested λ (in decreasing order)
    total_events = 0
    while k < s_req.size:
        s = P.s
        # ---------------------------------------------------------------- next event
        failed = False
        try:
            if total_events > max_events:
                raise PathError("too many events")
            if P.m == 0:
                s_ev, jp, jm = P.empty_elbow_event()
                t_ev = s - s_ev
                if t_ev < 0:
                    t_ev = 0.0
                ev = ("empty", jp, jm)
            else:
                da0, dbeta, dh = P.direction()
                yE = y[P.E]
                gap = y * P.h - s                     # y f − 1, times s
                rho = 1.0 - y * dh                    # d gap / dt, t = s_k − s
                sgn = _SGN[P.status]                  # +1 left, −1 right, 0 elbow/parked
                # (divisions by ~0 are masked out; the caller silenced their warnings)
                tm = np.where(sgn * rho > 1e-11, np.maximum(-gap / rho, 0.0), np.inf)
                v = -yE * dbeta                       # dα_E/dt
                aE = P.alpha[P.E]
                uE = upper[P.E]
                vtol = 1e-13 * uE / max(s, 1e-300)
                te = np.where(v < -vtol, np.maximum(aE / -v, 0.0),
                              np.where(v > vtol, np.maximum((uE - aE) / v, 0.0), np.inf))
                i_m = int(np.argmin(tm)) if tm.size else -1
                t_m = tm[i_m]
                j_e = int(np.argmin(te))
                t_e = te[j_e]
                t_ev = min(t_m, t_e)
                if t_ev >= s:                         # no event before s = 0
                    t_ev = np.inf
                ev = ("step",)
            # ------------------------------------------------------ requested λ on this segment
            restarted = False
            while k < s_req.size and s - s_req[k] <= t_ev:
                sol = P.solution_at(s_req[k], lams[order[k]], kkt_tol)
                sol.info.update(fallback=False, start=start_kind)
                ok = (sol.kkt_residual <= max(kkt_tol, sol.info["kkt_floor"])
                      and np.all(np.isfinite(sol.f)))
                if not ok and fallback:
                    # cheap repair first: the exact finish (active-set correction) on the path's
                    # own answer; cvxopt only when that does not reach the tolerance
                    fin = P.repair_at(s_req[k], lams[order[k]], kkt_tol, sol.kkt_residual)
                    if fin is not None:                 # the path continues from there
                        repairs += 1
                        fin.info.update(fallback=False, repaired=True, start=start_kind)
                        out[order[k]] = fin
                        _accepted(fin)
                        k += 1
                        restarted = True
                        break
                    fin, kind, how = _repair(k, sol), "repaired", "finish_dual"
                    if fin is None:
                        fin, kind, how = _working_set(k, sol), "working_set", "a working-set QP"
                    if fin is not None:
                        P = _restart(k, fin, f"repaired by {how}", kind=kind)
                        k += 1
                        restarted = True
                        break
                    ref = _reference(k)
                    if ref is not None and not ref.kkt_residual >= sol.kkt_residual:
                        P = _restart(k, ref)
                        k += 1
                        restarted = True
                        break
                out[order[k]] = sol
                _accepted(sol)
                k += 1
            if restarted:
                continue
            if k >= s_req.size:
                break
            # ------------------------------------------------------ advance to the event
            if ev[0] == "empty":
                _, jp, jm = ev
                P.s = s - t_ev
                g = P.h - P.alpha0
                P.alpha0 = P.s - g[jp]
                P.h = g + P.alpha0
                P.try_add(jp)
                if not P.try_add(jm):
                    raise PathError("empty elbow: dependent pair")
                P.n_events += 1
                total_events += 1
                continue
            P.s = s - t_ev
            P.alpha[P.E] = aE + t_ev * v
            P.alpha0 = P.alpha0 - t_ev * da0
            P.h = P.h - t_ev * dh
            if t_ev <= 1e-14 * s:
                zero_steps += 1
                if zero_steps > 10 + 2 * n:
                    raise PathError("cycling at a degenerate breakpoint")
            else:
                zero_steps = 0
            # all events within a relative tolerance of the first
            tol_t = t_ev + 1e-12 * s
            leave = np.flatnonzero(te <= tol_t)
            enter = np.flatnonzero(tm <= tol_t)
            removed = False
            for j in sorted(leave.tolist(), reverse=True):
                p = P.E[j]
                if v[j] > 0:
                    P.alpha[p] = upper[p]
                    P.status[p] = _L
                else:
                    P.alpha[p] = 0.0
                    P.status[p] = _R
                P.remove(j)
                removed = True
            if removed:                               # parked points may now enter
                parked = np.flatnonzero(P.status == _P)
                for p in parked:
                    if P.try_add(p):
                        continue
                    a = P.alpha[p]
                    if a <= BOUND_RTOL * min(1.0, P.s) * upper[p]:
                        P.alpha[p], P.status[p] = 0.0, _R
                    elif a >= (1 - BOUND_RTOL) * upper[p]:
                        P.alpha[p], P.status[p] = upper[p], _L
            # enter in order of the size of their violation rate
            enter = enter[np.argsort(-np.abs(rho[enter]))]
            for p in enter:
                if P.status[p] in (_L, _R) and not P.try_add(p):
                    P.status[p] = _P
            P.n_events += 1
            total_events += 1
            if P.needs_refactor():
                P.refactor()
                P.exact_state()
            elif total_events % 8 == 0:
                P.exact_state()
        except (PathError, np.linalg.LinAlgError, FloatingPointError) as exc:
            failed = True
            reason = str(exc)
        if failed:
            if not fallback:
                # return what the path gives, with its residual, for the remaining λ
                for kk in range(k, s_req.size):
                    try:
                        sol = P.solution_at(s_req[kk], lams[order[kk]])
                    except Exception:                             # noqa: BLE001
                        sol = DualSolution(float(lams[order[kk]]), np.full(n, np.nan), np.nan,
                                           np.full(n, np.nan), "path", P.n_events)
                    sol.info.update(fallback=False, start=start_kind, error=reason)
                    out[order[kk]] = sol
                break
            try:                          # the path's own answer there, repaired on a working set
                near = P.solution_at(s_req[k], lams[order[k]])
            except Exception:                                     # noqa: BLE001
                near = DualSolution(float(lams[order[k]]), np.full(n, np.nan), np.nan,
                                    np.full(n, np.nan), "path", 0, np.inf)
            ref = _working_set(k, near)
            if ref is not None:
                P = _restart(k, ref, reason + "; repaired by a working-set QP", kind="working_set")
                k += 1
                continue
            ref = _reference(k)
            if ref is None:
                raise PathError(f"path failed ({reason}) and cvxopt failed at lambda={lams[order[k]]:g}")
            P = _restart(k, ref, reason)
            k += 1
    for sol in out:
        sol.info.setdefault("repaired", False)
        sol.info["repairs"] = repairs
        sol.info["working_set_repairs"] = ws_repairs
        sol.info["fallbacks"] = fallbacks
        sol.info["events"] = total_events
    return out
