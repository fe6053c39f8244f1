"""Line of Fire on a table built like a real scan (issue 49): blocks fused into one rough
height field (geom3d.terrain.fused), troopers on block tops, at wall feet and low on the
rough ground. The engine's answers (proofs, ground profiles, the search) against the
brute-force search of ``proof_support`` (every eye x every 1 mm sample, written apart
from geom3d.visibility), and against the search without proofs."""

from __future__ import annotations

import numpy as np
import pytest
from proof_support import check_against_brute_force, pairs, same_answer
from support import make_scene, trooper

from geom3d import terrain
from geom3d.terrain import FusedBlocks


def fused_scene(tmp_path, seed):
    """A 300 x 300 mm fused table (2.5 mm grid) with three blocks, and seven troopers: two
    on block tops, one at a wall's foot, four on the ground (three of silhouette 1 or 2
    behind blocks)."""
    blocks = FusedBlocks(
        np.array([[150.0, 150.0], [70.0, 225.0], [230.0, 75.0]]),
        np.array([[30.0, 20.0], [22.0, 35.0], [25.0, 25.0]]),
        np.array([30.0, 0.0, 45.0]),
        np.array([40.0, 80.0, 30.0]),
    )
    mesh = terrain.fused_scan_table(28_000, seed, size_mm=300.0, blocks=blocks)
    path = tmp_path / f"fused_{seed}.stl"
    mesh.export(path)
    table = {"size": [300, 300], "mesh": str(path), "mesh_units": "mm", "solid": "auto"}
    rng = np.random.default_rng(seed)
    jitter = rng.uniform(-4, 4, (7, 2))
    spots = [
        ("roof", (150.0, 150.0), 2),
        ("tower", (70.0, 225.0), 1),
        ("foot", (70.0 + 22.0 + 12.5 + 5.0, 200.0), 2),
        ("low", (245.0, 250.0), 1),
        ("open", (40.0, 60.0), 3),
        ("behind", (150.0, 215.0), 1),
        ("corner", (272.0, 28.0), 2),
    ]
    ts = [
        trooper(k, list(np.add(xy, j)), silhouette=s, side="red" if i % 2 else "blue")
        for i, ((k, xy, s), j) in enumerate(zip(spots, jitter, strict=True))
    ]
    d = blocks.signed_distance([t["position"] for t in ts])
    assert ((d < -15.0) | (d > 15.0)).all()  # no base straddles a wall
    return make_scene(ts, table=table)


@pytest.mark.parametrize("seed", [0])
def test_fused_table_answers_agree_with_brute_force(tmp_path, seed):
    scene = fused_scene(tmp_path, seed)
    assert scene.trooper("roof").position[2] > 35.0  # on the block, not beside it
    assert scene.trooper("tower").position[2] > 75.0
    seen = []
    for x, y in pairs(scene):
        a, b = scene.trooper(x), scene.trooper(y)
        visible, _ = check_against_brute_force(scene, a, b)
        assert same_answer(scene, a, b) == visible
        seen.append(visible)
    assert any(seen) and not all(seen)  # both kinds of pair on the table


@pytest.mark.parametrize("seed", [0])
def test_generated_fused_tables_agree_with_brute_force(tmp_path, seed):
    # the benchmark's own generators, small: blocks and spots drawn from the seed
    blocks = terrain.fused_blocks(seed, size_mm=300.0, n_blocks=4)
    mesh = terrain.fused_scan_table(28_000, seed, size_mm=300.0, blocks=blocks)
    path = tmp_path / "gen.stl"
    mesh.export(path)
    sil = [1, 2, 3, 1]
    radii = np.array([12.5, 12.5, 20.0, 12.5])
    spots = terrain.fused_trooper_spots(blocks, radii, seed, size_mm=300.0, cell_mm=2.5)
    ts = [
        trooper(f"t{i}", list(xy), silhouette=s, side="red" if i % 2 else "blue")
        for i, (xy, s) in enumerate(zip(spots, sil, strict=True))
    ]
    table = {"size": [300, 300], "mesh": str(path), "mesh_units": "mm", "solid": "auto"}
    scene = make_scene(ts, table=table)
    assert (blocks.signed_distance(spots).min(axis=1) < 0).any()  # one on a block top
    seen = []
    for x, y in pairs(scene):
        a, b = scene.trooper(x), scene.trooper(y)
        visible, _ = check_against_brute_force(scene, a, b)
        assert same_answer(scene, a, b) == visible
        seen.append(visible)
    assert any(seen) and not all(seen)
