"""What every worker process does first, and how the parent watches it.

- It dies with its parent, whatever killed the parent: Linux's parent-death signal
  (``PR_SET_PDEATHSIG``, SIGKILL), and everywhere a liveness pipe: the parent holds the
  only write end, so the worker's read end sees end-of-file the moment the parent is
  gone, and a thread of the worker then ends the process. No ``os.kill(pid, 0)`` probe
  (on Windows that would be a Ctrl-C).
- Ctrl-C is the parent's: a worker ignores SIGINT (a terminal sends it to the whole
  group) and takes SIGTERM's default action; the parent kills and reaps it.
- Standard streams are made afresh: a lock another thread of the parent held at the
  fork (a progress bar writing to stderr) would otherwise be held forever here.
- Its objects shared with the parent are frozen out of the collector, so their pages
  stay shared.
"""

from __future__ import annotations

import gc
import os
import signal
import sys
import threading

from geom3d.core.runtime import prctl

__all__ = ["become_worker", "cpu_ticks", "die_with_parent", "in_child", "life_pipe"]

_PR_SET_PDEATHSIG = 1  # prctl(2): the signal a child gets when its parent thread dies
_STATE = {"child": False}


def in_child() -> bool:
    """Is this process a forked copy sharing its parent's scene (:mod:`.shared`)? Such a
    copy may read the parent's BVH but not build one (the task scheduler's threads were
    not copied). A pool worker (:mod:`.pool`) is not one: it builds its own."""
    return _STATE["child"]


def die_with_parent() -> None:
    """Ask Linux to SIGKILL this process when its parent ends (a no-op elsewhere)."""
    if sys.platform.startswith("linux"):
        prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL))


def life_pipe() -> tuple[int, int]:
    """A pipe whose write end only the parent keeps: ``(read_fd, write_fd)``.

    The read end is inheritable (a spawned worker gets it by number)."""
    r, w = os.pipe()
    os.set_inheritable(r, True)
    return r, w


def _watch(fd: int) -> None:
    try:
        while os.read(fd, 1):
            pass
    except OSError:
        pass
    os._exit(3)  # the parent is gone (or closed our end): nothing left to work for


def become_worker(
    parent_pid: int, life_fd: int | None, *, close: tuple[int, ...] = (), copy: bool = False
) -> None:
    """Set this process up as a worker (call first thing in the child).

    Parameters
    ----------
    parent_pid : int
        The parent's pid when it started this worker: if the parent is already gone
        (its death came before the parent-death signal was set), exit now.
    life_fd : int or None
        Read end of :func:`life_pipe`; a daemon thread exits the process at its EOF.
    close : tuple of int
        File descriptors inherited from the parent that this worker must not hold
        (write ends of other pipes, so that their readers see end-of-file).
    copy : bool
        A copy sharing the parent's scene (:func:`in_child` true from now on).
    """
    _STATE["child"] = copy
    for fd in close:
        try:
            os.close(fd)
        except OSError:
            pass
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    die_with_parent()
    if os.getppid() != parent_pid:
        os._exit(3)
    if life_fd is not None:
        threading.Thread(target=_watch, args=(life_fd,), daemon=True).start()
    for name, fd in (("stdout", 1), ("stderr", 2)):
        try:  # fresh objects: no lock inherited from another thread of the parent
            setattr(sys, name, open(fd, "w", buffering=1, closefd=False, errors="replace"))
        except OSError:
            pass
    gc.freeze()
    if hasattr(signal, "pthread_sigmask"):  # let the signals held at the fork through
        signal.pthread_sigmask(signal.SIG_UNBLOCK, (signal.SIGINT, signal.SIGTERM))


def cpu_ticks(pid: int) -> tuple[int, bool] | None:
    """User + system clock ticks of process ``pid`` and whether it is running or ready to
    run (Linux ``/proc``), or None when it is gone or there is no ``/proc``."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        # state, then utime and stime: fields 3, 14 and 15 of proc(5)
        return int(fields[11]) + int(fields[12]), fields[0] == b"R"
    except (OSError, IndexError, ValueError):
        return None


class StallWatch:
    """Notices a worker whose CPU time stands still while it holds work (and which is
    asleep, not waiting for a CPU on a busy machine), for :data:`.policy.STALL_S`."""

    def __init__(self, pid: int):
        self.pid = pid
        self.last = -1
        self.still = 0.0

    def reset(self) -> None:
        self.last, self.still = -1, 0.0

    def stalled(self, waited_s: float, limit_s: float) -> bool:
        """Call after waiting ``waited_s``; True once it stood still ``limit_s``."""
        got = cpu_ticks(self.pid)
        if got is None:
            return False
        ticks, running = got
        self.still = self.still + waited_s if ticks == self.last and not running else 0.0
        self.last = ticks
        return self.still >= limit_s


__all__ += ["StallWatch"]
