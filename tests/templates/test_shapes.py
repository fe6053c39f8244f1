"""Tests of geom3d.templates.shapes: areas, footprints, plan distances, the spec schema."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
import shapely

from geom3d.core.errors import InputError
from geom3d.templates import (
    CircleShape,
    TeardropShape,
    TemplateSpecError,
    footprint_hits_disc,
    footprint_signed_distance,
    shape_from_spec,
)

CIRCLE80 = CircleShape(80.0)  # radius 40, height 40
TEAR = TeardropShape(200.0, 60.0, 0.0)  # far circle radius 30 centred 170 from the tip


# --------------------------------------------------------------------------------------
# plan view
# --------------------------------------------------------------------------------------


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
# specs and validation
# --------------------------------------------------------------------------------------


def test_shape_from_spec_valid_and_round_trip():
    c = shape_from_spec({"shape": "circle", "diameter": 76.2})
    assert c == CircleShape(76.2) and c.height == pytest.approx(38.1)
    t = shape_from_spec({"shape": "teardrop", "length": 200, "width": 60, "narrow_width": 0})
    assert t == TEAR and t.height == 30.0
    assert shape_from_spec({"shape": "teardrop", "length": 200, "width": 60}) == TEAR
    assert shape_from_spec({"shape": "teardrop", "length": 60, "width": 60}).length == 60.0
    for shape in (c, t, TeardropShape(100, 40, 8)):
        assert shape_from_spec(shape.to_spec()) == shape
    assert t.to_spec() == {"shape": "teardrop", "length": 200.0, "width": 60.0, "narrow_width": 0.0}


def test_shape_from_spec_scales_before_the_size_limit():
    # 8 x 2.5 inches at 25.4 mm/inch, the scenario parser's unit factor
    t = shape_from_spec({"shape": "teardrop", "length": 8, "width": 2.5}, scale=25.4)
    assert t == TeardropShape(8 * 25.4, 2.5 * 25.4)
    assert shape_from_spec({"shape": "circle", "diameter": 5000}).diameter == 5000.0
    with pytest.raises(TemplateSpecError, match=r"template diameter is 5080 mm, larger than"):
        shape_from_spec({"shape": "circle", "diameter": 200}, scale=25.4)


def test_a_spec_has_no_height_the_height_is_derived():
    # SPEC 2.2: the volume is as high as the radius / half the maximum width
    with pytest.raises(TemplateSpecError, match=r"has no 'height'.*SPEC 2.2") as err:
        shape_from_spec({"shape": "circle", "diameter": 80, "height": 10})
    assert err.value.key == "height"
    # a height set in code is geometry only: it has no spec form
    with pytest.raises(InputError, match=r"overridden height \(10 mm\) has no template spec"):
        CircleShape(80.0, height_override=10.0).to_spec()


@pytest.mark.parametrize(
    ("spec", "key", "message"),
    [
        ([1, 2], None, r"template spec must be a mapping such as .*, got list"),
        ({"diameter": 3}, "shape", r"template spec needs 'shape' \(one of: circle, teardrop\)"),
        ({"shape": "square"}, "shape", r"unknown template shape 'square' \(known: circle, teardr"),
        ({"shape": ["circle"]}, "shape", r"unknown template shape \['circle'\]"),
        (
            {"shape": "circle", "diameter": 3, "length": 4},
            "length",
            r"unknown key 'length' for a circle template \(allowed: diameter\)",
        ),
        ({"shape": "teardrop", "length": 200}, "width", r"a teardrop template needs 'width'"),
        (
            {"shape": "circle", "diameter": "big"},
            "diameter",
            r"template diameter must be a number, got 'big'",
        ),
        ({"shape": "circle", "diameter": True}, "diameter", r"diameter must be a number, got True"),
        ({"shape": "circle", "diameter": -3}, "diameter", r"diameter must be a finite number > 0"),
        ({"shape": "circle", "diameter": 0}, "diameter", r"diameter must be a finite number > 0"),
        (
            {"shape": "circle", "diameter": float("nan")},
            "diameter",
            r"diameter must be a finite number > 0, got nan",
        ),
        (
            {"shape": "teardrop", "length": 200, "width": 60, "narrow_width": -1},
            "narrow_width",
            r"template narrow_width must be a finite number >= 0, got -1",
        ),
        (
            {"shape": "teardrop", "length": 200, "width": 60, "narrow_width": 70},
            "narrow_width",
            r"teardrop narrow_width \(70 mm\) must not exceed its width \(60 mm\)",
        ),
        (
            # the old scenario check allowed length >= (width + narrow_width) / 2
            {"shape": "teardrop", "length": 50, "width": 60, "narrow_width": 40},
            "length",
            r"teardrop length \(50 mm\) must be at least its width \(60 mm\)",
        ),
    ],
)
def test_shape_from_spec_errors(spec, key, message):
    with pytest.raises(TemplateSpecError, match=message) as err:
        shape_from_spec(spec)
    assert err.value.key == key
    assert isinstance(err.value, InputError)


def test_spec_error_keeps_its_key_across_processes():
    err = pickle.loads(pickle.dumps(TemplateSpecError("template width is bad", "width")))
    assert (err.key, err.message, str(err)) == (
        "width",
        "template width is bad",
        "template width is bad",
    )


def test_shape_constructors_validate():
    with pytest.raises(InputError, match=r"narrow_width must be a finite number >= 0"):
        TeardropShape(100.0, 40.0, -1.0)
    with pytest.raises(InputError, match=r"teardrop length \(50\) must be at least its width"):
        TeardropShape(50.0, 60.0)
    with pytest.raises(InputError, match=r"diameter must be a positive finite number"):
        CircleShape(0.0)
    with pytest.raises(InputError, match=r"sections must be an integer >= 3"):
        CIRCLE80.boundary(sections=2)
