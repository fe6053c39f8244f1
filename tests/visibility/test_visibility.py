"""Unit tests of the visibility core: eye points, apparent view, windows, the search.

Geometry is hand-computed; cylinders are ``Cylinder(base, radius, height)`` in mm.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from geom3d.bodies.cylinder import Cylinder
from geom3d.core.tolerances import EYE_SPACING_MM, STAND_INSET_MM, SURFACE_INSET_MM
from geom3d.raycast import RayEngine
from geom3d.visibility import (
    ApparentView,
    PatchLattice,
    VisibilityStats,
    eye_points,
    find_patch,
    full_windows,
    search_patch,
)
from geom3d.visibility.eyes import eye_count

VIEWER = Cylinder((0.0, 0.0, 0.0), 12.5, 40.0)
NO_SCENERY = RayEngine(np.zeros((0, 3)), np.zeros((0, 3), dtype=np.int64))


def _boxes(*boxes):
    """A RayEngine over axis-aligned boxes given as (lo, hi) corners (mm)."""
    faces = [[0, 2, 1], [0, 3, 2], [4, 5, 6], [4, 6, 7], [0, 1, 5], [0, 5, 4],
             [1, 2, 6], [1, 6, 5], [2, 3, 7], [2, 7, 6], [3, 0, 4], [3, 4, 7]]  # fmt: skip
    vs, fs = [], []
    for k, (lo, hi) in enumerate(boxes):
        (x0, y0, z0), (x1, y1, z1) = lo, hi
        vs += [[x0, y0, z0], [x1, y0, z0], [x1, y1, z0], [x0, y1, z0],
               [x0, y0, z1], [x1, y0, z1], [x1, y1, z1], [x0, y1, z1]]  # fmt: skip
        fs += [[i + 8 * k for i in f] for f in faces]
    return RayEngine(np.array(vs, dtype=float), np.array(fs))


# --------------------------------------------------------------------------------------
# eye points
# --------------------------------------------------------------------------------------


def test_eye_points_cover_the_facing_half_at_spacing():
    target = Cylinder((200.0, 0.0, 0.0), 12.5, 40.0)  # straight along +x, same height
    eyes = eye_points(VIEWER, target)
    r = VIEWER.radius - SURFACE_INSET_MM
    assert np.allclose(np.hypot(eyes[:, 0], eyes[:, 1]), r)  # all on the mantle: no caps
    ang = np.degrees(np.arctan2(eyes[:, 1], eyes[:, 0]))
    assert ang.min() == pytest.approx(-90.0) and ang.max() == pytest.approx(90.0)
    # consecutive columns and rows are at most EYE_SPACING_MM apart (arc length, height)
    cols = np.unique(np.round(ang, 9))
    assert np.diff(np.radians(cols)).max() * r <= EYE_SPACING_MM + 1e-9
    rows = np.unique(np.round(eyes[:, 2], 9))
    assert rows[0] == pytest.approx(STAND_INSET_MM)
    assert rows[-1] == pytest.approx(40.0 - SURFACE_INSET_MM)
    assert np.diff(rows).max() <= EYE_SPACING_MM + 1e-9
    # every (column, row) once; the first eye faces the target from the top row
    assert len(eyes) == len(cols) * len(rows)
    assert np.allclose(eyes[0], [r, 0.0, 40.0 - SURFACE_INSET_MM])


def test_eye_points_add_the_top_cap_for_a_taller_target_and_all_round_for_one_above():
    tall = Cylinder((200.0, 0.0, 0.0), 12.5, 80.0)
    eyes = eye_points(VIEWER, tall)
    cap = eyes[np.isclose(eyes[:, 2], 40.0 - SURFACE_INSET_MM)]
    inner = cap[np.hypot(cap[:, 0], cap[:, 1]) < VIEWER.radius - SURFACE_INSET_MM - 1e-6]
    assert len(inner) > 0  # points inside the top disc
    above = Cylinder((0.0, 0.0, 100.0), 12.5, 40.0)  # straight above: the whole mantle
    ang = np.arctan2(*eye_points(VIEWER, above)[:, 1::-1].T)
    assert np.ptp(ang) > 1.9 * math.pi


def test_eye_points_limit_gives_the_first_points_to_the_last_bit():
    rng = np.random.default_rng(11)
    for _ in range(300):
        viewer = Cylinder(tuple(rng.uniform(-500, 500, 3)), rng.uniform(5, 30), rng.uniform(8, 60))
        above = rng.random() < 0.2  # straight above or below: the whole mantle, and caps
        xy = viewer.base[:2] if above else tuple(rng.uniform(-500, 500, 2))
        target = Cylinder((*xy, rng.uniform(-100, 100)), rng.uniform(5, 30), rng.uniform(8, 90))
        whole = eye_points(viewer, target)
        for k in (0, 1, 9, 73, len(whole) - 1, len(whole), len(whole) + 5):
            head = eye_points(viewer, target, limit=k)
            assert head.shape == whole[:k].shape
            assert head.tobytes() == whole[:k].tobytes(), k


def test_eye_count_is_the_number_of_eye_points():
    # a pair's proof is sized by eye_count before any eye is made: the same number
    rng = np.random.default_rng(12)
    for _ in range(2000):
        viewer = Cylinder(tuple(rng.uniform(-500, 500, 3)), rng.uniform(5, 30), rng.uniform(8, 60))
        above = rng.random() < 0.2  # straight above or below: the whole mantle, and caps
        xy = viewer.base[:2] if above else tuple(rng.uniform(-500, 500, 2))
        target = Cylinder((*xy, rng.uniform(-100, 100)), rng.uniform(5, 30), rng.uniform(8, 90))
        spacing = float(rng.choice([EYE_SPACING_MM, 1.0, 3.7]))
        assert eye_count(viewer, target, spacing) == len(eye_points(viewer, target, spacing))


# --------------------------------------------------------------------------------------
# apparent view
# --------------------------------------------------------------------------------------


def test_apparent_view_frame_is_orthonormal_with_u_horizontal_and_v_up():
    rng = np.random.default_rng(3)
    target = Cylinder((100.0, 20.0, 5.0), 12.5, 40.0)
    eyes = rng.uniform([-50, -50, 0], [50, 50, 80], size=(40, 3))
    view = ApparentView(eyes, target)
    for a in (view.u, view.v, view.w):
        assert np.allclose(np.linalg.norm(a, axis=1), 1.0)
    assert np.allclose(np.einsum("ek,ek->e", view.u, view.v), 0.0)
    assert np.allclose(np.einsum("ek,ek->e", view.u, view.w), 0.0)
    assert np.allclose(np.einsum("ek,ek->e", view.v, view.w), 0.0)
    assert np.allclose(view.u[:, 2], 0.0) and (view.v[:, 2] > 0).all()
    w = (target.center - eyes) / np.linalg.norm(target.center - eyes, axis=1)[:, None]
    assert np.allclose(view.w, w)
    # a point of the apparent plane projects to its own (s, t)
    s, t, depth = view.project(np.array([target.center + 3.0 * view.u[0] - 2.0 * view.v[0]]))
    assert s[0, 0] == pytest.approx(3.0) and t[0, 0] == pytest.approx(-2.0)
    assert depth[0, 0] == pytest.approx(view.dist[0])


# --------------------------------------------------------------------------------------
# windows and lattices
# --------------------------------------------------------------------------------------


def test_full_windows_find_exactly_the_clear_4x4_windows():
    block = np.zeros((1, 8, 9), dtype=bool)
    block[0, 2:6, 3:7] = True  # one 4 x 4 clear square
    full = full_windows(block, 4)
    assert full.shape == (1, 5, 6)
    assert np.argwhere(full[0]).tolist() == [[2, 3]]
    block[0, 4, 5] = False  # one blocked sample: no window
    assert not full_windows(block, 4).any()
    block[0, 1:5, 1:4] = True  # 4 x 3 clear: still none
    assert not full_windows(block, 4).any()
    block[:] = False
    block[0, 1:6, 1:6] = True  # 5 x 5 clear: four 4 x 4 windows, one 5 x 5 window
    assert full_windows(block, 4).sum() == 4
    assert np.argwhere(full_windows(block, 5)[0]).tolist() == [[1, 1]]


def test_patch_lattice_follows_the_patch_size():
    lat = PatchLattice()
    assert (lat.patch_mm, lat.window, lat.coarse_mm, lat.coarse_step) == (3.0, 4, 4.0, 4)
    lat = PatchLattice(4.0)
    assert (lat.window, lat.coarse_mm, lat.coarse_step) == (5, 5.0, 5)
    with pytest.raises(ValueError, match="whole multiple"):
        PatchLattice(3.5)
    with pytest.raises(ValueError, match="whole multiple"):
        PatchLattice(0.0)


# --------------------------------------------------------------------------------------
# the search, over a synthetic predicate: the guarantees
# --------------------------------------------------------------------------------------


class _Square:
    """Predicate: a sample counts when its apparent point lies in [s0, s0+L] x [t0, t0+L]."""

    def __init__(self, s0, t0, side):
        self.s0, self.t0, self.side = s0, t0, side
        self.stats = VisibilityStats()

    def __call__(self, view, eye_idx, s, t):
        ok = (s >= self.s0) & (s <= self.s0 + self.side)
        ok &= (t >= self.t0) & (t <= self.t0 + self.side)
        return ok, np.zeros((len(s), 3))


BIG = Cylinder((300.0, 0.0, 0.0), 60.0, 120.0)  # apparent view about 120 x 130 mm
ONE_EYE = np.array([[0.0, 0.0, 60.0]])


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.floats(-40, 40), st.floats(-40, 40))
def test_a_4mm_square_is_always_found_and_a_smaller_than_3mm_one_never(s0, t0):
    hit = search_patch(ONE_EYE, BIG, _Square(s0, t0, 4.0), PatchLattice())
    assert hit is not None
    lo_s, lo_t = (c * 1.0 for c in hit.corner)
    assert s0 <= lo_s and lo_s + 3.0 <= s0 + 4.0  # the window lies inside the square
    assert t0 <= lo_t and lo_t + 3.0 <= t0 + 4.0
    assert search_patch(ONE_EYE, BIG, _Square(s0, t0, 2.99), PatchLattice()) is None


@settings(max_examples=30, deadline=None, derandomize=True)
@given(st.floats(-40, 40), st.floats(-40, 40))
def test_patch_size_is_a_parameter_of_the_search(s0, t0):
    # a 5 mm square is always found with a 4 mm patch; a 3.99 mm one never is
    assert search_patch(ONE_EYE, BIG, _Square(s0, t0, 5.0), PatchLattice(4.0)) is not None
    assert search_patch(ONE_EYE, BIG, _Square(s0, t0, 3.99), PatchLattice(4.0)) is None


# --------------------------------------------------------------------------------------
# find_patch on real geometry
# --------------------------------------------------------------------------------------


def test_fully_clear_view_reports_the_whole_target():
    target = Cylinder((400.0, 0.0, 0.0), 12.5, 40.0)
    stats = VisibilityStats()
    w = find_patch(VIEWER, target, NO_SCENERY, [], stats=stats)
    assert w is not None and stats.eyes == 1  # the first eye sees it
    assert np.allclose(w.eye, [12.49, 0.0, 39.99])
    # seen from about 390 mm the silhouette shows about 25 x 40 = 1000 mm² (1 mm samples)
    assert w.visible_area_mm2 == pytest.approx(1000.0, rel=0.06)
    assert target.contains(np.array([w.patch_center]), eps=1e-6)[0]


def test_hole_of_3_5mm_is_seen_with_a_3mm_patch_and_not_with_4mm():
    """A 0.5 mm wall at x 186.0..186.5 with a 3.5 x 3.5 mm hole, 13.5 mm in front of the
    target's axis (target base (200, 0, 19.99), radius 12.5, height 40: centre z 39.99).

    The first eye, (12.49, 0, 39.99), looks along +x at the centre: u = (0, -1, 0),
    v = (0, 0, 1), dist 187.51. A ray through apparent (s, t) crosses the wall faces at
    k0 = 173.51 / 187.51 = 0.92534 and k1 = 174.01 / 187.51 = 0.92800 of the way, so with
    the hole at y in [-4.0, -0.5], z in [40.49, 43.99] (0.5 mm off the line of sight) the
    clear samples are s, t in [0.5 / k0, 4.0 / k1] = [0.540, 4.310]: samples 1, 2, 3, 4 on
    both axes, a full 4 x 4 window (3 mm patch). From every eye the hole spans at most
    3.5 * dist / depth <= 3.5 * 187.51 / 174.0 = 3.77 mm apparent (< 4): never 5 x 5
    samples, so no 4 mm patch.
    """
    target = Cylinder((200.0, 0.0, 19.99), 12.5, 40.0)
    x0, x1 = 186.0, 186.5
    eng = _boxes(
        ((x0, -60.0, -10.0), (x1, -4.0, 120.0)),  # south of the hole
        ((x0, -0.5, -10.0), (x1, 60.0, 120.0)),  # north
        ((x0, -4.0, -10.0), (x1, -0.5, 40.49)),  # below
        ((x0, -4.0, 43.99), (x1, -0.5, 120.0)),  # above
    )
    blocked = _boxes(((x0, -60.0, -10.0), (x1, 60.0, 120.0)))
    assert find_patch(VIEWER, target, blocked, []) is None  # no hole: nothing seen
    w = find_patch(VIEWER, target, eng, [], patch_mm=3.0)
    assert w is not None
    assert np.allclose(w.eye, [12.49, 0.0, 39.99])
    # the patch centre is behind the hole: apparent (2.5, 2.5), i.e. y < 0, z > 39.99
    assert w.patch_center[1] < -1.0 and w.patch_center[2] > 41.0
    assert find_patch(VIEWER, target, eng, [], patch_mm=4.0) is None


def test_occluding_trooper_blocks_and_is_culled_when_out_of_the_way():
    target = Cylinder((200.0, 0.0, 0.0), 12.5, 40.0)
    wall = Cylinder((100.0, 0.0, 0.0), 40.0, 100.0)  # hides the target completely
    aside = Cylinder((100.0, 300.0, 0.0), 40.0, 100.0)
    assert find_patch(VIEWER, target, NO_SCENERY, [wall]) is None
    assert find_patch(VIEWER, target, NO_SCENERY, [aside]) is not None


def test_culled_occluders_never_meet_a_segment_between_the_pair():
    """An occluder is dropped only when no segment between points of the two troopers
    can meet it; near misses beside the line between them are kept."""
    from proof_support import through_cylinders

    from geom3d.visibility import cull_occluders

    rng = np.random.default_rng(11)
    a = Cylinder((0.0, 0.0, 0.0), 12.5, 40.0)
    b = Cylinder((300.0, 120.0, 5.0), 20.0, 55.0)
    occ = [
        Cylinder((float(x), float(y), 0.0), float(r), 60.0)
        for x, y, r in zip(
            rng.uniform(-30, 330, 400),
            rng.uniform(-40, 160, 400),
            rng.uniform(5, 30, 400),
            strict=True,
        )
    ]
    kept = {id(c) for c in cull_occluders(a, b, occ)}
    dropped = [c for c in occ if id(c) not in kept]
    # the joint bounding box alone keeps them all: the line test does the culling here
    assert len(dropped) > 100 and len(kept) > 50

    def points(cyl, n):
        r = cyl.radius * np.sqrt(rng.uniform(0, 1, n))
        t = rng.uniform(0, 2 * np.pi, n)
        z = cyl.base[2] + rng.uniform(0, cyl.height, n)
        return np.column_stack([cyl.base[0] + r * np.cos(t), cyl.base[1] + r * np.sin(t), z])

    o, e = points(a, 20000), points(b, 20000)
    # the segments along the hull's edges come nearest the dropped occluders
    side = np.array([-120.0, 300.0]) / math.hypot(120.0, 300.0)
    for s in (-1.0, 1.0):
        o = np.vstack([o, [[*(s * 12.5 * side), 20.0]]])
        e = np.vstack([e, [[*(np.array([300.0, 120.0]) + s * 20.0 * side), 30.0]]])
    assert not through_cylinders(o, e, dropped).any()
    grown = [Cylinder(c.base, c.radius + 2, 60.0) for c in dropped]
    assert through_cylinders(o, e, grown).any()  # some dropped ones come within 2 mm


def test_witness_centre_is_the_apparent_views_point_to_the_last_bit():
    """The witness's patch centre (compiled) is exactly what ApparentView.targets gives
    for the ray through the window's centre, on random pairs behind random boxes."""
    from geom3d.visibility import ClearToTarget, patch_witness
    from geom3d.visibility.search import search_clear_patch

    rng = np.random.default_rng(3)
    checked = 0
    for _ in range(40):
        target = Cylinder(
            (float(rng.uniform(80, 300)), float(rng.uniform(-60, 60)), 0.0),
            float(rng.choice([12.5, 20.0])),
            float(rng.uniform(20, 60)),
        )  # fmt: skip
        x, h = float(rng.uniform(30, 60)), float(rng.uniform(5, 45))
        eng = _boxes(((x, -40.0, 0.0), (x + 5.0, float(rng.uniform(-20, 40)), h)))
        cast = ClearToTarget(eng, np.zeros((0, 5)), VisibilityStats())
        hit = search_clear_patch(eye_points(VIEWER, target), target, cast, PatchLattice(3.0))
        if hit is None:
            continue
        sc, tc = hit.center_st
        pts, ok = hit.view.targets(np.array([hit.eye]), np.array([sc]), np.array([tc]))
        got = patch_witness(hit, cast).patch_center
        assert ok[0] and got == tuple(float(v) for v in pts[0])
        checked += 1
    assert checked > 20
