"""Closed convex blocking pieces (:mod:`geom3d.visibility.convex`): which meshes are
pieces (planes and boxes checked by hand), the compiled segment tests on a hand-made cube,
and whole-eye and whole-pair answers against Embree over the piece's own mesh (apparent
outlines and Line of Fire answers: ``test_convex_answers.py``)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from geom3d.bodies.cylinder import Cylinder
from geom3d.bodies.kernel_constants import PROOF_CLEARANCE_MM
from geom3d.mesh.primitives import box_mesh, prism_mesh
from geom3d.raycast import RayEngine
from geom3d.visibility import eye_points
from geom3d.visibility._convex_kernels import (
    APART_INSET,
    _none_hide,
    _reach,
    bundle_meets,
    eye_outside,
    segment_blocked,
    segment_meets,
)
from geom3d.visibility.convex import NO_SOLIDS, ConvexSolids, eye_corners, prism_corners
from geom3d.visibility.tolerances import CONVEX_MAX_FACES, CONVEX_PRISM_SIDES

# --------------------------------------------------------------------------------------
# meshes built here
# --------------------------------------------------------------------------------------


def _moved(mesh, shift):
    v, f = mesh
    return v + np.asarray(shift, dtype=np.float64), f


def _one(mesh):
    """ConvexSolids of one mesh as one group."""
    v, f = mesh
    return ConvexSolids.from_mesh(v, f, np.zeros(len(f), np.int64))


def _joined(meshes, labels):
    """One mesh of several, each with its group label."""
    vs, fs, gs, n = [], [], [], 0
    for (v, f), g in zip(meshes, labels, strict=True):
        vs.append(v)
        fs.append(f + n)
        gs.append(np.full(len(f), g, np.int64))
        n += len(v)
    return np.concatenate(vs), np.concatenate(fs), np.concatenate(gs)


def _grid_box(lo, hi, n):
    """A closed box [lo, hi] with each face split into n x n squares (12 n² triangles,
    6 planes), outward-facing; shared positions are bitwise equal."""
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    axes = [np.linspace(lo[k], hi[k], n + 1) for k in range(3)]
    verts, faces = [], []
    for k in range(3):  # the face's normal axis
        a, b = [j for j in range(3) if j != k]
        for side, val in ((-1.0, lo[k]), (1.0, hi[k])):
            base = len(verts)
            for i in range(n + 1):
                for j in range(n + 1):
                    p = np.empty(3)
                    p[k], p[a], p[b] = val, axes[a][i], axes[b][j]
                    verts.append(p)
            for i in range(n):
                for j in range(n):
                    q = [base + i * (n + 1) + j, base + (i + 1) * (n + 1) + j]
                    q += [base + (i + 1) * (n + 1) + j + 1, base + i * (n + 1) + j + 1]
                    for tri in ([q[0], q[1], q[2]], [q[0], q[2], q[3]]):
                        pv = [verts[t] for t in tri]
                        nrm = np.cross(pv[1] - pv[0], pv[2] - pv[0])
                        faces.append(tri if nrm[k] * side > 0 else tri[::-1])
    return np.array(verts), np.array(faces, np.int64)


def _rows(planes):
    """Plane rows rounded and sorted, to compare as sets."""
    r = np.round(np.asarray(planes), 9) + 0.0
    return r[np.lexsort(r.T[::-1])]


# --------------------------------------------------------------------------------------
# ConvexSolids.from_mesh
# --------------------------------------------------------------------------------------


def test_a_box_is_one_piece_with_its_six_planes_and_box():
    # box 20 x 30 x 40 with its bottom centre at (100, 50, 5): x 90..110, y 35..65, z 5..45
    s = _one(_moved(box_mesh((20, 30, 40)), (100, 50, 5)))
    assert len(s) == 1 and s.off.tolist() == [0, 6]
    want = [
        [1, 0, 0, 110], [-1, 0, 0, -90], [0, 1, 0, 65],
        [0, -1, 0, -35], [0, 0, 1, 45], [0, 0, -1, -5],
    ]  # fmt: skip
    np.testing.assert_allclose(_rows(s.planes), _rows(want), atol=1e-12)
    assert s.lo.tolist() == [[90, 35, 5]] and s.hi.tolist() == [[110, 65, 45]]
    assert s.packed[0] is s.planes


def test_a_twelve_sided_prism_has_fourteen_planes():
    # a regular 12-gon of circumradius 30 (corners at k 30°), 50 tall, moved to (10, -20, 3):
    # side k's outward normal points at (k + 1/2) 30°, at 30 cos 15° from the axis
    ang = np.radians(30.0 * np.arange(12))
    poly = 30.0 * np.column_stack([np.cos(ang), np.sin(ang)])
    s = _one(_moved(prism_mesh(poly, 50.0), (10, -20, 3)))
    assert len(s) == 1 and len(s.planes) == 14
    mid = np.radians(30.0 * np.arange(12) + 15.0)
    apo = 30.0 * math.cos(math.radians(15.0))
    nx, ny = np.cos(mid), np.sin(mid)
    sides = np.column_stack([nx, ny, np.zeros(12), apo + 10.0 * nx - 20.0 * ny])
    want = np.vstack([sides, [[0, 0, 1, 53], [0, 0, -1, -3]]])
    np.testing.assert_allclose(_rows(s.planes), _rows(want), atol=1e-9)
    np.testing.assert_allclose(s.lo, [[-20, -50, 3]], atol=1e-12)
    np.testing.assert_allclose(s.hi, [[40, 10, 53]], atol=1e-12)


def _l_shape():
    poly = [(0, 0), (40, 0), (40, 10), (10, 10), (10, 40), (0, 40)]
    return prism_mesh(poly, 20.0)


def _broken_boxes():
    v, f = box_mesh((20, 20, 20))
    flip_one = f.copy()
    flip_one[2:4] = flip_one[2:4, ::-1]  # the top face wound inwards
    return {
        "open": (v, f[np.r_[0:2, 4:12]]),  # no top face
        "one-triangle-missing": (v, f[1:]),
        "one-face-flipped": (v, flip_one),
        "inside-out": (v, f[:, ::-1].copy()),
        "l-shaped": _l_shape(),
        "two-boxes-one-label": (
            np.vstack([v, v + (50.0, 0.0, 0.0)]),
            np.vstack([f, f + len(v)]),
        ),
    }


@pytest.mark.parametrize("name", list(_broken_boxes()))
def test_open_misoriented_inside_out_and_non_convex_meshes_are_no_piece(name):
    assert len(_one(_broken_boxes()[name])) == 0
    assert _one(_broken_boxes()[name]) is NO_SOLIDS


def test_the_l_shapes_two_boxes_are_pieces_apart():
    # the L split into its two convex parts, each its own label: both accepted
    a = prism_mesh([(0, 0), (40, 0), (40, 10), (0, 10)], 20.0)
    b = prism_mesh([(0, 10), (10, 10), (10, 40), (0, 40)], 20.0)
    s = ConvexSolids.from_mesh(*_joined([a, b], [0, 1]))
    assert len(s) == 2 and s.off.tolist() == [0, 6, 12]
    assert s.lo.tolist() == [[0, 0, 0], [0, 10, 0]]
    assert s.hi.tolist() == [[40, 10, 20], [10, 40, 20]]


def test_a_group_of_more_than_the_most_faces_is_skipped():
    # a box with each face in 4 x 4 squares has 192 faces (a piece); in 5 x 5, 300 faces
    # (more than CONVEX_MAX_FACES = 256): skipped, though it is the same box
    assert 12 * 16 <= CONVEX_MAX_FACES < 12 * 25
    small = _one(_grid_box((0, 0, 0), (10, 20, 30), 4))
    assert len(small) == 1 and len(small.planes) == 6
    np.testing.assert_allclose(
        _rows(small.planes),
        _rows([[1, 0, 0, 10], [-1, 0, 0, 0], [0, 1, 0, 20], [0, -1, 0, 0],
               [0, 0, 1, 30], [0, 0, -1, 0]]),
        atol=1e-12,
    )  # fmt: skip
    assert len(_one(_grid_box((0, 0, 0), (10, 20, 30), 5))) == 0


def test_several_groups_give_one_piece_per_convex_group_in_label_order():
    ang = np.radians(30.0 * np.arange(12))
    prism = _moved(prism_mesh(20.0 * np.column_stack([np.cos(ang), np.sin(ang)]), 30), (0, 0, 0))
    box_a = _moved(box_mesh((10, 10, 10)), (100, 0, 0))  # x 95..105, y -5..5
    box_b = _moved(box_mesh((4, 6, 8)), (-50, 30, 2))  # x -52..-48, y 27..33, z 2..10
    broken = _broken_boxes()
    meshes = [box_a, _moved(broken["l-shaped"], (0, 200, 0)), box_b, prism]
    meshes.append(_moved(broken["open"], (0, -200, 0)))
    v, f, g = _joined(meshes, [7, 2, 4, 0, 5])
    perm = np.random.default_rng(3).permutation(len(f))  # faces of all groups interleaved
    s = ConvexSolids.from_mesh(v, f[perm], g[perm])
    assert len(s) == 3  # the prism (label 0), box_b (4), box_a (7); the L and open box not
    assert s.off.tolist() == [0, 14, 20, 26]
    np.testing.assert_allclose(s.lo[1:], [[-52, 27, 2], [95, -5, 0]])
    np.testing.assert_allclose(s.hi[1:], [[-48, 33, 10], [105, 5, 10]])
    np.testing.assert_allclose(
        _rows(s.planes[20:26]),
        _rows([[1, 0, 0, 105], [-1, 0, 0, -95], [0, 1, 0, 5], [0, -1, 0, 5],
               [0, 0, 1, 10], [0, 0, -1, 0]]),
        atol=1e-12,
    )  # fmt: skip


def test_inner_points_lie_twice_the_clearance_inside_every_plane():
    rng = np.random.default_rng(5)
    meshes, labels = [], []
    for k in range(6):
        size = rng.uniform(0.5, 60.0, 3)
        if k == 0:
            size[2] = 0.045  # thin: its middle is only 0.0225 deep
        v, f = box_mesh(size)
        yaw = rng.uniform(0, 2 * np.pi)
        c, s_ = math.cos(yaw), math.sin(yaw)
        rot = np.array([[c, -s_, 0], [s_, c, 0], [0, 0, 1.0]])
        meshes.append((v @ rot.T + rng.uniform(-200, 200, 3), f))
        labels.append(k)
    ang = np.radians(30.0 * np.arange(12) + 7.0)
    meshes.append(_moved(prism_mesh(25.0 * np.column_stack([np.cos(ang), np.sin(ang)]), 9.0), 0))
    labels.append(6)
    s = ConvexSolids.from_mesh(*_joined(meshes, labels))
    assert len(s) == 7 and len(s.inner_off) == 8
    deep = 2.0 * PROOF_CLEARANCE_MM
    for q in range(len(s)):
        pl = s.planes[s.off[q] : s.off[q + 1]]
        pts = s.inner[s.inner_off[q] : s.inner_off[q + 1]]
        if q:  # every box keeps its 8 points, the prism its 24
            assert len(pts) == (24 if q == 6 else 8)
        assert (pts @ pl[:, :3].T - pl[:, 3] <= -deep).all()
    # the thin box: its centre is 0.0225 deep, so its corners' points can be made (just)
    assert s.inner_off[1] - s.inner_off[0] == 8
    # and a box 0.03 thick has no point 0.02 deep at all
    assert len(_one(box_mesh((10, 10, 0.03))).inner) == 0


# --------------------------------------------------------------------------------------
# compiled segment tests, by hand on the cube [0, 10]^3
# --------------------------------------------------------------------------------------

CUBE = np.array(
    [[1, 0, 0, 10], [-1, 0, 0, 0], [0, 1, 0, 10], [0, -1, 0, 0], [0, 0, 1, 10], [0, 0, -1, 0]],
    dtype=np.float64,
)
CUBE_OFF = np.array([0, 6], np.int64)


def _meets(e, d, margin=0.01):
    return bool(segment_meets(CUBE, 0, 6, *map(float, e), *map(float, d), margin))


def test_segment_meets_the_cube_by_hand():
    assert _meets((-5, 5, 5), (20, 0, 0))  # through the middle
    assert _meets((5, 5, -20), (0, 0, 25))  # ends 5 mm inside, from below
    assert not _meets((-5, 5, 5), (4, 0, 0))  # stops 1 mm before the cube
    assert not _meets((-5, 5, 9.995), (20, 0, 0))  # 0.005 below the top: in the margin
    assert _meets((-5, 5, 9.98), (20, 0, 0))  # 0.02 below: through the shrunk cube
    # along z = x + 10 it touches the edge x = 0, z = 10 and nothing else, even unshrunk
    assert not _meets((-5, 5, 5), (10, 0, 10))
    assert not _meets((-5, 5, 5), (10, 0, 10), margin=0.0)
    # ends 0.005 inside the -x face: not past the margin; 0.015 inside: past it
    assert not _meets((-5, 5, 5), (5.005, 0, 0))
    assert _meets((-5, 5, 5), (5.015, 0, 0))


def test_eye_outside_the_cube_by_hand():
    def out(*p):
        return bool(eye_outside(CUBE, 0, 6, *map(float, p), 0.01))

    assert out(10.02, 5, 5) and out(5, -0.02, 5) and out(5, 5, 10.5)
    assert not out(10.005, 5, 5)  # closer than the clearance
    assert not out(5, 5, 5) and not out(9.999, 0.001, 5)  # inside
    # 0.008 beyond two planes: 0.0113 from the cube, but beyond no one plane by 0.01
    assert not out(10.008, 10.008, 5)


def test_segment_blocked_needs_the_eye_outside_the_cube():
    def blocked(p, q):
        return bool(segment_blocked(CUBE, CUBE_OFF, np.array(p, float), np.array(q, float),
                                    0.01, 0.01))  # fmt: skip

    assert blocked((-5, 5, 5), (15, 5, 5))
    assert not blocked((5, 5, 5), (15, 5, 5))  # from inside the cube
    assert not blocked((-0.005, 5, 5), (15, 5, 5))  # from within the clearance
    assert not blocked((-5, 5, 5), (-1, 5, 5))
    assert not blocked((-5, 5, 5), (15, 5, 25))  # z = x + 10: touches the top edge only
    assert not bool(segment_blocked(CUBE, np.zeros(1, np.int64), np.zeros(3), np.ones(3) * 5,
                                    0.01, 0.01))  # fmt: skip


# --------------------------------------------------------------------------------------
# whole eyes and whole pairs against Embree over the piece's own mesh
# --------------------------------------------------------------------------------------

VIEWER = Cylinder((0.0, 0.0, 0.0), 12.5, 40.0)
TARGET = Cylinder((200.0, 0.0, 0.0), 12.5, 40.0)
# x 95..105; y -40..8 and 32 tall (eyes see round its +y end and over it), or y -40..40
# and z -5..60 (nothing passes). The full wall is sunk: the troopers' prisms reach
# SURFACE_BOX_PAD_MM below their bases, so a wall standing on their ground leaves the
# segments between their bottom corners below it, and cannot settle the pair whole
GAP_WALL = _moved(box_mesh((10, 48, 32)), (100, -16, 0))
FULL_WALL = _moved(box_mesh((10, 80, 65)), (100, 0, -5))


def _surface(cyl, n, rng):
    """(n, 3) random points on the cylinder's surface (mantle and caps, by area)."""
    b, r, h = cyl.base_array, cyl.radius, cyl.height
    on_side = rng.random(n) < h / (h + r)  # 2 pi r h against 2 pi r^2
    ang = rng.uniform(0, 2 * np.pi, n)
    rad = np.where(on_side, r, r * np.sqrt(rng.random(n)))
    z = np.where(on_side, rng.uniform(0, h, n), np.where(rng.random(n) < 0.5, 0.0, h))
    return b + np.column_stack([rad * np.cos(ang), rad * np.sin(ang), z])


