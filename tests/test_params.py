"""Tests generated from the parameter tables (issue: one declaration per parameter).

For every parameter of every family: a refused value gives one clear error in the spec and in the
CLI (scikit-learn's ``generate_invalid_param_val`` idea); spec → link → spec and spec → JSON → spec
round-trip (hypothesis). A dummy parameter and a dummy criterion added to a test family appear,
with no other edit, in ``--help``, the CLI, links, the cache key, the saved JSON and the sweep table.
"""
from __future__ import annotations

import json
from numbers import Integral, Real

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from svmcore import families
from svmcore._validation import SVMCoreError
from svmcore.cli import main
from svmcore.codec import decode_query, spec_from_values, spec_query, spec_values
from svmcore.families import all_families, get_family
from svmcore.families.base import Criterion, Output, check_family
from svmcore.families.svm.family import SVMFamily
from svmcore.params import Boolean, Interval, ListOf, OneOf, Options, Param, Text
from svmcore.spec import spec_from_dict, spec_params

FAMILY_PARAMS = [(f.name, p) for f in all_families() for p in f.params]
SPEC_PARAMS = [(f.name, p) for f in all_families() for p in spec_params(f)
               if p.name not in ("source", "data")]


def _command(model: str) -> list[str]:
    fam = get_family(model)
    return [model] if fam.single_run else ["sweep", "--model", model, "--out", "unused.csv"]


# ------------------------------------------------------------------ invalid values, generated
@pytest.mark.parametrize("model,param", FAMILY_PARAMS, ids=lambda x: getattr(x, "name", x))
def test_invalid_value_refused_by_the_spec(model, param):
    with pytest.raises(SVMCoreError, match=param.name):
        spec_from_values({"model": model, param.name: param.invalid_value()})


@pytest.mark.parametrize("model,param", [(m, p) for m, p in SPEC_PARAMS if p.flag],
                         ids=lambda x: getattr(x, "name", x))
