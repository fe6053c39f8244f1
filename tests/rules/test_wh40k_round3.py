"""40k round 3 (SPEC 12.6; issue 35): ``heading_deg: auto`` with a ``focus`` (defect 6),
ruling A1 (a template may lie over the firer's own base) and ruling A2 (an explicit
heading covering fewer models than the most possible is reported).

Sizes: ``flame`` 209.55 x 57.15, point tip; the firer's base 32 mm (r 16), models 25 mm
(r 12.5).
"""

from __future__ import annotations

import math

import numpy as np
from support import make_scene

from geom3d.core.tolerances import WH40K_MAX_CONTACT_OFFSET_DEG
from geom3d.placement.direct import solve_heading
from geom3d.templates import TeardropShape, footprint_hits_disc

FLAME = TeardropShape(209.55, 57.15)


def model(id_, xy, side="chaos", unit="cultists", diameter=25.0):
    return {"id": id_, "side": side, "unit": unit,
            "position": [float(xy[0]), float(xy[1]), 0.0],
            "silhouette": {"diameter": diameter, "height": 30}}  # fmt: skip


def firer(xy=(100, 100)):
    return model("firer", xy, "imperium", "tac", 32.0)


def brute_force(targets, friends, *, over_base: bool, step_deg=1.0, contact_step_deg=2.0):
    """Most targets under a flame whose point touches a 16 mm base at the origin, over a
    grid of (heading, contact angle); friends under the template make it illegal, and
    without ``over_base`` so does a template cutting into the firer's base (the engine's
    plan test, :func:`footprint_hits_disc`; signed distance for the base)."""
    th = np.radians(np.arange(0.0, 360.0, step_deg))
    ph = np.radians(np.arange(0.0, 360.0, contact_step_deg))
    T, P = (a.ravel() for a in np.meshgrid(th, ph))
    fx, fy = 16.0 * np.cos(P), 16.0 * np.sin(P)
    c, s = np.cos(T)[:, None], np.sin(T)[:, None]

    def sd(pts):
        dx = pts[None, :, 0] - fx[:, None]
        dy = pts[None, :, 1] - fy[:, None]
        return FLAME.signed_distance_xy(c * dx + s * dy, -s * dx + c * dy)

    legal = np.ones(len(T), bool)
    if not over_base:
        legal &= sd(np.zeros((1, 2)))[:, 0] >= 16.0 - 1e-6
    g = np.asarray(friends, float).reshape(-1, 3)
    if len(g):
        legal &= ~(sd(g[:, :2]) <= g[None, :, 2] + 1e-6).any(axis=1)
    t = np.asarray(targets, float).reshape(-1, 3)
    n = (sd(t[:, :2]) <= t[None, :, 2] + 1e-6).sum(axis=1)
    return int(n[legal].max()) if legal.any() else -1


def test_defect6_auto_with_a_focus_turns_about_that_focus():
    # three cultists due east at 160, 200, 240; a friendly model at (160, 135). The point
    # is fixed at the user's focus (100, 116) (the base edge due north). Heading 353.35
    # (the unconstrained solver's, at its own contact point) from there cuts into the
    # firer's old limit and passes over the friendly's side; turning about the focus,
    # headings 339.31 .. 357.03 cover all three without touching it.
    ms = [firer(), model("c0", (160, 100)), model("c1", (200, 100)), model("c2", (240, 100)),
          model("pal", (160, 135), "imperium", "vets")]  # fmt: skip
    atk = {"id": "f", "attacker": "firer", "template": "flame", "target_unit": "cultists",
           "heading_deg": "auto", "focus": [100, 116]}  # fmt: skip
    r = make_scene(ms, ruleset="wh40k-7e", attacks=[atk]).resolve_attack("f")
    assert (r.outcome, r.hits) == ("resolved", [3])
    p = r.placements[0]
    assert p.focus[:2] == (100.0, 116.0)
    sol = r.solver[0]
    assert sol["count"] == 3 and sol["contact_deg"] == 90.0
    lo, hi = sol["heading_interval_deg"]
    # brute force about the focus, every 0.01 degree: the same interval
    good = [h for h in np.arange(330.0, 365.0, 0.01)
            if not footprint_hits_disc(FLAME, (100, 116), h, (160, 135), 12.5)
            and all(footprint_hits_disc(FLAME, (100, 116), h, (x, 100), 12.5)
                    for x in (160, 200, 240))]  # fmt: skip
    assert abs(min(good) - lo) < 0.011 and abs(max(good) - hi) < 0.011
    assert lo - 1e-9 <= p.heading_deg <= hi + 1e-9


