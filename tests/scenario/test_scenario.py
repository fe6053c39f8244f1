"""Scenario files: parsing, every error class with its message, unit conversion."""

from __future__ import annotations

import json

import numpy as np
import pytest
from support import REPO, box, make_scene, trooper

from geom3d.core.errors import Geom3dError, ScenarioError, UnknownIdError
from geom3d.ruledata import load_ruleset
from geom3d.scenario import load_scenario, parse_scenario

BASE = {
    "format": "geom3d/1",
    "units": "mm",
    "ruleset": "infinity",
    "troopers": [
        {"id": "a", "side": "blue", "position": [0, 0], "silhouette": 2},
        {"id": "b", "side": "red", "position": [100, 0], "silhouette": 3},
    ],
}


def parse(**changes):
    data = json.loads(json.dumps(BASE))
    data.update(changes)
    return parse_scenario(data, file="s.yaml")


def test_minimal_scenario_parses():
    scn = parse()
    assert [t.id for t in scn.troopers] == ["a", "b"]
    assert scn.troopers[1].diameter == 40 and scn.troopers[1].height == 32
    assert scn.ruleset.name == "infinity"


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"colour": "red"}, r"^s\.yaml: colour: unknown key 'colour'$"),
        ({"format": "geom3d/2"}, r"^s\.yaml: format: unsupported format 'geom3d/2'"),
        ({"units": "furlong"}, r"^s\.yaml: units: "),
        (
            {"ruleset": "chess"},
            r"^s\.yaml: ruleset: unknown ruleset 'chess' \(known: infinity, wh40k-7e\)$",
        ),
        (
            {"troopers": [{"id": "a", "side": "x", "position": [0, 0], "silhouette": 9}]},
            r"^s\.yaml: troopers\[0\]\.silhouette: unknown silhouette 9 \(known: 1-8\)$",
        ),
        (
            {"troopers": [{"id": "a", "side": "x", "position": [0, 0], "hat": 1}]},
            r"^s\.yaml: troopers\[0\]\.hat: unknown key 'hat'$",
        ),
        (
            {"troopers": [{"id": "a", "side": "x", "position": [0, float("nan")]}]},
            r"^s\.yaml: troopers\[0\]\.position\[1\]: NaN or infinite number$",
        ),
        (
            {"troopers": [{"id": "a", "side": "x", "position": [0, float("inf")]}]},
            r"^s\.yaml: troopers\[0\]\.position\[1\]: NaN or infinite number$",
        ),
        (
            {"troopers": [{"id": "a", "side": "x", "position": [0]}]},
            r"^s\.yaml: troopers\[0\]\.position: expected \[x, y\] or \[x, y, z\]$",
        ),
        (
            {"troopers": [{"id": "a", "side": "x", "position": "here"}]},
            r"^s\.yaml: troopers\[0\]\.position: ",
        ),
        (
            {
                "troopers": [
                    {"id": "a", "side": "x", "position": [0, 0]},
                    {"id": "a", "side": "y", "position": [9, 9]},
                ]
            },
            r"^s\.yaml: troopers\[1\]\.id: duplicate id 'a' \(first used at troopers\[0\]\.id\)$",
        ),
        (
            {"troopers": [{"id": "a", "side": "x", "position": [0, 0], "state": ["asleep"]}]},
            r"^s\.yaml: troopers\[0\]\.state\[0\]: "
            r"unknown state 'asleep' \(known: prone, marker, arc360\)$",
        ),
        (
            {"troopers": [{"id": "a", "side": "x", "position": [0, 0], "engaged_with": ["ghost"]}]},
            r"^s\.yaml: troopers\[0\]\.engaged_with\[0\]: unknown trooper 'ghost'$",
        ),
        (
            {"troopers": [{"id": "a", "position": [0, 0]}]},
            r"^s\.yaml: troopers\[0\]\.side: required field is missing$",
        ),
        (
            {"attacks": [{"id": "x", "attacker": "ghost", "template": "circular"}]},
            r"^s\.yaml: attacks\[0\]\.attacker: unknown trooper 'ghost'$",
        ),
        (
            {"attacks": [{"id": "x", "attacker": "a", "template": "pie"}]},
            r"^s\.yaml: attacks\[0\]\.template: unknown template 'pie' "
            r"\(known: circular, large_teardrop, small_teardrop\)$",
        ),
        (
            {
                "attacks": [
                    {"id": "x", "attacker": "a", "template": {"shape": "teardrop", "length": 100}}
                ]
            },
            r"^s\.yaml: attacks\[0\]\.template\.width: a teardrop template needs 'width'$",
        ),
        (
            {"attacks": [{"id": "x", "attacker": "a", "template": "circular", "burst": 0}]},
            r"^s\.yaml: attacks\[0\]\.burst: must be between 1 and 20$",
        ),
        (
            {"scenery": [{"id": "w", "position": [0, 0]}]},
            r"^s\.yaml: scenery\[0\]: give exactly one of 'box' or 'mesh'$",
        ),
        (
            {"scenery": [{"id": "w", "box": {"size": [1, 2]}}]},
            r"^s\.yaml: scenery\[0\]\.box\.size: expected \[x, y, z\], three positive lengths$",
        ),
        (
            {"scenery": [{"id": "w", "mesh": "nowhere.stl"}]},
            r"^s\.yaml: scenery\[0\]\.mesh: mesh file not found: ",
        ),
        (
            {"scenery": [{"id": "a", "box": {"size": [1, 2, 3]}}]},
            r"^s\.yaml: troopers\[0\]\.id: duplicate id 'a' \(first used at scenery\[0\]\.id\)$",
        ),
        (
            {"expect": {"lof": [{"from": "a", "to": "zed", "lof": True}]}},
            r"^s\.yaml: expect\.lof\[0\]\.to: unknown trooper 'zed'$",
        ),
        (
            {"expect": {"attacks": {"nope": {"outcome": "resolved"}}}},
            r"^s\.yaml: expect\.attacks\.nope: unknown attack 'nope'$",
        ),
        (
            {"ruleset_overrides": {"silhouettes": {"9": {"diameter": 80}}}},
            r"^s\.yaml: ruleset_overrides\.silhouettes\.9: expected \{diameter",
        ),
    ],
)
def test_errors_name_file_and_field(changes, message):
    with pytest.raises(ScenarioError, match=message):
        parse(**changes)


