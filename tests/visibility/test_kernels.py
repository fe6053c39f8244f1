"""The compiled kernels agree with the numpy reference implementations."""

from __future__ import annotations

import numpy as np

from geom3d._kernels import (
    STATUS_BLOCKED,
    STATUS_MISS,
    STATUS_SCENERY,
    cast_view_rays,
    prepare_segments,
)
from geom3d.bodies import Cylinder, ray_cylinder_entry, segments_hit_cylinder


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
