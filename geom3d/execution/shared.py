"""Items of work shared with forked copies of this process (Linux).

Threads share a scene but not the interpreter: the Python between an item's compiled
calls holds the GIL, so two threads of a Line of Fire matrix ran only about 1.5 times as
fast as one on two cores. A forked child has an interpreter of its own and reads every
array the parent has built (meshes, BVH, proof map) in place: the pages are shared until
written. Only the items' results travel back, pickled.

How the items are handed out: chunks of items are numbered; this process and its
children take chunk numbers from one counter in this process. The last chunks are
smaller (:data:`TAIL_SPLIT`), so that the processes finish together rather than one
waiting while another computes a whole chunk. Each child has a pipe of
its own for orders (4-byte chunk numbers, at most two outstanding, so a pipe never
fills whatever its size) and one for answers (one length-prefixed pickle per chunk); a
thread here reads a child's answers and sends it its next chunk. This process computes
chunks too, between looking after its children.

A child that fails in any way (an exception, a signal, a result that will not pickle, a
stall) simply stops or is killed: the chunks it took and did not deliver are computed
here, once, which raises whatever an item raises. So the results, and any error, are
those of a serial run. A child must not start anything that needs threads of the parent:
:func:`~geom3d.execution.child.in_child` lets such code refuse (a BVH build), which sends
the chunk back here.
"""

from __future__ import annotations

import itertools
import logging
import os
import pickle
import signal
import threading
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

from geom3d.execution.child import StallWatch, become_worker, in_child, life_pipe
from geom3d.execution.policy import POLL_S, STALL_S
from geom3d.execution.signals import held

__all__ = ["MAX_CHUNKS", "fork_usable", "shared_map"]

log = logging.getLogger(__name__)

T = TypeVar("T")

_ENTRY = 4  # bytes per chunk number
_STOP = (2**32 - 1).to_bytes(_ENTRY, "little")
#: Chunks are made bigger past this many (the counter's bookkeeping stays small).
MAX_CHUNKS = 8192
#: Chunk numbers a child holds at once: one it computes, one waiting (no idle round trip).
_AHEAD = 2
#: Near the end a chunk holds at most ``1 / (TAIL_SPLIT * processes)`` of the items left
#: (at least one): the last chunks shrink to single items, so that the processes finish
#: within about one item of each other. With chunks of 8 pairs to the end, the parent of
#: the fused scan table's Line of Fire matrix (780 pairs, two processes, about 250 ms)
#: waited 0 to 20 ms for its child's last two chunks; with the tail split, 2 to 5 ms.
TAIL_SPLIT = 4


def fork_usable() -> bool:
    """Can :func:`shared_map` fork here: Linux, ``os.fork``, the main thread, not itself a
    worker, and not ``GEOM3D_START_METHOD=spawn``."""
    from geom3d.execution.policy import start_method

    try:
        method = start_method()
    except Exception:  # a bad setting is reported where a pool is started
        return False
    return method == "fork" and not in_child()


