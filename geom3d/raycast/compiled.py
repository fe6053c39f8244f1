"""The casts the compiled search is built with, and which backends may lend it a scene.

Line of Fire's compiled search (:mod:`geom3d.visibility._cast_kernels`,
:mod:`geom3d.visibility._search_compiled`) calls the functions named in
:data:`geom3d.raycast.base.KERNEL_CASTS` from inside its njit kernels, so numba compiles
them into the search: the search imports them from here, never from a backend. They are
:data:`KERNEL_CASTS_MODULE`'s. A backend whose
:attr:`~geom3d.raycast.base.RayBackend.kernel_casts` names that module lends its
:class:`~geom3d.raycast.base.CompiledScene` to the search (:func:`lent_scene`); any other
is queried through :meth:`~geom3d.raycast.base.RayBackend.occluded_segments`, with the
same answers.
"""

from __future__ import annotations

from geom3d.raycast import _embree_capi
from geom3d.raycast._embree_kernels import packet_buffer, packet_cast, packet_ray
from geom3d.raycast.base import CompiledScene, RayBackend

__all__ = [
    "KERNEL_CASTS_MODULE",
    "casts_available",
    "lent_scene",
    "packet_buffer",
    "packet_cast",
    "packet_ray",
]

#: The module whose casts (:data:`~geom3d.raycast.base.KERNEL_CASTS`) the compiled search
#: is built with: the Embree backend's.
KERNEL_CASTS_MODULE = "geom3d.raycast._embree_kernels"


def lent_scene(engine: RayBackend) -> CompiledScene | None:
    """The record the compiled search casts into ``engine``'s scene with, or None (the
    search then takes its segments through ``engine.occluded_segments``).

    Parameters
    ----------
    engine : RayBackend

    Returns
    -------
    CompiledScene or None
        ``engine.compiled_scene()`` when the engine's ``kernel_casts`` is
        :data:`KERNEL_CASTS_MODULE`; None otherwise.
    """
    if type(engine).kernel_casts != KERNEL_CASTS_MODULE:
        return None
    return engine.compiled_scene()


def casts_available() -> bool:
    """Whether the kernel casts can run in this process: Embree's library loaded and its
    functions bound for them (a kernel that calls them must not be compiled or loaded
    otherwise: LLVM aborts the process on the unbound symbol)."""
    return _embree_capi.load() is not None
