"""Compiled apparent outlines of convex pieces (:mod:`.convex`) from an eye: which lattice
samples of a search lie inside a piece's outline and so are settled without their ray.

From an eye at least ``PROOF_CLEARANCE_MM`` outside a piece, the convex hull of the
piece's inner points (each ``2 PROOF_CLEARANCE_MM`` inside it) projected onto the apparent
plane is its *outline* (:func:`silhouette`): a ray through the outline meets the shrunk
piece, before any point farther than every inner point. The ray loop
(:func:`._cast_kernels._clear_loop`) makes the outlines of an eye's pieces once
(:func:`eye_outlines`), cuts them with each lattice column (:func:`column_cross`) and
settles the samples inside without their ray.
"""

from __future__ import annotations

import math

import numpy as np

from geom3d.bodies.kernel_constants import SURFACE_BOX_PAD_MM
from geom3d.bodies.kernels import njit, njit_leaf
from geom3d.visibility._convex_kernels import eye_outside

__all__ = [
    "OUTLINE_INSET",
    "column_cross",
    "column_span",
    "convex_scratch",
    "eye_outlines",
    "silhouette",
]


@njit_leaf
def silhouette(inner, k0, k1, e, u, v, c, far, pts, hull):
    """The apparent outline of a piece from eye ``e``: the convex hull, counter-clockwise,
    of its inner points ``inner[k0:k1]`` projected from ``e`` onto the apparent plane
    (through ``c``, spanned by ``u`` and ``v``: each a (3,) float64 row), into ``hull``
    ((m + 1, 2) scratch; ``pts``: (m, 2) scratch).

    Returns the outline's vertex count; 0 when a point is not in front of the eye or not
    nearer than ``far`` (mm): a ray through the outline then meets the piece before any
    point ``far`` or more away.
    """
    ex, ey, ez = e[0], e[1], e[2]
    nx, ny, nz, dc = _sight(e, u, v, c)
    if not dc > 0.0:
        return 0
    m = k1 - k0
    for k in range(m):
        rx, ry, rz = inner[k0 + k, 0] - ex, inner[k0 + k, 1] - ey, inner[k0 + k, 2] - ez
        if not rx * rx + ry * ry + rz * rz < far * far:
            return 0
        depth = rx * nx + ry * ny + rz * nz
        if not depth > 1e-6 * dc:
            return 0
        lam = dc / depth
        px, py, pz = ex + lam * rx - c[0], ey + lam * ry - c[1], ez + lam * rz - c[2]
        s = px * u[0] + py * u[1] + pz * u[2]
        t = px * v[0] + py * v[1] + pz * v[2]
        q = k  # insertion by (s, t)
        while q > 0 and (pts[q - 1, 0] > s or (pts[q - 1, 0] == s and pts[q - 1, 1] > t)):
            pts[q, 0] = pts[q - 1, 0]
            pts[q, 1] = pts[q - 1, 1]
            q -= 1
        pts[q, 0] = s
        pts[q, 1] = t
    # Andrew's monotone chain: lower hull, then upper
    h = 0
    for k in range(m):
        while h >= 2 and _turn(hull, h, pts[k, 0], pts[k, 1]) <= 0.0:
            h -= 1
        hull[h, 0] = pts[k, 0]
        hull[h, 1] = pts[k, 1]
        h += 1
    low = h + 1
    for k in range(m - 2, -1, -1):
        while h >= low and _turn(hull, h, pts[k, 0], pts[k, 1]) <= 0.0:
            h -= 1
        hull[h, 0] = pts[k, 0]
        hull[h, 1] = pts[k, 1]
        h += 1
    return h - 1 if h >= 4 else 0  # the last point repeats the first


