"""Interior boxes (geom3d.visibility.interior_boxes): large boxes inside the closed solids
that settle whole pairs and whole eyes. Every box lies inside the solid (the generalized
winding number over the blocking mesh) and no blocking triangle meets it (a separating
axis test of every triangle against every box, written here); every eye they hide and
every pair they block, Embree finds blocked; the ground and thin runs give none; a
fused table's pairs are answered the same with the boxes and without, with fewer eyes
searched; and a scanned table's hollow buildings, which the bundle proofs seldom span,
have their segments settled by the boxes (PROOF_WEAK_SHARE), with the answers of the
search without proofs or boxes and of the brute force."""

from __future__ import annotations

import numpy as np
import pytest
from proof_support import FUSED_BLOCKS, check_against_brute_force, fused_scene, pairs
from support import make_scene, real_meshes_dir, trooper

from geom3d import terrain
from geom3d.adjudication import lof
from geom3d.bodies.cylinder import Cylinder
from geom3d.mesh.winding import winding_numbers
from geom3d.raycast import RayEngine
from geom3d.terrain import FusedBlocks
from geom3d.visibility import VisibilityStats, pair_patch
from geom3d.visibility.convex import NO_SOLIDS, ConvexSolids
from geom3d.visibility.interior_boxes import interior_boxes
from geom3d.visibility.proof_trees import PairProof
from geom3d.visibility.tolerances import INTERIOR_BOX_MIN_HEIGHT_MM


def _meets(tri: np.ndarray, box: np.ndarray) -> np.ndarray:
    """(n,) bool: triangles ``tri`` ((n, 3, 3)) that meet the closed box ``box``
    (``x0, y0, z0, x1, y1, z1``), by the separating axis theorem (the box's three axes,
    the triangle's normal and the nine products of their edges; touching counts)."""
    c, h = 0.5 * (box[:3] + box[3:]), 0.5 * (box[3:] - box[:3])
    v = tri - c
    edges = [v[:, 1] - v[:, 0], v[:, 2] - v[:, 1], v[:, 0] - v[:, 2]]
    apart = np.zeros(len(tri), dtype=bool)
    axes = [np.broadcast_to(np.eye(3)[k], (len(tri), 3)) for k in range(3)]
    axes.append(np.cross(edges[0], edges[1]))
    axes += [np.cross(np.eye(3)[k], e) for k in range(3) for e in edges]
    for ax in axes:
        p = np.einsum("nij,nj->ni", v, ax)
        r = np.abs(ax) @ h
        apart |= (p.min(axis=1) > r) | (p.max(axis=1) < -r)
    return ~apart


def test_the_separating_axis_test_by_hand():
    box = np.array([0.0, 0.0, 0.0, 10.0, 10.0, 10.0])
    tri = np.array(
        [
            [[1, 1, 1], [2, 1, 1], [1, 2, 1]],  # inside
            [[20, 0, 0], [30, 0, 0], [20, 10, 0]],  # beside
            [[-5, -5, 5], [30, -5, 5], [-5, 30, 5]],  # a big one through it
            [[12, -1, 5], [-1, 12, 5], [12, 12, 30]],  # cuts a corner off
            [[21, 5, 5], [5, 21, 5], [5, 5, 21]],  # past the corner: apart along its normal
            [[10, 0, 0], [20, 0, 0], [10, 10, 0]],  # touching a face
        ],
        dtype=float,
    )
    assert _meets(tri, box).tolist() == [True, False, True, True, False, True]


def _blocking(scene):
    b = scene._built.blocking
    return np.asarray(b.vertices, float), np.asarray(b.faces)


def _check_inside(scene, boxes, rng):
    v, f = _blocking(scene)
    tri = v[f]
    for box in boxes:
        near = (tri.max(axis=1) >= box[:3] - 1.0).all(axis=1) & (
            tri.min(axis=1) <= box[3:] + 1.0
        ).all(axis=1)
        assert not _meets(tri[near], box).any(), box
    pts = np.concatenate([rng.uniform(b[:3], b[3:], (60, 3)) for b in boxes])
    w = winding_numbers(v, f, pts)
    assert (np.abs(w - 1.0) < 0.05).all(), pts[np.abs(w - 1.0) >= 0.05][:3]


