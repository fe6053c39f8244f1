"""Firing from a route (SPEC 12.5; the audit's case d4_inf_moving_attacker_main_target):
the template and the main-target check use the firing point (``fire_at``; without it,
``position``), and ``fire_at: best`` keeps the point that affects the most enemies.

Silhouette 2 troopers (base 25, r 12.5) on open ground but for the walls given.
"""

from __future__ import annotations

import pytest
from support import box, make_scene, trooper

from geom3d.core.errors import ScenarioError

WALL = box("wall", [10, 100, 100], [175, 100])  # x 170..180, y 50..150


def attack(id_, attacker, template, mode="direct", **kw):
    return {"id": id_, "attacker": attacker, "template": template, "mode": mode, **kw}


def _moving_scene(**kw):
    # m moves from (100, 100), where the wall hides t (250, 100), to (100, 300), where
    # nothing does: the line to t crosses x = 175 at y = 200, above the wall's end 150
    ts = [
        trooper("m", [100, 100], route=[[100, 100], [100, 300]]),
        trooper("t", [250, 100], side="red"),
    ]
    return make_scene(ts, [WALL], attacks=[attack("i", "m", "circular", mode="impact",
                                                  main_target="t", **kw)])  # fmt: skip


def test_the_main_target_is_checked_from_where_the_attacker_fires():
    # before: t was a valid target because some route point sees it
    s = _moving_scene()
    r = s.resolve_attack("i")
    assert (r.outcome, r.reason) == ("failed", "no_lof")
    assert "fire_at" not in r.to_dict()
    r = _moving_scene(fire_at=200).resolve_attack("i")
    assert (r.outcome, r.affected) == ("resolved", ["t"])
    assert r.to_dict()["fire_at"] == {"at_mm": 200.0, "index": 1, "position": [100.0, 300.0, 0.0]}
    r = _moving_scene(fire_at={"index": 0}).resolve_attack("i")
    assert (r.outcome, r.reason) == ("failed", "no_lof")
    assert r.fire_at["position"] == [100.0, 100.0, 0.0]
    # 100 mm along: (100, 200); the line to t crosses x = 170 at y = 153.3, just past
    # the wall's end at 150 (with t's and m's bases 12.5 wide some patch is seen)
    assert _moving_scene(fire_at={"index": 1}).resolve_attack("i").outcome == "resolved"


def test_the_template_is_placed_at_the_firing_point():
    ts = [
        trooper("m", [0, 0], route=[[0, 0], [0, 300]]),
        trooper("t", [0, 400], side="red"),
    ]
    s = make_scene(ts, attacks=[attack("d", "m", "small_teardrop", main_target="t",
                                       fire_at=300)])  # fmt: skip
    r = s.resolve_attack("d")
    # the teardrop starts on m's base edge at (0, 312.5), heading +y: it reaches t
    assert (r.outcome, r.affected) == ("resolved", ["t"])
    focus = r.placements[0].volume.local_frame().origin
    assert focus[1] == pytest.approx(312.5, abs=1e-6)


@pytest.mark.parametrize(
    ("fire_at", "message"),
    [
        (500, "off the route (0 to 200 mm"),
        (-1, "off the route"),
        ({"index": 2}, "index must be a route point, 0 to 1"),
        ({"point": 1}, "expected {index: N}"),
        ("first", "expected an arc length"),
    ],
)
def test_bad_fire_at_names_the_field(fire_at, message):
    with pytest.raises(ScenarioError, match=r"attacks\[0\]\.fire_at") as e:
        _moving_scene(fire_at=fire_at)
    assert message in str(e.value)


def test_fire_at_needs_a_route():
    ts = [trooper("m", [100, 100]), trooper("t", [250, 100], side="red")]
    with pytest.raises(ScenarioError, match="has no route to fire from"):
        make_scene(ts, attacks=[attack("i", "m", "circular", mode="impact", main_target="t",
                                       fire_at="best")])  # fmt: skip


# ---------------------------------------------------------------------------- best
# t and, in front of it, r1 / r2 / r3 on the lines from (100, 100) / (100, 200) /
# (100, 300) to t: the teardrop aimed at t from different route points takes different
# company
REDS = [
    trooper("t", [250, 200], side="red"),
    trooper("r1", [205, 168], side="red"),
    trooper("r2", [200, 200], side="red"),
    trooper("r3", [205, 232], side="red"),
    trooper("r4", [160, 200], side="red"),
]
ROUTE = [[100, 0], [100, 250], [130, 400]]
LARGE = "large_teardrop"


def _enemies_from(x: float, y: float) -> int:
    """Brute force: m standing still at (x, y) with a 360° arc (as a moving trooper has),
    no route; the same attack; enemies affected."""
    ts = [trooper("m", [x, y], state=["arc360"]), *REDS]
    s = make_scene(ts, attacks=[attack("d", "m", LARGE, main_target="t")])
    r = s.resolve_attack("d")
    return len([t for t in r.affected if t != "m"])


def test_best_firing_point_against_a_brute_force_scan_of_route_points():
    ts = [trooper("m", [100, 0], route=ROUTE), *REDS]
    s = make_scene(ts, attacks=[attack("d", "m", LARGE, main_target="t", fire_at="best")])
    r = s.resolve_attack("d")
    # the route points every 10 mm of travel, and its vertices (250 mm; 250 + 152.97)
    seg2 = (30**2 + 150**2) ** 0.5
    arcs = sorted({*range(0, 401, 10), 250.0, 250.0 + seg2})

    def point(s_mm):
        if s_mm <= 250:
            return 100.0, float(s_mm)
        f = (s_mm - 250.0) / seg2
        return 100.0 + 30.0 * f, 250.0 + 150.0 * f

    counts = [_enemies_from(*point(a)) for a in arcs]
    most = max(counts)
    assert most >= 2  # the layout offers a point better than others
    assert len(set(counts)) > 1
    first = arcs[counts.index(most)]
    assert r.fire_at["best"] == {"enemies": most, "candidates": len(arcs)}
    assert r.fire_at["at_mm"] == pytest.approx(first, abs=1e-3)
    assert len([t for t in r.affected if t != "m"]) == most
    assert r.fire_at["position"][:2] == pytest.approx(point(first), abs=1e-3)


def test_fire_at_is_infinity_only():
    ts = [trooper("m", [100, 100], route=[[100, 100], [100, 300]]),
          trooper("t", [250, 100], side="red")]  # fmt: skip
    with pytest.raises(ScenarioError, match=r"attacks\[0\]\.fire_at: Infinity only"):
        make_scene(ts, ruleset="wh40k-7e",
                   attacks=[attack("i", "m", "blast", main_target="t", fire_at=10)])  # fmt: skip
