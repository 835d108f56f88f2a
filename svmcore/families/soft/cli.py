"""Command-line pieces of the soft classification family (``--model logistic``).

``add_sweep_options`` adds the family's options to a sweep parser, ``sweep_options`` turns the
parsed arguments into ``RunSpec.options``, and ``fit_payload`` is the JSON of ``svmcore fit``.
"""
from __future__ import annotations

import argparse

import numpy as np

from .criteria import ckl, draw_deltas, gacv, obs, rangacv
from .family import DEFAULT_REPS, DEFAULT_SEED, FAMILY, options_of
from .newton import to01


def add_sweep_options(parser: argparse.ArgumentParser) -> None:
    """``--rangacv-reps`` and ``--rangacv-seed`` (ranGACV paper, eq 10, R-replicated)."""
    g = parser.add_argument_group("soft classification (--model logistic)")
    g.add_argument("--rangacv-reps", type=int, default=None, metavar="R",
                   help=f"replicate perturbations δ of ranGACV (1-1000, default {DEFAULT_REPS})")
    g.add_argument("--rangacv-seed", type=int, default=None, metavar="S",
                   help=f"seed of ranGACV's δ draws (default {DEFAULT_SEED})")


def sweep_options(args: argparse.Namespace) -> dict:
    """RunSpec.options from the parsed arguments (only those given; validated by the spec)."""
    out = {}
    for name in ("rangacv_reps", "rangacv_seed"):
        v = getattr(args, name, None)
        if v is not None:
            out[name] = v
    return out


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
           "note": sol.note, "obs": obs(sol, y01), "gacv": gacv(sol, y01),
           "rangacv": rangacv(sol, y01, draw_deltas(data.n, reps, seed)),
           "rangacv_reps": reps, "rangacv_seed": seed}
    if data.p is not None:
        out["ckl"] = ckl(sol, data.p)
    return {k: (None if isinstance(v, float) and not np.isfinite(v) else v) for k, v in out.items()}