def _volume(cyl, n, rng):
    """(n, 3) random points of the cylinder: half on its surface, half inside."""
    b, r, h = cyl.base_array, cyl.radius, cyl.height
    k = n // 2
    ang = rng.uniform(0, 2 * np.pi, k)
    rad = r * np.sqrt(rng.random(k))
    inside = b + np.column_stack([rad * np.cos(ang), rad * np.sin(ang), rng.uniform(0, h, k)])
    return np.vstack([_surface(cyl, n - k, rng), inside])


def _blocked(mesh, origins, ends):
    engine = RayEngine(*mesh)
    return engine.occluded_segments(np.ascontiguousarray(origins), np.ascontiguousarray(ends))


@pytest.mark.parametrize("viewer_x", [0.0, 82.5], ids=["apart", "touching"])
def test_hidden_eyes_see_nothing_of_the_target_by_embree(viewer_x):
    # "touching": the viewer's side touches the wall's face x = 95, so its eyes (inset
    # 0.01) lie at the clearance from the piece
    viewer = Cylinder((viewer_x, 0.0, 0.0), 12.5, 40.0)
    rng = np.random.default_rng(37)
    eyes = eye_points(viewer, TARGET)
    hid = _one(GAP_WALL).hidden(eyes, TARGET)
    assert hid.dtype == bool and 0 < hid.sum() < len(eyes)
    pts = _surface(TARGET, 500, rng)
    clear_seen = False
    for e, h in zip(eyes, hid, strict=True):
        got = _blocked(GAP_WALL, np.repeat(e[None], len(pts), axis=0), pts)
        if h:
            assert got.all(), (e, pts[~got][:3])
        clear_seen = clear_seen or not got.all()
    assert clear_seen
    assert not _one(GAP_WALL).hidden(eyes[:0], TARGET).size
    assert not NO_SOLIDS.hidden(eyes, TARGET).any()


