"""Command line: ``svmcore datasets | sweep | fit`` and the families' own subcommands.

Every command builds one ``RunSpec`` (``svmcore.spec``) from its arguments, so the CLI, the app
and the URL share one validator. Bad input: one ``error:`` line and exit code 2. An internal
failure: one line naming the failing step and exit code 1 (the traceback only with ``--debug``).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import traceback
from importlib import import_module

from ._validation import SVMCoreError
from .families import FAMILIES
from .safeio import check_output, write_csv, write_text
from .timing import confirm_long_work, estimate_seconds

#: modules that add whole subcommands (``add_subcommand(subparsers)`` and ``run(args)``)
SUBCOMMAND_MODULES: tuple[str, ...] = (
    "svmcore.families.cosso.cli",
    "svmcore.families.usvc.cli",
    "svmcore.study_cli",
)


class _Parser(argparse.ArgumentParser):
    """argparse with a one-line ``error:`` (exit code 2) instead of the usage block."""

    def error(self, message):
        raise SVMCoreError(message)


def add_source_options(p: argparse.ArgumentParser, seed_help: str = "seed of a simulation (default 0)"):
    """The data-source options every command shares: --dataset, --n, --seed, --data, --label,
    --positive (in one argument group, which is returned)."""
    g = p.add_argument_group("data (a built-in set, or a CSV file)")
    g.add_argument("--dataset", help="simulation or bundled data set (see `svmcore datasets`)")
    g.add_argument("--n", type=int, help="sample size of a simulation")
    g.add_argument("--seed", type=int, default=0, help=seed_help)
    g.add_argument("--data", metavar="FILE.csv", help="a CSV file")
    g.add_argument("--label", metavar="COL", help="label column of the CSV")
    g.add_argument("--positive", metavar="VALUE", help="label value of class A (y = +1)")
    return g


def _add_data_options(p: argparse.ArgumentParser) -> None:
    g = add_source_options(p)
    g.add_argument("--p-column", metavar="COL", help="column with the true P(A|x), if known")
    g.add_argument("--features", metavar="A,B,...", help="feature columns (default: all others)")
    g.add_argument("--no-standardize", action="store_true", help="use CSV features as they are")
    g.add_argument("--test-fraction", type=float, default=0.0,
                   help="hold out this stratified fraction as a test set (default 0)")
    w = p.add_argument_group("costs and priors (Wahba et al. 2001, §1.7)")
    w.add_argument("--cost-a", type=float, default=1.0, help="C_A, cost of calling a B an A")
    w.add_argument("--cost-b", type=float, default=1.0, help="C_B, cost of calling an A a B")
    w.add_argument("--prior-a", type=float, default=None,
                   help="π_A in the target population (default: the sample proportion)")
    p.add_argument("--model", default="svm", choices=list(FAMILIES),
                   help="model family (default svm)")
    p.add_argument("--kernel", default="gaussian", choices=["gaussian"], help="kernel (gaussian)")
    p.add_argument("--xa-rho", type=float, default=2.0, help="ρ of XA (default 2)")
    p.add_argument("--solver", default="auto", choices=["auto", "path", "libsvm", "cvxopt"],
                   help="the SVM's dual solver (default auto: the exact λ-path)")
    p.add_argument("--debug", action="store_true", help="print the traceback of internal failures")
    for mod in _family_cli_modules():
        if hasattr(mod, "add_sweep_options"):
            mod.add_sweep_options(p)


def _family_cli_module(model: str):
    """The ``cli`` module of family ``model``, or None."""
    mod_name = FAMILIES[model].rsplit(".", 1)[0] + ".cli"
    try:
        return import_module(mod_name)
    except ModuleNotFoundError as exc:
        if exc.name != mod_name:
            raise
        return None


def _family_cli_modules():
    """The ``cli`` modules of the registered families that have one."""
    mods = []
    for path in FAMILIES.values():
        mod_name = path.rsplit(".", 1)[0] + ".cli"
        try:
            mods.append(import_module(mod_name))
        except ModuleNotFoundError as exc:
            if exc.name != mod_name:
                raise
    return mods


def data_spec_from_args(args):
    """The DataSpec of ``--dataset`` / ``--data``."""
    from .datasets.simulations import SIMULATIONS
    from .spec import DataSpec

    if args.dataset and args.data:
        raise SVMCoreError("give either --dataset or --data, not both")
    common = dict(test_fraction=args.test_fraction, split_seed=args.seed,
                  standardize=not args.no_standardize)
    if args.dataset:
        if args.dataset in SIMULATIONS:
            return DataSpec("simulation", args.dataset, n=args.n, seed=args.seed, **common)
        if args.n is not None:
            raise SVMCoreError(f"--n applies to simulations only; {args.dataset!r} is not one")
        return DataSpec("bundled", args.dataset, seed=args.seed, **common)
    if not args.data:
        raise SVMCoreError("no data: give --dataset NAME or --data FILE.csv --label COL")
    if not args.label:
        raise SVMCoreError("--data needs --label COL (the column holding the classes)")
    feats = tuple(f.strip() for f in args.features.split(",")) if args.features else None
    return DataSpec("csv", os.path.basename(args.data), path=args.data, label=args.label,
                    positive=args.positive, p_column=args.p_column, features=feats, **common)


def spec_from_args(args, log2_nlambda: str, log2_sigma: str):
    """Build and validate the RunSpec of a ``sweep`` or ``fit`` command."""
    from .spec import make_spec

    options = {}
    mod = _family_cli_module(args.model)
    if mod is not None and hasattr(mod, "sweep_options"):
        options.update(mod.sweep_options(args))
    criteria = getattr(args, "criteria", None)
    if criteria is not None:
        if not [c for c in criteria.split(",") if c.strip()]:
            raise SVMCoreError("--criteria is empty; give a comma list of criterion names")
    return make_spec(args.model, data=data_spec_from_args(args), log2_nlambda=log2_nlambda,
                     log2_sigma=log2_sigma, criteria=criteria, cost_a=args.cost_a,
                     cost_b=args.cost_b, prior_a=args.prior_a, xa_rho=args.xa_rho,
                     cv_folds=getattr(args, "cv_folds", 5), solver=args.solver,
                     extend_grid=bool(getattr(args, "extend_grid", False)), options=options)


def check_writable(path: str) -> None:
    """Fail before any work when ``path`` cannot be written."""
    if os.path.isdir(path):
        raise SVMCoreError(f"--out {path} is a folder; give a file name")
    parent = os.path.dirname(os.path.abspath(path)) or "."
    if not os.path.isdir(parent):
        raise SVMCoreError(f"--out {path}: the folder {parent} does not exist")
    if not os.access(parent, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise SVMCoreError(f"--out {path} is not writable")


def cmd_datasets(args) -> int:
    from .datasets.bundled import BUNDLED
    from .datasets.simulations import SIMULATIONS, make_simulation

    print("simulations (true P(A|x) known; --n, --seed):")
    for name in SIMULATIONS:
        d = make_simulation(name)
        print(f"  {name:<18} default n = {d.n:<4} d = {d.d:<3} {d.description}")
    print("bundled real data sets (standardized):")
    for name, b in BUNDLED.items():
        print(f"  {name:<18} {getattr(b, 'title', '')}")
    return 0


def cmd_sweep(args) -> int:
    from .datasets.load import load_data
    from .grid import run_grid
    from .spec import clamp_jobs

    spec = spec_from_args(args, args.log2_nlambda, args.log2_sigma)
    check_output(args.out, inputs=[args.data])
    train, test = _step("loading the data", load_data, spec.data)
    confirm_long_work(estimate_seconds(spec, train.n), args.yes)

    def progress(done, total):
        if not args.quiet:
            print(f"\rσ columns {done}/{total}", end="" if done < total else "\n", file=sys.stderr)

    jobs = clamp_jobs(args.jobs, spec.grid.log2_sigma.count) if args.jobs else 0
    res = _step("the sweep", run_grid, spec, train, test, progress=progress, n_jobs=jobs)
    _step("writing the table", write_csv, args.out, res.table)
    for note in res.notes:
        print(f"note: {note}", file=sys.stderr)
    failed = int((res.table["fit_error"].fillna("") != "").sum())
    if not args.quiet:
        g = res.spec.grid
        print(f"{len(res.table)} grid points ({failed} failed; grid {g.log2_nlambda.text} × "
              f"{g.log2_sigma.text}) in {res.seconds:.2f} s → {args.out}", file=sys.stderr)
    return 0


def cmd_fit(args) -> int:
    from .datasets.load import load_data

    spec = spec_from_args(args, args.log2_nlambda, args.log2_sigma)
    if spec.grid.size != 1:
        raise SVMCoreError("fit takes one value each: --log2-nlambda X --log2-sigma Y")
    if args.out:
        check_output(args.out, inputs=[args.data])
    train, _ = _step("loading the data", load_data, spec.data)
    l2n, l2s = spec.grid.log2_nlambda.start, spec.grid.log2_sigma.start
    fam, mod = spec.family, _family_cli_module(spec.model)
    if hasattr(fam, "fit_payload"):
        out = _step("the fit", fam.fit_payload, spec, train, l2n, l2s)
    elif mod is not None and hasattr(mod, "fit_payload"):
        out = _step("the fit", mod.fit_payload, spec, train, l2n, l2s)
    else:
        raise SVMCoreError(f"model {spec.model!r} has no single-fit output")
    text = json.dumps(out, indent=1)
    if args.out:
        _step("writing the output", _write, args.out, text)
    else:
        print(text)
    return 0


def _write(path, text):
    write_text(path, text)


class StepFailed(Exception):
    """An internal failure in a named step (exit code 1)."""

    def __init__(self, step, exc):
        super().__init__(f"{step} failed: {type(exc).__name__}: {exc}")
        self.exc = exc


def _step(name, fn, *args, **kwargs):
    """Run one step; user errors pass through, anything else becomes a StepFailed naming it."""
    try:
        return fn(*args, **kwargs)
    except (SVMCoreError, StepFailed, KeyboardInterrupt):
        raise
    except MemoryError as exc:
        raise StepFailed(name, exc) from exc
    except OSError as exc:
        raise SVMCoreError(f"{name}: {exc}") from exc
    except Exception as exc:
        raise StepFailed(name, exc) from exc


def build_parser() -> argparse.ArgumentParser:
    ap = _Parser(prog="svmcore",
                 description="Tune kernel classifiers: SVM (GACV, XA, BRXA, SURE, CV, LOO), "
                             "penalized likelihood (GACV, ranGACV), COSSO, unbiased SVC.")
    sub = ap.add_subparsers(dest="command", required=True, parser_class=_Parser)
    sub.add_parser("datasets", help="list built-in simulations and bundled data sets")
    sw = sub.add_parser("sweep", help="sweep log2(nλ) × log2(σ) and write one row per grid point")
    _add_data_options(sw)
    sw.add_argument("--log2-nlambda", required=True, metavar="START:STOP:STEP",
                    help="e.g. --log2-nlambda=-25:8:1")
    sw.add_argument("--log2-sigma", required=True, metavar="START:STOP:STEP",
                    help="e.g. --log2-sigma=-3:3:0.5")
    sw.add_argument("--extend-grid", action="store_true",
                    help="grow the grid until every criterion's minimizer is inside")
    sw.add_argument("--cv-folds", type=int, default=5, help="folds of k-fold CV (default 5)")
    sw.add_argument("--criteria", metavar="LIST",
                    help="comma list of the model's criteria (default: its in-sample criteria, "
                         "plus targets when P(A|x) is known)")
    sw.add_argument("--jobs", type=int, default=0,
                    help="σ columns computed in parallel (0: all cores when it pays)")
    sw.add_argument("--out", required=True, metavar="results.csv")
    sw.add_argument("--quiet", action="store_true", help="no progress on stderr")
    sw.add_argument("--yes", action="store_true", help="run work estimated over a minute without asking")
    ft = sub.add_parser("fit", help="fit at one (λ, σ) and write JSON")
    _add_data_options(ft)
    ft.add_argument("--log2-nlambda", required=True, metavar="X")
    ft.add_argument("--log2-sigma", required=True, metavar="Y")
    ft.add_argument("--out", metavar="fit.json", help="output file (default: stdout)")
    handlers = {"datasets": cmd_datasets, "sweep": cmd_sweep, "fit": cmd_fit}
    for path in SUBCOMMAND_MODULES:
        mod = import_module(path)
        before = set(sub.choices)
        mod.add_subcommand(sub)
        for name in set(sub.choices) - before:
            handlers[name] = mod.run
    ap.set_defaults(_handlers=handlers)
    return ap


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    try:
        args = build_parser().parse_args(argv)
        code = args._handlers[args.command](args)
        sys.stdout.flush()          # a closed pipe shows here, inside the BrokenPipe handler
        return code
    except SVMCoreError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except StepFailed as exc:
        if debug:
            traceback.print_exception(exc.exc)
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `svmcore datasets | head`: the reader left; end quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def main_exit() -> None:
    """Console-script entry point (``svmcore …``): SIGTERM stops like Ctrl-C."""
    from .signals import stop_on_sigterm

    stop_on_sigterm()
    raise SystemExit(main())
