"""A small reference ray backend: numpy only, every segment against every triangle.

:class:`ReferenceEngine` answers the :class:`~geom3d.raycast.base.RayBackend` queries with
the Möller-Trumbore test of each segment against each triangle (after a bounding-box cut
per batch of segments), in float64. It needs no Embree wheel and no compiled code, so it
runs wherever numpy does, and it cross-checks the Embree backend
(``tests/raycast/test_reference.py``). It is slow: select it for checks and small
scenes (``geom3d --ray-backend reference ...`` or ``GEOM3D_RAY_BACKEND=reference``).

To answer as the Embree backend does, it sees what Embree sees: the vertices recentred
on the mesh's bounding-box centre and rounded to float32, and each segment trimmed by
``RAY_EPS_MM`` at both ends and rounded the same way
(:func:`geom3d.bodies.kernels.prepare_segments`). It lends no scene to compiled kernels
(:meth:`~geom3d.raycast.base.RayBackend.compiled_scene` is None), so the visibility
search takes its segments through :meth:`ReferenceEngine.occluded_segments`.
"""

from __future__ import annotations

import threading

import numpy as np
from numpy.typing import ArrayLike

from geom3d.bodies.kernel_constants import GEOM_EPS_MM
from geom3d.core.errors import InputError
from geom3d.core.tolerances import RAY_EPS_MM
from geom3d.core.validation import as_faces, as_points
from geom3d.raycast.base import RayBackend

__all__ = ["ReferenceEngine"]

#: Segments tested against the triangles at once (memory: this times the triangles
#: left after the batch's bounding-box cut, a few float64 arrays of that size).
BATCH_SEGMENTS = 256

#: Relative slack of the Möller-Trumbore barycentric bounds, so that a segment through
#: an edge or vertex shared by two triangles hits one of them (a watertight test, as
#: Embree's is; dimensionless).
EDGE_SLACK = 1e-9


