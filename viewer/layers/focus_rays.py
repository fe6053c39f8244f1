"""Blast Focus rays to the troopers inside a template (``templates`` layer): those the
attack affects (the rays that reach them) and those it leaves out for Total Cover.

The engine decides (SPEC 4.1) that no 3 x 3 mm patch of the part of a silhouette inside
the template can be seen from the Blast Focus. The diagram shows why: a fan of sample rays
from the focus segment (its top and lowest eye points,
:func:`geom3d.placement.blast_focus.focus_eyes`)
to points of that inside part (:func:`geom3d.templates.sample_inside`), each cast against
the blocking scenery (troopers never block template LoF). A ray stopped by scenery is drawn
dashed in :data:`viewer.palette.BLOCKED_RAY` up to the hit, with a ball at the hit; a ray
that gets through (a point the patch rule does not count) is drawn thin and grey.
Dashes are geometry (short segments), so the PNG and the vector views show the same.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyvista as pv

from geom3d.core.tolerances import COINCIDENT_EPS_MM
from geom3d.placement.blast_focus import focus_eyes
from geom3d.templates import sample_inside, touch_witness
from viewer import palette as pal
from viewer import shapes as sh
from viewer.model import ActorSpec, Drawing

__all__ = ["FOCUS_RAY_TARGETS", "dashed_segments", "focus_ray_actors", "focus_rays"]

#: Target points per excluded trooper (spread over the part inside the template).
FOCUS_RAY_TARGETS = 5
#: Spacing of the target samples, mm (coarser than the engine's: only a few are drawn).
_SAMPLE_MM = 2.0


def dashed_segments(starts, ends, dash_mm: float | None = None) -> pv.PolyData:
    """Segments ``starts[i] -> ends[i]`` ((n, 3) mm) cut into dashes (dash = 1.6 x gap).

    ``dash_mm`` defaults to a 25th of the longest segment (at least 1 mm).
    """
    s = np.asarray(starts, dtype=float).reshape(-1, 3)
    e = np.asarray(ends, dtype=float).reshape(-1, 3)
    lengths = np.linalg.norm(e - s, axis=1)
    dash = dash_mm or max(1.0, float(lengths.max(initial=0.0)) / 25.0)
    gap = dash / 1.6
    a, b = [], []
    for p, q, n in zip(s, e, lengths, strict=True):
        if n <= COINCIDENT_EPS_MM:
            continue
        u = (q - p) / n
        t = 0.0
        while t < n:
            a.append(p + t * u)
            b.append(p + min(t + dash, n) * u)
            t += dash + gap
    return sh.segments(a, b) if a else sh.segments(s, s)


def _spread(points: np.ndarray, k: int) -> np.ndarray:
    """Up to ``k`` points of ``points`` far apart (farthest-point order, deterministic)."""
    if len(points) <= k:
        return points
    c = points.mean(axis=0)
    chosen = [int(np.argmin(np.linalg.norm(points - c, axis=1)))]
    d = np.linalg.norm(points - points[chosen[0]], axis=1)
    while len(chosen) < k:
        i = int(np.argmax(d))
        chosen.append(i)
        d = np.minimum(d, np.linalg.norm(points - points[i], axis=1))
    return points[chosen]


def focus_rays(scene, volume, tid: str):
    """Sample rays from ``volume``'s Blast Focus to ``tid``'s part inside it.

    Returns
    -------
    origins, hits, ends : (k, 3) float, mm
        ``hits`` is the first blocking-scenery hit (the end where the ray is clear).
    blocked : (k,) bool
        Empty arrays when the trooper does not touch the volume.
    """
    cyl = scene.trooper(tid).cylinder
    part = sample_inside(volume, cyl, _SAMPLE_MM)
    empty = np.zeros((0, 3))
    if not part.touches:
        return empty, empty, empty, np.zeros(0, bool)
    pts = np.asarray(part.points, dtype=float).reshape(-1, 3)
    if not len(pts):
        w = touch_witness(volume, cyl)
        if w is None:
            return empty, empty, empty, np.zeros(0, bool)
        pts = np.asarray(w, dtype=float).reshape(1, 3)
    targets = _spread(pts, FOCUS_RAY_TARGETS)
    eyes = focus_eyes(volume)
    eyes = eyes[[0, int(np.argmin(eyes[:, 2]))]] if len(eyes) > 1 else eyes
    o = np.repeat(eyes, len(targets), axis=0)
    e = np.tile(targets, (len(eyes), 1))
    length = np.linalg.norm(e - o, axis=1)
    dist, _ = scene.engine.first_hit(o, e)
    blocked = np.isfinite(dist) & (dist < length)
    f = np.where(blocked, dist / np.where(length > 0, length, 1.0), 1.0)[:, None]
    return o, o + f * (e - o), e, blocked


def focus_ray_actors(scene, volumes: Sequence, excluded: dict, affected=()) -> Drawing:
    """Rays from the Blast Focus to every trooper inside a template: those it reaches
    (``affected``) and those excluded for ``total_cover``.

    Parameters
    ----------
    scene : geom3d.Scene
    volumes : sequence of TemplateVolume
    excluded : dict[str, str]
        Trooper id -> reason (the attack document's ``excluded`` list).
    affected : iterable of str
        The troopers the attack affects: their sample rays show why they were included.

    Returns
    -------
    Drawing
        Per trooper: rays stopped by scenery (``focus-rays:<id>``, dashed, ball at the
        hit), and rays that get through (``focus-rays:<id>:clear``: solid
        :data:`~viewer.palette.CLEAR_RAY` to an affected trooper, thin grey to an excluded
        one, where they reach too little); legend rows and one note per trooper.
    """
    d = Drawing(title="")
    todo = [(t, "total_cover") for t, why in excluded.items() if why == "total_cover"]
    todo += [(t, "affected") for t in affected if t not in excluded]
    for tid, kind in todo:
        if tid not in scene.troopers:
            continue
        blocked_o, blocked_h, clear_o, clear_e = [], [], [], []
        for vol in volumes:
            o, hits, e, blocked = focus_rays(scene, vol, tid)
            blocked_o.extend(o[blocked])
            blocked_h.extend(hits[blocked])
            clear_o.extend(o[~blocked])
            clear_e.extend(e[~blocked])
        n = len(blocked_o) + len(clear_o)
        if not n:
            continue
        if blocked_o:
            mesh = pv.merge([dashed_segments(blocked_o, blocked_h), sh.spheres(blocked_h, 1.2)])
            d.actors.append(
                ActorSpec(
                    f"focus-rays:{tid}",
                    "templates",
                    mesh,
                    pal.BLOCKED_RAY,
                    line_width=2.5,
                    lighting=False,
                    meta={"ray_target": tid, "dashed": True},
                )
            )
            d.add_legend("Blast Focus ray stopped by cover", pal.BLOCKED_RAY, "dashed")
        if clear_o:
            reached = kind == "affected"
            color = pal.CLEAR_RAY if reached else "#7A7A7A"
            d.actors.append(
                ActorSpec(
                    f"focus-rays:{tid}:clear",
                    "templates",
                    sh.segments(clear_o, clear_e),
                    color,
                    line_width=2.0 if reached else 1.0,
                    lighting=False,
                    meta={"ray_target": tid},
                )
            )
            d.add_legend(
                "Blast Focus ray reaching a trooper (hit)"
                if reached
                else "Blast Focus ray reaching too little",
                color,
                "line",
            )
        if kind == "affected":
            d.notes.append(f"Blast Focus -> {tid}: {len(clear_o)} of {n} sample rays reach it")
        else:
            d.notes.append(
                f"Blast Focus -> {tid}: {len(blocked_o)} of {n} sample rays stopped (total cover)"
            )
    return d
