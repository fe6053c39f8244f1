"""Closed convex blocking pieces: segments through them are blocked without a ray.

Modelled scenery is mostly boxes, prisms and other convex pieces, each its own closed
mesh. A piece qualifies (:meth:`ConvexSolids.from_mesh`) when its faces, on merged
positions, use every directed edge once and its reverse once (a closed, consistently
oriented surface) and every vertex lies inside every face's plane (within
``CONVEX_FLAT_MM``): the faces then all lie on the boundary of the vertices' convex hull
and, being closed, cover it, so the piece is that hull, the intersection of its face
planes, and a segment from outside into its inside crosses one of its triangles.

A segment that meets the piece shrunk by ``PROOF_CLEARANCE_MM``, from an eye at least as
far outside it, is blocked (:mod:`._convex_kernels`); so are all segments from one eye to
a target, or between two troopers, when those to the corners of a prism around them are.
Like the bundle proofs (:mod:`.proof`), the pieces change the cost of a search, never its
answer: they only settle as blocked what the ray engine finds blocked.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from geom3d.bodies.cylinder import Cylinder
from geom3d.bodies.kernel_constants import PROOF_CLEARANCE_MM, SURFACE_BOX_PAD_MM
from geom3d.core.tolerances import STAND_INSET_MM, SURFACE_INSET_MM
from geom3d.mesh.boxes import RectilinearBoxes, rectilinear_boxes
from geom3d.mesh.topology import closed_surface
from geom3d.visibility._convex_kernels import (
    bundle_meets,
    corners_hidden,
    near_pieces,
    segment_blocked,
)
from geom3d.visibility.tolerances import (
    CONVEX_FLAT_MM,
    CONVEX_MAX_FACES,
    CONVEX_MAX_PLANES,
    CONVEX_PRISM_SIDES,
    RECTILINEAR_MAX_FACES,
)

__all__ = [
    "NO_SOLIDS",
    "ConvexSolids",
    "cylinder_row",
    "eye_corners",
    "eye_row",
    "prism_corners",
]


@dataclass(frozen=True)
class ConvexSolids:
    """Closed convex blocking pieces (see the module docstring).

    Attributes
    ----------
    planes : (P, 4) float64
        ``(nx, ny, nz, d)`` rows, unit outward normals: inside is ``n . x <= d`` (mm).
    off : (S + 1,) int64
        Piece ``s`` is ``planes[off[s]:off[s + 1]]``.
    lo, hi : (S, 3) float64, mm
        Each piece's bounding box.
    inner : (V, 3) float64, mm
        Points inside each piece shrunk by twice ``PROOF_CLEARANCE_MM``, one near each of
        its vertices: their convex hull lies in the shrunk piece, so a ray through their
        outline meets it (:func:`._outline_kernels.silhouette`).
    inner_off : (S + 1,) int64
        Piece ``s``'s are ``inner[inner_off[s]:inner_off[s + 1]]``.
    parent : (S,) int64
        -1 for a piece that is a scenery piece whole; ``k >= 0`` for the boxes of the
        ``k``-th rectilinear solid (:meth:`from_scenery`). A box is part of its solid: a
        segment from an eye outside the solid into the box crosses the solid's surface
        on its way in, and the ray engine finds it blocked; from an eye inside the solid
        it may not. So :meth:`near` leaves out every box of a solid that the cylinder
        holding either trooper's eye points (:func:`eye_row`) meets or comes within
        ``PROOF_CLEARANCE_MM`` of (a trooper standing on a roof keeps the roof: its
        eyes are ``STAND_INSET_MM`` above it). Where the segment ends does not matter:
        it enters the solid at least ``PROOF_CLEARANCE_MM`` before it meets the box
        shrunk by that much.
    """

    planes: np.ndarray
    off: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    inner: np.ndarray
    inner_off: np.ndarray
    parent: np.ndarray

    def __len__(self) -> int:
        return len(self.off) - 1

    def joined(self, other: ConvexSolids) -> ConvexSolids:
        """These pieces, then ``other``'s, as one set to search with (each set's
        ``parent`` numbers are kept as they are: ask :meth:`near` of each set, not of
        this one)."""
        if not len(other):
            return self
        if not len(self):
            return other
        return ConvexSolids(
            np.concatenate([self.planes, other.planes]),
            np.concatenate([self.off, other.off[1:] + self.off[-1]]),
            np.concatenate([self.lo, other.lo]),
            np.concatenate([self.hi, other.hi]),
            np.concatenate([self.inner, other.inner]),
            np.concatenate([self.inner_off, other.inner_off[1:] + self.inner_off[-1]]),
            np.concatenate([self.parent, other.parent]),
        )

    @property
    def packed(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(planes, off, inner, inner_off)``: the compiled ray loop's argument."""
        return self.planes, self.off, self.inner, self.inner_off

    @classmethod
    def from_mesh(cls, vertices: np.ndarray, faces: np.ndarray, group: np.ndarray) -> ConvexSolids:
        """The groups of faces that are closed convex pieces.

        Parameters
        ----------
        vertices : (n, 3) float64, mm
        faces : (m, 3) int64
        group : (m,) int
            A label per face (a scenery element, a connected solid): each label with at
            most ``CONVEX_MAX_FACES`` faces is tested as one piece.

        Returns
        -------
        ConvexSolids
        """
        return cls.from_scenery(vertices, faces, group, boxes=False)

    @classmethod
    def from_scenery(
        cls, vertices: np.ndarray, faces: np.ndarray, group: np.ndarray, *, boxes: bool = True
    ) -> ConvexSolids:
        """The groups of faces that are closed convex pieces, and (with ``boxes``) the
        boxes of those that are closed rectilinear solids instead
        (:func:`geom3d.mesh.boxes.rectilinear_boxes`: a building with its doors and
        windows, a container, a wall), in label order.

        Parameters
        ----------
        vertices : (n, 3) float64, mm
        faces : (m, 3) int64
        group : (m,) int
            A label per face (a scenery element): each label with at most
            ``CONVEX_MAX_FACES`` faces is tested as one convex piece, and one with at
            most ``RECTILINEAR_MAX_FACES`` as a rectilinear solid.

        Returns
        -------
        ConvexSolids
        """
        group = np.asarray(group)
        if not len(faces):
            return NO_SOLIDS
        most = RECTILINEAR_MAX_FACES if boxes else CONVEX_MAX_FACES
        labels, counts = np.unique(group, return_counts=True)
        small = labels[counts <= most]
        pick = np.flatnonzero(np.isin(group, small))
        pick = pick[np.argsort(group[pick], kind="stable")]
        cuts = np.flatnonzero(np.diff(group[pick])) + 1
        parts: list[tuple[np.ndarray, np.ndarray, int]] = []  # (planes, points, parent)
        n_solids = 0
        for idx in np.split(pick, cuts) if len(pick) else []:
            got = _piece_planes(vertices, faces[idx]) if len(idx) <= CONVEX_MAX_FACES else None
            if got is not None:
                parts.append((got, vertices[np.unique(faces[idx])], -1))
                continue
            split = rectilinear_boxes(vertices, faces[idx]) if boxes else None
            if split is None:
                continue
            for pl, pts in zip(split.planes(), split.corners(), strict=True):
                parts.append((np.ascontiguousarray(pl), pts, n_solids))
            n_solids += 1
        return _packed(parts)

    @classmethod
    def from_boxes(cls, boxes: np.ndarray) -> ConvexSolids:
        """Boxes along the world axes as convex pieces, in order (``parent`` -1).

        Parameters
        ----------
        boxes : (k, 6) float64, mm
            ``(x0, y0, z0, x1, y1, z1)`` rows.

        Returns
        -------
        ConvexSolids
        """
        split = RectilinearBoxes(np.asarray(boxes, dtype=np.float64).reshape(-1, 6), 0.0)
        planes, corners = split.planes(), split.corners()
        parts = [(np.ascontiguousarray(p), c, -1) for p, c in zip(planes, corners, strict=True)]
        return _packed(parts)

    def near(self, a: Cylinder, b: Cylinder) -> ConvexSolids:
        """The pieces whose box meets the joint box of ``a`` and ``b`` (only they can
        meet a segment between the two)."""
        if not len(self):
            return self
        got = near_pieces(
            self.planes, self.off, self.lo, self.hi, self.inner, self.inner_off, self.parent,
            cylinder_row(a), cylinder_row(b), eye_row(a), eye_row(b), PROOF_CLEARANCE_MM,
        )  # fmt: skip
        return ConvexSolids(*got) if len(got[1]) > 1 else NO_SOLIDS

    def blocks_pair(self, a: Cylinder, b: Cylinder) -> bool:
        """Does one piece block every segment the pair's search casts: from each
        trooper's eye region (:func:`eye_corners`) to the whole other trooper
        (:func:`prism_corners`)?"""
        if not len(self):
            return False
        eps = PROOF_CLEARANCE_MM
        p, o = self.planes, self.off
        return bool(
            bundle_meets(eye_corners(a), prism_corners(b), p, o, eps, eps)
            and bundle_meets(eye_corners(b), prism_corners(a), p, o, eps, eps)
        )

    def blocks_axis(self, a: Cylinder, b: Cylinder) -> bool:
        """Does one piece block the segment between the middles of ``a``'s and ``b``'s
        axes? (Then it hides most of each from the other, and what it leaves is seldom
        worth a bundle proof.)"""
        if not len(self):
            return False
        pa = a.base_array + (0.0, 0.0, 0.5 * a.height)
        pb = b.base_array + (0.0, 0.0, 0.5 * b.height)
        return bool(
            segment_blocked(self.planes, self.off, pa, pb, PROOF_CLEARANCE_MM, PROOF_CLEARANCE_MM)
        )

    def hidden(self, eyes: np.ndarray, target: Cylinder) -> np.ndarray:
        """(n,) bool: eyes that see nothing of ``target`` past one piece."""
        if not len(self) or not len(eyes):
            return np.zeros(len(eyes), dtype=bool)
        return corners_hidden(
            np.ascontiguousarray(eyes, dtype=np.float64), prism_corners(target), self.planes,
            self.off, PROOF_CLEARANCE_MM, PROOF_CLEARANCE_MM,
        )  # fmt: skip


