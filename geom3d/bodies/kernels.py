"""Compiled (numba) kernels for the visibility hot path.

One fused loop per batch of rays replaces a few dozen numpy passes: the apparent-view
sample point, the first point of the target's cylinder on the ray and the exact test against
every occluding cylinder; and the float32 arrays the Embree backend takes
(:func:`prepare_segments`). The numpy versions in
:mod:`geom3d.bodies.cylinder` are the reference; tests check that both agree.

Kernels are compiled on first use and cached on disk (``cache=True``), so only the first
run on a machine pays the compile time. The compiled cache goes to ``numba/<digest>/``
under geom3d's cache folder (:func:`geom3d.core.cache_paths.default_cache_dir`), never
into the installed package (which may be read-only or shared), or to ``<digest>/`` under
``NUMBA_CACHE_DIR`` when that is set. ``<digest>``
(:func:`geom3d.core.cache_paths.kernel_sources_digest`) changes with the source of any
kernel or tolerance, so no kernel loads code compiled from older sources.
"""

from __future__ import annotations

import functools
import logging
import math
import os
import types
from typing import TYPE_CHECKING

import numpy as np

from geom3d.core.errors import printable
from geom3d.core.kernel_trust import settle_kernel_dir

# numba reads NUMBA_CACHE_DIR when it is first imported: set it to our folder per digest of
# the kernel sources (in the user's, when they chose one), and never one another user can
# write (its index is a pickle: geom3d.core.kernel_trust)
if _why := settle_kernel_dir():
    logging.getLogger("geom3d").warning(printable(f"geom3d: {_why}"))

from numba import njit as _numba_njit
from numba.core import config as _numba_config
from numba.core import types as _numba_types
from numba.core.caching import NullCache as _NullCache
from numba.core.registry import CPUDispatcher as _CPUDispatcher

# numba.core.config sets its attributes at run time (from the environment): mypy sees
# none. Set it whatever numba read, if imported before us: our folder has the digest.
if _numba_config.CACHE_DIR != os.environ["NUMBA_CACHE_DIR"]:  # type: ignore[attr-defined]
    _numba_config.CACHE_DIR = os.environ["NUMBA_CACHE_DIR"]  # type: ignore[attr-defined]

from geom3d.bodies.kernel_constants import APPARENT_DEPTH_EPS_MM, CONTACT_EPS_MM, GEOM_EPS_MM


class _PlainArgsDispatcher(_CPUDispatcher):
    """numba's CPU dispatcher, except that a call from another kernel compiles the callee
    for its arguments' plain types. numba types a constant argument (``0``, ``True``, a
    variable only ever set to one) as a literal, and compiled one specialisation of the
    callee per distinct constant besides the plain one (about a second of the first run's
    compile time, issue 31); the values computed are the same."""

    def get_call_template(self, args, kws):
        args = tuple(_numba_types.unliteral(a) for a in args)
        kws = {k: _numba_types.unliteral(v) for k, v in kws.items()}
        return super().get_call_template(args, kws)


class _LeafDispatcher(_PlainArgsDispatcher):
    """:data:`njit_leaf`'s dispatcher: the helper is compiled without numba's Python
    wrapper (``no_cpython_wrapper``), which only a call from Python needs: kernels call
    the helper directly, and the wrappers (code that unboxes every argument, optimised
    and compiled to machine code with the rest) took 5 % of the first run's compile CPU
    (the serial demo preparation, ``benchmarks/compile_profile.py --phases``: 46.0 s to
    43.5 s). A call from Python (a test, a session at the prompt) runs the helper's
    twin (:func:`python_twin`), the same function compiled with the wrapper."""

    def __call__(self, *args, **kws):
        return python_twin(self)(*args, **kws)


