"""The fused scanned table (geom3d.terrain.fused): blocks lifted into one rough height
field, and trooper spots that never straddle a wall. Checked against hand-computed
geometry and against the loader's own standing rule (SPEC 12.2) on a small table."""

from __future__ import annotations

import math

import numpy as np
import pytest
from support import make_scene, trooper

from geom3d import terrain
from geom3d.core.errors import InputError
from geom3d.core.messages import warnings_of
from geom3d.terrain import FusedBlocks


def one_block(cx, cy, hx, hy, yaw, h):
    return FusedBlocks(
        np.array([[cx, cy]], float), np.array([[hx, hy]], float), np.array([yaw], float),
        np.array([h], float),
    )  # fmt: skip


def test_signed_distance_of_a_turned_block_by_hand():
    # a 40 x 20 block turned 90 degrees: 20 along x, 40 along y, centred at (100, 100)
    b = one_block(100, 100, 20, 10, 90, 50)
    pts = np.array([[100, 100], [115, 100], [100, 125], [115, 125], [104, 100]], float)
    got = b.signed_distance(pts)[:, 0]
    assert got == pytest.approx([-10.0, 5.0, 5.0, math.hypot(5, 5), -6.0])


def test_the_table_is_one_height_field_with_the_blocks_as_steps():
    blocks = FusedBlocks(
        np.array([[60.0, 60.0], [140.0, 130.0]]), np.array([[20.0, 15.0], [25.0, 25.0]]),
        np.array([0.0, 30.0]), np.array([40.0, 90.0]),
    )  # fmt: skip
    m = terrain.fused_scan_table(20_000, 3, size_mm=200.0, blocks=blocks, noise_mm=0.3)
    n = int(math.sqrt(20_000 / 2)) + 1
    assert len(m.vertices) == n * n and len(m.faces) == 2 * (n - 1) ** 2
    v = m.vertices
    # a regular grid over the table, x fastest
    assert v[:n, 1] == pytest.approx(0.0) and v[:n, 0] == pytest.approx(np.linspace(0, 200, n))
    # every face's normal points up: a height field, no fold
    assert (m.face_normals[:, 2] > 0).all()
    inside = blocks.signed_distance(v[:, :2]) <= 0
    lift = np.where(inside, blocks.height, 0.0).max(axis=1)
    rest = v[:, 2] - lift  # waving (within 1.5 mm) plus noise (sigma 0.3)
    assert np.abs(rest).max() < 1.5 + 6 * 0.3
    # noise: neighbours along x on open ground differ by about sqrt(2) sigma
    z = v[:, 2].reshape(n, n)
    flat = (lift.reshape(n, n)[:, 1:] == 0) & (lift.reshape(n, n)[:, :-1] == 0)
    d = np.diff(z, axis=1)[flat]
    assert 0.3 * math.sqrt(2) * 0.85 < d.std() < 0.3 * math.sqrt(2) * 1.15
    # the same seed, the same mesh; another seed, other noise
    again = terrain.fused_scan_table(20_000, 3, size_mm=200.0, blocks=blocks)
    assert np.array_equal(again.vertices, v)
    other = terrain.fused_scan_table(20_000, 4, size_mm=200.0, blocks=blocks)
    assert not np.array_equal(other.vertices, v)


def test_benchmark_blocks_and_spots():
    blocks = terrain.fused_blocks(0)
    assert len(blocks) == 30
    assert (blocks.height >= 30).all() and (blocks.height <= 120).all()
    assert (2 * blocks.half >= 35).all() and (2 * blocks.half <= 125).all()
    radii = np.array([12.5, 12.5, 20.0, 27.5, 20.0, 20.0] * 7)[:40]
    spots = terrain.fused_trooper_spots(blocks, radii, 0)
    assert spots.shape == (40, 2)
    d = blocks.signed_distance(spots)
    clear = terrain.fused.FUSED_WALL_CELLS * 1.7 + 0.5
    assert (np.abs(d) >= radii[:, None] + clear).all()  # no base straddles a wall
    gap = np.hypot(*(spots[:, None] - spots[None]).transpose(2, 0, 1))
    np.fill_diagonal(gap, np.inf)
    assert (gap >= radii[:, None] + radii[None] + 1.0 - 1e-9).all()  # no bases overlap
    on_top = (d.min(axis=1) < 0).sum()
    at_foot = ((d.min(axis=1) - radii > 0) & (d.min(axis=1) - radii < 10)).sum()
    assert on_top == 4 and at_foot == 3  # FUSED_SPOT_STREAM's documented mix
    with pytest.raises(InputError, match="trooper spots fit"):
        terrain.fused_trooper_spots(blocks, np.full(400, 27.5), 0, max_draws=2000)


def test_troopers_stand_on_block_tops_and_at_wall_feet(tmp_path):
    # the loader's standing rule (SPEC 12.2) puts each dropped trooper on the connected
    # ground under its base: a block top's height, or the ground's at a wall's foot
    blocks = FusedBlocks(
        np.array([[100.0, 100.0], [200.0, 180.0]]), np.array([[30.0, 25.0], [20.0, 40.0]]),
        np.array([20.0, 0.0]), np.array([45.0, 80.0]),
    )  # fmt: skip
    mesh = terrain.fused_scan_table(30_000, 1, size_mm=300.0, blocks=blocks)
    path = tmp_path / "fused.stl"
    mesh.export(path)
    spots = {"roof": (100.0, 100.0, 1), "foot": (200.0 + 20 + 12.5 + 4.0, 170.0, 2),
             "low": (40.0, 250.0, 1), "far": (260.0, 40.0, 3)}  # fmt: skip
    table = {"size": [300, 300], "mesh": str(path), "mesh_units": "mm", "solid": "auto"}
    scene = make_scene(
        [trooper(k, [x, y], silhouette=s) for k, (x, y, s) in spots.items()], table=table
    )
    z = {k: scene.trooper(k).position[2] for k in spots}
    assert 45.0 - 1.5 < z["roof"] < 45.0 + 1.5 + 1.5
    for k in ("foot", "low", "far"):
        assert -1.5 < z[k] < 1.5 + 1.5, k
    assert not [w for w in warnings_of(scene.warnings) if "embedded" in w or "overlap" in w]
