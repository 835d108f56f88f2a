"""Command line for tuned models: ``svmcore tune`` (pick and save) and ``svmcore predict``.

``svmcore tune`` is what issue 20 calls ``svmcore fit … --criterion gacv --out model.json``: it
sweeps the grid (``--log2-nlambda`` and ``--log2-sigma`` are ranges START:STOP:STEP), picks by
``--criterion``, refits there and saves the model as JSON (the estimator's ``to_json`` plus the
standardization of the features and the class names). ``svmcore predict`` applies a saved model
to a CSV file. Output files are written atomically (a temporary file in the same folder, then
``os.replace``) after the output path is checked, before any work. ``add_subcommand(subparsers)``
and ``run(args)`` follow ``svmcore/study_cli.py``. See ``docs/estimators.md``.
"""
from __future__ import annotations

import json
import os
import sys
import tempfile

import numpy as np

from ._validation import SVMCoreError

MODEL_FORMAT, MODEL_VERSION = "svmcore-model", 1
ESTIMATORS = {"svm": "TunedSVC", "logistic": "TunedKernelLogistic"}


def add_subcommand(subparsers) -> None:
    """Add ``tune`` and ``predict`` to an ``argparse`` subparsers object; ``tune``'s data, grid,
    kernel and model options are generated from the parameter tables of the families that have
    an estimator."""
    from .cli import add_spec_options
    from .families import get_family

    tu = subparsers.add_parser("tune", help="sweep, pick by a criterion, refit and save the model as "
                                            "JSON (the issue's `fit --criterion`)")
    add_spec_options(tu, [get_family(m) for m in ESTIMATORS])
    tu.add_argument("--criterion", default="gacv",
                    help="the criterion that picks (λ, σ): svm: gacv, xa, brxa, sure, obs, cv, loo; "
                         "logistic: gacv, rangacv, cv (default gacv)")
    tu.add_argument("--out", required=True, metavar="model.json")
    pr = subparsers.add_parser("predict", help="apply a model saved by `svmcore tune` to a CSV file")
    pr.add_argument("--model", required=True, metavar="model.json")
    pr.add_argument("--data", required=True, metavar="new.csv")
    pr.add_argument("--out", required=True, metavar="predictions.csv")


#: tune's defaults where they differ from the tables': a wide λ range that grows
TUNE_DEFAULTS = {"log2_nlambda": "-20:6:1", "extend_grid": True}


