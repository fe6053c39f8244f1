"""The exposure map as an overlay: geom3d's exposure engine, coarse to fine, in the background.

``POST /api/exposure {side}`` starts a map of the current scene with that side's troopers
as observers (probe silhouette :data:`OVERLAY_PROBE`, every :data:`OVERLAY_SPACING_MM`);
``GET /api/exposure`` reports its progress and, once done, the cells. A new request
cancels the one running (its progress callback raises :class:`Cancelled` at the next
report; a pool's workers are stopped on the way out).

The map is planned once (:func:`geom3d.exposure.document.plan_exposure`: the standable
spots, the rules' screen, the visibility job, exactly as ``geom3d exposure`` plans it) and
its visibility questions are asked in passes (:data:`OVERLAY_STRIDES`): first the spots on
every 4th grid line each way, then every 2nd, then the rest. After each batch of
:data:`OVERLAY_BATCH` searches the status carries the spots done so far (``cells``, each
drawn ``size_mm`` wide: its pass's grid), so the page shows the whole table after about
a sixteenth of the work and refines it; each spot is asked once,
and the finished map is :func:`geom3d.exposure.document.finish_exposure`'s, the same
cells as ``geom3d exposure --spacing 20`` on the saved scenario (``tests/serve``).
Answers are kept for the next overlay (:data:`OVERLAY_MEMO_MAX`), each under a digest
of everything it depends on (:func:`geom3d.exposure.jobs.task_keys`): after a trooper
is dragged, only the pairs it can change are searched again. ``geom3d serve`` also
fills them ahead, while the session is quiet (:mod:`geom3d.serve.ahead`).

Each pass runs through the exposure pipeline (:func:`geom3d.exposure.jobs.visible_tasks`):
in this process on :data:`OVERLAY_THREADS` threads sharing the scene's own BVH and proofs
(nothing to start: the first picture comes sooner), or, a pass of at least
:data:`OVERLAY_POOL_FROM` questions where there are :data:`OVERLAY_POOL_CPUS` CPUs or
more, on :data:`OVERLAY_WORKERS` processes (from a server
thread the execution layer spawns them, :func:`geom3d.execution.policy.start_method`: a
threaded process is never forked).
"""

from __future__ import annotations

import dataclasses
import itertools
import logging
import threading
import time
from typing import Any

import numpy as np

from geom3d.core.errors import Geom3dError
from geom3d.execution.policy import cpu_count

log = logging.getLogger(__name__)

__all__ = [
    "OVERLAY_BATCH",
    "OVERLAY_MEMO_MAX",
    "OVERLAY_MEMO_SCENERIES",
    "OVERLAY_POOL_CPUS",
    "OVERLAY_POOL_FROM",
    "OVERLAY_PROBE",
    "OVERLAY_SPACING_MM",
    "OVERLAY_STRIDES",
    "OVERLAY_THREADS",
    "OVERLAY_WORKERS",
    "Cancelled",
    "ExposureJobs",
    "pass_of_cells",
    "plan_passes",
]

#: Grid spacing (mm) of the page's exposure overlay (SPEC 13.6 asks for 20 mm).
OVERLAY_SPACING_MM = 20.0

#: The probe's silhouette (the exposure command's default).
OVERLAY_PROBE = 2

#: The passes, coarse to fine, in grid steps: a spot is asked in the first pass whose
#: stride divides both of its grid indices (every 4th line each way: 1/16 of the spots).
OVERLAY_STRIDES = (4, 2, 1)

#: Processes that share a big pass's questions (None: the CPU count, as ``geom3d
#: exposure``; 1: every pass in the overlay's thread).
OVERLAY_WORKERS: int | None = None

#: Threads that share a pass run in the overlay's process (None: the CPU count; the
#: compiled search and Embree release the GIL, so they share the scene's BVH and proofs
#: with no start-up, where a server thread may not fork).
OVERLAY_THREADS: int | None = None

