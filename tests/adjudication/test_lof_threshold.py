"""Two prone troopers on an empty table: the 3 x 3 mm threshold (issue 33, docs/rules.md).

A prone trooper is ``base_height`` tall. Worked by hand (docs/rules.md, "A target exactly
3 mm tall"): the apparent view of the target, seen from the front eye point (0.5 mm
above the table, or 0.01 mm below the viewer's top), spans ``[e - c - e M, e - c + (h -
e) M]`` around the target's centre ``c = h / 2`` with ``M = D / (D - 12.5)``; a patch needs
four whole-millimetre rows of the lattice anchored at the centre inside that span.
"""

from __future__ import annotations

import math

import pytest

from geom3d.api import build_scene
from geom3d.commands.answers import lof_report
from geom3d.scenario import parse_scenario


def _scene(base_height: float, distance: float):
    doc = {"format": "geom3d/1", "units": "mm", "ruleset": "infinity",
           "table": {"size": [600, 300]}, "ruleset_overrides": {"base_height": base_height},
           "troopers": [
               {"id": "a", "side": "blue", "position": [100, 150, 0], "state": ["prone"]},
               {"id": "b", "side": "red", "position": [100 + distance, 150, 0],
                "facing_deg": 180, "state": ["prone"]}]}  # fmt: skip
    return build_scene(parse_scenario(doc))


def _rows_by_hand(h: float, distance: float) -> int:
    """Most lattice rows on the target from the front eye points (docs/rules.md)."""
    d = distance - 12.5  # front eye point to the target's axis
    m = d / (d - 12.5)
    best = 0
    for e in (0.5, 2.5, h - 0.01):  # eye heights: every 2 mm from 0.5, and the top
        if e > h:
            continue
        lo, hi = e - h / 2 - e * m, e - h / 2 + (h - e) * m
        best = max(best, math.floor(hi) - math.ceil(lo) + 1)
    return best


@pytest.mark.parametrize(
    ("base_height", "distance", "lof"),
    [(3, 150, False), (3.5, 150, True), (3.5, 300, False), (4, 300, True), (3, 90, True)],
)
def test_prone_troopers_on_an_empty_table(base_height, distance, lof):
    assert (_rows_by_hand(base_height, distance) >= 4) is lof  # the hand count agrees
    pairs = lof_report(_scene(base_height, distance))["pairs"]
    assert [(p["from"], p["lof"]) for p in pairs] == [("a", lof), ("b", lof)]
    if not lof:
        assert pairs[0]["reason"] == "blocked"