def run(args) -> int:
    """Run ``tune`` or ``predict``. Bad input raises ``SVMCoreError`` (exit code 2 from the main
    entry point); an internal failure prints one ``error:`` line (the traceback with ``--debug``)
    and returns 1."""
    cmd = cmd_tune if args.command == "tune" else cmd_predict
    try:
        return cmd(args)
    except (SVMCoreError, KeyboardInterrupt):
        raise
    except ValueError as exc:          # the estimators' checks of settings and data
        raise SVMCoreError(str(exc)) from exc
    except Exception as exc:
        if getattr(args, "debug", False):
            import traceback
            traceback.print_exception(exc)
        print(f"error: {args.command} failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1


# ------------------------------------------------------------------ output files
def check_output(path: str, inputs=()) -> None:
    """Fail before any work: ``path`` must not be a folder, its folder must exist and be writable,
    and it must not be one of the ``inputs``."""
    if os.path.isdir(path):
        raise SVMCoreError(f"--out {path} is a folder; give a file name")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise SVMCoreError(f"--out {path}: the folder {parent} does not exist")
    if not os.access(parent, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise SVMCoreError(f"--out {path} is not writable")
    for src in inputs:
        if src and os.path.exists(src) and os.path.exists(path) and os.path.samefile(src, path) \
                or src and os.path.abspath(src) == os.path.abspath(path):
            raise SVMCoreError(f"--out {path} is the input file {src}; choose another name")


def write_atomic(path: str, text: str) -> None:
    """Write ``text`` to a temporary file in ``path``'s folder, then move it into place."""
    parent = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".svmcore-", suffix=".tmp", dir=parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


# ------------------------------------------------------------------ tune
def make_estimator(spec, criterion: str):
    """The estimator of ``svmcore tune``: the spec's grid, kernel and family parameters."""
    from . import estimators

    common = dict(criterion=criterion, log2_nlambda=spec.grid.log2_nlambda.text,
                  log2_sigma=spec.grid.log2_sigma.text, extend_grid=spec.extend_grid,
                  cv=spec.cv_folds, random_state=spec.cv_seed)
    if spec.model == "svm":
        return estimators.TunedSVC(kernel=spec.kernel, cost_a=spec.cost_a, cost_b=spec.cost_b,
                                   prior_a=spec.prior_a, xa_rho=spec.xa_rho, solver=spec.solver,
                                   **common)
    return estimators.TunedKernelLogistic(kernel=spec.kernel, **common)


def cmd_tune(args) -> int:
    from .cli import spec_from_args
    from .datasets.load import load_data

    spec = spec_from_args(args, TUNE_DEFAULTS)
    check_output(args.out, [spec.data.path])
    est = make_estimator(spec, args.criterion)
    est._spec(10)   # the settings are checked before any work
    train, _ = load_data(spec.data)
    est.fit(train.X, train.y)
    payload = {"format": MODEL_FORMAT, "version": MODEL_VERSION, "model": spec.model,
               "estimator": json.loads(est.to_json()),
               "features": list(train.feature_names),
               "center": None if train.center is None else np.asarray(train.center).tolist(),
               "scale": None if train.scale is None else np.asarray(train.scale).tolist(),
               "classes": {"+1": str(train.class_names[0]), "-1": str(train.class_names[1])},
               "card": est.model_card()}
    write_atomic(args.out, json.dumps(payload, indent=1, allow_nan=False))
    bp = est.best_params_
    gamma = f", γ = {bp['gamma']:.6g}" if "gamma" in bp else ""
    print(f"{args.criterion} picks log2(nλ) = {bp['log2_nlambda']:g}, log2 σ = {bp['log2_sigma']:g} "
          f"(C = {bp['C']:.6g}{gamma}) → {args.out}", file=sys.stderr)
    for note in est.notes_:
        print(f"note: {note}", file=sys.stderr)
    return 0


# ------------------------------------------------------------------ predict
def load_model(path: str):
    """(estimator, model dict) from a file written by ``svmcore tune``."""
    from . import estimators

    try:
        with open(path, encoding="utf-8") as fh:
            d = json.load(fh)
    except (OSError, ValueError) as exc:
        raise SVMCoreError(f"--model {path}: {exc}") from None
    if not isinstance(d, dict) or d.get("format") != MODEL_FORMAT:
        raise SVMCoreError(f"--model {path} is not a model written by `svmcore tune`")
    if d.get("version") != MODEL_VERSION:
        raise SVMCoreError(f"--model {path} has version {d.get('version')!r}; this svmcore reads "
                           f"{MODEL_VERSION}")
    cls = getattr(estimators, d["estimator"]["estimator"])
    return cls.from_json(d["estimator"]), d


def features_of(path: str, model: dict) -> tuple:
    """(table, X) of the model's feature columns of a CSV file, standardized as in training."""
    from .datasets.csvload import CSVLoadError, read_csv_table

    try:
        df = read_csv_table(path)
    except (CSVLoadError, OSError) as exc:
        raise SVMCoreError(f"--data {path}: {exc}") from None
    missing = [c for c in model["features"] if c not in df.columns]
    if missing:
        raise SVMCoreError(f"--data {path} lacks the model's feature columns {missing[:5]}")
    import pandas as pd

    X = df[model["features"]].apply(pd.to_numeric, errors="coerce").to_numpy(float)
    bad = ~np.isfinite(X)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise SVMCoreError(f"--data {path}: row {i + 1}, column {model['features'][j]!r} is not a number")
    if model.get("center") is not None:
        X = (X - np.asarray(model["center"])) / np.asarray(model["scale"])
    return df, X


def cmd_predict(args) -> int:
    check_output(args.out, [args.model, args.data])
    est, model = load_model(args.model)
    df, X = features_of(args.data, model)
    f = est.decision_function(X)
    out = df.copy()
    out["decision"] = f
    out["predicted"] = np.where(f > 0, model["classes"]["+1"], model["classes"]["-1"])
    if hasattr(est, "predict_proba"):
        out["probability_A"] = est.predict_proba(X)[:, 1]
    write_atomic(args.out, out.to_csv(index=False))
    print(f"{len(out)} predictions → {args.out}", file=sys.stderr)
    return 0
