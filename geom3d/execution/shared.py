"""Items of work shared with forked copies of this process (Linux).

Threads share a scene but not the interpreter: the Python between an item's compiled
calls holds the GIL, so two threads of a Line of Fire matrix ran only about 1.5 times as
fast as one on two cores. A forked child has an interpreter of its own and reads every
array the parent has built (meshes, BVH, proof map) in place: the pages are shared until
written. Only the items' results travel back, pickled.

How the items are handed out: chunks of items are numbered; this process and its
children take chunk numbers from one counter in this process. Each child has a pipe of
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


def fork_usable() -> bool:
    """Can :func:`shared_map` fork here: Linux, ``os.fork``, the main thread, not itself a
    worker, and not ``GEOM3D_START_METHOD=spawn``."""
    from geom3d.execution.policy import start_method

    try:
        method = start_method()
    except Exception:  # a bad setting is reported where a pool is started
        return False
    return method == "fork" and not in_child()


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
    fn: Callable[[int], T],
    n: int,
    *,
    children: int,
    chunk: int = 8,
    progress: Callable[[int], None] | None = None,
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
        Items per chunk (more when there would be over :data:`MAX_CHUNKS` chunks).
    progress : callable(done), optional
        Called here after each chunk this process computes, with the items done so far
        (children's included).

    Returns
    -------
    list
        The results in item order.
    """
    chunk = max(1, chunk, -(-n // MAX_CHUNKS))
    n_chunks = -(-n // chunk)
    if children < 1 or n_chunks < 2 or not fork_usable():
        out: list[T] = []
        for lo in range(0, n, chunk):
            out.extend(fn(i) for i in range(lo, min(lo + chunk, n)))
            if progress is not None:
                progress(len(out))
        return out
    got: dict[int, T] = {}
    counter = _Counter(n_chunks)
    kids: list[_Child] = []
    life_r, life_w = life_pipe()
    try:
        for _ in range(min(children, n_chunks - 1)):
            kids.append(_fork_child(fn, n, chunk, counter, got, (life_r, life_w)))
        while (k := counter.take()) is not None:
            for i in range(k * chunk, min(k * chunk + chunk, n)):
                got[i] = fn(i)
            if progress is not None:
                progress(len(got))
        for kid in kids:
            _wait_for(kid)
    finally:
        for kid in kids:  # done (or this process failed): none may outlive the call
            try:
                os.kill(kid.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            try:
                os.waitpid(kid.pid, 0)
            except ChildProcessError:
                pass
            kid.close_orders()
        for kid in kids:
            kid.reader.join()
        os.close(life_r)
        os.close(life_w)
    for i in range(n):  # what a child took and did not deliver: once, here
        if i not in got:
            got[i] = fn(i)
    if progress is not None:
        progress(n)
    return [got[i] for i in range(n)]


def _fork_child(
    fn: Callable[[int], Any],
    n: int,
    chunk: int,
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
                        items = [(i, fn(i)) for i in range(k * chunk, min(k * chunk + chunk, n))]
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
