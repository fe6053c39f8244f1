"""Eye points: samples of the part of a viewer's surface that faces its target.

Eye points are samples of a continuous surface (``EYE_SPACING_MM`` apart in arc length
and height): a view that exists only from eye points between two samples (a gap narrower
than the spacing against the viewer) may be missed. They are ordered coarse-to-fine and
top-first, and taken in growing batches (:func:`eye_batches`), so an open view is found
after a handful of rays.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Iterator

import numpy as np

from geom3d.bodies.cylinder import Cylinder
from geom3d.bodies.kernel_constants import GEOM_EPS_MM
from geom3d.core.tolerances import EYE_SPACING_MM, STAND_INSET_MM, SURFACE_INSET_MM

__all__ = ["eye_batches", "eye_count", "eye_points", "two_adic"]


def eye_points(
    viewer: Cylinder, target: Cylinder, spacing: float = EYE_SPACING_MM, limit: int | None = None
) -> np.ndarray:
    """Eye points on the part of ``viewer``'s surface that faces ``target``.

    Side points cover the half of the mantle facing the target (all of it when the target
    is straight above or below), at most ``spacing`` apart along the arc and in height;
    cap points (a ``spacing`` grid) are added when the target reaches above the viewer's
    top (or below its base). Points are inset by ``SURFACE_INSET_MM`` from the mantle and
    top, and by ``STAND_INSET_MM`` from the base underside.

    Parameters
    ----------
    viewer, target : Cylinder
    spacing : float, mm
    limit : int, optional
        Only the first ``limit`` points (the same floats as the first rows of the whole
        set): a search that usually ends in its first eyes makes only those.

    Returns
    -------
    (n, 3) float64, mm
        Ordered coarse-to-fine and top-first, so early exits come early.
    """
    b, r, z0, z1, to, dist, n_rows, n_cols, caps = _layout(viewer, target, spacing)
    phi0 = math.atan2(to[1], to[0]) if dist > GEOM_EPS_MM else 0.0
    R, C, offs = _side_order(n_cols, n_rows, dist > GEOM_EPS_MM)
    gx, gy = _cap_grid(r, spacing)
    if limit is not None and limit <= len(R):  # side points only
        R, C, caps = R[: max(limit, 0)], C[: max(limit, 0)], []
    n = len(R)
    out = np.empty((n + len(caps) * len(gx), 3))
    # side: (b + r cos, b + r sin, z), per column then gathered (the same float
    # operations on each point's angle, once per column instead of once per point)
    a = phi0 + offs
    for k, trig in ((0, np.cos), (1, np.sin)):
        col = trig(a)
        col *= r
        col += b[k]
        out[:n, k] = col[C]
    out[:n, 2] = _heights(z1, z0, n_rows)[R]
    for zc in caps:
        cap = out[n : n + len(gx)]
        cap[:, 0] = b[0] + gx
        cap[:, 1] = b[1] + gy
        cap[:, 2] = zc
        # nearest to the target first
        if dist > GEOM_EPS_MM:
            d = -(cap[:, :2] - np.array(b[:2])) @ (np.array(to) / dist)
            cap[:] = cap[np.argsort(d, kind="stable")]
        n += len(gx)
    return out if limit is None else out[: max(limit, 0)]


def eye_count(viewer: Cylinder, target: Cylinder, spacing: float = EYE_SPACING_MM) -> int:
    """``len(eye_points(viewer, target, spacing))``, without making the points (a proof
    is sized by the eyes it may save before they are needed)."""
    _, r, _, _, _, dist, n_rows, n_cols, caps = _layout(viewer, target, spacing)
    n_side = (n_cols + 1 if dist > GEOM_EPS_MM else n_cols) * (n_rows + 1)
    return n_side + len(caps) * len(_cap_grid(r, spacing)[0])


def _layout(
    viewer: Cylinder, target: Cylinder, spacing: float
) -> tuple[
    tuple[float, ...], float, float, float, tuple[float, float], float, int, int, list[float]
]:
    """What :func:`eye_points` and :func:`eye_count` share: the viewer's base ``b``, the
    inset radius and heights (mm), the plan offset ``to`` to the target and its length,
    the side lattice's rows and columns, and the cap heights (plain floats: the same
    operations numpy's scalars would make, without their per-call cost)."""
    b = viewer.base
    r = viewer.radius - SURFACE_INSET_MM
    z0 = b[2] + STAND_INSET_MM
    z1 = viewer.top_z - SURFACE_INSET_MM
    to = (target.base[0] - b[0], target.base[1] - b[1])
    dist = float(np.hypot(to[0], to[1]))
    n_rows = max(1, math.ceil((z1 - z0) / spacing))
    if dist > GEOM_EPS_MM:
        n_cols = max(2, math.ceil(math.pi * r / spacing))
    else:
        n_cols = max(4, math.ceil(2 * math.pi * r / spacing))
    caps: list[float] = []
    if target.top_z > viewer.top_z:
        caps.append(z1)
    if target.base[2] < b[2]:
        caps.append(z0)
    return b, r, z0, z1, to, dist, n_rows, n_cols, caps


