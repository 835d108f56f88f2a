"""Tuning criteria of the penalized-likelihood soft classifier: plain functions of a solution.

Notation (Lin, Wahba, Xiang, Gao, Klein & Klein, "The bias-variance tradeoff and the randomized
GACV"; Wahba et al. 2001, §1.2): y ∈ {0, 1}, p̂_i = 1/(1 + e^{−f_i}), W = diag(p̂_i(1 − p̂_i)),
H = ∂f/∂y at the solution (b unpenalized). All values are on the scale of the objective's data
term, (1/n) Σ [−y f + log(1 + e^f)] (half the usual binomial deviance per point).

- OBS: the in-sample data term.
- GACV (ranGACV paper, eq 8):
  OBS + (tr H / n) Σ y_i(y_i − p̂_i) / (n − tr(W^{1/2} H W^{1/2})).
- ranGACV (eq 10, R-replicated): tr H → δ'Hδ, n − tr(W^{1/2}HW^{1/2}) → δ'δ − δ'WHδ with
  δ ~ N(0, I) (the variance cancels in the ratio); the second term is averaged over R draws.
  Hδ = f^{y+δ} − f^y for one Newton step from the solution, i.e. one solve with the factor in hand.
- CKL (Wahba et al. 2001, eq 1.7; ranGACV paper, eq 3): (1/n) Σ [−p_i f_i + log(1 + e^{f_i})],
  p the true P(A | x_i).
- CV deviance: k-fold (stratified, seeded) out-of-fold data term, the CV(λ) of eq 5 with folds.
- Test deviance: the data term on a held-out set.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
from scipy.linalg.blas import dtrmm
from scipy.linalg.lapack import dtrtri

from ..common import stratified_folds
from .newton import KernelBasis, LogisticSolution, iter_path, softplus, to01

IN_SAMPLE = ("obs", "gacv", "rangacv")
TARGETS = ("ckl",)
RESAMPLING = ("cv_deviance",)
ALL_CRITERIA = IN_SAMPLE + TARGETS + RESAMPLING
HOLDOUT_COLUMNS = ("test_deviance",)


def deviance(f: np.ndarray, y01: np.ndarray) -> float:
    """(1/m) Σ [−y f + log(1 + e^f)] for 0/1 (or probability) responses ``y01``."""
    f = np.asarray(f, float)
    return float(np.mean(softplus(f) - np.asarray(y01, float) * f))


def obs(sol: LogisticSolution, y01: np.ndarray) -> float:
    """OBS: the in-sample data term (ranGACV paper, first term of eqs 8 and 10)."""
    return deviance(sol.f, y01)


def ckl(sol: LogisticSolution, p: np.ndarray) -> float:
    """CKL, the comparative Kullback–Leibler distance (Wahba et al. 2001, eq 1.7; ranGACV paper,
    eq 3): (1/n) Σ [−p_i f_i + log(1 + e^{f_i})] with the true p."""
    return deviance(sol.f, p)


def traces(sol: LogisticSolution) -> tuple[float, float]:
    """(tr H, tr(W^{1/2} H W^{1/2})) without any n × n matrix.

    With X = [1, Φ], H = X G^{-1} X', so tr H = tr(G^{-1} X'X) and tr(W^{1/2}HW^{1/2}) =
    tr(G^{-1} X'WX) = (r + 1) − 2nλ Σ_{j≥1} (G^{-1})_jj. X'X is an arrow matrix (Φ'Φ = Λ is
    diagonal), so both need only the diagonal and the first row of G^{-1} = R^{-1}R^{-T}, from the
    triangular inverse of the Cholesky factor R in hand (r³/3 flops). On a "pivoted" basis
    (``KernelBasis.from_gram`` without exact traces) Φ'Φ is not diagonal: tr H = ‖X R^{-1}‖²_F,
    n r² flops more.
    """
    R = sol.chol[0]
    Rinv, info = dtrtri(R, lower=0)
    if info != 0:
        raise np.linalg.LinAlgError(f"inverting the Cholesky factor failed (LAPACK info {info})")
    diag = np.einsum("ij,ij->i", Rinv, Rinv)
    basis = sol.basis
    if basis.kind == "pivoted":                # Φ'Φ not diagonal: tr(R^{-T} X'X R^{-1}), n r² flops
        XR = dtrmm(1.0, Rinv, basis.X, side=1)   # X R^{-1} (Rinv upper triangular)
        trH = float(np.einsum("ij,ij->", XR, XR))
    else:
        row0 = Rinv @ Rinv[0]                  # first row (= column) of G^{-1}
        trH = basis.n * diag[0] + 2.0 * row0[1:] @ basis.XtX[0, 1:] + diag[1:] @ basis.evals
    trWH = (basis.rank + 1) - 2.0 * basis.n * sol.lam * float(np.sum(diag[1:]))
    return float(trH), float(trWH)


def gacv(sol: LogisticSolution, y01: np.ndarray) -> float:
    """Exact GACV (ranGACV paper, eq 8):
    OBS + (tr H / n) Σ y_i(y_i − p̂_i) / (n − tr(W^{1/2} H W^{1/2}))."""
    n = len(y01)
    trH, trWH = traces(sol)
    return obs(sol, y01) + trH / n * float(y01 @ (y01 - sol.p)) / (n - trWH)


def rangacv_terms(sol: LogisticSolution, y01: np.ndarray, deltas: np.ndarray) -> np.ndarray:
    """The second term of ranGACV (ranGACV paper, eq 10) for each column δ of ``deltas`` (n × R):
    (δ'Hδ / n) Σ y_i(y_i − p̂_i) / (δ'δ − δ'W Hδ), with Hδ = f^{y+δ} − f^y from one Newton step
    (one solve with the factor in hand per replicate). A replicate whose denominator is not
    positive (possible for R = 1: δ'W Hδ is not a symmetric form) is NaN."""
    n = len(y01)
    Hd = sol.apply_H(deltas)
    num = np.einsum("ir,ir->r", deltas, Hd)
    den = np.einsum("ir,ir->r", deltas, deltas) - np.einsum("ir,i,ir->r", deltas, sol.w, Hd)
    fit = float(y01 @ (y01 - sol.p))
    out = np.full(deltas.shape[1], np.nan)
    ok = den > 0
    out[ok] = num[ok] / n * fit / den[ok]
    return out


def rangacv(sol: LogisticSolution, y01: np.ndarray, deltas: np.ndarray) -> float:
    """R-replicated ranGACV (ranGACV paper, eq 10 and the text after it): OBS + the mean over the
    R draws of the second term (replicates with a non-positive denominator left out)."""
    t = rangacv_terms(sol, y01, deltas)
    return obs(sol, y01) + float(np.nanmean(t)) if np.isfinite(t).any() else np.nan


def draw_deltas(n: int, reps: int, seed: int) -> np.ndarray:
    """δ's for ranGACV: an (n, R) array of N(0, 1) draws from ``seed``. The same draws are used at
    every grid point (common random numbers: a smooth ranGACV curve in λ and σ)."""
    return np.random.default_rng(seed).standard_normal((n, reps))


def in_sample_criteria(sol: LogisticSolution, y01: np.ndarray, names: Sequence[str],
                       p: np.ndarray | None = None, deltas: np.ndarray | None = None) -> dict:
    """{name: value} for the requested in-sample criteria and targets at one solution."""
    out = {}
    for name in names:
        if name == "obs":
            out[name] = obs(sol, y01)
        elif name == "gacv":
            out[name] = gacv(sol, y01)
        elif name == "rangacv":
            out[name] = rangacv(sol, y01, deltas)
        elif name == "ckl" and p is not None:
            out[name] = ckl(sol, p)
    return out


def kfold_decision_values(K: np.ndarray, y: np.ndarray, lams: Sequence[float], folds: int = 5,
                          seed: int = 0) -> np.ndarray:
    """Out-of-fold f^{[−fold(i)]}(x_i) for every λ, an array (len(lams), n); NaN where a fit failed.

    Folds: scikit-learn's StratifiedKFold with shuffling and ``seed``. Each fold minimises the full
    objective with the left-out terms removed (weight 1/n per term kept), i.e. the usual problem on
    m kept points at λ' = nλ/m (the convention of the SVM family's CV, ``docs/soft.md``).
    """
    n = len(y)
    y01 = to01(y)
    F = np.full((len(lams), n), np.nan)
    for tr, te in stratified_folds(y, folds, seed):
        basis = KernelBasis.from_gram(K[np.ix_(tr, tr)])
        Kte = K[np.ix_(te, tr)]
        for k, sol in iter_path(basis, y01[tr], [lam * n / len(tr) for lam in lams]):
            if not isinstance(sol, Exception):
                F[k, te] = sol.b + Kte @ sol.c
    return F


def cv_deviance_values(F: np.ndarray, y: np.ndarray) -> np.ndarray:
    """CV deviance per λ: (1/n) Σ [−y f^{[−fold(i)]}_i + log(1 + e^{f^{[−fold(i)]}_i})]."""
    return np.mean(softplus(F) - to01(y)[None, :] * F, axis=1)


def rangacv_draws(sols: Sequence[LogisticSolution], y01: np.ndarray, reps: int, n_draws: int,
                  seed: int = 0) -> np.ndarray:
    """ranGACV along one σ column for ``n_draws`` independent sets of R = ``reps`` perturbations
    (draw k uses seed ``seed + k``): an array (n_draws, len(sols)), NaN where a fit failed. Shows
    how much the randomized estimate moves with its draw (ranGACV paper, eq 10)."""
    out = np.full((n_draws, len(sols)), np.nan)
    for k in range(n_draws):
        deltas = draw_deltas(len(y01), reps, seed + k)
        for j, sol in enumerate(sols):
            if not isinstance(sol, Exception):
                out[k, j] = rangacv(sol, y01, deltas)
    return out