def test_a_fused_tables_blocks_are_boxes_inside_the_solid(tmp_path):
    scene = fused_scene(tmp_path, 0)
    boxes = interior_boxes(scene.prover.interior)
    _check_inside(scene, boxes, np.random.default_rng(1))
    # each block (turned 30, 0 and 45 degrees; 40, 80 and 30 mm high) holds a box that
    # reaches within 3 mm of its top, and its boxes cover half its outline at least
    blocks = FUSED_BLOCKS
    rng = np.random.default_rng(3)
    pts = rng.uniform(0.0, 300.0, (40_000, 2))
    inside = blocks.signed_distance(pts) < -3.0  # (n, 3): well inside each block
    in_box = (
        (pts[:, None, 0] > boxes[None, :, 0]) & (pts[:, None, 0] < boxes[None, :, 3])
        & (pts[:, None, 1] > boxes[None, :, 1]) & (pts[:, None, 1] < boxes[None, :, 4])
    )  # fmt: skip
    for k in range(len(blocks)):
        mine = in_box[inside[:, k]].any(axis=0)  # the boxes over this block
        assert mine.any()
        assert boxes[mine, 5].max() > blocks.height[k] - 3.0
        assert in_box[inside[:, k]][:, mine].any(axis=1).mean() > 0.5
    # the rough ground around them gives none: every box stands in a block
    centres = 0.5 * (boxes[:, :2] + boxes[:, 3:5])
    assert (blocks.signed_distance(centres).min(axis=1) < 0.0).all()


def test_thin_solids_and_waving_ground_give_no_boxes(tmp_path):
    # a closed slab 8 mm thick: its runs are shorter than the least height
    scene = make_scene(
        [trooper("a", [50, 50]), trooper("b", [250, 250], side="red")],
        [{"id": "slab", "box": {"size": [300, 300, 8]}, "position": [150, 150, -8]}],
    )
    assert scene.prover.interior.certifies()
    assert interior_boxes(scene.prover.interior).shape == (0, 6)
    assert INTERIOR_BOX_MIN_HEIGHT_MM > 8.0
    # a scanned table waving 25 mm up and down, no blocks: its runs are tall, but a box in
    # the ground rises above none of it (the map's edge, beyond which there is nothing,
    # does not count)
    no_blocks = FusedBlocks(np.zeros((0, 2)), np.zeros((0, 2)), np.zeros(0), np.zeros(0))
    mesh = terrain.fused_scan_table(28_000, 1, size_mm=300.0, blocks=no_blocks, wave_mm=25.0)
    path = tmp_path / "waving.stl"
    mesh.export(path)
    table = {"size": [300, 300], "mesh": str(path), "mesh_units": "mm", "solid": "auto"}
    scene = make_scene([trooper("a", [50, 50]), trooper("b", [250, 250], side="red")], table=table)
    im = scene.prover.interior
    assert (im.run_hi - im.run_lo).max() > 2 * INTERIOR_BOX_MIN_HEIGHT_MM
    assert interior_boxes(im).shape == (0, 6)


@pytest.mark.parametrize("seed", range(3))
def test_eyes_hidden_and_pairs_blocked_by_the_boxes_are_blocked_by_embree(tmp_path, seed):
    scene = fused_scene(tmp_path, 0)
    prover = scene.prover
    solids = ConvexSolids.from_boxes(interior_boxes(prover.interior))
    v, f = _blocking(scene)
    engine = RayEngine(v, f)
    rng = np.random.default_rng(seed)
    hidden_seen = blocked_seen = 0
    for _ in range(40):
        a = Cylinder((*rng.uniform(10, 290, 2), float(rng.uniform(0, 90))), 12.5, 40.0)
        b = Cylinder((*rng.uniform(10, 290, 2), float(rng.uniform(0, 90))), 12.5, 40.0)
        if not (prover.interior.outside(a) and prover.interior.outside(b)):
            continue
        near = solids.near(a, b)
        ang, rad = rng.uniform(0, 2 * np.pi, 80), 12.0 * np.sqrt(rng.uniform(0, 1, 80))
        eyes = np.column_stack([a.base[0] + rad * np.cos(ang), a.base[1] + rad * np.sin(ang),
                                a.base[2] + rng.uniform(1.0, a.height - 1.0, 80)])  # fmt: skip
        target = _surface_points(b, rng, 120)
        hid = near.hidden(eyes, b)
        for e in eyes[hid]:
            assert engine.occluded_segments(np.tile(e, (len(target), 1)), target).all()
        hidden_seen += int(hid.sum())
        if near.blocks_pair(a, b):
            blocked_seen += 1
            o = np.repeat(eyes, 10, axis=0)
            assert engine.occluded_segments(o, target[rng.integers(0, len(target), len(o))]).all()
    assert hidden_seen > 0 and blocked_seen > 0


