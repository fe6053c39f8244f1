"""Signals under the one policy of SPEC 13.4: SIGINT -> exit 130, SIGTERM -> exit 143.

SIGTERM raises :class:`Terminated`, a :class:`KeyboardInterrupt`, in the main thread, so
both signals unwind the same way: every ``finally`` on the way out kills and reaps the
workers it started, partial reports are written by the commands that have them, and the
command line turns the exception into its exit code (:func:`exit_code`).

While a worker is being started both signals are held back (:func:`held`), so an
interrupt never lands between a fork and the parent's note of the child's pid.

A handler never raises where native code has called back into Python: inside numba's
dispatcher (loading or compiling a kernel) or an extension module's import, an exception
crashed the process (SIGSEGV). Nor where Python prints and drops an exception instead of
passing it up (the collector's work, an object's ``__del__``, a ``gc.callbacks`` entry),
where the interrupt would come out as a traceback on stderr (:func:`dropped_at`). There
the signal is sent again a moment later (:func:`retry_later`), and raised once the main
thread is out of it.
"""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import threading
import time
from collections.abc import Iterator
from typing import Any

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


#: The last SIGINT or SIGTERM a handler of this module took (None: none since
#: :func:`forget_received`).
_RECEIVED: dict[str, int | None] = {"signal": None}


def forget_received() -> None:
    """Start afresh (a command's start): no signal received yet."""
    _RECEIVED["signal"] = None


def interrupt_of(exc: BaseException) -> KeyboardInterrupt | None:
    """The interrupt behind ``exc``: ``exc`` itself when it is one, else the signal
    received since :func:`forget_received` (an interrupt raised inside compiled code
    comes back wrapped: numba's dispatcher turns it into a SystemError), else None."""
    if isinstance(exc, KeyboardInterrupt):
        return exc
    got = _RECEIVED["signal"]
    if got is None:
        return None
    return Terminated("SIGTERM") if got == signal.SIGTERM else KeyboardInterrupt()


#: Where an interrupt is not raised at once, because native code calls back into them
#: (numba's dispatcher into its compiler and cache, an extension module's initialisation
#: into the import system) and an exception it did not expect there crashed the process
#: (SIGSEGV) instead of ending it with 130 or 143: these packages' modules, and the
#: import system's (named either way: "importlib._bootstrap" once the importlib package
#: has been imported).
_NATIVE_PACKAGES = ("numba", "llvmlite")
_IMPORT_SYSTEM = ("_frozen_importlib", "_frozen_importlib_external", "importlib._bootstrap",
                  "importlib._bootstrap_external")  # fmt: skip
#: A signal that came inside one of them is sent to the main thread again this long
#: after (its handler then looks again), until it can be raised; the command line's
#: deadline (:data:`GRACE_S`) still ends the process in time.
RETRY_S = 0.01


def _inside_native_caller(frame: Any) -> bool:
    """Is the main thread, at ``frame``, inside :data:`_NATIVE_PACKAGES` or
    :data:`_IMPORT_SYSTEM`?"""
    while frame is not None:
        name = frame.f_globals.get("__name__") or ""
        if name in _IMPORT_SYSTEM or name.split(".", 1)[0] in _NATIVE_PACKAGES:
            return True
        frame = frame.f_back
    return False


#: Whether the garbage collector is at work in this process: set by
#: :func:`_note_collection`, the first entry of ``gc.callbacks`` from this module's
#: import on.
_COLLECTING = [False]


def _note_collection(phase: str, info: dict[str, int]) -> None:
    """The ``gc.callbacks`` entry that keeps :data:`_COLLECTING`."""
    _COLLECTING[0] = phase == "start"


gc.callbacks.insert(0, _note_collection)


