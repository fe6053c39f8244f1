"""Partial Cover from the geometry (SPEC 13.2; 000: +3 to the Saving Roll, never against
a template), each case worked out by hand; the odds against the brute force of
:mod:`dice_brute`.

Layout: a at the origin, t 300 mm east (silhouette 2: bases r 12.5, 40 mm tall); a
low wall 2 mm thick, 60 mm wide, 15 mm tall, square to the line between them.
"""

from __future__ import annotations

import pytest
from dice_brute import summary, wound_stats
from support import box, make_scene, trooper

from geom3d.rules.infinity.cover import partial_cover

A_STATS = {"bs": 13, "ph": 10, "arm": 1, "wounds": 1}
T_STATS = {"bs": 11, "ph": 11, "arm": 2, "wounds": 1}
W = {"ps": 1, "burst": 2}


def _scene(wall_x, *, a_pos=(0, 0), scenery_extra=(), wall_h=15.0, **attack):
    walls = [] if wall_x is None else [box("w", [2, 60, wall_h], [wall_x, 0, 0])]
    ts = [
        trooper("a", list(a_pos), stats=A_STATS, state=["arc360"]),
        trooper("t", [300, 0], side="red", facing_deg=180, stats=T_STATS, reaction="none"),
    ]
    att = {"id": "p", "attacker": "a", "target": "t", "weapon": W, **attack}
    return make_scene(ts, [*walls, *scenery_extra], attacks=[att])


def _cover(s):
    return partial_cover(s, s.trooper("a"), s.trooper("t"))


def test_touching_a_low_wall_between_is_partial_cover_with_its_mods():
    # wall x 285.5..287.5: t's base edge at 287.5 touches it. From a (eyes up to 40 mm,
    # 286 mm away) the wall hides t's lower ~14 mm: a 3 x 3 mm patch and more.
    s = _scene(286.5)
    c = _cover(s)
    assert (c.partial, c.element, c.gap_mm) == (True, "w", pytest.approx(0.0, abs=1e-6))
    assert 0.2 < c.hidden_share < 0.5
    o = s.resolve_attack("p", odds=True).to_dict()["troopers"]["t"]["odds"]
    assert o["sv_attacker"] == 13 - 3
    att, _, aw, _, _ = summary(10, 2, None, 0)
    p_w, e_w = wound_stats(att, 1 + 2 + 3)  # PS 1 + ARM 2 + 3 for Partial Cover
    assert o["p_hit"] == pytest.approx(float(aw), abs=1e-12)
    assert o["p_wounded"] == pytest.approx(float(p_w), abs=1e-12)
    assert o["expected_wounds"] == pytest.approx(float(e_w), abs=1e-12)
    words = [e["what"] for e in o["ledger"]]
    assert any("Partial Cover of t: touching w" in w and "% of the silhouette" in w for w in words)
    assert any("Partial Cover Saving Roll MOD of t" in w for w in words)


def test_two_mm_from_the_wall_is_no_cover():
    # wall x 283.5..285.5: 2 mm from t's base edge (287.5), more than 1 mm
    c = _cover(_scene(284.5))
    assert not c.partial and c.touching == ()
    o = _scene(284.5).resolve_attack("p", odds=True).to_dict()["troopers"]["t"]["odds"]
    assert o["sv_attacker"] == 13


def test_touching_a_wall_that_hides_nothing_from_this_attacker_is_no_cover():
    # the wall behind t (x 312.5..314.5): touching, but between t and nothing
    c = _cover(_scene(313.5))
    assert (c.partial, c.touching) == (False, ("w",))
    assert c.hidden_share == 0.0


def test_touching_a_wall_the_attacker_sees_over_entirely_is_no_cover():
    # a stands on a 300 mm tower 100 mm from t: it looks down at ~68 degrees, so the 8 mm
    # wall touching t hides at most 8 - 2 * tan(68) = 3 mm of t's near face in the
    # section's lower rows, and from its best eye no 3 x 3 mm patch. From the ground the
    # same wall hides a patch (control).
    tower = box("tower", [30, 30, 300], [200, 0, 0])
    s = _scene(286.5, a_pos=(200, 0), scenery_extra=[tower], wall_h=8.0)
    assert s.trooper("a").position[2] == pytest.approx(300.0)
    c = _cover(s)
    assert (c.partial, c.touching) == (False, ("w",))
    assert _cover(_scene(286.5, wall_h=8.0)).partial


def test_the_override_wins_over_the_geometry():
    s = _scene(286.5, cover="none")
    o = s.resolve_attack("p", odds=True).to_dict()["troopers"]["t"]["odds"]
    assert o["sv_attacker"] == 13
    assert any("from attacks[0].cover" in e["what"] for e in o["ledger"])
    s = _scene(None, cover={"t": "partial"})
    assert s.resolve_attack("p", odds=True).to_dict()["troopers"]["t"]["odds"]["sv_attacker"] == 10


def test_impact_template_main_target_in_cover_roll_mod_but_no_save_bonus():
    # a grenade (impact, circular) on t behind the low wall: the roll takes t's MODs
    # (-3 for Partial Cover, 000), the Saving Roll gets no +3 (a template)
    ts = [
        trooper("a", [0, 0], stats=A_STATS),
        trooper("t", [300, 0], side="red", facing_deg=180, stats=T_STATS, reaction="none"),
    ]
    att = {"id": "g", "attacker": "a", "template": "circular", "mode": "impact",
           "main_target": "t", "weapon": {"ps": 1}}  # fmt: skip
    s = make_scene(ts, [box("w", [2, 60, 15], [286.5, 0, 0])], attacks=[att])
    o = s.resolve_attack("g", odds=True).to_dict()["troopers"]["t"]["odds"]
    assert (o["roll"], o["sv_attacker"], o["attacker_dice"]) == ("normal", 13 - 3, 1)
    att_d, _, aw, _, _ = summary(10, 1, None, 0)
    p_w, _ = wound_stats(att_d, 1 + 2)  # no +3 against a template
    assert o["p_hit"] == pytest.approx(float(aw), abs=1e-12)
    assert o["p_wounded"] == pytest.approx(float(p_w), abs=1e-12)
    words = [e["what"] for e in o["ledger"]]
    assert any("Partial Cover of t: touching w" in w for w in words)
    assert any("not applied, the weapon is a template" in w for w in words)
