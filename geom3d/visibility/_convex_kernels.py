"""Compiled tests of segments against closed convex blocking pieces (:mod:`.convex`).

A piece is a run ``planes[j0:j1]`` of rows ``(nx, ny, nz, d)``: its inside is where
``n . x <= d`` for every row. A segment *meets* the piece when some point of it lies in
the piece shrunk by ``margin`` (``n . x <= d - margin`` for every row); from an eye at
least ``clearance`` outside the piece (``n . e >= d + clearance`` for some row), such a
segment crosses the piece's surface at least ``clearance`` from the eye and ``margin``
before its end: the ray engine, which trims ``RAY_EPS_MM`` off each end, finds it
blocked (see :mod:`.convex` for why the surface is there).

Segments from one point to every point of a convex set ``K`` all meet the piece when the
segments to ``K``'s corners do: the points ``x`` whose segment from ``e`` meets a convex
set form a convex set (the set and its shadow from ``e``). The pieces' apparent outlines
from an eye are :mod:`._outline_kernels`'.
"""

from __future__ import annotations

import math

import numpy as np

from geom3d.bodies.kernels import njit, njit_leaf

#: mm: how far beyond one of a piece's planes (shrunk by ``margin``) an eye, or both ends
#: of a line of eyes, and a corner must lie for :func:`corners_hidden` to decide, without
#: clipping a segment, that the piece hides nothing of the corners from there. In exact
#: arithmetic any distance above 0 would do; 1e-6 mm is far above the rounding of either
#: form of the test (a dot product here, the clipped segment in :func:`segment_meets`) on
#: coordinates of a few metres, so the shortcut never says "apart" where the segment
#: test could say "meets".
APART_INSET = 1e-6

__all__ = [
    "bundle_meets",
    "corners_hidden",
    "eye_outside",
    "near_pieces",
    "segment_blocked",
    "segment_meets",
]


@njit_leaf(forceinline=True)
def segment_meets(planes, j0, j1, ex, ey, ez, dx, dy, dz, margin):
    """Does the segment ``e -> e + D`` meet piece ``planes[j0:j1]`` shrunk by
    ``margin``? (Clipping the parameter range ``[0, 1]`` plane by plane.)"""
    t0 = 0.0
    t1 = 1.0
    for j in range(j0, j1):
        nx, ny, nz = planes[j, 0], planes[j, 1], planes[j, 2]
        num = planes[j, 3] - margin - (nx * ex + ny * ey + nz * ez)
        den = nx * dx + ny * dy + nz * dz
        if den > 0.0:
            t = num / den
            if t < t1:
                t1 = t
        elif den < 0.0:
            t = num / den
            if t > t0:
                t0 = t
        elif num < 0.0:
            return False
        if not t0 < t1:
            return False
    return True


@njit_leaf(forceinline=True)
def eye_outside(planes, j0, j1, ex, ey, ez, clearance):
    """Is the point at least ``clearance`` outside piece ``planes[j0:j1]`` (beyond one of
    its planes)?"""
    for j in range(j0, j1):
        if planes[j, 0] * ex + planes[j, 1] * ey + planes[j, 2] * ez - planes[j, 3] >= clearance:
            return True
    return False


@njit_leaf
def _all_meet(planes, j0, j1, ex, ey, ez, corners, margin):
    for k in range(corners.shape[0]):
        dx = corners[k, 0] - ex
        dy = corners[k, 1] - ey
        dz = corners[k, 2] - ez
        if not segment_meets(planes, j0, j1, ex, ey, ez, dx, dy, dz, margin):
            return False
    return True


