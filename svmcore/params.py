"""Parameters declared once: a constraint, a default and how each surface shows it.

A :class:`Param` is one row of a parameter table (the idea of scikit-learn's
``_parameter_constraints``, extended with what the CLI, the app and links need). Every surface is
generated from the tables:

- the argparse options of the commands (:func:`add_arguments`, :func:`given_values`),
- the Streamlit widgets (``svmapp.widgets``),
- the URL codec, the cache key and the saved-run JSON (``svmcore.spec``),
- the invalid-value tests (:meth:`Param.invalid_value`, as scikit-learn's
  ``generate_invalid_param_val``).

A constraint checks a typed value (:meth:`check`) and parses a text (:meth:`parse`, for the CLI and
links); both raise ``SVMCoreError`` with one line that names the parameter and what is allowed.
Nothing is clamped: a value out of range is refused.
"""
from __future__ import annotations

import argparse
import math
import re
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any, Iterable, Mapping, Sequence

from ._validation import SVMCoreError

_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")
_NONE = ("", "none", "null", "default")


# ------------------------------------------------------------------ constraints
@dataclass(frozen=True)
class Interval:
    """A number in a range: ``kind`` is Integral or Real; ``closed`` as in scikit-learn."""

    kind: type
    low: float | None
    high: float | None
    closed: str = "both"           # "both", "left", "right", "neither"

    def check(self, name: str, value) -> Any:
        if isinstance(value, bool) or not isinstance(value, (Integral, Real)):
            raise SVMCoreError(f"{name} must be a number, got {value!r}")
        if not math.isfinite(float(value)):
            raise SVMCoreError(f"{name} must be a finite number, got {value!r}")
        if self.kind is Integral and float(value) != int(value):
            raise SVMCoreError(f"{name} must be a whole number, got {value!r}")
        v = int(value) if self.kind is Integral else float(value)
        lo_ok = self.low is None or (v >= self.low if self.closed in ("both", "left") else v > self.low)
        hi_ok = self.high is None or (v <= self.high if self.closed in ("both", "right") else v < self.high)
        if not (lo_ok and hi_ok):
            raise SVMCoreError(f"{name} must be in {self.describe()}, got {value!r}")
        return v

    def parse(self, name: str, text: str) -> Any:
        try:
            v = float(str(text).strip())
        except ValueError:
            raise SVMCoreError(f"{name} must be a number, got {text!r}") from None
        return self.check(name, v)

    def describe(self) -> str:
        left = "[" if self.closed in ("both", "left") else "("
        right = "]" if self.closed in ("both", "right") else ")"
        fmt = (lambda v: f"{int(v)}") if self.kind is Integral else (lambda v: f"{v:g}")
        lo = "-inf" if self.low is None else fmt(self.low)
        hi = "inf" if self.high is None else fmt(self.high)
        return f"{left}{lo}, {hi}{right}"

    def invalid(self):
        return (self.high + 1) if self.high is not None else (self.low - 1 if self.low is not None else "x")

    def invalid_text(self) -> str:
        return "not-a-number"


@dataclass(frozen=True)
class Options:
    """One of ``choices`` (text is matched against each choice's text)."""

    choices: tuple

    def check(self, name: str, value) -> Any:
        if value not in self.choices or isinstance(value, bool) != isinstance(self.choices[0], bool):
            raise SVMCoreError(f"{name} must be one of {self.describe()}; got {value!r}")
        return value

    def parse(self, name: str, text: str) -> Any:
        for c in self.choices:
            if str(c) == str(text).strip():
                return c
        raise SVMCoreError(f"{name} must be one of {self.describe()}; got {text!r}")

    def describe(self) -> str:
        return ", ".join(map(str, self.choices))

    def invalid(self):
        return "__not_an_option__"

    def invalid_text(self) -> str:
        return "__not_an_option__"


