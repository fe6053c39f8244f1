"""The exposure map as the SPEC 12.5 document (``exposure.json``).

All lengths mm, rounded to 1e-3 mm; shares to 1e-4::

    {"units": "mm", "scenario": name,
     "observers": [ids], "observer_positions": [{id, position, facing_deg}],
     "probe": {"silhouette", "diameter_mm", "height_mm"}, "spacing_mm",
     "ignore_arcs": bool,
     "cells": [{"position": [x, y, z], "level", "seen_by": [ids]}],   # grid order
     "safe_share": share of cells no observer sees,
     "counts": {"cells", "safe", "pairs", "pairs_decided_without_rays"},
     "timing": {...}}                   # the only part that varies between runs

``seen_by`` lists observers in ``observers`` order. Everything but ``timing`` is the same,
byte for byte, for any number of workers and on Dask.

**Where can this trooper be seen from** (``seen_from``, SPEC 13.1): for every standable
spot, whether a probe standing there has Line of Fire to the trooper with the probe free
to face anywhere (the viewshed of the trooper in the rules' sense). The probe's arc then
never decides and it is engaged with nobody, so its Line of Fire is the pair's visibility
(the 3 x 3 mm rule, either direction, the other troopers blocking): the map with the
trooper as the one observer and arcs ignored. The document adds ``"seen_from": id`` and,
per cell, ``"sees": bool`` (a probe there has Line of Fire to it; the same as
``seen_by == [id]``); ``safe_share`` is the share of spots it cannot be seen from.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from geom3d.adjudication.lof import occluder_rows
from geom3d.core.errors import InputError, UsageError
from geom3d.core.memory import building, refuse_if_too_big
from geom3d.core.output import round_point, round_value
from geom3d.exposure.cells import Probe, ProbeGrid, probe_for, standing_cells
from geom3d.exposure.decide import PROBE_ID, observers_for, screen
from geom3d.exposure.jobs import ExposureJob, visible_tasks
from geom3d.scene.scene import Scene
from geom3d.scene.vehicles import blocking_mesh, engine_for
from geom3d.survey.grid import stand_threads

#: Exposure map memory per cell x observer (bytes), for refusing a map that cannot fit
#: before it is made (SPEC 13.4): measured with tracemalloc (numpy included) over
#: ``run_exposure`` on the demo table, 6 observers: 9.0 MB for 915 cells at 40 mm and
#: 22.8 MB for 2,366 cells at 25 mm, 1,600 to 1,650 B each (the screen, the tasks, the
#: answers and the document's cells).
EXPOSURE_BYTES_PER_PAIR: int = 1700

__all__ = [
    "ExposurePlan",
    "ExposureResult",
    "exposure",
    "finish_exposure",
    "plan_engines",
    "plan_exposure",
    "run_exposure",
]

_SHARE_DECIMALS = 4


@dataclass
class ExposureResult:
    """An exposure map and what the summary needs beyond the document.

    Attributes
    ----------
    document : dict
    grid : ProbeGrid
    probe : Probe
    seen : (n, k) bool
        Observer ``j`` has Line of Fire to cell ``i``.
    counters : dict
    """

    document: dict
    grid: ProbeGrid
    probe: Probe
    seen: np.ndarray
    counters: dict = field(default_factory=dict)


def _job(scene: Scene, observers, probe: Probe, cells, tasks, proofs: bool) -> ExposureJob:
    """The workers' job; with 40k vehicles, each observer's blocking triangles are the
    scenery plus every hull but its own, exactly as ``lof`` builds them."""
    blocking = scene.blocking
    meshes: list = []
    which, seen = [], {}
    for o in observers:
        key = o.id if o.vehicle is not None else ""
        if key not in seen:
            mesh = blocking_mesh(scene, (o.id, PROBE_ID))
            seen[key] = -1 if mesh is None else len(meshes)
            if mesh is not None:
                meshes.append(mesh)
        which.append(seen[key])
    label = closed = None
    map_key = ""
    if proofs:
        interior = scene.prover.interior
        label, closed, map_key = interior.label, interior.closed, interior.cache_key
    return ExposureJob.make(
        blocking.vertices,
        blocking.faces,
        label,
        closed,
        map_key,
        [o.cylinder for o in observers],
        [occluder_rows(scene, (o.id,)) for o in observers],
        cells,
        probe.radius,
        probe.height,
        scene.ruleset.lof_policy.patch_mm,
        tasks,
        meshes,
        which,
        scene.convex_solids,  # (the job drops them without proofs)
    )


@dataclass
class ExposurePlan:
    """An exposure map's questions, asked before any ray (:func:`plan_exposure`).

    Attributes
    ----------
    observers : list of Trooper
    probe : Probe
    grid : ProbeGrid
        The standable cells (``grid.positions``: (n, 3) float64, mm).
    maybe : (n, k) bool
        The pairs the rules' screen left to visibility.
    tasks : (t, 2) int64
        ``(cell, observer)`` of each such pair, in cell order.
    job : ExposureJob
        The workers' job over ``tasks``.
    spacing_mm : float
    ignore_arcs : bool
    seen_from : str or None
    t0, t_grid, t_screen : float
        When planning started (``perf_counter``) and its stages' seconds.
    """

    observers: list
    probe: Probe
    grid: ProbeGrid
    maybe: np.ndarray
    tasks: np.ndarray
    job: ExposureJob
    spacing_mm: float
    ignore_arcs: bool
    seen_from: str | None
    t0: float
    t_grid: float
    t_screen: float


def plan_exposure(
    scene: Scene,
    *,
    observers: str | None = None,
    seen_from: str | None = None,
    probe: int = 2,
    spacing_mm: float = 10.0,
    ignore_arcs: bool = False,
    proofs: bool = True,
    threads: int = 1,
    grid: ProbeGrid | None = None,
) -> ExposurePlan:
    """The cells, the screen and the visibility job of an exposure map (the options as
    :func:`run_exposure`; ``threads``: the cells are stood on this many threads);
    :func:`finish_exposure` makes the map from the job's answers. ``grid``: the cells an
    earlier plan stood for the same scenery, probe and spacing (they depend on nothing
    else: the serve overlay asks again after every move), used as they are."""
    t0 = time.perf_counter()
    if (observers is None) == (seen_from is None):
        raise UsageError("exposure: give either --observers or --seen-from")
    if seen_from is not None:
        if seen_from not in scene.troopers:
            known = ", ".join(scene.troopers) or "none"
            raise UsageError(f"--seen-from: no trooper {seen_from!r} (troopers: {known})")
        obs = [scene.troopers[seen_from]]
        ignore_arcs = True  # the probe faces anywhere: its LoF is the pair's visibility
    else:
        assert observers is not None
        obs = observers_for(scene, observers)
    if not obs:
        raise InputError(f"--observers: {observers!r} names no trooper")
    pr = probe_for(scene, probe)
    if grid is None:
        with building("placing the exposure map's cells"):
            grid = standing_cells(scene, pr, spacing_mm, threads)
    cells = grid.positions
    n_pairs = len(cells) * len(obs)
    refuse_if_too_big(  # before the (cells x observers) arrays are made
        n_pairs * EXPOSURE_BYTES_PER_PAIR,
        f"{len(cells):,} cells x {len(obs):,} observers",
        f"use a coarser --spacing (now {spacing_mm:g} mm) or fewer --observers",
    )
    t_grid = time.perf_counter() - t0
    t1 = time.perf_counter()
    with building(f"screening {len(cells):,} cells x {len(obs):,} observers"):
        maybe = screen(scene, obs, pr, cells, ignore_arcs)
    ci, oj = np.nonzero(maybe)
    tasks = np.column_stack([ci, oj]).astype(np.int64)
    t_screen = time.perf_counter() - t1
    job = _job(scene, obs, pr, cells, tasks, proofs)
    return ExposurePlan(
        obs, pr, grid, maybe, tasks, job, spacing_mm, ignore_arcs, seen_from, t0, t_grid, t_screen
    )


def plan_engines(scene: Scene, plan: ExposurePlan) -> dict:
    """``engine``, ``prover`` and ``hull_engines`` for :func:`visible_tasks` in this
    process: the scene's own BVHs (lof's, cached per scene) and proofs."""
    job = plan.job
    which = [int(w) for w in (job.observer_mesh if job.observer_mesh is not None else ())]
    return {
        "engine": scene.engine,
        "prover": lambda: scene.prover,
        "hull_engines": [
            engine_for(scene, (plan.observers[which.index(m)].id,)) for m in range(len(job.meshes))
        ],
    }


def run_exposure(
    scene: Scene,
    *,
    observers: str | None = None,
    seen_from: str | None = None,
    probe: int = 2,
    spacing_mm: float = 10.0,
    ignore_arcs: bool = False,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    proofs: bool = True,
) -> ExposureResult:
    """Compute an exposure map (see :func:`exposure`); the document and the arrays.
    ``seen_from``: a trooper id instead of ``observers``, the map of where it can be seen
    from (see the module docstring)."""
    plan = plan_exposure(
        scene,
        observers=observers,
        seen_from=seen_from,
        probe=probe,
        spacing_mm=spacing_mm,
        ignore_arcs=ignore_arcs,
        proofs=proofs,
        threads=stand_threads(workers),
    )
    t2 = time.perf_counter()
    vis, info = visible_tasks(
        plan.job, **plan_engines(scene, plan), workers=workers, scheduler=scheduler,
        progress=progress,
    )  # fmt: skip
    return finish_exposure(scene, plan, vis, info, time.perf_counter() - t2)


def finish_exposure(
    scene: Scene, plan: ExposurePlan, vis: np.ndarray, info: dict, t_rays: float
) -> ExposureResult:
    """The map of ``plan`` from the answers ``vis`` ((t,) bool, in ``plan.tasks`` order)
    and ``info`` (:func:`visible_tasks`'); ``t_rays``: the seconds they took."""
    obs, pr, grid, maybe = plan.observers, plan.probe, plan.grid, plan.maybe
    cells = grid.positions
    ci, oj = plan.tasks[:, 0], plan.tasks[:, 1]
    spacing_mm, seen_from, tasks = plan.spacing_mm, plan.seen_from, plan.tasks
    seen = np.zeros(maybe.shape, dtype=bool)
    seen[ci, oj] = vis
    ids = [o.id for o in obs]
    n, k = len(cells), len(obs)
    safe = int(np.count_nonzero(~seen.any(axis=1))) if n else 0
    doc = {
        "units": "mm",
        "scenario": scene.scenario.name,
        "observers": ids,
        "observer_positions": [
            {"id": o.id, "position": round_point(o.position), "facing_deg": o.facing_deg}
            for o in obs
        ],
        "probe": {
            "silhouette": pr.silhouette,
            "diameter_mm": round_value(pr.diameter),
            "height_mm": round_value(pr.height),
        },
        "spacing_mm": round_value(spacing_mm),
        "ignore_arcs": bool(plan.ignore_arcs),
        "cells": [
            {
                "position": round_point(cells[i]),
                "level": int(grid.level[i]),
                "seen_by": [ids[j] for j in np.flatnonzero(seen[i])],
                **({"sees": bool(seen[i].any())} if seen_from is not None else {}),
            }
            for i in range(n)
        ],
        "safe_share": round_value(safe / n if n else 0.0, _SHARE_DECIMALS),
        **({"seen_from": seen_from} if seen_from is not None else {}),
        "enclosed": {
            "spots": len(grid.enclosed),
            "pieces": {name: count for name, count in grid.enclosed_by},
        },
        "counts": {
            "cells": n,
            "safe": safe,
            "pairs": n * k,
            "pairs_decided_without_rays": int(n * k - len(tasks)),
        },
    }
    total = time.perf_counter() - plan.t0
    doc["timing"] = {
        "grid_s": round_value(plan.t_grid),
        "screen_s": round_value(plan.t_screen),
        "rays_s": round_value(t_rays),
        "total_s": round_value(total),
        "pairs_per_s": round_value(n * k / total if total > 0 else 0.0, 1),
        "executor": info["executor"],
        "workers": int(info["workers"]),
    }
    return ExposureResult(doc, grid, pr, seen, dict(info["counters"]))


def exposure(scene: Scene, *, observers: str | None = None, **kwargs) -> dict:
    """Which observers have Line of Fire to a probe at every standable spot of the table.

    Parameters
    ----------
    scene : Scene
    observers : str
        A side, or comma-separated trooper ids (or ``seen_from=ID`` in ``kwargs``: where
        that trooper can be seen from).
    **kwargs
        ``probe`` (silhouette, default 2), ``spacing_mm`` (default 10), ``ignore_arcs``,
        ``workers`` (default: the CPU count; 1: in-process), ``scheduler`` (Dask
        address), ``progress(done, total)``.

    Returns
    -------
    dict
        The SPEC 12.5 document (see the module docstring).
    """
    return run_exposure(scene, observers=observers, **kwargs).document