def _meets_all(planes, e, corners, margin):
    """Do the segments from ``e`` to every corner meet the piece ``planes`` shrunk by
    ``margin``? (Clipping each segment's parameter range, in numpy.)"""
    n, d = planes[:, :3], planes[:, 3] - margin
    dirs = corners - e
    num = d - n @ e  # (p,): n . (e + t D) <= d  <=>  t (n . D) <= num
    den = dirs @ n.T  # (c, p)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = num / den
    lo = np.where(den < 0, ratio, -np.inf).max(axis=1, initial=0.0)
    hi = np.where(den > 0, ratio, np.inf).min(axis=1, initial=1.0)
    parallel_out = ((den == 0) & (num < 0)).any(axis=1)
    return bool(((lo < hi) & ~parallel_out).all())


def _boxes_between(rng):
    """A viewer, a taller target and 2 to 4 turned boxes round the line between them."""
    viewer = Cylinder((0.0, 0.0, rng.uniform(0, 20)), rng.uniform(10, 30), rng.uniform(20, 50))
    far = rng.uniform(120, 300)
    target = Cylinder((far, rng.uniform(-40, 40), 0.0), rng.uniform(10, 30), 60.0)
    meshes = []
    for _ in range(int(rng.integers(2, 5))):
        v, f = box_mesh(rng.uniform([3, 10, 10], [30, 90, 90]))
        yaw = rng.uniform(-0.6, 0.6)
        rot = np.array(
            [[math.cos(yaw), -math.sin(yaw), 0], [math.sin(yaw), math.cos(yaw), 0], [0, 0, 1]]
        )
        spot = (rng.uniform(0.3, 0.7) * far, rng.uniform(-40, 40), rng.uniform(-10, 10))
        meshes.append((v @ rot.T + spot, f))
    return viewer, target, ConvexSolids.from_mesh(*_joined(meshes, range(len(meshes))))


