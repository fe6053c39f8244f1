"""Who rolls what against each affected trooper, and the exact odds (SPEC 12.4).

The resolver (:mod:`geom3d.rules.infinity.resolve`) decides who is affected, in which
role, and the dodge modifier (Line of Fire to the attacker); the scenario gives the data
(``stats``, ``weapon``, ``reaction``, ``reaction_mod``). This module joins them into one
:class:`geom3d.combat.RollPlan` per affected trooper, with a ledger of every number and
where it came from, and :func:`geom3d.combat.trooper_odds` counts.

Rules applied (the seed sentence each comes from is in docs/rules.md):

* an **impact** template makes an attack roll: one die per template of the Burst that
  affects the trooper (a Burst of B places B templates; in ARO 1, or ``aro_burst``),
  Success Value = the weapon's attribute of the attacker + ``weapon.mod``, the MODs of
  the main target used against every template target (000); a critical counts only on
  the dice whose template has this trooper as its main target (000);
* each affected **enemy** opposes those dice separately (000): with a dodge (PH, PH-3
  without Line of Fire to the attacker or against a deployable, + ``reaction_mod``,
  one die) or an attack on the attacker (face to face; its Burst is 1 in ARO, 002); a
  trooper that does not react leaves the attacker a Normal Roll (002);
* a **direct** template or a **deployable** makes no attack roll (001): each template of
  the order affecting the trooper hits once unless its single dodge (a Normal PH Roll)
  succeeds; an attack declared against the attacker is a Normal Roll and does not avoid
  the template (001);
* an **ally** under a harmless template (or the attacker under its own) rolls nothing
  (SPEC 11.4) and, the weapon having no PS, makes no Saving Roll;
* in ARO (``aro: true``) the affected troopers are the active side: an active trooper
  reacts with its full Burst, one that is not activated cannot react;
* Saving Rolls: PS + ARM (or BTS), no +3 Partial Cover MOD against templates (000).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from geom3d.combat import Dice, Odds, RollPlan, trooper_odds
from geom3d.combat.numbers import ARO_BURST, DODGE_NO_LOF_MOD, PARTIAL_COVER_SAVE_MOD
from geom3d.core.errors import ScenarioError
from geom3d.rules.infinity.fire_at import firing_trooper
from geom3d.rules.infinity.mods import ShotMods, shot_mods

if TYPE_CHECKING:
    from geom3d.scenario import AttackSpec, TrooperSpec
    from geom3d.scenario.rolls import Reaction, Weapon
    from geom3d.scene.outcomes import AttackResult
    from geom3d.scene.scene import Scene
    from geom3d.scene.trooper import Trooper

__all__ = ["Ledger", "template_odds"]

#: Every number of a roll and where it came from: (what, value) rows.
Ledger = list[tuple[str, object]]


def _signed(v: int) -> str:
    return f"{v:+d}"


class _Sheet:
    """The scenario's roll data for one attack, with field paths for errors."""

    def __init__(self, scene: Scene, attack: AttackSpec) -> None:
        self.scene = scene
        self.attack = attack
        assert attack.weapon is not None  # the callers answer {} without one
        self.weapon: Weapon = attack.weapon
        path = scene.scenario.path
        self.file = scene.scenario.name if path is None else str(path)  # as parse errors do
        self.index = {t.id: i for i, t in enumerate(scene.scenario.troopers)}
        self.attack_index = next(
            i for i, a in enumerate(scene.scenario.attacks) if a.id == attack.id
        )

    def spec(self, tid: str) -> TrooperSpec:
        return self.scene.scenario.troopers[self.index[tid]]

    def where(self, tid: str) -> str:
        return f"troopers[{self.index[tid]}]"

    def stat(self, tid: str, key: str, why: str) -> int:
        """``stats.key`` of trooper ``tid``, or an error naming the field and the need."""
        stats = self.spec(tid).stats
        value = None if stats is None else getattr(stats, key)
        if value is None:
            path = f"{self.where(tid)}.stats" + ("" if stats is None else f".{key}")
            raise ScenarioError(
                f"{key} of {tid!r} is needed for {why} in attack {self.attack.id!r} "
                f"(geom3d attack --odds)",
                file=self.file,
                path=path,
            )
        return int(value)

    def stat_label(self, tid: str, key: str) -> str:
        return f"{key.upper()} of {tid} ({self.where(tid)}.stats.{key})"

    @property
    def weapon_path(self) -> str:
        return f"attacks[{self.attack_index}].weapon"

    def shooter(self, result: AttackResult) -> Trooper:
        """The attacker where it fired from (a moving attacker: ``result.fire_at``)."""
        a = self.scene.trooper(self.attack.attacker)
        if result.fire_at is None:
            return a
        return firing_trooper(a, result.fire_at["at_mm"])


