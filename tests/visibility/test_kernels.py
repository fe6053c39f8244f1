"""The compiled kernels agree with the numpy reference implementations."""

from __future__ import annotations

import numpy as np

from geom3d.bodies.cylinder import Cylinder, ray_cylinder_entry, segments_hit_cylinder
from geom3d.bodies.kernels import (
    STATUS_BLOCKED,
    STATUS_MISS,
    STATUS_SCENERY,
    cast_view_rays,
    prepare_segments,
)


def test_cast_view_rays_matches_numpy_reference():
    rng = np.random.default_rng(11)
    target = Cylinder((100.0, 20.0, 5.0), 12.5, 40.0)
    occ = [Cylinder((50.0, 10.0, 0.0), 10.0, 30.0), Cylinder((60.0, 30.0, 10.0), 8.0, 50.0)]
    eyes = rng.uniform([-20, -20, 0], [10, 50, 60], size=(16, 3))
    u = np.zeros_like(eyes)
    v = np.zeros_like(eyes)
    c = target.center
    for i, e in enumerate(eyes):
        w = (c - e) / np.linalg.norm(c - e)
        uu = np.cross(w, [0, 0, 1.0])
        u[i] = uu / np.linalg.norm(uu)
        v[i] = np.cross(u[i], w)
    k = 4000
    idx = rng.integers(0, len(eyes), k)
    s = rng.uniform(-30, 30, k)
    t = rng.uniform(-40, 40, k)
    occ_arr = np.array([[*o.base, o.radius, o.height] for o in occ])
    pts, status, scenery, origins, ends = cast_view_rays(
        eyes, u, v, c, idx, s, t, np.array([*target.base, target.radius, target.height]), occ_arr
    )
    e = eyes[idx]
    p = c + s[:, None] * u[idx] + t[:, None] * v[idx]
    th = ray_cylinder_entry(e, p - e, target)
    hit = np.isfinite(th)
    assert np.array_equal(hit, status != STATUS_MISS)
    ref = e + np.where(hit, th, 0)[:, None] * (p - e)
    assert np.allclose(pts[hit], ref[hit], atol=1e-9)
    blocked = np.zeros(k, dtype=bool)
    for o in occ:
        blocked[hit] |= segments_hit_cylinder(e[hit], ref[hit], o)
    assert np.array_equal(blocked, status == STATUS_BLOCKED)
    assert 0 < blocked.sum() < hit.sum() < k  # the sample exercises every branch
    assert np.array_equal(hit & ~blocked, status == STATUS_SCENERY)
    assert np.array_equal(scenery, np.flatnonzero(status == STATUS_SCENERY))
    assert np.array_equal(origins, e[scenery]) and np.array_equal(ends, pts[scenery])


def test_prepare_segments_shortens_both_ends_and_drops_tiny_segments():
    o = np.array([[0.0, 0.0, 0.0], [1.0, 1.0, 1.0], [5.0, 0.0, 0.0]])
    e = np.array([[10.0, 0.0, 0.0], [1.0, 1.0, 1.0 + 1e-3], [5.0, 0.0, 4.0]])
    offset = np.array([1.0, 2.0, 3.0])
    idx, start, unit, dist = prepare_segments(o, e, offset, 1e-3)
    assert idx.tolist() == [0, 2]  # the 1e-3 mm segment is dropped (clear)
    assert start.dtype == unit.dtype == dist.dtype == np.float32
    assert np.allclose(start, [[-1 + 1e-3, -2, -3], [4, -2, -3 + 1e-3]], atol=1e-6)
    assert np.allclose(unit, [[1, 0, 0], [0, 0, 1]])
    assert np.allclose(dist, [10 - 2e-3, 4 - 2e-3], atol=1e-6)


def test_hot_loops_are_compiled_without_reference_counting():
    # numba counts references to every array argument of a call with atomic instructions;
    # in Line of Fire's ray loop that cost more than Embree. The per-ray, per-column and
    # per-plane loops are leaves (njit_leaf): no runtime, so no counting, and any
    # allocation in them fails to compile instead of slowing them down again.
    from geom3d.visibility import _proof_hull, _proof_kernels
    from geom3d.visibility._cast_kernels import _clear_loop, clear_to_target

    leaves = [
        _clear_loop,
        _proof_kernels._prove,
        _proof_kernels._plane_holds,
        _proof_kernels._center_margin,
        _proof_kernels._holds_at,
        _proof_kernels._run_holds,
        _proof_kernels._occ_holds,
        _proof_hull._hull,
        _proof_hull._crossings,
        _proof_hull._corners,
        _proof_hull._slab_z,
    ]
    assert all(k.targetoptions.get("_nrt") is False for k in leaves)
    # the caller allocates the loop's buffers, so it keeps the runtime
    assert clear_to_target.targetoptions.get("_nrt", True) is True


