"""A RunSpec as flat values, links and back, generated from the parameter tables.

``spec_values(spec)`` gives {parameter name: value} over every table of the spec's family (run,
data, grid, the family's own); ``spec_from_values`` is its inverse and the one way the CLI, the app
and links build a spec from plain values. ``to_query`` / ``decode_query`` turn those into a link's
key=value text with each Param's ``format`` and ``parse``: a key that no table declares, or a value
its Param refuses, is reported by name, never dropped or clamped.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping, Sequence

from ._validation import SVMCoreError
from .params import Param
from .spec import DATA_FIELDS, DATA_PARAMS, DataSpec, GridSpec, RunSpec, spec_params, validate

_DATA_NAMES = {p.name for p in DATA_PARAMS}


def spec_values(spec: RunSpec) -> dict[str, Any]:
    """{name: value} of every parameter of the spec's family (the inverse of
    :func:`spec_from_values`)."""
    out: dict[str, Any] = {"model": spec.model, "kernel": spec.kernel, "criteria": spec.criteria,
                           "log2_nlambda": spec.grid.log2_nlambda.text,
                           "log2_sigma": spec.grid.log2_sigma.text, "extend_grid": spec.extend_grid}
    for p in DATA_PARAMS:
        out[p.name] = getattr(spec.data, DATA_FIELDS.get(p.name, p.name))
    out.update(dict(spec.params))
    return out


def data_source(name: str | None, path: str | None) -> str:
    """The data source a data set name or a CSV path means; an unknown name is refused, listing
    the known ones."""
    from .datasets.bundled import BUNDLED
    from .datasets.simulations import SIMULATIONS

    if path:
        return "csv"
    if name in SIMULATIONS:
        return "simulation"
    if name in BUNDLED:
        return "bundled"
    raise SVMCoreError(f"unknown data set {name!r}; simulations: {', '.join(SIMULATIONS)}; "
                       f"bundled: {', '.join(BUNDLED)}")


def _data_spec(values: Mapping[str, Any], defaults: Mapping[str, Any]) -> DataSpec:
    d = {p.name: values.get(p.name, defaults.get(p.name, p.default)) for p in DATA_PARAMS}
    if d["data"] and "dataset" in values:
        raise SVMCoreError("give either a data set name or a CSV file, not both")
    if "source" not in values or values["source"] not in ("csv", "inline"):
        d["source"] = data_source(None if d["data"] else d["dataset"], d["data"])
    if d["source"] == "csv":
        d["dataset"] = values.get("dataset") or _basename(d["data"])
    if "split_seed" not in values:
        d["split_seed"] = d["seed"]
    if d["features"] is not None:
        d["features"] = tuple(d["features"])
    return DataSpec(**{DATA_FIELDS.get(k, k): v for k, v in d.items()})


def _basename(path) -> str:
    import os
    return os.path.basename(str(path or "")) or "csv"


def spec_from_values(values: Mapping[str, Any], defaults: Mapping[str, Any] | None = None,
                     fingerprint: str = "") -> RunSpec:
    """The validated RunSpec of plain values by parameter name (unset ones from ``defaults``,
    then each Param's default). A value for a parameter the model does not declare is refused,
    naming it."""
    from .families import all_families, get_family

    defaults = dict(defaults or {})
    model = values.get("model", defaults.get("model", "svm"))
    family = get_family(model)
    own = {p.name for p in spec_params(family)}
    others = {p.name for f in all_families() for p in f.params} - own
    stray = sorted(k for k in values if k in others)
    if stray:
        raise SVMCoreError(f"{stray[0]} does not apply to model {model!r}; its parameters: "
                           f"{', '.join(p.name for p in family.params) or 'none'}")
    unknown = sorted(k for k in values if k not in own)
    if unknown:
        raise SVMCoreError(f"unknown parameter {unknown[0]!r}")
    get = lambda name, dflt: values.get(name, defaults.get(name, dflt))  # noqa: E731
    data = replace(_data_spec(values, defaults), fingerprint=fingerprint)
    grid = GridSpec.parse(get("log2_nlambda", "-25:0:1"), get("log2_sigma", "-3:3:0.5"))
    params = {p.name: get(p.name, p.default) for p in family.params}
    return validate(RunSpec(model=model, data=data, grid=grid, kernel=get("kernel", family.kernels[0]),
                            criteria=tuple(get("criteria", ()) or ()),
                            extend_grid=bool(get("extend_grid", False)),
                            params=tuple(sorted(params.items()))))


# ------------------------------------------------------------------ links
def link_params(model: str, extra: Sequence[Param] = ()) -> list[Param]:
    """The Params a link of ``model`` may carry: the spec's (those with a URL key) and ``extra``
    (e.g. the app's view settings)."""
    from .families import get_family

    return [p for p in (*spec_params(get_family(model)), *extra) if p.key is not None]


def to_query(values: Mapping[str, Any], params: Sequence[Param]) -> dict[str, str]:
    """{url key: text} of the values that have a URL key (None values are left out)."""
    out = {}
    for p in params:
        if p.key is not None and p.name in values and values[p.name] is not None:
            out[p.key] = p.format(values[p.name])
    return out


def spec_query(spec: RunSpec) -> dict[str, str]:
    """A RunSpec as link parameters (every parameter of its family with a URL key)."""
    return to_query(spec_values(spec), link_params(spec.model))


def last_values(query: Mapping[str, Any]) -> dict[str, Any]:
    """A link's parameters with one value a key: the last, where a key came more than once (a
    query string's repeated key arrives as a list)."""
    return {k: (v[-1] if isinstance(v, list) else v) for k, v in dict(query).items()}


def decode_query(query: Mapping[str, Any], extra: Sequence[Param] = (),
                 ignore: Sequence[str] = ()) -> tuple[dict[str, Any], list[str]]:
    """({name: value}, problems) from a link's parameters.

    Each key is parsed by its Param; a key no table declares, a value its Param refuses or a key
    given twice (old and new name) gives one problem line naming it, and that key is left out.
    ``ignore``: keys read elsewhere. The model is read first: it decides the family's keys.
    """
    q = {k: v for k, v in last_values(query).items() if k not in ignore}
    problems: list[str] = []
    model = q.get("model", "svm")
    from .families import FAMILIES
    if model not in FAMILIES:
        problems.append(f"link key 'model': unknown model {model!r}; choose from {', '.join(FAMILIES)}")
        q.pop("model")
        model = "svm"
    by_key = {}
    for p in link_params(model, extra):
        for k in (p.key, *p.aliases):
            by_key.setdefault(k, p)
    values: dict[str, Any] = {}
    for k, text in q.items():
        p = by_key.get(k)
        if p is None:
            problems.append(f"link key {k!r} is not a setting of model {model!r}; it was ignored")
        elif p.name in values:
            problems.append(f"link key {k!r} repeats {p.name}; the first value was kept")
        else:
            try:
                values[p.name] = p.parse(str(text))
            except SVMCoreError as exc:
                problems.append(f"link key {k!r}: {exc}; the default was used")
    return values, problems
