"""Ground profiles (geom3d.visibility.ground) change the cost of Line of Fire, never its
answers. On seeded rolling heightfield tables (the top of a solid, as ``solid: auto``
closes them): a profile lies under the true ground and close to it; every segment it
settles, and every segment of an eye it skips, Embree finds blocked; and a matrix with
boxes and troopers on the hills is the same with profiles and without, while the
counters show the profiles did the work."""

from __future__ import annotations

import math

import numba
import numpy as np
import pytest
import trimesh
from support import box, lof_answers, make_scene, trooper

import geom3d.visibility.ground as ground_mod
from geom3d.adjudication import lof
from geom3d.bodies.cylinder import Cylinder
from geom3d.bodies.kernel_constants import PROOF_CLEARANCE_MM
from geom3d.visibility import VisibilityStats, eye_points, warm_kernels
from geom3d.visibility._ground_kernels import ground_profile
from geom3d.visibility.ground import NO_GROUND, GroundBlocks
from geom3d.visibility.proof import Prover
from geom3d.visibility.tolerances import GROUND_BLOCK_COLUMNS, GROUND_SLAB_MM

SIZE = 300.0


def _heights(x, y, seed, amp=1.0):
    """A rolling surface (mm): hills up to about ``12 amp`` mm, slopes up to ``0.3 amp``."""
    if seed < 0:  # one straight ridge along y at x = 150, 10 mm high, slope 0.1
        return np.maximum(0.0, 10.0 - 0.1 * np.abs(x - 150.0))
    rng = np.random.default_rng(seed)
    p = rng.uniform(0, 2 * math.pi, 3)
    w = rng.uniform(90, 200, 3)
    return amp * (
        5.0 * np.sin(2 * math.pi * x / w[0] + p[0]) * np.cos(2 * math.pi * y / w[1] + p[1])
        + 4.0 * np.sin(2 * math.pi * (x + y) / w[2] + p[2])
        + 3.0
    )


def _table(tmp_path, seed, n=121, amp=1.0):
    """A heightfield table mesh (``n`` x ``n`` vertices over 300 x 300 mm) as an STL."""
    xs = np.linspace(0.0, SIZE, n)
    gx, gy = np.meshgrid(xs, xs, indexing="xy")
    v = np.column_stack([gx.ravel(), gy.ravel(), _heights(gx, gy, seed, amp).ravel()])
    i = np.arange(n - 1)
    a = (i[None, :] + n * i[:, None]).ravel()
    f = np.vstack([np.column_stack([a, a + 1, a + n + 1]), np.column_stack([a, a + n + 1, a + n])])
    path = tmp_path / f"hills_{seed}_{amp}.stl"
    trimesh.Trimesh(v, f, process=False).export(path)
    return {"size": [SIZE, SIZE], "mesh": str(path), "mesh_units": "mm", "solid": "auto"}


def _horizon(profile, e):
    """The largest slope from eye ``e`` to a hull point (numpy, apart from the kernel)."""
    ox, oy, dx, dy = profile.frame
    x = (e[0] - ox) * dx + (e[1] - oy) * dy
    return float(np.max((profile.hull[:, 1] - e[2]) / (profile.hull[:, 0] - x)))


def _target_points(rng, cyl: Cylinder, n):
    """(n, 3) points of the cylinder's surface: the mantle, the top and the base."""
    b = cyl.base_array
    ang = rng.uniform(0, 2 * math.pi, n)
    rad = np.where(rng.random(n) < 0.6, cyl.radius, cyl.radius * np.sqrt(rng.random(n)))
    z = np.where(rad == cyl.radius, rng.uniform(0, cyl.height, n), 0.0)
    z = np.where((rad < cyl.radius) & (rng.random(n) < 0.7), cyl.height, z)
    return np.column_stack([b[0] + rad * np.cos(ang), b[1] + rad * np.sin(ang), b[2] + z])


