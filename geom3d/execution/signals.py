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
import os
import signal
import threading
import time
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


#: After SIGINT or SIGTERM the command line ends within this long even if the exception
#: was swallowed on its way out (a bare ``except:`` in a third-party import, a thread that
#: will not stop): SPEC 13.4 allows 2 s, and the normal unwinding takes well under 1 s.
GRACE_S = 1.5
_ARMED = {"deadline": False, "cli": False}


def arm_deadline(code: int) -> None:
    """End the process with ``code`` in :data:`GRACE_S` unless it has ended by then
    (the command line's signal handlers call this; workers die with it)."""
    if _ARMED["deadline"]:
        return
    _ARMED["deadline"] = True

    def end() -> None:
        time.sleep(GRACE_S)
        try:
            name = "SIGTERM" if code == 143 else "SIGINT"
            os.write(2, f"geom3d: interrupted ({name})\n".encode())
        finally:
            os._exit(code)

    threading.Thread(target=end, name="geom3d-deadline", daemon=True).start()


def _raise_terminated(signum: int, frame: object) -> None:
    raise Terminated("SIGTERM")


def _cli_sigterm(signum: int, frame: object) -> None:
    arm_deadline(143)
    raise Terminated("SIGTERM")


def _cli_sigint(signum: int, frame: object) -> None:
    arm_deadline(130)
    raise KeyboardInterrupt


@contextlib.contextmanager
def sigterm_raises() -> Iterator[None]:
    """SIGTERM raises :class:`Terminated` in the main thread while the block runs (a
    no-op in other threads, where Python cannot set handlers)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    current = signal.getsignal(signal.SIGTERM)
    handler = current if current in (_cli_sigterm,) else _raise_terminated
    old = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old if old is not None else signal.SIG_DFL)


def install_sigterm() -> None:
    """From now on SIGTERM raises :class:`Terminated` and SIGINT KeyboardInterrupt (the
    command line, at start). SIGINT is set even where the process inherited it ignored (a
    script's background job): the contract is "SIGINT -> 130" wherever it comes from."""
    if threading.current_thread() is threading.main_thread():
        _ARMED["cli"] = True
        signal.signal(signal.SIGTERM, _cli_sigterm)
        signal.signal(signal.SIGINT, _cli_sigint)


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


__all__ += ["GRACE_S", "arm_deadline", "install_sigterm"]
