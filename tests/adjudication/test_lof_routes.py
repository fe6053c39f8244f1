"""Route windows (SPEC 12.5): every stretch of a route with Line of Fire, checked against
``lof`` of a trooper standing (no route) at points 1 mm either side of each edge."""

from __future__ import annotations

import numpy as np
import pytest
from support import box, make_scene, trooper

from geom3d.adjudication.lof import line_of_fire as lof
from geom3d.adjudication.lof import line_of_fire_from
from geom3d.adjudication.routepath import RoutePath, scan_windows
from geom3d.core.tolerances import ROUTE_REFINE_MM

WALL = box("wall", [20, 100, 100], [100, 150])  # x 90..110, y 100..200, 100 mm tall
ROUTE = [[200, 0], [200, 300]]


def _standing_lof(x: float, y: float) -> bool:
    """a -> m with m standing still at (x, y), facing a (no route: its own arc is not
    involved in a -> m)."""
    scene = make_scene(
        [trooper("a", [0, 150]), trooper("m", [x, y], side="red", facing_deg=180)], [WALL]
    )
    return lof(scene, "a", "m").lof


def test_route_behind_a_wall_has_two_windows_whose_ends_agree_with_lof():
    scene = make_scene(
        [trooper("a", [0, 150]), trooper("m", [200, 0], side="red", route=ROUTE)], [WALL]
    )
    r = lof(scene, "a", "m")
    w = r.route.windows
    assert len(w) == 2
    assert w[0].from_mm == 0.0 and w[1].to_mm == pytest.approx(300.0)
    assert w[0].to_mm < 150 < w[1].from_mm
    # the first window is where Line of Fire first exists
    assert r.route.first_position == w[0].from_position
    for win in w:
        for s, pos in ((win.from_mm, win.from_position), (win.to_mm, win.to_position)):
            assert pos[0] == pytest.approx(200.0) and pos[1] == pytest.approx(s)  # on the route
    # the inner edges: Line of Fire at the end, none 1 mm outside
    edges = [(w[0].to_mm, +1.0), (w[1].from_mm, -1.0)]
    for s, out in edges:
        assert _standing_lof(200.0, s)
        assert not _standing_lof(200.0, s + out)
    # and the window is the whole truth at 1 mm: the middle of the shadow is blocked
    assert not _standing_lof(200.0, 150.0)
    # the JSON form
    d = r.to_dict(area=False)["route"]["windows"]
    assert [sorted(x) for x in d] == [["from_mm", "from_position", "to_mm", "to_position"]] * 2
    assert d[0]["from_mm"] == 0.0 and d[1]["to_position"] == [200.0, 300.0, 0.0]


def test_route_with_no_window_and_always_visible():
    scene = make_scene(
        [
            trooper("a", [0, 150]),
            trooper("m", [200, 120], side="red", route=[[200, 120], [200, 180]]),
        ],
        [WALL],
    )
    r = lof(scene, "a", "m")
    assert r.route.windows == () and not r.route.any
    open_scene = make_scene(
        [trooper("a", [0, 150]), trooper("m", [200, 0], side="red", route=ROUTE)]
    )
    w = lof(open_scene, "m", "a").route.windows
    assert [(x.from_mm, x.to_mm) for x in w] == [(0.0, pytest.approx(300.0))]


def test_scan_windows_against_a_known_predicate():
    # true on [0.2, 0.4] and [0.75, 1]: edges within ROUTE_REFINE_MM, inside the truth
    total = 400.0

    def holds(f):
        return 0.2 <= f <= 0.4 or f >= 0.75

    got = scan_windows(holds, total)
    want = [(0.2, 0.4), (0.75, 1.0)]
    assert len(got) == 2
    for (lo, hi), (wlo, whi) in zip(got, want, strict=True):
        assert holds(lo) and holds(hi)
        assert 0 <= (lo - wlo) * total <= ROUTE_REFINE_MM
        assert 0 <= (whi - hi) * total <= ROUTE_REFINE_MM


