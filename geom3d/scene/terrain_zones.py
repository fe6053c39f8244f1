"""Which troopers each Special Terrain zone affects (SPEC 12.6; rule text 000).

"Any Trooper in Silhouette contact with a Special Terrain zone, or whose base or
Silhouette Template is covered at least partially by a Special Terrain zone, is equally
affected by the Effects of the zone." A zone is its plan shape extruded from the table
top (z = 0) to ``height_mm`` (:mod:`geom3d.scenario.terrain_zones`); a trooper is its
silhouette cylinder. Both readings come to one exact test: the cylinder and the zone's
prism touch or overlap (contact counts, within ``CONTACT_EPS_MM``): the base disc meets
the zone's polygon in plan (its centre inside, or an edge within the radius) and the
heights overlap. A trooper on a route is taken at its ``position`` (decision).
"""

from __future__ import annotations

import math

from geom3d.bodies.kernel_constants import CONTACT_EPS_MM

__all__ = ["disc_meets_polygon", "zone_report"]


def _inside(x: float, y: float, poly) -> bool:
    """Even-odd point-in-polygon test."""
    inside = False
    n = len(poly)
    for i in range(n):
        (x0, y0), (x1, y1) = poly[i], poly[(i + 1) % n]
        if (y0 > y) != (y1 > y):
            xc = x0 + (y - y0) * (x1 - x0) / (y1 - y0)
            if x < xc:
                inside = not inside
    return inside


def _edge_distance(x: float, y: float, poly) -> float:
    best = math.inf
    n = len(poly)
    for i in range(n):
        (x0, y0), (x1, y1) = poly[i], poly[(i + 1) % n]
        dx, dy = x1 - x0, y1 - y0
        ll = dx * dx + dy * dy
        t = 0.0 if ll == 0 else max(0.0, min(1.0, ((x - x0) * dx + (y - y0) * dy) / ll))
        best = min(best, math.hypot(x - x0 - t * dx, y - y0 - t * dy))
    return best


def disc_meets_polygon(x: float, y: float, r: float, poly, eps: float = CONTACT_EPS_MM) -> bool:
    """Does the disc (centre ``(x, y)``, radius ``r``, mm) touch or overlap ``poly``?"""
    return _inside(x, y, poly) or _edge_distance(x, y, poly) <= r + eps


def zone_report(scene) -> list[dict]:
    """One entry per zone, file order: ``id``, ``kind``, ``blocks_lof``, ``height_mm``,
    ``affected`` (trooper ids, scenario order; markers included: a marker in a zone is
    in it)."""
    out = []
    for z in scene.scenario.terrain_zones:
        hit = []
        for t in scene.troopers.values():
            x, y, zb = t.position
            if zb > z.height_mm + CONTACT_EPS_MM or zb + t.height < -CONTACT_EPS_MM:
                continue
            if disc_meets_polygon(x, y, t.radius, z.polygon):
                hit.append(t.id)
        out.append(
            {
                "id": z.id,
                "kind": z.kind,
                "blocks_lof": z.blocks_lof,
                "height_mm": z.height_mm,
                "affected": hit,
            }
        )
    return out
