"""Items of work shared with forked copies of this process (Linux).

Threads share a scene but not the interpreter: the Python that runs between an item's
compiled calls holds the GIL, so two threads of a Line of Fire matrix ran only about 1.5
times as fast as one on two cores (one item's Python waits for the other's). A forked
child has an interpreter of its own and sees every array the parent has built (meshes,
BVH, proof map) without copying or pickling them: the pages are shared until written.
Only the items' results travel, pickled, through a pipe.

How the items are shared: their chunks are queued in a pipe as 4-byte chunk numbers.
The parent and its children each read 4 bytes at a time (a pipe read that small is
atomic, so each chunk goes to exactly one process) until the queue is empty; a child
writes each chunk's results back as one length-prefixed message. A child that fails (an
exception, a signal, a killed process) simply stops: the chunks it took and did not
deliver are then computed by the parent, which raises whatever an item raises. So the
results, and any error, are those of a serial run, whatever the children did.

What a child must not do is start anything that relies on threads of the parent: only
the forking thread lives on in a child. :func:`in_child` lets such code refuse (a BVH
build, whose task scheduler's workers are not there), which makes the chunk fall back to
the parent. Forking happens only from the main thread, and a caller makes sure no other
thread of its own is half-way through something a child needs (numba's compiler lock).
"""

from __future__ import annotations

import gc
import logging
import os
import pickle
import signal
import sys
import threading
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

from geom3d.core.runtime import prctl

__all__ = ["STALL_S", "fork_usable", "forked_map", "in_child"]

log = logging.getLogger(__name__)

T = TypeVar("T")

_PR_SET_PDEATHSIG = 1  # prctl(2): the signal a child gets when its parent dies
_ENTRY = 4  # bytes per queued chunk number
_MAX_CHUNKS = 8192  # 32 kB of chunk numbers: well inside a pipe's 64 kB buffer
_STATE = {"child": False}
#: A child whose CPU time stands still this long while the parent waits for it, and that
#: is not waiting for a CPU either, is stuck (a lock some other thread held at the fork):
#: it is killed and its chunk redone here. A working child never sleeps (it reads
#: nothing, and its writes are drained at once).
STALL_S = 2.0
_POLL_S = 0.25


def in_child() -> bool:
    """Is this process a child of :func:`forked_map`?"""
    return _STATE["child"]


def fork_usable() -> bool:
    """Can :func:`forked_map` fork here: Linux, ``os.fork``, the main thread, not itself
    a child of :func:`forked_map`."""
    return (
        sys.platform.startswith("linux")
        and hasattr(os, "fork")
        and threading.current_thread() is threading.main_thread()
        and not _STATE["child"]
    )


