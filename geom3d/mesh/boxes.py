"""Closed rectilinear meshes as unions of boxes.

Modelled scenery is mostly rectilinear: buildings with doors and windows, containers,
walls, walkways, barricades. Each face of such a piece is horizontal or vertical, and
its vertical faces face one of four directions 90 degrees apart (the piece's yaw). In the
piece's own frame (rotated by ``-yaw`` about z) the distinct x, y and z coordinates of
its vertices cut space into a grid of cells; no face crosses a cell, so each cell lies
wholly inside the solid or wholly outside, and the solid is exactly the union of its
inside cells. :func:`rectilinear_boxes` tells them apart by the winding number of each
cell, counted along a vertical line through its centre across the horizontal faces
below it (an integer on a closed, consistently oriented surface), merges them greedily
into a few boxes, and grows each box as far as the solid allows (so they may overlap: a
wall with a window is the whole wall below the window, the whole wall above it and the
two full-height piers beside it, and one of them alone may hide a target).

The boxes are convex pieces of the solid: the Line of Fire search settles a segment
through one without a ray (:class:`geom3d.visibility.convex.ConvexSolids`), as it does
for pieces that are convex as a whole.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from geom3d.mesh.topology import closed_surface

__all__ = [
    "RECTILINEAR_ANGLE_DEG",
    "RECTILINEAR_MAX_CELLS",
    "RECTILINEAR_MERGE_MM",
    "RectilinearBoxes",
    "rectilinear_boxes",
]

#: A face is horizontal or vertical when its unit normal's z is within this (a sine) of
#: +-1 or of 0; the vertical faces' directions may differ from a multiple of 90 degrees
#: from the first one's by this many degrees (the float rounding of a placed piece's yaw
#: is about 1e-12 degrees).
RECTILINEAR_ANGLE_DEG: float = 1e-6

#: Coordinates (in the piece's frame) closer than this are one grid plane: a placed
#: piece's vertices carry about 1e-13 mm of rounding from its rotation. A cell thinner
#: than this, in a piece whose faces really are that close, would have its centre that
#: near a face, where the winding number is not to be trusted: such a piece is not
#: decomposed.
RECTILINEAR_MERGE_MM: float = 1e-6

#: At most this many grid cells per piece (a piece with more distinct coordinates, such
#: as a rectilinear mesh of many small parts, is not decomposed: the search's per-piece
#: work would outweigh what its boxes save).
RECTILINEAR_MAX_CELLS: int = 50_000

#: A cell is inside where its centre's winding number is above this.
_INSIDE_WINDING: float = 0.5

#: A vertical line through a cell's centre this near a horizontal triangle's edge (in
#: plan) counts half for it (:func:`_cell_windings`).
_ON_EDGE_MM: float = 1e-9


@dataclass(frozen=True)
class RectilinearBoxes:
    """A closed rectilinear solid as boxes in its own frame.

    Attributes
    ----------
    boxes : (k, 6) float64, mm
        ``(x0, y0, z0, x1, y1, z1)`` rows in the piece's frame (world coordinates turned
        by ``-yaw_deg`` about z); their union is the solid, and they may overlap (each
        is grown as far as the solid allows).
    yaw_deg : float, degrees
        The frame's turn about z, in ``[0, 90)``: world = R(yaw) @ frame.
    """

    boxes: np.ndarray
    yaw_deg: float

    def __len__(self) -> int:
        return len(self.boxes)

    def rotation(self) -> np.ndarray:
        """(3, 3) float64: frame -> world."""
        a = math.radians(self.yaw_deg)
        c, s = math.cos(a), math.sin(a)
        return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])

    def corners(self) -> np.ndarray:
        """(k, 8, 3) float64, mm: each box's corners in world coordinates."""
        b = self.boxes
        pick = np.array([[x, y, z] for x in (0, 3) for y in (1, 4) for z in (2, 5)])
        frame = b[:, pick.ravel()].reshape(-1, 8, 3)
        return frame @ self.rotation().T

    def planes(self) -> np.ndarray:
        """(k, 6, 4) float64: each box's face planes ``(nx, ny, nz, d)`` in world
        coordinates, unit outward normals (inside is ``n . x <= d``, mm)."""
        normals = np.array(
            [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]], float
        )
        b = self.boxes
        d = np.stack([b[:, 3], -b[:, 0], b[:, 4], -b[:, 1], b[:, 5], -b[:, 2]], axis=1)
        nw = normals @ self.rotation().T  # n_w . (R p) = n . p: d is unchanged
        return np.concatenate([np.broadcast_to(nw, (len(b), 6, 3)), d[:, :, None]], axis=2)


