"""Tests of geom3d.templates: shapes, volumes, exact contact, sampling, spec parsing.

Hand-computed answers first, then hypothesis invariants (derandomized: the examples are
the same on every run).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import geom3d.templates as T
from geom3d.bodies import Cylinder
from geom3d.errors import InputError, ShapeError
from geom3d.templates import (
    CircleShape,
    TeardropShape,
    TemplateVolume,
    footprint_hits_disc,
    footprint_signed_distance,
    sample_inside,
    shape_from_spec,
    touch_witness,
    volume_cylinder_distance,
    volume_touches_cylinder,
)
from geom3d.tolerances import CONTACT_EPS_MM

HYP = settings(derandomize=True, max_examples=150, deadline=None)

CIRCLE80 = CircleShape(80.0)  # radius 40, height 40
TEAR = TeardropShape(200.0, 60.0, 0.0)  # far circle radius 30 centred 170 from the tip


def level(shape, focus=(0.0, 0.0, 0.0), heading_deg=0.0):
    return TemplateVolume(shape, focus, heading_deg, 0.0)


# --------------------------------------------------------------------------------------
# contact: hand-computed cases
# --------------------------------------------------------------------------------------


def test_circle_contact_at_exactly_touching_distance_counts():
    vol = level(CIRCLE80)
    # 40 (template radius) + 12.5 (base radius): the discs touch at (40, 0)
    assert volume_touches_cylinder(vol, Cylinder((52.5, 0.0, 0.0), 12.5, 40.0))
    assert not volume_touches_cylinder(vol, Cylinder((52.501, 0.0, 0.0), 12.5, 40.0))
    assert volume_cylinder_distance(vol, Cylinder((52.501, 0.0, 0.0), 12.5, 40.0)) == (
        pytest.approx(1e-3, abs=1e-9)
    )


def test_teardrop_narrow_point_contact():
    vol = level(TEAR)
    assert volume_touches_cylinder(vol, Cylinder((-12.5, 0.0, 0.0), 12.5, 40.0))
    assert not volume_touches_cylinder(vol, Cylinder((-12.501, 0.0, 0.0), 12.5, 40.0))
    turned = level(TEAR, heading_deg=90.0)  # axis along +y: the tip points to -y
    assert volume_touches_cylinder(turned, Cylinder((0.0, -12.5, 0.0), 12.5, 40.0))
    assert not volume_touches_cylinder(turned, Cylinder((0.0, -12.501, 0.0), 12.5, 40.0))
    # the far end: 200 from the tip
    assert volume_touches_cylinder(turned, Cylinder((0.0, 212.5, 0.0), 12.5, 40.0))
    assert not volume_touches_cylinder(turned, Cylinder((0.0, 212.501, 0.0), 12.5, 40.0))


def test_teardrop_tangent_side_contact():
    # w0 = 0, W = 60, L = 200: tip at the origin, far circle R = 30 centred at x = 170.
    # The upper tangent line through the tip has normal n = (-sin a, cos a) with
    # sin a = 30 / 170 = 3/17, cos a = sqrt(280)/17. A base of radius 12.5 centred at
    # (85, y) touches it when n·(85, y) = 12.5, i.e. y = (12.5 + 15) / cos a
    # = 233.75 / sqrt(70); its foot lies between the tangent points, so this is contact
    # with the straight side.
    y = 233.75 / math.sqrt(70.0)
    vol = level(TEAR)
    assert volume_touches_cylinder(vol, Cylinder((85.0, y, 0.0), 12.5, 40.0))
    assert not volume_touches_cylinder(vol, Cylinder((85.0, y + 1e-3, 0.0), 12.5, 40.0))
    cos_a = math.sqrt(280.0) / 17.0
    d = volume_cylinder_distance(vol, Cylinder((85.0, y + 1.0, 0.0), 12.5, 40.0))
    assert d == pytest.approx(cos_a, rel=1e-12)


def test_trooper_on_balcony_above_template_height_is_not_touched():
    vol = level(CIRCLE80)  # 0 <= z <= 40
    assert not volume_touches_cylinder(vol, Cylinder((0.0, 0.0, 50.0), 12.5, 40.0))
    assert volume_touches_cylinder(vol, Cylinder((0.0, 0.0, 40.0), 12.5, 40.0))  # on top
    assert not volume_touches_cylinder(vol, Cylinder((0.0, 0.0, 40.001), 12.5, 40.0))


def test_prone_trooper_under_template_on_a_step_is_not_touched_standing_one_is():
    vol = level(CIRCLE80, focus=(0.0, 0.0, 10.0))  # placed on a 10 mm step
    prone = Cylinder((30.0, 0.0, 0.0), 12.5, 3.0)
    standing = Cylinder((30.0, 0.0, 0.0), 12.5, 40.0)
    assert not volume_touches_cylinder(vol, prone)
    assert volume_cylinder_distance(vol, prone) == pytest.approx(7.0)
    assert volume_touches_cylinder(vol, standing)
    # same with a teardrop (the rulebook's direct-template example)
    tear = level(TEAR, focus=(0.0, 0.0, 10.0))
    assert not volume_touches_cylinder(tear, Cylinder((100.0, 0.0, 0.0), 12.5, 3.0))
    assert volume_touches_cylinder(tear, Cylinder((100.0, 0.0, 0.0), 12.5, 25.0))


def test_pitched_template_touches_cylinder_it_misses_unpitched():
    # Circle R = H = 40. With pitch 20° the top face is z = s sin20 + 40 cos20 at plan
    # position x = s cos20 - 40 sin20: above x = 15 it is at z ~ 48.0 (s ~ 30.5), so a
    # trooper standing at z = 45 there is touched; level (top z = 40) it is not.
    cyl = Cylinder((15.0, 0.0, 45.0), 5.0, 40.0)
    assert not volume_touches_cylinder(level(CIRCLE80), cyl)
    up = TemplateVolume(CIRCLE80, (0.0, 0.0, 0.0), 0.0, 20.0)
    assert volume_touches_cylinder(up, cyl)
    down = TemplateVolume(CIRCLE80, (0.0, 0.0, 0.0), 0.0, -20.0)
    assert not volume_touches_cylinder(down, cyl)
    w = touch_witness(up, cyl)
    assert w is not None
    assert up.contains(w[None, :])[0] and cyl.contains(w[None, :])[0]
    part = sample_inside(up, cyl, 1.0)
    assert part.touches and not part.witness_only and len(part.points) > 0
    assert up.contains(part.points).all()


def test_pitched_exact_touch_at_the_far_bottom_edge():
    # Pitch 30°, teardrop tip at the origin: the far end's bottom point is at
    # (200 cos30, 0, 200 sin30). A trooper standing exactly there is touched; one
    # standing 1e-3 mm above that point, beyond the far end, is not.
    vol = TemplateVolume(TEAR, (0.0, 0.0, 0.0), 0.0, 30.0)
    far = (200.0 * math.cos(math.radians(30.0)), 0.0, 100.0)
    # a thin cylinder whose axis passes just beyond the far end
    assert volume_touches_cylinder(vol, Cylinder((far[0] + 1.0, 0.0, far[2] - 40.0), 1.0, 40.0))
    assert not volume_touches_cylinder(
        vol, Cylinder((far[0] + 1.001, 0.0, far[2] - 40.0), 1.0, 40.0)
    )


def test_footprint_hits_disc_exact_40k():
    assert footprint_hits_disc(CIRCLE80, (0.0, 0.0), 0.0, (52.5, 0.0), 12.5)
    assert not footprint_hits_disc(CIRCLE80, (0.0, 0.0), 0.0, (52.501, 0.0), 12.5)
    assert footprint_hits_disc(TEAR, (0.0, 0.0), 180.0, (212.5, 0.0), 12.5) is False
    assert footprint_hits_disc(TEAR, (0.0, 0.0), 180.0, (-212.5, 0.0), 12.5) is True
    y = 233.75 / math.sqrt(70.0)
    assert footprint_hits_disc(TEAR, (0.0, 0.0), 0.0, (85.0, y), 12.5)
    assert not footprint_hits_disc(TEAR, (0.0, 0.0), 0.0, (85.0, y + 1e-3), 12.5)


def test_footprint_signed_distance_values():
    d = footprint_signed_distance(
        TEAR, (0.0, 0.0), 0.0, [[-5.0, 0.0], [100.0, 0.0], [205.0, 0.0], [170.0, 40.0]]
    )
    assert d[0] == pytest.approx(5.0)
    assert d[1] < 0.0
    assert d[2] == pytest.approx(5.0)
    assert d[3] == pytest.approx(10.0)


# --------------------------------------------------------------------------------------
# volumes
# --------------------------------------------------------------------------------------


def test_contains_known_points_circle():
    vol = level(CIRCLE80, focus=(10.0, 20.0, 5.0))
    pts = [
        [10, 20, 5],  # focus: inside (on the bottom)
        [50, 20, 5],  # rim: on
        [50.001, 20, 5],
        [10, 20, 45],  # top: on
        [10, 20, 45.001],
        [10, 20, 4.999],
        [10 + 40 / math.sqrt(2), 20 + 40 / math.sqrt(2), 25],  # rim at 45°
    ]
    assert vol.contains(pts).tolist() == [True, True, False, True, False, False, True]


def test_contains_known_points_teardrop():
    vol = level(TEAR)
    pts = [
        [0, 0, 0],  # tip
        [200, 0, 0],  # far end
        [200.001, 0, 0],
        [-0.001, 0, 0],
        [170, 30, 15],  # widest point
        [170, 30.001, 15],
        [100, 0, 30],  # top
        [100, 0, 30.001],
    ]
    assert vol.contains(pts).tolist() == [True, True, False, False, True, False, True, False]


def test_contains_pitched():
    vol = TemplateVolume(TEAR, (0.0, 0.0, 0.0), 0.0, 30.0)
    far_bottom = [200.0 * math.cos(math.radians(30.0)), 0.0, 100.0]
    assert vol.contains([far_bottom])[0]
    local = [[100.0, 0.0, 15.0], [100.0, 0.0, -0.001], [100.0, 0.0, 30.001], [199.0, 0.0, 1.0]]
    assert vol.contains(vol.to_world(local)).tolist() == [True, False, False, True]
    # a point straight above the tip, inside a level template, is outside the pitched one
    assert not vol.contains([[-10.0, 0.0, 5.0]])[0]


def test_local_frame_and_focus_segment():
    vol = TemplateVolume(TEAR, (1.0, 2.0, 3.0), 90.0, 0.0)
    _, u, v, n = vol.local_frame()
    np.testing.assert_allclose(u, [0.0, 1.0, 0.0])
    np.testing.assert_allclose(v, [-1.0, 0.0, 0.0])
    np.testing.assert_allclose(n, [0.0, 0.0, 1.0])
    np.testing.assert_allclose(vol.focus_segment(), [[1.0, 2.0, 3.0], [1.0, 2.0, 33.0]])
    p = TemplateVolume(TEAR, (0.0, 0.0, 0.0), 30.0, 25.0)
    _, u, v, n = p.local_frame()
    m = np.stack((u, v, n))
    np.testing.assert_allclose(m @ m.T, np.eye(3), atol=1e-15)
    np.testing.assert_allclose(np.cross(u, v), n, atol=1e-15)
    assert u[2] > 0  # positive pitch raises the far end
    seg = p.focus_segment()
    assert seg.shape == (2, 3)
    np.testing.assert_allclose(seg[1] - seg[0], 30.0 * n)


def test_bounds_exact():
    np.testing.assert_allclose(
        level(CIRCLE80, focus=(10.0, 20.0, 5.0)).bounds(), [[-30, -20, 5], [50, 60, 45]]
    )
    np.testing.assert_allclose(level(TEAR).bounds(), [[0, -30, 0], [200, 30, 30]])
    vol = TemplateVolume(TEAR, (0.0, 0.0, 0.0), 0.0, 30.0)
    b = vol.bounds()
    c, s = math.cos(math.radians(30.0)), math.sin(math.radians(30.0))
    # x: from the top of the tip (-30 sin30) to the far end's bottom (200 cos30)
    assert b[0, 0] == pytest.approx(-30.0 * s)
    assert b[1, 0] == pytest.approx(200.0 * c)
    # z: top of the far circle's highest point: s = 170 + 30 sin30... support along z
    assert b[1, 2] == pytest.approx(30.0 * c + 170.0 * s + 30.0 * s)


@pytest.mark.parametrize("pitch", [0.0, 25.0])
def test_to_trimesh_is_closed_and_matches_the_volume(pitch):
    vol = TemplateVolume(TeardropShape(200.0, 60.0, 10.0), (5.0, 6.0, 7.0), 40.0, pitch)
    mesh = vol.to_trimesh(sections=256)
    assert mesh.is_watertight
    assert mesh.is_winding_consistent
    assert mesh.volume > 0
    exact = vol.shape.area * vol.height
    assert mesh.volume == pytest.approx(exact, rel=2e-3)
    assert mesh.volume <= exact
    assert vol.contains(mesh.vertices, eps=1e-9).all()
    b = vol.bounds()
    assert np.all(mesh.bounds[0] >= b[0] - 1e-9) and np.all(mesh.bounds[1] <= b[1] + 1e-9)
    np.testing.assert_allclose(mesh.bounds, b, atol=0.01)


def test_scaled_about_focus():
    vol = TemplateVolume(TEAR, (1.0, 2.0, 3.0), 15.0, 10.0)
    big = vol.scaled(2.0)
    assert big.shape == TeardropShape(400.0, 120.0, 0.0)
    assert big.focus == vol.focus and big.height == 60.0


# --------------------------------------------------------------------------------------
# areas and footprints
# --------------------------------------------------------------------------------------


def test_circle_area_and_footprint():
    assert CIRCLE80.area == pytest.approx(math.pi * 1600.0, rel=1e-15)
    err = 0.01
    poly = CIRCLE80.footprint((3.0, 4.0), max_error_mm=err)
    perimeter = 2 * math.pi * 40.0
    assert math.pi * 1600.0 - perimeter * err <= poly.area <= math.pi * 1600.0
    assert poly.centroid.x == pytest.approx(3.0) and poly.centroid.y == pytest.approx(4.0)


def test_teardrop_area_point_and_circle():
    # Hull of a point P and a circle (centre C, radius R, |PC| = h > R): two right
    # triangles P-C-T (legs R and sqrt(h² - R²), T a tangent point) plus the circle's
    # sector outside the angle TCT'. The angle PCT is b = acos(R / h), so the sector
    # spans 2 pi - 2 b:  A = R sqrt(h² - R²) + R² (pi - acos(R / h)).
    r, h = 30.0, 170.0  # L = 200, W = 60: the circle touches the far end
    hand = r * math.sqrt(h * h - r * r) + r * r * (math.pi - math.acos(r / h))
    assert TEAR.area == pytest.approx(hand, rel=1e-13)
    err = 0.001
    poly = TEAR.footprint((0.0, 0.0), 0.0, max_error_mm=err)
    perimeter = 2 * math.sqrt(h * h - r * r) + r * (math.pi + 2 * math.asin(r / h))
    assert hand - perimeter * err <= poly.area <= hand


@pytest.mark.parametrize(
    "shape",
    [TeardropShape(200.0, 60.0, 20.0), TeardropShape(60.0, 60.0, 30.0), TeardropShape(50, 10, 10)],
)
def test_general_teardrop_area_matches_polygon(shape):
    err = 0.0005
    poly = shape.footprint((0.0, 0.0), 33.0, max_error_mm=err)
    assert shape.area - 1.01 * poly.length * err <= poly.area <= shape.area
    # every polygon vertex is in the shape, within the error bound of its boundary
    local = shape.from_plan(np.asarray(poly.exterior.coords), (0.0, 0.0), 33.0)
    sd = shape.signed_distance(local)
    assert sd.max() < 1e-9 and sd.min() > -err


def test_footprint_placement_and_heading():
    poly = TEAR.footprint((10.0, 0.0), 90.0)
    minx, miny, maxx, maxy = poly.bounds
    assert miny == pytest.approx(0.0, abs=1e-9)
    assert maxy == pytest.approx(200.0, abs=1e-9)
    assert minx == pytest.approx(-20.0, abs=0.02) and maxx == pytest.approx(40.0, abs=0.02)


def test_signed_distance_inside_is_nonpositive_and_closest_point_on_boundary():
    rng = np.random.default_rng(1234)
    shape = TeardropShape(150.0, 70.0, 12.0)
    pts = rng.uniform([-40, -60], [190, 60], size=(2000, 2))
    sd = shape.signed_distance(pts)
    q = shape.closest_point(pts)
    outside = sd > 0
    np.testing.assert_allclose(np.linalg.norm(pts - q, axis=1)[outside], sd[outside], rtol=1e-9)
    assert np.abs(shape.signed_distance(q[outside])).max() < 1e-9
    np.testing.assert_array_equal(q[~outside], pts[~outside])
    # inside/outside agree with a fine inscribed polygon (outside the error band)
    poly = shape.footprint((0.0, 0.0), 0.0, max_error_mm=1e-4)
    inside_poly = shapely.contains_xy(poly, pts[:, 0], pts[:, 1])
    clear = np.abs(sd) > 1e-3
    np.testing.assert_array_equal(inside_poly[clear], (sd <= 0)[clear])


# --------------------------------------------------------------------------------------
# sampling the part inside
# --------------------------------------------------------------------------------------


def _lens_area(d, r, big):
    a1 = r * r * math.acos((d * d + r * r - big * big) / (2 * d * r))
    a2 = big * big * math.acos((d * d + big * big - r * r) / (2 * d * big))
    k = 0.5 * math.sqrt((-d + r + big) * (d + r - big) * (d - r + big) * (d + r + big))
    return a1 + a2 - k


def test_sample_inside_half_in_circle():
    vol = level(CIRCLE80)
    cyl = Cylinder((40.0, 0.0, 0.0), 12.5, 40.0)  # base centre on the template's rim
    part = sample_inside(vol, cyl, 1.0)
    assert part.touches and not part.witness_only
    assert vol.contains(part.points).all()
    # every point is on the cylinder surface
    rad = np.hypot(part.points[:, 0] - 40.0, part.points[:, 1])
    on_side = np.isclose(rad, 12.5)
    on_cap = np.isclose(part.points[:, 2], 0.0) | np.isclose(part.points[:, 2], 40.0)
    assert (on_side | on_cap).all()
    # area: side arc inside |p| <= 40 is where cos(phi) <= -r / (2 d), plus both caps' lens
    r, d, h = 12.5, 40.0, 40.0
    side = (2 * math.pi - 2 * math.acos(-r / (2 * d))) * r * h
    expected = side + 2 * _lens_area(d, r, 40.0)
    assert part.area_mm2 == pytest.approx(expected, rel=0.03)
    again = sample_inside(vol, cyl, 1.0)
    np.testing.assert_array_equal(again.points, part.points)


def test_sample_inside_tiny_contact_returns_witness():
    vol = level(CIRCLE80)
    # bases touching along a vertical line at 30° from +x: no grid cell centre lies on it
    c, s = math.cos(math.radians(30.0)), math.sin(math.radians(30.0))
    part = sample_inside(vol, Cylinder((52.5 * c, 52.5 * s, 0.0), 12.5, 40.0), 1.0)
    assert part.touches and part.witness_only and part.area_mm2 == 0.0
    assert part.points.shape == (1, 3)
    np.testing.assert_allclose(part.points[0], [40.0 * c, 40.0 * s, 20.0], atol=1e-9)
    miss = sample_inside(vol, Cylinder((60.0, 0.0, 0.0), 12.5, 40.0), 1.0)
    assert not miss.touches and miss.points.shape == (0, 3)


def test_sample_inside_insets_and_errors():
    vol = level(CIRCLE80)
    cyl = Cylinder((0.0, 0.0, 0.0), 12.5, 40.0)
    part = sample_inside(vol, cyl, 2.0, inset_mm=0.01, bottom_inset_mm=0.5)
    z = part.points[:, 2]
    assert z.min() == pytest.approx(0.5) and z.max() == pytest.approx(39.99)
    with pytest.raises(InputError, match=r"inset_mm must be >= 0"):
        sample_inside(vol, cyl, 1.0, inset_mm=-1.0)
    with pytest.raises(InputError, match=r"spacing_mm must be a positive finite number"):
        sample_inside(vol, cyl, 0.0)


# --------------------------------------------------------------------------------------
# specs and validation
# --------------------------------------------------------------------------------------


def test_shape_from_spec_valid_and_round_trip():
    c = shape_from_spec({"shape": "circle", "diameter": 76.2})
    assert c == CircleShape(76.2) and c.height == pytest.approx(38.1)
    t = shape_from_spec({"shape": "teardrop", "length": 200, "width": 60, "narrow_width": 0})
    assert t == TEAR and t.height == 30.0
    assert shape_from_spec({"shape": "teardrop", "length": 200, "width": 60}) == TEAR
    h = shape_from_spec({"shape": "circle", "diameter": 80, "height": 10})
    assert h.height == 10.0
    for shape in (c, t, h, TeardropShape(100, 40, 8, 12)):
        assert shape_from_spec(shape.to_spec()) == shape


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ([1, 2], r"template spec must be a mapping, got list"),
        ({"diameter": 3}, r"template spec needs 'shape' \(one of: circle, teardrop\)"),
        ({"shape": "square"}, r"unknown template shape 'square' \(known: circle, teardrop\)"),
        (
            {"shape": "circle", "diameter": 3, "length": 4},
            r"unknown key\(s\) for a circle template: length \(allowed: diameter, height\)",
        ),
        ({"shape": "teardrop", "length": 200}, r"a teardrop template needs width"),
        ({"shape": "circle", "diameter": "big"}, r"template diameter must be a number, got 'big'"),
        ({"shape": "circle", "diameter": True}, r"template diameter must be a number, got True"),
        ({"shape": "circle", "diameter": -3}, r"diameter must be a positive finite number"),
        (
            {"shape": "teardrop", "length": 200, "width": 60, "narrow_width": 70},
            r"teardrop narrow_width \(70\) must not exceed its width \(60\)",
        ),
        (
            {"shape": "teardrop", "length": 50, "width": 60},
            r"teardrop length \(50\) must be at least its width \(60\)",
        ),
    ],
)
def test_shape_from_spec_errors(spec, message):
    with pytest.raises(InputError, match=message):
        shape_from_spec(spec)


def test_volume_validation():
    with pytest.raises(InputError, match=r"pitch_deg must be strictly between -90 and 90"):
        TemplateVolume(CIRCLE80, (0.0, 0.0, 0.0), 0.0, 90.0)
    with pytest.raises(InputError, match=r"shape must be a CircleShape or TeardropShape"):
        TemplateVolume({"shape": "circle"}, (0.0, 0.0, 0.0))
    with pytest.raises(ShapeError, match=r"focus has shape \(2,\), expected \(3,\)"):
        TemplateVolume(CIRCLE80, (0.0, 0.0))
    with pytest.raises(InputError, match=r"narrow_width must be a finite number >= 0"):
        TeardropShape(100.0, 40.0, -1.0)
    with pytest.raises(InputError, match=r"sections must be an integer >= 3"):
        level(CIRCLE80).to_trimesh(sections=2)
    with pytest.raises(InputError, match=r"eps must be a finite number >= 0"):
        volume_touches_cylinder(level(CIRCLE80), Cylinder((0, 0, 0), 1, 1), eps=-1.0)


# --------------------------------------------------------------------------------------
# hypothesis invariants
# --------------------------------------------------------------------------------------

finite = {"allow_nan": False, "allow_infinity": False}


@st.composite
def shapes(draw):
    if draw(st.booleans()):
        return CircleShape(draw(st.floats(10.0, 130.0, **finite)))
    width = draw(st.floats(10.0, 100.0, **finite))
    length = draw(st.floats(width, 260.0, **finite))
    narrow = draw(st.sampled_from([0.0, 0.25, 1.0])) * draw(st.floats(0.0, width, **finite))
    return TeardropShape(length, width, narrow)


@st.composite
def volumes(draw):
    focus = tuple(draw(st.floats(-50.0, 50.0, **finite)) for _ in range(3))
    heading = draw(st.floats(0.0, 360.0, **finite))
    pitch = draw(st.sampled_from([0.0, 0.0, 1.0])) * draw(st.floats(-60.0, 60.0, **finite))
    return TemplateVolume(draw(shapes()), focus, heading, pitch)


@st.composite
def cylinders(draw):
    x = draw(st.floats(-200.0, 200.0, **finite))
    y = draw(st.floats(-200.0, 200.0, **finite))
    z = draw(st.floats(-80.0, 80.0, **finite))
    return Cylinder((x, y, z), draw(st.floats(5.0, 40.0, **finite)), draw(st.floats(3.0, 70.0)))


def _clear_of_the_tolerance(vol, cyl) -> bool:
    """True unless the bodies are a hair's breadth from the contact tolerance."""
    d = volume_cylinder_distance(vol, cyl)
    return d <= 1e-9 or d > 1e-5