def _surface_points(cyl: Cylinder, rng, n: int) -> np.ndarray:
    """Points on the cylinder's mantle and top."""
    ang = rng.uniform(0, 2 * np.pi, n)
    z = cyl.base[2] + rng.uniform(0, cyl.height, n)
    out = np.column_stack([cyl.base[0] + cyl.radius * np.cos(ang),
                           cyl.base[1] + cyl.radius * np.sin(ang), z])  # fmt: skip
    out[: n // 4, 2] = cyl.top_z
    return out


def _witness(w, k):
    """What a pair's answer says: its witness eye, patch and viewer (None: not visible)."""
    return None if w is None else (tuple(w.eye), tuple(w.patch_center), k)


def test_a_fused_tables_pairs_are_the_same_with_and_without_the_boxes(tmp_path):
    scene = fused_scene(tmp_path, 0)
    prover = scene.prover
    assert len(prover.boxes) > 0
    with_boxes, without = VisibilityStats(), VisibilityStats()
    own = prover.boxes
    answers = []
    for x, y in pairs(scene):
        a, b = scene.trooper(x), scene.trooper(y)
        occ = lof.occluder_rows(scene, (x, y))
        got = []
        for stats, boxes in ((with_boxes, own), (without, NO_SOLIDS)):
            prover.boxes = boxes
            try:
                w, k = pair_patch(a.cylinder, b.cylinder, scene.engine, occ, prover=prover,
                                  stats=stats, solids=scene.convex_solids)  # fmt: skip
            finally:
                prover.boxes = own
            got.append(_witness(w, k))
        assert got[0] == got[1], (x, y)
        answers.append(got[0] is not None)
    assert any(answers) and not all(answers)
    assert with_boxes.eyes < without.eyes  # the boxes hid eyes (or whole pairs)


def test_joined_pieces_keep_each_piece_whole():
    a = ConvexSolids.from_boxes(np.array([[0, 0, 0, 10, 10, 10]], dtype=float))
    b = ConvexSolids.from_boxes(np.array([[20, 0, 0, 30, 5, 5], [40, 0, 0, 50, 5, 5]], float))
    ab = a.joined(b)
    assert len(ab) == 3 and a.joined(NO_SOLIDS) is a and NO_SOLIDS.joined(b) is b
    for k, (src, q) in enumerate([(a, 0), (b, 0), (b, 1)]):
        got = ab.planes[ab.off[k] : ab.off[k + 1]]
        assert np.array_equal(got, src.planes[src.off[q] : src.off[q + 1]])
        got = ab.inner[ab.inner_off[k] : ab.inner_off[k + 1]]
        assert np.array_equal(got, src.inner[src.inner_off[q] : src.inner_off[q + 1]])
        assert np.array_equal(ab.lo[k], src.lo[q]) and np.array_equal(ab.hi[k], src.hi[q])
    # a segment through the second box of b is blocked by the joined set, one beside it not
    assert ab.hidden(np.array([[45.0, 2.5, 20.0]]), Cylinder((45.0, 2.5, -9.0), 1.0, 1.0))[0]
    assert not ab.hidden(np.array([[35.0, 2.5, 22.5]]), Cylinder((35.0, 2.5, -9.0), 1.0, 1.0))[0]


@pytest.mark.parametrize(("proven", "weak"), [([1, 1, 0, 0], False), ([1, 0, 0, 0], True),
                                              ([0, 0, 0], True), ([1, 1, 1], False)])  # fmt: skip
def test_a_proof_is_weak_below_half_its_bundles(proven, weak):
    from types import SimpleNamespace

    trees = (SimpleNamespace(proven=np.array(proven[:1], bool)),
             SimpleNamespace(proven=np.array(proven[1:], bool)))  # fmt: skip
    assert PairProof(trees).weak is weak  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def scanned(tmp_path_factory):
    """A 1200 mm scanned table (100k triangles: hollow buildings with 4 mm walls and
    windows, containers, walls, all one mesh) with 16 troopers on open ground."""
    path = tmp_path_factory.mktemp("scan") / "scan.stl"
    terrain.synthetic_scanned_table(100_000, seed=0).export(path)
    spots = terrain.synthetic_trooper_spots(16, seed=1)
    ts = [trooper(f"t{i:02d}", [float(x), float(y)], silhouette=1 + i % 6,
                  side="blue" if i % 2 else "red") for i, (x, y) in enumerate(spots)]  # fmt: skip
    table = {"size": [1200, 1200], "mesh": str(path), "mesh_units": "mm", "solid": "auto"}
    return make_scene(ts, table=table)


def test_a_scanned_tables_boxes_settle_segments_where_proofs_are_weak(scanned):
    scene, prover = scanned, scanned.prover
    assert len(prover.boxes) > 0
    outlined, with_boxes, plain = [], VisibilityStats(), VisibilityStats()
    for x, y in pairs(scene):
        a, b = scene.trooper(x), scene.trooper(y)
        occ = lof.occluder_rows(scene, (x, y))
        st = VisibilityStats()
        w, k = pair_patch(a.cylinder, b.cylinder, scene.engine, occ, prover=prover, stats=st,
                          solids=scene.convex_solids)  # fmt: skip
        w0, k0 = pair_patch(a.cylinder, b.cylinder, scene.engine, occ, stats=plain)
        assert _witness(w, k) == _witness(w0, k0), (x, y)
        with_boxes.add(st)
        if st.outlined:  # a sample inside a box's outline: only the joined boxes give one
            outlined.append((x, y))
    assert len(outlined) >= 2 and with_boxes.cast < plain.cast / 2
    for x, y in outlined[:2]:
        check_against_brute_force(scene, scene.trooper(x), scene.trooper(y))


def test_no_boxes_for_a_pair_with_a_trooper_inside_a_solid(tmp_path):
    scene = fused_scene(tmp_path, 0)
    prover = scene.prover
    out = Cylinder((40.0, 60.0, 2.0), 12.5, 40.0)
    far = Cylinder((250.0, 250.0, 2.0), 12.5, 40.0)
    sunk = Cylinder((150.0, 150.0, 10.0), 12.5, 40.0)  # its eyes inside the 40 mm block
    assert prover.interior.outside(out) and not prover.interior.outside(sunk)
    assert len(prover.boxes_near(out, far)) > 0
    assert len(prover.boxes_near(out, sunk)) == 0
    assert len(prover.boxes_near(sunk, far)) == 0


def test_real_pieces_boxes_lie_inside_them(tmp_path):
    root = real_meshes_dir()
    names = ("container.stl", "walkway_bridge.stl", "barrier.stl")
    if root is None or not all((root / n).is_file() for n in names):
        pytest.skip("../shared/real-meshes is absent")
    scene = make_scene(
        [trooper("a", [20, 20]), trooper("b", [380, 380], side="red")],
        [
            {"id": "container", "mesh": str(root / names[0]), "position": [120, 120]},
            {"id": "bridge", "mesh": str(root / names[1]), "position": [280, 120]},
            {"id": "barrier", "mesh": str(root / names[2]), "position": [200, 300]},
        ],
        table={"size": [400, 400]},
    )
    boxes = interior_boxes(scene.prover.interior)
    assert len(boxes) > 0
    _check_inside(scene, boxes, np.random.default_rng(2))