@functools.lru_cache(maxsize=64)
def _cap_grid(r: float, spacing: float) -> tuple[np.ndarray, np.ndarray]:
    """Offsets (x, y) of the cap's ``spacing`` grid points within radius ``r``, row by row
    (computed once per radius and spacing)."""
    g = np.arange(-r, r + GEOM_EPS_MM, spacing)
    gx, gy = np.meshgrid(g, g, indexing="xy")
    inside = gx**2 + gy**2 <= r * r
    gx, gy = gx[inside], gy[inside]
    gx.setflags(write=False)
    gy.setflags(write=False)
    return gx, gy


@functools.lru_cache(maxsize=256)
def _heights(z1: float, z0: float, n_rows: int) -> np.ndarray:
    """The ``n_rows + 1`` heights of the side rows, top first (computed once per
    trooper)."""
    z = np.linspace(z1, z0, n_rows + 1)
    z.setflags(write=False)
    return z


@functools.lru_cache(maxsize=256)
def _side_order(n_cols: int, n_rows: int, half: bool) -> tuple[np.ndarray, ...]:
    """Row and column index of each side eye point, in coarse-to-fine, top-first order,
    and the angle of each column from the direction of the target (radians).

    Depends only on the lattice's shape, so it is computed once per shape.
    """
    if half:
        offs = np.linspace(-math.pi / 2, math.pi / 2, n_cols + 1)
    else:
        offs = np.linspace(-math.pi, math.pi, n_cols, endpoint=False)
    ci = np.arange(len(offs))
    center_col = len(offs) // 2
    ri = np.arange(n_rows + 1)
    C2, R2 = np.meshgrid(ci, ri, indexing="xy")
    C, R = C2.ravel(), R2.ravel()
    # coarse-to-fine priority: how many times both indices (relative to the centre
    # column and the top row) divide by 2
    level = np.minimum(two_adic(np.abs(C - center_col)), two_adic(R))
    key = np.lexsort((np.abs(offs[C]), R, -level))
    C, R = C[key], R[key]
    for a in (R, C, offs):
        a.setflags(write=False)
    return R, C, offs


def eye_batches(eyes: np.ndarray, sizes: tuple[int, ...]) -> Iterator[np.ndarray]:
    """Consecutive batches of ``eyes``, of ``sizes[0]``, ``sizes[1]``, ... rows.

    The last size repeats until the eyes run out: small first batches give early exits
    cheaply, big later ones amortise the per-batch cost.

    Parameters
    ----------
    eyes : (n, 3) float, mm
    sizes : tuple of int, > 0

    Yields
    ------
    (k, 3) float, mm
    """
    start = 0
    for i in itertools.count():
        if start >= len(eyes):
            return
        size = sizes[min(i, len(sizes) - 1)]
        yield eyes[start : start + size]
        start += size


def two_adic(n: np.ndarray, cap: int = 6) -> np.ndarray:
    """How many times each index divides by 2 (``cap`` for 0, at most ``cap``).

    Sorting sample indices by decreasing ``two_adic`` visits them coarse-to-fine: 0, then
    every 64th, every 32nd, ... (with the default ``cap``).

    Parameters
    ----------
    n : (k,) int array, >= 0
    cap : int

    Returns
    -------
    (k,) int64
    """
    out = np.zeros(n.shape, dtype=np.int64)
    m = n.copy()
    for _ in range(cap):
        even = (m % 2 == 0) & (m > 0)
        out += even
        m = np.where(even, m // 2, m)
    out[n == 0] = cap
    return out