def test_ruling_a1_raises_the_maximum():
    # four cultists around a firer at the origin: with the template kept off the base the
    # best is 2; with the point at 113.5 degrees on the base edge ((-6.4, 14.7)) and the
    # axis along 14.5 degrees, the flame lies over the firer's base and covers 3
    t = [(76.2, 10.8, 12.5), (108.4, 78.1, 12.5), (-82.7, 37.5, 12.5), (20.7, 34.3, 12.5)]
    assert brute_force(t, [], over_base=False) == 2
    assert brute_force(t, [], over_base=True) == 3
    assert solve_heading(FLAME, (0, 0), 16.0, t, []).count == 2  # the off-base limit
    sol = solve_heading(FLAME, (0, 0), 16.0, t, [], dmax_deg=WH40K_MAX_CONTACT_OFFSET_DEG)
    assert sol.count == 3
    # the engine resolves the solver's answer as it counts it
    ms = [firer((0, 0))] + [model(f"c{k}", (x, y)) for k, (x, y, _) in enumerate(t)]
    atk = {"id": "f", "attacker": "firer", "template": "flame", "target_unit": "cultists",
           "heading_deg": "auto"}  # fmt: skip
    r = make_scene(ms, ruleset="wh40k-7e", attacks=[atk]).resolve_attack("f")
    assert (r.outcome, r.hits) == ("resolved", [3])


def test_ruling_a1_solver_matches_brute_force_over_the_base():
    # seeded random layouts: the solver (every heading admissible at every contact point)
    # is never beaten by a brute force letting the template lie over the firer's base
    rng = np.random.default_rng(12)
    for _ in range(10):
        pts = []
        n, m = int(rng.integers(3, 8)), int(rng.integers(1, 4))
        while len(pts) < n + m:
            p = rng.uniform([-140, -140], [140, 140])
            if math.hypot(*p) > 30 and all(math.hypot(*(p - q)) > 25.5 for q in pts):
                pts.append(p)
        t = [(x, y, 12.5) for x, y in pts[:n]]
        g = [(x, y, 12.5) for x, y in pts[n:]]
        sol = solve_heading(FLAME, (0, 0), 16.0, t, g, dmax_deg=WH40K_MAX_CONTACT_OFFSET_DEG)
        assert (sol.count if sol.found else -1) >= brute_force(t, g, over_base=True)


def test_ruling_a2_explicit_heading_below_the_maximum_warns():
    # five cultists in a line due north and one due east: heading 0 covers only the one
    # due east (1), heading 90 all five in the line (5: the template is 57 mm wide, so
    # the line and the model 100 mm east of the firer do not fit under it together)
    ms = [firer(), model("e", (200, 100))]
    ms += [model(f"n{k}", (100, 100 + d)) for k, d in enumerate((50, 80, 110, 140, 170))]
    atk = {"attacker": "firer", "template": "flame", "target_unit": "cultists"}
    attacks = [{**atk, "id": "east", "heading_deg": 0}, {**atk, "id": "north", "heading_deg": 90}]
    s = make_scene(ms, ruleset="wh40k-7e", attacks=attacks)
    east, north = s.resolve_attack("east").to_dict(), s.resolve_attack("north").to_dict()
    assert east["hits"] == [1]
    assert (east["placements"][0]["maximal"], east["placements"][0]["most_possible"]) == (False, 5)
    assert east["warnings"] == [
        "attack 'east' placement 0: the template covers 1 models of the target unit where 5 "
        "is the most possible (heading_deg: auto finds it)"
    ]
    assert north["hits"] == [5] and north["placements"][0]["maximal"] is True
    assert "warnings" not in north
