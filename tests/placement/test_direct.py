"""Tests of geom3d.placement.direct: direct templates at a base edge, pass-through, the 40k solver.

Every expected value is computed by hand in the comments.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from geom3d.bodies.cylinder import Cylinder
from geom3d.bodies.kernel_constants import CONTACT_EPS_MM
from geom3d.core.errors import InputError
from geom3d.placement.direct import (
    base_edge_point,
    default_heading,
    direct_teardrop_volume,
    heading_towards,
    max_contact_offset_deg,
    passes_through,
    solve_heading,
    touches_within,
)
from geom3d.templates import (
    CircleShape,
    TeardropShape,
    TemplateVolume,
    footprint_hits_disc,
    volume_touches_cylinder,
)

TEAR = TeardropShape(200.0, 60.0)  # far circle: radius 30, centred 170 from the tip
BASE = (10.0, 20.0, 3.0)
ATTACKER = Cylinder(BASE, 12.5, 40.0)
# the tip's half-angle: tangents from the tip to the far circle, asin(30 / 170)
HALF_ANGLE = math.degrees(math.asin(30.0 / 170.0))  # 10.164 degrees


def test_headings_and_edge_points():
    assert heading_towards((0.0, 0.0), (1.0, 1.0)) == pytest.approx(45.0)
    assert heading_towards((0.0, 0.0), (0.0, -1.0)) == pytest.approx(270.0)
    assert heading_towards((2.0, 3.0), (2.0, 3.0)) == 0.0
    assert default_heading(33.0, (0.0, 0.0), (5.0, 5.0)) == 33.0
    assert default_heading(None, (0.0, 0.0), (-1.0, 0.0)) == pytest.approx(180.0)
    assert default_heading(None, (0.0, 0.0), None) is None
    np.testing.assert_allclose(base_edge_point((10.0, 20.0), 12.5, 90.0), [10.0, 32.5], atol=1e-12)


def test_direct_teardrop_tip_touches_the_base_edge():
    # radial at heading 30: the tip is the base edge point (10 + 12.5 cos30, 20 + 12.5 sin30)
    vol = direct_teardrop_volume(TEAR, BASE, 12.5, 30.0)
    c, s = math.cos(math.radians(30.0)), math.sin(math.radians(30.0))
    np.testing.assert_allclose(vol.focus, (10.0 + 12.5 * c, 20.0 + 12.5 * s, 3.0), rtol=1e-15)
    assert (vol.heading_deg, vol.pitch_deg) == (30.0, 0.0)
    # it touches the attacker (exact contact at the tip) without passing through it
    assert volume_touches_cylinder(vol, ATTACKER)
    assert not passes_through(vol, ATTACKER)
    # a contact point other than the heading: the tip sits at angle 100 on the edge
    off = direct_teardrop_volume(TEAR, BASE, 12.5, 30.0, contact_deg=100.0, pitch_deg=-5.0)
    np.testing.assert_allclose(off.focus[:2], base_edge_point(BASE[:2], 12.5, 100.0))
    assert (off.heading_deg, off.pitch_deg) == (30.0, -5.0)


def test_max_contact_offset_deg_hand_computed():
    # point tip: |heading - contact| <= 90 - asin(r1 / (L - r1))
    assert max_contact_offset_deg(TEAR) == pytest.approx(90.0 - HALF_ANGLE, rel=1e-15)
    assert max_contact_offset_deg(TEAR) == pytest.approx(79.8358, abs=1e-4)
    # small teardrop 127 x 38.1: 90 - asin(19.05 / 107.95)
    small = TeardropShape(127.0, 38.1)
    assert max_contact_offset_deg(small) == pytest.approx(
        90.0 - math.degrees(math.asin(19.05 / 107.95))
    )
    assert max_contact_offset_deg(TeardropShape(200.0, 60.0, 10.0)) == 0.0  # round tip
    assert max_contact_offset_deg(CircleShape(76.2)) == 0.0
    with pytest.raises(InputError, match=r"not a template shape"):
        max_contact_offset_deg("teardrop")


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_the_offset_limit_is_where_the_template_starts_cutting_into_the_base(sign):
    limit = max_contact_offset_deg(TEAR)
    for offset, cuts in ((0.0, False), (limit - 0.5, False), (limit + 0.5, True)):
        vol = direct_teardrop_volume(TEAR, BASE, 12.5, 30.0, contact_deg=30.0 + sign * offset)
        assert volume_touches_cylinder(vol, ATTACKER)
        assert passes_through(vol, ATTACKER, tol=CONTACT_EPS_MM) is cuts
    # with the one contact tolerance (0.01 mm, ruling 13.3) the side may dip R (1 - cos e)
    # into the base: 0.0005 mm at 0.5 degrees past the limit (touching), 0.017 at 3 degrees
    for excess, cuts in ((0.5, False), (3.0, True)):
        vol = direct_teardrop_volume(
            TEAR, BASE, 12.5, 30.0, contact_deg=30.0 + sign * (limit + excess)
        )
        assert passes_through(vol, ATTACKER) is cuts


def test_passes_through_pitch_and_depth():
    # pitched up, the focus segment leans back into the base; pitched down it does not
    assert passes_through(direct_teardrop_volume(TEAR, BASE, 12.5, 0.0, pitch_deg=10.0), ATTACKER)
    assert not passes_through(
        direct_teardrop_volume(TEAR, BASE, 12.5, 0.0, pitch_deg=-10.0), ATTACKER
    )
    # a tip 0.5 mm inside the base cuts in; the tolerance decides a 1e-3 mm overlap: the
    # default is the one contact tolerance, 0.01 mm (ruling 13.3)
    inside = TemplateVolume(TEAR, (BASE[0] + 12.0, BASE[1], BASE[2]), 0.0)
    assert passes_through(inside, ATTACKER)
    nick = TemplateVolume(TEAR, (BASE[0] + 12.499, BASE[1], BASE[2]), 0.0)
    assert passes_through(nick, ATTACKER, tol=CONTACT_EPS_MM)
    assert not passes_through(nick, ATTACKER)
    assert passes_through(TemplateVolume(TEAR, (BASE[0] + 12.48, BASE[1], BASE[2]), 0.0), ATTACKER)
    # a cylinder thinner than twice the tolerance cannot be passed through
    assert not passes_through(inside, Cylinder(BASE, 12.5, 40.0), tol=13.0)


def test_touches_within():
    # the tip 0.005 mm beyond the edge: within 0.01, not within 0.001
    vol = TemplateVolume(TEAR, (BASE[0] + 12.505, BASE[1], BASE[2]), 0.0)
    assert touches_within(vol, ATTACKER, 0.01)
    assert not touches_within(vol, ATTACKER, 0.001)


def test_solve_heading_covers_the_target_and_avoids_the_friend():
    # one target due east of the firer: the radial placement at heading 0 covers it
    r = solve_heading(TEAR, (0.0, 0.0), 12.5, [[100.0, 0.0, 12.5]], [])
    assert r.found and r.count == 1 and r.heading_deg == 0.0 and r.contact_deg == 0.0
    # a friend beside the axis at (60, -18) is under the heading-0 template (half-width
    # about 8.5 there): the solver turns left, to the middle of the widest run of
    # radial headings that cover the target and clear the friend
    friend = (60.0, -18.0)
    r = solve_heading(TEAR, (0.0, 0.0), 12.5, [[150.0, 0.0, 12.5]], [[*friend, 12.5]])
    assert r.found and r.count == 1 and 0.0 < r.heading_deg < 20.0 and r.runner_up == 0
    assert r.contact_deg == r.heading_deg  # the radial placement

    def under(heading, xy, contact=None):
        tip = base_edge_point((0.0, 0.0), 12.5, heading if contact is None else contact)
        return footprint_hits_disc(TEAR, tip, heading, xy, 12.5)

    assert under(r.heading_deg, (150.0, 0.0)) and not under(r.heading_deg, friend)
    assert under(0.0, friend)
    # the reported interval: turning about the chosen contact point, the ends still
    # cover the target and clear the friend (touching the friend counts, so the friend
    # end is a hair inside); 0.01 degree beyond, the target is lost, the friend touched
    # or the template cuts into the base (|heading - contact| > the largest offset)
    lo, hi = r.heading_interval_deg
    c = r.contact_deg
    for h, step in ((lo, -0.01), (hi, 0.01)):
        inside = h - step * 0.1
        assert under(inside, (150.0, 0.0), c) and not under(inside, friend, c)
        assert (
            not under(h + step, (150.0, 0.0), c)
            or under(h + step, friend, c)
            or abs(h + step - c) > max_contact_offset_deg(TEAR)
        )
    # friends all round the firer: no admissible placement
    ring = [[30.0 * math.cos(a), 30.0 * math.sin(a), 12.5] for a in np.radians(range(0, 360, 20))]
    r = solve_heading(TEAR, (0.0, 0.0), 12.5, [[150.0, 0.0, 12.5]], ring)
    assert not r.found and r.heading_deg is None and r.count == 0
