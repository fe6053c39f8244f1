"""Convex blocking pieces change the cost of Line of Fire, never its answers. What a
piece settles without a ray (one segment, a lattice sample inside its apparent outline)
Embree, or a slab clipper written here, finds blocked; and every result (visible or
not, witness eye and patch centre) of a matrix, an exposure map and a survey is the
same with the pieces and without them (``Scene.convex_solids`` emptied), on seeded
random tables of rotated boxes, troopers touching or standing on boxes, open and closed
mesh pieces and smoke, while the counters show the pieces did the work."""

from __future__ import annotations

import math

import numpy as np
import pytest
from support import box, lof_answers, make_scene, trooper

import geom3d.exposure.document as exposure_doc
import geom3d.survey.document as survey_doc
from geom3d.adjudication import lof
from geom3d.bodies.cylinder import Cylinder
from geom3d.bodies.kernel_constants import PROOF_CLEARANCE_MM, SURFACE_BOX_PAD_MM
from geom3d.exposure import run_exposure
from geom3d.mesh.primitives import box_mesh, prism_mesh
from geom3d.raycast import RayEngine
from geom3d.scene.scene import Scene
from geom3d.survey.document import run_survey
from geom3d.visibility import ApparentView, PatchLattice, VisibilityStats
from geom3d.visibility._convex_kernels import eye_outside, segment_blocked
from geom3d.visibility._outline_kernels import (
    OUTLINE_INSET,
    column_cross,
    column_span,
    convex_scratch,
    eye_outlines,
    silhouette,
)
from geom3d.visibility.convex import NO_SOLIDS, ConvexSolids, cylinder_row

TABLE = {"size": [400, 400]}


# --------------------------------------------------------------------------------------
# one segment: what a piece settles, Embree finds blocked
# --------------------------------------------------------------------------------------


def _rotation(rng, kind):
    """The identity, a yaw, or any rotation."""
    if kind == 0:
        return np.eye(3)
    if kind == 1:
        yaw = rng.uniform(0, 2 * np.pi)
        c, s = math.cos(yaw), math.sin(yaw)
        return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])
    q, r = np.linalg.qr(rng.normal(size=(3, 3)))
    q = q * np.sign(np.diag(r))
    return q if np.linalg.det(q) > 0 else -q


def _edge_segments(rng, h, n):
    """(n, 3) pairs of box-frame points (half sizes ``h``): starts 0.5 um .. 10 mm off a
    face (some on its centre line), ends through the middle (crossing faces on their
    diagonals), anywhere inside, 5 um outside .. 11 um inside a face, or past an edge at
    that depth from both its faces."""
    rows = np.arange(n)
    p = rng.uniform(-1, 1, (n, 3)) * h
    p[rng.random(n) < 0.3] = 0.0
    k = rng.integers(0, 3, n)
    off = rng.choice([5e-4, 0.005, 0.0099, 0.01, 0.0100001, 0.0101, 0.011, 0.02, 1.0, 10.0], n)
    p[rows, k] = rng.choice([-1, 1], n) * (h[k] + off)
    deep = rng.choice([-0.005, -5e-4, 5e-4, 0.005, 0.0099, 0.01, 0.0101, 0.0102, 0.011], n)
    q = rng.uniform(-1, 1, (n, 3)) * h
    mode = rng.integers(0, 4, n)
    q[mode == 0] = -p[mode == 0]  # mirrored through the middle
    ka, kb = k, (k + 1 + rng.integers(0, 2, n)) % 3
    face = mode >= 2
    q[face, ka[face]] = rng.choice([-1, 1], face.sum()) * (h[ka[face]] - deep[face])
    edge = mode == 3
    q[edge, kb[edge]] = rng.choice([-1, 1], edge.sum()) * (h[kb[edge]] - deep[edge])
    q[edge] = p[edge] + 2.0 * (q[edge] - p[edge])  # on past the edge
    return p, q


