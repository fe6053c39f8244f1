"""Line of Fire: hand-computed cases (issue: LoF engine) and invariants.

Unless said otherwise: two silhouette-2 troopers (base 25 mm, height 40 mm) stand on the
table top, A at x = 0 facing +x and T at x = 300 facing -x.
"""

from __future__ import annotations

import math
import sys

import pytest
from support import box, make_scene, real_meshes_dir, trooper

from geom3d.adjudication.lof import in_front_arc, pair_visibility
from geom3d.core.tolerances import STAND_INSET_MM, SURFACE_INSET_MM
from geom3d.execution import shared
from geom3d.visibility import find_patch

A = trooper("a", [0, 0], facing_deg=0)
T = trooper("t", [300, 0], side="red", facing_deg=180)


def lof(scene, a, b):
    return scene.line_of_fire(a, b)


def test_open_table_both_ways_with_witness():
    scene = make_scene([A, T])
    r = lof(scene, "a", "t")
    assert (r.lof, r.in_arc, r.visible, r.reason) == (True, True, True, None)
    eye, patch = r.witness.eye, r.witness.patch_center
    # the eye lies on A's surface, the patch centre on T's
    assert math.hypot(eye[0], eye[1]) == pytest.approx(12.5 - SURFACE_INSET_MM, abs=1e-6)
    assert math.hypot(patch[0] - 300, patch[1]) <= 12.5 + 1e-6
    # T seen whole: apparent area close to its 25 x 40 mm outline
    assert 900 <= r.witness.visible_area_mm2 <= 1100
    assert lof(scene, "t", "a").lof


def test_full_wall_blocks_both_ways():
    scene = make_scene([A, T], [box("wall", [10, 400, 100], [150, 0])])
    for a, b in (("a", "t"), ("t", "a")):
        r = lof(scene, a, b)
        assert (r.lof, r.visible, r.reason, r.witness) == (False, False, "blocked", None)


def _low_wall_height(band_mm: float) -> float:
    """Wall height (2 mm thick, far face at x = 151) leaving ``band_mm`` of T's front visible.

    The best eye point is A's front top edge, (12.5 - inset, 0, 40 - inset). The ray over
    the wall's far top edge drops by (ez - hw) * d2 / d1 by T's front face (x = 287.5).
    """
    ex = 12.5 - SURFACE_INSET_MM
    ez = 40 - SURFACE_INSET_MM
    ratio = (287.5 - ex) / (151 - ex)
    return ez - (band_mm - (40 - ez)) / ratio


@pytest.mark.parametrize(("band", "expected"), [(2.0, False), (5.0, True)])
def test_low_wall_band_threshold(band, expected):
    hw = _low_wall_height(band)
    scene = make_scene([A, T], [box("wall", [2, 800, hw], [150, 0])])
    # apparent size ~ band * 300/287.5: 2.09 mm (< 3, never) and 5.2 mm (>= 4, always)
    assert lof(scene, "a", "t").lof is expected
    assert lof(scene, "t", "a").lof is expected


def _slit(width, x, thickness=1.0):
    half = 200.0
    return [
        box("left", [thickness, half, 100], [x, width / 2 + half / 2]),
        box("right", [thickness, half, 100], [x, -width / 2 - half / 2]),
    ]


@pytest.mark.parametrize(("width", "expected"), [(1.0, False), (2.6, True)])
def test_vertical_slit_halfway(width, expected):
    # a slit of width w halfway appears about 2 w wide at the target (about 2.1 w from
    # the nearest eye points): 2.1 mm (no patch) and 5.2 mm (always found)
    scene = make_scene([A, T], _slit(width, 150))
    assert lof(scene, "a", "t").lof is expected
    assert lof(scene, "t", "a").lof is expected


def test_slit_just_in_front_of_one_trooper_gives_lof_both_ways():
    # 2 mm slit in a wall 1.5 mm in front of A: A sees T whole through it, T sees only a
    # ~2 mm sliver of A, and reciprocity gives T LoF back
    scene = make_scene([A, T], _slit(2.0, 14.5))
    a, t = scene.trooper("a"), scene.trooper("t")
    assert find_patch(a.cylinder, t.cylinder, scene.engine, []) is not None
    assert find_patch(t.cylinder, a.cylinder, scene.engine, []) is None
    ra, rt = lof(scene, "a", "t"), lof(scene, "t", "a")
    assert ra.lof and rt.lof
    assert rt.witness_viewer == "a"