def python_twin(leaf):
    """The twin of an :data:`njit_leaf` helper that Python can call: its function, under
    the name ``<name>__from_python`` (so that numba caches it apart from the helper),
    compiled with the helper's options and numba's Python wrapper, on the first call;
    cached when the helper is.

    Parameters
    ----------
    leaf : numba dispatcher
        A helper made with :data:`njit_leaf`.
    """
    twin = leaf.__dict__.get("python_twin")
    if twin is None:
        f = leaf.py_func
        g = types.FunctionType(f.__code__, f.__globals__, f.__name__, f.__defaults__, f.__closure__)
        g.__qualname__ = f"{f.__qualname__}__from_python"
        g.__module__, g.__doc__ = f.__module__, f.__doc__
        drop = ("no_cpython_wrapper", "nopython")  # (njit sets nopython itself)
        options = {k: v for k, v in leaf.targetoptions.items() if k not in drop}
        cached = not isinstance(leaf._cache, _NullCache)
        twin = leaf.python_twin = njit(cache=cached, **options)(g)
    return twin


#: Whether a kernel cache write has failed in this process (the warning is said once).
_CACHE_WRITE_FAILED: list[str] = []


def cache_write_failed(exc: OSError) -> None:
    """A compiled kernel could not be written to the cache (a full disk, a read-only or
    vanished folder): one warning on stderr, and the command goes on with the kernel it
    just compiled (uncached: the next run compiles it again). Never an error: a full
    disk under the cache must not cost the answer (SPEC 13.4)."""
    if not _CACHE_WRITE_FAILED:
        why = exc.strerror or str(exc)
        _CACHE_WRITE_FAILED.append(why)
        logging.getLogger("geom3d").warning(
            printable(
                f"geom3d: warning: cannot write the compiled-kernel cache in "
                f"{os.environ.get('NUMBA_CACHE_DIR', '?')} ({why}); running uncached"
            )
        )


def _guard_cache(disp) -> None:
    """Make a cached dispatcher's cache writes fail soft (:func:`cache_write_failed`).
    numba writes a kernel's cache entry lazily, right after compiling it on first call,
    from ``Cache.save_overload``; an ``OSError`` there would otherwise end the call."""
    cache = getattr(disp, "_cache", None)
    save = getattr(cache, "save_overload", None)
    if save is None:
        return

    def save_overload(sig, data):
        try:
            save(sig, data)
        except OSError as exc:
            cache_write_failed(exc)

    cache.save_overload = save_overload  # type: ignore[union-attr]  # (None returned above)


if TYPE_CHECKING:  # the type checker sees numba's decorator: the same signatures
    njit = _numba_njit
else:

    def njit(func=None, **options):
        """``numba.njit`` for geom3d's kernels (:class:`_PlainArgsDispatcher`): the same
        options, ``@njit`` or ``@njit(cache=True, ...)``; a failed cache write is a
        warning, never an error (:func:`cache_write_failed`). No C-callable wrapper is
        made (``no_cfunc_wrapper``, unless asked for): nothing takes a kernel's C
        address, and making one took 5 % of the first run's compile CPU (the serial demo
        preparation, ``benchmarks/compile_profile.py --phases``: 48.5 s to 46.0 s)."""

        def wrap(f):
            disp = _numba_njit(**{"no_cfunc_wrapper": True, **options})(f)
            leaf = options.get("no_cpython_wrapper", False)
            disp.__class__ = _LeafDispatcher if leaf else _PlainArgsDispatcher
            _guard_cache(disp)
            return disp

        return wrap if func is None else wrap(func)


#: Decorator of the small compiled helpers that other kernels call per ray, per column or
#: per plane: they read and write the arrays they are given and allocate none, so they are
#: compiled without numba's reference-counting runtime. With it, each call (inlined or
#: not) increments and decrements every array argument's count atomically; in Line of
#: Fire's ray loop that cost more than Embree (37 % of the one-thread matrix, profiled).
#: Kernels call them directly, so they have no Python wrapper (:class:`_LeafDispatcher`).
njit_leaf = functools.partial(njit, cache=True, _nrt=False, no_cpython_wrapper=True)

