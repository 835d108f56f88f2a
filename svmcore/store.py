"""Saved runs and the app's bounded result cache, as plain data files (Parquet + JSON only).

A saved run is a folder named by a content hash (``RunSpec.key`` salted with the run's kind, a data
fingerprint and the settings that are not part of the spec, e.g. a study's replicates) holding

* ``table.parquet`` — the result table (pyarrow; dtypes, NaN and strings round-trip exactly), and
* ``spec.json`` — ``{"format", "spec": RunSpec.to_dict(), "meta": {kind, created, code, notes,
  seconds, weights …}}``.

``spec.json`` is written last, so a folder without a readable one is an unfinished save. Every file
is written to a temporary name and moved into place with ``os.replace`` (atomic on POSIX), so a
reader never sees half a file. The layout is documented in ``docs/studies.md``.
"""
from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import re
import shutil
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Mapping

import numpy as np
import pandas as pd

from ._validation import SVMCoreError
from .spec import RunSpec, spec_from_dict

FORMAT = 1
TABLE_FILE = "table.parquet"
SPEC_FILE = "spec.json"
KINDS = ("sweep", "study")
_KEY = re.compile(r"^[A-Za-z0-9_-]{1,80}$")
_TMP_AGE_S = 3600.0


# ------------------------------------------------------------------ helpers
def _json_default(v):
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating,)):
        return float(v)
    if isinstance(v, np.bool_):
        return bool(v)
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, (tuple, set, frozenset)):
        return list(v)
    if isinstance(v, Path):
        return str(v)
    if hasattr(v, "as_dict"):
        return v.as_dict()
    raise TypeError(f"not JSON-serialisable: {type(v).__name__}")