@pytest.mark.parametrize(
    ("target_xy", "expected"),
    [
        ((0, 100), True),  # centre on the arc line: half the base is in front
        ((-12.4, 100), True),  # 0.1 mm of the base in front
        ((-12.5, 100), False),  # base only touches the plane
        ((-12.51, 100), False),  # base just behind
        ((-100, 0), False),
    ],
)
def test_arc_edge_cases(target_xy, expected):
    scene = make_scene([A, trooper("t", target_xy, side="red", facing_deg=0)])
    assert in_front_arc(scene.trooper("a"), scene.trooper("t")) is expected
    r = lof(scene, "a", "t")
    assert r.in_arc is expected
    assert r.visible  # open table: visibility does not depend on the arc
    assert r.lof is expected
    assert r.reason == (None if expected else "out_of_arc")


def test_arc360_and_marker_see_behind():
    behind = trooper("t", [-100, 0], side="red")
    for state in ("arc360", "marker"):
        scene = make_scene([trooper("a", [0, 0], state=[state]), behind])
        assert lof(scene, "a", "t").lof


def test_tall_trooper_between_blocks_marker_and_mover_do_not():
    mid = trooper("m", [150, 0], side="red", silhouette=7)  # 55 mm base, 67 mm tall
    r = lof(make_scene([A, T, mid]), "a", "t")
    assert (r.lof, r.reason) == (False, "blocked")
    marker = dict(mid, state=["marker"])
    assert lof(make_scene([A, T, marker]), "a", "t").lof
    mover = dict(mid, route=[[150, 0], [150, 200]])
    assert lof(make_scene([A, T, mover]), "a", "t").lof


def test_engaged_troopers_see_only_what_they_touch():
    scene = make_scene(
        [
            trooper("a", [0, 0], facing_deg=180, engaged_with=["b"]),
            trooper("b", [25, 0], side="red"),  # base contact, behind a's facing
            trooper("c", [0, 200], side="red", facing_deg=270),
        ]
    )
    ab = lof(scene, "a", "b")
    assert (ab.lof, ab.in_arc) == (True, True)  # 360 degrees to what it touches
    assert not in_front_arc(scene.trooper("a"), scene.trooper("b"))
    ac = lof(scene, "a", "c")
    assert (ac.lof, ac.reason, ac.visible) == (False, "engaged", True)
    assert lof(scene, "c", "a").lof  # others still see an engaged trooper
    assert lof(scene, "b", "a").lof  # engagement is symmetric


def test_prone_target_behind_low_wall():
    wall = box("wall", [4, 200, 10], [280, 0])  # 10 mm wall 6 mm in front of T's base
    standing = make_scene([A, T, *()], [wall])
    assert lof(standing, "a", "t").lof
    prone = make_scene([A, dict(T, state=["prone"])], [wall])
    assert prone.trooper("t").height == 3
    r = lof(prone, "a", "t")
    assert (r.lof, r.reason) == (False, "blocked")


def _walkway():
    return [box("deck", [100, 60, 4], [150, 0, 50])]


def test_trooper_on_walkway_looks_over_the_edge_but_not_through_the_deck():
    scene = make_scene(
        [
            trooper("w", [150, 0]),  # drops onto the deck
            trooper("far", [400, 0], side="red", facing_deg=180),
            trooper("under", [150, 0, 0], side="red"),
        ],
        _walkway(),
    )
    assert scene.trooper("w").position[2] == pytest.approx(54.0)
    assert lof(scene, "w", "far").lof
    r = lof(scene, "w", "under")
    assert (r.lof, r.reason) == (False, "blocked")


def test_ground_troopers_see_each_other_under_the_walkway():
    scene = make_scene([A, T], _walkway())
    r = lof(scene, "a", "t")
    assert r.lof
    assert r.witness.patch_center[2] < 50  # seen under the deck


def test_route_lof_appears_only_after_the_corner():
    wall = box("wall", [20, 300, 100], [100, 150])  # x 90..110, y 0..300
    scene = make_scene(
        [
            trooper("a", [0, 150], facing_deg=0),
            trooper("m", [200, 150], side="red", route=[[200, 150], [200, 280], [150, 400]]),
        ],
        [wall],
    )
    r = lof(scene, "a", "m")
    assert r.route is not None and r.route.any
    assert r.route.first_index == 1
    x, y, _ = r.route.first_position
    assert 280 < y < 400 and 150 <= x <= 200
    # symmetric: the mover sees a from the same point
    back = lof(scene, "m", "a")
    assert back.route.first_index == 1
    assert back.route.first_position == pytest.approx(r.route.first_position, abs=1.0)


