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
from dataclasses import replace
from importlib import import_module
from typing import Mapping

from ._validation import SVMCoreError
from .families import all_families, get_family
from .kernels import KERNELS
from .params import ListOf, Options, Param, add_arguments
from .spec import DATA_PARAMS, GRID_PARAMS, run_params, spec_params
from .safeio import check_output, write_csv, write_text
from .timing import confirm_long_work, wall_seconds

#: modules that add whole subcommands (``add_subcommand(subparsers)`` and ``run(args)``)
SUBCOMMAND_MODULES: tuple[str, ...] = (
    "svmcore.study_cli",
    "svmcore.model_cli",
)


class _Parser(argparse.ArgumentParser):
    """argparse with a one-line ``error:`` (exit code 2) instead of the usage block."""

    def error(self, message):
        raise SVMCoreError(message)


# ------------------------------------------------------------------ options from the tables
def _generic_run_params(families) -> list[Param]:
    """model, kernel and criteria with the union of the families' choices (each spec is then
    checked against its own family's)."""
    model, kernel, crit = run_params(families[0])
    kernels = tuple(dict.fromkeys(k for f in families for k in f.kernels))
    names = tuple(dict.fromkeys(c for f in families for c in f.criteria_names))
    model = replace(model, constraint=Options(tuple(f.name for f in families)),
                    default=families[0].name)
    kernel = replace(kernel, constraint=Options(kernels), help="; ".join(
        f"{k}: {KERNELS[k].formula}" for k in kernels if k in KERNELS) + " (default: the model's first)")
    crit = replace(crit, constraint=ListOf(Options(names), 50))
    return [model, kernel, crit]


def add_spec_options(p: argparse.ArgumentParser, families,
                     grid=("log2_nlambda", "log2_sigma", "extend_grid")) -> None:
    """The options of a command that builds a RunSpec, generated from the parameter tables: the
    data, the grid entries named in ``grid``, model/kernel/criteria, then each family's own
    parameters (a parameter shared by several families appears once)."""
    add_arguments(p, [q for q in DATA_PARAMS if q.flag], "data (a built-in set, or a CSV file)")
    add_arguments(p, [q for q in GRID_PARAMS if q.name in grid], "grid")
    add_arguments(p, _generic_run_params(families), "model")
    for fam in families:
        add_arguments(p, list(fam.params), f"{fam.name} parameters ({fam.title})")
    p.set_defaults(_families=tuple(f.name for f in families))


def spec_from_args(args, defaults: Mapping | None = None):
    """The validated RunSpec of the options given (each parsed by its family's Param, so an error
    names the flag and what is allowed); a parameter of another family is refused, naming it."""
    from .codec import spec_from_values

    defaults = dict(defaults or {})
    ns = vars(args)
    model = ns.get("model", defaults.get("model", args._families[0]))
    if model not in args._families:
        raise SVMCoreError(f"--model must be one of {', '.join(args._families)}, got {model!r}")
    own = {q.name: q for q in spec_params(get_family(model))}
    others = {q.name: q for f in all_families() for q in f.params}
    values = {}
    for name, text in ns.items():
        if name in own:
            q = own[name]
            try:
                values[name] = q.parse(text)
            except SVMCoreError as exc:
                raise SVMCoreError(f"{q.flag}: {exc}") from None
        elif name in others:
            raise SVMCoreError(f"{others[name].flag} does not apply to model {model!r}")
    return spec_from_values(values, defaults)


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

    spec = spec_from_args(args)
    check_output(args.out, inputs=[spec.data.path])
    train, test = _step("loading the data", load_data, spec.data)
    jobs = clamp_jobs(args.jobs, spec.grid.log2_sigma.count) if args.jobs else 0
    confirm_long_work(wall_seconds(spec, train.n, jobs), args.yes)

    def progress(done, total):
        if not args.quiet:
            print(f"\rσ columns {done}/{total}", end="" if done < total else "\n", file=sys.stderr)

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

    if vars(args).get("criterion"):     # pick over the grid ranges and save the tuned model
        if not args.out:
            raise SVMCoreError("fit --criterion saves the tuned model: give --out model.json")
        from . import model_cli
        args.command = "tune"
        return model_cli.run(args)
    spec = spec_from_args(args)
    if spec.grid.size != 1:
        raise SVMCoreError("fit takes one value each: --log2-nlambda X --log2-sigma Y, or ranges "
                           "with --criterion NAME to pick and save the tuned model")
    if args.out:
        check_output(args.out, inputs=[spec.data.path])
    train, _ = _step("loading the data", load_data, spec.data)
    l2n, l2s = spec.grid.log2_nlambda.start, spec.grid.log2_sigma.start
    try:
        out = _step("the fit", spec.family.fit_payload, spec, train, l2n, l2s)
    except StepFailed as exc:
        if isinstance(exc.exc, NotImplementedError):
            raise SVMCoreError(f"model {spec.model!r} has no single-fit output") from None
        raise
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


