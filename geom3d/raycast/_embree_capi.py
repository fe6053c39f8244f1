"""Embree's C API, called from compiled code without the GIL.

embreex (the Python binding geom3d depends on) holds the GIL while it casts, so two
threads cast no faster than one. This module loads the Embree library that embreex ships,
builds the scene through its C API (``ctypes``) and exposes ``rtcOccluded4/8/16`` (the
CPU's widest, :func:`packet_width`) and ``rtcIntersect1`` to numba as external symbols:
the kernels in :mod:`._embree_kernels` call them inside ``nogil`` loops, and are cached on
disk like every other kernel (the symbols are bound by name when this module is
imported).

The scene is built exactly as embreex builds it (one triangle geometry, float3 vertices
with a 16-byte stride, uint3 indices, the robust flag, default build quality) and rays
are set up as embreex sets them up (``tnear`` 0, ``mask`` all ones), so the answers are
embreex's; ``tests/raycast`` checks that they agree.

:func:`load` returns None where the library cannot be found (embreex built without a
shared Embree): the engine then falls back to embreex.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import glob
import os
import threading

import numpy as np

__all__ = ["CScene", "load", "packet_width"]

_GEOMETRY_TYPE_TRIANGLE = 0
_BUFFER_TYPE_INDEX = 0
_BUFFER_TYPE_VERTEX = 1
_FORMAT_UINT3 = 0x5003
_FORMAT_FLOAT3 = 0x9003
_SCENE_FLAG_ROBUST = 1 << 2

#: Symbols the kernels call (bound in llvmlite's symbol table by :func:`load`).
INTERSECT1 = "geom3d_rtcIntersect1"
#: ``rtcOccluded4``, ``8`` or ``16``: the widest packet this CPU runs natively
#: (:func:`packet_width`).
OCCLUDED_PACKET = "geom3d_rtcOccludedPacket"


@functools.lru_cache(maxsize=1)
def packet_width() -> int:
    """Rays per Embree packet for this CPU: 16 with AVX-512, 8 with AVX, else 4.

    Packets of nearby rays share their BVH traversal (about 1.3x the single-ray rate for
    a patch search's rays with AVX-512); the answers are the single rays' (tested).
    """
    from llvmlite import binding

    features = binding.get_host_cpu_features()
    if features.get("avx512f", False):
        return 16
    return 8 if features.get("avx", False) else 4


def _candidates() -> list[str]:
    try:
        import embreex
    except ImportError:  # pragma: no cover - a dependency
        return []
    here = os.path.dirname(embreex.__file__)
    out = []
    for pattern in (
        os.path.join(here, os.pardir, "embreex.libs", "libembree4*.so*"),  # Linux wheels
        os.path.join(here, ".dylibs", "libembree4*.dylib"),  # macOS wheels
        os.path.join(here, "embree4*.dll"),  # Windows wheels
        os.path.join(here, os.pardir, "embreex.libs", "embree4*.dll"),
    ):
        out.extend(sorted(glob.glob(pattern)))
    found = ctypes.util.find_library("embree4")
    if found:
        out.append(found)
    return out


_LOCK = threading.Lock()


@functools.lru_cache(maxsize=1)
def load():
    """The Embree library with its prototypes set, its two ray functions bound for the
    kernels; None when it cannot be loaded."""
    for path in _candidates():
        try:
            lib = ctypes.CDLL(path)
            lib.rtcOccluded1  # noqa: B018 - an Embree 4 library has it
        except (OSError, AttributeError):
            continue
        _prototypes(lib)
        from llvmlite import binding

        packet = getattr(lib, f"rtcOccluded{packet_width()}")
        for name, fn in (
            (INTERSECT1, lib.rtcIntersect1),
            (OCCLUDED_PACKET, packet),
        ):
            binding.add_symbol(name, ctypes.cast(fn, ctypes.c_void_p).value)
        return lib
    return None


def _prototypes(lib) -> None:
    vp = ctypes.c_void_p
    for name, res, args in (
        ("rtcNewDevice", vp, [ctypes.c_char_p]),
        ("rtcReleaseDevice", None, [vp]),
        ("rtcGetDeviceError", ctypes.c_int, [vp]),
        ("rtcNewScene", vp, [vp]),
        ("rtcReleaseScene", None, [vp]),
        ("rtcCommitScene", None, [vp]),
        ("rtcSetSceneFlags", None, [vp, ctypes.c_int]),
        ("rtcNewGeometry", vp, [vp, ctypes.c_int]),
        ("rtcReleaseGeometry", None, [vp]),
        ("rtcCommitGeometry", None, [vp]),
        ("rtcAttachGeometry", ctypes.c_uint, [vp, vp]),
        (
            "rtcSetNewGeometryBuffer",
            vp,
            [vp, ctypes.c_int, ctypes.c_uint, ctypes.c_int, ctypes.c_size_t, ctypes.c_size_t],
        ),
    ):
        fn = getattr(lib, name)
        fn.restype = res
        fn.argtypes = args


class CScene:
    """A committed Embree scene of one triangle mesh, owned through the C API.

    Parameters
    ----------
    lib : ctypes.CDLL
        From :func:`load`.
    vertices : (n, 3) float64, mm
    faces : (m, 3) int, m > 0
    offset : (3,) float64, mm
        Subtracted from the vertices (Embree's frame), in float64, then rounded to
        float32 as Embree stores them: written straight into Embree's vertex buffer, so
        a million-triangle soup makes no 100 MB of temporaries.

    Attributes
    ----------
    address : int
        The ``RTCScene`` handle, for the kernels.
    """

    def __init__(self, lib, vertices: np.ndarray, faces: np.ndarray, offset: np.ndarray) -> None:
        self._lib = lib
        with _LOCK:
            self._device = lib.rtcNewDevice(None)
        if not self._device:
            raise RuntimeError("Embree could not create a device")
        self._scene = lib.rtcNewScene(self._device)
        lib.rtcSetSceneFlags(self._scene, _SCENE_FLAG_ROBUST)  # as embreex's scenes
        geom = lib.rtcNewGeometry(self._device, _GEOMETRY_TYPE_TRIANGLE)
        nv, nf = len(vertices), len(faces)
        vbuf = lib.rtcSetNewGeometryBuffer(geom, _BUFFER_TYPE_VERTEX, 0, _FORMAT_FLOAT3, 16, nv)
        ibuf = lib.rtcSetNewGeometryBuffer(geom, _BUFFER_TYPE_INDEX, 0, _FORMAT_UINT3, 12, nf)
        if not (vbuf and ibuf):
            lib.rtcReleaseGeometry(geom)
            self.close()
            raise MemoryError(f"Embree could not allocate a mesh of {nf} triangles")
        v = np.ctypeslib.as_array((ctypes.c_float * (4 * nv)).from_address(vbuf)).reshape(nv, 4)
        np.subtract(vertices, offset, out=v[:, :3], casting="same_kind")
        v[:, 3] = 0.0
        f = np.ctypeslib.as_array((ctypes.c_uint32 * (3 * nf)).from_address(ibuf)).reshape(nf, 3)
        f[:] = faces
        lib.rtcCommitGeometry(geom)
        lib.rtcAttachGeometry(self._scene, geom)
        lib.rtcReleaseGeometry(geom)
        lib.rtcCommitScene(self._scene)
        err = lib.rtcGetDeviceError(self._device)
        if err:
            self.close()
            raise RuntimeError(f"Embree could not build the scene (error {err})")
        self.address = int(self._scene)

    def close(self) -> None:
        """Release the scene and its device (idempotent)."""
        lib = self._lib
        if getattr(self, "_scene", None):
            lib.rtcReleaseScene(self._scene)
            self._scene = None
            self.address = 0
        if getattr(self, "_device", None):
            lib.rtcReleaseDevice(self._device)
            self._device = None

    def __del__(self) -> None:
        self.close()
