"""Resolve an Infinity attack: place, find the area, apply the rules, per placement.

See :mod:`geom3d.rules.infinity` for the rules and their precedence.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from geom3d.placement.blast_focus import FocusStats
from geom3d.rules.infinity.area import area_status
from geom3d.rules.infinity.auto import choose_auto
from geom3d.rules.infinity.fire_at import resolve_moving
from geom3d.rules.infinity.groups import engaged_groups
from geom3d.rules.infinity.plain import range_info, resolve_plain
from geom3d.rules.infinity.positioning import place
from geom3d.rules.infinity.validity import target_problem
from geom3d.scene.outcomes import (
    AttackResult,
    PlacementResult,
    PlacementSpec,
    combine,
    invalid_placement,
)
from geom3d.templates import TemplateShape, shape_from_spec

if TYPE_CHECKING:
    from geom3d.scenario import AttackSpec
    from geom3d.scene.scene import Scene
    from geom3d.scene.trooper import Trooper

__all__ = ["resolve"]


def _resolve_placement(
    scene: Scene,
    attack: AttackSpec,
    shape: TemplateShape,
    attacker: Trooper,
    spec: PlacementSpec,
    groups: dict[str, tuple[str, ...]],
    lof_cache: dict[str, Any],
    stats: FocusStats | None,
) -> PlacementResult:
    placed = place(scene, attack, shape, attacker, spec)
    if isinstance(placed, PlacementResult):
        return placed
    volume, heading, contact = placed
    if _out_of_range(scene, attack, attacker, spec.main_target):
        return invalid_placement(spec, "out_of_range", volume, heading, contact)
    status = area_status(scene, attack, attacker, volume, stats)
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
    problem = target_problem(scene, attack, attacker, main, lof_cache)
    if problem is not None:
        res.outcome, res.reason = "failed", problem
        return res
    if main is not None and not mtia and not _aro_main_in_area(scene, attack, in_area):
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


def _out_of_range(scene: Scene, attack: AttackSpec, attacker: Trooper, main: str | None) -> bool:
    """An impact template whose main target lies beyond its weapon's last range band
    (SPEC 13.2: the roll takes the main target's MODs, 000)."""
    w = attack.weapon
    if attack.mode != "impact" or main is None or w is None or not w.ranges:
        return False
    return not range_info(scene, w.ranges, attacker, scene.trooper(main))["in_range"]


def _aro_main_in_area(scene: Scene, attack: AttackSpec, in_area: list[str]) -> bool:
    """In ARO an active trooper in the area counts as a main target (Update 1.3)."""
    return bool(attack.aro) and any(scene.scenario.is_active(t) for t in in_area)


def _dodge(
    scene: Scene, attack: AttackSpec, tid: str, attacker_id: str, cache: dict[str, bool]
) -> str:
    if attack.mode == "deployable":
        return "PH-3"
    if tid == attacker_id:
        return "PH"
    if tid not in cache:
        cache[tid] = scene.line_of_fire(tid, attacker_id).lof
    return "PH" if cache[tid] else "PH-3"


def resolve(
    scene: Scene,
    attack: AttackSpec,
    specs: list[PlacementSpec],
    *,
    stats: FocusStats | None = None,
) -> AttackResult:
    """Resolve an Infinity attack (see the module docstring).

    Parameters
    ----------
    scene : geom3d.scene.scene.Scene
    attack : geom3d.scenario.AttackSpec
    specs : list of PlacementSpec
        From :func:`geom3d.adjudication.attacks.placement_specs`.
    stats : FocusStats, optional
        Incremented with the segments cast for Blast Focus Line of Fire.

    Returns
    -------
    geom3d.scene.outcomes.AttackResult
    """
    stats = stats if stats is not None else FocusStats()
    attacker = scene.trooper(attack.attacker)
    if attack.plain:  # no template (SPEC 13.2)
        return resolve_moving(
            scene, attack, attacker, lambda who: resolve_plain(scene, attack, who)
        )
    return resolve_moving(
        scene, attack, attacker, lambda who: _resolve_from(scene, attack, specs, who, stats)
    )


def _resolve_from(
    scene: Scene,
    attack: AttackSpec,
    specs: list[PlacementSpec],
    attacker: Trooper,
    stats: FocusStats,
) -> AttackResult:
    """The attack with ``attacker`` standing where it fires from."""
    shape = shape_from_spec(attack.template)
    groups = engaged_groups(scene)
    lof_cache: dict[str, Any] = {}

    def judge(spec: PlacementSpec) -> PlacementResult:
        return _resolve_placement(scene, attack, shape, attacker, spec, groups, lof_cache, stats)

    specs, log = choose_auto(scene, attack, shape, attacker, specs, judge, lof_cache, groups)
    placements = [judge(s) for s in specs]
    mains = {p.main_target for p in placements if p.outcome == "resolved" and p.main_target}
    dodge_cache: dict[str, bool] = {}
    troopers: dict[str, dict[str, Any]] = {}
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
            roll = _roll(attack)
            troopers[tid] = {
                "role": "main" if is_main else "secondary",
                "dodge": _dodge(scene, attack, tid, attacker.id, dodge_cache),
                # a roll exists only for impact templates (BS) and Intuitive Attacks
                # (WIP): against the main target (its critical), opposed face to face by
                # each affected enemy; an ally under a harmless template rolls nothing
                "face_to_face": roll is not None and _is_enemy(scene, attacker, tid),
                "critical_applies": roll is not None and is_main,
                "partial_cover_bonus": False,
                "roll": roll,
            }
    if log:
        return combine(scene, attack, placements, troopers, solver=log, fields=("solver",))
    return combine(scene, attack, placements, troopers)


def _roll(attack: AttackSpec) -> str | None:
    """The attacker's roll: ``BS`` (impact template), ``WIP`` (Intuitive Attack, SPEC
    12.6), None (direct and deployable templates make no roll)."""
    if attack.mode == "impact":
        return "BS"
    if getattr(attack, "intuitive", False):
        return "WIP"
    return None


def _is_enemy(scene: Scene, attacker: Trooper, tid: str) -> bool:
    side = scene.troopers[tid].side
    return side != attacker.side and side != "neutral"