@pytest.mark.parametrize("seed", range(12))
def test_segments_a_piece_settles_are_blocked_by_embree(seed):
    rng = np.random.default_rng(seed)
    size = rng.uniform(0.05, 2.0, 3) if seed % 4 == 3 else rng.uniform(5, 100, 3)
    rot = _rotation(rng, seed % 3)
    centre = rng.uniform(-1000, 1000, 3) if seed % 2 else np.zeros(3)
    v, f = box_mesh(size)
    v = (v - (0, 0, size[2] / 2)) @ rot.T + centre
    piece = ConvexSolids.from_mesh(v, f, np.zeros(len(f)))
    p, q = (x @ rot.T + centre for x in _edge_segments(rng, size / 2, 3000))
    p, q = np.vstack([p, q]), np.vstack([q, p])  # both ways
    eps = PROOF_CLEARANCE_MM
    settled = np.array(
        [
            segment_blocked(piece.planes, piece.off, a, b, eps, eps)
            for a, b in zip(p, q, strict=True)
        ]
    )
    hit = RayEngine(v, f).occluded_segments(p, q)
    assert 0.2 * len(p) < settled.sum() < len(p)
    assert not (settled & ~hit).any(), (p[settled & ~hit][:2], q[settled & ~hit][:2])


# --------------------------------------------------------------------------------------
# apparent outlines against a slab clipper
# --------------------------------------------------------------------------------------


def _cylinder_distance(e, cyl):
    """Distance (mm) from point ``e`` to the solid cylinder."""
    b = cyl.base_array
    dxy = max(math.hypot(e[0] - b[0], e[1] - b[1]) - cyl.radius, 0.0)
    dz = max(b[2] - e[2], e[2] - cyl.top_z, 0.0)
    return math.hypot(dxy, dz)


def _ray_meets_box(e, d, far, centre, rot, half):
    """Does the ray ``e + l d`` (``|d| = 1``) meet the box (centre, rotation, half sizes)
    at some ``0 <= l < far``? Slab clipping in the box's frame."""
    o, w = rot.T @ (e - centre), rot.T @ d
    lo, hi = 0.0, far
    for k in range(3):
        if abs(w[k]) < 1e-300:
            if abs(o[k]) >= half[k]:
                return False
            continue
        a, b = (-half[k] - o[k]) / w[k], (half[k] - o[k]) / w[k]
        lo, hi = max(lo, min(a, b)), min(hi, max(a, b))
    return lo < hi


@pytest.mark.parametrize("seed", range(5))
def test_samples_inside_an_outline_have_rays_through_the_shrunk_piece(seed):
    rng = np.random.default_rng(seed)
    target = Cylinder((0.0, 0.0, rng.uniform(0, 20)), rng.uniform(10, 30), rng.uniform(25, 70))
    head = rng.uniform(0, 2 * np.pi)
    dist = rng.uniform(150, 400)
    spot = np.array([dist * math.cos(head), dist * math.sin(head), rng.uniform(0, 80)])
    eyes = spot + rng.uniform(-15, 15, (24, 3))
    size = rng.uniform(10, 60, 3)
    rot = _rotation(rng, 2)
    centre = spot + rng.uniform(0.35, 0.65) * (target.center - spot)
    v, f = box_mesh(size)
    v = (v - (0, 0, size[2] / 2)) @ rot.T + centre
    piece = ConvexSolids.from_mesh(v, f, np.zeros(len(f)))
    assert len(piece) == 1
    planes, off, inner, inner_off = piece.packed
    _, hulls, pts, _, _, _, _ = convex_scratch(piece.packed)
    view = ApparentView(eyes, target)
    step = PatchLattice().coarse_mm
    s0, s1, t0, t1 = 2.0 * np.array(view.extent())  # the target's view, and around it
    ks = np.arange(math.floor(s0 / step), math.ceil(s1 / step) + 1) * step
    ts = np.arange(math.floor(t0 / step), math.ceil(t1 / step) + 1) * step
    half = size / 2 - PROOF_CLEARANCE_MM
    n_in = n_all = n_miss = 0
    for i, e in enumerate(eyes):
        far = _cylinder_distance(e, target)
        assert eye_outside(planes, 0, 6, *e, PROOF_CLEARANCE_MM)
        h = silhouette(inner, 0, 8, e, view.u[i], view.v[i], view.c, far, pts, hulls[0])
        for s in ks:
            lo, hi = column_span(hulls[0], h, s, OUTLINE_INSET) if h else (1.0, 0.0)
            for t in ts:
                p = view.c + s * view.u[i] + t * view.v[i]
                d = (p - e) / np.linalg.norm(p - e)
                hit = _ray_meets_box(e, d, far, centre, rot, half)
                n_all += 1
                n_miss += not hit
                if lo < t < hi:
                    n_in += 1
                    assert hit, (seed, i, s, t)
    assert off.tolist() == [0, 6] and inner_off.tolist() == [0, 8]
    assert n_miss > 0  # the clipper does say no
    # a decent share is settled: almost every ray through the piece (its inner points lie
    # only 2 PROOF_CLEARANCE_MM inside it)
    assert n_in > 0.3 * n_all and n_in > 0.9 * (n_all - n_miss), (n_in, n_miss, n_all)


