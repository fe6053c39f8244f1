"""Compiled segment queries on an Embree scene, per ray and without the GIL.

Each kernel sets up Embree's ray structure itself, exactly as the embreex path does (the
same float32 roundings of :func:`geom3d._kernels.prepare_segments`, ``tnear`` 0, ``mask``
all ones) and calls Embree through the symbols that :func:`._embree_capi.load` binds.
Import this module only after :func:`._embree_capi.load` returned a library.
"""

from __future__ import annotations

import math

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from geom3d._kernels import njit
from geom3d.tolerances import GEOM_EPS_MM

from ._embree_capi import INTERSECT1, OCCLUDED1

__all__ = ["first_hit_kernel", "occluded_kernel", "occluded_one", "ray_buffer"]

_INVALID = np.uint32(0xFFFFFFFF)


def _call(symbol: str):
    """An intrinsic ``f(scene_address, buffer)`` calling ``symbol(scene, ptr, NULL)``."""

    @intrinsic
    def call(typingctx, scene, buf):
        sig = types.void(scene, buf)

        def codegen(context, builder, signature, args):
            i8p = ir.IntType(8).as_pointer()
            ary = context.make_array(signature.args[1])(context, builder, args[1])
            fnty = ir.FunctionType(ir.VoidType(), [i8p, i8p, i8p])
            fn = cgutils.get_or_insert_function(builder.module, fnty, symbol)
            scene_ptr = builder.inttoptr(args[0], i8p)
            ray_ptr = builder.bitcast(ary.data, i8p)
            builder.call(fn, [scene_ptr, ray_ptr, ir.Constant(i8p, None)])
            return context.get_dummy_value()

        return sig, codegen

    return call


_occluded1 = _call(OCCLUDED1)
_intersect1 = _call(INTERSECT1)


@njit(cache=True, inline="always")
def _aligned(buf):
    """The part of ``buf`` (float32) that starts on a 16-byte boundary (Embree's rays
    must be aligned so)."""
    k = ((16 - buf.ctypes.data % 16) % 16) // 4
    return buf[k : k + 24]


@njit(cache=True, inline="always")
def _set_ray(f, u, ox, oy, oz, dx, dy, dz, length, ray_eps, offset):
    """Write the ray of segment o -> o + length (dx, dy, dz) into f / u (its uint view),
    trimmed by ray_eps at both ends, in Embree's frame."""
    f[0] = ox - offset[0] + dx * ray_eps
    f[1] = oy - offset[1] + dy * ray_eps
    f[2] = oz - offset[2] + dz * ray_eps
    f[3] = 0.0
    f[4] = dx
    f[5] = dy
    f[6] = dz
    f[7] = 0.0
    f[8] = length - 2.0 * ray_eps
    u[9] = _INVALID  # mask: every geometry
    u[10] = 0
    u[11] = 0


@njit(cache=True, inline="always")
def _segment_ray(f, u, ox, oy, oz, ex, ey, ez, offset, ray_eps):
    """Set up the ray of segment o -> e (see :func:`_set_ray`); False when the segment is
    no longer than ``2 ray_eps`` (clear: nothing to cast)."""
    dx, dy, dz = ex - ox, ey - oy, ez - oz
    length = math.sqrt(dx * dx + dy * dy + dz * dz)
    if length <= 2.0 * ray_eps + GEOM_EPS_MM:
        return False
    inv = 1.0 / length
    _set_ray(f, u, ox, oy, oz, dx * inv, dy * inv, dz * inv, length, ray_eps, offset)
    return True


@njit(cache=True, inline="always")
def ray_buffer():
    """The per-thread ray buffer the kernels fill: (f, u), float32 and uint32 views of
    one 16-byte aligned ``RTCRayHit``."""
    f = _aligned(np.empty(32, dtype=np.float32))
    return f, f.view(np.uint32)


@njit(cache=True, inline="always")
def occluded_one(scene, f, u, ox, oy, oz, ex, ey, ez, offset, ray_eps):
    """Does the segment o -> e hit a triangle of ``scene``? (One query of
    :func:`occluded_kernel`; ``f, u`` from :func:`ray_buffer`.)"""
    if not _segment_ray(f, u, ox, oy, oz, ex, ey, ez, offset, ray_eps):
        return False
    _occluded1(scene, f)
    return f[8] < 0.0  # Embree sets tfar to -inf on a hit


@njit(cache=True, nogil=True)
def occluded_kernel(scene, origins, ends, offset, ray_eps):
    """Which segments ``origins[i] -> ends[i]`` hit a triangle of ``scene``.

    Parameters
    ----------
    scene : int
        ``RTCScene`` address (:attr:`._embree_capi.CScene.address`).
    origins, ends : (k, 3) float64, mm
    offset : (3,) float64, mm
        The engine's recentring offset.
    ray_eps : float, mm
        Length ignored at both ends; a segment no longer than twice that is clear.

    Returns
    -------
    (k,) bool
    """
    k_n = origins.shape[0]
    out = np.zeros(k_n, dtype=np.bool_)
    f, u = ray_buffer()
    for k in range(k_n):
        out[k] = occluded_one(
            scene, f, u, origins[k, 0], origins[k, 1], origins[k, 2],
            ends[k, 0], ends[k, 1], ends[k, 2], offset, ray_eps,
        )  # fmt: skip
    return out


@njit(cache=True, nogil=True)
def first_hit_kernel(scene, origins, ends, offset, ray_eps):
    """First triangle of ``scene`` hit along each segment (see
    :meth:`geom3d.raycast.RayBackend.first_hit`).

    Returns
    -------
    distance : (k,) float64, mm
        ``inf`` where clear.
    triangle : (k,) int64
        ``-1`` where clear.
    """
    k_n = origins.shape[0]
    dist = np.full(k_n, np.inf)
    tri = np.full(k_n, -1, dtype=np.int64)
    f, u = ray_buffer()
    for k in range(k_n):
        if not _segment_ray(
            f, u, origins[k, 0], origins[k, 1], origins[k, 2],
            ends[k, 0], ends[k, 1], ends[k, 2], offset, ray_eps,
        ):  # fmt: skip
            continue
        for j in range(12, 24):
            f[j] = 0.0
        u[18] = _INVALID  # geomID
        u[19] = _INVALID  # instID[0]
        u[20] = _INVALID  # instPrimID[0] (padding where the build has none)
        _intersect1(scene, f)
        if u[18] != _INVALID:
            dist[k] = np.float64(f[8]) + ray_eps
            tri[k] = np.int64(u[17])
    return dist, tri