@njit_leaf(forceinline=True)
def _sight(e, u, v, c):
    """``(wx, wy, wz, dc)``: the line of sight ``w = v x u`` of the apparent plane through
    ``c`` spanned by ``u`` and ``v``, and the plane's distance ``(c - e) . w`` (mm) from
    eye ``e`` along it."""
    wx = v[1] * u[2] - v[2] * u[1]
    wy = v[2] * u[0] - v[0] * u[2]
    wz = v[0] * u[1] - v[1] * u[0]
    return wx, wy, wz, (c[0] - e[0]) * wx + (c[1] - e[1]) * wy + (c[2] - e[2]) * wz


@njit_leaf(forceinline=True)
def _turn(hull, h, s, t):
    """Cross product of (hull[h-2] -> hull[h-1]) and (hull[h-2] -> (s, t))."""
    ax, ay = hull[h - 2, 0], hull[h - 2, 1]
    return (hull[h - 1, 0] - ax) * (t - ay) - (hull[h - 1, 1] - ay) * (s - ax)


@njit_leaf
def column_span(hull, h, s0, inset):
    """The apparent heights ``(lo, hi)`` strictly inside outline ``hull[:h]`` (by
    ``inset``) on the vertical line ``s = s0`` (empty: ``lo >= hi``)."""
    smin = np.inf
    smax = -np.inf
    for j in range(h):
        smin = min(smin, hull[j, 0])
        smax = max(smax, hull[j, 0])
    if not (smin + inset < s0 < smax - inset):
        return 1.0, 0.0
    return column_cross(hull, h, s0, inset)


@njit_leaf
def column_cross(hull, h, s0, inset):
    """:func:`column_span` of a line ``s = s0`` already known to lie strictly inside the
    outline's ``s`` range (by ``inset``)."""
    lo = np.inf
    hi = -np.inf
    for j in range(h):
        a = j
        b = j + 1 if j + 1 < h else 0
        sa, sb = hull[a, 0], hull[b, 0]
        if (sa <= s0 <= sb or sb <= s0 <= sa) and sa != sb:
            t = hull[a, 1] + (s0 - sa) * (hull[b, 1] - hull[a, 1]) / (sb - sa)
            lo = min(lo, t)
            hi = max(hi, t)
    return lo + inset, hi - inset


#: Apparent inset (mm) of a sample inside an outline for it to count as inside: far above
#: the rounding of the projection, far below a sample's spacing.
OUTLINE_INSET = 1e-6


@njit(cache=True, nogil=True)
def convex_scratch(solids):
    """Scratch buffers of :func:`eye_outlines` and the ray loop for ``solids``
    (``(planes, off, inner, inner_off)``): pieces usable from an eye, outlines, points,
    outline sizes, column spans, outlines' ``s`` ranges, the apparent rectangle's sides
    (:func:`_box_sides`)."""
    _, off, _, inner_off = solids
    n = off.shape[0] - 1
    most = 1
    for q in range(n):
        most = max(most, inner_off[q + 1] - inner_off[q])
    return (
        np.empty(n, np.int64),
        np.empty((n, 2 * most + 2, 2)),
        np.empty((most, 2)),
        np.zeros(n, np.int64),
        np.empty((n, 2)),
        np.empty((n, 2)),
        np.empty((4, 3)),
    )


