"""The second Line of Fire benchmark table: a gently waving heightfield with raised blocks.

A 1200 x 1200 mm heightfield (a DEM-like table mesh, the top of a solid) of about
``n_triangles`` triangles, waving by at most about 9 mm, with 30 raised box blocks 30 to
120 mm tall (35 to 125 mm across, any yaw) dropped onto it, and 40 troopers of
silhouettes 1 to 6 on the open ground between them, facing anywhere. Everything is made
in code from one seed. Issue 37: on such a table the Line of Fire matrix measured 2.0x
its target while the scanned table of ``bench_lof.py`` measured 0.97x; tune on both.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import trimesh

from geom3d.terrain import grid_mesh

N_BLOCKS = 30
SILHOUETTES = (1, 2, 3, 4, 5, 6)


def heightfield(n_triangles: int = 1_000_000, seed: int = 0) -> trimesh.Trimesh:
    """The waving table top: a regular grid, two triangles per cell, z in mm."""
    rng = np.random.default_rng(seed)
    n = max(2, int(math.sqrt(n_triangles / 2.0)) + 1)
    xs = np.linspace(0.0, 1200.0, n)
    gx, gy = np.meshgrid(xs, xs, indexing="xy")
    p = rng.uniform(0.0, 2.0 * math.pi, 4)
    z = (
        5.0 * np.sin(2 * math.pi * gx / 700.0 + p[0]) * np.cos(2 * math.pi * gy / 900.0 + p[1])
        + 3.0 * np.sin(2 * math.pi * (gx + gy) / 450.0 + p[2])
        + 1.0 * np.sin(2 * math.pi * (gx - gy) / 170.0 + p[3])
    )
    return grid_mesh(gx, gy, z)


def write_waving_table(n_triangles: int, folder: Path, seed: int = 0) -> Path:
    path = folder / f"waving_{n_triangles}.stl"
    heightfield(n_triangles, seed).export(path)
    return path


def _blocks(rng) -> list[dict]:
    out: list[dict] = []
    while len(out) < N_BLOCKS:
        c = rng.uniform(100.0, 1100.0, 2)
        size = [float(rng.uniform(35, 125)), float(rng.uniform(35, 125))]
        if any(np.hypot(*(c - b["_c"])) < 0.5 * (max(size) + b["_r"]) + 40 for b in out):
            continue
        out.append(
            {
                "id": f"block{len(out):02d}",
                "box": {"size": [*size, float(rng.uniform(30, 120))]},
                "position": [float(c[0]), float(c[1])],
                "rotation_deg": float(rng.uniform(0, 180)),
                "_c": c,
                "_r": max(size),
            }
        )
    return out


def waving_scenario(table: Path, n_troopers: int = 40, seed: int = 0, solid: str = "auto"):
    """The scenario (geom3d/1): the heightfield as the table mesh, the blocks, troopers."""
    rng = np.random.default_rng(seed + 1)
    blocks = _blocks(rng)
    spots: list[np.ndarray] = []
    while len(spots) < n_troopers:
        c = rng.uniform(40.0, 1160.0, 2)
        if any(np.hypot(*(c - b["_c"])) < 0.71 * b["_r"] + 40 for b in blocks):
            continue
        if any(np.hypot(*(c - s)) < 70.0 for s in spots):
            continue
        spots.append(c)
    troopers = [
        {
            "id": f"t{i:02d}",
            "side": "blue" if i % 2 else "red",
            "position": [float(x), float(y)],
            "facing_deg": float(rng.integers(0, 360)),
            "silhouette": SILHOUETTES[i % len(SILHOUETTES)],
        }
        for i, (x, y) in enumerate(spots)
    ]
    scenery = [{k: v for k, v in b.items() if not k.startswith("_")} for b in blocks]
    return {
        "format": "geom3d/1",
        "units": "mm",
        "table": {"size": [1200, 1200], "mesh": str(table), "mesh_units": "mm", "solid": solid},
        "scenery": scenery,
        "troopers": troopers,
    }
