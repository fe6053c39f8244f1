"""``geom3d attack --odds`` and ``resolve_attack(..., odds=True)`` (SPEC 12.4): who rolls
what against whom, from the geometry and the scenario's roll data; hand-computed values.

Template sizes (ruleset data): ``circular`` 76.2 mm across, ``small_teardrop`` 127 mm
long; troopers are silhouette 2 (base 25 mm). A teardrop from ``a`` at (100, 100) with
heading 0 reaches x = 239.5 along y = 100.
"""

from __future__ import annotations

import json
from fractions import Fraction as F

from support import REPO, make_scene, trooper

from geom3d.cli import main as cli_main

GRENADE = REPO / "meshes" / "scenarios" / "attacks" / "grenade_odds.yaml"

RED = {"bs": 11, "ph": 11, "wip": 13, "cc": 13, "arm": 2, "bts": 0, "wounds": 1}
BLUE = {"bs": 13, "ph": 10, "wip": 13, "cc": 14, "arm": 1, "bts": 3, "wounds": 2}


def _close(x: float, frac: F) -> bool:
    return x == float(frac)


def _ledger(odds: dict) -> dict:
    return {e["what"]: e["value"] for e in odds["ledger"]}


def _teardrop_scene(red_extra=None, weapon=None, **attack_extra):
    red = trooper("t", (200, 100), side="red", facing_deg=180, stats=RED, **(red_extra or {}))
    blue = trooper("a", (100, 100), stats=BLUE)
    attack = {
        "id": "shot",
        "attacker": "a",
        "template": "small_teardrop",
        "mode": "direct",
        "main_target": "t",
        "heading_deg": 0,
        "weapon": weapon or {"ps": 9},
        **attack_extra,
    }
    return make_scene([blue, red], attacks=[attack])


# ----------------------------------------------------------------------------- direct templates
def test_direct_template_dodged_with_a_normal_ph_roll():
    res = _teardrop_scene().resolve_attack("shot", odds=True)
    o = res.to_dict()["troopers"]["t"]["odds"]
    # no attack roll (001): hit unless the dodge (PH 11: 11 in 20) succeeds -> 9/20
    assert (o["roll"], o["attacker_dice"], o["defender_dice"]) == ("normal", 0, 1)
    assert (o["sv_attacker"], o["sv_defender"]) == (None, 11)
    assert _close(o["p_hit"], F(9, 20)) and o["p_critical"] == 0.0
    # one Saving Roll at PS 9 + ARM 2 = 11: fails 9 in 20 -> wounded 81/400
    assert _close(o["p_wounded"], F(81, 400))
    assert o["wounds_distribution"] == [float(1 - F(81, 400)), float(F(81, 400))]
    assert o["p_out"] == o["p_wounded"]  # 1 wound
    led = _ledger(o)
    assert led["attack roll: none, a direct template hits without a roll (001)"] == 0
    assert led["dodge attribute: PH of t (troopers[1].stats.ph)"] == 11
    assert led["PS (attacks[0].weapon.ps)"] == 9
    assert led["ARM of t (troopers[1].stats.arm)"] == 2
    assert any("Partial Cover" in k and v == "+0" for k, v in led.items())


def test_direct_template_with_a_reaction_attack_is_hit_and_shoots_back_normally():
    react = {"reaction": {"attack": {"burst": 3, "ps": 13, "save": "bts"}}}
    o = _teardrop_scene(react).resolve_attack("shot", odds=True).to_dict()["troopers"]["t"]["odds"]
    # the template hits without a roll; the reaction (BS 11, Burst 1 in ARO) is a Normal
    # Roll (001): 11/20 hits, 1/20 of them critical; the attacker saves at PS 13 + BTS 3
    assert (o["roll"], o["p_hit"], o["defender_dice"]) == ("none", 1.0, 0)
    back = o["against_attacker"]
    assert _close(back["p_hit"], F(11, 20)) and _close(back["p_critical"], F(1, 20))
    # saves fail 4 in 20: P(wounded) = 10/20 * 4/20 + 1/20 * (1 - (16/20)^2)
    assert _close(back["p_wounded"], F(10, 20) * F(4, 20) + F(1, 20) * (1 - F(16, 20) ** 2))
    assert back["p_out"] == back["wounds_distribution"][2]  # the attacker has 2 wounds
    assert _ledger(o)["reaction attack dice: Burst 3 declared, 1 in ARO (002)"] == 1


def test_reaction_none_and_reaction_mod():
    o = _teardrop_scene({"reaction": "none"}).resolve_attack("shot", odds=True)
    assert o.to_dict()["troopers"]["t"]["odds"]["p_hit"] == 1.0
    o = _teardrop_scene({"reaction_mod": 3}).resolve_attack("shot", odds=True)
    odds = o.to_dict()["troopers"]["t"]["odds"]
    assert odds["sv_defender"] == 14 and _close(odds["p_hit"], F(6, 20))


