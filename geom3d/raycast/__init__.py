"""Segment queries against the blocking scenery, behind one small interface.

:class:`RayBackend` (:mod:`.base`) is the interface the rest of geom3d uses;
:class:`EmbreeEngine` (:mod:`.embree`) implements it. ``RayEngine`` is the default
backend's class, so ``RayEngine(vertices, faces)`` builds the engine a scene uses.

Adding a backend: write ``geom3d/raycast/<name>.py`` with a :class:`RayBackend` subclass
constructed as ``Cls(vertices, faces)``, and add one line to :data:`BACKENDS`.
"""

from __future__ import annotations

from geom3d.core.errors import InputError
from geom3d.raycast.base import CompiledScene, RayBackend
from geom3d.raycast.embree import EmbreeEngine

__all__ = [
    "BACKENDS",
    "DEFAULT_BACKEND",
    "CompiledScene",
    "EmbreeEngine",
    "RayBackend",
    "RayEngine",
    "make_engine",
]

#: Registered backends, by name: one line per backend.
BACKENDS: dict[str, type[RayBackend]] = {
    "embree": EmbreeEngine,
}

#: The backend ``RayEngine`` and :func:`make_engine` use unless told otherwise.
DEFAULT_BACKEND = "embree"

#: The default backend's class: ``RayEngine(vertices, faces)``.
RayEngine = BACKENDS[DEFAULT_BACKEND]


def make_engine(vertices, faces, backend: str = DEFAULT_BACKEND) -> RayBackend:
    """A ray engine over a triangle mesh, from the backend registered as ``backend``.

    Parameters
    ----------
    vertices : (n, 3) float, mm
    faces : (m, 3) int
    backend : str
        A key of :data:`BACKENDS`.

    Returns
    -------
    RayBackend

    Raises
    ------
    InputError
        ``backend`` is not registered.
    """
    if backend not in BACKENDS:
        known = ", ".join(sorted(BACKENDS))
        raise InputError(f"unknown ray backend {backend!r} (known: {known})")
    return BACKENDS[backend](vertices, faces)
