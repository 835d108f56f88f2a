"""The plain Gaussian-kernel SVM beside the COSSO SVM: same data, tuned on a small (λ, σ) grid."""
from __future__ import annotations

import numpy as np

from ...spec import GridSpec

#: small grid for the baseline: log2(nλ) −12…2 × log2 σ −2…3
BASELINE_GRID = ("-12:2:1", "-2:3:1")


def plain_svm_test_error(data, test, rule: str = "cv", cost_a: float = 1.0, cost_b: float = 1.0,
                         prior_a=None, grid=BASELINE_GRID) -> dict:
    """Test error of the Gaussian-kernel SVM tuned by ``rule`` ("gckl" with the true p, else 5-fold
    CV of the hinge) on ``grid``, via ``svmcore.grid.sweep``: {"test_error", "log2_nlambda",
    "log2_sigma", "rule"}."""
    from ...grid import sweep

    rule = "gckl" if rule == "gckl" and data.has_truth else "cv"
    res = sweep(data, GridSpec.parse(*grid), test=test, criteria=(rule,), cost_a=cost_a,
                cost_b=cost_b, prior_a=prior_a)
    column = "gckl" if rule == "gckl" else "cv_hinge"
    row = res.minimizer(column)
    if row is None:
        return {"test_error": float("nan"), "rule": rule}
    return {"test_error": float(row["test_error"]), "log2_nlambda": float(row["log2_nlambda"]),
            "log2_sigma": float(row["log2_sigma"]), "rule": rule,
            "criterion": float(np.asarray(row[column], float))}
