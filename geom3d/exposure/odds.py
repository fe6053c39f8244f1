"""The danger map: ``geom3d exposure --odds`` (SPEC 13.2).

Computed in the parent process from the exposure document's visibility answers (which
observers have Line of Fire to a probe on each cell): each observer shoots an ARO at the
probe with its weapon profile (its ``reaction: {attack: ...}``), a Normal Roll (the
probe declares nothing), B = 1 (002: "In ARO, the B value is always reduced to 1"),
Success Value = the profile's attribute + its ``mod`` + the observer's ``reaction_mod``
+ the Range MOD of the observer's bands at the distance between the silhouettes + -3
when the probe is in Partial Cover against that observer (the rules of
:mod:`geom3d.rules.infinity.plain` and :mod:`geom3d.rules.infinity.cover`, as for a plain
BS attack on a trooper standing there). Beyond its last band an observer cannot hit.

Per cell: ``p_hit_by: {id: p}`` (P(at least one hit) from that observer) for every
observer that sees the cell, and ``p_hit`` = 1 - prod(1 - p), the AROs independent. The
document adds ``odds: {profiles: {id: {attribute, value, mod, reaction_mod, burst,
ranges}}}`` naming what was used.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from geom3d.bodies.cylinder import Cylinder
from geom3d.combat import Dice, normal_roll
from geom3d.combat.numbers import ARO_BURST, PARTIAL_COVER_ROLL_MOD
from geom3d.core.errors import ScenarioError
from geom3d.core.units import LENGTH_UNITS
from geom3d.rules.infinity.cover import partial_cover
from geom3d.rules.infinity.plain import range_info

__all__ = ["add_danger_odds"]

#: Decimal places of the map's probabilities.
P_DECIMALS = 6


@dataclass(frozen=True)
class _Probe:
    """A probe standing on a cell, as the rules see a trooper."""

    position: tuple[float, float, float]
    radius: float
    height: float
    id: str = "probe"

    @property
    def cylinder(self) -> Cylinder:
        return Cylinder(self.position, self.radius, self.height)


def _profile(scene, oid: str) -> dict:
    """An observer's ARO profile, or an input error naming the field."""
    troopers = scene.scenario.troopers
    i = next(k for k, t in enumerate(troopers) if t.id == oid)
    spec = troopers[i]
    file = scene.scenario.name if scene.scenario.path is None else str(scene.scenario.path)
    reaction = spec.reaction
    if reaction is None or reaction.kind != "attack":
        raise ScenarioError(
            f"observer {oid!r} has no weapon profile: exposure --odds needs its "
            "reaction: {attack: {attribute, mod, ps, ranges}} (SPEC 13.2)",
            file=file,
            path=f"troopers[{i}].reaction",
        )
    w = reaction.attack
    value = None if spec.stats is None else getattr(spec.stats, w.attribute)
    if value is None:
        raise ScenarioError(
            f"{w.attribute} of {oid!r} is needed for its ARO (exposure --odds)",
            file=file,
            path=f"troopers[{i}].stats" + ("" if spec.stats is None else f".{w.attribute}"),
        )
    k = LENGTH_UNITS[scene.scenario.units]
    return {
        "attribute": w.attribute,
        "value": value,
        "mod": w.mod,
        "reaction_mod": spec.reaction_mod,
        "burst": ARO_BURST,
        "ranges": None if w.ranges is None else [{"to": t / k, "mod": m} for t, m in w.ranges],
        "_ranges": w.ranges,
    }


def _p_hit(sv: int, burst: int) -> Fraction:
    return sum((p for (h, _), p in normal_roll(Dice(sv, burst)).items() if h), Fraction(0))


def add_danger_odds(scene, doc: dict) -> None:
    """Add ``odds``, and per cell ``p_hit`` and ``p_hit_by``, to an exposure document.

    Parameters
    ----------
    scene : geom3d.scene.scene.Scene
    doc : dict
        The ``exposure.json`` document (:func:`geom3d.exposure.run_exposure`).

    Raises
    ------
    ScenarioError
        An observer without a weapon profile, or without the attribute it rolls.
    """
    profiles = {o: _profile(scene, o) for o in doc["observers"]}
    r = 0.5 * doc["probe"]["diameter_mm"]
    h = doc["probe"]["height_mm"]
    shooters = {o: scene.trooper(o) for o in profiles}
    cache: dict[int, Fraction] = {}
    for cell in doc["cells"]:
        probe = _Probe(tuple(float(v) for v in cell["position"]), r, h)  # type: ignore[arg-type]
        by: dict[str, float] = {}
        miss = Fraction(1)
        for o in cell["seen_by"]:
            prof, shooter = profiles[o], shooters[o]
            rng = range_info(scene, prof["_ranges"], shooter, probe)
            if not rng["in_range"]:
                by[o] = 0.0
                continue
            cover = partial_cover(scene, shooter, probe).partial
            sv = prof["value"] + prof["mod"] + prof["reaction_mod"] + rng["mod"]
            sv += PARTIAL_COVER_ROLL_MOD if cover else 0
            if sv not in cache:
                cache[sv] = _p_hit(sv, prof["burst"])
            p = cache[sv]
            by[o] = round(float(p), P_DECIMALS)
            miss *= 1 - p
        cell["p_hit"] = round(float(1 - miss), P_DECIMALS)
        cell["p_hit_by"] = by
    doc["odds"] = {
        "profiles": {o: {k: v for k, v in p.items() if not k.startswith("_")}
                     for o, p in profiles.items()},
        "roll": "normal: an ARO, B 1, the probe declares nothing",
    }  # fmt: skip
