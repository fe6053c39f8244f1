"""Where a trooper moving along a route touches a template volume (SPEC 3.5, 4.1).

Level volumes: the touching stretch of each route segment is found exactly (the plan
distance to the template is convex along a segment, the z condition an interval; z is
linear between route vertices) and returned as its deepest point, its ends and every
``ROUTE_STEP_MM`` along it. Pitched volumes: the route is sampled every
``ROUTE_TOUCH_STEP_MM`` with the exact contact test.
"""

from __future__ import annotations

import itertools
import math
from typing import TYPE_CHECKING

import numpy as np

from geom3d.bodies.cylinder import Cylinder
from geom3d.bodies.kernel_constants import CONTACT_EPS_MM, GEOM_EPS_MM
from geom3d.core.tolerances import ROUTE_STEP_MM, ROUTE_TOUCH_STEP_MM
from geom3d.placement.blast_focus import t3 as _t3
from geom3d.templates import TemplateVolume, volume_touches_cylinder

if TYPE_CHECKING:
    from geom3d.scene.trooper import Trooper


#: Route contact with a level template (``geom3d.rules.infinity.routes``), in units of the
#: route segment's parameter t in [0, 1]: a z rate of change below ``ROUTE_SLOPE_EPS``
#: counts as level; the golden-section search for the deepest touching point stops once
#: its bracket is ``ROUTE_SEARCH_TOL`` wide.
ROUTE_SLOPE_EPS: float = 1e-15
ROUTE_SEARCH_TOL: float = 1e-12

__all__ = ["route_candidates"]

_GOLDEN = (math.sqrt(5.0) - 1.0) / 2.0


def route_candidates(volume: TemplateVolume, t: Trooper) -> list[np.ndarray]:
    """Base positions along ``t``'s route where it touches the volume, best first."""
    pts = np.asarray(t.route, dtype=np.float64)
    if len(pts) == 1:
        pts = np.vstack([pts, pts])
    out: list[np.ndarray] = []
    for a, b in itertools.pairwise(pts):
        if volume.is_level:
            out.extend(_level_segment_candidates(volume, a, b, t.radius, t.height))
        else:
            out.extend(_pitched_segment_candidates(volume, a, b, t.radius, t.height))
    return out


def _level_segment_candidates(
    volume: TemplateVolume, a: np.ndarray, b: np.ndarray, r: float, h: float
) -> list[np.ndarray]:
    f = volume.local_frame()
    z0 = float(f.origin[2])
    top = z0 + volume.height
    eps = CONTACT_EPS_MM
    # z condition: base z(t) <= top + eps and z(t) + h >= z0 - eps, z linear in t
    lo, hi = 0.0, 1.0
    za, dz = float(a[2]), float(b[2] - a[2])
    for coef, rhs in ((dz, top + eps - za), (-dz, za + h - z0 + eps)):
        # coef * t <= rhs
        if abs(coef) < ROUTE_SLOPE_EPS:
            if rhs < 0:
                return []
        elif coef > 0:
            hi = min(hi, rhs / coef)
        else:
            lo = max(lo, rhs / coef)
    if lo > hi:
        return []
    shape = volume.shape

    def g(s: float) -> float:
        p = a + s * (b - a)
        c = p - f.origin
        return float(shape.signed_distance_xy(c @ f.u, c @ f.v)) - r

    # g is convex (signed distance to a convex set along a line): golden-section minimum
    x0, x1 = lo, hi
    for _ in range(100):
        if x1 - x0 <= ROUTE_SEARCH_TOL:
            break
        m1 = x1 - _GOLDEN * (x1 - x0)
        m2 = x0 + _GOLDEN * (x1 - x0)
        if g(m1) <= g(m2):
            x1 = m2
        else:
            x0 = m1
    sm = 0.5 * (x0 + x1)
    cands = [(g(lo), lo), (g(hi), hi), (g(sm), sm)]
    gmin, smin = min(cands)
    if gmin > eps:
        return []

    def edge(inside: float, outside: float) -> float:
        if g(outside) <= eps:
            return outside
        for _ in range(60):
            mid = 0.5 * (inside + outside)
            if g(mid) <= eps:
                inside = mid
            else:
                outside = mid
        return inside

    ta, tb = edge(smin, lo), edge(smin, hi)
    length = float(np.linalg.norm((b - a)[:2])) * (tb - ta)
    n = max(1, math.ceil(length / ROUTE_STEP_MM))
    ts = [smin, ta, tb, *(ta + (tb - ta) * k / n for k in range(1, n))]
    return [a + s * (b - a) for s in ts]


def _pitched_segment_candidates(
    volume: TemplateVolume, a: np.ndarray, b: np.ndarray, r: float, h: float
) -> list[np.ndarray]:
    length = float(np.linalg.norm(b - a))
    n = max(1, math.ceil(length / ROUTE_TOUCH_STEP_MM))
    touching = []
    for k in range(n + 1):
        p = a + (b - a) * (k / n)
        if volume_touches_cylinder(volume, Cylinder(_t3(p), r, h)):
            touching.append(p)
    if len(touching) <= 2:
        return touching
    every = max(1, round(ROUTE_STEP_MM / max(length / n, GEOM_EPS_MM)))
    mid = touching[len(touching) // 2]
    return [mid, touching[0], touching[-1], *touching[1:-1:every]]