def chunk_bounds(n: int, chunk: int, processes: int) -> list[int]:
    """Where the chunks of ``n`` items start, and ``n`` last: ``chunk`` items each, then
    smaller ones near the end (see :data:`TAIL_SPLIT`).

    >>> chunk_bounds(20, 4, 2)
    [0, 3, 6, 8, 10, 12, 13, 14, 15, 16, 17, 18, 19, 20]
    """
    bounds = [0]
    while (done := bounds[-1]) < n:
        share = -(-(n - done) // (TAIL_SPLIT * processes))
        bounds.append(done + max(1, min(chunk, share)))
    return bounds


class _Counter:
    """The next chunk number, shared by this process's threads."""

    def __init__(self, n: int):
        self.n = n
        self.k = 0
        self.lock = threading.Lock()

    def take(self) -> int | None:
        with self.lock:
            if self.k >= self.n:
                return None
            self.k += 1
            return self.k - 1


class _Child:
    """One forked child: its pid, order pipe, answer reader and the chunks it holds."""

    def __init__(self, pid: int, orders: int, answers: int, counter: _Counter, got: dict[int, Any]):
        self.pid = pid
        self.orders = orders
        self.held: list[int] = []  # chunk numbers sent and not yet answered
        self.counter = counter
        self.got = got
        self.lock = threading.Lock()
        for _ in range(_AHEAD):
            self._send_next()
        self.reader = threading.Thread(target=self._read, args=(answers,), daemon=True)
        self.reader.start()

    def _send_next(self) -> None:
        k = self.counter.take()
        try:
            if k is None:
                os.write(self.orders, _STOP)
                return
            with self.lock:
                self.held.append(k)
            os.write(self.orders, k.to_bytes(_ENTRY, "little"))
        except OSError:  # the child is gone: what it holds is redone by the parent
            pass

    def _read(self, fd: int) -> None:
        with os.fdopen(fd, "rb") as f:
            while len(head := f.read(8)) == 8:
                size = int.from_bytes(head, "little")
                data = f.read(size)
                if len(data) != size:  # cut short by the child's death
                    return
                try:
                    k, items = pickle.loads(data)
                except Exception:  # cannot be read back: redone by the parent
                    return
                self.got.update(items)
                with self.lock:
                    self.held.remove(k)
                self._send_next()

    def close_orders(self) -> None:
        try:
            os.close(self.orders)
        except OSError:
            pass


def shared_map(
    fn: Callable[[int], Any],
    n: int,
    *,
    children: int,
    chunk: int = 8,
    progress: Callable[[int], None] | None = None,
    unpack: Callable[[int, Any], T] | None = None,
) -> list[T]:
    """``[fn(i) for i in range(n)]``, shared by this process and ``children`` forked copies.

    Parameters
    ----------
    fn : callable(int) -> picklable
        Must not depend on what other items changed in this process (each process only
        sees its own items' side effects) and must give the same result anywhere.
    n : int
    children : int
        Forked processes besides this one; 0 (or :func:`fork_usable` false, or fewer
        items than two chunks) runs every item here.
    chunk : int
        Items per chunk (more when there would be over :data:`MAX_CHUNKS` chunks; the
        last ones fewer, :data:`TAIL_SPLIT`).
    progress : callable(done), optional
        Called here after each chunk this process computes, with the items done so far
        (children's included).
    unpack : callable(i, result), optional
        Applied here to every item's result, in order, once all are in: while the
        children exit (a large process's exit takes a few milliseconds of its own).

    Returns
    -------
    list
        The results in item order (``unpack``'s, when given).
    """
    chunk = max(1, chunk, -(-n // MAX_CHUNKS))
    bounds = chunk_bounds(n, chunk, children + 1)
    n_chunks = len(bounds) - 1
    got: dict[int, Any] = {}
    if children < 1 or n_chunks < 2 or not fork_usable():
        for lo, hi in itertools.pairwise(bounds):
            got.update((i, fn(i)) for i in range(lo, hi))
            if progress is not None:
                progress(len(got))
        return _unpacked(got, n, unpack)
    counter = _Counter(n_chunks)
    kids: list[_Child] = []
    life_r, life_w = life_pipe()
    try:
        try:
            for _ in range(min(children, n_chunks - 1)):
                kids.append(_fork_child(fn, bounds, counter, got, (life_r, life_w)))
            while (taken := counter.take()) is not None:
                got.update((i, fn(i)) for i in range(bounds[taken], bounds[taken + 1]))
                if progress is not None:
                    progress(len(got))
            for kid in kids:
                _wait_for(kid)
        finally:
            for kid in kids:  # done (or this process failed): none works on
                try:
                    os.kill(kid.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        for i in range(n):  # what a child took and did not deliver: once, here
            if i not in got:
                got[i] = fn(i)
        if progress is not None:
            progress(n)
        return _unpacked(got, n, unpack)  # while the children exit
    finally:
        for kid in kids:  # none may outlive the call
            try:
                os.waitpid(kid.pid, 0)
            except ChildProcessError:
                pass
            kid.close_orders()
        for kid in kids:
            kid.reader.join()
        os.close(life_r)
        os.close(life_w)


def _unpacked(got: dict[int, Any], n: int, unpack: Callable[[int, Any], T] | None) -> list[Any]:
    """The results of items ``0 .. n - 1`` in order, through ``unpack`` when given."""
    if unpack is None:
        return [got[i] for i in range(n)]
    return [unpack(i, got[i]) for i in range(n)]


def _fork_child(
    fn: Callable[[int], Any],
    bounds: list[int],
    counter: _Counter,
    got: dict[int, Any],
    life: tuple[int, int],
) -> _Child:
    """Fork one child working on the chunks it is sent; a thread here reads its answers."""
    orders_r, orders_w = os.pipe()
    back_r, back_w = os.pipe()
    parent = os.getpid()
    with held(), warnings.catch_warnings():  # Python 3.12+ warns of other (native) threads
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child's coverage is not collected
            code = 1
            try:
                become_worker(parent, life[0], close=(orders_w, back_r, life[1]), copy=True)
                with os.fdopen(back_w, "wb") as out:
                    while (k := _next(orders_r)) is not None:
                        items = [(i, fn(i)) for i in range(bounds[k], bounds[k + 1])]
                        data = pickle.dumps((k, items), protocol=pickle.HIGHEST_PROTOCOL)
                        out.write(len(data).to_bytes(8, "little") + data)
                        out.flush()
                code = 0
            finally:
                os._exit(code)
    os.close(orders_r)
    os.close(back_w)
    return _Child(pid, orders_w, back_r, counter, got)


def _next(fd: int) -> int | None:
    data = b""
    while len(data) < _ENTRY:
        more = os.read(fd, _ENTRY - len(data))
        if not more:
            return None
        data += more
    return None if data == _STOP else int.from_bytes(data, "little")


def _wait_for(kid: _Child) -> None:
    """Wait until ``kid`` has delivered everything (its reader ends once it exits),
    killing it when its CPU time stands still for :data:`STALL_S`."""
    watch = StallWatch(kid.pid)
    while kid.reader.is_alive():
        kid.reader.join(POLL_S)
        if not kid.reader.is_alive():
            break
        if watch.stalled(POLL_S, STALL_S):
            log.warning("geom3d: a forked worker stood still %.0f s; redoing its work", STALL_S)
            os.kill(kid.pid, signal.SIGKILL)
            kid.reader.join()
            return
    kid.reader.join()
