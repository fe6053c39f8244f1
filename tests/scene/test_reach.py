"""Reachable free space (geom3d.scene.reach; SPEC 13.1, issue 46): no spot a trooper
cannot walk into from the open air."""

from __future__ import annotations

import numpy as np
import pytest
import trimesh
from support import box, make_scene, trooper

from geom3d.core.messages import warnings_of
from geom3d.core.tolerances import PLACEMENT_TOL_MM
from geom3d.scene.reach import build_reach, reach_map
from geom3d.survey.grid import place_probes, probe_for

# a container 150 x 150 mm on a 400 mm table: floor 0..3, walls 3 mm thick 3..63, roof 63..66
LO, HI = 125.0, 275.0


def container(door_mm: float | None = None):
    """Six closed boxes; ``door_mm``: a gap that wide in the south wall, full height."""
    items = [
        box("floor", [150, 150, 3], [200, 200, 0]),
        box("roof", [150, 150, 3], [200, 200, 63]),
        box("wall_n", [150, 3, 60], [200, 273.5, 3]),
        box("wall_w", [3, 150, 60], [126.5, 200, 3]),
        box("wall_e", [3, 150, 60], [273.5, 200, 3]),
    ]
    if door_mm is None:
        items.append(box("wall_s", [150, 3, 60], [200, 126.5, 3]))
    else:
        side = (150 - door_mm) / 2
        items += [
            box("wall_s1", [side, 3, 60], [LO + side / 2, 126.5, 3]),
            box("wall_s2", [side, 3, 60], [HI - side / 2, 126.5, 3]),
        ]
    return items


def _inside(p):
    return (p[:, 0] > LO + 3) & (p[:, 0] < HI - 3) & (p[:, 1] > LO + 3) & (p[:, 1] < HI - 3)


def test_a_sealed_container_has_no_spot_inside_and_a_standable_roof():
    scene = make_scene([], container(), table={"size": [400, 400]})
    grid = place_probes(scene, probe_for(scene, 2), 10.0, all_pairs=False)
    p = grid.positions
    inner = _inside(p)
    # hand count: grid points 5, 15, ..., 395; 135..265 lie inside 128..272 (14 a side)
    assert not (inner & (p[:, 2] < 60)).any()  # nothing on the inner floor
    assert np.count_nonzero(inner & np.isclose(p[:, 2], 66.0)) == 14 * 14  # the whole roof
    # the dropped spots: the inner floor (z = 3) where a 12.5 mm base clears the walls
    # (145..255: 12 a side), named by the roof met above them
    assert len(grid.enclosed) == 12 * 12
    assert np.allclose(grid.enclosed[:, 2], 3.0)
    assert grid.enclosed_by == (("roof", 12 * 12),)
    # every grid point whose base clears the container (115..285 do not) stands on the table
    near = (p[:, 0] > LO - 12.5) & (p[:, 0] < HI + 12.5) & (p[:, 1] > LO - 12.5)
    outside = ~(near & (p[:, 1] < HI + 12.5))
    assert np.allclose(p[outside, 2], 0.0) and outside.sum() == 40 * 40 - 18 * 18


@pytest.mark.parametrize("door", [25.0, 30.0])
def test_a_door_as_wide_as_a_base_opens_the_container(door):
    scene = make_scene([], container(door), table={"size": [400, 400]})
    grid = place_probes(scene, probe_for(scene, 2), 10.0, all_pairs=False)
    p = grid.positions
    # the inner floor's 12 x 12 (more in the doorway, where a base fits between the jambs)
    assert np.count_nonzero(_inside(p) & np.isclose(p[:, 2], 3.0)) >= 12 * 12
    assert len(grid.enclosed) == 0


def test_a_slit_narrower_than_half_a_base_keeps_it_closed():
    scene = make_scene([], container(8.0), table={"size": [400, 400]})
    grid = place_probes(scene, probe_for(scene, 2), 10.0, all_pairs=False)
    assert not (_inside(grid.positions) & (grid.positions[:, 2] < 60)).any()
    assert len(grid.enclosed) == 12 * 12


