"""Engaged troopers written to 0.01 mm are in contact (SPEC 12.6; issue 35 defect 7)."""

from __future__ import annotations

import math

from support import make_scene, trooper

from geom3d.adjudication.lof import line_of_fire as lof


def _diagonal(gap_mm: float) -> list[float]:
    """Centre of a 25 mm base whose edge is ``gap_mm`` from the base at the origin, on
    the diagonal (the way a user types a diagonal contact: rounded coordinates)."""
    c = (25.0 + gap_mm) / math.sqrt(2.0)
    return [c, c]


def test_engaged_pair_four_microns_apart_is_in_contact():
    # the reproduction: a diagonal contact 0.004 mm apart; b stands behind a's facing
    # (a faces 180 degrees), so only the engaged 360-degree contact rule gives LoF
    scene = make_scene(
        [
            trooper("a", [0, 0], facing_deg=180, engaged_with=["b"]),
            trooper("b", _diagonal(0.004), side="red", facing_deg=0),
        ]
    )
    ab, ba = lof(scene, "a", "b"), lof(scene, "b", "a")
    assert (ab.lof, ab.reason) == (True, None)
    assert (ba.lof, ba.reason) == (True, None)  # so b dodges at PH, not PH-3
    assert not any("engaged" in w for w in scene.warnings)


def test_engaged_pair_further_apart_warns_with_the_gap():
    scene = make_scene(
        [
            trooper("a", [0, 0], facing_deg=180, engaged_with=["b"]),
            trooper("b", _diagonal(0.5), side="red", facing_deg=0),
        ]
    )
    ab = lof(scene, "a", "b")
    assert (ab.lof, ab.reason) == (False, "engaged")  # not touching: sees nothing
    msgs = [w for w in scene.warnings if "engaged but not in contact" in w]
    assert len(msgs) == 1
    assert "'a' and 'b'" in msgs[0] and "0.500 mm apart" in msgs[0]


def test_the_tolerance_is_for_the_engaged_partner_only():
    # a is engaged with c (exact contact); b, 0.004 mm off a's base but not declared
    # engaged, is not touched: a engaged trooper sees only what it touches
    scene = make_scene(
        [
            trooper("a", [0, 0], facing_deg=45, engaged_with=["c"]),
            trooper("b", _diagonal(0.004), side="red"),
            trooper("c", [-25, 0], side="red"),
        ]
    )
    assert (lof(scene, "a", "b").lof, lof(scene, "a", "b").reason) == (False, "engaged")
    assert lof(scene, "a", "c").lof
