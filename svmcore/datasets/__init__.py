"""Data sources: the papers' simulations, bundled real data sets, and user CSV files."""
from __future__ import annotations

from .._validation import SVMCoreError
from .base import Dataset, standardize
from .simulations import SIMULATIONS, make_simulation


def list_datasets() -> dict[str, list[str]]:
    """Names of the built-in simulations and of the bundled real data sets."""
    from .bundled import list_bundled

    return {"simulations": list(SIMULATIONS), "bundled": list_bundled()}


def load_dataset(name: str, n: int | None = None, seed: int = 0) -> Dataset:
    """A simulation (size ``n``, ``seed``) or a bundled real data set (standardized) by name."""
    from .bundled import BUNDLED, load_bundled

    if name in SIMULATIONS:
        return make_simulation(name, n, seed)
    if name in BUNDLED:
        if n is not None:
            raise SVMCoreError(f"--n applies to simulations only; {name!r} is a bundled data set "
                               f"with a fixed size")
        return load_bundled(name)
    raise SVMCoreError(f"unknown data set {name!r}; simulations: {', '.join(SIMULATIONS)}; "
                       f"bundled: {', '.join(BUNDLED)}")


__all__ = ["Dataset", "standardize", "SIMULATIONS", "make_simulation", "list_datasets",
           "load_dataset"]
