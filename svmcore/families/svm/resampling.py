"""k-fold cross-validation and exact leave-one-out (Wahba et al. 2001, §1.5).

Both return the out-of-sample decision values f^{[−i]}(x_i) for every λ of a σ column, so that one
call serves the whole λ axis (and the path solver can follow one path per fold).

Convention: a left-out fit minimizes the full objective with the left-out terms removed,
(1/n) Σ_{j kept} L(y_j)(1 − y_j f_j)_+ + λ‖h‖², i.e. the weight 1/n of each term (LIBSVM's
C = 1/(2nλ)) is unchanged. This is the leaving-out-one functional of Wahba et al. 2001, §1.5 — the one under
which "if α_k = 0, leaving out the k-th data point does not change the solution" holds, and under
which Joachims' ξα bound is proved. On m kept points it is the usual problem at λ' = nλ/m.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ..common import stratified_folds
from .fit import path_end, solve_lambdas
from .solvers.twins import find_twins
from .solvers._common import DualSolution


def _predict(K_test_train, y_train, sol: DualSolution) -> np.ndarray:
    n_train = len(y_train)
    return K_test_train @ (y_train * sol.alpha) / (2.0 * n_train * sol.lam) + sol.b


def _kept_lambdas(lams, n: int, m: int) -> list:
    """λ' = nλ/m: the same C = 1/(2nλ) on m kept points (module docstring)."""
    return [lam * n / m for lam in lams]


def kfold_decision_values(K, y, upper, lams: Sequence[float], folds: int = 5, seed: int = 0,
                          solver: str = "auto") -> np.ndarray:
    """f^{[−fold(i)]}(x_i) for every λ: an array (len(lams), n), NaN where a fit failed (docs/svm.md).

    Folds are stratified and seeded (scikit-learn's StratifiedKFold with shuffling); L(y_i) are fixed
    from the full sample (``upper``), and each fold keeps C = 1/(2nλ) (module docstring).
    """
    return kfold_paths(K, y, upper, lams, folds, seed, solver)[0]


def kfold_paths(K, y, upper, lams: Sequence[float], folds: int = 5, seed: int = 0,
                solver: str = "auto", starts: Sequence | None = None) -> tuple[np.ndarray, list]:
    """``kfold_decision_values``, and each fold's ``fit.path_end`` (where its path stopped). With
    ``starts`` (such ends of an earlier call with the same folds), each fold's path carries on
    from its end for the λ below it (``solve_lambdas``'s ``start``)."""
    n = len(y)
    F = np.full((len(lams), n), np.nan)
    ends = []
    twins = find_twins(K, y, upper) is not None          # a fold of a set without twins has none
    for j, (tr, te) in enumerate(stratified_folds(y, folds, seed)):
        kept = _kept_lambdas(lams, n, len(tr))
        sols = solve_lambdas(K[np.ix_(tr, tr)], y[tr], upper[tr], kept, solver,
                             start=None if starts is None else starts[j], twins=twins)
        ends.append(path_end(kept, sols))
        Kte = K[np.ix_(te, tr)]
        for k, sol in enumerate(sols):
            if not isinstance(sol, Exception):
                F[k, te] = _predict(Kte, y[tr], sol)
    return F, ends


def loo_decision_values(K, y, upper, lams: Sequence[float], full: Sequence[DualSolution],
                        solver: str = "auto") -> np.ndarray:
    """Exact leave-one-out f^{[−i]}(x_i) for every λ: an array (len(lams), n) (docs/svm.md).

    ``full`` are the full-sample solutions at ``lams``. Leaving out a point with α_i = 0 does not
    change the solution, so f^{[−i]}(x_i) = f_i there; only points with α_i > 0 are refitted, each
    at the λ values where it is a support vector.
    """
    n = len(y)
    F = np.full((len(lams), n), np.nan)
    sv = np.zeros((len(lams), n), dtype=bool)
    for k, sol in enumerate(full):
        if isinstance(sol, Exception):
            continue
        F[k] = sol.f
        sv[k] = sol.alpha > 0
    keep = np.ones(n, dtype=bool)
    twins = find_twins(K, y, upper) is not None
    for i in np.flatnonzero(sv.any(axis=0)):
        ks = np.flatnonzero(sv[:, i])
        keep[i] = False
        tr = np.flatnonzero(keep)
        keep[i] = True
        if np.all(y[tr] == y[tr][0]):
            continue  # one class left: no SVM; stays NaN
        sols = solve_lambdas(K[np.ix_(tr, tr)], y[tr], upper[tr],
                             _kept_lambdas([lams[k] for k in ks], n, n - 1), solver, twins=twins)
        Ki = K[i, tr][None, :]
        for k, sol in zip(ks, sols):
            if not isinstance(sol, Exception):
                F[k, i] = _predict(Ki, y[tr], sol)[0]
            else:
                F[k, i] = np.nan
    return F


def hinge_and_error(F, y, upper) -> tuple[np.ndarray, np.ndarray]:
    """(1/n) Σ L(y_i)(1 − y_i F_i)_+ and (1/n) Σ L(y_i)[−y_i F_i]_* per row of F (docs/svm.md)."""
    yF = y[None, :] * F
    hinge = np.mean(upper[None, :] * np.maximum(0.0, 1.0 - yF), axis=1)
    err = np.mean(upper[None, :] * (yF <= 0), axis=1)
    bad = np.isnan(F).any(axis=1)
    hinge[bad] = np.nan
    err[bad] = np.nan
    return hinge, err
