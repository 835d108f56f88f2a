"""cvxopt's interior-point QP on the SVM dual: the reference backend (SPEC §2; seed 000 eq 1.25)."""
from __future__ import annotations

import numpy as np

from ._common import DualSolution, finish_dual

_OPTIONS = {"show_progress": False, "abstol": 1e-9, "reltol": 1e-9, "feastol": 1e-9,
            "maxiters": 100}


def solve_cvxopt(K, y, upper, lam, **options) -> DualSolution:
    """Solve the weighted SVM dual with ``cvxopt.solvers.qp`` (SPEC §2).

    With s = 2nλ and m = min(1, s) the variable is v = α/m, so the problem solved is
    min ½ v' D_y K D_y v − (s/m) e'v, 0 ≤ v ≤ L(y)/m, y'v = 0: at large λ this is the α scale, at
    small λ LIBSVM's a = α/s scale, where the solution tends to the hard-margin one and stays O(1).
    The multiplier ν of the equality constraint gives b = ν·m/s. The interior-point answer is then
    finished exactly (``finish_dual``).
    """
    from cvxopt import matrix, solvers

    n = len(y)
    s = 2.0 * n * lam
    m = min(1.0, s)
    P = matrix(np.outer(y, y) * K)
    q = matrix(np.full(n, -s / m))
    G = matrix(np.vstack([-np.eye(n), np.eye(n)]))
    h = matrix(np.r_[np.zeros(n), upper / m])
    A = matrix(y.reshape(1, -1))
    opts = dict(_OPTIONS, **options)
    sol = solvers.qp(P, q, G, h, A, matrix(0.0), options=opts)
    alpha = np.asarray(sol["x"]).ravel() * m
    # stationarity on a free point: (D K D v)_i − s/m + y_i ν = 0, i.e. y_i (g_i + ν m/s) = 1.
    b = float(np.asarray(sol["y"]).ravel()[0]) * m / s
    info = {"status": sol["status"]}
    return finish_dual(K, y, upper, lam, alpha, b, "cvxopt", int(sol["iterations"]), info=info)
