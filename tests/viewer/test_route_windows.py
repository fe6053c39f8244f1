"""The route-window layer: one lane per other trooper beside the mover's route (issue 46:
the plan drew seven overlapping colours on one line)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pyvista")

from support import REPO, make_scene, trooper

from geom3d import load_scene
from viewer.layers.route_windows import (
    LANE_WIDTH,
    WINDOW_COLORS,
    beside,
    lane_step_mm,
    route_window_actors,
)
from viewer.layout_lint import lane_gap_px, lane_overlaps, lint
from viewer.render import render


def _pair(frm, to, mover, windows):
    return {"from": frm, "to": to, "route": {"mover": mover, "windows": windows}}


def _win(s0, s1, y0, y1):
    return {"from_mm": s0, "to_mm": s1, "from_position": [200, y0, 0], "to_position": [200, y1, 0]}


def test_windows_are_drawn_in_one_lane_per_other_trooper():
    scene = make_scene(
        [
            trooper("a", [0, 150]),
            trooper("c", [350, 300]),
            trooper("m", [200, 0], side="red", route=[[200, 0], [200, 300]]),
        ],
        table={"size": [400, 400]},
    )
    pairs = [
        _pair("a", "m", "m", [_win(0, 45, 0, 45), _win(215, 300, 215, 300)]),
        _pair("m", "c", "m", [_win(0, 300, 0, 300)]),
        {"from": "a", "to": "c", "lof": True},  # no route: nothing drawn
    ]
    d = route_window_actors(scene, pairs)
    by_name = {a.name: a for a in d.actors}
    assert set(by_name) == {
        "route-window:m:a",
        "route-window:m:c",
        "route-lane:m:a",
        "route-lane:m:c",
    }
    assert by_name["route-window:m:a"].color == WINDOW_COLORS[0]
    assert by_name["route-window:m:c"].color == WINDOW_COLORS[1]
    assert by_name["route-window:m:a"].meta["lane"] == 1
    assert by_name["route-window:m:c"].meta["lane"] == 2
    step = lane_step_mm(scene)
    # the route runs up x = 200: lanes lie on its left (smaller x), a's first, c's next
    pts = np.asarray(by_name["route-window:m:a"].mesh.points)
    assert np.allclose(pts[:, 0], 200.0 - step)
    assert not np.any((pts[:, 1] > 45.1) & (pts[:, 1] < 214.9))  # none in the shadow
    pc = np.asarray(by_name["route-window:m:c"].mesh.points)
    assert np.allclose(pc[:, 0], 200.0 - 2 * step)
    # the un-shifted stretches travel with the actor, for the plan to lay out in px
    assert by_name["route-window:m:a"].meta["paths"][1][0][:2] == [200.0, 215.0]
    assert [e.label for e in d.legend] == ["route with LoF to/from a", "route with LoF to/from c"]
    assert d.notes == ["lanes beside m's route, from the route out: a, c"]


def test_a_lane_stays_parallel_around_a_corner():
    route = np.array([[0.0, 0.0, 0.0], [0.0, 100.0, 0.0], [100.0, 100.0, 0.0]])
    one, two = beside(route, 3.0), beside(route, 6.0)
    # mitred: 3 mm left of both legs, the corner moved diagonally (3 mm on each axis)
    assert np.allclose(one[:, :2], [[-3.0, 0.0], [-3.0, 103.0], [100.0, 103.0]])
    assert np.allclose(two[:, :2], [[-6.0, 0.0], [-6.0, 106.0], [100.0, 106.0]])


def _lanes_of(res):
    return [ln for ln in res.layout.lanes if not ln["track"]]


@pytest.mark.parametrize("size", [(800, 500), (1600, 1200)])
def test_seven_watchers_give_seven_lanes_that_do_not_overlap(tmp_path, size):
    watchers = [
        ("w1", [340, 60], 180),
        ("w2", [200, 150], 90),
        ("w3", [250, 60], 120),
        ("w4", [370, 180], 150),
        ("w5", [180, 30], 90),
        ("w6", [300, 140], 120),
        ("w7", [380, 300], 200),
    ]
    scene = make_scene(
        [
            trooper("runner", [60, 60], route=[[60, 60], [60, 250], [340, 250]]),
            *(trooper(i, p, side="red", facing_deg=f) for i, p, f in watchers),
        ],
        [{"id": "wall", "box": {"size": [10, 120, 60]}, "position": [130, 120, 0]}],
        table={"size": [400, 320]},
    )
    res = render(scene, tmp_path / "plan.png", size=size, view="top", lof="all")
    lanes = _lanes_of(res)
    others = sorted({ln["other"] for ln in lanes})
    assert len(others) >= 5  # most watchers see some of the route
    assert sorted(ln["lane"] for ln in lanes) == list(range(1, len(lanes) + 1))
    # from the layout records: every two lanes' windows keep apart (at least the gap)
    for i, a in enumerate(lanes):
        for b in lanes[i + 1 :]:
            assert lane_gap_px(a, b) >= 1.0, (a["other"], b["other"])
            assert a["width_px"] == pytest.approx(max(1.0, LANE_WIDTH * size[1] / 1200))
    assert lane_overlaps(res.layout.lanes) == []
    assert lint(res.layout) == []
    # each lane is named at its end, in its colour
    texts = {t.text for t in res.layout.texts}
    assert set(others) <= texts


def test_the_lint_finds_lanes_drawn_on_one_line():
    line = [np.array([[0.0, 0.0], [100.0, 0.0]])]
    lanes = [
        {"mover": "m", "other": o, "lane": k, "track": False, "width_px": 4.0, "px": line}
        for k, o in enumerate(("a", "b"), start=1)
    ]
    assert lane_overlaps(lanes) == [
        "route windows of 'm': the lanes of 'a' and 'b' overlap (4.0 px)"
    ]
    lanes[1]["px"] = [line[0] + [0.0, 5.0]]
    assert lane_overlaps(lanes) == []


def test_the_gallery_route_scenario_lays_out_its_lanes(tmp_path):
    scene = load_scene(REPO / "docs" / "gallery" / "route-windows.yaml")
    res = render(scene, tmp_path / "g.png", size=(800, 500), view="top", lof="all")
    assert len(_lanes_of(res)) >= 2
    assert lint(res.layout) == []
