"""Single flight: identical work requested at once from several threads runs once.

The first caller of a key (the leader) computes; callers of the same key that arrive while it
computes wait for its result, or its exception. Used by the result cache
(``store.ResultCache.get_or_compute``) and by the app's sweeps, so that the browsers of a whole class
opening the same view at once start one sweep.
"""
from __future__ import annotations

import threading
from concurrent.futures import Future, TimeoutError as Pending
from typing import Callable, Hashable

from .cancel import Cancelled

_FLIGHTS: dict[Hashable, Future] = {}
_LOCK = threading.Lock()


def in_flight() -> int:
    """How many keys are being computed now."""
    with _LOCK:
        return len(_FLIGHTS)


def single_flight(key: Hashable, compute: Callable[[], object], *,
                  cancel: Callable[[], bool] | None = None, retry_on: tuple = ()):
    """``compute()``'s result, computed once for all callers of ``key`` at the same time.

    A waiting caller polls ``cancel`` (five times a second) and raises the leader's exception,
    except one of ``retry_on`` (e.g. the leader was cancelled by its own user), after which it
    computes the result itself.
    """
    with _LOCK:
        fut = _FLIGHTS.get(key)
        leader = fut is None
        if leader:
            fut = _FLIGHTS[key] = Future()
    if not leader:
        return _wait(fut, key, compute, cancel, retry_on)
    try:
        out = compute()
        fut.set_result(out)
        return out
    except BaseException as exc:
        fut.set_exception(exc)
        raise
    finally:
        with _LOCK:
            _FLIGHTS.pop(key, None)


def _wait(fut: Future, key, compute, cancel, retry_on):
    while True:
        if cancel is not None and cancel():
            raise Cancelled()
        try:
            return fut.result(timeout=0.2)
        except Pending:
            continue
        except retry_on:
            return single_flight(key, compute, cancel=cancel, retry_on=retry_on)
