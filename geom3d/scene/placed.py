"""Troopers stood on a scene, each with what the scene found about it alone.

:class:`geom3d.scene.scene.Scene` stands its troopers here (SPEC 11.2, 12.2, 13.1): an
``[x, y]`` trooper rests on the ground connected to its base's centre, then each is
checked on its own (embedded in scenery, inside a blocking zone, in an enclosed space,
far off the table). What a trooper's checks found depends on that trooper and the
scenery only, so it is kept with it (:class:`Stood`): a scene with one trooper moved
(:meth:`Scene.restand`) stands and checks that one trooper again and reuses every other
trooper's record. The warnings that involve two troopers (overlapping, engaged but
apart) are cheap and made again for every scene.

:func:`stand` and :func:`trooper_warnings` give a scene built from scratch and a scene
re-stood from another the same troopers and the same warnings, in the same order (each
disc's footing, each trooper's checks, are computed alone even when computed in a batch:
one ray, one probe pattern, per row).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from geom3d.bodies.kernel_constants import CONTACT_EPS_MM
from geom3d.core.messages import Message, warning
from geom3d.scenario import TrooperSpec
from geom3d.scene.embedding import crossing_faces, embedded_reasons
from geom3d.scene.reach import enclosed_warnings
from geom3d.scene.standing import footing_messages
from geom3d.scene.tolerances import ENGAGED_CONTACT_MM, FAR_OFF_TABLE_MM
from geom3d.scene.trooper import Trooper

#: The scene (:class:`geom3d.scene.scene.Scene`, which imports this module).
SceneLike = Any

__all__ = ["Stood", "stand", "trooper_warnings"]


@dataclass(frozen=True)
class Stood:
    """One trooper as a scene stood it, with what the scene found about it alone.

    Attributes
    ----------
    spec : TrooperSpec
        The body it was made from (a baseless vehicle's stand-in cylinder, as
        ``Scene._as_body`` makes it).
    trooper : Trooper
    footing : tuple of str
        Notes and warnings about where it rests (:func:`footing_messages`; empty for a
        trooper given its z).
    embedded : str or None
        Why it is embedded in scenery (:func:`embedded_reasons`), or None.
    in_zone : bool
        Inside a blocking terrain zone (SPEC 12.6: not "embedded", in smoke).
    enclosed : tuple of str
        Its enclosed-space warnings (SPEC 13.1; only when not embedded nor in a zone).
    off_table : str or None
        The "far off the table" warning, or None.
    """

    spec: TrooperSpec
    trooper: Trooper
    footing: tuple[str, ...]
    embedded: str | None
    in_zone: bool
    enclosed: tuple[str, ...]
    off_table: str | None


def _engaged(specs: Sequence[TrooperSpec]) -> dict[str, tuple[str, ...]]:
    """Each trooper's engaged partners, made symmetric, sorted."""
    engaged: dict[str, set[str]] = {t.id: set(t.engaged_with) for t in specs}
    for t in specs:
        for o in t.engaged_with:
            engaged[o].add(t.id)
    return {k: tuple(sorted(v)) for k, v in engaged.items()}


def stand(
    scene: SceneLike, specs: Sequence[TrooperSpec], keep: Mapping[str, Stood]
) -> dict[str, Stood]:
    """Stand ``specs`` (bodies, in file order) on ``scene``; the records by id, in order.

    Parameters
    ----------
    scene : Scene
        Its scenery, surface and ruleset are set (its troopers need not be).
    specs : sequence of TrooperSpec
        As ``Scene._as_body`` makes them.
    keep : mapping of str to Stood
        Records to reuse (another scene's on the same scenery): one is reused when its
        spec is this spec and its engaged partners are unchanged; every other trooper is
        stood and checked here, all of them in one batch.
    """
    engaged = _engaged(specs)
    reused: dict[str, Stood] = {}
    for t in specs:
        old = keep.get(t.id)
        if old is not None and old.spec is t and old.trooper.engaged_with == engaged[t.id]:
            reused[t.id] = old
    fresh = [t for t in specs if t.id not in reused]
    drop_xy = [t for t in fresh if len(t.position) == 2]
    radii = [scene._base_radius(t) for t in drop_xy]
    z_drop, variation, overlaps, support = scene.surface.footing(
        [t.position for t in drop_xy], radii
    )
    z_of = {t.id: float(z) for t, z in zip(drop_xy, z_drop, strict=True)}
    notes: dict[str, tuple[str, ...]] = {
        t.id: tuple(footing_messages(t.id, float(z), r, float(var), over, sup))
        for t, z, r, var, over, sup in zip(
            drop_xy, z_drop, radii, variation, overlaps, support, strict=True
        )
    }
    made = [scene._make_trooper(t, z_of, engaged[t.id]) for t in fresh]
    checks = _own_checks(scene, made)
    out: dict[str, Stood] = {}
    new = iter(zip(fresh, made, checks, strict=True))
    for t in specs:
        if t.id in reused:
            out[t.id] = reused[t.id]
            continue
        spec, trooper, (embedded, in_zone, enclosed, off) = next(new)
        out[t.id] = Stood(
            spec, trooper, notes.get(t.id, ()), embedded, in_zone, tuple(enclosed), off
        )
    return out


