"""Outputs complete or absent and checked before any work; inputs read under a byte budget
(issue 19: svmcore.safeio, svmcore.limits and the CSV loader's caps)."""
from __future__ import annotations

import codecs
import os
import random
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from svmcore._validation import SVMCoreError
from svmcore.datasets.base import Dataset
from svmcore.datasets.csvload import CSVLoadError, load_csv, read_csv_table
from svmcore.limits import MAX_CSV_BYTES, MAX_CSV_COLUMNS
from svmcore.safeio import atomic_folder, atomic_write, check_output, read_bounded, write_text

ROOT = Path(__file__).resolve().parents[1]


# ------------------------------------------------------------------ check_output
def test_check_output_refuses_each_problem(tmp_path):
    inp = tmp_path / "mine.csv"
    inp.write_text("x\n")
    cases = {tmp_path / "nosuchdir" / "s.csv": "does not exist", tmp_path: "is a folder",
             inp: "is the input file"}
    for path, needle in cases.items():
        with pytest.raises(SVMCoreError, match=needle):
            check_output(path, inputs=[inp])
    link = tmp_path / "link.csv"
    link.symlink_to(inp)
    with pytest.raises(SVMCoreError, match="is the input file"):
        check_output(link, inputs=[str(inp)])
    hard = tmp_path / "hard.csv"
    os.link(inp, hard)
    with pytest.raises(SVMCoreError, match="is the input file"):
        check_output(hard, inputs=[inp])
    run = tmp_path / "runs" / "abc"
    run.mkdir(parents=True)
    (run / "spec.json").write_text("{}")
    with pytest.raises(SVMCoreError, match="inside the saved run"):
        check_output(run / "spec.json")
    with pytest.raises(SVMCoreError, match="--save"):
        check_output(tmp_path, what="--save")
    assert check_output(tmp_path / "fresh.csv", inputs=[inp, None]) == tmp_path / "fresh.csv"


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes anywhere")
def test_check_output_not_writable(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    with pytest.raises(SVMCoreError, match="not writable"):
        check_output(ro / "x.csv")


# ------------------------------------------------------------------ atomic writes
def test_failed_write_leaves_old_file_and_no_temporary(tmp_path):
    dest = tmp_path / "t.csv"
    dest.write_text("old\n")

    def boom(fh):
        fh.write("half")
        raise OSError(28, "No space left on device")

    with pytest.raises(SVMCoreError, match="the disk is full; nothing was written"):
        atomic_write(dest, boom)
    assert dest.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.csv"]
    with pytest.raises(SVMCoreError, match="nothing was written"):
        atomic_write(tmp_path / "new.csv", boom)
    assert not (tmp_path / "new.csv").exists()


def test_two_concurrent_writers_leave_one_complete_table(tmp_path):
    dest = tmp_path / "out.csv"
    texts = {w: "".join(f"{w},{i},{i * 0.5}\n" for i in range(4000)) for w in "ab"}
    go = threading.Barrier(2)

    def writer(w):
        def chunks(fh):
            text = texts[w]
            for k in range(0, len(text), 2000):
                fh.write(text[k:k + 2000])
                time.sleep(0.0005)
        go.wait()
        atomic_write(dest, chunks)

    for _ in range(5):
        threads = [threading.Thread(target=writer, args=(w,)) for w in "ab"]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert dest.read_text() in texts.values()
    assert [p.name for p in tmp_path.iterdir()] == ["out.csv"]


_CHILD = textwrap.dedent(r"""
    import sys, time
    from svmcore.safeio import atomic_write
    new = "".join(f"new,{i},{i * i}\n" for i in range(20000))
    def slow(fh):
        for k in range(0, len(new), 4096):
            fh.write(new[k:k + 4096])
            time.sleep(0.0002)
    print("ready", flush=True)
    atomic_write(sys.argv[1], slow)
""")


def test_sigint_at_random_moments_leaves_old_or_complete_new(tmp_path):
    dest = tmp_path / "table.csv"
    old = "".join(f"old,{i}\n" for i in range(2000))
    new = "".join(f"new,{i},{i * i}\n" for i in range(20000))
    rng = random.Random(19)
    seen = []
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for _ in range(20):
        dest.write_text(old)
        # (SIGINT's default action in the child, as at a terminal: a suite started in the
        # background would pass it on ignored, and no write would be interrupted)
        p = subprocess.Popen([sys.executable, "-c", _CHILD, str(dest)], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True, env=env,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        assert p.stdout.readline().strip() == "ready"
        time.sleep(rng.uniform(0.0, 0.08))
        p.send_signal(signal.SIGINT)
        p.wait(timeout=30)
        got = dest.read_text()
        assert got in (old, new)
        seen.append(got == new)
        assert [f.name for f in tmp_path.iterdir()] == ["table.csv"]   # no temporary left
    print(f"SIGINT trials: {seen.count(True)} new, {seen.count(False)} old")
    assert False in seen, "no SIGINT landed before the write was complete"


def test_atomic_folder_complete_or_absent(tmp_path):
    dest = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt):
        with atomic_folder(dest) as tmp:
            (tmp / "a").write_text("1")
            raise KeyboardInterrupt
    assert list(tmp_path.iterdir()) == []
    with atomic_folder(dest) as tmp:
        (tmp / "a").write_text("1")
    with atomic_folder(dest) as tmp:
        (tmp / "b").write_text("2")
    assert sorted(p.name for p in dest.iterdir()) == ["b"]
    assert [p.name for p in tmp_path.iterdir()] == ["run"]


def test_write_text_replaces(tmp_path):
    write_text(tmp_path / "a.txt", "x")
    write_text(tmp_path / "a.txt", "yz")
    assert (tmp_path / "a.txt").read_text() == "yz"


# ------------------------------------------------------------------ byte budget
# peak RSS of this process's own memory (VmHWM, kB): getrusage's ru_maxrss would carry the forking
# pytest process's peak across exec on Linux, whatever the child itself used
_MEASURE = textwrap.dedent("""
    import re, sys, time
    from svmcore.datasets.csvload import CSVLoadError, read_csv_table
    t = time.perf_counter()
    try:
        read_csv_table(sys.argv[1])
        print("read")
    except CSVLoadError as exc:
        print("refused:", exc)
    hwm = re.search(r"VmHWM:\\s+(\\d+) kB", open("/proc/self/status").read()).group(1)
    print(time.perf_counter() - t, hwm)
""")


@pytest.mark.parametrize("kind", ["devzero", "200MB"])
def test_huge_inputs_refused_fast_and_small(tmp_path, kind):
    if kind == "devzero":
        src = "/dev/zero"
    else:
        src = tmp_path / "big.csv"
        with open(src, "wb") as fh:
            fh.write(b"a,b,label\n" + b"1.5,2.5,x\n" * 1000)
            fh.truncate(200 * 10**6)
    r = subprocess.run([sys.executable, "-c", _MEASURE, str(src)], capture_output=True, text=True,
                       timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)})
    msg, figures = r.stdout.strip().splitlines()
    seconds, rss_kb = figures.split()
    assert msg.startswith("refused:") and "50 MB" in msg
    assert float(seconds) < 2.0
    assert int(rss_kb) < 500 * 1024


