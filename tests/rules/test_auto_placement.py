"""``heading_deg: auto`` (SPEC 11.4, 11.5): the exact placement search, checked against a
brute-force search written here (a fine grid over heading and contact point, each
placement judged by the engine's own plan test and base rule), on the issue's
counterexample and on seeded random 40k and Infinity layouts.

Sizes: 40k ``flame`` 209.55 x 57.15, point tip (largest contact offset
90 - asin(28.575 / 180.975) = 80.92 deg); Infinity ``small_teardrop`` 127 x 38.1 (height
19.05). The 40k firer has a 32 mm base (r 16), models 25 mm (r 12.5).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from support import make_scene, open_ground_layout, trooper

from geom3d.placement.direct import solve_heading
from geom3d.templates import TeardropShape

FLAME = TeardropShape(209.55, 57.15)
SMALL = TeardropShape(127.0, 38.1)

# The issue's counterexample: four models (offsets from the firer's centre, mm) that the
# previous solver (contact offsets 0, +-0.5 and +-0.95 of the largest, 1-degree grid)
# covered only 3 of (it answered heading 27.73, radial), while heading 25.7 with the
# contact point at 80.7 (55 deg off the heading) covers all 4, legally.
COUNTER = [(85.4, 88.1), (158.9, 49.8), (180.1, 132.3), (195.6, 66.7)]


def brute_force(shape, radius, targets, friends, *, step_deg=0.5, offset_step_deg=1.0):
    """Best target count over a grid of (heading, contact angle), placements that cut
    into the base (firer centre closer than ``radius`` to the shape) or touch a friend
    excluded: the engine's plan test (signed distance <= r + 1e-6)."""
    th = np.radians(np.arange(0.0, 360.0, step_deg))
    off = np.radians(np.arange(-90.0, 90.0 + 1e-9, offset_step_deg))
    T, D = (a.ravel() for a in np.meshgrid(th, off))
    fx, fy = radius * np.cos(T + D), radius * np.sin(T + D)
    c, s = np.cos(T)[:, None], np.sin(T)[:, None]

    def sd(pts):
        dx = pts[None, :, 0] - fx[:, None]
        dy = pts[None, :, 1] - fy[:, None]
        return shape.signed_distance_xy(c * dx + s * dy, -s * dx + c * dy)

    legal = sd(np.zeros((1, 2)))[:, 0] >= radius - 1e-6
    t = np.asarray(targets, float).reshape(-1, 3)
    g = np.asarray(friends, float).reshape(-1, 3)
    if len(g):
        legal &= ~(sd(g[:, :2]) <= g[None, :, 2] + 1e-6).any(axis=1)
    count = (sd(t[:, :2]) <= t[None, :, 2] + 1e-6).sum(axis=1)
    return int(count[legal].max()) if legal.any() else -1


def model(id_, xy, side="chaos", unit="cult", diameter=25.0):
    return {
        "id": id_,
        "side": side,
        "unit": unit,
        "position": [float(xy[0]), float(xy[1]), 0.0],
        "silhouette": {"diameter": diameter, "height": 30},
    }


def scene40k(offsets, friends=(), attacks=()):
    ms = [model("firer", (100, 100), "imperium", "tac", 32.0)]
    ms += [model(f"c{i}", (100 + x, 100 + y)) for i, (x, y) in enumerate(offsets)]
    ms += [
        model(f"f{i}", (100 + x, 100 + y), "imperium", "vets") for i, (x, y) in enumerate(friends)
    ]
    return make_scene(ms, ruleset="wh40k-7e", attacks=list(attacks))


def test_the_counterexample_of_the_issue():
    t = [(x, y, 12.5) for x, y in COUNTER]
    # a legal placement covering all 4, judged by the engine itself
    witness = {"id": "w", "attacker": "firer", "template": "flame", "target_unit": "cult",
               "heading_deg": 25.7, "contact_deg": 80.7}  # fmt: skip
    auto = {"id": "a", "attacker": "firer", "template": "flame", "target_unit": "cult"}
    s = scene40k(COUNTER, attacks=[witness, auto])
    w = s.resolve_attack("w")
    assert (w.outcome, w.hits) == ("resolved", [4])
    # no heading given: the solver is compulsory, and finds the 4
    r = s.resolve_attack("a")
    assert (r.outcome, r.hits) == ("resolved", [4])
    sol = r.to_dict()["solver"][0]
    assert sol["count"] == 4 and sol["runner_up"] == 3
    lo, hi = sol["heading_interval_deg"]
    assert lo <= sol["heading_deg"] <= hi and hi - lo < 1.0  # a narrow cell
    off = (sol["contact_deg"] - sol["heading_deg"] + 180) % 360 - 180
    assert 30.0 < off < 80.93  # far off the heading, inside the legal offsets
    direct = solve_heading(FLAME, (0, 0), 16.0, t, [])
    assert direct.count == 4 and direct.events > 0 and direct.examined > direct.events