__all__ = [
    "STATUS_BLOCKED",
    "STATUS_MISS",
    "STATUS_SCENERY",
    "cast_view_rays",
    "cylinder_interval",
    "disc_tops",
    "grow_bounds",
    "njit_leaf",
    "point_bounds",
    "prepare_segments",
    "view_frames",
    "view_ray",
]

#: The ray misses the target cylinder.
STATUS_MISS = 0
#: The segment passes through an occluding trooper.
STATUS_BLOCKED = 1
#: The segment must still be tested against the scenery (the ray engine).
STATUS_SCENERY = 2


@njit_leaf(forceinline=True)
def cylinder_interval(ox, oy, oz, dx, dy, dz, bx, by, bz, r, h):
    """Parameter interval [t0, t1] of the line o + t d inside a vertical cylinder.

    Returns t0 > t1 when the line misses. Same semantics as
    ``geom3d.bodies.cylinder._slab_and_side``. A line that misses the circle in plan is answered
    before any division or root (most lines past an occluding trooper do); the values
    returned otherwise are computed as they always were.
    """
    px = ox - bx
    py = oy - by
    a = dx * dx + dy * dy
    c = px * px + py * py - r * r
    vertical = a < GEOM_EPS_MM * GEOM_EPS_MM
    b = disc = 0.0
    if vertical:
        if c > 0:
            return math.inf, -math.inf
    else:
        b = 2.0 * (px * dx + py * dy)
        disc = b * b - 4.0 * a * c
        if disc < 0:
            return math.inf, -math.inf
    t0 = -math.inf
    t1 = math.inf
    z0 = bz
    z1 = bz + h
    if abs(dz) < GEOM_EPS_MM:
        if oz < z0 or oz > z1:
            return math.inf, -math.inf
    else:
        ta = (z0 - oz) / dz
        tb = (z1 - oz) / dz
        if ta > tb:
            ta, tb = tb, ta
        t0 = ta
        t1 = tb
    if not vertical:
        sq = math.sqrt(disc)
        s0 = (-b - sq) / (2.0 * a)
        s1 = (-b + sq) / (2.0 * a)
        if s0 > t0:
            t0 = s0
        if s1 < t1:
            t1 = s1
    return t0, t1


@njit(cache=True, _nrt=False, forceinline=True)  # type: ignore[call-overload]  # njit_leaf; Python calls it too
def view_ray(eyes, u, v, c, i, s, t, target, occ):
    """The ray from ``eyes[i]`` through apparent point ``(s, t)`` (one ray of
    :func:`cast_view_rays`).

    Returns
    -------
    status : int
        ``STATUS_*``.
    qx, qy, qz : float, mm
        First point of the target on the ray (meaningless on a miss).
    """
    ex, ey, ez = eyes[i, 0], eyes[i, 1], eyes[i, 2]
    px = c[0] + s * u[i, 0] + t * v[i, 0]
    py = c[1] + s * u[i, 1] + t * v[i, 1]
    pz = c[2] + s * u[i, 2] + t * v[i, 2]
    dx, dy, dz = px - ex, py - ey, pz - ez
    t0, t1 = cylinder_interval(
        ex, ey, ez, dx, dy, dz, target[0], target[1], target[2], target[3], target[4]
    )
    if not (t1 >= t0 and t1 >= 0.0):
        return STATUS_MISS, 0.0, 0.0, 0.0
    th = t0 if t0 > 0.0 else 0.0
    qx, qy, qz = ex + th * dx, ey + th * dy, ez + th * dz
    sx, sy, sz = qx - ex, qy - ey, qz - ez
    length = -1.0  # the segment's length, computed when first needed
    for j in range(occ.shape[0]):
        a0, a1 = cylinder_interval(
            ex, ey, ez, sx, sy, sz, occ[j, 0], occ[j, 1], occ[j, 2], occ[j, 3], occ[j, 4]
        )
        lo = a0 if a0 > 0.0 else 0.0
        hi = a1 if a1 < 1.0 else 1.0
        if not hi - lo > 0.0:
            continue  # (hi - lo) * length is not above CONTACT_EPS_MM, whatever the length
        if length < 0.0:
            length = math.sqrt(sx * sx + sy * sy + sz * sz)
        if (hi - lo) * length > CONTACT_EPS_MM:
            return STATUS_BLOCKED, qx, qy, qz
    return STATUS_SCENERY, qx, qy, qz


