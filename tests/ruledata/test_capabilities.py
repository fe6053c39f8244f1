"""Rulesets by capability: the data files' ``capabilities`` decide what a scenario may say
and what a diagram draws, so a variant (a copy of a data file under another name,
registered in the test) parses and draws as its capabilities say; and no module outside
``rules/registry.py`` compares a ruleset's name."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import yaml
from support import trooper

from geom3d.api import build_scene
from geom3d.core.errors import ScenarioError
from geom3d.ruledata import CAPABILITIES, RULESETS, Capabilities, load_ruleset
from geom3d.rules.infinity import InfinityRuleset
from geom3d.rules.registry import REGISTRY
from geom3d.rules.wh40k import Wh40k7eRuleset
from geom3d.scenario import parse_scenario

REPO = Path(__file__).resolve().parents[2]
#: the one module allowed to map names to rules
REGISTRY_FILE = REPO / "geom3d" / "rules" / "registry.py"


def _variant(tmp_path, monkeypatch, base: str, name: str, rules: type, **caps) -> None:
    """Register ``name``: ``base``'s data file copied under that name with ``caps``
    changed, and ``rules`` as its ruleset object type (the two registration steps)."""
    data = yaml.safe_load((REPO / "geom3d" / "ruledata" / f"{base}.yaml").read_text())
    data["name"] = name
    data["capabilities"].update(caps)
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data))
    monkeypatch.setitem(RULESETS, name, str(path))
    monkeypatch.setitem(REGISTRY, name, rules)


def _infinity_scenario(ruleset: str, **attack_extra) -> dict:
    a = trooper("a", (100, 100), stats={"bs": 12}, route=[[100, 100], [100, 160]])
    t = trooper("t", (220, 100), side="red", reaction="dodge")
    attack = {"id": "shot", "attacker": "a", "template": "small_teardrop", "mode": "direct",
              "heading_deg": 0, "weapon": {"ps": 9}, **attack_extra}  # fmt: skip
    return {"format": "geom3d/1", "ruleset": ruleset, "troopers": [a, t], "attacks": [attack]}


def test_the_shipped_data_declares_every_capability():
    assert load_ruleset("infinity").capabilities == Capabilities(
        rolls=True, reactions=True, vehicles=False, blast_focus=True
    )
    assert load_ruleset("wh40k-7e").capabilities == Capabilities(
        rolls=False, reactions=False, vehicles=True, blast_focus=False
    )
    assert set(CAPABILITIES) == set(Capabilities.__dataclass_fields__)


def test_an_infinity_variant_parses_and_draws_as_infinity(tmp_path, monkeypatch):
    from viewer.layers.annotations import template_dimensions
    from viewer.wording import has_blast_focus

    _variant(tmp_path, monkeypatch, "infinity", "corvus-n5", InfinityRuleset)
    for extra in ({"aro": True}, {"intuitive": True}, {"fire_at": 30}):
        parse_scenario(_infinity_scenario("corvus-n5", **extra), file="v.yaml")
    scene = build_scene(parse_scenario(_infinity_scenario("corvus-n5"), file="v.yaml"))
    same = build_scene(parse_scenario(_infinity_scenario("infinity"), file="i.yaml"))
    assert scene.ruleset.name == "corvus-n5" and type(scene.ruleset) is InfinityRuleset
    got, want = scene.resolve_attack("shot"), same.resolve_attack("shot")
    assert (got.ruleset, want.ruleset) == ("corvus-n5", "infinity")
    assert got.to_dict() == want.to_dict() and want.affected == ["t"]
    assert has_blast_focus(scene)
    _doc, volumes = resolve_for(scene)
    assert template_dimensions(volumes[0], "small_teardrop", scene).endswith(" mm high")


def resolve_for(scene):
    from viewer.compose import resolve_attack_for_drawing

    return resolve_attack_for_drawing(scene, "shot")


def test_a_variant_without_rolls_or_reactions_refuses_them_and_draws_in_plan(tmp_path, monkeypatch):
    from viewer.layers.annotations import template_dimensions
    from viewer.wording import has_blast_focus

    caps = {"rolls": False, "reactions": False, "blast_focus": False}
    _variant(tmp_path, monkeypatch, "infinity", "plain", InfinityRuleset, **caps)
    with pytest.raises(ScenarioError, match=r"troopers\[0\]\.stats: .* ruleset 'plain' has no"):
        parse_scenario(_infinity_scenario("plain"), file="v.yaml")
    data = _infinity_scenario("plain", aro=True)
    data["troopers"][0].pop("stats")
    data["troopers"][1].pop("reaction")
    data["attacks"][0].pop("weapon")
    with pytest.raises(ScenarioError, match=r"attacks\[0\]\.aro: aro: true is Infinity's"):
        parse_scenario(data, file="v.yaml")
    data["attacks"][0].pop("aro")
    scene = build_scene(parse_scenario(data, file="v.yaml"))
    assert not has_blast_focus(scene)
    _doc, volumes = resolve_for(scene)
    assert "high" not in template_dimensions(volumes[0], "small_teardrop", scene)


def test_vehicles_follow_the_capability_not_the_name(tmp_path, monkeypatch):
    rhino = {**trooper("v", (100, 100)), "vehicle": {"hull": {"box": {"size": [60, 40, 30]}},
             "armour": {"front": 11, "side": 11, "rear": 10}}}  # fmt: skip
    rhino.pop("silhouette")
    base = {"format": "geom3d/1", "troopers": [rhino, trooper("t", (300, 100), side="red")]}
    _variant(tmp_path, monkeypatch, "wh40k-7e", "wh40k-8e", Wh40k7eRuleset)
    parse_scenario({**base, "ruleset": "wh40k-8e"}, file="v.yaml")
    _variant(tmp_path, monkeypatch, "wh40k-7e", "no-tanks", Wh40k7eRuleset, vehicles=False)
    with pytest.raises(ScenarioError, match=r"troopers\[0\]\.vehicle: vehicles are"):
        parse_scenario({**base, "ruleset": "no-tanks"}, file="v.yaml")


def _names_compared(tree: ast.AST, names: set[str]) -> list[int]:
    """Lines that compare a string constant naming a ruleset (==, !=, in, not in, is) or
    test one with str.startswith / endswith."""

    def is_name(node) -> bool:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value.lower() in names or node.value.lower() in prefixes
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            return any(is_name(e) for e in node.elts)
        return False

    prefixes = {n.split("-")[0] for n in names}  # "wh40k", "infinity"
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and any(
            is_name(x) for x in [node.left, *node.comparators]
        ):
            lines.append(node.lineno)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("startswith", "endswith")
            and any(is_name(a) for a in node.args)
        ):
            lines.append(node.lineno)
    return lines


def test_no_module_outside_the_registry_compares_a_ruleset_name():
    names = set(RULESETS)
    found = []
    for folder in ("geom3d", "viewer"):
        for path in sorted((REPO / folder).rglob("*.py")):
            if path == REGISTRY_FILE:
                continue
            tree = ast.parse(path.read_text("utf-8"))
            found += [f"{path.relative_to(REPO)}:{n}" for n in _names_compared(tree, names)]
    assert found == []


def test_the_name_check_finds_each_form_it_forbids():
    names = set(RULESETS)
    for src in ('x == "infinity"', 'r.name != "wh40k-7e"', 'n in ("a", "infinity")',
                's.lower().startswith("infinity")', '"wh40k" == k'):  # fmt: skip
        assert _names_compared(ast.parse(src), names) == [1], src
    assert _names_compared(ast.parse('x == "infinite"; y = "infinity"'), names) == []
