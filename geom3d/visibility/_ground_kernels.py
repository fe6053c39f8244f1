"""Compiled ground profiles: the interior runs under the corridor between two troopers as
one lower bound of the solid along their line (:mod:`.ground`).

A *profile* is drawn in the viewer's *frame*: origin on the viewer's axis, ``x`` along the
plan line to the target's axis (``D`` away), ``y`` across it, ``z`` up. Every segment of a
search from an eye of the viewer (within ``r_a`` of its axis) to a point of the target
(within ``r_b`` of its axis, at ``x >= D - r_b``) stays within ``|y| <= max(r_a, r_b)``: a
segment's ``y`` is linear along it, and both its ends are in that band. The band from
``x_lo = r_a + clearance`` to ``x_hi = D - r_b - pad - clearance`` is cut into slabs
``slab_mm`` long. A slab's height ``H`` is the lowest top of the interior runs chosen in
the columns that meet it (the highest run that starts below ``z_floor``, the lowest
point any such segment reaches: the lower of the two troopers' bases): a segment that
passes the slab's end ``x`` below ``H`` is inside that run there, so (from an eye outside
every closed solid) it meets a blocking triangle (:mod:`.interior`).

The profile keeps the upper convex hull of the slabs' end points ``(x, H - clearance)``;
a segment from eye ``(ex, ez)`` with slope ``dz / dx`` (``dx > 0``, along ``x``) passes
below one of them exactly when its slope is below the *horizon* of the eye, the largest
slope from the eye to a hull point.
"""

from __future__ import annotations

import math

import numpy as np

from geom3d.bodies.kernels import njit, njit_leaf

__all__ = ["ground_blocks", "ground_hidden", "ground_profile", "horizon", "under_ground"]

#: A grid column meets a slab's rectangle only if its centre is within this many column
#: sides of it along each frame axis (the half diagonal of a square, sqrt(2) / 2, grown).
_HALF_DIAGONAL = 0.7072


