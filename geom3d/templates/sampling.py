"""Sample points on the part of a silhouette inside a template volume (Blast Focus targets).

Units: millimetres.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from geom3d.bodies.cylinder import Cylinder
from geom3d.core.errors import InputError
from geom3d.core.tolerances import SAMPLE_MM
from geom3d.core.validation import require_positive
from geom3d.templates.contact import touch_witness, volume_touches_cylinder
from geom3d.templates.volume import TemplateVolume

__all__ = ["InsidePart", "sample_inside"]

#: Fewest angular cells around a silhouette's side, however coarse the spacing.
_MIN_SIDE_CELLS = 8


@dataclass(frozen=True, eq=False)
class InsidePart:
    """Sample points of the part of a silhouette inside a template volume.

    Attributes
    ----------
    points : (n, 3) float, mm
        Points on the cylinder's surface (side, then top cap, then bottom cap; each in
        grid order) that lie inside the volume, moved inward by the requested insets.
        When the bodies touch but no grid point is inside, the single point of
        :func:`touch_witness`.
    area_mm2 : float
        Approximate area of the silhouette surface inside the volume (grid cells whose
        centre is inside), mm². 0 when only the witness is returned.
    touches : bool
        Whether the bodies touch at all (exact test).
    witness_only : bool
        True when ``points`` holds only the touch witness.
    """

    points: np.ndarray
    area_mm2: float
    touches: bool
    witness_only: bool


def sample_inside(
    volume: TemplateVolume,
    cylinder: Cylinder,
    spacing_mm: float = SAMPLE_MM,
    *,
    inset_mm: float = 0.0,
    bottom_inset_mm: float = 0.0,
) -> InsidePart:
    """Target points on a silhouette inside a template volume, for Blast Focus rays.

    The cylinder's surface is covered by cells no larger than ``spacing_mm`` on a side:
    the side by ``ceil(2 pi r / spacing)`` angular x ``ceil(h / spacing)`` vertical cells,
    each cap by a square grid of ``ceil(2 r / spacing)`` cells a side (cells whose
    centre is in the disc). A cell's centre is kept when it lies inside the volume
    (:meth:`TemplateVolume.contains`, after the inset), and its area counts.

    Parameters
    ----------
    volume : TemplateVolume
    cylinder : Cylinder
    spacing_mm : float, mm
        Grid spacing (default ``SAMPLE_MM``).
    inset_mm : float, mm
        Side and top points are moved this far into the cylinder (e.g.
        ``SURFACE_INSET_MM``).
    bottom_inset_mm : float, mm
        Bottom-cap points are moved this far up (e.g. ``STAND_INSET_MM``).

    Returns
    -------
    InsidePart
        Deterministic for given inputs.
    """
    spacing = require_positive(spacing_mm, "spacing_mm")
    inset = _require_inset(inset_mm, "inset_mm", cylinder)
    binset = _require_inset(bottom_inset_mm, "bottom_inset_mm", cylinder)
    touches = volume_touches_cylinder(volume, cylinder)
    if not touches:
        return InsidePart(np.empty((0, 3)), 0.0, False, False)
    pts, areas = _cylinder_surface_grid(cylinder, spacing, inset, binset)
    inside = volume.contains(pts)
    if np.any(inside):
        return InsidePart(pts[inside], float(areas[inside].sum()), True, False)
    w = touch_witness(volume, cylinder)
    if w is None:  # pragma: no cover - touches was established above
        return InsidePart(np.empty((0, 3)), 0.0, True, False)
    return InsidePart(w[None, :], 0.0, True, True)


def _require_inset(value: float, name: str, cyl: Cylinder) -> float:
    x = float(value)
    if not math.isfinite(x) or x < 0.0 or x >= min(cyl.radius, 0.5 * cyl.height):
        raise InputError(
            f"{name} must be >= 0 and smaller than the cylinder's radius and half height,"
            f" got {value!r}"
        )
    return x


def _cylinder_surface_grid(cyl: Cylinder, spacing: float, inset: float, binset: float):
    """Cell-centre samples of a cylinder's surface and the cells' areas.

    Returns ``(points, areas)``: (n, 3) float mm (side, top cap, bottom cap) and (n,)
    float mm².
    """
    bx, by, bz = cyl.base
    r, h = cyl.radius, cyl.height
    n_th = max(_MIN_SIDE_CELLS, math.ceil(2.0 * math.pi * r / spacing))
    n_z = max(1, math.ceil(h / spacing))
    th = 2.0 * np.pi * (np.arange(n_th) + 0.5) / n_th
    zs = bz + h * (np.arange(n_z) + 0.5) / n_z
    rr = r - inset
    zz, tt = np.meshgrid(zs, th, indexing="ij")
    side = np.column_stack((bx + rr * np.cos(tt).ravel(), by + rr * np.sin(tt).ravel(), zz.ravel()))
    side_area = np.full(len(side), (2.0 * np.pi * r / n_th) * (h / n_z))
    n_c = max(1, math.ceil(2.0 * r / spacing))
    g = 2.0 * r / n_c
    cs = -r + g * (np.arange(n_c) + 0.5)
    yy, xx = np.meshgrid(cs, cs, indexing="ij")
    keep = (xx**2 + yy**2 <= r * r).ravel()
    cx = bx + xx.ravel()[keep]
    cy = by + yy.ravel()[keep]
    top = np.column_stack((cx, cy, np.full(len(cx), bz + h - inset)))
    bottom = np.column_stack((cx, cy, np.full(len(cx), bz + binset)))
    cap_area = np.full(len(cx), g * g)
    pts = np.vstack((side, top, bottom))
    areas = np.concatenate((side_area, cap_area, cap_area))
    return pts, areas
