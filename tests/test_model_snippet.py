"""svmapp/model_snippet.py: the "Use this model" code and JSON rebuild the family's fit."""
from __future__ import annotations

import json

import numpy as np
import pytest

from svmapp.model_snippet import fitted_model_json, model_snippet, sklearn_mapping
from svmcore import TunedSVC
from svmcore.datasets.base import Dataset
from svmcore.families.svm.fit import fit_svm
from svmcore.kernels import Kernel
from svmcore.spec import make_spec
from svmcore.weights import class_weights_from_costs


def _problem(n=50, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = np.where(X[:, 0] - 0.5 * X[:, 1] + 0.6 * rng.normal(size=n) > 0.3, 1.0, -1.0)
    return X, y


@pytest.mark.parametrize("costs", [dict(), dict(cost_a=1.0, cost_b=2.0, prior_a=0.3)])
def test_snippet_rebuilds_the_family_fit_in_svmcore_and_in_plain_sklearn(costs):
    X, y = _problem()
    spec = make_spec("svm", log2_nlambda="-3", log2_sigma="0.5", **costs)
    l2n, l2s = -3.0, 0.5
    code = model_snippet(spec, l2n, l2s, y)
    ns = {"X": X, "y": y}
    exec(compile(code, "<snippet>", "exec"), ns)
    fit = fit_svm(X, y, 2.0 ** l2n / len(y), Kernel("gaussian", sigma=2.0 ** l2s),
                  class_weights_from_costs(y, spec.cost_a, spec.cost_b, spec.prior_a), solver="cvxopt")
    Xn = np.random.default_rng(1).normal(size=(30, 2))
    np.testing.assert_allclose(ns["model"].decision_function(Xn), fit.decision_function(Xn), atol=1e-8)
    # LIBSVM stops on its own gradient rule: observed 6.5e-7 (standard) and 2.6e-6 (weighted)
    # here, while fit_svm's KKT residual is ~1e-15
    np.testing.assert_allclose(ns["svc"].decision_function(Xn), fit.decision_function(Xn), atol=5e-6)
    m = sklearn_mapping(spec, l2n, l2s, y)
    assert m["C"] == pytest.approx(1 / (2 * len(y) * (2.0 ** l2n / len(y))))
    assert m["gamma"] == pytest.approx(1 / (2 * 2.0 ** (2 * l2s)))
    if costs:
        w = class_weights_from_costs(y, 1.0, 2.0, 0.3)
        assert m["class_weight"] == {1: w.L_pos, -1: w.L_neg} and "class_weight = cost weights" in code
    else:
        assert m["class_weight"] is None and "no class weights" in code


def test_fitted_model_json_is_the_tuned_svc_at_that_point():
    X, y = _problem(40, 2)
    spec = make_spec("svm", cost_a=2.0)
    text = fitted_model_json(spec, Dataset("t", X, y), -2.0, 0.0)
    d = json.loads(text)
    assert d["state"]["best_params_"]["log2_nlambda"] == -2.0
    back = TunedSVC.from_json(text)
    fit = fit_svm(X, y, 2.0 ** -2 / 40, Kernel("gaussian", sigma=1.0),
                  class_weights_from_costs(y, 2.0, 1.0), solver="cvxopt")
    np.testing.assert_allclose(back.decision_function(X), fit.decision_function(X), atol=1e-8)
