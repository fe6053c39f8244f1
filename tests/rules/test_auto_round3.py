"""Infinity ``heading_deg: auto`` defects 1-3 of issue 35, each from its reproduction, with
the rules' answer worked out by hand and a brute force (every placement of a grid of
headings and contact offsets judged by the engine's own per-placement resolver,
:mod:`auto_brute`).

Sizes: Infinity ``small_teardrop`` 127 x 38.1 mm (height 19.05; largest contact offset
90 - asin(19.05 / 107.95) = 79.84 deg); silhouette 2 bases 25 mm (r 12.5). The attacker
stands at the origin with a 360-degree arc, so the template reaches 12.5 + 127 = 139.5 mm
from its centre.
"""

from __future__ import annotations

import math

import numpy as np
from auto_brute import best_by_grid
from support import box, make_scene, trooper

AUTO = {"id": "x", "attacker": "a", "template": "small_teardrop", "heading_deg": "auto"}
D = 25.0 / math.sqrt(2.0)  # diagonal base contact offset


def _attacker():
    return {**trooper("a", [0, 0]), "state": ["arc360"]}


def _enemies(r) -> list[str]:
    return r.affected if r.outcome == "resolved" else []


def test_defect1_close_combat_group_joins_without_being_touched():
    # e0, e1 due east at 80 mm: one placement touches both (2). e2 due north at 147 mm
    # (near edge 134.5 < 139.5: touchable) is engaged with e3 and e4, in base contact
    # behind it on the diagonals, 165.6 - 12.5 = 153 mm out of reach: touching e2 alone
    # affects e2, e3 and e4 (close combat: the whole group is in the area). Rules' answer:
    # 3 enemies, to the north. Before the fix the plan count (1) bounded the north set
    # and the search stopped at the eastern pair (2).
    ts = [
        _attacker(),
        trooper("e0", [80, -13], side="red"),
        trooper("e1", [80, 13], side="red"),
        trooper("e2", [0, 147], side="red", engaged_with=["e3", "e4"]),
        trooper("e3", [D, 147 + D], side="red"),
        trooper("e4", [-D, 147 + D], side="red"),
    ]
    s = make_scene(ts, attacks=[AUTO])
    assert s.warnings == []
    r = s.resolve_attack("x")
    assert sorted(_enemies(r)) == ["e2", "e3", "e4"]
    assert r.to_dict()["solver"][0]["enemies"] == 3
    best, _ = best_by_grid(s, "x", np.arange(0.0, 180.0, 3.0), 10.0)
    assert best == 3 == len(_enemies(r))


def test_defect2_auto_considers_a_trooper_on_a_route():
    # ARO: m (active: it moves) walks (300, 0) -> (100, 60) -> (300, 120); at the corner
    # it is 116.6 - 12.5 = 104 mm from a's centre, within reach. The ally p at (80, -20)
    # sits where the default aim (towards m's position (300, 0)) would put the template.
    # Rules' answer: a placement towards the corner touches m on its route and no ally:
    # resolved, m affected. Before the fix m was left out of the plan search: the one
    # judged placement missed it and the fallback was cancelled/failed.
    ts = [
        _attacker(),
        trooper("m", [300, 0], side="red", route=[[300, 0], [100, 60], [300, 120]]),
        trooper("p", [80, -20]),
    ]
    s = make_scene(ts, attacks=[{**AUTO, "aro": True, "main_target": "m"}])
    r = s.resolve_attack("x")
    assert (r.outcome, r.affected) == ("resolved", ["m"])
    best, _ = best_by_grid(s, "x", np.arange(-30.0, 90.0, 2.0), 10.0)
    assert best == 1


def test_defect3_blast_focus_lof_is_judged_over_the_placements_of_a_set():
    # A 2 x 12 x 40 mm post (x 44.5..46.5, y -1..11) stands between a's base edge and
    # e1's part inside a template heading about 10 degrees. Radial placement (focus at
    # (12.3, 2.2)): the ray to e1's inside rim near (78, 16.5) crosses x = 45.5 at
    # y = 9.4, inside the post: e1 in Total Cover - and e0 too from that focus, so the
    # radial placement fails. Focus at contact 89 degrees ((0.2, 12.5)): the ray crosses
    # x = 45.5 at y = 14.8, above the post's end: both affected. Rules' answer: 2.
    ts = [_attacker(), trooper("e0", [70, 0], side="red"), trooper("e1", [75, 28.5], side="red")]
    post = [box("w", [12, 2, 40], [45.5, 5, 0], 90)]
    att = {"attacker": "a", "template": "small_teardrop", "main_target": "e0", "heading_deg": 10}
    s = make_scene(
        ts,
        post,
        attacks=[
            {**AUTO, "main_target": "e0"},
            {**att, "id": "radial", "contact_deg": 10},
            {**att, "id": "offset", "contact_deg": 89},
        ],
    )
    radial, offset = s.resolve_attack("radial"), s.resolve_attack("offset")
    assert radial.outcome == "failed"
    assert (offset.outcome, offset.affected) == ("resolved", ["e0", "e1"])
    r = s.resolve_attack("x")
    assert (r.outcome, r.affected) == ("resolved", ["e0", "e1"])
    best, _ = best_by_grid(s, "x", np.arange(-30.0, 60.0, 3.0), 10.0)
    assert best == 2


def test_auto_matches_brute_force_with_scenery_seeded():
    # random posts between the attacker and two enemies: auto never does worse than the
    # grid of engine-judged placements
    rng = np.random.default_rng(35)
    for _ in range(4):
        e0 = (rng.uniform(60, 110), rng.uniform(-25, 0))
        e1 = (e0[0] + rng.uniform(-10, 10), e0[1] + rng.uniform(25.5, 35))
        wall = box("w", [rng.uniform(4, 25), 2, 40], [rng.uniform(25, 60), rng.uniform(-10, 30), 0],
                   rng.uniform(0, 180))  # fmt: skip
        ts = [_attacker(), trooper("e0", list(e0), side="red"), trooper("e1", list(e1), side="red")]
        s = make_scene(ts, [wall], attacks=[{**AUTO, "main_target": "e0"}])
        if s.warnings:
            continue
        got = len(_enemies(s.resolve_attack("x")))
        best, _ = best_by_grid(s, "x", np.arange(-30.0, 60.0, 3.0), 10.0)
        assert got >= best
