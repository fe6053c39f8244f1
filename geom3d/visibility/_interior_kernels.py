"""Compiled kernels of the interior column map (:mod:`.interior`).

The map cuts the table's plan into square *columns* and, in each, finds the z-intervals
that no blocking triangle reaches (*gaps*); a gap whose test point lies inside a closed
solid (odd upward-ray parity over that solid's faces) is an *interior run*: the whole box
``column x run`` lies strictly inside the solid. Every number here errs towards "not
certified": triangles are clipped to columns grown by ``eps``, their z-ranges grown by
``eps``, and a test point closer than ``guard`` to a projected triangle edge makes its
column uncertain (no runs at all).
"""

from __future__ import annotations

import math

import numpy as np

from geom3d.bodies.kernels import njit, njit_leaf

__all__ = ["build_columns", "interior_runs"]


@njit_leaf(forceinline=True)
def _clip_axis(px, py, pz, n, axis, bound, keep_below, ox, oy, oz):
    """Sutherland-Hodgman: clip polygon (px, py, pz)[:n] to x or y <= / >= bound."""
    m = 0
    for k in range(n):
        a = k
        b = (k + 1) % n
        va = px[a] if axis == 0 else py[a]
        vb = px[b] if axis == 0 else py[b]
        ina = va <= bound if keep_below else va >= bound
        inb = vb <= bound if keep_below else vb >= bound
        if ina:
            ox[m] = px[a]
            oy[m] = py[a]
            oz[m] = pz[a]
            m += 1
        if ina != inb:
            t = (bound - va) / (vb - va)
            ox[m] = px[a] + t * (px[b] - px[a])
            oy[m] = py[a] + t * (py[b] - py[a])
            oz[m] = pz[a] + t * (pz[b] - pz[a])
            m += 1
    return m


@njit(cache=True, forceinline=True)
def _polygon_buffers():
    """Two polygons' coordinates (x, y, z each) for :func:`_clip_axis`: a triangle
    clipped by four half-planes has at most 7 corners (room for 9)."""
    return np.empty(9), np.empty(9), np.empty(9), np.empty(9), np.empty(9), np.empty(9)


@njit(cache=True)
def _clip_rect(tri, x0, x1, y0, y1, bx, by, bz, cx, cy, cz):
    """z-range of triangle ``tri`` (3, 3) clipped to the closed rectangle; (ok, lo, hi)."""
    for k in range(3):
        bx[k] = tri[k, 0]
        by[k] = tri[k, 1]
        bz[k] = tri[k, 2]
    n = _clip_axis(bx, by, bz, 3, 0, x0, False, cx, cy, cz)
    n = _clip_axis(cx, cy, cz, n, 0, x1, True, bx, by, bz)
    n = _clip_axis(bx, by, bz, n, 1, y0, False, cx, cy, cz)
    n = _clip_axis(cx, cy, cz, n, 1, y1, True, bx, by, bz)
    if n == 0:
        return False, 0.0, 0.0
    lo = bz[0]
    hi = bz[0]
    for k in range(1, n):
        lo = min(lo, bz[k])
        hi = max(hi, bz[k])
    return True, lo, hi


@njit_leaf(forceinline=True)
def _overlaps_rect(t, x0, x1, y0, y1):
    """Does the projection of triangle ``t`` meet the rectangle? (separating axes)"""
    area = (t[1, 0] - t[0, 0]) * (t[2, 1] - t[0, 1]) - (t[1, 1] - t[0, 1]) * (t[2, 0] - t[0, 0])
    if area == 0.0:
        return True  # degenerate in plan: keep it (conservative)
    for k in range(3):
        ax, ay = t[k, 0], t[k, 1]
        bx, by = t[(k + 1) % 3, 0], t[(k + 1) % 3, 1]
        # a point q is on the triangle's side of edge a->b when cross(b - a, q - a) has
        # the sign of the area; the rectangle is separated when all corners are outside
        out = True
        for cx in (x0, x1):
            for cy in (y0, y1):
                cr = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)
                if cr * area >= 0.0:
                    out = False
        if out:
            return False
    return True


@njit(cache=True, forceinline=True)
def _cells_of(t, x0, y0, g, nx, ny, eps):
    """Column index ranges ``i0..i1, j0..j1`` of the plan bounding box of triangle ``t``
    grown by ``eps`` (clipped to the grid; empty when i1 < i0 or j1 < j0)."""
    i0 = max(0, math.floor((t[:, 0].min() - eps - x0) / g))
    i1 = min(nx - 1, math.floor((t[:, 0].max() + eps - x0) / g))
    j0 = max(0, math.floor((t[:, 1].min() - eps - y0) / g))
    j1 = min(ny - 1, math.floor((t[:, 1].max() + eps - y0) / g))
    return i0, i1, j0, j1