def test_aro_attacker_against_an_active_trooper_keeps_its_burst():
    # in ARO the attacker places one template; the active trooper reacts with its full B3
    react = {"reaction": {"attack": {"burst": 3, "ps": 13}}}
    scene = _teardrop_scene(react, aro=True)
    o = scene.resolve_attack("shot", odds=True).to_dict()["troopers"]["t"]["odds"]
    assert o["roll"] == "none"  # t is not active: it cannot react to an ARO
    assert "against_attacker" not in o
    red = trooper("t", (200, 100), side="red", facing_deg=180, stats=RED, **react)
    blue = trooper("a", (100, 100), stats=BLUE)
    attack = {"id": "shot", "attacker": "a", "template": "small_teardrop", "mode": "direct",
              "main_target": "t", "heading_deg": 0, "weapon": {"ps": 9}, "aro": True}  # fmt: skip
    scene = make_scene([blue, red], attacks=[attack], active=["t"])
    o = scene.resolve_attack("shot", odds=True).to_dict()["troopers"]["t"]["odds"]
    # three Normal-Roll dice at BS 11 against the attacker: P(at least one hit) = 1 - (9/20)^3
    assert _close(o["against_attacker"]["p_hit"], 1 - F(9, 20) ** 3)


# ----------------------------------------------------------------------------- impact templates
def test_grenade_odds_per_trooper():
    from geom3d import load_scene

    doc = load_scene(GRENADE).resolve_attack("grenade", odds=True).to_dict()
    assert doc["weapon"] == {"attribute": "bs", "burst": 1, "ps": 7, "save": "arm", "mod": 0}
    t1, t2, t3 = (doc["troopers"][t]["odds"] for t in ("t1", "t2", "t3"))
    # t1, main target: SV 13 vs dodge 11 (tests/combat/test_rolls.py): 12/25 hits, 19/400
    # critical; saves at PS 7 + ARM 1 = 8 fail 3/5:
    # P(wounded) = 173/400 * 3/5 + 19/400 * (1 - (2/5)^2)
    assert (t1["roll"], t1["sv_attacker"], t1["sv_defender"]) == ("face_to_face", 13, 11)
    assert _close(t1["p_hit"], F(12, 25)) and _close(t1["p_critical"], F(19, 400))
    assert _close(t1["p_wounded"], F(173, 400) * F(3, 5) + F(19, 400) * (1 - F(4, 25)))
    # t2, secondary: the grenadier's critical is a plain 13, so no critical hit
    assert t2["p_critical"] == 0.0 and _close(t2["p_hit"], F(12, 25))
    # t3: hidden from the grenadier by the wall -> PH-3 = 8
    assert t3["sv_defender"] == 8
    led = _ledger(t3)
    assert led["dodge MOD: no Line of Fire from t3 to the attacker grenadier (000: PH-3)"] == "-3"
    # t2 shoots back (BS 11, Burst 1 in ARO) face to face: 1/20 + sum_{r=1}^{10}(7+r-1)/400
    assert _close(t2["against_attacker"]["p_hit"], F(1, 20) + F(115, 400))


def test_impact_burst_from_the_weapon_places_that_many_templates():
    red = trooper("t", (300, 100), side="red", facing_deg=180, stats=RED)
    blue = trooper("a", (100, 100), stats=BLUE)
    attack = {"id": "g", "attacker": "a", "template": "circular", "mode": "impact",
              "main_target": "t", "weapon": {"burst": 2, "ps": 7, "mod": -3}}  # fmt: skip
    res = make_scene([blue, red], attacks=[attack]).resolve_attack("g", odds=True)
    assert len(res.placements) == 2
    o = res.to_dict()["troopers"]["t"]["odds"]
    assert (o["attacker_dice"], o["sv_attacker"]) == (2, 10)
    assert len(o["wounds_distribution"]) == 5  # two critical hits: four saves


def test_harmless_template_ally_rolls_nothing_and_takes_no_wound():
    ally = trooper("b", (120, 130), stats=BLUE, reaction="dodge")
    red = trooper("t", (100, 100), side="red", facing_deg=180, stats=RED)
    blue = trooper("a", (300, 100), facing_deg=180, stats=BLUE)
    attack = {"id": "smoke", "attacker": "a", "template": "circular", "mode": "impact",
              "main_target": "t", "harmless": True, "weapon": {"attribute": "ph"}}  # fmt: skip
    doc = make_scene([blue, red, ally], attacks=[attack]).resolve_attack("smoke", odds=True)
    o = doc.to_dict()["troopers"]["b"]["odds"]
    assert o["defender_dice"] == 0 and o["wounds_distribution"] == [1.0]
    assert o["roll"] == "normal"  # only the attacker's PH roll decides whether it lands
    assert any("ignored" in e["what"] for e in o["ledger"])


