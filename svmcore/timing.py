"""How long a sweep will take, from measured rates.

A :class:`RateBook` holds measured seconds per grid point, keyed by the solver and the workload (the
in-sample criteria alone, or with k-fold CV, or with exact leave-one-out), each at the n it was
measured at. An estimate for another n scales the nearest measurement by (n / n₀)^p, with p taken
from two measurements of the same key that bracket n when there are such, else ``DEFAULT_POWER``.

The app starts from ``svmcore/data/rates.json`` (written on the build machine by
``bench/measure_rates.py``) and adds every finished sweep, so estimates follow the machine it runs on.
No Streamlit here.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from importlib import resources
from typing import Iterable, Sequence

#: growth of seconds per point with n when only one measurement is at hand (the path solver's
#: elbow systems and the QP grow a little faster than n²; bench/path_vs_pointwise.py)
DEFAULT_POWER = 2.3


def workload(criteria: Sequence[str], cv_folds: int = 5) -> str:
    """The key of what a grid point costs: ``insample``, ``cv5`` (k-fold CV with k = 5), ``loo``,
    or ``cv5+loo``."""
    parts = [f"cv{int(cv_folds)}"] if "cv" in criteria else []
    parts += ["loo"] if "loo" in criteria else []
    return "+".join(parts) or "insample"


@dataclass
class RateBook:
    """Measured seconds per grid point: records of (solver, workload, n, seconds_per_point)."""

    records: list[dict] = field(default_factory=list)
    max_records: int = 400

    def add(self, solver: str, work: str, n: int, points: int, seconds: float) -> None:
        """Record one finished sweep (``points`` grid points in ``seconds`` of wall time)."""
        if points <= 0 or not (seconds > 0 and math.isfinite(seconds)) or n <= 0:
            return
        self.records.append({"solver": solver, "workload": work, "n": int(n),
                             "seconds_per_point": float(seconds) / int(points)})
        del self.records[:-self.max_records]

    def _rates(self, solver: str, work: str) -> dict[int, float]:
        """{n: median seconds per point} of one key."""
        by_n: dict[int, list[float]] = {}
        for r in self.records:
            if r["solver"] == solver and r["workload"] == work:
                by_n.setdefault(int(r["n"]), []).append(float(r["seconds_per_point"]))
        return {n: sorted(v)[len(v) // 2] for n, v in by_n.items()}

    def seconds_per_point(self, solver: str, work: str, n: int) -> float | None:
        """Estimated seconds per grid point at ``n``; None when this key was never measured."""
        rates = self._rates(solver, work)
        if not rates:
            return None
        if n in rates:
            return rates[n]
        ns = sorted(rates)
        lo = max((m for m in ns if m < n), default=None)
        hi = min((m for m in ns if m > n), default=None)
        if lo is not None and hi is not None:          # interpolate on the log-log line
            p = math.log(rates[hi] / rates[lo]) / math.log(hi / lo)
            return rates[lo] * (n / lo) ** p
        near = lo if lo is not None else hi
        p = DEFAULT_POWER
        if len(ns) >= 2:                               # extrapolate with the measured slope
            a, b = (ns[-2], ns[-1]) if hi is None else (ns[0], ns[1])
            p = min(max(math.log(rates[b] / rates[a]) / math.log(b / a), 1.0), 3.5)
        return rates[near] * (n / near) ** p

    def estimate(self, solver: str, criteria: Sequence[str], n: int, points: int,
                 cv_folds: int = 5) -> float | None:
        """Estimated seconds of a sweep of ``points`` grid points, or None without a measurement."""
        s = self.seconds_per_point(solver, workload(criteria, cv_folds), n)
        return None if s is None else s * points

    # -------------------------------------------------------------- data-only persistence
    def to_json(self) -> str:
        return json.dumps({"records": self.records}, indent=1)

    @classmethod
    def from_records(cls, records: Iterable[dict]) -> "RateBook":
        book = cls()
        for r in records:
            try:
                book.records.append({"solver": str(r["solver"]), "workload": str(r["workload"]),
                                     "n": int(r["n"]), "seconds_per_point": float(r["seconds_per_point"])})
            except (KeyError, TypeError, ValueError):
                continue
        return book

    @classmethod
    def baseline(cls) -> "RateBook":
        """The rates measured on the build machine (``bench/measure_rates.py``); empty if absent."""
        try:
            text = resources.files("svmcore").joinpath("data/rates.json").read_text()
            return cls.from_records(json.loads(text)["records"])
        except (FileNotFoundError, KeyError, ValueError, TypeError):
            return cls()


def estimate_seconds(spec, n: int) -> float | None:
    """Estimated seconds of the sweep ``spec`` on ``n`` training rows, from the build machine's
    measured rates (None for a family without measured rates).

    Parameters
    ----------
    spec : RunSpec
        A validated spec (its model, solver, criteria, CV folds and grid are used).
    n : int
        Training rows.

    Returns
    -------
    float or None
    """
    if spec.model != "svm":
        return None
    from .families.svm.fit import choose_solver

    solver = choose_solver(spec.solver, n)
    return RateBook.baseline().estimate(solver, spec.criteria, n, spec.grid.size, spec.cv_folds)


def confirm_long_work(seconds: float | None, yes: bool, stdin=None, stderr=None) -> None:
    """Announce work estimated over ``limits.CONFIRM_SECONDS`` on stderr, before it starts.

    On a terminal the work needs ``--yes`` (SVMCoreError otherwise); in a script (stdin not a
    terminal) it runs on after the note.
    """
    import sys

    from ._validation import SVMCoreError
    from .limits import CONFIRM_SECONDS

    if seconds is None or seconds <= CONFIRM_SECONDS:
        return
    stdin, stderr = stdin or sys.stdin, stderr or sys.stderr
    text = f"about {seconds / 60:.0f} min" if seconds >= 120 else f"about {seconds:.0f} s"
    print(f"note: this work is estimated at {text} (measured rates, svmcore/timing.py)",
          file=stderr, flush=True)
    if not yes and stdin is not None and stdin.isatty():
        raise SVMCoreError(f"estimated {text} of work, over {CONFIRM_SECONDS:.0f} s: give --yes to "
                           "run it, or shrink the grid, n or the criteria")
