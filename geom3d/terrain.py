"""Procedural scenery: buildings, walls, containers, walkways and synthetic scanned tables.

Every function returns a :class:`trimesh.Trimesh` in millimetres, z up. A piece's local
origin is the centre of its bottom face (the same convention as the scenario ``box``
primitive), so ``position: [x, y, 0]`` stands it on the table; the exceptions are the
floors (:func:`scanned_floor`, :func:`synthetic_scanned_table`), which span the table
``[0, sx] x [0, sy]`` like a scanned table mesh does.

Solid pieces are built as unions of axis-aligned boxes minus axis-aligned holes
(:func:`rectilinear`): the result is one clean, closed, consistently wound surface with no
internal faces, no degenerate triangles and no T-junctions, so doors and windows are real
openings and roofs, decks and sills are the only upward faces a trooper can stand on.

The synthetic scanned table (:func:`synthetic_scanned_table`) is a noisy heightfield plus
the demo table's pieces, subdivided and warped until it has about the requested number of
triangles; it is the benchmark table for 50 k to 5 M triangles.

Example
-------
>>> from geom3d import terrain
>>> b = terrain.building((200, 150, 130), 2, door=(30, 45), windows=(25, 20, 22))
>>> b.bounds.tolist()
[[-100.0, -75.0, 0.0], [100.0, 75.0, 130.0]]
>>> len(terrain.synthetic_scanned_table(50_000).faces)  # doctest: +SKIP
49976
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np
import trimesh

from .errors import InputError

__all__ = [
    "TABLE_SIZE_MM",
    "barricade",
    "box",
    "building",
    "container",
    "crates",
    "demo_table_pieces",
    "piece_footprints",
    "place",
    "rectilinear",
    "scanned_floor",
    "stl_pieces",
    "subdivide",
    "synthetic_scanned_table",
    "synthetic_trooper_spots",
    "walkway",
    "wall",
]

#: Infinity table: 1200 x 1200 mm (x, y).
TABLE_SIZE_MM: tuple[float, float] = (1200.0, 1200.0)

# Coordinates closer than this are the same grid line in :func:`rectilinear` (mm).
_GRID_DECIMALS = 9


# --------------------------------------------------------------------------------------
# Rectilinear solids
# --------------------------------------------------------------------------------------


def _aabb(cx: float, cy: float, z0: float, sx: float, sy: float, sz: float):
    """Box ``((xmin, ymin, zmin), (xmax, ymax, zmax))`` from bottom-centre and size, mm."""
    return ((cx - sx / 2, cy - sy / 2, z0), (cx + sx / 2, cy + sy / 2, z0 + sz))


def _greedy_rectangles(mask: np.ndarray) -> list[tuple[int, int, int, int]]:
    """Cover a 2D boolean mask with disjoint rectangles ``(u0, u1, v0, v1)`` (cell ranges)."""
    m = mask.copy()
    nu, nv = m.shape
    rects = []
    for i in range(nu):
        j = 0
        while j < nv:
            if not m[i, j]:
                j += 1
                continue
            j1 = j
            while j1 < nv and m[i, j1]:
                j1 += 1
            i1 = i + 1
            while i1 < nu and m[i1, j:j1].all():
                i1 += 1
            m[i:i1, j:j1] = False
            rects.append((i, i1, j, j1))
            j = j1
    return rects


def rectilinear(solids: Iterable, holes: Iterable = ()) -> trimesh.Trimesh:
    """Closed surface of a union of axis-aligned boxes minus axis-aligned holes.

    The space is cut into a grid by every box face; a grid cell is solid when it lies in
    a solid box and in no hole. The boundary between solid and empty cells is emitted as
    maximal rectangles per plane, each split at every vertex of a neighbouring rectangle
    that lies on its edges (no T-junctions), so the result is watertight and consistently
    wound with outward normals.

    Parameters
    ----------
    solids : (n, 2, 3) array_like, mm
        Boxes ``[[xmin, ymin, zmin], [xmax, ymax, zmax]]`` whose union is the solid.
    holes : (m, 2, 3) array_like, mm
        Boxes removed from the union (may extend beyond it: doors, windows).

    Returns
    -------
    trimesh.Trimesh
        Built with ``process=False``; vertices (v, 3) float64 mm, faces (f, 3) int64.

    Raises
    ------
    InputError
        No solid box, a box with non-positive extent, NaN/inf, or nothing left after holes.
    """
    s = np.asarray(list(solids), dtype=np.float64).reshape(-1, 2, 3)
    h = np.asarray(list(holes), dtype=np.float64).reshape(-1, 2, 3)
    if len(s) == 0:
        raise InputError("rectilinear: at least one solid box is needed")
    if not (np.all(np.isfinite(s)) and np.all(np.isfinite(h))):
        raise InputError("rectilinear: boxes contain NaN or infinite values")
    if np.any(s[:, 1] <= s[:, 0]) or np.any(h[:, 1] <= h[:, 0]):
        raise InputError("rectilinear: every box needs max > min on each axis")
    lo, hi = s[:, 0].min(axis=0), s[:, 1].max(axis=0)
    h = np.clip(h, lo, hi)
    h = h[np.all(h[:, 1] > h[:, 0], axis=1)]
    s = np.round(s, _GRID_DECIMALS)
    h = np.round(h, _GRID_DECIMALS)

    grids = [np.unique(np.concatenate([s[:, :, a].ravel(), h[:, :, a].ravel()])) for a in range(3)]
    occ = np.zeros(tuple(len(g) - 1 for g in grids), dtype=bool)
    for boxes, value in ((s, True), (h, False)):
        for b in boxes:
            idx = [np.searchsorted(grids[a], b[:, a]) for a in range(3)]
            occ[idx[0][0] : idx[0][1], idx[1][0] : idx[1][1], idx[2][0] : idx[2][1]] = value
    if not occ.any():
        raise InputError("rectilinear: the holes remove the whole solid")

    pad = np.zeros(tuple(n + 2 for n in occ.shape), dtype=bool)
    pad[1:-1, 1:-1, 1:-1] = occ

    # Boundary rectangles: (axis, plane node index, sign, u0, u1, v0, v1) in grid nodes.
    rects: list[tuple[int, int, int, int, int, int, int]] = []
    for a in range(3):
        perm = (a, (a + 1) % 3, (a + 2) % 3)
        p = np.transpose(pad, perm)
        lower, upper = p[:-1, 1:-1, 1:-1], p[1:, 1:-1, 1:-1]
        for sign, mask in ((1, lower & ~upper), (-1, ~lower & upper)):
            for plane in np.flatnonzero(mask.any(axis=(1, 2))):
                for u0, u1, v0, v1 in _greedy_rectangles(mask[plane]):
                    rects.append((a, int(plane), sign, u0, u1, v0, v1))

    shape = tuple(len(g) for g in grids)
    used = np.zeros(shape, dtype=bool)

    def node(a: int, w: int, u: int, v: int) -> tuple[int, int, int]:
        n = [0, 0, 0]
        n[a], n[(a + 1) % 3], n[(a + 2) % 3] = w, u, v
        return (n[0], n[1], n[2])

    for a, w, _, u0, u1, v0, v1 in rects:
        for u, v in ((u0, v0), (u1, v0), (u1, v1), (u0, v1)):
            used[node(a, w, u, v)] = True

    vid = np.full(shape, -1, dtype=np.int64)
    vid[used] = np.arange(int(used.sum()))
    gx, gy, gz = np.meshgrid(*grids, indexing="ij")
    verts = [np.stack([gx[used], gy[used], gz[used]], axis=1)]
    n_verts = len(verts[0])
    extra: list[list[float]] = []
    faces: list[tuple[int, int, int]] = []
    for a, w, sign, u0, u1, v0, v1 in rects:
        loop = (
            [(u, v0) for u in range(u0, u1)]
            + [(u1, v) for v in range(v0, v1)]
            + [(u, v1) for u in range(u1, u0, -1)]
            + [(u0, v) for v in range(v1, v0, -1)]
        )
        ring = [int(vid[node(a, w, u, v)]) for u, v in loop if used[node(a, w, u, v)]]
        if sign < 0:
            ring = ring[::-1]
        if len(ring) == 4:
            faces += [(ring[0], ring[1], ring[2]), (ring[0], ring[2], ring[3])]
            continue
        c = [0.0, 0.0, 0.0]
        c[a] = grids[a][w]
        c[(a + 1) % 3] = 0.5 * (grids[(a + 1) % 3][u0] + grids[(a + 1) % 3][u1])
        c[(a + 2) % 3] = 0.5 * (grids[(a + 2) % 3][v0] + grids[(a + 2) % 3][v1])
        ci = n_verts + len(extra)
        extra.append(c)
        faces += [(ci, ring[k], ring[(k + 1) % len(ring)]) for k in range(len(ring))]
    if extra:
        verts.append(np.asarray(extra, dtype=np.float64))
    return trimesh.Trimesh(
        vertices=np.concatenate(verts), faces=np.asarray(faces, dtype=np.int64), process=False
    )


def _positive(value: float, name: str) -> float:
    v = float(value)
    if not math.isfinite(v) or v <= 0:
        raise InputError(f"{name} must be a positive finite number, got {value!r}")
    return v


def _size3(size, name: str = "size") -> tuple[float, float, float]:
    vals = tuple(np.asarray(size, dtype=np.float64).ravel().tolist())
    if len(vals) != 3:
        raise InputError(f"{name} must have 3 values (x, y, z) in mm, got {size!r}")
    return tuple(_positive(v, f"{name}[{i}]") for i, v in enumerate(vals))  # type: ignore[return-value]


# --------------------------------------------------------------------------------------
# Pieces
# --------------------------------------------------------------------------------------


def box(size: Sequence[float]) -> trimesh.Trimesh:
    """Closed box, origin at the centre of its bottom face.

    Parameters
    ----------
    size : (3,) float, mm
        Extents along x, y, z.

    Returns
    -------
    trimesh.Trimesh
        12 triangles, bounds ``[[-sx/2, -sy/2, 0], [sx/2, sy/2, sz]]``.
    """
    sx, sy, sz = _size3(size)
    return rectilinear([_aabb(0, 0, 0, sx, sy, sz)])


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
    length = _positive(length, "length")
    thickness = _positive(thickness, "thickness")
    height = _positive(height, "height")
    holes = []
    openings = [("windows", i, tuple(w)) for i, w in enumerate(windows)]
    openings += [("gaps", i, (*tuple(g), 0.0, height)) for i, g in enumerate(gaps)]
    for name, i, o in openings:
        if len(o) != 4:
            raise InputError(f"{name}[{i}] must be (x, width[, z_bottom, z_top]), got {o!r}")
        x, w, z0, z1 = (float(v) for v in o)
        _positive(w, f"{name}[{i}] width")
        if x - w / 2 < -length / 2 - 1e-9 or x + w / 2 > length / 2 + 1e-9:
            raise InputError(f"{name}[{i}] ({x - w / 2:g}..{x + w / 2:g}) is outside the wall")
        if not 0 <= z0 < z1 <= height:
            raise InputError(f"{name}[{i}] z range {z0:g}..{z1:g} is not inside 0..{height:g}")
        holes.append(((x - w / 2, -thickness, z0), (x + w / 2, thickness, z1)))
    return rectilinear([_aabb(0, 0, 0, length, thickness, height)], holes)


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
    sx, sy, sz = _size3(size)
    if int(storeys) != storeys or storeys < 1:
        raise InputError(f"storeys must be an integer >= 1, got {storeys!r}")
    storeys = int(storeys)
    t = _positive(wall_thickness, "wall_thickness")
    ft = _positive(floor_thickness, "floor_thickness")
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
    solids = [_aabb(0, 0, 0, sx, sy, sz)]
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
        dw, dh = (_positive(v, "door") for v in door)
        if dh > clear:
            raise InputError(f"door height {dh:g} mm exceeds the storey's {clear:g} mm")
        for side in door_sides:
            if dw >= inner_len(side):
                raise InputError(f"door width {dw:g} mm does not fit side {side}")
            holes.append(through(side, 0.0, dw, ft, ft + dh))
        door_span = (-dw / 2 - 2.0, dw / 2 + 2.0)
    if windows is not None and windows_per_wall > 0:
        ww, wh, sill = (float(v) for v in windows)
        _positive(ww, "window width")
        _positive(wh, "window height")
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
    length = _positive(length, "length")
    width = _positive(width, "width")
    height = _positive(height, "height")
    frame = min(4.0, length / 8)
    inset = min(1.0, width / 8)
    solids = [
        _aabb(0, 0, 0, length - 2 * frame, width - 2 * inset, height),
        _aabb(-length / 2 + frame / 2, 0, 0, frame, width, height),
        _aabb(length / 2 - frame / 2, 0, 0, frame, width, height),
    ]
    if ribs and height > 10:
        inner = length - 2 * frame
        n = int(inner // _positive(rib_spacing, "rib_spacing"))
        for i in range(1, n):
            x = -inner / 2 + i * inner / n
            for y in (-width / 2 + inset / 2, width / 2 - inset / 2):
                solids.append(_aabb(x, y, 4.0, 2.0, inset, height - 8.0))
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
    length = _positive(length, "length")
    width = _positive(width, "width")
    dh = _positive(deck_height, "deck_height")
    dt = _positive(deck_thickness, "deck_thickness")
    if dt >= dh:
        raise InputError("deck_thickness must be below deck_height")
    solids = [_aabb(0, 0, dh - dt, length, width, dt)]
    if legs:
        ls = _positive(leg_size, "leg_size")
        if 2 * ls >= width:
            raise InputError("legs leave no room under the deck")
        n = max(2, math.ceil((length - ls) / _positive(leg_spacing, "leg_spacing")) + 1)
        for x in np.linspace(-length / 2 + ls / 2, length / 2 - ls / 2, n):
            for y in (-width / 2 + ls / 2, width / 2 - ls / 2):
                solids.append(_aabb(float(x), y, 0, ls, ls, dh - dt))
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
    length = _positive(length, "length")
    height = _positive(height, "height")
    thickness = _positive(thickness, "thickness")
    third = height / 3
    return rectilinear(
        [
            _aabb(0, 0, 0, length, thickness, third),
            _aabb(0, 0, third, length, 0.7 * thickness, third),
            _aabb(0, 0, 2 * third, length, 0.45 * thickness, height - 2 * third),
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
    s = _positive(size, "size")
    g = float(gap)
    if g < 0:
        raise InputError("gap must be >= 0")
    return rectilinear(
        [
            _aabb(-(s + g) / 2, 0, 0, s, s, s),
            _aabb((s + g) / 2, 0, 0, s, s, s),
            _aabb(0, 0, s, s, s, s),
        ]
    )


# --------------------------------------------------------------------------------------
# Placement, subdivision
# --------------------------------------------------------------------------------------


def _yaw_matrix(rotation_deg: float) -> np.ndarray:
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
    v = np.asarray(mesh.vertices, dtype=np.float64) @ _yaw_matrix(rotation_deg).T + pos
    return trimesh.Trimesh(vertices=v, faces=np.asarray(mesh.faces).copy(), process=False)


def subdivide(mesh: trimesh.Trimesh, levels: int = 1) -> trimesh.Trimesh:
    """Midpoint subdivision: each level splits every triangle into four.

    Edges shared by two faces get one shared midpoint, so a closed surface stays closed.

    Parameters
    ----------
    mesh : trimesh.Trimesh
    levels : int, >= 0

    Returns
    -------
    trimesh.Trimesh
        ``4**levels`` times the faces, ``process=False``; the original vertices come first.
    """
    v = np.asarray(mesh.vertices, dtype=np.float64)
    f = np.asarray(mesh.faces, dtype=np.int64)
    for _ in range(int(levels)):
        nv = len(v)
        e = np.concatenate([f[:, [0, 1]], f[:, [1, 2]], f[:, [2, 0]]])
        e.sort(axis=1)
        key = e[:, 0] * nv + e[:, 1]
        uniq, inv = np.unique(key, return_inverse=True)
        a, b = uniq // nv, uniq % nv
        v = np.concatenate([v, 0.5 * (v[a] + v[b])])
        m = (inv.reshape(3, -1) + nv).T  # midpoints of edges 01, 12, 20 per face
        f = np.concatenate(
            [
                np.stack([f[:, 0], m[:, 0], m[:, 2]], axis=1),
                np.stack([m[:, 0], f[:, 1], m[:, 1]], axis=1),
                np.stack([m[:, 2], m[:, 1], f[:, 2]], axis=1),
                m,
            ]
        )
    return trimesh.Trimesh(vertices=v, faces=f, process=False)


# --------------------------------------------------------------------------------------
# Scanned floors and tables
# --------------------------------------------------------------------------------------


def _smooth_field(rng: np.random.Generator, xs: np.ndarray, ys: np.ndarray, terms: int = 6):
    """Separable sum of sinusoids on the grid ``xs x ys``, values in [-1, 1]."""
    out = np.zeros((len(xs), len(ys)))
    amps = rng.uniform(0.5, 1.0, terms)
    for amp in amps:
        kx, ky = rng.uniform(2 * np.pi / 400, 2 * np.pi / 40, 2)
        px, py = rng.uniform(0, 2 * np.pi, 2)
        out += amp * np.outer(np.sin(kx * xs + px), np.sin(ky * ys + py))
    return out / amps.sum()


def scanned_floor(
    size_xy: Sequence[float] = TABLE_SIZE_MM,
    n_triangles: int = 200_000,
    noise_mm: float = 0.3,
    seed: int = 0,
) -> trimesh.Trimesh:
    """Noisy heightfield sheet, like the floor of a photogrammetry scan.

    A regular grid of ``nx x ny`` cells (two triangles each, diagonals flipped at random)
    over ``[0, sx] x [0, sy]``; inner vertices are jittered sideways by up to 15 % of a
    cell, the border stays straight. Heights are a smooth random field plus fine noise,
    ``|z| <= noise_mm`` everywhere.

    Parameters
    ----------
    size_xy : (2,) float, mm
        Extent along x and y; the sheet starts at the origin.
    n_triangles : int
        Requested triangle count; the result is the nearest ``2 nx ny`` (within a few
        per cent, exact for square grids of a square count).
    noise_mm : float, mm
        Largest height deviation from z = 0 (>= 0).
    seed : int
        Seed of :func:`numpy.random.default_rng`; same seed, same mesh.

    Returns
    -------
    trimesh.Trimesh
        Open surface, normals up, ``process=False``; vertices (v, 3) float64 mm.
    """
    sx, sy = (_positive(v, "size_xy") for v in size_xy)
    n = int(n_triangles)
    if n < 2:
        raise InputError(f"n_triangles must be >= 2, got {n_triangles!r}")
    noise = float(noise_mm)
    if not math.isfinite(noise) or noise < 0:
        raise InputError(f"noise_mm must be >= 0, got {noise_mm!r}")
    rng = np.random.default_rng(seed)
    cells = n / 2
    nx = max(1, round(math.sqrt(cells * sx / sy)))
    ny = max(1, round(cells / nx))
    xs = np.linspace(0.0, sx, nx + 1)
    ys = np.linspace(0.0, sy, ny + 1)

    smooth = _smooth_field(rng, xs, ys)
    fine = rng.uniform(-1.0, 1.0, (nx + 1, ny + 1))
    z = noise * (0.7 * smooth + 0.3 * fine)
    jx = rng.uniform(-0.15, 0.15, (nx + 1, ny + 1)) * (sx / nx)
    jy = rng.uniform(-0.15, 0.15, (nx + 1, ny + 1)) * (sy / ny)
    jx[[0, -1], :] = 0.0
    jy[:, [0, -1]] = 0.0
    gx = xs[:, None] + jx
    gy = ys[None, :] + jy
    verts = np.stack([gx.ravel(), gy.ravel(), z.ravel()], axis=1)

    i, j = np.meshgrid(np.arange(nx), np.arange(ny), indexing="ij")
    v00 = (i * (ny + 1) + j).ravel()
    v10 = v00 + (ny + 1)
    v01 = v00 + 1
    v11 = v10 + 1
    flip = rng.random(v00.shape) < 0.5
    # Counter-clockwise seen from +z: (x, y) grid with x the first index.
    t1 = np.where(flip[:, None], np.stack([v00, v10, v11], 1), np.stack([v00, v10, v01], 1))
    t2 = np.where(flip[:, None], np.stack([v00, v11, v01], 1), np.stack([v10, v11, v01], 1))
    faces = np.concatenate([t1, t2])
    return trimesh.Trimesh(vertices=verts, faces=faces, process=False)


# Demo layout: (id, kind, file, mesh parameters, position (x, y, z) mm, rotation_deg).
_STL_PIECES = {
    "building": lambda: building(
        (200, 150, 130), 2, door=(30, 45), windows=(25, 20, 22), parapet=10
    ),
    "container": lambda: container(150, 60, 64),
    "wall_windows": lambda: wall(200, 6, 80, windows=[(-50, 30, 25, 55), (50, 30, 25, 55)]),
    "walkway": lambda: walkway(240, 50, 60, 4),
    "barricade": lambda: barricade(80, 25, 12),
}

_DEMO_LAYOUT: tuple[tuple[str, str, object, tuple[float, float, float], float], ...] = (
    ("building-north", "mesh", "building", (280.0, 880.0, 0.0), 0.0),
    ("building-south", "mesh", "building", (930.0, 300.0, 0.0), 90.0),
    ("container-west", "mesh", "container", (140.0, 520.0, 0.0), 90.0),
    ("container-low", "mesh", "container", (620.0, 600.0, 0.0), 0.0),
    ("container-high", "mesh", "container", (620.0, 600.0, 64.0), 0.0),
    ("container-east", "mesh", "container", (1060.0, 760.0, 0.0), 15.0),
    ("wall-windows-south", "mesh", "wall_windows", (600.0, 330.0, 0.0), 0.0),
    ("wall-windows-east", "mesh", "wall_windows", (860.0, 880.0, 0.0), 90.0),
    ("walkway", "mesh", "walkway", (560.0, 1000.0, 0.0), 0.0),
    ("barricade-west", "mesh", "barricade", (330.0, 420.0, 0.0), 0.0),
    ("barricade-north", "mesh", "barricade", (760.0, 1110.0, 0.0), 0.0),
    ("low-wall-south", "box", (120.0, 10.0, 25.0), (250.0, 230.0, 0.0), 0.0),
    ("low-wall-centre", "box", (100.0, 10.0, 25.0), (430.0, 720.0, 0.0), 30.0),
    ("pillar", "box", (40.0, 40.0, 110.0), (800.0, 560.0, 0.0), 45.0),
    ("crate-1", "box", (30.0, 30.0, 30.0), (1000.0, 520.0, 0.0), 10.0),
    ("crate-2", "box", (30.0, 30.0, 30.0), (1040.0, 505.0, 0.0), 0.0),
)


def stl_pieces() -> dict[str, trimesh.Trimesh]:
    """The scenery pieces written to ``meshes/scenery/<name>.stl``, by name."""
    return {name: make() for name, make in _STL_PIECES.items()}


def demo_table_pieces() -> list[tuple[str, trimesh.Trimesh, tuple[float, float, float], float]]:
    """Scenery of the bundled demo table (``meshes/demo/table.yaml``).

    Returns
    -------
    list of (id, mesh, position, rotation_deg)
        ``mesh`` in its local frame (origin at the centre of its bottom face), ``position``
        (3,) mm where that origin goes, ``rotation_deg`` its yaw. ``mesh.metadata`` holds
        ``{"kind": "box", "size": [sx, sy, sz]}`` for plain boxes (written as scenario
        ``box`` primitives) or ``{"kind": "mesh", "name": n}`` for pieces stored in
        ``meshes/scenery/<n>.stl``.
    """
    stl = stl_pieces()
    out = []
    for pid, kind, what, pos, rot in _DEMO_LAYOUT:
        if kind == "box":
            mesh = box(what)  # type: ignore[arg-type]
            mesh.metadata["kind"] = "box"
            mesh.metadata["size"] = [float(v) for v in what]  # type: ignore[union-attr]
        else:
            mesh = stl[what].copy()  # type: ignore[index]
            mesh.metadata["kind"] = "mesh"
            mesh.metadata["name"] = what
        out.append((pid, mesh, pos, rot))
    return out


def piece_footprints() -> list[tuple[str, np.ndarray, float, np.ndarray]]:
    """Plan-view footprints of the demo (and synthetic) table's pieces.

    Returns
    -------
    list of (id, centre, rotation_deg, half_extents)
        ``centre`` (2,) mm of the piece's local bounding rectangle in table coordinates,
        ``half_extents`` (2,) mm of that rectangle in the piece's own frame.
    """
    out = []
    for pid, mesh, pos, rot in demo_table_pieces():
        lo, hi = mesh.bounds[0, :2], mesh.bounds[1, :2]
        c_local = np.array([*(0.5 * (lo + hi)), 0.0])
        c = (_yaw_matrix(rot) @ c_local)[:2] + np.asarray(pos[:2])
        out.append((pid, c, rot, 0.5 * (hi - lo)))
    return out


def _warp(v: np.ndarray, rng: np.random.Generator, amplitude: float) -> np.ndarray:
    """Displace points by a smooth random 3D field (wavelengths 30-150 mm), |d| <= amplitude."""
    d = np.zeros_like(v)
    terms = 4
    for axis in range(3):
        amps = rng.uniform(0.5, 1.0, terms)
        for amp in amps:
            k = rng.normal(size=3)
            k *= rng.uniform(2 * np.pi / 150, 2 * np.pi / 30) / np.linalg.norm(k)
            d[:, axis] += amp * np.sin(v @ k + rng.uniform(0, 2 * np.pi))
        d[:, axis] *= amplitude / (amps.sum() * math.sqrt(3))
    return v + d


def synthetic_scanned_table(
    n_triangles: int = 1_000_000, seed: int = 0, *, noise_mm: float = 0.3
) -> trimesh.Trimesh:
    """A whole 1200 x 1200 mm table as one scanned-looking mesh of about ``n_triangles``.

    The demo table's pieces (three containers, two buildings, walls, walkway, barricades,
    boxes; see :func:`demo_table_pieces`) are placed, subdivided ``k`` times (the largest
    ``k`` that keeps them to half the budget) and warped by a smooth field of at most
    0.1 mm; a :func:`scanned_floor` takes the rest of the budget. Pieces stand on the
    floor at z = 0 (the floor's noise pokes through their bottoms, as in a real scan).

    Parameters
    ----------
    n_triangles : int
        Requested total (>= 10 000); the result is within 1 % of it.
    seed : int
        Same seed, identical mesh.
    noise_mm : float, mm
        Floor noise amplitude (see :func:`scanned_floor`).

    Returns
    -------
    trimesh.Trimesh
        ``process=False``; floor first (its faces are the first ``2 nx ny``), then pieces.
        Open spots for troopers: :func:`synthetic_trooper_spots`.
    """
    n = int(n_triangles)
    if n < 10_000:
        raise InputError(f"n_triangles must be >= 10000, got {n_triangles!r}")
    rng = np.random.default_rng(seed)
    parts_v, parts_f, off = [], [], 0
    for _, mesh, pos, rot in demo_table_pieces():
        m = place(mesh, pos, rot)
        parts_v.append(m.vertices)
        parts_f.append(m.faces + off)
        off += len(m.vertices)
    pieces = trimesh.Trimesh(np.concatenate(parts_v), np.concatenate(parts_f), process=False)
    levels = 0
    while len(pieces.faces) * 4 ** (levels + 1) <= n // 2:
        levels += 1
    pieces = subdivide(pieces, levels)
    pv = _warp(np.asarray(pieces.vertices), rng, 0.1)
    floor_seed = int(rng.integers(0, 2**31))
    floor = scanned_floor(TABLE_SIZE_MM, n - len(pieces.faces), noise_mm, floor_seed)
    fv = np.asarray(floor.vertices)
    return trimesh.Trimesh(
        vertices=np.concatenate([fv, pv]),
        faces=np.concatenate([floor.faces, pieces.faces + len(fv)]),
        process=False,
    )


def synthetic_trooper_spots(
    n: int,
    seed: int = 0,
    *,
    clearance: float = 40.0,
    min_separation: float = 70.0,
    margin: float = 40.0,
) -> np.ndarray:
    """Open-ground positions on the synthetic (and demo) table where troopers can stand.

    Points are drawn at random on the table, kept when they are at least ``clearance``
    from every piece's footprint rectangle and ``margin`` from the table edge, and
    accepted greedily when at least ``min_separation`` from every accepted point (so
    bases up to that diameter never overlap).

    Parameters
    ----------
    n : int
        Number of positions.
    seed : int
    clearance, min_separation, margin : float, mm

    Returns
    -------
    (n, 2) float64, mm
        Base-centre (x, y); the floor there is within ``noise_mm`` of z = 0.

    Raises
    ------
    InputError
        Fewer than ``n`` positions fit.
    """
    n = int(n)
    if n < 0:
        raise InputError(f"n must be >= 0, got {n!r}")
    rng = np.random.default_rng(seed)
    sx, sy = TABLE_SIZE_MM
    cand = rng.uniform([margin, margin], [sx - margin, sy - margin], size=(20_000, 2))
    free = np.ones(len(cand), dtype=bool)
    for _, c, rot, half in piece_footprints():
        a = math.radians(rot)
        d = cand - c
        lx = d[:, 0] * math.cos(a) + d[:, 1] * math.sin(a)
        ly = -d[:, 0] * math.sin(a) + d[:, 1] * math.cos(a)
        ex = np.maximum(np.abs(lx) - half[0], 0.0)
        ey = np.maximum(np.abs(ly) - half[1], 0.0)
        free &= np.hypot(ex, ey) >= clearance
    cand = cand[free]
    chosen = np.empty((0, 2))
    for p in cand:
        if len(chosen) == n:
            break
        if len(chosen) == 0 or np.min(np.hypot(*(chosen - p).T)) >= min_separation:
            chosen = np.vstack([chosen, p])
    if len(chosen) < n:
        raise InputError(f"only {len(chosen)} open spots fit on the table, {n} asked for")
    return chosen
