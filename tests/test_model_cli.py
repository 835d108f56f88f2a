"""`svmcore tune` and `svmcore predict` (svmcore/model_cli.py): the saved model predicts what the
estimator predicts; output paths are checked before any work and written atomically."""
from __future__ import annotations

import json
import os

import numpy as np
import pandas as pd
import pytest

from svmcore import TunedSVC
from svmcore.cli import main


@pytest.fixture()
def csvs(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2)) * [3.0, 1.0] + [10.0, 0.0]
    lab = np.where(X[:, 0] - 10 + X[:, 1] + 0.5 * rng.normal(size=60) > 0, "M", "B")
    pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "dx": lab}).to_csv(tmp_path / "train.csv", index=False)
    new = pd.DataFrame({"a": rng.normal(10, 3, 15), "b": rng.normal(0, 1, 15)})
    new.to_csv(tmp_path / "new.csv", index=False)
    return tmp_path, X, lab, new


def test_tune_then_predict_equals_the_estimator_on_standardized_data(csvs):
    d, X, lab, new = csvs
    model = d / "model.json"
    assert main(["tune", "--data", str(d / "train.csv"), "--label", "dx", "--positive", "M",
                 "--criterion", "xa", "--log2-nlambda=-6:3:1", "--log2-sigma=-1:1:0.5",
                 "--cost-b", "2", "--out", str(model)]) == 0
    saved = json.loads(model.read_text())
    assert saved["format"] == "svmcore-model" and saved["classes"]["+1"] == "M"
    assert main(["predict", "--model", str(model), "--data", str(d / "new.csv"),
                 "--out", str(d / "pred.csv")]) == 0
    pred = pd.read_csv(d / "pred.csv")
    center, scale = X.mean(axis=0), X.std(axis=0)
    ref = TunedSVC(criterion="xa", log2_nlambda="-6:3:1", log2_sigma="-1:1:0.5", cost_b=2.0).fit(
        (X - center) / scale, np.where(lab == "M", 1, -1))
    assert saved["estimator"]["state"]["best_params_"] == ref.best_params_
    f = ref.decision_function((new.to_numpy() - center) / scale)
    np.testing.assert_allclose(pred["decision"], f, atol=1e-9)
    assert list(pred["predicted"]) == list(np.where(f > 0, "M", "B"))
    assert not [p for p in os.listdir(d) if p.startswith(".svmcore-")]     # no temporary left


@pytest.mark.parametrize("out,msg", [(".", "is a folder"), ("nope/x.json", "does not exist"),
                                     ("train.csv", "is the input file")])
def test_tune_checks_the_output_path_before_any_work(csvs, capsys, out, msg, monkeypatch):
    d = csvs[0]
    monkeypatch.chdir(d)
    before = (d / "train.csv").read_bytes()
    rc = main(["tune", "--data", "train.csv", "--label", "dx", "--log2-nlambda=-2:0:1",
               "--log2-sigma=0", "--out", out])
    assert rc == 2 and msg in capsys.readouterr().err
    assert (d / "train.csv").read_bytes() == before


def test_predict_refuses_to_overwrite_its_inputs_and_names_bad_values(csvs, capsys):
    d = csvs[0]
    model = d / "m.json"
    assert main(["tune", "--data", str(d / "train.csv"), "--label", "dx", "--log2-nlambda=-2:0:1",
                 "--log2-sigma=0", "--out", str(model)]) == 0
    assert main(["predict", "--model", str(model), "--data", str(d / "new.csv"),
                 "--out", str(model)]) == 2
    assert "is the input file" in capsys.readouterr().err
    pd.DataFrame({"a": [1.0, "x"], "b": [0.0, 1.0]}).to_csv(d / "bad.csv", index=False)
    assert main(["predict", "--model", str(model), "--data", str(d / "bad.csv"),
                 "--out", str(d / "p.csv")]) == 2
    assert "row 2, column 'a'" in capsys.readouterr().err
    assert main(["tune", "--dataset", "heart", "--criterion", "gckl", "--out", str(d / "z.json")]) == 2
    assert "criterion must be one of" in capsys.readouterr().err


def test_fit_with_a_criterion_picks_and_saves_like_tune(tmp_path, capsys):
    """`svmcore fit … --criterion gacv --out model.json` (the issue's spelling) writes the same
    model as `svmcore tune`, and predict applies it."""
    import json as _json

    from svmcore.cli import main

    args = ["--dataset", "wahba2d", "--n", "60", "--log2-nlambda=-6:2:2", "--log2-sigma=-1:1:1",
            "--cost-b", "2", "--criterion", "gacv"]
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    assert main(["fit", *args, "--out", str(a)]) == 0
    assert main(["tune", *args, "--out", str(b)]) == 0
    da, db = _json.loads(a.read_text()), _json.loads(b.read_text())
    assert da["estimator"] == db["estimator"] and da["card"] == db["card"]
    assert main(["fit", *args]) == 2
    assert "give --out model.json" in capsys.readouterr().err
