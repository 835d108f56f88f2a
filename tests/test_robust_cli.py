"""Issue 19 at the command line, in process (``main([...])``): nothing lost, nothing
half-written, outputs checked before any work, caps and messages that name the problem."""
from __future__ import annotations

import io
import time

import numpy as np
import pytest

from svmcore import study as study_mod
from svmcore.cli import main
from svmcore.limits import MAX_REPLICATES, MIN_TRAIN_ROWS_PER_CLASS
from svmcore.spec import make_spec
from svmcore.timing import confirm_long_work, estimate_seconds
from svmcore._validation import SVMCoreError

GRID = ["--log2-nlambda=-4:0:2", "--log2-sigma=0:1:1"]


def _csv(path, n=40, d=2, classes=None, seed=0):
    rng = np.random.default_rng(seed)
    labels = classes if classes is not None else ["a" if i % 2 else "b" for i in range(n)]
    head = ",".join(f"x{j}" for j in range(d)) + ",label\n"
    rows = "".join(",".join(f"{v:.5f}" for v in rng.normal(size=d)) + f",{lab}\n"
                   for lab in labels)
    path.write_text(head + rows)
    return path


def run(capsys, *argv):
    code = main(list(map(str, argv)))
    out, err = capsys.readouterr()
    return code, out, err


def one_error(err):
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    return lines[0]


@pytest.fixture
def no_work(monkeypatch):
    """Fail the test if any study or data loading starts."""
    def boom(*a, **k):
        raise AssertionError("work started before the output was checked")
    monkeypatch.setattr(study_mod, "run_study", boom)
    monkeypatch.setattr("svmcore.study_cli.run_study", boom)
    monkeypatch.setattr("svmcore.datasets.load.load_run_data", boom)   # cosso, usvc


# ------------------------------------------------------------------ data loss
def test_sweep_out_naming_the_input_leaves_it_unchanged(tmp_path, capsys):
    mine = _csv(tmp_path / "mine.csv")
    before = mine.read_bytes()
    code, _, err = run(capsys, "sweep", "--data", mine, "--label", "label", *GRID, "--out", mine)
    assert code == 2 and "is the input file" in one_error(err)
    assert mine.read_bytes() == before
    code, _, err = run(capsys, "sweep", "--data", mine, "--label", "label", *GRID,
                       "--out", tmp_path / "." / "mine.csv")
    assert code == 2 and mine.read_bytes() == before


def test_runs_show_cannot_write_into_the_saved_run(tmp_path, capsys):
    from svmcore.store import list_runs, load_run, save_run
    import pandas as pd

    spec = make_spec("svm", data={"source": "simulation", "name": "wahba2d", "n": 30},
                     log2_nlambda="0", log2_sigma="0")
    folder = save_run(tmp_path / "runs", "sweep", spec, pd.DataFrame({"a": [1.0, 2.0]}))
    files = {p.name: p.read_bytes() for p in folder.iterdir()}
    for target in ("spec.json", "table.parquet", "new.csv"):
        code, _, err = run(capsys, "runs", "show", folder, "--out", folder / target)
        assert code == 2 and "inside the saved run" in one_error(err)
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == files
    load_run(folder)
    assert len(list_runs(tmp_path / "runs")) == 1
    code, out, _ = run(capsys, "runs", "show", folder, "--out", tmp_path / "t.csv")
    assert code == 0 and (tmp_path / "t.csv").read_text().startswith("a\n")


# ------------------------------------------------------------------ checked before any work
@pytest.mark.parametrize("case", ["study-out", "study-save", "cosso-out", "usvc-out", "study-out-dir"])
def test_outputs_checked_before_any_work(tmp_path, capsys, no_work, case):
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    study = ["study", "--dataset", "wahba2d", "--n", "40", "--replicates", "2", *GRID]
    argv = {"study-out": [*study, "--out", tmp_path / "nosuchdir" / "s.csv"],
            "study-out-dir": [*study, "--out", tmp_path],
            "study-save": [*study, "--out", tmp_path / "s.csv", "--save", a_file],
            "cosso-out": ["cosso", "--dataset", "zhang_additive", "--n", "50",
                          "--out", tmp_path / "nosuchdir" / "c.json"],
            "usvc-out": ["usvc", "--dataset", "navia_a", "--n", "50", "--out", tmp_path]}[case]
    t = time.perf_counter()
    code, out, err = run(capsys, *argv)
    assert code == 2 and one_error(err)
    assert time.perf_counter() - t < 5
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file.txt"]   # nothing written


# ------------------------------------------------------------------ caps
def test_huge_inputs_refused_by_every_command(tmp_path, capsys):
    big = tmp_path / "big.csv"
    with open(big, "wb") as fh:
        fh.write(b"a,b,label\n1,2,x\n")
        fh.truncate(200 * 10**6)
    cmds = [["sweep", "--data", "/dev/zero", "--label", "label", *GRID, "--out", tmp_path / "o.csv"],
            ["usvc", "--data", big, "--label", "label"],
            ["cosso", "--data", big, "--label", "label", "--out", tmp_path / "c.json"]]
    for argv in cmds:
        t = time.perf_counter()
        code, _, err = run(capsys, *argv)
        assert code == 2 and "50 MB" in one_error(err)
        assert time.perf_counter() - t < 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.csv"]


def test_replicates_capped(tmp_path, capsys):
    code, _, err = run(capsys, "study", "--dataset", "wahba2d", "--n", "40", "--replicates", "100000",
                       *GRID, "--out", tmp_path / "s.csv")
    assert code == 2 and f"between 1 and {MAX_REPLICATES}" in one_error(err)


