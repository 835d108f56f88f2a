import numpy as np
import pytest

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


@pytest.mark.parametrize("name", ["gaussian", "laplacian", "polynomial"])
def test_gram_matrices_are_made_in_one_array_bitwise_as_the_formula(name):
    """Each Gram matrix is made in one n × n array (distances made here are turned into it in
    place; distances passed in are left as they are), bitwise equal to the formula written with
    its temporaries, ``np.exp(-D / (2σ²))``; tracemalloc's peak (numpy reports its buffers) stays
    below 1.2 arrays where the formula's held 3."""
    import tracemalloc

    from scipy.spatial.distance import cdist

    from svmcore.kernels import KERNELS

    rng = np.random.default_rng(5)
    X, sigma, n = rng.normal(size=(600, 3)), 0.7, 600
    if name == "polynomial":
        want = (1.0 + X @ X.T) ** 3
        make = lambda: polynomial_gram(X, degree=3)                         # noqa: E731
    else:
        metric, scale = {"gaussian": ("sqeuclidean", 2.0 * sigma * sigma),
                         "laplacian": ("cityblock", sigma)}[name]
        want = np.exp(-cdist(X, X, metric) / scale)
        make = lambda: Kernel(name, sigma=sigma).gram(X)                    # noqa: E731
    tracemalloc.start()
    try:
        K = make()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    np.testing.assert_array_equal(K, want)
    assert K.nbytes == 8 * n * n and peak < 1.2 * K.nbytes
    if name != "polynomial":
        kd = KERNELS[name]
        D = kd.distances(X)
        D0 = D.copy()
        np.testing.assert_array_equal(kd.gram(D, sigma), want)
        np.testing.assert_array_equal(D, D0)                # the sweep's shared distances kept


# ------------------------------------------------------------------ the registry: Laplacian and linear
def test_laplacian_gram_is_sklearns_with_gamma_one_over_sigma():
    from sklearn.metrics.pairwise import laplacian_kernel

    from svmcore.kernels import KERNELS

    rng = np.random.default_rng(3)
    X, Z = rng.normal(size=(7, 3)), rng.normal(size=(5, 3))
    for sigma in (0.3, 1.0, 4.0):
        np.testing.assert_allclose(Kernel("laplacian", sigma=sigma).gram(X, Z),
                                   laplacian_kernel(X, Z, gamma=1 / sigma), rtol=1e-14)
        lap = KERNELS["laplacian"]
        np.testing.assert_allclose(lap.gram(lap.distances(X), sigma), laplacian_kernel(X, gamma=1 / sigma),
                                   rtol=1e-14)
    lin = KERNELS["linear"]
    np.testing.assert_allclose(lin.gram(lin.distances(X), 1.0), X @ X.T, rtol=1e-14)


def test_sweep_with_the_laplacian_kernel_matches_libsvm_and_differs_from_gaussian():
    """The path solver on the Laplacian kernel against LIBSVM (scikit-learn's SVC, precomputed
    Laplacian Gram, C = 1/(2nλ)) at every λ of a column; and a different table from the Gaussian's."""
    from sklearn.metrics.pairwise import laplacian_kernel
    from sklearn.svm import SVC

    from svmcore.datasets.simulations import make_wahba2d
    from svmcore.grid import sweep
    from svmcore.spec import GridSpec

    d = make_wahba2d(60, 1)
    grid = GridSpec.parse("-6:0:2", "0")
    lap = sweep(d, grid, kernel="laplacian", criteria=["obs", "gacv"]).table
    gau = sweep(d, grid, kernel="gaussian", criteria=["obs", "gacv"]).table
    assert not np.allclose(lap["gacv"], gau["gacv"])
    K = laplacian_kernel(d.X, gamma=1.0)
    for l2 in (-6.0, -4.0, -2.0, 0.0):
        C = 1 / (2 * d.n * 2.0 ** l2 / d.n)
        svc = SVC(C=C, kernel="precomputed", tol=1e-10).fit(K, d.y)
        f = svc.decision_function(K)
        obs = np.mean(np.maximum(0, 1 - d.y * f))   # eq 1.13 with L ≡ 1, from LIBSVM's fit
        assert lap.loc[lap.log2_nlambda == l2, "obs"].item() == pytest.approx(obs, rel=1e-5, abs=1e-7)


def test_linear_kernel_needs_one_sigma():
    from svmcore._validation import SVMCoreError
    from svmcore.datasets.simulations import make_wahba2d
    from svmcore.grid import sweep
    from svmcore.spec import GridSpec

    d = make_wahba2d(40, 0)
    with pytest.raises(SVMCoreError, match="linear kernel has no width"):
        sweep(d, GridSpec.parse("-2:0:1", "-1:1:1"), kernel="linear")
    t = sweep(d, GridSpec.parse("-2:0:1", "0"), kernel="linear", criteria=["gacv"]).table
    assert len(t) == 3 and t["gacv"].notna().all()
