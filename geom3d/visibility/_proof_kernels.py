"""Compiled kernels of the bundle proofs (:mod:`.proof`).

Boxes are in a *pair frame*: ``d`` along the horizontal direction from the first trooper
to the second, ``n`` the horizontal normal, ``z`` the world height; a box is
``[d0, d1, n0, n1, z0, z1]``. World ``(x, y) = (ox, oy) + d (dx, dy) + n (-dy, dx)``.

A bundle is every segment from a point of box ``X`` to a point of box ``Y``. For a plane
``d = p`` strictly between the boxes, each segment crosses it inside the convex hull ``Q``
of the 64 corner-to-corner crossings (a central projection maps convex sets to convex
sets). The bundle is *proved blocked* when every point of ``Q`` lies in an interior run of
the column map: each segment then passes through the inside of a closed solid.
"""

from __future__ import annotations

import math

import numpy as np

from geom3d._kernels import cylinder_interval, njit

__all__ = ["prove_bundles", "segment_hits_cylinders", "settled_eyes", "settled_segments"]


@njit(cache=True)
def _corners(b, out):
    k = 0
    for a in range(2):
        for c in range(2):
            for e in range(2):
                out[k, 0] = b[a]
                out[k, 1] = b[2 + c]
                out[k, 2] = b[4 + e]
                k += 1


@njit(cache=True)
def _crossings(xc, yc, p, pts):
    """(n, z) of the 64 corner-to-corner segments at d = p; returns ranges."""
    k = 0
    nmin = zmin = np.inf
    nmax = zmax = -np.inf
    for a in range(8):
        for b in range(8):
            lam = (p - xc[a, 0]) / (yc[b, 0] - xc[a, 0])
            n = xc[a, 1] + lam * (yc[b, 1] - xc[a, 1])
            z = xc[a, 2] + lam * (yc[b, 2] - xc[a, 2])
            pts[k, 0] = n
            pts[k, 1] = z
            nmin = min(nmin, n)
            nmax = max(nmax, n)
            zmin = min(zmin, z)
            zmax = max(zmax, z)
            k += 1
    return nmin, nmax, zmin, zmax


@njit(cache=True)
def _hull(pts, hull):
    """Convex hull (monotone chain) of pts (k, 2) into hull; returns its size (ccw)."""
    o1 = np.argsort(pts[:, 1], kind="mergesort")
    o2 = np.argsort(pts[o1, 0], kind="mergesort")
    order = o1[o2]  # lexicographic (n, z)
    n = len(order)
    m = 0
    for idx in range(n):
        p = pts[order[idx]]
        while m >= 2:
            ax, az = hull[m - 2, 0], hull[m - 2, 1]
            bx, bz = hull[m - 1, 0], hull[m - 1, 1]
            if (bx - ax) * (p[1] - az) - (bz - az) * (p[0] - ax) <= 0.0:
                m -= 1
            else:
                break
        hull[m, 0] = p[0]
        hull[m, 1] = p[1]
        m += 1
    low = m + 1
    for idx in range(n - 2, -1, -1):
        p = pts[order[idx]]
        while m >= low:
            ax, az = hull[m - 2, 0], hull[m - 2, 1]
            bx, bz = hull[m - 1, 0], hull[m - 1, 1]
            if (bx - ax) * (p[1] - az) - (bz - az) * (p[0] - ax) <= 0.0:
                m -= 1
            else:
                break
        hull[m, 0] = p[0]
        hull[m, 1] = p[1]
        m += 1
    return max(1, m - 1)


@njit(cache=True)
def _slab_z(hull, h, na, nb):
    """z-range of the hull polygon over na <= n <= nb (conservative by construction)."""
    lo = np.inf
    hi = -np.inf
    for k in range(h):
        n0, z0 = hull[k, 0], hull[k, 1]
        if na <= n0 <= nb:
            lo = min(lo, z0)
            hi = max(hi, z0)
        w = (k + 1) % h
        n1, z1 = hull[w, 0], hull[w, 1]
        for cut in (na, nb):
            if (n0 - cut) * (n1 - cut) < 0.0:
                t = (cut - n0) / (n1 - n0)
                z = z0 + t * (z1 - z0)
                lo = min(lo, z)
                hi = max(hi, z)
    return lo, hi


@njit(cache=True)
def _run_holds(run_off, run_lo, run_hi, c, lo, hi):
    for k in range(run_off[c], run_off[c + 1]):
        if run_lo[k] < lo and hi < run_hi[k]:
            return True
    return False


@njit(cache=True)
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


