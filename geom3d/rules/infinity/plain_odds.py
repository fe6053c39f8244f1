"""Who rolls what in a plain BS attack (SPEC 13.2, rolled as 12.4; seed 002).

* The attacker rolls its Burst (``weapon.burst`` or the attack's; in ARO 1, or
  ``aro_burst``), Success Value = the weapon's attribute + ``weapon.mod`` + the Range MOD
  of the band the distance falls in + -3 when the target is in Partial Cover
  (:mod:`~geom3d.rules.infinity.mods`); every die may score a critical.
* The target declares its ``reaction``: ``none`` leaves the attacker a Normal Roll;
  ``dodge`` (the default: any trooper may dodge a BS Attack) opposes it face to face with
  one PH die (+ ``reaction_mod``); an ``attack`` shoots back face to face, Burst 1 in ARO
  (its full Burst when the target is the active trooper of an ARO), with its own Range
  MOD and -3 when the attacker is in Partial Cover from it; out of its range it rolls
  nothing.
* Saving Rolls: PS + ARM (or BTS), +3 when in Partial Cover (000); the attacker's against
  the target's shots the same way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from geom3d.combat import Dice, Odds, RollPlan, trooper_odds
from geom3d.combat.numbers import ARO_BURST
from geom3d.rules.infinity.mods import shot_mods
from geom3d.rules.infinity.odds import (
    Ledger,
    _counter_dice,
    _dodge_sv,
    _not_activated,
    _return_fire,
    _save_sv,
    _Sheet,
    _wounds,
    template_odds,
)

if TYPE_CHECKING:
    from geom3d.scenario import AttackSpec
    from geom3d.scene.outcomes import AttackResult
    from geom3d.scene.scene import Scene

__all__ = ["attack_odds", "plain_plan"]


def attack_odds(scene: Scene, attack: AttackSpec, result: AttackResult) -> dict[str, Odds]:
    """The odds of every trooper ``result`` affects (SPEC 12.4, 13.2): a plain attack's
    target by :func:`plain_plan`, template targets by
    :func:`~geom3d.rules.infinity.odds.template_odds`; empty without a ``weapon``."""
    if attack.weapon is None:
        return {}
    if not attack.plain:
        return template_odds(scene, attack, result)
    sheet = _Sheet(scene, attack)
    return {tid: trooper_odds(plain_plan(sheet, result, tid)) for tid in result.affected}


def plain_plan(sheet: _Sheet, result: AttackResult, tid: str) -> RollPlan:
    """The :class:`~geom3d.combat.RollPlan` of a plain attack's target ``tid``."""
    scene, attack, weapon = sheet.scene, sheet.attack, sheet.weapon
    a = attack.attacker
    spec = sheet.spec(tid)
    ledger: Ledger = [(f"role of {tid}", "target of a plain BS attack (no template)")]
    attr = sheet.stat(a, weapon.attribute, f"the attack roll ({sheet.weapon_path}.attribute)")
    geo = shot_mods(
        scene, attack, weapon.ranges, sheet.shooter(result), scene.trooper(tid), label="attacker"
    )
    sv = attr + weapon.mod + geo.mod
    n = (attack.aro_burst or ARO_BURST) if attack.aro else attack.burst
    burst = f"Burst {attack.burst}" + (f", in ARO {n} (002)" if attack.aro else "")
    ledger += [
        (f"attacker attribute: {sheet.stat_label(a, weapon.attribute)}", attr),
        (f"attacker MOD: {sheet.weapon_path}.mod", f"{weapon.mod:+d}"),
        *geo.ledger,
        ("attacker Success Value: attribute + MODs", sv),
        (f"attacker dice: {burst}; each may score a critical", n),
    ]
    active = attack.aro and scene.scenario.is_active(tid)
    reaction = spec.reaction
    source = f"{sheet.where(tid)}.reaction"
    if attack.aro and not active:
        kind = _not_activated(reaction, source, tid, ledger)
    elif reaction is None:
        kind = "dodge"
        ledger.append(
            ("reaction (default): dodge, which any target of a BS Attack may declare", kind)
        )
    else:
        kind = reaction.kind
        ledger.append((f"reaction ({source})", kind))
    dodge_sv = _dodge_sv(sheet, {}, tid, ledger) if kind == "dodge" else None
    counter, attacker_cover = (
        _counter_dice(sheet, result, tid, active, ledger) if kind == "attack" else (None, False)
    )
    if kind == "none" or (kind == "attack" and counter is None):
        ledger.append(("roll: the target's skill does not affect the outcome (002)", "normal"))
    save_sv = _save_sv(
        sheet,
        tid,
        weapon.ps,
        weapon.save,
        sheet.weapon_path,
        ledger,
        tid,
        template=False,
        cover=geo.cover,
    )
    attacker_save, attacker_wounds = _return_fire(
        sheet, spec, a, counter, source, ledger, attacker_cover
    )
    return RollPlan(
        attack=Dice(sv, n),
        dodge_sv=dodge_sv,
        counter=counter,
        save_sv=save_sv,
        wounds=_wounds(sheet, tid),
        attacker_save_sv=attacker_save,
        attacker_wounds=attacker_wounds,
        ledger=ledger,
    )
