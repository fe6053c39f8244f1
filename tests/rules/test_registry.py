"""The ruleset registry and the ruleset objects: names, data, dispatch, LoF policy."""

from __future__ import annotations

import dataclasses
from typing import ClassVar

import pytest
from support import make_scene, trooper

from geom3d.api import build_scene
from geom3d.core.errors import ScenarioError
from geom3d.ruledata import RULESETS, load_ruleset
from geom3d.rules.base import StandardRuleset
from geom3d.rules.infinity import InfinityRuleset
from geom3d.rules.registry import REGISTRY, ruleset_for
from geom3d.rules.wh40k import Wh40k7eRuleset
from geom3d.scenario import parse_scenario
from geom3d.scene.interface import LofPolicy
from geom3d.scene.outcomes import combine, invalid_placement

FLAME = {"id": "burn", "attacker": "f", "template": "flame", "heading_deg": 0}
FORTY_K = [
    trooper("f", [100, 100], side="blue", silhouette=1),
    trooper("e", [200, 100], side="red", silhouette=1),
]


def _scenario(ruleset: str, troopers, attacks=()):
    data = {"format": "geom3d/1", "units": "mm", "ruleset": ruleset,
            "troopers": list(troopers), "attacks": list(attacks)}  # fmt: skip
    return parse_scenario(data, file="r.yaml")


def _renamed(scenario, name: str):
    return dataclasses.replace(scenario, ruleset=dataclasses.replace(scenario.ruleset, name=name))


def test_unknown_ruleset_name_is_an_input_error_naming_the_known_ones():
    with pytest.raises(ScenarioError) as ei:
        _scenario("warmachine", FORTY_K)
    assert (
        str(ei.value) == "r.yaml: ruleset: unknown ruleset 'warmachine' (known: infinity, wh40k-7e)"
    )


def test_a_ruleset_with_data_but_no_object_is_the_same_input_error():
    scenario = _renamed(_scenario("wh40k-7e", FORTY_K), "wh40k-10e")
    with pytest.raises(ScenarioError) as ei:
        build_scene(scenario)
    assert ei.value.path == "ruleset" and ei.value.file == scenario.name
    assert ei.value.message == "unknown ruleset 'wh40k-10e' (known: infinity, wh40k-7e)"


def test_every_ruleset_with_data_has_an_object_and_the_other_way_round():
    assert list(REGISTRY) == list(RULESETS)
    for name, kind in REGISTRY.items():
        obj = ruleset_for(load_ruleset(name))
        assert type(obj) is kind and obj.name == name
        assert obj.lof_policy == LofPolicy(patch_mm=3.0, arc_deg=180.0)
    assert REGISTRY == {"infinity": InfinityRuleset, "wh40k-7e": Wh40k7eRuleset}


def test_the_scene_ruleset_exposes_its_data_after_overrides():
    s = make_scene(
        [trooper("a", [0, 0])],
        ruleset="wh40k-7e",
        ruleset_overrides={"base_height": 4, "silhouettes": {9: {"diameter": 30, "height": 20}}},
    )
    assert isinstance(s.ruleset, Wh40k7eRuleset) and s.ruleset.name == "wh40k-7e"
    assert s.ruleset.base_height == 4.0 and s.ruleset.silhouettes[9] == (30.0, 20.0)
    assert "flame" in s.ruleset.templates and "flame" in s.ruleset.template_sources
    assert s.ruleset.data is s.scenario.ruleset


class ToyRuleset(StandardRuleset):
    """A third ruleset: every placement is invalid, and it says so."""

    calls: ClassVar[list] = []

    def adjudicate(self, scene, attack, specs, *, stats=None):
        ToyRuleset.calls.append((self.name, attack.id, [s.index for s in specs], stats))
        return combine(scene, attack, [invalid_placement(s, "no_focus") for s in specs], {})


def test_dispatch_is_by_registered_object_never_by_name_prefix(monkeypatch):
    monkeypatch.setitem(REGISTRY, "wh40k-10e", ToyRuleset)
    monkeypatch.setattr(ToyRuleset, "calls", [])
    scenario = _renamed(_scenario("wh40k-7e", FORTY_K, [FLAME]), "wh40k-10e")
    scene = build_scene(scenario)
    assert type(scene.ruleset) is ToyRuleset
    counters = object()
    res = scene.resolve_attack("burn", stats=counters)
    assert ToyRuleset.calls == [("wh40k-10e", "burn", [0], counters)]
    d = res.to_dict()
    assert res.ruleset == "wh40k-10e" and d["outcome"] == "invalid"
    assert not {"hits", "hits_total", "wall_of_death", "solver"} & set(d)  # no 7e fields
    # the same scenario under the 7e object gets the 7e rules and fields
    seven = build_scene(_scenario("wh40k-7e", FORTY_K, [FLAME])).resolve_attack("burn")
    assert seven.to_dict()["hits_total"] == 1 and seven.affected == ["e"]


def test_line_of_fire_arc_comes_from_the_ruleset_data():
    behind = [trooper("a", [100, 100], facing_deg=0), trooper("b", [20, 100], side="red")]
    scenario = _scenario("infinity", behind)
    assert build_scene(scenario).line_of_fire("a", "b").reason == "out_of_arc"
    wide = dataclasses.replace(scenario.ruleset, line_of_fire={"patch_mm": 3.0, "arc_deg": 360.0})
    scene = build_scene(scenario, ruleset=InfinityRuleset(wide))
    r = scene.line_of_fire("a", "b")
    assert (r.lof, r.in_arc, r.reason) == (True, True, None)


class NoEngagementRule(InfinityRuleset):
    def make_lof_policy(self, data):
        return LofPolicy.from_data(data, engaged_sees_only_contact=False)


def test_engagement_rule_is_part_of_the_policy():
    ts = [
        trooper("a", [100, 100], engaged_with=["c"]),
        trooper("c", [125, 100], side="red"),
        trooper("b", [100, 300], side="red"),  # in the arc, c not in the way
    ]
    scenario = _scenario("infinity", ts)
    assert build_scene(scenario).line_of_fire("a", "b").reason == "engaged"
    scene = build_scene(scenario, ruleset=NoEngagementRule(scenario.ruleset))
    assert scene.line_of_fire("a", "b").lof is True


def test_ruleset_data_line_of_fire_section_is_checked():
    from geom3d.ruledata import _line_of_fire

    assert _line_of_fire("infinity", {"patch_mm": 3, "arc_deg": 180}) == {
        "patch_mm": 3.0,
        "arc_deg": 180.0,
    }
    for bad in (
        None,
        {"patch_mm": 3},
        {"patch_mm": 0, "arc_deg": 180},
        {"patch_mm": 3, "arc_deg": 90},
    ):
        with pytest.raises(ValueError, match="line_of_fire"):
            _line_of_fire("infinity", bad)


def test_line_of_fire_patch_size_comes_from_the_ruleset_data():
    # an S1 trooper (25 x 25 mm) in the open: a 3 mm patch is visible, a 30 mm one cannot be
    pair = [trooper("a", [100, 100]), trooper("b", [300, 100], side="red", silhouette=1)]
    scenario = _scenario("infinity", pair)
    assert build_scene(scenario).line_of_fire("a", "b").lof is True
    big = dataclasses.replace(scenario.ruleset, line_of_fire={"patch_mm": 30.0, "arc_deg": 180.0})
    r = build_scene(scenario, ruleset=InfinityRuleset(big)).line_of_fire("a", "b")
    assert (r.visible, r.reason) == (False, "blocked")
