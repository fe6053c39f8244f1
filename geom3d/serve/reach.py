"""Which pairs' visibility a moved trooper can change.

Line of Fire between A and B is searched along segments from points of A's silhouette
cylinder to points of B's (eye points, patch samples; SPEC 3), so every segment lies in
the convex hull of the two cylinders. A third trooper X changes the pair's visibility
only if X's cylinder, where it stood or where it stands now, blocks Line of Fire and
meets that hull. :func:`may_change` tests a box round the hull: in plan the band of
half-width ``max(rA, rB)`` round the segment between the two base centres, in height
the span from the lower base to the higher top, both widened by :data:`REACH_MARGIN_MM`.
A pair that fails the test for both of X's cylinders keeps its cached visibility; any
other is searched again when next asked.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

__all__ = ["REACH_MARGIN_MM", "may_change", "stale_pairs"]

#: Slack (mm) added to the plan band and the height span of :func:`may_change`: far
#: more than any contact or ray tolerance of the search (``CONTACT_EPS_MM``,
#: ``RAY_EPS_MM``), so a cylinder that grazes the hull always counts.
REACH_MARGIN_MM = 1.0


def _plan_distance(p, a, b) -> float:
    """Distance (mm) in plan from point ``p`` to the segment ``a``-``b`` (each (2+,))."""
    ax, ay = a[0], a[1]
    dx, dy = b[0] - ax, b[1] - ay
    L2 = dx * dx + dy * dy
    t = 0.0 if L2 == 0.0 else max(0.0, min(1.0, ((p[0] - ax) * dx + (p[1] - ay) * dy) / L2))
    return math.hypot(p[0] - (ax + t * dx), p[1] - (ay + t * dy))


def may_change(x, a, b) -> bool:
    """Whether trooper ``x`` standing where it stands can block a segment between
    troopers ``a`` and ``b`` (each a :class:`geom3d.scene.trooper.Trooper`).

    False only when ``x`` blocks no Line of Fire (a marker, a trooper on a route) or its
    cylinder lies clear of the box round the pair's hull (module docstring).
    """
    if not x.blocks_lof:
        return False
    reach = max(a.radius, b.radius) + x.radius + REACH_MARGIN_MM
    if _plan_distance(x.position, a.position, b.position) > reach:
        return False
    lo = min(a.position[2], b.position[2]) - REACH_MARGIN_MM
    hi = max(a.position[2] + a.height, b.position[2] + b.height) + REACH_MARGIN_MM
    return x.position[2] < hi and x.position[2] + x.height > lo


def _reach_mask(x, pa: np.ndarray, pb: np.ndarray, ra, rb, za, zb) -> np.ndarray:
    """:func:`may_change` of ``x`` for many pairs at once: (n,) bool."""
    if not x.blocks_lof:
        return np.zeros(len(pa), dtype=bool)
    p = np.array(x.position[:2], dtype=float)
    d = pb - pa
    L2 = np.einsum("ij,ij->i", d, d)
    t = np.where(L2 > 0, np.einsum("ij,ij->i", p - pa, d) / np.where(L2 > 0, L2, 1.0), 0.0)
    near = pa + np.clip(t, 0.0, 1.0)[:, None] * d
    dist = np.hypot(*(p - near).T)
    reach = np.maximum(ra, rb) + x.radius + REACH_MARGIN_MM
    lo = np.minimum(za[:, 0], zb[:, 0]) - REACH_MARGIN_MM
    hi = np.maximum(za[:, 1], zb[:, 1]) + REACH_MARGIN_MM
    z0, z1 = x.position[2], x.position[2] + x.height
    return (dist <= reach) & (z0 < hi) & (z1 > lo)


def stale_pairs(keys: Iterable[tuple[str, str]], troopers: dict, moved: str, old) -> set:
    """The cached pairs ``keys`` that moving trooper ``moved`` (now ``troopers[moved]``,
    before ``old``) may have changed: every pair that involves it, and every other
    pair that either of its two cylinders may block (:func:`may_change`, for all pairs
    at once)."""
    new = troopers[moved]
    out = set()
    rest = []
    for key in keys:
        if moved in key or key[0] not in troopers or key[1] not in troopers:
            out.add(key)
        else:
            rest.append(key)
    if not rest:
        return out
    a = [troopers[k[0]] for k in rest]
    b = [troopers[k[1]] for k in rest]

    def arrays(ts):
        pos = np.array([t.position for t in ts], dtype=float)
        rad = np.array([t.radius for t in ts], dtype=float)
        z = np.column_stack([pos[:, 2], pos[:, 2] + np.array([t.height for t in ts])])
        return pos[:, :2], rad, z

    pa, ra, za = arrays(a)
    pb, rb, zb = arrays(b)
    hit = _reach_mask(old, pa, pb, ra, rb, za, zb) | _reach_mask(new, pa, pb, ra, rb, za, zb)
    out.update(k for k, h in zip(rest, hit, strict=True) if h)
    return out
