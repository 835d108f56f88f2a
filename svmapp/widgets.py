"""Streamlit widgets generated from the parameter tables (``svmcore.params.Param``).

:func:`render` draws one Param from its ``widget`` kind and constraint, with its label, its help
(``Param.describe()``) and the key ``w_<name>``; :func:`render_table` draws a whole table, so a
Param added to a family appears in the sidebar with no other edit. :func:`value` reads the value a
drawn widget holds and :func:`put` writes a value into its session-state keys (before drawing).
The container is passed in (``st``, a column, or a recording stand-in in tests).
"""
from __future__ import annotations

from numbers import Integral
from typing import Any, Iterable, Mapping, MutableMapping

from svmcore.params import Boolean, Interval, ListOf, OneOf, Options, Param


def key(p: Param, prefix: str = "w_") -> str:
    """The widget key of a Param (``prefix``: a page's own widgets, apart from the sidebar's)."""
    return f"{prefix}{p.name}"


def on_key(p: Param, prefix: str = "w_") -> str:
    """The key of the "given" checkbox of an optional number (None allowed)."""
    return f"{prefix}{p.name}_on"


def _inner(c, kind):
    """The constraint of type ``kind`` in ``c`` (itself, or one of a OneOf's options), or None."""
    if isinstance(c, kind):
        return c
    if isinstance(c, OneOf):
        return next((o for o in c.options if isinstance(o, kind)), None)
    return None


def optional(p: Param) -> bool:
    """Whether the Param admits None (its widget then has a "given" checkbox)."""
    return isinstance(p.constraint, OneOf) and None in p.constraint.options


def number_bounds(p: Param) -> dict:
    """min_value, max_value and step of a number widget from the Param's Interval (an open bound
    is left to the spec's check, which names it)."""
    iv = _inner(p.constraint, Interval)
    if iv is None:
        return {}
    whole = iv.kind is Integral
    cast = int if whole else float
    low_ok, high_ok = iv.closed in ("both", "left"), iv.closed in ("both", "right")
    out: dict[str, Any] = {"step": cast(p.step) if p.step else (1 if whole else None)}
    if iv.low is not None and low_ok:
        out["min_value"] = cast(iv.low)
    if iv.high is not None and high_ok:
        out["max_value"] = cast(iv.high)
    if not whole:
        out["format"] = "%g"
    return {k: v for k, v in out.items() if v is not None}


def _number(p: Param, ui, disabled: bool, label: str, helptext: str, prefix: str = "w_"):
    kw = number_bounds(p)
    if optional(p):
        on = ui.checkbox(f"set {label}", key=on_key(p, prefix), disabled=disabled,
                         help=f"unticked: {p.format(None)}")
        disabled = disabled or not on
    return ui.number_input(label, key=key(p, prefix), disabled=disabled, help=helptext, **kw)


#: what the select box of an optional choice holds for None: Streamlit reads a None value as
#: "nothing chosen" and shows an empty box, not the choice "none"
NONE_CHOICE = "(none)"


def _none_choice(p: Param) -> bool:
    """Whether ``p`` is a choice that admits None (its select box holds ``NONE_CHOICE`` for it)."""
    return optional(p) and _inner(p.constraint, Options) is not None


def render(p: Param, ui, *, disabled: bool = False, label: str | None = None, prefix: str = "w_"):
    """Draw ``p`` in ``ui`` (``st`` or a container) from its widget kind and constraint; its key
    is ``prefix`` + name."""
    label = label or (f"{p.label} ({p.unit})" if p.unit else p.label)
    k = key(p, prefix)
    helptext = p.describe()
    c = p.constraint
    if p.widget == "none":
        return None
    if isinstance(c, Boolean) or p.widget == "checkbox":
        return ui.checkbox(label, key=k, disabled=disabled, help=helptext)
    listof = _inner(c, ListOf)
    if listof is not None and isinstance(listof.item, Options):
        return ui.multiselect(label, list(listof.item.choices), key=k, disabled=disabled,
                              help=helptext)
    opts = _inner(c, Options)
    if opts is not None:
        choices = ([NONE_CHOICE] if optional(p) else []) + list(opts.choices)
        return ui.selectbox(label, choices, key=k, disabled=disabled, help=helptext,
                            format_func=lambda v: p.format(None if v == NONE_CHOICE else v))
    if _inner(c, Interval) is not None:
        return _number(p, ui, disabled, label, helptext, prefix)
    return ui.text_input(label, key=k, disabled=disabled, help=helptext)


def render_table(params: Iterable[Param], ui, *, skip: Iterable[str] = (), columns: int = 2,
                 prefix: str = "w_") -> None:
    """Draw every Param of a table (except ``skip``), ``columns`` to a row."""
    todo = [p for p in params if p.name not in set(skip) and p.widget != "none"]
    for start in range(0, len(todo), columns):
        cols = ui.columns(columns) if columns > 1 else [ui]
        for col, p in zip(cols, todo[start:start + columns]):
            render(p, col, prefix=prefix)


def value(p: Param, state: Mapping, prefix: str = "w_") -> Any:
    """The value the widget of ``p`` holds (the Param's default when it was never drawn)."""
    if optional(p) and _inner(p.constraint, Interval) is not None and not state.get(on_key(p, prefix)):
        return None
    v = state.get(key(p, prefix), p.default)
    if v == NONE_CHOICE and _none_choice(p):
        return None
    if isinstance(v, list):
        return list(v)
    if isinstance(v, str) and _inner(p.constraint, Options) is None:
        return v.strip()
    return v


def put(p: Param, state: MutableMapping, v: Any, prefix: str = "w_") -> None:
    """Write ``v`` into the widget keys of ``p`` (call before the widget is drawn)."""
    iv = _inner(p.constraint, Interval)
    if optional(p) and iv is not None:
        state[on_key(p, prefix)] = v is not None
        if v is None:
            v = state.get(key(p, prefix))
            if v is None:
                v = _middle(iv)
    if iv is not None and v is not None and not isinstance(v, bool):
        v = int(v) if iv.kind is Integral else float(v)
    if isinstance(v, tuple):
        v = list(v)
    if v is None and _none_choice(p):
        v = NONE_CHOICE
    state[key(p, prefix)] = v


def _middle(iv: Interval) -> float:
    """A starting value for an optional number left unset (the interval's middle, or a bound)."""
    lo, hi = iv.low, iv.high
    if lo is not None and hi is not None:
        mid = (lo + hi) / 2
        return int(mid) if iv.kind is Integral else float(mid)
    return lo if lo is not None else (hi if hi is not None else 0)
