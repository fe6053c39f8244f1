"""Infinity template adjudication (SPEC 4.1; rule texts ``000_*``, ``001_*``, ``002_*``).

A trooper is in a template's **area of effect** when its silhouette cylinder touches or
overlaps the template volume (exact test, contact counts) **and** Line of Fire can be
traced from the Blast Focus to the part of its silhouette inside the volume without being
blocked by scenery (Total Cover). Troopers never block template LoF.

Blast Focus Line of Fire (:func:`blast_focus_lof`)
--------------------------------------------------
*Eye points* are samples of the Blast Focus segment (the vertical segment through the
focus point spanning the template's height; along the plane's normal when pitched) every
``EYE_SPACING_MM``, the lowest inset ``STAND_INSET_MM`` above the placement plane (which
usually lies on the surface the attacker or the main target stands on).

*Within the template volume*: the volume is convex and both ends of every ray (an eye on
the focus segment, a target point of the silhouette inside the volume) lie in it, so each
ray lies in the volume automatically; nothing has to be clipped.

*The 3 x 3 mm rule* is applied with **apparent size**, exactly as for Line of Fire
(SPEC 3.1, :mod:`geom3d.visibility`): from an eye point, the target's apparent view is
sampled on a 1 mm lattice in the plane through the silhouette's centre perpendicular to
the line of sight; a sample counts when its ray's first point on the silhouette lies
inside the template volume (the part of the silhouette inside the volume; by convexity,
a ray leaving the volume before reaching the silhouette never re-enters it) and the ray
is clear of blocking scenery. A full 4 x 4 window of counting samples (3 x 3 mm) from one
eye point is a visible patch. Decision: apparent size rather than sampling on the
silhouette's surface, because a surface-measured patch lets a grazing view through a
1 mm crack count as a large patch (the reason SPEC 3.1 chose apparent size), and one rule
for LoF and for templates is easier to explain. Only the apparent region covered by the
inside part is sampled, so a trooper barely inside a template costs little.

The search is coarse-to-fine: a 4 mm coarse lattice first (every 4 x 4 mm square contains
a coarse point, so eyes with no counting coarse sample are dropped: exact pruning), then a
9 x 9 block of 1 mm samples around each counting coarse sample, best-connected first.
Guarantees as for LoF: a clear part whose apparent view from a sampled eye contains a
4 x 4 mm square is found; one containing no 3 x 3 mm square never counts as a patch.

*Small parts*: when the same search **without any scenery** finds no patch either (the
part inside the volume is smaller than a 3 x 3 mm patch from every eye point: a base that
barely overlaps the template's rim, one touching it at a single point), a single
unobstructed ray from any eye point to any point of the inside part suffices (the surface
samples of :func:`geom3d.templates.sample_inside` at 1 mm, and the exact touch witness).
Because the "small" test is the same search with scenery switched off, a trooper that
touches the template on a table without blocking scenery is always affected.

*Focus inside*: when the Blast Focus segment itself meets the silhouette (an impact
template centred under its main target, a mine under a trooper), the trooper is in the
area with no ray to cast.

Thin occluders narrower than the 1 mm sample spacing can be missed (as for LoF).

Rules applied per placement (outcome precedence: invalid, then failed, then cancelled)
--------------------------------------------------------------------------------------
* direct teardrop: narrow end on the attacker's base edge at ``contact_deg`` (default:
  the heading's direction), axis along ``heading_deg`` (``auto``/absent: towards the main
  target's base centre), placement plane at the attacker's base underside. Passing
  through the attacker's silhouette is ``invalid``/``through_attacker``; an explicit
  ``focus`` must touch the attacker's silhouette within ``PLACEMENT_TOL_MM``
  (``not_touching_attacker``). Direct circular: centred on the attacker's base centre.
* impact: circular template centred on the underside of the main target's base (or on
  ``focus``); ``failed``/``no_lof`` when the attacker has no LoF to the main target and
  the weapon is not speculative.
* deployable: placed at ``focus`` (``[x, y]`` drops onto the surface).
* main target not in the area of effect (including Total Cover from the Blast Focus: the
  rule text says the area of effect "may be determined by the presence of scenery") ->
  ``failed``/``main_target_outside``. Note: the rule text's Fusilier example calls this
  attack "cancelled"; the SPEC's contract (followed here) calls it ``failed`` and keeps
  ``cancelled`` for allied/neutral troopers in the area.
* close combat: when any trooper of an engaged group (a connected component of
  ``engaged_with``) is in the area, every trooper of the group is (witness kind
  ``engaged``). Decision: "touching" in the SPEC is read as "in the area of effect"
  (touching with LoF from the Blast Focus); a group member in Total Cover does not drag
  the group in.
* allied (same side as the attacker) or neutral (side ``neutral``) trooper in the area ->
  ``cancelled``/``allied_in_area`` unless ``harmless``.
* the attacker is never affected by its own **direct** template (excluded, ``attacker``).
  Decision: for impact and deployable templates (which the rules do not exempt) an
  attacker in the area is treated like any allied trooper.
* moving troopers (``route``): in the area if the silhouette touched the volume at some
  point of the route with LoF from the Blast Focus there. Level volumes: the touching
  stretch of each route segment is found exactly (the plan distance to the template is
  convex along a segment, the z condition an interval; z is linear between route
  vertices), then Blast Focus LoF is tried at its deepest point, its ends and every
  ``ROUTE_STEP_MM`` along it. Pitched volumes: the route is sampled every
  ``ROUTE_TOUCH_STEP_MM`` with the exact contact test.

Per affected trooper: ``role`` (``main`` for the main target of a resolved placement that
affects it), ``dodge`` (``PH``; ``PH-3`` when it has no LoF to the attacker, by
``scene.line_of_fire(trooper, attacker)``, or the weapon is deployable),
``face_to_face`` (impact only), ``critical_applies`` (main target only),
``partial_cover_bonus`` (always false).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from geom3d.attacks import PlacementResult, PlacementSpec, combine, invalid_placement
from geom3d.blastfocus import FocusLof, FocusStats, blast_focus_lof, focus_eyes
from geom3d.blastfocus import t3 as _t3
from geom3d.bodies import Cylinder
from geom3d.placement import (
    default_heading,
    direct_teardrop_volume,
    passes_through,
    touches_within,
)
from geom3d.templates import (
    CircleShape,
    TemplateVolume,
    shape_from_spec,
    volume_touches_cylinder,
)
from geom3d.tolerances import (
    CONTACT_EPS_MM,
    PLACEMENT_TOL_MM,
    ROUTE_STEP_MM,
    ROUTE_TOUCH_STEP_MM,
)

__all__ = [
    "FocusLof",
    "FocusStats",
    "blast_focus_lof",
    "engaged_groups",
    "focus_eyes",
    "resolve",
]

_GOLDEN = (math.sqrt(5.0) - 1.0) / 2.0


# --------------------------------------------------------------------------------------
# contact along a route
# --------------------------------------------------------------------------------------


def _route_candidates(volume: TemplateVolume, t) -> list[np.ndarray]:
    """Base positions along ``t``'s route where it touches the volume, best first."""
    pts = np.asarray(t.route, dtype=np.float64)
    if len(pts) == 1:
        pts = np.vstack([pts, pts])
    out: list[np.ndarray] = []
    for a, b in itertools.pairwise(pts):
        if volume.is_level:
            out.extend(_level_segment_candidates(volume, a, b, t.radius, t.height))
        else:
            out.extend(_pitched_segment_candidates(volume, a, b, t.radius, t.height))
    return out