def _hidden_by_definition(solids, eyes, corners, slack):
    """Eye by eye: is it ``PROOF_CLEARANCE_MM + slack`` beyond a plane of one piece,
    with every segment to a corner meeting that piece shrunk by as much?"""
    eps = PROOF_CLEARANCE_MM + slack
    out = np.zeros(len(eyes), bool)
    for i, e in enumerate(eyes):
        for s in range(len(solids)):
            pl = solids.planes[solids.off[s] : solids.off[s + 1]]
            if (pl[:, :3] @ e - pl[:, 3] >= eps).any() and _meets_all(pl, e, corners, eps):
                out[i] = True
                break
    return out


@pytest.mark.parametrize("seed", range(6))
def test_hidden_eyes_are_those_of_the_definition_eye_by_eye(seed):
    # several rotated boxes round the line between two cylinders (the target taller, so
    # the viewer's eyes include its top cap's rows): the compiled test, which decides
    # whole columns and rows of eyes from their ends, flags exactly the eyes the
    # definition does, each one tested on its own (up to 1e-9 mm of rounding)
    rng = np.random.default_rng(100 + seed)
    viewer, target, solids = _boxes_between(rng)
    eyes = eye_points(viewer, target)
    corners = np.asarray(prism_corners(target))
    got = solids.hidden(eyes, target)
    assert not (got & ~_hidden_by_definition(solids, eyes, corners, -1e-9)).any()
    assert not (_hidden_by_definition(solids, eyes, corners, 1e-9) & ~got).any()
    assert 0 < got.sum() < len(eyes), got.sum()


