"""40k vehicles in plan (SPEC 12.6): facings, hull coverage against a brute force written
here (its own teardrop polygon and placement maths, shapely areas), friendly exclusion.

The ``flame`` template: length 209.55, width 57.15, point tip (far circle r 28.575
centred 180.975 from the tip). Hull rectangles are given by centre, half sizes, heading.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from shapely.affinity import rotate, translate
from shapely.geometry import MultiPoint, Point
from shapely.geometry import box as sbox

from geom3d.placement.vehicles import HullPlan, facing_hit, hull_touched, solve_hull_cover
from geom3d.templates import TeardropShape

FLAME = TeardropShape(209.55, 57.15)
L, R1 = 209.55, 28.575


def rect_hull(cx, cy, a, b, heading_deg=0.0) -> HullPlan:
    foot = translate(rotate(sbox(-a, -b, a, b), heading_deg, origin=(0, 0)), cx, cy)
    return HullPlan(foot, (cx, cy), (a, b), heading_deg)


# --------------------------------------------------------------------------------------
# facings: hand-computed
# --------------------------------------------------------------------------------------
# Hull 100 x 60 (a = 50 along the front, b = 30 across). The diagonals through opposite
# corners are v = +-(30/50) u: front where 30 u - 50 |v| > 0 (u > 0), rear mirrored, side
# elsewhere; within 0.01 mm of a diagonal the side facing is hit (the documented tie).


@pytest.mark.parametrize(
    ("xy", "facing"),
    [
        ((200, 0), "front"),
        ((-200, 0), "rear"),
        ((0, 100), "side"),
        ((0, -100), "side"),
        ((100, 50), "front"),  # 30*100 - 50*50 = 500 > 0
        ((100, 70), "side"),  # 3000 - 3500 < 0
        ((-100, -50), "rear"),
        ((100, 60), "side"),  # exactly on the diagonal: the tie goes to the side
        ((-100, -60), "side"),
        ((-100, 60), "side"),
        ((100, 59.9), "front"),  # (3000 - 2995) / 58.31 = 0.086 mm off the diagonal
        ((100, 59.995), "side"),  # 0.0043 mm off: inside the tie band
        ((0, 0), "side"),  # the centre lies on both diagonals
    ],
)
def test_facing_around_an_unturned_hull(xy, facing):
    assert facing_hit(xy, rect_hull(0, 0, 50, 30)) == facing


@pytest.mark.parametrize(
    ("xy", "facing"),
    [((10, 220), "front"), ((10, -180), "rear"), ((210, 20), "side"), ((-190, 20), "side"),
     ((10 - 60, 20 + 100), "side"), ((10 - 60, 20 + 100.1), "front")],
)  # fmt: skip
def test_facing_around_a_turned_hull(xy, facing):
    # front along +y; the diagonal ahead-left passes (10 - 60, 20 + 100)
    assert facing_hit(xy, rect_hull(10, 20, 50, 30, heading_deg=90.0)) == facing


# --------------------------------------------------------------------------------------
# the brute force: its own teardrop
# --------------------------------------------------------------------------------------


def flame_polygon(tip, heading_deg, n=720):
    """The flame as the hull of its far circle sampled at n points and its tip."""
    h = math.radians(heading_deg)
    ax, ay = math.cos(h), math.sin(h)
    cx, cy = tip[0] + (L - R1) * ax, tip[1] + (L - R1) * ay
    t = np.linspace(0, 2 * math.pi, n, endpoint=False)
    pts = [(cx + R1 * math.cos(a), cy + R1 * math.sin(a)) for a in t] + [tuple(tip)]
    return MultiPoint(pts).convex_hull


def flame_polygons(tips, headings, n=72):
    """Many flames at once (vectorised :func:`flame_polygon`): tips (k, 2), headings (k,)."""
    h = np.radians(np.asarray(headings, dtype=np.float64))
    tips = np.asarray(tips, dtype=np.float64)
    c = tips + (L - R1) * np.column_stack((np.cos(h), np.sin(h)))
    t = np.linspace(0, 2 * math.pi, n, endpoint=False)
    ring = c[:, None, :] + R1 * np.stack((np.cos(t), np.sin(t)), axis=1)[None]
    pts = np.concatenate((ring, tips[:, None, :]), axis=1)
    return shapely.convex_hull(shapely.multipoints(pts))


def brute_best(hull, center, radius, friends=(), step=1.0, cstep=3.0, fixed=None):
    """Largest covered hull area over a grid of contact angles and headings; placements
    whose polygon comes within a friend's radius of its centre are refused."""
    heads = np.arange(0.0, 360.0, step)
    if fixed is not None:
        tips = np.repeat(np.asarray([fixed], dtype=np.float64), len(heads), axis=0)
        hs = heads
    else:
        cs = np.radians(np.arange(0.0, 360.0, cstep))
        cc, hs = (a.ravel() for a in np.meshgrid(cs, heads, indexing="ij"))
        tips = np.asarray(center) + radius * np.column_stack((np.cos(cc), np.sin(cc)))
    polys = flame_polygons(tips, hs)
    area = shapely.area(shapely.intersection(polys, hull))
    ok = np.ones(len(polys), dtype=bool)
    for fx, fy, fr in friends:
        ok &= shapely.distance(polys, Point(fx, fy)) > fr
    if not ok.any():
        return 0.0, None
    k = int(np.argmax(np.where(ok, area, -1)))
    return float(area[k]), (tips[k], hs[k])