NO_SOLIDS = ConvexSolids(
    np.zeros((0, 4)),
    np.zeros(1, np.int64),
    np.zeros((0, 3)),
    np.zeros((0, 3)),
    np.zeros((0, 3)),
    np.zeros(1, np.int64),
    np.zeros(0, np.int64),
)


def _packed(parts: list[tuple[np.ndarray, np.ndarray, int]]) -> ConvexSolids:
    """The pieces ``(planes, points, parent)`` (each a convex piece's distinct face
    planes and the points it is the hull of) packed end to end, with each piece's box
    and inner points (:func:`_inner_points`)."""
    if not parts:
        return NO_SOLIDS
    inner = [_inner_points(pts, pl) for pl, pts, _ in parts]
    return ConvexSolids(
        np.ascontiguousarray(np.concatenate([pl for pl, _, _ in parts])),
        np.cumsum([0] + [len(pl) for pl, _, _ in parts]).astype(np.int64),
        np.array([pts.min(axis=0) for _, pts, _ in parts]),
        np.array([pts.max(axis=0) for _, pts, _ in parts]),
        np.ascontiguousarray(np.concatenate(inner)),
        np.cumsum([0] + [len(x) for x in inner]).astype(np.int64),
        np.array([k for _, _, k in parts], dtype=np.int64),
    )


