"""Model families, each in its own subpackage, behind one interface (``base.ModelFamily``).

| name | family | papers |
|---|---|---|
| ``svm`` | weighted (nonstandard) SVM: GACV, XA, BRXA, SURE, CV, LOO | Wahba, Lin, Lee & Zhang (2001); Solo |
| ``logistic`` | penalized-likelihood soft classification: GACV, ranGACV | Lin, Wahba, Xiang, Gao, Klein & Klein |
| ``cosso`` | COSSO SVM variable selection (SS-ANOVA) | Zhang (2006) |
| ``usvc`` | unbiased SVC by iterated reweighted least squares | Navia-Vázquez et al. (2004) |

A new family: a subpackage with a ``family.py`` defining ``FAMILY`` (a ``base.ModelFamily``, whose
contract is checked on load) and one line in ``FAMILIES``.
Families are imported on first use, so a broken or slow one does not slow the others.
"""
from __future__ import annotations

from importlib import import_module

from .._validation import SVMCoreError

#: family name → module that defines ``FAMILY``
FAMILIES: dict[str, str] = {
    "svm": "svmcore.families.svm.family",
    "cosso": "svmcore.families.cosso.family",
    "usvc": "svmcore.families.usvc.family",
    "logistic": "svmcore.families.soft.family",
}

_LOADED: dict = {}


def get_family(name: str):
    """The ``ModelFamily`` registered as ``name``."""
    if name not in FAMILIES:
        raise SVMCoreError(f"unknown model {name!r}; choose from {', '.join(FAMILIES)}")
    if name not in _LOADED:
        from .base import check_family
        family = import_module(FAMILIES[name]).FAMILY
        check_family(family)
        _LOADED[name] = family
    return _LOADED[name]


def all_families() -> list:
    """Every registered family, in registry order."""
    return [get_family(name) for name in FAMILIES]
