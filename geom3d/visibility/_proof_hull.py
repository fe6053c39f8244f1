"""The crossing hull of a bundle proof (:mod:`._proof_kernels`), compiled.

A bundle is every segment from a point of box ``X`` to a point of box ``Y`` (boxes
``[d0, d1, n0, n1, z0, z1]`` in a pair frame). At a plane ``d = p`` strictly between them,
each segment crosses inside the convex hull of the 64 corner-to-corner crossings; 16 of
them span it (:func:`_crossings`). :func:`_hull` takes their convex hull and
:func:`_slab_z` the hull's height range over a strip of ``n``.
"""

from __future__ import annotations

import numpy as np

from geom3d.bodies.kernels import njit_leaf

__all__: list[str] = []  # private helpers of ._proof_kernels


@njit_leaf
def _corners(b, out):
    k = 0
    for a in range(2):
        for c in range(2):
            for e in range(2):
                out[k, 0] = b[a]
                out[k, 1] = b[2 + c]
                out[k, 2] = b[4 + e]
                k += 1


@njit_leaf
def _crossings(xc, yc, p, pts):
    """The corners of the crossing hull at d = p, and its ranges.

    For one d-face of each box (corners ``4 a + 2 c + e``: ``a`` the d side, ``c`` the n
    side, ``e`` the z side), the 16 corner-to-corner segments cross the plane at the
    same ``lam`` and so in a grid of points ``(1 - lam) X + lam Y``, whose hull is the
    rectangle of the low-low and high-high combinations (n and z separately): of the 64
    crossings, these 4 x 4 corners span the same convex hull (the rest lie on its edges
    or inside). Writes them to ``pts[:16]``.
    """
    k = 0
    nmin = zmin = np.inf
    nmax = zmax = -np.inf
    for a in range(2):
        for b in range(2):
            xa = 4 * a
            yb = 4 * b
            lam = (p - xc[xa, 0]) / (yc[yb, 0] - xc[xa, 0])
            n_lo = xc[xa, 1] + lam * (yc[yb, 1] - xc[xa, 1])
            n_hi = xc[xa + 2, 1] + lam * (yc[yb + 2, 1] - xc[xa + 2, 1])
            z_lo = xc[xa, 2] + lam * (yc[yb, 2] - xc[xa, 2])
            z_hi = xc[xa + 1, 2] + lam * (yc[yb + 1, 2] - xc[xa + 1, 2])
            for n in (n_lo, n_hi):
                for z in (z_lo, z_hi):
                    pts[k, 0] = n
                    pts[k, 1] = z
                    k += 1
            nmin = min(nmin, n_lo, n_hi)
            nmax = max(nmax, n_lo, n_hi)
            zmin = min(zmin, z_lo, z_hi)
            zmax = max(zmax, z_lo, z_hi)
    return nmin, nmax, zmin, zmax


@njit_leaf(forceinline=True)
def _push(hull, m, low, p):
    """Monotone chain step: drop the hull points ``p`` makes non-convex (keeping at least
    ``low``), then append ``p``; returns the new size."""
    while m >= low:
        ax, az = hull[m - 2, 0], hull[m - 2, 1]
        bx, bz = hull[m - 1, 0], hull[m - 1, 1]
        if (bx - ax) * (p[1] - az) - (bz - az) * (p[0] - ax) <= 0.0:
            m -= 1
        else:
            break
    hull[m, 0] = p[0]
    hull[m, 1] = p[1]
    return m + 1


@njit_leaf
def _hull(pts, hull):
    """Convex hull (monotone chain) of ``pts[:16]`` into ``hull``; returns its size (ccw).
    Sorts ``pts[:16]`` in place, lexicographically by (n, z)."""
    n = 16
    for i in range(1, n):  # insertion sort: stable, no allocation
        a, b = pts[i, 0], pts[i, 1]
        j = i - 1
        while j >= 0 and (pts[j, 0] > a or (pts[j, 0] == a and pts[j, 1] > b)):
            pts[j + 1, 0] = pts[j, 0]
            pts[j + 1, 1] = pts[j, 1]
            j -= 1
        pts[j + 1, 0] = a
        pts[j + 1, 1] = b
    m = 0
    for idx in range(n):  # lower chain
        m = _push(hull, m, 2, pts[idx])
    low = m + 1
    for idx in range(n - 2, -1, -1):  # upper chain
        m = _push(hull, m, low, pts[idx])
    return max(1, m - 1)


@njit_leaf
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
