"""``terrain_zones``: Special Terrain zones (SPEC 12.6; rule text 000, "Area of Effect of
Special Terrain Zones").

A zone is a plan shape (``rect: [x0, y0, x1, y1]`` or ``polygon: [[x, y], ...]``, in the
file's units) extruded from the table top (z = 0) up to ``height_mm`` (millimetres
whatever the file's units, as its name says). ``blocks_lof: true`` (a visibility zone such
as smoke, 003 "Visibility Conditions can affect Line of Fire") makes the zone's volume a
blocking solid: it is added to the scenery as a closed solid named ``zone:ID``, a box for
a ``rect``, an upright prism for a ``polygon`` (which must then be simple: its edges may
not cross).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from geom3d.scenario.context import ParseContext
from geom3d.scenario.model import SceneryItem

__all__ = ["ZONE_PIECE_PREFIX", "TerrainZone", "parse_terrain_zones", "zone_piece_id"]

#: Scenery ids of blocking zones' solids start with this.
ZONE_PIECE_PREFIX = "zone:"


@dataclass(frozen=True)
class TerrainZone:
    """One Special Terrain zone, lengths in mm.

    Attributes
    ----------
    id, kind : str
    polygon : tuple of (x, y) tuples, mm
        Counter-clockwise or clockwise; a ``rect`` becomes its 4 corners.
    height_mm : float
        Top of the zone above the table top (z = 0).
    blocks_lof : bool
    """

    id: str
    kind: str
    polygon: tuple[tuple[float, float], ...]
    height_mm: float
    blocks_lof: bool


def zone_piece_id(zone_id: str) -> str:
    """The scenery id of a blocking zone's solid."""
    return f"{ZONE_PIECE_PREFIX}{zone_id}"


def _area2(pts) -> float:
    return sum(
        pts[i][0] * pts[(i + 1) % len(pts)][1] - pts[(i + 1) % len(pts)][0] * pts[i][1]
        for i in range(len(pts))
    )


def _simple(poly) -> bool:
    """Whether the polygon's edges meet only at shared corners (no repeated point)."""
    from shapely.geometry import Polygon

    return len(set(poly)) == len(poly) and Polygon(poly).is_valid


def _prism_piece(zone_id: str, poly, height: float) -> SceneryItem:
    """A blocking polygon zone's solid: its prism, world coordinates."""
    return SceneryItem(
        id=zone_piece_id(zone_id),
        box_size=None,
        mesh_path=None,
        mesh_units="mm",
        position=(0.0, 0.0, 0.0),
        rotation_deg=0.0,
        scale=(1.0, 1.0, 1.0),
        blocks_lof=True,
        solid="closed",
        drop=False,
        prism=tuple(poly),
        prism_height=height,
    )


def parse_terrain_zones(raw, scenery_ids: set[str], ctx: ParseContext):
    """``terrain_zones`` -> (zones, extra scenery items for the blocking ones).

    Raises
    ------
    ScenarioError
        Duplicate id, neither or both of ``rect`` / ``polygon``, a bad rectangle or a
        degenerate polygon, a height that is not positive, a blocking polygon that is not
        simple.
    """
    zones, pieces, seen = [], [], set()
    for i, z in enumerate(raw.terrain_zones):
        where = f"terrain_zones[{i}]"
        if z.id in seen:
            raise ctx.error(f"duplicate terrain zone id {z.id!r}", f"{where}.id")
        seen.add(z.id)
        if zone_piece_id(z.id) in scenery_ids:
            raise ctx.error(f"scenery id {zone_piece_id(z.id)!r} is taken", f"{where}.id")
        if (z.rect is None) == (z.polygon is None):
            raise ctx.error("give exactly one of rect or polygon", where)
        if not (math.isfinite(z.height_mm) and z.height_mm > 0):
            raise ctx.error(
                f"must be a positive number (got {z.height_mm!r})", f"{where}.height_mm"
            )
        if z.rect is not None:
            r = ctx.lengths(z.rect, f"{where}.rect")
            if len(r) != 4 or not (r[0] < r[2] and r[1] < r[3]):
                raise ctx.error(
                    "expected [x0, y0, x1, y1] with x0 < x1 and y0 < y1", f"{where}.rect"
                )
            poly: tuple[tuple[float, float], ...] = (
                (r[0], r[1]),
                (r[2], r[1]),
                (r[2], r[3]),
                (r[0], r[3]),
            )
        else:
            if len(z.polygon) < 3 or any(len(p) != 2 for p in z.polygon):
                raise ctx.error("expected at least 3 points [x, y]", f"{where}.polygon")
            points = [ctx.lengths(p, f"{where}.polygon[{j}]") for j, p in enumerate(z.polygon)]
            poly = tuple((float(p[0]), float(p[1])) for p in points)
            if abs(_area2(poly)) < 1e-9:
                raise ctx.error("the polygon has no area", f"{where}.polygon")
            if z.blocks_lof and not _simple(poly):
                raise ctx.error(
                    "a blocking zone's polygon must be simple (its edges cross or touch)",
                    f"{where}.polygon",
                )
        h = float(z.height_mm)
        zones.append(TerrainZone(z.id, z.kind, poly, h, z.blocks_lof))
        if z.blocks_lof and z.polygon is not None:
            pieces.append(_prism_piece(z.id, poly, h))
        elif z.blocks_lof:
            (x0, y0), (x1, y1) = poly[0], poly[2]
            pieces.append(
                SceneryItem(
                    id=zone_piece_id(z.id),
                    box_size=(x1 - x0, y1 - y0, h),
                    mesh_path=None,
                    mesh_units="mm",
                    position=(0.5 * (x0 + x1), 0.5 * (y0 + y1), 0.0),
                    rotation_deg=0.0,
                    scale=(1.0, 1.0, 1.0),
                    blocks_lof=True,
                    solid="closed",
                    drop=False,
                )
            )
    return tuple(zones), pieces
