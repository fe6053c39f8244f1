"""The third Line of Fire benchmark table: blocks fused into one rough scanned mesh.

A 1200 x 1200 mm height field of about ``n_triangles`` triangles (a 1.7 mm grid for 1M)
with 30 raised blocks 30 to 120 mm tall (35 to 125 mm across, any yaw) as vertical steps
of the same mesh, per-vertex noise of sigma 0.3 mm over a waving of about 1.5 mm
(:func:`geom3d.terrain.fused_scan_table`), and 40 troopers of silhouettes 1 to 6 placed
uniformly at random over the whole table: on block tops, at the foot of walls, on the
rough ground (:func:`geom3d.terrain.fused_trooper_spots`; a spot where a base would
straddle a wall is re-drawn). They stand by the loader's rule (SPEC 12.2): the scenario
gives ``[x, y]``. Nothing but the one table mesh: no scenery piece a shortcut could use.
Everything is made in code from one seed. Issue 49: real scans are built like this.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from geom3d import terrain

SILHOUETTES = (1, 2, 3, 4, 5, 6)
#: Infinity base radii (mm) of SILHOUETTES (geom3d/ruledata/infinity.yaml).
BASE_RADIUS_MM = {1: 12.5, 2: 12.5, 3: 20.0, 4: 27.5, 5: 20.0, 6: 20.0}


def write_fused_table(n_triangles: int, folder: Path, seed: int = 0) -> Path:
    path = folder / f"scanfused_{n_triangles}.stl"
    terrain.fused_scan_table(n_triangles, seed).export(path)
    return path


def fused_scenario(table: Path, n_troopers: int = 40, seed: int = 0, solid: str = "auto"):
    """The scenario (geom3d/1): the fused table as the table mesh, troopers anywhere."""
    sil = [SILHOUETTES[i % len(SILHOUETTES)] for i in range(n_troopers)]
    radii = np.array([BASE_RADIUS_MM[s] for s in sil])
    # the 1M table's cell (1.7 mm) at every size, so the spots are the same at every size
    spots = terrain.fused_trooper_spots(terrain.fused_blocks(seed), radii, seed)
    rng = np.random.default_rng(seed + 1)
    troopers = [
        {
            "id": f"t{i:02d}",
            "side": "blue" if i % 2 else "red",
            "position": [float(x), float(y)],
            "facing_deg": float(rng.integers(0, 360)),
            "silhouette": s,
        }
        for i, ((x, y), s) in enumerate(zip(spots, sil, strict=True))
    ]
    return {
        "format": "geom3d/1",
        "units": "mm",
        "table": {"size": [1200, 1200], "mesh": str(table), "mesh_units": "mm", "solid": solid},
        "troopers": troopers,
    }
