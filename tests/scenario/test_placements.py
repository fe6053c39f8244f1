"""Per-placement overrides (``attacks[i].placements[j]``): validated once, when parsing."""

from __future__ import annotations

import json

import pytest

from geom3d.core.errors import ScenarioError, UnknownIdError
from geom3d.scenario import parse_scenario

BASE = {
    "format": "geom3d/1",
    "units": "mm",
    "troopers": [
        {"id": "a", "side": "blue", "position": [100, 100]},
        {"id": "t", "side": "red", "position": [200, 100]},
    ],
}


def parse(units="mm", **attack):
    data = json.loads(json.dumps(BASE))
    data["units"] = units
    data["attacks"] = [{"id": "x", "attacker": "a", "template": "small_teardrop", **attack}]
    return parse_scenario(data, file="s.yaml")


@pytest.mark.parametrize(
    ("placements", "burst", "path", "message"),
    [
        (
            [{"heading_deg": 0}],
            2,
            "attacks[0].placements",
            "1 placements given but burst is 2 (give one placement per template)",
        ),
        (
            [{"heading": 0}],
            1,
            "attacks[0].placements[0].heading",
            "unknown key 'heading' (known: heading_deg, contact_deg, focus, pitch_deg, "
            "main_target)",
        ),
        (
            [{"heading_deg": "north"}],
            1,
            "attacks[0].placements[0].heading_deg",
            "expected a number or 'auto' (got 'north')",
        ),
        (
            [{"focus": [1]}],
            1,
            "attacks[0].placements[0].focus",
            "expected [x, y] or [x, y, z], finite numbers (got [1])",
        ),
        (
            [{"pitch_deg": 95}],
            1,
            "attacks[0].placements[0].pitch_deg",
            "must be strictly between -90 and 90 (got 95)",
        ),
        (
            [{"contact_deg": True}],
            1,
            "attacks[0].placements[0].contact_deg",
            "expected a finite number (got True)",
        ),
        (
            [{}, {"main_target": 7}],
            2,
            "attacks[0].placements[1].main_target",
            "expected a trooper id (got 7)",
        ),
    ],
)
def test_bad_overrides_are_scenario_errors(placements, burst, path, message):
    with pytest.raises(ScenarioError) as ei:
        parse(burst=burst, placements=placements)
    assert (ei.value.file, ei.value.path, ei.value.message) == ("s.yaml", path, message)


def test_unknown_main_target_is_an_unknown_id():
    with pytest.raises(UnknownIdError) as ei:
        parse(placements=[{"main_target": "zz"}])
    assert str(ei.value) == "s.yaml: attacks[0].placements[0].main_target: unknown trooper 'zz'"


def test_attack_pitch_is_checked_when_parsing():
    with pytest.raises(ScenarioError) as ei:
        parse(pitch_deg=-90)
    assert (
        str(ei.value)
        == "s.yaml: attacks[0].pitch_deg: must be strictly between -90 and 90 (got -90)"
    )


def test_overrides_are_normalised_and_in_mm():
    atk = parse(
        units="cm",
        burst=3,
        placements=[
            {"heading_deg": 90, "contact_deg": -5, "pitch_deg": 10},
            {"heading_deg": "auto", "main_target": "t"},
            {"focus": [2, 3.5]},
        ],
    ).attacks[0]
    first, second, third = atk.placements
    assert first == {"heading_deg": 90.0, "contact_deg": -5.0, "pitch_deg": 10.0}
    assert all(isinstance(v, float) for v in first.values())
    assert second == {"heading_deg": "auto", "main_target": "t"}
    assert third == {"focus": (20.0, 35.0)}


def test_no_overrides_is_none():
    assert parse(burst=2).attacks[0].placements is None
    assert parse(burst=2, placements=[]).attacks[0].placements is None