# --------------------------------------------------------------------------------------
# the profile itself
# --------------------------------------------------------------------------------------


def test_a_ridge_profile_lies_under_the_ridge_and_within_a_block_of_it(tmp_path):
    # ridge z = 10 - 0.1 |x - 150|; troopers at x 60 and 240 on the ground (z 1): along
    # the line the band is 25 mm wide, flat across, so a slab's height is the ridge's
    # lowest point over the blocks (4 mm) within a half diagonal of it
    a = trooper("a", [60, 150])
    b = trooper("b", [240, 150], side="red")
    scene = make_scene([a, b], table=_table(tmp_path, -1))
    ta, tb = scene.trooper("a").cylinder, scene.trooper("b").cylinder
    prof = scene.prover.ground(ta, tb)
    assert prof
    ox, oy, dx, dy = prof.frame
    assert (ox, oy) == (60.0, 150.0) and (dx, dy) == (1.0, 0.0)
    x, z = prof.hull[:, 0], prof.hull[:, 1]
    assert np.all(np.diff(x) > 0)
    assert x[0] >= ta.radius + PROOF_CLEARANCE_MM - 1e-9
    assert x[-1] <= 180.0 - tb.radius - PROOF_CLEARANCE_MM + 1e-9
    # under the ground where the segments pass (the mesh is the ridge exactly: its
    # vertices, 2.5 mm apart, include the crest)
    ground = _heights(60.0 + x, 0.0, -1)
    assert np.all(z <= ground - PROOF_CLEARANCE_MM)
    # and close to it: the crest's slab loses at most a block and a half diagonal (8 mm,
    # 5.7 mm) and a slab of the 0.1 slope
    side = GROUND_BLOCK_COLUMNS * 1.0
    crest = z.max()
    assert 10.0 - 0.1 * (side + 0.71 * side + GROUND_SLAB_MM) - 0.05 <= crest < 10.0
    assert abs(x[np.argmax(z)] - 90.0) <= side + 0.71 * side + GROUND_SLAB_MM


def test_no_profile_where_the_ground_cannot_block_or_nothing_vouches_for_it(tmp_path):
    scene = make_scene(
        [trooper("a", [60, 150]), trooper("b", [75, 150], side="red")],
        table=_table(tmp_path, -1),
    )
    pr = scene.prover
    a, b = scene.trooper("a").cylinder, scene.trooper("b").cylinder
    assert not pr.ground(a, b)  # bases 15 mm apart: no room for a slab
    far = Cylinder((-400.0, 150.0, 0.0), 12.5, 30.0)
    assert not pr.ground(a, far)  # the corridor leaves the map
    # a flat table: the ground is nowhere above the bases, so nothing to settle
    flat = make_scene([trooper("a", [60, 150]), trooper("b", [240, 150], side="red")])
    fa, fb = flat.trooper("a").cylinder, flat.trooper("b").cylinder
    assert not flat.prover.ground(fa, fb)
    assert not NO_GROUND and len(NO_GROUND.hidden(np.zeros((3, 3)), fb)) == 3


