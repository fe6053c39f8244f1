"""Segment queries against the blocking scenery, behind one small interface.

:class:`~geom3d.raycast.base.RayBackend` (:mod:`.base`) is the interface the rest of
geom3d uses; every engine a scene, a survey or an exposure job builds comes from
:func:`make_engine`, which builds the backend chosen by name (:func:`selected_backend`:
``GEOM3D_RAY_BACKEND``, which ``geom3d --ray-backend NAME`` sets, else
:data:`DEFAULT_BACKEND`). Two are registered: ``embree`` (:mod:`.embree`, the fast one,
which also lends its scene to the compiled search) and ``reference`` (:mod:`.reference`,
numpy brute force, for checks and platforms without Embree wheels).

Adding a backend: write ``geom3d/raycast/<name>.py`` with a ``RayBackend`` subclass
constructed as ``Cls(vertices, faces)``, and add one line to :data:`BACKENDS`.

This module imports nothing heavy (not even numpy): the command line lists the
backends' names without loading one.
"""

from __future__ import annotations

import importlib
import os
from typing import TYPE_CHECKING, Any

from geom3d.core.errors import InputError

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from geom3d.raycast.base import CompiledScene, RayBackend
    from geom3d.raycast.embree import EmbreeEngine

    RayEngine = EmbreeEngine

__all__ = [
    "BACKENDS",
    "BACKEND_ENV",
    "DEFAULT_BACKEND",
    "CompiledScene",
    "EmbreeEngine",
    "RayBackend",
    "RayEngine",
    "backend_class",
    "make_engine",
    "selected_backend",
]

#: Registered backends: name -> ``"module:Class"`` (imported on first use). One line
#: per backend.
BACKENDS: dict[str, str] = {
    "embree": "geom3d.raycast.embree:EmbreeEngine",
    "reference": "geom3d.raycast.reference:ReferenceEngine",
}

#: The backend :func:`make_engine` builds unless told otherwise or :data:`BACKEND_ENV`
#: names another.
DEFAULT_BACKEND = "embree"

#: Environment variable that chooses the backend of every engine built after it is set
#: (``geom3d --ray-backend NAME`` sets it; worker processes inherit it).
BACKEND_ENV = "GEOM3D_RAY_BACKEND"


def selected_backend() -> str:
    """The backend :func:`make_engine` builds by default: ``$GEOM3D_RAY_BACKEND`` when
    set and not empty, else :data:`DEFAULT_BACKEND`."""
    return os.environ.get(BACKEND_ENV, "") or DEFAULT_BACKEND


def backend_class(name: str | None = None) -> type[RayBackend]:
    """The class registered as ``name`` (default :func:`selected_backend`).

    Raises
    ------
    InputError
        ``name`` is not registered.
    """
    name = selected_backend() if name is None else name
    if name not in BACKENDS:
        known = ", ".join(sorted(BACKENDS))
        raise InputError(f"unknown ray backend {name!r} (known: {known})")
    module, _, cls = BACKENDS[name].partition(":")
    found: type[RayBackend] = getattr(importlib.import_module(module), cls)
    return found


def make_engine(vertices: ArrayLike, faces: ArrayLike, backend: str | None = None) -> RayBackend:
    """A ray engine over a triangle mesh, from the backend registered as ``backend``.

    Parameters
    ----------
    vertices : (n, 3) float, mm
    faces : (m, 3) int
    backend : str, optional
        A key of :data:`BACKENDS`; default :func:`selected_backend`.

    Returns
    -------
    RayBackend

    Raises
    ------
    InputError
        ``backend`` is not registered.
    """
    return backend_class(backend)(vertices, faces)


def __getattr__(name: str) -> Any:
    """``RayBackend`` and ``CompiledScene`` (:mod:`.base`), ``EmbreeEngine`` and
    ``RayEngine`` (the Embree backend's class, kept for callers that name it) load on
    first use."""
    if name in ("RayBackend", "CompiledScene"):
        return getattr(importlib.import_module("geom3d.raycast.base"), name)
    if name in ("EmbreeEngine", "RayEngine"):
        return importlib.import_module("geom3d.raycast.embree").EmbreeEngine
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
