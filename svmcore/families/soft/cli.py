"""The JSON of ``svmcore fit --model logistic`` (the family's options come from its table)."""
from __future__ import annotations

import numpy as np

from .criteria import ckl, draw_deltas, gacv, obs, rangacv
from .family import FAMILY, options_of
from .newton import to01


def fit_payload(spec, data, log2_nlambda: float, log2_sigma: float) -> dict:
    """The fit at one grid point as JSON-able values: lambda, sigma, b, c, f, p_hat, the Newton
    diagnostics and the criteria (OBS, GACV, ranGACV with the spec's R and seed, CKL when the true
    p is known)."""
    fit = FAMILY.fit_at(spec, data, log2_nlambda, log2_sigma)
    sol = fit.solution
    y01 = to01(data.y)
    reps, seed = options_of(spec)
    out = {"lambda": fit.lam, "sigma": fit.sigma, "log2_nlambda": float(log2_nlambda),
           "log2_sigma": float(log2_sigma), "b": fit.b, "c": fit.c.tolist(), "f": sol.f.tolist(),
           "p_hat": sol.p.tolist(), "iterations": sol.iterations, "converged": bool(sol.converged),
           "obs": obs(sol, y01), "gacv": gacv(sol, y01),
           "rangacv": rangacv(sol, y01, draw_deltas(data.n, reps, seed)),
           "rangacv_reps": reps, "rangacv_seed": seed}
    out["note"] = sol.note          # after GACV, whose exact traces may add the ridge's note
    if data.p is not None:
        out["ckl"] = ckl(sol, data.p)
    return {k: (None if isinstance(v, float) and not np.isfinite(v) else v) for k, v in out.items()}