def test_scan_windows_finds_windows_and_gaps_narrower_than_10_mm():
    # a 3 mm window and a 2.5 mm gap, both between two 10 mm marks (a 10 mm scan saw
    # neither: the second window came out as one)
    total = 100.0
    spans = [(12.2, 15.2), (40.0, 53.0), (55.5, 70.0)]

    def holds(f):
        return any(lo <= f * total <= hi for lo, hi in spans)

    got = scan_windows(holds, total)
    assert len(got) == 3
    for (lo, hi), (wlo, whi) in zip(got, spans, strict=True):
        assert holds(lo) and holds(hi)
        assert 0 <= lo * total - wlo <= ROUTE_REFINE_MM + 1e-9
        assert 0 <= whi - hi * total <= ROUTE_REFINE_MM + 1e-9


def test_windows_along_a_picket_fence_against_a_dense_scan():
    """Every 0.5 mm of the route, Line of Fire of the mover standing there (no route)
    is yes exactly inside the windows the route scan reports (up to each edge's 0.5 mm
    bisection), on a route past a fence of deep posts whose 3 mm gaps open windows a few
    mm wide (two of them between 10 mm marks)."""
    posts = [box(f"post{k}", [40, 27, 60], [100, 100 + 30 * k]) for k in range(-4, 5)]
    route = [[170, 55], [170, 145]]
    people = [trooper("a", [20, 100]), trooper("m", [170, 55], side="red", route=route)]
    r = lof(make_scene(people, posts), "a", "m")
    wins = [(w.from_mm, w.to_mm) for w in r.route.windows]
    between_marks = [(lo, hi) for lo, hi in wins if int(lo // 10) == int(hi // 10)]
    assert len(wins) == 4 and len(between_marks) == 2  # a 10 mm scan misses these two
    static = make_scene(
        [trooper("a", [20, 100]), trooper("m", [170, 55], side="red", facing_deg=180)], posts
    )
    m = static.trooper("m")
    marks = np.arange(0.0, 90.0 + 1e-9, 0.5)
    seen = [
        line_of_fire_from(static, m.moved_to((170.0, 55.0 + s, m.position[2])), "a").visible
        for s in marks
    ]
    for k, s in enumerate(marks):
        inside = any(lo - 1e-9 <= s <= hi + 1e-9 for lo, hi in wins)
        near_edge = any(min(abs(s - lo), abs(s - hi)) < ROUTE_REFINE_MM for lo, hi in wins)
        # the scan asks every 1 mm: only a yes (or no) run under 1 mm long may hide
        # between two of its marks, with the other answer 0.5 mm either side
        lone = 0 < k < len(marks) - 1 and seen[k - 1] == seen[k + 1] != seen[k]
        assert seen[k] == inside or near_edge or lone, s


def test_route_path_points_by_arc_length():
    p = RoutePath.of([[0, 0, 0], [30, 40, 0], [30, 40, 10]])
    assert p.length == 60.0
    pt, i = p.at(25.0)
    assert i == 0 and np.allclose(pt, [15, 20, 0])
    pt, i = p.at(55.0)
    assert i == 1 and np.allclose(pt, [30, 40, 5])
    assert p.at(-1)[1] == 0 and p.at(99)[1] == 2


def test_lof_table_lists_the_windows_of_the_json():
    from geom3d.commands.answers import lof_report, lof_table

    scene = make_scene(
        [trooper("a", [0, 150]), trooper("m", [200, 0], side="red", route=ROUTE)], [WALL]
    )
    doc = lof_report(scene, [("a", "m")], areas=False)
    w = doc["pairs"][0]["route"]["windows"]
    text = lof_table(doc)
    spans = ", ".join(f"{x['from_mm']:g}-{x['to_mm']:g}" for x in w)
    assert f"along m's route (mm from its start): {spans}" in text


def test_windows_follow_the_moving_route_when_the_first_route_is_one_point():
    # a has a one-point route (it stands still, 360° LoF): the windows of a -> m are
    # measured along m's route, the same as those of a standing a without a route
    still = make_scene(
        [trooper("a", [0, 150]), trooper("m", [200, 0], side="red", route=ROUTE)], [WALL]
    )
    one = make_scene(
        [
            trooper("a", [0, 150], route=[[0, 150]]),
            trooper("m", [200, 0], side="red", route=ROUTE),
        ],
        [WALL],
    )
    r, want = lof(one, "a", "m").route, lof(still, "a", "m").route
    assert r.mover == "m"
    assert [(w.from_mm, w.to_mm) for w in r.windows] == [(w.from_mm, w.to_mm) for w in want.windows]