class ReferenceEngine(RayBackend):
    """Segment queries by brute force over every triangle (numpy; slow, for checks).

    Parameters
    ----------
    vertices : (n, 3) float, mm
    faces : (m, 3) int
        ``m`` may be zero: every segment is then clear.
    """

    def __init__(self, vertices: ArrayLike, faces: ArrayLike) -> None:
        v = as_points(vertices, "vertices")
        f = as_faces(faces, "faces", len(v))
        self.n_triangles = len(f)
        self.rays_cast = 0
        self._lock = threading.Lock()
        if len(v):
            lo, hi = v.min(axis=0), v.max(axis=0)
            self._offset = 0.5 * (lo + hi)
            self._bounds = np.array([lo, hi])
        else:
            self._offset = np.zeros(3)
            self._bounds = np.zeros((2, 3))
        w = (v - self._offset).astype(np.float32).astype(np.float64)
        tri = w[f] if len(f) else np.zeros((0, 3, 3))
        self._p0 = tri[:, 0]
        self._e1 = tri[:, 1] - tri[:, 0]
        self._e2 = tri[:, 2] - tri[:, 0]
        self._lo = tri.min(axis=1) if len(f) else np.zeros((0, 3))
        self._hi = tri.max(axis=1) if len(f) else np.zeros((0, 3))

    @property
    def bounds(self) -> np.ndarray:
        """(2, 3) float, mm: bounding box of the mesh (zeros when empty)."""
        return self._bounds.copy()

    def add_cast(self, n: int) -> None:
        """Count ``n`` segments (thread-safe)."""
        with self._lock:
            self.rays_cast += int(n)

    def _validated(self, origins: ArrayLike, ends: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        o = as_points(origins, "origins")
        e = as_points(ends, "ends")
        if o.shape != e.shape:
            raise InputError(f"origins has {len(o)} points but ends has {len(e)}")
        return o, e

    def _rays(self, o: np.ndarray, e: np.ndarray) -> tuple[np.ndarray, ...]:
        """Embree's rays of the segments: kept indices, start, unit direction, length
        (float32 values as float64, recentred; as ``prepare_segments``)."""
        d = e - o
        length = np.sqrt(np.einsum("ij,ij->i", d, d))
        keep = np.flatnonzero(length > 2.0 * RAY_EPS_MM + GEOM_EPS_MM)
        unit = d[keep] / length[keep, None]
        start = o[keep] - self._offset + unit * RAY_EPS_MM
        f32 = np.float32
        return (
            keep,
            start.astype(f32).astype(np.float64),
            unit.astype(f32).astype(np.float64),
            (length[keep] - 2.0 * RAY_EPS_MM).astype(f32).astype(np.float64),
        )

    def _nearest(self, o: np.ndarray, e: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Ray parameter of the first hit ((k,) float, inf where clear) and its triangle
        ((k,) int64, -1 where clear)."""
        n = len(o)
        t_hit = np.full(n, np.inf)
        tri = np.full(n, -1, dtype=np.int64)
        if not self.n_triangles or not n:
            return t_hit, tri
        keep, start, unit, tfar = self._rays(o, e)
        self.add_cast(len(keep))
        for lo in range(0, len(keep), BATCH_SEGMENTS):
            sl = slice(lo, lo + BATCH_SEGMENTS)
            t, k = self._batch(start[sl], unit[sl], tfar[sl])
            t_hit[keep[sl]] = t
            tri[keep[sl]] = k
        return t_hit, tri

    def _batch(
        self, s: np.ndarray, u: np.ndarray, tfar: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Möller-Trumbore for one batch of rays against the triangles in its box."""
        end = s + u * tfar[:, None]
        blo = np.minimum(s, end).min(axis=0)
        bhi = np.maximum(s, end).max(axis=0)
        cand = np.flatnonzero(np.all((self._hi >= blo) & (self._lo <= bhi), axis=1))
        t_out = np.full(len(s), np.inf)
        k_out = np.full(len(s), -1, dtype=np.int64)
        if not len(cand):
            return t_out, k_out
        e1, e2, p0 = self._e1[cand], self._e2[cand], self._p0[cand]
        p = np.cross(u[:, None, :], e2[None, :, :])  # (b, c, 3)
        det = np.einsum("ck,bck->bc", e1, p)
        ok = np.abs(det) > 0.0
        inv = np.divide(1.0, det, out=np.zeros_like(det), where=ok)
        tv = s[:, None, :] - p0[None, :, :]
        bu = np.einsum("bck,bck->bc", tv, p) * inv
        q = np.cross(tv, e1[None, :, :])
        bv = np.einsum("bk,bck->bc", u, q) * inv
        t = np.einsum("ck,bck->bc", e2, q) * inv
        slack = EDGE_SLACK
        hit = ok & (bu >= -slack) & (bv >= -slack) & (bu + bv <= 1.0 + slack)
        hit &= (t >= 0.0) & (t <= tfar[:, None])
        t = np.where(hit, t, np.inf)
        j = np.argmin(t, axis=1)
        best = t[np.arange(len(s)), j]
        found = np.isfinite(best)
        t_out[found] = best[found]
        k_out[found] = cand[j[found]]
        return t_out, k_out

    def occluded(self, origins: ArrayLike, ends: ArrayLike) -> np.ndarray:
        """Which segments ``origins[i] -> ends[i]`` hit a triangle (see the base class)."""
        return self.occluded_segments(*self._validated(origins, ends))

    def occluded_segments(self, origins: np.ndarray, ends: np.ndarray) -> np.ndarray:
        """:meth:`occluded` for trusted float64 arrays (no validation)."""
        o = np.asarray(origins, dtype=np.float64).reshape(-1, 3)
        e = np.asarray(ends, dtype=np.float64).reshape(-1, 3)
        return np.isfinite(self._nearest(o, e)[0])

    def first_hit(self, origins: ArrayLike, ends: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        """First triangle hit along each segment (see the base class)."""
        o, e = self._validated(origins, ends)
        t, tri = self._nearest(o, e)
        return np.where(tri >= 0, t + RAY_EPS_MM, np.inf), tri