@njit(cache=True, nogil=True)
def cast_view_rays(eyes, u, v, c, eye_idx, s, t, target, occ):
    """Rays from eye points through apparent-view samples to the target cylinder.

    Parameters
    ----------
    eyes, u, v : (E, 3) float64
        Eye points (mm) and their apparent-view axes (unit vectors).
    c : (3,) float64, mm
        Target centre (origin of every apparent view).
    eye_idx : (K,) int64
        Eye of each ray.
    s, t : (K,) float64, mm
        Apparent-view coordinates of each sample.
    target : (5,) float64
        Target cylinder ``(bx, by, bz, radius, height)``, mm.
    occ : (M, 5) float64
        Occluding cylinders, same layout.

    Returns
    -------
    points : (K, 3) float64, mm
        First point of the target on each ray (undefined on a miss).
    status : (K,) int8
        ``STATUS_*`` of each ray (``STATUS_MISS`` is 0).
    scenery : (n,) int64
        Indices of the rays with ``STATUS_SCENERY``, in order: their segments are still
        to be tested against the scenery.
    origins, ends : (n, 3) float64, mm
        Those segments, compacted: ``eyes[eye_idx[k]] -> points[k]`` for ``k`` in
        ``scenery``.
    """
    k_n = eye_idx.shape[0]
    points = np.empty((k_n, 3))
    status = np.empty(k_n, dtype=np.int8)
    scenery = np.empty(k_n, dtype=np.int64)
    origins = np.empty((k_n, 3))
    ends = np.empty((k_n, 3))
    n = 0
    for k in range(k_n):
        i = eye_idx[k]
        st, qx, qy, qz = view_ray(eyes, u, v, c, i, s[k], t[k], target, occ)
        status[k] = st
        if st == STATUS_MISS:
            continue
        points[k, 0], points[k, 1], points[k, 2] = qx, qy, qz
        if st == STATUS_BLOCKED:
            continue
        scenery[n] = k
        origins[n, 0], origins[n, 1], origins[n, 2] = eyes[i, 0], eyes[i, 1], eyes[i, 2]
        ends[n, 0], ends[n, 1], ends[n, 2] = qx, qy, qz
        n += 1
    return points, status, scenery[:n], origins[:n], ends[:n]