@njit(cache=True)
def _plane_holds(grid, run_off, run_lo, run_hi, occ_pf, frame, p, hull, h, nmin, nmax):
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
        cx0 = x0 + i * g - eps
        cx1 = x0 + (i + 1) * g + eps
        if ux != 0.0:
            t0 = (cx0 - ax) / ux
            t1 = (cx1 - ax) / ux
            ta, tb = max(nmin, min(t0, t1)), min(nmax, max(t0, t1))
        else:
            ta, tb = nmin, nmax
        if ta > tb:
            continue
        ya, yb = ay + ta * uy, ay + tb * uy
        j0 = math.floor((min(ya, yb) - eps - y0) / g)
        j1 = math.floor((max(ya, yb) + eps - y0) / g)
        for j in range(j0, j1 + 1):
            cy0 = y0 + j * g - eps
            cy1 = y0 + (j + 1) * g + eps
            if uy != 0.0:
                s0 = (cy0 - ay) / uy
                s1 = (cy1 - ay) / uy
                sa, sb = max(ta, min(s0, s1)), min(tb, max(s0, s1))
            else:
                sa, sb = ta, tb
            if sa > sb:
                continue
            lo, hi = _slab_z(hull, h, sa, sb)
            if lo > hi:
                continue
            inside = 0 <= i < nx and 0 <= j < ny
            if not (inside and _run_holds(run_off, run_lo, run_hi, i * ny + j, lo, hi)):
                if not _occ_holds(occ_pf, p, sa, sb, lo, hi, eps):
                    return False
    return True


@njit(cache=True)
def _center_margin(grid, run_off, run_lo, run_hi, occ_pf, frame, p, nmid, zlo, zhi):
    """How far the column (or occluder) under (p, nmid) reaches beyond [zlo, zhi]."""
    x0, y0, g, nx, ny = grid[0], grid[1], grid[2], int(grid[3]), int(grid[4])
    x = frame[0] + p * frame[2] - nmid * frame[3]
    y = frame[1] + p * frame[3] + nmid * frame[2]
    i = math.floor((x - x0) / g)
    j = math.floor((y - y0) / g)
    zm = 0.5 * (zlo + zhi)
    best = -np.inf
    if 0 <= i < nx and 0 <= j < ny:
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


@njit(cache=True)
def _prove(
    grid, run_off, run_lo, run_hi, occ_pf, frame, xb, yb, planes, n_tries, xc, yc, pts, hull
):
    """Try the best-scored candidate planes on the bundle X -> Y."""
    _corners(xb, xc)
    _corners(yb, yc)
    xd = 0.5 * (xb[0] + xb[1])
    yd = 0.5 * (yb[0] + yb[1])
    zlo = min(xb[4], yb[4])
    zhi = max(xb[5], yb[5])
    m = len(planes)
    score = np.full(m, -np.inf)
    for k in range(m):
        p = planes[k]
        if not (xb[1] < p < yb[0]):
            continue
        lam = (p - xd) / (yd - xd)
        lo_n = xb[2] + lam * (yb[2] - xb[2])
        hi_n = xb[3] + lam * (yb[3] - xb[3])
        sc = np.inf
        for f in (0.5, 0.0, 1.0, 0.25, 0.75):
            sc = min(sc, _center_margin(
                grid, run_off, run_lo, run_hi, occ_pf, frame, p, lo_n + f * (hi_n - lo_n),
                zlo, zhi,
            ))  # fmt: skip
            if sc == -np.inf:
                break
        score[k] = sc
    order = np.argsort(-score)
    for r in range(min(n_tries, m)):
        k = order[r]
        if score[k] == -np.inf:
            break
        p = planes[k]
        nmin, nmax, _, _ = _crossings(xc, yc, p, pts)
        h = _hull(pts, hull)
        if _plane_holds(grid, run_off, run_lo, run_hi, occ_pf, frame, p, hull, h, nmin, nmax):
            return True
    return False


@njit(cache=True)
def _candidate_planes(grid, run_off, run_lo, run_hi, occ_pf, frame, xb, yb, max_planes):
    """Plane positions, one column apart, where something solid lies across the pair."""
    x0, y0, g, nx, ny = grid[0], grid[1], grid[2], int(grid[3]), int(grid[4])
    gap = yb[0] - xb[1]
    out = np.empty(0)
    if not gap > 0.0:
        return out
    m = max(1, min(max_planes, int(gap / g) + 1))
    keep = np.zeros(m, np.bool_)
    reach = max(xb[3], yb[3], -xb[2], -yb[2])
    zlo = min(xb[4], yb[4])
    zhi = max(xb[5], yb[5])
    for k in range(m):
        p = xb[1] + gap * (k + 0.5) / m
        for f in (-1.0, -0.5, 0.0, 0.5, 1.0):
            n = f * reach
            x = frame[0] + p * frame[2] - n * frame[3]
            y = frame[1] + p * frame[3] + n * frame[2]
            i = math.floor((x - x0) / g)
            j = math.floor((y - y0) / g)
            if 0 <= i < nx and 0 <= j < ny:
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
    out = np.empty(keep.sum())
    q = 0
    for k in range(m):
        if keep[k]:
            out[q] = xb[1] + gap * (k + 0.5) / m
            q += 1
    return out


