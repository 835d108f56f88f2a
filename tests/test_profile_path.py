"""bench/profile_path.py's per-octave table counts every event of the path once.

The script wraps the path's functions for the whole process, so it runs in a subprocess here.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run_profile(*args: str) -> str:
    env = dict(os.environ, PYTHONPATH=str(ROOT), OPENBLAS_NUM_THREADS="1")
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "profile_path.py"), *args],
                         capture_output=True, text=True, env=env, timeout=600, check=True)
    return out.stdout


def test_octave_table_adds_up_to_the_paths_own_event_count():
    """n = 600 (the compiled loop's size), one σ column: the loop's events and the numpy code's
    events per octave add up to the event counter the path reports, and every requested λ's
    octave from −1 down to −6 has a row."""
    text = _run_profile("--n", "600", "--sigma=-1:-1:1", "--lam=-6:0:1", "--octaves",
                        "--no-cprofile")
    events = int(re.search(r"^\s+-1\.0\s+\S+\s+(\d+)", text, re.M).group(1))
    table = text.split("where the columns spend their λ")[1].split("start:")[0]
    rows = re.findall(r"^\s+(-\d+)\s+\S+ \(\s*\d+\)\s+\S+ \(\s*(\d+)\)\s+\S+ \(\s*\d+\)"
                      r"\s+\S+ \(\s*\d+\)\s+(\d+)\s+\d+$", table, re.M)
    assert [int(r[0]) for r in rows] == list(range(-1, -7, -1))
    loop = sum(int(r[2]) for r in rows)
    numpy_events = sum(int(r[1]) for r in rows)
    assert loop > 0.9 * events                   # from 500 points the loop crosses most events
    assert loop + numpy_events == events