def _yaw_deg(vertices: np.ndarray, faces: np.ndarray) -> float | None:
    """The yaw of the vertical faces' directions, in ``[0, 90)`` degrees, or None when a
    face is neither horizontal nor vertical or the vertical ones do not share a frame."""
    tri = vertices[faces]
    n = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    length = np.linalg.norm(n, axis=1)
    ok = length > 0.0
    if not ok.any():
        return None
    n = n[ok] / length[ok, None]
    sine = math.sin(math.radians(RECTILINEAR_ANGLE_DEG))
    flat = np.abs(n[:, 2]) >= 1.0 - sine
    upright = np.abs(n[:, 2]) <= sine
    if not (flat | upright).all():
        return None
    if not upright.any():
        return 0.0
    ang = np.degrees(np.arctan2(n[upright, 1], n[upright, 0])) % 90.0
    off = (ang - ang[0] + 45.0) % 90.0 - 45.0
    if np.abs(off).max() > RECTILINEAR_ANGLE_DEG:
        return None
    return float(ang[0]) % 90.0


def _planes_along(values: np.ndarray) -> np.ndarray | None:
    """The distinct grid coordinates of ``values`` (those within
    ``RECTILINEAR_MERGE_MM`` of the previous one join it), or None when two of them are
    closer than ten times that (see :data:`RECTILINEAR_MERGE_MM`)."""
    v = np.sort(values)
    cut = np.flatnonzero(np.diff(v) > RECTILINEAR_MERGE_MM) + 1
    groups = np.split(v, cut)
    out = np.array([g.mean() for g in groups])
    if len(out) > 1 and np.diff(out).min() < 10.0 * RECTILINEAR_MERGE_MM:
        return None
    return out


def _cell_windings(
    local: np.ndarray, faces: np.ndarray, axes: list[np.ndarray]
) -> np.ndarray | None:
    """(nx, ny, nz) float64: the winding number of each grid cell, counted up a vertical
    line through the cell's centre: +1 at each face facing down (into the solid from
    below), -1 at each facing up, below the cell. A line through a triangle's slanted
    edge (the diagonal a rectangle is split along; every slanted edge of a horizontal
    face is shared by two triangles of that face, as the face's own edges lie on grid
    lines) counts half for each of the two. None when a line passes that close to two
    edges of one triangle (a corner: the grid would be wrong)."""
    xs, ys, zs = axes
    mx, my = 0.5 * (xs[1:] + xs[:-1]), 0.5 * (ys[1:] + ys[:-1])
    tri = local[faces]
    flat = np.abs(tri[:, 0, 2] - tri[:, 1, 2]) + np.abs(tri[:, 0, 2] - tri[:, 2, 2]) == 0.0
    nz = (tri[:, 1, 0] - tri[:, 0, 0]) * (tri[:, 2, 1] - tri[:, 0, 1]) - (
        tri[:, 1, 1] - tri[:, 0, 1]
    ) * (tri[:, 2, 0] - tri[:, 0, 0])
    flat &= nz != 0.0
    t, up = tri[flat], nz[flat] > 0.0
    xy = np.where(up[:, None, None], t[:, :, :2], t[:, [0, 2, 1], :2])  # counter-clockwise
    i0, i1 = (
        np.searchsorted(mx, xy[:, :, 0].min(axis=1)),
        np.searchsorted(mx, xy[:, :, 0].max(axis=1)),
    )
    j0, j1 = (
        np.searchsorted(my, xy[:, :, 1].min(axis=1)),
        np.searchsorted(my, xy[:, :, 1].max(axis=1)),
    )
    nj = j1 - j0
    counts = (i1 - i0) * nj
    which = np.repeat(np.arange(len(t)), counts)  # (triangle, column) pairs to test
    r = np.arange(len(which)) - np.repeat(np.cumsum(counts) - counts, counts)
    ii, jj = i0[which] + r // nj[which], j0[which] + r % nj[which]
    px, py = mx[ii], my[jj]
    dist = []
    for k in range(3):
        a, b = xy[which, k], xy[which, (k + 1) % 3]
        ex, ey = b[:, 0] - a[:, 0], b[:, 1] - a[:, 1]
        dist.append((ex * (py - a[:, 1]) - ey * (px - a[:, 0])) / np.hypot(ex, ey))
    d = np.sort(np.stack(dist), axis=0)
    if ((np.abs(d[0]) <= _ON_EDGE_MM) & (np.abs(d[1]) <= _ON_EDGE_MM)).any():
        return None
    weight = np.where(d[0] > _ON_EDGE_MM, 1.0, np.where(d[0] >= -_ON_EDGE_MM, 0.5, 0.0))
    kk = np.searchsorted(zs, t[:, 0, 2] - RECTILINEAR_MERGE_MM)[which]
    step = np.zeros((len(mx), len(my), len(zs)))
    np.add.at(step, (ii, jj, kk), np.where(up[which], -weight, weight))
    return np.cumsum(step, axis=2)[:, :, :-1]


