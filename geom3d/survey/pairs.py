"""Visibility between all probe positions: the one visibility core, spread over processes.

Each unordered pair ``i < j`` is visible when :func:`geom3d.visibility.pair_patch` finds a
patch (the ruleset's ``patch_mm``) from ``i`` to ``j`` or else from ``j`` to ``i``, exactly
as :func:`geom3d.adjudication.lof.pair_visibility` decides it for two troopers - arcs
ignored, and the
probes do not block each other (no occluders) - with the same blocking proofs
(:class:`geom3d.visibility.Prover`), which skip segments without changing any answer.
Pairs are numbered in row-major order of ``numpy.triu_indices(n, 1)`` and cut into
contiguous chunks; a chunk's answers do not depend on where it ran, so the result is the
same for any number of workers and on Dask.

* ``workers=1``: in-process, on the scene's own BVH and prover;
* ``workers=N``: on Linux, this process and ``N - 1`` forked copies that read its BVH and
  prover in place; elsewhere (or ``GEOM3D_START_METHOD=spawn``) ``N`` spawned workers
  that each build the BVH and the prover once (:mod:`geom3d.survey.runners`);
* ``scheduler=ADDR``: an existing Dask cluster (``distributed``); the job (blocking mesh,
  its solids and probe cylinders) is scattered to every worker once.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from geom3d.bodies.cylinder import Cylinder
from geom3d.core.errors import UsageError
from geom3d.execution.policy import choose_workers, cpu_count
from geom3d.raycast import make_engine
from geom3d.survey.runners import POOL_PAYS_FROM, Tasks, run_chunks
from geom3d.visibility import InteriorMap, Prover, VisibilityStats, pair_patch
from geom3d.visibility.cast import SEARCH_COUNTERS
from geom3d.visibility.convex import NO_SOLIDS, ConvexSolids
from geom3d.visibility.interior_cache import cached_interior

__all__ = [
    "COUNTERS",
    "PairJob",
    "chunk_bounds",
    "pair_indices",
    "scenery_tools",
    "visible_pairs",
]

#: Progress callback: ``progress(pairs_done, pairs_total)``.
OnProgress = Callable[[int, int], None]

#: Counters summed over every chunk (``info["counters"]`` of :func:`visible_pairs`):
#: the prover's :class:`~geom3d.visibility.ProofStats` (``proof_*``) and the search's
#: :class:`~geom3d.visibility.VisibilityStats`.
COUNTERS = (
    "proof_pairs",
    "proof_pairs_settled",
    "proof_bundles",
    "proof_bundles_proved",
    *SEARCH_COUNTERS,
)
_PROOF_FIELDS = ("pairs", "pairs_settled", "bundles", "bundles_proved")


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
    label : (f,) int64 or None
        Solid of each blocking face, and
    closed : (k,) bool or None
        which solids are closed (:func:`geom3d.scene.scenery.closed_solids`): what the blocking
        proofs need. None: no proofs (every segment is cast; same answers).
    key : str
        Digest of all the above (workers cache their BVH and prover by it).
    solids : ConvexSolids
        The scenery's closed convex pieces (:mod:`geom3d.visibility.convex`; with the
        proofs only).
    map_key : str
        Disk cache key of the proof map for this mesh and these solids
        (:func:`geom3d.visibility.interior_cache.interior_key`): workers load the map the
        scene built instead of building it again. Empty: build it.
    """

    vertices: np.ndarray
    faces: np.ndarray
    positions: np.ndarray
    radius: float
    height: float
    patch_mm: float
    label: np.ndarray | None = None
    closed: np.ndarray | None = None
    key: str = field(default="")
    map_key: str = field(default="")
    solids: ConvexSolids = field(default=NO_SOLIDS)

    @classmethod
    def make(
        cls,
        vertices,
        faces,
        positions,
        radius,
        height,
        patch_mm,
        label=None,
        closed=None,
        map_key: str = "",
        solids: ConvexSolids = NO_SOLIDS,
    ) -> PairJob:
        v = np.ascontiguousarray(vertices, dtype=np.float64)
        f = np.ascontiguousarray(faces, dtype=np.int64)
        p = np.ascontiguousarray(positions, dtype=np.float64).reshape(-1, 3)
        if (label is None) != (closed is None):
            raise ValueError("PairJob: label and closed go together")
        if label is not None:
            label = np.ascontiguousarray(label, dtype=np.int64)
            closed = np.ascontiguousarray(closed, dtype=np.bool_)
            if label.shape != (len(f),):
                raise ValueError(f"PairJob: {len(label)} labels for {len(f)} faces")
        h = hashlib.sha256()
        for a in (v, f, p, np.array([radius, height, patch_mm], dtype=np.float64)):
            h.update(a.tobytes())
        if label is None:
            h.update(b"no proofs")
        else:  # lengths first: label and closed bytes cannot trade places
            h.update(np.array([len(label), len(closed)], dtype=np.int64).tobytes())
            h.update(label.tobytes())
            h.update(closed.tobytes())
        return cls(
            v,
            f,
            p,
            float(radius),
            float(height),
            float(patch_mm),
            label,
            closed,
            h.hexdigest(),
            map_key if label is not None else "",
            solids if label is not None else NO_SOLIDS,
        )

    @property
    def proofs(self) -> bool:
        """Whether workers build a prover (the job carries the solids)."""
        return self.label is not None

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


