"""Chunks of a job (the survey's pairs, :mod:`geom3d.survey.pairs`; the exposure map's
cells, :mod:`geom3d.exposure.jobs`) on the execution layer (:mod:`geom3d.execution`).

- in this process, on the caller's scene (its BVH and proofs);
- on Linux, shared with forked copies of this process (:func:`geom3d.execution.shared.
  shared_map`): they read the parent's BVH and proofs in place, nothing is pickled but the
  answers, and a failed copy's chunks are computed here;
- elsewhere (or ``GEOM3D_START_METHOD=spawn``), a pool of spawned workers, each set up
  once from the pickled job (:func:`geom3d.execution.pool.run_pool`): a dead or stalled
  worker's chunk is redone once, then the run fails with one line saying what is missing;
- on a Dask cluster (:func:`geom3d.execution.dask.run_dask`).

Every chunk's answers are the same wherever it ran, so the result does not depend on
the choice. Ctrl-C and SIGTERM stop every worker on the way out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from geom3d.core.errors import WorkerLost
from geom3d.execution.pool import Lost, Work, run_pool
from geom3d.execution.shared import fork_usable, shared_map
from geom3d.survey.limits import SURVEY_STALL_S

__all__ = ["POOL_PAYS_FROM", "Tasks", "run_chunks"]

#: ``--workers auto``: the fewest chunks of work for which workers beat one process.
#: A chunk is 16 to 2,000 questions (:func:`geom3d.survey.pairs.chunk_bounds`); below
#: this many the job is done here.
POOL_PAYS_FROM = 4

#: ``chunk(start, stop) -> (answers, counters)``
Chunk = Callable[[int, int], tuple[np.ndarray, np.ndarray]]


@dataclass(frozen=True)
class Tasks:
    """What the workers of one kind of job run (module-level callables).

    Attributes
    ----------
    setup : callable(job)
        A spawned worker's set-up (its BVH and proofs, from the pickled job).
    pool_task : callable((start, stop), stage) -> (start, answers, counters)
        One chunk in a spawned worker, after ``setup``.
    dask_task : callable(job, start, stop) -> (start, answers, counters)
    what, items : str
        The command and the unit its messages name (``survey``, ``pairs``).
    """

    setup: Callable[[Any], None]
    pool_task: Callable[[tuple[int, int], Callable[[str], None]], tuple]
    dask_task: Callable[[Any, int, int], tuple]
    what: str
    items: str


def run_chunks(
    tasks: Tasks,
    job: Any,
    chunks: list[tuple[int, int]],
    workers: int,
    out: np.ndarray,
    counters: np.ndarray,
    progress: Callable[[int, int], None],
    *,
    local: Callable[[], Chunk],
    scheduler: str | None = None,
) -> tuple[str, int]:
    """Fill ``out[start:stop]`` for every chunk (counters added into ``counters``).

    Parameters
    ----------
    local : callable() -> chunk function
        The caller's state, made here (BVH, proofs): used in-process and by forked copies.
    workers : int
        Processes in all (1: in this process); ignored with ``scheduler``.

    Returns
    -------
    (executor, workers)
        ``in-process``, ``processes`` or ``dask``, and how many.

    Raises
    ------
    WorkerLost
        A chunk could not be computed (its worker died twice, or the cluster lost it).
    """
    total = len(out)
    done = [0]

    def store(start: int, vis: np.ndarray, cnt: np.ndarray) -> None:
        out[start : start + len(vis)] = vis
        counters[:] += cnt
        done[0] += len(vis)
        progress(done[0], total)

    lost: list[Lost] = []
    if scheduler is not None:
        from geom3d.execution.dask import run_dask

        n = run_dask(
            tasks.dask_task, chunks, scheduler,
            on_result=lambda i, r, t: store(*r), on_lost=lost.append,
            stall_s=SURVEY_STALL_S, scatter=job,
        )  # fmt: skip
        _raise_lost(tasks, lost, total, done[0], f"the Dask cluster at {scheduler}")
        return "dask", n
    workers = max(1, min(workers, len(chunks)))
    if workers == 1 or fork_usable():
        run = local()
        upto = [0]
        for s, e in chunks:
            upto.append(upto[-1] + e - s)

        def one(k: int) -> tuple[np.ndarray, np.ndarray]:
            return run(*chunks[k])

        got: list[tuple[np.ndarray, np.ndarray]] = shared_map(
            one, len(chunks), children=workers - 1, chunk=1,
            progress=lambda k: progress(upto[k], total),
        )  # fmt: skip
        for (s, _), (vis, cnt) in zip(chunks, got, strict=True):
            out[s : s + len(vis)] = vis
            counters[:] += cnt
        return ("in-process", 1) if workers == 1 else ("processes", workers)
    work = Work(task=tasks.pool_task, setup=tasks.setup, payload=job)
    report = run_pool(
        work, chunks, workers=workers, on_result=lambda i, r, t: store(*r),
        on_lost=lost.append, method="spawn",
    )  # fmt: skip
    _raise_lost(tasks, lost, total, done[0], "a worker process")
    return "processes", max(1, report.most)


def _raise_lost(tasks: Tasks, lost: list[Lost], total: int, done: int, where: str) -> None:
    if lost:
        raise WorkerLost(
            f"{tasks.what}: {where} stopped ({lost[0].why}); {total - done:,} of {total:,} "
            f"{tasks.items} were not computed and nothing was written (run again; "
            "--workers 1 runs in this process)"
        )
