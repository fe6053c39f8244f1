"""Procedural scenery (geom3d.terrain) and the generated files under meshes/."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import trimesh
import yaml
from support import REPO
from trimesh.ray.ray_triangle import RayMeshIntersector

from geom3d import terrain
from geom3d.core.errors import InputError

MESHES = REPO / "meshes"


def hits(mesh: trimesh.Trimesh, origin, direction) -> bool:
    """Does the ray from ``origin`` along ``direction`` hit ``mesh``?"""
    return bool(RayMeshIntersector(mesh).intersects_any([origin], [direction])[0])


def hit_z(mesh: trimesh.Trimesh, x: float, y: float) -> np.ndarray:
    """Sorted z of every surface crossed by a vertical line at (x, y)."""
    loc, _, _ = RayMeshIntersector(mesh).intersects_location(
        [[x, y, 1000.0]], [[0.0, 0.0, -1.0]], multiple_hits=True
    )
    return np.sort(np.round(loc[:, 2], 6))


def assert_clean(mesh: trimesh.Trimesh, *, closed: bool = True) -> None:
    """No degenerate faces; closed pieces are watertight with outward normals."""
    faces = np.asarray(mesh.faces)
    assert len(faces) > 0
    assert np.all(faces[:, 0] != faces[:, 1])
    assert np.all(faces[:, 1] != faces[:, 2])
    assert np.all(faces[:, 0] != faces[:, 2])
    assert mesh.area_faces.min() > 1e-6
    assert mesh.nondegenerate_faces().all()
    if closed:
        assert mesh.is_watertight
        assert mesh.is_winding_consistent
        assert mesh.volume > 0


PIECES = {
    "box": lambda: terrain.box((10, 20, 30)),
    "wall": lambda: terrain.wall(200, 6, 80, windows=[(-50, 30, 25, 55), (50, 30, 25, 55)]),
    "wall_gap_door_notch": lambda: terrain.wall(
        300, 8, 60, windows=[(-100, 20, 0, 40), (100, 20, 40, 60)], gaps=[(0, 30)]
    ),
    "building": lambda: terrain.building((200, 150, 130), 2, parapet=10),
    "building_ruin": lambda: terrain.building((160, 160, 90), 1, roof=False, door=None),
    "building_3_storeys": lambda: terrain.building(
        (250, 200, 200), 3, door_sides=("-x", "+y"), windows_per_wall=3
    ),
    "container": lambda: terrain.container(),
    "walkway": lambda: terrain.walkway(),
    "walkway_no_legs": lambda: terrain.walkway(legs=False),
    "barricade": lambda: terrain.barricade(),
    "crates": lambda: terrain.crates(),
}


@pytest.mark.parametrize("name", sorted(PIECES))
def test_pieces_are_clean_closed_surfaces(name):
    assert_clean(PIECES[name]())


@pytest.mark.parametrize(
    ("mesh", "bounds"),
    [
        (lambda: terrain.box((10, 20, 30)), [[-5, -10, 0], [5, 10, 30]]),
        (lambda: terrain.wall(200, 6, 80), [[-100, -3, 0], [100, 3, 80]]),
        (lambda: terrain.building((200, 150, 130), 2), [[-100, -75, 0], [100, 75, 130]]),
        (
            lambda: terrain.building((200, 150, 130), 2, parapet=10),
            [[-100, -75, 0], [100, 75, 130]],
        ),
        (lambda: terrain.container(150, 60, 64), [[-75, -30, 0], [75, 30, 64]]),
        (lambda: terrain.walkway(240, 50, 60, 4), [[-120, -25, 0], [120, 25, 60]]),
        (lambda: terrain.walkway(240, 50, 60, 4, legs=False), [[-120, -25, 56], [120, 25, 60]]),
        (lambda: terrain.barricade(80, 25, 12), [[-40, -6, 0], [40, 6, 25]]),
        (lambda: terrain.crates(25, 2), [[-26, -12.5, 0], [26, 12.5, 50]]),
    ],
)
def test_bounds_match_requested_size(mesh, bounds):
    np.testing.assert_allclose(mesh().bounds, bounds, atol=1e-9)


def test_box_is_twelve_triangles_with_the_right_volume():
    b = terrain.box((10, 20, 30))
    assert len(b.faces) == 12
    assert b.volume == pytest.approx(6000.0)


def test_building_doors_are_real_openings():
    # Storey height (130 - 10 - 4) / 2 = 58; ground slab 0..4; door 30 x 45 from z = 4.
    b = terrain.building((200, 150, 130), 2, door=(30, 45), windows=None, parapet=10)
    door_centre_z = 4 + 45 / 2
    # Through the front door, the ground storey and the back door: nothing is hit.
    assert not hits(b, [0, -300, door_centre_z], [0, 1, 0])
    # The same ray 40 mm to the side, or above the door, meets the front wall.
    assert hits(b, [40, -300, door_centre_z], [0, 1, 0])
    assert hits(b, [0, -300, 4 + 45 + 2], [0, 1, 0])
    # Without doors the wall is closed.
    closed = terrain.building((200, 150, 130), 2, door=None, windows=None)
    assert hits(closed, [0, -300, door_centre_z], [0, 1, 0])


def test_building_windows_are_real_openings_on_every_storey():
    b = terrain.building((200, 150, 130), 2, door=(30, 45), windows=(25, 20, 22), parapet=10)
    # Two windows per side, centred at +-48 along the 192 mm inner length; sill 22 above
    # each storey's floor (storey floors at 4 and 62).
    for floor in (4.0, 62.0):
        z = floor + 22 + 10
        assert not hits(b, [-48, -300, z], [0, 1, 0])  # front and back windows line up
        assert not hits(b, [-300, 35.5, z], [1, 0, 0])  # side windows (inner length 142)
        assert hits(b, [-80, -300, z], [0, 1, 0])


def test_building_is_hollow_with_a_slab_per_storey_and_a_roof():
    b = terrain.building((200, 150, 130), 2, parapet=10)
    # Ground slab 0..4, first-floor slab 58..62, roof slab 116..120, parapet to 130.
    np.testing.assert_allclose(hit_z(b, 10, 10), [0, 4, 58, 62, 116, 120], atol=1e-6)
    # The roof top is an upward face one can stand on.
    assert hit_z(b, 10, 10)[-1] == pytest.approx(120)
    ruin = terrain.building((160, 160, 90), 1, roof=False, door=None)
    np.testing.assert_allclose(hit_z(ruin, 0, 0), [0, 4], atol=1e-6)


def test_wall_windows_and_gaps_are_holes():
    w = terrain.wall(300, 8, 60, windows=[(-100, 20, 10, 40)], gaps=[(50, 30)])
    assert not hits(w, [-100, -50, 25], [0, 1, 0])  # through the window
    assert hits(w, [-100, -50, 5], [0, 1, 0])  # under the sill
    assert hits(w, [-100, -50, 50], [0, 1, 0])  # over the lintel
    assert not hits(w, [50, -50, 59], [0, 1, 0])  # the gap goes the full height
    assert not hits(w, [50, -50, 1], [0, 1, 0])
    assert len(w.split(only_watertight=False)) == 2


def test_walkway_has_clearance_under_the_deck():
    w = terrain.walkway(240, 50, 60, 4)
    # Along the centre line at mid-height under the deck: no leg, no deck.
    assert not hits(w, [-500, 0, 28], [1, 0, 0])
    assert not hits(w, [-500, 18, 55], [1, 0, 0])
    # Along the leg line the legs are hit; just over the deck nothing is.
    assert hits(w, [-500, 22, 28], [1, 0, 0])
    assert not hits(w, [-500, 0, 60.5], [1, 0, 0])
    # The deck top is at deck_height, its underside at deck_height - deck_thickness.
    np.testing.assert_allclose(hit_z(w, 30, 5), [56, 60], atol=1e-6)


def test_container_roof_is_flat_at_its_height():
    c = terrain.container(150, 60, 64)
    np.testing.assert_allclose(hit_z(c, 10, 3), [0, 64], atol=1e-6)


@pytest.mark.parametrize(
    "make",
    [
        lambda: terrain.wall(100, 5, 50, windows=[(40, 30, 10, 20)]),
        lambda: terrain.wall(100, 5, 50, windows=[(0, 10, 30, 60)]),
        lambda: terrain.wall(100, 5, 50, windows=[(0, 10, 30)]),
        lambda: terrain.building((200, 150, 130), 2, door=(30, 80)),
        lambda: terrain.building((200, 150, 130), 2, door_sides=("north",)),
        lambda: terrain.building((200, 150, 130), 0),
        lambda: terrain.building((200, 150, 130), 2, roof=False, parapet=5),
        lambda: terrain.box((10, 0, 10)),
        lambda: terrain.walkway(deck_thickness=70),
        lambda: terrain.rectilinear([((0, 0, 0), (1, 1, 1))], [((-1, -1, -1), (2, 2, 2))]),
        lambda: terrain.scanned_floor(n_triangles=1),
        lambda: terrain.synthetic_scanned_table(100),
    ],
)
def test_bad_arguments_raise_input_error(make):
    with pytest.raises(InputError):
        make()


def test_rectilinear_union_has_no_internal_faces():
    # Two boxes sharing a face and a third overlapping both: one closed surface.
    m = terrain.rectilinear(
        [((0, 0, 0), (10, 10, 10)), ((10, 0, 0), (20, 10, 10)), ((5, 5, 5), (15, 15, 15))]
    )
    assert_clean(m)
    assert m.volume == pytest.approx(2000 + 1000 - 250)
    assert len(m.split(only_watertight=False)) == 1


def test_place_turns_then_moves():
    m = terrain.place(terrain.box((40, 10, 5)), (100, 200, 3), 90)
    np.testing.assert_allclose(m.bounds, [[95, 180, 3], [105, 220, 8]], atol=1e-9)


def test_subdivide_keeps_the_surface():
    b = terrain.building((200, 150, 130), 2)
    s = terrain.subdivide(b, 2)
    assert len(s.faces) == 16 * len(b.faces)
    assert_clean(s)
    assert s.volume == pytest.approx(b.volume)
    np.testing.assert_allclose(s.bounds, b.bounds)


def test_scanned_floor_count_noise_and_orientation():
    f = terrain.scanned_floor((1200, 1200), n_triangles=100_000, noise_mm=0.3, seed=3)
    assert abs(len(f.faces) - 100_000) <= 0.02 * 100_000
    z = f.vertices[:, 2]
    assert np.abs(z).max() <= 0.3
    assert z.std() > 0.01  # it is noisy
    np.testing.assert_allclose(f.bounds[:, :2], [[0, 0], [1200, 1200]], atol=1e-9)
    assert (f.face_normals[:, 2] > 0.99).all()
    assert_clean(f, closed=False)
    assert not f.is_watertight  # an open sheet, like a scan


def test_scanned_floor_non_square_and_zero_noise():
    f = terrain.scanned_floor((600, 300), n_triangles=20_000, noise_mm=0.0)
    assert abs(len(f.faces) - 20_000) <= 0.02 * 20_000
    assert np.all(f.vertices[:, 2] == 0.0)
    np.testing.assert_allclose(f.bounds[:, :2], [[0, 0], [600, 300]], atol=1e-9)
    assert f.area == pytest.approx(600 * 300)


def test_scanned_floor_is_deterministic():
    a = terrain.scanned_floor(n_triangles=20_000, seed=7)
    b = terrain.scanned_floor(n_triangles=20_000, seed=7)
    c = terrain.scanned_floor(n_triangles=20_000, seed=8)
    assert np.array_equal(a.vertices, b.vertices)
    assert np.array_equal(a.faces, b.faces)
    assert not np.array_equal(a.vertices, c.vertices)


@pytest.fixture(scope="module")
def table50k():
    return terrain.synthetic_scanned_table(50_000, seed=0)


def test_synthetic_table_triangle_count_and_bounds(table50k):
    assert abs(len(table50k.faces) - 50_000) <= 0.10 * 50_000
    lo, hi = table50k.bounds
    np.testing.assert_allclose(lo[:2], [0, 0], atol=1e-9)
    np.testing.assert_allclose(hi[:2], [1200, 1200], atol=1e-9)
    assert -0.5 < lo[2] < 0.0
    assert 125 < hi[2] < 131  # the stacked containers and the building with parapet
    assert_clean(table50k, closed=False)


def test_synthetic_table_is_deterministic(table50k):
    again = terrain.synthetic_scanned_table(50_000, seed=0)
    other = terrain.synthetic_scanned_table(50_000, seed=1)
    assert np.array_equal(table50k.vertices, again.vertices)
    assert np.array_equal(table50k.faces, again.faces)
    assert not np.array_equal(table50k.vertices, other.vertices)


@pytest.mark.parametrize("n", [20_000, 200_000])
def test_synthetic_table_other_sizes(n):
    m = terrain.synthetic_scanned_table(n, seed=2)
    assert abs(len(m.faces) - n) <= 0.10 * n


@pytest.mark.parametrize("n", [10, 20, 40])
def test_trooper_spots_are_on_open_ground(n, table50k):
    spots = terrain.synthetic_trooper_spots(n, seed=1)
    assert spots.shape == (n, 2)
    assert np.array_equal(spots, terrain.synthetic_trooper_spots(n, seed=1))
    d = np.hypot(*(spots[:, None, :] - spots[None, :, :]).transpose(2, 0, 1))
    assert d[~np.eye(n, dtype=bool)].min() >= 70
    assert (spots >= 40).all() and (spots <= 1160).all()
    # A vertical line through each spot meets only the floor (|z| <= noise), and no
    # piece within 40 mm either (probe the four points 12.5 mm away: a 25 mm base).
    probes = np.concatenate([spots] + [spots + o for o in ([12.5, 0], [-12.5, 0], [0, 12.5])])
    origins = np.column_stack([probes, np.full(len(probes), 500.0)])
    dirs = np.tile([0.0, 0.0, -1.0], (len(probes), 1))
    loc, idx, _ = RayMeshIntersector(table50k).intersects_location(
        origins, dirs, multiple_hits=True
    )
    assert set(idx.tolist()) == set(range(len(probes)))
    assert np.abs(loc[:, 2]).max() <= 0.3


def test_trooper_spots_too_many_raise():
    with pytest.raises(InputError):
        terrain.synthetic_trooper_spots(2000)


def test_demo_table_pieces():
    pieces = terrain.demo_table_pieces()
    ids = [p[0] for p in pieces]
    assert len(ids) >= 12
    assert len(set(ids)) == len(ids)
    kinds = {m.metadata["kind"] for _, m, _, _ in pieces}
    assert kinds == {"box", "mesh"}
    for _, mesh, pos, rot in pieces:
        assert_clean(mesh)
        lo, hi = terrain.place(mesh, pos, rot).bounds[:, :2]
        assert (lo > 0).all() and (hi < 1200).all()  # every piece is on the table


# --------------------------------------------------------------------------------------
# Generated files
# --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory):
    out = tmp_path_factory.mktemp("meshes")
    subprocess.run(
        [sys.executable, str(MESHES / "generate.py"), "--out", str(out)],
        check=True,
        capture_output=True,
        cwd=str(out),
    )
    return out


def test_generated_files_are_up_to_date(regenerated):
    made = sorted(p.relative_to(regenerated) for p in regenerated.rglob("*") if p.is_file())
    assert made, "generate.py wrote nothing"
    for rel in made:
        on_disk = MESHES / rel
        assert on_disk.is_file(), f"meshes/{rel} is missing: run python meshes/generate.py"
        assert on_disk.read_bytes() == (regenerated / rel).read_bytes(), (
            f"meshes/{rel} is stale: run python meshes/generate.py"
        )
    stl_on_disk = {p.relative_to(MESHES) for p in (MESHES / "scenery").glob("*.stl")}
    assert stl_on_disk == {r for r in made if r.suffix == ".stl"}


def test_generated_stl_files_are_small_and_match_the_pieces():
    pieces = terrain.stl_pieces()
    assert set(pieces) >= {"building", "container", "wall_windows", "walkway"}
    for name, mesh in pieces.items():
        path = MESHES / "scenery" / f"{name}.stl"
        assert path.stat().st_size < 200_000
        loaded = trimesh.load(path, file_type="stl", process=False)
        assert len(loaded.faces) == len(mesh.faces)
        np.testing.assert_allclose(loaded.bounds, mesh.bounds, atol=1e-4)
        np.testing.assert_allclose(loaded.face_normals, mesh.face_normals, atol=1e-5)


def _scenario_files():
    return [*sorted((MESHES / "scenarios").glob("*.yaml")), MESHES / "demo" / "table.yaml"]


@pytest.mark.parametrize("path", _scenario_files(), ids=lambda p: p.name)
def test_scenario_files_are_consistent(path):
    doc = yaml.safe_load(path.read_text())
    assert doc["format"] == "geom3d/1"
    assert doc["units"] == "mm"
    assert doc["ruleset"] == "infinity"
    ids = [t["id"] for t in doc["troopers"]]
    assert len(set(ids)) == len(ids)
    for item in doc.get("scenery", []):
        assert ("box" in item) != ("mesh" in item)
        if "mesh" in item:
            assert (path.parent / item["mesh"]).is_file()
    for a in doc.get("attacks", []):
        assert a["attacker"] in ids and a["main_target"] in ids
        assert a["template"] in {"circular", "small_teardrop", "large_teardrop"}
    for e in (doc.get("expect") or {}).get("lof", []):
        assert e["from"] in ids and e["to"] in ids
    for aid, e in (doc.get("expect") or {}).get("attacks", {}).items():
        assert aid in {a["id"] for a in doc["attacks"]}
        assert set(e["affected"]) <= set(ids)


def test_demo_table_has_what_the_demo_needs():
    doc = yaml.safe_load((MESHES / "demo" / "table.yaml").read_text())
    assert doc["table"] == {"size": [1200, 1200]}
    assert len(doc["scenery"]) >= 12
    assert {"box", "mesh"} <= {k for s in doc["scenery"] for k in s}
    sides = [t["side"] for t in doc["troopers"]]
    assert 5 <= sides.count("blue") <= 6 and 5 <= sides.count("red") <= 6
    assert {t["silhouette"] for t in doc["troopers"]} >= {1, 2, 3, 4, 5}
    states = [s for t in doc["troopers"] for s in t.get("state", [])]
    assert "prone" in states and "marker" in states
    assert 3 <= len(doc["attacks"]) <= 4
    # The trooper on the walkway is given as [x, y] inside the walkway's deck.
    # Deck 240 x 50 mm, not rotated: a 25 mm base is on it when |dx| <= 107.5, |dy| <= 12.5.
    walkway = next(s for s in doc["scenery"] if s.get("mesh") == "../scenery/walkway.stl")
    assert walkway["rotation_deg"] == 0
    wx, wy = walkway["position"][:2]
    on_deck = [
        t["id"]
        for t in doc["troopers"]
        if len(t["position"]) == 2
        and abs(t["position"][0] - wx) <= 107.5
        and abs(t["position"][1] - wy) <= 12.5
    ]
    assert on_deck