def test_a_line_of_eyes_apart_from_every_piece_has_no_eye_hidden():
    # corners_hidden decides a whole line of eyes unhidden from its two ends when every
    # piece has a plane with both ends and a corner beyond it (_none_hide): then no eye on
    # the line may be hidden by the definition, tested eye by eye at 25 points of it; and
    # the shortcut must decide a fair share of the lines (89 of these 240), or it would
    # gain nothing
    decided = 0
    for seed in range(4):
        rng = np.random.default_rng(200 + seed)
        viewer, target, solids = _boxes_between(rng)
        corners = np.asarray(prism_corners(target))
        eps = PROOF_CLEARANCE_MM
        reach = np.empty(len(solids.planes))
        _reach(corners, solids.planes, eps, reach)
        for _ in range(60):  # vertical lines of eyes round the viewer
            x, y = viewer.base_array[:2] + rng.uniform([-40, -150], [40, 150])
            z0, z1 = np.sort(rng.uniform(0, 150, 2))
            ends = np.array([[x, y, z0], [x, y, z1]])
            if _none_hide(ends, 0, 1, solids.planes, solids.off, reach, eps):
                decided += 1
                line = np.linspace(ends[0], ends[1], 25)
                assert not _hidden_by_definition(solids, line, corners, -1e-9).any()
    assert 60 < decided < 240, decided


