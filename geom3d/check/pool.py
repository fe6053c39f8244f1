"""A local pool of worker processes with a time limit per scenario.

Why not :class:`concurrent.futures.ProcessPoolExecutor`: there, one dead worker breaks the
whole pool (``BrokenProcessPool`` for every scenario still queued, including those that
never started) and a stuck task cannot be stopped. Here every worker has its own pipe and
runs one scenario at a time, so the parent always knows which scenario each worker holds:

- a scenario past the time limit: its worker is killed (SIGKILL) and replaced, the
  scenario is an ``error`` ("timed out after N s ... while evaluating lof[a->b] (2 of 7
  done)": the worker reports each stage), the batch goes on. The limit times the
  scenario's own work, from the worker's first stage message: a worker's start-up
  (imports, numba's cache) is not counted (up to ``WORKER_START_S``);
- a worker that dies (killed, crashed in native code): exactly the scenario it held is an
  ``error`` ("worker died ..."); a new worker takes the next scenario;
- the parent interrupted (SIGINT, SIGTERM as :class:`Terminated`): every worker is killed
  and the fork server stopped before the exception goes on, so nothing is left running;
- the parent killed outright: each worker notices within a second (a watchdog thread
  polls the parent's pid) and exits.

Workers start from a ``forkserver`` (``spawn`` where there is none), safe with Embree's
threads; the fork server imports the engine once (:data:`PRELOAD`).
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence

from geom3d.check.discover import ScenarioFile
from geom3d.check.record import TerminationRequested, check_scenario, error_record
from geom3d.core.runtime import same_code_in_workers

__all__ = [
    "PRELOAD",
    "WORKER_START_S",
    "Terminated",
    "run_pool",
    "stop_forkserver",
    "timeout_message",
]

#: Imported once in the fork server instead of once per worker.
PRELOAD = ("geom3d.check.record", "geom3d.mesh", "trimesh", "scipy.sparse.csgraph")
#: How often a worker checks that its parent is still alive (s).
_WATCHDOG_S = 1.0
#: How long a new worker may take to start (imports, numba's cache) before the time
#: limit of the scenario it holds starts counting anyway (s).
WORKER_START_S = 120.0
#: How long a worker may take to leave after being asked to (s), before it is killed.
_SHUTDOWN_S = 5.0


class Terminated(TerminationRequested):
    """Raised in the parent by the SIGTERM handler of ``geom3d check``."""


def timeout_message(seconds: float, stage: str | None = None) -> str:
    """The ``error`` of a scenario stopped by the time limit (``stage``: how far it got)."""
    where = f" while {stage}" if stage else ""
    return f"timed out after {seconds:g} s (--timeout); the scenario was stopped{where}"


def _init_worker(environ: dict, cwd: str) -> None:
    # forkserver children inherit the server's environment, which may be older than ours
    for k in list(os.environ):
        if k not in environ:
            del os.environ[k]
    os.environ.update(environ)
    try:
        os.chdir(cwd)
    except OSError:
        pass


def _watch_parent(parent_pid: int) -> None:
    while True:
        time.sleep(_WATCHDOG_S)
        try:
            os.kill(parent_pid, 0)
        except ProcessLookupError:
            os._exit(3)
        except OSError:  # the pid now belongs to another user: our parent is gone
            os._exit(3)


def _worker_main(conn, environ: dict, cwd: str, parent_pid: int) -> None:
    """A worker: take ``(index, path, display)``, answer ``(index, record)``; None stops."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole group; the
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # parent decides and kills us
    _init_worker(environ, cwd)
    threading.Thread(target=_watch_parent, args=(parent_pid,), daemon=True).start()
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        index, path, display = msg

        def stage(text: str, index=index) -> None:
            try:
                conn.send(("stage", index, text))
            except (BrokenPipeError, OSError):
                pass

        rec = check_scenario(path, display, on_stage=stage)
        try:
            conn.send((index, rec))
        except (BrokenPipeError, OSError):
            return


def _mp_context():
    import multiprocessing as mp

    same_code_in_workers()

    if "forkserver" in mp.get_all_start_methods():
        ctx = mp.get_context("forkserver")
        ctx.set_forkserver_preload(list(PRELOAD))
        return ctx
    return mp.get_context("spawn")


def stop_forkserver() -> None:
    """Stop multiprocessing's fork server, if one runs (it would otherwise outlive an
    interrupted batch until this process exits)."""
    try:
        from multiprocessing import forkserver

        # private, so typeshed does not declare it
        forkserver._forkserver._stop()  # type: ignore[attr-defined]
    except Exception:  # private API, best effort; gone with the process anyway
        pass


def _deadline(w, timeout: float) -> float:
    """When ``w``'s scenario is past the time limit: ``timeout`` after its own work began
    (worker start-up and imports are not the scenario's); before that, a start-up
    allowance of ``WORKER_START_S`` more."""
    if w.started is not None:
        return w.started + timeout
    return w.sent + timeout + WORKER_START_S