@functools.lru_cache(maxsize=1024)
def cylinder_row(cyl: Cylinder) -> np.ndarray:
    """(5,) float64: ``(bx, by, bz, r, h)`` of a cylinder (not to be modified)."""
    out = np.array([*cyl.base, cyl.radius, cyl.height], dtype=np.float64)
    out.setflags(write=False)
    return out


def _inner_points(pts: np.ndarray, planes: np.ndarray) -> np.ndarray:
    """(k, 3) float64: each vertex moved towards the piece's centroid just far enough to
    lie inside every plane by twice ``PROOF_CLEARANCE_MM`` (vertices for which even the
    centroid is not that deep are left out: the piece is thinner than that there)."""
    mid = pts.mean(axis=0)
    n, d = planes[:, :3], planes[:, 3] - 2.0 * PROOF_CLEARANCE_MM
    excess = pts @ n.T - d  # (k, p): > 0 where a vertex is not deep enough
    gain = (pts - mid) @ n.T  # moving a fraction f to mid lowers n . x by f * gain
    safe = np.where(gain > 0.0, gain, 1.0)
    need = np.where(excess > 0.0, np.where(gain > 0.0, excess / safe, np.inf), 0.0)
    f = need.max(axis=1) * (1.0 + 1e-9) + 1e-12
    keep = f <= 1.0
    out = pts[keep] + f[keep, None] * (mid - pts[keep])
    ok = (out @ n.T - d <= 0.0).all(axis=1)
    return np.ascontiguousarray(out[ok])


@functools.lru_cache(maxsize=1024)
def eye_row(cyl: Cylinder) -> np.ndarray:
    """(5,) float64: the ``(bx, by, bz, r, h)`` row of the cylinder holding ``cyl``'s eye
    points (:func:`.eyes.eye_points`: ``SURFACE_INSET_MM`` inside its mantle and top,
    ``STAND_INSET_MM`` above its base; not to be modified)."""
    b = cyl.base_array
    r = max(cyl.radius - SURFACE_INSET_MM, 0.0)
    h = max(cyl.height - STAND_INSET_MM - SURFACE_INSET_MM, 0.0)
    out = np.array([b[0], b[1], b[2] + STAND_INSET_MM, r, h], dtype=np.float64)
    out.setflags(write=False)
    return out


