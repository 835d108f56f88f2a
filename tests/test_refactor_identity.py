"""The SVM's numbers did not move when the engine was split into a generic grid runner and
model families: every criterion on the paper grid equals, bit for bit, the table written by the
code before the split (tests/data/svm_paper_grid_before_refactor.csv, wahba2d n = 200, seed 0)."""
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from svmcore.datasets.simulations import make_wahba2d
from svmcore.grid import sweep
from svmcore.spec import GridSpec

BEFORE = Path(__file__).parent / "data" / "svm_paper_grid_before_refactor.csv"
CRITERIA = ["obs", "gacv", "xa", "brxa", "sure", "gckl", "misclass", "brmisclass"]


@pytest.mark.parametrize("case,costs", [("std", dict()),
                                        ("ns", dict(cost_a=1.0, cost_b=2.0, prior_a=0.1))])
def test_paper_grid_criteria_bit_identical_to_before_the_split(case, costs):
    before = pd.read_csv(BEFORE)
    before = before[before["case"] == case].reset_index(drop=True)
    res = sweep(make_wahba2d(200, 0), GridSpec.paper(), criteria=CRITERIA, **costs)
    now = res.table
    assert len(now) == len(before) == 26 * 13
    for col in ["log2_sigma", "log2_nlambda", "sigma", "lambda", "n_sv", "train_error",
                *CRITERIA, "kkt_residual"]:
        np.testing.assert_array_equal(now[col].to_numpy(float), before[col].to_numpy(float),
                                      err_msg=col)