# ----------------------------------------------------------------------------- CLI
def _run(capsys, *args):
    rc = cli_main(list(args))
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_json_is_byte_identical_and_unchanged_without_odds(capsys):
    rc1, a, _ = _run(capsys, "attack", str(GRENADE), "--odds")
    rc2, b, _ = _run(capsys, "attack", str(GRENADE), "--odds")
    assert rc1 == rc2 == 0 and a == b
    rc, plain, _ = _run(capsys, "attack", str(GRENADE))
    assert rc == 0 and '"odds"' not in plain and '"weapon"' not in plain
    doc = json.loads(a)
    for att in doc["attacks"]:
        del att["weapon"]
        for t in att["troopers"].values():
            del t["odds"]
    assert doc == json.loads(plain)


def test_table_lists_each_affected_trooper(capsys):
    rc, out, _ = _run(capsys, "attack", str(GRENADE), "--odds", "--format", "table")
    assert rc == 0
    rows = [line for line in out.splitlines() if line.startswith("│ grenade │ t")]
    assert [r.split("│")[2].strip() for r in rows] == ["t1", "t2", "t3"]
    assert "1@13 vs 1@8" in rows[2] and "48.0%" in rows[0] and "│ B1 │" in rows[0]
    # t2 shoots back face to face: it wins 0.3375 of the time (SPEC 13.2 summary)
    assert "48.0/33.8/18.2" in rows[1]
    assert rows[1].split("│")[-2].strip().startswith("1@11 ")
    assert max(len(line) for line in out.splitlines()) <= 100  # compact: 100 columns
    assert "PH-3" in out  # the reason for a MOD (no Line of Fire to the attacker)


def test_missing_stats_is_one_line_with_the_field_path(capsys, tmp_path):
    text = GRENADE.read_text().replace(
        "    stats: {bs: 11, ph: 11, wip: 13, cc: 13, arm: 1, bts: 0, wounds: 1}\n", "", 1
    )
    path = tmp_path / "g.yaml"
    path.write_text(text)
    rc, out, err = _run(capsys, "attack", str(path))
    assert rc == 0  # without --odds nothing needs the stats
    rc, out, err = _run(capsys, "attack", str(path), "--odds")
    assert rc == 2 and out == ""
    assert err == (
        f"geom3d: error: {path}: troopers[1].stats: ph of 't1' is needed for its dodge (or "
        "give reaction: none) in attack 'grenade' (geom3d attack --odds)\n"
    )


def test_odds_on_a_40k_scenario_is_a_usage_error(capsys):
    path = REPO / "meshes" / "scenarios" / "attacks" / "wh40k_flame_line.yaml"
    rc, out, err = _run(capsys, "attack", str(path), "--odds", "--quiet")
    assert rc == 2 and out == ""
    assert err.startswith("geom3d: error: ruleset 'wh40k-7e' has no roll rules")


def test_render_odds_needs_an_attack(capsys):
    rc, _, err = _run(capsys, "render", str(GRENADE), "--out", "x.png", "--odds")
    assert rc == 2 and "--odds needs --attack ID" in err


def test_ps_plus_arm_at_20_and_above_never_wounds():
    for ps in (18, 25):  # PS + ARM 2 = 20, 27
        o = _teardrop_scene(weapon={"ps": ps}).resolve_attack("shot", odds=True)
        odds = o.to_dict()["troopers"]["t"]["odds"]
        assert _close(odds["p_hit"], F(9, 20)) and odds["p_wounded"] == 0.0
        assert odds["wounds_distribution"] == [1.0, 0.0]
        key = "Saving Roll of t: d20 <= PS + ARM (one per hit, one more per critical hit, 002)"
        assert _ledger(odds)[key] == ps + 2
    # BTS instead of ARM: t's BTS is 0, so PS 19 fails on a 20 only
    o = _teardrop_scene(weapon={"ps": 19, "save": "bts"}).resolve_attack("shot", odds=True)
    odds = o.to_dict()["troopers"]["t"]["odds"]
    assert _close(odds["p_wounded"], F(9, 20) * F(1, 20))


def test_check_verifies_the_odds_an_expect_block_asks_for(capsys, tmp_path):
    # the bundled scenario pins t1's odds (hand-computed); a wrong value fails the check
    rc, out, _ = _run(capsys, "check", str(GRENADE), "--quiet")
    assert rc == 0, out
    path = tmp_path / "g.yaml"
    path.write_text(GRENADE.read_text().replace("p_hit: 0.48,\n", "p_hit: 0.5,\n", 1))
    rc, out, _ = _run(capsys, "check", str(path), "--quiet", "--format", "github")
    assert rc == 1
    assert "attacks.grenade.troopers.t1.odds" in out
