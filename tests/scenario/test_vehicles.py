"""``troopers[i].vehicle`` (SPEC 12.6): bad input is one line with the field path, exit 2."""

from __future__ import annotations

import copy

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import key_paths, set_path

from geom3d.api import build_scene
from geom3d.cli import main
from geom3d.core.errors import Geom3dError, ScenarioError
from geom3d.scenario import parse_scenario

ARMOUR = {"front": 12, "side": 11, "rear": 10}
GOOD = {"hull": {"box": {"size": [100, 60, 50]}}, "armour": ARMOUR}


def doc(vehicle, ruleset="wh40k-7e", **trooper):
    return {
        "format": "geom3d/1",
        "units": "mm",
        "ruleset": ruleset,
        "troopers": [{"id": "rhino", "side": "orks", "position": [200, 100], "vehicle": vehicle,
                      **trooper}],
    }  # fmt: skip


def with_(path_value: dict) -> dict:
    v = copy.deepcopy(GOOD)
    for key, value in path_value.items():
        here = v
        *head, last = key.split(".")
        for k in head:
            here = here[k]
        if value is None:
            del here[last]
        else:
            here[last] = value
    return v


BAD = [
    (doc(GOOD, ruleset="infinity"), "troopers[0].vehicle",
     "vehicles are a Warhammer 40k rule (ruleset wh40k-7e); this is 'infinity'"),
    (doc(with_({"hull": {}})), "troopers[0].vehicle.hull", "give exactly one of 'box' or 'mesh'"),
    (doc(with_({"hull.mesh": "x.stl"})), "troopers[0].vehicle.hull",
     "give exactly one of 'box' or 'mesh'"),
    (doc(with_({"hull.scale": 2})), "troopers[0].vehicle.hull.scale",
     "'scale' needs 'mesh' (it places the hull mesh)"),
    (doc(with_({"hull.rotation_deg": 90})), "troopers[0].vehicle.hull.rotation_deg",
     "'rotation_deg' needs 'mesh' (it places the hull mesh)"),
    (doc(with_({"hull": {"mesh": "missing.stl"}})), "troopers[0].vehicle.hull.mesh",
     "mesh file not found: "),
    (doc(with_({"hull.box.size": [100, 60]})), "troopers[0].vehicle.hull.box.size",
     "expected [x, y, z], three positive lengths"),
    (doc(with_({"barrel": [1, 2]})), "troopers[0].vehicle.barrel",
     "expected [x, y, z] in the vehicle's frame"),
    (doc(with_({"barrel": [60, 0, 30]}), silhouette=2), "troopers[0].silhouette",
     "a vehicle with a barrel has no base: give no silhouette (its hull is its body)"),
    (doc(with_({"armour.front": 9})), "troopers[0].vehicle.armour.front",
     "an Armour Value is a whole number from 10 to 14 (got 9)"),
    (doc(with_({"armour.rear": 15})), "troopers[0].vehicle.armour.rear",
     "an Armour Value is a whole number from 10 to 14 (got 15)"),
    (doc(with_({"armour.side": "11"})), "troopers[0].vehicle.armour.side",
     "input should be a valid integer (got '11')"),
    (doc(with_({"armour": None})), "troopers[0].vehicle.armour", "required field is missing"),
    (doc(with_({"armour.top": 10})), "troopers[0].vehicle.armour.top", "unknown key 'top'"),
    (doc(with_({"hull.box.size": [100, 60, 5e7]})), "troopers[0].vehicle.hull.box.size[2]",
     "5e+07 mm is too large: at most 5000 mm here"),
]  # fmt: skip


@pytest.mark.parametrize(("data", "path", "words"), BAD, ids=[b[1] + ":" + b[2][:20] for b in BAD])
def test_bad_vehicle_input_names_the_field(tmp_path, data, path, words):
    with pytest.raises(ScenarioError) as err:
        parse_scenario(data, file="v.yaml", base_dir=tmp_path)
    assert err.value.path == path
    assert words in str(err.value)
    assert str(err.value).startswith(f"v.yaml: {path}: ")


def test_the_command_says_one_line_and_exits_2(tmp_path, capsys):
    p = tmp_path / "v.yaml"
    p.write_text(yaml.safe_dump(doc(with_({"armour.front": 9}))))
    code = main(["attack", str(p)])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1
    assert "troopers[0].vehicle.armour.front" in lines[0] and "from 10 to 14" in lines[0]


