"""The visibility questions of an exposure map, spread over processes or Dask.

A *task* is one (cell, observer) pair that :func:`.decide.screen` left to visibility.
Each is decided by :func:`geom3d.visibility.pair_patch` from the observer to the probe
standing on the cell, with the ruleset's patch size and the cylinders of the troopers
that block Line of Fire but the observer (the probe is not one of the scene's troopers),
exactly as :func:`geom3d.adjudication.lof.pair_visibility` decides a pair, with the same blocking
proofs (which skip segments without changing any answer). Tasks are numbered and cut
into contiguous chunks; a chunk's answers do not depend on where it ran, so the map is
the same for any number of workers and on Dask.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from geom3d.bodies.cylinder import Cylinder
from geom3d.core.errors import UsageError
from geom3d.execution.items import map_items
from geom3d.execution.policy import choose_workers, cpu_count
from geom3d.raycast import make_engine
from geom3d.survey.pairs import scenery_tools
from geom3d.survey.runners import POOL_PAYS_FROM, Tasks, run_chunks
from geom3d.visibility import Prover, VisibilityStats, pair_patch
from geom3d.visibility.cast import SEARCH_COUNTERS, cull_rows
from geom3d.visibility.convex import NO_SOLIDS, ConvexSolids

__all__ = ["ExposureJob", "chunk_bounds", "task_keys", "visible_tasks"]

#: Counters summed over every chunk (the search's :class:`~geom3d.visibility.VisibilityStats`).
COUNTERS = SEARCH_COUNTERS


@dataclass(frozen=True, eq=False)
class ExposureJob:
    """Everything a worker needs (picklable).

    Attributes
    ----------
    vertices : (v, 3) float64, mm
    faces : (f, 3) int64
        Blocking scenery.
    label : (f,) int64 or None
    closed : (s,) bool or None
        Solids for the blocking proofs (None: no proofs, same answers).
    map_key : str
        Disk cache key of the proof map the scene built ("" : build it).
    observers : (k, 4) float64, mm
        Observer cylinders: base centre x, y, z and radius, and
    observer_height : (k,) float64, mm
    occluders : tuple of (m_j, 5) float64
        Per observer: :func:`geom3d.visibility.cylinder_array` rows of the troopers that
        block, but that observer.
    cells : (n, 3) float64, mm
        Probe base centres.
    radius, height : float, mm
        The probe cylinder.
    patch_mm : float, mm
    tasks : (t, 2) int64
        ``(cell, observer)`` of every question.
    key : str
        Digest of the scenery and solids (workers cache their BVH and prover by it).
    meshes : tuple of ((v, 3) float64, (f, 3) int64)
        40k vehicles: the blocking triangles (scenery, then hulls) of each set of hulls
        that block some observer (:func:`geom3d.scene.vehicles.blocking_mesh`; the
        observer's own hull left out); empty without vehicles.
    observer_mesh : (k,) int64
        Per observer, its index in ``meshes``; -1: the scenery alone (``vertices``).
    solids : ConvexSolids
        The scenery's closed convex pieces (:mod:`geom3d.visibility.convex`; with the
        proofs only: none, every segment is cast; same answers).
    """

    vertices: np.ndarray
    faces: np.ndarray
    label: np.ndarray | None
    closed: np.ndarray | None
    map_key: str
    observers: np.ndarray
    observer_height: np.ndarray
    occluders: tuple
    cells: np.ndarray
    radius: float
    height: float
    patch_mm: float
    tasks: np.ndarray
    key: str = ""
    meshes: tuple = ()
    observer_mesh: np.ndarray | None = None
    solids: ConvexSolids = NO_SOLIDS

    @classmethod
    def make(
        cls,
        vertices,
        faces,
        label,
        closed,
        map_key,
        observers,
        occluders,
        cells,
        radius,
        height,
        patch_mm,
        tasks,
        meshes=(),
        observer_mesh=None,
        solids: ConvexSolids = NO_SOLIDS,
    ) -> ExposureJob:
        """Build a job; ``observers`` is a list of :class:`~geom3d.bodies.cylinder.Cylinder`;
        ``meshes`` / ``observer_mesh``: see the class (default: the scenery for all)."""
        v = np.ascontiguousarray(vertices, dtype=np.float64)
        f = np.ascontiguousarray(faces, dtype=np.int64)
        h = hashlib.sha256()
        for a in (v, f):
            h.update(a.tobytes())
        if label is not None:
            label = np.ascontiguousarray(label, dtype=np.int64)
            closed = np.ascontiguousarray(closed, dtype=np.bool_)
            h.update(np.array([len(label), len(closed)], dtype=np.int64).tobytes())
            h.update(label.tobytes())
            h.update(closed.tobytes())
        else:
            h.update(b"no proofs")
        meshes = tuple(
            (np.ascontiguousarray(mv, dtype=np.float64), np.ascontiguousarray(mf, dtype=np.int64))
            for mv, mf in meshes
        )
        for mv, mf in meshes:
            h.update(np.array([len(mv), len(mf)], dtype=np.int64).tobytes())
            h.update(mv.tobytes())
            h.update(mf.tobytes())
        which = np.full(len(observers), -1, dtype=np.int64)
        if observer_mesh is not None:
            which[:] = observer_mesh
        obs = np.array([[*c.base, c.radius] for c in observers], dtype=np.float64).reshape(-1, 4)
        oh = np.array([c.height for c in observers], dtype=np.float64)
        return cls(
            v,
            f,
            label,
            closed,
            map_key if label is not None else "",
            obs,
            oh,
            tuple(np.ascontiguousarray(o, dtype=np.float64).reshape(-1, 5) for o in occluders),
            np.ascontiguousarray(cells, dtype=np.float64).reshape(-1, 3),
            float(radius),
            float(height),
            float(patch_mm),
            np.ascontiguousarray(tasks, dtype=np.int64).reshape(-1, 2),
            h.hexdigest(),
            meshes,
            which,
            solids if label is not None else NO_SOLIDS,
        )

    @property
    def proofs(self) -> bool:
        return self.label is not None

    def observer_cylinders(self) -> list[Cylinder]:
        """The observers' cylinders, in order (what each task's search starts from)."""
        return [
            Cylinder(tuple(o[:3]), float(o[3]), float(h))
            for o, h in zip(self.observers, self.observer_height, strict=True)
        ]

    def probe_at(self, cell: int) -> Cylinder:
        """The probe's cylinder standing on cell ``cell``."""
        return Cylinder(tuple(self.cells[cell]), self.radius, self.height)