def test_error_classes():
    with pytest.raises(UnknownIdError) as err:
        parse(attacks=[{"id": "x", "attacker": "ghost", "template": "circular"}])
    assert isinstance(err.value, Geom3dError) and isinstance(err.value, ValueError)
    assert err.value.file == "s.yaml" and err.value.path == "attacks[0].attacker"


def test_file_errors(tmp_path):
    with pytest.raises(ScenarioError, match=r"missing\.yaml: file not found$"):
        load_scenario(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("format: geom3d/1\ntroopers: [\n")
    with pytest.raises(ScenarioError, match=r"bad\.yaml: invalid YAML at line \d+ column \d+"):
        load_scenario(bad)
    badj = tmp_path / "bad.json"
    badj.write_text('{"format": ')
    with pytest.raises(ScenarioError, match=r"bad\.json: invalid JSON at line 1 column 12"):
        load_scenario(badj)
    lst = tmp_path / "list.yaml"
    lst.write_text("- 1\n- 2\n")
    with pytest.raises(
        ScenarioError, match=r"list\.yaml: expected a mapping at the top level, got list"
    ):
        load_scenario(lst)


def test_yaml_and_json_give_the_same_scenario(tmp_path):
    import yaml

    (tmp_path / "s.yaml").write_text(yaml.safe_dump(BASE))
    (tmp_path / "s.json").write_text(json.dumps(BASE))
    a = load_scenario(tmp_path / "s.yaml")
    b = load_scenario(tmp_path / "s.json")
    assert a.troopers == b.troopers


def test_relative_mesh_paths_resolve_against_the_scenario(tmp_path):
    import trimesh

    (tmp_path / "pieces").mkdir()
    trimesh.creation.box([10, 10, 10]).export(tmp_path / "pieces" / "cube.stl")
    data = dict(BASE, scenery=[{"id": "c", "mesh": "pieces/cube.stl"}])
    (tmp_path / "s.yaml").write_text(json.dumps(data))
    scn = load_scenario(tmp_path / "s.yaml")
    assert scn.scenery[0].mesh_path == (tmp_path / "pieces" / "cube.stl").resolve()


@pytest.mark.parametrize(("units", "k"), [("mm", 1.0), ("cm", 10.0), ("in", 25.4)])
def test_units_convert_to_the_same_internal_geometry(units, k):
    troopers = [
        trooper("a", [10 / k * 10, 20 / k * 10], silhouette={"diameter": 25 / k, "height": 40 / k}),
        trooper("b", [300 / k, 0, 15 / k], side="red", route=[[300 / k, 0], [300 / k, 100 / k]]),
    ]
    scenery = [box("roof", [100 / k, 100 / k, 50 / k], [100 / k, 200 / k], 30)]
    scene = make_scene(
        troopers,
        scenery,
        units=units,
        ruleset_overrides={"templates": {"mine": {"shape": "circle", "diameter": 50 / k}}},
    )
    ref = make_scene(
        [
            trooper("a", [100, 200], silhouette={"diameter": 25, "height": 40}),
            trooper("b", [300, 0, 15], side="red", route=[[300, 0], [300, 100]]),
        ],
        [box("roof", [100, 100, 50], [100, 200], 30)],
        ruleset_overrides={"templates": {"mine": {"shape": "circle", "diameter": 50}}},
    )
    assert np.allclose(scene.scenery.vertices, ref.scenery.vertices)
    for tid in ("a", "b"):
        t, r = scene.trooper(tid), ref.trooper(tid)
        assert np.allclose(t.position, r.position)
        assert t.diameter == pytest.approx(r.diameter) and t.height == pytest.approx(r.height)
    assert np.allclose(scene.trooper("b").route, ref.trooper("b").route)
    assert scene.trooper("a").position[2] == pytest.approx(50.0)  # dropped onto the roof
    assert scene.ruleset.templates["mine"]["diameter"] == pytest.approx(50.0)


def test_ruleset_overrides_replace_silhouettes_and_base_height():
    scn = parse(
        ruleset_overrides={"silhouettes": {2: {"diameter": 30, "height": 45}}, "base_height": 4}
    )
    assert (scn.troopers[0].diameter, scn.troopers[0].height) == (30, 45)
    assert scn.ruleset.base_height == 4
    # the shipped data is untouched by an override
    assert load_ruleset("infinity").silhouettes[2] == (25.0, 40.0)


def test_rulesets_have_their_data():
    inf = load_ruleset("infinity")
    assert sorted(inf.templates) == ["circular", "large_teardrop", "small_teardrop"]
    assert inf.silhouettes[8] == (70.0, 70.0) and inf.base_height == 3.0
    wh = load_ruleset("wh40k-7e")
    assert {"blast", "large_blast", "flame", "hellstorm"} <= set(wh.templates)
    assert wh.templates["blast"]["diameter"] == pytest.approx(3 * 25.4)
    assert wh.templates["large_blast"]["diameter"] == pytest.approx(5 * 25.4)
    for rs in (inf, wh):
        assert set(rs.template_sources) == set(rs.templates)


def test_every_bundled_scenario_loads():
    paths = sorted((REPO / "meshes").rglob("*.yaml"))
    assert paths, "meshes/ holds example scenarios"
    for p in paths:
        load_scenario(p)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            {"troopers": [{"id": "a", "side": "x", "position": [7e13, 0]}]},
            r"^s\.yaml: troopers\[0\]\.position\[0\]: 7e\+13 mm is too large: at most 10 km here "
            r"\(wrong units\?\)$",
        ),
        (
            {
                "troopers": [
                    {"id": "a", "side": "x", "position": [0, 0], "route": [[0, 0], [0, 2e7]]}
                ]
            },
            r"^s\.yaml: troopers\[0\]\.route\[1\]\[1\]: ",
        ),
        (
            {
                "troopers": [
                    {
                        "id": "a",
                        "side": "x",
                        "position": [0, 0],
                        "silhouette": {"diameter": 25, "height": 6000},
                    }
                ]
            },
            r"^s\.yaml: troopers\[0\]\.silhouette\.height: 6000 mm is too large: at most 1000 mm",
        ),
        (
            {
                "attacks": [
                    {"id": "x", "attacker": "a", "template": {"shape": "circle", "diameter": 9000}}
                ]
            },
            r"^s\.yaml: attacks\[0\]\.template\.diameter: template diameter is 9000 mm, larger "
            r"than the 5000 mm",
        ),
        (
            {"ruleset_overrides": {"silhouettes": {2: {"diameter": 25, "height": 1e9}}}},
            r"^s\.yaml: ruleset_overrides\.silhouettes\.2: diameter and height must be positive "
            r"numbers up to 5000 mm$",
        ),
    ],
)
def test_absurd_lengths_are_errors(changes, message):
    with pytest.raises(ScenarioError, match=message):
        parse(**changes)
