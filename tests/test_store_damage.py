"""Saved runs that are damaged, and the cache under concurrent writers (issue 19)."""
from __future__ import annotations

import json
import shutil
import threading
import time

import numpy as np
import pandas as pd
import pytest

from svmcore._validation import SVMCoreError
from svmcore.cli import main
from svmcore.spec import make_spec
from svmcore.store import ResultCache, check_run, list_runs, load_run, save_run, scan_runs


def _spec(seed=3):
    return make_spec("svm", data={"source": "simulation", "name": "wahba2d", "n": 60, "seed": seed},
                     log2_nlambda="-10:0:2", log2_sigma="-1:1:1", criteria="gacv,xa,misclass")


def _table(n=12, seed=0):
    return pd.DataFrame({"a": np.random.default_rng(seed).normal(size=n), "b": np.arange(n)})


def _in_threads(target, count: int) -> list[BaseException]:
    """Run target(0) … target(count − 1) in threads at once; the exceptions they raised."""
    errors: list[BaseException] = []

    def run(w):
        try:
            target(w)
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(w,)) for w in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


def _damaged_store(root):
    """Two good runs and five kinds of damage; returns (good folders, {damaged folder: needle})."""
    good = [save_run(root, "sweep", _spec(1), _table()), save_run(root, "study", _spec(2), _table(6))]
    bad = {}
    f = save_run(root, "sweep", _spec(3), _table())        # 1. spec.json nested past recursion
    (f / "spec.json").write_text("[" * 100_000 + "]" * 100_000)
    bad[f] = "unreadable"
    f = save_run(root, "sweep", _spec(4), _table())        # 2. table missing
    (f / "table.parquet").unlink()
    bad[f] = "has no table.parquet"
    f = save_run(root, "sweep", _spec(5), _table())        # 3. table replaced: checksum
    pd.DataFrame({"a": [1.0]}).to_parquet(f / "table.parquet")
    bad[f] = "checksum"
    f = save_run(root, "sweep", _spec(6), _table())        # 4. copied under another name
    copy = root / "copied_run"
    shutil.copytree(f, copy)
    bad[copy] = "not the one its name says"
    f = save_run(root, "sweep", _spec(7), _table())        # 5. an invalid spec
    doc = json.loads((f / "spec.json").read_text())
    doc["spec"]["model"] = "nosuch"
    (f / "spec.json").write_text(json.dumps(doc))
    bad[f] = "invalid spec"
    (root / "half").mkdir()                                # and an unfinished folder
    bad[root / "half"] = "no spec.json"
    return good + [f for f in root.iterdir() if f not in bad and f not in good], bad