CASES = [
    ((100, 100), 16.0, rect_hull(200, 100, 50, 40)),
    ((100, 100), 16.0, rect_hull(220, 130, 60, 35, heading_deg=30.0)),
    ((0, 0), 12.5, rect_hull(-90, 150, 45, 25, heading_deg=-70.0)),
]


@pytest.mark.parametrize(("center", "radius", "hull"), CASES)
def test_hull_cover_is_at_least_the_brute_force_maximum(center, radius, hull):
    sol = solve_hull_cover(FLAME, hull.footprint, center_xy=center, radius=radius)
    assert sol.found
    brute, _ = brute_best(hull.footprint, center, radius)
    # the engine's area is what its placement covers (independent polygon, 1440 points)
    mine = flame_polygon(sol.focus, sol.heading_deg, n=1440).intersection(hull.footprint).area
    assert sol.area == pytest.approx(mine, abs=0.05)
    # the narrow end touches the base
    assert math.dist(sol.focus, center) == pytest.approx(radius, abs=1e-9)
    # at least the best of the grid (the grid is coarser, so it may only be below)
    assert sol.area >= brute - 0.05
    # and not far above it: 1 degree steps lose little on these sizes
    assert sol.area <= brute * 1.05 + 1.0


def test_hull_cover_from_a_fixed_barrel_point():
    hull = rect_hull(200, 100, 50, 30, heading_deg=90.0)
    barrel = (100.0, 240.0)
    sol = solve_hull_cover(FLAME, hull.footprint, center_xy=(100, 300), fixed_focus_xy=barrel)
    assert sol.found and sol.contact_deg is None and sol.focus == barrel
    brute, _ = brute_best(hull.footprint, None, 0.0, step=0.1, fixed=barrel)
    assert sol.area >= brute - 0.05
    assert sol.area <= brute + 5.0  # 0.1 degree steps


def test_a_friendly_model_is_never_touched_and_the_constrained_maximum_is_reached():
    center, radius, hull = CASES[0]
    free = solve_hull_cover(FLAME, hull.footprint, center_xy=center, radius=radius)
    # a friend straddling the free optimum's axis, 120 mm from its tip
    h = math.radians(free.heading_deg)
    fx = free.focus[0] + 120 * math.cos(h) - 5 * math.sin(h)
    fy = free.focus[1] + 120 * math.sin(h) + 5 * math.cos(h)
    friend = (fx, fy, 12.5)
    sol = solve_hull_cover(
        FLAME, hull.footprint, center_xy=center, radius=radius, friend_discs=[friend]
    )
    assert sol.found
    tmpl = flame_polygon(sol.focus, sol.heading_deg, n=1440)
    assert tmpl.distance(Point(fx, fy)) > 12.5 - 1e-3  # not touched
    assert sol.area < free.area  # the friend costs coverage
    brute, _ = brute_best(hull.footprint, center, radius, friends=[friend])
    assert sol.area >= brute - 0.05


def test_a_friendly_hull_is_never_touched():
    center, radius, hull = CASES[0]
    friend_hull = rect_hull(190, 160, 40, 15).footprint  # lies along the target's far side
    sol = solve_hull_cover(
        FLAME, hull.footprint, center_xy=center, radius=radius, friend_hulls=[friend_hull]
    )
    assert sol.found
    tmpl = flame_polygon(sol.focus, sol.heading_deg, n=1440)
    assert tmpl.distance(friend_hull) > -1e-9 and not tmpl.intersects(friend_hull.buffer(-1e-3))