def _level_segment_candidates(volume, a, b, r, h) -> list[np.ndarray]:
    f = volume.local_frame()
    z0 = float(f.origin[2])
    top = z0 + volume.height
    eps = CONTACT_EPS_MM
    # z condition: base z(t) <= top + eps and z(t) + h >= z0 - eps, z linear in t
    lo, hi = 0.0, 1.0
    za, dz = float(a[2]), float(b[2] - a[2])
    for coef, rhs in ((dz, top + eps - za), (-dz, za + h - z0 + eps)):
        # coef * t <= rhs
        if abs(coef) < 1e-15:
            if rhs < 0:
                return []
        elif coef > 0:
            hi = min(hi, rhs / coef)
        else:
            lo = max(lo, rhs / coef)
    if lo > hi:
        return []
    shape = volume.shape

    def g(s: float) -> float:
        p = a + s * (b - a)
        c = p - f.origin
        return float(shape.signed_distance_xy(c @ f.u, c @ f.v)) - r

    # g is convex (signed distance to a convex set along a line): golden-section minimum
    x0, x1 = lo, hi
    for _ in range(100):
        if x1 - x0 <= 1e-12:
            break
        m1 = x1 - _GOLDEN * (x1 - x0)
        m2 = x0 + _GOLDEN * (x1 - x0)
        if g(m1) <= g(m2):
            x1 = m2
        else:
            x0 = m1
    sm = 0.5 * (x0 + x1)
    cands = [(g(lo), lo), (g(hi), hi), (g(sm), sm)]
    gmin, smin = min(cands)
    if gmin > eps:
        return []

    def edge(inside: float, outside: float) -> float:
        if g(outside) <= eps:
            return outside
        for _ in range(60):
            mid = 0.5 * (inside + outside)
            if g(mid) <= eps:
                inside = mid
            else:
                outside = mid
        return inside

    ta, tb = edge(smin, lo), edge(smin, hi)
    length = float(np.linalg.norm((b - a)[:2])) * (tb - ta)
    n = max(1, math.ceil(length / ROUTE_STEP_MM))
    ts = [smin, ta, tb, *(ta + (tb - ta) * k / n for k in range(1, n))]
    return [a + s * (b - a) for s in ts]


