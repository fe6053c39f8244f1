"""Where a trooper moving along a route touches a template volume (SPEC 3.5, 4.1).

Level volumes: the touching stretch of each route segment is found exactly (the plan
distance to the template is convex along a segment, the z condition an interval; z is
linear between route vertices) and returned as its deepest point, its ends and every
``ROUTE_STEP_MM`` along it. Pitched volumes: the route is sampled every
``ROUTE_TOUCH_STEP_MM`` with the exact contact test.

Routes follow the ground (SPEC 13.1): on a stretch between two dropped route points
(:func:`geom3d.adjudication.routepath.route_path`) every position stands by the 12.2
rule, as the route's Line of Fire windows do, so z is not linear there. A level volume's
touching stretch is then found exactly in plan (the plan is still a straight line) and
sampled every ``ROUTE_TOUCH_STEP_MM`` (its ends and deepest point included), each
position standing on the ground and kept when its height meets the volume's; a pitched
volume samples such a stretch as above, each sample standing on the ground. The
positions returned carry that height (the witness ``position`` of the JSON).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from geom3d.adjudication.routepath import RoutePath
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


def route_candidates(
    volume: TemplateVolume, t: Trooper, path: RoutePath | None = None
) -> list[np.ndarray]:
    """Base positions ((3,) float64 mm) along ``t``'s route where it touches the volume,
    best first. ``path``: the route as the scene stands it
    (:func:`~geom3d.adjudication.routepath.route_path`, following the ground); default
    the straight polyline of its points."""
    pts = np.asarray(t.route, dtype=np.float64)
    if len(pts) == 1:
        pts = np.vstack([pts, pts])
    out: list[np.ndarray] = []
    for i, (a, b) in enumerate(itertools.pairwise(pts)):
        if path is not None and path.ground is not None and i < len(path.follows):
            if path.follows[i]:
                out.extend(_ground_segment_candidates(volume, path, i, t.radius, t.height))
                continue
        if volume.is_level:
            out.extend(_level_segment_candidates(volume, a, b, t.radius, t.height))
        else:
            out.extend(_pitched_segment_candidates(volume, a, b, t.radius, t.height))
    return out


def _plan_distance(
    volume: TemplateVolume, a: np.ndarray, b: np.ndarray, r: float
) -> Callable[[float], float]:
    """g(s): plan signed distance from the level volume's shape to a base of radius ``r``
    at fraction ``s`` of segment ``a``-``b`` (convex in ``s``)."""
    f = volume.local_frame()
    shape = volume.shape

    def g(s: float) -> float:
        p = a + s * (b - a)
        c = p - f.origin
        return float(shape.signed_distance_xy(c @ f.u, c @ f.v)) - r

    return g


def _touching_interval(
    g: Callable[[float], float], lo: float, hi: float
) -> tuple[float, float, float] | None:
    """``(deepest, first, last)`` fractions of ``[lo, hi]`` where ``g <= CONTACT_EPS_MM``
    (golden-section minimum of the convex ``g``, each edge bisected), None if nowhere."""
    eps = CONTACT_EPS_MM
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
    gmin, smin = min([(g(lo), lo), (g(hi), hi), (g(sm), sm)])
    if gmin > eps:
        return None

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

    return smin, edge(smin, lo), edge(smin, hi)


def _ground_segment_candidates(
    volume: TemplateVolume, path: RoutePath, i: int, r: float, h: float
) -> list[np.ndarray]:
    """Candidates on stretch ``i`` of ``path``, which follows the ground (module
    docstring): positions every ``ROUTE_TOUCH_STEP_MM`` standing by SPEC 12.2."""
    a, b = path.points[i], path.points[i + 1]
    plan = float(np.linalg.norm((b - a)[:2]))
    if volume.is_level:
        span = _touching_interval(_plan_distance(volume, a, b, r), 0.0, 1.0)
        if span is None:
            return []
        sm, ta, tb = span
        n = max(1, math.ceil(plan * (tb - ta) / ROUTE_TOUCH_STEP_MM))
        ts = np.array([sm, ta, tb, *(ta + (tb - ta) * k / n for k in range(1, n))])
        pos = path.stretch(i, ts)
        z0 = float(volume.local_frame().origin[2])
        top, eps = z0 + volume.height, CONTACT_EPS_MM
        ok = (pos[:, 2] <= top + eps) & (pos[:, 2] + h >= z0 - eps)
        if not ok.any():
            return []
        keep = pos[ok]
        if ok[0]:
            deepest = keep[0]
        else:  # the deepest in plan is too high or too low: the kept one nearest it
            deepest = keep[int(np.argmin(np.abs(ts[ok] - sm)))]
        inner = keep[np.argsort(ts[ok], kind="stable")]
        every = max(1, round(ROUTE_STEP_MM / max(plan * (tb - ta) / n, GEOM_EPS_MM)))
        return [deepest, inner[0], inner[-1], *inner[1:-1:every]]
    n = max(1, math.ceil(float(np.linalg.norm(b - a)) / ROUTE_TOUCH_STEP_MM))
    ts = np.arange(n + 1) / n
    flat = a[None, :2] + ts[:, None] * (b - a)[None, :2]
    vb = volume.bounds()
    near = np.all(
        (flat >= vb[0, :2] - r - CONTACT_EPS_MM) & (flat <= vb[1, :2] + r + CONTACT_EPS_MM),
        axis=1,
    )
    if not near.any():
        return []
    pos = path.stretch(i, ts[near])
    touching = [p for p in pos if volume_touches_cylinder(volume, Cylinder(_t3(p), r, h))]
    if len(touching) <= 2:
        return touching
    every = max(1, round(ROUTE_STEP_MM / max(float(np.linalg.norm(b - a)) / n, GEOM_EPS_MM)))
    mid = touching[len(touching) // 2]
    return [mid, touching[0], touching[-1], *touching[1:-1:every]]


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
    span = _touching_interval(_plan_distance(volume, a, b, r), lo, hi)
    if span is None:
        return []
    smin, ta, tb = span
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
