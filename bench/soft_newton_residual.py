"""Accuracy of the penalized-likelihood Newton solution (svmcore.families.soft.newton): the size
of one more exact Newton step at the returned solution, max |X Δz| (the fixed-point residual in f),
over wahba2d (n = 200, 400; seeds 0–2; log2 σ = −1, 0, 1; log2(nλ) = 8 … −15).
Run: PYTHONPATH=. python bench/soft_newton_residual.py (figures quoted in docs/soft.md)."""
import numpy as np
from svmcore.datasets.simulations import make_simulation
from svmcore.kernels import gaussian_gram
from svmcore.families.soft.newton import KernelBasis, solve_path, to01
res = []
for name, n in [("wahba2d", 200), ("wahba2d", 400)]:
    for seed in (0, 1, 2):
        d = make_simulation(name, n, seed)
        y01 = to01(d.y)
        for ls in (-1.0, 0.0, 1.0):
            basis = KernelBasis.from_gram(gaussian_gram(d.X, sigma=2.0 ** ls))
            lams = 2.0 ** np.arange(8, -16, -1.0) / n
            for sol in solve_path(basis, y01, lams):
                X = basis.X
                z = np.r_[sol.b, sol.theta]
                p = 1 / (1 + np.exp(-(X @ z)))
                w = p * (1 - p)
                pen = np.r_[0.0, np.full(basis.rank, 2 * n * sol.lam)]
                g = X.T @ (p - y01) + pen * z
                G = X.T @ (X * w[:, None]) + np.diag(pen)
                step = np.linalg.lstsq(G, -g, rcond=None)[0]
                res.append((np.abs(X @ step).max(), np.abs(sol.f - X @ z).max(), sol.converged,
                            name, n, seed, ls, np.log2(n * sol.lam)))
r = np.array([x[0] for x in res])
print(f"{len(r)} fits; Newton-step |Δf|max: median {np.median(r):.1e}, "
      f"90% {np.quantile(r, .9):.1e}, max {r.max():.1e}")
worst = sorted(res, key=lambda x: -x[0])[:5]
for x in worst:
    print(x)
print("converged all:", all(x[2] for x in res))
