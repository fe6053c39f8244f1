"""A pool of long-lived worker processes: one task at a time each, a time limit counted
from the task's own start, a dead or stalled worker's task redone once, then reported.

Why not :class:`concurrent.futures.ProcessPoolExecutor`: there one dead worker breaks the
whole pool (every queued task fails), a stuck task cannot be stopped, and its workers
come from a fork server that outlives an interrupted parent. Here every worker has its
own pipe and holds one task, so this process always knows which task each holds:

- **warm-up first**: a worker takes no task before it is warm. Forked workers are copies
  of this process after :attr:`Work.prepare` ran here once (kernels loaded), so each
  replacement is warm too; a spawned worker runs ``prepare`` itself, then says "ready".
  Warm-up is never charged to a task's time limit (up to :data:`.policy.WORKER_START_S`).
- **time limit**: counted from the worker's "start" message for that task; past it the
  worker is killed and replaced, the task is lost with how far it got (its last stage)
  and its elapsed time; the pool goes on.
- **dead or stalled worker** (killed, crashed in native code, CPU time standing still
  for :data:`.policy.STALL_S` where stall detection is asked for): its task is handed to
  a fresh worker once (:data:`.policy.REDO_LIMIT`), then reported lost.
- **interrupted** (Ctrl-C, or SIGTERM as :class:`~.signals.Terminated`): every worker is
  killed and reaped before the exception goes on. Every worker dies with this process
  (:mod:`.child`), whatever killed it.

Forking needs a process with no Embree threads yet (:func:`geom3d.core.runtime.
native_threads_started`): a worker builds BVHs of its own. Elsewhere workers are
spawned (:func:`.policy.start_method`).
"""

from __future__ import annotations

import logging
import os
import signal
import time
import traceback
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from geom3d.core.errors import WorkerLost
from geom3d.core.runtime import native_threads_started, same_code_in_workers
from geom3d.execution.child import StallWatch, become_worker
from geom3d.execution.policy import (
    POLL_S,
    REDO_LIMIT,
    SHUTDOWN_S,
    STALL_S,
    WORKER_START_S,
    start_method,
)
from geom3d.execution.signals import held

__all__ = ["Lost", "PoolReport", "Work", "death_text", "run_pool"]

log = logging.getLogger(__name__)

#: ``stage(text)``: a task reports how far it got (shown when it times out).
Stage = Callable[[str], None]


@dataclass(frozen=True)
class Work:
    """What the workers of one pool run (every callable module-level, so a spawned
    worker can import it).

    Attributes
    ----------
    task : callable(item, stage) -> picklable
        One task. Exceptions it raises are re-raised in this process.
    prepare : callable() -> None, optional
        Warm-up shared by every worker: run once here before forking (it must not start
        threads: no BVH build), or first thing in each spawned worker.
    setup : callable(payload) -> None, optional
        Per-worker state from ``payload`` (spawned workers get it pickled), run in each
        worker before it says ready.
    payload : picklable
    stall_s : float or None
        Kill a busy worker whose CPU time stands still this long (None: never).
    """

    task: Callable[[Any, Stage], Any]
    prepare: Callable[[], None] | None = None
    setup: Callable[[Any], None] | None = None
    payload: Any = None
    stall_s: float | None = STALL_S


@dataclass(frozen=True)
class Lost:
    """A task that did not finish: ``why`` (one line), its last ``stage`` and the seconds
    it ran (``elapsed_s``, from its own start; 0 when it never started)."""

    index: int
    why: str
    stage: str | None
    elapsed_s: float
    timed_out: bool = False


@dataclass
class PoolReport:
    """How a pool ran: ``method`` (fork or spawn), the most workers at once, redone tasks."""

    method: str
    most: int = 0
    redone: list[int] = field(default_factory=list)


