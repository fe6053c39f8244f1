"""The apparent view of a target cylinder (SPEC 3.1) and the lattices sampled in it.

For eye ``e`` the apparent plane passes through the target's centre ``c``, perpendicular
to the line of sight ``w = (c - e) / |c - e|``; ``u`` is horizontal, ``v = u x w``.
Apparent point ``(s, t)`` is ``c + s u + t v``; its *sample* is the first point of the
target on the ray from ``e`` through it. Sizes measured in this plane are *apparent*
sizes: the 3 x 3 mm rule is a rule on apparent size.

Samples lie on lattices anchored at ``c``: the fine lattice (spacing ``sample_mm``) and the
coarse pruning lattice (spacing ``patch_mm + sample_mm``), see :class:`PatchLattice`.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from geom3d.bodies.cylinder import Cylinder, ray_cylinder_entry
from geom3d.bodies.kernel_constants import APPARENT_DEPTH_EPS_MM, GEOM_EPS_MM
from geom3d.bodies.kernels import view_frames
from geom3d.core.tolerances import PATCH_MM, SAMPLE_MM
from geom3d.visibility.tolerances import APPARENT_CAP, RIM_POINTS

__all__ = [
    "ApparentView",
    "PatchLattice",
    "coarse_samples",
    "extent_limits",
    "full_windows",
    "lattice",
    "rim_points",
]


@dataclass(frozen=True)
class PatchLattice:
    """The sample lattices of a patch search, derived from the patch size.

    Parameters
    ----------
    patch_mm : float, mm
        Side of the minimum visible patch (a rule number: 3 mm in Infinity).
    sample_mm : float, mm
        Spacing of the fine lattice (a numeric tolerance, ``SAMPLE_MM``); ``patch_mm``
        must be a whole multiple of it.

    Raises
    ------
    ValueError
        ``patch_mm`` is not a positive whole multiple of ``sample_mm``.

    Attributes
    ----------
    window : int
        Fine samples along one side of a patch window (``patch_mm / sample_mm + 1``): a
        window of ``window`` x ``window`` counting samples spans ``patch_mm``.
    coarse_mm : float, mm
        Spacing of the coarse pruning lattice, ``patch_mm + sample_mm``: every closed
        square of that side (the size always found) contains a coarse point.
    coarse_step : int
        Fine samples per coarse step.
    """

    patch_mm: float = PATCH_MM
    sample_mm: float = SAMPLE_MM

    def __post_init__(self) -> None:
        ok = self.patch_mm > 0 and self.sample_mm > 0
        if ok:
            n = round(self.patch_mm / self.sample_mm)
            ok = abs(n * self.sample_mm - self.patch_mm) <= GEOM_EPS_MM
        if not ok:
            raise ValueError(
                f"patch_mm ({self.patch_mm!r}) must be a positive whole multiple of "
                f"sample_mm ({self.sample_mm!r})"
            )

    @property
    def window(self) -> int:
        return round(self.patch_mm / self.sample_mm) + 1

    @property
    def coarse_mm(self) -> float:
        return self.patch_mm + self.sample_mm

    @property
    def coarse_step(self) -> int:
        return round(self.coarse_mm / self.sample_mm)


class ApparentView:
    """Apparent-view frames of a batch of eye points looking at one cylinder.

    Shared by Line of Fire and Blast Focus Line of Fire (see the module docstring).
    ``parts``, optional: the target's ``(c, rim points, target_row)`` as a caller made
    them once per target (:func:`rim_points`; the same values, never modified).

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

    def __init__(self, eyes: np.ndarray, target: Cylinder, parts: tuple | None = None) -> None:
        self.eyes = np.ascontiguousarray(eyes, dtype=np.float64)
        self.target = target
        if parts is None:
            self.c = target.center
            self.target_row = np.array([*target.base, target.radius, target.height])
            self._rim = rim_points(target)
        else:  # made once per target by the caller (read only): the same values
            self.c, self._rim, self.target_row = parts
        self.u, self.v, self.w, self._ext = view_frames(self.eyes, self.c, self._rim)

    @functools.cached_property
    def dist(self) -> np.ndarray:
        """(E,) float64, mm: distance from each eye to ``c`` (made when first read: a
        witness's one-eye view never reads it)."""
        return np.linalg.norm(self.c - self.eyes, axis=1)

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

        The rectangle ``(s0, s1, t0, t1)`` (mm) bounds the projected rim polygon, padded
        by one sample plus the polygon's under-coverage of the circle, and is clipped to
        ``APPARENT_CAP`` target sizes around the centre. When a rim point lies beside or
        behind an eye point (depth <= ``APPARENT_DEPTH_EPS_MM``: the eye all but touches
        the target), the apparent view is unbounded and the clamped projection of the
        rim need not bound it, so the whole capped window is returned.
        """
        cap, rim_pad = extent_limits(self.target)
        s0, s1, t0, t1, scale, depth = self._ext
        if depth <= APPARENT_DEPTH_EPS_MM:
            return (-cap, cap, -cap, cap)
        # the polygon of rim points slightly under-covers the true outline: pad one sample
        pad = SAMPLE_MM + rim_pad * float(scale)
        return (
            max(float(s0) - pad, -cap),
            min(float(s1) + pad, cap),
            max(float(t0) - pad, -cap),
            min(float(t1) + pad, cap),
        )

    def targets(self, eye_idx: np.ndarray, s: np.ndarray, t: np.ndarray):
        """First points of the target on the rays from ``eyes[eye_idx]`` through (s, t).

        Parameters
        ----------
        eye_idx : (k,) int
        s, t : (k,) float, mm

        Returns
        -------
        points : (k, 3) float64, mm (undefined where ``hit`` is false)
        hit : (k,) bool
        """
        e = self.eyes[eye_idx]
        p = self.c + s[:, None] * self.u[eye_idx] + t[:, None] * self.v[eye_idx]
        d = p - e
        th = ray_cylinder_entry(e, d, self.target)
        hit = np.isfinite(th)
        pts = e + np.where(hit, th, 0.0)[:, None] * d
        return pts, hit


def extent_limits(t: Cylinder) -> tuple[float, float]:
    """The cap of an apparent extent (half side, mm: ``APPARENT_CAP`` target sizes) and the
    rim polygon's under-coverage of ``t``'s outline per unit of projection scale (mm)."""
    cap = APPARENT_CAP * max(t.radius * 2.0, t.height)
    return cap, t.radius * (1 - math.cos(math.pi / RIM_POINTS))


_UNIT_RIM = np.column_stack(
    [
        np.cos(np.linspace(0, 2 * np.pi, RIM_POINTS, endpoint=False)),
        np.sin(np.linspace(0, 2 * np.pi, RIM_POINTS, endpoint=False)),
    ]
)


def rim_points(t: Cylinder) -> np.ndarray:
    """(2 * RIM_POINTS, 3) float64, mm: points on the top and bottom rims of ``t``."""
    rim = np.empty((2 * RIM_POINTS, 3))
    rim[:RIM_POINTS, :2] = _UNIT_RIM * t.radius + t.base[:2]
    rim[RIM_POINTS:, :2] = rim[:RIM_POINTS, :2]
    rim[:RIM_POINTS, 2] = t.base[2]
    rim[RIM_POINTS:, 2] = t.top_z
    return rim


def lattice(lo: float, hi: float, step: float) -> np.ndarray:
    """Integer lattice indices ``k`` with ``lo <= k * step <= hi``.

    Parameters
    ----------
    lo, hi, step : float, mm

    Returns
    -------
    (n,) int64, ascending
    """
    return np.arange(math.ceil(lo / step), math.floor(hi / step) + 1)


def coarse_samples(extent, n_eyes: int, coarse_mm: float):
    """The coarse lattice (spacing ``coarse_mm``) within an apparent extent, for each eye.

    Parameters
    ----------
    extent : (s0, s1, t0, t1) float, mm
        Apparent rectangle, e.g. :meth:`ApparentView.extent`.
    n_eyes : int
        Eyes in the batch.
    coarse_mm : float, mm
        :attr:`PatchLattice.coarse_mm`.

    Returns
    -------
    ks, kt : (n_s,), (n_t,) int64
        Lattice indices along ``s`` and ``t`` (sample ``k`` lies at ``k * coarse_mm``).
    eye_idx : (n_eyes * n_s * n_t,) int64
    s, t : (n_eyes * n_s * n_t,) float64, mm
        Every lattice point for every eye, ordered eye, then ``s``, then ``t``: the flat
        results reshape to ``(n_eyes, n_s, n_t)``.
    """
    s0, s1, t0, t1 = extent
    ks = lattice(s0, s1, coarse_mm)
    kt = lattice(t0, t1, coarse_mm)
    KS, KT = np.meshgrid(ks, kt, indexing="ij")
    eye_idx = np.repeat(np.arange(n_eyes), len(ks) * len(kt))
    s = np.tile(KS.ravel(), n_eyes) * coarse_mm
    t = np.tile(KT.ravel(), n_eyes) * coarse_mm
    return ks, kt, eye_idx, s, t


def full_windows(block: np.ndarray, window: int) -> np.ndarray:
    """Windows of ``window`` x ``window`` samples that are all set.

    Such a window of fine samples spans ``(window - 1) * sample_mm``: a visible patch.

    Parameters
    ----------
    block : (B, m, n) bool
        Sample flags on the fine lattice.
    window : int
        :attr:`PatchLattice.window` (4 for a 3 mm patch on a 1 mm lattice).

    Returns
    -------
    (B, m - W + 1, n - W + 1) bool, W = window
        Entry ``(b, i, j)`` is true when ``block[b, i:i + W, j:j + W]`` is all true.
    """
    w = window
    # integral images
    ii = np.pad(block.astype(np.int32).cumsum(1).cumsum(2), ((0, 0), (1, 0), (1, 0)))
    win = ii[:, w:, w:] - ii[:, :-w, w:] - ii[:, w:, :-w] + ii[:, :-w, :-w]
    return win == w * w
