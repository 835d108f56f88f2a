"""Faults on a localhost Dask cluster (scheduler and workers as separate processes, killed with
SIGKILL): the study ends with one line within the stall time, never hangs, never a traceback.
Marked ``faults`` so they can be deselected (``-m "not faults"``); about 20 s together."""
from __future__ import annotations

import importlib
import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from svmcore.spec import make_spec
from svmcore.study import STANDARD, ClusterFailed, run_study

pytestmark = pytest.mark.faults
distributed = pytest.importorskip("distributed")
STALL = 10.0  # the default is limits.DASK_STALL_SECONDS = 60


def _popen(module, *args):
    return subprocess.Popen([sys.executable, "-m", f"distributed.cli.{module}", *args],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)


@pytest.fixture
def cluster(tmp_path):
    """A scheduler and two workers without nannies (a killed worker stays dead)."""
    sfile = tmp_path / "scheduler.json"
    procs = [_popen("dask_scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                    "--scheduler-file", str(sfile))]
    deadline = time.time() + 30
    while not sfile.exists() and time.time() < deadline:
        time.sleep(0.1)
    for _ in range(2):
        procs.append(_popen("dask_worker", "--scheduler-file", str(sfile), "--no-nanny",
                            "--nthreads", "1", "--no-dashboard"))
    addr = json.loads(sfile.read_text())["address"]
    with distributed.Client(addr, timeout="20s") as c:
        c.wait_for_workers(2, timeout=30)
        c.run(importlib.import_module, "svmcore.study")
    # a first study on both workers: their first tasks' imports and set-up (2 s on an idle
    # machine, over the 10 s stall time on a clean clone's CI run) are not part of the stall time
    warm = make_spec("svm", data={"source": "simulation", "name": "wahba2d", "n": 20, "seed": 1},
                     log2_nlambda="-2:0:2", log2_sigma="-1:0:1", criteria=["gacv"])
    run_study(warm, 2, (STANDARD,), scheduler=addr, stall_seconds=300)
    yield addr, procs
    for p in procs:
        if p.poll() is None:
            p.kill()
        p.wait()


def _study_until_fault(addr, kill):
    """Run a study on ``addr``; after its first finished task call ``kill()``. Returns (error,
    seconds from the kill to the error)."""
    spec = make_spec("svm", data={"source": "simulation", "name": "wahba2d", "n": 80, "seed": 3},
                     log2_nlambda="-8:0:2", log2_sigma="-1:1:0.5", criteria=["gacv", "misclass"])
    killed = threading.Event()
    t_kill = []

    def progress(done, total):
        if not killed.is_set():
            killed.set()
            t_kill.append(time.perf_counter())
            kill()

    with pytest.raises(ClusterFailed) as info:
        run_study(spec, 400, (STANDARD,), scheduler=addr, progress=progress, stall_seconds=STALL)
    assert t_kill, f"the study failed before any task finished: {info.value}"
    return str(info.value), time.perf_counter() - t_kill[0]


def test_all_workers_killed_ends_in_one_line(cluster, capfd):
    addr, procs = cluster

    def kill():
        for p in procs[1:]:
            os.kill(p.pid, signal.SIGKILL)

    msg, secs = _study_until_fault(addr, kill)
    # no finished task for STALL seconds, or a task the scheduler gave up on (KilledWorker)
    assert "\n" not in msg and ("no progress" in msg or "failed" in msg)
    assert "no table was written" in msg
    assert secs < STALL + 10
    assert "Traceback" not in capfd.readouterr().err
    with capfd.disabled():
        print(f"\nall workers lost: error {secs:.1f} s after the kill (stall {STALL} s): {msg}")


def test_scheduler_killed_ends_in_one_line(cluster, capfd):
    addr, procs = cluster
    msg, secs = _study_until_fault(addr, lambda: os.kill(procs[0].pid, signal.SIGKILL))
    assert "\n" not in msg and "scheduler was lost" in msg and "no table was written" in msg
    assert secs < STALL + 15
    assert "Traceback" not in capfd.readouterr().err
    with capfd.disabled():
        print(f"\nscheduler lost: error {secs:.1f} s after the kill: {msg}")
