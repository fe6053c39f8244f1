"""The exposure map as an overlay: geom3d's exposure engine run in a background thread.

``POST /api/exposure {side}`` starts a map of the current scene with that side's troopers
as observers (:func:`geom3d.exposure.run_exposure`, probe silhouette
:data:`OVERLAY_PROBE`, every :data:`OVERLAY_SPACING_MM`, in this process); ``GET
/api/exposure`` reports its progress and, once done, the cells. A new request cancels
the one running (its progress callback raises :class:`Cancelled` at the next report).
"""

from __future__ import annotations

import threading
from typing import Any

from geom3d.core.errors import Geom3dError

__all__ = ["OVERLAY_PROBE", "OVERLAY_SPACING_MM", "Cancelled", "ExposureJobs"]

#: Grid spacing (mm) of the page's exposure overlay (SPEC 13.6 asks for 20 mm).
OVERLAY_SPACING_MM = 20.0

#: The probe's silhouette (the exposure command's default).
OVERLAY_PROBE = 2


class Cancelled(Geom3dError):
    """A newer overlay replaced this one."""


class ExposureJobs:
    """The one overlay computed at a time (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._job = 0
        self._state: dict[str, Any] = {"job": 0, "state": "none"}

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
            }
            first = dict(self._state)
        thread = threading.Thread(
            target=self._run, args=(job, scene, side), name=f"geom3d-overlay-{job}", daemon=True
        )
        thread.start()
        return first

    def status(self) -> dict:
        """The latest job's state: ``job``, ``state`` (``none``, ``running``, ``done``,
        ``error``), ``side``, ``generation`` (the scene's), ``done``, ``total``; once
        done ``spacing_mm``, ``safe_share`` and ``cells`` (exposure.json's)."""
        with self._lock:
            return dict(self._state)

    def _update(self, job: int, **fields: Any) -> None:
        with self._lock:
            if self._state["job"] != job:
                raise Cancelled(f"exposure overlay {job} replaced by a newer one")
            self._state.update(fields)

    def _run(self, job: int, scene, side: str) -> None:
        from geom3d.exposure import run_exposure

        def progress(done: int, total: int) -> None:
            self._update(job, done=int(done), total=int(total))

        try:
            result = run_exposure(
                scene,
                observers=side,
                probe=OVERLAY_PROBE,
                spacing_mm=OVERLAY_SPACING_MM,
                workers=1,
                progress=progress,
            )
            doc = result.document
            self._update(
                job,
                state="done",
                spacing_mm=doc["spacing_mm"],
                safe_share=doc["safe_share"],
                observers=doc["observers"],
                cells=doc["cells"],
                seconds=doc["timing"]["total_s"],
            )
        except Cancelled:
            return
        except Geom3dError as exc:
            try:
                self._update(job, state="error", error=str(exc).splitlines()[0])
            except Cancelled:
                return
