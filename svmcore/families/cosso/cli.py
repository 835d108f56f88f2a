"""``svmcore cosso``: fit and tune the COSSO SVM, write its JSON summary (``docs/cosso.md``)."""
from __future__ import annotations

import argparse
import json

import numpy as np

from ..._validation import SVMCoreError
from ...limits import MAX_COSSO_COMPONENTS
from ...safeio import check_output, write_text
from ...weights import class_weights_from_costs
from ...datasets.load import holdout_split, sample_and_test
from .family import FAMILY, fit_cosso, payload


def add_subcommand(subparsers) -> argparse.ArgumentParser:
    """Add ``cosso`` to an argparse subparsers object; ``run`` is set as its ``func`` default."""
    p = subparsers.add_parser("cosso", help="COSSO SVM variable selection (Zhang 2006); JSON out")
    from ...cli import add_source_options

    add_source_options(p, "simulation seed (test sample: seed + 1) or the split seed of real data")
    p.add_argument("--interactions", action="store_true", help="add all two-way interactions")
    p.add_argument("--tune", choices=["gckl", "cv", "gacv"], default=None,
                   help="rule for λ0 and M (default: gckl for simulations, else cv)")
    p.add_argument("--n-m", type=int, default=20, help="size of the M grid (default 20)")
    p.add_argument("--rounds", type=int, default=1, help="most LP steps per M (default 1)")
    p.add_argument("--threshold", type=float, default=1e-6, help="θ selection threshold")
    p.add_argument("--cv-folds", type=int, default=5, help="folds of the CV rule (default 5)")
    w = p.add_argument_group("costs and priors (hinge weights L(y), Zhang 2006 eq 5.1)")
    w.add_argument("--cost-a", type=float, default=1.0, help="C_A, cost of calling a B an A")
    w.add_argument("--cost-b", type=float, default=1.0, help="C_B, cost of calling an A a B")
    w.add_argument("--prior-a", type=float, default=None, help="π_A in the target population")
    p.add_argument("--test-n", type=int, default=10000,
                   help="size of the fresh test sample of a simulation (default 10000)")
    p.add_argument("--out", required=True, metavar="cosso.json")
    p.set_defaults(func=run)
    return p


def load_train_test(args):
    """(train, test): a simulation and a fresh sample with seed + 1, or a stratified 2/3–1/3 split
    of real data (seeded by ``--seed``)."""
    return sample_and_test(dataset=args.dataset, path=args.data, label=args.label,
                           positive=args.positive, n=args.n, seed=args.seed, test_n=args.test_n,
                           test_fraction=1 / 3)


def split_third(data, seed: int):
    """Stratified split: 2/3 for training and tuning, 1/3 held out (Zhang 2006, §5.3)."""
    return holdout_split(data, 1 / 3, seed)


def run(args) -> int:
    """Run ``cosso`` from parsed arguments and write the JSON file."""
    check_output(args.out, inputs=[args.data])
    opts = FAMILY.option_constraints
    for name, value in (("n_M", args.n_m), ("rounds", args.rounds), ("threshold", args.threshold)):
        opts[name].check(name, value)
    if not 2 <= args.cv_folds <= 50:
        raise SVMCoreError(f"--cv-folds must be between 2 and 50, got {args.cv_folds}")
    data, test = load_train_test(args)
    d = data.X.shape[1]
    if d + (d * (d - 1) // 2 if args.interactions else 0) > MAX_COSSO_COMPONENTS:
        raise SVMCoreError(f"{d} features{' with their interactions' if args.interactions else ''} "
                           f"exceed {MAX_COSSO_COMPONENTS} COSSO components (limits.MAX_COSSO_COMPONENTS)")
    weights = class_weights_from_costs(data.y, args.cost_a, args.cost_b, args.prior_a)
    FAMILY.check_counts(data.n, int(np.sum(data.y > 0)), int(np.sum(data.y < 0)),
                        args.tune or ("gckl" if data.has_truth else "cv"), args.cv_folds)
    res = fit_cosso(data.X, data.y, p=data.p, interactions=args.interactions, tune=args.tune,
                    n_M=args.n_m, rounds=args.rounds, threshold=args.threshold, weights=weights,
                    cv_folds=args.cv_folds, cv_seed=args.seed, feature_names=data.feature_names)
    out = payload(res, data, test)
    write_text(args.out, json.dumps(out, indent=1))
    return 0


def main(argv=None) -> int:
    """Stand-alone entry (``python -m svmcore.families.cosso.cli``) with the main CLI's error rule."""
    import sys

    ap = argparse.ArgumentParser(prog="svmcore")
    add_subcommand(ap.add_subparsers(dest="command", required=True))
    args = ap.parse_args(argv)
    try:
        return args.func(args)
    except SVMCoreError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
