"""The MODs geometry decides for one shot (SPEC 13.2): Range and Partial Cover.

Every roll geom3d makes that is a shot at a trooper uses them: a plain BS attack at its
target, an impact template through its main target (000: its roll takes the main
target's MODs; no Saving Roll bonus against a template), a reaction attack at the
attacker (an ARO, with the reactor's own weapon). The ledger names each with its
geometry; the Partial Cover Saving Roll bonus (+3) applies only against a shot that is
not a template.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from geom3d.combat.numbers import PARTIAL_COVER_ROLL_MOD
from geom3d.rules.infinity.plain import cover_of, range_info

__all__ = ["ShotMods", "shot_mods"]


@dataclass(frozen=True)
class ShotMods:
    """Range and cover of one shot.

    Attributes
    ----------
    mod : int
        Range MOD + Partial Cover MOD, added to the shooter's Success Value.
    in_range : bool
    cover : bool
        The target is in Partial Cover (from the geometry or the attack's override).
    range : dict
        :func:`~geom3d.rules.infinity.plain.range_info` (without its ``text``).
    ledger : list of (str, str)
    """

    mod: int
    in_range: bool
    cover: bool
    range: dict
    ledger: list[tuple[str, object]] = field(default_factory=list)


def shot_mods(scene, attack, ranges, shooter, target, *, label: str) -> ShotMods:
    """Range and Partial Cover of a shot by ``shooter`` at ``target``.

    Parameters
    ----------
    scene : geom3d.scene.scene.Scene
    attack : geom3d.scenario.AttackSpec
        Its ``cover`` overrides apply.
    ranges : tuple of (to_mm, mod), or None
        The shooter's weapon's bands.
    shooter, target : geom3d.scene.trooper.Trooper
    label : str
        Whose roll, for the ledger (``attacker``, ``reaction attack``).
    """
    rng = range_info(scene, ranges, shooter, target)
    cover, words = cover_of(scene, attack, shooter, target)
    ledger: list[tuple[str, object]] = [(f"{label} MOD: {rng['text']}", f"{rng['mod']:+d}")]
    cmod = PARTIAL_COVER_ROLL_MOD if cover.partial else 0
    ledger.append((f"{label} MOD: {words}", f"{cmod:+d}"))
    info = {k: v for k, v in rng.items() if k != "text"}
    return ShotMods(rng["mod"] + cmod, rng["in_range"], cover.partial, info, ledger)