def dropped_at(frame: Any) -> bool:
    """Whether an exception raised at ``frame`` would be printed and dropped rather than
    passed up: while the collector is at work (its callbacks, the finalizers and weakref
    callbacks it runs), inside an object's ``__del__`` or a function (or method) of
    ``gc.callbacks``. (A weakref callback run outside a collection, its object's last
    reference dropped, is not recognised.)"""
    if _COLLECTING[0]:
        return True
    callbacks = set()
    for callback in gc.callbacks:
        code = getattr(getattr(callback, "__func__", callback), "__code__", None)
        if code is not None:
            callbacks.add(code)
    while frame is not None:
        if frame.f_code.co_name == "__del__" or frame.f_code in callbacks:
            return True
        frame = frame.f_back
    return False


def retry_later(signum: int, frame: Any) -> bool:
    """Send ``signum`` again in :data:`RETRY_S` and say True when raising it at ``frame``
    is not safe (:func:`_inside_native_caller`) or would be dropped (:func:`dropped_at`);
    else False."""
    if not hasattr(signal, "pthread_kill"):
        return False
    if not (_inside_native_caller(frame) or dropped_at(frame)):
        return False
    target = threading.main_thread().ident

    def again() -> None:
        time.sleep(RETRY_S)
        try:
            signal.pthread_kill(target, signum)  # type: ignore[arg-type]
        except (OSError, ValueError):  # the process is ending
            pass

    threading.Thread(target=again, name="geom3d-signal-again", daemon=True).start()
    return True


def _raise_terminated(signum: int, frame: Any) -> None:
    _RECEIVED["signal"] = signal.SIGTERM
    if not retry_later(signum, frame):
        raise Terminated("SIGTERM")


def _cli_sigterm(signum: int, frame: Any) -> None:
    _RECEIVED["signal"] = signal.SIGTERM
    arm_deadline(143)
    if not retry_later(signum, frame):
        raise Terminated("SIGTERM")


def _cli_sigint(signum: int, frame: Any) -> None:
    _RECEIVED["signal"] = signal.SIGINT
    arm_deadline(130)
    if not retry_later(signum, frame):
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

    Two things hold them. The signals are blocked in this thread, so a child forked
    inside the block starts with both blocked: it sets its own handlers first
    (:func:`geom3d.execution.child.become_worker`), then lets them through. And in the
    main thread, their Python handlers are swapped for ones that only note the signal:
    the kernel gives a process-directed signal to any thread that does not block it
    (one started ahead, a reader of a child's answers), and Python then runs the handler
    in the main thread, inside the block, whatever this thread's mask says. An interrupt
    raised inside VTK's initialisation that way crashed the process (SIGSEGV). At the
    block's end the noted signals go to the handlers that were there before, in the
    order they were noted (each once); the command line's deadline
    (:func:`arm_deadline`) starts when the signal comes, not when the block ends.
    """
    main = threading.current_thread() is threading.main_thread()
    noted: list[int] = []
    before: dict[int, Any] = {}
    if main:

        def note(signum: int, frame: object) -> None:
            noted.append(signum)
            if before.get(signum) in (_cli_sigint, _cli_sigterm):  # the command line's:
                arm_deadline(143 if signum == signal.SIGTERM else 130)  # ends in GRACE_S

        for sig in _HELD:
            before[sig] = signal.signal(sig, note)
    old = (
        signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
        if hasattr(signal, "pthread_sigmask")
        else None
    )
    try:
        yield
    finally:
        if old is not None:  # the signals pending here run their (noting) handlers now
            signal.pthread_sigmask(signal.SIG_SETMASK, old)
        for num, h in before.items():
            signal.signal(num, h if h is not None else signal.SIG_DFL)
        _deliver(noted, before)


def _deliver(noted: list[int], before: dict[int, Any]) -> None:
    """Hand each signal :func:`held` noted (once each, in order) to its earlier handler."""
    for s in dict.fromkeys(noted):
        h = before.get(s)
        if callable(h):
            h(s, None)
        elif h in (signal.SIG_DFL, None):  # the default action: end as that signal ends
            os.kill(os.getpid(), s)


__all__ += [
    "GRACE_S",
    "RETRY_S",
    "arm_deadline",
    "dropped_at",
    "forget_received",
    "install_sigterm",
    "interrupt_of",
    "retry_later",
]