def test_a_trooper_placed_in_the_sealed_container_is_warned_about():
    placed = [trooper("in", [200, 200, 3]), trooper("out", [50, 50, 0]), trooper("up", [200, 200])]
    scene = make_scene(placed, container(), table={"size": [400, 400]})
    warns = [w for w in warnings_of(scene.warnings) if "enclosed" in w]
    assert len(warns) == 1 and "'in'" in warns[0] and "'roof'" in warns[0]
    assert scene.trooper("up").position[2] == pytest.approx(66.0)
    opened = make_scene(placed, container(30.0), table={"size": [400, 400]})
    assert not [w for w in opened.warnings if "enclosed" in w]
    # a route point given inside the sealed container is warned about too
    runner = trooper("run", [50, 200], route=[[50, 200], [200, 200, 3], [200, 350]])
    scene = make_scene([runner], container(), table={"size": [400, 400]})
    warns = [w for w in warnings_of(scene.warnings) if "enclosed" in w]
    assert len(warns) == 1 and warns[0].startswith("route point 1 of trooper 'run'")


def test_the_map_is_made_once_per_scenery_and_probe():
    scene = make_scene([], container(), table={"size": [400, 400]})
    a = reach_map(scene, 12.5, 40.0)
    again = make_scene([trooper("x", [20, 20])], container(), table={"size": [400, 400]})
    assert reach_map(again, 12.5, 40.0) is a
    assert reach_map(scene, 20.0, 32.0) is not a


def test_a_thin_wall_is_never_leaked_through():
    # a closed box with 0.2 mm walls (far under a voxel), rotated off the grid's axes
    outer = trimesh.creation.box([120, 90, 50])
    inner = trimesh.creation.box([119.6, 89.6, 49.6])
    inner.invert()
    v = np.vstack([outer.vertices, inner.vertices])
    f = np.vstack([outer.faces, inner.faces + len(outer.vertices)])
    rot = trimesh.transformations.rotation_matrix(np.radians(17.0), [0, 0, 1])[:3, :3]
    v = v @ rot.T + [100.0, 100.0, 25.0]
    m = build_reach(v, f, [[0, 0], [200, 200]], 12.5, 40.0, floor_z=0.0)
    assert not m.reachable([[100.0, 100.0, 0.2]])[0]
    assert m.reachable([[10.0, 10.0, 0.0]])[0] and m.reachable([[100.0, 100.0, 50.0]])[0]


def _height_field(tmp_path, n=121, size=240.0):
    """z = 15 + 8 sin(x / 40) cos(y / 55), a sheet every 2 mm, as an OBJ."""
    xs = np.linspace(0.0, size, n)
    gx, gy = np.meshgrid(xs, xs, indexing="xy")
    z = 15 + 8 * np.sin(gx / 40.0) * np.cos(gy / 55.0)
    v = np.column_stack([gx.ravel(), gy.ravel(), z.ravel()])
    k = (np.arange(n - 1)[:, None] * n + np.arange(n - 1)[None, :]).ravel()
    f = np.vstack([np.column_stack([k, k + 1, k + n + 1]), np.column_stack([k, k + n + 1, k + n])])
    path = tmp_path / "hill.obj"
    trimesh.Trimesh(v, f, process=False).export(path)
    return path


@pytest.mark.parametrize("sunk", [True, False])
def test_a_statue_on_a_height_field_leaves_no_spot_under_the_surface_or_inside_it(tmp_path, sunk):
    hill = _height_field(tmp_path)
    # a statue like a scan: a 22 mm-radius column 70 mm tall with no bottom (open, as
    # photogrammetry leaves it) under a 30 mm-radius ball; sunk 25 mm into the hill, or
    # dropped onto it (its rim then clears the slope on the low side by a few mm)
    column = trimesh.creation.cylinder(radius=22.0, height=70.0, sections=24)
    column.apply_translation([0, 0, 35])
    column = trimesh.Trimesh(column.vertices, column.faces[column.triangles_center[:, 2] > 1e-6])
    ball = trimesh.creation.icosphere(subdivisions=3, radius=30.0).apply_translation([0, 0, 95])
    statue = tmp_path / "statue.stl"
    trimesh.util.concatenate([column, ball]).export(statue)
    centre = np.array([120.0, 120.0])
    ground = 15 + 8 * np.sin(centre[0] / 40.0) * np.cos(centre[1] / 55.0)
    position = [*centre, ground - 25] if sunk else [*centre]
    scene = make_scene(
        [],
        [{"id": "angel", "mesh": str(statue), "position": position}],
        table={"mesh": str(hill), "mesh_units": "mm", "size": [240, 240]},
    )
    grid = place_probes(scene, probe_for(scene, 2), 8.0, all_pairs=False)
    p = grid.positions
    assert len(p) > 800
    # independent references: the analytic height field (the sheet every 2 mm is within
    # 0.05 mm of it) and the statue's shape: no spot under the surface, and no probe axis
    # inside the column below the ball's top
    surf = 15 + 8 * np.sin(p[:, 0] / 40.0) * np.cos(p[:, 1] / 55.0)
    assert np.all(p[:, 2] >= surf - 0.05)
    in_plan = np.hypot(p[:, 0] - centre[0], p[:, 1] - centre[1]) < 22.0
    base = ground - 25 if sunk else ground  # dropped: its lowest point at least that high
    assert not (in_plan & (p[:, 2] < base + 90)).any()  # (the ball's top: base + 125)
    if not sunk:  # the hollow column's inside, which the low rim's gap does not open
        assert dict(grid.enclosed_by).get("angel", 0) >= 1


