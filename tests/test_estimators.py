"""The scikit-learn estimators (svmcore.estimators) against independent computations: the sweep's
own picks (run_grid → GridResult.pick), the families' fits at the pick, and scikit-learn's SVC at
the mapped C = 1/(2nλ), γ = 1/(2σ²), class_weight = L(±1)."""
from __future__ import annotations

import json

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC
from sklearn.utils.estimator_checks import parametrize_with_checks

from svmcore import COSSOSVC, TunedKernelLogistic, TunedSVC, UnbiasedSVC
from svmcore.datasets.base import Dataset
from svmcore.families.cosso.family import fit_cosso
from svmcore.families.soft.family import fit_logistic
from svmcore.families.svm.fit import fit_svm
from svmcore.families.usvc.machines import fit_linear
from svmcore.grid import sweep
from svmcore.kernels import Kernel
from svmcore.spec import GridSpec
from svmcore.weights import class_weights_from_costs

LAM, SIG = "-6:3:1", "-1:1:0.5"


def _data(n=40, seed=0, d=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X[:, 0] + 0.6 * X[:, 1] + 0.7 * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y


# ------------------------------------------------------------------ scikit-learn's checks
#: checks that cannot hold, each with its reason
_WEIGHT_CHECKS = {
    # per-point sample weights have no place in the λ-path (its box bounds are per class): the
    # estimator raises ValueError for weights that vary within a class
    "check_sample_weights_not_overwritten": "per-point sample weights are refused (class-constant only)",
    "check_sample_weight_equivalence_on_dense_data": "per-point sample weights are refused "
                                                     "(class-constant only)",
    # the check sets class weights 1000 and 1e-4 (a 10^7 ratio); RunSpec bounds every cost to
    # [1e-3, 1e3], and the estimator tunes λ instead of keeping LIBSVM's C = 1
    "check_class_weight_classifiers": "costs are bounded to [1e-3, 1e3] by the RunSpec",
}


def _expected_failures(est):
    if isinstance(est, (TunedSVC,)):
        return dict(_WEIGHT_CHECKS)
    if isinstance(est, COSSOSVC):
        return {"check_class_weight_classifiers": _WEIGHT_CHECKS["check_class_weight_classifiers"]}
    return {}


@parametrize_with_checks(
    [TunedSVC(log2_nlambda="-4:2:2", log2_sigma="-1:1:1", extend_grid=False),
     TunedKernelLogistic(log2_nlambda="-4:2:2", log2_sigma="-1:1:1", extend_grid=False),
     COSSOSVC(tune="gacv", n_M=3),
     UnbiasedSVC(max_iter=200),
     UnbiasedSVC(kernel="gaussian", prototypes=5, max_iter=200)],
    expected_failed_checks=_expected_failures)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


# ------------------------------------------------------------------ TunedSVC = sweep + pick + fit_svm
SVM_CASES = [("gacv", "gacv"), ("xa", "xa"), ("brxa", "brxa"), ("sure", "sure"), ("obs", "obs"),
             ("cv", "cv_error"), ("cv_hinge", "cv_hinge"), ("loo", "loo_error"),
             ("loo_hinge", "loo_hinge")]


@pytest.fixture(scope="module")
def svm_sweep():
    """One `svmcore sweep` of every SVM criterion, nonstandard costs, on a 40-point problem."""
    X, y = _data()
    res = sweep(Dataset("t", X, y), GridSpec.parse(LAM, SIG), cost_a=1.0, cost_b=2.0, prior_a=0.3,
                criteria=("obs", "gacv", "xa", "brxa", "sure", "cv", "loo"), extend_grid=False)
    return X, y, res


@pytest.mark.parametrize("criterion,column", SVM_CASES)
def test_tunedsvc_picks_what_the_sweep_picks_and_refits_there(svm_sweep, criterion, column):
    X, y, res = svm_sweep
    m = TunedSVC(criterion=criterion, log2_nlambda=LAM, log2_sigma=SIG, cost_a=1.0, cost_b=2.0,
                 prior_a=0.3, extend_grid=False).fit(X, y)
    row = res.table.iloc[res.pick(column).row]
    assert m.best_params_["log2_nlambda"] == row["log2_nlambda"]
    assert m.best_params_["log2_sigma"] == row["log2_sigma"]
    assert m.best_score_ == pytest.approx(row[column], rel=1e-12)
    lam, sigma = 2.0 ** row["log2_nlambda"] / len(y), 2.0 ** row["log2_sigma"]
    fit = fit_svm(X, y, lam, Kernel("gaussian", sigma=sigma), class_weights_from_costs(y, 1, 2, 0.3),
                  solver="cvxopt")
    Xn = np.random.default_rng(5).normal(size=(30, 2))
    np.testing.assert_allclose(m.decision_function(Xn), fit.decision_function(Xn), atol=1e-8, rtol=0)
    assert m.best_params_["C"] == pytest.approx(1.0 / (2 * len(y) * lam))
    assert m.best_params_["gamma"] == pytest.approx(1.0 / (2 * sigma ** 2))


def test_tunedsvc_matches_sklearn_svc_at_the_mapped_C_gamma_and_class_weight():
    X, y = _data(60, 1)
    labels = np.where(y > 0, "sick", "well")        # classes_ = [sick, well]: "well" is +1
    m = TunedSVC(log2_nlambda=LAM, log2_sigma=SIG, cost_a=1.5, cost_b=1.0).fit(X, labels)
    assert list(m.classes_) == ["sick", "well"]
    L = class_weights_from_costs(np.where(labels == "well", 1, -1), 1.5, 1.0)
    assert m.weights_["L_pos"] == pytest.approx(L.L_pos) and m.weights_["L_neg"] == pytest.approx(L.L_neg)
    svc = SVC(C=m.best_params_["C"], gamma=m.best_params_["gamma"], tol=1e-10,
              class_weight={"well": L.L_pos, "sick": L.L_neg}).fit(X, labels)
    Xn = np.random.default_rng(2).normal(size=(40, 2))
    np.testing.assert_allclose(m.decision_function(Xn), svc.decision_function(Xn), atol=1e-5)
    assert np.array_equal(m.predict(Xn), svc.predict(Xn))
    svc2 = m.to_sklearn_svc().fit(X, labels)
    np.testing.assert_allclose(svc2.decision_function(Xn), svc.decision_function(Xn), atol=1e-7)


def test_tunedsvc_laplacian_matches_libsvm_on_the_laplacian_kernel():
    """kernel="laplacian": the refit equals LIBSVM with scikit-learn's laplacian_kernel at γ = 1/σ
    (an independent solver and kernel code), and to_sklearn_svc builds that machine."""
    from sklearn.metrics.pairwise import laplacian_kernel

    X, y = _data(60, 3)
    m = TunedSVC(kernel="laplacian", log2_nlambda=LAM, log2_sigma=SIG).fit(X, y)
    gamma = m.best_params_["gamma"]
    assert gamma == pytest.approx(1 / m.best_params_["sigma"])
    svc = SVC(C=m.best_params_["C"], kernel="precomputed", tol=1e-10).fit(laplacian_kernel(X, gamma=gamma), y)
    Xn = np.random.default_rng(4).normal(size=(30, 2))
    f_ref = svc.decision_function(laplacian_kernel(Xn, X, gamma=gamma))
    np.testing.assert_allclose(m.decision_function(Xn), f_ref, atol=1e-5)
    np.testing.assert_allclose(m.to_sklearn_svc().fit(X, y).decision_function(Xn), f_ref, atol=1e-7)


def test_class_weight_and_per_class_sample_weight_are_the_costs():
    X, y = _data(50, 3)
    ref = TunedSVC(log2_nlambda=LAM, log2_sigma=SIG, cost_a=0.5, cost_b=2.0, extend_grid=False).fit(X, y)
    cw = TunedSVC(log2_nlambda=LAM, log2_sigma=SIG, class_weight={-1.0: 0.5, 1.0: 2.0},
                  extend_grid=False).fit(X, y)
    sw = TunedSVC(log2_nlambda=LAM, log2_sigma=SIG, extend_grid=False).fit(
        X, y, sample_weight=np.where(y > 0, 2.0, 0.5))
    for m in (cw, sw):
        assert m.best_params_ == ref.best_params_
        np.testing.assert_allclose(m.decision_function(X), ref.decision_function(X), atol=1e-10)
    with pytest.raises(ValueError, match="constant within each class"):
        TunedSVC(log2_nlambda=LAM, log2_sigma=SIG).fit(X, y, sample_weight=np.arange(1.0, 51.0))


def test_labels_more_than_two_classes_and_bad_settings_are_refused():
    X, y = _data()
    with pytest.raises(ValueError, match="Only binary classification"):
        TunedSVC(log2_nlambda=LAM, log2_sigma=SIG).fit(X, np.arange(40) % 3)
    with pytest.raises(ValueError, match="kernel must be"):
        TunedSVC(kernel="polynomial", log2_nlambda=LAM, log2_sigma=SIG).fit(X, y)
    with pytest.raises(ValueError, match="criterion must be"):
        TunedSVC(criterion="gckl", log2_nlambda=LAM, log2_sigma=SIG).fit(X, y)
    m = TunedSVC(log2_nlambda=LAM, log2_sigma=SIG).fit(X, (y > 0).astype(int))
    assert list(m.classes_) == [0, 1] and set(m.predict(X)) <= {0, 1}


def test_extend_grid_moves_an_edge_pick_inside():
    X, y = _data()
    m = TunedSVC(log2_nlambda="-6:-4:1", log2_sigma="0", extend_grid=True).fit(X, y)
    assert m.surface_["log2_nlambda"].max() > -4
    assert -6 < m.best_params_["log2_nlambda"] < m.surface_["log2_nlambda"].max() or m.notes_


# ------------------------------------------------------------------ scikit-learn machinery
def test_pipeline_clone_cross_val_gridsearch_and_set_output():
    X, y = _data(60, 4)
    X = X * [10.0, 0.1] + [3.0, -1.0]
    pipe = make_pipeline(StandardScaler(), TunedSVC(log2_nlambda=LAM, log2_sigma=SIG))
    scores = cross_val_score(clone(pipe), X, y, cv=3)
    assert scores.shape == (3,) and np.all(scores > 0.5)
    gs = GridSearchCV(pipe, {"tunedsvc__criterion": ["gacv", "xa"]}, cv=3).fit(X, y)
    assert gs.best_params_["tunedsvc__criterion"] in ("gacv", "xa")
    pipe.set_output(transform="pandas").fit(X, y)
    assert pipe[-1].n_features_in_ == 2 and list(pipe[-1].feature_names_in_) == ["x0", "x1"]
    ref = TunedSVC(log2_nlambda=LAM, log2_sigma=SIG).fit(StandardScaler().fit_transform(X), y)
    np.testing.assert_allclose(pipe.decision_function(X), ref.decision_function(
        StandardScaler().fit(X).transform(X)), atol=1e-10)


# ------------------------------------------------------------------ JSON and model card
def _fitted_all():
    X, y = _data(40, 6, d=3)
    return X, y, [TunedSVC(log2_nlambda=LAM, log2_sigma=SIG).fit(X, y),
                  TunedKernelLogistic(log2_nlambda="-6:0:2", log2_sigma="0:1:1").fit(X, y),
                  COSSOSVC(tune="gacv", n_M=4).fit(X, y),
                  UnbiasedSVC(kernel="gaussian", prototypes=6, max_iter=300).fit(X, y)]


def test_json_round_trip_predicts_the_same_for_every_estimator():
    X, y, models = _fitted_all()
    Xn = np.random.default_rng(9).normal(size=(25, 3))
    for m in models:
        text = m.to_json()
        d = json.loads(text)
        assert d["version"] == 1 and d["estimator"] == type(m).__name__
        back = type(m).from_json(text)
        np.testing.assert_array_equal(back.decision_function(Xn), m.decision_function(Xn))
        np.testing.assert_array_equal(back.predict(Xn), m.predict(Xn))
        card = m.model_card()
        assert card["estimator"] == type(m).__name__
        assert m.model_card("markdown").startswith(f"# {type(m).__name__}")
    with pytest.raises(ValueError, match="not a TunedSVC"):
        TunedSVC.from_json(models[1].to_json())


# ------------------------------------------------------------------ the other families
def test_tuned_kernel_logistic_is_the_logistic_sweep_and_fit():
    X, y = _data(40, 7)
    res = sweep(Dataset("t", X, y), GridSpec.parse("-6:0:2", "-1:1:1"), model="logistic",
                criteria=("gacv", "rangacv", "cv_deviance"), extend_grid=False,
                options={"rangacv_reps": 5, "rangacv_seed": 0})
    for crit, col in (("gacv", "gacv"), ("rangacv", "rangacv"), ("cv", "cv_deviance")):
        m = TunedKernelLogistic(criterion=crit, log2_nlambda="-6:0:2", log2_sigma="-1:1:1",
                                extend_grid=False).fit(X, y)
        row = res.table.iloc[res.pick(col).row]
        assert (m.best_params_["log2_nlambda"], m.best_params_["log2_sigma"]) == \
            (row["log2_nlambda"], row["log2_sigma"])
        fit = fit_logistic(X, y, 2.0 ** row["log2_nlambda"] / 40, 2.0 ** row["log2_sigma"])
        np.testing.assert_allclose(m.predict_proba(X)[:, 1], fit.predict_proba(X), atol=1e-10)
        np.testing.assert_allclose(m.predict_proba(X).sum(axis=1), 1.0)


def test_cosso_estimator_is_fit_cosso_and_names_the_selected_inputs():
    rng = np.random.default_rng(8)
    X = rng.uniform(size=(60, 4))
    y = np.where(np.sin(2 * np.pi * X[:, 0]) + 0.3 * rng.normal(size=60) > 0, 1.0, -1.0)
    m = COSSOSVC(tune="gacv", n_M=5).fit(X, y)
    ref = fit_cosso(X, y, tune="gacv", n_M=5)
    np.testing.assert_allclose(m.theta_, ref.model.theta, atol=1e-12)
    # fit_cosso names main effects x1, x2, … (1-based); selected_features_ are column indices
    assert list(m.selected_features_) == sorted(int(nm[1:]) - 1 for nm in ref.model.selected)
    assert 0 in m.selected_features_
    np.testing.assert_allclose(m.decision_function(X), ref.model.decision_function(X), atol=1e-10)
    with pytest.raises(ValueError, match="needs the true"):
        COSSOSVC(tune="gckl").fit(X, y)


def test_unbiased_svc_is_the_irwls_machine_and_reports_its_threshold():
    rng = np.random.default_rng(10)
    x = rng.normal(size=(80, 1))
    y = np.where(x[:, 0] + 0.5 * rng.normal(size=80) > 0.3, 1.0, -1.0)
    m = UnbiasedSVC(C=10.0, s=2.0).fit(x, y)
    ref = fit_linear(x, y, C=10.0, s=2.0)
    np.testing.assert_allclose(m.coef_, ref.w, atol=1e-12)
    assert m.threshold_ == pytest.approx(-ref.b / ref.w[0])
    np.testing.assert_allclose(m.decision_function(x), ref.decision_function(x), atol=1e-12)


def test_the_docs_example_runs():
    """docs/estimators.md's example, as a practitioner would copy it."""
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "estimators.md").read_text()
    code = re.findall(r"```python\n(.*?)```", text, re.S)[0]
    exec(compile(code, "docs/estimators.md", "exec"), {"print": lambda *a, **k: None})