def death_text(exitcode: int | None) -> str:
    """``killed by SIGKILL`` / ``exit code 3``: how a worker ended."""
    if exitcode is not None and exitcode < 0:
        try:
            return f"killed by {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"killed by signal {-exitcode}"
    return f"exit code {exitcode}"


def _worker_main(
    conn: Any, work: Work, parent: int, life: Any, close: tuple[int, ...], spawned: bool
) -> None:
    """A worker: warm up, say ready, then take ``(index, item)`` until None or EOF."""
    become_worker(parent, life.fileno(), close=close)
    if spawned and work.prepare is not None:
        work.prepare()
    if work.setup is not None:
        work.setup(work.payload)
    conn.send(("ready",))
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        index, item = msg

        def stage(text: str, index: int = index) -> None:
            try:
                conn.send(("stage", index, text))
            except OSError:
                pass

        conn.send(("start", index))
        try:
            result = work.task(item, stage)
        except BaseException as exc:
            conn.send(("raise", index, _portable(exc)))
            continue
        conn.send(("done", index, result))


def _portable(exc: BaseException) -> BaseException:
    import pickle

    try:
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:
        text = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        return RuntimeError(text)


class _Worker:
    def __init__(self, ctx: Any, work: Work, life: tuple[Any, Any], spawned: bool):
        self.conn, child = ctx.Pipe(duplex=True)
        close = () if spawned else (life[1].fileno(),)
        self.proc = ctx.Process(
            target=_worker_main,
            args=(child, work, os.getpid(), life[0], close, spawned),
            name="geom3d-worker",
            daemon=True,
        )
        with held():  # no interrupt between the fork and the note of its pid
            self.proc.start()
        child.close()
        self.born = time.monotonic()
        self.ready = False
        self.task: int | None = None
        self.started: float | None = None  # when its task's own work began
        self.stage: str | None = None
        self.watch = StallWatch(self.proc.pid or 0)

    def kill(self) -> None:
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(SHUTDOWN_S)
        self.conn.close()


def _context(method: str) -> Any:
    import multiprocessing as mp

    if method == "spawn":
        same_code_in_workers()
    return mp.get_context(method)


