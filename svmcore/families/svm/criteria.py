"""Tuning criteria as plain functions of a fitted SVM (Wahba, Lin, Lee & Zhang 2001, §1.5–1.7; Solo, §3;
docs/svm.md).

Set memberships are evaluated robustly (docs/svm.md): θ_i = 0 wherever α_i = 0, so GACV's
"−1 ≤ y f ≤ 1" sum is the sum over y f ≥ −1; BRXA's "y f ≤ 1" test is implied by θ_i > 0; SURE's
"y f < 1" is "α_i at its upper bound L(y_i)".
"""
from __future__ import annotations

import numpy as np

from ..base import Criterion, Output
from .fit import SVMFit
from .solvers._common import BOUND_RTOL



def star(tau) -> np.ndarray:
    """[τ]_* = 1 if τ ≥ 0 else 0 (docs/svm.md)."""
    return (np.asarray(tau) >= 0).astype(float)


def obs(fit: SVMFit) -> float:
    """OBS(λ) = (1/n) Σ L(y_i) ξ_i (Wahba et al. 2001, eq 1.13)."""
    return float(np.mean(fit.upper * fit.xi))


def gacv(fit: SVMFit) -> float:
    """GACV(λ) (Wahba et al. 2001, eq 1.26; eq 1.19 when L ≡ 1).

    OBS + (1/n)[2 Σ_{y_i f_i < −1} L(y_i) θ_i + Σ_{−1 ≤ y_i f_i ≤ 1} L(y_i) θ_i], θ_i = α_i K_ii/(2nλ).
    """
    yf = fit.y * fit.f
    w = np.where(yf < -1.0, 2.0, 1.0)
    return obs(fit) + float(np.sum(w * fit.upper * fit.theta)) / fit.n


def xa(fit: SVMFit, rho: float = 2.0, R: float | None = None) -> float:
    """Joachims' ξα estimate, XA(λ) = (1/n) #{i : ξ_i + ρ a_i R ≥ 1} (Wahba et al. 2001, eq 1.21).

    a_i = α_i/(2nλ); R bounds K_ii − K_ij (default ``fit.radius`` = max K_ii − min K_ij).
    With ρ = 2 it bounds the leave-one-out error count (Joachims 2000).
    """
    R = fit.radius if R is None else float(R)
    return float(np.mean(fit.xi + rho * fit.a * R >= 1.0))


def brxa(fit: SVMFit) -> float:
    """BRXA(λ) = (1/n) Σ L(y_i)([−y_i f_i]_* + 1{0 < y_i f_i ≤ θ_i}) (Wahba et al. 2001, eq 1.28).

    The two indicators together are 1{y_i f_i ≤ θ_i} since θ_i ≥ 0; "y_i f_i ≤ 1" is implied by
    θ_i > 0 (docs/svm.md).
    """
    yf = fit.y * fit.f
    hit = (yf <= 0) | ((yf > 0) & (yf <= fit.theta))
    return float(np.mean(fit.upper * hit))


def at_upper_bound(fit: SVMFit, rtol: float = BOUND_RTOL) -> np.ndarray:
    """α_i = L(y_i) up to rtol: the exact-arithmetic form of y_i f_i < 1 (docs/svm.md)."""
    return fit.alpha >= (1.0 - rtol) * fit.upper


def sure(fit: SVMFit) -> float:
    """Solo's SURE divided by n (Solo, eqs 3.2–3.4), standard case.

    (1/n)[Σ exp(−y_i f_i) + (2/(nλ)) Σ ŵ_i s_i K_ii], ŵ_i = p̂_i(1 − p̂_i), p̂_i = 1/(1+e^{−f_i}),
    s_i = 1{α_i = L(y_i)}. exp(−y f) is the χ² term (y01 − p̂)²/ŵ written without 0/0; it may be inf.
    """
    with np.errstate(over="ignore"):
        chi2 = np.exp(-fit.y * fit.f)
        # ŵ = p̂(1 − p̂) = e^{−|f|}/(1 + e^{−|f|})², stable for large |f|
        e = np.exp(-np.abs(fit.f))
    w = e / (1.0 + e) ** 2
    s = at_upper_bound(fit)
    penalty = 2.0 / (fit.n * fit.lam) * float(np.sum(w * s * fit.K_diag))
    return float((np.sum(chi2) + penalty) / fit.n)