#: The fewest questions (pairs searched with rays) for which a pass runs on
#: :data:`OVERLAY_WORKERS` processes; smaller passes run in the overlay's thread. A
#: server thread may not fork, so the pool's workers are spawned: each imports geom3d
#: and sets up the scene's BVH and proofs, seconds that pay only for a long pass (on the
#: demo table a pair with rays costs about 1 to 3 ms; its 20 mm map's last pass has
#: about 11,000).
OVERLAY_POOL_FROM = 4000

#: The fewest processes worth a pool: with fewer, a long pass runs on threads too. On
#: two cores the threads were the faster (demo table, 20 mm: the whole map in 12.7 s on
#: threads, 13.5 s with its last pass on two spawned workers, each of which imports
#: geom3d and sets up the scene first); the Python between compiled calls holds the GIL,
#: so with more cores the processes win.
OVERLAY_POOL_CPUS = 4

#: Answers the overlay keeps for the next overlay (:func:`geom3d.exposure.jobs.task_keys`
#: names each by everything it depends on, so after a move only the pairs the moved
#: trooper can change are searched again; past this many, about 100 bytes each, the
#: least recently asked are forgotten; see also :data:`OVERLAY_MEMO_SCENERIES`).
OVERLAY_MEMO_MAX = 400_000

#: Sceneries (job keys) whose answers are kept: one in a session without 40k vehicles
#: (moves re-stand troopers, the scenery stays); with vehicles each side's blocking hulls
#: make its own key, and a vehicle's move a new one.
OVERLAY_MEMO_SCENERIES = 8

#: Searches per batch: after each batch of a pass the status carries the spots done so
#: far (a pass in the overlay's thread runs batch by batch; a pass on workers reports
#: its chunks' answers as they come, at least this many searches apart).
OVERLAY_BATCH = 1000


class Cancelled(Geom3dError):
    """A newer overlay replaced this one."""


def pass_of_cells(grid_xy: np.ndarray, cell: np.ndarray, spacing: float) -> np.ndarray:
    """The pass (index into :data:`OVERLAY_STRIDES`) of each spot.

    Parameters
    ----------
    grid_xy : (g, 2) float64, mm
        The grid points (:class:`geom3d.survey.grid.ProbeGrid`).
    cell : (n,) int64
        Each spot's grid point.
    spacing : float, mm

    Returns
    -------
    (n,) int64
    """
    if not len(cell):
        return np.zeros(0, np.int64)
    xy = grid_xy[cell]
    ij = np.rint((xy - grid_xy.min(axis=0)) / spacing).astype(np.int64)
    out = np.full(len(cell), len(OVERLAY_STRIDES) - 1, np.int64)
    for k in reversed(range(len(OVERLAY_STRIDES))):
        s = OVERLAY_STRIDES[k]
        out[(ij[:, 0] % s == 0) & (ij[:, 1] % s == 0)] = k
    return out


def plan_passes(plan) -> tuple[np.ndarray, np.ndarray]:
    """The pass (:func:`pass_of_cells`) of each spot of an overlay's plan and of each of
    its tasks.

    Returns
    -------
    spot_pass : (n,) int64
        Per spot of ``plan.grid``.
    task_pass : (t,) int64
        Per row of ``plan.tasks`` (its spot's).
    """
    grid = plan.grid
    spot_pass = pass_of_cells(grid.grid_xy, grid.cell, grid.spacing)
    if not len(plan.tasks):
        return spot_pass, np.zeros(0, np.int64)
    return spot_pass, spot_pass[plan.tasks[:, 0]]


