"""Infinity template adjudication (SPEC 4.1; rule texts ``000_*``, ``001_*``, ``002_*``).

A trooper is in a template's **area of effect** when its silhouette cylinder touches or
overlaps the template volume (exact test, contact counts) **and** Line of Fire can be
traced from the Blast Focus to the part of its silhouette inside the volume without being
blocked by scenery (Total Cover). Troopers never block template LoF.

Blast Focus Line of Fire (:func:`geom3d.placement.blast_focus.blast_focus_lof`)
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

The search is Line of Fire's (one core, :func:`geom3d.visibility.search_patch`, over the
sample predicate above): a 4 mm coarse lattice first (every 4 x 4 mm square contains a
coarse point, so eyes with no counting coarse sample are dropped: exact pruning), then
the 1 mm lattice within one coarse step of each counting coarse sample; of the first
eye's patches, the one nearest the silhouette's centre decides (its counting sample
nearest the window's centre is the witness target). Guarantees as for LoF: a clear part
whose apparent view from a sampled eye contains a 4 x 4 mm square is found; one
containing no 3 x 3 mm square never counts as a patch.

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
  the heading's direction), axis along ``heading_deg`` (absent: towards the main target's
  base centre; ``auto``: the exact search of :mod:`geom3d.rules.infinity.auto`),
  placement plane at the attacker's base underside. Passing through the attacker's
  silhouette is ``invalid``/``through_attacker`` (a template pitched up is first slid
  out until it only touches, :func:`geom3d.placement.direct.clear_of_silhouette`); an explicit
  ``focus`` must touch the attacker's silhouette within ``PLACEMENT_TOL_MM``
  (``not_touching_attacker``). Direct circular: centred on the attacker's base centre.
* impact: circular template centred on the underside of the main target's base (or on
  ``focus``).
* valid main target (direct and impact, :mod:`~geom3d.rules.infinity.validity`):
  ``failed``/``engaged`` when the attacker is engaged and the main target is not one it
  is engaged with; ``failed``/``no_lof`` when the attacker has no LoF to the main target
  (arc included; speculative impact templates excepted).
* deployable: placed at ``focus`` (``[x, y]`` drops onto the surface).
* main target not in the area of effect (including Total Cover from the Blast Focus: the
  rule text says the area of effect "may be determined by the presence of scenery") ->
  ``failed``/``main_target_outside``. Note: the rule text's Fusilier example calls this
  attack "cancelled"; the SPEC's contract (followed here) calls it ``failed`` and keeps
  ``cancelled`` for allied/neutral troopers in the area. In ARO (``aro: true``) an active
  trooper (a ``route``, or listed in ``active``) in the area counts as a main target for
  this check (Update 1.3), and only the first placement (or ``aro_burst``) is made.
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
  ``ROUTE_TOUCH_STEP_MM`` with the exact contact test. Between two route points given
  ``[x, y]`` the route follows the ground (SPEC 13.1): every position stands by the 12.2
  rule (as the route's Line of Fire windows do), the touching stretch is sampled every
  ``ROUTE_TOUCH_STEP_MM`` and each position carries its standing height
  (:mod:`~geom3d.rules.infinity.routes`).

Per affected trooper: ``role`` (``main`` for the main target of a resolved placement that
affects it), ``dodge`` (``PH``; ``PH-3`` when it has no LoF to the attacker, by
``scene.line_of_fire(trooper, attacker)``, or the weapon is deployable),
``face_to_face`` (impact templates, enemies only: the only roll to hit),
``critical_applies`` (the main target of an impact template only: direct templates and
deployables make no attack roll), ``partial_cover_bonus`` (always false).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from geom3d.placement.blast_focus import FocusStats
from geom3d.rules.base import StandardRuleset
from geom3d.rules.infinity.area import area_status
from geom3d.rules.infinity.groups import engaged_groups
from geom3d.rules.infinity.plain_odds import attack_odds
from geom3d.rules.infinity.positioning import place
from geom3d.rules.infinity.resolve import resolve
from geom3d.scene.outcomes import AttackResult, PlacementSpec

if TYPE_CHECKING:
    from geom3d.scenario import AttackSpec
    from geom3d.scene.scene import Scene

__all__ = ["InfinityRuleset", "area_status", "attack_odds", "engaged_groups", "place", "resolve"]


class InfinityRuleset(StandardRuleset):
    """Infinity (N5): the data of ``ruledata/infinity.yaml`` and the rules above."""

    def adjudicate(
        self,
        scene: Scene,
        attack: AttackSpec,
        specs: list[PlacementSpec],
        *,
        stats: FocusStats | None = None,
    ) -> AttackResult:
        """Resolve an Infinity attack (:func:`geom3d.rules.infinity.resolve.resolve`)."""
        result: AttackResult = resolve(scene, attack, specs, stats=stats)  # resolve.py: untyped
        return result

    def attack_odds(self, scene: Scene, attack: AttackSpec, result: AttackResult) -> dict[str, Any]:
        """Exact odds per affected trooper (:func:`.plain_odds.attack_odds`)."""
        return attack_odds(scene, attack, result)
