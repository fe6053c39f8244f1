"""The boxes of rectilinear scenery (buildings with doors and windows, containers, walls
with windows: ``ConvexSolids.from_scenery``) change the cost of Line of Fire, never its
answers. A segment a box settles from an eye outside its solid, Embree finds blocked;
the boxes of a solid a trooper's eyes are in or touch are left out of that pair's
pieces (``ConvexSolids.near``), a trooper on a roof keeping the roof's; and matrices and
an exposure map on tables of such pieces, with troopers inside a building, on its roof,
in its doorway, against and in its walls, are the same with the pieces and without."""

from __future__ import annotations

import math

import numpy as np
import pytest
from support import lof_answers, make_scene, trooper

from geom3d.adjudication import lof
from geom3d.bodies.cylinder import Cylinder
from geom3d.bodies.kernel_constants import PROOF_CLEARANCE_MM
from geom3d.exposure import run_exposure
from geom3d.mesh.winding import winding_numbers
from geom3d.raycast import RayEngine
from geom3d.scene.scene import Scene
from geom3d.terrain.solids import building, container, wall
from geom3d.visibility import VisibilityStats
from geom3d.visibility._convex_kernels import segment_blocked
from geom3d.visibility.convex import NO_SOLIDS, ConvexSolids

TABLE = {"size": [400, 400]}


def _turned(v, yaw_deg, shift):
    a = math.radians(yaw_deg)
    c, s = math.cos(a), math.sin(a)
    return np.asarray(v) @ np.array([[c, s, 0], [-s, c, 0], [0, 0, 1.0]]) + np.asarray(shift)


def _write_obj(path, v, f):
    lines = [f"v {x:.17g} {y:.17g} {z:.17g}" for x, y, z in np.asarray(v, float)]
    lines += [f"f {a + 1} {b + 1} {c + 1}" for a, b, c in np.asarray(f, int)]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


@pytest.mark.parametrize("seed", range(4))
def test_segments_a_box_settles_from_outside_its_solid_are_blocked_by_embree(seed):
    rng = np.random.default_rng(seed)
    mesh = building(parapet=8.0) if seed % 2 else wall(160.0, 8.0, 70.0, windows=[(0, 30, 20, 50)])
    v = _turned(mesh.vertices, rng.uniform(0, 360), rng.uniform(-500, 500, 3))
    f = np.asarray(mesh.faces)
    pieces = ConvexSolids.from_scenery(v, f, np.zeros(len(f)))
    assert len(pieces) > 1 and (pieces.parent == 0).all()
    lo, hi = v.min(axis=0) - 20.0, v.max(axis=0) + 20.0
    p, q = rng.uniform(lo, hi, (6000, 3)), rng.uniform(lo, hi, (6000, 3))
    # eyes outside the solid (the guard of ConvexSolids.near), ends anywhere
    outside = winding_numbers(v, f, p) < 0.5
    p, q = p[outside], q[outside]
    eps = PROOF_CLEARANCE_MM
    pl, off = pieces.planes, pieces.off
    settled = np.array([segment_blocked(pl, off, *ab, eps, eps) for ab in zip(p, q, strict=True)])
    hit = RayEngine(v, f).occluded_segments(p, q)
    assert 0.1 * len(p) < settled.sum() < hit.sum()
    assert not (settled & ~hit).any(), (p[settled & ~hit][:2], q[settled & ~hit][:2])


def test_near_leaves_out_the_boxes_of_a_solid_a_trooper_is_in():
    mesh = wall(200.0, 10.0, 60.0, windows=[(0, 30, 20, 45)])  # x -100..100, y -5..5
    v, f = np.asarray(mesh.vertices), np.asarray(mesh.faces)
    block_v = v + (0.0, 100.0, 0.0)  # a second wall, y 95..105
    pieces = ConvexSolids.from_scenery(
        np.concatenate([v, block_v]), np.concatenate([f, f + len(v)]),
        np.repeat([0, 1], len(f)),
    )  # fmt: skip
    assert set(pieces.parent.tolist()) == {0, 1}
    far = Cylinder((0.0, -150.0, 0.0), 12.5, 40.0)
    beyond = Cylinder((0.0, 200.0, 0.0), 12.5, 40.0)
    assert set(pieces.near(far, beyond).parent.tolist()) == {0, 1}
    # a trooper 3 mm into the first wall (its base centre at y -14.5): that wall's boxes
    # are all out, the second's stay
    inside = Cylinder((50.0, -14.5, 0.0), 12.5, 40.0)
    assert set(pieces.near(inside, beyond).parent.tolist()) == {1}
    assert set(pieces.near(beyond, inside).parent.tolist()) == {1}
    # touching it (its eyes 10 um inside its mantle): within the clearance, out too
    touching = Cylinder((50.0, -17.5, 0.0), 12.5, 40.0)
    assert set(pieces.near(touching, beyond).parent.tolist()) == {1}
    # 0.5 mm off: kept
    clear = Cylinder((50.0, -18.0, 0.0), 12.5, 40.0)
    assert set(pieces.near(clear, beyond).parent.tolist()) == {0, 1}
    # standing on the wall's top (z 60): its eyes 0.5 mm up, so the wall is kept
    on_top = Cylinder((-70.0, 0.0, 60.0), 12.5, 40.0)
    assert set(pieces.near(on_top, beyond).parent.tolist()) == {0, 1}