@njit(cache=True, nogil=True)
def ground_blocks(run_off, run_lo, run_hi, nx, ny, k):
    """The interior map's columns (``nx`` by ``ny``, runs bottom to top) gathered in blocks
    of ``k`` by ``k``: a block's ``top`` is the lowest top of its columns' bottom runs,
    its ``low`` the highest bottom; ``-inf`` and ``inf`` where a column has no run or the
    block reaches past the map. So every point of ``block x (low, top)`` is inside a run.

    Returns
    -------
    top, low : (mx * my,) float64, mm
    mx, my : int
    """
    mx, my = (nx + k - 1) // k, (ny + k - 1) // k
    top = np.full(mx * my, np.inf)
    low = np.full(mx * my, -np.inf)
    for i in range(mx * k):
        for j in range(my * k):
            q = (i // k) * my + j // k
            c = i * ny + j
            if i >= nx or j >= ny or run_off[c] == run_off[c + 1]:
                top[q] = -np.inf
                low[q] = np.inf
                continue
            r = run_off[c]
            top[q] = min(top[q], run_hi[r])
            low[q] = max(low[q], run_lo[r])
    return top, low, mx, my


@njit(cache=True, nogil=True)
def ground_profile(top, low, grid, a, b, slab_mm, clearance, pad):
    """The profile of the corridor from cylinder ``a`` (the viewer) to ``b`` (the target),
    both ``(bx, by, bz, r, h)`` rows, over the blocks ``top, low`` (:func:`ground_blocks`)
    of the block grid ``grid`` (``x0, y0, side, nx, ny``).

    Returns
    -------
    frame : (4,) float64
        ``(ox, oy, dx, dy)``: the viewer's axis and the unit plan direction to the
        target's.
    hull : (m, 2) float64, mm
        ``(x, z)`` of the profile's upper hull, ``x`` increasing; empty when no slab
        counts (troopers too close, a corridor leaving the map, no run low enough).
    """
    x0, y0, g = grid[0], grid[1], grid[2]
    nx, ny = int(grid[3]), int(grid[4])
    frame = np.zeros(4)
    none = np.zeros((0, 2))
    vx, vy = b[0] - a[0], b[1] - a[1]
    dist = math.hypot(vx, vy)
    if not dist > 0.0:
        return frame, none
    dx, dy = vx / dist, vy / dist
    frame[0], frame[1], frame[2], frame[3] = a[0], a[1], dx, dy
    x_lo = a[3] + clearance
    x_hi = dist - b[3] - pad - clearance
    if not x_hi > x_lo:
        return frame, none
    n_slab = max(1, math.ceil((x_hi - x_lo) / slab_mm))
    band = max(a[3], b[3]) + clearance
    z_floor = min(a[2], b[2]) - clearance
    h = _HALF_DIAGONAL * g
    # the rectangle of all slabs, grown by h, in the plan: its bounding box in columns
    lo_x = hi_x = lo_y = hi_y = 0.0
    for k in range(4):
        fx = x_lo - h if k < 2 else x_hi + h
        fy = -(band + h) if k % 2 == 0 else band + h
        px = a[0] + fx * dx - fy * dy
        py = a[1] + fx * dy + fy * dx
        if k == 0:
            lo_x = hi_x = px
            lo_y = hi_y = py
        else:
            lo_x, hi_x = min(lo_x, px), max(hi_x, px)
            lo_y, hi_y = min(lo_y, py), max(hi_y, py)
    i0 = math.floor((lo_x - x0) / g - 0.5) - 1
    i1 = math.ceil((hi_x - x0) / g - 0.5) + 1
    j0 = math.floor((lo_y - y0) / g - 0.5) - 1
    j1 = math.ceil((hi_y - y0) / g - 0.5) + 1
    if i0 < 0 or j0 < 0 or i1 >= nx or j1 >= ny:
        return frame, none  # the corridor leaves the map: no column to vouch for it
    height = np.full(n_slab, np.inf)
    for i in range(i0, i1 + 1):
        rx = x0 + (i + 0.5) * g - a[0]
        # the rows whose centre may be in the rectangle on this column's line (a column
        # or two of slack for rounding: the test below decides)
        lo_a, hi_a = _span(rx * dx, dy, x_lo - h, x_hi + h)
        lo_b, hi_b = _span(-rx * dy, dx, -(band + h), band + h)
        lo_r, hi_r = max(lo_a, lo_b), min(hi_a, hi_b)
        if not hi_r >= lo_r:
            continue
        ja = max(j0, math.floor((a[1] + lo_r - y0) / g - 0.5) - 1)
        jb = min(j1, math.ceil((a[1] + hi_r - y0) / g - 0.5) + 1)
        for j in range(ja, jb + 1):
            ry = y0 + (j + 0.5) * g - a[1]
            fx = rx * dx + ry * dy
            fy = -rx * dy + ry * dx
            if not (abs(fy) <= band + h and fx >= x_lo - h and fx <= x_hi + h):
                continue
            c = i * ny + j
            best = top[c] if low[c] < z_floor else -np.inf
            k0 = max(0, math.floor((fx - h - x_lo) / slab_mm))
            k1 = min(n_slab - 1, math.floor((fx + h - x_lo) / slab_mm))
            for k in range(k0, k1 + 1):
                if best < height[k]:
                    height[k] = best
    # the slabs' end points, then their upper hull (monotone chain)
    pts = np.empty((2 * n_slab, 2))
    n = 0
    for k in range(n_slab):
        if not height[k] > -np.inf:
            continue
        z = height[k] - clearance
        for e in range(2):
            x = x_lo + (k + e) * slab_mm if k + e < n_slab else x_hi
            pts[n, 0], pts[n, 1] = x, z
            n += 1
    hull = np.empty((n, 2))
    m = 0
    for q in range(n):
        x, z = pts[q, 0], pts[q, 1]
        if m and hull[m - 1, 0] == x:  # the shared end of two slabs: the higher counts
            if not z > hull[m - 1, 1]:
                continue
            m -= 1
        while m >= 2 and _not_right(hull, m - 2, m - 1, x, z):
            m -= 1
        hull[m, 0], hull[m, 1] = x, z
        m += 1
    z_low = min(a[2], b[2])  # no segment of the search passes below both bases
    for q in range(m):
        if hull[q, 1] > z_low:
            return frame, hull[:m].copy()
    return frame, none  # the ground is nowhere above them: it settles nothing


@njit_leaf(forceinline=True)
def _span(c0, coef, lo, hi):
    """The interval of ``r`` where ``lo <= c0 + coef * r <= hi`` (all of it, or an empty
    one, when ``coef`` is 0)."""
    if coef > 0.0:
        return (lo - c0) / coef, (hi - c0) / coef
    if coef < 0.0:
        return (hi - c0) / coef, (lo - c0) / coef
    if lo <= c0 <= hi:
        return -np.inf, np.inf
    return np.inf, -np.inf


@njit_leaf(forceinline=True)
def _not_right(hull, p, q, x, z):
    """Do hull points ``p``, ``q`` and ``(x, z)`` fail to turn clockwise (so ``q`` is not
    on the upper hull)?"""
    ux, uz = hull[q, 0] - hull[p, 0], hull[q, 1] - hull[p, 1]
    wx, wz = x - hull[p, 0], z - hull[p, 1]
    return ux * wz - uz * wx >= 0.0


@njit_leaf(forceinline=True)
def horizon(frame, hull, ex, ey, ez):
    """The largest slope (rise per mm along the frame's ``x``) from eye ``(ex, ey, ez)``
    to a point of the profile ``hull``: a segment of the search from this eye whose
    slope is below it passes under the ground. ``-inf`` for an empty profile."""
    x = (ex - frame[0]) * frame[2] + (ey - frame[1]) * frame[3]
    best = -np.inf
    for j in range(hull.shape[0]):
        s = (hull[j, 1] - ez) / (hull[j, 0] - x)
        if s > best:
            best = s
    return best


@njit_leaf(forceinline=True)
def under_ground(eyes, u, v, c, i, s, t, frame, slope):
    """Does the ray from ``eyes[i]`` through apparent point ``(s, t)`` (the direction
    :func:`geom3d.bodies.kernels.view_ray` takes) rise less than ``slope`` (the eye's
    :func:`horizon`) per mm along the profile's frame? Then its segment to any point of
    the target passes under the ground."""
    dx = c[0] + s * u[i, 0] + t * v[i, 0] - eyes[i, 0]
    dy = c[1] + s * u[i, 1] + t * v[i, 1] - eyes[i, 1]
    dz = c[2] + s * u[i, 2] + t * v[i, 2] - eyes[i, 2]
    along = dx * frame[2] + dy * frame[3]
    return along > 0.0 and dz < slope * along


@njit(cache=True, nogil=True)
def ground_hidden(eyes, frame, hull, target, pad):
    """Which eyes see all of ``target`` (a ``(bx, by, bz, r, h)`` row, its box grown by
    ``pad``) under the profile: the steepest segment from the eye to a point of the
    target (to the top of its nearer or farther side) is below the eye's horizon.

    Returns
    -------
    (n,) bool
    """
    out = np.zeros(eyes.shape[0], np.bool_)
    if hull.shape[0] == 0:
        return out
    d = (target[0] - frame[0]) * frame[2] + (target[1] - frame[1]) * frame[3]
    r = target[3] + pad
    z_top = target[2] + target[4] + pad
    for i in range(eyes.shape[0]):
        ex, ey, ez = eyes[i, 0], eyes[i, 1], eyes[i, 2]
        x = (ex - frame[0]) * frame[2] + (ey - frame[1]) * frame[3]
        near, far = d - r - x, d + r - x
        if not near > 0.0:
            continue
        steepest = (z_top - ez) / near if z_top >= ez else (z_top - ez) / far
        out[i] = steepest < horizon(frame, hull, ex, ey, ez)
    return out