def test_apart_needs_both_ends_and_a_corner_beyond_one_plane():
    # the cube of side 1 (x, y in [-0.5, 0.5], z in [0, 1]; its top plane z <= 1),
    # margin 0: a line of eyes above it and a corner above it are apart; a corner below
    # the top, a corner less than APART_INSET above it, or ends beyond two different
    # planes (one above the top, one beside the +x face) are not
    solids = _one(box_mesh((1.0, 1.0, 1.0)))
    above = np.array([[0.0, 0.0, 2.0], [0.0, 0.0, 3.0]])
    apart = np.array([[3.0, 0.0, 0.5], [0.0, 0.0, 3.0]])
    for corner_z, ends, want in [
        (1.5, above, True),
        (0.5, above, False),
        (1.0 + 0.5 * APART_INSET, above, False),
        (1.0 + 2.0 * APART_INSET, above, True),
        (1.5, apart, False),
    ]:
        reach = np.empty(len(solids.planes))
        _reach(np.array([[0.0, 0.0, corner_z]]), solids.planes, 0.0, reach)
        got = _none_hide(ends, 0, 1, solids.planes, solids.off, reach, 0.0)
        assert got is want, (corner_z, ends)


def test_blocks_pair_and_blocks_axis_against_embree():
    rng = np.random.default_rng(38)
    a, b = _volume(VIEWER, 2000, rng), _volume(TARGET, 2000, rng)
    full, gap = _one(FULL_WALL), _one(GAP_WALL)
    assert full.blocks_pair(VIEWER, TARGET) and full.blocks_pair(TARGET, VIEWER)
    assert _blocked(FULL_WALL, a, b).all() and _blocked(FULL_WALL, b, a).all()
    assert not gap.blocks_pair(VIEWER, TARGET)
    assert not _blocked(GAP_WALL, a, b).all()  # (some segments pass the gap)
    # the segment between the axes' middles, (0, 0, 20) - (200, 0, 20), meets both walls
    assert full.blocks_axis(VIEWER, TARGET) and gap.blocks_axis(VIEWER, TARGET)
    # a viewer touching the wall: its prism (radius 12.5 / cos(pi / 16) = 12.745) reaches
    # x 95.245, past the wall's face, so no plane parts it from the wall: not settled
    touching = Cylinder((82.5, 0.0, 0.0), 12.5, 40.0)
    assert not full.blocks_pair(touching, TARGET)
    # a low wall (x 95..105, 20 tall) leaves the tops in view; its axis test at z 20 is
    # the wall's top face, within the margin: not blocked either
    low = _one(_moved(box_mesh((10, 80, 20)), (100, 0, 0)))
    assert not low.blocks_pair(VIEWER, TARGET) and not low.blocks_axis(VIEWER, TARGET)
    assert not NO_SOLIDS.blocks_pair(VIEWER, TARGET)
    assert not NO_SOLIDS.blocks_axis(VIEWER, TARGET)


