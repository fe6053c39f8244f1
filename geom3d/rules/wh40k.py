"""Warhammer 40k 7th edition template adjudication (SPEC 4.2; rule text ``004_*``).

Everything is decided in **plan view**: a model is hit when any part of its base disc is
under the template (touching counts; exact, :func:`geom3d.templates.footprint_hits_disc`),
whatever its level. Template weapons ignore cover: no ray is cast. Routes are ignored
(models stand at their ``position``).

Placement (the attack's ``mode`` is not used: teardrops are placed from the firer's base,
circles are centred)
---------------------------------------------------------------------------------------
* Template (teardrop): the narrow end touches the firer's base at ``contact_deg``
  (default: the heading's direction), the axis points along ``heading_deg``.
  ``heading_deg: auto``, or no heading (with no ``contact_deg`` or ``focus``: "as many
  models as possible" is compulsory), runs the exact solver
  (:func:`geom3d.placement.direct.solve_heading`): the most models of the target unit under the
  template without touching a friendly model, deterministic; the choice, the runner-up
  count and the interval of optimal headings are reported under ``solver``. With only a
  ``focus``: aimed at the main target's base centre. Ruling A1 (SPEC 12.6): the
  template may lie over the firer's own base (every heading at every contact point,
  ``WH40K_MAX_CONTACT_OFFSET_DEG``); an explicit ``focus`` must touch the base within
  ``PLACEMENT_TOL_MM`` (``not_touching_attacker``). ``auto`` with a ``focus`` keeps the
  narrow end there and chooses the heading (:func:`geom3d.placement.focus.
  solve_heading_at`). Ruling A2: an explicit teardrop placement is compared with the
  solver's maximum (``maximal``, ``most``; a warning when below it).
* Blast (circle): centred on ``focus`` or on the main target's base centre.
* Any friendly model (same side as the firer, the firer's unit included) under the
  template -> ``invalid``/``touches_friendly``. The firer itself is exempt for teardrops
  (their narrow end touches it by rule) and is never hit (excluded, ``attacker``); for
  blasts the firer counts as a friendly model.

Target unit: ``target_unit``, else the main target's unit, else every enemy model (side
other than the firer's and not ``neutral``). ``hits`` per template = models of the target
unit under it (decision: models of other units under the template are listed in
``in_area``/``affected`` but do not count as hits on the target unit);
``hits_total`` = their sum.

Wall of Death (``snap_shot: true``): no template is placed; ``wall_of_death`` =
``{applies, reason, hits}``. The template's kind decides (:func:`template_kind`):
``flame`` D3, ``hellstorm`` D6, ``blast`` never (``reason: not_a_template_weapon``,
``hits: null``). Not with an ``ordnance`` weapon (``reason: ordnance``), nor against a
target unit of ``flyer`` models (``reason: flyer``). Otherwise ``applies`` holds when a
model of the target unit is within 8" (203.2 mm, base edge to base edge in plan; a
vehicle's hull outline instead of a base) of the firer (``reason: within_8in``) or the
attack is ``charging`` (``reason: charging``).
The attack is ``resolved`` when it applies, else ``failed``/``no_wall_of_death``; when it
applies ``hits`` holds the roll (``["D3"]``) and ``hits_total`` says it (``"D3"``), else
``hits: []``, ``hits_total: 0``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from geom3d.bodies.kernel_constants import CONTACT_EPS_MM
from geom3d.core.tolerances import PLACEMENT_TOL_MM, WH40K_MAX_CONTACT_OFFSET_DEG
from geom3d.placement.direct import base_edge_point, default_heading, solve_heading
from geom3d.placement.focus import solve_heading_at
from geom3d.rules import wh40k_vehicles as vehicles
from geom3d.rules.base import StandardRuleset
from geom3d.scene.outcomes import (
    AttackResult,
    PlacementResult,
    PlacementSpec,
    combine,
    invalid_placement,
)
from geom3d.templates import (
    CircleShape,
    TemplateShape,
    TemplateVolume,
    footprint_signed_distance,
    shape_from_spec,
)

if TYPE_CHECKING:
    from geom3d.scenario import AttackSpec
    from geom3d.scene.scene import Scene
    from geom3d.scene.trooper import Trooper

__all__ = [
    "RESULT_FIELDS",
    "WALL_OF_DEATH_RANGE_MM",
    "Wh40k7eRuleset",
    "resolve",
    "target_set",
    "template_kind",
    "wall_of_death",
]

#: Wall of Death range: 8 inches.
WALL_OF_DEATH_RANGE_MM: float = 8 * 25.4

#: The optional sections of a 40k attack result (``hits``/``hits_total``,
#: ``wall_of_death``, ``solver``; see :class:`geom3d.scene.outcomes.AttackResult`).
RESULT_FIELDS: tuple[str, ...] = ("hits", "wall_of_death", "solver")


def target_set(scene: Scene, attack: AttackSpec, main_target: str | None) -> list[str]:
    """Ids of the target unit's models (see the module docstring), scenario order."""
    firer = scene.trooper(attack.attacker)
    ts = list(scene.troopers.values())
    if attack.target_unit is not None:
        return [t.id for t in ts if t.unit == attack.target_unit and t.id != firer.id]
    if main_target is not None:
        unit = scene.troopers[main_target].unit
        if unit is not None:
            return [t.id for t in ts if t.unit == unit and t.id != firer.id]
    return [t.id for t in ts if t.side not in (firer.side, "neutral")]


