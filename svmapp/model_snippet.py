""""Use this model": the code that rebuilds a grid point's SVM, and its fitted JSON (no Streamlit).

Given the run's settings (a ``RunSpec``: costs, priors, criterion) and a clicked or picked grid
point (log2(nλ), log2 σ), :func:`model_snippet` returns Python code that rebuilds the model two
ways, and :func:`fitted_model_json` the fitted ``TunedSVC`` as JSON:

* ``svmcore.TunedSVC`` with a one-point grid: the SVM family's own fit (``fit_svm``) there;
* ``sklearn.svm.SVC(C, gamma, class_weight)`` with C = 1/(2nλ) = 2^(−log2 nλ)/2 (n cancels),
  γ = 1/(2σ²) and class_weight = {+1: L(+1), −1: L(−1)}, the cost weights of Wahba, Lin, Lee &
  Zhang (2001), §1.7 (``docs/svm.md`` §2–3). LIBSVM's class_weight multiplies C per class, which
  is exactly the weighted hinge of eq 1.25, so the two models are the same problem; they agree to
  the solvers' tolerance (the snippet sets ``tol=1e-10``: LIBSVM's default 1e-3 is a stopping
  rule on the dual gap, not an accuracy of f).
"""
from __future__ import annotations

from svmcore.weights import class_weights_from_costs


def sklearn_mapping(spec, log2_nlambda: float, log2_sigma: float, y) -> dict:
    """C, gamma and class_weight of scikit-learn's SVC for the spec's weighted SVM at one grid point.

    ``y`` are the training labels (+1 class A, −1 class B): the weights need the sample's class
    proportion when a prior π_A is given. With the sample's priors, L(+1) = C_B and L(−1) = C_A.
    """
    w = class_weights_from_costs(y, spec.cost_a, spec.cost_b, spec.prior_a)
    sigma = 2.0 ** float(log2_sigma)
    gamma = {"gaussian": 1.0 / (2.0 * sigma * sigma), "laplacian": 1.0 / sigma}.get(spec.kernel)
    return {"C": 0.5 * 2.0 ** (-float(log2_nlambda)), "gamma": gamma,
            "class_weight": None if w.is_standard else {1: w.L_pos, -1: w.L_neg},
            "L_pos": w.L_pos, "L_neg": w.L_neg, "standard": w.is_standard}


def model_snippet(spec, log2_nlambda: float, log2_sigma: float, y, criterion: str = "gacv") -> str:
    """Python code rebuilding the SVM at (log2_nlambda, log2_sigma) from arrays ``X``, ``y``
    (y = +1 for class A, −1 for class B; features as the app used them, i.e. standardized)."""
    m = sklearn_mapping(spec, log2_nlambda, log2_sigma, y)
    prior = "None" if spec.prior_a is None else repr(float(spec.prior_a))
    if m["standard"]:
        why = "# equal costs and the sample's own priors: L(+1) = L(-1) = 1, no class weights"
    else:
        why = (f"# class_weight = cost weights L(+1) = C_B*pi_A/pi_A^s = {m['L_pos']:.12g}, "
               f"L(-1) = C_A*pi_B/pi_B^s = {m['L_neg']:.12g}\n"
               "# (Wahba, Lin, Lee & Zhang 2001, sec. 1.7): LIBSVM multiplies C by the class weight, "
               "exactly the weighted hinge")
    cw = "None" if m["class_weight"] is None else \
        f"{{1: {m['class_weight'][1]!r}, -1: {m['class_weight'][-1]!r}}}"
    return f'''# X: (n, d) features (standardized as in the app), y: +1 for class A, -1 for class B
# the grid point: log2(n*lambda) = {float(log2_nlambda):g}, log2(sigma) = {float(log2_sigma):g}

# 1. svmcore's estimator on a one-point grid (the SVM family's own fit there)
from svmcore import TunedSVC

model = TunedSVC(criterion={criterion!r}, kernel={spec.kernel!r}, log2_nlambda="{float(log2_nlambda)!r}",
                 log2_sigma="{float(log2_sigma)!r}", cost_a={float(spec.cost_a)!r},
                 cost_b={float(spec.cost_b)!r}, prior_a={prior}, extend_grid=False).fit(X, y)

# 2. the same problem in plain scikit-learn:
#    C = 1/(2 n lambda) = 2^(-log2(n lambda))/2, {_KERNEL_NOTE[spec.kernel]}
{why}
{_sklearn_kernel(spec.kernel, m)}
svc = SVC(C={m["C"]!r}, {_sklearn_kernel_args(spec.kernel, m)},
          class_weight={cw}, tol=1e-10).fit(X, y)
'''


_KERNEL_NOTE = {"gaussian": "gamma = 1/(2 sigma^2)",
                "laplacian": "laplacian_kernel with gamma = 1/sigma",
                "linear": "the linear kernel"}


def _sklearn_kernel(kernel: str, m: dict) -> str:
    if kernel == "laplacian":
        return ("from functools import partial\n\nfrom sklearn.metrics.pairwise import laplacian_kernel\n"
                "from sklearn.svm import SVC\n")
    return "from sklearn.svm import SVC\n"


def _sklearn_kernel_args(kernel: str, m: dict) -> str:
    if kernel == "gaussian":
        return f'kernel="rbf", gamma={m["gamma"]!r}'
    if kernel == "laplacian":
        return f'kernel=partial(laplacian_kernel, gamma={m["gamma"]!r})'
    return 'kernel="linear"'


def fitted_model_json(spec, data, log2_nlambda: float, log2_sigma: float, criterion: str = "gacv") -> str:
    """The fitted ``TunedSVC`` at one grid point as JSON (``TunedSVC.to_json``), from the app's
    training Dataset (``data.X``, ``data.y``) and the run's costs and priors."""
    from svmcore import TunedSVC

    model = TunedSVC(criterion=criterion, kernel=spec.kernel, log2_nlambda=repr(float(log2_nlambda)),
                     log2_sigma=repr(float(log2_sigma)), cost_a=float(spec.cost_a),
                     cost_b=float(spec.cost_b), prior_a=spec.prior_a, extend_grid=False)
    return model.fit(data.X, data.y).to_json()
