"""Native code that may crash, run in a forked child: its crash is an error line, not the
command's death (SPEC 13.4).

``render`` draws with VTK, whose native code can segfault (under ``ulimit -v`` it did:
exit 139, no message). :func:`run_isolated` forks, runs the drawing in the child (which
shares the built scene copy-on-write), and takes its answer back through a pipe: a child
that dies by a signal becomes ``geom3d: error: the renderer crashed (SIGSEGV) while
drawing ...`` (exit 2). The drawing is written by the child with an atomic write (a
temporary file renamed over the name) after the picture is made in memory, so a crash
leaves nothing half-written at the output path.
"""

from __future__ import annotations

import faulthandler
import os
import pickle
import signal
import sys
import threading
import traceback
import warnings
from collections.abc import Callable
from typing import TypeVar

from geom3d.core.errors import Geom3dError
from geom3d.core.memory import out_of_memory_line
from geom3d.core.runtime import prctl

__all__ = ["RendererCrashed", "run_isolated"]

T = TypeVar("T")

#: ``prctl`` option: a signal sent to this process when its parent dies.
_PR_SET_PDEATHSIG = 1


class RendererCrashed(Geom3dError):
    """The child drawing a figure died by a signal (a native crash)."""


def _forkable() -> bool:
    return (
        sys.platform.startswith("linux")
        and hasattr(os, "fork")
        and threading.current_thread() is threading.main_thread()
    )


def _child(fn: Callable[[], T], w: int, what: str) -> None:  # pragma: no cover - a child
    code = 0
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
        faulthandler.disable()  # a crash is the parent's one line, not a dump of frames
        prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL))  # never outlives the command
        try:
            payload: tuple = ("ok", fn())
        except Geom3dError as exc:
            payload = ("error", str(exc))
        except MemoryError as exc:
            payload = ("error", out_of_memory_line(exc) or f"out of memory while {what}")
        except BaseException as exc:  # a bug: the parent raises it again, with the trace
            payload = ("bug", f"{type(exc).__name__}: {exc}", traceback.format_exc())
        data = pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL)
        with os.fdopen(w, "wb") as out:
            out.write(data)
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        code = 1
    finally:
        os._exit(code)


def run_isolated(fn: Callable[[], T], what: str, *, crashed: str = "the renderer") -> T:
    """``fn()`` run in a forked child; its result (pickled) returned here.

    Parameters
    ----------
    fn : callable
        The work with native code that may crash; returns a picklable value.
    what : str
        What it does, for the error line (``drawing the plan view of s.yaml``).
    crashed : str
        Who crashed, for the error line.

    Raises
    ------
    RendererCrashed
        The child died by a signal (SIGSEGV, SIGBUS, SIGABRT, SIGKILL, ...) or ended
        without an answer.
    Geom3dError
        ``fn`` raised one (its message), or ran out of memory.
    RuntimeError
        ``fn`` raised anything else (a bug): its traceback is printed on stderr first.

    Where a fork is not possible (not Linux, not the main thread), ``fn`` runs here.
    """
    if not _forkable():
        return fn()
    from geom3d.scene.ahead import settle_background

    settle_background()  # no thread of ours holds a lock the child would find held
    sys.stdout.flush()
    sys.stderr.flush()
    r, w = os.pipe()
    with warnings.catch_warnings():  # Python 3.12+ warns of other (native) threads
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:  # pragma: no cover - the child's coverage is not collected
        os.close(r)
        _child(fn, w, what)
    os.close(w)
    try:
        with os.fdopen(r, "rb") as fh:
            data = fh.read()
        _, status = os.waitpid(pid, 0)
    except BaseException:  # interrupted: the child goes with us
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except OSError:
            pass
        raise
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = f"signal {sig}"
        raise RendererCrashed(f"{crashed} crashed ({name}) while {what}")
    try:
        payload = pickle.loads(data)
    except Exception:
        payload = None
    if not isinstance(payload, tuple) or not payload:
        code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else status
        raise RendererCrashed(f"{crashed} ended without an answer (exit {code}) while {what}")
    if payload[0] == "ok":
        return payload[1]
    if payload[0] == "error":
        raise Geom3dError(payload[1])
    sys.stderr.write(payload[2])
    raise RuntimeError(f"{crashed} failed while {what}: {payload[1]}")