@njit(cache=True)
def build_columns(tris, x0, y0, g, nx, ny, eps, flat):
    """Clip every triangle to every column it meets.

    Parameters
    ----------
    tris : (m, 3, 3) float64, mm
    x0, y0, g : float, mm
        Grid origin and column side; column ``(i, j)`` is ``[x0 + i g, x0 + (i+1) g] x
        [y0 + j g, ...]``, flat index ``i * ny + j``.
    nx, ny : int
    eps : float, mm
        Columns are grown by ``eps`` and z-ranges by ``eps`` (conservative).
    flat : float, mm
        A triangle whose z-extent is at most this is not clipped: its whole z-range is
        recorded in every column of its bounding box (conservative, and faster).

    Returns
    -------
    off : (nx * ny + 1,) int64
        CSR offsets of the records of each column.
    tri : (r,) int64
    zlo, zhi : (r,) float64, mm
        Each record: a triangle meeting the column and its z-range there (grown).
    """
    m = tris.shape[0]
    upper = 0
    for f in range(m):
        i0, i1, j0, j1 = _cells_of(tris[f], x0, y0, g, nx, ny, eps)
        if i1 >= i0 and j1 >= j0:
            upper += (i1 - i0 + 1) * (j1 - j0 + 1)
    cell = np.empty(upper, np.int64)
    rtri = np.empty(upper, np.int64)
    rlo = np.empty(upper, np.float64)
    rhi = np.empty(upper, np.float64)
    bx, by, bz, cx, cy, cz = _polygon_buffers()
    r = 0
    for f in range(m):
        t = tris[f]
        i0, i1, j0, j1 = _cells_of(t, x0, y0, g, nx, ny, eps)
        tz0 = t[:, 2].min()
        tz1 = t[:, 2].max()
        # a triangle in one column, or a nearly flat one, keeps its whole z-range there
        # (a superset of the clipped range: conservative, and no clipping to pay for)
        whole = (i0 == i1 and j0 == j1) or tz1 - tz0 <= flat
        for i in range(i0, i1 + 1):
            for j in range(j0, j1 + 1):
                if whole:
                    if not _overlaps_rect(
                        t, x0 + i * g - eps, x0 + (i + 1) * g + eps,
                        y0 + j * g - eps, y0 + (j + 1) * g + eps,
                    ):  # fmt: skip
                        continue
                    cell[r] = i * ny + j
                    rtri[r] = f
                    rlo[r] = tz0 - eps
                    rhi[r] = tz1 + eps
                    r += 1
                    continue
                ok, lo, hi = _clip_rect(
                    t,
                    x0 + i * g - eps,
                    x0 + (i + 1) * g + eps,
                    y0 + j * g - eps,
                    y0 + (j + 1) * g + eps,
                    bx,
                    by,
                    bz,
                    cx,
                    cy,
                    cz,
                )
                if ok:
                    cell[r] = i * ny + j
                    rtri[r] = f
                    rlo[r] = lo - eps
                    rhi[r] = hi + eps
                    r += 1
    ncell = nx * ny
    off = np.zeros(ncell + 1, np.int64)
    for k in range(r):
        off[cell[k] + 1] += 1
    for c in range(ncell):
        off[c + 1] += off[c]
    pos = off[:-1].copy()
    otri = np.empty(r, np.int64)
    olo = np.empty(r, np.float64)
    ohi = np.empty(r, np.float64)
    for k in range(r):
        c = cell[k]
        p = pos[c]
        otri[p] = rtri[k]
        olo[p] = rlo[k]
        ohi[p] = rhi[k]
        pos[c] = p + 1
    return off, otri, olo, ohi


@njit_leaf(forceinline=True)
def _seg_dist2(px, py, ax, ay, bx, by):
    """Squared distance from (px, py) to the segment a-b."""
    ex = bx - ax
    ey = by - ay
    ll = ex * ex + ey * ey
    t = 0.0
    if ll > 0.0:
        t = ((px - ax) * ex + (py - ay) * ey) / ll
        t = min(1.0, max(0.0, t))
    dx = ax + t * ex - px
    dy = ay + t * ey - py
    return dx * dx + dy * dy


@njit_leaf(forceinline=True)
def _above_at(ax, ay, az, bx, by, bz, cx, cy, cz, qx, qy, guard2):
    """Where the upward line through (qx, qy) meets triangle abc: (status, z).

    status 0: it misses; 1: it meets the triangle at height z; -1: (qx, qy) is within
    ``sqrt(guard2)`` of a projected edge (ambiguous).
    """
    if (
        _seg_dist2(qx, qy, ax, ay, bx, by) < guard2
        or _seg_dist2(qx, qy, bx, by, cx, cy) < guard2
        or _seg_dist2(qx, qy, cx, cy, ax, ay) < guard2
    ):
        return -1, 0.0
    ux, uy = bx - ax, by - ay
    vx, vy = cx - ax, cy - ay
    den = ux * vy - uy * vx
    if den == 0.0:
        return 0, 0.0
    wx, wy = qx - ax, qy - ay
    b1 = (wx * vy - wy * vx) / den
    b2 = (ux * wy - uy * wx) / den
    if b1 < 0.0 or b2 < 0.0 or b1 + b2 > 1.0:
        return 0, 0.0
    z = az + b1 * (bz - az) + b2 * (cz - az)
    return 1, z


