"""Blocking proofs at the 3 x 3 mm threshold (a wall, a slit, a wall's top, a scan's rim),
their counters, and the lazily measured witness area."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
from proof_support import (
    brute_force,
    check_against_brute_force,
    largest_window,
    same_answer,
)
from support import box, make_scene, real_meshes_dir, trooper

from geom3d.adjudication import lof
from geom3d.core.tolerances import PATCH_MM
from geom3d.scene.scene import Scene
from geom3d.visibility import (
    VisibilityStats,
    eye_points,
)
from geom3d.visibility.apparent import PatchLattice
from geom3d.visibility.convex import NO_SOLIDS
from geom3d.visibility.pair import search_eyes
from geom3d.visibility.proof_trees import PairProof
from geom3d.visibility.tolerances import PROOF_WALL_BUNDLES, PROOF_WEAK_SHARE

# --------------------------------------------------------------------------------------
# the threshold: a wall, a slit, a wall's top, a scan's rim
# --------------------------------------------------------------------------------------


def two_troopers(scenery, **kw):
    """Troopers a at (0, 0) and b at (120, 0), silhouette 2 (radius 12.5, 40 tall)."""
    return make_scene([trooper("a", [0, 0]), trooper("b", [120, 0], side="red")], scenery, **kw)


def test_solid_wall_is_proved_blocked_whole():
    # the troopers stand on 10 mm platforms, so every segment between them (even at
    # their base) passes through the inside of the 80 mm wall
    scene = two_troopers(
        [
            box("w", [20, 200, 80], [60, 0]),
            box("pa", [40, 40, 10], [0, 0]),
            box("pb", [40, 40, 10], [120, 0]),
        ]
    )
    a, b = scene.trooper("a"), scene.trooper("b")
    assert a.position[2] == b.position[2] == 10.0
    proof = scene.prover.pair(a.cylinder, b.cylinder)
    assert proof is not None and proof.complete
    assert not same_answer(scene, a, b)
    eyes = eye_points(a.cylinder, b.cylinder)
    assert proof.settled_eyes(eyes, False).all()
    assert proof.settled_eyes(eye_points(b.cylinder, a.cylinder), True).all()
    # without the platforms the segments along the floor pass under the wall's inside:
    # proved in part only, and still blocked
    low = two_troopers([box("w", [20, 200, 80], [60, 0])])
    a, b = low.trooper("a"), low.trooper("b")
    proof = low.prover.pair(a.cylinder, b.cylinder)
    assert proof is not None and proof.proven.any() and not proof.complete
    assert not same_answer(low, a, b)
    _, _, _, _, clear = brute_force(low, a.cylinder, b.cylinder, [])
    assert not clear.any()


def test_thin_wall_at_an_angle_is_proved_in_its_own_frame(monkeypatch):
    # a 4 mm wall turned 35 degrees across the line between the troopers (on 10 mm
    # platforms): planes square to that line cut it in thin slanted strips, so the pair's
    # own frame proves little; the plane through the wall's middle proves it whole
    walls = [
        box("w", [4, 200, 80], [60, 0], rotation_deg=35.0),
        box("pa", [40, 40, 10], [0, 0]),
        box("pb", [40, 40, 10], [120, 0]),
    ]
    scene = two_troopers(walls)
    a, b = scene.trooper("a"), scene.trooper("b")
    prover = scene.prover
    angles = prover.wall_angles(a.cylinder, b.cylinder, 0.0)
    assert len(angles) == 1 and angles[0] == pytest.approx(35.0, abs=0.01)
    proof = prover.pair(a.cylinder, b.cylinder)
    assert proof is not None and proof.complete
    wall = proof.trees[-1]  # the wall's frame, proved whole in one bundle
    assert wall.complete and len(wall.proven) == 1
    assert wall.frame[2:] == pytest.approx([math.cos(math.radians(35)), math.sin(math.radians(35))])
    assert all(not t.complete for t in proof.trees[:-1])  # its own frame: not whole
    assert proof.settled_eyes(eye_points(a.cylinder, b.cylinder), False).all()
    assert proof.settled_eyes(eye_points(b.cylinder, a.cylinder), True).all()
    assert not same_answer(scene, a, b)
    with monkeypatch.context() as m:  # without wall frames the pair is not proved whole
        m.setattr(type(prover), "wall_angles", lambda self, a, b, own: [])
        alone = prover.pair(a.cylinder, b.cylinder)
        assert alone is None or not alone.complete


def test_a_wall_frame_that_proves_only_part_is_dropped(monkeypatch):
    # the 35-degree wall of the test above with a 4 mm slit 20 mm along it from the
    # middle: the pair's own frame proves none of its bundles; the wall's frame is given
    # PROOF_WALL_BUNDLES bundles and proves some, not all (the slit), so it is dropped
    # and the pair has no proof; the answer is the search's without proofs
    u = (-math.sin(math.radians(35.0)), math.cos(math.radians(35.0)))
    below, above = 20.0 - 2.0 + 100.0, 100.0 - (20.0 + 2.0)  # the wall's two lengths
    c1, c2 = -100.0 + below / 2, 100.0 - above / 2  # their middles along the wall
    walls = [
        box("w1", [4, below, 80], [60 + u[0] * c1, u[1] * c1], rotation_deg=35.0),
        box("w2", [4, above, 80], [60 + u[0] * c2, u[1] * c2], rotation_deg=35.0),
        box("pa", [40, 40, 10], [0, 0]),
        box("pb", [40, 40, 10], [120, 0]),
    ]
    scene = two_troopers(walls)
    a, b = scene.trooper("a"), scene.trooper("b")
    prover = scene.prover
    trees = []
    real = type(prover)._tree

    def seen(self, a, b, occ, runs, angle_deg, nodes, depth, exact):
        got = real(self, a, b, occ, runs, angle_deg, nodes, depth, exact)
        trees.append((angle_deg, nodes, got[0]))
        return got

    monkeypatch.setattr(type(prover), "_tree", seen)
    assert prover.pair(a.cylinder, b.cylinder) is None
    (own_deg, _, own), (wall_deg, wall_nodes, wall) = trees
    assert own_deg == 0.0 and not own.proven.any()
    assert wall_deg == pytest.approx(35.0, abs=0.01) and wall_nodes == PROOF_WALL_BUNDLES
    assert 0 < np.count_nonzero(wall.proven) < len(wall.proven)
    monkeypatch.undo()
    same_answer(scene, a, b)


def test_a_weak_proof_skips_eyes_but_settles_no_single_segment(monkeypatch):
    # a 20 mm wall with a 3 mm slot from 35 to 38 mm: the pair's proof settles 14 % of
    # its bundles (weak, under PROOF_WEAK_SHARE); the search skips the eyes it settles
    # whole and looks up no single segment in it (each lookup cost more than the rays it
    # saved). Read as strong, the same search settles segments by it: the witness is the
    # same either way, and the pair's answer is the search's without proofs
    scene = two_troopers(
        [box("low", [20, 200, 35], [60, 0]), box("high", [20, 200, 42], [60, 0, 38])]
    )
    a, b = scene.trooper("a"), scene.trooper("b")
    proof = scene.prover.pair(a.cylinder, b.cylinder)
    assert proof is not None and proof.weak
    assert 0 < np.count_nonzero(proof.proven) < PROOF_WEAK_SHARE * len(proof.proven)
    eyes = eye_points(a.cylinder, b.cylinder)
    found = []
    for strong in (False, True):
        if strong:
            monkeypatch.setattr(PairProof, "weak", property(lambda self: False))
        stats = VisibilityStats()
        w = search_eyes(
            b.cylinder, eyes, scene.engine, np.zeros((0, 5)), PatchLattice(PATCH_MM), stats, proof
        )
        found.append((w, stats))
    (weak_w, weak), (strong_w, strong) = found
    assert weak.proved == 0 and weak.eyes_proved == strong.eyes_proved > 0
    assert strong.proved > 0 and weak.cast == strong.cast + strong.proved
    assert weak_w is not None and strong_w is not None
    assert np.array_equal(weak_w.eye, strong_w.eye)
    monkeypatch.undo()
    assert same_answer(scene, a, b)


@pytest.mark.parametrize(("turn", "framed"), [(55.0, True), (65.0, False)])
def test_a_wall_the_segments_graze_gets_no_frame(turn, framed):
    # a 4 mm wall, 100 mm long, its normal turned `turn` degrees from the line between
    # the troopers: within PROOF_WALL_MAX_TURN_DEG (60) it gets a frame square to it; past
    # it the segments graze it and it gets none. Either way the answer is the search's.
    walls = [
        box("w", [4, 100, 80], [60, 0], rotation_deg=turn),
        box("pa", [40, 40, 10], [0, 0]),
        box("pb", [40, 40, 10], [120, 0]),
    ]
    scene = two_troopers(walls)
    a, b = scene.trooper("a"), scene.trooper("b")
    angles = scene.prover.wall_angles(a.cylinder, b.cylinder, 0.0)
    if framed:
        assert angles == [pytest.approx(turn, abs=0.01)]
    else:
        assert angles == []
    assert not same_answer(scene, a, b)


def slit_wall(width, offset=0.3):
    """A 64 mm thick, 80 mm tall wall between a and b (x 28 .. 92), with a vertical slit
    ``width`` wide centred ``offset`` off the line between them.

    The slit's far face is about 1.35 times nearer than the other trooper's centre (either
    way), so the slit shows at most ~1.35 ``width`` of apparent width: 2 mm shows < 3 mm
    (blocked) and 5 mm > 6 mm (visible)."""
    h = 100.0 - width / 2
    return [
        box("l", [64, h, 80], [60, offset + width / 2 + h / 2]),
        box("r", [64, h, 80], [60, offset - width / 2 - h / 2]),
    ]


@pytest.mark.parametrize(("width", "expect"), [(2.0, False), (3.0, None), (5.0, True)])
def test_slit_at_the_threshold(width, expect):
    scene = two_troopers(slit_wall(width))
    a, b = scene.trooper("a"), scene.trooper("b")
    visible = same_answer(scene, a, b)
    agrees, clears = check_against_brute_force(scene, a, b, full=True)
    assert agrees == visible
    if expect is not None:
        assert visible == expect
    # the slit's apparent width (samples) from either side, by brute force
    widest = max(largest_window(c) for c in clears.values())
    assert widest <= math.floor(1.4 * width) + 1
    if expect is False:
        assert widest <= 3
    if expect is True:
        assert widest >= 5


@pytest.mark.parametrize(("top", "expect"), [(38.4, False), (37.6, None), (36.3, True)])
def test_band_over_a_wall_at_the_threshold(top, expect):
    # a 40 mm thick wall (x 40 .. 80) whose top is below the troopers' tops (40 mm): from
    # a's top eyes, rays over its far edge reach b at most ~1.4 (40 - top) below b's top
    scene = two_troopers([box("w", [40, 200, top], [60, 0])])
    a, b = scene.trooper("a"), scene.trooper("b")
    visible = same_answer(scene, a, b)
    assert check_against_brute_force(scene, a, b)[0] == visible
    proof = scene.prover.pair(a.cylinder, b.cylinder)
    assert proof is not None and proof.proven.any()  # the wall's body is proved
    if expect is not None:
        assert visible == expect


def need(name):
    root = real_meshes_dir()
    if root is None or not (root / name).is_file():
        pytest.skip("../shared/real-meshes is absent")
    return str(root / name)


@pytest.mark.realmesh
@pytest.mark.parametrize(
    ("name", "scale", "silhouette", "ys"),
    [
        ("birdBath_decimated.off", 0.4, 2, np.linspace(6.0, 18.0, 13)),
        ("Angel_decimated.ply", 0.3, 1, [*np.linspace(2, 8, 7), *np.linspace(32, 38, 7)]),
    ],
    ids=["bird-bath", "angel"],
)
def test_trooper_behind_a_scan_rim(name, scale, silhouette, ys):
    """A scan used as the table (closed as a solid, so it certifies interior runs); b walks
    past its edge as seen from a, from hidden to visible: every position answers alike
    with and without proofs."""
    path = need(name)
    seen = set()
    provers = {}
    for y in ys:
        scene = make_scene(
            [
                trooper("a", [-110, 0], silhouette=silhouette),
                trooper("b", [110, float(y)], side="red", silhouette=silhouette),
            ],
            table={"mesh": path, "scale": scale},
        )
        provers[id(scene.prover)] = scene.prover
        assert scene.prover.interior.n_runs > 0
        seen.add(same_answer(scene, scene.trooper("a"), scene.trooper("b")))
    assert seen == {True, False}
    assert sum(p.stats.bundles_proved for p in provers.values()) > 0


@pytest.mark.realmesh
def test_troopers_on_a_terrain_ridge():
    """St Helens as the table: b walks over a ridge seen from a (hidden, then visible)."""
    path = need("SainteHelens_dem_crop.ply")
    table = {"mesh": path, "mesh_units": "m", "scale": 1 / 6000, "position": [0, 0, -160.0]}
    rng = np.random.default_rng(7)
    xy = rng.uniform([100, 100], [1095, 1395], size=(6, 2))
    # d0 sees d2 and not d1 (computed with and without proofs below): walk from d2 to d1
    a = [float(v) for v in xy[0]]
    seen = set()
    provers = {}
    for f in np.linspace(0.0, 1.0, 8):
        p = (1 - f) * xy[2] + f * xy[1]
        scene = make_scene(
            [trooper("a", a), trooper("b", [float(p[0]), float(p[1])], side="red")], table=table
        )
        provers[id(scene.prover)] = scene.prover
        seen.add(same_answer(scene, scene.trooper("a"), scene.trooper("b")))
    assert seen == {True, False}
    assert sum(p.stats.pairs_settled for p in provers.values()) > 0


# --------------------------------------------------------------------------------------
# counters and pickling
# --------------------------------------------------------------------------------------


def test_matrix_counts_proved_segments_and_settled_pairs(monkeypatch):
    # the walls are boxes, which would settle these pairs as convex pieces (and as the
    # interior map's boxes): without them
    monkeypatch.setattr(Scene, "convex_solids", property(lambda self: NO_SOLIDS))
    scene = make_scene(
        [
            trooper("a", [0, 0]),
            trooper("b", [120, 0], side="red"),
            trooper("c", [0, -110]),
            trooper("d", [120, -110], side="red"),
        ],
        [
            box("w", [20, 300, 80], [60, 0]),
            box("pa", [40, 40, 10], [0, 0]),
            box("pb", [40, 40, 10], [120, 0]),
        ],
    )
    # 6 pairs are fewer than PROOF_MIN_PAIRS: the matrix does not build the map itself...
    lof.lof_matrix(scene)
    assert scene.prover_if_built is None
    scene.visibility_cache.clear()
    scene.prover.boxes = NO_SOLIDS  # ...so build it here (and nor as interior boxes)
    st_ = VisibilityStats()
    out = lof.lof_matrix(scene, stats=st_)
    vis = {(r.from_id, r.to_id): r.visible for r in out}
    assert not vis[("a", "b")] and not vis[("c", "d")] and not vis[("a", "d")]
    assert vis[("a", "c")] and vis[("b", "d")]
    ps = scene.prover.stats
    assert ps.pairs_settled >= 1  # a-b, on their platforms
    assert st_.proved > 0 or st_.eyes_proved > 0  # c-d, on the floor: proved in part
    assert ps.pairs >= 2 and ps.bundles_proved >= ps.pairs_settled
    assert st_.rays >= st_.cast + st_.proved  # every proved or cast segment reached b


def test_witness_pickles_with_its_area_measured():
    scene = two_troopers([box("w", [20, 60, 25], [60, 0])])  # b shows over the wall
    res = scene.line_of_fire("a", "b")
    w = res.witness
    assert res.visible and w is not None
    assert "unmeasured" in repr(w)  # nothing has read the area yet
    back = pickle.loads(pickle.dumps(res))
    assert "unmeasured" not in repr(w)  # pickling measured it
    assert back.witness.visible_area_mm2 == w.visible_area_mm2 > 9.0
    assert back == res and back.witness == w
    assert back.to_dict() == res.to_dict()
    # a fresh, never-measured witness measures the same area on first access
    scene2 = two_troopers([box("w", [20, 60, 25], [60, 0])])
    w2 = scene2.line_of_fire("a", "b").witness
    assert w2.visible_area_mm2 == w.visible_area_mm2
    assert w2.eye == w.eye


def test_a_big_matrix_builds_the_proof_map_and_a_single_pair_does_not():
    ids = [f"t{k}" for k in range(10)]  # 45 pairs >= PROOF_MIN_PAIRS
    scene = make_scene(
        [trooper(t, [40 * k, 60 * (k % 2)]) for k, t in enumerate(ids)],
        [box("w", [300, 10, 80], [150, 30])],
    )
    lof.line_of_fire(scene, "t0", "t1")
    assert scene.prover_if_built is None
    lof.lof_matrix(scene)
    assert scene.prover_if_built is not None


def test_a_matrix_measures_areas_only_when_asked_and_in_its_threads():
    walls = [box("w", [20, 60, 25], [60, 0])]
    ids = [f"t{k}" for k in range(4)]
    place = [[0, 0], [120, 0], [0, 90], [120, 90]]

    def matrix(**kw):
        scene = make_scene([trooper(t, p) for t, p in zip(ids, place, strict=True)], walls)
        return lof.lof_matrix(scene, threads=2, **kw)

    lazy, eager = matrix(), matrix(areas=True)
    assert any(r.visible for r in lazy)
    seen = [(r, e) for r, e in zip(lazy, eager, strict=True) if r.visible]
    for r, e in seen:  # (a pair's two directions share one witness)
        assert "unmeasured" in repr(r.witness) and "unmeasured" not in repr(e.witness)
    for r, e in seen:
        assert e.witness.visible_area_mm2 == r.witness.visible_area_mm2 > 9.0
    assert [r.to_dict() for r in lazy] == [e.to_dict() for e in eager]


def test_witness_centre_is_found_on_first_read_and_equals_the_ray_point():
    scene = two_troopers([box("w", [20, 60, 25], [60, 0])])  # b shows over the wall
    w = scene.line_of_fire("a", "b").witness
    assert w._center is None  # nothing has read it: a survey never pays for it
    c = w.patch_center
    assert w._center == c and w._locate is None
    bx, by, bz = scene.trooper("b").cylinder.base
    # a point of b's surface (its mantle or its top) facing a
    on_mantle = abs(math.hypot(c[0] - bx, c[1] - by) - 12.5) < 1e-6
    on_top = abs(c[2] - (bz + 40.0)) < 1e-6
    assert (on_mantle or on_top) and c[0] < bx