@njit(cache=True, nogil=True)
def corners_hidden(eyes, corners, planes, off, margin, clearance):
    """Which eyes see nothing of the convex hull of ``corners`` past one piece: at least
    ``clearance`` outside it (beyond one of its planes), with every segment to a corner
    meeting it.

    The eyes one piece hides that way, beyond one given plane, form a convex set (an
    intersection of convex sets): so when the lowest and highest eyes of a vertical line
    of eyes (same x and y: a column of :func:`.eyes.eye_points`) are both hidden by one
    piece beyond one plane, so is every eye between them, untested. And when neither end
    is hidden and every piece has a plane with both ends and a corner beyond it, no eye
    between them is hidden (:func:`_none_hide`).

    Parameters
    ----------
    eyes : (n, 3) float64, mm
    corners : (c, 3) float64, mm
    planes : (P, 4) float64
    off : (S + 1,) int64
        Piece ``s`` is ``planes[off[s]:off[s + 1]]``.
    margin, clearance : float, mm

    Returns
    -------
    (n,) bool
    """
    n = eyes.shape[0]
    piece = np.full(n, -2, np.int64)  # -2 untested, -1 not hidden, else the piece
    bits = np.zeros(n, np.int64)
    stack = np.empty((2 * n + 2, 2), np.int64)
    reach = np.empty(planes.shape[0])
    _reach(corners, planes, margin, reach)
    # vertical lines of at least 3 eyes (a side column: same x, y), then horizontal ones
    # (a cap row: same y, z), where eyes already decided serve as ends and a line of one
    # eye is that eye's own test
    args = (piece, bits, stack, corners, planes, off, reach, margin, clearance)
    order = np.empty(n, np.int64)
    table = np.full(4 * n + 8, -1, np.int64)
    line = np.empty(n, np.int64)
    count = np.empty(n + 1, np.int64)
    _group_lines(eyes, 0, 1, 2, order, table, line, count)
    _lines(eyes, order, 0, 1, 3, *args)
    table[:] = -1
    _group_lines(eyes, 1, 2, 0, order, table, line, count)
    _lines(eyes, order, 1, 2, 1, *args)
    return piece >= 0


@njit_leaf
def _group_lines(eyes, p, q, axis, order, table, line, count):
    """Write into ``order`` the eye indices grouped by equal coordinates ``p`` and ``q``
    (a hash table, ``table``: -1 filled, at least twice the eyes), each group sorted
    along ``axis`` (insertion: a line holds a few dozen eyes). ``line`` ((n,) int64) and
    ``count`` ((n + 1,) int64): scratch."""
    n = eyes.shape[0]
    size = table.shape[0] // 2  # slots: (first eye of the group, group number)
    n_groups = 0
    for i in range(n):
        x, y = eyes[i, p], eyes[i, q]
        h = int(abs(x * 1048573.0 + y * 8191.0)) % size
        while True:
            first = table[2 * h]
            if first < 0:
                table[2 * h] = i
                table[2 * h + 1] = n_groups
                line[i] = n_groups
                n_groups += 1
                break
            if eyes[first, p] == x and eyes[first, q] == y:
                line[i] = table[2 * h + 1]
                break
            h = (h + 1) % size
    for g in range(n_groups + 1):
        count[g] = 0
    for i in range(n):
        count[line[i] + 1] += 1
    for g in range(n_groups):
        count[g + 1] += count[g]
    for i in range(n):  # in eye order within a group, then sorted below
        g = line[i]
        order[count[g]] = i
        count[g] += 1
    k = 0
    for g in range(n_groups):  # count[g] is now the end of group g
        end = count[g]
        for r0 in range(k + 1, end):
            i = order[r0]
            r = r0
            while r > k and eyes[order[r - 1], axis] > eyes[i, axis]:
                order[r] = order[r - 1]
                r -= 1
            order[r] = i
        k = end


@njit_leaf
def _reach(corners, planes, margin, reach):
    """Write into ``reach`` ((P,) float64, mm), for each plane, how far the furthest of
    ``corners`` lies beyond it once shrunk by ``margin``: ``max_k n . c_k - (d - margin)``."""
    for j in range(planes.shape[0]):
        best = -np.inf
        for k in range(corners.shape[0]):
            g = planes[j, 0] * corners[k, 0] + planes[j, 1] * corners[k, 1]
            g += planes[j, 2] * corners[k, 2]
            best = max(best, g)
        reach[j] = best - (planes[j, 3] - margin)