@njit(cache=True, nogil=True)
def view_frames(eyes, c, rim):
    """Apparent-view frames of eye points looking at a target centre, and its extent.

    Parameters
    ----------
    eyes : (E, 3) float64, mm
    c : (3,) float64, mm
        Target centre: origin of each apparent view (the plane through ``c``
        perpendicular to the line of sight).
    rim : (P, 3) float64, mm
        Points of the target's outline (top and bottom rims) to project.

    Returns
    -------
    u, v, w : (E, 3) float64
        Horizontal axis, "up" axis and line of sight of each view (unit vectors).
    extent : (6,) float64
        ``s_min, s_max, t_min, t_max`` over the whole batch, the largest projection
        scale (apparent size / true size at the rim) and the smallest depth of a rim
        point in front of an eye (mm; the projection clamps it at
        ``APPARENT_DEPTH_EPS_MM``).
    """
    n = eyes.shape[0]
    u = np.empty((n, 3))
    v = np.empty((n, 3))
    w = np.empty((n, 3))
    ext = np.array([math.inf, -math.inf, math.inf, -math.inf, 0.0, math.inf])
    for i in range(n):
        wx, wy, wz = c[0] - eyes[i, 0], c[1] - eyes[i, 1], c[2] - eyes[i, 2]
        dist = math.sqrt(wx * wx + wy * wy + wz * wz)
        wx, wy, wz = wx / dist, wy / dist, wz / dist
        # u = w x z
        ux, uy = wy, -wx
        un = math.sqrt(ux * ux + uy * uy)
        if un < GEOM_EPS_MM:
            ux, uy, un = 1.0, 0.0, 1.0
        ux, uy = ux / un, uy / un
        uz = 0.0
        # v = u x w
        vx = uy * wz - uz * wy
        vy = uz * wx - ux * wz
        vz = ux * wy - uy * wx
        u[i, 0], u[i, 1], u[i, 2] = ux, uy, uz
        v[i, 0], v[i, 1], v[i, 2] = vx, vy, vz
        w[i, 0], w[i, 1], w[i, 2] = wx, wy, wz
        for p in range(rim.shape[0]):
            rx = rim[p, 0] - eyes[i, 0]
            ry = rim[p, 1] - eyes[i, 1]
            rz = rim[p, 2] - eyes[i, 2]
            depth = rx * wx + ry * wy + rz * wz
            ext[5] = min(ext[5], depth)
            if depth < APPARENT_DEPTH_EPS_MM:
                depth = APPARENT_DEPTH_EPS_MM
            scale = dist / depth
            s = (rx * ux + ry * uy + rz * uz) * scale
            t = (rx * vx + ry * vy + rz * vz) * scale
            ext[0] = min(ext[0], s)
            ext[1] = max(ext[1], s)
            ext[2] = min(ext[2], t)
            ext[3] = max(ext[3], t)
            ext[4] = max(ext[4], scale)
    return u, v, w, ext


@njit(cache=True, nogil=True)
def prepare_segments(origins, ends, offset, ray_eps):
    """Embree inputs for segments ``origins[i] -> ends[i]``, compacted.

    Segments no longer than ``2 * ray_eps`` are dropped (they are clear).

    Parameters
    ----------
    origins, ends : (k, 3) float64, mm
    offset : (3,) float64, mm
        Subtracted from the origins (the Embree backend's recentring offset).
    ray_eps : float, mm
        Length skipped at both ends.

    Returns
    -------
    idx : (n,) int64
        Indices of the segments kept.
    start, unit : (n, 3) float32
    dist : (n,) float32
    """
    k_n = origins.shape[0]
    idx = np.empty(k_n, dtype=np.int64)
    start = np.empty((k_n, 3), dtype=np.float32)
    unit = np.empty((k_n, 3), dtype=np.float32)
    dist = np.empty(k_n, dtype=np.float32)
    n = 0
    for k in range(k_n):
        dx = ends[k, 0] - origins[k, 0]
        dy = ends[k, 1] - origins[k, 1]
        dz = ends[k, 2] - origins[k, 2]
        length = math.sqrt(dx * dx + dy * dy + dz * dz)
        if length <= 2.0 * ray_eps + GEOM_EPS_MM:
            continue
        inv = 1.0 / length
        ux, uy, uz = dx * inv, dy * inv, dz * inv
        idx[n] = k
        start[n, 0] = origins[k, 0] - offset[0] + ux * ray_eps
        start[n, 1] = origins[k, 1] - offset[1] + uy * ray_eps
        start[n, 2] = origins[k, 2] - offset[2] + uz * ray_eps
        unit[n, 0], unit[n, 1], unit[n, 2] = ux, uy, uz
        dist[n] = length - 2.0 * ray_eps
        n += 1
    return idx[:n], start[:n], unit[:n], dist[:n]


