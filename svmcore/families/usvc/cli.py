"""``svmcore usvc``: fit the unbiased (or classic) SVC by IRWLS and write a JSON payload."""
from __future__ import annotations

import json

from ...safeio import check_output, write_text


def add_subcommand(subparsers) -> None:
    """Add the ``usvc`` subcommand to an argparse subparsers object."""
    p = subparsers.add_parser("usvc", help="unbiased SVC by IRWLS (Navia-Vázquez et al. 2004)")
    from ...cli import add_source_options

    add_source_options(p, "simulation seed (test sample: seed + 1) or the split seed of real data")
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
    """(train, test): a simulation and a fresh sample with seed + 1, or a stratified split of real
    data holding out ``--test-fraction``."""
    from ...datasets.load import sample_and_test

    return sample_and_test(dataset=args.dataset, path=args.data, label=args.label,
                           positive=args.positive, n=args.n, seed=args.seed, test_n=args.test_n,
                           test_fraction=args.test_fraction)


def run(args) -> int:
    """Run ``svmcore usvc``; bad input raises SVMCoreError."""
    from ...spec import DataSpec, make_spec
    from .family import run as run_family

    if args.out:
        check_output(args.out, inputs=[args.data])
    opts = {"method": args.method, "s": args.s, "C": args.C, "damping": args.damping,
            "kernel": args.kernel, "log2_sigma": args.log2_sigma, "prototypes": args.prototypes}
    data, test = _data(args)
    spec = make_spec("usvc", data=DataSpec(name=args.dataset or "csv"), options=opts)
    payload = run_family(spec, data, test)
    payload["dataset"] = args.dataset or args.data
    text = json.dumps(payload)
    if args.out:
        write_text(args.out, text)
        print(f"wrote {args.out}: method {payload['method']}, train error {payload['train_error']:.4f}, "
              f"test error {payload['test_error']:.4f}, threshold {payload['threshold']}, "
              f"{payload['iterations']} iterations, converged {payload['converged']}")
    else:
        print(text)
    return 0