def test_pipe_and_file_objects_are_read_under_the_budget(tmp_path):
    import io
    with pytest.raises(SVMCoreError, match="larger than"):
        read_bounded(io.BytesIO(b"x" * 2000), 1000)
    assert read_bounded(io.BytesIO(b"x" * 1000), 1000) == b"x" * 1000
    with pytest.raises(CSVLoadError, match="larger than 50 MB"):
        read_csv_table(io.BytesIO(b"a" * (MAX_CSV_BYTES + 1)))


def test_column_and_row_caps():
    wide = ",".join(f"c{j}" for j in range(MAX_CSV_COLUMNS + 1)) + "\n"
    with pytest.raises(CSVLoadError, match="MAX_CSV_COLUMNS"):
        read_csv_table((wide + wide.replace("c", "")).encode())
    cols = 1000
    head = ",".join(f"c{j}" for j in range(cols)) + "\n"
    row = ",".join("1" for _ in range(cols)) + "\n"
    with pytest.raises(CSVLoadError, match="MAX_CSV_CELLS"):
        read_csv_table((head + row * 2001).encode())


# ------------------------------------------------------------------ fuzzing the loader
_TOKENS = ["1", "-2.5", "1e308", "1e999", "nan", "NA", "?", "", " ", "inf", "a", "b", "é", "\"",
           "\"q,uoted\"", "\"un", "x" * 200_000, "\x00", "\t", ";", "\r\n", "\n", "0x1F", "1_000",
           "#N/A", "None", "∞", "\ufeff"]


@st.composite
def csv_bytes(draw):
    sep = draw(st.sampled_from([",", ";", "\t", "|"]))
    ncol = draw(st.integers(1, 5))
    header = draw(st.lists(st.sampled_from(["x", "y", "label", "", "x", "p"]), min_size=ncol,
                           max_size=ncol))
    rows = draw(st.lists(st.lists(st.sampled_from(_TOKENS), min_size=0, max_size=ncol + 1),
                         min_size=0, max_size=25))
    text = sep.join(header) + "\n" + "".join(sep.join(r) + "\n" for r in rows)
    enc = draw(st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "latin-1", "cp1252"]))
    data = text.encode(enc, errors="replace")
    if draw(st.booleans()):
        data += draw(st.binary(max_size=64))
    return data


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=csv_bytes())
def test_fuzzed_csv_gives_a_dataset_or_one_error(data):
    t = time.perf_counter()
    try:
        out = load_csv(data, label="label")
    except CSVLoadError as exc:
        assert str(exc) and "\n" not in str(exc)
    else:
        assert isinstance(out, Dataset)
    assert time.perf_counter() - t < 2.0


def test_fuzz_token_list_is_valid_text():
    for tok in _TOKENS:
        codecs.encode(tok, "utf-8")
