"""IRWLS (classic SVC, svmcore.families.usvc) against the QP SVM (cvxopt) on navia_a/navia_b:
relative max |Δ(w, b)| and the primal objective gap, on problems with a free support vector.
Run: PYTHONPATH=. python bench/irwls_vs_qp.py (figures quoted in README.md and docs/usvc.md)."""
import numpy as np
from svmcore.datasets.simulations import make_simulation
from svmcore.families.svm.fit import fit_svm
from svmcore.families.usvc import fit_linear
from svmcore.kernels import Kernel


def primal(w, b, d, C):
    """½‖w‖² + C Σ hinge."""
    return 0.5 * w @ w + C * np.maximum(0, 1 - d.y * (d.X @ w + b)).sum()


out = []
for name in ("navia_a", "navia_b"):
    for seed in list(range(0, 12)) + [101]:
        for n, C in ((300, 10.0), (500, 10.0), (300, 1.0)):
            d = make_simulation(name, n, seed)
            lam = 1.0 / (2 * n * C)
            qp = fit_svm(d.X, d.y, lam, Kernel("linear"), None, solver="cvxopt")
            wq, bq = qp.c @ d.X, qp.b
            m = fit_linear(d.X, d.y, method="svc", C=C)
            scale = np.abs(np.r_[wq, bq]).max()
            a = qp.alpha / qp.upper
            free = bool(np.any((a > 1e-6) & (a < 1 - 1e-6)))
            p_irwls, p_qp = (primal(np.atleast_1d(w), b, d, C) for w, b in ((m.w, m.b), (wq, bq)))
            gap = (p_irwls - p_qp) / p_qp
            if free:
                out.append((np.abs(np.r_[m.w - wq, m.b - bq]).max() / scale, name, seed, n, C, gap))
r = np.array([o[0] for o in out])
print(f"{len(r)} fits: relative max |Δ(w,b)|: median {np.median(r):.1e}, "
      f"90% {np.quantile(r, .9):.1e}, max {r.max():.1e}")
for o in sorted(out, key=lambda o: -o[0])[:4]:
    print(o)
print([o for o in out if o[2] == 101])
