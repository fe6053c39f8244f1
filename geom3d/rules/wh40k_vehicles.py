"""40k vehicles in template attacks (SPEC 12.6; rule text 004), for :mod:`geom3d.rules.wh40k`.

"Place the template so that its narrow end is touching the base of the firing model, or
the end of the firing weapon's barrel for Vehicle models without bases ... Against
Vehicles, the template must be placed to cover as much of the Vehicle as possible without
touching a friendly model. The position of the firer is used to determine which armour
Facing is hit."

* A vehicle is under a template when any part of its hull's footprint is (touching
  counts): :func:`geom3d.placement.vehicles.hull_touched`. A friendly vehicle under it
  makes the placement ``invalid``/``touches_friendly`` like a friendly base.
* A baseless vehicle (``barrel``) fires its teardrops from the barrel: the narrow end is
  the barrel's plan point, whatever ``contact_deg`` says; an explicit ``focus`` must be
  the barrel (within ``PLACEMENT_TOL_MM``) or the placement is ``not_touching_attacker``.
* Main target a vehicle, heading ``auto`` or none (compulsory): the teardrop covering the
  most hull area (:func:`geom3d.placement.vehicles.solve_hull_cover`), no friendly model
  touched. The count solvers (other main targets) see a vehicle as the disc circumscribing
  its plan rectangle (for friendly vehicles that only forbids more; the placement they
  choose is then judged exactly).
* Each placement whose main target is a vehicle reports ``vehicle``: ``target``,
  ``facing`` (front / side / rear, from the firer's point: its base centre, or its
  barrel for a baseless vehicle), ``armour`` (that facing's Armour Value),
  ``covered_area_mm2``, ``hull_area_mm2``, ``covered_share`` (their ratio) and
  ``firer_point``.
* Ruling A2 for vehicles: an explicit teardrop placement against a vehicle is compared
  with the hull-coverage search's best (the narrow end anywhere on the firer's base, or
  at the barrel): ``vehicle.maximal`` (its share within ``VEHICLE_SHARE_TOL`` of the
  best) and ``vehicle.most_covered_share``; below it, the attack warns.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike
from shapely.geometry import Point

from geom3d.bodies.kernel_constants import CONTACT_EPS_MM
from geom3d.core.tolerances import WH40K_MAX_CONTACT_OFFSET_DEG
from geom3d.placement.tolerances import VEHICLE_SHARE_TOL
from geom3d.placement.vehicles import covered_area, facing_hit, hull_touched, solve_hull_cover
from geom3d.templates import TemplateShape, footprint_signed_distance

if TYPE_CHECKING:
    from geom3d.scene.scene import Scene
    from geom3d.scene.trooper import Trooper
    from geom3d.scene.vehicles import VehicleBody

__all__ = [
    "discs",
    "firer_point",
    "hull_solver_entry",
    "judge_explicit",
    "plan_gap",
    "short_warning",
    "solve_against",
    "under_template",
    "vehicle_of",
    "vehicle_report",
]


def vehicle_of(scene: Scene, tid: str) -> VehicleBody:
    """The vehicle body of trooper ``tid``, which the caller knows is a vehicle."""
    v = scene.troopers[tid].vehicle
    if v is None:
        raise ValueError(f"trooper {tid!r} is not a vehicle")
    return v


def discs(scene: Scene, ids: Iterable[str]) -> np.ndarray:
    """(k, 3) ``[x, y, r]`` of troopers ``ids``: base discs; a vehicle's hull as the disc
    circumscribing its plan rectangle (for the count solvers)."""
    rows = []
    for i in ids:
        t = scene.troopers[i]
        if t.vehicle is None:
            rows.append([t.position[0], t.position[1], t.radius])
        else:
            h = t.vehicle.hull
            rows.append([h.center[0], h.center[1], math.hypot(*h.half_size)])
    return np.array(rows, dtype=np.float64).reshape(-1, 3)


def plan_gap(firer: Trooper, target: Trooper) -> float:
    """Plan distance (mm) between the firer's base and the target's base, or its hull's
    outline for a vehicle (Wall of Death range; 0 or less when they touch or overlap)."""
    fx, fy = firer.position[0], firer.position[1]
    if target.vehicle is None:
        d = math.hypot(target.position[0] - fx, target.position[1] - fy)
        return float(d - target.radius - firer.radius)
    gap = target.vehicle.hull.footprint.distance(Point(fx, fy))
    return float(gap) - float(firer.radius)


def firer_point(firer: Trooper) -> tuple[float, float]:
    """Where the firer is for facings: its barrel (baseless vehicle) or base centre."""
    if firer.vehicle is not None and firer.vehicle.barrel is not None:
        return (firer.vehicle.barrel[0], firer.vehicle.barrel[1])
    return (firer.position[0], firer.position[1])


def under_template(
    scene: Scene, shape: TemplateShape, focus_xy: ArrayLike, heading: float, ids: list[str]
) -> set[str]:
    """Troopers of ``ids`` with any part of their base (or hull) under the template."""
    out = set()
    plain = [i for i in ids if scene.troopers[i].vehicle is None]
    if plain:
        d = discs(scene, plain)
        sd = footprint_signed_distance(shape, focus_xy, heading, d[:, :2])
        out = {i for i, s, r in zip(plain, sd, d[:, 2], strict=True) if s <= r + CONTACT_EPS_MM}
    for i in ids:
        v = scene.troopers[i].vehicle
        if v is not None and hull_touched(shape, focus_xy, heading, v.hull.footprint):
            out.add(i)
    return out


def solve_against(
    scene: Scene,
    shape: TemplateShape,
    firer: Trooper,
    target: str,
    friends: list[str],
    fixed_focus_xy: ArrayLike | None,
) -> Any:
    """The teardrop covering the most of ``target``'s hull (module docstring)."""
    plain = [i for i in friends if scene.troopers[i].vehicle is None]
    hulls = [v.hull.footprint for i in friends if (v := scene.troopers[i].vehicle) is not None]
    return solve_hull_cover(
        shape,
        vehicle_of(scene, target).hull.footprint,
        center_xy=firer.position[:2],
        radius=firer.radius,
        fixed_focus_xy=fixed_focus_xy,
        friend_discs=discs(scene, plain),
        friend_hulls=hulls,
        dmax_deg=WH40K_MAX_CONTACT_OFFSET_DEG,
    )


