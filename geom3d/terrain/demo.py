"""The bundled demo table: its pieces, the STL files under ``meshes/scenery/``, footprints."""

from __future__ import annotations

import numpy as np
import trimesh

from geom3d.terrain.solids import barricade, box, building, container, walkway, wall, yaw_matrix

__all__ = ["demo_table_pieces", "piece_footprints", "stl_pieces"]

#: The pieces written to ``meshes/scenery/<name>.stl``, by name.
_STL_PIECES = {
    "building": lambda: building(
        (200, 150, 130), 2, door=(30, 45), windows=(25, 20, 22), parapet=10
    ),
    "container": lambda: container(150, 60, 64),
    "wall_windows": lambda: wall(200, 6, 80, windows=[(-50, 30, 25, 55), (50, 30, 25, 55)]),
    "walkway": lambda: walkway(240, 50, 60, 4),
    "barricade": lambda: barricade(80, 25, 12),
}

#: Demo layout: (id, kind, STL piece name or box size (mm), position (x, y, z) mm,
#: rotation_deg).
_DEMO_LAYOUT: tuple[
    tuple[str, str, str | tuple[float, float, float], tuple[float, float, float], float], ...
] = (
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
            assert not isinstance(what, str)  # a box's size
            mesh = box(what)
            mesh.metadata["kind"] = "box"
            mesh.metadata["size"] = [float(v) for v in what]
        else:
            assert isinstance(what, str)  # a piece's name
            mesh = stl[what].copy()
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
        c = (yaw_matrix(rot) @ c_local)[:2] + np.asarray(pos[:2])
        out.append((pid, c, rot, 0.5 * (hi - lo)))
    return out