def test_invalid_value_refused_by_the_cli(model, param, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code = main([*_command(model), param.flag, param.invalid_text()])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert len(err) == 1 and err[0].startswith("error: ") and param.flag in err[0], err
    assert not (tmp_path / "unused.csv").exists()


@pytest.mark.parametrize("model,param", [(m, p) for m, p in SPEC_PARAMS if p.key],
                         ids=lambda x: getattr(x, "name", x))
def test_invalid_value_in_a_link_is_named(model, param):
    values, problems = decode_query({"model": model, param.key: param.invalid_text()})
    assert param.name not in values
    assert len(problems) == 1 and repr(param.key) in problems[0]


def test_a_parameter_of_another_family_is_refused_by_name(capsys):
    assert main(["sweep", "--model", "logistic", "--cost-a", "2", "--out", "x.csv"]) == 2
    assert "--cost-a does not apply to model 'logistic'" in capsys.readouterr().err
    with pytest.raises(SVMCoreError, match="cost_a does not apply to model 'logistic'"):
        spec_from_values({"model": "logistic", "cost_a": 2.0})


def test_link_keys_unknown_aliased_and_in_range():
    values, problems = decode_query({"cost_a": "500", "lam": "-10:0:2", "bogus": "1"})
    assert values == {"cost_a": 500.0, "log2_nlambda": "-10:0:2"}   # used, not clamped
    assert problems == ["link key 'bogus' is not a setting of model 'svm'; it was ignored"]
    spec = spec_from_values(values)
    assert spec.cost_a == 500.0 and spec.grid.log2_nlambda.text == "-10:0:2"


# ------------------------------------------------------------------ round trips, generated
def _strategy(c):
    if isinstance(c, OneOf):
        return st.one_of(*[st.none() if o is None else _strategy(o) for o in c.options])
    if isinstance(c, Interval):
        lo = -1e6 if c.low is None else c.low
        hi = 1e6 if c.high is None else c.high
        if c.kind is Integral:
            return st.integers(int(np.ceil(lo)) + (c.closed in ("right", "neither")),
                               int(np.floor(hi)) - (c.closed in ("left", "neither")))
        return st.floats(lo, hi, exclude_min=c.closed in ("right", "neither"),
                         exclude_max=c.closed in ("left", "neither"), allow_nan=False)
    if isinstance(c, Options):
        return st.sampled_from(c.choices)
    if isinstance(c, Boolean):
        return st.booleans()
    if isinstance(c, ListOf):
        return st.lists(_strategy(c.item), max_size=4, unique=True).map(tuple)
    if isinstance(c, Text):
        return st.sampled_from(["a", "col_1", "x y"])
    raise TypeError(c)


def _values(model: str):
    fam = get_family(model)
    run = {p.name: p for p in spec_params(fam)}
    parts = {p.name: _strategy(p.constraint) for p in fam.params}
    parts["kernel"] = _strategy(run["kernel"].constraint)
    parts["criteria"] = _strategy(run["criteria"].constraint)
    parts["n"] = st.integers(10, 5000)
    parts["seed"] = st.integers(0, 2**32 - 1)
    parts["log2_nlambda"] = st.sampled_from(["-25:0:1", "-3", "-10:4:0.5"])
    parts["extend_grid"] = st.booleans()
    return st.fixed_dictionaries(parts).map(lambda d: {"model": model, "dataset": "wahba2d", **d})


@pytest.mark.parametrize("model", list(families.FAMILIES))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_spec_link_and_json_round_trip(model, data):
    values = data.draw(_values(model))
    if get_family(model).kernels[0] == "linear" or values.get("kernel") == "linear":
        values["log2_sigma"] = "0"
    spec = spec_from_values(values)
    decoded, problems = decode_query(spec_query(spec))
    assert problems == []
    assert spec_from_values(decoded) == spec
    assert spec_from_dict(json.loads(spec.to_json())) == spec
    assert spec_values(spec_from_values(spec_values(spec))) == spec_values(spec)


def test_a_parameter_a_family_ignores_is_not_in_its_key():
    soft = spec_from_values({"model": "logistic"})
    assert "cost_a" not in soft.to_json() and "cost_a" not in spec_query(soft)
    a = spec_from_values({"model": "svm", "cost_b": 2.0})
    assert a.key() != spec_from_values({"model": "svm"}).key()


def test_version_1_saved_spec_reads_with_its_values_moved():
    old = {"model": "svm", "data": {"source": "simulation", "name": "wahba2d", "n": 50},
           "grid": {"log2_nlambda": "-5:0:1", "log2_sigma": "0"}, "cost_a": 1.0, "cost_b": 2.0,
           "prior_a": 0.1, "criteria": ["gacv"], "xa_rho": 1.0, "cv_folds": 5, "cv_seed": 0,
           "solver": "auto", "extend_grid": False, "options": {}}
    spec = spec_from_dict(old)
    assert (spec.cost_b, spec.prior_a, spec.xa_rho, spec.kernel) == (2.0, 0.1, 1.0, "gaussian")


# ------------------------------------------------------------------ a dummy parameter and criterion
DUMMY_PARAM = Param("dummy_knob", Interval(Real, 0.0, 1.0), 0.5, "dummy knob", "a knob only tests use")


def _dummy_fraction(fit, ctx) -> float:
    return float(fit.n_sv) / fit.n


DUMMY_CRITERION = Criterion("dummy", "DUMMY", "DUMMY: the fraction of support vectors (a test entry)",
                            _dummy_fraction, outputs=(Output("dummy", "DUMMY", "#123456"),))


class DummyFamily(SVMFamily):
    name = "dummyfam"
    title = "test family"
    params = SVMFamily.params + (DUMMY_PARAM,)
    criteria = SVMFamily.criteria + (DUMMY_CRITERION,)


@pytest.fixture
def dummy_family(monkeypatch):
    fam = DummyFamily()
    check_family(fam)
    monkeypatch.setitem(families.FAMILIES, "dummyfam", "tests.test_params")
    monkeypatch.setitem(families._LOADED, "dummyfam", fam)
    return fam


def test_dummy_parameter_everywhere(dummy_family, capsys, tmp_path):
    with pytest.raises(SystemExit):
        main(["sweep", "--help"])
    assert "--dummy-knob" in capsys.readouterr().out
    spec = spec_from_values({"model": "dummyfam", "dummy_knob": 0.25, "n": 40,
                             "log2_nlambda": "-2:0:1", "log2_sigma": "0"})
    assert spec.dummy_knob == 0.25
    assert spec_query(spec)["dummy_knob"] == "0.25"
    assert spec.key() != spec.with_params(dummy_knob=0.75).key()
    assert json.loads(spec.to_json())["params"]["dummy_knob"] == 0.25
    from svmcore.datasets.simulations import make_wahba2d
    from svmcore.grid import run_grid
    from svmcore.store import load_run, save_run
    res = run_grid(spec, make_wahba2d(40, 0), n_jobs=1)
    path = save_run(str(tmp_path), "sweep", res.spec, res.table, {})
    assert load_run(path)[0].dummy_knob == 0.25
    code = main(["sweep", "--model", "dummyfam", "--dataset", "wahba2d", "--n", "40",
                 "--log2-nlambda=0", "--log2-sigma=0", "--dummy-knob", "2", "--out", "x.csv"])
    assert code == 2 and "--dummy-knob: dummy_knob must be in [0, 1], got 2.0" in capsys.readouterr().err


def test_dummy_criterion_everywhere(dummy_family, capsys, tmp_path):
    with pytest.raises(SystemExit):
        main(["sweep", "--help"])
    helptext = capsys.readouterr().out.split("\n  --criteria X", 1)[1].split("parameters (", 1)[0]
    assert "dummy" in helptext
    out = tmp_path / "r.csv"
    code = main(["sweep", "--model", "dummyfam", "--dataset", "wahba2d", "--n", "60", "--quiet",
                 "--log2-nlambda=-4:0:2", "--log2-sigma=-1:1:1", "--criteria", "gacv,dummy",
                 "--out", str(out)])
    assert code == 0
    import pandas as pd
    table = pd.read_csv(out)
    # an independent computation: the support-vector count the table reports, over n
    np.testing.assert_allclose(table["dummy"], table["n_sv"] / 60, rtol=0, atol=1e-15)
    assert dummy_family.outputs()["dummy"].label == "DUMMY"
    assert "DUMMY: the fraction of support vectors" in dummy_family.criterion("dummy").help


def test_dummy_criterion_in_a_panel_and_on_the_criteria_page(dummy_family, monkeypatch):
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    from svmcore.datasets.simulations import make_wahba2d
    from svmcore.grid import run_grid
    from svmcore.viz import plots

    spec = spec_from_values({"model": "dummyfam", "n": 50, "log2_nlambda": "-4:0:2",
                             "log2_sigma": "-1:1:1", "criteria": ("gacv", "dummy")})
    res = run_grid(spec, make_wahba2d(50, 0), n_jobs=1)
    fig = plots.criterion_contour(res, "dummy")
    assert "DUMMY" in fig.layout.title.text
    z = np.asarray(fig.data[0].z, float)
    lam, sig, Z = res.surface("dummy")
    # the panel draws the table's values, its colour scale clipped at the top for contrast
    np.testing.assert_allclose(np.sort(z.ravel()), np.sort(np.minimum(Z, np.nanmax(z)).ravel()), rtol=1e-6)
    assert plots.color_of("DUMMY") == "#123456"
    svm = get_family("svm")
    monkeypatch.setattr(svm, "criteria", svm.criteria + (DUMMY_CRITERION,))
    page = Path(__file__).resolve().parents[1] / "app_pages" / "criteria.py"
    at = AppTest.from_file(str(page), default_timeout=60).run()
    assert not at.exception
    assert any("DUMMY: the fraction of support vectors" in m.value for m in at.markdown)
