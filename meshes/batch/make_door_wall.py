"""Regenerate ``door_wall.stl``, the mesh shared by the ``door_*.yaml`` scenarios.

A straight wall along x, 300 long, 10 thick (y from -5 to 5), 60 high, with a door
40 wide (x from -20 to 20) and 50 high in the middle. Local origin: centre of its bottom
face. Run from the repository root: ``python meshes/batch/make_door_wall.py``.
"""

from __future__ import annotations

from pathlib import Path

from geom3d import terrain

if __name__ == "__main__":
    mesh = terrain.wall(300.0, 10.0, 60.0, windows=[(0.0, 40.0, 0.0, 50.0)])
    out = Path(__file__).with_name("door_wall.stl")
    mesh.export(out, file_type="stl_ascii")
    print(f"wrote {out} ({len(mesh.faces)} triangles)")