def _intuitive(attack: AttackSpec) -> bool:
    """An Intuitive Attack (SPEC 12.6, ``intuitive: true`` where the scenario format has
    it): a direct template that rolls to hit (000), so enemies oppose it face to face."""
    return bool(getattr(attack, "intuitive", False))


def _is_enemy(scene: Scene, attacker_id: str, tid: str) -> bool:
    me, other = scene.troopers[attacker_id].side, scene.troopers[tid].side
    return tid != attacker_id and other != me and other != "neutral"


def _attack_dice(sheet: _Sheet, result: AttackResult, tid: str, ledger: Ledger) -> Dice:
    attack, weapon = sheet.attack, sheet.weapon
    a = attack.attacker
    resolved = [p for p in result.placements if p.outcome == "resolved" and tid in p.affected]
    n = len(resolved)
    n_crit = sum(1 for p in resolved if p.main_target == tid)
    attr = sheet.stat(a, weapon.attribute, f"the attack roll ({sheet.weapon_path}.attribute)")
    sv = attr + weapon.mod
    order = list(sheet.scene.troopers)
    mains = sorted({p.main_target for p in resolved if p.main_target}, key=order.index)
    geo: ShotMods | None = None
    if attack.mode == "impact" and mains:
        # 000: the roll takes the MODs of the main target (this trooper's own when it is
        # one; with several main targets, the first in scenario order), saves excepted
        main = tid if tid in mains else mains[0]
        geo = shot_mods(
            sheet.scene,
            attack,
            weapon.ranges,
            sheet.shooter(result),
            sheet.scene.trooper(main),
            label=f"attacker (main target {main})",
        )
    ledger += [
        (
            "attack roll: an Intuitive Attack rolls to hit (000)"
            if _intuitive(attack)
            else "attack roll: an impact template rolls to hit (000)",
            attack.mode,
        ),
        (f"attacker attribute: {sheet.stat_label(a, weapon.attribute)}", attr),
        (
            f"attacker MOD: {sheet.weapon_path}.mod, the MODs of the main target "
            f"({', '.join(mains) or 'none'}), used against every template target (000)",
            _signed(weapon.mod),
        ),
    ]
    if geo is not None:
        ledger += geo.ledger
        sv += geo.mod
    ledger += [
        ("attacker Success Value: attribute + MODs", sv),
    ]
    burst = f"Burst {attack.burst}" + (
        f", in ARO {attack.aro_burst or ARO_BURST} (002)" if attack.aro else ""
    )
    ledger += [
        (f"attacker dice: templates of the Burst ({burst}) that affect {tid}", n),
        (
            f"dice whose critical counts: templates whose main target is {tid} (000: a "
            "critical counts only against the main target; elsewhere a plain success)",
            n_crit,
        ),
    ]
    return Dice(sv, n_crit, n - n_crit)


def _not_activated(reaction: Reaction | None, source: str, tid: str, ledger: Ledger) -> str:
    """A trooper that is not activated cannot react to an ARO: its declared reaction (if
    any) is noted as ignored in ``ledger``; returns the reaction kind, ``none``."""
    if reaction is not None and reaction.kind != "none":
        ledger.append(
            (f"{source} ignored: {tid} is not activated and cannot react to an ARO", reaction.kind)
        )
    return "none"


