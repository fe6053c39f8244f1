"""Blast Focus Line of Fire: from the template's focus segment to the part of a silhouette
inside the template volume (SPEC 4.1; see :mod:`geom3d.rules.infinity` for the rule).

Built on the one visibility core (:mod:`geom3d.visibility`): the eye points are samples of
the Blast Focus segment (:func:`focus_eyes`), and the coarse-to-fine patch search
(:func:`geom3d.visibility.search_patch`) runs over the sample predicate
:class:`InsideVolumeClear` - a sample counts when its ray's first point on the silhouette
lies inside the template volume and the segment to it is clear of blocking scenery
(troopers never block template LoF). Only the apparent region covered by the inside part
is sampled. The search, its guarantees (a counting region containing a ``patch_mm +
SAMPLE_MM`` square is found, one containing no ``patch_mm`` square never counts) and its
compiled path are Line of Fire's.

The deciding ray of a patch runs from the witness eye to the patch window's counting
sample nearest its centre. When the part inside the volume is smaller than a patch from
every eye point (the same search with the scenery switched off finds none), one clear ray
from any eye point to any sampled point of the part (or the exact touch witness) suffices.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from geom3d.bodies.cylinder import Cylinder, ray_cylinder_entry
from geom3d.bodies.kernel_constants import APPARENT_DEPTH_EPS_MM
from geom3d.core.tolerances import (
    EYE_SPACING_MM,
    PATCH_MM,
    SAMPLE_MM,
    STAND_INSET_MM,
    SURFACE_INSET_MM,
)
from geom3d.raycast.base import RayBackend
from geom3d.templates import TemplateVolume, sample_inside, touch_witness
from geom3d.visibility import (
    ApparentView,
    PatchLattice,
    VisibilityStats,
    cast_target,
    search_patch,
    two_adic,
)

__all__ = [
    "FocusLof",
    "FocusStats",
    "InsideVolumeClear",
    "blast_focus_lof",
    "focus_eyes",
    "t3",
]

#: Counters of a Blast Focus search: the visibility core's (``rays`` counts the segments
#: handed to the ray engine).
FocusStats = VisibilityStats

_NO_OCCLUDERS = np.zeros((0, 5))


# --------------------------------------------------------------------------------------
# Blast Focus Line of Fire
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FocusLof:
    """Line of Fire from a Blast Focus to the part of a silhouette inside the template.

    Attributes
    ----------
    affected : bool
    kind : str or None
        ``focus_inside`` (the focus segment meets the silhouette), ``patch`` (a clear
        3 x 3 mm apparent patch), ``small_part`` (the inside part is smaller than a patch
        and one clear ray reaches it); None when not affected.
    eye, target : (3,) tuple of float or None
        The deciding ray: a point of the focus segment and a point of the silhouette
        inside the volume.
    small : bool
        The inside part is smaller than a patch from every eye point.
    reason : str or None
        ``total_cover`` when not affected.
    """

    affected: bool
    kind: str | None
    eye: tuple[float, float, float] | None
    target: tuple[float, float, float] | None
    small: bool = False
    reason: str | None = None


def t3(p) -> tuple[float, float, float]:
    """A point as a tuple of three Python floats (mm)."""
    return (float(p[0]), float(p[1]), float(p[2]))


def focus_eyes(volume: TemplateVolume, spacing: float = EYE_SPACING_MM) -> np.ndarray:
    """Eye points on the Blast Focus segment.

    From ``STAND_INSET_MM`` above the placement plane (or half the height, if lower) to the
    template's top, at most ``spacing`` apart; ordered top first, then coarse-to-fine.

    Returns
    -------
    (n, 3) float, mm
    """
    f = volume.local_frame()
    h = volume.height
    w0 = min(STAND_INSET_MM, 0.5 * h)
    n = max(1, math.ceil((h - w0) / spacing))
    ws = np.linspace(h, w0, n + 1)
    idx = np.arange(n + 1)
    order = np.lexsort((idx, -two_adic(idx)))
    return f.origin[None, :] + ws[order, None] * f.normal[None, :]


class InsideVolumeClear:
    """The Blast Focus sample predicate (see the module docstring).

    Parameters
    ----------
    volume : TemplateVolume
    engine : RayBackend or None
        BVH over the blocking scenery; None tests the volume only (the "small part"
        test: no ray is cast).
    stats : FocusStats
        ``rays`` counts the segments handed to ``engine``.
    """

    def __init__(
        self, volume: TemplateVolume, engine: RayBackend | None, stats: VisibilityStats
    ) -> None:
        self.volume = volume
        self.engine = engine
        self.stats = stats

    def __call__(self, view: ApparentView, eye_idx, s, t):
        # no occluders: every ray that reaches the silhouette is left for the scenery test
        pts, _, reach, origins, ends = cast_target(view, eye_idx, s, t, _NO_OCCLUDERS)
        ok = np.zeros(len(pts), dtype=bool)
        if len(reach):
            inside = self.volume.contains(ends)
            if self.engine is not None and inside.any():
                k = np.flatnonzero(inside)
                self.stats.rays += len(k)
                inside[k] = ~self.engine.occluded_segments(origins[k], ends[k])
            ok[reach] = inside
        return ok, pts


def _part_extent(view: ApparentView, pts: np.ndarray):
    """Apparent bounding rectangle of the inside part (union over the batch's eyes)."""
    full = view.extent()
    if not len(pts):
        return full
    s, t, depth = view.project(pts)
    if (depth <= APPARENT_DEPTH_EPS_MM).any():
        return full  # some of the part lies beside or behind an eye: take the whole view
    scale = float((view.dist[:, None] / depth).max())
    # samples are cell centres <= SAMPLE_MM apart: the part reaches about one cell beyond
    pad = 1.5 * SAMPLE_MM * scale + SAMPLE_MM
    return (
        max(float(s.min()) - pad, full[0]),
        min(float(s.max()) + pad, full[1]),
        max(float(t.min()) - pad, full[2]),
        min(float(t.max()) + pad, full[3]),
    )


def _search(volume, cyl, eyes, part_pts, engine, stats, lattice):
    """(eye, target) of the first patch the core search finds, or None."""
    if not len(eyes):
        return None
    cast = InsideVolumeClear(volume, engine, stats)
    hit = search_patch(eyes, cyl, cast, lattice, extent=lambda view: _part_extent(view, part_pts))
    return None if hit is None else (hit.eye_point, hit.sample)


def _single_ray(eyes, targets, engine, stats):
    """The first clear (eye, target) pair, eye by eye; None when all are blocked."""
    if engine is None or engine.n_triangles == 0:
        return t3(eyes[0]), t3(targets[0])
    per = max(1, 512 // max(1, len(targets)))
    for k in range(0, len(eyes), per):
        E = eyes[k : k + per]
        o = np.repeat(E, len(targets), axis=0)
        d = np.tile(targets, (len(E), 1))
        stats.rays += len(o)
        clear = ~engine.occluded(o, d)
        if clear.any():
            i = int(np.flatnonzero(clear)[0])
            return t3(o[i]), t3(d[i])
    return None


def blast_focus_lof(
    volume: TemplateVolume,
    cylinder: Cylinder,
    engine,
    *,
    patch_mm: float = PATCH_MM,
    stats: FocusStats | None = None,
    eye_spacing: float = EYE_SPACING_MM,
) -> FocusLof:
    """Can Line of Fire be traced from the Blast Focus to ``cylinder``'s inside part?

    See the module docstring for the method and its guarantees. The caller has
    established that the cylinder touches the volume; if it does not, the answer is
    "not affected" with reason None.

    Parameters
    ----------
    volume : TemplateVolume
    cylinder : Cylinder
    engine : geom3d.raycast.RayBackend
        BVH over the blocking scenery (troopers do not block).
    patch_mm : float, mm
        Side of the minimum visible patch (the ruleset's number; Infinity: 3 mm).
    stats : FocusStats, optional
    eye_spacing : float, mm

    Returns
    -------
    FocusLof
    """
    stats = stats if stats is not None else FocusStats()
    lat = PatchLattice(patch_mm)
    seg = volume.focus_segment()
    d = seg[1] - seg[0]
    t_in = float(ray_cylinder_entry(seg[:1], d[None, :], cylinder)[0])
    if t_in <= 1.0:
        p = t3(seg[0] + t_in * d)
        return FocusLof(True, "focus_inside", p, p)
    inset = min(SURFACE_INSET_MM, 0.25 * cylinder.radius, 0.25 * cylinder.height)
    binset = min(STAND_INSET_MM, 0.25 * cylinder.height)
    part = sample_inside(volume, cylinder, SAMPLE_MM, inset_mm=inset, bottom_inset_mm=binset)
    if not part.touches:
        return FocusLof(False, None, None, None)
    eyes = focus_eyes(volume, eye_spacing)
    pts = part.points
    if not part.witness_only:
        # the top eye first: most troopers in a template are in plain view of it
        found = _search(volume, cylinder, eyes[:1], pts, engine, stats, lat)
        if found is not None:
            return FocusLof(True, "patch", found[0], found[1])
        # "small" = the same search with the scenery switched off finds no patch either
        if _search(volume, cylinder, eyes, pts, None, stats, lat) is not None:
            found = _search(volume, cylinder, eyes[1:], pts, engine, stats, lat)
            if found is not None:
                return FocusLof(True, "patch", found[0], found[1])
            return FocusLof(False, None, None, None, small=False, reason="total_cover")
    # the inside part is smaller than a patch: one clear ray suffices
    w = touch_witness(volume, cylinder)
    targets = pts if w is None else np.vstack([pts, w[None, :]])
    ray = _single_ray(eyes, targets, engine, stats)
    if ray is not None:
        return FocusLof(True, "small_part", ray[0], ray[1], small=True)
    return FocusLof(False, None, None, None, small=True, reason="total_cover")
