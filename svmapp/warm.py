"""Precompute the default view (and optionally the presets) into the disk cache.

    python -m svmapp.warm            # the default sweep
    python -m svmapp.warm --presets  # and every preset (paper grids: minutes)

The Docker image runs the first form at build time, so the first visitor sees the default view
without waiting for a sweep. Results are keyed by the settings and a hash of the svmcore sources.
"""
from __future__ import annotations

import sys
import time

from svmapp import settings as S


def warm(s: dict) -> float:
    s = S.settings_from(s)
    loaded = S.load_data(s)
    key = S.spec_for(s, loaded.train.has_truth).key(S.code_fingerprint())
    if S.disk_get(key) is not None:
        return 0.0
    t0 = time.perf_counter()
    S.disk_put(key, S.run(s, loaded))
    return time.perf_counter() - t0


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    todo = {"default": {}}
    if "--presets" in argv:
        todo.update(S.PRESETS)
    if S.cache_dir() is None:
        print("SVMAPP_CACHE is off: nothing to warm")
        return 0
    for name, s in todo.items():
        print(f"{name}: {warm(s):.1f} s", flush=True)
    print(f"cache: {S.cache_dir()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
