"""Tests of geom3d.templates.sampling: points of a silhouette inside a template volume."""

from __future__ import annotations

import math

import numpy as np
import pytest

from geom3d.bodies.cylinder import Cylinder
from geom3d.core.errors import InputError
from geom3d.templates import CircleShape, TemplateVolume, sample_inside

CIRCLE80 = CircleShape(80.0)  # radius 40, height 40


def level(shape, focus=(0.0, 0.0, 0.0), heading_deg=0.0):
    return TemplateVolume(shape, focus, heading_deg, 0.0)


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
