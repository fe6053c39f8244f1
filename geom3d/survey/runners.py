"""Running chunks of a job in worker processes or on a Dask cluster, for the survey's
pairs (:mod:`geom3d.survey.pairs`) and the exposure map's cells
(:mod:`geom3d.exposure.jobs`): one implementation of the hardening both need (issue 33):
workers run the parent's geom3d, a dead worker or a stalled Dask worker is one clear
error saying what was not computed, and Ctrl-C or SIGTERM stop every worker and the
fork server.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from geom3d.core.errors import WorkerLost
from geom3d.core.runtime import same_code_in_workers
from geom3d.core.scheduler_address import connect
from geom3d.core.tolerances import SURVEY_STALL_S
from geom3d.survey._stop import stop_pool

__all__ = ["Tasks", "run_dask", "run_pool"]


@dataclass(frozen=True)
class Tasks:
    """What the workers of one kind of job run.

    Attributes
    ----------
    module : str
        The module the fork server preloads (it defines the functions below).
    init_pool : callable
        ``init_pool(job)``: a pool worker's initializer.
    pool_task, dask_task : callable
        ``pool_task(start, stop)`` and ``dask_task(job, start, stop)``, each returning
        ``(start, answers, counters)`` of one chunk.
    what, items : str
        The command and the unit its messages name (``survey``, ``pairs``).
    """

    module: str
    init_pool: Callable[[Any], None]
    pool_task: Callable[[int, int], tuple[int, np.ndarray, np.ndarray]]
    dask_task: Callable[[Any, int, int], tuple[int, np.ndarray, np.ndarray]]
    what: str
    items: str


def _mp_context(module: str) -> Any:
    """The fork server preloading ``module`` where there is one, else spawn."""
    import multiprocessing as mp

    same_code_in_workers()

    if "forkserver" in mp.get_all_start_methods():
        ctx = mp.get_context("forkserver")
        ctx.set_forkserver_preload([module])
        return ctx
    return mp.get_context("spawn")


def run_pool(
    tasks: Tasks,
    job: Any,
    chunks: list[tuple[int, int]],
    workers: int,
    out: np.ndarray,
    counters: np.ndarray,
    progress: Callable[[int, int], None],
) -> None:
    """Run ``chunks`` of ``job`` on ``workers`` local processes into ``out[start:stop]``
    (their counters added into ``counters``), calling ``progress(done, total)``.

    Raises
    ------
    WorkerLost
        A worker died (OOM killer, kill -9): what was not computed is said.
    """
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from concurrent.futures.process import BrokenProcessPool

    ex = ProcessPoolExecutor(
        max_workers=workers,
        mp_context=_mp_context(tasks.module),
        initializer=tasks.init_pool,
        initargs=(job,),
    )
    done = 0
    try:
        futs = [ex.submit(tasks.pool_task, s, e) for s, e in chunks]
        for fut in as_completed(futs):
            start, vis, cnt = fut.result()
            out[start : start + len(vis)] = vis
            counters += cnt
            done += len(vis)
            progress(done, len(out))
    except BrokenProcessPool:  # a worker was killed (OOM killer, kill -9) or crashed
        stop_pool(ex)
        raise WorkerLost(
            f"{tasks.what}: a worker process died; {len(out) - done:,} of {len(out):,} "
            f"{tasks.items} were not computed and nothing was written (run again; "
            "--workers 1 runs in this process)"
        ) from None
    except BaseException:  # Ctrl-C, SIGTERM or a failed chunk: stop the workers now
        stop_pool(ex)
        raise
    ex.shutdown(wait=True)


def run_dask(
    tasks: Tasks,
    job: Any,
    chunks: list[tuple[int, int]],
    address: str,
    out: np.ndarray,
    counters: np.ndarray,
    progress: Callable[[int, int], None],
) -> int:
    """:func:`run_pool` on the Dask cluster at ``address``; returns its worker count.

    Raises
    ------
    WorkerLost
        No chunk finished for ``SURVEY_STALL_S`` seconds (a stalled worker).
    """
    client = connect(address)  # first: a clear usage error when Dask is not installed
    from distributed import wait

    try:
        n_workers = len(client.scheduler_info().get("workers", {}))
        remote = client.scatter(job, broadcast=True)
        futs = [client.submit(tasks.dask_task, remote, s, e, pure=False) for s, e in chunks]
        done, pending = 0, set(futs)
        last = time.monotonic()
        while pending:
            finished = {f for f in pending if f.done()}
            for fut in finished:
                start, vis, cnt = fut.result()
                fut.release()
                out[start : start + len(vis)] = vis
                counters += cnt
                done += len(vis)
                progress(done, len(out))
            pending -= finished
            now = time.monotonic()
            if finished:
                last = now
            elif now - last > SURVEY_STALL_S:  # a stalled worker (no nanny) holds a chunk
                for fut in pending:
                    fut.cancel()
                raise WorkerLost(
                    f"{tasks.what}: the Dask cluster at {address} finished no {tasks.items} "
                    f"for {SURVEY_STALL_S:g} s (a stalled worker?); {len(out) - done:,} of "
                    f"{len(out):,} {tasks.items} were not computed and nothing was written"
                )
            if pending:
                try:
                    wait(list(pending), timeout=1.0, return_when="FIRST_COMPLETED")
                except Exception:  # the poll's time-out: nothing finished
                    pass
    finally:
        client.close()
    return n_workers