def run_pool(
    work: Work,
    items: Sequence[Any],
    *,
    workers: int,
    on_result: Callable[[int, Any, float], None],
    on_lost: Callable[[Lost], None],
    timeout: float | None = None,
    method: str | None = None,
) -> PoolReport:
    """Run ``work.task`` on every item on ``workers`` processes.

    Parameters
    ----------
    work : Work
    items : sequence
        Picklable task inputs, handed out in order.
    workers : int
        Processes (at least 1; never more than there are items).
    on_result : callable(index, result, elapsed_s)
        Called here as each task finishes (completion order).
    on_lost : callable(Lost)
        Called here for each task that timed out, or whose worker died twice.
    timeout : float, optional
        Seconds one task may take from its own start.
    method : {"fork", "spawn"}, optional
        Default: :func:`.policy.start_method`, and spawn once this process has started
        Embree's threads.

    Returns
    -------
    PoolReport

    Raises
    ------
    WorkerLost
        No worker could start (each died or hung in its warm-up).
    KeyboardInterrupt
        Interrupted: every worker killed and reaped first.
    """
    from multiprocessing.connection import wait

    if method is None:
        method = start_method()
        if method == "fork" and native_threads_started():
            method = "spawn"
    spawned = method == "spawn"
    if not spawned and work.prepare is not None:
        work.prepare()  # once, here: every forked worker (and replacement) starts warm
    ctx = _context(method)
    life_r, life_w = ctx.Pipe(duplex=False)
    report = PoolReport(method)
    pending = deque(range(len(items)))
    tries = [0] * len(items)
    pool: list[_Worker] = []
    failed_starts = 0
    limit = max(1, min(workers, len(items)))
    try:
        while pending or any(w.task is not None for w in pool):
            while len(pool) < min(limit, len(pending) + sum(w.task is not None for w in pool)):
                pool.append(_Worker(ctx, work, (life_r, life_w), spawned))
                report.most = max(report.most, len(pool))
            for w in pool:  # hand out work to the ready and idle
                if w.ready and w.task is None and pending:
                    i = pending.popleft()
                    w.task, w.started, w.stage = i, None, None
                    w.watch.reset()
                    try:
                        w.conn.send((i, items[i]))
                    except OSError:  # died before taking it: seen dead below
                        pass
            now = time.monotonic()
            wait_s = POLL_S
            if timeout is not None:
                for w in pool:
                    if w.started is not None:
                        wait_s = min(wait_s, max(0.0, w.started + timeout - now))
            ready = set(wait([w.conn for w in pool] + [w.proc.sentinel for w in pool], wait_s))
            now = time.monotonic()
            for w in list(pool):
                if w.conn in ready and _drain(w, now, on_result):
                    continue
                if w.proc.sentinel in ready or not w.proc.is_alive():
                    w.proc.join(SHUTDOWN_S)
                    pool.remove(w)
                    w.conn.close()
                    if not w.ready:
                        failed_starts += 1
                    if w.task is not None:
                        _died(w, death_text(w.proc.exitcode), tries, pending, report, on_lost)
                    if failed_starts > 2 * limit and not any(x.ready for x in pool):
                        raise WorkerLost(
                            f"no worker process could start ({failed_starts} tried; the last "
                            f"ended with {death_text(w.proc.exitcode)})"
                        )
                    continue
                if not w.ready and now - w.born > WORKER_START_S:
                    w.kill()
                    pool.remove(w)
                    failed_starts += 1
                    continue
                if w.task is None:
                    continue
                if timeout is not None and w.started is not None and now > w.started + timeout:
                    i, stage, t = w.task, w.stage, now - w.started
                    w.kill()
                    pool.remove(w)
                    on_lost(Lost(i, f"timed out after {timeout:g} s", stage, t, timed_out=True))
                    continue
                if work.stall_s is not None and w.watch.stalled(wait_s, work.stall_s):
                    log.warning("geom3d: a worker stood still %.0f s; redoing its work", STALL_S)
                    w.kill()
                    pool.remove(w)
                    _died(w, f"stood still {work.stall_s:g} s", tries, pending, report, on_lost)
        for w in pool:  # ask politely: each ends at the None
            try:
                w.conn.send(None)
            except OSError:
                pass
        deadline = time.monotonic() + SHUTDOWN_S
        for w in pool:
            w.proc.join(max(0.0, deadline - time.monotonic()))
    finally:
        for w in pool:
            w.kill()
        life_w.close()
        life_r.close()
    return report


def _drain(w: _Worker, now: float, on_result: Callable[[int, Any, float], None]) -> bool:
    """Read ``w``'s messages; True when it answered (or said ready/start/stage)."""
    try:
        msg = w.conn.recv()
    except (EOFError, OSError):
        return False  # died mid-message: handled as a death
    kind = msg[0]
    if kind == "ready":
        w.ready = True
    elif kind == "start":
        w.started = now
    elif kind == "stage":
        w.stage = msg[2]
    elif kind == "done":
        i, t = msg[1], now - (w.started if w.started is not None else now)
        w.task, w.started = None, None
        on_result(i, msg[2], t)
    elif kind == "raise":
        raise msg[2]
    return True


def _died(
    w: _Worker,
    how: str,
    tries: list[int],
    pending: deque[int],
    report: PoolReport,
    on_lost: Callable[[Lost], None],
) -> None:
    i = w.task
    assert i is not None
    tries[i] += 1
    if tries[i] <= REDO_LIMIT:
        report.redone.append(i)
        pending.appendleft(i)
        return
    elapsed = time.monotonic() - w.started if w.started is not None else 0.0
    on_lost(Lost(i, f"worker {how} twice (redone once)", w.stage, elapsed))
