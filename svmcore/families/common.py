"""Parameters that several families share, declared once (``svmcore.params.Param``).

A family lists the ones it uses in its ``params`` table; a family that does not list one ignores
it, and it is then in none of its keys, links or saved runs.
"""
from __future__ import annotations

from numbers import Integral, Real

import numpy as np

from ..params import Interval, OneOf, Param
from ..spec import SEED

COST_A = Param("cost_a", Interval(Real, 1e-3, 1e3), 1.0, "C_A",
               "cost of calling a B an A (Wahba et al. 2001, §1.7)", step=0.5)
COST_B = Param("cost_b", Interval(Real, 1e-3, 1e3), 1.0, "C_B",
               "cost of calling an A a B (Wahba et al. 2001, §1.7)", step=0.5)
PRIOR_A = Param("prior_a", OneOf((None, Interval(Real, 0.0, 1.0, "neither"))), None, "π_A",
                "π_A in the target population (none: the sample proportion; §1.7)", step=0.01)
CV_FOLDS = Param("cv_folds", Interval(Integral, 2, 50), 5, "CV folds",
                 "folds of k-fold cross validation", aliases=("folds",), widget="int")
CV_SEED = Param("cv_seed", SEED, 0, "CV seed", "seed of the k-fold split", widget="int")

#: the costs and priors of the weighted hinge loss, L(±1) (Wahba et al. 2001, §1.7)
COSTS = (COST_A, COST_B, PRIOR_A)


def stratified_folds(y, folds: int, seed: int):
    """The (train, test) index pairs of every family's k-fold CV: scikit-learn's StratifiedKFold,
    shuffled and seeded. Imported here, on first use: importing scikit-learn costs ~0.6 s, which a
    sweep without CV (or ``svmcore --help``) need not pay."""
    from sklearn.model_selection import StratifiedKFold

    return StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed).split(np.zeros(len(y)), y)