def _dodge_sv(sheet: _Sheet, flags: dict[str, Any], tid: str, ledger: Ledger) -> int:
    spec = sheet.spec(tid)
    ph = sheet.stat(tid, "ph", "its dodge (or give reaction: none)")
    ledger.append((f"dodge attribute: {sheet.stat_label(tid, 'ph')}", ph))
    sv = ph
    if flags.get("dodge") == "PH-3":
        why = (
            "a deployable weapon"
            if sheet.attack.mode == "deployable"
            else f"no Line of Fire from {tid} to the attacker {sheet.attack.attacker}"
        )
        ledger.append((f"dodge MOD: {why} (000: PH-3)", _signed(DODGE_NO_LOF_MOD)))
        sv += DODGE_NO_LOF_MOD
    if spec.reaction_mod:
        ledger.append((f"dodge MOD: {sheet.where(tid)}.reaction_mod", _signed(spec.reaction_mod)))
        sv += spec.reaction_mod
    ledger.append(("dodge Success Value", sv))
    return sv


def _reaction_attack(spec: TrooperSpec) -> Weapon:
    """The weapon of a trooper whose reaction is an attack (the parser requires one:
    :mod:`geom3d.scenario.rolls`)."""
    assert spec.reaction is not None and spec.reaction.attack is not None
    return spec.reaction.attack


def _return_fire(
    sheet: _Sheet,
    spec: TrooperSpec,
    attacker: str,
    counter: Dice | None,
    source: str,
    ledger: Ledger,
    attacker_cover: bool,
) -> tuple[int | None, int | None]:
    """The attacker's Saving Roll value and wounds against the target's reaction attack
    (``spec``'s weapon, declared at ``source``): both None when there is no counter roll."""
    if counter is None:
        return None, None
    ra = _reaction_attack(spec)
    save = _save_sv(sheet, attacker, ra.ps, ra.save, f"{source}.attack", ledger, attacker,
                    template=False, cover=attacker_cover)  # fmt: skip
    return save, _wounds(sheet, attacker)


def _counter_dice(
    sheet: _Sheet, result: AttackResult, tid: str, active: bool, ledger: Ledger
) -> tuple[Dice | None, bool]:
    """The reaction attack's dice (None: out of range, no roll) and the attacker's
    Partial Cover against it."""
    spec = sheet.spec(tid)
    w = _reaction_attack(spec)
    where = f"{sheet.where(tid)}.reaction.attack"
    attr = sheet.stat(tid, w.attribute, f"its reaction attack ({where}.attribute)")
    declared = w.burst or 1
    burst = declared if active else ARO_BURST
    sv = attr + w.mod + spec.reaction_mod
    ledger += [
        (f"reaction attack attribute: {sheet.stat_label(tid, w.attribute)}", attr),
        (f"reaction attack MOD: {where}.mod", _signed(w.mod)),
    ]
    if spec.reaction_mod:
        ledger.append(
            (f"reaction attack MOD: {sheet.where(tid)}.reaction_mod", _signed(spec.reaction_mod))
        )
    geo = shot_mods(
        sheet.scene,
        sheet.attack,
        w.ranges,
        sheet.scene.trooper(tid),
        sheet.shooter(result),
        label="reaction attack",
    )
    ledger += geo.ledger
    sv += geo.mod
    if not geo.in_range:
        ledger.append(("reaction attack: out of range, it rolls nothing", 0))
        return None, geo.cover
    ledger += [
        ("reaction attack Success Value", sv),
        (
            f"reaction attack dice: Burst {declared}"
            + ("" if active else " declared, 1 in ARO (002)"),
            burst,
        ),
    ]
    return Dice(sv, burst), geo.cover


def _save_sv(
    sheet: _Sheet,
    tid: str,
    ps: int | None,
    save: str,
    path: str,
    ledger: Ledger,
    who: str,
    template: bool = True,
    cover: bool = False,
) -> int | None:
    if ps is None:
        ledger.append((f"Saving Rolls of {who}: none (a harmless weapon has no PS, 000)", 0))
        return None
    armour = sheet.stat(tid, save, f"the Saving Rolls of {who}")
    sv = ps + armour
    ledger += [
        (f"PS ({path}.ps)", ps),
        (f"{save.upper()} of {tid} ({sheet.where(tid)}.stats.{save})", armour),
    ]
    if template:
        ledger.append(
            (
                f"Partial Cover Saving Roll MOD +{PARTIAL_COVER_SAVE_MOD}: not applied, the "
                "weapon is a template (000)",
                "+0",
            )
        )
    elif cover:
        ledger.append(
            (f"Partial Cover Saving Roll MOD of {who} (000)", f"+{PARTIAL_COVER_SAVE_MOD}")
        )
        sv += PARTIAL_COVER_SAVE_MOD
    ledger += [
        (
            f"Saving Roll of {who}: d20 <= PS + {save.upper()} (one per hit, one more per "
            "critical hit, 002)",
            sv,
        ),
    ]
    return sv


