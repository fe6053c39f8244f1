"""``troopers[i].vehicle``: 40k vehicles (SPEC 12.6; rule text 004).

::

    vehicle:
      hull: {box: {size: [x, y, z]}}            # or {mesh: FILE, mesh_units, scale, rotation_deg}
      barrel: [x, y, z]                         # vehicles without bases only
      armour: {front: 12, side: 11, rear: 10}

Frames. The hull is given in the vehicle's own frame: +x is the front, +y the left, +z
up, the origin at the trooper's ``position`` (a box is centred on it in plan and stands
on it); the trooper's ``facing_deg`` turns the frame on the table. A mesh hull is first
scaled, then turned by its own ``rotation_deg`` about the origin (to bring its front to
+x), then placed like a box. ``barrel`` is the end of the firing weapon's barrel in the
same frame (file units), turned by ``facing_deg`` only. A vehicle with a ``barrel`` has no
base: its templates start at the barrel and it may not give a ``silhouette`` (its body
is its hull). Armour Values are whole numbers from ``MIN_ARMOUR`` to ``MAX_ARMOUR``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from geom3d.core.tolerances import MAX_BODY_MM
from geom3d.core.validation import xyz
from geom3d.ruledata import Capabilities
from geom3d.scenario.context import ParseContext
from geom3d.scenario.limits import MAX_ARMOUR, MIN_ARMOUR, MIN_BODY_MM

__all__ = ["VehicleSpec", "parse_vehicle"]


@dataclass(frozen=True)
class VehicleSpec:
    """A vehicle as written, lengths in mm.

    Attributes
    ----------
    box_size : (3,) tuple of float or None, mm
    mesh_path : pathlib.Path or None
    mesh_units : str
    scale : (3,) tuple of float
    rotation_deg : float
        The mesh's own turn about its origin (before ``facing_deg``).
    barrel : (3,) tuple of float or None, mm
        In the vehicle's frame; None for a vehicle with a base.
    armour : (3,) tuple of int
        Front, side, rear.
    """

    box_size: tuple[float, float, float] | None
    mesh_path: Path | None
    mesh_units: str
    scale: tuple[float, float, float]
    rotation_deg: float
    barrel: tuple[float, float, float] | None
    armour: tuple[int, int, int]

    def armour_of(self, facing: str) -> int:
        """The Armour Value of ``front``, ``side`` or ``rear``."""
        return self.armour[("front", "side", "rear").index(facing)]


def parse_vehicle(
    raw,
    units: str,
    ruleset_name: str,
    ctx: ParseContext,
    where: str,
    mesh_path: Callable,
    capabilities: Capabilities,
) -> VehicleSpec:
    """One trooper's ``vehicle`` (``raw``: the trooper's schema model).

    ``mesh_path(value, ctx, where)`` resolves and checks a mesh file name.

    Raises
    ------
    ScenarioError
        A ruleset without vehicles (``capabilities.vehicles``), neither or both of
        ``box``/``mesh``, mesh options without a mesh, a barrel that is not
        ``[x, y, z]``, a barrel with a silhouette, an Armour Value out of range.
    """
    v = raw.vehicle
    here = f"{where}.vehicle"
    if not capabilities.vehicles:
        raise ctx.error(
            f"vehicles are a Warhammer 40k rule (ruleset wh40k-7e); this is {ruleset_name!r}",
            here,
        )
    h = v.hull
    if (h.box is None) == (h.mesh is None):
        raise ctx.error("give exactly one of 'box' or 'mesh'", f"{here}.hull")
    if h.box is not None:
        for key in ("mesh_units", "scale", "rotation_deg"):
            if key in h.model_fields_set:
                raise ctx.error(
                    f"'{key}' needs 'mesh' (it places the hull mesh)", f"{here}.hull.{key}"
                )
    box = (
        xyz(ctx.lengths(h.box.size, f"{here}.hull.box.size", MAX_BODY_MM, MIN_BODY_MM))
        if h.box is not None
        else None
    )
    path = mesh_path(h.mesh, ctx, f"{here}.hull.mesh") if h.mesh is not None else None
    barrel = None
    if v.barrel is not None:
        if len(v.barrel) != 3:
            raise ctx.error("expected [x, y, z] in the vehicle's frame", f"{here}.barrel")
        barrel = xyz(ctx.lengths(v.barrel, f"{here}.barrel", MAX_BODY_MM))
        if "silhouette" in raw.model_fields_set:
            raise ctx.error(
                "a vehicle with a barrel has no base: give no silhouette (its hull is its body)",
                f"{where}.silhouette",
            )
    armour = []
    for facing in ("front", "side", "rear"):
        value = getattr(v.armour, facing)
        if not MIN_ARMOUR <= value <= MAX_ARMOUR:
            raise ctx.error(
                f"an Armour Value is a whole number from {MIN_ARMOUR} to {MAX_ARMOUR} "
                f"(got {value})",
                f"{here}.armour.{facing}",
            )
        armour.append(int(value))
    scale = h.scale if isinstance(h.scale, list) else [h.scale] * 3
    return VehicleSpec(
        box_size=box,
        mesh_path=path,
        mesh_units=h.mesh_units or units,
        scale=(float(scale[0]), float(scale[1]), float(scale[2])),
        rotation_deg=float(h.rotation_deg),
        barrel=barrel,
        armour=(armour[0], armour[1], armour[2]),
    )
