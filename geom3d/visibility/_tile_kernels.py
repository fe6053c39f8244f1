"""The blocking-proof map's triangle tiles, and what :meth:`.interior.InteriorMap.outside`
checks on them: that no blocking triangle meets a trooper's eye region, and that a point
of it lies outside every closed solid (exact parity). The mesh is read by index
(``v[faces[f]]``): the map keeps no gathered copy of a million triangles.
"""

from __future__ import annotations

import math

import numpy as np

from geom3d.bodies.kernels import grow_bounds, njit, njit_leaf
from geom3d.visibility._interior_kernels import _above_at, _clip_axis, _polygon_buffers, _seg_dist2

__all__ = ["bin_triangles", "column_parity", "cylinder_free", "face_bounds"]


@njit_leaf(forceinline=True)
def _tile_range(v, faces, f, x0, y0, g, nx, ny):
    """The tile ranges ``i0, i1, j0, j1`` that face ``f``'s plan bounding box meets."""
    a, b, c = faces[f, 0], faces[f, 1], faces[f, 2]
    xa = min(v[a, 0], v[b, 0], v[c, 0])
    xb = max(v[a, 0], v[b, 0], v[c, 0])
    ya = min(v[a, 1], v[b, 1], v[c, 1])
    yb = max(v[a, 1], v[b, 1], v[c, 1])
    i0 = max(0, math.floor((xa - x0) / g))
    i1 = min(nx - 1, math.floor((xb - x0) / g))
    j0 = max(0, math.floor((ya - y0) / g))
    j1 = min(ny - 1, math.floor((yb - y0) / g))
    return i0, i1, j0, j1


@njit(cache=True, nogil=True)
def bin_triangles(v, faces, x0, y0, g, nx, ny):
    """CSR ``(off, tri)`` of the triangles (of mesh ``v``, ``faces``) whose plan bounding
    box meets each square cell ``(i, j)`` (flat index ``i * ny + j``) of side ``g`` from
    ``(x0, y0)``."""
    m = faces.shape[0]
    counts = np.zeros(nx * ny + 1, np.int64)
    for f in range(m):
        i0, i1, j0, j1 = _tile_range(v, faces, f, x0, y0, g, nx, ny)
        for i in range(i0, i1 + 1):
            for j in range(j0, j1 + 1):
                counts[i * ny + j + 1] += 1
    for c in range(nx * ny):
        counts[c + 1] += counts[c]
    pos = counts[:-1].copy()
    out = np.empty(counts[-1], np.int64)
    for f in range(m):
        i0, i1, j0, j1 = _tile_range(v, faces, f, x0, y0, g, nx, ny)
        for i in range(i0, i1 + 1):
            for j in range(j0, j1 + 1):
                c = i * ny + j
                out[pos[c]] = f
                pos[c] += 1
    return counts, out


@njit(cache=True, nogil=True)
def face_bounds(v, faces):
    """``(lo, hi)``, (3,) float64 each: the bounding box of the vertices that ``faces``
    (m > 0) use."""
    lo = v[faces[0, 0]].copy()
    hi = lo.copy()
    for f in range(faces.shape[0]):
        for q in range(3):
            grow_bounds(lo, hi, v, faces[f, q])
    return lo, hi


@njit(cache=True, nogil=True)
def cylinder_free(v, faces, off, rtri, x0, y0, g, nx, ny, bx, by, z0, z1, r):
    """No triangle (of mesh ``v``, ``faces``, binned by :func:`bin_triangles`) meets the
    solid cylinder of radius ``r`` over ``[z0, z1]`` at (bx, by)."""
    i0 = max(0, math.floor((bx - r - x0) / g))
    i1 = min(nx - 1, math.floor((bx + r - x0) / g))
    j0 = max(0, math.floor((by - r - y0) / g))
    j1 = min(ny - 1, math.floor((by + r - y0) / g))
    px, py, pz, qx, qy, qz = _polygon_buffers()
    r2 = r * r
    for i in range(i0, i1 + 1):
        for j in range(j0, j1 + 1):
            c = i * ny + j
            for k in range(off[c], off[c + 1]):
                f = rtri[k]
                for q in range(3):
                    px[q] = v[faces[f, q], 0]
                    py[q] = v[faces[f, q], 1]
                    pz[q] = v[faces[f, q], 2]
                # clip to z0 <= z <= z1 (the same clipper, on z as "x" of a rotated frame)
                n = _clip_axis(pz, py, px, 3, 0, z0, False, qz, qy, qx)
                n = _clip_axis(qz, qy, qx, n, 0, z1, True, pz, py, px)
                if n == 0:
                    continue
                inside = True
                sgn = 0.0
                for q in range(n):
                    w = (q + 1) % n
                    if _seg_dist2(bx, by, px[q], py[q], px[w], py[w]) <= r2:
                        return False
                    cr = (px[w] - px[q]) * (by - py[q]) - (py[w] - py[q]) * (bx - px[q])
                    if cr != 0.0:
                        if sgn == 0.0:
                            sgn = cr
                        elif (cr > 0.0) != (sgn > 0.0):
                            inside = False
                if inside and n >= 3 and sgn != 0.0:
                    return False
    return True


@njit(cache=True, nogil=True)
def column_parity(v, faces, element, solid, off, rtri, c, qx, qy, qz, guard, scratch):
    """Is (qx, qy, qz) inside a closed solid? 1 inside, 0 outside, -1 undecided.

    Counts, per element with ``solid[element]``, the faces (of mesh ``v``, ``faces``)
    among column ``c``'s records that the upward ray from the point crosses; inside when
    one count is odd. ``scratch`` is an int64 array of one slot per element, all zero
    (left zero).
    """
    g2 = guard * guard
    state = 0
    for k in range(off[c], off[c + 1]):
        f = rtri[k]
        el = element[f]
        if not solid[el]:
            continue
        a, b, d = faces[f, 0], faces[f, 1], faces[f, 2]
        st, z = _above_at(
            v[a, 0], v[a, 1], v[a, 2], v[b, 0], v[b, 1], v[b, 2], v[d, 0], v[d, 1], v[d, 2],
            qx, qy, g2,
        )  # fmt: skip
        if st < 0:
            state = -1
            break
        if st == 1 and z > qz:
            scratch[el] += 1
    out = state
    for k in range(off[c], off[c + 1]):
        el = element[rtri[k]]
        if out == 0 and scratch[el] % 2 == 1:
            out = 1
        scratch[el] = 0
    return out
