"""COSSO SVM (Zhang 2006): kernels, the θ LP, the SVM step, the one-step rule, CLI and family."""
import json

import numpy as np
import pytest
from scipy.integrate import quad
from sklearn.svm import SVC

from svmcore._validation import SVMCoreError
from svmcore.datasets import Dataset
from svmcore import cli
from svmcore.families.cosso.cli import split_third
from svmcore.families.cosso.family import FAMILY, fit_cosso
from svmcore.families.cosso.fit import alternate, coefficients, svm_step
from svmcore.families.cosso.kernels import (UnitScaling, combine, component_grams, component_names,
                                            components, k1, k2, k4, main_effect_gram, weighted_gram)
from svmcore.families.cosso.lp import lp_objective, solve_theta_lp, theta_step_data


# ---------------------------------------------------------------- kernels
def bernoulli(t):
    """B1, B2, B4 written out (Abramowitz & Stegun 23.1.5)."""
    return t - 0.5, t * t - t + 1.0 / 6.0, t ** 4 - 2 * t ** 3 + t * t - 1.0 / 30.0


def test_k_functions_are_scaled_bernoulli_polynomials():
    t = np.linspace(0, 1, 101)
    b1, b2, b4 = bernoulli(t)
    np.testing.assert_allclose(k1(t), b1, atol=1e-15)
    np.testing.assert_allclose(k2(t), b2 / 2, atol=1e-15)
    np.testing.assert_allclose(k4(t), b4 / 24, atol=1e-15)


def test_main_effect_kernel_closed_form_psd_and_centred():
    rng = np.random.default_rng(0)
    s, t = rng.random(7), rng.random(9)
    expect = np.empty((7, 9))
    for i in range(7):
        for j in range(9):
            b1s, b2s, _ = bernoulli(s[i])
            b1t, b2t, _ = bernoulli(t[j])
            expect[i, j] = b1s * b1t + b2s * b2t / 4 - bernoulli(abs(s[i] - t[j]))[2] / 24
    np.testing.assert_allclose(main_effect_gram(s, t), expect, atol=1e-14)
    x = rng.random(60)
    assert np.linalg.eigvalsh(main_effect_gram(x, x)).min() > -1e-12
    # the constant is removed: ∫ R(s, t) ds = 0 for every t (side condition of the ANOVA space)
    for t0 in (0.0, 0.3, 0.8):
        val, _ = quad(lambda u, t=t0: main_effect_gram([u], [t])[0, 0], 0, 1, points=[t0])
        assert abs(val) < 1e-12


def test_component_stack_interactions_and_weighted_gram():
    rng = np.random.default_rng(1)
    U, V = rng.random((12, 3)), rng.random((5, 3))
    comps = components(3, interactions=True)
    assert component_names(comps) == ["x1", "x2", "x3", "x1:x2", "x1:x3", "x2:x3"]
    R = component_grams(U, V, comps)
    np.testing.assert_allclose(R[3], main_effect_gram(U[:, 0], V[:, 0]) * main_effect_gram(U[:, 1], V[:, 1]))
    theta = np.array([0.5, 0.0, 2.0, 0.0, 1.0, 0.3])
    np.testing.assert_allclose(weighted_gram(U, V, comps, theta), combine(R, theta), atol=1e-15)
    Rsq = combine(component_grams(U, U, comps), theta)
    assert np.linalg.eigvalsh(Rsq).min() > -1e-12


def test_unit_scaling_clips_and_rejects_constant():
    sc = UnitScaling.fit([[0.0, 2.0], [4.0, 6.0]])
    np.testing.assert_allclose(sc.transform([[2.0, 4.0], [8.0, -1.0]]), [[0.5, 0.5], [1.0, 0.0]])
    with pytest.raises(SVMCoreError, match="constant"):
        UnitScaling.fit([[1.0, 0.0], [1.0, 1.0]])