def gckl_values(f, p, L_pos: float = 1.0, L_neg: float = 1.0) -> float:
    """(1/n) Σ [L(+1) p_i (1 − f_i)_+ + L(−1)(1 − p_i)(1 + f_i)_+] (Wahba et al. 2001, eq 1.27)."""
    f = np.asarray(f, float)
    p = np.asarray(p, float)
    return float(np.mean(L_pos * p * np.maximum(0, 1 - f) + L_neg * (1 - p) * np.maximum(0, 1 + f)))


def brmisclass_values(f, p, L_pos: float = 1.0, L_neg: float = 1.0) -> float:
    """(1/n) Σ [L(+1) p_i [−f_i]_* + L(−1)(1 − p_i)[f_i]_*] (Wahba et al. 2001, eq 1.29; 1.20 when L ≡ 1)."""
    f = np.asarray(f, float)
    p = np.asarray(p, float)
    return float(np.mean(L_pos * p * star(-f) + L_neg * (1 - p) * star(f)))


def gckl(fit: SVMFit, p) -> float:
    """GCKL(λ) at the training points with true p_i = p_s(x_i) (Wahba et al. 2001, eq 1.27)."""
    return gckl_values(fit.f, p, fit.weights.L_pos, fit.weights.L_neg)


def misclass(fit: SVMFit, p) -> float:
    """MISCLASS(λ) = (1/n) Σ [p_i [−f_i]_* + (1 − p_i)[f_i]_*] (Wahba et al. 2001, eq 1.20)."""
    return brmisclass_values(fit.f, p)


def brmisclass(fit: SVMFit, p) -> float:
    """BRMISCLASS(λ), the cost-weighted misclassification (Wahba et al. 2001, eq 1.29)."""
    return brmisclass_values(fit.f, p, fit.weights.L_pos, fit.weights.L_neg)


def holdout_scores(fit: SVMFit, X_test, y_test) -> dict:
    """Held-out versions of the targets: p_i replaced by the test labels (docs/svm.md).

    Returns ``test_hinge`` (GCKL form), ``test_error`` (MISCLASS form) and ``test_cost_error``
    (BRMISCLASS form).
    """
    f = fit.decision_function(X_test)
    p01 = (np.asarray(y_test) > 0).astype(float)
    w = fit.weights
    return {"test_hinge": gckl_values(f, p01, w.L_pos, w.L_neg),
            "test_error": brmisclass_values(f, p01),
            "test_cost_error": brmisclass_values(f, p01, w.L_pos, w.L_neg)}


def in_sample_criteria(fit: SVMFit, names, p=None, xa_rho: float = 2.0, spec=None,
                       registry=None) -> dict:
    """Every requested criterion of one fit that its registry entry computes from the fit alone
    (needs "fit" or "truth"), by name. ``registry``: {name: Criterion}, default the SVM's."""
    from ..base import FitContext

    ctx = FitContext(p=p, spec=spec if spec is not None else _Rho(xa_rho))
    registry = CRITERION if registry is None else registry
    out = {}
    for name in names:
        c = registry[name]
        if c.fn is not None and c.needs in ("fit", "truth"):
            out[name] = c.fn(fit, ctx)
    return out


class _Rho:
    """A stand-in spec with only ρ, for callers without a RunSpec."""

    def __init__(self, xa_rho: float):
        self.xa_rho = xa_rho


def target_for(weights) -> str:
    """The target an inefficiency is measured against: MISCLASS, or BRMISCLASS when nonstandard."""
    return "misclass" if weights is None or weights.is_standard else "brmisclass"


def inefficiency(table, criterion: str, target: str) -> tuple[float, float, float]:
    """Inefficiency of a criterion (Wahba et al. 2001, §1.8): target at its grid minimiser / grid
    min of target.

    Returns (value at the first minimiser, smallest and largest over tied minimisers) — XA is a count
    and often ties (the paper's "1.0062–1.0094").
    """
    crit = table[criterion].to_numpy(float)
    tgt = table[target].to_numpy(float)
    ok = np.isfinite(crit) & np.isfinite(tgt)
    if not ok.any():
        return (np.nan, np.nan, np.nan)
    best = np.nanmin(np.where(ok, crit, np.nan))
    tied = ok & np.isclose(crit, best, rtol=1e-12, atol=0)
    tmin = np.nanmin(np.where(ok, tgt, np.nan))
    first = int(np.flatnonzero(tied)[0])
    vals = tgt[tied] / tmin
    return (float(tgt[first] / tmin), float(vals.min()), float(vals.max()))