def _pair_visible(engine, prover, solids, cyl: list[Cylinder], i: int, j: int, patch, stats):
    w, _ = pair_patch(
        cyl[i], cyl[j], engine, [], prover=prover, patch_mm=patch, stats=stats, solids=solids,
        first_witness=False,  # only whether there is one
    )  # fmt: skip
    return w is not None


def scenery_tools(job: Any, engine: Any = None, prover: Any = None) -> tuple[Any, Any]:
    """A worker's BVH and (when ``job.proofs``) blocking prover over a job's scenery.

    ``job`` is a :class:`PairJob` or any job with the same scenery fields (``vertices``,
    ``faces``, ``proofs``, ``map_key``, ``label``, ``closed``, ``solids``: the exposure
    map's jobs).
    ``engine`` / ``prover``: the caller's own BVH and prover over the same mesh
    (``prover`` may be a function that returns one), used instead of building them; else
    the prover reads the scene's interior map from the disk cache (``map_key``) or builds
    it.
    """
    eng = engine if engine is not None else make_engine(job.vertices, job.faces)
    if not job.proofs:
        return eng, None
    if engine is not None and prover is not None:
        return eng, (prover() if callable(prover) else prover)
    if job.map_key:  # the map the scene built, from the disk cache
        label, closed = job.label, job.closed
        assert label is not None and closed is not None  # given with map_key
        interior, _ = cached_interior(job.map_key, job.vertices, job.faces, lambda: (label, closed))
        return eng, Prover(interior, eng, pieces=job.solids)
    interior = InteriorMap(job.vertices, job.faces, job.label, job.closed)
    return eng, Prover(interior, eng, pieces=job.solids)


# Per-process cache: job key -> (engine, prover, cylinders, i, j, patch_mm); workers reuse
# their BVH and prover.
_WORKER: dict[str, tuple] = {}


def _setup(job: PairJob, engine=None, prover=None) -> tuple:
    """The worker state of ``job`` (cached by its key). ``engine`` / ``prover``: the
    caller's own BVH and prover over the same mesh (``prover`` may be a function that
    returns one), used instead of building them."""
    got = _WORKER.get(job.key)
    if got is None:
        _WORKER.clear()
        eng, prv = scenery_tools(job, engine, prover)
        i, j = pair_indices(len(job.positions))
        got = (eng, prv, job.cylinders(), i, j, job.patch_mm, job.solids)
        _WORKER[job.key] = got
    return got


