"""Tests of geom3d.bodies.cylinder: the silhouette cylinder and its exact ray queries.

Every expected value is computed by hand in the comments.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from geom3d.bodies.cylinder import (
    Cylinder,
    cylinders_touch,
    ray_cylinder_entry,
    segments_hit_cylinder,
)
from geom3d.core.errors import InputError, ShapeError

CYL = Cylinder((0.0, 0.0, 0.0), 10.0, 20.0)  # |xy| <= 10, 0 <= z <= 20


# --------------------------------------------------------------------------------------
# the cylinder
# --------------------------------------------------------------------------------------


def test_bounds_center_and_top():
    c = Cylinder((1.0, 2.0, 3.0), 5.0, 10.0)
    np.testing.assert_array_equal(c.bounds(), [[-4.0, -3.0, 3.0], [6.0, 7.0, 13.0]])
    np.testing.assert_array_equal(c.center, [1.0, 2.0, 8.0])
    assert c.top_z == 13.0
    assert c.translated((1.0, -2.0, 0.5)) == Cylinder((2.0, 0.0, 3.5), 5.0, 10.0)


def test_contains_is_closed_up_to_eps():
    c = Cylinder((1.0, 2.0, 3.0), 5.0, 10.0)
    r = 5.0 / math.sqrt(2.0)
    pts = [
        [1.0, 2.0, 8.0],  # centre
        [6.0, 2.0, 3.0],  # on the bottom rim
        [1.0 + r, 2.0 + r, 8.0],  # on the side at 45 degrees
        [1.0, 2.0, 13.0],  # on the top
        [6.001, 2.0, 8.0],  # 1e-3 outside the side
        [1.0, 2.0, 13.001],  # 1e-3 above the top
        [1.0, 2.0, 2.999],  # 1e-3 below the bottom
        [6.0 + 5e-7, 2.0, 8.0],  # within the default eps (1e-6)
    ]
    assert c.contains(pts).tolist() == [True, True, True, True, False, False, False, True]
    assert c.contains([[6.5, 2.0, 8.0]], eps=0.5)[0]
    assert not c.contains([[6.5, 2.0, 8.0]], eps=0.49)[0]


def test_cylinder_validation():
    with pytest.raises(InputError, match=r"radius must be a positive finite number"):
        Cylinder((0.0, 0.0, 0.0), 0.0, 1.0)
    with pytest.raises(InputError, match=r"height must be a positive finite number"):
        Cylinder((0.0, 0.0, 0.0), 1.0, -1.0)
    with pytest.raises(ShapeError, match=r"base has shape \(2,\), expected \(3,\)"):
        Cylinder((0.0, 0.0), 1.0, 1.0)
    with pytest.raises(ShapeError, match=r"points has shape \(3,\), expected \(n, 3\)"):
        CYL.contains([1.0, 2.0, 3.0])


# --------------------------------------------------------------------------------------
# silhouette contact
# --------------------------------------------------------------------------------------


def test_cylinders_touch_at_exact_contact_and_not_0_01_apart():
    a = Cylinder((0.0, 0.0, 0.0), 12.5, 40.0)
    # side by side: centres 12.5 + 12.5 = 25 apart
    assert cylinders_touch(a, Cylinder((25.0, 0.0, 0.0), 12.5, 40.0))
    assert not cylinders_touch(a, Cylinder((25.01, 0.0, 0.0), 12.5, 40.0))
    # diagonal: (15, 20) is 25 from the origin (3-4-5)
    assert cylinders_touch(a, Cylinder((15.0, 20.0, 0.0), 12.5, 40.0))
    assert not cylinders_touch(a, Cylinder((15.006, 20.008, 0.0), 12.5, 40.0))  # 25.01
    # stacked: b's bottom on a's top (z = 40), then 0.01 above it; also from below
    assert cylinders_touch(a, Cylinder((0.0, 0.0, 40.0), 12.5, 40.0))
    assert not cylinders_touch(a, Cylinder((0.0, 0.0, 40.01), 12.5, 40.0))
    assert cylinders_touch(a, Cylinder((0.0, 0.0, -40.0), 12.5, 40.0))
    assert not cylinders_touch(a, Cylinder((0.0, 0.0, -40.01), 12.5, 40.0))
    # side by side but at different heights: the plan discs touch, the z-ranges do not
    assert not cylinders_touch(a, Cylinder((25.0, 0.0, 41.0), 12.5, 40.0))
    # overlapping, different sizes; symmetric
    b = Cylinder((10.0, 0.0, 5.0), 3.0, 1.0)
    assert cylinders_touch(a, b) and cylinders_touch(b, a)
    # a custom tolerance: 0.01 apart counts with eps = 0.01
    assert cylinders_touch(a, Cylinder((25.01, 0.0, 0.0), 12.5, 40.0), eps=0.0100001)


# --------------------------------------------------------------------------------------
# segments through a cylinder
# --------------------------------------------------------------------------------------


def test_segments_hit_cylinder_hand_computed():
    # chord of y = 9.99 through |xy| <= 10: 2 sqrt(100 - 99.8001) = 0.894 mm inside
    cases = [
        ((0.0, 0.0, 30.0), (0.0, 0.0, 10.0), True),  # down through the top cap, 10 inside
        ((3.0, 0.0, 30.0), (3.0, 0.0, 25.0), False),  # stops above the top
        ((-50.0, 0.0, 5.0), (50.0, 0.0, 5.0), True),  # straight through the side
        ((-50.0, 10.0, 5.0), (50.0, 10.0, 5.0), False),  # grazes the side at one point
        ((-50.0, 9.99, 5.0), (50.0, 9.99, 5.0), True),  # a chord 0.894 mm long
        ((-50.0, 11.0, 5.0), (50.0, 11.0, 5.0), False),  # misses the side
        ((-50.0, 0.0, 25.0), (50.0, 0.0, 25.0), False),  # passes over the top
        ((-50.0, 0.0, 5.0), (-10.0, 0.0, 5.0), False),  # ends on the surface
        ((-50.0, 0.0, 5.0), (-9.0, 0.0, 5.0), True),  # ends 1 mm inside
        ((0.0, 0.0, 5.0), (1.0, 0.0, 6.0), True),  # wholly inside
        ((-20.0, 0.0, 40.0), (20.0, 0.0, -40.0), True),  # through both caps' centres
        ((-20.0, 0.0, 30.0), (-10.0, 0.0, 20.0), False),  # reaches the top rim's edge
    ]
    o = [c[0] for c in cases]
    e = [c[1] for c in cases]
    assert segments_hit_cylinder(o, e, CYL).tolist() == [c[2] for c in cases]


# --------------------------------------------------------------------------------------
# first point along a ray
# --------------------------------------------------------------------------------------


def test_ray_cylinder_entry_hand_computed():
    cases = [
        ((0.0, 0.0, 50.0), (0.0, 0.0, -1.0), 30.0),  # straight down onto the top cap
        ((0.0, 0.0, 50.0), (0.0, 0.0, -2.0), 15.0),  # t scales with |dir|
        ((3.0, 4.0, 30.0), (0.2, 0.3, -1.0), 10.0),  # slanted, top cap at (5, 7, 20)
        ((3.0, 4.0, 30.0), (0.3, 0.4, -1.0), 10.0),  # slanted onto the top rim (6, 8, 20)
        ((-30.0, 0.0, 5.0), (1.0, 0.0, 0.0), 20.0),  # through the side at x = -10
        ((-30.0, 10.0, 5.0), (1.0, 0.0, 0.0), 30.0),  # grazes the side at (0, 10, 5)
        ((-30.0, 10.5, 5.0), (1.0, 0.0, 0.0), math.inf),  # misses the side
        ((-30.0, 0.0, 5.0), (-1.0, 0.0, 0.0), math.inf),  # points away
        ((-30.0, 0.0, 25.0), (1.0, 0.0, 0.0), math.inf),  # passes over the top
        ((11.0, 0.0, 50.0), (0.0, 0.0, -1.0), math.inf),  # vertical, outside the disc
        ((0.0, 0.0, 10.0), (1.0, 2.0, 3.0), 0.0),  # starts inside
        ((0.0, 0.0, -10.0), (0.0, 0.0, 1.0), 10.0),  # up through the bottom cap
    ]
    o = [c[0] for c in cases]
    d = [c[1] for c in cases]
    t = ray_cylinder_entry(o, d, CYL)
    np.testing.assert_allclose(t, [c[2] for c in cases], rtol=1e-12, atol=1e-12)