def test_per_ray_helpers_are_leaves_inlined_by_llvm_not_by_numba():
    # the ray loop's helpers are calls that LLVM inlines into the machine code
    # (forceinline): numba-level inlining typed each one again in every caller (issue 31,
    # first run); and, were they not leaves, each call would count references again
    from geom3d.bodies import kernels
    from geom3d.raycast import _embree_kernels
    from geom3d.visibility import _cast_kernels, _leaf_kernels

    helpers = [
        kernels.view_ray,
        kernels.cylinder_interval,
        _leaf_kernels.eye_leaves,
        _leaf_kernels.settled_from,
        _leaf_kernels.proven_leaves,
        _embree_kernels.packet_ray,
        _embree_kernels.packet_cast,
        _cast_kernels._cast,
    ]
    assert all(k.targetoptions.get("_nrt") is False for k in helpers)
    assert all(k.targetoptions.get("inline", "never") == "never" for k in helpers)
    assert all(k.targetoptions.get("forceinline") is True for k in helpers)


def test_a_constant_argument_compiles_no_specialisation_of_its_own():
    # numba types a constant argument of a call between kernels as a literal (0, 1, True)
    # and would compile the callee once per constant; geom3d's njit compiles it once,
    # for the plain types, with the same values
    from geom3d.bodies.kernels import njit

    @njit
    def scaled(x, k, flag):
        return x * k if flag else -x

    @njit
    def caller(x):
        return scaled(x, 2, True) + scaled(x, 3, False) + scaled(x, x, True)

    assert caller(5) == 10 - 5 + 25
    assert [tuple(str(t) for t in sig) for sig in scaled.signatures] == [("int64", "int64", "bool")]


def test_a_coarse_lattice_cast_in_place_answers_as_its_rays_given_one_by_one():
    # clear_on_grid walks coarse_grid's lattice itself: the same rays, in the same order,
    # with the same answers and counters, behind a wall and a trooper, from many eyes
    from geom3d.bodies.kernels import view_frames
    from geom3d.raycast import RayEngine
    from geom3d.visibility import VisibilityStats, eye_points
    from geom3d.visibility._cast_kernels import clear_on_grid, clear_to_target
    from geom3d.visibility._search_kernels import coarse_grid
    from geom3d.visibility.apparent import rim_points
    from geom3d.visibility.cast import ClearToTarget, cylinder_array

    wall = np.array([[60, -30, 0], [64, -30, 0], [64, 5, 0], [60, 5, 0]], float)
    top = wall + [0.0, 0.0, 25.0]
    v = np.vstack([wall, top])
    f = [[0, 2, 1], [0, 3, 2], [4, 5, 6], [4, 6, 7], [0, 1, 5], [0, 5, 4],
         [1, 2, 6], [1, 6, 5], [2, 3, 7], [2, 7, 6], [3, 0, 4], [3, 4, 7]]  # fmt: skip
    engine = RayEngine(v, np.array(f, np.int64))
    viewer = Cylinder((0.0, 0.0, 0.0), 12.5, 40.0)
    target = Cylinder((150.0, 10.0, 0.0), 12.5, 32.0)
    occ = cylinder_array([Cylinder((100.0, 25.0, 0.0), 12.5, 30.0)])
    cast = ClearToTarget(engine, occ, VisibilityStats())
    assert cast.compiled
    eyes = eye_points(viewer, target)
    c = target.center
    u, vv, _, ext = view_frames(eyes, c, rim_points(target))
    row = cylinder_array([target])[0]
    args = cast.compiled_args()
    # the engine's CompiledScene and the (empty) ProofTrees go as plain tuples, the same
    # fields by position: numba types a plain tuple in C, a named one in Python per call
    assert type(args[1]) is tuple and args[1] == tuple(engine.compiled_scene())
    assert type(args[2]) is tuple and len(args[2]) == 7 and len(args[2][0]) == 0
    s0, s1, t0, t1 = ext[0] - 1.0, ext[1] + 1.0, ext[2] - 1.0, ext[3] + 1.0
    ks0, nks, kt0, nkt, eye_idx, s, t = coarse_grid(s0, s1, t0, t1, len(eyes), 4.0)
    want_counts = np.zeros(3, np.int64)
    want, _ = clear_to_target(eyes, u, vv, c, eye_idx, s, t, row, *args, want_counts)
    counts = np.zeros(3, np.int64)
    got = clear_on_grid(eyes, u, vv, c, ks0, nks, kt0, nkt, 4.0, row, *args, counts)
    assert got.tolist() == want.tolist()
    assert counts.tolist() == want_counts.tolist()
    assert 0 < want.sum() < len(want) and counts[1] < counts[0]  # some blocked, some not
    # an empty lattice casts nothing
    none = clear_on_grid(eyes, u, vv, c, ks0, 0, kt0, nkt, 4.0, row, *args, counts)
    assert len(none) == 0
