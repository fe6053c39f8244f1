"""Signals under the one policy of SPEC 13.4: SIGINT -> exit 130, SIGTERM -> exit 143.

SIGTERM raises :class:`Terminated`, a :class:`KeyboardInterrupt`, in the main thread, so
both signals unwind the same way: every ``finally`` on the way out kills and reaps the
workers it started, partial reports are written by the commands that have them, and the
command line turns the exception into its exit code (:func:`exit_code`).

While a worker is being started both signals are held back (:func:`held`), so an
interrupt never lands between a fork and the parent's note of the child's pid.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator

__all__ = ["Terminated", "exit_code", "held", "signal_name", "sigterm_raises"]

_HELD = (signal.SIGINT, signal.SIGTERM)


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread while :func:`sigterm_raises` is in force."""


def signal_name(exc: BaseException) -> str:
    """``SIGTERM`` for :class:`Terminated`, else ``SIGINT``."""
    return "SIGTERM" if isinstance(exc, Terminated) else "SIGINT"


def exit_code(exc: BaseException) -> int:
    """143 for :class:`Terminated`, 130 for any other KeyboardInterrupt."""
    return 143 if isinstance(exc, Terminated) else 130


def _raise_terminated(signum, frame):
    raise Terminated("SIGTERM")


@contextlib.contextmanager
def sigterm_raises() -> Iterator[None]:
    """SIGTERM raises :class:`Terminated` in the main thread while the block runs (a
    no-op in other threads, where Python cannot set handlers)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old if old is not None else signal.SIG_DFL)


def install_sigterm() -> None:
    """SIGTERM raises :class:`Terminated` from now on (the command line, at start)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _raise_terminated)


@contextlib.contextmanager
def held() -> Iterator[None]:
    """SIGINT and SIGTERM wait until the block ends (then their handlers run here).

    A child forked inside the block starts with both blocked: it sets its own handlers
    first (:func:`geom3d.execution.child.become_worker`), then lets them through.
    """
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


__all__ += ["install_sigterm"]