@njit(cache=True, nogil=True)
def disc_tops(pts, cx, cy, r):
    """Highest point over each disc, in one pass over the points.

    Parameters
    ----------
    pts : (n, 3) float64, mm
    cx, cy, r : (k,) float64, mm
        Disc centres and radii (closed discs: ``|x - cx| <= r`` and
        ``(x - cx)**2 + (y - cy)**2 <= r**2``).

    Returns
    -------
    (k,) float64, mm
        The largest z of the points over each disc; ``-inf`` over none.
    """
    k = cx.shape[0]
    hi = np.full(k, -np.inf)
    if k == 0 or pts.shape[0] == 0:
        return hi
    # cells of half a radius: a disc's cells (its bounding box, one cell wider each way)
    # hold about four times its area, so few points are tested in vain; at most about
    # 4 M cells however far apart the discs are
    lo_x, hi_x = (cx - r).min(), (cx + r).max()
    lo_y, hi_y = (cy - r).min(), (cy + r).max()
    span = (hi_x - lo_x + 1.0) * (hi_y - lo_y + 1.0)
    g = max(0.5 * r.max(), 1.0, math.sqrt(span / 4.0e6))
    inv = 1.0 / g  # a point's cell by one product (the padding absorbs its rounding)
    x0 = lo_x - g
    y0 = lo_y - g
    nx = int((hi_x - x0) * inv) + 3
    ny = int((hi_y - y0) * inv) + 3
    # discs binned by the cells their bounding box meets, one cell wider each way
    count = np.zeros(nx * ny + 1, np.int64)
    for d in range(k):
        i0, i1 = int((cx[d] - r[d] - x0) * inv) - 1, int((cx[d] + r[d] - x0) * inv) + 1
        j0, j1 = int((cy[d] - r[d] - y0) * inv) - 1, int((cy[d] + r[d] - y0) * inv) + 1
        for i in range(max(i0, 0), min(i1, nx - 1) + 1):
            for j in range(max(j0, 0), min(j1, ny - 1) + 1):
                count[i * ny + j + 1] += 1
    off = np.cumsum(count)
    fill = off[:-1].copy()
    cell = np.empty(off[-1], np.int64)
    for d in range(k):
        i0, i1 = int((cx[d] - r[d] - x0) * inv) - 1, int((cx[d] + r[d] - x0) * inv) + 1
        j0, j1 = int((cy[d] - r[d] - y0) * inv) - 1, int((cy[d] + r[d] - y0) * inv) + 1
        for i in range(max(i0, 0), min(i1, nx - 1) + 1):
            for j in range(max(j0, 0), min(j1, ny - 1) + 1):
                cell[fill[i * ny + j]] = d
                fill[i * ny + j] += 1
    for p in range(pts.shape[0]):
        x, y, z = pts[p, 0], pts[p, 1], pts[p, 2]
        fi = (x - x0) * inv
        fj = (y - y0) * inv
        if not (0.0 <= fi < nx and 0.0 <= fj < ny):
            continue
        c = int(fi) * ny + int(fj)
        for q in range(off[c], off[c + 1]):
            d = cell[q]
            dx = x - cx[d]
            if abs(dx) <= r[d]:
                dy = y - cy[d]
                if dx * dx + dy * dy <= r[d] * r[d] and z > hi[d]:
                    hi[d] = z
    return hi


@njit_leaf(forceinline=True)
def grow_bounds(lo, hi, v, q):
    """Grow the box ``lo``, ``hi`` (3,) to hold point ``v[q]``."""
    for k in range(3):
        x = v[q, k]
        if x < lo[k]:
            lo[k] = x
        if x > hi[k]:
            hi[k] = x


@njit(cache=True, nogil=True)
def point_bounds(v):
    """``(lo, hi)``, (3,) float64 each: the bounding box of points ``v`` (n, 3), n > 0, in
    one pass (numpy's reduction over the short axis is several times slower)."""
    lo = v[0].copy()
    hi = v[0].copy()
    for q in range(1, v.shape[0]):
        grow_bounds(lo, hi, v, q)
    return lo, hi
