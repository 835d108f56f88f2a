"""``svmcore usvc``: fit the unbiased (or classic) SVC by IRWLS and write a JSON payload."""
from __future__ import annotations

import json

import numpy as np

from ..._validation import SVMCoreError


def add_subcommand(subparsers) -> None:
    """Add the ``usvc`` subcommand to an argparse subparsers object."""
    p = subparsers.add_parser("usvc", help="unbiased SVC by IRWLS (Navia-Vázquez et al. 2004)")
    p.add_argument("--dataset", help="simulation (e.g. navia_a, navia_b, wahba2d) or bundled set")
    p.add_argument("--n", type=int, help="training size of a simulation")
    p.add_argument("--seed", type=int, default=0, help="simulation seed; the test sample uses seed+1")
    p.add_argument("--data", metavar="FILE.csv", help="a CSV file")
    p.add_argument("--label", metavar="COL", help="label column of the CSV")
    p.add_argument("--positive", metavar="VALUE", help="label value of class +1")
    p.add_argument("--method", default="usvc", choices=["svc", "usvc", "ls"])
    p.add_argument("--s", type=float, default=2.0, help="steepness s of θ̃_s (default 2)")
    p.add_argument("--C", type=float, default=10.0, help="penalty C (default 10)")
    p.add_argument("--damping", type=float, default=0.2, help="damping d (default 0.2)")
    p.add_argument("--kernel", default="linear", choices=["linear", "rbf"])
    p.add_argument("--log2-sigma", type=float, default=0.0, help="log2 σ of the rbf kernel")
    p.add_argument("--prototypes", type=int, default=50, help="R kernel prototypes (k-means)")
    p.add_argument("--test-n", type=int, default=10000, help="fresh test sample size (simulations)")
    p.add_argument("--test-fraction", type=float, default=0.2, help="held-out share of real data")
    p.add_argument("--out", metavar="FILE.json", help="write the JSON payload here (else stdout)")
    p.set_defaults(func=run)


def _data(args):
    from sklearn.model_selection import train_test_split

    from ...datasets import load_dataset
    from ...datasets.csvload import load_csv
    from ...datasets.simulations import SIMULATIONS, make_simulation

    if bool(args.dataset) == bool(args.data):
        raise SVMCoreError("give exactly one of --dataset NAME or --data FILE.csv --label COL")
    if args.dataset in SIMULATIONS:
        if args.test_n is None or args.test_n < 10:
            raise SVMCoreError(f"--test-n must be at least 10, got {args.test_n}")
        return (make_simulation(args.dataset, args.n, args.seed),
                make_simulation(args.dataset, args.test_n, args.seed + 1))
    if args.dataset:
        full = load_dataset(args.dataset, args.n, args.seed)
    else:
        if not args.label:
            raise SVMCoreError("--data needs --label COL (the column holding the classes)")
        full = load_csv(args.data, label=args.label, positive=args.positive)
    if not 0.0 < args.test_fraction < 1.0:
        raise SVMCoreError(f"--test-fraction must be in (0, 1), got {args.test_fraction}")
    tr, te = train_test_split(np.arange(full.n), test_size=args.test_fraction, stratify=full.y,
                              random_state=args.seed)
    return full.subset(tr), full.subset(te)


def run(args) -> int:
    """Run ``svmcore usvc``; bad input raises SVMCoreError."""
    from ...spec import DataSpec, make_spec
    from .family import run as run_family

    opts = {"method": args.method, "s": args.s, "C": args.C, "damping": args.damping,
            "kernel": args.kernel, "log2_sigma": args.log2_sigma, "prototypes": args.prototypes}
    data, test = _data(args)
    try:
        spec = make_spec("usvc", data=DataSpec(name=args.dataset or "csv"), options=opts)
    except SVMCoreError as exc:
        if "unknown model" not in str(exc):
            raise
        spec = _unregistered_spec(opts)
    payload = run_family(spec, data, test)
    payload["dataset"] = args.dataset or args.data
    text = json.dumps(payload)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.write(text)
        print(f"wrote {args.out}: method {payload['method']}, train error {payload['train_error']:.4f}, "
              f"test error {payload['test_error']:.4f}, threshold {payload['threshold']}, "
              f"{payload['iterations']} iterations, converged {payload['converged']}")
    else:
        print(text)
    return 0


def _unregistered_spec(opts):
    """Validate the options directly when the family is not yet in the registry."""
    from ...spec import RunSpec
    from .family import OPTION_CONSTRAINTS

    checked = {k: OPTION_CONSTRAINTS[k].check(k, v) for k, v in opts.items()}
    return RunSpec(model="usvc", options=tuple(sorted(checked.items())))
