import numpy as np

from svmcore.kernels import Kernel, gaussian_gram, kernel_radius, linear_gram, polynomial_gram


def test_gaussian_gram_matches_the_formula_entrywise():
    rng = np.random.default_rng(0)
    X, Z = rng.normal(size=(5, 3)), rng.normal(size=(4, 3))
    s = 0.7
    K = gaussian_gram(X, Z, sigma=s)
    for i in range(5):
        for j in range(4):
            assert K[i, j] == np.exp(-np.sum((X[i] - Z[j]) ** 2) / (2 * s * s)) or \
                abs(K[i, j] - np.exp(-np.sum((X[i] - Z[j]) ** 2) / (2 * s * s))) < 1e-15
    Kxx = gaussian_gram(X, sigma=s)
    np.testing.assert_array_equal(np.diag(Kxx), 1.0)
    assert np.allclose(Kxx, Kxx.T)
    assert np.linalg.eigvalsh(Kxx).min() > -1e-12


def test_polynomial_and_linear():
    X = np.array([[1.0, 2.0], [0.0, -1.0]])
    np.testing.assert_allclose(linear_gram(X), [[5, -2], [-2, 1]])
    np.testing.assert_allclose(polynomial_gram(X, degree=2), [[36, 1], [1, 4]])
    np.testing.assert_allclose(Kernel("polynomial", degree=3).gram(X), [[216, -1], [-1, 8]])


def test_radius_bounds_kii_minus_kij():
    rng = np.random.default_rng(1)
    K = gaussian_gram(rng.normal(size=(30, 2)), sigma=0.5)
    R = kernel_radius(K)
    assert R <= 1.0
    assert np.all(np.diag(K)[:, None] - K <= R + 1e-15)