def test_runs_list_names_each_damaged_folder_and_lists_the_good(tmp_path, capsys):
    good, bad = _damaged_store(tmp_path)
    runs, damaged = scan_runs(tmp_path)
    assert sorted(runs["path"]) == sorted(map(str, good)) and len(good) == 3
    why = dict(damaged)
    assert set(why) == {str(f) for f in bad}
    for folder, needle in bad.items():
        assert needle in why[str(folder)]
        with pytest.raises(SVMCoreError, match=needle.split()[0]):   # show uses the same check
            load_run(folder)
    for p in runs["path"]:                                            # every listed run loads
        load_run(p)
    assert main(["runs", "list", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    assert err.count("damaged: ") == len(bad) and "Traceback" not in err
    assert all(r[:8] in out for r in runs["key"])


def test_runs_list_missing_folder_is_an_error(tmp_path, capsys):
    assert main(["runs", "list", str(tmp_path / "nosuchfolder")]) == 2
    assert "no such folder" in capsys.readouterr().err
    assert list_runs(tmp_path / "nosuchfolder").empty


def test_run_folder_is_complete_or_absent(tmp_path, monkeypatch):
    import svmcore.store as store

    def boom(path, obj):
        raise KeyboardInterrupt
    monkeypatch.setattr(store, "_write_json", boom)
    with pytest.raises(KeyboardInterrupt):
        save_run(tmp_path, "sweep", _spec(), _table())
    assert list(tmp_path.iterdir()) == []
    monkeypatch.undo()
    folder = save_run(tmp_path, "sweep", _spec(), _table())
    doc, _ = check_run(folder)
    assert doc["format"] == 2 and len(doc["table_sha256"]) == 64 and doc["meta"]["key"] == folder.name


def test_cache_concurrent_writers_lose_nothing(tmp_path):
    cache = ResultCache(tmp_path, max_bytes=10**9)
    keys = [f"w{w}-{i}" for w in range(8) for i in range(15)]

    def writer(w):
        other = ResultCache(tmp_path, max_bytes=10**9)    # as separate app sessions do
        for i in range(15):
            assert other.put(f"w{w}-{i}", _table(seed=i), {"w": w})
            other.get(f"w{(w + 1) % 8}-{i}")

    assert _in_threads(writer, 8) == []
    assert all(cache.get(k) is not None for k in keys)


def test_a_miss_does_not_remove_an_entry_written_meanwhile(tmp_path, monkeypatch):
    """A get for a key with no files, while another session writes that key: the files it did not
    see must stay. (The reader once removed the key as 'an old interrupted put' because a missing
    file has no modification time, and deleted the entry the writer had just finished.) The
    writer's put is made to land between the reader's existence check and its cleanup."""
    import svmcore.store as store
    reader, writer = ResultCache(tmp_path), ResultCache(tmp_path)
    real = store._mtime
    landed = []

    def mtime_after_the_put_lands(p):
        seen = real(p)                          # the reader finds no file …
        if p.name == "k.json" and not landed:   # … and the put lands right after its last look
            landed.append(None)                 # (the put itself reads modification times)
            landed[0] = writer.put("k", _table(seed=1), {"w": 1})
        return seen

    monkeypatch.setattr(store, "_mtime", mtime_after_the_put_lands)
    assert reader.get("k") is None            # missed: the put had not landed at its check
    assert landed == [True]
    monkeypatch.setattr(store, "_mtime", real)
    table, meta = reader.get("k")
    assert meta == {"w": 1} and table.equals(_table(seed=1))


def test_a_half_entry_older_than_a_minute_is_removed(tmp_path):
    import os
    cache = ResultCache(tmp_path)
    assert cache.put("k", _table(), {})
    jpath, tpath = tmp_path / "k.json", tmp_path / "k.parquet"
    jpath.unlink()                           # an interrupted put: the table without its meta
    assert cache.get("k") is None and tpath.exists()      # recent: maybe in progress, kept
    t = time.time_ns() - 120 * 10**9
    os.utime(tpath, ns=(t, t))
    assert cache.get("k") is None and not tpath.exists()


def test_cache_concurrent_writers_with_eviction_raise_nothing(tmp_path):
    probe = ResultCache(tmp_path / "probe", 10**9)
    probe.put("x", _table(300), {})
    entry = sum(p.stat().st_size for p in (tmp_path / "probe").iterdir())

    def writer(w):
        c = ResultCache(tmp_path / "c", max_bytes=int(4.5 * entry))
        for i in range(15):
            assert c.put(f"w{w}-{i}", _table(300, seed=i), {})

    assert _in_threads(writer, 6) == []
    ResultCache(tmp_path / "c", max_bytes=int(4.5 * entry)).evict()
    assert sum(p.stat().st_size for p in (tmp_path / "c").iterdir()) <= 4.5 * entry


def test_eight_identical_requests_run_one_computation(tmp_path):
    cache = ResultCache(tmp_path, max_bytes=10**8)
    calls, results = [], []
    go = threading.Barrier(8)

    def compute():
        calls.append(1)
        time.sleep(0.3)
        return _table(), {"made": "once"}

    def request(_):
        go.wait()
        results.append(cache.get_or_compute("same", compute))

    assert _in_threads(request, 8) == []
    assert len(calls) == 1 and len(results) == 8
    for table, meta in results:
        pd.testing.assert_frame_equal(table, _table())
        assert meta == {"made": "once"}
    assert cache.get_or_compute("same", compute)[1] == {"made": "once"} and len(calls) == 1


def test_single_flight_shares_the_error(tmp_path):
    cache = ResultCache(tmp_path, max_bytes=10**8)
    go = threading.Barrier(4)

    def compute():
        time.sleep(0.2)
        raise SVMCoreError("bad settings")

    def request(_):
        go.wait()
        cache.get_or_compute("k", compute)

    errors = _in_threads(request, 4)
    assert [(type(e), str(e)) for e in errors] == [(SVMCoreError, "bad settings")] * 4