@njit_leaf
def eye_outlines(
    e, u, v, c, target, box, planes, off, inner, inner_off, clearance, pts, hulls, hull_n,
    hull_s, sides,
):  # fmt: skip
    """The apparent outlines (:func:`silhouette`) from eye ``e`` of every piece the eye is
    ``clearance`` clear of and whose inner points are all nearer than any point of the
    ``target`` (a ``(bx, by, bz, r, h)`` row; its box grown by ``SURFACE_BOX_PAD_MM``),
    and that overlap the apparent rectangle ``box`` (``s0, s1, t0, t1``), into
    ``hulls[:n]``, ``hull_n[:n]`` and their ``s`` ranges ``hull_s[:n]``; returns ``n``.
    ``sides``: (4, 3) scratch.

    A piece whose inner points all lie beyond one side of ``box`` (by ``OUTLINE_INSET``,
    :func:`_beside_box`) is passed over before its outline is made: its outline could not
    overlap the rectangle.
    """
    ex, ey, ez = e[0], e[1], e[2]
    pad = SURFACE_BOX_PAD_MM
    dxy = math.hypot(ex - target[0], ey - target[1]) - target[3] - pad
    dz = max(target[2] - ez, ez - target[2] - target[4]) - pad
    near = math.hypot(max(dxy, 0.0), max(dz, 0.0))
    n = 0
    if not near > 0.0:
        return 0
    _box_sides(e, u, v, c, box, sides)
    for q in range(off.shape[0] - 1):
        if not eye_outside(planes, off[q], off[q + 1], ex, ey, ez, clearance):
            continue
        if _beside_box(inner, inner_off[q], inner_off[q + 1], e, sides):
            continue
        hull = hulls[n]
        h = silhouette(inner, inner_off[q], inner_off[q + 1], e, u, v, c, near, pts, hull)
        if h < 3:
            continue
        s_lo = s_hi = hull[0, 0]
        t_lo = t_hi = hull[0, 1]
        for j in range(1, h):
            s_lo, s_hi = min(s_lo, hull[j, 0]), max(s_hi, hull[j, 0])
            t_lo, t_hi = min(t_lo, hull[j, 1]), max(t_hi, hull[j, 1])
        if s_lo < box[1] and s_hi > box[0] and t_lo < box[3] and t_hi > box[2]:
            hull_n[n] = h
            hull_s[n, 0] = s_lo
            hull_s[n, 1] = s_hi
            n += 1
    return n


@njit_leaf
def _box_sides(e, u, v, c, box, m):
    """The four sides of the apparent rectangle ``box`` (``s0, s1, t0, t1``) seen from eye
    ``e``, each moved out by ``OUTLINE_INSET``, into ``m``: (4, 3) float64 normals of planes
    through ``e`` such that a point ``p`` in front of the eye projects beyond that side
    exactly when ``(p - e) . m < 0``.

    A point ``p = e + r`` projects to ``s = (e - c) . u + dc (r . u) / (r . w)`` on the
    apparent plane (``w = v x u``, the line of sight; ``dc = (c - e) . w``), so for
    ``r . w > 0``, ``s < s0`` is ``r . (dc u - (s0 - (e - c) . u) w) < 0``; the other
    sides alike.
    """
    wx, wy, wz, dc = _sight(e, u, v, c)
    es = (e[0] - c[0]) * u[0] + (e[1] - c[1]) * u[1] + (e[2] - c[2]) * u[2]
    et = (e[0] - c[0]) * v[0] + (e[1] - c[1]) * v[1] + (e[2] - c[2]) * v[2]
    for k in range(4):
        a = u if k < 2 else v
        edge = box[k] - (es if k < 2 else et)
        edge += -OUTLINE_INSET if k % 2 == 0 else OUTLINE_INSET
        sign = 1.0 if k % 2 == 0 else -1.0  # below the low side, above the high side
        m[k, 0] = sign * (dc * a[0] - edge * wx)
        m[k, 1] = sign * (dc * a[1] - edge * wy)
        m[k, 2] = sign * (dc * a[2] - edge * wz)


@njit_leaf
def _beside_box(inner, k0, k1, e, sides):
    """Do the points ``inner[k0:k1]`` all lie beyond one side of :func:`_box_sides`?
    (Points behind the eye may pass: :func:`silhouette` gives such a piece no outline.)"""
    for k in range(4):
        out = True
        for p in range(k0, k1):
            rx, ry, rz = inner[p, 0] - e[0], inner[p, 1] - e[1], inner[p, 2] - e[2]
            if not rx * sides[k, 0] + ry * sides[k, 1] + rz * sides[k, 2] < 0.0:
                out = False
                break
        if out:
            return True
    return False
