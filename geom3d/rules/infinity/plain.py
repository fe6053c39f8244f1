"""Plain BS attacks (SPEC 13.2; seed 002: "BS Weapons: those weapons having Ranges and
Range MODs"), and the Range MOD every roll of geom3d uses.

**Distance** between two troopers: the shortest distance between their silhouette
volumes (upright cylinders: base disc x [base, top]), exactly
``hypot(max(0, plan distance of the axes - r1 - r2), vertical gap)``, the vertical gap
being 0 where the height ranges overlap. On level ground it is the distance from base
edge to base edge; a trooper on a roof is measured to its silhouette's nearest point.

**Range band**: ``weapon.ranges`` ``[{to: D, mod: M}, ...]`` (ascending, file units): the
first band whose ``to`` is at least the distance (a band's end belongs to it: a distance
exactly on a limit takes the shorter band's MOD; compared to ``GEOM_EPS_MM``). Beyond the
last band the target is out of range. A weapon without ``ranges`` has no Range MOD and no
limit.

A plain attack resolves (outcome precedence as for templates):

* ``failed`` / ``engaged`` or ``no_lof``: the target is not a valid target
  (:func:`~geom3d.rules.infinity.validity.target_problem`: Line of Fire, arc, engagement);
* ``invalid`` / ``out_of_range``: beyond the weapon's last band;
* ``resolved``: the target is the one affected trooper.

The JSON adds ``target``, ``range`` (``distance_mm``, ``distance`` and ``units`` (the
file's), ``band`` (index or None), ``from``/``to`` (file units), ``mod``) and, per the
target, ``cover`` (:mod:`~geom3d.rules.infinity.cover`, or the attack's ``cover``
override).
"""

from __future__ import annotations

import math

from geom3d.bodies.kernel_constants import GEOM_EPS_MM
from geom3d.core.units import LENGTH_UNITS
from geom3d.rules.infinity.cover import Cover, partial_cover
from geom3d.rules.infinity.validity import target_problem
from geom3d.scene.outcomes import AttackResult

__all__ = ["cover_of", "range_info", "resolve_plain", "silhouette_distance"]


def silhouette_distance(a, b) -> float:
    """Shortest distance (mm) between two upright silhouette cylinders (module docstring).

    Parameters
    ----------
    a, b : geom3d.bodies.Cylinder
    """
    pa, pb = a.base_array, b.base_array
    plan = max(0.0, math.hypot(pa[0] - pb[0], pa[1] - pb[1]) - a.radius - b.radius)
    za0, za1 = float(pa[2]), float(pa[2]) + a.height
    zb0, zb1 = float(pb[2]), float(pb[2]) + b.height
    vertical = max(0.0, zb0 - za1, za0 - zb1)
    return math.hypot(plan, vertical)


def _fmt(v: float) -> str:
    return f"{v:.3f}".rstrip("0").rstrip(".")


def range_info(scene, ranges, shooter, target) -> dict:
    """The distance from ``shooter`` to ``target`` and the weapon's band there.

    Parameters
    ----------
    scene : geom3d.scene.scene.Scene
    ranges : tuple of (to_mm, mod), or None
        ``weapon.ranges``.
    shooter, target : geom3d.scene.trooper.Trooper

    Returns
    -------
    dict
        ``distance_mm``, ``distance``, ``units``, ``band`` (index, None without
        ``ranges`` or out of range), ``from``, ``to`` (file units, None without a band),
        ``mod`` (0 without a band), ``in_range`` and ``text`` (the ledger's words).
    """
    units = scene.scenario.units
    k = LENGTH_UNITS[units]
    d = silhouette_distance(shooter.cylinder, target.cylinder)
    out = {
        "distance_mm": round(d, 6),
        "distance": round(d / k, 6),
        "units": units,
        "band": None,
        "from": None,
        "to": None,
        "mod": 0,
        "in_range": True,
    }
    mm = "" if units == "mm" else f" ({_fmt(d)} mm)"
    where = f"range {_fmt(d / k)} {units}{mm}, silhouette to silhouette"
    if not ranges:
        out["text"] = f"{where}: the weapon gives no ranges, no Range MOD"
        return out
    lo = 0.0
    for i, (to, mod) in enumerate(ranges):
        if d <= to + GEOM_EPS_MM:
            out.update(band=i, mod=mod, **{"from": round(lo / k, 6), "to": round(to / k, 6)})
            out["text"] = f"{where}: band {_fmt(lo / k)}-{_fmt(to / k)} {units}, {mod:+d}"
            return out
        lo = to
    out["in_range"] = False
    out["text"] = f"{where}: beyond the last band ({_fmt(lo / k)} {units}), out of range"
    return out


def cover_of(scene, attack, shooter, target) -> tuple[Cover, str]:
    """Partial Cover of ``target`` against ``shooter``: the attack's ``cover`` override
    for ``target`` when it gives one, else the geometry; with the ledger's words."""
    override = attack.cover_override(target.id) if attack is not None else None
    if override is not None:
        c = Cover(override == "partial")
        i = next(k for k, a in enumerate(scene.scenario.attacks) if a.id == attack.id)
        return c, (
            f"Partial Cover of {target.id}: {override}, from attacks[{i}].cover (the "
            "override wins over the geometry)"
        )
    c = partial_cover(scene, shooter, target)
    if c.partial:
        words = (
            f"Partial Cover of {target.id}: touching {c.element} (gap {_fmt(c.gap_mm or 0.0)} "
            f"mm), {100 * (c.hidden_share or 0.0):.0f} % of the silhouette hidden from "
            f"{shooter.id}"
        )
    elif c.element is None:
        words = f"no Partial Cover for {target.id}: no scenery within 1 mm of its base"
    else:
        words = (
            f"no Partial Cover for {target.id}: {', '.join(c.touching)} within 1 mm of its "
            f"base but hiding no 3 x 3 mm patch from {shooter.id}"
        )
    return c, words


def resolve_plain(scene, attack, attacker) -> AttackResult:
    """Resolve a plain BS attack with ``attacker`` standing where it fires from."""
    target = scene.trooper(attack.target)
    rng = range_info(
        scene, None if attack.weapon is None else attack.weapon.ranges, attacker, target
    )
    problem = target_problem(scene, attack, attacker, target.id, {})
    outcome, reason = "resolved", None
    if not rng["in_range"]:  # invalid before failed, as for templates
        outcome, reason = "invalid", "out_of_range"
    elif problem is not None:
        outcome, reason = "failed", problem
    cover, _ = cover_of(scene, attack, attacker, target)
    troopers = {}
    if outcome == "resolved":
        troopers[target.id] = {
            "role": "target",
            "roll": (attack.weapon.attribute if attack.weapon else "bs").upper(),
            "face_to_face": True,
            "critical_applies": True,
            "partial_cover": cover.partial,
            "partial_cover_bonus": cover.partial,
            "cover": cover.to_dict(),
        }
    return AttackResult(
        id=attack.id,
        ruleset=scene.ruleset.name,
        outcome=outcome,
        reason=reason,
        main_target_in_area=None,
        affected=[target.id] if outcome == "resolved" else [],
        excluded=[],
        troopers=troopers,
        placements=[],
        target=target.id,
        range={k: v for k, v in rng.items() if k not in ("text", "in_range")},
    )
