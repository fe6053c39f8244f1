"""Silhouette bodies: exact vertical cylinders and the ray queries against them.

A trooper's volume is a closed vertical cylinder (SPEC section 2.1). Everything here is
analytic: no tessellation is involved in any decision.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from geom3d.bodies.kernel_constants import CONTACT_EPS_MM, GEOM_EPS_MM
from geom3d.core.validation import as_point, as_points, require_positive

__all__ = [
    "Cylinder",
    "cylinders_touch",
    "ray_cylinder_entry",
    "segments_hit_cylinder",
]


@dataclass(frozen=True)
class Cylinder:
    """A closed vertical cylinder.

    Parameters
    ----------
    base : (3,) float, mm
        Centre of the bottom disc (the underside of the trooper's base).
    radius : float, mm
        Base radius (half the base diameter).
    height : float, mm
        Height of the silhouette.
    """

    base: tuple[float, float, float]
    radius: float
    height: float

    def __post_init__(self) -> None:
        b = as_point(self.base, "base")
        object.__setattr__(self, "base", (float(b[0]), float(b[1]), float(b[2])))
        object.__setattr__(self, "radius", require_positive(self.radius, "radius"))
        object.__setattr__(self, "height", require_positive(self.height, "height"))

    @property
    def base_array(self) -> np.ndarray:
        """(3,) float, mm: centre of the bottom disc."""
        return np.array(self.base, dtype=np.float64)

    @property
    def center(self) -> np.ndarray:
        """(3,) float, mm: centre of the volume (mid-height on the axis)."""
        c = self.base_array
        c[2] += 0.5 * self.height
        return c

    @property
    def top_z(self) -> float:
        """float, mm: z of the top disc."""
        return self.base[2] + self.height

    def bounds(self) -> np.ndarray:
        """(2, 3) float, mm: axis-aligned bounding box ``[min, max]``."""
        b = self.base_array
        r = self.radius
        return np.array([[b[0] - r, b[1] - r, b[2]], [b[0] + r, b[1] + r, b[2] + self.height]])

    def contains(self, points, *, eps: float = CONTACT_EPS_MM) -> np.ndarray:
        """Which points lie inside or on the cylinder.

        Parameters
        ----------
        points : (n, 3) float, mm

        Returns
        -------
        (n,) bool
        """
        p = as_points(points, "points")
        b = self.base_array
        d2 = (p[:, 0] - b[0]) ** 2 + (p[:, 1] - b[1]) ** 2
        return (
            (d2 <= (self.radius + eps) ** 2)
            & (p[:, 2] >= b[2] - eps)
            & (p[:, 2] <= b[2] + self.height + eps)
        )

    def translated(self, offset) -> Cylinder:
        """A copy moved by ``offset`` ((3,) float, mm)."""
        o = as_point(offset, "offset")
        return Cylinder(tuple(self.base_array + o), self.radius, self.height)


def cylinders_touch(a: Cylinder, b: Cylinder, *, eps: float = CONTACT_EPS_MM) -> bool:
    """True when two cylinders touch or overlap (silhouette contact)."""
    d = np.hypot(a.base[0] - b.base[0], a.base[1] - b.base[1])
    if d > a.radius + b.radius + eps:
        return False
    return a.base[2] <= b.top_z + eps and b.base[2] <= a.top_z + eps


def _slab_and_side(origins, dirs, cyl: Cylinder):
    """Parameter interval [t0, t1] along ``origins + t * dirs`` inside ``cyl``.

    Returns (t0, t1) arrays; t0 > t1 where the line misses the cylinder.
    """
    b = cyl.base_array
    ox = origins[:, 0] - b[0]
    oy = origins[:, 1] - b[1]
    dx, dy, dz = dirs[:, 0], dirs[:, 1], dirs[:, 2]
    n = len(origins)
    t0 = np.full(n, -np.inf)
    t1 = np.full(n, np.inf)
    # z slab
    z0, z1 = b[2], b[2] + cyl.height
    oz = origins[:, 2]
    flat = np.abs(dz) < GEOM_EPS_MM
    with np.errstate(divide="ignore", invalid="ignore"):
        ta = (z0 - oz) / dz
        tb = (z1 - oz) / dz
    lo = np.where(flat, -np.inf, np.minimum(ta, tb))
    hi = np.where(flat, np.inf, np.maximum(ta, tb))
    outside_flat = flat & ((oz < z0) | (oz > z1))
    lo = np.where(outside_flat, np.inf, lo)
    hi = np.where(outside_flat, -np.inf, hi)
    t0 = np.maximum(t0, lo)
    t1 = np.minimum(t1, hi)
    # infinite vertical cylinder
    a = dx * dx + dy * dy
    bq = 2.0 * (ox * dx + oy * dy)
    c = ox * ox + oy * oy - cyl.radius**2
    vertical = a < GEOM_EPS_MM**2
    disc = bq * bq - 4.0 * a * c
    with np.errstate(divide="ignore", invalid="ignore"):
        sq = np.sqrt(np.maximum(disc, 0.0))
        s0 = (-bq - sq) / (2.0 * a)
        s1 = (-bq + sq) / (2.0 * a)
    miss = (~vertical & (disc < 0)) | (vertical & (c > 0))
    s0 = np.where(vertical, -np.inf, s0)
    s1 = np.where(vertical, np.inf, s1)
    t0 = np.maximum(t0, s0)
    t1 = np.minimum(t1, s1)
    t0 = np.where(miss, np.inf, t0)
    t1 = np.where(miss, -np.inf, t1)
    return t0, t1


def segments_hit_cylinder(origins, ends, cyl: Cylinder) -> np.ndarray:
    """Which segments pass through the interior of ``cyl``.

    A segment that only grazes the surface (touching it along a zero-length interval)
    does not count. Endpoints lying on or inside the cylinder count as a hit only when
    the segment has positive length inside it.

    Parameters
    ----------
    origins, ends : (n, 3) float, mm

    Returns
    -------
    (n,) bool
    """
    o = as_points(origins, "origins")
    e = as_points(ends, "ends")
    t0, t1 = _slab_and_side(o, e - o, cyl)
    lo = np.maximum(t0, 0.0)
    hi = np.minimum(t1, 1.0)
    length = np.linalg.norm(e - o, axis=1)
    return (hi - lo) * length > CONTACT_EPS_MM


def ray_cylinder_entry(origins, dirs, cyl: Cylinder) -> np.ndarray:
    """Parameter of the first point of ``cyl`` along each ray ``origins + t * dirs``.

    Parameters
    ----------
    origins : (n, 3) float, mm
    dirs : (n, 3) float
        Ray directions (need not be unit length).

    Returns
    -------
    (n,) float
        ``t >= 0`` of the entry point, ``0`` when the origin is inside, ``inf`` on a miss.
    """
    o = as_points(origins, "origins")
    d = as_points(dirs, "dirs")
    t0, t1 = _slab_and_side(o, d, cyl)
    hit = (t1 >= t0) & (t1 >= 0)
    return np.where(hit, np.maximum(t0, 0.0), np.inf)
