"""Rectilinear solids: a union of axis-aligned boxes minus axis-aligned holes, as one
closed, consistently wound surface with no internal faces and no T-junctions.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import trimesh

from geom3d.core.errors import InputError
from geom3d.core.validation import require_positive

#: Procedural scenery (``geom3d.terrain.rectilinear``): box coordinates are rounded to
#: this many decimals (1e-9 mm), so coordinates closer than that are one grid line.
RECTILINEAR_GRID_DECIMALS: int = 9

__all__ = ["aabb", "rectilinear", "size3"]


def aabb(cx: float, cy: float, z0: float, sx: float, sy: float, sz: float):
    """Box ``((xmin, ymin, zmin), (xmax, ymax, zmax))`` from bottom-centre and size, mm."""
    return ((cx - sx / 2, cy - sy / 2, z0), (cx + sx / 2, cy + sy / 2, z0 + sz))


def _greedy_rectangles(mask: np.ndarray) -> list[tuple[int, int, int, int]]:
    """Cover a 2D boolean mask with disjoint rectangles ``(u0, u1, v0, v1)`` (cell ranges)."""
    m = mask.copy()
    nu, nv = m.shape
    rects = []
    for i in range(nu):
        j = 0
        while j < nv:
            if not m[i, j]:
                j += 1
                continue
            j1 = j
            while j1 < nv and m[i, j1]:
                j1 += 1
            i1 = i + 1
            while i1 < nu and m[i1, j:j1].all():
                i1 += 1
            m[i:i1, j:j1] = False
            rects.append((i, i1, j, j1))
            j = j1
    return rects


def rectilinear(solids: Iterable, holes: Iterable = ()) -> trimesh.Trimesh:
    """Closed surface of a union of axis-aligned boxes minus axis-aligned holes.

    The space is cut into a grid by every box face; a grid cell is solid when it lies in
    a solid box and in no hole. The boundary between solid and empty cells is emitted as
    maximal rectangles per plane, each split at every vertex of a neighbouring rectangle
    that lies on its edges (no T-junctions), so the result is watertight and consistently
    wound with outward normals.

    Parameters
    ----------
    solids : (n, 2, 3) array_like, mm
        Boxes ``[[xmin, ymin, zmin], [xmax, ymax, zmax]]`` whose union is the solid.
    holes : (m, 2, 3) array_like, mm
        Boxes removed from the union (may extend beyond it: doors, windows).

    Returns
    -------
    trimesh.Trimesh
        Built with ``process=False``; vertices (v, 3) float64 mm, faces (f, 3) int64.

    Raises
    ------
    InputError
        No solid box, a box with non-positive extent, NaN/inf, or nothing left after holes.
    """
    s = np.asarray(list(solids), dtype=np.float64).reshape(-1, 2, 3)
    h = np.asarray(list(holes), dtype=np.float64).reshape(-1, 2, 3)
    if len(s) == 0:
        raise InputError("rectilinear: at least one solid box is needed")
    if not (np.all(np.isfinite(s)) and np.all(np.isfinite(h))):
        raise InputError("rectilinear: boxes contain NaN or infinite values")
    if np.any(s[:, 1] <= s[:, 0]) or np.any(h[:, 1] <= h[:, 0]):
        raise InputError("rectilinear: every box needs max > min on each axis")
    lo, hi = s[:, 0].min(axis=0), s[:, 1].max(axis=0)
    h = np.clip(h, lo, hi)
    h = h[np.all(h[:, 1] > h[:, 0], axis=1)]
    s = np.round(s, RECTILINEAR_GRID_DECIMALS)
    h = np.round(h, RECTILINEAR_GRID_DECIMALS)

    grids = [np.unique(np.concatenate([s[:, :, a].ravel(), h[:, :, a].ravel()])) for a in range(3)]
    occ = np.zeros(tuple(len(g) - 1 for g in grids), dtype=bool)
    for boxes, value in ((s, True), (h, False)):
        for b in boxes:
            idx = [np.searchsorted(grids[a], b[:, a]) for a in range(3)]
            occ[idx[0][0] : idx[0][1], idx[1][0] : idx[1][1], idx[2][0] : idx[2][1]] = value
    if not occ.any():
        raise InputError("rectilinear: the holes remove the whole solid")

    pad = np.zeros(tuple(n + 2 for n in occ.shape), dtype=bool)
    pad[1:-1, 1:-1, 1:-1] = occ

    # Boundary rectangles: (axis, plane node index, sign, u0, u1, v0, v1) in grid nodes.
    rects: list[tuple[int, int, int, int, int, int, int]] = []
    for a in range(3):
        perm = (a, (a + 1) % 3, (a + 2) % 3)
        p = np.transpose(pad, perm)
        lower, upper = p[:-1, 1:-1, 1:-1], p[1:, 1:-1, 1:-1]
        for sign, mask in ((1, lower & ~upper), (-1, ~lower & upper)):
            for plane in np.flatnonzero(mask.any(axis=(1, 2))):
                for u0, u1, v0, v1 in _greedy_rectangles(mask[plane]):
                    rects.append((a, int(plane), sign, u0, u1, v0, v1))

    shape = tuple(len(g) for g in grids)
    used = np.zeros(shape, dtype=bool)

    def node(a: int, w: int, u: int, v: int) -> tuple[int, int, int]:
        n = [0, 0, 0]
        n[a], n[(a + 1) % 3], n[(a + 2) % 3] = w, u, v
        return (n[0], n[1], n[2])

    for a, w, _, u0, u1, v0, v1 in rects:
        for u, v in ((u0, v0), (u1, v0), (u1, v1), (u0, v1)):
            used[node(a, w, u, v)] = True

    vid = np.full(shape, -1, dtype=np.int64)
    vid[used] = np.arange(int(used.sum()))
    gx, gy, gz = np.meshgrid(*grids, indexing="ij")
    verts = [np.stack([gx[used], gy[used], gz[used]], axis=1)]
    n_verts = len(verts[0])
    extra: list[list[float]] = []
    faces: list[tuple[int, int, int]] = []
    for a, w, sign, u0, u1, v0, v1 in rects:
        loop = (
            [(u, v0) for u in range(u0, u1)]
            + [(u1, v) for v in range(v0, v1)]
            + [(u, v1) for u in range(u1, u0, -1)]
            + [(u0, v) for v in range(v1, v0, -1)]
        )
        ring = [int(vid[node(a, w, u, v)]) for u, v in loop if used[node(a, w, u, v)]]
        if sign < 0:
            ring = ring[::-1]
        if len(ring) == 4:
            faces += [(ring[0], ring[1], ring[2]), (ring[0], ring[2], ring[3])]
            continue
        c = [0.0, 0.0, 0.0]
        c[a] = grids[a][w]
        c[(a + 1) % 3] = 0.5 * (grids[(a + 1) % 3][u0] + grids[(a + 1) % 3][u1])
        c[(a + 2) % 3] = 0.5 * (grids[(a + 2) % 3][v0] + grids[(a + 2) % 3][v1])
        ci = n_verts + len(extra)
        extra.append(c)
        faces += [(ci, ring[k], ring[(k + 1) % len(ring)]) for k in range(len(ring))]
    if extra:
        verts.append(np.asarray(extra, dtype=np.float64))
    return trimesh.Trimesh(
        vertices=np.concatenate(verts), faces=np.asarray(faces, dtype=np.int64), process=False
    )


def size3(size, name: str = "size") -> tuple[float, float, float]:
    """``size`` as three positive finite lengths (x, y, z), mm; InputError naming ``name``."""
    vals = tuple(np.asarray(size, dtype=np.float64).ravel().tolist())
    if len(vals) != 3:
        raise InputError(f"{name} must have 3 values (x, y, z) in mm, got {size!r}")
    return tuple(require_positive(v, f"{name}[{i}]") for i, v in enumerate(vals))  # type: ignore[return-value]
