"""The survey: positions, pair visibility and analysis, as the SPEC 11.6 document.

``survey.json`` (all lengths mm, rounded to 1e-3 mm; shares to 1e-4)::

    {"units": "mm", "probe": {"silhouette", "diameter_mm", "height_mm"}, "spacing_mm",
     "positions": [{"id": "p0001", "position": [x, y, z], "level", "sees"}],
     "visible_pairs": [[i, j], ...],          # i < j, indices into positions, sorted
     "lanes": [{"a", "b", "distance_mm"}],    # longest first
     "zones": [{"id", "sees_share", "seen_share"}],
     "health": {"warnings": [...]},
     "timing": {...}}                          # the only part that varies between runs

Everything but ``timing`` is the same, byte for byte, for any number of workers and on Dask.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from geom3d.core.errors import Geom3dError
from geom3d.core.output import round_point, round_value
from geom3d.core.tolerances import SURVEY_DEFAULT_LANES
from geom3d.scene.scene import Scene
from geom3d.survey.analysis import (
    ZoneShare,
    band_width_mm,
    distance_bands,
    health_warnings,
    lanes,
    sees_counts,
    zone_shares,
)
from geom3d.survey.grid import (
    Probe,
    ProbeGrid,
    check_pairs,
    place_probes,
    probe_for,
    stand_threads,
)
from geom3d.survey.pairs import PairJob, pair_indices, visible_pairs

__all__ = ["DEFAULT_LANES", "SurveyResult", "position_ids", "run_survey", "survey"]

#: Lanes listed in ``survey.json`` (the longest ones).
DEFAULT_LANES = SURVEY_DEFAULT_LANES
_SHARE_DECIMALS = 4


@dataclass
class SurveyResult:
    """A survey and what the summary needs beyond the document.

    Attributes
    ----------
    document : dict
        The SPEC 11.6 document (``survey.json``).
    grid : ProbeGrid
    probe : Probe
    visible : (n_pairs,) bool
        Pair visibility in the order of :func:`~geom3d.survey.pairs.pair_indices`.
    bands : list of (lo_mm, hi_mm, pairs, visible)
    zones : list of ZoneShare
    units : str
        The scenario file's units (for display).
    counters : dict
        Proof and search counters summed over all pairs (``info["counters"]`` of
        :func:`~geom3d.survey.pairs.visible_pairs`; for benchmarks).
    """

    document: dict
    grid: ProbeGrid
    probe: Probe
    visible: np.ndarray
    bands: list
    zones: list[ZoneShare]
    units: str
    counters: dict = field(default_factory=dict)


def position_ids(n: int) -> list[str]:
    """``p0001``, ``p0002``, ... (at least four digits)."""
    width = max(4, len(str(n)))
    return [f"p{k + 1:0{width}d}" for k in range(n)]


def _job(scene: Scene, grid: ProbeGrid, probe: Probe, proofs: bool = True) -> PairJob:
    blocking = scene.blocking
    if len(blocking.faces) != scene.engine.n_triangles:
        raise Geom3dError(
            "survey: the scene's blocking mesh does not match its ray engine "
            f"({len(blocking.faces)} vs {scene.engine.n_triangles} triangles)"
        )
    patch = scene.ruleset.lof_policy.patch_mm
    label = closed = None
    map_key = ""
    if proofs:  # the scene's own map (cached on disk): workers load it by its key
        interior = scene.prover.interior
        label, closed, map_key = interior.label, interior.closed, interior.cache_key
    return PairJob.make(
        blocking.vertices,
        blocking.faces,
        grid.positions,
        probe.radius,
        probe.height,
        patch,
        label=label,
        closed=closed,
        map_key=map_key,
        solids=scene.convex_solids,  # (the job drops them without proofs)
    )


def run_survey(
    scene: Scene,
    *,
    probe: int = 2,
    spacing_mm: float = 50.0,
    workers: int | None = None,
    scheduler: str | None = None,
    lanes_count: int = DEFAULT_LANES,
    progress: Callable[[int, int], None] | None = None,
    proofs: bool = True,
) -> SurveyResult:
    """Survey a scene (see :func:`survey`); the document plus what the summary shows.

    ``proofs=False`` casts every segment, without blocking proofs (for benchmarks: the
    document is the same)."""
    t0 = time.perf_counter()
    pr = probe_for(scene, probe)
    grid = place_probes(scene, pr, spacing_mm, threads=stand_threads(workers))
    check_pairs(len(grid.positions), spacing_mm)  # before any pair
    t_grid = time.perf_counter() - t0
    job = _job(scene, grid, pr, proofs)
    t1 = time.perf_counter()
    vis, info = visible_pairs(
        job,
        engine=scene.engine,
        prover=lambda: scene.prover,  # in-process: the scene's own, built once per scenery
        workers=workers,
        scheduler=scheduler,
        progress=progress,
    )
    t_pairs = time.perf_counter() - t1
    n = len(grid.positions)
    ii, jj = pair_indices(n)
    sees = sees_counts(n, ii, jj, vis)
    ids = position_ids(n)
    zones = zone_shares(scene, grid.positions, ii, jj, vis)
    doc = {
        "units": "mm",
        "probe": {
            "silhouette": pr.silhouette,
            "diameter_mm": round_value(pr.diameter),
            "height_mm": round_value(pr.height),
        },
        "spacing_mm": round_value(spacing_mm),
        "positions": [
            {
                "id": ids[k],
                "position": round_point(grid.positions[k]),
                "level": int(grid.level[k]),
                "sees": int(sees[k]),
            }
            for k in range(n)
        ],
        "visible_pairs": [[int(a), int(b)] for a, b in zip(ii[vis], jj[vis], strict=True)],
        "lanes": [
            {"a": ids[ln.a], "b": ids[ln.b], "distance_mm": round_value(ln.distance)}
            for ln in lanes(grid.positions, ii, jj, vis, lanes_count)
        ],
        "zones": [
            {
                "id": z.id,
                "sees_share": round_value(z.sees_share, _SHARE_DECIMALS),
                "seen_share": round_value(z.seen_share, _SHARE_DECIMALS),
            }
            for z in zones
        ],
        "health": {"warnings": health_warnings(scene, grid)},
    }
    total = time.perf_counter() - t0
    doc["timing"] = {
        "grid_s": round_value(t_grid),
        "pairs_s": round_value(t_pairs),
        "total_s": round_value(total),
        "pairs": int(job.n_pairs),
        "pairs_per_s": round_value(job.n_pairs / t_pairs if t_pairs > 0 else 0.0, 1),
        "executor": info["executor"],
        "workers": int(info["workers"]),
    }
    bands = distance_bands(grid.positions, ii, jj, vis, band_width_mm(scene.scenario.units))
    return SurveyResult(
        doc, grid, pr, vis, bands, zones, scene.scenario.units, dict(info.get("counters", {}))
    )


def survey(
    scene: Scene,
    *,
    probe: int = 2,
    spacing_mm: float = 50.0,
    workers: int | None = None,
    scheduler: str | None = None,
    lanes_count: int = DEFAULT_LANES,
    progress: Callable[[int, int], None] | None = None,
) -> dict:
    """Survey a whole table: the SPEC 11.6 document (``survey.json``).

    Parameters
    ----------
    scene : Scene
    probe : int
        Silhouette of the probe (the ruleset's diameter and height).
    spacing_mm : float, mm
        Grid spacing.
    workers : int, optional
        Local processes for the pair visibility (default ``os.cpu_count()``; 1: in-process).
    scheduler : str, optional
        Dask scheduler address (``tcp://HOST:PORT``): run the pairs on that cluster.
    lanes_count : int
        How many of the longest lanes to list.
    progress : callable(done, total), optional
        Called as pairs finish.

    Returns
    -------
    dict
        See the module docstring; ``timing`` is the only part that varies between runs.
    """
    return run_survey(
        scene,
        probe=probe,
        spacing_mm=spacing_mm,
        workers=workers,
        scheduler=scheduler,
        lanes_count=lanes_count,
        progress=progress,
    ).document
