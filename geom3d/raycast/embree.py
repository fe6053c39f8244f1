"""Embree backend of the ray engine.

The scene is built through Embree's C API (:mod:`._embree_capi`, the library the embreex
wheel ships) and queried from compiled kernels that release the GIL
(:mod:`._embree_kernels`), in ray packets as wide as the CPU runs natively; where that
library cannot be loaded, through embreex itself, with the same answers. The engine takes
and returns whole numpy batches and never loops in Python per ray. Embree works in
float32: coordinates are recentred on the mesh's bounding-box centre before they are
handed over, so a 1.2 m table keeps about 1e-4 mm resolution. That frame never leaves the
backend (see :mod:`geom3d.raycast.base` for the contract;
:meth:`EmbreeEngine.compiled_scene` hands it, with the scene, to kernels that cast by
themselves).
"""

from __future__ import annotations

import threading

import numpy as np
from embreex import rtcore_scene
from embreex.mesh_construction import TriangleMesh

from geom3d.bodies.kernels import point_bounds, prepare_segments
from geom3d.core.errors import InputError
from geom3d.core.runtime import note_native_threads
from geom3d.core.tolerances import RAY_EPS_MM
from geom3d.core.validation import as_faces, as_points
from geom3d.execution.child import in_child
from geom3d.raycast import _embree_capi
from geom3d.raycast.base import CompiledScene, RayBackend

if _embree_capi.load() is not None:
    from geom3d.raycast._embree_kernels import first_hit_kernel, occluded_kernel

__all__ = ["EmbreeEngine"]


class EmbreeEngine(RayBackend):
    """A BVH over one triangle mesh, answering batched segment queries.

    Parameters
    ----------
    vertices : (n, 3) float, mm
    faces : (m, 3) int
        Triangles as vertex indices. ``m`` may be zero: every segment is then clear.

    Notes
    -----
    The BVH is built once, in the constructor. ``rays_cast`` counts every segment
    handed to Embree, for benchmarks.
    """

    #: The compiled search casts into :meth:`compiled_scene` with these (see
    #: :data:`geom3d.raycast.base.KERNEL_CASTS`).
    kernel_casts = "geom3d.raycast._embree_kernels"

    def __init__(self, vertices, faces) -> None:
        v = as_points(vertices, "vertices")
        f = as_faces(faces, "faces", len(v))
        self.n_triangles = len(f)
        self.rays_cast = 0
        self._count_lock = threading.Lock()  # queries may come from several threads
        if len(v):
            lo, hi = point_bounds(np.ascontiguousarray(v, dtype=np.float64))
            self._offset = 0.5 * (lo + hi)
            self._bounds = np.array([lo, hi])
        else:
            self._offset = np.zeros(3)
            self._bounds = np.zeros((2, 3))
        self._scene = None  # the embreex scene, where the C API is not available
        self._cscene = None
        if len(f) and in_child():  # its task scheduler's worker threads were not forked
            raise RuntimeError("no BVH is built in a forked worker (its parent builds it)")
        if len(f):
            note_native_threads()
            lib = _embree_capi.load()
            if lib is not None:  # recentred straight into Embree's own buffer
                self._cscene = _embree_capi.CScene(lib, v, f, self._offset)
            else:
                self._scene = rtcore_scene.EmbreeScene()
                vv = (v - self._offset).astype(np.float32)
                TriangleMesh(self._scene, vv, f.astype(np.int32))

    @property
    def bounds(self) -> np.ndarray:
        """(2, 3) float, mm: bounding box of the mesh (zeros when empty)."""
        return self._bounds.copy()

    def _count(self, n: int) -> None:
        with self._count_lock:
            self.rays_cast += n

    def compiled_scene(self) -> CompiledScene | None:
        """The C-API scene (see the base class); None on the embreex fallback or for an
        empty mesh."""
        if self._cscene is None:
            return None
        width = _embree_capi.packet_width()
        return CompiledScene(self._cscene.address, self._offset, width, RAY_EPS_MM)

    @classmethod
    def warm(cls) -> None:
        """Load the compiled kernel of :meth:`occluded_segments` (numba's disk cache) with
        the argument types of its calls: no segment, so no scene is read. A threaded
        matrix's blocking proofs would otherwise load it in their first pairs, both
        threads waiting (about 10 ms). Nothing to load on the embreex fallback."""
        if _embree_capi.load() is None:
            return
        none = np.zeros((0, 3))
        occluded_kernel(0, none, none, np.zeros(3), RAY_EPS_MM, _embree_capi.packet_width())

    def add_cast(self, n: int) -> None:
        """Count segments cast through :meth:`compiled_scene` (thread-safe)."""
        self._count(int(n))

    def _occluded_prepared(self, start, unit, dist) -> np.ndarray:
        """Occlusion of segments already in Embree's frame (see :func:`prepare_segments`),
        through embreex."""
        if self._scene is None or len(start) == 0:
            return np.zeros(len(start), dtype=bool)
        self._count(len(start))
        res = self._scene.run(start, unit, dists=dist, query="OCCLUDED")
        return np.asarray(res) >= 0

    def _validated(self, origins, ends):
        o = as_points(origins, "origins")
        e = as_points(ends, "ends")
        if o.shape != e.shape:
            raise InputError(f"origins has {len(o)} points but ends has {len(e)}")
        return np.ascontiguousarray(o), np.ascontiguousarray(e)

    def occluded(self, origins, ends) -> np.ndarray:
        """Which segments ``origins[i] -> ends[i]`` hit a triangle (see the base class)."""
        return self.occluded_segments(*self._validated(origins, ends))

    def occluded_segments(self, origins: np.ndarray, ends: np.ndarray) -> np.ndarray:
        """:meth:`occluded` for trusted float64 arrays (no validation)."""
        o = np.ascontiguousarray(origins, dtype=np.float64)
        e = np.ascontiguousarray(ends, dtype=np.float64)
        if self._cscene is not None:
            self._count(len(o))
            return occluded_kernel(
                self._cscene.address, o, e, self._offset, RAY_EPS_MM, _embree_capi.packet_width()
            )
        out = np.zeros(len(o), dtype=bool)
        if self._scene is None or not len(o):
            return out
        idx, start, unit, dist = prepare_segments(o, e, self._offset, RAY_EPS_MM)
        if len(idx):
            out[idx] = self._occluded_prepared(start, unit, dist)
        return out

    def first_hit(self, origins, ends):
        """First triangle hit along each segment (see the base class)."""
        o, e = self._validated(origins, ends)
        if self._cscene is not None:
            self._count(len(o))
            return first_hit_kernel(self._cscene.address, o, e, self._offset, RAY_EPS_MM)
        idx, start, unit, dist_in = prepare_segments(o, e, self._offset, RAY_EPS_MM)
        n = len(o)
        dist = np.full(n, np.inf)
        tri = np.full(n, -1, dtype=np.int64)
        if self._scene is None or not len(idx):
            return dist, tri
        self._count(len(idx))
        res = self._scene.run(start, unit, dists=dist_in, output=True)
        prim = np.asarray(res["primID"], dtype=np.int64)
        t = np.asarray(res["tfar"], dtype=np.float64)
        hit = prim >= 0
        dist[idx[hit]] = t[hit] + RAY_EPS_MM
        tri[idx[hit]] = prim[hit]
        return dist, tri
