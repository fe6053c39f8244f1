"""The exposure overlays searched ahead, while ``geom3d serve`` is idle.

The overlay (:mod:`geom3d.serve.overlay`) keeps every answer it finds under a digest of
everything that answer depends on (:func:`geom3d.exposure.jobs.task_keys`), and an
overlay asked for later searches only the pairs no kept answer covers. An
:class:`ExposureAhead` finds those answers before they are asked for:

* in background threads (one per core, at most 4), at the lowest CPU priority (on Linux
  each thread's own nice value, :data:`AHEAD_NICE`), so the moves' threads and every
  other program come first;
* only while the session is quiet: no move, Line of Fire or attack asked for in the last
  :data:`AHEAD_IDLE_S` seconds and no overlay running. Each thread takes a step of
  :data:`AHEAD_STEP` pairs at a time and looks again between steps, so a request that
  comes in meets at most one step per thread;
* each side's overlay of the current scene (at most :data:`AHEAD_SIDES`), planned as the
  overlay plans it (:meth:`ExposureJobs.plan <geom3d.serve.overlay.ExposureJobs.plan>`):
  the side mapped last first, then the sides in the scenario's order; each plan's pairs
  coarse pass first (:data:`~geom3d.serve.overlay.OVERLAY_STRIDES`), as the overlay asks
  them.

After a move the new scene is planned again, and only the pairs whose key the move
changed are searched. The answers are the overlay's own (the same search, the same
keys), so an overlay drawn from them is the one it would have searched
(``tests/serve/test_ahead.py``). On ``bench_serve.py``'s 1M-triangle table, on 2 cores,
the overlay of a side took 16 s when asked for cold, and 0.45 s once the search ahead had
caught up (50 s after the start, for both sides).

``geom3d serve --no-ahead`` leaves it off: an overlay is then searched when asked for.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import sys
import threading
import time
from typing import Any

import numpy as np

from geom3d.core.errors import Geom3dError
from geom3d.execution.policy import cpu_count
from geom3d.serve.overlay import ExposureJobs, plan_passes

log = logging.getLogger(__name__)

__all__ = [
    "AHEAD_IDLE_S",
    "AHEAD_NICE",
    "AHEAD_POLL_S",
    "AHEAD_SIDES",
    "AHEAD_STEP",
    "ExposureAhead",
]

#: Seconds without a move, Line of Fire or attack request before the search ahead
#: (re)starts: a drag sends a move every few tens of milliseconds, so it waits the drag out.
AHEAD_IDLE_S = 1.0

#: Seconds between looks while the search ahead waits (for a quiet spell, an overlay
#: running, or nothing left to search until the next move).
AHEAD_POLL_S = 0.25

#: Pairs a thread searches per step; the quiet is checked again between steps. On the
#: 1M-triangle table a pair takes about 1 ms on average and up to a second.
AHEAD_STEP = 16

#: The search ahead's nice value (Linux, per thread): the lowest priority.
AHEAD_NICE = 19

#: Sides whose overlays are searched ahead (fewer than the overlay's kept sceneries,
#: :data:`~geom3d.serve.overlay.OVERLAY_MEMO_SCENERIES`, so with 40k vehicles, where each
#: side's answers have their own scenery key, one side's never push out another's).
AHEAD_SIDES = 4


def _ahead_threads() -> int:
    """One thread per core, at most 4 (each takes its own steps: a slow pair holds up no
    other thread). At nice 19 they give way to the requests' threads; what a move still
    shares with them is Python's lock. On 2 cores, on ``bench_serve.py``'s 1M-triangle
    table, 14 of its moves made while the search ahead searched (each after a quiet
    spell) took 54 ms median and 100 ms p95 beside 2 threads, 79 and 138 ms beside one
    (moves vary that much from run to run; 35 and 64 ms with nothing searched ahead),
    and the search then caught up after 53 s instead of 70 s."""
    return max(1, min(4, cpu_count()))


@dataclasses.dataclass
class _Side:
    """One side's overlay plan on the scene searched ahead, and how far it got."""

    side: str
    plan: Any  # geom3d.exposure.document.ExposurePlan
    engines: dict
    keys: list[bytes]
    todo: np.ndarray  # (u,) int64: task rows no answer was kept for, coarse pass first
    pos: int = 0  # rows of todo taken by a step so far