def _pitched_segment_candidates(volume, a, b, r, h) -> list[np.ndarray]:
    length = float(np.linalg.norm(b - a))
    n = max(1, math.ceil(length / ROUTE_TOUCH_STEP_MM))
    touching = []
    for k in range(n + 1):
        p = a + (b - a) * (k / n)
        if volume_touches_cylinder(volume, Cylinder(_t3(p), r, h)):
            touching.append(p)
    if len(touching) <= 2:
        return touching
    every = max(1, round(ROUTE_STEP_MM / max(length / n, 1e-9)))
    mid = touching[len(touching) // 2]
    return [mid, touching[0], touching[-1], *touching[1:-1:every]]


# --------------------------------------------------------------------------------------
# engaged groups
# --------------------------------------------------------------------------------------


def engaged_groups(scene) -> dict[str, tuple[str, ...]]:
    """Trooper id -> its engaged group (connected component of ``engaged_with``).

    Only troopers engaged with someone appear; groups are in scenario order.
    """
    order = list(scene.troopers)
    seen: dict[str, tuple[str, ...]] = {}
    for tid in order:
        t = scene.troopers[tid]
        if tid in seen or not t.engaged_with:
            continue
        comp = {tid}
        todo = [tid]
        while todo:
            x = todo.pop()
            for y in scene.troopers[x].engaged_with:
                if y not in comp:
                    comp.add(y)
                    todo.append(y)
        group = tuple(i for i in order if i in comp)
        for i in group:
            seen[i] = group
    return seen


# --------------------------------------------------------------------------------------
# placements
# --------------------------------------------------------------------------------------


def _focus_point(scene, focus, default_z: float | None) -> tuple[float, float, float]:
    if len(focus) == 3:
        return _t3(focus)
    z = default_z if default_z is not None else float(scene.surface_z([focus[:2]])[0])
    return (float(focus[0]), float(focus[1]), z)


def _place(scene, attack, shape, attacker, spec: PlacementSpec):
    """(volume, heading, contact) or a PlacementResult for an invalid placement."""
    mode = attack.mode
    is_circle = isinstance(shape, CircleShape)
    main = scene.troopers.get(spec.main_target) if spec.main_target else None
    heading = spec.heading_deg if isinstance(spec.heading_deg, float | int) else None
    contact = spec.contact_deg
    pitch = spec.pitch_deg
    if mode == "direct":
        if is_circle:
            focus = (
                _focus_point(scene, spec.focus, attacker.position[2])
                if spec.focus is not None
                else attacker.position
            )
            h = heading if heading is not None else 0.0
            return TemplateVolume(shape, focus, h, pitch), h, None
        if heading is None:
            towards = main.position if main is not None and main.id != attacker.id else None
            heading = default_heading(contact, attacker.position, towards)
            if heading is None:
                return invalid_placement(spec, "no_heading")
        if spec.focus is not None:
            vol = TemplateVolume(
                shape, _focus_point(scene, spec.focus, attacker.position[2]), heading, pitch
            )
            if not touches_within(vol, attacker.cylinder, PLACEMENT_TOL_MM):
                return invalid_placement(spec, "not_touching_attacker", vol, heading, contact)
        else:
            if contact is None:
                contact = heading
            vol = direct_teardrop_volume(
                shape, attacker.position, attacker.radius, heading, contact, pitch
            )
        if passes_through(vol, attacker.cylinder):
            return invalid_placement(spec, "through_attacker", vol, heading, contact)
        return vol, heading, contact
    if mode == "impact":
        if not is_circle:
            return invalid_placement(spec, "impact_not_circular")
        if spec.focus is not None:
            focus = _focus_point(scene, spec.focus, None)
        elif main is not None:
            focus = main.position
        else:
            return invalid_placement(spec, "no_main_target")
        h = heading if heading is not None else 0.0
        return TemplateVolume(shape, focus, h, pitch), h, None
    # deployable
    if spec.focus is None:
        return invalid_placement(spec, "no_focus")
    focus = _focus_point(scene, spec.focus, None)
    if heading is None:
        if is_circle:
            heading = 0.0
        else:
            heading = default_heading(contact, focus, None if main is None else main.position)
            if heading is None:
                return invalid_placement(spec, "no_heading")
    return TemplateVolume(shape, focus, heading, pitch), heading, None


def _bounds_overlap(vb: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> bool:
    return bool(np.all(lo <= vb[1] + CONTACT_EPS_MM) and np.all(hi >= vb[0] - CONTACT_EPS_MM))


def _area(scene, attack, attacker, volume, stats):
    """Per trooper touching the volume: ('in', witness) / ('total_cover',) / ('attacker',)."""
    vb = volume.bounds()
    status: dict[str, tuple] = {}
    for t in scene.troopers.values():
        if t.route is not None:
            rp = np.asarray(t.route, dtype=np.float64)
            lo = rp.min(axis=0) - [t.radius, t.radius, 0.0]
            hi = rp.max(axis=0) + [t.radius, t.radius, t.height]
        else:
            p = np.asarray(t.position)
            lo = p - [t.radius, t.radius, 0.0]
            hi = p + [t.radius, t.radius, t.height]
        if not _bounds_overlap(vb, lo, hi):
            continue
        if t.route is not None:
            positions = _route_candidates(volume, t)
        else:
            positions = (
                [np.asarray(t.position)] if volume_touches_cylinder(volume, t.cylinder) else []
            )
        if not positions:
            continue
        if t.id == attacker.id and attack.mode == "direct":
            status[t.id] = ("attacker",)
            continue
        verdict = None
        for pos in positions:
            cyl = Cylinder(_t3(pos), t.radius, t.height)
            r = blast_focus_lof(volume, cyl, scene.engine, stats=stats)
            if r.affected:
                w = {"kind": r.kind, "eye": r.eye, "target": r.target}
                if t.route is not None:
                    w["position"] = _t3(pos)
                verdict = ("in", w)
                break
        status[t.id] = verdict if verdict is not None else ("total_cover",)
    return status


def _resolve_placement(scene, attack, shape, attacker, spec, groups, lof_cache, stats):
    placed = _place(scene, attack, shape, attacker, spec)
    if isinstance(placed, PlacementResult):
        return placed
    volume, heading, contact = placed
    status = _area(scene, attack, attacker, volume, stats)
    # close combat: a group with a member in the area is in the area as a whole
    for tid in [k for k, v in status.items() if v[0] == "in"]:
        for other in groups.get(tid, ()):
            if other == attacker.id and attack.mode == "direct":
                status[other] = ("attacker",)
            elif other not in status or status[other][0] != "in":
                status[other] = ("in", {"kind": "engaged", "via": tid})
    order = list(scene.troopers)
    in_area = [t for t in order if t in status and status[t][0] == "in"]
    excluded = {t: status[t][0] for t in order if t in status and status[t][0] != "in"}
    witnesses = {t: status[t][1] for t in in_area}
    main = spec.main_target
    mtia = None if main is None else main in in_area
    res = PlacementResult(
        index=spec.index,
        volume=volume,
        heading_deg=heading,
        contact_deg=contact,
        pitch_deg=spec.pitch_deg,
        outcome="resolved",
        reason=None,
        main_target=main,
        main_target_in_area=mtia,
        in_area=in_area,
        excluded=excluded,
        witnesses=witnesses,
    )
    if attack.mode == "impact" and main is not None and not attack.speculative:
        if main not in lof_cache:
            lof_cache[main] = scene.line_of_fire(attacker.id, main).lof
        if not lof_cache[main]:
            res.outcome, res.reason = "failed", "no_lof"
            return res
    if main is not None and not mtia:
        res.outcome, res.reason = "failed", "main_target_outside"
        return res
    friendly = [
        t
        for t in in_area
        if scene.troopers[t].side == attacker.side or scene.troopers[t].side == "neutral"
    ]
    if friendly and not attack.harmless:
        res.outcome, res.reason = "cancelled", "allied_in_area"
        return res
    res.affected = list(in_area)
    return res


def _dodge(scene, attack, tid: str, attacker_id: str, cache: dict) -> str:
    if attack.mode == "deployable":
        return "PH-3"
    if tid == attacker_id:
        return "PH"
    if tid not in cache:
        cache[tid] = scene.line_of_fire(tid, attacker_id).lof
    return "PH" if cache[tid] else "PH-3"


def resolve(scene, attack, specs: list[PlacementSpec], *, stats: FocusStats | None = None):
    """Resolve an Infinity attack (see the module docstring).

    Parameters
    ----------
    scene : geom3d.scene.Scene
    attack : geom3d.scenario.AttackSpec
    specs : list of PlacementSpec
        From :func:`geom3d.attacks.placement_specs`.
    stats : FocusStats, optional
        Incremented with the segments cast for Blast Focus Line of Fire.

    Returns
    -------
    geom3d.attacks.AttackResult
    """
    stats = stats if stats is not None else FocusStats()
    shape = shape_from_spec(attack.template)
    attacker = scene.trooper(attack.attacker)
    groups = engaged_groups(scene)
    lof_cache: dict[str, bool] = {}
    placements = [
        _resolve_placement(scene, attack, shape, attacker, s, groups, lof_cache, stats)
        for s in specs
    ]
    mains = {p.main_target for p in placements if p.outcome == "resolved" and p.main_target}
    dodge_cache: dict[str, bool] = {}
    troopers = {}
    for p in placements:
        if p.outcome != "resolved":
            continue
        for tid in p.affected:
            if tid in troopers:
                continue
            is_main = tid in mains and any(
                q.outcome == "resolved" and q.main_target == tid and tid in q.affected
                for q in placements
            )
            troopers[tid] = {
                "role": "main" if is_main else "secondary",
                "dodge": _dodge(scene, attack, tid, attacker.id, dodge_cache),
                "face_to_face": attack.mode == "impact",
                "critical_applies": is_main,
                "partial_cover_bonus": False,
            }
    return combine(scene, attack, placements, troopers)