def _own_checks(scene: SceneLike, ts: list[Trooper]) -> list[tuple]:
    """``(embedded, in_zone, enclosed, off_table)`` of each trooper, checked alone."""
    if not ts:
        return []
    closing = scene.closing_mask[scene.blocking_mask]
    built = scene._built
    if built.crossing is None:  # the scenery's: made once, shared by its scenes
        built.crossing = crossing_faces(scene.blocking, closing, built.solid_of_element)
    reasons = embedded_reasons(
        ts, scene.engine, scene.blocking, closing, built.solid_of_element, built.crossing
    )
    in_zone = scene._in_blocking_zone(ts)
    out = []
    size = scene.scenario.table_size
    lo, hi = np.array([0.0, 0.0]), (np.array(size) if size else None)
    if hi is None and scene.scenery.n_triangles:
        lo = scene.scenery.vertices[:, :2].min(axis=0)
        hi = scene.scenery.vertices[:, :2].max(axis=0)
    for t, why in zip(ts, reasons, strict=True):
        zone = t.id in in_zone
        enclosed = enclosed_warnings(scene, [t]) if not why and not zone else []
        off = None
        if hi is not None:
            p = np.array(t.position[:2])
            far = float(np.max(np.maximum(lo - p, 0) + np.maximum(p - hi, 0)))
            if far > FAR_OFF_TABLE_MM:
                off = (
                    f"trooper {t.id!r} is {far / 1000:.1f} m off the table "
                    f"(a unit mistake? the file says units: {scene.scenario.units})"
                )
        out.append((why, zone, enclosed, off))
    return out


#: Plan slack (mm) of the vectorised screen of :func:`_pair_warnings`: a pair farther
#: apart than the sum of its radii plus this cannot overlap (each pair that may is then
#: tested exactly, as one pair at a time).
_PAIR_SCREEN_MM = 1.0


def _pair_warnings(ts: list[Trooper]) -> list[Message]:
    """Overlapping troopers, and engaged troopers not in contact (SPEC 12.2), in pair
    order. Only pairs near in plan, or engaged, are tested (numpy screens the rest)."""
    out: list[Message] = []
    if len(ts) < 2:
        return out
    xy = np.array([t.position[:2] for t in ts], dtype=np.float64)
    rad = np.array([t.radius for t in ts], dtype=np.float64)
    d = np.hypot(xy[:, None, 0] - xy[None, :, 0], xy[:, None, 1] - xy[None, :, 1])
    near = d < rad[:, None] + rad[None, :] + _PAIR_SCREEN_MM
    index = {t.id: k for k, t in enumerate(ts)}
    for k, t in enumerate(ts):
        for o in t.engaged_with:
            if o in index:
                near[k, index[o]] = near[index[o], k] = True
    for i, j in zip(*np.nonzero(np.triu(near, 1)), strict=True):
        a, b = ts[int(i)], ts[int(j)]
        if a.is_marker or b.is_marker:
            continue
        dd = math.hypot(a.position[0] - b.position[0], a.position[1] - b.position[1])
        za, zb = a.position[2], b.position[2]
        overlap_z = za < zb + b.height and zb < za + a.height
        if overlap_z and dd < a.radius + b.radius - CONTACT_EPS_MM:
            out.append(warning(f"troopers {a.id!r} and {b.id!r} overlap"))
        gap = dd - a.radius - b.radius
        if b.id in a.engaged_with and (gap > ENGAGED_CONTACT_MM or not overlap_z):
            out.append(
                warning(
                    f"troopers {a.id!r} and {b.id!r} are engaged but not in contact: "
                    f"{gap:.3f} mm apart in plan (contact needs {ENGAGED_CONTACT_MM} mm)"
                )
            )
    return out


def trooper_warnings(stood: Mapping[str, Stood]) -> list[str]:
    """Every message about the troopers, in the scene's order: each dropped trooper's
    footing, then the pairs' warnings, the enclosed spaces, the embedded troopers and
    the troopers far off the table (each in file order)."""
    recs = list(stood.values())
    out: list[str] = [m for s in recs for m in s.footing]
    out += _pair_warnings([s.trooper for s in recs])
    out += [warning(w) for s in recs for w in s.enclosed]
    for s in recs:
        t = s.trooper
        if s.embedded and not t.is_marker and not s.in_zone:
            out.append(
                warning(
                    f"trooper {t.id!r} is embedded in scenery: {s.embedded} "
                    f"(base at z = {t.position[2]:.1f} mm)"
                )
            )
    out += [warning(s.off_table) for s in recs if s.off_table]
    return out