def _rotate_about_z(p, angle_deg, offset):
    c, s = math.cos(math.radians(angle_deg)), math.sin(math.radians(angle_deg))
    return (c * p[0] - s * p[1] + offset[0], s * p[0] + c * p[1] + offset[1], p[2] + offset[2])


@HYP
@given(
    vol=volumes(),
    cyl=cylinders(),
    angle=st.floats(-360.0, 360.0, **finite),
    offset=st.tuples(*(st.floats(-500.0, 500.0, **finite) for _ in range(3))),
)
def test_contact_invariant_under_rigid_motion(vol, cyl, angle, offset):
    assume(_clear_of_the_tolerance(vol, cyl))
    moved_vol = TemplateVolume(
        vol.shape, _rotate_about_z(vol.focus, angle, offset), vol.heading_deg + angle, vol.pitch_deg
    )
    moved_cyl = Cylinder(_rotate_about_z(cyl.base, angle, offset), cyl.radius, cyl.height)
    assert volume_touches_cylinder(moved_vol, moved_cyl) == volume_touches_cylinder(vol, cyl)


@HYP
@given(vol=volumes(), cyl=cylinders(), factor=st.floats(1.0, 3.0, **finite))
def test_larger_template_never_touches_fewer(vol, cyl, factor):
    assume(_clear_of_the_tolerance(vol, cyl))
    if volume_touches_cylinder(vol, cyl):
        assert volume_touches_cylinder(vol.scaled(factor), cyl)
    # and in plan (40k)
    fxy = vol.focus[:2]
    cxy = cyl.base[:2]
    if footprint_hits_disc(vol.shape, fxy, vol.heading_deg, cxy, cyl.radius, eps=0.0):
        assert footprint_hits_disc(vol.shape.scaled(factor), fxy, vol.heading_deg, cxy, cyl.radius)