# ------------------------------------------------------------------ the registry
def _one(name, label, colour, dash, symbol, **kw) -> tuple[Output, ...]:
    return (Output(name, label, colour, dash, symbol, **kw),)


#: the SVM's criteria and targets, in display order: one entry each (``svmcore.families.base``)
CRITERIA: tuple[Criterion, ...] = (
    Criterion("obs", "OBS", "OBS: the observed weighted hinge loss (Wahba et al. 2001, eq 1.13); "
              "it always falls as λ → 0", lambda fit, ctx: obs(fit),
              outputs=_one("obs", "OBS", "#8C564B", "2px,3px", "pentagon")),
    Criterion("gacv", "GACV", "GACV: generalized approximate cross validation (eqs 1.19, 1.26), "
              "an estimate of GCKL", lambda fit, ctx: gacv(fit), target="gckl",
              outputs=_one("gacv", "GACV", "#009E73", "solid", "diamond", scale="log")),
    Criterion("xa", "XA", "XA: Joachims' ξα leave-one-out count (eq 1.21), with ρ as set",
              lambda fit, ctx: xa(fit, ctx.spec.xa_rho), target="misclass",
              outputs=_one("xa", "XA", "#AA4499", "dash", "triangle-up", is_count=True)),
    Criterion("brxa", "BRXA", "BRXA: the Bayes-risk ξα for unequal costs and priors (eq 1.28)",
              lambda fit, ctx: brxa(fit), target="brmisclass",
              outputs=_one("brxa", "BRXA", "#CC79A7", "longdash", "triangle-down", is_count=True)),
    Criterion("sure", "SURE", "SURE: Solo's Stein unbiased risk estimate (Solo, eqs 3.2–3.4)",
              lambda fit, ctx: sure(fit), target="gckl",
              outputs=_one("sure", "SURE", "#56B4E9", "dashdot", "square", scale="log")),
    Criterion("gckl", "GCKL", "GCKL: the target, generalized comparative Kullback–Leibler "
              "(eq 1.27); needs the true p", lambda fit, ctx: gckl(fit, ctx.p), needs="truth",
              outputs=_one("gckl", "GCKL", "#DDAA33", "longdashdot", "hexagon")),
    Criterion("misclass", "MISCLASS", "MISCLASS: expected misclassification (eq 1.20); needs the "
              "true p", lambda fit, ctx: misclass(fit, ctx.p), needs="truth",
              outputs=_one("misclass", "MISCLASS", "#117733", "6px,3px,2px,3px,2px,3px", "cross")),
    Criterion("brmisclass", "BRMISCLASS", "BRMISCLASS: cost-weighted misclassification (eq 1.29); "
              "needs the true p", lambda fit, ctx: brmisclass(fit, ctx.p), needs="truth",
              outputs=_one("brmisclass", "BRMISCLASS", "#999933", "12px,3px,3px,3px", "x")),
    Criterion("cv", "CV", "k-fold cross validation: held-out hinge loss and error", needs="refits",
              outputs=(Output("cv_hinge", "CV hinge", "#44AA99", "4px,4px", "star-diamond"),
                       Output("cv_error", "CV error", "#005F5F", "10px,2px", "hourglass"))),
    Criterion("loo", "LOO", "exact leave-one-out: hinge loss and error (one refit per support "
              "vector; expensive)", needs="refits", heavy=True,
              outputs=(Output("loo_hinge", "LOO hinge", "#882255", "2px,6px", "bowtie"),
                       Output("loo_error", "LOO error", "#6A3D9A", "14px,4px,2px,4px",
                              "triangle-left"))),
)
CRITERION = {c.name: c for c in CRITERIA}

#: held-out scores (a test set), drawn like criteria but never requested
HOLDOUT_OUTPUTS = (Output("test_hinge", "test hinge", "#7F7F7F", "8px,8px", "triangle-right"),
                   Output("test_error", "test error", "#3B3B3B", "3px,3px,9px,3px", "star-square"),
                   Output("test_cost_error", "test cost error", "#A6761D", "1px,3px,6px,3px",
                          "diamond-wide"))

#: criteria computable from one fit, in display order (derived from the registry)
IN_SAMPLE = tuple(c.name for c in CRITERIA if c.needs == "fit")
#: targets, known only with the true P(A|x)
TARGETS = tuple(c.name for c in CRITERIA if c.needs == "truth")
#: resampling criteria and the columns they produce
RESAMPLING = {c.name: c.columns for c in CRITERIA if c.needs == "refits"}
ALL_CRITERIA = tuple(CRITERION)
