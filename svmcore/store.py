"""Saved runs and the app's bounded result cache, as plain data files (Parquet + JSON only).

A saved run is a folder named by a content hash (``RunSpec.key`` salted with the run's kind, a data
fingerprint and the settings that are not part of the spec, e.g. a study's replicates) holding

* ``table.parquet`` — the result table (pyarrow; dtypes, NaN and strings round-trip exactly), and
* ``spec.json`` — ``{"format", "spec": RunSpec.to_dict(), "meta": {kind, created, code, notes,
  seconds, weights …}}``.

``spec.json`` also records the format version, the run's key (its folder's name) and the sha256 of
``table.parquet``. A run folder is written under a temporary name (``.<key>.<random>.tmp``) and
renamed when complete, so a run is complete or absent; every cache file is written to a temporary
name and moved into place with ``os.replace``. :func:`check_run` is the one validator of a run
folder, used by :func:`load_run` and :func:`list_runs` alike. The layout is documented in
``docs/studies.md``.
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
from typing import Any, Callable, Mapping

import numpy as np
import pandas as pd

from ._validation import SVMCoreError
from .safeio import atomic_folder
from .flight import single_flight
from .spec import RunSpec, spec_from_dict

#: 2: spec.json carries the table's sha256 and the run's key; folders are written atomically
FORMAT = 2
TABLE_FILE = "table.parquet"
SPEC_FILE = "spec.json"
KINDS = ("sweep", "study")
_KEY = re.compile(r"^[A-Za-z0-9_-]{1,80}$")
_TMP_AGE_S = 3600.0
#: half an entry older than this is an interrupted put, not one in progress
_PARTIAL_AGE_S = 60


def _mtime(p: Path) -> int:
    """Modification time in ns, 0 for a file that is gone (removed by another writer)."""
    try:
        return p.stat().st_mtime_ns
    except OSError:
        return 0


def _unlink_if_older(p: Path, old_ns: float) -> None:
    """Remove ``p`` if it is still there and last modified before ``old_ns``. A missing file is
    not old: a writer may create it at this moment (a cache once lost such an entry under 8
    concurrent writers)."""
    if 0 < _mtime(p) < old_ns:
        p.unlink(missing_ok=True)


def _size(p: Path) -> int:
    try:
        return p.stat().st_size if p.is_file() else 0
    except OSError:
        return 0


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
def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def save_run(root, kind: str, spec: RunSpec, table: pd.DataFrame, meta: Mapping | None = None, *,
             data_fingerprint: str = "") -> Path:
    """Save a run under ``root`` and return its folder.

    The folder is written under a temporary name and renamed when complete
    (:func:`svmcore.safeio.atomic_folder`): a run is complete or absent.

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
    base = Path(root).expanduser()
    try:
        base.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SVMCoreError(f"cannot create the folder of saved runs {base}: {exc.strerror}") from None
    full_meta = {"notes": [], "seconds": None, "weights": None, **meta, "kind": kind, "key": key,
                 "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                 "code": code_fingerprint(), "data_fingerprint": data_fingerprint}
    with atomic_folder(base / key) as tmp:
        _write_table(tmp / TABLE_FILE, table)
        _write_json(tmp / SPEC_FILE, {"format": FORMAT, "spec": spec.to_dict(), "meta": full_meta,
                                      "table_sha256": _sha256(tmp / TABLE_FILE)})
    return base / key


def check_run(path) -> tuple[dict, RunSpec]:
    """The one validator of a saved run folder: (spec.json document, spec), or SVMCoreError
    naming what is wrong. Used by :func:`load_run` and :func:`list_runs` alike.

    Checks: ``spec.json`` is readable JSON of format ``FORMAT`` holding a valid spec; its key is
    the folder's name; ``table.parquet`` exists and its sha256 is the one recorded.
    """
    folder = Path(path).expanduser()
    if not folder.is_dir():
        raise SVMCoreError(f"{folder} is not a saved run (not a folder)")
    try:
        doc = json.loads((folder / SPEC_FILE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SVMCoreError(f"{folder} is not a saved run (no {SPEC_FILE})") from None
    except (OSError, ValueError, RecursionError) as exc:
        raise SVMCoreError(f"{folder / SPEC_FILE} is unreadable: {type(exc).__name__}: "
                           f"{str(exc)[:120]}") from None
    if not isinstance(doc, dict) or "spec" not in doc or not isinstance(doc.get("meta"), dict):
        raise SVMCoreError(f"{folder / SPEC_FILE} is not a saved run (no spec and meta)")
    if doc.get("format") != FORMAT:
        raise SVMCoreError(f"{folder / SPEC_FILE} has format {doc.get('format')!r}; this version "
                           f"reads format {FORMAT} (with a table checksum)")
    if doc["meta"].get("key") != folder.name:
        raise SVMCoreError(f"{folder} holds the run {str(doc['meta'].get('key'))[:40]!r}, not the "
                           "one its name says (a copied or renamed folder)")
    try:
        spec = spec_from_dict(doc["spec"])
    except (SVMCoreError, TypeError, ValueError, KeyError, AttributeError, RecursionError) as exc:
        raise SVMCoreError(f"{folder / SPEC_FILE} holds an invalid spec: {str(exc)[:160]}") from None
    table = folder / TABLE_FILE
    try:
        digest = _sha256(table)
    except FileNotFoundError:
        raise SVMCoreError(f"{folder} has no {TABLE_FILE}") from None
    except OSError as exc:
        raise SVMCoreError(f"{table} is unreadable: {exc.strerror}") from None
    if digest != doc.get("table_sha256"):
        raise SVMCoreError(f"{table} does not match its checksum in {SPEC_FILE} (damaged or replaced)")
    return doc, spec


def load_run(path) -> tuple[RunSpec, pd.DataFrame, dict]:
    """(spec, table, meta) of the saved run in folder ``path``; SVMCoreError when it is not one."""
    folder = Path(path).expanduser()
    doc, spec = check_run(folder)
    try:
        table = pd.read_parquet(folder / TABLE_FILE, engine="pyarrow")
    except Exception as exc:  # pyarrow raises several types for damaged files
        raise SVMCoreError(f"{folder / TABLE_FILE} is unreadable: {exc}") from None
    return spec, table, dict(doc["meta"])


RUN_COLUMNS = ["key", "kind", "created", "model", "data", "n", "criteria", "rows", "seconds", "notes",
               "path"]


def scan_runs(root) -> tuple[pd.DataFrame, list[tuple[str, str]]]:
    """The saved runs under ``root`` (newest first) and the damaged folders, each with why.

    Every folder is judged by :func:`check_run`, the validator of :func:`load_run`, so a listed run
    is one that loads. A damaged folder never stops the listing. Temporary folders (a save in
    progress, named ``.*``) are skipped.
    """
    rows, damaged = [], []
    base = Path(root).expanduser()
    folders = sorted(p for p in base.iterdir() if p.is_dir() and not p.name.startswith(".")) \
        if base.is_dir() else []
    for folder in folders:
        try:
            doc, _ = check_run(folder)
            rows.append(_run_row(folder, doc))
        except SVMCoreError as exc:
            damaged.append((str(folder), str(exc)))
        except Exception as exc:  # noqa: BLE001 - one bad folder never stops the listing
            damaged.append((str(folder), f"{type(exc).__name__}: {str(exc)[:160]}"))
    df = pd.DataFrame(rows, columns=RUN_COLUMNS)
    df = df.sort_values(["created", "key"], ascending=[False, True], kind="stable")
    return df.reset_index(drop=True), damaged


def _run_row(folder: Path, doc: dict) -> dict:
    s, m = doc["spec"], doc["meta"]
    data = s.get("data", {}) if isinstance(s.get("data"), dict) else {}
    nrows = _parquet_rows(folder / TABLE_FILE)
    if nrows is None:
        raise SVMCoreError(f"{folder / TABLE_FILE} is not a readable Parquet file")
    notes = m.get("notes") or []
    return {"key": folder.name, "kind": str(m.get("kind", "")), "created": str(m.get("created", "")),
            "model": str(s.get("model", "")), "data": str(data.get("name", "")), "n": data.get("n"),
            "criteria": ",".join(map(str, s.get("criteria", []))), "rows": nrows,
            "seconds": m.get("seconds"),
            "notes": "; ".join(map(str, notes)) if isinstance(notes, list) else str(notes),
            "path": str(folder)}


def runs_dir() -> Path:
    """The app's store of saved runs: ``SVMAPP_RUNS_DIR`` (or the older ``SVMAPP_RUNS``), else
    ``~/.svmapp/runs``. The app reads only this folder."""
    for var in ("SVMAPP_RUNS_DIR", "SVMAPP_RUNS"):
        v = os.environ.get(var, "").strip()
        if v:
            return Path(v).expanduser()
    return Path("~/.svmapp/runs").expanduser()


def list_runs(root) -> pd.DataFrame:
    """One row per valid saved run under ``root`` (newest first); see :func:`scan_runs` for the
    damaged folders."""
    return scan_runs(root)[0]


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
        newest = max((_mtime(p) for p in self.root.glob("*.json")), default=0)
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
            # no entry, or half of one: a put in progress (left alone) or an old interrupted one,
            # whose files are removed one by one (never the key as a whole)
            old = time.time_ns() - _PARTIAL_AGE_S * 1e9
            for p in (tpath, jpath):
                _unlink_if_older(p, old)
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
        if _size(tpath) + _size(jpath) > self.max_bytes:
            self._remove(key)
            return False
        try:
            self._touch(tpath, jpath)
        except FileNotFoundError:    # another writer evicted it meanwhile: it was written, then used
            return True
        self.evict(keep=key)
        return True

    def get_or_compute(self, key: str, compute: Callable[[], tuple[pd.DataFrame, Mapping]]):
        """(table, meta) of ``key`` from the cache, or from ``compute()`` run once.

        Single flight: identical requests (same folder and key) made at once from several threads
        share one computation; the first runs ``compute`` and stores its result, the others wait
        for it. An exception of ``compute`` reaches every waiter.
        """
        hit = self.get(key)
        if hit is not None:
            return hit

        def compute_and_store():
            table, meta = compute()
            self.put(key, table, meta)
            return table, dict(meta or {})

        return single_flight(("cache", str(self.root.resolve()), key), compute_and_store)

    def entries(self) -> list[tuple[str, int, int]]:
        """(key, bytes, last use in ns) of complete entries, least recently used first."""
        out = []
        for j in self.root.glob("*.json"):
            if j.name.startswith("."):
                continue
            t = j.with_suffix(".parquet")
            try:
                js = j.stat()
                size = js.st_size + t.stat().st_size
            except FileNotFoundError:
                continue
            out.append((j.stem, size, js.st_mtime_ns))
        return sorted(out, key=lambda e: (e[2], e[0]))

    def size_bytes(self) -> int:
        """Bytes of every file in the cache folder (entries, strays and temporaries)."""
        return sum(_size(p) for p in self.root.iterdir())

    def evict(self, keep: str | None = None) -> None:
        """Remove orphans, then least recently used entries until the folder is under the bound.

        Tolerates concurrent writers: a file removed by another process meanwhile is skipped;
        ``keep`` (the entry just written) is evicted last.
        """
        old = time.time_ns() - _PARTIAL_AGE_S * 1e9
        for t in self.root.glob("*.parquet"):
            if not t.with_suffix(".json").exists():
                _unlink_if_older(t, old)
        entries = sorted(self.entries(), key=lambda e: e[0] == keep)
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
