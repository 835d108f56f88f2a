"""Every bundled data set loads, matches the README table, and the table covers every file."""
from __future__ import annotations

import os
import re

import numpy as np
import pytest

from svmcore.datasets.bundled import BUNDLED, DATA_DIR, list_bundled, load_bundled
from svmcore.datasets.csvload import CSVLoadError

README = DATA_DIR / "README.md"


def readme_rows() -> dict[str, tuple[int, int]]:
    """File name -> (n, d) from the provenance table of data/README.md."""
    rows = {}
    text = README.read_text(encoding="utf-8")
    table = text.split("## Provenance", 1)[1].split("\n## ", 1)[0]
    for line in table.splitlines():
        m = re.match(r"\|\s*`([^`]+\.csv)`\s*\|", line)
        if not m:
            continue
        shape = re.search(r"\|\s*(\d+)\s*×\s*(\d+)\s*\|", line)
        assert shape, f"no 'n × d' shape in README row for {m.group(1)}"
        rows[m.group(1)] = (int(shape.group(1)), int(shape.group(2)))
    return rows


def test_expected_sets_present():
    assert {"wdbc", "wisconsin", "bupa", "pima", "ionosphere", "sonar", "haberman",
            "heart"} <= set(list_bundled())


def test_readme_lists_every_data_file():
    listed = set(readme_rows())
    on_disk = {p.name for p in DATA_DIR.glob("*.csv")}
    assert listed == on_disk
    assert {e.file for e in BUNDLED.values()} == on_disk


@pytest.mark.parametrize("name", list(BUNDLED))
def test_bundled_set_loads(name):
    entry = BUNDLED[name]
    ds = load_bundled(name)
    assert (ds.n, ds.d) == readme_rows()[entry.file] == entry.shape
    assert (ds.y > 0).any() and (ds.y < 0).any()
    assert ds.p is None
    assert np.isfinite(ds.X).all()
    assert np.allclose(ds.X.mean(axis=0), 0, atol=1e-9)
    assert np.allclose(ds.X.std(axis=0), 1)
    assert ds.standardized and ds.source == entry.citation
    assert len(ds.feature_names) == ds.d


def test_wdbc_class_a_is_malignant():
    ds = load_bundled("wdbc", standardize=False)
    assert int((ds.y > 0).sum()) == 212  # malignant
    assert "malignant" in ds.class_names[0]
    assert not ds.standardized
    from sklearn.datasets import load_breast_cancer
    bc = load_breast_cancer()
    assert np.allclose(ds.X, bc.data)
    assert np.array_equal(ds.y > 0, bc.target == 0)


def test_works_from_another_directory(tmp_path):
    cwd = os.getcwd()
    try:
        os.chdir(tmp_path)
        assert load_bundled("sonar").n == 208
    finally:
        os.chdir(cwd)


def test_unknown_name():
    with pytest.raises(CSVLoadError, match="no bundled data set"):
        load_bundled("iris")
