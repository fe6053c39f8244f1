"""Round 3 input rules (SPEC 12.6): a main target equal to its attacker (issue 35 defect 5),
ruling A3 (``aro_burst`` above the burst, ``aro`` in 40k)."""

from __future__ import annotations

import json

import pytest
import yaml
from support import make_scene, trooper

from geom3d.api import load_scene
from geom3d.cli import main
from geom3d.core.errors import ScenarioError
from geom3d.scenario import load_scenario


def _doc(ruleset="infinity", attacks=()):
    return {
        "format": "geom3d/1",
        "units": "mm",
        "ruleset": ruleset,
        "troopers": [
            {"id": "a", "side": "blue", "position": [100, 100], "facing_deg": 0},
            {"id": "e", "side": "red", "position": [200, 100], "facing_deg": 180},
        ],
        "attacks": list(attacks),
    }


GOOD = {"id": "ok", "attacker": "a", "template": "small_teardrop", "main_target": "e"}
SELF = {"id": "self", "attacker": "a", "template": "small_teardrop", "main_target": "a"}


def _write(tmp_path, doc):
    p = tmp_path / "s.yaml"
    p.write_text(yaml.safe_dump(doc))
    return p


def test_main_target_equal_to_attacker_is_an_input_error_and_other_attacks_report(tmp_path, capsys):
    p = _write(tmp_path, _doc(attacks=[GOOD, SELF]))
    code = main(["attack", str(p), "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 2
    doc = json.loads(out)
    ok, bad = doc["attacks"]
    assert ok["id"] == "ok" and ok["outcome"] == "resolved" and ok["affected"] == ["e"]
    assert (bad["outcome"], bad["reason"]) == ("invalid", "input_error")
    assert "attacks[1].main_target" in bad["error"] and str(p) in bad["error"]
    line = f"geom3d: error: {p}: attacks[1].main_target: the main target is the attacker 'a'"
    assert err.startswith(line) and err.count("\n") == 1
    assert "Traceback" not in err


def test_main_target_equal_to_attacker_in_a_placement(tmp_path):
    bad = dict(GOOD, id="b2", burst=2, placements=[{}, {"main_target": "a"}])
    p = _write(tmp_path, _doc(attacks=[bad]))
    problem = load_scenario(p).attacks[0].problem
    assert problem is not None and problem.path == "attacks[0].placements[1].main_target"
    with pytest.raises(ScenarioError, match=r"placements\[1\]\.main_target"):
        load_scene(p).resolve_attack("b2")


@pytest.mark.parametrize(
    ("ruleset", "extra", "path", "words"),
    [
        ("infinity", {"burst": 1, "aro": True, "aro_burst": 2}, "aro_burst", "above"),
        ("wh40k-7e", {"aro": True}, "aro", "Infinity's"),
    ],
)
def test_ruling_a3_input_errors(tmp_path, ruleset, extra, path, words):
    # an input error of that attack (13.3): the file loads, the attack holds the error
    template = "small_teardrop" if ruleset == "infinity" else "flame"
    att = dict(GOOD, template=template, **extra)
    problem = load_scenario(_write(tmp_path, _doc(ruleset, [att]))).attacks[0].problem
    assert problem is not None and words in str(problem)
    assert problem.path == f"attacks[0].{path}"


def test_aro_burst_at_or_below_the_burst_is_accepted(tmp_path):
    att = dict(GOOD, burst=3, aro=True, aro_burst=2)
    assert load_scenario(_write(tmp_path, _doc(attacks=[att]))).attacks[0].aro_burst == 2


def test_intuitive_attack_needs_no_lof_to_its_main_target():
    # a faces west (180 degrees); e stands 100 mm east, behind it: no Line of Fire (out
    # of arc), so a plain direct template fails (no_lof). An Intuitive Attack needs none:
    # the teardrop aimed at e touches it (Blast Focus LoF is not limited by the arc), and
    # e opposes the WIP roll face to face (the roll is made against it: its critical).

    ts = [trooper("a", [100, 100], facing_deg=180), trooper("e", [200, 100], side="red",
                                                             facing_deg=180)]  # fmt: skip
    atk = {"attacker": "a", "template": "small_teardrop", "main_target": "e"}
    s = make_scene(ts, attacks=[{**atk, "id": "plain"}, {**atk, "id": "wip", "intuitive": True}])
    plain, wip = s.resolve_attack("plain"), s.resolve_attack("wip")
    assert (plain.outcome, plain.reason) == ("failed", "no_lof")
    assert (wip.outcome, wip.affected) == ("resolved", ["e"])
    assert wip.troopers["e"] == {
        "role": "main",
        "dodge": "PH",  # e faces a: it has LoF to its attacker
        "face_to_face": True,
        "critical_applies": True,
        "partial_cover_bonus": False,
        "roll": "WIP",
    }


@pytest.mark.parametrize(
    ("ruleset", "extra"),
    [("infinity", {"mode": "impact", "template": "circular"}), ("wh40k-7e", {"template": "flame"})],
)
def test_intuitive_needs_an_infinity_direct_template(tmp_path, ruleset, extra):
    att = dict(GOOD, intuitive=True, **extra)
    with pytest.raises(ScenarioError, match="Intuitive Attack") as err:
        load_scenario(_write(tmp_path, _doc(ruleset, [att])))
    assert err.value.path == "attacks[0].intuitive"