@njit(cache=True)
def prove_bundles(
    grid, run_off, run_lo, run_hi, occ, frame, x_box, y_box, max_depth, n_planes, n_tries
):
    """Prove the bundle X -> Y blocked, splitting it where a whole-bundle proof fails.

    Parameters
    ----------
    grid : (6,) float64
        ``x0, y0, g, nx, ny, eps`` of the column map.
    run_off, run_lo, run_hi : the map's interior runs (empty for none).
    occ : (M, 5) float64
        Occluding cylinders ``(bx, by, bz, radius, height)`` (mm): their insides block too.
    frame : (4,) float64
        ``ox, oy, dx, dy`` of the pair frame.
    x_box, y_box : (6,) float64
    max_depth : int
        Halvings allowed (the larger box, along its longer n or z side).
    n_planes, n_tries : int
        Planes scored per bundle, and fully tested.

    Returns
    -------
    leaves : (k, 12) float64
        ``X`` box then ``Y`` box of each leaf; the leaves partition X x Y.
    proven : (k,) bool
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
    planes = _candidate_planes(grid, run_off, run_lo, run_hi, occ_pf, frame, x_box, y_box, n_planes)
    cap = 2 ** (max_depth + 1)
    stack = np.empty((cap, 12))
    depth = np.empty(cap, np.int64)
    leaves = np.empty((cap, 12))
    proven = np.zeros(cap, np.bool_)
    xc = np.empty((8, 3))
    yc = np.empty((8, 3))
    pts = np.empty((64, 2))
    hull = np.empty((130, 2))
    stack[0, :6] = x_box
    stack[0, 6:] = y_box
    depth[0] = 0
    top = 1
    n_leaves = 0
    tried = 0
    while top > 0:
        top -= 1
        node = stack[top].copy()
        dep = depth[top]
        tried += 1
        ok = len(planes) > 0 and _prove(
            grid, run_off, run_lo, run_hi, occ_pf, frame, node[:6], node[6:], planes,
            n_tries, xc, yc, pts, hull,
        )  # fmt: skip
        if ok or dep >= max_depth or len(planes) == 0:
            leaves[n_leaves] = node
            proven[n_leaves] = ok
            n_leaves += 1
            continue
        # split the box and axis with the largest extent (n or z)
        best = 0
        ext = -1.0
        for which in range(2):
            for axis in (1, 2):
                e = node[6 * which + 2 * axis + 1] - node[6 * which + 2 * axis]
                if e > ext:
                    ext = e
                    best = 6 * which + 2 * axis
        mid = 0.5 * (node[best] + node[best + 1])
        a = node.copy()
        a[best + 1] = mid
        b = node.copy()
        b[best] = mid
        stack[top] = a
        depth[top] = dep + 1
        stack[top + 1] = b
        depth[top + 1] = dep + 1
        top += 2
    return leaves[:n_leaves].copy(), proven[:n_leaves].copy(), tried


@njit(cache=True, inline="always")
def _in_box(b, off, d, n, z, tol):
    return (
        b[off] - tol <= d <= b[off + 1] + tol
        and b[off + 2] - tol <= n <= b[off + 3] + tol
        and b[off + 4] - tol <= z <= b[off + 5] + tol
    )


@njit(cache=True)
def settled_segments(leaves, proven, frame, origins, ends, flip):
    """Which segments ``origins[i] -> ends[i]`` lie in a proven bundle.

    ``flip`` False: origins are in the X boxes, ends in the Y boxes; True: the reverse.
    Containment is exact (no tolerance): a point just outside a box is not settled.
    """
    ox, oy, dx, dy = frame[0], frame[1], frame[2], frame[3]
    k = len(origins)
    out = np.zeros(k, np.bool_)
    ex, ey = (6, 0) if flip else (0, 6)
    for i in range(k):
        rx, ry = origins[i, 0] - ox, origins[i, 1] - oy
        od, on = rx * dx + ry * dy, -rx * dy + ry * dx
        sx, sy = ends[i, 0] - ox, ends[i, 1] - oy
        ed, en = sx * dx + sy * dy, -sx * dy + sy * dx
        for lf in range(len(leaves)):
            if not proven[lf]:
                continue
            b = leaves[lf]
            if _in_box(b, ex, od, on, origins[i, 2], 0.0) and _in_box(
                b, ey, ed, en, ends[i, 2], 0.0
            ):
                out[i] = True
                break
    return out


@njit(cache=True)
def settled_eyes(leaves, proven, frame, eyes, flip):
    """Eyes whose every segment to the other box is settled (every leaf holding them)."""
    ox, oy, dx, dy = frame[0], frame[1], frame[2], frame[3]
    out = np.zeros(len(eyes), np.bool_)
    ex = 6 if flip else 0
    for i in range(len(eyes)):
        rx, ry = eyes[i, 0] - ox, eyes[i, 1] - oy
        d, n = rx * dx + ry * dy, -rx * dy + ry * dx
        seen = False
        ok = True
        for lf in range(len(leaves)):
            if _in_box(leaves[lf], ex, d, n, eyes[i, 2], 0.0):
                seen = True
                if not proven[lf]:
                    ok = False
                    break
        out[i] = seen and ok
    return out


@njit(cache=True)
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