def test_no_placement_when_every_one_touches_a_friend():
    # a ring of friends around the base: every teardrop crosses one
    ring = [(100 + 30 * math.cos(a), 100 + 30 * math.sin(a), 12.5)
            for a in np.radians(np.arange(0, 360, 20))]  # fmt: skip
    sol = solve_hull_cover(
        FLAME, rect_hull(250, 100, 50, 30).footprint, center_xy=(100, 100), radius=16,
        friend_discs=ring,
    )  # fmt: skip
    assert not sol.found


def test_hull_touched_agrees_with_a_fine_polygon():
    rng = np.random.default_rng(7)
    hull = rect_hull(0, 0, 50, 30, heading_deg=20.0).footprint
    agree = 0
    for _ in range(300):
        tip = rng.uniform(-300, 300, 2)
        heading = float(rng.uniform(0, 360))
        d = flame_polygon(tip, heading, n=2880).distance(hull)
        if 0 < d < 0.01:
            continue  # too close to call with the polygon
        assert hull_touched(FLAME, tip, heading, hull) == (d == 0), (tip, heading, d)
        agree += 1
    assert agree > 250


# --------------------------------------------------------------------------------------
# invariant: a rigid motion of the whole scene changes neither facing nor share
# --------------------------------------------------------------------------------------


def _moved(p, ang, dx, dy):
    c, s = math.cos(math.radians(ang)), math.sin(math.radians(ang))
    return (c * p[0] - s * p[1] + dx, s * p[0] + c * p[1] + dy)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    hx=st.floats(120, 260),
    hy=st.floats(-80, 80),
    hh=st.floats(0, 360),
    quarter=st.integers(0, 3),
    dx=st.floats(-500, 500),
    dy=st.floats(-500, 500),
)
def test_rigid_motion_keeps_facing_and_share(hx, hy, hh, quarter, dx, dy):
    """Turns by quarter turns keep the search's grid, so the solver's share is the same;
    the facing is the same for any rigid motion."""
    a, b = 50.0, 30.0
    hull = rect_hull(hx, hy, a, b, hh)
    firer = (0.0, 0.0)
    # away from the tie band, so a rounding of the motion cannot flip the facing
    c, s = math.cos(math.radians(hh)), math.sin(math.radians(hh))
    u, v = c * (firer[0] - hx) + s * (firer[1] - hy), -s * (firer[0] - hx) + c * (firer[1] - hy)
    n = math.hypot(a, b)
    assume(min(abs(b * u - a * v), abs(b * u + a * v)) / n > 0.1)
    ang = 90.0 * quarter
    cx, cy = _moved((hx, hy), ang, dx, dy)
    moved = rect_hull(cx, cy, a, b, hh + ang)
    f2 = _moved(firer, ang, dx, dy)
    assert facing_hit(firer, hull) == facing_hit(f2, moved)
    s1 = solve_hull_cover(FLAME, hull.footprint, center_xy=firer, radius=16)
    s2 = solve_hull_cover(FLAME, moved.footprint, center_xy=f2, radius=16)
    assert s1.area / hull.area == pytest.approx(s2.area / moved.area, abs=1e-3)


def test_hull_cover_against_the_brute_force_on_seeded_layouts_with_friends():
    rng = np.random.default_rng(35)
    for _ in range(3):
        d, a = rng.uniform(110, 200), rng.uniform(0, 2 * math.pi)
        hull = rect_hull(d * math.cos(a), d * math.sin(a), rng.uniform(35, 60),
                         rng.uniform(20, 35), rng.uniform(0, 180))  # fmt: skip
        friends = []
        while len(friends) < 2:
            r, b = rng.uniform(45, 160), rng.uniform(0, 2 * math.pi)
            f = (r * math.cos(b), r * math.sin(b), 12.5)
            if hull.footprint.distance(Point(f[0], f[1])) > 15:
                friends.append(f)
        sol = solve_hull_cover(FLAME, hull.footprint, center_xy=(0, 0), radius=16,
                               friend_discs=friends)  # fmt: skip
        brute, _ = brute_best(hull.footprint, (0, 0), 16, friends=friends)
        if brute <= 0:
            continue
        assert sol.found
        tmpl = flame_polygon(sol.focus, sol.heading_deg, n=1440)
        assert all(tmpl.distance(Point(fx, fy)) > fr - 1e-3 for fx, fy, fr in friends)
        assert sol.area >= brute - 0.05, (sol, brute)
