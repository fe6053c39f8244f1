"""Attack plumbing shared by every ruleset: placement specs, lookup, the result JSON.

The rules themselves are tested in ``tests/rules/``.
"""

from __future__ import annotations

import json

import pytest
from support import REPO, make_scene, trooper

from geom3d import load_scene
from geom3d.adjudication.attacks import placement_specs, resolve_attack
from geom3d.cli import main as cli_main
from geom3d.core.errors import UnknownIdError
from geom3d.scene.outcomes import OUTCOMES, REASONS, RESULT_FIELDS, PlacementSpec

SCEN = REPO / "meshes" / "scenarios" / "attacks"


def attack(id_, attacker, template, mode="direct", **kw):
    return {"id": id_, "attacker": attacker, "template": template, "mode": mode, **kw}


def scene_with(troopers, attacks, scenery=(), **kw):
    return make_scene(troopers, scenery, attacks=list(attacks), **kw)


# --------------------------------------------------------------------------------------
# placement specs
# --------------------------------------------------------------------------------------

PAIR = [trooper("a", [100, 100]), trooper("t", [200, 100], side="red"),
        trooper("u", [200, 150], side="red")]  # fmt: skip


def test_placement_specs_repeat_the_attack_once_per_template():
    s = scene_with(
        PAIR,
        [attack("x", "a", "small_teardrop", heading_deg=15, contact_deg=10, pitch_deg=5,
                main_target="t", burst=3)],
    )  # fmt: skip
    specs = placement_specs(s, s.attack("x"))
    assert specs == [PlacementSpec(j, 15.0, 10.0, None, 5.0, "t") for j in range(3)]


def test_placement_specs_merge_overrides_over_the_attack_defaults():
    s = scene_with(
        PAIR,
        [attack("x", "a", "circular", "impact", main_target="t", burst=2, pitch_deg=0,
                placements=[{}, {"main_target": "u", "focus": [20, 15], "heading_deg": "auto"}])],
        units="cm",
    )  # fmt: skip
    first, second = placement_specs(s, s.attack("x"))
    assert first == PlacementSpec(0, None, None, None, 0.0, "t")
    assert second.index == 1 and second.main_target == "u"
    assert second.focus == (200.0, 150.0)  # cm -> mm
    assert second.heading_deg == "auto" and second.contact_deg is None


def test_scene_attack_lookup_names_the_known_attacks():
    s = scene_with(PAIR, [attack("x", "a", "circular"), attack("y", "a", "circular")])
    assert s.attack("y").id == "y"
    with pytest.raises(UnknownIdError, match=r"unknown attack 'z' \(known: x, y\)"):
        s.attack("z")


def test_attack_result_reports_only_the_fields_its_ruleset_chose():
    s = scene_with(PAIR, [attack("x", "a", "circular")])
    res = s.resolve_attack("x")
    assert res.fields == () and "hits" not in res.to_dict()
    res.fields, res.hits, res.solver = RESULT_FIELDS, [2, 1], [{"count": 2}]
    d = res.to_dict()
    assert (d["hits"], d["hits_total"], d["wall_of_death"], d["solver"]) == (
        [2, 1], 3, None, [{"count": 2}],
    )  # fmt: skip
    assert list(d)[-4:] == ["hits", "hits_total", "wall_of_death", "solver"]


# --------------------------------------------------------------------------------------
# resolution plumbing, JSON
# --------------------------------------------------------------------------------------


def test_placement_focus_in_scenario_units():
    troopers = [trooper("a", [10, 10]), trooper("t", [20, 10], side="red")]
    s = scene_with(
        troopers,
        [attack("x", "a", "circular", "deployable", placements=[{"focus": [20, 10]}])],
        units="cm",
    )
    r = s.resolve_attack("x")
    assert r.placements[0].focus == (200.0, 100.0, 0.0)
    assert r.affected == ["t"]


def test_unknown_attack():
    s = scene_with([trooper("a", [0, 0])], [])
    with pytest.raises(UnknownIdError):
        resolve_attack(s, "nope")


def test_json_shape_is_the_contract_and_deterministic():
    scene = load_scene(SCEN / "betatrooper_burst2.yaml")
    d1 = scene.resolve_attack("nanopulser").to_dict()
    d2 = load_scene(SCEN / "betatrooper_burst2.yaml").resolve_attack("nanopulser").to_dict()
    assert json.dumps(d1, sort_keys=True, allow_nan=False) == json.dumps(d2, sort_keys=True)
    for key in (
        "id",
        "outcome",
        "reason",
        "main_target_in_area",
        "affected",
        "excluded",
        "troopers",
        "placements",
    ):
        assert key in d1
    assert "hits" not in d1  # 40k only
    assert d1["outcome"] in OUTCOMES
    for p in d1["placements"]:
        assert {"focus", "heading_deg", "affected", "outcome", "reason"} <= set(p)
        assert all(isinstance(v, float) for v in p["focus"])
        assert p["reason"] is None or p["reason"] in REASONS
    for e in d1["excluded"]:
        assert set(e) == {"id", "reason"} and e["reason"] in REASONS
    for t in d1["troopers"].values():
        assert set(t) == {
            "role",
            "dodge",
            "face_to_face",
            "critical_applies",
            "partial_cover_bonus",
            "roll",
        }


def test_cli_attack_on_every_scenario_with_attacks(capsys):
    files = [REPO / "meshes" / "demo" / "table.yaml"]
    for p in sorted((REPO / "meshes").rglob("*.yaml")):
        if p not in files and "attacks:" in p.read_text():
            files.append(p)
    assert len(files) > 5
    for f in files:
        rc = cli_main(["attack", str(f), "--format", "json"])
        out = capsys.readouterr().out
        assert rc == 0, f
        doc = json.loads(out)
        assert doc["units"] == "mm"
        for a in doc["attacks"]:
            assert a["outcome"] in OUTCOMES, (f, a)