@njit_leaf(forceinline=True)
def _past(planes, j, reach, dot, margin):
    """Do a point at ``dot`` (its dot product with plane ``j``'s normal) and a corner
    (``reach``: :func:`_reach`) both lie more than ``APART_INSET`` beyond plane ``j``
    shrunk by ``margin``? The one test :func:`_apart` and :func:`_hiding` share."""
    return reach[j] > APART_INSET and dot > planes[j, 3] - margin + APART_INSET


@njit_leaf(forceinline=True)
def _apart(planes, j0, j1, reach, ea, eb, margin):
    """Does piece ``planes[j0:j1]`` hide nothing of the corners from any point of the
    segment from eye ``ea`` to eye ``eb`` (rows of ``eyes``; the same row for one eye)?
    True when one of its planes, shrunk by ``margin``, has both eyes and a corner
    (``reach``: :func:`_reach`) more than ``APART_INSET`` beyond it: the triangle of the
    segment and that corner then lies beyond the plane, so every segment from an eye of
    the line to that corner misses the piece."""
    for j in range(j0, j1):
        ga = planes[j, 0] * ea[0] + planes[j, 1] * ea[1] + planes[j, 2] * ea[2]
        if _past(planes, j, reach, ga, margin):
            gb = planes[j, 0] * eb[0] + planes[j, 1] * eb[1] + planes[j, 2] * eb[2]
            if _past(planes, j, reach, gb, margin):
                return True
    return False


@njit_leaf
def _none_hide(eyes, ia, ib, planes, off, reach, margin):
    """Does no piece hide the corners from any eye on the segment between eyes ``ia``
    and ``ib`` (:func:`_apart` for every piece)?"""
    for s in range(off.shape[0] - 1):
        if not _apart(planes, off[s], off[s + 1], reach, eyes[ia], eyes[ib], margin):
            return False
    return True


@njit_leaf
def _lines(
    eyes, order, p, q, least, piece, bits, stack, corners, planes, off, reach, margin, clearance
):
    """Decide the eyes of ``order`` (grouped by equal ``p`` and ``q``, each group along
    the line's own axis: :func:`_group_lines`) line by line: a run of at least ``least``
    eyes with equal coordinates ``p`` and ``q`` is bisected (eyes already decided keep
    their answer and serve as ends); an interval whose two ends one piece hides beyond
    one plane is hidden whole (see :func:`corners_hidden`), and one whose two ends are
    not hidden is not hidden whole when every piece is apart from it (:func:`_none_hide`).
    Shorter runs are left undecided."""
    n = order.shape[0]
    k = 0
    while k < n:
        e = k + 1
        x0, y0 = eyes[order[k], p], eyes[order[k], q]
        while e < n and eyes[order[e], p] == x0 and eyes[order[e], q] == y0:
            e += 1
        if e - k < least:
            k = e
            continue
        top = 0
        stack[0, 0], stack[0, 1] = k, e - 1
        while top >= 0:
            a, b = stack[top, 0], stack[top, 1]
            top -= 1
            for r in (a, b):
                if piece[order[r]] == -2:
                    s_r, m_r = _hiding(
                        eyes, order[r], corners, planes, off, reach, margin, clearance
                    )
                    piece[order[r]] = s_r
                    bits[order[r]] = m_r
            ia, ib = order[a], order[b]
            if b - a < 2:
                continue
            if piece[ia] >= 0 and piece[ia] == piece[ib] and (bits[ia] & bits[ib]) != 0:
                for r in range(a + 1, b):
                    piece[order[r]] = piece[ia]
                    bits[order[r]] = bits[ia] & bits[ib]
            elif (
                piece[ia] == -1
                and piece[ib] == -1
                and _none_hide(eyes, ia, ib, planes, off, reach, margin)
            ):
                for r in range(a + 1, b):
                    piece[order[r]] = -1
            else:
                mid = (a + b) // 2
                stack[top + 1, 0], stack[top + 1, 1] = a, mid
                stack[top + 2, 0], stack[top + 2, 1] = mid, b
                top += 2
        k = e