def template_kind(attack: AttackSpec) -> str:
    """``flame``, ``hellstorm`` or ``blast``: the template spec's ``kind``, else by shape
    (a teardrop is a flame template, a circle a blast)."""
    kind = attack.template.get("kind")
    if kind is not None:
        return str(kind)
    return "blast" if attack.template.get("shape") == "circle" else "flame"


def _flyer(scene: Scene, tid: str) -> bool:
    return bool(getattr(scene.scenario.trooper(tid), "flyer", False))


def wall_of_death(scene: Scene, attack: AttackSpec) -> dict[str, Any]:
    """The Wall of Death block for a snap shot (see the module docstring)."""
    firer = scene.trooper(attack.attacker)
    kind = template_kind(attack)
    hits = {"flame": "D3", "hellstorm": "D6"}.get(kind)
    targets = target_set(scene, attack, attack.main_target)
    if kind == "blast":
        return {"applies": False, "reason": "not_a_template_weapon", "hits": None}
    if attack.ordnance:
        return {"applies": False, "reason": "ordnance", "hits": hits}
    if targets and all(_flyer(scene, t) for t in targets):
        return {"applies": False, "reason": "flyer", "hits": hits}
    within = False
    for tid in targets:
        gap = vehicles.plan_gap(firer, scene.troopers[tid])
        if gap <= WALL_OF_DEATH_RANGE_MM + CONTACT_EPS_MM:
            within = True
            break
    if within:
        reason = "within_8in"
    elif attack.charging:
        reason = "charging"
    else:
        reason = None
    return {"applies": reason is not None, "reason": reason, "hits": hits}


def _discs(scene: Scene, ids: Iterable[str]) -> np.ndarray:
    return vehicles.discs(scene, ids)


def _solver_entry(index: int, sol: Any) -> dict[str, Any]:
    """The ``solver`` section entry of one placement (degrees rounded to 1e-3)."""

    def r3(v: float | None) -> float | None:
        return None if v is None else round(v, 3)

    iv = sol.heading_interval_deg
    return {
        "placement": index,
        "found": sol.found,
        "heading_deg": r3(sol.heading_deg),
        "contact_deg": r3(sol.contact_deg),
        "count": sol.count,
        "runner_up": sol.runner_up,
        "heading_interval_deg": None if iv is None else [r3(iv[0]), r3(iv[1])],
        "events": sol.events,
        "examined": sol.examined,
    }