# ---------------------------------------------------------------- LP step
def test_theta_lp_matches_dense_grid_on_two_components():
    rng = np.random.default_rng(2)
    n = 8
    y = np.r_[np.ones(4), -np.ones(4)]
    U = rng.random((n, 2))
    R = component_grams(U, U, components(2))
    c = rng.normal(size=n)
    G, quadc = theta_step_data(R, c)
    np.testing.assert_allclose(quadc, [c @ R[0] @ c, c @ R[1] @ c])
    upper = np.where(y > 0, 0.5, 1.5)  # nonstandard weights L(y)
    b, lam0, M = 0.2, 0.01, 3.0
    lp = solve_theta_lp(G, quadc, y, b, upper, lam0, M)
    assert lp.theta.sum() <= M + 1e-9 and np.all(lp.theta >= 0)
    # brute force: the objective with optimal slacks on a dense grid of the feasible triangle
    g = np.linspace(0, M, 601)
    T1, T2 = np.meshgrid(g, g)
    ok = T1 + T2 <= M + 1e-12
    TH = np.c_[T1[ok], T2[ok]]
    F = b + TH @ G.T
    obj = np.mean(upper * np.maximum(0, 1 - y * F), axis=1) + lam0 * TH @ quadc
    assert lp.objective <= obj.min() + 1e-10
    assert obj.min() - lp.objective < 1e-3
    assert abs(lp_objective(lp.theta, G, quadc, y, b, upper, lam0) - lp.objective) < 1e-9


# ---------------------------------------------------------------- SVM step
def _toy(n=60, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=n) > 0.5, 1.0, -1.0)
    return X, y


def test_svm_step_equals_libsvm_with_precomputed_R_theta():
    X, y = _toy()
    n = len(y)
    comps = components(3)
    R = component_grams(X, X, comps)
    theta = np.array([1.5, 0.2, 0.0])
    lam0 = 2.0 ** -8 / n
    sol = svm_step(R, theta, y, np.ones(n), lam0)
    K = combine(R, theta)
    ref = SVC(kernel="precomputed", C=1 / (2 * n * lam0), tol=1e-12).fit(K, y)
    f_ref = ref.decision_function(K)
    np.testing.assert_allclose(sol.f, f_ref, atol=1e-5)   # LIBSVM stops at its gradient tolerance
    c = coefficients(sol, y)
    np.testing.assert_allclose(K @ c + sol.b, sol.f, atol=1e-10)
    c_ref = np.zeros(n)
    c_ref[ref.support_] = ref.dual_coef_[0]

    def primal(cc, f):  # (1/n) Σ (1 − y f)_+ + λ0 c'R_θ c
        return np.mean(np.maximum(0, 1 - y * f)) + lam0 * cc @ K @ cc

    assert primal(c, sol.f) <= primal(c_ref, f_ref) + 1e-10


def test_one_step_does_not_increase_the_objective():
    X, y = _toy(seed=3)
    n, q = len(y), 3
    R = component_grams(X, X, components(q))
    up = np.ones(n)
    lam0 = 2.0 ** -7 / n

    def objective(theta, sol):  # eq 4.1 without λΣθ, from its definition
        c = coefficients(sol, y)
        f = combine(R, theta) @ c + sol.b
        return np.mean(np.maximum(0, 1 - y * f)) + lam0 * c @ combine(R, theta) @ c

    first = svm_step(R, np.ones(q), y, up, lam0)
    st = alternate(R, y, up, lam0, M=float(q), first=first, rounds=1)
    assert st.lp_objective <= objective(np.ones(q), first) + 1e-9   # θ = 1 is feasible at M = q
    assert objective(st.theta, st.sol) <= st.lp_objective + 1e-7       # the refit improves (b, c)
    more = alternate(R, y, up, lam0, M=float(q), first=first, rounds=6)
    assert more.rounds >= 1 and len(more.history) == more.rounds


