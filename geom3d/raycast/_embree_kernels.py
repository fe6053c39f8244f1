"""Compiled segment queries on an Embree scene, in ray packets (first hits: per ray),
without the GIL.

Each kernel sets up Embree's ray structure itself, exactly as the embreex path does (the
same float32 roundings of :func:`geom3d.bodies.kernels.prepare_segments`, ``tnear`` 0, ``mask``
all ones) and calls Embree through the symbols that :func:`._embree_capi.load` binds.
Importing this module loads the library (once per process): a kernel compiled or loaded
from numba's cache with those symbols unbound would abort the process at link time
("Symbol not found") or crash at its first call. Without Embree the kernels must not be
called (:func:`geom3d.raycast.compiled.lent_scene` lends no scene then).
"""

from __future__ import annotations

import math

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from geom3d.bodies.kernel_constants import GEOM_EPS_MM
from geom3d.bodies.kernels import njit, njit_leaf
from geom3d.raycast._embree_capi import INTERSECT1, OCCLUDED_PACKET, load

load()  # binds INTERSECT1 and OCCLUDED_PACKET for the kernels below

__all__ = [
    "PACKET_MAX",
    "first_hit_kernel",
    "occluded_kernel",
    "packet_buffer",
    "packet_cast",
    "packet_ray",
    "ray_buffer",
]

_INVALID = np.uint32(0xFFFFFFFF)

#: The widest ray packet (:func:`._embree_capi.packet_width` is 4, 8 or 16).
PACKET_MAX = 16


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


_intersect1 = _call(INTERSECT1)


@intrinsic
def _occluded_packet(typingctx, valid, scene, buf):
    """``rtcOccludedN(valid, scene, packet, NULL)`` (N: :func:`._embree_capi.packet_width`)."""
    sig = types.void(valid, scene, buf)

    def codegen(context, builder, signature, args):
        i8p = ir.IntType(8).as_pointer()
        va = context.make_array(signature.args[0])(context, builder, args[0])
        ary = context.make_array(signature.args[2])(context, builder, args[2])
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i8p, i8p, i8p])
        fn = cgutils.get_or_insert_function(builder.module, fnty, OCCLUDED_PACKET)
        builder.call(
            fn,
            [
                builder.bitcast(va.data, i8p),
                builder.inttoptr(args[1], i8p),
                builder.bitcast(ary.data, i8p),
                ir.Constant(i8p, None),
            ],
        )
        return context.get_dummy_value()

    return sig, codegen


@njit(cache=True, forceinline=True)
def _aligned(buf):
    """The part of ``buf`` (float32) that starts on a 16-byte boundary (Embree's rays
    must be aligned so)."""
    k = ((16 - buf.ctypes.data % 16) % 16) // 4
    return buf[k : k + 24]


@njit(cache=True, forceinline=True)
def _aligned64(buf, n):
    """``n`` items of ``buf`` (4-byte items) starting on a 64-byte boundary."""
    k = ((64 - buf.ctypes.data % 64) % 64) // 4
    return buf[k : k + n]


@njit_leaf(forceinline=True)
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


@njit_leaf(forceinline=True)
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


@njit(cache=True, forceinline=True)
def ray_buffer():
    """The per-thread ray buffer the kernels fill: (f, u), float32 and uint32 views of
    one 16-byte aligned ``RTCRayHit``."""
    f = _aligned(np.empty(32, dtype=np.float32))
    return f, f.view(np.uint32)


@njit(cache=True, forceinline=True)
def packet_buffer():
    """A ray packet for :func:`packet_ray` and :func:`packet_cast`: ``(f, u, valid,
    lane)``, float32 and uint32 views of one 64-byte aligned ``RTCRay16``-sized packet
    (struct of arrays: 12 fields of ``width`` lanes), the lanes' int32 valid flags
    (aligned too) and an int64 slot per lane for the caller's index."""
    f = _aligned64(np.empty(12 * PACKET_MAX + 16, dtype=np.float32), 12 * PACKET_MAX)
    valid = _aligned64(np.empty(PACKET_MAX + 16, dtype=np.int32), PACKET_MAX)
    return f, f.view(np.uint32), valid, np.empty(PACKET_MAX, dtype=np.int64)


@njit_leaf(forceinline=True)
def packet_ray(f, u, m, width, ox, oy, oz, ex, ey, ez, offset, ray_eps):
    """Set lane ``m`` of a packet of ``width`` lanes to the ray of segment o -> e, with
    the same values as :func:`_segment_ray`; False (lane unset) when the segment is no
    longer than ``2 ray_eps`` (clear: nothing to cast)."""
    dx, dy, dz = ex - ox, ey - oy, ez - oz
    length = math.sqrt(dx * dx + dy * dy + dz * dz)
    if length <= 2.0 * ray_eps + GEOM_EPS_MM:
        return False
    inv = 1.0 / length
    dx, dy, dz = dx * inv, dy * inv, dz * inv
    f[m] = ox - offset[0] + dx * ray_eps
    f[width + m] = oy - offset[1] + dy * ray_eps
    f[2 * width + m] = oz - offset[2] + dz * ray_eps
    f[3 * width + m] = 0.0
    f[4 * width + m] = dx
    f[5 * width + m] = dy
    f[6 * width + m] = dz
    f[7 * width + m] = 0.0
    f[8 * width + m] = length - 2.0 * ray_eps
    u[9 * width + m] = _INVALID  # mask: every geometry
    u[10 * width + m] = 0
    u[11 * width + m] = 0
    return True


@njit_leaf(forceinline=True)
def packet_cast(scene, f, valid, m, width):
    """Cast lanes ``0 .. m - 1`` of the packet; lane ``j`` is then blocked when
    ``f[8 * width + j] < 0`` (Embree sets its ``tfar`` to -inf on a hit)."""
    for j in range(width):
        valid[j] = -1 if j < m else 0
    _occluded_packet(valid, scene, f)


@njit(cache=True, nogil=True)
def occluded_kernel(scene, origins, ends, offset, ray_eps, width):
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
    width : int
        Rays per packet (:func:`._embree_capi.packet_width`).

    Returns
    -------
    (k,) bool
    """
    k_n = origins.shape[0]
    out = np.zeros(k_n, dtype=np.bool_)
    f, u, valid, lane = packet_buffer()
    m = 0
    for k in range(k_n):
        if packet_ray(
            f, u, m, width, origins[k, 0], origins[k, 1], origins[k, 2],
            ends[k, 0], ends[k, 1], ends[k, 2], offset, ray_eps,
        ):  # fmt: skip
            lane[m] = k
            m += 1
        if m == width or (m and k == k_n - 1):
            packet_cast(scene, f, valid, m, width)
            for j in range(m):
                out[lane[j]] = f[8 * width + j] < 0.0
            m = 0
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
