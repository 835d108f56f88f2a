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
from .safeio import check_output, check_save_dir, write_csv
from .study import NONSTANDARD, STANDARD, Weighting, run_study, summarize


def add_subcommand(subparsers) -> None:
    """Add ``study`` and ``runs`` to an ``argparse`` subparsers object."""
    st = subparsers.add_parser("study", help="replicate study: each criterion's inefficiency over R "
                                             "samples (or random splits of real data)")
    d = st.add_argument_group("data")
    d.add_argument("--dataset", required=True, help="a simulation (with --n) or a bundled data set "
                                                    "(with --test-fraction)")
    d.add_argument("--n", type=int, help="sample size of each simulated replicate")
    d.add_argument("--seed", type=int, default=0, help="seed of replicate 0 (replicate r: seed + r)")
    d.add_argument("--test-fraction", type=float, help="real data: held-out fraction of each split")
    d.add_argument("--split-seed", type=int, default=0, help="real data: seed of split 0 (+ r)")
    st.add_argument("--model", default="svm", help="model family (default svm)")
    st.add_argument("--replicates", type=int, required=True, metavar="R")
    w = st.add_argument_group("weighting (Wahba et al. 2001, §1.7)")
    w.add_argument("--cost-a", type=float, help="C_A, cost of calling a B an A")
    w.add_argument("--cost-b", type=float, help="C_B, cost of calling an A a B")
    w.add_argument("--prior-a", type=float, help="π_A in the target population")
    w.add_argument("--both-weightings", action="store_true",
                   help="the standard case and the nonstandard one (the costs given, or the paper's "
                        "C_A=1, C_B=2, π_A=0.1)")
    st.add_argument("--log2-nlambda", required=True, metavar="START:STOP:STEP")
    st.add_argument("--log2-sigma", required=True, metavar="START:STOP:STEP")
    st.add_argument("--extend-grid", action="store_true", help="grow each replicate's grid until "
                                                               "the picks are inside")
    st.add_argument("--criteria", metavar="LIST", help="comma list (default: the family's)")
    st.add_argument("--xa-rho", type=float, default=2.0)
    st.add_argument("--solver", default="auto")
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


def weightings_from_args(args) -> tuple[Weighting, ...]:
    """The cases: one weighting from the costs given, or the standard and a nonstandard one."""
    given = any(v is not None for v in (args.cost_a, args.cost_b, args.prior_a))
    custom = Weighting("nonstandard", 1.0 if args.cost_a is None else args.cost_a,
                       1.0 if args.cost_b is None else args.cost_b, args.prior_a)
    if args.both_weightings:
        nonstd = custom if given else NONSTANDARD
        if nonstd.cost_a == nonstd.cost_b and nonstd.prior_a is None:
            raise SVMCoreError("--both-weightings needs unequal costs or a prior for the nonstandard case")
        return (STANDARD, nonstd)
    if not given or (custom.cost_a == custom.cost_b == 1.0 and custom.prior_a is None):
        return (STANDARD,)
    return (custom,)


def spec_from_args(args):
    """The study's base RunSpec from the ``study`` arguments."""
    from .datasets import SIMULATIONS
    from .spec import make_spec

    from .datasets.bundled import BUNDLED
    if args.dataset not in SIMULATIONS and args.dataset not in BUNDLED:
        raise SVMCoreError(f"unknown data set {args.dataset!r}; simulations: "
                           f"{', '.join(SIMULATIONS)}; bundled: {', '.join(BUNDLED)}")
    if args.dataset in SIMULATIONS:
        if args.test_fraction:
            raise SVMCoreError(f"{args.dataset!r} is a simulation: its target is known, give --n, "
                               "not --test-fraction")
        data = {"source": "simulation", "name": args.dataset, "n": args.n, "seed": args.seed}
    else:
        if args.n is not None:
            raise SVMCoreError(f"--n applies to simulations only; {args.dataset!r} is not one")
        if not args.test_fraction:
            raise SVMCoreError(f"{args.dataset!r} is real data: give --test-fraction (e.g. 0.3)")
        from .datasets.bundled import BUNDLED
        if args.dataset not in BUNDLED:
            raise SVMCoreError(f"unknown data set {args.dataset!r}; simulations: "
                               f"{', '.join(SIMULATIONS)}; bundled: {', '.join(BUNDLED)}")
        data = {"source": "bundled", "name": args.dataset, "test_fraction": args.test_fraction,
                "split_seed": args.split_seed}
    crit = [c for c in (args.criteria or "").split(",") if c.strip()]
    return make_spec(args.model, data=data, log2_nlambda=args.log2_nlambda,
                     log2_sigma=args.log2_sigma, criteria=crit, xa_rho=args.xa_rho,
                     solver=args.solver, extend_grid=bool(args.extend_grid))


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
    weightings = weightings_from_args(args)
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
    print(_format_summary(res.table), file=sys.stderr)
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
