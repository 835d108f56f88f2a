"""bench/data_shapes.py: the path's answers on tables shaped like users' data pass their KKT check
on the whole problem (f recomputed from α), at a size the suite can afford."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_shape_answers_within_what_the_path_accepts():
    env = dict(os.environ, PYTHONPATH=str(ROOT), OPENBLAS_NUM_THREADS="1")
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "data_shapes.py"), "--n", "300",
                          "--shapes", "f200,rare,binary,linear200"],
                         capture_output=True, text=True, env=env, timeout=600, check=True).stdout
    rows = re.findall(r"^ (\w+)\s+(\S+)\s+.*?(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)$", out, re.M)
    assert [r[0] for r in rows] == ["f200", "rare", "binary", "linear200"], out
    assert [int(r[2]) for r in rows] == [338, 338, 338, 26], out
    for r in rows:
        assert float(r[6]) <= 1.05, out          # residual ÷ max(1e-8, rounding floor)