def _outlines_by_hand(e, u, v, c, target, box, piece, pts, hull):
    """What :func:`eye_outlines` keeps, written out piece by piece without its pre-test:
    ``[(piece, outline, s range)]`` of the pieces the eye is clear of whose outline
    (nearer than the target's padded box) overlaps ``box``."""
    row = cylinder_row(target)
    pad = SURFACE_BOX_PAD_MM
    dxy = math.hypot(e[0] - row[0], e[1] - row[1]) - row[3] - pad
    dz = max(row[2] - e[2], e[2] - row[2] - row[4]) - pad
    near = math.hypot(max(dxy, 0.0), max(dz, 0.0))
    kept = []
    for q in range(len(piece)):
        j0, j1 = piece.off[q], piece.off[q + 1]
        if not eye_outside(piece.planes, j0, j1, *e, PROOF_CLEARANCE_MM):
            continue
        k0, k1 = piece.inner_off[q], piece.inner_off[q + 1]
        h = silhouette(piece.inner, k0, k1, e, u, v, c, near, pts, hull)
        if h < 3:
            continue
        s, t = hull[:h, 0], hull[:h, 1]
        if s.min() < box[1] and s.max() > box[0] and t.min() < box[3] and t.max() > box[2]:
            kept.append((q, hull[:h].copy(), (s.min(), s.max())))
    return kept


@pytest.mark.parametrize("seed", range(4))
def test_eye_outlines_pass_over_only_pieces_beside_the_rectangle(seed):
    # eye_outlines skips a piece whose inner points all project beyond one side of the
    # apparent rectangle before making its outline: the outlines it keeps are exactly
    # those of the piece-by-piece test, and the skip does happen
    rng = np.random.default_rng(100 + seed)
    target = Cylinder((0.0, 0.0, 0.0), 12.5, 40.0)
    boxes = []
    for _ in range(24):
        size = rng.uniform(4, 60, 3)
        v, f = box_mesh(size)
        spot = rng.uniform((-300, -150, -20), (-40, 150, 60))
        boxes.append(ConvexSolids.from_mesh(v @ _rotation(rng, 1).T + spot, f, np.zeros(12)))
    pieces = boxes[0]
    for b in boxes[1:]:
        pieces = pieces.joined(b)
    planes, off, inner, inner_off = pieces.packed
    _, hulls, pts, hull_n, _, hull_s, sides = convex_scratch(pieces.packed)
    hand = np.empty_like(hulls[0])
    eyes = rng.uniform((-420, -60, 5), (-320, 60, 60), (20, 3))
    view = ApparentView(eyes, target)
    s0, s1, t0, t1 = view.extent()
    row = cylinder_row(target)
    n_skipped = n_kept = 0
    for i, e in enumerate(eyes):
        a, b = rng.uniform(s0, s1, 2), rng.uniform(t0, t1, 2)
        box = (min(a), max(a), min(b), max(b))
        u, w = view.u[i], view.v[i]
        n = eye_outlines(
            e, u, w, view.c, row, box, planes, off, inner, inner_off, PROOF_CLEARANCE_MM,
            pts, hulls, hull_n, hull_s, sides,
        )  # fmt: skip
        want = _outlines_by_hand(e, u, w, view.c, target, box, pieces, pts, hand)
        assert n == len(want)
        for k, (_, outline, s_range) in enumerate(want):
            assert hull_n[k] == len(outline)
            np.testing.assert_array_equal(hulls[k, : hull_n[k]], outline)
            assert tuple(hull_s[k]) == s_range
        n_kept += n
        # pieces clear of the eye whose points all project beyond one side of the box
        r = inner - e
        depth = r @ np.cross(w, u)
        st = (view.c - e) @ np.cross(w, u) * (r @ np.stack([u, w]).T) / depth[:, None]
        st += (e - view.c) @ np.stack([u, w]).T
        for q in range(len(pieces)):
            p = st[inner_off[q] : inner_off[q + 1]]
            beside = (p[:, 0] < box[0]).all() or (p[:, 0] > box[1]).all()
            beside |= (p[:, 1] < box[2]).all() or (p[:, 1] > box[3]).all()
            in_front = (depth[inner_off[q] : inner_off[q + 1]] > 0).all()
            clear = eye_outside(planes, off[q], off[q + 1], *e, PROOF_CLEARANCE_MM)
            n_skipped += bool(beside and in_front and clear)
    assert n_kept > 10 and n_skipped > 50, (n_kept, n_skipped)


