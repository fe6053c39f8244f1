"""Standing on terrain (geom3d.scene.standing; SPEC 11.2, issue 10 item 2), on meshes built here.

Expected heights and thresholds are computed by hand in each test.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from support import box, make_scene, trooper

from geom3d.scene.standing import disc_samples


def write_obj(path, v, f):
    lines = [f"v {x:.17g} {y:.17g} {z:.17g}" for x, y, z in np.asarray(v, float)]
    lines += [f"f {a + 1} {b + 1} {c + 1}" for a, b, c in np.asarray(f, int)]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def ramp(tmp_path, slope, size=400.0, name="ramp.obj"):
    """A table sheet z = slope * x over [0, size]^2 (two triangles)."""
    v = [[0, 0, 0], [size, 0, slope * size], [size, size, slope * size], [0, size, 0]]
    return write_obj(tmp_path / name, v, [[0, 1, 2], [0, 2, 3]])


def slope_warnings(scene):
    return [w for w in scene.warnings if "uneven ground" in w]


def test_disc_samples_cover_the_disc_at_1mm_and_reach_the_rim():
    s = disc_samples(12.5)
    r = np.hypot(s[:, 0], s[:, 1])
    assert r.max() == pytest.approx(12.5) and r.min() == 0.0
    assert np.all(r <= 12.5 + 1e-9)
    # 1 mm grid: 489 lattice points with x^2 + y^2 <= 156.25, plus ceil(2 pi 12.5 / 0.25)
    # rim points
    assert len(s) == 489 + math.ceil(2 * math.pi * 12.5 / 0.25)


@pytest.mark.parametrize(
    ("slope", "warns"),
    # S2 base: r = 12.5 mm. Variation under the disc = 2 r slope = 25 slope; half the
    # radius is 6.25 mm, so the threshold is slope 0.25
    [(0.24, False), (0.26, True)],
)
def test_slope_warning_threshold(tmp_path, slope, warns):
    scene = make_scene([trooper("a", [200, 200])], table={"mesh": ramp(tmp_path, slope)})
    # rests on the highest point of the disc: z = slope * (200 + 12.5)
    assert scene.trooper("a").position[2] == pytest.approx(slope * 212.5, abs=1e-6)
    got = slope_warnings(scene)
    if warns:
        assert got == [
            "trooper 'a' stands on uneven ground: the surface under its base varies by "
            f"{25 * slope:.1f} mm, more than half its base radius (12.5 mm); placed on the "
            f"highest point connected to its centre, z = {slope * 212.5:.1f} mm"
        ]
    else:
        assert got == []
    assert not [w for w in scene.warnings if "embedded" in w]


def test_steep_face_does_not_fall_through(tmp_path):
    # 75 degree slope: the old centre drop skipped faces steeper than 60 degrees and fell to
    # z = 0; now the base rests on the highest point, tan(75) * (100 + 12.5)
    s = math.tan(math.radians(75))
    scene = make_scene([trooper("a", [100, 200])], table={"mesh": ramp(tmp_path, s)})
    assert scene.trooper("a").position[2] == pytest.approx(s * 112.5, abs=1e-6)
    assert len(slope_warnings(scene)) == 1
    assert not [w for w in scene.warnings if "embedded" in w]


def test_base_overlapping_a_wall_stands_beside_it(tmp_path):
    # SPEC 12.2: box 50 tall spanning x 90..110; a 25 mm base centred at x = 80 reaches
    # x = 92.5, 2.5 mm over the wall's foot: it stands on the table beside it, warned
    scene = make_scene(
        [trooper("a", [80, 100]), trooper("b", [40, 100]), trooper("c", [95, 100])],
        [box("w", [20, 100, 50], [100, 100])],
    )
    assert scene.trooper("a").position[2] == 0.0
    assert scene.trooper("b").position[2] == 0.0
    assert scene.trooper("c").position[2] == 50.0  # its centre is on the wall: on top
    assert slope_warnings(scene) == [
        "trooper 'c' stands on uneven ground: the surface under its base varies by 50.0 mm, "
        "more than half its base radius (12.5 mm); placed on the highest point connected to "
        "its centre, z = 50.0 mm"
    ]
    over = [w for w in scene.warnings if "overlaps" in w]
    # the rim probes lie within 1e-3 mm... the innermost probe over the wall is 2 mm in
    # from the rim (the 1 mm grid: x = 92) or the rim itself: the overlap is measured there
    assert len(over) == 1 and over[0].startswith("trooper 'a' overlaps scenery 'w' by ")
    depth = float(over[0].split(" by ")[1].split(" mm")[0])
    assert 2.0 <= depth <= 2.5
    tail = "(50.0 mm higher than its footing): it stands on the ground beside it, z = 0.0 mm"
    assert tail in over[0]


def test_flat_table_and_box_tops_give_todays_heights():
    scene = make_scene(
        [trooper("a", [10, 10]), trooper("b", [100, 100])], [box("r", [60, 60, 30], [100, 100])]
    )
    assert scene.trooper("a").position == (10.0, 10.0, 0.0)
    assert scene.trooper("b").position == (100.0, 100.0, 30.0)
    assert scene.warnings == []


def test_route_points_rest_like_positions(tmp_path):
    scene = make_scene(
        [trooper("a", [100, 100], route=[[100, 100], [300, 100], [200, 50, 7]])],
        table={"mesh": ramp(tmp_path, 0.1)},
    )
    t = scene.trooper("a")
    assert t.route[0][2] == pytest.approx(t.position[2])
    assert t.route[0][2] == pytest.approx(0.1 * 112.5, abs=1e-6)
    assert t.route[1][2] == pytest.approx(0.1 * 312.5, abs=1e-6)
    assert t.route[2] == (200.0, 50.0, 7.0)


def test_scenery_xy_is_dropped_onto_the_table_mesh(tmp_path):
    # a 20 x 20 box at x = 100 on z = 0.2 x: footprint x 90..110, highest ground 22 mm
    scene = make_scene(
        [], [box("b", [20, 20, 10], [100, 100])], table={"mesh": ramp(tmp_path, 0.2)}
    )
    el = scene.scenery.names.index("b")
    v = scene.scenery.vertices[np.unique(scene.scenery.faces[scene.scenery.element == el])]
    assert v[:, 2].min() == pytest.approx(22.0, abs=1e-3)
    rec = next(p for p in scene.scan_report() if p["id"] == "b")
    assert rec["dropped_mm"] == pytest.approx(22.0, abs=1e-3)
    assert not [w for w in scene.warnings if w.startswith("b:")]


@pytest.mark.parametrize(
    ("z", "message"),
    [
        (1.0, None),  # exactly at the 1 mm tolerance: fine
        (0.9, None),
        (1.5, "floats 1.5 mm above"),
        (-1.0, None),
        (-2.0, "sinks 2.0 mm into"),
    ],
)
def test_explicit_z_float_and_sink_warnings(z, message):
    scene = make_scene([], [box("b", [20, 20, 10], [100, 100, z])])
    got = [w for w in scene.warnings if w.startswith("b:")]
    if message is None:
        assert got == []
    else:
        assert got == [
            f"b: {message} the surface under it (explicit z = {z:g} mm; give position "
            "[x, y] to rest it on the surface)"
        ]


def _scan_tops(pts, cx, cy, r):
    """disc_tops by a scan of every point for every disc (the reference)."""
    want = np.full(len(cx), -np.inf)
    for d in range(len(cx)):
        dx, dy = pts[:, 0] - cx[d], pts[:, 1] - cy[d]
        inside = (np.abs(dx) <= r[d]) & (dx * dx + dy * dy <= r[d] * r[d])
        if inside.any():
            want[d] = pts[inside, 2].max()
    return want


def test_disc_tops_equals_a_scan_of_every_point():
    from geom3d.bodies.kernels import disc_tops

    rng = np.random.default_rng(4)
    pts = np.column_stack(
        [rng.uniform(0, 400, 20000), rng.uniform(0, 300, 20000), rng.normal(0, 5, 20000)]
    )
    cx, cy = rng.uniform(-20, 420, 60), rng.uniform(-20, 320, 60)
    r = rng.choice([12.5, 20.0, 27.5, 0.5], 60)
    # points right on rims (closed discs) and a disc with no point in it
    pts[:60] = np.column_stack([cx + r, cy, np.full(60, 99.0)])
    cx[59], cy[59] = 5000.0, 5000.0
    got = disc_tops(pts, cx, cy, r)
    np.testing.assert_array_equal(got, _scan_tops(pts, cx, cy, r))
    assert (got[:59] == 99.0).all() and got[59] == -np.inf


@pytest.mark.parametrize("spread_mm", [300.0, 3.0e5])
def test_disc_tops_finds_rim_points_in_every_direction(spread_mm):
    """Points on each rim at 64 angles (the binning's rounding at cell edges) and, with
    discs 300 m apart, the cell size set by the cap on the number of cells."""
    from geom3d.bodies.kernels import disc_tops

    rng = np.random.default_rng(7)
    k = 25
    cx, cy = rng.uniform(0, spread_mm, k), rng.uniform(0, spread_mm, k)
    r = rng.choice([0.5, 3.0, 12.5, 40.0], k)
    a = 2 * np.pi * np.arange(64) / 64
    rim = [np.column_stack([cx[d] + r[d] * np.cos(a), cy[d] + r[d] * np.sin(a)]) for d in range(k)]
    xy = np.concatenate([*rim, rng.uniform(0, spread_mm, (5000, 2))])
    pts = np.column_stack([xy, rng.normal(0, 5, len(xy))])
    got = disc_tops(pts, cx, cy, r)
    np.testing.assert_array_equal(got, _scan_tops(pts, cx, cy, r))
    assert np.isfinite(got).sum() >= k // 2  # most rims hold points that count


def _reference_used(vertices, faces, keep):
    used = np.zeros(len(vertices), bool)
    used[faces[keep].ravel()] = True
    return vertices[used]


def test_used_vertices_are_views_of_a_soups_runs():
    """A merged soup (each piece's own vertices, then its closing vertices): the pieces'
    vertices are a few runs of rows, handed to disc_tops as views, nothing copied."""
    from geom3d.raycast import RayEngine
    from geom3d.scene.standing import Surface

    rng = np.random.default_rng(7)
    parts, faces, keep, off = [], [], [], 0
    for own, closing in ((30, 6), (12, 0), (9, 3)):  # (own triangles, closing triangles)
        for n, kept in ((own, True), (closing, False)):
            parts.append(rng.normal(size=(3 * n, 3)) * 50.0)
            faces.append(np.arange(off, off + 3 * n).reshape(-1, 3))
            keep += [kept] * n
            off += 3 * n
    v, f, keep = np.concatenate(parts), np.concatenate(faces), np.array(keep)
    surface = Surface(RayEngine(v, f), v, f, keep, True)
    got = surface._used_vertices()
    assert len(got) == 2  # the first piece's run, then the last two pieces' (adjacent)
    assert all(np.shares_memory(p, v) for p in got)
    np.testing.assert_array_equal(np.concatenate(got), _reference_used(v, f, keep))


def test_scattered_used_vertices_are_copied_once():
    """Indexed vertices used here and there (more runs than _USED_RUNS): one copy."""
    from geom3d.raycast import RayEngine
    from geom3d.scene.standing import _USED_RUNS, Surface

    rng = np.random.default_rng(8)
    v = rng.normal(size=(400, 3)) * 50.0
    f = rng.permutation(400)[:300].reshape(-1, 3)  # 300 of the 400 vertices, shuffled
    keep = rng.random(len(f)) < 0.7
    surface = Surface(RayEngine(v, f), v, f, keep, True)
    (got,) = surface._used_vertices()
    assert not np.shares_memory(got, v)
    np.testing.assert_array_equal(got, _reference_used(v, f, keep))
    edges = np.flatnonzero(np.diff(np.isin(np.arange(400), f[keep]), prepend=False, append=False))
    assert len(edges) // 2 > _USED_RUNS