@dataclass(frozen=True)
class Boolean:
    """True or False (text: true/false, yes/no, on/off, 1/0)."""

    def check(self, name: str, value) -> bool:
        if not isinstance(value, bool):
            raise SVMCoreError(f"{name} must be true or false, got {value!r}")
        return value

    def parse(self, name: str, text: str) -> bool:
        t = str(text).strip().lower()
        if t in _TRUE or t in _FALSE:
            return t in _TRUE
        raise SVMCoreError(f"{name} must be true or false, got {text!r}")

    def describe(self) -> str:
        return "true or false"

    def invalid(self):
        return "maybe"

    def invalid_text(self) -> str:
        return "maybe"


@dataclass(frozen=True)
class Text:
    """A string of at most ``max_len`` characters, matching ``pattern`` when given."""

    max_len: int = 500
    pattern: str | None = None
    what: str = "text"

    def check(self, name: str, value) -> str:
        if not isinstance(value, str):
            raise SVMCoreError(f"{name} must be {self.what}, got {value!r}")
        if len(value) > self.max_len:
            raise SVMCoreError(f"{name} must be at most {self.max_len} characters, got {len(value)}")
        if self.pattern is not None and not re.fullmatch(self.pattern, value):
            raise SVMCoreError(f"{name} must be {self.what}, got {value!r}")
        return value

    def parse(self, name: str, text: str) -> str:
        return self.check(name, str(text).strip())

    def describe(self) -> str:
        return self.what

    def invalid(self):
        return 12345 if self.pattern is None else "\x00?"

    def invalid_text(self) -> str:
        return "x" * (self.max_len + 1)


@dataclass(frozen=True)
class ListOf:
    """A comma list of items (each checked by ``item``), at most ``max_items``, no repeats."""

    item: Any
    max_items: int = 100
    min_items: int = 0

    def check(self, name: str, value) -> tuple:
        if isinstance(value, str) or not isinstance(value, (list, tuple)):
            raise SVMCoreError(f"{name} must be a list, got {value!r}")
        if not (self.min_items <= len(value) <= self.max_items):
            raise SVMCoreError(f"{name} must have {self.min_items} to {self.max_items} items, "
                               f"got {len(value)}")
        items = tuple(self.item.check(name, v) for v in value)
        dup = sorted({v for v in items if items.count(v) > 1}, key=str)
        if dup:
            raise SVMCoreError(f"{name} names {dup[0]!r} twice")
        return items

    def parse(self, name: str, text: str) -> tuple:
        parts = [p.strip() for p in str(text).split(",") if p.strip()]
        if not parts and str(text).strip():
            raise SVMCoreError(f"{name} is empty; give a comma list of: {self.item.describe()}")
        return self.check(name, tuple(self.item.parse(name, p) for p in parts))

    def describe(self) -> str:
        return f"a comma list of: {self.item.describe()}"

    def invalid(self):
        return (self.item.invalid(),)

    def invalid_text(self) -> str:
        return self.item.invalid_text()


@dataclass(frozen=True)
class OneOf:
    """Any of several constraints; ``None`` among them admits None (text "none" or empty)."""

    options: tuple

    def check(self, name: str, value) -> Any:
        if value is None and None in self.options:
            return None
        return self._first(name, value, "check")

    def parse(self, name: str, text: str) -> Any:
        if None in self.options and str(text).strip().lower() in _NONE:
            return None
        return self._first(name, text, "parse")

    def _first(self, name: str, value, method: str) -> Any:
        """The first constraint that accepts ``value`` (by its ``check`` or ``parse``)."""
        errors = []
        for c in self.options:
            if c is None:
                continue
            try:
                return getattr(c, method)(name, value)
            except SVMCoreError as exc:
                errors.append(str(exc))
        raise SVMCoreError(self._message(name, value, errors))

    def _message(self, name, value, errors) -> str:
        return f"{name} must be {self.describe()}, got {value!r}" if len(errors) != 1 else errors[0]

    def describe(self) -> str:
        return " or ".join("none" if c is None else c.describe() for c in self.options)

    def invalid(self):
        return next(c for c in self.options if c is not None).invalid()

    def invalid_text(self) -> str:
        return next(c for c in self.options if c is not None).invalid_text()


