"""Line of Fire on a table built like a real scan (issue 49): blocks fused into one rough
height field (geom3d.terrain.fused), troopers on block tops, at wall feet and low on the
rough ground. The engine's answers (proofs, ground profiles, the search) against the
brute-force search of ``proof_support`` (every eye x every 1 mm sample, written apart
from geom3d.visibility), and against the search without proofs."""

from __future__ import annotations

import numpy as np
import pytest
from proof_support import check_against_brute_force, fused_scene, pairs, same_answer
from support import make_scene, trooper

from geom3d import terrain


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
