"""How a scenery piece rests (geom3d.scene.piece_rest; SPEC 11.1 step 2): the ground
under points, dropping ``[x, y]`` pieces, sinking and floating warnings."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from support import box, make_scene

from geom3d.api import load_scene
from geom3d.mesh import box_mesh
from geom3d.scene.piece_rest import Ground, place_piece


def ramp(slope=0.2, size=400.0):
    """The plane z = slope * x over [0, size]^2, two triangles."""
    v = np.array([[0, 0, 0], [size, 0, slope * size], [size, size, slope * size], [0, size, 0]])
    return v.astype(float), np.array([[0, 1, 2], [0, 2, 3]])


def test_ground_is_the_table_mesh_under_points_and_zero_without_one():
    xy = np.array([[100.0, 50.0], [250.0, 300.0], [-10.0, 50.0]])  # the last: off the mesh
    assert Ground(*ramp())(xy) == pytest.approx([20.0, 50.0, 0.0], abs=1e-3)
    assert Ground(None, None)(xy).tolist() == [0.0, 0.0, 0.0]


def test_an_xy_piece_drops_onto_the_highest_ground_under_its_footprint():
    # a 20 x 20 x 10 box over x 90..110 on z = 0.2 x: the ground under it peaks at 22 mm
    v, f = box_mesh((20.0, 20.0, 10.0))
    v = v + np.array([100.0, 100.0, 0.0])
    rep = SimpleNamespace(dropped_mm=None, rest_gap_mm=None, messages=[])
    item = SimpleNamespace(drop=True, position=(100.0, 100.0, 0.0))
    out = place_piece(item, v, f, Ground(*ramp()), rep)
    assert out[:, 2].min() == pytest.approx(22.0, abs=1e-3)
    assert rep.dropped_mm == pytest.approx(22.0, abs=1e-3) and rep.messages == []


@pytest.mark.parametrize(("z", "sinks"), [(-1.0, None), (-3.0, "3.0")])  # 1 mm tolerance
def test_an_explicit_z_piece_is_measured_and_warned_only_when_sunk(z, sinks):
    v, f = box_mesh((10.0, 10.0, 10.0))
    v = v + np.array([0.0, 0.0, z])
    rep = SimpleNamespace(dropped_mm=None, rest_gap_mm=None, messages=[])
    item = SimpleNamespace(drop=False, position=(0.0, 0.0, z))
    out = place_piece(item, v, f, Ground(None, None), rep)
    assert out is v  # never moved
    if sinks is None:
        assert rep.rest_gap_mm == pytest.approx(z) and rep.messages == []
    else:
        assert rep.rest_gap_mm == pytest.approx(z)
        assert rep.messages == [
            f"sinks {sinks} mm into the surface under it (explicit z = {z:g} mm; give "
            "position [x, y] to rest it on the surface)"
        ]


def stacked(z_top):
    """Two 10 mm boxes, one on the table and one over it with its bottom at ``z_top``."""
    return make_scene(
        [], [box("low", [10, 10, 10], [0, 0, 0]), box("high", [10, 10, 10], [0, 0, z_top])]
    )


@pytest.mark.parametrize(
    ("z", "floats"),
    [(10.0, None), (11.0, None), (11.5, "1.5"), (9.5, None)],  # 1 mm tolerance, overlap ok
)
def test_a_piece_stacked_on_another_rests_on_it(z, floats):
    scene = stacked(z)
    got = [w for w in scene.warnings if w.startswith("high:")]
    if floats is None:
        assert got == []
    else:  # measured from the piece beneath, not from the table (11.5 mm below)
        assert got == [
            f"high: floats {floats} mm above the surface under it (explicit z = {z:g} mm; "
            "give position [x, y] to rest it on the surface)"
        ]


def test_a_truly_floating_piece_warns_with_its_gap(tmp_path):
    # 20 mm clear of the other box sideways, 30 mm above the table
    scene = make_scene([], [box("a", [10, 10, 10], [0, 0, 0]), box("f", [4, 4, 2], [25, 0, 30])])
    assert scene.warnings == [
        "f: floats 30.0 mm above the surface under it (explicit z = 30 mm; give position "
        "[x, y] to rest it on the surface)"
    ]


@pytest.mark.parametrize(("gap", "warns"), [(0.0, False), (1.0, False), (1.5, True)])
def test_a_piece_held_against_a_wall_does_not_float(gap, warns):
    # a wall x -2..2; a balcony slab beside it at x 2 + gap .. 22 + gap, 40 mm up
    wall = box("wall", [4, 40, 60], [0, 0, 0])
    slab = box("balcony", [20, 20, 4], [12 + gap, 0, 40])
    scene = make_scene([], [wall, slab])
    got = [w for w in scene.warnings if w.startswith("balcony:")]
    assert got == (
        ["balcony: floats 40.0 mm above the surface under it (explicit z = 40 mm; give "
         "position [x, y] to rest it on the surface)"] if warns else []
    )  # fmt: skip


def test_bundled_scenarios_warn_only_about_free_standing_slabs():
    from support import REPO

    found = {}
    for path in sorted((REPO / "meshes").rglob("*.yaml")):
        scene = load_scene(path)
        if scene.warnings:
            found[str(path.relative_to(REPO))] = list(scene.warnings)
    # the balcony and the ruin floor are slabs in mid-air with nothing under or beside
    # them (their scenarios test what passes beneath): they really float
    assert found == {
        "meshes/scenarios/attacks/balcony.yaml": [
            "balcony: floats 45.0 mm above the surface under it (explicit z = 45 mm; give "
            "position [x, y] to rest it on the surface)"
        ],
        "meshes/scenarios/attacks/wh40k_flame_line.yaml": [
            "ruin: floats 50.0 mm above the surface under it (explicit z = 50 mm; give "
            "position [x, y] to rest it on the surface)"
        ],
    }
