"""The study and runs subcommands (svmcore.study_cli)."""
import argparse

import pandas as pd
import pytest

from svmcore._validation import SVMCoreError
from svmcore.spec import make_spec
from svmcore.study import NONSTANDARD, STANDARD, run_study
from svmcore.study_cli import add_subcommand, main, run

ARGS = ["study", "--dataset", "wahba2d", "--n", "40", "--replicates", "2", "--both-weightings",
        "--log2-nlambda=-6:0:2", "--log2-sigma=-1:1:1", "--criteria", "gacv,xa", "--jobs", "1", "--quiet"]


def _parse(argv):
    ap = argparse.ArgumentParser()
    add_subcommand(ap.add_subparsers(dest="command", required=True))
    return ap.parse_args(argv)


def test_study_csv_and_saved_run(tmp_path, capsys):
    out, runs = tmp_path / "s.csv", tmp_path / "runs"
    assert main(ARGS + ["--out", str(out), "--save", str(runs)]) == 0
    got = pd.read_csv(out)
    spec = make_spec("svm", data={"source": "simulation", "name": "wahba2d", "n": 40, "seed": 0},
                     log2_nlambda="-6:0:2", log2_sigma="-1:1:1", criteria="gacv,xa")
    want = run_study(spec, 2, (STANDARD, NONSTANDARD), n_jobs=1).table
    pd.testing.assert_frame_equal(got, want, check_exact=False, rtol=1e-15)
    err = capsys.readouterr().err
    assert "tasks/s" in err and "saved:" in err
    assert main(["runs", "list", str(runs)]) == 0
    listing = capsys.readouterr().out
    assert "study" in listing and "wahba2d" in listing
    path = next(runs.iterdir())
    assert main(["runs", "show", str(path), "--out", str(tmp_path / "t.csv")]) == 0
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "t.csv"), got)


@pytest.mark.parametrize("extra, msg", [
    (["--test-fraction", "0.3"], "simulation"),
    (["--cost-a", "1", "--cost-b", "1"], None),
])
def test_weightings_and_errors(extra, msg, tmp_path):
    argv = [a for a in ARGS if a != "--both-weightings"] + extra + ["--out", str(tmp_path / "x.csv")]
    if msg:
        with pytest.raises(SVMCoreError, match=msg):
            run(_parse(argv))
    else:
        assert run(_parse(argv)) == 0
        assert set(pd.read_csv(tmp_path / "x.csv")["case"]) == {"standard"}


def test_real_data_needs_test_fraction(tmp_path):
    argv = ["study", "--dataset", "sonar", "--replicates", "2", "--log2-nlambda=0", "--log2-sigma=0",
            "--out", str(tmp_path / "x.csv")]
    with pytest.raises(SVMCoreError, match="test-fraction"):
        run(_parse(argv))