def _clean(v):
    """Non-finite floats as None (strict JSON has no NaN)."""
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, Mapping):
        return {str(k): _clean(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_clean(x) for x in v]
    return v


def dumps(obj) -> str:
    """Canonical JSON text (sorted keys; NaN → null; numpy scalars as numbers)."""
    plain = json.loads(json.dumps(obj, default=_json_default))
    return json.dumps(_clean(plain), sort_keys=True, indent=1, allow_nan=False)


def _atomic_write(path: Path, write) -> None:
    """``write(tmp_path)``, then move the file into place in one step."""
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def _write_table(path: Path, table: pd.DataFrame) -> None:
    if not isinstance(table, pd.DataFrame):
        raise SVMCoreError(f"a saved table must be a pandas DataFrame, got {type(table).__name__}")
    _atomic_write(path, lambda p: table.to_parquet(p, engine="pyarrow"))


def _write_json(path: Path, obj) -> None:
    text = dumps(obj)
    _atomic_write(path, lambda p: p.write_text(text, encoding="utf-8"))


@functools.lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """A hash of the ``svmcore`` sources (computed once per process): saved runs and the app's
    result cache record which code made them. The one fingerprint of the project."""
    root = Path(__file__).resolve().parent
    h = hashlib.sha256()
    for f in sorted(root.rglob("*.py")):
        h.update(str(f.relative_to(root)).encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def run_key(kind: str, spec: RunSpec, settings: Mapping | None = None, data_fingerprint: str = "") -> str:
    """The content hash naming a saved run: the spec salted with kind, data and extra settings."""
    salt = f"{kind}|{data_fingerprint}|{dumps(dict(settings or {}))}"
    return spec.key(salt)


# ------------------------------------------------------------------ saved runs
def save_run(root, kind: str, spec: RunSpec, table: pd.DataFrame, meta: Mapping | None = None, *,
             data_fingerprint: str = "") -> Path:
    """Save a run under ``root`` and return its folder.

    Parameters
    ----------
    root : folder of saved runs (created if missing).
    kind : "sweep" or "study".
    spec : the run's RunSpec.
    table : the result table (any DataFrame Parquet can hold).
    meta : JSON-able metadata: ``notes``, ``seconds``, ``weights`` ({L_pos, L_neg}), and
        ``settings`` — whatever besides the spec determines the numbers (a study's replicates,
        weightings…); ``settings`` is part of the folder's content hash.
    data_fingerprint : identifies inline or uploaded data (part of the hash).
    """
    if kind not in KINDS:
        raise SVMCoreError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
    meta = dict(meta or {})
    key = run_key(kind, spec, meta.get("settings"), data_fingerprint)
    folder = Path(root).expanduser() / key
    folder.mkdir(parents=True, exist_ok=True)
    full_meta = {"notes": [], "seconds": None, "weights": None, **meta, "kind": kind, "key": key,
                 "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                 "code": code_fingerprint(), "data_fingerprint": data_fingerprint}
    _write_table(folder / TABLE_FILE, table)
    _write_json(folder / SPEC_FILE, {"format": FORMAT, "spec": spec.to_dict(), "meta": full_meta})
    return folder


def _read_spec_json(folder: Path) -> dict:
    try:
        doc = json.loads((folder / SPEC_FILE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SVMCoreError(f"{folder} is not a saved run (no {SPEC_FILE})") from None
    except (OSError, ValueError) as exc:
        raise SVMCoreError(f"{folder / SPEC_FILE} is unreadable: {exc}") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or "spec" not in doc:
        raise SVMCoreError(f"{folder / SPEC_FILE} is not a saved run of format {FORMAT}")
    return doc


def load_run(path) -> tuple[RunSpec, pd.DataFrame, dict]:
    """(spec, table, meta) of the saved run in folder ``path``; SVMCoreError when it is not one."""
    folder = Path(path).expanduser()
    doc = _read_spec_json(folder)
    spec = spec_from_dict(doc["spec"])
    try:
        table = pd.read_parquet(folder / TABLE_FILE, engine="pyarrow")
    except FileNotFoundError:
        raise SVMCoreError(f"{folder} has no {TABLE_FILE}") from None
    except Exception as exc:  # pyarrow raises several types for damaged files
        raise SVMCoreError(f"{folder / TABLE_FILE} is unreadable: {exc}") from None
    return spec, table, dict(doc.get("meta", {}))


def list_runs(root) -> pd.DataFrame:
    """One row per saved run under ``root`` (newest first); unreadable folders are skipped."""
    cols = ["key", "kind", "created", "model", "data", "n", "criteria", "rows", "seconds", "notes",
            "path"]
    rows = []
    base = Path(root).expanduser()
    if base.is_dir():
        for folder in sorted(p for p in base.iterdir() if p.is_dir()):
            try:
                doc = _read_spec_json(folder)
            except SVMCoreError:
                continue
            s, m = doc["spec"], doc.get("meta", {})
            data = s.get("data", {})
            nrows = _parquet_rows(folder / TABLE_FILE)
            if nrows is None:
                continue
            notes = m.get("notes") or []
            rows.append({"key": folder.name, "kind": m.get("kind", ""), "created": m.get("created", ""),
                         "model": s.get("model", ""), "data": str(data.get("name", "")),
                         "n": data.get("n"), "criteria": ",".join(s.get("criteria", [])),
                         "rows": nrows, "seconds": m.get("seconds"),
                         "notes": "; ".join(map(str, notes)) if isinstance(notes, list) else str(notes),
                         "path": str(folder)})
    df = pd.DataFrame(rows, columns=cols)
    return df.sort_values(["created", "key"], ascending=[False, True], kind="stable").reset_index(drop=True)


def _parquet_rows(path: Path) -> int | None:
    try:
        import pyarrow.parquet as pq
        return int(pq.ParquetFile(path).metadata.num_rows)
    except Exception:
        return None


# ------------------------------------------------------------------ bounded cache
class ResultCache:
    """A folder of (table, meta) entries under ``max_bytes``, least recently used evicted first.

    Entries are ``<key>.parquet`` + ``<key>.json``; ``get`` touches the pair (its modification
    time is the recency clock), ``put`` writes atomically and then evicts. A damaged or partial
    entry reads as a miss and is removed.
    """

    def __init__(self, root, max_bytes: int = 256 * 2**20):
        if not isinstance(max_bytes, (int, np.integer)) or max_bytes <= 0:
            raise SVMCoreError(f"max_bytes must be a positive integer, got {max_bytes!r}")
        self.root = Path(root).expanduser()
        self.root.mkdir(parents=True, exist_ok=True)
        self.max_bytes = int(max_bytes)
        self._clock = 0
        self._sweep_tmp()

    # -------------------------------------------------------------- paths and clock
    def _paths(self, key: str) -> tuple[Path, Path]:
        if not isinstance(key, str) or not _KEY.match(key):
            raise SVMCoreError(f"a cache key must be 1–80 letters, digits, '_' or '-', got {key!r}")
        return self.root / f"{key}.parquet", self.root / f"{key}.json"

    def _tick(self) -> int:
        newest = max((p.stat().st_mtime_ns for p in self.root.glob("*.json")), default=0)
        self._clock = max(time.time_ns(), self._clock + 1, newest + 1)
        return self._clock

    def _touch(self, *paths: Path) -> None:
        t = self._tick()
        for p in paths:
            os.utime(p, ns=(t, t))

    def _sweep_tmp(self) -> None:
        now = time.time()
        for p in self.root.glob(".*.tmp"):
            try:
                if now - p.stat().st_mtime > _TMP_AGE_S:
                    p.unlink()
            except OSError:
                pass

    def _remove(self, key: str) -> None:
        for p in self._paths(key):
            try:
                p.unlink()
            except FileNotFoundError:
                pass

    # -------------------------------------------------------------- API
    def get(self, key: str) -> tuple[pd.DataFrame, dict] | None:
        """(table, meta) for ``key``, or None on a miss (a damaged entry is removed)."""
        tpath, jpath = self._paths(key)
        if not (tpath.exists() and jpath.exists()):
            if tpath.exists() or jpath.exists():
                self._remove(key)
            return None
        try:
            meta = json.loads(jpath.read_text(encoding="utf-8"))
            if not isinstance(meta, dict):
                raise ValueError("meta is not an object")
            table = pd.read_parquet(tpath, engine="pyarrow")
        except Exception:
            self._remove(key)
            return None
        try:
            self._touch(tpath, jpath)
        except FileNotFoundError:  # evicted by another writer meanwhile; the data are in hand
            pass
        return table, meta

    def put(self, key: str, table: pd.DataFrame, meta: Mapping | None = None) -> bool:
        """Store an entry and evict the least recently used ones until under ``max_bytes``.

        Returns False (and stores nothing) when the entry alone exceeds the bound.
        """
        tpath, jpath = self._paths(key)
        _write_table(tpath, table)
        _write_json(jpath, dict(meta or {}))
        if tpath.stat().st_size + jpath.stat().st_size > self.max_bytes:
            self._remove(key)
            return False
        self._touch(tpath, jpath)
        self.evict()
        return True

    def entries(self) -> list[tuple[str, int, int]]:
        """(key, bytes, last use in ns) of complete entries, least recently used first."""
        out = []
        for j in self.root.glob("*.json"):
            if j.name.startswith("."):
                continue
            t = j.with_suffix(".parquet")
            try:
                size = j.stat().st_size + t.stat().st_size
                used = j.stat().st_mtime_ns
            except FileNotFoundError:
                continue
            out.append((j.stem, size, used))
        return sorted(out, key=lambda e: (e[2], e[0]))

    def size_bytes(self) -> int:
        """Bytes of every file in the cache folder (entries, strays and temporaries)."""
        return sum(p.stat().st_size for p in self.root.iterdir() if p.is_file())

    def evict(self) -> None:
        """Remove orphans, then least recently used entries until the folder is under the bound."""
        for t in self.root.glob("*.parquet"):
            if not t.with_suffix(".json").exists() and time.time() - t.stat().st_mtime > 60:
                t.unlink(missing_ok=True)
        entries = self.entries()
        total = self.size_bytes()
        for key, size, _ in entries:
            if total <= self.max_bytes:
                break
            self._remove(key)
            total -= size

    def clear(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)
        self.root.mkdir(parents=True, exist_ok=True)


def describe_meta(meta: Mapping[str, Any]) -> str:
    """One line for listings: kind, created, seconds."""
    secs = meta.get("seconds")
    s = f"{meta.get('kind', '?')} run, created {meta.get('created', '?')}"
    return s + (f", {secs:.1f} s" if isinstance(secs, (int, float)) else "")
