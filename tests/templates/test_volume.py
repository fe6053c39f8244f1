"""Tests of geom3d.templates.volume: membership, frame, bounds, meshes, validation."""

from __future__ import annotations

import math

import numpy as np
import pytest

from geom3d.core.errors import InputError, ShapeError
from geom3d.templates import CircleShape, TeardropShape, TemplateVolume

CIRCLE80 = CircleShape(80.0)  # radius 40, height 40
TEAR = TeardropShape(200.0, 60.0, 0.0)  # far circle radius 30 centred 170 from the tip


def level(shape, focus=(0.0, 0.0, 0.0), heading_deg=0.0):
    return TemplateVolume(shape, focus, heading_deg, 0.0)


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


def test_volume_validation():
    with pytest.raises(InputError, match=r"pitch_deg must be strictly between -90 and 90"):
        TemplateVolume(CIRCLE80, (0.0, 0.0, 0.0), 0.0, 90.0)
    with pytest.raises(InputError, match=r"shape must be a CircleShape or TeardropShape"):
        TemplateVolume({"shape": "circle"}, (0.0, 0.0, 0.0))
    with pytest.raises(ShapeError, match=r"focus has shape \(2,\), expected \(3,\)"):
        TemplateVolume(CIRCLE80, (0.0, 0.0))
    with pytest.raises(InputError, match=r"sections must be an integer >= 3"):
        level(CIRCLE80).to_trimesh(sections=2)