def task_keys(job: ExposureJob) -> list[bytes]:
    """Per task, a digest of everything its answer depends on, so that an answer found
    once can be reused for a task of another job with the same key (the serve overlay
    after a move: most pairs keep their answer).

    :func:`_run_chunk` answers a task with :func:`geom3d.visibility.pair_patch` from the
    job's scenery (``job.key`` digests it, the blocking proofs' solids and any 40k hulls
    included), the observer's cylinder and hull set, the probe's cylinder, the patch
    size and the observer's occluder rows; ``pair_patch`` keeps of those rows only the
    ones :func:`geom3d.visibility.cast.cull_rows` passes, before anything else reads
    them. So the key holds the job's key, the two cylinders, the patch size and the
    culled rows, bit for bit, and two tasks with the same key have the same answer.

    Returns
    -------
    list of bytes
        One 32-byte digest per row of ``job.tasks``, in order.
    """
    which = job.observer_mesh if job.observer_mesh is not None else ()
    head = job.key.encode() + np.array([job.radius, job.height, job.patch_mm]).tobytes()
    cyls = job.observer_cylinders()
    tags = [
        o.tobytes() + np.float64(h).tobytes() + np.int64(which[j] if len(which) else -1).tobytes()
        for j, (o, h) in enumerate(zip(job.observers, job.observer_height, strict=True))
    ]
    out = []
    probes: dict[int, Cylinder] = {}  # each cell's probe, made once for its observers
    for c, j in job.tasks.tolist():
        a, tag = cyls[j], tags[j]
        probe = probes.get(c) or probes.setdefault(c, job.probe_at(c))
        rows = job.occluders[j]
        kept = rows[cull_rows(a, probe, rows)] if len(rows) else rows
        h = hashlib.blake2b(head, digest_size=32)
        h.update(tag)
        h.update(job.cells[c].tobytes())
        h.update(np.ascontiguousarray(kept).tobytes())
        out.append(h.digest())
    return out