@njit_leaf
def _hiding(eyes, i, corners, planes, off, reach, margin, clearance):
    """The first piece that hides ``corners`` from eye ``i`` and the planes of it the eye
    lies at least ``clearance`` beyond, as bits (bit ``j - off[s]``; ``(-1, 0)``: none).
    A piece the eye is apart from (:func:`_past`, as :func:`_apart` tests it: one dot
    product a plane serves both tests) is passed over unclipped."""
    ex, ey, ez = eyes[i, 0], eyes[i, 1], eyes[i, 2]
    for s in range(off.shape[0] - 1):
        j0, j1 = off[s], off[s + 1]
        beyond = 0
        apart = False
        for j in range(j0, j1):
            dot = planes[j, 0] * ex + planes[j, 1] * ey + planes[j, 2] * ez
            if _past(planes, j, reach, dot, margin):
                apart = True
                break
            if dot - planes[j, 3] >= clearance:
                beyond |= 1 << (j - j0)
        if apart:
            continue
        if beyond != 0 and _all_meet(planes, j0, j1, ex, ey, ez, corners, margin):
            return s, beyond
    return -1, 0


@njit(cache=True, nogil=True)
def bundle_meets(xc, yc, planes, off, margin, clearance):
    """Does one piece block every segment between the convex hulls of ``xc`` and ``yc``
    ((c, 3) float64 each, mm)? The hull of ``xc`` (where the segments start: the eyes)
    lies at least ``clearance`` outside it (beyond one of its planes: a plane bounds a
    convex set) and every corner-to-corner segment meets it (so, by convexity twice over,
    every segment between the hulls does)."""
    for s in range(off.shape[0] - 1):
        j0, j1 = off[s], off[s + 1]
        if not _hull_beyond(xc, planes, j0, j1, clearance):
            continue
        ok = True
        for k in range(xc.shape[0]):
            if not _all_meet(planes, j0, j1, xc[k, 0], xc[k, 1], xc[k, 2], yc, margin):
                ok = False
                break
        if ok:
            return True
    return False


@njit_leaf
def _hull_beyond(c, planes, j0, j1, clearance):
    """Do all points ``c`` lie at least ``clearance`` beyond one plane of ``planes[j0:j1]``?"""
    for j in range(j0, j1):
        lo = np.inf
        for k in range(c.shape[0]):
            g = planes[j, 0] * c[k, 0] + planes[j, 1] * c[k, 1] + planes[j, 2] * c[k, 2]
            lo = min(lo, g - planes[j, 3])
        if lo >= clearance:
            return True
    return False


@njit(cache=True, nogil=True)
def segment_blocked(planes, off, p, q, margin, clearance):
    """Does one piece, ``p`` at least ``clearance`` outside it, meet the segment
    ``p -> q`` ((3,) float64 each, mm) shrunk by ``margin``?"""
    for s in range(off.shape[0] - 1):
        j0, j1 = off[s], off[s + 1]
        if eye_outside(planes, j0, j1, p[0], p[1], p[2], clearance) and segment_meets(
            planes, j0, j1, p[0], p[1], p[2], q[0] - p[0], q[1] - p[1], q[2] - p[2], margin
        ):
            return True
    return False


@njit_leaf(forceinline=True)
def _cylinder_beyond(planes, j0, j1, cyl, pad):
    """Does one of ``planes[j0:j1]`` have the whole cylinder ``cyl`` (a ``(bx, by, bz,
    r, h)`` row) more than ``pad`` on its outer side? (Then the two do not meet; the
    converse need not hold, so "meets" errs on the side of meeting.)"""
    for j in range(j0, j1):
        nx, ny, nz = planes[j, 0], planes[j, 1], planes[j, 2]
        low = nx * cyl[0] + ny * cyl[1] - cyl[3] * math.hypot(nx, ny)
        low += nz * cyl[2] if nz >= 0.0 else nz * (cyl[2] + cyl[4])
        if low > planes[j, 3] + pad:
            return True
    return False


