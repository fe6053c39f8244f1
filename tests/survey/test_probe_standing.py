"""Survey and exposure probes stand exactly where a trooper dropped there stands (SPEC 12.2,
13.1; issue 46: they stood up to 1.1 mm lower on a scan's rough skin, on a coarser
pattern of their own)."""

from __future__ import annotations

import numpy as np
import trimesh
from support import box, make_scene, trooper

from geom3d.core.tolerances import PLACEMENT_TOL_MM
from geom3d.exposure.cells import standing_cells
from geom3d.survey.grid import place_probes, probe_for

SIZE = 160.0


def _noisy_slope(tmp_path, seed=11, n=161):
    """z = 4 + 0.35 x plus 0.6 mm of seeded noise, a sheet every 1 mm (a scan's skin:
    the highest point under a base is a vertex between any two probe patterns)."""
    rng = np.random.default_rng(seed)
    xs = np.linspace(0.0, SIZE, n)
    gx, gy = np.meshgrid(xs, xs, indexing="xy")
    z = 4 + 0.35 * gx + rng.uniform(-0.6, 0.6, gx.shape)
    v = np.column_stack([gx.ravel(), gy.ravel(), z.ravel()])
    k = (np.arange(n - 1)[:, None] * n + np.arange(n - 1)[None, :]).ravel()
    f = np.vstack([np.column_stack([k, k + 1, k + n + 1]), np.column_stack([k, k + n + 1, k + n])])
    path = tmp_path / "slope.obj"
    trimesh.Trimesh(v, f, process=False).export(path)
    return str(path)


def _loader_heights(slope, xy):
    """z of a trooper (silhouette 2) given ``[x, y]`` in a scenario file at each point,
    through the scenario loader (troopers 30 mm apart or more in each scene: none
    overlaps another)."""
    out = np.full(len(xy), np.nan)
    key = [(round(x / 10) % 3, round(y / 10) % 3) for x, y in xy]
    for group in sorted(set(key)):
        rows = [i for i, k in enumerate(key) if k == group]
        troopers = [trooper(f"t{i}", [float(xy[i, 0]), float(xy[i, 1])]) for i in rows]
        scene = make_scene(
            troopers, [], table={"mesh": slope, "mesh_units": "mm", "size": [SIZE, SIZE]}
        )
        for i in rows:
            out[i] = scene.trooper(f"t{i}").position[2]
    return out


def test_probes_on_a_noisy_slope_stand_where_the_loader_drops_a_trooper(tmp_path):
    slope = _noisy_slope(tmp_path)
    scene = make_scene([], [], table={"mesh": slope, "mesh_units": "mm", "size": [SIZE, SIZE]})
    probe = probe_for(scene, 2)
    grid = place_probes(scene, probe, 10.0)
    p = grid.positions
    assert len(p) == len(grid.grid_xy) == 256 and np.all(grid.level == 0)
    ref = _loader_heights(slope, p[:, :2])
    assert np.all(np.abs(p[:, 2] - ref) <= PLACEMENT_TOL_MM)
    # the exposure map's cells are the same spots
    cells = standing_cells(scene, probe, 10.0)
    assert np.array_equal(cells.positions, p)
    # and not trivially: the ground under a base is rough (the rise over the base's
    # radius, 4.4 mm, plus noise), the probe on the highest connected point of it
    inner = p[p[:, 0] + 12.5 <= SIZE]  # bases wholly on the slope
    assert len(inner) == 240
    assert np.all(inner[:, 2] >= 4 + 0.35 * (inner[:, 0] + 12.5) - 0.6 - 1e-6)


def test_a_floor_under_a_roof_stands_as_on_the_open_table():
    # the lower level of a roofed spot rests as a trooper dropped there would with the
    # roof away (its rays start at the probe's top): on the 3 mm plate under the roof
    roofed = make_scene(
        [],
        [box("roof", (100, 100, 5), (100, 100, 60)), box("plate", (60, 60, 3), (100, 100, 0))],
        table={"size": [200, 200]},
    )
    grid = place_probes(roofed, probe_for(roofed, 2), 20.0, all_pairs=False)
    lower = {(x, y): z for (x, y, z), lv in zip(grid.positions, grid.level, strict=True) if lv == 0}
    open_table = make_scene(
        [trooper(f"t{k}", list(xy)) for k, xy in enumerate(lower)],
        [box("plate", (60, 60, 3), (100, 100, 0))],
        table={"size": [200, 200]},
    )
    for k, xy in enumerate(lower):
        assert abs(lower[xy] - open_table.trooper(f"t{k}").position[2]) <= PLACEMENT_TOL_MM


def test_probes_stand_the_same_on_several_threads(tmp_path):
    slope = _noisy_slope(tmp_path)
    scene = make_scene([], [], table={"mesh": slope, "mesh_units": "mm", "size": [SIZE, SIZE]})
    probe = probe_for(scene, 2)
    one = place_probes(scene, probe, 5.0, all_pairs=False)
    three = place_probes(scene, probe, 5.0, all_pairs=False, threads=3)
    assert len(one.positions) == 1024
    assert np.array_equal(one.positions, three.positions)
    assert np.array_equal(one.level, three.level)
