"""scikit-learn estimators built on the model families (``docs/estimators.md``).

| estimator | family | tuned by |
|---|---|---|
| :class:`TunedSVC` | ``svm`` | GACV, XA, BRXA, SURE, CV, LOO over log2(nλ) × log2 σ (one λ-path per σ) |
| :class:`TunedKernelLogistic` | ``logistic`` | GACV, ranGACV, CV deviance |
| :class:`COSSOSVC` | ``cosso`` | GCKL (with the true p), CV hinge, GACV over the budget M |
| :class:`UnbiasedSVC` | ``usvc`` | fixed C, s (IRWLS) |
"""
from __future__ import annotations

from .cosso import COSSOSVC
from .logistic import TunedKernelLogistic
from .svc import TunedSVC
from .usvc import UnbiasedSVC

__all__ = ["TunedSVC", "TunedKernelLogistic", "COSSOSVC", "UnbiasedSVC"]
