"""The SVM's numbers did not move when the engine was split into a generic grid runner and
model families, nor when the path solver was made faster (issue 21).

Two stored tables of the paper grid (wahba2d n = 200, seed 0; standard and nonstandard costs):

* tests/data/svm_paper_grid_before_refactor.csv, written by the code before the split, on the
  machine of that time;
* tests/data/svm_paper_grid_before_speed.csv, written by the code before the speed work
  (commit cf66dc9) with this repository's pinned numpy/scipy/OpenBLAS.

Against the second, every criterion agrees to a relative 1e-9. Against the first, the same code
(cf66dc9) already differed by up to 5e-8 (SURE, GCKL, GACV at nλ = 2^-25, σ ≥ 2^0.5): another
BLAS sums f = K c + b in another order, and at λ = 2^-25/n that rounding (the path's KKT floor,
~1e-7) reaches the criteria; there the tolerance is 1e-7, and OBS (a mean of hinge losses
1 − y f, on the scale of 1: its rounding is absolute, up to 1.8e-8 there) is compared to an absolute
5e-8; the KKT residuals (rounding-level numbers) are compared with the second table only.
"""
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from svmcore.datasets.simulations import make_wahba2d
from svmcore.grid import sweep
from svmcore.spec import GridSpec

DATA = Path(__file__).parent / "data"
TABLES = {"refactor": (DATA / "svm_paper_grid_before_refactor.csv", 1e-7),
          "speed": (DATA / "svm_paper_grid_before_speed.csv", 1e-9)}
CRITERIA = ["obs", "gacv", "xa", "brxa", "sure", "gckl", "misclass", "brmisclass"]
COSTS = {"std": dict(), "ns": dict(cost_a=1.0, cost_b=2.0, prior_a=0.1)}
_NOW = {}


def _now(case):
    if case not in _NOW:
        _NOW[case] = sweep(make_wahba2d(200, 0), GridSpec.paper(), criteria=CRITERIA,
                           **COSTS[case]).table
    return _NOW[case]


def _zero_in_exact_arithmetic(col, values):
    """Where a criterion is exactly 0 (no relative scale): a misclassification rate of 0, and OBS
    (the mean hinge loss) when no point is inside the margin — then what is stored is rounding
    of 1 − y f on the margin points (7e-15 before, 1.2e-14 now; up to 2e-12 at λ = 2^-25/n)."""
    return values <= (1e-11 if col == "obs" else 0.0)


@pytest.mark.parametrize("table", sorted(TABLES))
@pytest.mark.parametrize("case", sorted(COSTS))
def test_paper_grid_criteria_identical_to_before(case, table):
    path, rtol = TABLES[table]
    before = pd.read_csv(path)
    before = before[before["case"] == case].reset_index(drop=True)
    now = _now(case)
    assert len(now) == len(before) == 26 * 13
    for col in ["log2_sigma", "log2_nlambda", "sigma", "lambda", "n_sv", "train_error"]:
        np.testing.assert_array_equal(now[col].to_numpy(float), before[col].to_numpy(float),
                                      err_msg=col)
    for col in CRITERIA:
        a, b = now[col].to_numpy(float), before[col].to_numpy(float)
        if table == "refactor" and col == "obs":       # another machine (module docstring)
            np.testing.assert_allclose(a, b, rtol=0, atol=5e-8, err_msg=col)
            continue
        zero = _zero_in_exact_arithmetic(col, b)
        np.testing.assert_allclose(a[~zero], b[~zero], rtol=rtol, atol=0, err_msg=col)
        # the one absolute tolerance: values that are exactly 0 have no relative scale
        np.testing.assert_allclose(a[zero], 0.0, rtol=0, atol=1e-11, err_msg=col)
    # the KKT residuals are rounding-level numbers: no worse than before, overall
    if table == "speed":
        assert now["kkt_residual"].max() <= before["kkt_residual"].max()