def hull_solver_entry(index: int, sol: Any) -> dict[str, Any]:
    """The ``solver`` section entry of a hull-coverage placement (degrees to 1e-3)."""

    def r3(v: float | None) -> float | None:
        return None if v is None else round(v, 3)

    return {
        "placement": index,
        "found": sol.found,
        "objective": "hull_area",
        "heading_deg": r3(sol.heading_deg),
        "contact_deg": r3(sol.contact_deg),
        "covered_area_mm2": round(sol.area, 3),
        "examined": sol.examined,
    }


def vehicle_report(
    scene: Scene,
    shape: TemplateShape,
    focus_xy: ArrayLike,
    heading: float,
    firer: Trooper,
    target: str,
) -> dict[str, Any]:
    """The placement's ``vehicle`` entry against vehicle ``target`` (module docstring)."""
    v = vehicle_of(scene, target)
    area = covered_area(shape, focus_xy, heading, v.hull)
    total = v.hull.area
    point = firer_point(firer)
    facing = facing_hit(point, v.hull)
    return {
        "target": target,
        "facing": facing,
        "armour": v.armour_of(facing),
        "covered_area_mm2": round(area, 3),
        "hull_area_mm2": round(total, 3),
        "covered_share": round(area / total, 4) if total > 0 else 0.0,
        "firer_point": [round(point[0], 3), round(point[1], 3)],
    }


def judge_explicit(
    scene: Scene,
    shape: TemplateShape,
    firer: Trooper,
    target: str,
    friends: list[str],
    fixed_xy: ArrayLike | None,
    report: dict[str, Any],
) -> None:
    """Ruling A2 for a vehicle: add ``maximal`` and ``most_covered_share`` to ``report``
    (an explicit placement's ``vehicle`` entry; see the module docstring)."""
    best = solve_against(scene, shape, firer, target, friends, fixed_xy)
    total = vehicle_of(scene, target).hull.area
    most = max(best.area / total if best.found and total > 0 else 0.0, report["covered_share"])
    report["maximal"] = report["covered_share"] >= most - VEHICLE_SHARE_TOL
    report["most_covered_share"] = round(most, 4)


def short_warning(attack_id: str, index: int, report: dict[str, Any]) -> str | None:
    """The warning of an explicit placement that covers less of a vehicle than possible."""
    if report.get("maximal") is not False:
        return None
    return (
        f"attack {attack_id!r} placement {index}: the template covers "
        f"{100 * report['covered_share']:.1f}% of {report['target']}'s hull where "
        f"{100 * report['most_covered_share']:.1f}% is possible (heading_deg: auto finds it)"
    )
