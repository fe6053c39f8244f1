"""The 3 x 3 mm visible-patch search (SPEC section 3.1 and 3.6).

A viewer ``A`` sees a target ``T`` when some eye point ``e`` of A's volume sees a
3 x 3 mm patch of T, measured by *apparent size*: a square in the plane through T's centre
perpendicular to the line of sight from ``e``, each point of the square standing for the
first point of T's volume on its ray from ``e``. Every such ray must be clear of blocking
scenery and of the other troopers' volumes.

Algorithm (all batched, no Python loop per ray):

1. Eye points sample the part of A's surface that faces T (``EYE_SPACING_MM``), ordered
   coarse-to-fine and top-first so an open view is found after a handful of rays.
2. For a batch of eye points, each gets its apparent-view frame. A coarse lattice of
   spacing ``COARSE_MM`` (4 mm) is cast first: every 4 x 4 mm square contains a lattice
   point, so an eye point with no clear coarse ray cannot see a region that must be found,
   and is dropped (exact pruning).
3. Around each clear coarse sample the 1 mm lattice is cast within +/- 4 mm; a patch is
   a fully clear 4 x 4 window of fine samples (spanning 3 mm). The first eye point with a
   patch is the witness; its whole apparent view is then sampled once to report the
   visible area.

Guarantees (tolerances in :mod:`geom3d.tolerances`): a region whose apparent view
contains a 4 x 4 mm square, seen from a sampled eye point, is always found; a region whose
apparent view contains no 3 x 3 mm square is never reported. Occluders thinner than the
1 mm sample spacing can slip between samples; views that exist only from eye points
between eye samples (gaps narrower than ``EYE_SPACING_MM`` against the viewer) may be
missed.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from ._kernels import STATUS_CLEAR, STATUS_MISS, cast_view_rays, view_frames
from .bodies import Cylinder, ray_cylinder_entry
from .raycast import RayEngine
from .tolerances import (
    APPARENT_CAP,
    APPARENT_DEPTH_EPS_MM,
    COARSE_MM,
    COARSE_STEP_SAMPLES,
    EYE_SPACING_MM,
    PATCH_SAMPLES,
    RAY_EPS_MM,
    RIM_POINTS,
    SAMPLE_MM,
    STAND_INSET_MM,
    SURFACE_INSET_MM,
)

__all__ = [
    "ApparentView",
    "PatchWitness",
    "VisibilityStats",
    "coarse_samples",
    "cull_occluders",
    "eye_batches",
    "eye_points",
    "find_patch",
    "full_windows",
    "two_adic",
]

_BATCH_SIZES = (1, 8, 64, 256)


@dataclass(frozen=True)
class PatchWitness:
    """Why ``A`` sees ``T``.

    Attributes
    ----------
    eye : (3,) tuple of float, mm
        The eye point on the viewer's surface.
    patch_center : (3,) tuple of float, mm
        The point of the target's volume at the centre of the visible 3 x 3 mm patch.
    visible_area_mm2 : float
        Apparent area of the target seen from ``eye`` (sampled at ``SAMPLE_MM``), mm².
    """

    eye: tuple[float, float, float]
    patch_center: tuple[float, float, float]
    visible_area_mm2: float


@dataclass
class VisibilityStats:
    """Counters for benchmarks: segments cast and eye points examined."""

    rays: int = 0
    eyes: int = 0
    eyes_refined: int = 0


def eye_points(viewer: Cylinder, target: Cylinder, spacing: float = EYE_SPACING_MM) -> np.ndarray:
    """Eye points on the part of ``viewer``'s surface that faces ``target``.

    Side points cover the half of the mantle facing the target (all of it when the target
    is straight above or below); cap points are added when the target reaches above the
    viewer's top (or below its base). Points are inset by ``SURFACE_INSET_MM`` from the
    mantle and top, and by ``STAND_INSET_MM`` from the base underside.

    Parameters
    ----------
    viewer, target : Cylinder
    spacing : float, mm

    Returns
    -------
    (n, 3) float, mm
        Ordered coarse-to-fine and top-first, so early exits come early.
    """
    b = viewer.base_array
    r = viewer.radius - SURFACE_INSET_MM
    z0 = b[2] + STAND_INSET_MM
    z1 = viewer.top_z - SURFACE_INSET_MM
    to = target.base_array[:2] - b[:2]
    dist = float(np.hypot(*to))
    n_rows = max(1, math.ceil((z1 - z0) / spacing))
    zs = np.linspace(z1, z0, n_rows + 1)
    if dist > 1e-9:
        phi0 = math.atan2(to[1], to[0])
        half = math.pi / 2
        n_cols = max(2, math.ceil(2 * half * r / spacing))
        offs = np.linspace(-half, half, n_cols + 1)
    else:
        phi0 = 0.0
        n_cols = max(4, math.ceil(2 * math.pi * r / spacing))
        offs = np.linspace(-math.pi, math.pi, n_cols, endpoint=False)
    ci = np.arange(len(offs))
    center_col = len(offs) // 2
    ri = np.arange(len(zs))
    C, R = np.meshgrid(ci, ri, indexing="xy")
    C, R = C.ravel(), R.ravel()
    ang = phi0 + offs[C]
    side = np.column_stack([b[0] + r * np.cos(ang), b[1] + r * np.sin(ang), zs[R]])
    # coarse-to-fine priority: how many times both indices (relative to the centre
    # column and the top row) divide by 2
    rel_c = np.abs(C - center_col)
    level = np.minimum(two_adic(rel_c), two_adic(R))
    key_side = np.lexsort((np.abs(offs[C]), R, -level))
    pts = [side[key_side]]
    caps = []
    if target.top_z > viewer.top_z:
        caps.append(z1)
    if target.base[2] < b[2]:
        caps.append(z0)
    for zc in caps:
        g = np.arange(-r, r + 1e-9, spacing)
        gx, gy = np.meshgrid(g, g, indexing="xy")
        inside = gx**2 + gy**2 <= r * r
        cap = np.column_stack([b[0] + gx[inside], b[1] + gy[inside], np.full(inside.sum(), zc)])
        # nearest to the target first
        if dist > 1e-9:
            d = -(cap[:, :2] - b[:2]) @ (to / dist)
            cap = cap[np.argsort(d, kind="stable")]
        pts.append(cap)
    return np.concatenate(pts)


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


def cull_occluders(a: Cylinder, b: Cylinder, occluders: list[Cylinder]) -> list[Cylinder]:
    """The occluders whose bounding box meets the bounding box of ``a`` and ``b``.

    Every segment from a point of ``a`` to a point of ``b`` lies in their joint bounding
    box, so the others can never block it (exact culling).
    """
    ba, bb = a.bounds(), b.bounds()
    lo = np.minimum(ba[0], bb[0])
    hi = np.maximum(ba[1], bb[1])
    out = []
    for c in occluders:
        cb = c.bounds()
        if np.all(cb[0] <= hi) and np.all(cb[1] >= lo):
            out.append(c)
    return out


class ApparentView:
    """Apparent-view frames of a batch of eye points looking at one cylinder (SPEC 3.1).

    For eye ``e`` the apparent plane passes through the cylinder's centre ``c``,
    perpendicular to ``w = (c - e) / |c - e|``; ``u`` is horizontal, ``v = u x w``.
    Apparent point ``(s, t)`` is ``c + s u + t v``; its sample is the first point of the
    cylinder on the ray from ``e`` through it. Shared by Line of Fire (this module) and
    Blast Focus Line of Fire (:mod:`geom3d.rules.infinity`).

    Attributes
    ----------
    eyes : (E, 3) float64, mm
    target : Cylinder
    c : (3,) float64, mm
        The target's centre.
    target_row : (5,) float64
        ``(bx, by, bz, radius, height)`` of the target, as the kernels take it.
    u, v, w : (E, 3) float64
        Horizontal axis, "up" axis and line of sight of each eye's view (unit vectors).
    dist : (E,) float64, mm
        Distance from each eye to ``c``.
    """

    def __init__(self, eyes: np.ndarray, target: Cylinder) -> None:
        self.eyes = np.ascontiguousarray(eyes, dtype=np.float64)
        self.target = target
        self.c = target.center
        self.target_row = np.array([*target.base, target.radius, target.height])
        self._rim = _rim(target)
        self.u, self.v, self.w, self._ext = view_frames(self.eyes, self.c, self._rim)
        self.dist = np.linalg.norm(self.c - self.eyes, axis=1)

    def project(self, pts: np.ndarray):
        """Apparent coordinates of points, as seen from every eye of the batch.

        Parameters
        ----------
        pts : (P, 3) float, mm

        Returns
        -------
        s, t : (E, P) float64, mm
            Apparent coordinates (meaningless where ``depth <= APPARENT_DEPTH_EPS_MM``:
            the depth is clamped there).
        depth : (E, P) float64, mm
            Distance in front of the eye along its line of sight.
        """
        rel = pts[None, :, :] - self.eyes[:, None, :]
        depth = np.einsum("epk,ek->ep", rel, self.w)
        safe = np.where(depth > APPARENT_DEPTH_EPS_MM, depth, APPARENT_DEPTH_EPS_MM)
        scale = self.dist[:, None] / safe
        s = np.einsum("epk,ek->ep", rel, self.u) * scale
        t = np.einsum("epk,ek->ep", rel, self.v) * scale
        return s, t, depth

    def extent(self) -> tuple[float, float, float, float]:
        """Union over the batch of the target's apparent bounding rectangle, capped.

        The rectangle ``(s0, s1, t0, t1)`` bounds the projected rim polygon, padded by
        one sample plus the polygon's under-coverage of the circle, and is clipped to
        ``APPARENT_CAP`` target sizes around the centre. When a rim point lies beside or
        behind an eye point (depth <= ``APPARENT_DEPTH_EPS_MM``: the eye all but touches
        the target), the apparent view is unbounded and the clamped projection of the
        rim need not bound it, so the whole capped window is returned.
        """
        t = self.target
        cap = APPARENT_CAP * max(t.radius * 2.0, t.height)
        depth = self._rim @ self.w.T - np.einsum("ek,ek->e", self.eyes, self.w)[None, :]
        if (depth <= APPARENT_DEPTH_EPS_MM).any():
            return (-cap, cap, -cap, cap)
        s0, s1, t0, t1, scale = self._ext
        # the polygon of rim points slightly under-covers the true outline: pad one sample
        pad = SAMPLE_MM + t.radius * (1 - math.cos(math.pi / RIM_POINTS)) * float(scale)
        return (
            max(float(s0) - pad, -cap),
            min(float(s1) + pad, cap),
            max(float(t0) - pad, -cap),
            min(float(t1) + pad, cap),
        )

    def targets(self, eye_idx: np.ndarray, s: np.ndarray, t: np.ndarray):
        """First points of the target on the rays from ``eyes[eye_idx]`` through (s, t).

        Returns
        -------
        points : (k, 3) float, mm (undefined where ``hit`` is false)
        hit : (k,) bool
        """
        e = self.eyes[eye_idx]
        p = self.c + s[:, None] * self.u[eye_idx] + t[:, None] * self.v[eye_idx]
        d = p - e
        th = ray_cylinder_entry(e, d, self.target)
        hit = np.isfinite(th)
        pts = e + np.where(hit, th, 0.0)[:, None] * d
        return pts, hit


_UNIT_RIM = np.column_stack(
    [
        np.cos(np.linspace(0, 2 * np.pi, RIM_POINTS, endpoint=False)),
        np.sin(np.linspace(0, 2 * np.pi, RIM_POINTS, endpoint=False)),
    ]
)


def _rim(t: Cylinder) -> np.ndarray:
    """(2 * RIM_POINTS, 3) float, mm: points on the top and bottom rims of ``t``."""
    rim = np.empty((2 * RIM_POINTS, 3))
    rim[:RIM_POINTS, :2] = _UNIT_RIM * t.radius + t.base[:2]
    rim[RIM_POINTS:, :2] = rim[:RIM_POINTS, :2]
    rim[:RIM_POINTS, 2] = t.base[2]
    rim[RIM_POINTS:, 2] = t.top_z
    return rim


def _lattice(lo: float, hi: float, step: float) -> np.ndarray:
    """Integer lattice indices ``k`` with ``lo <= k * step <= hi`` (int64, ascending)."""
    return np.arange(math.ceil(lo / step), math.floor(hi / step) + 1)


def coarse_samples(extent, n_eyes: int):
    """The coarse lattice (spacing ``COARSE_MM``) within an apparent extent, for each eye.

    Parameters
    ----------
    extent : (s0, s1, t0, t1) float, mm
        Apparent rectangle, e.g. :meth:`ApparentView.extent`.
    n_eyes : int
        Eyes in the batch.

    Returns
    -------
    ks, kt : (n_s,), (n_t,) int64
        Lattice indices along ``s`` and ``t`` (sample ``k`` lies at ``k * COARSE_MM``).
    eye_idx : (n_eyes * n_s * n_t,) int64
    s, t : (n_eyes * n_s * n_t,) float64, mm
        Every lattice point for every eye, ordered eye, then ``s``, then ``t``: the flat
        results reshape to ``(n_eyes, n_s, n_t)``.
    """
    s0, s1, t0, t1 = extent
    ks = _lattice(s0, s1, COARSE_MM)
    kt = _lattice(t0, t1, COARSE_MM)
    KS, KT = np.meshgrid(ks, kt, indexing="ij")
    eye_idx = np.repeat(np.arange(n_eyes), len(ks) * len(kt))
    s = np.tile(KS.ravel(), n_eyes) * COARSE_MM
    t = np.tile(KT.ravel(), n_eyes) * COARSE_MM
    return ks, kt, eye_idx, s, t


def full_windows(block: np.ndarray) -> np.ndarray:
    """Windows of ``PATCH_SAMPLES`` x ``PATCH_SAMPLES`` samples that are all set.

    Such a window of fine samples spans ``PATCH_MM``: a visible patch.

    Parameters
    ----------
    block : (B, m, n) bool
        Sample flags on the fine lattice.

    Returns
    -------
    (B, m - W + 1, n - W + 1) bool, W = PATCH_SAMPLES
        Entry ``(b, i, j)`` is true when ``block[b, i:i + W, j:j + W]`` is all true.
    """
    w = PATCH_SAMPLES
    # integral images
    ii = np.pad(block.astype(np.int32).cumsum(1).cumsum(2), ((0, 0), (1, 0), (1, 0)))
    win = ii[:, w:, w:] - ii[:, :-w, w:] - ii[:, w:, :-w] + ii[:, :-w, :-w]
    return win == w * w


def find_patch(
    viewer: Cylinder,
    target: Cylinder,
    engine: RayEngine,
    occluders: list[Cylinder],
    *,
    stats: VisibilityStats | None = None,
    eye_spacing: float = EYE_SPACING_MM,
) -> PatchWitness | None:
    """Search for an eye point of ``viewer`` that sees a 3 x 3 mm patch of ``target``.

    Parameters
    ----------
    viewer, target : Cylinder
    engine : RayEngine
        BVH over the blocking scenery.
    occluders : list of Cylinder
        Other troopers' volumes that block (not markers, not troopers on a route).
    stats : VisibilityStats, optional
        Incremented with rays cast and eye points examined.
    eye_spacing : float, mm

    Returns
    -------
    PatchWitness or None
        None when no sampled eye point sees a patch.
    """
    stats = stats if stats is not None else VisibilityStats()
    occ = _cylinder_array(cull_occluders(viewer, target, occluders))
    eyes = eye_points(viewer, target, eye_spacing)
    for batch in eye_batches(eyes, _BATCH_SIZES):
        found = _search_batch(batch, target, engine, occ, stats)
        if found is not None:
            return found
    return None


def _cylinder_array(cyls: list[Cylinder]) -> np.ndarray:
    """(M, 5) float64: ``(bx, by, bz, radius, height)`` per cylinder."""
    if not cyls:
        return np.zeros((0, 5))
    return np.array([[*c.base, c.radius, c.height] for c in cyls], dtype=np.float64)


def _cast(view: ApparentView, engine, occ, eye_idx, s, t, stats) -> np.ndarray:
    """Clear (visible) flags for rays from eyes[eye_idx] through apparent points (s, t)."""
    _, status, todo, start, unit, dist = cast_view_rays(
        view.eyes,
        view.u,
        view.v,
        view.c,
        np.ascontiguousarray(eye_idx, dtype=np.int64),
        np.ascontiguousarray(s, dtype=np.float64),
        np.ascontiguousarray(t, dtype=np.float64),
        view.target_row,
        occ,
        engine.offset,
        RAY_EPS_MM,
    )
    clear = status == STATUS_CLEAR
    stats.rays += int((status != STATUS_MISS).sum())
    if len(todo):
        clear[todo] = ~engine.occluded_prepared(start, unit, dist)
    return clear


def _search_batch(eyes, target, engine, occ, stats) -> PatchWitness | None:
    view = ApparentView(eyes, target)
    ks, kt, eye_idx, s, t = coarse_samples(view.extent(), len(eyes))
    stats.eyes += len(eyes)
    clear = _cast(view, engine, occ, eye_idx, s, t, stats).reshape(len(eyes), len(ks), len(kt))
    cand = np.flatnonzero(clear.any(axis=(1, 2)))
    if not len(cand):
        return None
    stats.eyes_refined += len(cand)
    c = clear[cand]
    # A coarse cell (between lattice points k and k + 1 on each axis) is refined when one
    # of its four corners is clear: every fine sample within one coarse step of a clear
    # coarse sample lies in such a cell, so a 4 x 4 mm square around it is fully sampled.
    pad = np.pad(c, ((0, 0), (1, 1), (1, 1)))
    cell = pad[:, :-1, :-1] | pad[:, 1:, :-1] | pad[:, :-1, 1:] | pad[:, 1:, 1:]
    # cell (i, j) spans fine indices (ks[0] - 1 + i) * step + 0..step - 1 on each axis
    step = COARSE_STEP_SAMPLES
    active = np.repeat(np.repeat(cell, step, axis=1), step, axis=2)
    e_i, a_i, b_i = np.nonzero(active)
    fa = (ks[0] - 1) * step + a_i
    fb = (kt[0] - 1) * step + b_i
    fine = np.zeros(active.shape, dtype=bool)
    fine[e_i, a_i, b_i] = _cast(view, engine, occ, cand[e_i], fa * SAMPLE_MM, fb * SAMPLE_MM, stats)
    full = full_windows(fine)
    hit_eyes = np.flatnonzero(full.any(axis=(1, 2)))
    if not len(hit_eyes):
        return None
    k = int(hit_eyes[0])
    # of the clear windows, the one nearest the target's centre makes the clearest
    # witness for a diagram (ties: lowest indices, so the choice is deterministic)
    wins = np.argwhere(full[k])
    half = 0.5 * (PATCH_SAMPLES - 1)
    ca = (ks[0] - 1) * step + wins[:, 0] + half
    cb = (kt[0] - 1) * step + wins[:, 1] + half
    a, b = wins[int(np.argmin(ca * ca + cb * cb))]
    corner = ((ks[0] - 1) * step + int(a), (kt[0] - 1) * step + int(b))
    return _witness(view, int(cand[k]), corner, engine, occ, stats)


def _witness(view: ApparentView, i: int, corner, engine, occ, stats) -> PatchWitness:
    half = 0.5 * (PATCH_SAMPLES - 1)
    sc = (corner[0] + half) * SAMPLE_MM
    tc = (corner[1] + half) * SAMPLE_MM
    idx = np.array([i])
    pts, _hit = view.targets(idx, np.array([sc]), np.array([tc]))
    center = pts[0]
    # whole apparent view from the witness eye, for the visible area
    single = ApparentView(view.eyes[i : i + 1], view.target)
    s0, s1, t0, t1 = single.extent()
    fa = _lattice(s0, s1, SAMPLE_MM)
    fb = _lattice(t0, t1, SAMPLE_MM)
    A, B = np.meshgrid(fa, fb, indexing="ij")
    clear = _cast(
        single,
        engine,
        occ,
        np.zeros(A.size, dtype=np.int64),
        A.ravel() * SAMPLE_MM,
        B.ravel() * SAMPLE_MM,
        stats,
    )
    area = float(clear.sum()) * SAMPLE_MM * SAMPLE_MM
    e = view.eyes[i]
    return PatchWitness(
        eye=(float(e[0]), float(e[1]), float(e[2])),
        patch_center=(float(center[0]), float(center[1]), float(center[2])),
        visible_area_mm2=area,
    )