@njit(cache=True)
def _above(tri, qx, qy, guard2):
    """:func:`_above_at` of ``tri`` (3, 3)."""
    return _above_at(
        tri[0, 0], tri[0, 1], tri[0, 2], tri[1, 0], tri[1, 1], tri[1, 2],
        tri[2, 0], tri[2, 1], tri[2, 2], qx, qy, guard2,
    )  # fmt: skip


@njit(cache=True)
def interior_runs(tris, label, solid, off, rtri, rlo, rhi, x0, y0, g, ny, fx, fy, guard, eps):
    """The interior runs of every column.

    For each closed solid (``label`` of a face, ``solid[label]`` true) present in a
    column: the gaps between the z-ranges of *its own* faces there whose test point it
    encloses (odd parity). A solid's interior is bounded by its own faces only, so other
    solids' faces inside it do not cut its runs. The runs of all solids are then merged.

    Returns
    -------
    run_off : (ncols + 1,) int64
    run_lo, run_hi : (k,) float64, mm
        Runs, bottom to top; every point of ``column x [lo, hi]`` is inside a closed solid.
    """
    ncol = len(off) - 1
    counts = np.zeros(ncol + 1, np.int64)
    cap = len(rtri) + ncol
    lo_out = np.empty(cap, np.float64)
    hi_out = np.empty(cap, np.float64)
    buf = np.empty(64, np.int64)
    cand_lo = np.empty(64, np.float64)
    cand_hi = np.empty(64, np.float64)
    n_out = 0
    for c in range(ncol):
        a, b = off[c], off[c + 1]
        if b - a < 2:
            continue
        if b - a > len(buf):
            buf = np.empty(2 * (b - a), np.int64)
        i = c // ny
        j = c - i * ny
        qx = x0 + (i + fx) * g
        qy = y0 + (j + fy) * g
        n_cand = 0
        for k0 in range(a, b):
            lab = label[rtri[k0]]
            if not solid[lab]:
                continue
            first = True  # handle each solid once: at its first record in the column
            for k1 in range(a, k0):
                if label[rtri[k1]] == lab:
                    first = False
                    break
            if not first:
                continue
            m = 0  # this solid's records, insertion-sorted by zlo
            for k1 in range(k0, b):
                if label[rtri[k1]] != lab:
                    continue
                p = m
                while p > 0 and rlo[buf[p - 1]] > rlo[k1]:
                    buf[p] = buf[p - 1]
                    p -= 1
                buf[p] = k1
                m += 1
            top = rhi[buf[0]]
            for k1 in range(1, m):
                lo = rlo[buf[k1]]
                if lo > top + 2.0 * eps:
                    zq = 0.5 * (top + lo)
                    par = _label_parity(tris, label, rtri, buf, m, lab, qx, qy, zq, guard)
                    if par < 0:
                        break
                    if par == 1:
                        if n_cand == len(cand_lo):
                            cand_lo = np.concatenate((cand_lo, np.empty(n_cand)))
                            cand_hi = np.concatenate((cand_hi, np.empty(n_cand)))
                        cand_lo[n_cand] = top + eps
                        cand_hi[n_cand] = lo - eps
                        n_cand += 1
                top = max(top, rhi[buf[k1]])
        if n_cand == 0:
            continue
        order = np.argsort(cand_lo[:n_cand])
        cur_lo = cand_lo[order[0]]
        cur_hi = cand_hi[order[0]]
        for k1 in range(1, n_cand):
            lo, hi = cand_lo[order[k1]], cand_hi[order[k1]]
            if lo <= cur_hi:
                cur_hi = max(cur_hi, hi)
            else:
                lo_out[n_out] = cur_lo
                hi_out[n_out] = cur_hi
                n_out += 1
                counts[c + 1] += 1
                cur_lo, cur_hi = lo, hi
        lo_out[n_out] = cur_lo
        hi_out[n_out] = cur_hi
        n_out += 1
        counts[c + 1] += 1
    for c in range(ncol):
        counts[c + 1] += counts[c]
    return counts, lo_out[:n_out].copy(), hi_out[:n_out].copy()


@njit(cache=True)
def _label_parity(tris, label, rtri, buf, m, lab, qx, qy, qz, guard):
    """Parity of solid ``lab``'s faces above (qx, qy, qz): 1 odd, 0 even, -1 undecided."""
    g2 = guard * guard
    count = 0
    for k in range(m):
        f = rtri[buf[k]]
        st, z = _above(tris[f], qx, qy, g2)
        if st < 0:
            return -1
        if st == 1 and z > qz:
            count += 1
    return count % 2
