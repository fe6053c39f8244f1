"""Topology statistics of triangle meshes: degenerate triangles, bodies, open edges.

Vertices at the same position are identified first (STL and most scanner output share
no indices), on a private copy: the mesh itself is never changed.
"""

from __future__ import annotations

import logging
from typing import NamedTuple

import numpy as np

from geom3d.bodies.kernel_constants import GEOM_EPS_MM

__all__ = [
    "MeshTopology",
    "closed_surface",
    "degenerate_faces",
    "mesh_topology",
    "used_vertices",
]

log = logging.getLogger(__name__)


class MeshTopology(NamedTuple):
    """Topology statistics of a triangle mesh, on merged vertex positions."""

    n_bodies: int
    n_open_edges: int
    n_nonmanifold_edges: int

    @property
    def watertight(self) -> bool:
        """Every edge is shared by exactly two triangles."""
        return self.n_open_edges == 0 and self.n_nonmanifold_edges == 0


def used_vertices(n_vertices: int, faces: np.ndarray, keep: np.ndarray | None = None) -> np.ndarray:
    """Which vertices the faces (those where ``keep``) use.

    Parameters
    ----------
    n_vertices : int
    faces : (m, 3) int
    keep : (m,) bool, optional
        Only these faces count (default: all); taken a column at a time, so a million
        faces are not copied whole.

    Returns
    -------
    (n_vertices,) bool
        ``vertices[mask]`` is ``vertices[np.unique(faces[keep])]``, in the same order,
        without sorting (``np.unique`` over 3 M indices takes seconds).
    """
    mask = np.zeros(int(n_vertices), dtype=bool)
    faces = np.asarray(faces)
    if keep is None:
        mask[faces.ravel()] = True
    else:
        for k in range(faces.shape[1]):
            mask[faces[:, k][keep]] = True
    return mask


def degenerate_faces(vertices: np.ndarray, faces: np.ndarray) -> np.ndarray:
    """Flag triangles that have a repeated index or zero area.

    A triangle counts as zero-area when its height over its longest side is at most
    ``GEOM_EPS_MM`` (so it does not depend on the triangle's size), or when all three
    corners coincide.

    Parameters
    ----------
    vertices : numpy.ndarray, (n, 3) float64
        Vertex positions, mm.
    faces : numpy.ndarray, (m, 3) int
        Triangles as vertex indices.

    Returns
    -------
    numpy.ndarray, (m,) bool
        True for degenerate triangles.
    """
    faces = np.asarray(faces)
    if len(faces) == 0:
        return np.zeros(0, dtype=bool)
    repeated = (faces[:, 0] == faces[:, 1]) | (faces[:, 1] == faces[:, 2])
    repeated |= faces[:, 0] == faces[:, 2]
    v = np.asarray(vertices, dtype=np.float64)
    p0, p1, p2 = v[faces[:, 0]], v[faces[:, 1]], v[faces[:, 2]]
    e0 = p1 - p0
    e1 = p2 - p1
    e2 = p0 - p2
    cross = np.cross(e0, e2)
    twice_area_sq = np.einsum("ij,ij->i", cross, cross)
    longest_sq = np.maximum(np.einsum("ij,ij->i", e0, e0), np.einsum("ij,ij->i", e1, e1))
    np.maximum(longest_sq, np.einsum("ij,ij->i", e2, e2), out=longest_sq)
    # height over the longest side = |cross| / longest <= eps, squared to skip two sqrts
    return repeated | (twice_area_sq <= GEOM_EPS_MM**2 * longest_sq)


_SPLITMIX = (np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB))
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_SHIFTS = (np.uint64(30), np.uint64(27), np.uint64(31))


