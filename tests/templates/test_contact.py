"""Tests of geom3d.templates.contact: exact volume/cylinder contact, distance, witness.

Hand-computed answers first, then hypothesis invariants (derandomized: the examples are
the same on every run).
"""

from __future__ import annotations

import math

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from geom3d.bodies.cylinder import Cylinder
from geom3d.bodies.kernel_constants import CONTACT_EPS_MM
from geom3d.core.errors import InputError
from geom3d.templates import (
    CircleShape,
    TeardropShape,
    TemplateVolume,
    footprint_hits_disc,
    sample_inside,
    touch_witness,
    volume_cylinder_distance,
    volume_touches_cylinder,
)
from geom3d.templates._gjk import gjk as run_gjk
from geom3d.templates.contact import pitched_contact

HYP = settings(derandomize=True, max_examples=150, deadline=None)

CIRCLE80 = CircleShape(80.0)  # radius 40, height 40
TEAR = TeardropShape(200.0, 60.0, 0.0)  # far circle radius 30 centred 170 from the tip


def level(shape, focus=(0.0, 0.0, 0.0), heading_deg=0.0):
    return TemplateVolume(shape, focus, heading_deg, 0.0)


# --------------------------------------------------------------------------------------
# hand-computed cases
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


def test_eps_must_be_finite_and_non_negative():
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
    assert (pitched_contact(flat, cyl, CONTACT_EPS_MM) is not None) == exact
    gjk = run_gjk(flat, cyl)
    assert gjk.upper == pytest.approx(volume_cylinder_distance(flat, cyl), abs=1e-6)


@HYP
@given(vol=volumes(), cyl=cylinders())
def test_pitched_contact_agrees_with_gjk_bounds(vol, cyl):
    assume(not vol.is_level)
    touches = volume_touches_cylinder(vol, cyl)
    gjk = run_gjk(vol, cyl)
    # contact means Euclidean distance <= sqrt(2) eps; no contact means > eps
    if touches:
        assert gjk.lower <= 2 * CONTACT_EPS_MM
    else:
        assert gjk.upper > CONTACT_EPS_MM
