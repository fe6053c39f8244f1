"""Plain BS attacks (SPEC 13.2): range bands from the geometry, and the odds against a
brute force over d20 outcomes written in the tests (:mod:`dice_brute`), never the
engine's odds code.

Layout: silhouette 2 bases (r 12.5) on open ground; the distance between the silhouettes
is the distance between the centres minus 25 mm (base edge to base edge).
"""

from __future__ import annotations

import math

import pytest
from dice_brute import summary, wound_stats
from support import box, make_scene, trooper

from geom3d.core.errors import ScenarioError
from geom3d.rules.infinity.plain import silhouette_distance

BANDS = [{"to": 200, "mod": 3}, {"to": 400, "mod": -3}]
A_STATS = {"bs": 12, "ph": 10, "arm": 1, "wounds": 1}
T_STATS = {"bs": 11, "ph": 11, "arm": 3, "wounds": 2}


def _scene(distance, *, reaction=None, weapon=None, units="mm", scenery=(), k=1.0, **extra):
    """Attacker at the origin, target so that the silhouettes are ``distance`` apart."""
    t = trooper("t", [distance + 25.0 / k, 0], side="red", facing_deg=180, stats=T_STATS)
    if reaction is not None:
        t["reaction"] = reaction
    w = {"ps": 0, "burst": 2, "ranges": BANDS} if weapon is None else weapon
    att = {"id": "p", "attacker": "a", "target": "t", "weapon": w, **extra}
    return make_scene([trooper("a", [0, 0], stats=A_STATS), t], scenery, units=units,
                      attacks=[att])  # fmt: skip


@pytest.mark.parametrize(
    ("distance", "band", "mod"),
    [
        (199.99, 0, 3),
        (200.0, 0, 3),  # a band's end belongs to it
        (200.01, 1, -3),
        (399.99, 1, -3),
        (400.0, 1, -3),
    ],
)
def test_range_band_edges_and_the_odds_there(distance, band, mod):
    s = _scene(distance, reaction="none")
    d = s.resolve_attack("p", odds=True).to_dict()
    assert d["outcome"] == "resolved" and d["target"] == "t"
    assert d["range"]["distance_mm"] == pytest.approx(distance, abs=1e-9)
    assert (d["range"]["band"], d["range"]["mod"]) == (band, mod)
    o = d["troopers"]["t"]["odds"]
    sv = 12 + mod
    assert (o["roll"], o["sv_attacker"], o["attacker_dice"]) == ("normal", sv, 2)
    att, _, aw, _, _ = summary(sv, 2, None, 0)
    assert o["p_hit"] == pytest.approx(float(aw), abs=1e-12)
    assert o["expected_hits"] == pytest.approx(float(sum(h * p for (h, _), p in att.items())))
    p_w, e_w = wound_stats(att, 0 + 3)  # PS 0 + ARM 3
    assert o["p_wounded"] == pytest.approx(float(p_w), abs=1e-12)
    assert o["expected_wounds"] == pytest.approx(float(e_w), abs=1e-12)
    assert any(f"band {'0-200' if band == 0 else '200-400'} mm" in e["what"] for e in o["ledger"])


def test_beyond_the_last_band_is_out_of_range():
    d = _scene(400.01).resolve_attack("p", odds=True).to_dict()
    assert (d["outcome"], d["reason"], d["affected"]) == ("invalid", "out_of_range", [])
    assert d["range"]["band"] is None and d["range"]["distance_mm"] == pytest.approx(400.01)


def test_range_bands_in_inches():
    # 8 in = 203.2 mm; bands 0-8 (+3), 8-16 (0). Silhouettes 8 in apart exactly.
    w = {"ps": 0, "ranges": [{"to": 8, "mod": 3}, {"to": 16, "mod": 0}]}
    for dist_in, band in ((8.0, 0), (8.0 + 0.01 / 25.4, 1)):
        s = _scene(dist_in, weapon=w, units="in", reaction="none", k=25.4)
        d = s.resolve_attack("p").to_dict()
        assert d["range"]["units"] == "in"
        assert d["range"]["distance"] == pytest.approx(dist_in, abs=1e-6)
        assert d["range"]["band"] == band


