"""Genuine subprocess tests: signals stop the workers and leave no partial output; a closed pipe
ends quietly (issue 19)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

psutil = pytest.importorskip("psutil")
ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
# exact LOO makes these run for minutes: the signal always lands while the workers compute
SWEEP = ["sweep", "--dataset", "wahba2d", "--n", "400", "--log2-nlambda=-12:4:0.5",
         "--log2-sigma=-3:3:0.25", "--criteria", "gacv,xa,loo", "--jobs", "2", "--quiet"]


def test_closed_pipe_ends_quietly():
    r = subprocess.run(f"{sys.executable} -m svmcore datasets | head -1", shell=True,
                       capture_output=True, text=True, env=ENV, timeout=120)
    assert r.stdout.startswith("simulations") and r.stderr == ""


STUDY = ["study", "--dataset", "wahba2d", "--n", "300", "--replicates", "40",
         "--log2-nlambda=-12:4:0.5", "--log2-sigma=-3:3:0.5", "--criteria", "gacv,xa", "--jobs", "2",
         "--quiet"]
COMMANDS = {"sweep": SWEEP, "study": STUDY}


def _sigint_as_at_a_terminal():
    """In the child before it runs the command: SIGINT's default action, as a command started at a
    terminal has it. A test run started in the background by a non-interactive shell inherits
    SIGINT ignored, and so would the command (Python then installs no KeyboardInterrupt)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _sweep_with_workers(out, command="sweep"):
    p = subprocess.Popen([sys.executable, "-m", "svmcore", *COMMANDS[command], "--out", str(out)],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=ENV,
                         preexec_fn=_sigint_as_at_a_terminal)
    proc = psutil.Process(p.pid)
    deadline = time.time() + 90
    workers = []
    while time.time() < deadline and p.poll() is None:
        # the computing workers ("LokyProcess-k"), not loky's resource tracker (idle all along)
        workers = [c for c in proc.children(recursive=True) if "LokyProcess" in " ".join(c.cmdline())]
        if len(workers) >= 2:
            break
        time.sleep(0.2)
    assert len(workers) >= 2, "the sweep never started its workers"
    while time.time() < deadline and p.poll() is None:     # started up and computing
        try:
            if min(sum(w.cpu_times()[:2]) for w in workers) > 1.0:
                break
        except psutil.NoSuchProcess:
            break
        time.sleep(0.2)
    return p, proc.children(recursive=True)


def _running(proc):
    try:
        return proc.status() != psutil.STATUS_ZOMBIE    # a zombie has ended (nobody reaped it)
    except psutil.NoSuchProcess:
        return False


def _gone_within(procs, seconds):
    """(processes still running after ``seconds``, seconds until the last one ended)."""
    t = time.perf_counter()
    while time.perf_counter() - t < seconds and any(map(_running, procs)):
        time.sleep(0.1)
    alive = [q for q in procs if _running(q)]
    for a in alive:
        a.kill()
    return alive, time.perf_counter() - t


@pytest.mark.parametrize("command, sig", [("sweep", signal.SIGTERM), ("sweep", signal.SIGINT),
                                          ("study", signal.SIGTERM), ("study", signal.SIGINT)])
def test_sigterm_and_sigint_stop_the_workers_and_write_nothing(tmp_path, command, sig):
    out = tmp_path / "r.csv"
    p, children = _sweep_with_workers(out, command)
    p.send_signal(sig)
    p.wait(timeout=30)
    alive, secs = _gone_within(children, 10)
    err = p.stderr.read()
    assert p.returncode == 130 and "interrupted" in err, err
    assert alive == [], f"{len(alive)} workers still running"
    print(f"{command} {signal.Signals(sig).name}: workers gone {secs:.1f} s after the parent")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", ["sweep", "study"])
def test_sigkill_workers_end_with_their_parent(tmp_path, command):
    p, children = _sweep_with_workers(tmp_path / "r.csv", command)
    p.kill()
    p.wait(timeout=30)
    alive, secs = _gone_within(children, 10)
    assert alive == [], f"{len(alive)} workers outlived a SIGKILLed parent by 10 s"
    print(f"{command} SIGKILL: workers gone {secs:.1f} s after the parent")
    assert [f.name for f in tmp_path.iterdir() if not f.name.startswith(".")] == []


# from path.COMPILED_FROM_N points (LOO's paths of n − 1 included) the σ columns run on threads
THREADED = ["sweep", "--dataset", "wahba2d", "--n", "600", "--log2-nlambda=-12:4:0.5",
            "--log2-sigma=-3:3:0.25", "--criteria", "gacv,xa,loo", "--jobs", "2", "--quiet"]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_sigterm_and_sigint_stop_a_sweep_on_threads_and_write_nothing(tmp_path, sig):
    """The columns on threads of one process (``grid._on_threads``): the signal's interrupt stops
    the running columns at their next poll, the command ends with 130 within seconds, and
    nothing is written."""
    out = tmp_path / "r.csv"
    p = subprocess.Popen([sys.executable, "-m", "svmcore", *THREADED, "--out", str(out)],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=ENV,
                         preexec_fn=_sigint_as_at_a_terminal)
    proc = psutil.Process(p.pid)
    deadline = time.time() + 90
    while time.time() < deadline and p.poll() is None:      # started up, both threads computing
        names = {t.id for t in proc.threads()}
        if sum(proc.cpu_times()[:2]) > 8.0 and len(names) > 2:
            break
        time.sleep(0.2)
    assert p.poll() is None, p.stderr.read()
    assert not [c for c in proc.children(recursive=True) if "LokyProcess" in " ".join(c.cmdline())]
    t = time.perf_counter()
    p.send_signal(sig)
    p.wait(timeout=30)
    secs = time.perf_counter() - t
    err = p.stderr.read()
    assert p.returncode == 130 and "interrupted" in err, err
    print(f"threads {signal.Signals(sig).name}: ended {secs:.1f} s after the signal")
    assert secs < 10 and list(tmp_path.iterdir()) == []