@HYP
@given(vol=volumes(), cyl=cylinders())
def test_witness_lies_in_both_bodies_and_matches_contact(vol, cyl):
    w = touch_witness(vol, cyl)
    assert (w is not None) == volume_touches_cylinder(vol, cyl)
    if w is not None:
        assert vol.contains(w[None, :], eps=1e-9)[0]
        assert cyl.contains(w[None, :], eps=CONTACT_EPS_MM * 1.01)[0]


@HYP
@given(vol=volumes(), cyl=cylinders())
def test_sampled_points_imply_contact(vol, cyl):
    part = sample_inside(vol, cyl, 4.0)
    if len(part.points):
        assert part.touches
        assert vol.contains(part.points).all()
    if part.touches and not part.witness_only:
        assert part.area_mm2 > 0


@HYP
@given(vol=volumes(), cyl=cylinders())
def test_level_and_pitched_algorithms_agree_on_level_volumes(vol, cyl):
    # the one-dimensional convex search used for pitched volumes, run on a level one,
    # must agree with the closed form; GJK's distance must agree with it too
    flat = TemplateVolume(vol.shape, vol.focus, vol.heading_deg, 0.0)
    assume(_clear_of_the_tolerance(flat, cyl))
    exact = volume_touches_cylinder(flat, cyl)
    assert (T._pitched_contact(flat, cyl, CONTACT_EPS_MM) is not None) == exact
    gjk = T._gjk(flat, cyl)
    assert gjk.upper == pytest.approx(volume_cylinder_distance(flat, cyl), abs=1e-6)


@HYP
@given(vol=volumes(), cyl=cylinders())
def test_pitched_contact_agrees_with_gjk_bounds(vol, cyl):
    assume(not vol.is_level)
    touches = volume_touches_cylinder(vol, cyl)
    gjk = T._gjk(vol, cyl)
    # contact means Euclidean distance <= sqrt(2) eps; no contact means > eps
    if touches:
        assert gjk.lower <= 2 * CONTACT_EPS_MM
    else:
        assert gjk.upper > CONTACT_EPS_MM