def test_noise_only_selects_nothing_at_small_M():
    rng = np.random.default_rng(5)
    n, q = 120, 5
    X = rng.random((n, q))
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    R = component_grams(X, X, components(q))
    lam0 = 2.0 ** -6 / n
    first = svm_step(R, np.ones(q), y, np.ones(n), lam0)
    sizes = [np.count_nonzero(alternate(R, y, np.ones(n), lam0, M, first).theta > 1e-6)
             for M in (0.05, 0.1, 0.2)]
    assert max(sizes) <= 1


# ---------------------------------------------------------------- tuned fit, family, CLI
def test_fit_cosso_finds_the_signal_variable():
    X, y = _toy(n=80, d=3, seed=7)
    res = fit_cosso(X, y, tune="gacv", n_M=6)
    assert "x1" in res.model.selected
    assert res.theta_path.shape == (6, 3)
    np.testing.assert_allclose(res.model.decision_function(X), res.model.f, atol=1e-8)
    assert res.k == int(np.argmin(res.curves["gacv"]))


def test_family_contract():
    assert FAMILY.name == "cosso" and FAMILY.targets == ("gckl",)
    assert not FAMILY.sweeps_grid and FAMILY.single_run and FAMILY.supports_study
    with pytest.raises(NotImplementedError, match="does not sweep"):
        FAMILY.column(None)
    with pytest.raises(SVMCoreError):
        next(p for p in FAMILY.params if p.name == "tune").check("sure")
    with pytest.raises(SVMCoreError, match="GCKL"):
        fit_cosso(*_toy(), tune="gckl")


def test_cli_writes_json(tmp_path):
    out = tmp_path / "c.json"
    assert cli.main(["cosso", "--dataset", "zhang_additive", "--n", "60", "--seed", "1",
                     "--test-n", "500", "--n-m", "5", "--tune", "gckl", "--out", str(out)]) == 0
    d = json.loads(out.read_text())
    for key in ("M", "M_grid", "curves", "theta", "selected", "test_error", "lambda0", "rounds",
                "seconds"):
        assert key in d
    assert set(d["theta"]) == {f"x{j}" for j in range(1, 11)}
    assert d["M"] == d["M_grid"][int(np.argmin(d["curves"]["gckl"]))]
    assert d["test_n"] == 500 and 0 <= d["test_error"] <= 1


def test_cli_bad_input(tmp_path, capsys):
    out = str(tmp_path / "c.json")
    assert cli.main(["cosso", "--dataset", "haberman", "--tune", "gckl", "--out", out]) == 2
    assert "GCKL" in capsys.readouterr().err
    assert cli.main(["cosso", "--dataset", "nosuch", "--out", out]) == 2
    assert cli.main(["cosso", "--dataset", "zhang_additive", "--n-m", "1", "--out", out]) == 2


def test_split_third_is_stratified():
    X, y = _toy(n=90)
    tr, te = split_third(Dataset("toy", X, y), seed=0)
    assert tr.n == 60 and te.n == 30
    assert abs(np.mean(te.y > 0) - np.mean(y > 0)) < 0.05


def test_run_from_a_runspec(monkeypatch):
    from svmcore import families
    from svmcore.spec import make_spec

    monkeypatch.setitem(families.FAMILIES, "cosso", "svmcore.families.cosso.family")
    spec = make_spec("cosso", data={"source": "inline", "name": "toy"},
                     options={"tune": "gacv", "n_M": 4, "rounds": 2}, cost_b=2.0)
    with pytest.raises(SVMCoreError, match="has no parameter 'sigma'"):
        make_spec("cosso", options={"sigma": 1.0})
    X, y = _toy(n=50, seed=2)
    out = FAMILY.run(spec, Dataset("toy", X, y), Dataset("toy test", *_toy(n=40, seed=9)))
    assert out["tune"] == "gacv" and len(out["M_grid"]) == 4 and out["rounds"] <= 2
    w = out["weights"]
    assert w["L_pos"] == pytest.approx(2 * w["prior_a"] / w["sample_prior_a"])
    assert out["test_n"] == 40
