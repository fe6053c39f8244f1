"""Visibility between all probe positions: the one visibility core, spread over processes.

Each unordered pair ``i < j`` is visible when :func:`geom3d.visibility.find_patch` finds a
patch (the ruleset's ``patch_mm``) from ``i`` to ``j`` or else from ``j`` to ``i``, exactly
as :func:`geom3d.lof.pair_visibility` decides it for two troopers - arcs ignored, and the
probes do not block each other (no occluders). Pairs are numbered in row-major order of
``numpy.triu_indices(n, 1)`` and cut into contiguous chunks; a chunk's answers do not
depend on where it ran, so the result is the same for any number of workers and on Dask.

* ``workers=1``: in-process, on the scene's own BVH;
* ``workers=N``: a local process pool (``forkserver`` where available, else ``spawn``:
  safe with Embree's threads); each worker builds the BVH of the blocking scenery once;
* ``scheduler=ADDR``: an existing Dask cluster (``distributed``); the job (blocking mesh
  and probe cylinders) is scattered to every worker once.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from geom3d.bodies import Cylinder
from geom3d.errors import UsageError
from geom3d.raycast import RayEngine
from geom3d.scheduler_address import connect
from geom3d.visibility import find_patch

__all__ = ["PairJob", "chunk_bounds", "pair_indices", "visible_pairs"]

#: Progress callback: ``progress(pairs_done, pairs_total)``.
OnProgress = Callable[[int, int], None]


@dataclass(frozen=True, eq=False)
class PairJob:
    """Everything a worker needs (picklable).

    Attributes
    ----------
    vertices : (v, 3) float64, mm
        Blocking scenery.
    faces : (f, 3) int64
    positions : (n, 3) float64, mm
        Probe base centres.
    radius, height : float, mm
        Probe cylinder.
    patch_mm : float, mm
        The ruleset's minimum visible patch.
    key : str
        Digest of all the above (workers cache their BVH by it).
    """

    vertices: np.ndarray
    faces: np.ndarray
    positions: np.ndarray
    radius: float
    height: float
    patch_mm: float
    key: str = field(default="")

    @classmethod
    def make(cls, vertices, faces, positions, radius, height, patch_mm) -> PairJob:
        v = np.ascontiguousarray(vertices, dtype=np.float64)
        f = np.ascontiguousarray(faces, dtype=np.int64)
        p = np.ascontiguousarray(positions, dtype=np.float64).reshape(-1, 3)
        h = hashlib.sha256()
        for a in (v, f, p, np.array([radius, height, patch_mm], dtype=np.float64)):
            h.update(a.tobytes())
        return cls(v, f, p, float(radius), float(height), float(patch_mm), h.hexdigest())

    @property
    def n_pairs(self) -> int:
        n = len(self.positions)
        return n * (n - 1) // 2

    def cylinders(self) -> list[Cylinder]:
        return [Cylinder(tuple(p), self.radius, self.height) for p in self.positions]


def pair_indices(n: int) -> tuple[np.ndarray, np.ndarray]:
    """``(i, j)`` of every unordered pair ``i < j`` of ``n`` positions, row-major."""
    return np.triu_indices(n, 1)


def chunk_bounds(n_pairs: int, workers: int) -> list[tuple[int, int]]:
    """Contiguous ``[start, stop)`` chunks: about 16 per worker, 16 to 2,000 pairs each."""
    if n_pairs == 0:
        return []
    size = int(np.clip(n_pairs // max(1, 16 * workers), 16, 2000))
    return [(s, min(n_pairs, s + size)) for s in range(0, n_pairs, size)]


def _pair_visible(engine, cyl: list[Cylinder], i: int, j: int, patch: float) -> bool:
    if find_patch(cyl[i], cyl[j], engine, [], patch_mm=patch) is not None:
        return True
    return find_patch(cyl[j], cyl[i], engine, [], patch_mm=patch) is not None


# Per-process cache: job key -> (engine, cylinders, i, j, patch_mm); workers reuse their BVH.
_WORKER: dict[str, tuple] = {}


def _setup(job: PairJob, engine=None) -> tuple:
    got = _WORKER.get(job.key)
    if got is None:
        _WORKER.clear()
        eng = engine if engine is not None else RayEngine(job.vertices, job.faces)
        i, j = pair_indices(len(job.positions))
        got = (eng, job.cylinders(), i, j, job.patch_mm)
        _WORKER[job.key] = got
    return got


def _run_chunk(state: tuple, start: int, stop: int) -> np.ndarray:
    """(stop - start,) bool: visibility of pairs ``start .. stop - 1``."""
    eng, cyl, ii, jj, patch = state
    return np.fromiter(
        (_pair_visible(eng, cyl, int(ii[k]), int(jj[k]), patch) for k in range(start, stop)),
        dtype=bool,
        count=stop - start,
    )


def _init_pool(job: PairJob) -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    _setup(job)


def _pool_task(start: int, stop: int) -> tuple[int, np.ndarray]:
    (state,) = _WORKER.values()  # set up by the pool initializer
    return start, _run_chunk(state, start, stop)


def _dask_task(job: PairJob, start: int, stop: int) -> tuple[int, np.ndarray]:
    return start, _run_chunk(_setup(job), start, stop)


def _mp_context():
    import multiprocessing as mp

    if "forkserver" in mp.get_all_start_methods():
        ctx = mp.get_context("forkserver")
        ctx.set_forkserver_preload(["geom3d.survey.pairs"])
        return ctx
    return mp.get_context("spawn")


def _run_pool(job, chunks, workers, out, progress) -> None:
    from concurrent.futures import ProcessPoolExecutor, as_completed

    ex = ProcessPoolExecutor(
        max_workers=workers, mp_context=_mp_context(), initializer=_init_pool, initargs=(job,)
    )
    try:
        futs = [ex.submit(_pool_task, s, e) for s, e in chunks]
        done = 0
        for fut in as_completed(futs):
            start, vis = fut.result()
            out[start : start + len(vis)] = vis
            done += len(vis)
            progress(done, len(out))
    except BaseException:  # Ctrl-C or a failed chunk: stop the workers now
        for proc in list(getattr(ex, "_processes", {}).values()):
            proc.terminate()
        ex.shutdown(wait=False, cancel_futures=True)
        raise
    ex.shutdown(wait=True)


def _run_dask(job, chunks, address, out, progress) -> int:
    client = connect(address)  # first: a clear usage error when Dask is not installed
    from distributed import as_completed

    try:
        n_workers = len(client.scheduler_info().get("workers", {}))
        remote = client.scatter(job, broadcast=True)
        futs = [client.submit(_dask_task, remote, s, e, pure=False) for s, e in chunks]
        done = 0
        for fut in as_completed(futs, loop=client.loop):
            start, vis = fut.result()
            fut.release()
            out[start : start + len(vis)] = vis
            done += len(vis)
            progress(done, len(out))
    finally:
        client.close()
    return n_workers


def visible_pairs(
    job: PairJob,
    *,
    engine=None,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: OnProgress | None = None,
) -> tuple[np.ndarray, dict]:
    """Visibility of every unordered pair of probe positions.

    Parameters
    ----------
    job : PairJob
    engine : RayBackend, optional
        BVH over ``job``'s mesh, used in-process (``workers=1``); built when absent.
    workers : int, optional
        Local processes (default: ``os.cpu_count()``); 1 runs in-process.
    scheduler : str, optional
        Dask scheduler address: run on that cluster instead.
    progress : callable(done, total), optional

    Returns
    -------
    visible : (n_pairs,) bool
        In the order of :func:`pair_indices`.
    info : dict
        ``{"executor": "in-process" | "processes" | "dask", "workers": int}``.
    """
    cb = progress or (lambda done, total: None)
    n_pairs = job.n_pairs
    out = np.zeros(n_pairs, dtype=bool)
    if scheduler is not None:
        chunks = chunk_bounds(n_pairs, 8)
        n = _run_dask(job, chunks, scheduler, out, cb)
        return out, {"executor": "dask", "workers": n}
    n = workers if workers is not None else (os.cpu_count() or 1)
    if n < 1:
        raise UsageError(f"--workers: must be at least 1 (got {n})")
    chunks = chunk_bounds(n_pairs, n)
    n = max(1, min(n, len(chunks)))
    if n == 1:
        state = _setup(job, engine)
        try:
            done = 0
            for s, e in chunks:
                out[s:e] = _run_chunk(state, s, e)
                done += e - s
                cb(done, n_pairs)
        finally:
            _WORKER.clear()  # do not keep the caller's BVH alive
        return out, {"executor": "in-process", "workers": 1}
    _run_pool(job, chunks, n, out, cb)
    return out, {"executor": "processes", "workers": n}
