"""Perched troopers (SPEC 13.1, issue 46): a base whose support covers less than half of
it gets a warning naming the trooper, the piece and the share, at default verbosity."""

from __future__ import annotations

import json

import pytest
from support import box, make_scene, trooper

from geom3d.cli import main
from geom3d.core.messages import notes_of, warnings_of

WALL = box("wall", (8, 200, 60), (200, 150, 0))  # 8 mm thick, along y, 60 mm high


def test_a_trooper_centred_on_a_wall_narrower_than_its_base_is_perched():
    scene = make_scene([trooper("p", [200, 150]), trooper("f", [100, 150])], [WALL])
    assert scene.trooper("p").position[2] == pytest.approx(60.0)
    perched = [w for w in warnings_of(scene.warnings) if "perched" in w]
    assert len(perched) == 1 and "'p'" in perched[0] and "'wall'" in perched[0]
    # the hand value: an 8 mm strip through the centre of a 25 mm disc covers
    # 2 (r^2 asin(4 / r) + 4 sqrt(r^2 - 16)) / (pi r^2) = 40.0 % of it (r = 12.5); the
    # inner probes every 1 mm (9 columns of 25) count a little more
    share = float(perched[0].split("only ")[1].split("%")[0]) / 100
    assert 0.38 <= share < 0.47


def test_a_base_over_a_wide_wall_or_on_the_table_is_not_perched():
    # a 10 mm wall holds 51.6 % of a 25 mm base (the formula above with 5 mm): not perched
    ten = make_scene([trooper("p", [200, 150])], [box("ten", (10, 200, 60), (200, 150, 0))])
    assert not [w for w in ten.warnings if "perched" in w]
    wide = box("wide", (30, 200, 60), (200, 150, 0))
    scene = make_scene([trooper("p", [200, 150]), trooper("f", [100, 150])], [wide])
    assert not [w for w in scene.warnings if "perched" in w]
    assert not notes_of(scene.warnings)


def _scenario(path):
    data = {
        "format": "geom3d/1",
        "units": "mm",
        "table": {"size": [400, 300]},
        "scenery": [WALL],
        "troopers": [
            {"id": "p", "side": "blue", "position": [200, 150], "facing_deg": 0},
            {"id": "o", "side": "red", "position": [50, 50], "facing_deg": 0},
        ],
    }
    path.write_text(json.dumps(data))
    return str(path)


@pytest.mark.parametrize("command", [["lof"], ["survey", "--spacing", "150", "--workers", "1"]])
def test_the_warning_prints_without_verbose(tmp_path, capsys, command):
    src = _scenario(tmp_path / "perch.json")
    extra = ["--out", str(tmp_path / "o")] if command[0] == "survey" else []
    assert main([command[0], src, *command[1:], *extra]) == 0
    err = capsys.readouterr().err
    assert "warning: perch.json: trooper 'p' is perched on 'wall'" in err
