"""Procedural scenery: buildings, walls, containers, walkways and synthetic scanned tables.

Every function returns a :class:`trimesh.Trimesh` in millimetres, z up. A piece's local
origin is the centre of its bottom face (the same convention as the scenario ``box``
primitive), so ``position: [x, y, 0]`` stands it on the table; the exceptions are the
floors (:func:`scanned_floor`, :func:`synthetic_scanned_table`), which span the table
``[0, sx] x [0, sy]`` like a scanned table mesh does.

- :mod:`~geom3d.terrain.rectilinear`: unions of axis-aligned boxes minus holes.
- :mod:`~geom3d.terrain.solids`: the pieces (box, wall, building, container, walkway,
  barricade, crates) and :func:`place`.
- :mod:`~geom3d.terrain.demo`: the bundled demo table and its STL pieces.
- :mod:`~geom3d.terrain.scanned`: scanned floors, subdivision, the synthetic scanned
  table (noisy heightfield plus the demo pieces, subdivided and warped; the benchmark
  table for 50 k to 5 M triangles) and open trooper spots on it.
- :mod:`~geom3d.terrain.fused`: a table built like a real scan, raised blocks fused into
  one rough height field, and trooper spots anywhere on it (issue 49's benchmark table).

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

from geom3d.terrain.demo import demo_table_pieces, piece_footprints, stl_pieces
from geom3d.terrain.fused import (
    FusedBlocks,
    fused_blocks,
    fused_scan_table,
    fused_trooper_spots,
    grid_mesh,
)
from geom3d.terrain.rectilinear import rectilinear
from geom3d.terrain.scanned import (
    TABLE_SIZE_MM,
    scanned_floor,
    subdivide,
    synthetic_scanned_table,
    synthetic_trooper_spots,
)
from geom3d.terrain.solids import barricade, box, building, container, crates, place, walkway, wall

__all__ = [
    "TABLE_SIZE_MM",
    "FusedBlocks",
    "barricade",
    "box",
    "building",
    "container",
    "crates",
    "demo_table_pieces",
    "fused_blocks",
    "fused_scan_table",
    "fused_trooper_spots",
    "grid_mesh",
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
