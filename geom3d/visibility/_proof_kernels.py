"""Compiled kernels of the bundle proofs (:mod:`.proof`).

Boxes are in a *frame*: ``d`` along a horizontal direction in which the first trooper's
box lies wholly before the second's (the line between them, or square to a wall), ``n``
the horizontal normal, ``z`` the world height; a box is ``[d0, d1, n0, n1, z0, z1]``.
World ``(x, y) = (ox, oy) + d (dx, dy) + n (-dy, dx)``.

A bundle is every segment from a point of box ``X`` to a point of box ``Y``. For a plane
``d = p`` strictly between the boxes, each segment crosses it inside the convex hull ``Q``
of the 64 corner-to-corner crossings (a central projection maps convex sets to convex
sets); 16 of them span it (:mod:`._proof_hull`). The bundle is *proved blocked* when
every point of ``Q`` lies in an interior run of the column map: each segment then passes
through the inside of a closed solid.
"""

from __future__ import annotations

import math

import numpy as np

from geom3d.bodies.kernels import cylinder_interval, njit, njit_leaf
from geom3d.visibility._proof_hull import _corners, _crossings, _hull, _slab_z

#: Columns per side of the squares whose highest interior point the proofs read first: a
#: column in a square whose top is below what a proof asks for (open ground under the
#: troopers' boxes, most of a table) is passed over without reading its runs.
PROOF_TOP_COLUMNS: int = 16

__all__ = ["PROOF_TOP_COLUMNS", "column_tops", "prove_bundles", "segment_hits_cylinders"]

#: Columns per side of a square of :func:`column_tops` (any count; a compile-time constant).
_T = PROOF_TOP_COLUMNS