def _no_pieces(monkeypatch):
    monkeypatch.setattr(Scene, "convex_solids", property(lambda self: NO_SOLIDS))


def _matrix(troopers, scenery, **extra):
    scene = make_scene(troopers, scenery, table=TABLE, **extra)
    scene.visibility_cache.clear()
    stats = VisibilityStats()
    out = lof_answers(lof.lof_matrix(scene, threads=1, stats=stats))
    return out, stats, scene.convex_solids


def _scenery(tmp_path, yaw_deg):
    """A two-storey building with doors, windows and a parapet at (200, 200), a wall
    with two windows and a ribbed container, all turned by ``yaw_deg``."""
    b, c = building(parapet=8.0), container()
    w = wall(160, 8, 70, windows=[(-40, 30, 20, 50), (40, 30, 20, 50)])
    return [
        {"id": "house", "mesh": _write_obj(tmp_path / "b.obj", b.vertices, b.faces),
         "position": [200, 200], "rotation_deg": yaw_deg},
        {"id": "wall", "mesh": _write_obj(tmp_path / "w.obj", w.vertices, w.faces),
         "position": [200, 50], "rotation_deg": yaw_deg},
        {"id": "box", "mesh": _write_obj(tmp_path / "c.obj", c.vertices, c.faces),
         "position": [70, 330], "rotation_deg": 90 + yaw_deg},
    ]  # fmt: skip


def _troopers(yaw_deg):
    """Troopers on the roof, inside the ground storey, in the front door, against the
    building's wall, 1 mm off it, 2 mm into it, behind the wall and round the table."""
    a = math.radians(yaw_deg)
    c, s = math.cos(a), math.sin(a)

    def at(x, y, z=None):
        p = [200 + c * x - s * y, 200 + s * x + c * y]
        return p if z is None else [*p, z]

    return [
        trooper("roof", at(30, 20), side="red", silhouette=5),
        trooper("inside", at(-40, 0, 4.0), side="red"),
        trooper("door", at(0, -75 + 2.0, 4.0), side="red", silhouette=1),
        trooper("against", at(100 + 12.5, 30), facing_deg=yaw_deg),
        trooper("off", at(100 + 12.5 + 1.0, -40), side="red", facing_deg=yaw_deg),
        trooper("into", at(-100 - 12.5 + 2.0, -30), facing_deg=yaw_deg + 180),
        trooper("south", [200, 15], side="blue"),
        trooper("west", [30, 180], side="blue"),
        trooper("north", [230, 370], side="blue", silhouette=3),
        trooper("east", [370, 120], side="red", silhouette=5),
    ]


@pytest.mark.parametrize("yaw_deg", [0.0, 23.0])
def test_matrices_on_buildings_are_the_same_with_their_boxes_and_without(
    monkeypatch, tmp_path, yaw_deg
):
    scenery, ts = _scenery(tmp_path, yaw_deg), _troopers(yaw_deg)
    got, stats, pieces = _matrix(ts, scenery)
    assert len(pieces) > 10 and set(pieces.parent.tolist()) == {0, 1, 2}
    scene = make_scene(ts, scenery, table=TABLE)
    south = scene.troopers["south"].cylinder
    kept = {
        t: set(pieces.near(x.cylinder, south).parent.tolist()) for t, x in scene.troopers.items()
    }
    # the house's boxes (0) serve the pairs whose eyes are outside its solid: on the
    # roof, inside, in the doorway, 1 mm off a wall; not those touching or in a wall
    assert all(0 in kept[t] for t in ("roof", "inside", "door", "off"))
    assert 0 not in kept["against"] and 0 not in kept["into"] and 1 in kept["into"]
    _no_pieces(monkeypatch)
    want, plain, none = _matrix(ts, scenery)
    assert len(none) == 0 and plain.pairs_convex == plain.outlined == 0
    assert got == want
    seen = {(a[0], a[1]): a[4] for a in got}
    assert any(seen.values()) and not all(seen.values())
    assert stats.outlined + stats.pairs_convex + stats.eyes_proved > 0
    assert stats.cast < plain.cast


def test_an_exposure_map_round_a_building_is_the_same_with_its_boxes(monkeypatch, tmp_path):
    ts = [trooper("o", [40, 40], side="red"), trooper("p", [360, 300], side="red", silhouette=3)]
    scenery = _scenery(tmp_path, 10.0)
    scene = make_scene(ts, scenery, table=TABLE)
    on = run_exposure(scene, observers="red", spacing_mm=25, workers=1)
    _no_pieces(monkeypatch)
    scene = make_scene(ts, scenery, table=TABLE)
    off = run_exposure(scene, observers="red", spacing_mm=25, workers=1)
    assert on.seen.tolist() == off.seen.tolist()
    assert on.seen.any() and not on.seen.all()
    assert on.counters["cast"] < off.counters["cast"]