def _resolve_placement(
    scene: Scene,
    attack: AttackSpec,
    shape: TemplateShape,
    firer: Trooper,
    spec: PlacementSpec,
    solver_log: list[dict[str, Any]],
) -> PlacementResult:
    main = scene.troopers.get(spec.main_target) if spec.main_target else None
    targets = target_set(scene, attack, spec.main_target)
    friends = [t.id for t in scene.troopers.values() if t.side == firer.side and t.id != firer.id]
    is_circle = isinstance(shape, CircleShape)
    contact = None
    barrel = None if firer.vehicle is None else firer.vehicle.barrel
    at_vehicle = main is not None and main.vehicle is not None and main.id != firer.id
    heading: float | str | None
    fxy: tuple[float, ...] | np.ndarray
    if is_circle:
        if spec.focus is not None:
            fxy = spec.focus[:2]
            fz = spec.focus[2] if len(spec.focus) == 3 else (main.position[2] if main else 0.0)
        elif main is not None:
            fxy, fz = main.position[:2], main.position[2]
        else:
            return invalid_placement(spec, "no_main_target", pitch_deg=0.0)
        heading = float(spec.heading_deg) if isinstance(spec.heading_deg, float | int) else 0.0
        focus = (float(fxy[0]), float(fxy[1]), float(fz))
        friends = [*friends, firer.id]  # a blast over the firer touches a friendly model
    else:
        heading = spec.heading_deg
        contact = None if barrel is not None else spec.contact_deg
        fixed = spec.focus[:2] if spec.focus is not None else barrel and barrel[:2]
        compulsory = heading is None and contact is None and spec.focus is None
        if at_vehicle and (heading == "auto" or compulsory):
            assert main is not None  # at_vehicle
            hs = vehicles.solve_against(scene, shape, firer, main.id, friends, fixed)
            solver_log.append(vehicles.hull_solver_entry(spec.index, hs))
            if not hs.found:
                return invalid_placement(spec, "no_valid_placement", pitch_deg=0.0)
            heading, contact = hs.heading_deg, hs.contact_deg
            if contact is None and barrel is None:  # the user's focus, on the base edge
                fx, fy = hs.focus[0] - firer.position[0], hs.focus[1] - firer.position[1]
                contact = math.degrees(math.atan2(fy, fx)) % 360.0
            spec = replace(spec, focus=hs.focus)
        elif fixed is not None and (heading == "auto" or compulsory):
            # the narrow end stays at the user's focus; only the heading is chosen there
            sol = solve_heading_at(
                shape,
                firer.position[:2],
                fixed,
                _discs(scene, targets),
                _discs(scene, friends),
                dmax_deg=WH40K_MAX_CONTACT_OFFSET_DEG,
            )
            solver_log.append(_solver_entry(spec.index, sol))
            if not sol.found:
                return invalid_placement(spec, "no_valid_placement", pitch_deg=0.0)
            heading, contact = sol.heading_deg, sol.contact_deg
        elif heading == "auto" or compulsory:
            sol = solve_heading(
                shape,
                firer.position[:2],
                firer.radius,
                _discs(scene, targets),
                _discs(scene, friends),
                dmax_deg=WH40K_MAX_CONTACT_OFFSET_DEG,
            )
            solver_log.append(_solver_entry(spec.index, sol))
            if not sol.found:
                return invalid_placement(spec, "no_valid_placement", pitch_deg=0.0)
            heading, contact = sol.heading_deg, sol.contact_deg
        elif heading is None:
            towards = main.position if main is not None and main.id != firer.id else None
            heading = default_heading(contact, firer.position, towards)
            if heading is None:
                return invalid_placement(spec, "no_heading", pitch_deg=0.0)
        # "auto" (the one string) and None were solved or defaulted above
        assert heading is not None and not isinstance(heading, str)
        heading = float(heading)
        if spec.focus is not None:
            fxy = spec.focus[:2]
        elif barrel is not None:
            fxy = barrel[:2]
        else:
            if contact is None:
                contact = heading
            fxy = base_edge_point(firer.position[:2], firer.radius, contact)
        focus = (float(fxy[0]), float(fxy[1]), float(firer.position[2]))
    volume = TemplateVolume(shape, focus, heading, 0.0)
    if not is_circle:
        sd_firer = float(
            footprint_signed_distance(shape, focus[:2], heading, [firer.position[:2]])[0]
        )
        if barrel is not None:  # a baseless vehicle fires from its barrel
            # the test below then asks the focus to be the barrel (within the tolerance)
            sd_firer = math.dist(focus[:2], barrel[:2]) + firer.radius
        if spec.focus is not None and sd_firer > firer.radius + PLACEMENT_TOL_MM:
            return invalid_placement(
                spec, "not_touching_attacker", volume, heading, contact, pitch_deg=0.0
            )
        # ruling A1 (SPEC 12.6): the template may lie over the firer's own base
    others = [t.id for t in scene.troopers.values() if t.id != firer.id]
    under = vehicles.under_template(scene, shape, focus[:2], heading, others)
    if is_circle and vehicles.under_template(scene, shape, focus[:2], heading, [firer.id]):
        under.add(firer.id)
    order = list(scene.troopers)
    in_area = [t for t in order if t in under and t != firer.id]
    excluded = {} if is_circle else {firer.id: "attacker"}
    tset = set(targets)
    res = PlacementResult(
        index=spec.index,
        volume=volume,
        heading_deg=heading,
        contact_deg=contact,
        pitch_deg=0.0,
        outcome="resolved",
        reason=None,
        main_target=spec.main_target,
        main_target_in_area=None if main is None else main.id in under,
        in_area=in_area,
        excluded=excluded,
        witnesses={t: {"kind": "plan"} for t in in_area},
        hits=sum(1 for t in in_area if t in tset),
    )
    if at_vehicle:
        assert main is not None  # at_vehicle
        res.vehicle = vehicles.vehicle_report(scene, shape, focus[:2], heading, firer, main.id)
    if any(f in under for f in friends):
        res.outcome, res.reason = "invalid", "touches_friendly"
        return res
    res.affected = list(in_area)
    if not is_circle and not _solver_chose(solver_log, spec.index):
        if at_vehicle:  # ruling A2 for a vehicle: the most hull area
            assert main is not None and res.vehicle is not None  # at_vehicle
            fixed = barrel[:2] if barrel is not None else None
            vehicles.judge_explicit(scene, shape, firer, main.id, friends, fixed, res.vehicle)
            return res
        hits = res.hits if res.hits is not None else 0  # set above: every model in the area
        res.maximal, res.most = _maximal(scene, shape, firer, targets, friends, hits)
    return res


