"""svmcore: tuning kernel classifiers (README.md, docs/).

The scikit-learn estimators are importable from here (``from svmcore import TunedSVC``); they are
loaded on first use so that ``import svmcore.<module>`` does not pull in the estimators.
"""
from __future__ import annotations

_ESTIMATORS = ("TunedSVC", "TunedKernelLogistic", "COSSOSVC", "UnbiasedSVC")
__all__ = list(_ESTIMATORS)


def __getattr__(name):
    if name in _ESTIMATORS:
        from . import estimators

        return getattr(estimators, name)
    raise AttributeError(f"module 'svmcore' has no attribute {name!r}")