@functools.lru_cache(maxsize=1024)
def prism_corners(cyl: Cylinder) -> np.ndarray:
    """(2 k, 3) float64, mm: the corners of the ``k``-sided prism (``CONVEX_PRISM_SIDES``)
    around ``cyl`` grown by ``SURFACE_BOX_PAD_MM`` (points computed on its surface, with
    rounding, lie inside), far-apart corners first (a test that fails does so after few
    of them). Not to be modified."""
    b = cyl.base_array
    r = (cyl.radius + SURFACE_BOX_PAD_MM) / math.cos(math.pi / CONVEX_PRISM_SIDES)
    return _prism(b[0], b[1], r, b[2] - SURFACE_BOX_PAD_MM, cyl.top_z + SURFACE_BOX_PAD_MM)


def _prism(x: float, y: float, r: float, z0: float, z1: float) -> np.ndarray:
    """The corners of the ``CONVEX_PRISM_SIDES``-sided prism of circumradius ``r`` about
    the vertical line through ``(x, y)`` from ``z0`` to ``z1``, in :func:`_spread` order."""
    cos, sin, top = _ring(CONVEX_PRISM_SIDES)
    out = np.empty((len(top), 3))
    np.multiply(cos, r, out=out[:, 0])
    out[:, 0] += x
    np.multiply(sin, r, out=out[:, 1])
    out[:, 1] += y
    out[:, 2] = z0
    out[top, 2] = z1
    out.setflags(write=False)
    return out


@functools.lru_cache(maxsize=8)
def _ring(k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The unit ring of a ``k``-sided prism's ``2 k`` corners in :func:`_spread` order:
    cosines, sines and which corners are on the top (computed once)."""
    ang = np.arange(k) * (2.0 * math.pi / k)
    order = _spread(k)
    return np.tile(np.cos(ang), 2)[order], np.tile(np.sin(ang), 2)[order], order >= k


@functools.lru_cache(maxsize=1024)
def eye_corners(cyl: Cylinder) -> np.ndarray:
    """(2 k, 3) float64, mm: the corners of the ``k``-sided prism round ``cyl``'s eye
    points (:func:`.eyes.eye_points`: ``SURFACE_INSET_MM`` inside its mantle and top,
    ``STAND_INSET_MM`` above its base), grown by ``SURFACE_BOX_PAD_MM``. Not to be
    modified."""
    k = CONVEX_PRISM_SIDES
    b = cyl.base_array
    r = (cyl.radius - SURFACE_INSET_MM + SURFACE_BOX_PAD_MM) / math.cos(math.pi / k)
    z0 = b[2] + STAND_INSET_MM - SURFACE_BOX_PAD_MM
    z1 = cyl.top_z - SURFACE_INSET_MM + SURFACE_BOX_PAD_MM
    return _prism(b[0], b[1], r, z0, max(z0, z1))


@functools.lru_cache(maxsize=8)
def _spread(k: int) -> np.ndarray:
    """An order of the ``2 k`` prism corners (bottom ring, then top) in which each next
    corner is far from those before: top and bottom alternate, opposite sides first."""
    ring = [0]
    step = k // 2
    while step:
        ring += [i for i in range(0, k, step) if i not in ring]
        step //= 2
    ring += [i for i in range(k) if i not in ring]
    return np.array([c for i in ring for c in (k + i, (i + k // 2) % k)], dtype=np.int64)


def _piece_planes(vertices: np.ndarray, faces: np.ndarray) -> np.ndarray | None:
    """(p, 4) float64: the distinct face planes of a closed convex piece, or None when
    the faces are not one (see the module docstring)."""
    closed = closed_surface(vertices, faces)
    if closed is None:
        return None  # not closed, or not consistently oriented
    pos, f = closed
    tri = pos[f]
    nrm = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    length = np.linalg.norm(nrm, axis=1)
    ok = length > 0.0
    if not ok.any():
        return None
    nrm = nrm[ok] / length[ok, None]
    d = np.einsum("ij,ij->i", nrm, tri[ok, 0])
    if (pos @ nrm.T - d > CONVEX_FLAT_MM).any():
        return None  # a vertex outside a face's plane: not convex (or inside out)
    _, first = np.unique(np.round(np.column_stack([nrm, d]), 9), axis=0, return_index=True)
    rows = np.column_stack([nrm, d])[np.sort(first)]
    if len(rows) > CONVEX_MAX_PLANES or len(rows) < 4:
        return None
    return np.ascontiguousarray(rows)