def test_distance_is_between_silhouette_volumes():
    # b stands on a 60 mm box, 30 mm east of a's edge in plan: the silhouettes (heights
    # 40 mm, silhouette 2) are 60 - 40 = 20 mm apart vertically: hypot(30, 20)
    ts = [trooper("a", [0, 0]), trooper("b", [55, 0], side="red")]
    s = make_scene(ts, [box("roof", [40, 40, 60], [55, 0, 0])])
    a, b = s.trooper("a").cylinder, s.trooper("b").cylinder
    gap_z = b.base_array[2] - (a.base_array[2] + a.height)
    assert gap_z == pytest.approx(60.0 - a.height)
    assert silhouette_distance(a, b) == pytest.approx(math.hypot(30.0, gap_z))


@pytest.mark.parametrize(
    ("reaction", "def_sv", "m"),
    [("dodge", 11, 1), ({"attack": {"ps": 1, "ranges": [{"to": 500, "mod": 0}]}}, 11, 1)],
)
def test_face_to_face_against_a_dodge_or_a_shot_back(reaction, def_sv, m):
    s = _scene(150.0, reaction=reaction)
    o = s.resolve_attack("p", odds=True).to_dict()["troopers"]["t"]["odds"]
    assert (o["roll"], o["sv_attacker"], o["sv_defender"]) == ("face_to_face", 15, def_sv)
    _, dfn, aw, dw, nobody = summary(15, 2, def_sv, m)
    assert o["p_hit"] == pytest.approx(float(aw), abs=1e-12)
    assert o["p_attacker_wins"] == pytest.approx(float(aw), abs=1e-12)
    assert o["p_defender_wins"] == pytest.approx(float(dw), abs=1e-12)
    assert o["p_nobody"] == pytest.approx(float(nobody), abs=1e-12)
    if isinstance(reaction, dict):  # the attacker's wounds from the shot back
        p_w, e_w = wound_stats(dfn, 1 + 1)  # PS 1 + ARM 1
        assert o["attacker_p_wounded"] == pytest.approx(float(p_w), abs=1e-12)
        assert o["attacker_expected_wounds"] == pytest.approx(float(e_w), abs=1e-12)


def test_aro_plain_attack_rolls_one_die_against_the_active_target():
    # in ARO the attacker rolls B1; the target (active) shoots back with its full B2
    react = {"attack": {"ps": 1, "burst": 2}}
    s = make_scene(
        [trooper("a", [0, 0], stats=A_STATS),
         trooper("t", [175, 0], side="red", facing_deg=180, stats=T_STATS, reaction=react)],
        attacks=[{"id": "p", "attacker": "a", "target": "t", "aro": True,
                  "weapon": {"ps": 0, "burst": 2, "ranges": BANDS}}],
        active=["t"],
    )  # fmt: skip
    o = s.resolve_attack("p", odds=True).to_dict()["troopers"]["t"]["odds"]
    assert (o["attacker_dice"], o["defender_dice"]) == (1, 2)
    _, _, aw, dw, _ = summary(15, 1, 11, 2)
    assert o["p_attacker_wins"] == pytest.approx(float(aw), abs=1e-12)
    assert o["p_defender_wins"] == pytest.approx(float(dw), abs=1e-12)


def test_no_line_of_fire_fails():
    wall = box("w", [4, 100, 80], [100, 0, 0])
    d = _scene(150.0, scenery=[wall]).resolve_attack("p").to_dict()
    assert (d["outcome"], d["reason"]) == ("failed", "no_lof")


@pytest.mark.parametrize(
    ("extra", "path"),
    [
        ({"main_target": "t"}, "attacks[0].main_target"),
        ({"heading_deg": 0}, "attacks[0].heading_deg"),
        ({"mode": "impact"}, "attacks[0].mode"),
    ],
)
def test_template_keys_on_a_plain_attack_are_errors(extra, path):
    with pytest.raises(ScenarioError) as err:
        _scene(100.0, **extra)
    assert err.value.path == path


def test_target_on_a_template_attack_and_a_missing_target_are_errors():
    ts = [trooper("a", [0, 0]), trooper("t", [100, 0], side="red")]
    with pytest.raises(ScenarioError) as err:
        make_scene(ts, attacks=[{"id": "x", "attacker": "a", "template": "circular",
                                 "target": "t"}])  # fmt: skip
    assert err.value.path == "attacks[0].target"
    with pytest.raises(ScenarioError) as err:
        make_scene(ts, attacks=[{"id": "x", "attacker": "a"}])
    assert err.value.path == "attacks[0].target"