class ExposureJobs:
    """The one overlay computed at a time (thread-safe).

    Attributes
    ----------
    workers : int or None
        Processes per pass (:data:`OVERLAY_WORKERS` when made).
    threads : int or None
        Threads of a pass run in this process (:data:`OVERLAY_THREADS` when made).
    cleared : int
        How many times kept answers were forgotten (a scenery's, for newer ones, or the
        least recently asked, past :data:`OVERLAY_MEMO_MAX`): the search ahead plans
        again when it changes.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._job = 0
        self._state: dict[str, Any] = {"job": 0, "state": "none"}
        self.workers: int | None = OVERLAY_WORKERS
        self.threads: int | None = OVERLAY_THREADS
        # job key (its scenery) -> {task key -> visible}, the most recently used last
        self._memo: dict[str, dict[bytes, bool]] = {}
        self.cleared = 0
        self._grid: tuple[Any, Any] = (None, None)  # (scenery, its cells): moves keep them
        self._standing = threading.Lock()  # held while the cells are stood (once)

    def recall(self, scenery: str, keys: list[bytes]) -> np.ndarray:
        """(t,) int8: the answer kept for each of ``keys`` (0 or 1), -1 where none is.
        ``scenery``: the job's key (:attr:`ExposureJob.key
        <geom3d.exposure.jobs.ExposureJob.key>`; with 40k vehicles each side's differs).
        The answers of at most :data:`OVERLAY_MEMO_SCENERIES` sceneries are kept, the
        least recently asked forgotten first; each answer found here becomes the most
        recently asked (:meth:`remember` forgets the least recently asked)."""
        with self._lock:
            memo = self._memo.pop(scenery, None)
            if memo is None:
                memo = {}
                while len(self._memo) >= OVERLAY_MEMO_SCENERIES:
                    self.cleared += bool(self._memo.pop(next(iter(self._memo))))
            self._memo[scenery] = memo  # (the most recent, last)
            out = np.full(len(keys), -1, dtype=np.int8)
            for i, k in enumerate(keys):
                v = memo.pop(k, None)
                if v is not None:
                    memo[k] = out[i] = v  # (moved to the end: the most recently asked)
            return out

    def remember(self, scenery: str, keys: list[bytes], vis: np.ndarray) -> None:
        """Keep the answers ``vis`` ((t,) bool) of ``keys`` for later overlays. Past
        :data:`OVERLAY_MEMO_MAX` answers the least recently asked are forgotten, down to
        three quarters of it: a moved trooper's old pairs, which no plan asks again."""
        with self._lock:
            if scenery not in self._memo:
                return  # forgotten meanwhile: newer sceneries own the memo now
            self._memo[scenery].update(zip(keys, vis.tolist(), strict=True))
            excess = sum(map(len, self._memo.values())) - OVERLAY_MEMO_MAX
            if excess <= 0:
                return
            drop = excess + OVERLAY_MEMO_MAX // 4
            for memo in self._memo.values():  # the least recently asked sceneries first
                old = list(itertools.islice(memo, min(drop, len(memo))))
                for k in old:
                    del memo[k]
                drop -= len(old)
                if drop <= 0:
                    break
            self.cleared += 1

    def start(self, scene, side: str, generation: int) -> dict:
        """Start a map of ``scene`` seen by ``side``; the job's first state."""
        with self._lock:
            self._job += 1
            job = self._job
            self._state = {
                "job": job,
                "state": "running",
                "side": side,
                "generation": generation,
                "done": 0,
                "total": 0,
                "pass": 0,
                "passes": len(OVERLAY_STRIDES),
            }
            first = dict(self._state)
        thread = threading.Thread(
            target=self._run, args=(job, scene, side), name=f"geom3d-overlay-{job}", daemon=True
        )
        thread.start()
        return first

    def prepare(self, scene) -> float:
        """Stand the overlay's cells on ``scene``'s scenery now (``geom3d serve`` calls
        it in a thread once the scene is warm): they depend on the scenery alone, so the
        first overlay then starts with its searches. An overlay started meanwhile waits
        for them rather than standing them again. Returns the seconds it took (0 when
        they were stood already)."""
        from geom3d.exposure.cells import probe_for, standing_cells

        t0 = time.perf_counter()
        with self._standing:
            with self._lock:
                if self._grid[0] is scene.scenery:
                    return 0.0
            grid = standing_cells(scene, probe_for(scene, OVERLAY_PROBE), OVERLAY_SPACING_MM)
            with self._lock:
                self._grid = (scene.scenery, grid)
        return time.perf_counter() - t0

    def prepare_in_background(self, scene) -> threading.Thread:
        """:meth:`prepare` in a daemon thread (started; returned). A failure is left
        for the overlay to meet and report when one is asked for."""

        def run() -> None:
            try:
                self.prepare(scene)
            except Exception:  # the overlay stands them again, and says why it cannot
                log.debug("geom3d serve: standing the overlay's cells ahead failed", exc_info=True)

        thread = threading.Thread(target=run, name="geom3d-overlay-cells", daemon=True)
        thread.start()
        return thread

    def status(self) -> dict:
        """The latest job's state: ``job``, ``state`` (``none``, ``running``, ``done``,
        ``error``), ``side``, ``generation`` (the scene's), ``done`` and ``total`` (pairs
        searched with rays), ``reused`` (of those, how many an earlier overlay answered:
        done at once), ``pass`` / ``passes``, ``observers`` (once planned); after
        each batch ``cells``, the spots done so far (exposure.json's form plus
        ``size_mm``, how wide to draw each: its pass's grid); once done ``spacing_mm``,
        ``safe_share``, ``cells`` (exposure.json's, in its order) and ``seconds``."""
        with self._lock:
            return dict(self._state)

    def _update(self, job: int, **fields: Any) -> None:
        with self._lock:
            if self._state["job"] != job:
                raise Cancelled(f"exposure overlay {job} replaced by a newer one")
            self._state.update(fields)

    def _run(self, job: int, scene, side: str) -> None:
        try:
            self._passes(job, scene, side)
        except Cancelled:
            return
        except Geom3dError as exc:
            try:
                self._update(job, state="error", error=str(exc).splitlines()[0])
            except Cancelled:
                return

    def plan(self, scene, side: str):
        """The overlay's plan (:func:`geom3d.exposure.document.plan_exposure`) of
        ``scene`` seen by ``side``, on the cells stood once per scenery."""
        from geom3d.exposure.document import plan_exposure

        with self._standing:  # (the cells stood by prepare(), or stood here once)
            with self._lock:
                scenery, grid = self._grid
            plan = plan_exposure(
                scene, observers=side, probe=OVERLAY_PROBE, spacing_mm=OVERLAY_SPACING_MM,
                grid=grid if scenery is scene.scenery else None,
            )  # fmt: skip
            with self._lock:
                self._grid = (scene.scenery, plan.grid)
        return plan

    def _passes(self, job: int, scene, side: str) -> None:
        from geom3d.exposure.document import finish_exposure, plan_engines

        t0 = time.perf_counter()
        plan = self.plan(scene, side)
        run = _Run(self, job, plan, plan_engines(scene, plan))
        self._update(
            job,
            total=len(plan.tasks),
            reused=run.reused,
            observers=[o.id for o in plan.observers],
        )
        for k in range(len(OVERLAY_STRIDES)):
            self._update(job, **{"pass": k + 1})
            idx = np.flatnonzero((run.task_pass == k) & ~run.asked)
            pool = (
                self.workers != 1
                and len(idx) >= OVERLAY_POOL_FROM
                and (self.workers or cpu_count()) >= OVERLAY_POOL_CPUS
            )
            parts = -(-len(idx) // OVERLAY_BATCH)
            for part in [idx] if pool or parts <= 1 else np.array_split(idx, parts):
                run.ask(part, k, self.workers if pool else 1)
        info = {**run.info, "counters": run.counters}
        doc = finish_exposure(scene, plan, run.vis, info, run.t_rays).document
        self._update(
            job,
            state="done",
            done=len(plan.tasks),
            spacing_mm=doc["spacing_mm"],
            safe_share=doc["safe_share"],
            observers=doc["observers"],
            cells=doc["cells"],
            seconds=round(time.perf_counter() - t0, 3),
        )


class _Run:
    """One overlay's answers so far, and how it asks a batch and reports it."""

    def __init__(self, jobs: ExposureJobs, job: int, plan, engines: dict) -> None:
        self.jobs, self.job, self.plan, self.engines = jobs, job, plan, engines
        self.spot_pass, self.task_pass = plan_passes(plan)
        self._spots: list | None = None  # (_spot_fields, made at the first report)
        from geom3d.exposure.jobs import task_keys

        self.keys = task_keys(plan.job)
        kept = jobs.recall(plan.job.key, self.keys)
        self.asked = kept >= 0  # answered by an earlier overlay: not searched again
        self.vis = kept == 1
        self.reused = int(np.count_nonzero(self.asked))
        self.counters: dict[str, int] = {}
        self.info: dict = {"executor": "in-process", "workers": 1}
        self.t_rays = 0.0

    def ask(self, part: np.ndarray, k: int, workers: int | None) -> None:
        """Search tasks ``part`` (of pass ``k``) on ``workers``; report the spots done
        (after the batch, and on workers every :data:`OVERLAY_BATCH` answers)."""
        from geom3d.exposure.jobs import visible_tasks

        if len(part):
            before = int(np.count_nonzero(self.asked))
            answers = np.full(len(part), -1, np.int8)  # a pool's chunks as they come
            shown = [0]

            def progress(done: int, _total: int) -> None:
                self.jobs._update(self.job, done=before + int(done))
                if workers != 1 and done - shown[0] >= OVERLAY_BATCH:
                    shown[0] = done
                    self.vis[part] = answers == 1
                    now = self.asked.copy()
                    now[part] = answers >= 0
                    self._report(now, k)

            sub = dataclasses.replace(self.plan.job, tasks=self.plan.tasks[part])
            t1 = time.perf_counter()
            threads = 1
            if workers == 1:
                threads = self.jobs.threads or cpu_count()
            got, self.info = visible_tasks(
                sub, **self.engines, workers=workers, progress=progress, answers=answers,
                threads=threads,
            )  # fmt: skip
            self.t_rays += time.perf_counter() - t1
            self.vis[part], self.asked[part] = got, True
            self.jobs.remember(self.plan.job.key, [self.keys[i] for i in part], got)
            for name, v in self.info["counters"].items():
                self.counters[name] = self.counters.get(name, 0) + int(v)
        self.jobs._update(self.job, done=int(np.count_nonzero(self.asked)))
        self._report(self.asked, k)

    def _report(self, asked: np.ndarray, k: int) -> None:
        if self._spots is None:  # what a spot's cell says whatever the answers: once
            self._spots = _spot_fields(self.plan.grid, self.spot_pass)
        cells = _partial_cells(self.plan, self.vis, asked, self.spot_pass, self._spots, k)
        self.jobs._update(self.job, cells=cells)


def _spot_fields(grid, spot_pass: np.ndarray) -> list[tuple[list[float | None] | None, int, float]]:
    """Per spot, the parts of its cell that no answer changes: its rounded position, its
    level and ``size_mm`` (its pass's grid; ``spot_pass``: :func:`pass_of_cells`)."""
    from geom3d.core.output import round_point

    size = [float(s * grid.spacing) for s in OVERLAY_STRIDES]
    return [
        (round_point(p), lv, size[k])
        for p, lv, k in zip(grid.positions, grid.level.tolist(), spot_pass.tolist(), strict=True)
    ]


def _partial_cells(plan, vis, asked, spot_pass, spots: list, k: int) -> list[dict]:
    """The spots of passes up to ``k`` whose searches are all done, in exposure.json's
    cell form plus ``size_mm`` (how wide to draw it: its pass's grid), in grid order.
    ``spots``: :func:`_spot_fields` of the plan's grid."""
    seen = np.zeros(plan.maybe.shape, dtype=bool)
    seen[plan.tasks[asked, 0], plan.tasks[asked, 1]] = vis[asked]
    pending = np.zeros(len(spots), dtype=bool)
    pending[plan.tasks[~asked, 0]] = True
    ids = [o.id for o in plan.observers]
    done = np.flatnonzero((spot_pass <= k) & ~pending)
    if not len(done):
        return []
    rows, cols = np.nonzero(seen[done])  # row-major: each spot's observers in order
    by_spot = np.split(cols, np.searchsorted(rows, np.arange(1, len(done))))
    return [
        {
            "position": spots[i][0],
            "level": spots[i][1],
            "seen_by": [ids[j] for j in js.tolist()],
            "size_mm": spots[i][2],
        }
        for i, js in zip(done.tolist(), by_spot, strict=True)
    ]