def cmd_run(args) -> int:
    """``svmcore <family>``: a single-run family fits and tunes on its own axis; JSON out."""
    from .datasets.load import load_run_data

    fam = get_family(args._families[0])
    spec = spec_from_args(args, {"model": fam.name, **fam.run_defaults})
    if args.out:
        check_output(args.out, inputs=[spec.data.path])
    train, test = _step("loading the data", load_run_data, spec.data)
    out = _step(f"the {fam.name} fit", fam.run, spec, train, test)
    out["spec"] = spec.to_dict()
    text = json.dumps(out, indent=1)
    if args.out:
        _step("writing the output", _write, args.out, text)
        print(f"wrote {args.out}", file=sys.stderr)
    else:
        print(text)
    return 0


def build_parser() -> argparse.ArgumentParser:
    ap = _Parser(prog="svmcore",
                 description="Tune kernel classifiers: SVM (GACV, XA, BRXA, SURE, CV, LOO), "
                             "penalized likelihood (GACV, ranGACV), COSSO, unbiased SVC.")
    sub = ap.add_subparsers(dest="command", required=True, parser_class=_Parser)
    sub.add_parser("datasets", help="list built-in simulations and bundled data sets")
    sweepers = [f for f in all_families() if f.sweeps_grid]
    sw = sub.add_parser("sweep", help="sweep log2(nλ) × log2(σ) and write one row per grid point")
    add_spec_options(sw, sweepers)
    sw.add_argument("--jobs", type=int, default=0,
                    help="σ columns computed in parallel (0: all cores when it pays)")
    sw.add_argument("--out", required=True, metavar="results.csv")
    sw.add_argument("--quiet", action="store_true", help="no progress on stderr")
    sw.add_argument("--yes", action="store_true", help="run work estimated over a minute without asking")
    ft = sub.add_parser("fit", help="fit at one (λ, σ) and write JSON")
    add_spec_options(ft, sweepers, grid=("log2_nlambda", "log2_sigma"))
    ft.add_argument("--out", metavar="fit.json", help="output file (default: stdout)")
    ft.add_argument("--criterion", help="pick (λ, σ) over the --log2-nlambda/--log2-sigma ranges by "
                                        "this criterion, refit and save the model JSON to --out (the "
                                        "same as `svmcore tune`)")
    handlers = {"datasets": cmd_datasets, "sweep": cmd_sweep, "fit": cmd_fit}
    for fam in all_families():
        if fam.single_run:
            p = sub.add_parser(fam.name, help=f"{fam.title}: fit, tune and write JSON")
            add_spec_options(p, [fam], grid=tuple(k for k in ("log2_sigma",) if k in fam.run_defaults))
            p.add_argument("--out", metavar="FILE.json", help="output file (default: stdout)")
            handlers[fam.name] = cmd_run
    for path in SUBCOMMAND_MODULES:
        mod = import_module(path)
        before = set(sub.choices)
        mod.add_subcommand(sub)
        for name in set(sub.choices) - before:
            handlers[name] = mod.run
    for p in sub.choices.values():
        p.add_argument("--debug", action="store_true", help="print the traceback of internal failures")
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
    code = main()
    if code == 130:
        # interrupted: the outputs were left untouched (atomic writes) and the workers killed; end
        # now, without the interpreter's exit handlers, which could wait forever joining a worker
        # pool's threads whose workers died mid-task (a study's loky executor)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    raise SystemExit(code)