def _solver_chose(log: list[dict[str, Any]], index: int) -> bool:
    """The solver chose placement ``index`` (it is maximal by construction)."""
    return any(e["placement"] == index for e in log)


def _maximal(
    scene: Scene,
    shape: TemplateShape,
    firer: Trooper,
    targets: list[str],
    friends: list[str],
    hits: int,
) -> tuple[bool, int]:
    """Ruling A2 (SPEC 12.6): does an explicit teardrop placement cover as many models of
    the target unit as any legal placement? (maximal, the most possible)."""
    sol = solve_heading(
        shape,
        firer.position[:2],
        firer.radius,
        _discs(scene, targets),
        _discs(scene, friends),
        dmax_deg=WH40K_MAX_CONTACT_OFFSET_DEG,
    )
    most = max(sol.count if sol.found else 0, hits)
    return hits >= most, most


def resolve(scene: Scene, attack: AttackSpec, specs: list[PlacementSpec]) -> AttackResult:
    """Resolve a 40k 7e attack (see the module docstring)."""
    shape = shape_from_spec(attack.template)
    firer = scene.trooper(attack.attacker)
    if attack.snap_shot:
        wod = wall_of_death(scene, attack)
        res = combine(
            scene,
            attack,
            [
                PlacementResult(
                    index=0,
                    volume=None,
                    heading_deg=None,
                    contact_deg=None,
                    pitch_deg=0.0,
                    outcome="resolved" if wod["applies"] else "failed",
                    reason=None if wod["applies"] else "no_wall_of_death",
                    main_target=attack.main_target,
                )
            ],
            {},
            hits=[wod["hits"]] if wod["applies"] and wod["hits"] else [],
            wall_of_death=wod,
            fields=RESULT_FIELDS,
        )
        res.placements = []
        return res
    log: list[dict[str, Any]] = []
    placements = [_resolve_placement(scene, attack, shape, firer, s, log) for s in specs]
    tsets = {p.index: set(target_set(scene, attack, p.main_target)) for p in placements}
    troopers = {}
    for p in placements:
        if p.outcome != "resolved":
            continue
        for tid in p.affected:
            if tid not in troopers:
                troopers[tid] = {
                    "role": "main" if tid == p.main_target else "secondary",
                    "in_target_unit": tid in tsets[p.index],
                }
    hits = [p.hits if (p.outcome == "resolved" and p.hits is not None) else 0 for p in placements]
    warnings = [
        f"attack {attack.id!r} placement {p.index}: the template covers {p.hits} models of "
        f"the target unit where {p.most} is the most possible (heading_deg: auto finds it)"
        for p in placements
        if p.maximal is False
    ] + [vehicles.short_warning(attack.id, p.index, p.vehicle) for p in placements if p.vehicle]
    warnings = [w for w in warnings if w]
    return combine(
        scene,
        attack,
        placements,
        troopers,
        hits=hits,
        wall_of_death=None,
        solver=log,
        warnings=warnings,
        fields=RESULT_FIELDS,
    )


class Wh40k7eRuleset(StandardRuleset):
    """Warhammer 40,000 7th edition: ``ruledata/wh40k-7e.yaml`` and the rules above.

    Line of Fire (``geom3d lof``) uses the standard engine with the data file's policy.
    """

    def adjudicate(
        self,
        scene: Scene,
        attack: AttackSpec,
        specs: list[PlacementSpec],
        *,
        stats: Any = None,
    ) -> AttackResult:
        """Resolve a 40k 7e attack (:func:`resolve`; it keeps no ``stats``)."""
        return resolve(scene, attack, specs)
