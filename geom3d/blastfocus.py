"""Blast Focus Line of Fire: from the template's focus segment to the part of a silhouette
inside the template volume (SPEC 4.1; see :mod:`geom3d.rules.infinity` for the rule).

Moved out of ``rules/infinity.py`` unchanged; it is to be rebuilt on the one visibility core.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from geom3d.bodies import Cylinder, ray_cylinder_entry
from geom3d.templates import TemplateVolume, sample_inside, touch_witness
from geom3d.tolerances import (
    APPARENT_DEPTH_EPS_MM,
    COARSE_STEP_SAMPLES,
    EYE_SPACING_MM,
    SAMPLE_MM,
    STAND_INSET_MM,
    SURFACE_INSET_MM,
)
from geom3d.visibility import (
    ApparentView,
    coarse_samples,
    eye_batches,
    full_windows,
    two_adic,
)

__all__ = ["FocusLof", "FocusStats", "blast_focus_lof", "focus_eyes", "t3"]

_BATCH_SIZES = (1, 8, 32, 64)
_CHUNK = 8  # coarse samples refined per engine call
_GOLDEN = (math.sqrt(5.0) - 1.0) / 2.0


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


@dataclass
class FocusStats:
    """Counters: segments cast, eye points examined."""

    rays: int = 0
    eyes: int = 0


def t3(p) -> tuple[float, float, float]:
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


def _cast(view: ApparentView, volume, engine, eye_idx, s, t, stats: FocusStats):
    """Counting flags and target points of rays from eyes[eye_idx] through (s, t).

    A sample counts when its ray's first silhouette point is inside the volume and, with
    an ``engine``, the segment to it is clear of blocking scenery.
    """
    pts, hit = view.targets(eye_idx, s, t)
    ok = hit.copy()
    if ok.any():
        h = np.flatnonzero(ok)
        ok[h] = volume.contains(pts[h])
    if engine is not None and ok.any():
        h = np.flatnonzero(ok)
        stats.rays += len(h)
        ok[h] = ~engine.occluded(view.eyes[eye_idx[h]], pts[h])
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


def _search(volume, cyl, eyes, part_pts, engine, stats):
    """Coarse-to-fine patch search; (eye, target) of the first patch found, or None.

    With ``engine=None`` no ray is cast (the "small part" test): eyes are then taken in
    one batch after the first, and fine blocks in bigger chunks, which changes the cost,
    never the answer (found or not).
    """
    batches = _BATCH_SIZES if engine is not None else (1, len(eyes))
    chunk = _CHUNK if engine is not None else 8 * _CHUNK
    off = np.arange(-COARSE_STEP_SAMPLES, COARSE_STEP_SAMPLES + 1)
    m = len(off)
    for batch in eye_batches(eyes, batches):
        view = ApparentView(batch, cyl)
        ks, kt, eye_idx, s, t = coarse_samples(_part_extent(view, part_pts), len(batch))
        if not len(ks) or not len(kt):
            continue
        stats.eyes += len(batch)
        coarse, _ = _cast(view, volume, engine, eye_idx, s, t, stats)
        coarse = coarse.reshape(len(batch), len(ks), len(kt))
        if not coarse.any():
            continue
        # counting coarse samples, eye by eye (batch order), best-connected first
        pad = np.pad(coarse, ((0, 0), (1, 1), (1, 1))).astype(np.int32)
        nb = pad[:, :-2, 1:-1] + pad[:, 2:, 1:-1] + pad[:, 1:-1, :-2] + pad[:, 1:-1, 2:]
        e_i, a_i, b_i = np.nonzero(coarse)
        order = np.lexsort((b_i, a_i, -nb[e_i, a_i, b_i], e_i))
        e_i, a_i, b_i = e_i[order], a_i[order], b_i[order]
        for k0 in range(0, len(a_i), chunk):
            ce, ca, cb = e_i[k0 : k0 + chunk], a_i[k0 : k0 + chunk], b_i[k0 : k0 + chunk]
            B = len(ca)
            fa = ks[ca][:, None] * COARSE_STEP_SAMPLES + off[None, :]  # (B, m)
            fb = kt[cb][:, None] * COARSE_STEP_SAMPLES + off[None, :]
            FA = np.broadcast_to(fa[:, :, None], (B, m, m)).ravel()
            FB = np.broadcast_to(fb[:, None, :], (B, m, m)).ravel()
            EI = np.repeat(ce, m * m)
            ok, pts = _cast(view, volume, engine, EI, FA * SAMPLE_MM, FB * SAMPLE_MM, stats)
            full = full_windows(ok.reshape(B, m, m))
            if full.any():
                bq, i, j = (int(x) for x in np.argwhere(full)[0])
                # the window's sample nearest its centre (a real counting sample)
                flat = (bq * m + i + 1) * m + j + 1
                return t3(batch[ce[bq]]), t3(pts[flat])
    return None


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
    engine : geom3d.raycast.RayEngine
        BVH over the blocking scenery (troopers do not block).
    stats : FocusStats, optional
    eye_spacing : float, mm

    Returns
    -------
    FocusLof
    """
    stats = stats if stats is not None else FocusStats()
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
        found = _search(volume, cylinder, eyes[:1], pts, engine, stats)
        if found is not None:
            return FocusLof(True, "patch", found[0], found[1])
        # "small" = the same search with the scenery switched off finds no patch either
        if _search(volume, cylinder, eyes, pts, None, stats) is not None:
            found = _search(volume, cylinder, eyes[1:], pts, engine, stats)
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