def test_blocks_vouch_for_their_columns_only(tmp_path):
    scene = make_scene([trooper("a", [60, 150])], table=_table(tmp_path, 3))
    im = scene.prover.interior
    blocks = GroundBlocks.from_map(im, 4)
    g, nx, ny = (float(v) for v in im.grid[2:5])
    nx, ny = int(nx), int(ny)
    mx, my = int(blocks.grid[3]), int(blocks.grid[4])
    assert (mx, my) == (-(-nx // 4), -(-ny // 4)) and blocks.grid[2] == 4 * g
    # every column's bottom run holds (low, top) of its block (numpy, column by column)
    off = im.run_off
    has = off[1:] > off[:-1]
    col_top = np.where(has, im.run_hi[np.minimum(off[:-1], len(im.run_hi) - 1)], -np.inf)
    col_low = np.where(has, im.run_lo[np.minimum(off[:-1], len(im.run_lo) - 1)], np.inf)
    i, j = np.divmod(np.arange(nx * ny), ny)
    q = (i // 4) * my + j // 4
    finite = np.isfinite(blocks.top[q])
    assert finite.mean() > 0.5
    assert np.all(blocks.top[q][finite] <= col_top[finite])
    assert np.all(blocks.low[q][finite] >= col_low[finite])
    # a block reaching past the map vouches for nothing
    edge = np.zeros((mx, my), bool)
    if nx % 4:
        edge[-1, :] = True
    if ny % 4:
        edge[:, -1] = True
    assert np.all(blocks.top.reshape(mx, my)[edge] == -np.inf)


# --------------------------------------------------------------------------------------
# what a profile settles, Embree finds blocked
# --------------------------------------------------------------------------------------


# seeds whose troopers have hills between them (on others the profiles settle little)
@pytest.mark.parametrize("seed", [0, 1, 2, 3, 5, 8, 9, 11, 12, 14, 15])
def test_segments_and_eyes_the_ground_settles_are_blocked_by_embree(tmp_path, seed):
    rng = np.random.default_rng(100 + seed)
    spots, people = [], []
    while len(people) < 8:
        p = rng.uniform(30, 270, 2)
        if all(np.hypot(*(p - s)) > 40 for s in spots):
            spots.append(p)
            sil = int(rng.choice([1, 2, 3]))
            people.append(trooper(f"t{len(people)}", list(p), silhouette=sil))
    scene = make_scene(people, table=_table(tmp_path, seed, amp=2.5))
    prover, engine = scene.prover, scene.engine
    settled = hidden = checked = 0
    ids = list(scene.troopers)
    for x in ids:
        for y in ids:
            if x == y:
                continue
            a, b = scene.trooper(x).cylinder, scene.trooper(y).cylinder
            prof = prover.ground(a, b)
            if not prof:
                continue
            eyes = eye_points(a, b)
            q = _target_points(rng, b, len(eyes) * 8)
            e = np.repeat(eyes, 8, axis=0)
            dx, dy = prof.frame[2:]
            along = (q[:, 0] - e[:, 0]) * dx + (q[:, 1] - e[:, 1]) * dy
            slope = np.array([_horizon(prof, p) for p in eyes]).repeat(8)
            under = (along > 0) & (q[:, 2] - e[:, 2] < slope * along)
            checked += len(e)
            settled += int(under.sum())
            if under.any():
                assert engine.occluded_segments(e[under], q[under]).all(), (x, y)
            skip = prof.hidden(eyes, b)
            if skip.any():
                hidden += int(skip.sum())
                ee = np.repeat(eyes[skip], 30, axis=0)
                qq = _target_points(rng, b, len(ee))
                assert engine.occluded_segments(ee, qq).all(), (x, y)
    # the hills stand between some of them: the profiles did settle segments and eyes
    assert settled > 0.03 * checked and hidden > 0


# --------------------------------------------------------------------------------------
# whole matrices: the same with and without profiles
# --------------------------------------------------------------------------------------


def _matrix(people, scenery, table, threads=1):
    scene = make_scene(people, scenery, table=table)
    stats = VisibilityStats()
    return lof_answers(lof.lof_matrix(scene, threads=threads, stats=stats)), stats


def _hilly(tmp_path, seed):
    """Nine troopers and three boxes on seeded hills (up to about 30 mm)."""
    rng = np.random.default_rng(200 + seed)
    table = _table(tmp_path, seed, amp=2.5)
    scenery = [
        box(f"b{k}", [*rng.uniform(10, 40, 2), rng.uniform(8, 40)], list(rng.uniform(40, 260, 2)),
            float(rng.uniform(0, 90)))
        for k in range(3)
    ]  # fmt: skip
    spots, people = [], []
    while len(people) < 9:
        p = rng.uniform(25, 275, 2)
        clear = all(np.hypot(*(p - np.array(s["position"]))) > 45 for s in scenery)
        if clear and all(np.hypot(*(p - s)) > 35 for s in spots):
            spots.append(p)
            side = ("blue", "red")[len(people) % 2]
            sil = int(rng.choice([1, 2, 5]))
            people.append(trooper(f"t{len(people)}", list(p), side=side, silhouette=sil))
    return people, scenery, table


# seeds with blocked and visible pairs and rays under the hills (of 0-9; all ten gave the
# same answers with and without profiles)
@pytest.mark.parametrize("seed", [1, 3, 4, 5, 9])
def test_matrices_are_the_same_with_and_without_profiles(monkeypatch, tmp_path, seed):
    people, scenery, table = _hilly(tmp_path, seed)
    got, _ = _matrix(people, scenery, table)
    assert _matrix(people, scenery, table, threads=2)[0] == got
    seen = [a[4] for a in got]
    assert any(seen) and not all(seen)
    # the bundle proofs settle much of what the profiles would: without them, the
    # profiles' own work shows in the counters
    monkeypatch.setattr(Prover, "pair", lambda self, *a, **k: None)
    alone, stats = _matrix(people, scenery, table)
    monkeypatch.setattr(Prover, "ground", lambda self, a, b: NO_GROUND)
    want, plain = _matrix(people, scenery, table)
    assert got == alone == want
    assert stats.proved > plain.proved and stats.eyes_proved >= plain.eyes_proved


def test_the_warm_up_loads_the_profile_kernels_with_a_real_matrix_types(monkeypatch, tmp_path):
    names = ("ground_blocks", "ground_profile", "ground_hidden")
    seen: dict[str, set] = {n: set() for n in names}
    for name in names:
        real = getattr(ground_mod, name)

        def spy(*args, _real=real, _name=name):
            seen[_name].add(tuple(numba.typeof(x) for x in args))
            return _real(*args)

        monkeypatch.setattr(ground_mod, name, spy)
    warm_kernels()
    warmed = {k: set(v) for k, v in seen.items()}
    assert all(warmed.values())
    for v in seen.values():
        v.clear()
    monkeypatch.setattr(Prover, "pair", lambda self, *a, **k: None)  # leave it to the ground
    _matrix(*_hilly(tmp_path, 1))
    assert all(seen.values())
    for name, sigs in seen.items():
        assert sigs <= warmed[name], (name, sigs - warmed[name])


def test_profiles_are_drawn_from_the_viewers_axis_to_the_targets():
    # a kernel call on a hand-made map: one 4 mm block per 4 x 4 columns, all at 5 mm
    top = np.full(100 * 100, 5.0)
    low = np.full(100 * 100, -50.0)
    grid = np.array([0.0, 0.0, 4.0, 100.0, 100.0])
    a = np.array([100.0, 200.0, 0.0, 12.5, 30.0])
    b = np.array([300.0, 200.0, 0.0, 10.0, 30.0])
    frame, hull = ground_profile(top, low, grid, a, b, 2.0, 0.01, 1e-4)
    assert frame.tolist() == [100.0, 200.0, 1.0, 0.0]
    # flat 5 mm ground: the hull is its two ends, 0.01 below
    assert hull.tolist() == [[12.51, 4.99], [200.0 - 10.0 - 1e-4 - 0.01, 4.99]]
    # a block with no run (a hole) leaves the slabs around it out, not the rest
    top[(200 // 4) * 100 + 200 // 4] = -np.inf
    _, hull = ground_profile(top, low, grid, a, b, 2.0, 0.01, 1e-4)
    assert len(hull) == 2 and hull[0, 0] == 12.51
    # a run starting above a base is no ground under it
    low[:] = 1.0
    _, hull = ground_profile(top, low, grid, a, b, 2.0, 0.01, 1e-4)
    assert len(hull) == 0