def test_a_column_inside_the_s_range_crosses_as_column_span_says():
    # the ray loop asks column_cross only for lines inside an outline's s range
    hull = np.array([[0.0, 0.0], [4.0, 1.0], [5.0, 6.0], [1.0, 5.0], [0.0, 0.0]])
    for s in (0.5, 1.0, 2.5, 4.0, 4.9):
        assert column_cross(hull, 4, s, OUTLINE_INSET) == column_span(hull, 4, s, OUTLINE_INSET)
    lo, hi = column_cross(hull, 4, 2.5, 0.0)
    assert (lo, hi) == pytest.approx((0.625, 5.375))  # edges (0,0)-(4,1) and (5,6)-(1,5)
    assert column_span(hull, 4, 5.0, OUTLINE_INSET) == (1.0, 0.0)


# --------------------------------------------------------------------------------------
# Line of Fire matrices
# --------------------------------------------------------------------------------------


def _no_pieces(monkeypatch):
    monkeypatch.setattr(Scene, "convex_solids", property(lambda self: NO_SOLIDS))


def _matrix(troopers, scenery, threads=1, **extra):
    """Answers and counters of a fresh scene's matrix, and its piece count."""
    scene = make_scene(troopers, scenery, table=TABLE, **extra)
    scene.visibility_cache.clear()
    stats = VisibilityStats()
    out = lof_answers(lof.lof_matrix(scene, threads=threads, stats=stats))
    return out, stats, len(scene.convex_solids)


def _same_with_and_without(monkeypatch, troopers, scenery, pieces, **extra):
    """The matrix with the pieces (``pieces`` of them) and without: the same answers.
    Returns the answers and the counters with the pieces."""
    got, stats, n = _matrix(troopers, scenery, **extra)
    assert n == pieces
    _no_pieces(monkeypatch)
    want, plain, none = _matrix(troopers, scenery, **extra)
    assert none == 0 and plain.pairs_convex == plain.outlined == 0
    assert got == want
    seen = [a[4] for a in got]
    assert any(seen) and not all(seen)  # walls block some pairs, not all
    monkeypatch.undo()
    return got, stats


def _beside(pos, size, yaw_deg, gap, along, r=12.5):
    """A base centre ``gap`` mm off the box's local +x face, ``along`` mm along it."""
    c, s = math.cos(math.radians(yaw_deg)), math.sin(math.radians(yaw_deg))
    lx = size[0] / 2 + r + gap
    return [pos[0] + c * lx - s * along, pos[1] + s * lx + c * along]


def _random_table(seed):
    """3-6 rotated boxes, tall or low, some with an S2 trooper (25 mm base) touching one
    of their faces or 5, 10, 15 um or 1 mm from it, some with one standing on top, and
    the rest of 6-10 troopers scattered (at least 45 mm apart)."""
    rng = np.random.default_rng(seed)
    boxes, ts, spots = [], [], []
    for k in range(int(rng.integers(3, 7))):
        tall = rng.random() < 0.5
        size = [*rng.uniform(8, 80, 2), rng.uniform(50, 90) if tall else rng.uniform(3, 25)]
        yaw = float(rng.choice([0.0, 90.0, rng.uniform(0, 360)]))
        pos = rng.uniform(60, 340, 2)
        boxes.append(box(f"b{k}", size, list(pos), yaw))
        if rng.random() < 0.6:
            gap = float(rng.choice([0.0, 0.005, 0.01, 0.015, 1.0]))
            p = _beside(pos, size, yaw, gap, rng.uniform(-0.4, 0.4) * size[1])
            ts.append(trooper(f"n{k}", p, side="blue", facing_deg=yaw + 180))
            spots.append(np.array(p))
        if not tall and rng.random() < 0.4:
            ts.append(trooper(f"o{k}", list(pos), side="red", silhouette=1))
            spots.append(pos)
    n = int(rng.integers(6, 11))
    while len(ts) < n:
        p = rng.uniform(20, 380, 2)
        if all(np.hypot(*(p - q)) > 45 for q in spots):
            spots.append(p)
            side = ("blue", "red")[len(ts) % 2]
            sil = int(rng.choice([1, 2, 3, 5]))
            ts.append(trooper(f"t{len(ts)}", list(p), side=side, silhouette=sil))
    return ts, boxes