Constraint = Interval | Options | Boolean | Text | ListOf | OneOf


# ------------------------------------------------------------------ a parameter
@dataclass(frozen=True)
class Param:
    """One declared parameter.

    Attributes
    ----------
    name : the attribute name (RunSpec, DataSpec or a family's parameters).
    constraint : what values are allowed (checked once, in ``svmcore.spec.validate``).
    default : the value when not given.
    label, help, unit : for widgets, ``--help`` and the docs ("" when no unit).
    cli_flag : "--flag" in the commands; "" derives it from the name; None: not in the CLI.
    url_key : key in links; "" uses the name; None: not in links.
    widget : "number", "int", "slider", "select", "checkbox", "text", "multiselect" or "none".
    aliases : older link keys still read (a link keeps working after a rename).
    step : the widget's step for numbers.
    """

    name: str
    constraint: Any
    default: Any
    label: str
    help: str
    unit: str = ""
    cli_flag: str | None = ""
    url_key: str | None = ""
    widget: str = "number"
    aliases: tuple[str, ...] = ()
    step: float | None = None

    @property
    def flag(self) -> str | None:
        if self.cli_flag is None:
            return None
        return self.cli_flag or "--" + self.name.replace("_", "-")

    @property
    def key(self) -> str | None:
        if self.url_key is None:
            return None
        return self.url_key or self.name

    def check(self, value) -> Any:
        return self.constraint.check(self.name, value)

    def parse(self, text) -> Any:
        """A typed value from text (CLI, link); a non-text value is checked as it is."""
        if not isinstance(text, str):
            return self.check(text)
        return self.constraint.parse(self.name, text)

    def format(self, value) -> str:
        """The text that :meth:`parse` reads back to ``value``."""
        if value is None:
            return "none"
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, float):
            return repr(value) if value != int(value) or abs(value) >= 1e15 else f"{value:g}"
        if isinstance(value, (list, tuple)):
            return ",".join(self.format(v) for v in value)
        return str(value)

    def invalid_value(self):
        """A value the constraint refuses (for the generated invalid-value tests)."""
        return self.constraint.invalid()

    def invalid_text(self) -> str:
        """A text :meth:`parse` refuses (for the generated CLI and link tests)."""
        return self.constraint.invalid_text()

    def describe(self) -> str:
        unit = f" ({self.unit})" if self.unit else ""
        return f"{self.help}{unit}; {self.constraint.describe()}; default {self.format(self.default)}"


# ------------------------------------------------------------------ tables → argparse
def unique(params: Iterable[Param]) -> list[Param]:
    """The first Param of each name, in order."""
    seen: dict[str, Param] = {}
    for p in params:
        seen.setdefault(p.name, p)
    return list(seen.values())


def add_arguments(parser: argparse.ArgumentParser, params: Sequence[Param], title: str | None = None):
    """One option per Param that has a CLI flag, read as text and parsed later by the Param (so
    the error names the parameter and what is allowed). Options not given are absent from the
    namespace (``argparse.SUPPRESS``), so the spec's defaults apply."""
    group = parser.add_argument_group(title) if title else parser
    for p in params:
        if p.flag is None or p.flag in getattr(parser, "_option_string_actions", {}):
            continue
        extra = dict(nargs="?", const="true", metavar="true|false") \
            if isinstance(p.constraint, Boolean) else dict(metavar="X")
        group.add_argument(p.flag, dest=p.name, default=argparse.SUPPRESS,
                           help=p.describe().replace("%", "%%"), **extra)


def given_values(args: argparse.Namespace | Mapping, params: Sequence[Param]) -> dict:
    """{name: typed value} of the Params given on the command line (each parsed by its Param;
    errors name the flag)."""
    ns = vars(args) if isinstance(args, argparse.Namespace) else dict(args)
    out = {}
    for p in params:
        if p.name in ns and p.flag is not None:
            try:
                out[p.name] = p.parse(ns[p.name])
            except SVMCoreError as exc:
                raise SVMCoreError(f"{p.flag}: {exc}") from None
    return out