@njit(cache=True, nogil=True)
def near_pieces(planes, off, lo, hi, inner, inner_off, parent, a, b, ea, eb, clearance):
    """The pieces (their ``planes, off, lo, hi, inner, inner_off, parent``, as
    :class:`.convex.ConvexSolids` holds them) whose bounding box meets the joint box of
    cylinders ``a`` and ``b`` (``(bx, by, bz, r, h)`` rows) and lies, in plan, within the
    larger radius (plus ``clearance``) of the line between their axes: only they can meet
    a segment between the two. The boxes of a solid (``parent >= 0``) that the cylinder
    ``ea`` or ``eb`` holding ``a``'s or ``b``'s eye points meets or comes within
    ``clearance`` of are left out, every one of them (see :class:`.convex.ConvexSolids`)."""
    n = off.shape[0] - 1
    keep = np.zeros(n, np.bool_)
    jlo_x, jhi_x = min(a[0] - a[3], b[0] - b[3]), max(a[0] + a[3], b[0] + b[3])
    jlo_y, jhi_y = min(a[1] - a[3], b[1] - b[3]), max(a[1] + a[3], b[1] + b[3])
    jlo_z, jhi_z = min(a[2], b[2]), max(a[2] + a[4], b[2] + b[4])
    n_parent = 0
    for s in range(n):
        n_parent = max(n_parent, parent[s] + 1)
    touched = np.zeros(n_parent, np.bool_)
    pad = clearance
    for s in range(n):  # the solids a cylinder touches, from their boxes near it
        if parent[s] < 0 or touched[parent[s]]:
            continue
        if lo[s, 0] > jhi_x + pad or hi[s, 0] < jlo_x - pad or lo[s, 1] > jhi_y + pad:
            continue
        if hi[s, 1] < jlo_y - pad or lo[s, 2] > jhi_z + pad or hi[s, 2] < jlo_z - pad:
            continue
        j0, j1 = off[s], off[s + 1]
        if not (
            _cylinder_beyond(planes, j0, j1, ea, pad) and _cylinder_beyond(planes, j0, j1, eb, pad)
        ):
            touched[parent[s]] = True
    abx, aby = b[0] - a[0], b[1] - a[1]
    den = max(abx * abx + aby * aby, 1e-300)
    n_p = n_i = n_k = 0
    for s in range(n):
        if parent[s] >= 0 and touched[parent[s]]:
            continue
        if not (lo[s, 0] <= jhi_x and hi[s, 0] >= jlo_x and lo[s, 1] <= jhi_y):
            continue
        if not (hi[s, 1] >= jlo_y and lo[s, 2] <= jhi_z and hi[s, 2] >= jlo_z):
            continue
        mx, my = 0.5 * (lo[s, 0] + hi[s, 0]), 0.5 * (lo[s, 1] + hi[s, 1])
        reach = 0.5 * math.hypot(hi[s, 0] - lo[s, 0], hi[s, 1] - lo[s, 1]) + max(a[3], b[3])
        f = min(max(((mx - a[0]) * abx + (my - a[1]) * aby) / den, 0.0), 1.0)
        if math.hypot(mx - a[0] - f * abx, my - a[1] - f * aby) <= reach + clearance:
            keep[s] = True
            n_k += 1
            n_p += off[s + 1] - off[s]
            n_i += inner_off[s + 1] - inner_off[s]
    p2 = np.empty((n_p, 4))
    i2 = np.empty((n_i, 3))
    o2 = np.zeros(n_k + 1, np.int64)
    io2 = np.zeros(n_k + 1, np.int64)
    lo2 = np.empty((n_k, 3))
    hi2 = np.empty((n_k, 3))
    par2 = np.empty(n_k, np.int64)
    k = 0
    for s in range(n):
        if not keep[s]:
            continue
        for j in range(off[s], off[s + 1]):
            for c in range(4):
                p2[o2[k] + j - off[s], c] = planes[j, c]
        o2[k + 1] = o2[k] + off[s + 1] - off[s]
        for j in range(inner_off[s], inner_off[s + 1]):
            for c in range(3):
                i2[io2[k] + j - inner_off[s], c] = inner[j, c]
        io2[k + 1] = io2[k] + inner_off[s + 1] - inner_off[s]
        for c in range(3):
            lo2[k, c] = lo[s, c]
            hi2[k, c] = hi[s, c]
        par2[k] = parent[s]
        k += 1
    return p2, o2, lo2, hi2, i2, io2, par2
