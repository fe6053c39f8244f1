"""The ray-engine interface the rest of geom3d uses.

Every decision geom3d makes ends in segment queries against the blocking scenery. The
callers (scene, visibility core, Blast Focus, drop-to-surface) see only this interface:

* :meth:`RayBackend.occluded` - which segments hit a triangle (validated input);
* :meth:`RayBackend.occluded_segments` - the same for trusted ``(k, 3)`` float64 arrays
  built by geom3d itself (the visibility hot path: no validation, no copies);
* :meth:`RayBackend.first_hit` - distance to, and index of, the first triangle hit;
* :attr:`RayBackend.n_triangles`, :attr:`RayBackend.bounds`, :attr:`RayBackend.rays_cast`.

Queries are on *segments* in the scene's float64 millimetre frame: a hit beyond a
segment's end does not count, and the first and last ``RAY_EPS_MM`` of every segment are
ignored (a segment that starts or ends on a surface does not hit that surface; one
shorter than ``2 * RAY_EPS_MM`` is clear). Whatever frame or precision a backend works in
internally (Embree: float32, recentred) stays inside the backend.

A backend is a subclass constructed as ``Backend(vertices, faces)`` (``(n, 3)`` float mm,
``(m, 3)`` int, ``m`` may be zero: every segment is then clear) and registered with one
line in :data:`geom3d.raycast.BACKENDS`.

The compiled path. Line of Fire's search runs a whole direction of a pair in one compiled
call that casts its own rays (:mod:`geom3d.visibility._search_compiled`). A backend takes
part in it by supplying two things, by name:

* :meth:`RayBackend.compiled_scene`: a :class:`CompiledScene` record (its native scene
  handle, recentring offset, packet width, ray epsilon), one argument of the kernels;
* :attr:`RayBackend.kernel_casts`: the dotted name of a module of compiled (numba)
  functions named as :data:`KERNEL_CASTS` says, which cast into that scene.

The kernels are compiled against one such module,
:data:`geom3d.raycast.compiled.KERNEL_CASTS_MODULE` (today Embree's,
:mod:`geom3d.raycast._embree_kernels`); :func:`geom3d.raycast.compiled.lent_scene` hands
a backend's record to them only when its ``kernel_casts`` is that module. Every
other backend (``kernel_casts`` None, the default, or another module) is queried through
:meth:`RayBackend.occluded_segments` in numpy batches by the same search steps in Python
(:class:`geom3d.visibility.cast.ClearToTarget`), with the same answers.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["KERNEL_CASTS", "CompiledScene", "RayBackend"]

#: What a backend's :attr:`RayBackend.kernel_casts` module supplies to the compiled
#: search, by name (numba functions, inlined into the kernels; ``f`` a packet's float32
#: buffer, ``u`` its uint32 view):
#:
#: * ``packet_buffer() -> (f, u, valid, lane)``: the buffers of one packet of rays (and
#:   an int64 slot per lane for the caller);
#: * ``packet_ray(f, u, m, width, ox, oy, oz, ex, ey, ez, offset, ray_eps) -> bool``:
#:   write segment ``o -> e`` as ray ``m`` of the packet (trimmed by ``ray_eps`` at both
#:   ends, in the scene's frame: minus ``offset``); False when it is too short to cast;
#: * ``packet_cast(address, f, valid, m, width) -> None``: cast the packet's first ``m``
#:   rays into the scene at ``address``; ray ``j`` is then blocked when
#:   ``f[8 * width + j] < 0``.
KERNEL_CASTS = ("packet_buffer", "packet_ray", "packet_cast")


class CompiledScene(NamedTuple):
    """What a backend lends compiled kernels that cast by themselves
    (:meth:`RayBackend.compiled_scene`): one argument of those kernels (numba takes a
    named tuple as a record).

    Attributes
    ----------
    address : int
        The backend's native scene handle, read only by its own ``packet_cast`` (see
        :data:`KERNEL_CASTS`; Embree: the ``RTCScene`` address).
    offset : (3,) float64, mm
        The recentring offset: a point ``p`` is ``p - offset`` in the scene.
    width : int
        Rays per packet.
    ray_eps : float, mm
        Length ignored at both ends of a segment (as :meth:`RayBackend.occluded`).
    """

    address: int
    offset: np.ndarray
    width: int
    ray_eps: float


class RayBackend(ABC):
    """A BVH over one triangle mesh, answering batched segment queries.

    Attributes
    ----------
    n_triangles : int
        Triangles in the mesh.
    rays_cast : int
        Segments handed to the BVH so far (for benchmarks; thread-safe count).
    """

    n_triangles: int
    rays_cast: int

    #: Dotted name of the module of compiled casts (:data:`KERNEL_CASTS`) into the scene
    #: :meth:`compiled_scene` lends; None: the backend is queried through
    #: :meth:`occluded_segments` only.
    kernel_casts: ClassVar[str | None] = None

    @abstractmethod
    def __init__(self, vertices: ArrayLike, faces: ArrayLike) -> None:
        """Build the BVH over ``vertices`` ((n, 3) float, mm) and ``faces`` ((m, 3) int,
        ``m`` may be zero)."""

    @property
    @abstractmethod
    def bounds(self) -> np.ndarray:
        """(2, 3) float, mm: bounding box of the mesh (zeros when empty)."""

    @abstractmethod
    def occluded(self, origins, ends) -> np.ndarray:
        """Which segments ``origins[i] -> ends[i]`` hit a triangle.

        Parameters
        ----------
        origins, ends : (k, 3) float, mm
            Validated (finite, same shape); an :class:`geom3d.core.errors.InputError` otherwise.

        Returns
        -------
        (k,) bool
        """

    def occluded_segments(self, origins: np.ndarray, ends: np.ndarray) -> np.ndarray:
        """:meth:`occluded` for trusted arrays built by geom3d (the hot path).

        Parameters
        ----------
        origins, ends : (k, 3) float64, mm
            C-contiguous and finite; not validated.

        Returns
        -------
        (k,) bool
        """
        return self.occluded(origins, ends)

    def compiled_scene(self) -> CompiledScene | None:
        """A handle for compiled kernels that query the scene themselves, or None.

        Returns
        -------
        CompiledScene or None
            None (the default) when kernels must hand their segments to
            :meth:`occluded_segments`. A kernel that casts by itself reports how many
            through :meth:`add_cast`.
        """
        return None

    def add_cast(self, n: int) -> None:
        """Count ``n`` segments cast through :meth:`compiled_scene` in :attr:`rays_cast`."""
        self.rays_cast += int(n)

    @classmethod
    def warm(cls) -> None:
        """Load whatever compiled code :meth:`occluded_segments` runs (e.g. from numba's
        disk cache) now, before any scene exists, so that the first queries of a threaded
        matrix do not wait on it. Nothing to load by default."""
        return None

    @abstractmethod
    def first_hit(self, origins, ends):
        """First triangle hit along each segment.

        Parameters
        ----------
        origins, ends : (k, 3) float, mm

        Returns
        -------
        distance : (k,) float, mm
            Distance from the origin to the first hit; ``inf`` where the segment is clear.
        triangle : (k,) int64
            Index of the triangle hit; ``-1`` where clear.
        """