def _death(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        return f"worker died (killed by {name}) while checking this scenario"
    return f"worker died (exit code {exitcode}) while checking this scenario"


class _Worker:
    def __init__(self, ctx, environ: dict, cwd: str):
        self.conn, child = ctx.Pipe(duplex=True)
        self.proc = ctx.Process(
            target=_worker_main,
            args=(child, environ, cwd, os.getpid()),
            name="geom3d-check-worker",
            daemon=True,
        )
        self.proc.start()
        child.close()
        self.task: int | None = None
        self.sent = 0.0  # when the task was handed out
        self.started: float | None = None  # when the scenario's own work began
        self.stage: str | None = None

    def kill(self) -> None:
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(_SHUTDOWN_S)
        self.conn.close()


def run_pool(
    files: Sequence[ScenarioFile],
    indices: Sequence[int],
    workers: int,
    timeout: float | None,
    finish: Callable[[int, dict], None],
    *,
    grow: Callable[[int, float, float], int] | None = None,
) -> int:
    """Check ``files[i]`` for every ``i`` in ``indices`` on ``workers`` processes.

    Parameters
    ----------
    files : sequence of ScenarioFile
    indices : sequence of int
        Which of ``files`` to check, in the order they are handed out.
    workers : int
        Processes (at least 1).
    timeout : float or None
        Seconds one scenario may take (None: no limit).
    finish : callable(index, record)
        Called in this process as each scenario ends (completion order).
    grow : callable(done, seconds, work_seconds) -> int, optional
        How many processes may run now, given the scenarios finished, the seconds since
        the start and the finished scenarios' own seconds (their records' timing, worker
        start-up not included); capped by ``workers``; default: ``workers`` from the start.
        The default mode of ``geom3d check`` starts with one and grows.

    Returns
    -------
    int
        The most processes that ran at once.
    """
    from multiprocessing.connection import wait

    ctx = _mp_context()
    environ, cwd = dict(os.environ), os.getcwd()
    pending = deque(indices)
    pool: list[_Worker] = []
    clean = False
    t0, done, most, work = time.monotonic(), 0, 0, 0.0

    def ended(i: int, rec: dict) -> None:
        nonlocal done, work
        done += 1
        try:
            work += float(rec["timing"]["total_seconds"])
        except (KeyError, TypeError, ValueError):
            pass
        finish(i, rec)

    try:
        while pending or any(w.task is not None for w in pool):
            limit = (
                workers
                if grow is None
                else max(1, min(workers, grow(done, time.monotonic() - t0, work)))
            )
            while pending:  # hand out work: idle workers first, then new ones
                w = next((x for x in pool if x.task is None), None)
                if w is None and len(pool) < limit:
                    w = _Worker(ctx, environ, cwd)
                    pool.append(w)
                    most = max(most, len(pool))
                if w is None:
                    break
                i = pending.popleft()
                w.task, w.sent, w.started, w.stage = i, time.monotonic(), None, None
                try:
                    w.conn.send((i, files[i].path, files[i].display))
                except OSError:  # died before taking it: the next pass sees it dead
                    pass
            busy = [w for w in pool if w.task is not None]
            now = time.monotonic()
            wait_s = 1.0
            if timeout is not None and busy:
                wait_s = min(wait_s, max(0.0, min(_deadline(w, timeout) for w in busy) - now))
            ready = set(wait([w.conn for w in busy] + [w.proc.sentinel for w in pool], wait_s))
            now = time.monotonic()
            for w in list(pool):
                if w.task is not None and w.conn in ready:
                    try:
                        msg = w.conn.recv()
                    except (EOFError, OSError):
                        pass  # died mid-answer: handled as a death below
                    else:
                        if msg[0] == "stage":  # the scenario's own work: its timer runs
                            if w.started is None:
                                w.started = now
                            w.stage = msg[2]
                            continue
                        i, rec = msg
                        w.task = None
                        ended(i, rec)
                        continue
                if w.proc.sentinel in ready or not w.proc.is_alive():
                    w.proc.join(_SHUTDOWN_S)
                    if w.task is not None:
                        ended(w.task, error_record(files[w.task].display, _death(w.proc.exitcode)))
                    w.conn.close()
                    pool.remove(w)
                elif w.task is not None and timeout is not None and now > _deadline(w, timeout):
                    w.kill()
                    why = w.stage or "waiting for its worker to start"
                    rec = error_record(
                        files[w.task].display, timeout_message(timeout, why), stage=why
                    )
                    ended(w.task, rec)
                    pool.remove(w)
        clean = True
    finally:
        if clean:  # ask politely, then make sure
            for w in pool:
                try:
                    w.conn.send(None)
                except OSError:
                    pass
            deadline = time.monotonic() + _SHUTDOWN_S
            for w in pool:
                w.proc.join(max(0.0, deadline - time.monotonic()))
        for w in pool:
            w.kill()
        if not clean:
            stop_forkserver()
    return most
