"""40k vehicles in plan (SPEC 12.6; rule text 004): hulls, armour facings, hull coverage.

A vehicle's hull is decided in plan view, like every 40k template question: its
*footprint* (the hull's outline seen from above, a shapely geometry) and its *plan
rectangle* (the footprint's bounding rectangle in the vehicle's own frame: local +x is
the front, along the vehicle's ``facing_deg``).

Facings ("The position of the firer is used to determine which armour Facing is hit")
-----------------------------------------------------------------------------------------
The 7th edition convention: the lines through opposite corners of the plan rectangle
split the plane around the hull into four arcs; the arc ahead of the front edge is the
front facing, the one behind the rear edge the rear facing, the two others the sides.
A firer point within ``FACING_TIE_MM`` of a diagonal line (or at the rectangle's centre)
is on the boundary: decision, the **side** facing is hit (see docs/rules.md).

Coverage ("cover as much of the Vehicle as possible without touching a friendly model")
-----------------------------------------------------------------------------------------
:func:`solve_hull_cover` maximises the plan area of the hull under a teardrop whose narrow
end touches the firer's base (contact angle and heading free; ruling A1: the template may
lie over the firer's own base) or starts at a fixed point (a baseless vehicle's barrel,
or the user's ``focus``; heading free). The area is a continuous function of the
placement: it is searched on a grid (``HULL_GRID_*``), the best cells are refined by a
compass search down to ``HULL_REFINE_MIN_DEG``, and the chosen placement's area is
measured on the template polygon inscribed to within ``HULL_AREA_ERROR_MM``. A placement
is admissible when no friendly base disc nor friendly hull is touched (exact distances;
touching counts within ``CONTACT_EPS_MM``). This is a numerical maximum, not an exact
one: tests compare it with an independent brute force.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
import shapely
from shapely.geometry import Point, Polygon
from shapely.geometry.base import BaseGeometry

from geom3d.bodies.kernel_constants import CONTACT_EPS_MM
from geom3d.placement.tolerances import (
    FACING_TIE_MM,
    HULL_AREA_ERROR_MM,
    HULL_GRID_CONTACT_DEG,
    HULL_GRID_HEADING_DEG,
    HULL_REFINE_MIN_DEG,
    HULL_REFINE_STARTS,
    HULL_SEARCH_SECTIONS,
)
from geom3d.templates import TemplateShape, footprint_signed_distance

__all__ = [
    "FACINGS",
    "HullCover",
    "HullPlan",
    "covered_area",
    "facing_hit",
    "hull_touched",
    "solve_hull_cover",
    "template_polygon",
]

#: Points per circle of the polygon that gives :func:`hull_touched` its quick answers.
_QUICK_SECTIONS = 32

#: The armour facings, in the order the scenario's ``armour`` gives them.
FACINGS: tuple[str, ...] = ("front", "side", "rear")


@dataclass(frozen=True)
class HullPlan:
    """A vehicle's hull in plan.

    Attributes
    ----------
    footprint : shapely geometry
        The hull seen from above, world plan coordinates, mm.
    center : (2,) tuple of float, mm
        Centre of the plan rectangle (world).
    half_size : (2,) tuple of float, mm
        Half the rectangle's length (along the front) and half its width.
    heading_deg : float
        Direction of the front (the vehicle's ``facing_deg``), counter-clockwise from +x.
    """

    footprint: BaseGeometry
    center: tuple[float, float]
    half_size: tuple[float, float]
    heading_deg: float

    @property
    def area(self) -> float:
        """float, mm²: plan area of the footprint."""
        return float(self.footprint.area)

    def corners(self) -> np.ndarray:
        """(4, 2) float, mm: the plan rectangle's corners (front-left first, CCW)."""
        a, b = self.half_size
        local = np.array([[a, b], [-a, b], [-a, -b], [a, -b]], dtype=np.float64)
        return _to_world(local, self.center, self.heading_deg)


def _to_world(local: np.ndarray, center, heading_deg: float) -> np.ndarray:
    c, s = math.cos(math.radians(heading_deg)), math.sin(math.radians(heading_deg))
    x, y = local[:, 0], local[:, 1]
    return np.column_stack((center[0] + c * x - s * y, center[1] + s * x + c * y))


def facing_hit(point_xy, hull: HullPlan) -> str:
    """The armour facing a firer at ``point_xy`` (mm) hits (see the module docstring).

    Returns
    -------
    str
        ``front``, ``side`` or ``rear``; ``side`` within ``FACING_TIE_MM`` of a diagonal.
    """
    c, s = math.cos(math.radians(hull.heading_deg)), math.sin(math.radians(hull.heading_deg))
    dx, dy = float(point_xy[0]) - hull.center[0], float(point_xy[1]) - hull.center[1]
    u, v = c * dx + s * dy, -s * dx + c * dy
    a, b = hull.half_size
    n = math.hypot(a, b)
    d1, d2 = (b * u - a * v) / n, (b * u + a * v) / n  # distances to the two diagonals
    if abs(d1) <= FACING_TIE_MM or abs(d2) <= FACING_TIE_MM:
        return "side"
    if d1 > 0 and d2 > 0:
        return "front"
    if d1 < 0 and d2 < 0:
        return "rear"
    return "side"


@functools.lru_cache(maxsize=64)
def _outline(shape: TemplateShape, sections: int) -> np.ndarray:
    """The shape's inscribed outline in its own frame (read-only; made once)."""
    local = shape.boundary(sections)
    local.setflags(write=False)
    return local


def template_polygon(shape: TemplateShape, focus_xy, heading_deg: float, sections: int):
    """The template placed in plan as an inscribed polygon (``sections`` per circle)."""
    return Polygon(shape.to_plan(_outline(shape, sections), focus_xy, heading_deg))


def covered_area(shape: TemplateShape, focus_xy, heading_deg: float, hull: HullPlan) -> float:
    """Plan area of ``hull`` under the placed template, mm² (to ``HULL_AREA_ERROR_MM``)."""
    poly = shape.footprint(focus_xy, heading_deg, max_error_mm=HULL_AREA_ERROR_MM)
    return float(poly.intersection(hull.footprint).area)


def _boundary_segments(geom: BaseGeometry) -> np.ndarray:
    """(k, 2, 2) float: every boundary edge of a polygon / multipolygon."""
    segs = []
    polys = getattr(geom, "geoms", [geom])
    for p in polys:
        for ring in [p.exterior, *p.interiors]:
            xy = np.asarray(ring.coords, dtype=np.float64)
            segs.append(np.stack((xy[:-1], xy[1:]), axis=1))
    return np.concatenate(segs) if segs else np.zeros((0, 2, 2))


def hull_touched(
    shape: TemplateShape, focus_xy, heading_deg: float, hull: BaseGeometry, eps=CONTACT_EPS_MM
) -> bool:
    """Does any part of the hull footprint lie under (or touch) the placed template?

    Exact up to the golden-section search on each boundary edge (the signed distance to
    a convex shape is convex along a segment): the focus inside the hull, or a boundary
    edge within ``eps`` of the template.
    """
    if hull.covers(Point(float(focus_xy[0]), float(focus_xy[1]))):
        return True
    # quick answers: the inscribed polygon meets the hull (touched), or the polygon grown
    # by its largest gap to the shape (plus eps) does not (not touched)
    inner = template_polygon(shape, focus_xy, heading_deg, _QUICK_SECTIONS)
    if inner.intersects(hull):
        return True
    gap = max(shape._discs[1], shape._discs[3]) * (1.0 - math.cos(math.pi / _QUICK_SECTIONS))
    if inner.distance(hull) > gap + 2.0 * eps:
        return False
    seg = _boundary_segments(hull)
    if not len(seg):
        return False
    p0, d = seg[:, 0], seg[:, 1] - seg[:, 0]
    lo, hi = np.zeros(len(seg)), np.ones(len(seg))
    g = 0.5 * (math.sqrt(5.0) - 1.0)

    def sd(t):
        return footprint_signed_distance(shape, focus_xy, heading_deg, p0 + t[:, None] * d)

    for _ in range(80):
        m1, m2 = hi - g * (hi - lo), lo + g * (hi - lo)
        left = sd(m1) < sd(m2)
        hi = np.where(left, m2, hi)
        lo = np.where(left, lo, m1)
    best = np.minimum(sd(lo), np.minimum(sd(np.zeros(len(seg))), sd(np.ones(len(seg)))))
    return bool(best.min() <= eps)


@dataclass(frozen=True)
class HullCover:
    """The placement covering the most hull area.

    Attributes
    ----------
    found : bool
        False when every placement touches a friendly model.
    heading_deg, contact_deg : float or None
        ``contact_deg`` is None for a fixed narrow end.
    focus : (2,) tuple of float or None, mm
    area : float, mm²
    examined : int
        Placements evaluated (grid and refinement).
    """

    found: bool
    heading_deg: float | None
    contact_deg: float | None
    focus: tuple[float, float] | None
    area: float
    examined: int


class _Problem:
    """Objective and constraints of one hull-coverage search."""

    def __init__(self, shape, hull, center, radius, fixed, friend_discs, friend_hulls, dmax):
        self.shape, self.hull = shape, hull
        self.center = np.asarray(center, dtype=np.float64)[:2]
        self.radius, self.fixed = float(radius), fixed
        self.discs = np.asarray(friend_discs, dtype=np.float64).reshape(-1, 3)
        self.hulls = list(friend_hulls)
        self.dmax = dmax
        self.count = 0

    def focus(self, phi: float) -> np.ndarray:
        if self.fixed is not None:
            return np.asarray(self.fixed, dtype=np.float64)[:2]
        a = math.radians(phi)
        return self.center + self.radius * np.array([math.cos(a), math.sin(a)])

    def admissible(self, phi: float, theta: float) -> bool:
        if self.fixed is None and abs((theta - phi + 180.0) % 360.0 - 180.0) > self.dmax + 1e-9:
            return False
        f = self.focus(phi)
        if len(self.discs):
            sd = footprint_signed_distance(self.shape, f, theta, self.discs[:, :2])
            if np.any(sd <= self.discs[:, 2] + CONTACT_EPS_MM):
                return False
        return not any(hull_touched(self.shape, f, theta, h) for h in self.hulls)

    def score(self, phi: float, theta: float, sections: int) -> float:
        """Covered area; minus the gap to the hull when none is covered; -inf if barred."""
        self.count += 1
        if not self.admissible(phi, theta):
            return -math.inf
        poly = template_polygon(self.shape, self.focus(phi), theta, sections)
        area = float(poly.intersection(self.hull).area)
        return area if area > 0 else -float(poly.distance(self.hull))


def _grid(p: _Problem) -> list[tuple[float, float, float]]:
    """Scores of the coarse grid (vectorised areas; constraints on the promising cells)."""
    phis = [0.0] if p.fixed is not None else list(np.arange(0.0, 360.0, HULL_GRID_CONTACT_DEG))
    thetas = np.arange(0.0, 360.0, HULL_GRID_HEADING_DEG)
    local = _outline(p.shape, HULL_SEARCH_SECTIONS)
    cells = [(float(phi), float(th)) for phi in phis for th in thetas]
    rad = np.radians(np.tile(thetas, len(phis)))
    foci = np.array([p.focus(f) for f in phis])[np.repeat(np.arange(len(phis)), len(thetas))]
    c, s = np.cos(rad)[:, None], np.sin(rad)[:, None]  # the shape frame to plan, vectorised
    x = foci[:, :1] + c * local[None, :, 0] - s * local[None, :, 1]
    y = foci[:, 1:] + s * local[None, :, 0] + c * local[None, :, 1]
    polys = np.stack((x, y), axis=-1)
    geoms = shapely.polygons(polys)
    area = shapely.area(shapely.intersection(geoms, p.hull))
    gap = shapely.distance(geoms, p.hull)
    raw = np.where(area > 0, area, -gap)
    p.count += len(cells)
    out = []
    for k in np.argsort(-raw, kind="stable"):
        phi, th = cells[k]
        if p.admissible(phi, th):
            out.append((float(raw[k]), phi, th))
            if len(out) >= HULL_REFINE_STARTS:
                break
    return out


def _refine(p: _Problem, phi: float, theta: float) -> tuple[float, float, float]:
    """Compass search from a grid cell (infeasible moves are refused)."""
    sections = HULL_SEARCH_SECTIONS * 4
    best = p.score(phi, theta, sections)
    step = max(HULL_GRID_CONTACT_DEG, HULL_GRID_HEADING_DEG)
    moves = [(0, 1), (0, -1)] if p.fixed is not None else [(0, 1), (0, -1), (1, 0), (-1, 0)]
    if p.fixed is None:
        moves += [(1, 1), (-1, -1), (1, -1), (-1, 1)]
    while step >= HULL_REFINE_MIN_DEG:
        improved = False
        for dp, dt in moves:
            cand = (phi + dp * step, theta + dt * step)
            s = p.score(cand[0], cand[1], sections)
            if s > best + 1e-12:
                best, (phi, theta), improved = s, cand, True
                break
        if not improved:
            step *= 0.5
    return best, phi % 360.0, theta % 360.0


def solve_hull_cover(
    shape: TemplateShape,
    hull: BaseGeometry,
    *,
    center_xy,
    radius: float = 0.0,
    fixed_focus_xy=None,
    friend_discs=(),
    friend_hulls=(),
    dmax_deg: float = 180.0,
) -> HullCover:
    """The admissible teardrop placement covering the most of ``hull`` (plan area).

    Parameters
    ----------
    shape : TeardropShape
    hull : shapely geometry
        The target vehicle's footprint, mm.
    center_xy : (2,) float, mm
        The firer's base centre.
    radius : float, mm
        The firer's base radius (the narrow end touches its edge at a free angle).
    fixed_focus_xy : (2,) float or None, mm
        A fixed narrow end (barrel, or the user's focus): only the heading is chosen.
    friend_discs : (k, 3) float, mm
        ``[x, y, radius]`` of the friendly models that must not be touched.
    friend_hulls : sequence of shapely geometry
        Footprints of friendly vehicles that must not be touched.
    dmax_deg : float
        Largest angle between heading and contact direction (180: any, ruling A1).

    Returns
    -------
    HullCover
        Ties (to 1e-9 mm²): the first start of the grid order (largest grid score, then
        smallest contact angle, then smallest heading).
    """
    p = _Problem(
        shape, hull, center_xy, radius, fixed_focus_xy, friend_discs, friend_hulls, dmax_deg
    )
    starts = _grid(p)
    if not starts:
        return HullCover(False, None, None, None, 0.0, p.count)
    results = [_refine(p, phi, th) for _, phi, th in starts]
    results.sort(key=lambda r: -round(r[0], 9))  # stable: grid order breaks ties
    _, phi, theta = results[0]
    f = p.focus(phi)
    area = covered_area(shape, f, theta, _as_plan(hull))
    return HullCover(
        True,
        theta,
        None if fixed_focus_xy is not None else phi,
        (float(f[0]), float(f[1])),
        area,
        p.count,
    )


def _as_plan(geom: BaseGeometry) -> HullPlan:
    """A footprint wrapped for :func:`covered_area` (only ``footprint`` is read)."""
    return HullPlan(geom, (0.0, 0.0), (1.0, 1.0), 0.0)
