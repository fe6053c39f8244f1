"""Solid scenery pieces: box, wall, building, container, walkway, barricade, crates.

Every function returns a :class:`trimesh.Trimesh` in millimetres, z up, with its local
origin at the centre of its bottom face (the scenario ``box`` convention), so
``position: [x, y, 0]`` stands it on the table. Pieces other than :func:`box` are
:func:`~geom3d.terrain.rectilinear.rectilinear` solids, so doors and windows are real
openings and roofs, decks and sills are the only upward faces a trooper can stand on.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import trimesh

from geom3d.bodies.kernel_constants import GEOM_EPS_MM
from geom3d.core.errors import InputError
from geom3d.core.validation import require_positive
from geom3d.mesh import box_mesh
from geom3d.terrain.rectilinear import aabb, rectilinear, size3

__all__ = [
    "barricade",
    "box",
    "building",
    "container",
    "crates",
    "place",
    "walkway",
    "wall",
    "yaw_matrix",
]


def box(size: Sequence[float]) -> trimesh.Trimesh:
    """Closed box, origin at the centre of its bottom face.

    Parameters
    ----------
    size : (3,) float, mm
        Extents along x, y, z.

    Returns
    -------
    trimesh.Trimesh
        :func:`geom3d.mesh.box_mesh` (the scenario ``box``): 12 triangles, bounds
        ``[[-sx/2, -sy/2, 0], [sx/2, sy/2, sz]]``.
    """
    vertices, faces = box_mesh(size3(size))
    return trimesh.Trimesh(vertices=vertices, faces=faces, process=False)


def wall(
    length: float,
    thickness: float,
    height: float,
    *,
    windows: Sequence[Sequence[float]] = (),
    gaps: Sequence[Sequence[float]] = (),
) -> trimesh.Trimesh:
    """Straight wall along x with rectangular openings through it.

    Parameters
    ----------
    length, thickness, height : float, mm
        Extents along x, y and z.
    windows : sequence of (x, width, z_bottom, z_top), mm
        Openings through the whole thickness: centre ``x`` along the wall (0 = middle),
        ``width`` along x, from ``z_bottom`` up to ``z_top`` (``z_bottom = 0`` makes a
        door, ``z_top = height`` a notch).
    gaps : sequence of (x, width), mm
        Full-height gaps (the wall is cut into separate pieces).

    Returns
    -------
    trimesh.Trimesh
        Bounds ``[[-length/2, -thickness/2, 0], [length/2, thickness/2, height]]`` unless
        an opening reaches an end.

    Raises
    ------
    InputError
        An opening that is not inside the wall.
    """
    length = require_positive(length, "length")
    thickness = require_positive(thickness, "thickness")
    height = require_positive(height, "height")
    holes = []
    openings = [("windows", i, tuple(w)) for i, w in enumerate(windows)]
    openings += [("gaps", i, (*tuple(g), 0.0, height)) for i, g in enumerate(gaps)]
    for name, i, o in openings:
        if len(o) != 4:
            raise InputError(f"{name}[{i}] must be (x, width[, z_bottom, z_top]), got {o!r}")
        x, w, z0, z1 = (float(v) for v in o)
        require_positive(w, f"{name}[{i}] width")
        if x - w / 2 < -length / 2 - GEOM_EPS_MM or x + w / 2 > length / 2 + GEOM_EPS_MM:
            raise InputError(f"{name}[{i}] ({x - w / 2:g}..{x + w / 2:g}) is outside the wall")
        if not 0 <= z0 < z1 <= height:
            raise InputError(f"{name}[{i}] z range {z0:g}..{z1:g} is not inside 0..{height:g}")
        holes.append(((x - w / 2, -thickness, z0), (x + w / 2, thickness, z1)))
    return rectilinear([aabb(0, 0, 0, length, thickness, height)], holes)


_SIDES = ("-y", "+y", "-x", "+x")


def building(
    size: Sequence[float] = (200.0, 150.0, 130.0),
    storeys: int = 2,
    *,
    door: Sequence[float] | None = (30.0, 45.0),
    door_sides: Sequence[str] = ("-y", "+y"),
    windows: Sequence[float] | None = (25.0, 20.0, 22.0),
    windows_per_wall: int = 2,
    roof: bool = True,
    parapet: float = 0.0,
    wall_thickness: float = 4.0,
    floor_thickness: float = 4.0,
) -> trimesh.Trimesh:
    """Hollow sci-fi building: walls, a floor slab per storey, doors, windows, flat roof.

    Storeys are stacked slabs: storey ``k`` stands on a slab ``[k h, k h + floor_thickness]``
    (``k = 0`` is a ground slab on the table) and the roof slab's top is the flat roof,
    ``size[2] - parapet`` above the bottom. Without a roof the top storey is open.

    Parameters
    ----------
    size : (3,) float, mm
        Outer extents x, y, z (z includes roof and parapet).
    storeys : int
        Number of storeys, >= 1. Storey height ``h = (size[2] - parapet - floor_thickness)
        / storeys`` with a roof, ``size[2] / storeys`` without.
    door : (width, height) float mm, or None
        Ground-storey doors, centred on each side in ``door_sides``, bottom at the top of
        the ground slab.
    door_sides : sequence of str
        Any of ``"-y"`` (front), ``"+y"``, ``"-x"``, ``"+x"``. The default has a door in
        front and one behind, so one can see straight through the ground storey.
    windows : (width, height, sill) float mm, or None
        Windows on every side and storey; ``sill`` is measured from the storey's floor.
    windows_per_wall : int
        Windows per side per storey, evenly spaced; on the ground storey those that
        would overlap a door are left out.
    roof : bool
        Flat roof slab one can stand on.
    parapet : float, mm
        Height of a low wall round the roof edge (0 = none); needs ``roof``.
    wall_thickness, floor_thickness : float, mm

    Returns
    -------
    trimesh.Trimesh
        Bounds ``[[-sx/2, -sy/2, 0], [sx/2, sy/2, sz]]``.

    Raises
    ------
    InputError
        Doors or windows that do not fit, unknown sides, non-positive sizes.
    """
    sx, sy, sz = size3(size)
    if int(storeys) != storeys or storeys < 1:
        raise InputError(f"storeys must be an integer >= 1, got {storeys!r}")
    storeys = int(storeys)
    t = require_positive(wall_thickness, "wall_thickness")
    ft = require_positive(floor_thickness, "floor_thickness")
    parapet = float(parapet)
    if parapet < 0 or (parapet > 0 and not roof):
        raise InputError("parapet must be >= 0 and needs roof=True")
    if 2 * t >= min(sx, sy):
        raise InputError("wall_thickness leaves no room inside the building")
    h = (sz - parapet - ft) / storeys if roof else sz / storeys
    clear = h - ft
    if clear <= 0:
        raise InputError(f"size[2] = {sz:g} mm is too low for {storeys} storeys")
    for side in door_sides:
        if side not in _SIDES:
            raise InputError(f"door side {side!r} is not one of {_SIDES}")

    xi, yi = sx / 2 - t, sy / 2 - t  # inner half extents
    solids = [aabb(0, 0, 0, sx, sy, sz)]
    holes = []
    top_clear = storeys * h if roof else sz
    for k in range(storeys):
        z0 = k * h + ft
        z1 = (k + 1) * h if k < storeys - 1 else top_clear
        holes.append(((-xi, -yi, z0), (xi, yi, z1)))
    if parapet > 0:
        holes.append(((-xi, -yi, sz - parapet), (xi, yi, sz)))

    def through(side: str, c: float, w: float, z0: float, z1: float):
        """Hole through the wall on ``side`` centred at ``c`` along it."""
        if side in ("-y", "+y"):
            yy = -sy / 2 if side == "-y" else sy / 2 - t
            return ((c - w / 2, yy - 1, z0), (c + w / 2, yy + t + 1, z1))
        xx = -sx / 2 if side == "-x" else sx / 2 - t
        return ((xx - 1, c - w / 2, z0), (xx + t + 1, c + w / 2, z1))

    def inner_len(side: str) -> float:
        return 2 * xi if side in ("-y", "+y") else 2 * yi

    door_span = None
    if door is not None:
        dw, dh = (require_positive(v, "door") for v in door)
        if dh > clear:
            raise InputError(f"door height {dh:g} mm exceeds the storey's {clear:g} mm")
        for side in door_sides:
            if dw >= inner_len(side):
                raise InputError(f"door width {dw:g} mm does not fit side {side}")
            holes.append(through(side, 0.0, dw, ft, ft + dh))
        door_span = (-dw / 2 - 2.0, dw / 2 + 2.0)
    if windows is not None and windows_per_wall > 0:
        ww, wh, sill = (float(v) for v in windows)
        require_positive(ww, "window width")
        require_positive(wh, "window height")
        if sill < 0 or sill + wh > clear:
            raise InputError(f"windows (sill {sill:g} + {wh:g} mm) do not fit a storey")
        for side in _SIDES:
            n = int(windows_per_wall)
            li = inner_len(side)
            if n * ww >= li:
                raise InputError(f"{n} windows of {ww:g} mm do not fit side {side}")
            for k in range(storeys):
                for i in range(n):
                    c = -li / 2 + (i + 0.5) * li / n
                    if (
                        k == 0
                        and door_span is not None
                        and side in door_sides
                        and c + ww / 2 > door_span[0]
                        and c - ww / 2 < door_span[1]
                    ):
                        continue
                    z0 = k * h + ft + sill
                    holes.append(through(side, c, ww, z0, z0 + wh))
    return rectilinear(solids, holes)


def container(
    length: float = 150.0,
    width: float = 60.0,
    height: float = 64.0,
    *,
    ribs: bool = True,
    rib_spacing: float = 14.0,
) -> trimesh.Trimesh:
    """Closed shipping container: end frames, a body inset 1 mm, vertical ribs on the sides.

    Parameters
    ----------
    length, width, height : float, mm
        Outer extents along x, y, z.
    ribs : bool
        Vertical ribs (2 mm wide, 1 mm proud of the body) along both long sides.
    rib_spacing : float, mm
        Distance between rib centres.

    Returns
    -------
    trimesh.Trimesh
        Bounds ``[[-length/2, -width/2, 0], [length/2, width/2, height]]``; the roof is
        flat at ``height``.
    """
    length = require_positive(length, "length")
    width = require_positive(width, "width")
    height = require_positive(height, "height")
    frame = min(4.0, length / 8)
    inset = min(1.0, width / 8)
    solids = [
        aabb(0, 0, 0, length - 2 * frame, width - 2 * inset, height),
        aabb(-length / 2 + frame / 2, 0, 0, frame, width, height),
        aabb(length / 2 - frame / 2, 0, 0, frame, width, height),
    ]
    if ribs and height > 10:
        inner = length - 2 * frame
        n = int(inner // require_positive(rib_spacing, "rib_spacing"))
        for i in range(1, n):
            x = -inner / 2 + i * inner / n
            for y in (-width / 2 + inset / 2, width / 2 - inset / 2):
                solids.append(aabb(x, y, 4.0, 2.0, inset, height - 8.0))
    return rectilinear(solids)


def walkway(
    length: float = 240.0,
    width: float = 50.0,
    deck_height: float = 60.0,
    deck_thickness: float = 4.0,
    *,
    legs: bool = True,
    leg_size: float = 6.0,
    leg_spacing: float = 120.0,
) -> trimesh.Trimesh:
    """Raised deck on square legs at its long edges; open underneath.

    Parameters
    ----------
    length, width : float, mm
        Deck extents along x and y.
    deck_height : float, mm
        Height of the deck's top (where a trooper stands).
    deck_thickness : float, mm
    legs : bool
        Legs along both long edges, at the ends and at most ``leg_spacing`` apart.
    leg_size : float, mm
        Side of the square legs.

    Returns
    -------
    trimesh.Trimesh
        Bounds ``[[-length/2, -width/2, 0], [length/2, width/2, deck_height]]`` (z from
        ``deck_height - deck_thickness`` without legs). Under the deck the space
        ``|y| < width/2 - leg_size`` is clear from the ground to the deck's underside.
    """
    length = require_positive(length, "length")
    width = require_positive(width, "width")
    dh = require_positive(deck_height, "deck_height")
    dt = require_positive(deck_thickness, "deck_thickness")
    if dt >= dh:
        raise InputError("deck_thickness must be below deck_height")
    solids = [aabb(0, 0, dh - dt, length, width, dt)]
    if legs:
        ls = require_positive(leg_size, "leg_size")
        if 2 * ls >= width:
            raise InputError("legs leave no room under the deck")
        n = max(2, math.ceil((length - ls) / require_positive(leg_spacing, "leg_spacing")) + 1)
        for x in np.linspace(-length / 2 + ls / 2, length / 2 - ls / 2, n):
            for y in (-width / 2 + ls / 2, width / 2 - ls / 2):
                solids.append(aabb(float(x), y, 0, ls, ls, dh - dt))
    return rectilinear(solids)


def barricade(length: float = 80.0, height: float = 25.0, thickness: float = 12.0):
    """Stepped jersey barrier along x: full thickness at the bottom, narrower above.

    Parameters
    ----------
    length, height, thickness : float, mm
        Extents along x, z and (at the base) y.

    Returns
    -------
    trimesh.Trimesh
        Bounds ``[[-length/2, -thickness/2, 0], [length/2, thickness/2, height]]``.
    """
    length = require_positive(length, "length")
    height = require_positive(height, "height")
    thickness = require_positive(thickness, "thickness")
    third = height / 3
    return rectilinear(
        [
            aabb(0, 0, 0, length, thickness, third),
            aabb(0, 0, third, length, 0.7 * thickness, third),
            aabb(0, 0, 2 * third, length, 0.45 * thickness, height - 2 * third),
        ]
    )


def crates(size: float = 25.0, gap: float = 2.0) -> trimesh.Trimesh:
    """Three cubic crates: two side by side along x, ``gap`` apart, one on top bridging them.

    Parameters
    ----------
    size : float, mm
        Side of a crate.
    gap : float, mm
        Distance between the two bottom crates (>= 0).

    Returns
    -------
    trimesh.Trimesh
        Bounds ``[[-size - gap/2, -size/2, 0], [size + gap/2, size/2, 2 size]]``.
    """
    s = require_positive(size, "size")
    g = float(gap)
    if g < 0:
        raise InputError("gap must be >= 0")
    return rectilinear(
        [
            aabb(-(s + g) / 2, 0, 0, s, s, s),
            aabb((s + g) / 2, 0, 0, s, s, s),
            aabb(0, 0, s, s, s, s),
        ]
    )


def yaw_matrix(rotation_deg: float) -> np.ndarray:
    """(3, 3) float64 rotation about +z, counter-clockwise seen from above."""
    a = math.radians(float(rotation_deg))
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def place(
    mesh: trimesh.Trimesh, position: Sequence[float], rotation_deg: float = 0.0
) -> trimesh.Trimesh:
    """Copy of ``mesh`` turned about +z by ``rotation_deg`` and its origin moved to ``position``.

    Parameters
    ----------
    mesh : trimesh.Trimesh
    position : (3,) float, mm
    rotation_deg : float
        Yaw, counter-clockwise from +x seen from above.

    Returns
    -------
    trimesh.Trimesh
        Same faces, ``process=False``.
    """
    pos = np.asarray(position, dtype=np.float64).reshape(3)
    v = np.asarray(mesh.vertices, dtype=np.float64) @ yaw_matrix(rotation_deg).T + pos
    return trimesh.Trimesh(vertices=v, faces=np.asarray(mesh.faces).copy(), process=False)