@pytest.mark.parametrize("seed", range(5))
def test_random_tables_give_the_same_matrix_with_and_without_pieces(monkeypatch, seed):
    ts, boxes = _random_table(seed)
    _, stats = _same_with_and_without(monkeypatch, ts, boxes, pieces=len(boxes))
    assert stats.pairs_convex + stats.outlined > 0


def test_troopers_touching_a_wall_and_on_a_block(monkeypatch):
    # a wall x 190..210, y 100..300, 80 tall; S2 troopers (r 12.5) at its -x face
    # touching it, 5 um, 10.1 um and 20 um off (eyes, inset 10 um, lie 10 .. 30 um from
    # it: about the pieces' clearance), and one at its +x face; a low block (x 60..100,
    # y 40..80, 10 tall) with a trooper on top, its eyes 0.5 mm above the block's top
    wall = box("wall", [20, 200, 80], [200, 200])
    block = box("block", [40, 40, 10], [80, 60])
    ts = [
        trooper("t0", [177.5, 130], facing_deg=180),
        trooper("t5", [177.5 - 0.005, 170], facing_deg=180),
        trooper("t10", [177.5 - 0.0101, 230], facing_deg=180),
        trooper("t20", [177.5 - 0.02, 270], facing_deg=180),
        trooper("e0", [222.5, 200], side="red", facing_deg=0),
        trooper("top", [80, 60], side="red", silhouette=1),
        trooper("far", [330, 200], side="red", facing_deg=180),
        trooper("open", [60, 330], side="red"),
    ]
    got, stats = _same_with_and_without(monkeypatch, ts, [wall, block], pieces=2)
    assert _matrix(ts, [wall, block], threads=2)[0] == got  # the pieces shared by threads
    vis = {(a[0], a[1]): a[4] for a in got}
    # across the wall: every segment from t0 (x <= 190) to far (x >= 317.5) stays below
    # z 40 < 80 and within y 117.5..212.5, inside the wall's span: blocked
    assert not vis[("t0", "far")] and not vis[("t0", "e0")]
    assert vis[("t0", "t5")] and vis[("t0", "open")] and not vis[("top", "far")]
    # top stands 10 mm up: the segments between its prism's corners and far's cross the
    # wall well above its foot, so the wall settles that pair whole (a pair on the floor
    # both sides is not: their prisms' bottom corners pass under it)
    assert stats.pairs_convex >= 1 and stats.eyes_proved > 0