def test_a_good_vehicle_parses_to_mm(tmp_path):
    data = doc(with_({"barrel": [6, 0, 3]}))
    data["units"] = "cm"
    scn = parse_scenario(data, file="v.yaml", base_dir=tmp_path)
    v = scn.troopers[0].vehicle
    assert v.box_size == (1000.0, 600.0, 500.0)
    assert v.barrel == (60.0, 0.0, 30.0)
    assert v.armour == (12, 11, 10) and v.armour_of("side") == 11
    assert v.mesh_path is None and v.scale == (1.0, 1.0, 1.0)


def _mesh_doc(tmp_path, name):
    data = doc(with_({"hull": {"mesh": name}}))
    p = tmp_path / "v.yaml"
    p.write_text(yaml.safe_dump(data))
    return p


def test_a_hull_mesh_that_is_not_a_mesh_is_one_line(tmp_path, capsys):
    (tmp_path / "junk.stl").write_bytes(b"solid x\nthis is not a mesh\n")
    p = _mesh_doc(tmp_path, "junk.stl")
    assert main(["attack", str(p)]) == 2
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert out == "" and len(lines) == 1
    assert f"{p}: troopers[0].vehicle.hull.mesh: junk.stl: " in lines[0]


def test_a_hull_mesh_with_no_plan_area_is_one_line(tmp_path, capsys):
    import trimesh

    # one vertical triangle: seen from above it is a segment
    trimesh.Trimesh([[0, 0, 0], [10, 0, 0], [0, 0, 10]], [[0, 1, 2]]).export(tmp_path / "f.stl")
    p = _mesh_doc(tmp_path, "f.stl")
    assert main(["attack", str(p)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        f"geom3d: error: {p}: troopers[0].vehicle.hull.mesh: f.stl: the hull has no area "
        "seen from above"
    ]


# ------------------------------------------------------------------ fuzz: never a traceback
FUZZ_BASE = {
    "format": "geom3d/1",
    "ruleset": "wh40k-7e",
    "troopers": [
        {"id": "f", "side": "imperium", "position": [100, 100], "silhouette": 2},
        {"id": "p", "side": "imperium", "position": [100, 300], "facing_deg": -90,
         "vehicle": {"hull": {"box": {"size": [110, 70, 50]}}, "barrel": [60, 0, 30],
                     "armour": {"front": 13, "side": 11, "rear": 10}}},
        {"id": "r", "side": "orks", "position": [200, 100], "facing_deg": 90,
         "vehicle": {"hull": {"box": {"size": [100, 60, 50]}},
                     "armour": {"front": 11, "side": 11, "rear": 10}}},
    ],
    "attacks": [
        {"id": "a", "attacker": "p", "template": "flame", "main_target": "r", "heading_deg": 300},
        {"id": "b", "attacker": "f", "template": "blast", "main_target": "r"},
    ],
}  # fmt: skip

FUZZ_JUNK = st.one_of(
    st.none(), st.booleans(), st.integers(-100, 100), st.floats(allow_nan=True),
    st.text(max_size=4), st.lists(st.integers(-5, 60), max_size=4),
    st.dictionaries(st.sampled_from(["box", "mesh", "size", "front"]), st.integers(0, 20),
                    max_size=2),
)  # fmt: skip


FUZZ_PATHS = [p for p in key_paths(FUZZ_BASE) if len(p) > 2 and p[0] == "troopers"]


@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
@given(st.lists(st.tuples(st.sampled_from(FUZZ_PATHS), FUZZ_JUNK, st.booleans()),
                min_size=1, max_size=2))  # fmt: skip
def test_mutated_vehicles_load_or_raise_one_clear_error(mutations):
    data = copy.deepcopy(FUZZ_BASE)
    for path, value, delete in mutations:
        try:
            set_path(data, path, value, delete)
        except (KeyError, IndexError, TypeError):
            continue
    try:
        scene = build_scene(parse_scenario(data, file="fuzz.yaml"))
        for a in scene.scenario.attacks:
            scene.resolve_attack(a.id).to_dict()
    except Geom3dError as exc:
        text = str(exc)
        assert text.startswith("fuzz.yaml") and "\n" not in text, text