@pytest.mark.parametrize("seed", range(8))
def test_40k_auto_matches_or_beats_brute_force(seed):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(3, 10)), int(rng.integers(0, 5))
    pts = []
    while len(pts) < n + m:  # no overlaps, nothing on the firer
        p = rng.uniform([-120, -150], [220, 150])
        if math.hypot(*p) > 30 and all(math.hypot(*(p - q)) > 25.5 for q in pts):
            pts.append(p)
    t = [(x, y, 12.5) for x, y in pts[:n]]
    g = [(x, y, 12.5) for x, y in pts[n:]]
    sol = solve_heading(FLAME, (0.0, 0.0), 16.0, t, g)
    best = brute_force(FLAME, 16.0, t, g)
    assert (sol.count if sol.found else -1) >= best
    if sol.found:  # the engine accepts the answer and counts the same
        a = {"id": "a", "attacker": "firer", "template": "flame", "target_unit": "cult",
             "heading_deg": sol.heading_deg, "contact_deg": sol.contact_deg}  # fmt: skip
        r = scene40k(pts[:n], pts[n:], [a]).resolve_attack("a")
        assert (r.outcome, r.hits) == ("resolved", [sol.count])
        assert sol.runner_up is None or sol.runner_up < sol.count


def infinity_scene(enemies, allies, attacks):
    ts = [{**trooper("a", [300, 300]), "state": ["arc360"]}]
    ts += [trooper(f"e{i}", [300 + x, 300 + y], side="red") for i, (x, y) in enumerate(enemies)]
    ts += [trooper(f"p{i}", [300 + x, 300 + y]) for i, (x, y) in enumerate(allies)]
    return make_scene(ts, attacks=list(attacks))


@pytest.mark.parametrize("seed", range(3))
def test_infinity_auto_matches_or_beats_brute_force(seed):
    # open ground: a trooper touching the template is affected (no scenery to hide it)
    # the main target: the enemy nearest the attacker (reachable by the template)
    enemies, allies, main = open_ground_layout(seed)
    s = infinity_scene(enemies, allies, [
        {"id": "x", "attacker": "a", "template": "small_teardrop", "main_target": f"e{main}",
         "heading_deg": "auto"}])  # fmt: skip
    r = s.resolve_attack("x")
    e = [(x, y, 12.5) for x, y in enemies]
    g = [(x, y, 12.5) for x, y in allies]
    # brute force with the main target required: count it as a huge bonus
    e_main = [e[main]] * 100 + [q for k, q in enumerate(e) if k != main]
    best = brute_force(SMALL, 12.5, e_main, g, step_deg=1.0, offset_step_deg=2.0)
    want = best - 99 if best >= 100 else 0
    got = len(r.affected) if r.outcome == "resolved" else 0
    assert got >= want
    assert r.to_dict()["solver"][0]["found"] is (r.outcome == "resolved")


def test_infinity_auto_burst_picks_distinct_enemies():
    # two pairs of enemies, due east and due north, 80 mm out; B2 with auto places one
    # template on each pair (4 distinct enemies); B1 covers one pair (2)
    enemies = [(80, -10), (80, 16), (-10, 80), (16, 80)]
    atk = {"id": "x", "attacker": "a", "template": "small_teardrop", "heading_deg": "auto"}
    s = infinity_scene(enemies, [], [{**atk, "burst": 2}, {**atk, "id": "y"}])
    r = s.resolve_attack("x")
    assert r.outcome == "resolved" and r.affected == ["e0", "e1", "e2", "e3"]
    assert r.to_dict()["solver"][0]["enemies"] == 4
    assert len(s.resolve_attack("y").affected) == 2


def test_infinity_auto_keeps_the_main_target_and_avoids_allies():
    # enemies: t (main) due east at 80, three more due north at 80, 105, 130; an ally
    # beside t. The north group is bigger but lacks the main target: auto stays east and
    # turns away from the ally.
    enemies = [(80, 0), (0, 80), (0, 105), (0, 130)]
    allies = [(70, 28)]
    s = infinity_scene(enemies, allies, [
        {"id": "x", "attacker": "a", "template": "small_teardrop", "main_target": "e0",
         "heading_deg": "auto"}])  # fmt: skip
    r = s.resolve_attack("x")
    assert (r.outcome, r.affected) == ("resolved", ["e0"])
    assert "p0" not in r.placements[0].in_area