def _plan(sheet: _Sheet, result: AttackResult, tid: str) -> RollPlan:
    scene, attack, weapon = sheet.scene, sheet.attack, sheet.weapon
    flags = result.troopers.get(tid, {})
    spec = sheet.spec(tid)
    ledger: Ledger = [(f"role of {tid}", flags.get("role", "secondary"))]
    enemy = _is_enemy(scene, attack.attacker, tid)
    rolls_to_hit = attack.mode == "impact" or _intuitive(attack)
    dice = _attack_dice(sheet, result, tid, ledger) if rolls_to_hit else None
    templates = sum(1 for p in result.placements if p.outcome == "resolved" and tid in p.affected)
    if not rolls_to_hit:
        ledger += [
            (f"attack roll: none, a {attack.mode} template hits without a roll (001)", 0),
            (f"templates of the order that affect {tid} (one hit each)", templates),
        ]
    active = attack.aro and scene.scenario.is_active(tid)
    reaction = spec.reaction
    source = f"{sheet.where(tid)}.reaction"
    if not enemy:
        if reaction is not None and reaction.kind != "none":
            ledger.append(
                (
                    f"{source} ignored: an ally under a harmless template rolls nothing "
                    "(SPEC 11.4)",
                    reaction.kind,
                )
            )
        kind = "none"
    elif attack.aro and not active:
        kind = _not_activated(reaction, source, tid, ledger)
    elif reaction is None:
        kind = "dodge"
        ledger.append(
            (
                "reaction (default): dodge, which any trooper affected by a template may "
                "declare (000)",
                kind,
            )
        )
    else:
        kind = reaction.kind
        ledger.append((f"reaction ({source})", kind))
    dodge_sv = _dodge_sv(sheet, flags, tid, ledger) if kind == "dodge" else None
    counter, attacker_cover = (
        _counter_dice(sheet, result, tid, active, ledger) if kind == "attack" else (None, False)
    )
    if counter is not None and not rolls_to_hit:
        ledger.append(
            ("the reaction attack is a Normal Roll and does not avoid the template (001)", "normal")
        )
    save_sv = _save_sv(sheet, tid, weapon.ps, weapon.save, sheet.weapon_path, ledger, tid)
    attacker_save, attacker_wounds = _return_fire(
        sheet, spec, attack.attacker, counter, source, ledger, attacker_cover
    )
    return RollPlan(
        attack=dice,
        templates=templates,
        dodge_sv=dodge_sv,
        counter=counter,
        save_sv=save_sv,
        wounds=_wounds(sheet, tid),
        attacker_save_sv=attacker_save,
        attacker_wounds=attacker_wounds,
        ledger=ledger,
    )


def _wounds(sheet: _Sheet, tid: str) -> int | None:
    stats = sheet.spec(tid).stats
    return None if stats is None else stats.wounds


def template_odds(scene: Scene, attack: AttackSpec, result: AttackResult) -> dict[str, Odds]:
    """The odds of every trooper a template attack's ``result`` affects (SPEC 12.4).

    Parameters
    ----------
    scene : geom3d.scene.Scene
    attack : geom3d.scenario.AttackSpec
    result : geom3d.scene.outcomes.AttackResult
        ``attack`` resolved.

    Returns
    -------
    dict[str, geom3d.combat.Odds]
        In ``result.affected`` order; empty when the attack gives no ``weapon``.

    Raises
    ------
    ScenarioError
        A roll needs a ``stats`` value the scenario does not give (field path named).
    """
    if attack.weapon is None:
        return {}
    sheet = _Sheet(scene, attack)
    return {tid: trooper_odds(_plan(sheet, result, tid)) for tid in result.affected}
