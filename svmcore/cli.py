"""Command line: ``python -m svmcore datasets | sweep | fit`` (issue 2's CLI contract)."""
from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from ._validation import SVMCoreError
from .families.svm.criteria import ALL_CRITERIA, IN_SAMPLE, TARGETS, in_sample_criteria
from .weights import class_weights_from_costs


def _add_data_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("data (a built-in set, or a CSV file)")
    g.add_argument("--dataset", help="simulation or bundled data set (see `datasets`)")
    g.add_argument("--n", type=int, help="sample size of a simulation")
    g.add_argument("--seed", type=int, default=0, help="seed of a simulation (default 0)")
    g.add_argument("--data", metavar="FILE.csv", help="a CSV file")
    g.add_argument("--label", metavar="COL", help="label column of the CSV")
    g.add_argument("--positive", metavar="VALUE", help="label value of class A (y = +1)")
    g.add_argument("--p-column", metavar="COL", help="column with the true P(A|x), if known")
    g.add_argument("--features", metavar="A,B,...", help="feature columns (default: all others)")
    g.add_argument("--no-standardize", action="store_true", help="use CSV features as they are")
    w = p.add_argument_group("costs and priors (SPEC §1)")
    w.add_argument("--cost-a", type=float, default=1.0, help="C_A, cost of calling a B an A")
    w.add_argument("--cost-b", type=float, default=1.0, help="C_B, cost of calling an A a B")
    w.add_argument("--prior-a", type=float, default=None,
                   help="π_A in the target population (default: the sample proportion)")
    p.add_argument("--kernel", default="gaussian", choices=["gaussian"], help="kernel (gaussian)")
    p.add_argument("--xa-rho", type=float, default=2.0, help="ρ of XA (default 2)")
    p.add_argument("--solver", default="auto", choices=["auto", "path", "libsvm", "cvxopt"],
                   help="dual solver (default auto: the fastest exact backend)")


def _load(args, criteria=None):
    from .datasets import load_dataset
    from .datasets.csvload import load_csv
    from .grid import row_limit

    if args.dataset and args.data:
        raise SVMCoreError("give either --dataset or --data, not both")
    if args.dataset:
        return load_dataset(args.dataset, args.n, args.seed)
    if not args.data:
        raise SVMCoreError("no data: give --dataset NAME or --data FILE.csv --label COL")
    if not args.label:
        raise SVMCoreError("--data needs --label COL (the column holding the classes)")
    feats = [f.strip() for f in args.features.split(",")] if args.features else None
    limit, what = row_limit(criteria)
    return load_csv(args.data, label=args.label, positive=args.positive, p_column=args.p_column,
                    features=feats, standardize=not args.no_standardize, max_rows=limit,
                    criteria_note=what)


def _criteria_list(text):
    return None if text is None else [c for c in text.split(",") if c.strip()]


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
    from .grid import Grid, check_criteria, sweep

    data = _load(args, _criteria_list(args.criteria))
    crit = check_criteria(_criteria_list(args.criteria), data.has_truth)
    weights = class_weights_from_costs(data.y, args.cost_a, args.cost_b, args.prior_a)
    grid = Grid.from_ranges(args.log2_nlambda, args.log2_sigma)

    def progress(done, total):
        if not args.quiet:
            print(f"\rσ columns {done}/{total}", end="" if done < total else "\n", file=sys.stderr)

    res = sweep(data, grid, weights, crit, xa_rho=args.xa_rho, cv_folds=args.cv_folds,
                solver=args.solver, n_jobs=args.jobs, progress=progress)
    res.table.to_csv(args.out, index=False)
    failed = int((res.table["fit_error"].fillna("") != "").sum())
    if not args.quiet:
        print(f"{len(res.table)} grid points ({failed} failed) in {res.seconds:.2f} s "
              f"→ {args.out}", file=sys.stderr)
    return 0


def cmd_fit(args) -> int:
    from .families.svm.fit import fit_svm
    from .kernels import Kernel

    data = _load(args)
    try:
        l2n = float(args.log2_nlambda)
        l2s = float(args.log2_sigma)
    except ValueError:
        raise SVMCoreError("fit takes one value each: --log2-nlambda X --log2-sigma Y") from None
    weights = class_weights_from_costs(data.y, args.cost_a, args.cost_b, args.prior_a)
    lam = 2.0 ** l2n / data.n
    sigma = 2.0 ** l2s
    fit = fit_svm(data.X, data.y, lam, Kernel("gaussian", sigma=sigma), weights, args.solver)
    names = list(IN_SAMPLE) + (list(TARGETS) if data.has_truth else [])
    crit = in_sample_criteria(fit, names, data.p, args.xa_rho)
    out = {"log2_nlambda": l2n, "log2_sigma": l2s, "lambda": lam, "sigma": sigma, "b": fit.b,
           "alpha": fit.alpha.tolist(), "f": fit.f.tolist(), "criteria": crit,
           "n_sv": fit.n_sv, "weights": weights.as_dict(), "solver": fit.solver,
           "kkt_residual": fit.kkt_residual}
    text = json.dumps(out, indent=1)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text)
    else:
        print(text)
    return 0


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m svmcore",
                                 description="Tune standard and nonstandard SVMs: GACV, XA, BRXA, "
                                             "SURE, CV, LOO and their targets over (λ, σ).")
    sub = ap.add_subparsers(dest="command", required=True)
    sub.add_parser("datasets", help="list built-in simulations and bundled data sets")
    sw = sub.add_parser("sweep", help="sweep log2(nλ) × log2(σ) and write one row per grid point")
    _add_data_options(sw)
    sw.add_argument("--log2-nlambda", required=True, metavar="START:STOP:STEP",
                    help="e.g. --log2-nlambda=-25:0:1")
    sw.add_argument("--log2-sigma", required=True, metavar="START:STOP:STEP",
                    help="e.g. --log2-sigma=-3:3:0.5")
    sw.add_argument("--cv-folds", type=int, default=5, help="folds of k-fold CV (default 5)")
    sw.add_argument("--criteria", metavar="LIST",
                    help=f"comma list of {','.join(ALL_CRITERIA)} (default: in-sample criteria, "
                         "plus targets when P(A|x) is known)")
    sw.add_argument("--jobs", type=int, default=0,
                    help="σ columns computed in parallel (0: all cores when it pays)")
    sw.add_argument("--out", required=True, metavar="results.csv")
    sw.add_argument("--quiet", action="store_true", help="no progress on stderr")
    ft = sub.add_parser("fit", help="fit at one (λ, σ) and write JSON")
    _add_data_options(ft)
    ft.add_argument("--log2-nlambda", required=True, metavar="X")
    ft.add_argument("--log2-sigma", required=True, metavar="Y")
    ft.add_argument("--out", metavar="fit.json", help="output file (default: stdout)")
    return ap


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return {"datasets": cmd_datasets, "sweep": cmd_sweep, "fit": cmd_fit}[args.command](args)
    except SVMCoreError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except (OSError, MemoryError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
