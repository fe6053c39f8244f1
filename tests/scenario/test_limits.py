"""Scenario limits that bound the work before it starts (issue 33): routes.

The red team's 300,000-point route parsed (under the node limit) and then cost a
``MemoryError`` sampling it every 10 mm; now a route is bounded in positions and travel
when it is read, with one line naming the field.
"""

from __future__ import annotations

import json

import pytest
from bounded import assert_one_clean_line, run_cli

from geom3d.core.errors import ScenarioError
from geom3d.core.tolerances import ROUTE_STEP_MM
from geom3d.scenario import parse_scenario
from geom3d.scenario.limits import MAX_ROUTE_POINTS, MAX_ROUTE_TRAVEL_MM


def _doc(route) -> dict:
    return {
        "format": "geom3d/1", "units": "mm", "ruleset": "infinity",
        "table": {"size": [1200, 1200]},
        "troopers": [
            {"id": "a", "side": "blue", "position": [100, 600, 0]},
            {"id": "b", "side": "red", "position": [400, 600, 0], "route": route}],
    }  # fmt: skip


def test_a_300000_point_route_is_one_line(tmp_path):
    route = [[400, 200] if i % 2 else [400, 1000] for i in range(300_000)]
    path = tmp_path / "route.json"
    path.write_text(json.dumps(_doc(route)))
    results = run_cli([["check", str(path), "--workers", "1", "--quiet"],
                       ["lof", str(path)]], tmp_path, timeout=240)  # fmt: skip
    assert results[0]["rc"] == 1 and results[0]["stderr"] == ""  # an error record
    assert_one_clean_line(
        results[1], "troopers[1].route: 300,000 positions, more than the 10,000 a route may have"
    )


def test_route_travel_is_bounded():
    assert MAX_ROUTE_POINTS == 10_000 and MAX_ROUTE_TRAVEL_MM == 1e6 and ROUTE_STEP_MM == 10
    # 0 -> 1,000 m -> 500 m: 1,500 m of travel, 150,000 samples
    with pytest.raises(ScenarioError, match=r"troopers\[1\]\.route: 1,500 m of travel "
                       r"\(150,000 samples every 10 mm\), more than the 1,000 m"):  # fmt: skip
        parse_scenario(_doc([[0, 0], [1e6, 0], [5e5, 0]]))
    # exactly 1,000 m passes the travel limit, and the route-work cap then refuses it (one
    # other trooper: 1,000 m x 1, issue 44; tests/scenario/test_caps.py)
    with pytest.raises(ScenarioError, match=r"troopers\[1\]\.route: 1,000\.0 m of travel x 1 "):
        parse_scenario(_doc([[0, 0], [1e6, 0]]))
    # 10,000 positions are allowed (9,999 legs of 10 mm)
    ok = parse_scenario(_doc([[(i % 2) * 10.0, 0] for i in range(MAX_ROUTE_POINTS)]))
    assert len(ok.troopers[1].route) == MAX_ROUTE_POINTS


def test_big_yaml_files_are_refused_early_with_the_right_message(tmp_path):
    """A 2 MB flow list of 1,000,001 values and an 8 MB block list of 2,097,000 values:
    refused as too many values (not "an alias bomb", there is no alias), on libyaml's
    events before anything is composed; a 9 MB file from its size, unread."""
    import yaml

    import geom3d.scenario.reader as reader

    assert reader.LIBYAML == bool(yaml.__with_libyaml__)  # the C parser when present
    (tmp_path / "flow.yaml").write_text("[" + "1," * 1_000_000 + "1]\n")
    (tmp_path / "plain.yaml").write_text("- 1\n" * 2_097_000)
    (tmp_path / "nine.yaml").write_text("#" * (9 << 20))
    argvs = [["lof", name] for name in ("flow.yaml", "plain.yaml", "nine.yaml")]
    flow, plain, nine = run_cli(argvs, tmp_path, timeout=240)
    # the list is value 1, so the 1,000,000th item is the first too many: in the flow
    # list item k starts at column 2k, in the block list on line k, column 3
    for res, at in ((flow, "line 1 column 2000000"), (plain, "line 1000000 column 3")):
        line = assert_one_clean_line(res, f"more than 1,000,000 values at {at}")
        assert "alias" not in line
    assert_one_clean_line(nine, "nine.yaml: file is 9 MiB, larger than the 8 MiB")
