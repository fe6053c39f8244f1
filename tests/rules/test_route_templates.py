"""Templates along a route stand on the ground (SPEC 13.1, issue 46): a runner crossing a
ridge on a two-point route is touched where a trooper dropped there by the 12.2 rule
would be, and the witness position carries that height."""

from __future__ import annotations

import numpy as np
import pytest
import trimesh
from support import make_scene, trooper

from geom3d.adjudication.routepath import route_path
from geom3d.core.tolerances import PLACEMENT_TOL_MM
from geom3d.rules.infinity.routes import route_candidates
from geom3d.scene.tolerances import STAND_GRID_MM
from geom3d.templates import CircleShape, TemplateVolume

# a ridge along y over x 150..250, apex 30 mm high at x = 200 (slopes of 31 degrees)
APEX, HALF = 30.0, 50.0
SLOPE = APEX / HALF
#: The 12.2 drop probes a base every STAND_GRID_MM inside the disc: over the apex line
#: the highest probe may lie half a step off it, so the engine's height may be that much
#: times the slope under the exact highest point under the base.
GRID_TOL_MM = 0.5 * STAND_GRID_MM * SLOPE + 1e-6
# the runner: silhouette 1 (base 25, height 25), crossing the ridge 40 mm from the main
# target standing on the apex. The circular template (76.2 across, 38.1 high) is centred
# on the main target's base underside (z = 30): a runner kept at z = 0 between its
# dropped route points (the old straight line) would pass under it; standing on the
# ridge it is inside the volume's height while within 50.6 mm of its centre in plan.
Y_RUN, R_RUN, H_RUN = 340.0, 12.5, 25.0


def _ridge_mesh():
    v = np.array(
        [[200 - HALF, 0, 0], [200, 0, APEX], [200 + HALF, 0, 0]]
        + [[200 - HALF, 400, 0], [200, 400, APEX], [200 + HALF, 400, 0]],
        float,
    )
    f = [[0, 1, 4], [0, 4, 3], [1, 2, 5], [1, 5, 4], [0, 3, 5], [0, 5, 2], [0, 2, 1], [3, 4, 5]]
    return trimesh.Trimesh(v, np.array(f), process=True)


def _scene(tmp_path, runner):
    path = tmp_path / "ridge.stl"
    if not path.exists():
        _ridge_mesh().export(path)
    return make_scene(
        [
            trooper("a", [60, 300]),
            trooper("m", [200, 300], side="red"),
            runner,
        ],
        [{"id": "ridge", "mesh": str(path), "solid": "closed", "position": [0, 0, 0]}],
        table={"size": [400, 400]},
        attacks=[
            {
                "id": "g",
                "attacker": "a",
                "template": "circular",
                "mode": "impact",
                "main_target": "m",
                "speculative": True,
            }
        ],
    )


def _runner(x=None):
    if x is None:
        route = [[100, Y_RUN], [300, Y_RUN]]
        return trooper("run", [100, Y_RUN], side="red", silhouette=1, route=route)
    return trooper("run", [float(x), Y_RUN], side="red", silhouette=1)


def _independent_rest(mesh, x, y, r=R_RUN):
    """Where a base of radius r at (x, y) rests, found apart from the engine: downward
    rays (trimesh's own ray tester) on a 0.1 mm lattice of the disc plus the point of the
    disc nearest the apex line, the highest hit (the ridge is one slope of 31 degrees
    either side: all of it connected ground), the table (z = 0) where nothing is hit."""
    g = np.arange(-r, r + 1e-9, 0.1)
    gx, gy = np.meshgrid(g, g)
    pts = np.column_stack([gx.ravel(), gy.ravel()])
    pts = pts[np.hypot(pts[:, 0], pts[:, 1]) <= r] + [x, y]
    pts = np.vstack([pts, [[np.clip(200.0, x - r, x + r), y]]])
    origins = np.column_stack([pts, np.full(len(pts), 100.0)])
    dirs = np.tile([0.0, 0.0, -1.0], (len(pts), 1))
    locs, _, _ = trimesh.ray.ray_triangle.RayMeshIntersector(mesh).intersects_location(
        origins, dirs
    )
    return float(max(locs[:, 2].max(), 0.0)) if len(locs) else 0.0


def test_template_positions_stand_on_the_ridge(tmp_path):
    scene = _scene(tmp_path, _runner())
    run = scene.trooper("run")
    m = scene.trooper("m")
    assert m.position[2] == pytest.approx(APEX, abs=1e-6)
    volume = TemplateVolume(CircleShape(76.2), tuple(m.position))
    cands = route_candidates(volume, run, route_path(scene, run))
    assert len(cands) >= 3
    mesh = _ridge_mesh()
    for p in cands:
        assert 200 - 31.0 <= p[0] <= 200 + 31.0 and p[1] == pytest.approx(Y_RUN)
        dropped = _scene(tmp_path, _runner(p[0])).trooper("run").position
        assert p[2] == pytest.approx(dropped[2], abs=PLACEMENT_TOL_MM)  # the scenario's drop
        ref = _independent_rest(mesh, p[0], p[1])
        assert ref - GRID_TOL_MM <= p[2] <= ref + 1e-6
    # the straight line between the two dropped points (the old answer) lies on the table
    assert not route_candidates(volume, run)
    res = scene.resolve_attack("g")
    assert "run" in res.affected
    w = res.placements[0].witnesses["run"]["position"]
    assert w[2] == pytest.approx(_independent_rest(mesh, w[0], w[1]), abs=GRID_TOL_MM)
    assert w[2] > 10.0  # on the ridge, not at the height of the route's ends


def test_hits_equal_troopers_standing_along_the_route(tmp_path):
    moving = _scene(tmp_path, _runner()).resolve_attack("g")
    # the reference: a static trooper dropped at every mm of the route where the plan
    # allows contact (within 50.6 mm of the template's centre: |x - 200| <= 31) and a
    # little beyond
    hit = {
        x: "run" in _scene(tmp_path, _runner(x)).resolve_attack("g").affected
        for x in range(160, 241)
    }
    assert not hit[160] and not hit[240]
    assert any(hit.values())
    assert ("run" in moving.affected) == any(hit.values())
    x_w = moving.placements[0].witnesses["run"]["position"][0]
    # the witness is a position where a standing trooper is hit (to the 1 mm sampling)
    assert hit[int(np.floor(x_w))] or hit[int(np.ceil(x_w))]
