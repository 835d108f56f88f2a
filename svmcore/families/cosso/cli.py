"""Data splits of the COSSO protocol (Zhang 2006, §5.3); ``svmcore cosso`` itself is generated from
the family's parameter table (``svmcore.cli``)."""
from __future__ import annotations

from ...datasets.load import holdout_split


def split_third(data, seed: int):
    """Stratified split: 2/3 for training and tuning, 1/3 held out (Zhang 2006, §5.3)."""
    return holdout_split(data, 1 / 3, seed)
