"""The start's homotopy (``solvers/homotopy.py``): an exact solution at one λ from SMO's near
one. Each answer is checked against the KKT conditions computed from K, y and α, against LIBSVM
run to tol 1e-11 on the same Gram matrix, and against cvxopt's objective."""
from __future__ import annotations

import numpy as np
import pytest

from svmcore.cancel import Cancelled
from svmcore.datasets.simulations import make_wahba2d
from svmcore.families.svm.solvers import libsvm
from svmcore.families.svm.solvers import path as P
from svmcore.families.svm.solvers._common import finish_dual, kkt_residual
from svmcore.families.svm.solvers.path import solve_path
from svmcore.families.svm.solvers.qp import solve_cvxopt
from svmcore.kernels import gaussian_gram
from test_path import _assert_equal_to_tight_libsvm, _objective, _smo_tolerances, _start_problem


def _partition(alpha, upper):
    return np.where(alpha <= 1e-9 * upper, 0, np.where(alpha >= (1 - 1e-9) * upper, 2, 1))


@pytest.mark.parametrize("case", ["n800_smo1e-5", "n400_smo1e-3"])
def test_the_homotopy_finishes_smo_answers_exactly(case):
    """wahba2d, n = 800, σ = 2^-1.5, s = 4 from SMO at 1e-5 (``finish_dual`` fails there:
    residual 5e-6), and n = 400, σ = 2^-2, s = 2 from SMO at 1e-3: the homotopy crosses events
    (points SMO put in the wrong set move), and its answer has a KKT residual ≤ 1e-12, f equal
    to LIBSVM's at tol 1e-11 and cvxopt's objective (no larger; cvxopt's interior point is at most
    1e-6 above it)."""
    if case == "n800_smo1e-5":
        data, K, lams = _start_problem()
        lam, smo_tol = float(lams[0]), 1e-5
    else:
        data = make_wahba2d(400, 0)
        K, lam, smo_tol = gaussian_gram(data.X, sigma=0.25), 2.0 / 800, 1e-3
    y = data.y
    upper = np.ones(len(y))
    raw = libsvm.solve_libsvm(K, y, upper, lam, tol=smo_tol, min_tol=smo_tol, finish=False)
    exact = P._start_by_homotopy(K, y, upper, lam, raw, 1e-12)
    assert exact is not None and exact.solver == "homotopy" and exact.polished
    moved = int(np.sum(_partition(raw.alpha, upper) != _partition(exact.alpha, upper)))
    assert exact.n_iter >= moved >= 1, (exact.n_iter, moved)
    f = exact.f
    assert kkt_residual(y, f, exact.alpha, upper) <= 1e-12
    assert abs(float(y @ exact.alpha)) <= 1e-12 * len(y)
    _assert_equal_to_tight_libsvm([exact], K, y)
    ref = solve_cvxopt(K, y, upper, lam)
    mine, theirs = _objective(K, y, upper, exact), _objective(K, y, upper, ref)
    assert theirs - 1e-6 * theirs <= mine <= theirs + 1e-12 * theirs, (mine, theirs)
    if case == "n800_smo1e-5":
        assert not finish_dual(K, y, upper, lam, raw.alpha, raw.b, "libsvm", tol=1e-12).polished


def test_twins_end_in_an_exact_answer_or_none():
    """40 points with twins 1e-7 away: parked points keep SMO's α, and the answer is finished on
    its partition; whatever the homotopy returns is exact (≤ 1e-12), else None (the start then
    goes on to the working set)."""
    data = make_wahba2d(400, 0)
    X = np.r_[data.X, data.X[:40] + 1e-7]
    y = np.r_[data.y, data.y[:40]]
    K = gaussian_gram(X, sigma=0.5)
    upper, lam = np.ones(len(y)), 2.0 / (2 * len(y))
    raw = libsvm.solve_libsvm(K, y, upper, lam, tol=1e-3, min_tol=1e-3, finish=False)
    exact = P._start_by_homotopy(K, y, upper, lam, raw, 1e-12)
    assert exact is None or kkt_residual(y, exact.f, exact.alpha, upper) <= 1e-12


def test_the_start_takes_the_homotopy_before_a_working_set(monkeypatch):
    """wahba2d, n = 800, σ = 2^-1.5: the path's start is the homotopy's answer from SMO at 1e-5
    (no working set, no second SMO), and the path's answers equal LIBSVM's at tol 1e-11."""
    data, K, lams = _start_problem(monkeypatch)
    n = len(data.y)
    tols, starts = _smo_tolerances(monkeypatch), []
    real_h = P._start_by_homotopy

    def homotopy(*a, **k):
        starts.append(real_h(*a, **k))
        return starts[-1]

    monkeypatch.setattr(P, "_start_by_homotopy", homotopy)
    monkeypatch.setattr(P, "solve_working_set", lambda *a, **k: pytest.fail("working set"))
    sols = solve_path(K, data.y, np.ones(n), lams)
    assert tols == [1e-5] and len(starts) == 1 and starts[0].solver == "homotopy"
    assert all(sol.kkt_residual <= 1e-8 for sol in sols)
    _assert_equal_to_tight_libsvm(sols, K, data.y)


def test_a_cancel_inside_the_start_is_not_a_cvxopt_start(monkeypatch):
    """A sweep's cancel raised while the start runs ends the column (``Cancelled``); the start's
    catch-all for solver failures does not turn it into a cvxopt solve."""
    data, K, lams = _start_problem(monkeypatch)

    def cancelled(*a, **k):
        raise Cancelled()

    monkeypatch.setattr(P, "_start_by_homotopy", cancelled)
    monkeypatch.setattr(P, "solve_cvxopt", lambda *a, **k: pytest.fail("cvxopt"))
    with pytest.raises(Cancelled):
        solve_path(K, data.y, np.ones(len(data.y)), lams)