def test_route_never_visible():
    wall = box("wall", [20, 600, 100], [100, 150])
    scene = make_scene(
        [
            trooper("a", [0, 150]),
            trooper("m", [200, 150], side="red", route=[[200, 150], [200, 250]]),
        ],
        [wall],
    )
    r = lof(scene, "a", "m")
    assert (r.lof, r.route.any, r.route.first_index, r.route.first_position) == (
        False,
        False,
        None,
        None,
    )


def test_pair_visibility_is_computed_once_per_unordered_pair():
    scene = make_scene([A, T], [box("wall", [10, 400, 100], [150, 0])])
    scene.lof_matrix()
    assert set(scene.visibility_cache) == {("a", "t")}


def test_lof_json_is_deterministic():
    import json

    def doc():
        s = make_scene(
            [A, T, trooper("c", [150, 100], side="red")], [box("w", [10, 50, 60], [150, 30])]
        )
        return json.dumps([r.to_dict() for r in s.lof_matrix()])

    assert doc() == doc()


def test_stand_inset_keeps_the_floor_from_blocking():
    # A and T standing on a thin slab: rays near the base start 0.5 mm above it
    slab = box("slab", [600, 100, 2], [150, 0])
    scene = make_scene([trooper("a", [0, 0]), trooper("t", [300, 0], side="red")], [slab])
    assert scene.trooper("a").position[2] == pytest.approx(2.0)
    r = lof(scene, "a", "t")
    assert r.lof
    assert r.witness.eye[2] >= 2.0 + STAND_INSET_MM - 1e-9


@pytest.mark.realmesh
def test_real_container_blocks_and_clears():
    root = real_meshes_dir()
    if root is None:
        pytest.skip("../shared/real-meshes is absent")
    from geom3d.mesh import load_mesh

    lm = load_mesh(root / "container.stl")
    lo, hi = lm.vertices.min(axis=0), lm.vertices.max(axis=0)
    # place the container so its footprint is centred on (300, 0) and it sits on z = 0
    cx, cy = 0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1])
    piece = {
        "id": "container",
        "mesh": str(root / "container.stl"),
        "position": [300 - cx, -cy, -lo[2]],
    }
    ext = hi - lo  # 75 x 148.6 x 75 mm: taller and wider than an S2 trooper
    scene = make_scene(
        [
            trooper("a", [300 - ext[0] / 2 - 40, 0]),
            trooper("t", [300 + ext[0] / 2 + 40, 0], side="red", facing_deg=180),
            trooper("s", [300 - ext[0] / 2 - 40, 200], side="red", facing_deg=270),
        ],
        [piece],
    )
    assert lof(scene, "a", "t").reason == "blocked"
    assert lof(scene, "a", "s").lof  # same side of the container: open view
    w, _ = pair_visibility(scene, scene.trooper("t"), scene.trooper("s"))
    assert w is not None  # past the container's end


def _wall_with_hole(x, size, center_z, thickness=0.5, extent=200.0):
    """A wall at ``x`` with a ``size = (w, h)`` hole centred at (y = 0, z = center_z)."""
    w, h = size
    side = (extent - w) / 2
    return [
        box("left", [thickness, side, 100], [x, w / 2 + side / 2]),
        box("right", [thickness, side, 100], [x, -w / 2 - side / 2]),
        box("below", [thickness, w, center_z - h / 2], [x, 0]),
        box("above", [thickness, w, 100 - center_z - h / 2], [x, 0, center_z + h / 2]),
    ]


@pytest.mark.parametrize(
    ("size", "expected"),
    [
        # the hole is 1 mm in front of T's front face (x = 287.5): seen from A its apparent
        # size is the physical size times (300 - ex) / (286.75 - ex), 1.046 to 1.049
        ((2.75, 2.75), False),  # apparent <= 2.89 mm: below the 3 x 3 mm threshold
        ((2.75, 30.0), False),  # tall but too narrow
        ((30.0, 2.75), False),  # wide but too low
        ((4.0, 4.0), True),  # apparent >= 4.18 mm: must always be found
        ((4.0, 30.0), True),
    ],
)
def test_hole_at_the_threshold(size, expected):
    scene = make_scene([A, T], _wall_with_hole(287.0 - 0.25, size, 20.0))
    a, t = scene.trooper("a"), scene.trooper("t")
    w = find_patch(a.cylinder, t.cylinder, scene.engine, [])
    assert (w is not None) is expected
    if expected:
        # the patch is seen through the hole
        assert abs(w.patch_center[1]) < size[0] / 2 + 0.5
        assert abs(w.patch_center[2] - 20.0) < size[1] / 2 + 0.5
        assert w.visible_area_mm2 <= (size[0] * 1.05 + 2) * (size[1] * 1.05 + 2)
    # T, right behind the hole, sees A through it whatever its size: LoF both ways
    assert lof(scene, "a", "t").lof and lof(scene, "t", "a").lof