def _write_obj(path, v, f):
    lines = [f"v {x:.17g} {y:.17g} {z:.17g}" for x, y, z in np.asarray(v, float)]
    lines += [f"f {a + 1} {b + 1} {c + 1}" for a, b, c in np.asarray(f, int)]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_open_and_closed_mesh_pieces_and_smoke(monkeypatch, tmp_path):
    # a crate without a lid (60 x 60 x 40, solid: surface): open, so no piece; a closed
    # box mesh, a slab leaning 35° about x and a hexagonal pillar (auto): pieces; a smoke
    # zone (a box, blocks_lof) with a trooper inside; a box that does not block
    # (blocks_lof false): no piece
    v, f = box_mesh((60, 60, 40))
    crate = _write_obj(tmp_path / "crate.obj", v, f[np.r_[0:2, 4:12]])
    closed = _write_obj(tmp_path / "closed.obj", *box_mesh((30, 80, 70)))
    v, f = box_mesh((50, 10, 70))
    c, s = math.cos(math.radians(35)), math.sin(math.radians(35))
    lean = _write_obj(tmp_path / "lean.obj", v @ np.array([[1, 0, 0], [0, c, s], [0, -s, c]]), f)
    ang = np.radians(60.0 * np.arange(6) + 10.0)
    hexa = _write_obj(
        tmp_path / "hex.obj", *prism_mesh(25.0 * np.column_stack([np.cos(ang), np.sin(ang)]), 60)
    )
    scenery = [
        {"id": "crate", "mesh": crate, "position": [120, 120], "solid": "surface"},
        {"id": "closed", "mesh": closed, "position": [260, 200], "rotation_deg": 30},
        {"id": "hex", "mesh": hexa, "position": [150, 300]},
        {"id": "lean", "mesh": lean, "position": [60, 130], "rotation_deg": 20},
        box("ghost", [20, 200, 90], [200, 60], blocks_lof=False),
    ]
    zones = [
        {"id": "smoke", "kind": "smoke", "rect": [300, 40, 360, 100], "height_mm": 50,
         "blocks_lof": True},
    ]  # fmt: skip
    ts = [
        trooper("in-crate", [120, 120], silhouette=1),
        trooper("by-crate", [120, 150 + 12.5 + 0.01]),
        trooper("in-smoke", [330, 70], side="red"),
        trooper("w", [40, 220]),
        trooper("x", [360, 250], side="red"),
        trooper("y", [200, 370], side="red"),
        trooper("z", [60, 40], side="red"),
        trooper("u", [330, 170], side="red"),
    ]
    got, stats = _same_with_and_without(
        monkeypatch, ts, scenery, pieces=4, terrain_zones=zones
    )  # the closed box, the pillar, the slab and the smoke
    assert stats.pairs_convex + stats.outlined + stats.eyes_proved > 0
    vis = {(a[0], a[1]): a[4] for a in got}
    assert not vis[("in-smoke", "z")]  # smoke blocks its own trooper's view out
    assert vis[("w", "z")]  # through the box that does not block


# --------------------------------------------------------------------------------------
# exposure maps and surveys
# --------------------------------------------------------------------------------------

WALL = box("wall", [20, 100, 80], [200, 200])  # x 190..210, y 150..250, 80 tall


def _spy(monkeypatch, module, name):
    """Record the job each call of ``module.name`` gets; returns that list."""
    jobs = []
    real = getattr(module, name)

    def spy(job, **kw):
        jobs.append(job)
        return real(job, **kw)

    monkeypatch.setattr(module, name, spy)
    return jobs


def _same_documents(on, off) -> None:
    """The two runs' documents agree in everything but their timings."""
    assert {k: v for k, v in on.document.items() if k != "timing"} == {
        k: v for k, v in off.document.items() if k != "timing"
    }


def test_exposure_map_is_the_same_with_the_pieces(monkeypatch):
    jobs = _spy(monkeypatch, exposure_doc, "visible_tasks")
    ts = [trooper("o", [50, 200], side="red"), trooper("p", [140, 260], side="red")]
    scene = make_scene(ts, [WALL, box("post", [20, 20, 60], [300, 100], 30)], table=TABLE)
    on = run_exposure(scene, observers="red", spacing_mm=25, workers=1)
    off = run_exposure(scene, observers="red", spacing_mm=25, workers=1, proofs=False)
    assert len(jobs[0].solids) == 2 and jobs[1].solids is NO_SOLIDS
    assert on.seen.tolist() == off.seen.tolist()
    assert on.seen.any() and not on.seen.all()
    _same_documents(on, off)
    c, c_off = on.counters, off.counters
    assert c["pairs_convex"] + c["outlined"] > 0
    assert c_off["pairs_convex"] == c_off["outlined"] == 0
    assert c["cast"] < c_off["cast"]


def test_survey_is_the_same_with_the_pieces(monkeypatch):
    jobs = _spy(monkeypatch, survey_doc, "visible_pairs")
    # a sunk wall (z -10..80) and a post on the floor, on a 300 x 300 table at 50 mm
    walls = [box("wall", [20, 200, 90], [150, 150, -10]), box("post", [30, 30, 50], [60, 240])]
    scene = make_scene([], walls, table={"size": [300, 300]})
    on = run_survey(scene, spacing_mm=50, workers=1)
    off = run_survey(scene, spacing_mm=50, workers=1, proofs=False)
    assert len(jobs[0].solids) == 2 and jobs[1].solids is NO_SOLIDS
    assert on.visible.tolist() == off.visible.tolist()
    assert on.visible.any() and not on.visible.all()
    _same_documents(on, off)
    # points either side of the sunk wall: whole pairs settled by it
    assert on.counters["pairs_convex"] > 0 and off.counters["pairs_convex"] == 0
