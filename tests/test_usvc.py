"""Unbiased SVC by IRWLS (Navia-Vázquez et al. 2004): each number against an independent computation."""
import json

import numpy as np
import pytest

from svmcore._validation import SVMCoreError
from svmcore.datasets.simulations import make_navia_a, make_wahba2d, navia_threshold_error
from svmcore.families.svm.fit import fit_svm
from svmcore.families.usvc import fit_kernel, fit_linear, theta_s, theta_s_prime
from svmcore.families.usvc.irwls import irwls, least_squares_start, whitening
from svmcore.families.usvc.losses import hinge_alpha
from svmcore.families.usvc.surface import empirical_threshold_error, profile, surface
from svmcore.kernels import Kernel, gaussian_gram


def _problem(noise, seed, n=80):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = np.where(X @ [1.0, -1.0] + 0.3 + noise * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y


@pytest.mark.parametrize("noise,lam", [(0.1, 0.0005), (1.5, 0.01)])
def test_irwls_svc_equals_qp(noise, lam):
    X, y = _problem(noise, 3)
    C = 1.0 / (2 * len(y) * lam)
    qp = fit_svm(X, y, lam, Kernel("linear"), None, solver="cvxopt")
    w_qp, b_qp = qp.c @ X, qp.b
    a = qp.alpha / qp.upper
    assert np.any((a > 1e-6) & (a < 1 - 1e-6))     # a free support vector: b is unique
    m = fit_linear(X, y, method="svc", C=C)
    assert m.fit.converged
    scale = np.abs(np.r_[w_qp, b_qp]).max()
    assert np.abs(np.r_[m.w - w_qp, m.b - b_qp]).max() <= 1e-4 * scale


def test_literal_paper_weights_solve_the_svc_at_twice_C():
    """a_i = 2α_i/(e_i y_i) with eq 20 as printed is the SVC with penalty 2C (docs/usvc.md)."""
    X, y = _problem(1.0, 5)
    n, C = len(y), 0.5
    c0, b0 = least_squares_start(X, y)
    lit = irwls(X, y, lambda u: 2.0 * hinge_alpha(u, C), c0, b0, damping=0.0)
    qp = fit_svm(X, y, 1.0 / (2 * n * 2 * C), Kernel("linear"), None, solver="cvxopt")
    assert np.allclose(np.r_[lit.coef, lit.b], np.r_[qp.c @ X, qp.b], rtol=0, atol=1e-4)


def _theta_formula(xi, s, k):
    ke = k ** (1 / s)
    if xi < 1:
        return (xi + ke) ** s / (2 * (1 + ke) ** s)
    return 1 - (1 + ke) ** s / (2 * (xi + ke) ** s)


@pytest.mark.parametrize("s", [1.0, 2.0, 4.0, 7.5])
def test_theta_and_derivative(s):
    k = 1e-3
    xi = np.array([0.0, 1e-3, 0.3, 0.999, 1.0, 1.5, 3.0, 40.0])
    assert np.allclose(theta_s(xi, s, k), [_theta_formula(v, s, k) for v in xi], rtol=1e-13)
    h = 1e-6
    xs = np.array([0.01, 0.2, 0.7, 0.9995, 1.0005, 1.3, 5.0])   # off the kink, ξ > h
    fd = (theta_s(xs + h, s, k) - theta_s(xs - h, s, k)) / (2 * h)
    assert np.allclose(theta_s_prime(xs, s, k), fd, rtol=1e-6, atol=1e-9)
    assert theta_s(1.0, s, k) == pytest.approx(0.5)
    assert theta_s(1e8, s, k) == pytest.approx(1.0, abs=1e-6)


def test_usvc_finds_the_unbiased_threshold():
    d = make_navia_a(500, 1)
    m = fit_linear(d.X, d.y, method="usvc", C=10.0, s=2.0)
    th = -m.b / m.w[0]
    assert m.fit.converged and abs(th - 0.5) < 0.05
    svc = m.svc_stage
    th_svc = -svc.b / svc.coef[0]
    assert navia_threshold_error("navia_a", th) < navia_threshold_error("navia_a", th_svc)


def test_usvc_fixed_point_is_stationary():
    """At the fixed point the gradient of ½‖w‖² + C Σ θ̃_s(ξ_i) vanishes (finite differences)."""
    d = make_navia_a(300, 4)
    C, s = 10.0, 2.0
    m = fit_linear(d.X, d.y, method="usvc", C=C, s=s, tol=1e-12, max_iter=20000)

    def obj(v):
        xi = np.maximum(0.0, 1 - d.y * (d.X[:, 0] * v[0] + v[1]))
        return 0.5 * v[0] ** 2 + C * theta_s(xi, s).sum()

    v, h = np.r_[m.w, m.b], 1e-6
    g = [(obj(v + h * e) - obj(v - h * e)) / (2 * h) for e in np.eye(2)]
    assert np.abs(g).max() < 1e-3 * (1 + abs(obj(v)))


def test_kernel_machine_is_ridge_in_prototype_features():
    """One weighted LS on K with penalty β'I_Ψβ equals the direct solve of eq 25."""
    d = make_wahba2d(200, 0)
    C = d.X[:8]
    K, G = gaussian_gram(d.X, C, 1.0), gaussian_gram(C, None, 1.0)
    T = whitening(G)
    g, b = least_squares_start(K @ T, d.y)
    Kb = np.column_stack([K, np.ones(d.n)])
    M = Kb.T @ Kb
    M[:8, :8] += G
    direct = np.linalg.solve(M, Kb.T @ d.y)
    assert np.allclose(np.r_[T @ g, b], direct, atol=1e-6)


def test_kernel_svc_matches_qp_on_the_same_prototypes():
    """The prototype SVC equals the QP SVM with the linear kernel on the whitened features."""
    d = make_wahba2d(150, 2)
    centers = d.X[:10]
    km = fit_kernel(d.X, d.y, 1.0, centers, method="svc", C=2.0)
    Z = gaussian_gram(d.X, centers, 1.0) @ whitening(gaussian_gram(centers, None, 1.0))
    qp = fit_svm(Z, d.y, 1.0 / (2 * d.n * 2.0), Kernel("linear"), None, solver="cvxopt")
    f_qp = qp.decision_function(Z)
    assert np.allclose(km.decision_function(d.X), f_qp, atol=1e-4 * np.abs(f_qp).max())


def test_kernel_usvc_is_a_sane_classifier():
    d, t = make_wahba2d(300, 0), make_wahba2d(2000, 1)
    km = fit_kernel(d.X, d.y, 1.0, 15, seed=0, method="usvc", C=1.0)
    bayes = np.mean((t.p > 0.5) != (t.y > 0))
    assert km.fit.converged and np.mean(km.predict(t.X) != t.y) < bayes + 0.05


def test_surface_matches_direct_sum_and_profile():
    d = make_navia_a(60, 0)
    x, y = d.X[:, 0], d.y
    th, w = np.linspace(0, 1, 7), np.linspace(0.5, 20, 5)
    S = surface(x, y, th, w, 10.0, "usvc", 2.0)
    xi = np.maximum(0, 1 - y * w[2] * (x - th[3]))
    assert S[2, 3] == pytest.approx(0.5 * w[2] ** 2 + 10 * theta_s(xi, 2.0).sum())
    Sh = surface(x, y, th, w, 10.0, "svc")
    assert Sh[1, 4] == pytest.approx(0.5 * w[1] ** 2 + 10 * np.maximum(0, 1 - y * w[1] * (x - th[4])).sum())
    prof, wmin = profile(S, w, 10.0, 60)
    assert np.allclose(prof, S.min(axis=0) / 600)
    e = empirical_threshold_error(x, y, [0.5])[0]
    assert e == pytest.approx(np.mean((x > 0.5) != (y > 0)))


def _cli(argv):
    from svmcore.cli import main
    code = main(argv)
    if code == 2:
        raise SVMCoreError("refused")
    return code


def test_cli_payload(tmp_path):
    out = tmp_path / "u.json"
    assert _cli(["usvc", "--dataset", "navia_a", "--n", "200", "--seed", "3", "--method", "svc",
                 "--test-n", "500", "--out", str(out)]) == 0
    p = json.loads(out.read_text())
    assert p["threshold"] == pytest.approx(-p["b"] / p["w"][0])
    x, y = np.array(p["x"])[:, 0], np.array(p["y"])
    assert p["train_error"] == pytest.approx(np.mean(np.where(p["w"][0] * x + p["b"] > 0, 1, -1) != y))
    assert len(y) == 200 and p["converged"] and p["n_test"] == 500


def test_cli_bad_input():
    with pytest.raises(SVMCoreError):
        _cli(["usvc", "--dataset", "navia_a", "--s", "20"])
    with pytest.raises(SVMCoreError):
        _cli(["usvc", "--dataset", "nosuch"])