def test_matrix_is_the_same_on_one_thread_and_several():
    troopers = [
        trooper(
            f"t{i}",
            [60 * (i % 4), 90 * (i // 4)],
            side="blue" if i % 2 else "red",
            facing_deg=37 * i,
        )
        for i in range(8)
    ]
    scenery = [box("w1", [10, 120, 50], [90, 60], 20), box("w2", [80, 10, 30], [120, 150])]
    seen = []
    for threads in (1, 2, 3):
        calls = []
        scene = make_scene(troopers, scenery)
        res = scene.lof_matrix(threads=threads, progress=lambda d, t, c=calls: c.append((d, t)))
        seen.append([r.to_dict() for r in res])
        assert calls[-1] == (56, 56)  # progress ends at the total
        assert [d for d, _ in calls] == sorted(d for d, _ in calls)
    assert seen[0] == seen[1] == seen[2]
    assert any(p["lof"] for p in seen[0]) and not all(p["lof"] for p in seen[0])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forks on Linux")
@pytest.mark.parametrize("areas", [False, True])
def test_matrix_shared_with_forked_workers_is_the_same(monkeypatch, areas):
    """``processes=True`` (geom3d lof's way): the same results as one thread, the
    witnesses' areas included (measured in the workers, or on first read by the same
    search again), with forked workers really at work."""
    troopers = [
        trooper(f"t{i}", [70 * (i % 4), 80 * (i // 4)], side="blue" if i % 2 else "red")
        for i in range(9)
    ]
    scenery = [box("w1", [10, 120, 50], [100, 60], 20), box("w2", [80, 10, 30], [120, 150])]
    one = make_scene(troopers, scenery).lof_matrix(threads=1, areas=areas)
    forks = []
    start = shared._fork_child
    monkeypatch.setattr(shared, "_fork_child", lambda *a: forks.append(1) or start(*a))
    calls = []
    scene = make_scene(troopers, scenery)
    res = scene.lof_matrix(
        threads=2, areas=areas, processes=True, progress=lambda d, t: calls.append((d, t))
    )
    assert forks  # a worker was forked
    assert [r.to_dict(area=areas) for r in res] == [r.to_dict(area=areas) for r in one]
    assert [r.to_dict() for r in res] == [r.to_dict() for r in one]  # areas read now
    assert calls[-1] == (72, 72) and [d for d, _ in calls] == sorted(d for d, _ in calls)
    assert any(r.lof for r in res) and not all(r.visible for r in res)
    # the cache holds the same witnesses: the single-pair answer agrees
    assert scene.line_of_fire("t0", "t5").to_dict() == one[5 - 1].to_dict()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forks on Linux")
def test_route_pairs_in_forked_workers_are_the_same(monkeypatch):
    """Pairs with a route (a Line of Fire per mm of travel) go to forked workers too:
    the same windows, witnesses and areas as one thread."""
    troopers = [
        trooper("m", [0, -60], route=[[0, -60], [0, 160]]),
        *(trooper(f"t{i}", [150 + 40 * (i % 2), 40 * i - 60], side="red") for i in range(6)),
    ]
    scenery = [box("w", [10, 60, 60], [70, 40])]
    one = make_scene(troopers, scenery).lof_matrix(threads=1)
    forks = []
    start = shared._fork_child
    monkeypatch.setattr(shared, "_fork_child", lambda *a: forks.append(1) or start(*a))
    res = make_scene(troopers, scenery).lof_matrix(threads=2, processes=True)
    assert len(forks) == 2  # the static pairs, then the route pairs
    assert [r.to_dict() for r in res] == [r.to_dict() for r in one]
    routes = [r.route for r in res if r.route is not None]
    assert len(routes) == 12 and any(len(r.windows) > 1 for r in routes)