def _merge(inside: np.ndarray) -> list[tuple[int, int, int, int, int, int]]:
    """Inside cells as boxes of cells ``(i0, j0, k0, i1, j1, k1)`` (ends exclusive): from
    each first cell not yet taken, grown along z, then y, then x while every cell added is
    inside and free."""
    free = inside.copy()
    nx, ny, nz = inside.shape
    out = []
    for i, j, k in zip(*np.nonzero(inside), strict=True):
        if not free[i, j, k]:
            continue
        k1 = k + 1
        while k1 < nz and free[i, j, k1]:
            k1 += 1
        j1 = j + 1
        while j1 < ny and free[i, j1, k:k1].all():
            j1 += 1
        i1 = i + 1
        while i1 < nx and free[i1, j:j1, k:k1].all():
            i1 += 1
        free[i:i1, j:j1, k:k1] = False
        out.append((int(i), int(j), int(k), i1, j1, k1))
    return out


def _grown(
    inside: np.ndarray, cells: list[tuple[int, int, int, int, int, int]]
) -> list[tuple[int, int, int, int, int, int]]:
    """Each box of ``cells`` grown as far as inside cells allow, face by face (x, y, z,
    low side then high, over and over until none grows), over its neighbours; those that
    grow into one another are kept once, in order. The union is the same; a box that
    hides a target alone (a wall's whole length under its window) settles a whole eye."""
    nx, ny, nz = inside.shape
    out: list[tuple[int, int, int, int, int, int]] = []
    seen = set()
    for box in cells:
        lo, hi = list(box[:3]), list(box[3:])
        grew = True
        while grew:
            grew = False
            for ax, n in enumerate((nx, ny, nz)):
                for side in (0, 1):
                    at = lo[ax] - 1 if side == 0 else hi[ax]
                    if not 0 <= at < n:
                        continue
                    sl = [slice(lo[0], hi[0]), slice(lo[1], hi[1]), slice(lo[2], hi[2])]
                    sl[ax] = slice(at, at + 1)
                    if inside[tuple(sl)].all():
                        if side == 0:
                            lo[ax] -= 1
                        else:
                            hi[ax] += 1
                        grew = True
        key = (lo[0], lo[1], lo[2], hi[0], hi[1], hi[2])
        if key not in seen:
            seen.add(key)
            out.append(key)
    return out


def rectilinear_boxes(vertices: np.ndarray, faces: np.ndarray) -> RectilinearBoxes | None:
    """The boxes whose union is a closed rectilinear mesh (see the module docstring).

    Parameters
    ----------
    vertices : (n, 3) float64, mm
    faces : (m, 3) int64
        One piece's faces (indices into ``vertices``; other vertices are ignored).

    Returns
    -------
    RectilinearBoxes or None
        None when the faces are not a closed, consistently oriented surface whose faces
        are all horizontal or vertical in one frame, or its grid has more than
        ``RECTILINEAR_MAX_CELLS`` cells or planes too close to tell apart.
    """
    faces = np.asarray(faces, dtype=np.int64).reshape(-1, 3)
    if not len(faces):
        return None
    used, inv = np.unique(faces.ravel(), return_inverse=True)
    v = np.asarray(vertices, dtype=np.float64)[used]
    f = inv.reshape(-1, 3).astype(np.int64)
    yaw = _yaw_deg(v, f)
    if yaw is None or closed_surface(v, f) is None:
        return None
    a = math.radians(yaw)
    c, s = math.cos(a), math.sin(a)
    local = v @ np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])  # world -> frame
    axes: list[np.ndarray] = []
    for k in range(3):
        got = _planes_along(local[:, k])
        if got is None or len(got) < 2:
            return None
        axes.append(got)
    shape = tuple(len(x) - 1 for x in axes)
    if math.prod(shape) > RECTILINEAR_MAX_CELLS:
        return None
    w = _cell_windings(local, f, axes)
    if w is None or (np.abs(w - np.round(w)) > _INSIDE_WINDING / 2).any():
        return None  # not a proper solid (faces through one another, or open)
    inside = w > _INSIDE_WINDING
    if not inside.any():
        return None  # inside out, or no volume
    cells = _grown(inside, _merge(inside))
    x, y, z = axes
    boxes = np.array(
        [(x[i0], y[j0], z[k0], x[i1], y[j1], z[k1]) for i0, j0, k0, i1, j1, k1 in cells],
        dtype=np.float64,
    )
    return RectilinearBoxes(boxes, yaw)
