"""Hostile and clumsy input: one ``error:`` line and exit code 2, quickly, never a traceback;
the same validator (``svmcore.spec``) behind the CLI and the app's links."""
import io
import time
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from svmcore._validation import SVMCoreError
from svmcore.cli import main
from svmcore.spec import MAX_GRID_POINTS, GridSpec, make_spec
from svmapp import settings as S

ROOT = Path(__file__).resolve().parents[1]
BASE = ["sweep", "--dataset", "wahba2d", "--n", "30", "--out"]


def cli(*args):
    """``svmcore ARGS`` in this process: (result, seconds)."""
    t0 = time.perf_counter()
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in args])
    r = SimpleNamespace(returncode=code, stdout=out.getvalue(), stderr=err.getvalue())
    return r, time.perf_counter() - t0


@pytest.mark.parametrize("extra, needle", [
    (["--log2-nlambda=nan", "--log2-sigma=0"], "finite"),
    (["--log2-nlambda=inf", "--log2-sigma=0"], "finite"),
    (["--log2-nlambda=0:1:inf", "--log2-sigma=0"], "finite"),
    (["--log2-nlambda=0:nan:1", "--log2-sigma=0"], "finite"),
    (["--log2-nlambda=-inf:0:1", "--log2-sigma=0"], "finite"),
    (["--log2-nlambda=2000", "--log2-sigma=0"], "[-40, 20]"),
    (["--log2-nlambda=-2000", "--log2-sigma=0"], "[-40, 20]"),
    (["--log2-nlambda=0", "--log2-sigma=1100"], "[-10, 10]"),
    (["--log2-nlambda=0", "--log2-sigma=0", "--seed", "-1"], "seed"),
    (["--log2-nlambda=-10:0:0.005", "--log2-sigma=-10:0:0.005"], f"at most {MAX_GRID_POINTS}"),
    (["--log2-nlambda=-10:0:0.001", "--log2-sigma=0"], "at most 2001"),
    (["--log2-nlambda=0", "--log2-sigma=0", "--xa-rho", "-3"], "xa_rho"),
    (["--log2-nlambda=0", "--log2-sigma=0", "--xa-rho", "nan"], "xa_rho"),
    (["--log2-nlambda=0", "--log2-sigma=0", "--criteria", ",,,"], "empty"),
    (["--log2-nlambda=0:1e-12:1e-13", "--log2-sigma=0"], "STEP"),
    (["--log2-nlambda=0", "--log2-sigma=0", "--n", "abc"], "--n: n must be a number"),
    (["--log2-nlambda=0", "--log2-sigma=0", "--cost-a", "0"], "cost_a"),
])
def test_bad_sweep_arguments(tmp_path, extra, needle):
    r, secs = cli(*BASE, str(tmp_path / "r.csv"), *extra)
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and needle in lines[0], r.stderr
    assert secs < 20 and not (tmp_path / "r.csv").exists()


def test_huge_n_is_refused_before_generating(tmp_path):
    r, secs = cli("sweep", "--dataset", "wahba2d", "--n", "100000000", "--log2-nlambda=0",
                  "--log2-sigma=0", "--out", str(tmp_path / "r.csv"))
    assert r.returncode == 2 and "--n: n must be in [10, 10000]" in r.stderr and secs < 20


@pytest.mark.parametrize("args, needle", [
    (["fit", "--dataset", "wahba2d", "--log2-nlambda=1100", "--log2-sigma=0"], "[-40, 20]"),
    (["fit", "--dataset", "wahba2d", "--log2-nlambda=0", "--log2-sigma=2000"], "[-10, 10]"),
    (["fit", "--dataset", "wahba2d", "--log2-nlambda=0:1:1", "--log2-sigma=0"], "one value"),
])
def test_bad_fit_arguments(args, needle):
    r, _ = cli(*args)
    assert r.returncode == 2 and r.stderr.startswith("error:") and needle in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


def test_unwritable_output_is_checked_before_any_work(tmp_path, capsys):
    t0 = time.perf_counter()
    code = main(["sweep", "--dataset", "wahba2d", "--log2-nlambda=-25:8:0.05", "--log2-sigma=-3:3:0.5",
                 "--out", str(tmp_path / "no" / "such" / "r.csv")])
    assert code == 2 and time.perf_counter() - t0 < 5
    assert "does not exist" in capsys.readouterr().err
    assert main(["sweep", "--dataset", "wahba2d", "--log2-nlambda=0", "--log2-sigma=0",
                 "--out", str(tmp_path)]) == 2


