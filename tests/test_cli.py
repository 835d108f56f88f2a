"""The command line: the columns and numbers it writes, and its error messages."""
import io
import json
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from svmcore.datasets.simulations import make_wahba2d
from svmcore.families.svm.fit import fit_svm
from svmcore.kernels import Kernel
from svmcore.weights import class_weights_from_costs

ROOT = Path(__file__).resolve().parents[1]


def run(*args):
    """``svmcore ARGS`` in this process (a subprocess adds only start-up time here; the genuine
    subprocess tests are in test_signals.py)."""
    from svmcore.cli import main

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in args])
    return SimpleNamespace(returncode=code, stdout=out.getvalue(), stderr=err.getvalue())


def test_sweep_columns_and_values(tmp_path):
    out = tmp_path / "r.csv"
    r = run("sweep", "--dataset", "wahba2d", "--n", "40", "--seed", "2", "--log2-nlambda=-4:0:2",
            "--log2-sigma=0:1:1", "--cost-a", "1", "--cost-b", "2", "--prior-a", "0.1",
            "--criteria", "gacv,brxa,brmisclass,cv", "--solver", "cvxopt", "--out", str(out))
    assert r.returncode == 0, r.stderr
    t = pd.read_csv(out)
    assert list(t.columns[:10]) == ["log2_sigma", "log2_nlambda", "sigma", "lambda", "n_sv",
                                    "train_error", "gacv", "brxa", "brmisclass", "cv_hinge"]
    assert "cv_error" in t.columns and len(t) == 6
    d = make_wahba2d(40, seed=2)
    w = class_weights_from_costs(d.y, 1, 2, 0.1)
    row = t.iloc[0]
    fit = fit_svm(d.X, d.y, row["lambda"], Kernel("gaussian", sigma=row.sigma), w, "libsvm")
    from svmcore.families.svm.criteria import gacv
    assert row.gacv == pytest.approx(gacv(fit), rel=1e-6)


def test_fit_json(tmp_path):
    out = tmp_path / "f.json"
    r = run("fit", "--dataset", "wahba2d", "--n", "30", "--log2-nlambda=-3", "--log2-sigma=0.5",
            "--solver", "cvxopt", "--out", str(out))
    assert r.returncode == 0, r.stderr
    j = json.loads(out.read_text())
    d = make_wahba2d(30)
    fit = fit_svm(d.X, d.y, 2 ** -3 / 30, Kernel("gaussian", sigma=2 ** 0.5), solver="libsvm")
    np.testing.assert_allclose(j["alpha"], fit.alpha, atol=1e-7)
    np.testing.assert_allclose(j["f"], fit.f, atol=1e-7)
    assert j["lambda"] == pytest.approx(2 ** -3 / 30) and j["b"] == pytest.approx(fit.b, abs=1e-7)
    assert set(j["criteria"]) >= {"obs", "gacv", "xa", "brxa", "sure", "gckl", "misclass"}


@pytest.mark.parametrize("args, needle", [
    (["sweep", "--dataset", "nosuch", "--log2-nlambda=0", "--log2-sigma=0", "--out", "x.csv"],
     "unknown data set"),
    (["sweep", "--dataset", "sonar", "--criteria", "gckl", "--log2-nlambda=0", "--log2-sigma=0",
      "--out", "x.csv"], "P(A|x)"),
    (["sweep", "--dataset", "wahba2d", "--log2-nlambda=0:-1:1", "--log2-sigma=0", "--out", "x.csv"],
     "STOP"),
    (["sweep", "--dataset", "wahba2d", "--prior-a", "1.5", "--log2-nlambda=0", "--log2-sigma=0",
      "--out", "x.csv"], "prior_a"),
    (["sweep", "--dataset", "wahba2d", "--criteria", "gacv,bogus", "--log2-nlambda=0",
      "--log2-sigma=0", "--out", "x.csv"], "bogus"),
    (["sweep", "--data", "/nonexistent.csv", "--label", "y", "--log2-nlambda=0", "--log2-sigma=0",
      "--out", "x.csv"], "nonexistent"),
])
def test_errors_are_one_line_without_traceback(args, needle):
    r = run(*args)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr and needle in r.stderr, r.stderr


def test_datasets_lists_both_kinds():
    r = run("datasets")
    assert r.returncode == 0 and "wahba2d" in r.stdout and "sonar" in r.stdout
