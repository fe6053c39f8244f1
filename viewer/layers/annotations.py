"""The ``annotations`` layer: the scale bar and the arc boundary of a ``from:`` view."""

from __future__ import annotations

import math

import numpy as np

from geom3d.tolerances import SCALE_BAR_REL_EPS
from geom3d.units import LENGTH_UNITS
from viewer import palette as pal
from viewer import shapes as sh
from viewer.model import ActorSpec, Label

__all__ = ["arc_boundary_actors", "nice_scale_length", "scale_bar_actors"]


def nice_scale_length(approx_mm: float, units: str) -> tuple[float, str]:
    """A round scale-bar length in the scenario's units, at most ``approx_mm``.

    Returns
    -------
    length_mm : float
    label : str
        e.g. ``"10 cm"``, ``"6 in"``, ``"200 mm"``.
    """
    per = LENGTH_UNITS[units]
    target = max(approx_mm / per, SCALE_BAR_REL_EPS)
    steps = (1, 2, 3, 6, 12) if units == "in" else (1, 2, 5)
    best = None
    e = math.floor(math.log10(target))
    for exp in (e - 1, e, e + 1):
        for s in steps:
            v = s * 10.0**exp
            if v <= target * (1 + SCALE_BAR_REL_EPS) and (best is None or v > best):
                best = v
    if best is None:
        best = target
    text = f"{best:g} {units}"
    return best * per, text


def scale_bar_actors(
    bounds: np.ndarray, units: str, z: float | None = None
) -> tuple[list[ActorSpec], list[Label], np.ndarray]:
    """A two-tone scale bar under the front-left of ``bounds``, in the scenario's units.

    ``z`` is its height (default: just above the table top, or the bottom of
    ``bounds`` when that is higher). Returns the actors, its label and the bounds grown
    to include it.
    """
    lo, hi = np.asarray(bounds, dtype=float)
    width = float(hi[0] - lo[0])
    length, text = nice_scale_length(0.25 * width, units)
    th = max(2.0, 0.018 * width)
    x0, y1 = float(lo[0]), float(lo[1]) - 1.5 * th
    y0 = y1 - th
    z = (max(float(lo[2]), 0.0) + 0.3) if z is None else float(z)
    half = 0.5 * length
    black = sh.faces_mesh(
        [[x0, y0, z], [x0 + half, y0, z], [x0 + half, y1, z], [x0, y1, z]], [(0, 1, 2), (0, 2, 3)]
    )
    white = sh.faces_mesh(
        [[x0 + half, y0, z], [x0 + length, y0, z], [x0 + length, y1, z], [x0 + half, y1, z]],
        [(0, 1, 2), (0, 2, 3)],
    )
    outline = sh.polyline(
        [
            [x0, y0, z + 0.1],
            [x0 + length, y0, z + 0.1],
            [x0 + length, y1, z + 0.1],
            [x0, y1, z + 0.1],
        ],
        closed=True,
    )
    actors = [
        ActorSpec("scale-bar:dark", "annotations", black, pal.TEXT, lighting=False),
        ActorSpec("scale-bar:light", "annotations", white, pal.BACKGROUND, lighting=False),
        ActorSpec(
            "scale-bar:outline", "annotations", outline, pal.TEXT, line_width=1.5, lighting=False
        ),
    ]
    label = Label("annotations", (x0 + length + 0.5 * th, y0 + 0.5 * th, z), text)
    grown = np.array([lo, hi])
    grown[0, 1] = min(lo[1], y0 - th)
    return actors, [label], grown


def arc_boundary_actors(scene, tid: str, bounds: np.ndarray) -> list[ActorSpec]:
    """The 180° arc of ``tid`` drawn across the table: its boundary line and the rear half.

    The boundary is the vertical plane through the base centre perpendicular to the
    facing (SPEC 3.3). It is drawn where it meets the trooper's standing level, across
    the whole ``bounds``; the half-plane behind it is tinted.
    """
    t = scene.trooper(tid)
    lo, hi = np.asarray(bounds, dtype=float)
    span = float(np.linalg.norm(hi[:2] - lo[:2])) + 4 * t.radius
    f = math.radians(t.facing_deg)
    u = np.array([math.cos(f), math.sin(f), 0.0])
    p = np.array([-u[1], u[0], 0.0])
    c = np.array(t.position, dtype=float) + np.array([0, 0, 0.4])
    a0, a1 = c - span * p, c + span * p
    rear = sh.faces_mesh([a0, a1, a1 - span * u, a0 - span * u], [(0, 1, 2), (0, 2, 3)])
    return [
        ActorSpec(
            f"arc-edge:{tid}",
            "annotations",
            sh.segments(a0, a1),
            pal.ARC_EDGE,
            line_width=3.0,
            lighting=False,
        ),
        ActorSpec(f"arc-rear:{tid}", "annotations", rear, "#606060", 0.25, lighting=False),
    ]
