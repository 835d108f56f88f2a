"""Simulations: the papers' Bayes errors and threshold-error minima by independent Monte Carlo."""
import numpy as np
import pytest
from scipy.stats import norm

from svmcore.datasets.simulations import (SIMULATIONS, make_navia_a, make_navia_b,
                                          make_simulation, make_wahba2d, navia_threshold_error,
                                          normal_cdf, normal_pdf, waveform_p, wahba2d_p, zhang_additive_logit,
                                          zhang_interaction_logit, lin1d_p)


@pytest.mark.parametrize("logit, d, paper", [(zhang_additive_logit, 10, 0.216),
                                             (zhang_interaction_logit, 4, 0.155)])
def test_zhang_bayes_errors_by_monte_carlo(logit, d, paper):
    # Bayes error = E[min(p, 1 − p)], X ~ U[0,1]^d; 10⁶ draws give a standard error < 3e-4
    rng = np.random.default_rng(123)
    p = 1 / (1 + np.exp(-logit(rng.random((1_000_000, d)))))
    assert np.mean(np.minimum(p, 1 - p)) == pytest.approx(paper, abs=0.005)


def test_normal_density_and_distribution_against_scipy_stats():
    # the simulations' own N(mean, sd²) pdf and cdf (so that sweep workers need not import
    # scipy.stats) against scipy.stats.norm, tails and a broadcast (rows of X, one sd per column);
    # below 1e-300 only subnormal rounding differs
    x = np.r_[np.linspace(-40.0, 40.0, 801), -1e-300, 0.0, 7.5e-3]
    for mean, sd in [(0.0, 1.0), (0.75, 0.15), (0.2, 0.02), (-3.0, 40.0)]:
        np.testing.assert_allclose(normal_pdf(x, mean, sd), norm.pdf(x, mean, sd), rtol=1e-13, atol=1e-300)
        np.testing.assert_allclose(normal_cdf(x, mean, sd), norm.cdf(x, mean, sd), rtol=1e-13, atol=1e-300)
    X = np.random.default_rng(0).normal(size=(50, 2)) * 3
    mean, sd = np.array([2.0, 2.0]), np.sqrt([2.0, 1.0])
    np.testing.assert_allclose(normal_pdf(X, mean, sd), norm.pdf(X, loc=mean, scale=sd), rtol=1e-13)


def _empirical_threshold_error(x, y, t):
    """Error of "+1 where x > t" on a sample, for every t (sorted cumulative counts)."""
    order = np.argsort(x)
    xs, ys = x[order], y[order]
    pos_le = np.searchsorted(xs[ys > 0], t, side="right")
    neg_gt = (ys < 0).sum() - np.searchsorted(xs[ys < 0], t, side="right")
    return (pos_le + neg_gt) / len(x)


@pytest.mark.parametrize("make, name, gmin, tmin, lmin, tloc, lo, hi", [
    (make_navia_a, "navia_a", 0.19, 0.50, 0.23, 0.164, 0.10, 0.30),
    (make_navia_b, "navia_b", 0.179, 0.211, 0.20, 0.60, 0.45, 0.70),
])
def test_navia_threshold_error_minima(make, name, gmin, tmin, lmin, tloc, lo, hi):
    t = np.linspace(0.0, 1.0, 2001)
    # analytic curve from the mixture definition
    e = navia_threshold_error(name, t)
    i = int(np.argmin(e))
    assert t[i] == pytest.approx(tmin, abs=0.005) and e[i] == pytest.approx(gmin, abs=0.005)
    band = (t > lo) & (t < hi)
    j = np.flatnonzero(band)[np.argmin(e[band])]
    assert e[j] == pytest.approx(lmin, abs=0.005)
    if name == "navia_a":
        assert t[j] == pytest.approx(tloc, abs=0.01)
    # an independent Monte Carlo sample from the generator reproduces the same curve
    d = make(n=400_000, seed=7)
    emp = _empirical_threshold_error(d.X[:, 0], d.y, t)
    assert np.max(np.abs(emp - e)) < 0.004


def test_wahba2d_design_and_true_p():
    d = make_wahba2d(200, seed=1)
    assert (d.y > 0).sum() == 80 and d.X.shape == (200, 2)
    # p_s by Bayes' rule with the densities written out independently
    x = np.array([[0.3, -0.2], [2.5, 1.0], [1.0, 1.0]])
    fa = norm.pdf(x[:, 0]) * norm.pdf(x[:, 1])
    fb = norm.pdf(x[:, 0], 2, np.sqrt(2)) * norm.pdf(x[:, 1], 2, 1)
    np.testing.assert_allclose(wahba2d_p(x), 0.4 * fa / (0.4 * fa + 0.6 * fb), rtol=1e-12)
    # class means and the B-class variances of a large sample
    big = make_wahba2d(100_000, seed=2)
    A, B = big.X[big.y > 0], big.X[big.y < 0]
    np.testing.assert_allclose(A.mean(0), [0, 0], atol=0.02)
    np.testing.assert_allclose(B.var(0), [2, 1], atol=0.04)


def test_lin1d_truth():
    x = np.linspace(0, 1, 1001)
    x = x[(np.abs(x - 0.25) > 1e-9) & (np.abs(x - 0.75) > 1e-9)]   # p = ½ at the ends, up to rounding
    above = lin1d_p(x) > 0.5
    np.testing.assert_array_equal(above, (x > 0.25) & (x < 0.75))
    d = make_simulation("lin1d")
    assert d.n == 257 and d.d == 1


def test_waveform_p_is_a_probability_and_matches_monte_carlo_frequency():
    d = make_simulation("waveform", n=20_000, seed=3)
    p = waveform_p(d.X)
    assert np.all((p >= 0) & (p <= 1))
    # calibration: among points with p in a bin, the class-1 frequency matches the bin's mean p
    bins = np.digitize(p, [0.2, 0.4, 0.6, 0.8])
    for b in range(5):
        m = bins == b
        if m.sum() > 500:
            assert np.mean(d.y[m] > 0) == pytest.approx(p[m].mean(), abs=0.03)


@pytest.mark.parametrize("name", list(SIMULATIONS))
def test_every_simulation_is_seeded_and_has_truth(name):
    a, b = make_simulation(name, seed=4), make_simulation(name, seed=4)
    np.testing.assert_array_equal(a.X, b.X)
    assert a.has_truth and a.p_fn is not None
    np.testing.assert_allclose(a.p_fn(a.X), a.p, rtol=1e-10)
    assert 0 < np.mean(a.y > 0) < 1