def _noisy_slope(tmp_path, seed=3, n=81, size=160.0):
    """z = 4 + 0.35 x plus 0.4 mm of seeded noise, a sheet every 2 mm (a scan's skin)."""
    rng = np.random.default_rng(seed)
    xs = np.linspace(0.0, size, n)
    gx, gy = np.meshgrid(xs, xs, indexing="xy")
    z = 4 + 0.35 * gx + rng.uniform(-0.4, 0.4, gx.shape)
    v = np.column_stack([gx.ravel(), gy.ravel(), z.ravel()])
    k = (np.arange(n - 1)[:, None] * n + np.arange(n - 1)[None, :]).ravel()
    f = np.vstack([np.column_stack([k, k + 1, k + n + 1]), np.column_stack([k, k + n + 1, k + n])])
    path = tmp_path / "slope.obj"
    trimesh.Trimesh(v, f, process=False).export(path)
    return path


def test_a_noisy_slope_gives_one_level_per_grid_point_at_the_dropped_height(tmp_path):
    slope = _noisy_slope(tmp_path)
    scene = make_scene([], [], table={"mesh": str(slope), "mesh_units": "mm", "size": [160, 160]})
    grid = place_probes(scene, probe_for(scene, 2), 5.0, all_pairs=False)
    p = grid.positions
    assert len(np.unique(grid.cell)) == len(grid.cell) == len(grid.grid_xy)  # one per point
    assert np.all(grid.level == 0)
    # not sunk: at least the plane's height at the centre less the noise
    assert np.all(p[:, 2] >= 4 + 0.35 * p[:, 0] - 0.4 - 1e-6)
    # the height a trooper dropped there rests at (SPEC 12.2: at most the rise over the
    # base's radius plus the noise above the plane)
    assert np.all(p[:, 2] <= 4 + 0.35 * (p[:, 0] + 12.5) + 0.4 + 1e-6)
    # and exactly where the scene drops a trooper (the same probes under the base; the
    # loader's drop is checked in tests/survey/test_probe_standing.py)
    dropped, _ = scene.surface.rest(p[:, :2], np.full(len(p), 12.5))
    assert np.all(np.abs(p[:, 2] - dropped) <= PLACEMENT_TOL_MM)


def test_a_floor_under_a_ceiling_is_two_levels_a_step_is_one():
    scene = make_scene(
        [],
        [
            box("slab", (80, 80, 5), (100, 100, 60)),  # a roof 60..65 on nothing: a floor above
            box("step", (80, 80, 4), (300, 100, 0)),  # a 4 mm step: one level, on its top
        ],
        table={"size": [400, 200]},
    )
    grid = place_probes(scene, probe_for(scene, 2), 20.0, all_pairs=False)
    at = {}
    for (x, y, z), lv in zip(grid.positions, grid.level, strict=True):
        at.setdefault((x, y), []).append((round(z, 3), int(lv)))
    assert at[(110.0, 110.0)] == [(0.0, 0), (65.0, 1)]
    assert at[(310.0, 110.0)] == [(4.0, 0)]


def test_a_trooper_under_open_sky_needs_no_map():
    # placed with an explicit z on the open table: judged by rays straight up, no grid
    scene = make_scene(
        [trooper("x", [20, 20, 0]), trooper("y", [300, 300, 0])],
        [box("lonely", (30, 30, 30), (150, 150, 0))],
        table={"size": [333, 333]},
    )
    assert not [w for w in scene.warnings if "enclosed" in w]
    assert scene._built.reach == {}
