"""The Infinity roll keys of a scenario (SPEC 12.4): ``stats``, ``reaction``,
``reaction_mod`` and an attack's ``weapon``; every bad value is one error with its field
path (geom3d/scenario/rolls.py)."""

from __future__ import annotations

import pytest
from support import trooper

from geom3d.core.errors import ScenarioError
from geom3d.scenario import parse_scenario


def _scenario(trooper_extra=None, attack_extra=None, ruleset="infinity"):
    t = trooper("t", (200, 100), side="red", **(trooper_extra or {}))
    a = trooper("a", (100, 100))
    attack = {"id": "shot", "attacker": "a", "template": "small_teardrop", "mode": "direct",
              "heading_deg": 0, **(attack_extra or {})}  # fmt: skip
    if ruleset != "infinity":
        attack = {"id": "shot", "attacker": "a", "template": "flame", **(attack_extra or {})}
    return {"format": "geom3d/1", "ruleset": ruleset, "troopers": [a, t], "attacks": [attack]}


@pytest.mark.parametrize(
    ("trooper_extra", "attack_extra", "message"),
    [
        ({"stats": {"bs": 41}}, None, r"troopers\[1\]\.stats\.bs: must be between 0 and 40 \("),
        ({"stats": {"bs": 12.5}}, None, r"troopers\[1\]\.stats\.bs: expected an integer \(got 12"),
        ({"stats": {"wounds": 0}}, None, r"troopers\[1\]\.stats\.wounds: must be between 1 and 20"),
        ({"stats": {"luck": 3}}, None, r"troopers\[1\]\.stats\.luck: unknown key 'luck' \(known"),
        ({"stats": [11]}, None, r"troopers\[1\]\.stats: expected a mapping \(got \[11\]\)"),
        ({"reaction": "run"}, None, r"troopers\[1\]\.reaction: expected one of none, dodge"),
        ({"reaction": {"shoot": {}}}, None, r"troopers\[1\]\.reaction\.shoot: unknown key 'shoot'"),
        ({"reaction": {"attack": {"burst": 2}}}, None,
         r"troopers\[1\]\.reaction\.attack\.ps: required field is missing"),
        ({"reaction": {"attack": {"ps": 9, "burst": 0}}}, None,
         r"troopers\[1\]\.reaction\.attack\.burst: must be between 1 and 20 \(got 0\)"),
        ({"reaction_mod": "+3"}, None, r"troopers\[1\]\.reaction_mod: expected an integer \(got"),
        (None, {"weapon": {"ps": 9, "attribute": "cc"}},
         r"attacks\[0\]\.weapon\.attribute: expected one of bs, ph, wip \(got 'cc'\)"),
        (None, {"weapon": {"ps": 9, "save": "cover"}},
         r"attacks\[0\]\.weapon\.save: expected one of arm, bts \(got 'cover'\)"),
        (None, {"weapon": {"attribute": "bs"}},
         r"attacks\[0\]\.weapon\.ps: required field is missing \(the Possibility of Survival"),
        (None, {"weapon": {"ps": 9}, "harmless": True}, r"attacks\[0\]\.weapon\.ps: a harmless"),
        (None, {"weapon": {"ps": 9, "mod": 41}}, r"attacks\[0\]\.weapon\.mod: must be between -40"),
        (None, {"weapon": {"ps": 9, "burst": 3}, "burst": 2},
         r"attacks\[0\]\.weapon\.burst: weapon burst 3 differs from the attack's burst 2"),
        (None, {"weapon": "grenade"}, r"attacks\[0\]\.weapon: expected a mapping"),
    ],
)  # fmt: skip
def test_bad_roll_data_is_an_error_with_its_field_path(trooper_extra, attack_extra, message):
    with pytest.raises(ScenarioError, match="^s.yaml: " + message):
        parse_scenario(_scenario(trooper_extra, attack_extra), file="s.yaml")


def test_roll_data_in_a_40k_scenario_is_an_error():
    data = _scenario({"stats": {"bs": 3}}, ruleset="wh40k-7e")
    with pytest.raises(ScenarioError, match=r"troopers\[1\]\.stats: stats is Infinity roll data"):
        parse_scenario(data, file="s.yaml")
    data = _scenario(None, {"weapon": {"ps": 3}}, ruleset="wh40k-7e")
    with pytest.raises(ScenarioError, match=r"attacks\[0\]\.weapon: weapon is Infinity roll"):
        parse_scenario(data, file="s.yaml")


def test_roll_keys_are_parsed_with_their_defaults():
    data = _scenario(
        {"stats": {"bs": 12, "ph": 10, "wounds": 2}, "reaction": {"attack": {"ps": 13}},
         "reaction_mod": -3},
        {"weapon": {"ps": 9, "burst": 2}},
    )  # fmt: skip
    scn = parse_scenario(data, file="s.yaml")
    t = scn.trooper("t")
    assert (t.stats.bs, t.stats.ph, t.stats.arm, t.stats.wounds) == (12, 10, None, 2)
    assert t.reaction.kind == "attack" and t.reaction_mod == -3
    ra = t.reaction.attack
    assert (ra.attribute, ra.burst, ra.mod, ra.ps, ra.save) == ("bs", None, 0, 13, "arm")
    (a,) = scn.attacks
    w = a.weapon
    assert (w.attribute, w.ps, w.save, w.mod) == ("bs", 9, "arm", 0)
    assert a.burst == 2  # the weapon's Burst places two templates
    plain = parse_scenario(_scenario(), file="s.yaml")
    assert plain.trooper("t").stats is None and plain.attacks[0].weapon is None