def test_a_wall_on_the_troopers_floor_settles_the_pair_from_their_eyes():
    # the wall stands on z = 0 like the troopers: segments between their bottom rims
    # pass under it, but the search casts only from eye points, STAND_INSET_MM up
    floor_wall = _moved(box_mesh((10, 80, 60)), (100, 0, 0))
    piece = _one(floor_wall)
    assert piece.blocks_pair(VIEWER, TARGET) and piece.blocks_pair(TARGET, VIEWER)
    rng = np.random.default_rng(39)
    for v, t in ((VIEWER, TARGET), (TARGET, VIEWER)):
        eyes = eye_points(v, t)
        pts = _volume(t, len(eyes), rng)
        assert _blocked(floor_wall, eyes, pts).all()
        assert _blocked(floor_wall, eyes, np.roll(pts, 7, axis=0)).all()
    # the whole prisms would not do: their bottom corners lie SURFACE_BOX_PAD_MM under
    # the floor, and the segments between them pass under the wall (by less than the
    # margin), so no eye region, no whole-pair settling on a shared floor
    eps = PROOF_CLEARANCE_MM
    assert not bundle_meets(
        prism_corners(VIEWER), prism_corners(TARGET), piece.planes, piece.off, eps, eps
    )
    # a wall sunk less than the eyes' height still counts; one standing on a step
    # (bottom 0.3 mm above the floor) leaves a gap under it within the eyes' reach
    stepped = _one(_moved(box_mesh((10, 80, 60)), (100, 0, 0.3)))
    assert not stepped.blocks_pair(VIEWER, TARGET)


def test_eye_corners_hold_every_eye_point():
    for cyl in (VIEWER, Cylinder((3.0, -2.0, 7.5), 9.0, 22.0)):
        prism = np.asarray(eye_corners(cyl))
        r = np.hypot(*(prism[:, :2] - cyl.base_array[:2]).T)
        inner = r.min() * math.cos(math.pi / CONVEX_PRISM_SIDES)  # the prism's inradius
        for t in (TARGET, Cylinder((0.0, 0.0, 80.0), 5.0, 5.0), Cylinder((0.0, 0.0, -50), 5, 5)):
            eyes = eye_points(cyl, t)  # side points, and caps above or below
            d = np.hypot(*(eyes[:, :2] - cyl.base_array[:2]).T)
            assert (d <= inner).all()
            assert (eyes[:, 2] >= prism[:, 2].min()).all()
            assert (eyes[:, 2] <= prism[:, 2].max()).all()


def test_bundle_meets_takes_writable_and_read_only_corners():
    xa = np.array(eye_corners(VIEWER))  # a writable copy
    xb = prism_corners(TARGET)  # read only
    piece = _one(FULL_WALL)
    eps = PROOF_CLEARANCE_MM
    assert bundle_meets(xa, xb, piece.planes, piece.off, eps, eps)


def test_near_keeps_only_the_pieces_the_pair_can_meet():
    # troopers at (0, 0) and (200, 200), r 12.5; box k at (190, 10) (10 x 10 x 10) lies in
    # their joint box but 180 / sqrt 2 = 127.3 mm from the line between their axes, more
    # than its half diagonal 7.07 plus 12.5; box m on that line at (100, 100) stays; box
    # f at (500, 0) is outside the joint box
    a, b = Cylinder((0.0, 0.0, 0.0), 12.5, 40.0), Cylinder((200.0, 200.0, 0.0), 12.5, 40.0)
    k = _moved(box_mesh((10, 10, 10)), (190, 10, 0))
    m = _moved(box_mesh((10, 10, 60)), (100, 100, 0))
    f = _moved(box_mesh((10, 10, 10)), (500, 0, 0))
    s = ConvexSolids.from_mesh(*_joined([k, m, f], [0, 1, 2]))
    near = s.near(a, b)
    assert len(near) == 1 and near.lo.tolist() == [[95, 95, 0]]
    np.testing.assert_array_equal(near.planes, s.planes[6:12])
    np.testing.assert_array_equal(near.inner, s.inner[s.inner_off[1] : s.inner_off[2]])
    assert near.inner_off.tolist() == [0, 8] and near.off.tolist() == [0, 6]
    # and the pieces left out meet no segment between the two (Embree on their meshes)
    rng = np.random.default_rng(39)
    pa, pb = _volume(a, 3000, rng), _volume(b, 3000, rng)
    v, f_, _ = _joined([k, f], [0, 1])
    assert not _blocked((v, f_), pa, pb).any()
    assert s.near(a, Cylinder((500.0, 0.0, 0.0), 12.5, 40.0)).lo.tolist() == [
        [185, 5, 0],
        [495, -5, 0],
    ]
    assert NO_SOLIDS.near(a, b) is NO_SOLIDS
