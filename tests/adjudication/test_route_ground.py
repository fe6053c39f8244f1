"""Routes follow the ground (SPEC 13.1, issue 46): a two-point route over a ridge stands
on the ridge at every position, and its windows are those of troopers standing there."""

from __future__ import annotations

import numpy as np
import pytest
import trimesh
from support import box, make_scene, trooper

from geom3d.adjudication.routepath import route_path

# a ridge along y over x 150..250, apex 30 mm high at x = 200 (slopes of 31 degrees)
APEX, HALF = 30.0, 50.0


def _ridge(tmp_path):
    v = np.array(
        [[200 - HALF, 0, 0], [200, 0, APEX], [200 + HALF, 0, 0]]
        + [[200 - HALF, 400, 0], [200, 400, APEX], [200 + HALF, 400, 0]],
        float,
    )
    f = [[0, 1, 4], [0, 4, 3], [1, 2, 5], [1, 5, 4], [0, 3, 5], [0, 5, 2], [0, 2, 1], [3, 4, 5]]
    path = tmp_path / "ridge.stl"
    trimesh.Trimesh(v, np.array(f), process=True).export(path)
    return str(path)


def _ridge_height(x):
    return np.clip(APEX * (1 - np.abs(np.asarray(x) - 200) / HALF), 0, None)


def _rest(x, r=12.5):
    """Hand value: a base of radius r centred at x rests on the highest ridge point
    under it (a tent: the point of [x - r, x + r] nearest the apex)."""
    return float(_ridge_height(np.clip(200.0, x - r, x + r)))


def _scene(tmp_path, runner):
    # the observer on a 60 mm tower behind an 80 mm wall: it sees only what stands high
    # enough on the far side (so the answer depends on how high the runner stands)
    return make_scene(
        [trooper("o", [200, 40], facing_deg=90.0), runner],
        [
            {"id": "ridge", "mesh": _ridge(tmp_path), "solid": "closed", "position": [0, 0, 0]},
            box("tower", (40, 40, 60), (200, 40, 0)),
            box("wall", (400, 4, 80), (200, 120, 0)),
        ],
        table={"size": [400, 400]},
    )


def test_route_positions_stand_on_the_ridge(tmp_path):
    scene = _scene(tmp_path, trooper("r", [100, 200], route=[[100, 200], [300, 200]]))
    path = route_path(scene, scene.trooper("r"))
    for s in np.linspace(0.0, path.length, 41):
        p, _ = path.at(float(s))
        # on a 31-degree slope a 12.5 mm base rests on its uphill rim (or the apex)
        assert p[2] == pytest.approx(_rest(p[0]), abs=0.05)


def test_route_windows_equal_troopers_standing_every_mm(tmp_path):
    scene = _scene(tmp_path, trooper("r", [100, 200], route=[[100, 200], [300, 200]]))
    res = scene.line_of_fire("o", "r")
    windows = res.route.windows
    assert windows  # the runner is seen only on the ridge
    for w in windows:  # JSON positions carry the ground's height
        for s, pos in ((w.from_mm, w.from_position), (w.to_mm, w.to_position)):
            assert pos[0] == pytest.approx(100 + s, abs=1e-6)
            assert pos[2] == pytest.approx(_rest(pos[0]), abs=0.05)
    # the reference: a static trooper dropped at every mm of the route
    xs = np.arange(100, 301)
    seen = np.array(
        [_scene(tmp_path, trooper("r", [float(x), 200])).line_of_fire("o", "r").lof for x in xs]
    )
    assert seen.any() and not seen.all()
    runs, k = [], 0
    while k < len(xs):
        if seen[k]:
            j = k
            while j + 1 < len(xs) and seen[j + 1]:
                j += 1
            runs.append((xs[k], xs[j]))
            k = j + 1
        else:
            k += 1
    got = [(100 + w.from_mm, 100 + w.to_mm) for w in windows]
    assert len(got) == len(runs)
    for (a, b), (lo, hi) in zip(got, runs, strict=True):
        assert abs(a - lo) <= 1.0 and abs(b - hi) <= 1.0
