"""Command line for replicate studies and saved runs: ``svmcore study`` and ``svmcore runs``.

``add_subcommand(subparsers)`` adds both subcommands to the main parser; ``run(args)`` runs the one
chosen. Bad input raises ``SVMCoreError`` (the main entry point prints it). Timings go to stderr,
the study table (deterministic) to ``--out``. See ``docs/studies.md``.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

import pandas as pd

from ._validation import SVMCoreError
from .limits import MAX_REPLICATES
from .safeio import check_output, check_save_dir, write_csv
from .study import NONSTANDARD, STANDARD, Weighting, run_study, summarize


def add_subcommand(subparsers) -> None:
    """Add ``study`` and ``runs`` to an ``argparse`` subparsers object; the study's spec options
    are generated from the parameter tables of every family that supports studies."""
    from .cli import add_spec_options
    from .families import all_families

    st = subparsers.add_parser("study", help="replicate study: each criterion's inefficiency over R "
                                             "samples (or random splits of real data); COSSO and "
                                             "USVC: their papers' figures per replicate")
    add_spec_options(st, [f for f in all_families() if f.supports_study])
    st.add_argument("--replicates", type=int, required=True, metavar="R",
                    help=f"replicate samples or splits (1-{MAX_REPLICATES})")
    st.add_argument("--both-weightings", action="store_true",
                    help="the standard case and the nonstandard one (the costs given, or the paper's "
                         "C_A=1, C_B=2, π_A=0.1)")
    st.add_argument("--scheduler", metavar="tcp://HOST:PORT", help="a Dask scheduler (default: local "
                                                                  "cores)")
    st.add_argument("--jobs", type=int, default=0, help="local worker processes (0: all cores)")
    st.add_argument("--save", metavar="DIR", help="also save the run in this folder of saved runs")
    st.add_argument("--out", required=True, metavar="study.csv")
    st.add_argument("--quiet", action="store_true", help="no progress on stderr")
    st.set_defaults(handler=run)

    rn = subparsers.add_parser("runs", help="saved runs: list a folder, show one run")
    rsub = rn.add_subparsers(dest="runs_command", required=True)
    ls = rsub.add_parser("list", help="list the saved runs in DIR")
    ls.add_argument("dir", metavar="DIR")
    sh = rsub.add_parser("show", help="spec, metadata and table of the saved run in PATH")
    sh.add_argument("path", metavar="PATH")
    sh.add_argument("--out", metavar="table.csv", help="write the run's table as CSV")
    sh.add_argument("--rows", type=int, default=20, help="table rows to print (default 20)")
    rn.set_defaults(handler=run)


def weightings_from_args(args, spec) -> tuple[Weighting, ...]:
    """The cases: one weighting from the costs given, or the standard and a nonstandard one."""
    given = any(k in vars(args) for k in ("cost_a", "cost_b", "prior_a"))
    custom = Weighting("nonstandard", spec.get("cost_a", 1.0), spec.get("cost_b", 1.0),
                       spec.get("prior_a"))
    if args.both_weightings:
        nonstd = custom if given else NONSTANDARD
        if nonstd.cost_a == nonstd.cost_b and nonstd.prior_a is None:
            raise SVMCoreError("--both-weightings needs unequal costs or a prior for the nonstandard case")
        return (STANDARD, nonstd)
    if not given or (custom.cost_a == custom.cost_b == 1.0 and custom.prior_a is None):
        return (STANDARD,)
    return (custom,)


def spec_from_args(args):
    """The study's base RunSpec: the spec options, with the model's single-run defaults (COSSO,
    USVC: a fresh test sample of a simulation); a simulation takes --n, real data a test
    fraction."""
    from .cli import spec_from_args as from_args
    from .families import get_family

    if not 1 <= args.replicates <= MAX_REPLICATES:
        raise SVMCoreError(f"--replicates must be between 1 and {MAX_REPLICATES}, got {args.replicates}")
    fam = get_family(vars(args).get("model", "svm"))
    spec = from_args(args, fam.run_defaults if fam.single_run else {})
    d = spec.data
    if d.source == "simulation" and "test_fraction" in vars(args):
        raise SVMCoreError(f"{d.name!r} is a simulation: its target is known, give --n, "
                           "not --test-fraction")
    if d.source != "simulation" and not d.test_fraction:
        raise SVMCoreError(f"{d.name!r} is real data: give --test-fraction (e.g. 0.3)")
    return spec


def _format_paper(res) -> str:
    """Mean (sd) of each figure of a single-run family's study, beside its paper's."""
    paper = res.spec.family.paper_figures(res.spec)
    t = res.table
    lines = [f"{'case':<12} {'figure':<14} {'mean':>9} {'sd':>9} {'paper':>9}   (R = {res.replicates})"]
    for (case, name), g in t.groupby(["case", "criterion"], sort=False):
        v = g["target"].to_numpy(float)
        ref = paper.get(name)
        lines.append(f"{case:<12} {name:<14} {v.mean():>9.4f} {v.std(ddof=1) if len(v) > 1 else 0:>9.4f} "
                     f"{'' if ref is None else f'{ref:.4f}':>9}")
    return "\n".join(lines)


def _format_summary(table: pd.DataFrame) -> str:
    s = summarize(table)
    lines = [f"{'case':<12} {'criterion':<12} median [Q1, Q3] of inefficiency"]
    for r in s.itertuples():
        lines.append(f"{r.case:<12} {r.criterion:<12} {r.median:.4f} [{r.q1:.4f}, {r.q3:.4f}]")
    return "\n".join(lines)


def cmd_study(args) -> int:
    check_output(args.out)
    if args.save:
        check_save_dir(args.save)
    spec = spec_from_args(args)
    weightings = weightings_from_args(args, spec)
    last = [-1]

    def progress(done, total):
        pct = int(100 * done / total)
        if not args.quiet and (pct >= last[0] + 5 or done == total):
            last[0] = pct
            print(f"\r{done}/{total} tasks", end="\n" if done == total else "", file=sys.stderr,
                  flush=True)

    res = run_study(spec, args.replicates, weightings, scheduler=args.scheduler,
                    n_jobs=args.jobs, progress=progress)
    write_csv(args.out, res.table)
    t = res.timing
    print(f"{t['tasks']} tasks on {t['backend']} ({t['workers']} workers): {t['wall_seconds']:.2f} s "
          f"wall, {t['task_seconds']:.2f} task-seconds, {t['tasks_per_second']:.2f} tasks/s",
          file=sys.stderr)
    print(_format_paper(res) if spec.family.single_run else _format_summary(res.table), file=sys.stderr)
    if args.save:
        from .store import save_run
        path = save_run(args.save, "study", res.spec, res.table,
                        {"settings": res.settings, "seconds": t["wall_seconds"],
                         "weights": [w.as_dict() for w in weightings],
                         "notes": [f"backend {t['backend']}"]})
        print(f"saved: {path}", file=sys.stderr)
    return 0


def cmd_runs(args) -> int:
    from .store import load_run, scan_runs

    if args.runs_command == "list":
        if not os.path.isdir(os.path.expanduser(args.dir)):
            raise SVMCoreError(f"{args.dir} is not a folder of saved runs (no such folder)")
        runs, damaged = scan_runs(args.dir)
        if runs.empty:
            print(f"no saved runs in {args.dir}")
        else:
            print(runs.drop(columns=["notes"]).to_string(index=False))
        for folder, why in damaged:
            print(f"damaged: {folder}: {why}", file=sys.stderr)
        return 0
    if args.out:
        check_output(args.out)          # refuses a path inside a saved run, the shown one included
    spec, table, meta = load_run(args.path)
    print(json.dumps({"spec": spec.to_dict(), "meta": meta}, indent=1, sort_keys=True, default=str))
    with pd.option_context("display.width", 200, "display.max_columns", 50):
        print(table.head(max(0, args.rows)).to_string(index=False))
    print(f"({len(table)} rows)")
    if args.out:
        write_csv(args.out, table)
    return 0


def run(args) -> int:
    """Run ``study`` or ``runs`` from parsed arguments; returns the exit status."""
    if args.command == "study":
        return cmd_study(args)
    if args.command == "runs":
        return cmd_runs(args)
    raise SVMCoreError(f"unknown command {args.command!r}")


def main(argv=None) -> int:
    """Stand-alone entry point (``python -m svmcore.study_cli study …``) until the main CLI
    registers the subcommands."""
    ap = argparse.ArgumentParser(prog="python -m svmcore.study_cli")
    add_subcommand(ap.add_subparsers(dest="command", required=True))
    args = ap.parse_args(argv)
    try:
        return run(args)
    except SVMCoreError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
