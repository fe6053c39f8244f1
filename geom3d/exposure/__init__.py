"""Exposure maps (SPEC 12.5, ``geom3d exposure``): where on the table a trooper stands
unseen by chosen observers.

A probe silhouette (default 2) stands at every standable grid position of the table
(every level; the survey's standing rule, :func:`geom3d.survey.place_probes`, through one
call in :mod:`.cells`); for each position the engine decides which observers have
**Line of Fire** to a probe there, exactly as ``geom3d lof`` decides it for a trooper
standing on that spot (:mod:`.decide`: arcs, engagement, the 3 x 3 mm rule, the other
troopers blocking; ``ignore_arcs``: visibility only). The visibility questions are
spread over local processes or a Dask cluster (:mod:`.jobs`); :mod:`.document` writes
``exposure.json``.

>>> from geom3d import load_scene
>>> from geom3d.exposure import exposure
>>> doc = exposure(load_scene("meshes/demo/table.yaml"), observers="red")  # doctest: +SKIP
>>> doc["safe_share"]  # doctest: +SKIP
"""

from __future__ import annotations

from geom3d.exposure.cells import standing_cells
from geom3d.exposure.decide import observers_for, probe_trooper, screen
from geom3d.exposure.document import ExposureResult, exposure, run_exposure
from geom3d.exposure.jobs import ExposureJob, visible_tasks

__all__ = [
    "ExposureJob",
    "ExposureResult",
    "exposure",
    "observers_for",
    "probe_trooper",
    "run_exposure",
    "screen",
    "standing_cells",
    "visible_tasks",
]