def _run_chunk(state: tuple, start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
    """Visibility of pairs ``start .. stop - 1``, (stop - start,) bool, and the chunk's
    counters, (len(COUNTERS),) int64."""
    eng, prv, cyl, ii, jj, patch, solids = state
    stats = VisibilityStats()
    before = [getattr(prv.stats, k) for k in _PROOF_FIELDS] if prv is not None else None
    vis = np.fromiter(
        (
            _pair_visible(eng, prv, solids, cyl, int(ii[k]), int(jj[k]), patch, stats)
            for k in range(start, stop)
        ),
        dtype=bool,
        count=stop - start,
    )
    proof = [0] * len(_PROOF_FIELDS)
    if prv is not None:
        assert before is not None  # counted when prv was set
        proof = [getattr(prv.stats, k) - b for k, b in zip(_PROOF_FIELDS, before, strict=True)]
    counters = np.array(proof + [getattr(stats, k) for k in SEARCH_COUNTERS], dtype=np.int64)
    return vis, counters


def _init_pool(job: PairJob) -> None:
    _setup(job)


def _pool_task(chunk: tuple[int, int], stage) -> tuple[int, np.ndarray, np.ndarray]:
    (state,) = _WORKER.values()  # set up by the pool initializer
    return chunk[0], *_run_chunk(state, *chunk)


def _dask_task(job: PairJob, start: int, stop: int) -> tuple[int, np.ndarray, np.ndarray]:
    return start, *_run_chunk(_setup(job), start, stop)


#: The survey's worker tasks (:mod:`geom3d.survey.runners`).
_TASKS = Tasks(
    setup=_init_pool,
    pool_task=_pool_task,
    dask_task=_dask_task,
    what="survey",
    items="pairs",
)


def visible_pairs(
    job: PairJob,
    *,
    engine=None,
    prover: Prover | Callable[[], Prover] | None = None,
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
    prover : Prover or callable() -> Prover, optional
        Blocking proofs over ``engine`` with ``job``'s solids (e.g. the scene's), used
        in-process with ``engine`` (a function is called only then); built when absent.
        Unused when ``job`` carries no solids.
    workers : int, optional
        Local processes (default: ``auto``, :func:`geom3d.execution.policy.choose_workers`:
        in-process for a few chunks, else one process per CPU); 1 runs in-process.
    scheduler : str, optional
        Dask scheduler address: run on that cluster instead.
    progress : callable(done, total), optional

    Returns
    -------
    visible : (n_pairs,) bool
        In the order of :func:`pair_indices`.
    info : dict
        ``{"executor": "in-process" | "processes" | "dask", "workers": int,
        "counters": {name: int}}`` (see :data:`COUNTERS`).
    """
    cb = progress or (lambda done, total: None)
    n_pairs = job.n_pairs
    out = np.zeros(n_pairs, dtype=bool)
    cnt = np.zeros(len(COUNTERS), dtype=np.int64)

    def info(executor: str, n: int) -> dict:
        counters = {k: int(c) for k, c in zip(COUNTERS, cnt, strict=True)}
        return {"executor": executor, "workers": n, "counters": counters}

    if workers is not None and workers < 1:
        raise UsageError(f"--workers: must be at least 1 (got {workers})")
    chunks = chunk_bounds(n_pairs, 8 if scheduler is not None else (workers or cpu_count()))
    n, _ = choose_workers(workers, len(chunks), pool_pays_from=POOL_PAYS_FROM)

    def local():
        state = _setup(job, engine, prover)
        return lambda s, e: _run_chunk(state, s, e)

    try:
        executor, n = run_chunks(
            _TASKS, job, chunks, n, out, cnt, cb, local=local, scheduler=scheduler
        )
    finally:
        _WORKER.clear()  # do not keep the caller's BVH and prover alive
    return out, info(executor, n)