def test_internal_failure_exit_1_names_the_step(tmp_path, monkeypatch, capsys):
    import svmcore.grid as G

    def broken(*a, **k):
        raise RuntimeError("boom")

    monkeypatch.setattr(G, "run_grid", broken)
    args = ["sweep", "--dataset", "wahba2d", "--n", "30", "--log2-nlambda=0", "--log2-sigma=0",
            "--out", str(tmp_path / "r.csv")]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert err.strip() == "error: the sweep failed: RuntimeError: boom"
    assert main(args + ["--debug"]) == 1
    assert "Traceback" in capsys.readouterr().err


def test_worker_count_is_clamped():
    from svmcore.spec import clamp_jobs
    import os
    cores = os.cpu_count() or 1
    assert clamp_jobs(100, 3) == min(3, cores)
    assert clamp_jobs(0, 50) == cores and clamp_jobs(-5, 1) == 1


text = st.one_of(st.text(max_size=30), st.floats(allow_nan=True, allow_infinity=True).map(str),
                 st.tuples(st.floats(), st.floats(), st.floats()).map(lambda t: ":".join(map(str, t))))


@settings(max_examples=300, deadline=None)
@given(lam=text, sig=text)
def test_grid_parser_gives_a_clear_error_or_a_valid_grid(lam, sig):
    try:
        g = GridSpec.parse(lam, sig)
    except SVMCoreError as exc:
        assert str(exc)
        return
    assert 1 <= g.size <= MAX_GRID_POINTS
    for ax, (lo, hi) in ((g.log2_nlambda, (-40, 20)), (g.log2_sigma, (-10, 10))):
        v = ax.values()
        assert len(v) == ax.count and (v >= lo).all() and (v <= hi).all()
        assert len(set(v.tolist())) == len(v)          # no duplicate grid values


qp_value = st.one_of(st.text(max_size=20), st.integers(-10**12, 10**12).map(str),
                     st.floats(allow_nan=True, allow_infinity=True).map(str))


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(["n", "seed", "lam", "sig", "cost_a", "cost_b", "prior_a",
                                        "rho", "folds", "criteria", "source", "dataset",
                                        "test_frac", "n_max", "solver", "extend", "bogus",
                                        "log2_nlambda", "kernel", "xa_rho", "show", "sel", "ncols"]),
                       qp_value, max_size=8))
def test_url_to_spec_gives_defaults_or_a_valid_spec(params):
    s, _, notes = S.read_link(params)
    assert all(isinstance(n, str) and n for n in notes)
    if s is None:
        return
    spec = S.spec_for(s)            # a link that passes is a valid RunSpec, never an exception
    assert spec.grid.size <= MAX_GRID_POINTS and (spec.data.n is None or 10 <= spec.data.n <= 10_000)


def test_spec_rejects_unknown_model_and_option():
    with pytest.raises(SVMCoreError, match="unknown model"):
        make_spec("nosuch")
    with pytest.raises(SVMCoreError, match="has no parameter 'rangacv_reps'"):
        make_spec("svm", options={"rangacv_reps": 3})


@pytest.mark.parametrize("args, needle", [
    (["cosso", "--dataset", "zhang_additive", "--n", "100000000", "--out", "c.json"], "n must be in [10, 10000]"),
    (["usvc", "--dataset", "navia_a", "--n", "100000000"], "n must be in [10, 10000]"),
    (["usvc", "--dataset", "navia_a", "--test-n", "1000000000"], "test_n must be in [0, 200000]"),
    (["cosso", "--dataset", "zhang_additive", "--seed", "-1", "--out", "c.json"], "seed"),
    (["usvc", "--dataset", "heart", "--test-fraction", "1.5"], "test_fraction"),
    (["usvc", "--dataset", "navia_a", "--data", "x.csv"], "not both"),
])
def test_one_shot_commands_check_sizes_before_making_data(tmp_path, args, needle):
    args = [str(tmp_path / a) if a.endswith(".json") else a for a in args]
    r, secs = cli(*args)
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and needle in lines[0], r.stderr
    assert secs < 20
