"""Template attacks: resolve one attack of a scene into an :class:`AttackResult`.

``resolve_attack(scene, attack_id)`` (also ``Scene.resolve_attack``) hands the attack to
the scene's ruleset object, the one dispatcher of attacks
(``scene.ruleset.resolve_attack``), which looks it up, merges its per-placement overrides
into :class:`PlacementSpec` s (:func:`placement_specs`, here) and adjudicates it by its
game's rules (``ruleset.adjudicate``: :mod:`geom3d.rules.infinity`, SPEC 4.1;
:mod:`geom3d.rules.wh40k`, SPEC 4.2), which returns an :class:`AttackResult`
(:mod:`geom3d.scene.outcomes`: outcomes, reasons, the SPEC section 6 JSON).

Per-placement overrides (``placements``, one mapping per template, as many as ``burst``):
``heading_deg`` (number or ``auto``), ``contact_deg``, ``focus`` ([x, y] or [x, y, z], in
the scenario's units), ``pitch_deg``, ``main_target`` (a trooper id; B2 may be split
between targets). Keys left out take the attack's own values.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from geom3d.scenario import AttackSpec
from geom3d.scene.outcomes import AttackResult, PlacementSpec

if TYPE_CHECKING:
    from geom3d.scene.scene import Scene

__all__ = ["effective_burst", "placement_specs", "resolve_attack", "weapon_dict"]

#: PlacementSpec fields an attack gives and ``placements[j]`` may override.
_FIELDS = ("heading_deg", "contact_deg", "focus", "pitch_deg", "main_target")


def placement_specs(scene, attack: AttackSpec) -> list[PlacementSpec]:
    """The attack's ``burst`` placements: its own values, overridden per placement.

    The overrides were validated (and ``focus`` converted to mm) by the scenario parser,
    :mod:`geom3d.scenario.attack`; this only merges them with the attack's values.

    Parameters
    ----------
    scene : geom3d.scene.scene.Scene
        Unused; kept for callers.
    attack : AttackSpec

    Returns
    -------
    list of PlacementSpec
        :func:`effective_burst` entries, ``index`` 0, 1, ...
    """
    base = {f: getattr(attack, f) for f in _FIELDS}
    overrides = list(attack.placements or ({},) * attack.burst)
    n = effective_burst(attack)
    overrides = (overrides + [{}] * n)[:n]
    return [PlacementSpec(j, **{**base, **p}) for j, p in enumerate(overrides)]


def effective_burst(attack: AttackSpec) -> int:
    """Templates placed: ``burst``; in ARO 1, or ``aro_burst`` when given (rule 002).

    In ARO the first placements of ``placements`` are used (missing ones take the
    attack's own values).
    """
    if getattr(attack, "aro", False):
        return int(attack.aro_burst or 1)
    return attack.burst


def resolve_attack(
    scene: Scene, attack_id: str, *, odds: bool = False, stats: Any = None
) -> AttackResult:
    """Resolve one attack of ``scene``.

    Parameters
    ----------
    scene : geom3d.scene.scene.Scene
    attack_id : str
    odds : bool
        Add the exact odds of every affected trooper (SPEC 12.4, see
        :meth:`geom3d.rules.base.StandardRuleset.resolve_attack`).
    stats : optional
        The ruleset's counters, for benchmarks (Infinity:
        ``geom3d.placement.blast_focus.FocusStats``).

    Returns
    -------
    AttackResult

    Raises
    ------
    UnknownIdError
        No such attack.
    ScenarioError
        Bad per-placement overrides (``attacks[i].placements[j].key``); an attack whose
        main target is its attacker (``attacks[i].main_target``, SPEC 12.6).
    """
    problem = scene.attack(attack_id).problem
    if problem is not None:
        raise problem
    return scene.ruleset.resolve_attack(scene, attack_id, odds=odds, stats=stats)


def weapon_dict(attack: AttackSpec) -> dict:
    """The attack's ``weapon`` as used: every default filled in (SPEC 12.4); only for an
    attack that gives one."""
    w = attack.weapon
    if w is None:
        raise ValueError(f"attack {attack.id!r} gives no weapon")
    return {
        "attribute": w.attribute,
        "burst": attack.burst,
        "ps": w.ps,
        "save": w.save,
        "mod": w.mod,
    }
