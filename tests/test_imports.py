"""What a run pays for at start: the CLI and a sweep worker import neither scikit-learn nor
scipy.stats until a fit asks for them (0.6 s and 0.5 s of imports), nor numba until a path of
``COMPILED_FROM_N`` points or more runs its compiled loop (0.2–0.3 s), and every family's k-fold CV
splits the same way (``families.common.stratified_folds``)."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
from sklearn.model_selection import StratifiedKFold

from svmcore.families.common import stratified_folds
from svmcore.families.usvc.family import _folds

LOADED = """
import sys
import svmcore.cli, svmcore.grid, svmcore.datasets.simulations
from svmcore.families import all_families
all_families()
print(sorted(m for m in ("sklearn", "scipy.stats", "numba") if m in sys.modules))
"""


def test_cli_and_sweep_modules_import_neither_sklearn_nor_scipy_stats_nor_numba():
    out = subprocess.run([sys.executable, "-c", LOADED], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_families_share_one_seeded_stratified_split():
    y = np.where(np.random.default_rng(3).random(47) < 0.3, 1, -1)
    for folds, seed in [(5, 0), (3, 11)]:
        ours = list(stratified_folds(y, folds, seed))
        ref = list(StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed).split(y, y))
        assert len(ours) == folds
        for (tr, te), (rtr, rte) in zip(ours, ref):
            np.testing.assert_array_equal(tr, rtr)
            np.testing.assert_array_equal(te, rte)
            # stratified: each test fold holds its share of the minority class, give or take one
            assert abs((y[te] > 0).sum() - (y > 0).sum() / folds) <= 1
        number = _folds(y, folds, seed)           # the unbiased SVC's fold numbers, the same split
        for j, (_, te) in enumerate(ref):
            np.testing.assert_array_equal(np.flatnonzero(number == j), np.sort(te))
