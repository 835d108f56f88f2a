"""Saved runs and the bounded result cache (svmcore.store)."""
import json
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from svmcore._validation import SVMCoreError
from svmcore.spec import make_spec
from svmcore.store import ResultCache, list_runs, load_run, save_run


def _table(n=30, seed=0):
    rng = np.random.default_rng(seed)
    v = rng.normal(size=n)
    v[3] = np.nan
    return pd.DataFrame({
        "log2_sigma": np.repeat([-1.0, 0.5, 2.0], n // 3),
        "log2_nlambda": np.tile(np.arange(n // 3, dtype=float) - 5, 3),
        "gacv": v,
        "n_sv": rng.integers(0, 50, size=n).astype(np.int64),
        "flagged": rng.random(n) > 0.7,
        "solver": ["path" if i % 2 else "cvxopt" for i in range(n)],
        "fit_error": ["" if i != 7 else "ValueError: λ too small — ünïcode" for i in range(n)],
    })


def _spec(**kw):
    return make_spec("svm", data={"source": "simulation", "name": "wahba2d", "n": 60, "seed": 3},
                     log2_nlambda="-10:0:2", log2_sigma="-1:1:1", criteria="gacv,xa,misclass", **kw)


def test_round_trip_exact(tmp_path):
    spec, table = _spec(cost_b=2.0, prior_a=0.1), _table()
    meta = {"notes": ["a note"], "seconds": 1.25, "weights": {"L_pos": 0.5, "L_neg": 1.5},
            "settings": {"replicates": 3}}
    path = save_run(tmp_path, "study", spec, table, meta)
    spec2, table2, meta2 = load_run(path)
    assert spec2 == spec
    pd.testing.assert_frame_equal(table2, table, check_dtype=True, check_exact=True)
    assert np.isnan(table2["gacv"].iloc[3])
    assert meta2["kind"] == "study" and meta2["seconds"] == 1.25 and meta2["notes"] == ["a note"]
    assert meta2["weights"] == {"L_pos": 0.5, "L_neg": 1.5}
    assert re.fullmatch(r"[0-9a-f]{16}", meta2["code"])
    # the folder is named by a content hash: same content → same folder; other settings → another
    assert save_run(tmp_path, "study", spec, table, meta) == path
    other = save_run(tmp_path, "study", spec, table, {**meta, "settings": {"replicates": 4}})
    assert other != path and other.parent == path.parent
    assert save_run(tmp_path, "study", spec, table, meta, data_fingerprint="abc") != path
    doc = json.loads((path / "spec.json").read_text())
    assert doc["spec"] == spec.to_dict()


def test_list_runs_skips_broken(tmp_path):
    p1 = save_run(tmp_path, "sweep", _spec(), _table(), {"seconds": 2.0})
    p2 = save_run(tmp_path, "study", _spec(cost_b=2.0), _table(12), {})
    (tmp_path / "half").mkdir()
    (tmp_path / "half" / "table.parquet").write_bytes(b"not parquet")
    runs = list_runs(tmp_path)
    assert sorted(runs["path"]) == sorted([str(p1), str(p2)])
    assert dict(zip(runs["path"], runs["rows"], strict=True)) == {str(p1): 30, str(p2): 12}
    assert list_runs(tmp_path / "missing").empty
    with pytest.raises(SVMCoreError):
        load_run(tmp_path / "half")


def test_load_run_damaged_table(tmp_path):
    path = save_run(tmp_path, "sweep", _spec(), _table(), {})
    (path / "table.parquet").write_bytes(b"PAR1 garbage")
    with pytest.raises(SVMCoreError, match="checksum"):
        load_run(path)


def test_cache_corrupt_is_a_miss_and_removed(tmp_path):
    cache = ResultCache(tmp_path, max_bytes=10**7)
    t = _table()
    assert cache.put("k1", t, {"a": 1})
    got = cache.get("k1")
    pd.testing.assert_frame_equal(got[0], t)
    assert got[1] == {"a": 1}
    (tmp_path / "k1.parquet").write_bytes(b"truncated")
    assert cache.get("k1") is None
    assert not (tmp_path / "k1.parquet").exists() and not (tmp_path / "k1.json").exists()
    cache.put("k2", t, {})
    (tmp_path / "k2.json").write_text("{not json")
    assert cache.get("k2") is None and not (tmp_path / "k2.parquet").exists()
    cache.put("k3", t, {})
    (tmp_path / "k3.json").unlink()           # a partial entry: a put in progress is left alone
    assert cache.get("k3") is None and (tmp_path / "k3.parquet").exists()
    os.utime(tmp_path / "k3.parquet", (1, 1))  # an old one is an interrupted put, removed
    assert cache.get("k3") is None and not (tmp_path / "k3.parquet").exists()
    with pytest.raises(SVMCoreError):
        cache.get("../escape")


def _disk_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.iterdir() if p.is_file())


def test_cache_stays_under_bound(tmp_path):
    one = ResultCache(tmp_path / "probe", 10**9)
    one.put("x", _table(300), {})
    entry = _disk_bytes(tmp_path / "probe")
    bound = int(3.5 * entry)
    cache = ResultCache(tmp_path / "c", max_bytes=bound)
    for i in range(40):
        assert cache.put(f"k{i}", _table(300, seed=i), {"i": i})
        assert _disk_bytes(tmp_path / "c") <= bound
    kept = sorted(int(p.stem[1:]) for p in (tmp_path / "c").glob("*.json"))
    assert kept == [37, 38, 39]            # three entries fit, the newest ones
    assert not ResultCache(tmp_path / "tiny", max_bytes=100).put("big", _table(300), {})
    assert _disk_bytes(tmp_path / "tiny") == 0


def test_cache_lru_order(tmp_path):
    probe = ResultCache(tmp_path / "probe", 10**9)
    probe.put("x", _table(300), {})
    entry = _disk_bytes(tmp_path / "probe")
    cache = ResultCache(tmp_path / "c", max_bytes=int(3.5 * entry))
    for k in ("a", "b", "c"):
        cache.put(k, _table(300), {})
    assert cache.get("a") is not None           # a becomes the most recently used
    cache.put("d", _table(300), {})             # evicts b, the least recently used
    assert {p.stem for p in (tmp_path / "c").glob("*.json")} == {"a", "c", "d"}
    assert cache.get("b") is None
    cache.get("c")
    cache.put("e", _table(300), {})             # now a is the oldest use
    assert {p.stem for p in (tmp_path / "c").glob("*.json")} == {"c", "d", "e"}


def test_no_pickle_in_svmcore():
    root = Path(__file__).resolve().parents[1] / "svmcore"
    offenders = [str(p) for p in root.rglob("*.py")
                 if re.search(r"\b(pickle|cloudpickle|dill|marshal)\b", p.read_text(encoding="utf-8"))]
    assert offenders == []
