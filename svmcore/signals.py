"""Stopping cleanly: SIGTERM handled like Ctrl-C, and worker processes that end with their parent.

* :func:`stop_on_sigterm` makes SIGTERM raise :class:`KeyboardInterrupt` in the main thread, so a
  terminated command takes the same path as Ctrl-C: the backends stop their workers
  (``svmcore.study``, ``svmcore.grid``) and no partial output is written (``svmcore.safeio``).
* :func:`exit_with_parent` runs in each worker process (the executors' initializer): a daemon
  thread checks every ``WATCH_SECONDS`` that the parent process is still there and ends the worker
  at once when it is not (the parent was killed with SIGKILL and could not stop it).
"""
from __future__ import annotations

import os
import signal
import threading
import time

#: how often a worker checks that its parent is alive
WATCH_SECONDS = 0.5


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt(f"signal {signum}")


def stop_on_sigterm() -> bool:
    """Make SIGTERM raise KeyboardInterrupt (main thread only); True when installed."""
    if threading.current_thread() is not threading.main_thread():
        return False
    signal.signal(signal.SIGTERM, _raise_interrupt)
    return True


def _watch(parent: int) -> None:
    while True:
        time.sleep(WATCH_SECONDS)
        if os.getppid() != parent:
            os._exit(1)


def exit_with_parent() -> None:
    """Start (once per process) a daemon thread that ends this process when its parent dies."""
    global _WATCHING
    if _WATCHING:
        return
    _WATCHING = True
    threading.Thread(target=_watch, args=(os.getppid(),), name="svmcore-exit-with-parent",
                     daemon=True).start()


_WATCHING = False