def _mix(z: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser, in place on a uint64 array."""
    z ^= z >> _SHIFTS[0]
    z *= _SPLITMIX[0]
    z ^= z >> _SHIFTS[1]
    z *= _SPLITMIX[1]
    z ^= z >> _SHIFTS[2]
    return z


def _runs(sorted_keys: np.ndarray) -> np.ndarray:
    """Boolean mask marking the first element of each run of equal values."""
    start = np.empty(len(sorted_keys), dtype=bool)
    start[:1] = True
    np.not_equal(sorted_keys[1:], sorted_keys[:-1], out=start[1:])
    return start


def _merge_positions(vertices: np.ndarray) -> tuple[np.ndarray, int]:
    """Label vertices by position, rounded to a grid of ``GEOM_EPS_MM``.

    Parameters
    ----------
    vertices : numpy.ndarray, (n, 3) float64
        Finite positions, mm.

    Returns
    -------
    labels : numpy.ndarray, (n,) int64
        Equal labels for equal rounded positions, numbered ``0 .. n_unique - 1``.
    n_unique : int

    Notes
    -----
    Sorts a 64-bit hash of the rounded integer coordinates (one argsort instead of a
    three-key lexsort: about 0.5 s instead of 1.3 s for 4 million vertices), then checks
    every vertex against its group's first member; on a hash collision (or coordinates
    too large for int64) it falls back to the exact lexsort.
    """
    n = len(vertices)
    if n == 0:
        return np.zeros(0, dtype=np.int64), 0
    grid = np.round(vertices / GEOM_EPS_MM)
    if np.abs(grid).max() < 2.0**62:
        ints = grid.astype(np.int64)  # -0.0 and 0.0 both become 0
        words = ints.view(np.uint64)
        h = _mix(words[:, 0] + _GOLDEN)
        h += words[:, 1]
        h = _mix(h)
        h += words[:, 2]
        h = _mix(h)
        order = np.argsort(h)
        start = _runs(h[order])
        ids = np.cumsum(start, dtype=np.int64) - 1
        labels = np.empty(n, dtype=np.int64)
        labels[order] = ids
        first = order[start]
        if np.array_equal(ints, ints[first[labels]]):
            return labels, int(ids[-1]) + 1
        log.debug("position hash collision; falling back to lexsort")
    grid += 0.0  # -0.0 -> 0.0
    order = np.lexsort((grid[:, 2], grid[:, 1], grid[:, 0]))
    srt = grid[order]
    start = np.empty(n, dtype=bool)
    start[0] = True
    np.any(srt[1:] != srt[:-1], axis=1, out=start[1:])
    ids = np.cumsum(start, dtype=np.int64) - 1
    labels = np.empty(n, dtype=np.int64)
    labels[order] = ids
    return labels, int(ids[-1]) + 1


def mesh_topology(vertices: np.ndarray, faces: np.ndarray) -> MeshTopology:
    """Count bodies, boundary edges and non-manifold edges of a triangle mesh.

    Vertices at the same position (rounded to a ``GEOM_EPS_MM`` grid) count as one, so
    an STL (three private vertices per triangle) gets the same answer as an indexed mesh.
    The inputs are not modified. Vectorised: about 1 s for a 1.3M-triangle STL.

    Parameters
    ----------
    vertices : numpy.ndarray, (n, 3) float64
        Finite vertex positions, mm. Unreferenced vertices are ignored.
    faces : numpy.ndarray, (m, 3) int
        Triangles (degenerate ones should already be removed: a triangle with two
        corners at one position would count a spurious edge).

    Returns
    -------
    MeshTopology
        ``n_bodies`` (connected components of triangles sharing a vertex position),
        ``n_open_edges`` (edges used once), ``n_nonmanifold_edges`` (edges used more than
        twice).
    """
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    faces = np.asarray(faces, dtype=np.int64)
    if len(faces) == 0:
        return MeshTopology(0, 0, 0)
    vertices = np.asarray(vertices, dtype=np.float64)
    referenced = np.zeros(len(vertices), dtype=bool)
    referenced[faces.ravel()] = True
    used = np.flatnonzero(referenced)
    labels, n = _merge_positions(vertices[used])
    remap = np.zeros(len(vertices), dtype=np.int64)
    remap[used] = labels
    merged = remap[faces]

    a = merged.ravel()
    b = merged[:, [1, 2, 0]].ravel()
    keys = np.minimum(a, b) * n + np.maximum(a, b)
    keys.sort()
    starts = np.flatnonzero(_runs(keys))
    counts = np.diff(starts, append=len(keys))

    # two edges per triangle are enough to connect its corners
    graph = csr_matrix(
        (np.ones(2 * len(merged), dtype=np.int8), (merged[:, :2].ravel(), merged[:, 1:].ravel())),
        shape=(n, n),
    )
    n_bodies, _ = connected_components(graph, directed=False)
    return MeshTopology(
        n_bodies=int(n_bodies),
        n_open_edges=int(np.count_nonzero(counts == 1)),
        n_nonmanifold_edges=int(np.count_nonzero(counts > 2)),
    )


def closed_surface(vertices: np.ndarray, faces: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The faces on exactly merged positions when they are a closed, consistently oriented
    surface (every directed edge used once and its reverse once, no collapsed edge).

    Parameters
    ----------
    vertices : (n, 3) float64, mm
    faces : (m, 3) int
        Indices into ``vertices`` (other vertices are ignored).

    Returns
    -------
    (positions (p, 3) float64, faces (m, 3) int64) or None
    """
    pos, inv = np.unique(vertices[np.asarray(faces).ravel()], axis=0, return_inverse=True)
    f = inv.reshape(-1, 3).astype(np.int64)
    n = np.int64(len(pos))
    edges = np.concatenate([f[:, [0, 1]], f[:, [1, 2]], f[:, [2, 0]]])
    if (edges[:, 0] == edges[:, 1]).any():
        return None
    key = edges[:, 0] * n + edges[:, 1]
    back = edges[:, 1] * n + edges[:, 0]
    if len(np.unique(key)) != len(key) or not np.isin(back, key).all():
        return None
    return pos, f
