"""A survey is capped by what costs, pairs of positions (issue 33).

The red team's 30,000-point grid passed the grid-point cap (250,000) and died allocating
450 M pairs (``MemoryError``). Now the pairs are counted first, on the grid (a lower
bound) and again on the placed positions (a point may hold several levels), and the
message says how many pairs, about how much memory, and what spacing would do.
"""

from __future__ import annotations

import json

import pytest
from bounded import assert_one_clean_line, run_cli

import geom3d.survey.grid as grid_mod
from geom3d.core.errors import InputError
from geom3d.survey import survey
from geom3d.survey.limits import SURVEY_BYTES_PER_PAIR, SURVEY_MAX_PAIRS


def test_thirty_thousand_points_are_refused_with_an_estimate(tmp_path):
    scen = tmp_path / "big.json"
    scen.write_text(json.dumps({
        "format": "geom3d/1", "units": "mm", "ruleset": "infinity",
        "table": {"size": [1200, 1200]}, "troopers": [],
    }))  # fmt: skip
    (res,) = run_cli(
        [["survey", str(scen), "--spacing", "7", "--out", "o", "--quiet", "--workers", "1"]],
        tmp_path,
        timeout=240,
    )
    # by hand: floor(1200 / 7) = 171 points a side, 171^2 = 29,241 grid points,
    # 29,241 * 29,240 / 2 = 427,503,420 pairs; x 120 B = 47.8 GiB; the spacing that
    # fits scales the grid by sqrt(29,241 / sqrt(2e7)) = 2.557: 7 mm -> 17.9 -> 18 mm
    # (1200 / 18 -> 66^2 = 4,356 points, 9,485,190 pairs <= 10 M)
    assert SURVEY_MAX_PAIRS == 10_000_000 and SURVEY_BYTES_PER_PAIR == 120
    assert_one_clean_line(
        res,
        "--spacing: 7 mm gives 29,241 grid points = 427,503,420 pairs",
        "more than the 10,000,000 a survey may have (about 47.8 GiB of memory)",
        "use a spacing of 18 mm or more",
    )
    assert not (tmp_path / "o").exists()


def test_positions_on_several_levels_are_counted_before_any_pair(room, monkeypatch):
    # room with a door: 9 grid points on a 100 mm grid, (150, 150) holds two probes
    # (inside the room and on its roof): 10 positions = 45 pairs; the grid alone is 36 pairs
    monkeypatch.setattr(grid_mod, "SURVEY_MAX_PAIRS", 40)
    with pytest.raises(InputError, match=r"gives 10 positions = 45 pairs, more than the 40"):
        survey(room(door=True), spacing_mm=100, workers=1)
    monkeypatch.setattr(grid_mod, "SURVEY_MAX_PAIRS", 45)
    doc = survey(room(door=True), spacing_mm=100, workers=1)
    assert len(doc["positions"]) == 10