class ExposureAhead:
    """Search the overlays' answers ahead in background threads (module docstring).

    Parameters
    ----------
    jobs : ExposureJobs
        The server's overlay jobs: their kept answers are filled.
    session : geom3d.serve.session.Session
        Its ``scene``, ``generation`` and ``last_request`` are read.
    idle_s : float
        Seconds of quiet before searching (:data:`AHEAD_IDLE_S`).
    threads : int, optional
        Threads, each taking the next step when done with its own (default: one per
        core, at most 4).
    """

    def __init__(
        self,
        jobs: ExposureJobs,
        session,
        *,
        idle_s: float = AHEAD_IDLE_S,
        threads: int | None = None,
    ) -> None:
        self.jobs, self.session, self.idle_s = jobs, session, idle_s
        self.threads = threads or _ahead_threads()
        self._stop = threading.Event()
        self._lock = threading.Lock()  # the state
        self._plan = threading.Lock()  # the plans and what is taken of them
        self._started: list[threading.Thread] = []
        self._scene: Any = None  # the scene self._sides were planned on
        self._cleared = -1  # jobs.cleared when they were planned
        self._sides: dict[str, _Side | None] = {}  # None: the side cannot be mapped
        self._busy = 0  # steps taken and not yet kept
        self._state: dict[str, Any] = {"state": "off"}

    # ------------------------------------------------------------------ control
    def start(self) -> list[threading.Thread]:
        """Start the background threads (daemons; once); returned."""
        if not self._started:
            self._set(state="waiting")
            self._started = [
                threading.Thread(target=self._loop, name=f"geom3d-ahead-{k}", daemon=True)
                for k in range(self.threads)
            ]
            for thread in self._started:
                thread.start()
        return list(self._started)

    def stop(self, timeout: float | None = None) -> None:
        """Stop after the current steps (waiting at most ``timeout`` seconds for each)."""
        self._stop.set()
        for thread in self._started:
            thread.join(timeout)

    def status(self) -> dict:
        """``state`` (``off``, ``waiting``: for a quiet spell, ``searching``, ``done``:
        every side's answers are kept, ``error``), and for the scene of move
        ``generation`` (the session's, when it was planned) per side planned so far
        ``sides``: ``{side: {"done", "total"}}`` (its overlay's pairs with rays, and how
        many of their answers are kept or being searched)."""
        with self._lock:
            return {**self._state, "sides": dict(self._state.get("sides", {}))}

    # ------------------------------------------------------------------ the threads
    def _set(self, **fields: Any) -> None:
        with self._lock:
            if self._state["state"] == "error":
                fields.pop("state", None)  # (another thread's last step: the error stays)
            self._state.update(fields)

    def _loop(self) -> None:
        _lower_priority()
        try:
            while not self._stop.is_set():
                wait = self._quiet_wait()
                if wait > 0:
                    self._set(state="waiting")
                    self._stop.wait(min(wait, AHEAD_POLL_S))
                    continue
                with self._plan:
                    step = self._take()
                    if step is None and not self._busy:
                        self._set(state="done")
                if step is None:
                    self._stop.wait(AHEAD_POLL_S)
                    continue
                self._set(state="searching")
                self._step(*step)
        except Exception as exc:  # the overlay still searches when asked; say why this stopped
            why = (str(exc).splitlines() or [type(exc).__name__])[0]
            log.debug("geom3d serve: the exposure search ahead stopped", exc_info=True)
            log.warning("geom3d serve: the exposure search ahead stopped: %s", why)
            self._set(state="error", error=why)
            self._stop.set()  # (the other threads too)

    def _quiet_wait(self) -> float:
        """Seconds to wait before the next step (0: search now)."""
        if self.jobs.status()["state"] == "running":
            return AHEAD_POLL_S
        return max(0.0, self.idle_s - (time.monotonic() - self.session.last_request))

    def _order(self, scene) -> list[str]:
        """The sides to search: the side mapped last first, then the scenario's order;
        at most :data:`AHEAD_SIDES`."""
        sides = list(dict.fromkeys(t.side for t in scene.troopers.values()))
        last = self.jobs.status().get("side")
        return sorted(sides, key=lambda s: s != last)[:AHEAD_SIDES]

    def _take(self) -> tuple[_Side, np.ndarray] | None:
        """The next step (a side and up to :data:`AHEAD_STEP` of its task rows) of the
        current scene, planned here when first met; None when none is left (called
        holding ``self._plan``)."""
        scene = self.session.scene
        if scene is not self._scene or self.jobs.cleared != self._cleared:
            self._scene, self._cleared, self._sides = scene, self.jobs.cleared, {}
            self._set(state="searching", sides={}, generation=self.session.generation)
        for side in self._order(scene):
            if side not in self._sides:
                self._sides[side] = self._plan_side(scene, side)
            work = self._sides[side]
            if work is not None and work.pos < len(work.todo):
                rows = work.todo[work.pos : work.pos + AHEAD_STEP]
                work.pos += len(rows)
                self._busy += 1
                return work, rows
        return None

    def _plan_side(self, scene, side: str) -> _Side | None:
        from geom3d.exposure.document import plan_engines
        from geom3d.exposure.jobs import task_keys

        try:
            plan = self.jobs.plan(scene, side)
        except Geom3dError as exc:  # (no spot to stand on, ...): the overlay says so
            log.debug("geom3d serve: no overlay of %r to search ahead: %s", side, exc)
            return None
        keys = task_keys(plan.job)
        _, task_pass = plan_passes(plan)
        unknown = np.flatnonzero(self.jobs.recall(plan.job.key, keys) < 0)
        todo = unknown[np.argsort(task_pass[unknown], kind="stable")]
        work = _Side(side, plan, plan_engines(scene, plan), keys, todo)
        self._count(work)
        return work

    def _count(self, work: _Side) -> None:
        total, left = len(work.keys), max(0, len(work.todo) - work.pos)
        with self._lock:
            self._state["sides"] = {
                **self._state.get("sides", {}),
                work.side: {"done": total - left, "total": total},
            }

    def _step(self, work: _Side, rows: np.ndarray) -> None:
        """Search task rows ``rows`` of ``work`` and keep the answers (rows answered
        meanwhile, by an overlay, are skipped)."""
        from geom3d.exposure.jobs import visible_tasks

        try:
            key = work.plan.job.key
            rows = rows[self.jobs.recall(key, [work.keys[i] for i in rows]) < 0]
            if len(rows):
                sub = dataclasses.replace(work.plan.job, tasks=work.plan.job.tasks[rows])
                got, _ = visible_tasks(sub, **work.engines, workers=1)
                self.jobs.remember(key, [work.keys[i] for i in rows], got)
        finally:
            with self._plan:
                self._busy -= 1
        self._count(work)


def _lower_priority() -> None:
    """The calling thread to nice :data:`AHEAD_NICE` (Linux: the nice value is the
    thread's own; elsewhere it would be the whole process's, so it is left)."""
    if sys.platform.startswith("linux"):
        try:
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), AHEAD_NICE)
        except OSError:  # (a sandbox that forbids it: the search runs at normal priority)
            log.debug("geom3d serve: the search ahead keeps its priority", exc_info=True)