@njit(cache=True, nogil=True)
def column_tops(run_off, run_hi, nx, ny):
    """The highest interior point (mm) of each square of ``PROOF_TOP_COLUMNS`` columns a
    side (-inf where no column of it has a run): no run of a column of square ``(i // T,
    j // T)`` reaches above it, so a proof that needs one above that skips the column.

    Returns
    -------
    (ceil(nx / T), ceil(ny / T)) float64
    """
    out = np.full(((nx + _T - 1) // _T, (ny + _T - 1) // _T), -np.inf)
    for i in range(nx):
        for j in range(ny):
            c = i * ny + j
            for q in range(run_off[c], run_off[c + 1]):
                if run_hi[q] > out[i // _T, j // _T]:
                    out[i // _T, j // _T] = run_hi[q]
    return out


@njit_leaf
def _run_holds(run_off, run_lo, run_hi, c, lo, hi):
    for k in range(run_off[c], run_off[c + 1]):
        if run_lo[k] < lo and hi < run_hi[k]:
            return True
    return False


@njit_leaf
def _occ_holds(occ_pf, p, sa, sb, lo, hi, eps):
    """Is n in [sa, sb] x z in [lo, hi] strictly inside one occluder's cut at d = p?"""
    for k in range(occ_pf.shape[0]):
        dd = p - occ_pf[k, 0]
        r = occ_pf[k, 2]
        if abs(dd) >= r:
            continue
        w = math.sqrt(r * r - dd * dd) - eps
        cn = occ_pf[k, 1]
        if cn - w < sa and sb < cn + w and occ_pf[k, 3] + eps < lo and hi < occ_pf[k, 4] - eps:
            return True
    return False


@njit_leaf(forceinline=True)
def _slab_params(c0, c1, a, u, lo, hi):
    """Parameters n in [lo, hi] where a + n u lies in [c0, c1] (empty: first > second)."""
    if u == 0.0:
        return (lo, hi) if c0 <= a <= c1 else (1.0, 0.0)
    t0 = (c0 - a) / u
    t1 = (c1 - a) / u
    return max(lo, min(t0, t1)), min(hi, max(t0, t1))


@njit_leaf
def _plane_holds(grid, run_off, run_lo, run_hi, tops, occ_pf, frame, p, hull, h, nmin, nmax):
    """Does every point of the hull at d = p lie in an interior run?"""
    x0, y0, g, nx, ny, eps = grid[0], grid[1], grid[2], int(grid[3]), int(grid[4]), grid[5]
    ox, oy, dx, dy = frame[0], frame[1], frame[2], frame[3]
    # the line n -> (ax, ay) + n (-dy, dx), n in [nmin, nmax]
    ax = ox + p * dx
    ay = oy + p * dy
    ux, uy = -dy, dx
    xa, xb = ax + nmin * ux, ax + nmax * ux
    i0 = math.floor((min(xa, xb) - eps - x0) / g)
    i1 = math.floor((max(xa, xb) + eps - x0) / g)
    for i in range(i0, i1 + 1):
        ta, tb = _slab_params(x0 + i * g - eps, x0 + (i + 1) * g + eps, ax, ux, nmin, nmax)
        if ta > tb:
            continue
        ya, yb = ay + ta * uy, ay + tb * uy
        j0 = math.floor((min(ya, yb) - eps - y0) / g)
        j1 = math.floor((max(ya, yb) + eps - y0) / g)
        for j in range(j0, j1 + 1):
            sa, sb = _slab_params(y0 + j * g - eps, y0 + (j + 1) * g + eps, ay, uy, ta, tb)
            if sa > sb:
                continue
            lo, hi = _slab_z(hull, h, sa, sb)
            if lo > hi:
                continue
            inside = 0 <= i < nx and 0 <= j < ny and tops[i // _T, j // _T] > hi
            if not (inside and _run_holds(run_off, run_lo, run_hi, i * ny + j, lo, hi)):
                if not _occ_holds(occ_pf, p, sa, sb, lo, hi, eps):
                    return False
    return True


@njit_leaf(forceinline=True)
def _center_margin(grid, run_off, run_lo, run_hi, tops, occ_pf, frame, p, nmid, zlo, zhi):
    """How far the column (or occluder) under (p, nmid) reaches beyond [zlo, zhi]."""
    x0, y0, g, nx, ny = grid[0], grid[1], grid[2], int(grid[3]), int(grid[4])
    x = frame[0] + p * frame[2] - nmid * frame[3]
    y = frame[1] + p * frame[3] + nmid * frame[2]
    i = math.floor((x - x0) / g)
    j = math.floor((y - y0) / g)
    zm = 0.5 * (zlo + zhi)
    best = -np.inf
    if 0 <= i < nx and 0 <= j < ny and tops[i // _T, j // _T] >= zm:
        c = i * ny + j
        for k in range(run_off[c], run_off[c + 1]):
            if run_lo[k] <= zm <= run_hi[k]:
                best = min(run_hi[k] - zhi, zlo - run_lo[k])
                break
    for k in range(occ_pf.shape[0]):
        dd = p - occ_pf[k, 0]
        r = occ_pf[k, 2]
        if abs(dd) < r and abs(nmid - occ_pf[k, 1]) < math.sqrt(r * r - dd * dd):
            if occ_pf[k, 3] <= zm <= occ_pf[k, 4]:
                best = max(best, min(occ_pf[k, 4] - zhi, zlo - occ_pf[k, 3]))
    return best


@njit_leaf
def _holds_at(grid, run_off, run_lo, run_hi, tops, occ_pf, frame, p, xc, yc, pts, hull):
    nmin, nmax, _, _ = _crossings(xc, yc, p, pts)
    h = _hull(pts, hull)
    return _plane_holds(grid, run_off, run_lo, run_hi, tops, occ_pf, frame, p, hull, h, nmin, nmax)


@njit_leaf
def _prove(
    grid, run_off, run_lo, run_hi, tops, occ_pf, frame, xb, yb, planes, n_tries, hint, xc, yc,
    pts, hull, top_k, top_s,
):  # fmt: skip
    """Try the bundle X -> Y at its parent's best plane ``hint`` (an index into
    ``planes``, or -1), then at its own ``n_tries`` best-scored planes (ties: the lower
    index first; ``top_k``, ``top_s``: scratch of at least ``max(1, n_tries)`` slots).

    Returns (proved, lam, best): ``lam`` places the best plane between the boxes (0 at
    X's centre, 1 at Y's), ``best`` is its index (-1: none scored).
    """
    _corners(xb, xc)
    _corners(yb, yc)
    xd = 0.5 * (xb[0] + xb[1])
    yd = 0.5 * (yb[0] + yb[1])
    if hint >= 0 and xb[1] < planes[hint] < yb[0]:
        p = planes[hint]
        if _holds_at(grid, run_off, run_lo, run_hi, tops, occ_pf, frame, p, xc, yc, pts, hull):
            return True, (p - xd) / (yd - xd), hint
    zlo = min(xb[4], yb[4])
    zhi = max(xb[5], yb[5])
    slots = top_k.shape[0]
    n_top = 0  # the best-scored planes so far, best first
    for k in range(len(planes)):
        p = planes[k]
        if not (xb[1] < p < yb[0]):
            continue
        lam = (p - xd) / (yd - xd)
        lo_n = xb[2] + lam * (yb[2] - xb[2])
        hi_n = xb[3] + lam * (yb[3] - xb[3])
        sc = np.inf
        for f in (0.5, 0.0, 1.0):
            sc = min(sc, _center_margin(
                grid, run_off, run_lo, run_hi, tops, occ_pf, frame, p,
                lo_n + f * (hi_n - lo_n), zlo, zhi,
            ))  # fmt: skip
            if sc == -np.inf:
                break
        if sc == -np.inf or (n_top == slots and not sc > top_s[n_top - 1]):
            continue
        q = min(n_top, slots - 1)  # insert after every slot scoring at least as much
        while q > 0 and sc > top_s[q - 1]:
            top_k[q] = top_k[q - 1]
            top_s[q] = top_s[q - 1]
            q -= 1
        top_k[q] = k
        top_s[q] = sc
        n_top = min(n_top + 1, slots)
    if n_top == 0:
        return False, 0.5, -1
    best = top_k[0]
    lam = (planes[best] - xd) / (yd - xd)
    for r in range(min(n_top, n_tries)):
        k = top_k[r]
        if k == hint:
            continue
        p = planes[k]
        if _holds_at(grid, run_off, run_lo, run_hi, tops, occ_pf, frame, p, xc, yc, pts, hull):
            return True, lam, best
    return False, lam, best


@njit(cache=True)
def _candidate_planes(
    grid, run_off, run_lo, run_hi, tops, occ_pf, frame, xb, yb, max_planes, group
):  # fmt: skip
    """Plane positions where something solid lies across the pair: probed one column
    apart (at most ``max_planes``), kept one per stretch of ``group``."""
    x0, y0, g, nx, ny = grid[0], grid[1], grid[2], int(grid[3]), int(grid[4])
    gap = yb[0] - xb[1]
    out = np.empty(0)
    if not gap > 0.0:
        return out
    m = max(1, min(max_planes, int(gap / g) + 1))
    keep = np.zeros(m, np.bool_)
    xd = 0.5 * (xb[0] + xb[1])
    yd = 0.5 * (yb[0] + yb[1])
    zlo = min(xb[4], yb[4])
    zhi = max(xb[5], yb[5])
    for k in range(m):
        p = xb[1] + gap * (k + 0.5) / m
        # the bundle's n-range at this plane (in a rotated frame the boxes' n-ranges
        # differ): probe across it
        lam = (p - xd) / (yd - xd)
        lo_n = xb[2] + lam * (yb[2] - xb[2])
        hi_n = xb[3] + lam * (yb[3] - xb[3])
        for f in (0.0, 0.25, 0.5, 0.75, 1.0):
            n = lo_n + f * (hi_n - lo_n)
            x = frame[0] + p * frame[2] - n * frame[3]
            y = frame[1] + p * frame[3] + n * frame[2]
            i = math.floor((x - x0) / g)
            j = math.floor((y - y0) / g)
            if 0 <= i < nx and 0 <= j < ny and tops[i // _T, j // _T] > zlo:
                c = i * ny + j
                for q in range(run_off[c], run_off[c + 1]):
                    if run_hi[q] > zlo and run_lo[q] < zhi:
                        keep[k] = True
                        break
                if keep[k]:
                    break
        if not keep[k]:
            for o in range(occ_pf.shape[0]):
                if abs(p - occ_pf[o, 0]) < occ_pf[o, 2]:
                    keep[k] = True
                    break
    # one plane per stretch of at most `group` consecutive kept positions (its middle):
    # a wall a few columns thick gets one plane through its middle, a thick block one
    # every `group` columns, and scoring a bundle costs that many planes, not every column
    out = np.empty(m)
    q = 0
    k = 0
    while k < m:
        if not keep[k]:
            k += 1
            continue
        e = k
        while e < m and keep[e]:
            e += 1
        parts = (e - k + group - 1) // group
        for c in range(parts):
            a = k + (e - k) * c // parts
            b = k + (e - k) * (c + 1) // parts
            out[q] = xb[1] + gap * (0.5 * (a + b - 1) + 0.5) / m
            q += 1
        k = e
    return out[:q].copy()


@njit(cache=True, nogil=True)
def prove_bundles(
    grid, run_off, run_lo, run_hi, tops, occ, frame, x_box, y_box, max_depth, max_nodes, n_planes,
    n_tries, group,
):  # fmt: skip
    """Prove the bundle X -> Y blocked, splitting it where a whole-bundle proof fails.

    Parameters
    ----------
    grid : (6,) float64
        ``x0, y0, g, nx, ny, eps`` of the column map.
    run_off, run_lo, run_hi : the map's interior runs (none in any column: no runs).
    tops : (tx, ty) float64
        :func:`column_tops` of those runs.
    occ : (M, 5) float64
        Occluding cylinders ``(bx, by, bz, radius, height)`` (mm): their insides block too.
    frame : (4,) float64
        ``ox, oy, dx, dy`` of the pair frame.
    x_box, y_box : (6,) float64
    max_depth : int
        Halvings allowed (of X or Y, along n or z: whichever shrinks the crossing hull
        most at the bundle's best plane).
    max_nodes : int
        Bundles examined at most (breadth first); the rest stay unproved.
    n_planes, n_tries, group : int
        Plane positions probed (one column apart, at most), one kept per stretch of
        ``group`` where something solid lies across; of those, the best ``n_tries`` for a
        bundle are fully tested.

    Returns
    -------
    nodes : (k, 12) float64
        The bundle tree, breadth first: ``X`` box then ``Y`` box of each node.
    split : (k,) int64
        Index (into the 12 numbers) of the lower bound of the side halved, -1 for a leaf.
    mid : (k,) float64
        Where it was halved; the first child keeps values <= mid, the second >= mid.
    child : (k,) int64
        Index of the first child (the second follows it).
    proven : (k,) bool
        Leaves proved blocked.
    tried : int
        Bundles examined.
    """
    occ_pf = np.empty((occ.shape[0], 5))
    for k in range(occ.shape[0]):
        rx, ry = occ[k, 0] - frame[0], occ[k, 1] - frame[1]
        occ_pf[k, 0] = rx * frame[2] + ry * frame[3]
        occ_pf[k, 1] = -rx * frame[3] + ry * frame[2]
        occ_pf[k, 2] = occ[k, 3]
        occ_pf[k, 3] = occ[k, 2]
        occ_pf[k, 4] = occ[k, 2] + occ[k, 4]
    planes = _candidate_planes(
        grid, run_off, run_lo, run_hi, tops, occ_pf, frame, x_box, y_box, n_planes, group
    )
    cap = 2 * max_nodes + 2
    nodes = np.empty((cap, 12))
    depth = np.zeros(cap, np.int64)
    split = np.full(cap, -1, np.int64)
    mid = np.zeros(cap)
    child = np.full(cap, -1, np.int64)
    proven = np.zeros(cap, np.bool_)
    xc = np.empty((8, 3))
    yc = np.empty((8, 3))
    pts = np.empty((16, 2))
    hull = np.empty((34, 2))
    hint = np.full(cap, -1, np.int64)
    top_k = np.empty(max(1, n_tries), np.int64)
    top_s = np.empty(max(1, n_tries))
    for q in range(6):  # element by element: no shape check (and its message) to compile
        nodes[0, q] = x_box[q]
        nodes[0, 6 + q] = y_box[q]
    head = 0
    top = 1
    tried = 0
    while head < top:
        at = head
        head += 1
        node = nodes[at]
        if not len(planes) or tried >= max_nodes:
            continue
        tried += 1
        ok, lam, best_plane = _prove(
            grid, run_off, run_lo, run_hi, tops, occ_pf, frame, node[:6], node[6:], planes,
            n_tries, hint[at], xc, yc, pts, hull, top_k, top_s,
        )  # fmt: skip
        if ok:
            proven[at] = True
            continue
        if depth[at] >= max_depth or tried >= max_nodes:
            continue
        # split where it shrinks the crossing hull most: at the best plane the hull's
        # extent is (1 - lam) X's plus lam Y's, per axis (n or z)
        best = 0
        ext = -1.0
        for which in range(2):
            wgt = 1.0 - lam if which == 0 else lam
            for axis in (1, 2):
                e = wgt * (node[6 * which + 2 * axis + 1] - node[6 * which + 2 * axis])
                if e > ext:
                    ext = e
                    best = 6 * which + 2 * axis
        m = 0.5 * (node[best] + node[best + 1])
        split[at] = best
        mid[at] = m
        child[at] = top
        for q in range(12):
            nodes[top, q] = node[q]
            nodes[top + 1, q] = node[q]
        nodes[top, best + 1] = m
        nodes[top + 1, best] = m
        depth[top] = depth[at] + 1
        depth[top + 1] = depth[at] + 1
        hint[top] = best_plane
        hint[top + 1] = best_plane
        top += 2
    return (
        nodes[:top].copy(), split[:top].copy(), mid[:top].copy(), child[:top].copy(),
        proven[:top].copy(), tried,
    )  # fmt: skip


@njit(cache=True, nogil=True)
def segment_hits_cylinders(a, b, occ):
    """Does the segment a -> b pass through the inside of one of the cylinders ``occ``?"""
    dx, dy, dz = b[0] - a[0], b[1] - a[1], b[2] - a[2]
    for k in range(occ.shape[0]):
        t0, t1 = cylinder_interval(
            a[0], a[1], a[2], dx, dy, dz, occ[k, 0], occ[k, 1], occ[k, 2], occ[k, 3], occ[k, 4]
        )
        if max(t0, 0.0) < min(t1, 1.0):
            return True
    return False
