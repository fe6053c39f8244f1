"""Is a main target a valid target of the attack? (SPEC 11.4; rule text 000: the main
target "must be able [to be] designated as a valid target for the BS Attack").
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from geom3d.adjudication.lof import line_of_fire_from

if TYPE_CHECKING:
    from geom3d.scenario import AttackSpec
    from geom3d.scene.scene import Scene
    from geom3d.scene.trooper import Trooper

__all__ = ["target_problem"]


def target_problem(
    scene: Scene,
    attack: AttackSpec,
    attacker: Trooper,
    main: str | None,
    lof_cache: dict[str, Any],
) -> str | None:
    """Why ``main`` is not a valid main target of the attack (SPEC 11.4), or None.

    ``engaged``: the attacker is engaged and ``main`` is not one it is engaged with;
    ``no_lof``: a direct or (non-speculative) impact template whose attacker has no Line
    of Fire to ``main`` (arc included; ``engaged`` when the Line of Fire engine says so),
    except an Intuitive Attack (``intuitive: true``), which needs none. Deployables and
    attacks without a main target: None.
    ``attacker`` stands where it fires from (a moving attacker: its firing point,
    :mod:`.fire_at`), and Line of Fire is checked from there.
    """
    if main is None or attack.mode == "deployable":
        return None
    if attacker.engaged_with and main not in attacker.engaged_with:
        return "engaged"
    if attack.mode == "impact" and attack.speculative:
        return None
    if getattr(attack, "intuitive", False):  # Intuitive Attack: no LoF needed (SPEC 12.6)
        return None
    if main not in lof_cache:
        if attacker is scene.troopers.get(attacker.id):
            lof_cache[main] = scene.line_of_fire(attacker.id, main)
        else:  # a moving attacker at its firing point: Line of Fire from there
            lof_cache[main] = line_of_fire_from(scene, attacker, main)
    lof = lof_cache[main]
    if lof.lof:
        return None
    return "engaged" if lof.reason == "engaged" else "no_lof"