def chunk_bounds(n: int, workers: int) -> list[tuple[int, int]]:
    """Contiguous ``[start, stop)`` chunks: about 16 per worker, 16 to 1,000 tasks each."""
    if n == 0:
        return []
    size = int(np.clip(n // max(1, 16 * workers), 16, 1000))
    return [(s, min(n, s + size)) for s in range(0, n, size)]


# Per-process cache: scenery key -> (engine, prover, engines of job.meshes); workers reuse
# their BVHs and prover.
_WORKER: dict[str, tuple] = {}


def _setup(job: ExposureJob, engine=None, prover=None, hull_engines=None) -> tuple:
    """The worker state of ``job`` (cached by its key). ``engine`` / ``prover`` /
    ``hull_engines`` (one per ``job.meshes``): the caller's own, used instead of building
    them."""
    got = _WORKER.get(job.key)
    if got is None:
        _WORKER.clear()
        eng, prv = scenery_tools(job, engine, prover)
        if hull_engines is None:
            hull_engines = [make_engine(v, f) for v, f in job.meshes]
        got = (eng, prv, tuple(hull_engines))
        _WORKER[job.key] = got
    return got


def _run_chunk(job: ExposureJob, state: tuple, start: int, stop: int):
    """Visibility of tasks ``start .. stop - 1`` ((stop - start,) bool) and counters."""
    eng, prv, hull_engines = state
    which = job.observer_mesh if job.observer_mesh is not None else ()
    engines = [hull_engines[w] if w >= 0 else eng for w in which]
    stats = VisibilityStats()
    out = np.zeros(stop - start, dtype=bool)
    obs_cyl = job.observer_cylinders()
    probes: dict[int, Cylinder] = {}  # each cell's probe, made once for its observers
    for k in range(start, stop):
        c, j = job.tasks[k]
        probe = probes.get(c) or probes.setdefault(c, job.probe_at(c))
        w, _ = pair_patch(
            obs_cyl[j],
            probe,
            engines[j] if len(engines) else eng,
            job.occluders[j],
            prover=prv,
            patch_mm=job.patch_mm,
            stats=stats,
            solids=job.solids,
            first_witness=False,  # only whether there is one
        )
        out[k - start] = w is not None
    return out, np.array([getattr(stats, f) for f in COUNTERS], dtype=np.int64)


_JOB: list = []  # the pool worker's job (set by the initializer)


def _init_pool(job: ExposureJob) -> None:
    _JOB[:] = [job]
    _setup(job)


def _pool_task(chunk: tuple[int, int], stage):
    job = _JOB[0]
    return chunk[0], *_run_chunk(job, _setup(job), *chunk)


def _dask_task(job: ExposureJob, start: int, stop: int):
    return start, *_run_chunk(job, _setup(job), start, stop)


#: The exposure map's worker tasks (:mod:`geom3d.survey.runners`).
_TASKS = Tasks(
    setup=_init_pool,
    pool_task=_pool_task,
    dask_task=_dask_task,
    what="exposure",
    items="probe-observer pairs",
)


def visible_tasks(
    job: ExposureJob,
    *,
    engine=None,
    prover: Prover | Callable[[], Prover] | None = None,
    hull_engines=None,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    answers: np.ndarray | None = None,
    threads: int = 1,
) -> tuple[np.ndarray, dict]:
    """Visibility of every task of ``job``.

    ``workers=1`` runs in-process on ``engine`` / ``prover`` / ``hull_engines`` (the
    scene's; built when absent), on ``threads`` threads sharing them (the compiled search
    and Embree release the GIL: for a caller that may not fork, such as a server thread);
    ``workers=N`` on a local process pool (default: the CPU count), ``scheduler`` on
    that Dask cluster.

    ``answers``, a (t,) int8 array of -1 given by a caller that shows partial results:
    each chunk's answers (0 or 1) are written into it as they come from a pool or a
    cluster, before ``progress`` is called (in-process and forked runs fill it at the end).

    Returns
    -------
    visible : (t,) bool
        In task order.
    info : dict
        ``{"executor", "workers", "counters": {name: int}}``.
    """
    cb = progress or (lambda done, total: None)
    n = len(job.tasks)
    out = np.zeros(n, dtype=bool) if answers is None else answers
    cnt = np.zeros(len(COUNTERS), dtype=np.int64)

    def info(executor: str, k: int) -> dict:
        return {
            "executor": executor,
            "workers": k,
            "counters": {c: int(v) for c, v in zip(COUNTERS, cnt, strict=True)},
        }

    if workers is not None and workers < 1:
        raise UsageError(f"--workers: must be at least 1 (got {workers})")
    if workers == 1 and scheduler is None and threads > 1:
        try:
            _threaded(job, _setup(job, engine, prover, hull_engines), threads, out, cnt, cb)
        finally:
            _WORKER.clear()  # as below
        return (out if answers is None else out == 1), info("threads", threads)
    chunks = chunk_bounds(n, 8 if scheduler is not None else (workers or cpu_count()))
    k, _ = choose_workers(workers, len(chunks), pool_pays_from=POOL_PAYS_FROM)

    def local():
        state = _setup(job, engine, prover, hull_engines)
        return lambda s, e: _run_chunk(job, state, s, e)

    try:
        executor, k = run_chunks(
            _TASKS, job, chunks, k, out, cnt, cb, local=local, scheduler=scheduler
        )
    finally:
        _WORKER.clear()  # do not keep the caller's BVH and prover alive
    return (out if answers is None else out == 1), info(executor, k)


def _threaded(job: ExposureJob, state: tuple, threads: int, out, cnt, progress) -> None:
    """:func:`visible_tasks` on ``threads`` threads of this process (``out`` and ``cnt``
    filled in place; ``out`` an int8 answers array gets 0 or 1 per chunk as it comes)."""
    n = len(job.tasks)
    bounds = chunk_bounds(n, threads)
    done = [0]

    def one(i: int) -> tuple[np.ndarray, np.ndarray]:
        return _run_chunk(job, state, *bounds[i])

    def store(i: int, got: tuple[np.ndarray, np.ndarray]) -> None:
        s, e = bounds[i]
        out[s:e] = got[0]
        cnt[:] += got[1]
        done[0] += e - s
        progress(done[0], n)

    map_items(one, len(bounds), threads=threads, chunk=1, on_result=store)
