"""Code shape: no function or method in the checked parts of svmcore is longer than 150 lines.

Lengths are measured with ``ast`` (from the ``def`` line to the last line of the body, nested
functions counted inside their parent and on their own). The checked set grows as the other
modules are brought under the limit.
"""
from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

MAX_LINES = 150
ROOT = Path(__file__).resolve().parents[1] / "svmcore"
#: every module of the package is held to the limit
CHECKED = (".",)


def function_lengths(source: str):
    """(qualified name, first line, number of lines) of every function and method in source."""
    out = []

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = f"{prefix}{child.name}"
                out.append((name, child.lineno, child.end_lineno - child.lineno + 1))
                visit(child, name + ".")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(ast.parse(source), "")
    return out


def _modules():
    for entry in CHECKED:
        path = ROOT / entry
        yield from (sorted(path.rglob("*.py")) if path.is_dir() else [path])


def test_the_measure_counts_lines_of_nested_functions_and_methods():
    """Hand-counted: a 4-line method, a 3-line nested function inside a 6-line function."""
    source = textwrap.dedent('''
        class A:
            def m(self):
                x = 1
                y = 2
                return x + y

        def outer():
            def inner():
                a = 1
                return a
            b = inner()
            return b
        ''')
    assert sorted(function_lengths(source)) == [("A.m", 3, 4), ("outer", 8, 6),
                                                  ("outer.inner", 9, 3)]


def test_the_checked_modules_exist():
    mods = list(_modules())
    assert all(m.is_file() for m in mods)
    assert len(mods) >= 10


@pytest.mark.parametrize("path", list(_modules()), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_function_over_150_lines(path):
    long = [(name, line, length) for name, line, length in function_lengths(path.read_text())
            if length > MAX_LINES]
    assert not long, f"{path.relative_to(ROOT)}: {long}"


def test_xdist_workers_do_not_oversubscribe_the_cores():
    """Under pytest-xdist each worker's BLAS (and what it starts, through the environment) has its
    share of the cores (``conftest._share_the_cores_among_workers``), unless the caller chose."""
    import os

    import numpy  # noqa: F401  (its OpenBLAS loaded)
    from threadpoolctl import threadpool_info

    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if workers <= 1:
        pytest.skip("one test process")
    chosen = int(os.environ["OPENBLAS_NUM_THREADS"])    # (a KeyError: nobody chose)
    blas = [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]
    assert blas and max(blas) <= chosen, blas


def test_ci_runs_the_readmes_test_command():
    """``.ci/run`` runs the README's test command as it stands (with its ``--dist worksteal``: under
    xdist's default one process was handed the app and browser tests in one block and ran them
    alone for the suite's last 135 s)."""
    readme = (ROOT.parent / "README.md").read_text(encoding="utf-8")
    commands = [line.split("&&", 1)[1].split("#", 1)[0].strip() for line in readme.splitlines()
                if line.startswith("pip install -r requirements-dev.txt &&")]
    assert len(commands) == 1, commands
    assert "--dist worksteal" in commands[0]
    ci = (ROOT.parent / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert commands[0] in [line.strip() for line in ci], commands[0]