def forked_map(
    fn: Callable[[int], T],
    n: int,
    *,
    children: int,
    chunk: int = 8,
    progress: Callable[[int], None] | None = None,
) -> list[T]:
    """``[fn(i) for i in range(n)]``, shared by this process and ``children`` forked
    copies of it.

    Parameters
    ----------
    fn : callable(int) -> picklable
        Must not depend on what other items changed in this process (each process only
        sees its own items' side effects) and must give the same result in any process.
    n : int
    children : int
        Forked processes besides this one; 0 (or :func:`fork_usable` false, or fewer items
        than two chunks) runs every item here.
    chunk : int
        Items per chunk (more when there would be over 8,192 chunks).
    progress : callable(done), optional
        Called here, after each chunk this process computes, with how many items are
        done so far (children's included).

    Returns
    -------
    list
        The results in item order.
    """
    chunk = max(1, chunk, -(-n // _MAX_CHUNKS))
    n_chunks = -(-n // chunk)
    if children < 1 or n_chunks < 2 or not fork_usable():
        out: list[T] = []
        for lo in range(0, n, chunk):
            out.extend(fn(i) for i in range(lo, min(lo + chunk, n)))
            if progress is not None:
                progress(len(out))
        return out
    got: dict[int, T] = {}
    queue_r, queue_w = os.pipe()
    try:
        _write_all(queue_w, b"".join(k.to_bytes(_ENTRY, "little") for k in range(n_chunks)))
    finally:
        os.close(queue_w)  # a read of the empty queue then ends (no writer left)
    pids: list[int] = []
    readers: list[threading.Thread] = []
    try:
        for _ in range(min(children, n_chunks - 1)):
            pid, reader = _start_child(fn, n, chunk, queue_r, got)
            pids.append(pid)
            readers.append(reader)
        while (k := _next_chunk(queue_r)) is not None:
            for i in range(k * chunk, min(k * chunk + chunk, n)):
                got[i] = fn(i)
            if progress is not None:
                progress(len(got))
        for pid, reader in zip(pids, readers, strict=True):
            _wait_for(pid, reader)
    finally:
        for pid in pids:  # done (or this process failed): none may outlive the call
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(pid, 0)
        for reader in readers:
            reader.join()
        os.close(queue_r)
    for i in range(n):  # what a child took and did not deliver
        if i not in got:
            got[i] = fn(i)
    if progress is not None:
        progress(n)
    return [got[i] for i in range(n)]


def _start_child(
    fn: Callable[[int], Any], n: int, chunk: int, queue_r: int, got: dict[int, Any]
) -> tuple[int, threading.Thread]:
    """Fork one child working off ``queue_r``; a thread here reads its results into
    ``got``."""
    back_r, back_w = os.pipe()
    with warnings.catch_warnings():  # Python 3.12+ warns of other (native) threads
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:  # pragma: no cover - the child's coverage is not collected
        code = 1
        try:
            os.close(back_r)
            _child_setup()
            with os.fdopen(back_w, "wb") as out:
                while (k := _next_chunk(queue_r)) is not None:
                    items = [(i, fn(i)) for i in range(k * chunk, min(k * chunk + chunk, n))]
                    data = pickle.dumps(items, protocol=pickle.HIGHEST_PROTOCOL)
                    out.write(len(data).to_bytes(8, "little") + data)
                    out.flush()
            code = 0
        finally:
            os._exit(code)
    os.close(back_w)
    reader = threading.Thread(target=_read_back, args=(back_r, got), daemon=True)
    reader.start()
    return pid, reader


def _wait_for(pid: int, reader: threading.Thread) -> None:
    """Wait until child ``pid`` has delivered everything (its reader ends), killing it
    when its CPU time stands still for :data:`STALL_S`."""
    last, still = -1, 0.0
    while reader.is_alive():
        reader.join(_POLL_S)
        got = _cpu_ticks(pid)
        if not reader.is_alive() or got is None:
            break
        ticks, running = got
        # waiting to run (a busy machine) is not standing still
        still = still + _POLL_S if ticks == last and not running else 0.0
        last = ticks
        if still >= STALL_S:
            log.warning("geom3d: a forked worker stood still %.0f s; redoing its work", still)
            os.kill(pid, signal.SIGKILL)
            reader.join()
            return
    reader.join()


def _cpu_ticks(pid: int) -> tuple[int, bool] | None:
    """User + system clock ticks of process ``pid`` and whether it is running or ready
    to run (``/proc``), or None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        # state, then utime and stime: fields 3, 14 and 15 of proc(5)
        return int(fields[11]) + int(fields[12]), fields[0] == b"R"
    except (OSError, IndexError, ValueError):
        return None


def _child_setup() -> None:
    """In a child: note it, keep the collector off what it shares with the parent, die
    with the parent, and leave Ctrl-C to the parent (which stops its children itself)."""
    _STATE["child"] = True
    gc.freeze()  # its collections leave the objects it shares (and their pages) alone
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL))  # refused: the parent still kills it


def _read_back(fd: int, got: dict[int, Any]) -> None:
    """Read one child's messages until it closes its end (it ended or was killed)."""
    with os.fdopen(fd, "rb") as f:
        while len(head := f.read(8)) == 8:
            size = int.from_bytes(head, "little")
            data = f.read(size)
            if len(data) != size:  # cut short by the child's death: redone here
                return
            try:
                items = pickle.loads(data)
            except Exception:  # (cannot be read back: redone here)
                return
            got.update(items)


def _next_chunk(queue_r: int) -> int | None:
    data = os.read(queue_r, _ENTRY)
    return int.from_bytes(data, "little") if len(data) == _ENTRY else None


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while len(view):
        view = view[os.write(fd, view) :]