def test_cosso_interactions_capped(tmp_path, capsys):
    wide = _csv(tmp_path / "wide.csv", n=60, d=40)
    code, _, err = run(capsys, "cosso", "--data", wide, "--label", "label", "--interactions",
                       "--out", tmp_path / "c.json")
    assert code == 2 and "MAX_COSSO_COMPONENTS" in one_error(err)


# ------------------------------------------------------------------ silent nonsense, misleading messages
def test_usvc_test_fraction_leaving_too_few_rows_is_refused(tmp_path, capsys):
    code, _, err = run(capsys, "usvc", "--dataset", "heart", "--test-fraction", "0.99")
    assert code == 2 and "test_fraction must be in [0, 0.5)" in one_error(err)   # the table's range
    small = tmp_path / "small.csv"                   # 12 rows, 6 per class: 0.45 leaves 3 per class
    small.write_text("a,b,label\n" + "".join(f"{i},{(i * 7) % 5},{'x' if i % 2 else 'y'}\n" for i in range(12)))
    code, _, err = run(capsys, "usvc", "--data", small, "--label", "label", "--test-fraction", "0.45")
    assert code == 2 and f"at least {MIN_TRAIN_ROWS_PER_CLASS} training" in one_error(err)


def test_study_unknown_dataset_names_the_choices(tmp_path, capsys):
    code, _, err = run(capsys, "study", "--dataset", "nosuch", "--replicates", "2", *GRID,
                       "--out", tmp_path / "s.csv")
    msg = one_error(err)
    assert code == 2 and "unknown data set 'nosuch'" in msg and "wahba2d" in msg


def test_csv_over_the_row_cap_names_the_sweeps_cap(tmp_path, capsys):
    big = _csv(tmp_path / "rows.csv", n=10_500)
    code, _, err = run(capsys, "sweep", "--data", big, "--label", "label", *GRID,
                       "--out", tmp_path / "o.csv")
    msg = one_error(err)
    assert code == 2 and "MAX_ROWS" in msg and "10500" in msg and "10000" in msg and "criteria" not in msg


@pytest.mark.parametrize("jobs", [[], ["--jobs", "1"], ["--jobs", "2"]])
def test_the_sweeps_note_gives_the_wall_time_of_the_processes_it_runs_on(tmp_path, capsys,
                                                                          monkeypatch, jobs):
    """The sweep asks ``timing.wall_seconds`` with its ``--jobs`` (0 when not given), which
    shares the one-process estimate among the workers; checked before any work."""
    from svmcore import timing

    monkeypatch.setattr("os.cpu_count", lambda: 2)
    seen = []

    def stop(seconds, yes, stdin=None, stderr=None):
        seen.append(seconds)
        raise SVMCoreError("stopped here")

    monkeypatch.setattr("svmcore.cli.confirm_long_work", stop)
    argv = ["sweep", "--model", "logistic", "--dataset", "wahba2d", "--n", "3000",
            "--log2-nlambda=-20:5:1", "--log2-sigma=-3:3:0.5", "--out", tmp_path / "o.csv", *jobs]
    code, _, err = run(capsys, *argv)
    assert code == 2 and "stopped here" in one_error(err) and not (tmp_path / "o.csv").exists()
    spec = make_spec("logistic", data={"source": "simulation", "name": "wahba2d", "n": 3000},
                     log2_nlambda="-20:5:1", log2_sigma="-3:3:0.5")
    n_jobs = int(jobs[1]) if jobs else 0
    assert seen == [pytest.approx(timing.wall_seconds(spec, 3000, n_jobs))]
    one = estimate_seconds(spec, 3000)
    assert seen[0] == pytest.approx(one) if n_jobs == 1 else seen[0] < 0.6 * one


def test_one_row_class_with_test_fraction(tmp_path, capsys):
    data = _csv(tmp_path / "one.csv", classes=["a"] + ["b"] * 39)
    code, _, err = run(capsys, "sweep", "--data", data, "--label", "label", "--test-fraction", "0.3",
                       *GRID, "--out", tmp_path / "o.csv")
    msg = one_error(err)
    assert code == 2 and "negative dimensions" not in msg and "per class" in msg


@pytest.mark.parametrize("model, n, criteria", [("svm", 1000, ["gacv", "loo"]),
                                                 ("logistic", 5000, [])])   # the soft family's defaults
def test_long_work_is_announced_and_needs_yes_on_a_terminal(model, n, criteria):
    spec = make_spec(model, data={"source": "simulation", "name": "wahba2d", "n": n},
                     log2_nlambda="-20:5:1", log2_sigma="-3:3:0.5", criteria=criteria)
    est = estimate_seconds(spec, n)
    assert est is not None and est > 60

    class Tty(io.StringIO):
        def isatty(self):
            return True

    err = io.StringIO()
    with pytest.raises(SVMCoreError, match="give --yes"):
        confirm_long_work(est, False, stdin=Tty(), stderr=err)
    assert "estimated" in err.getvalue()
    err = io.StringIO()
    confirm_long_work(est, False, stdin=io.StringIO(), stderr=err)     # a script runs on
    assert "note: this work is estimated" in err.getvalue()
    confirm_long_work(est, True, stdin=Tty(), stderr=io.StringIO())    # --yes
    confirm_long_work(5.0, False, stdin=Tty(), stderr=err)             # short work: no question
