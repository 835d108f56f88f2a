"""Cancelling long work from inside it: a sweep's cancel callback, reachable from the solvers.

``run_grid`` polls its ``cancel`` callback between σ columns; a column itself can take minutes at
n in the thousands. Inside :func:`cancellable`, the solvers' loops call :func:`check` (the exact
path every ``CHECK_EVERY`` events, pointwise solvers between λ), which raises :class:`Cancelled`
when the callback returns True. The callback travels in a context variable, so it follows the
thread that runs the sweep and needs no argument through the families' signatures. Worker
processes do not see it: there the runner stops the workers instead (``grid._run_columns``).
"""
from __future__ import annotations

import contextvars
from contextlib import contextmanager
from typing import Callable, Iterator

#: the exact path checks every this many events (an event costs ~0.1–4 ms at n = 2000)
CHECK_EVERY = 64

_CALLBACK: contextvars.ContextVar[Callable[[], bool] | None] = contextvars.ContextVar(
    "svmcore_cancel", default=None)


class Cancelled(Exception):
    """Raised inside ``run_grid`` (and the solvers it calls) when its ``cancel`` callback returns
    True."""


@contextmanager
def cancellable(callback: Callable[[], bool] | None) -> Iterator[None]:
    """Let the solvers called inside this block poll ``callback`` (None: nothing to poll)."""
    token = _CALLBACK.set(callback)
    try:
        yield
    finally:
        _CALLBACK.reset(token)


def check() -> None:
    """Raise :class:`Cancelled` when the enclosing :func:`cancellable` block's callback says so."""
    callback = _CALLBACK.get()
    if callback is not None and callback():
        raise Cancelled()
