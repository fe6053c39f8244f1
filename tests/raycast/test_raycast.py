"""Segment queries against hand-computed boxes, and rigid-motion invariance of hits."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from geom3d.core.errors import InputError, ShapeError
from geom3d.core.tolerances import RAY_EPS_MM
from geom3d.mesh import box_mesh
from geom3d.raycast import (
    BACKENDS,
    DEFAULT_BACKEND,
    RayBackend,
    RayEngine,
    backend_class,
    make_engine,
)


@pytest.fixture(scope="module")
def cube():
    """A 10 mm cube on the table: x, y in [-5, 5], z in [0, 10]."""
    v, f = box_mesh([10, 10, 10])
    return RayEngine(v, f)


def test_segment_through_the_box_is_blocked(cube):
    assert cube.occluded([[-20, 0, 5]], [[20, 0, 5]]).tolist() == [True]


def test_segment_stopping_short_of_the_box_is_clear(cube):
    # ends 1 mm before the face at x = -5: a hit beyond the segment end does not count
    assert cube.occluded([[-20, 0, 5]], [[-6, 0, 5]]).tolist() == [False]


def test_segment_ending_on_the_surface_is_clear(cube):
    assert cube.occluded([[-20, 0, 5]], [[-5, 0, 5]]).tolist() == [False]


def test_segment_starting_on_the_surface_and_leaving_is_clear(cube):
    # from the top face straight up, and from the side face outwards
    o = [[0, 0, 10], [5, 0, 5], [1, 1, 10]]
    e = [[0, 0, 50], [50, 0, 5], [40, 40, 60]]
    assert cube.occluded(o, e).tolist() == [False, False, False]


def test_segment_starting_on_the_surface_and_passing_through_is_blocked(cube):
    # the start face is skipped; the bottom face at z = 0 is not
    assert cube.occluded([[0, 0, 10]], [[0, 0, -5]]).tolist() == [True]


def test_grazing_above_the_top_face(cube):
    # 0.01 mm above the top face: clear; 0.01 mm below it: blocked
    assert cube.occluded([[-20, 0, 10.01]], [[20, 0, 10.01]]).tolist() == [False]
    assert cube.occluded([[-20, 0, 9.99]], [[20, 0, 9.99]]).tolist() == [True]


def test_grazing_past_a_side(cube):
    assert cube.occluded([[-20, 5.01, 5]], [[20, 5.01, 5]]).tolist() == [False]
    assert cube.occluded([[-20, 4.99, 5]], [[20, 4.99, 5]]).tolist() == [True]


def test_first_hit_distance_and_triangle(cube):
    dist, tri = cube.first_hit([[-20, 0, 5], [-20, 0, 20]], [[20, 0, 5], [20, 0, 20]])
    assert dist[0] == pytest.approx(15.0, abs=1e-3)
    assert tri[0] >= 0 and tri[1] == -1 and np.isinf(dist[1])


def test_zero_length_and_tiny_segments_are_clear(cube):
    p = [[0, 0, 5]]
    assert cube.occluded(p, p).tolist() == [False]
    q = [[0, 0, 5 + RAY_EPS_MM]]
    assert cube.occluded(p, q).tolist() == [False]


def test_empty_mesh_blocks_nothing():
    eng = RayEngine(np.zeros((0, 3)), np.zeros((0, 3), dtype=int))
    assert eng.occluded([[0, 0, 0]], [[1, 1, 1]]).tolist() == [False]
    assert eng.first_hit([[0, 0, 0]], [[1, 1, 1]])[1].tolist() == [-1]


def test_trusted_path_agrees_with_the_validated_one(cube):
    rng = np.random.default_rng(5)
    o = rng.uniform([-20, -20, -5], [20, 20, 15], size=(300, 3))
    e = rng.uniform([-20, -20, -5], [20, 20, 15], size=(300, 3))
    ref = cube.occluded(o, e)
    assert 0 < ref.sum() < len(ref)
    assert np.array_equal(cube.occluded_segments(o, e), ref)


def test_every_registered_backend_implements_the_interface():
    assert RayEngine is backend_class(DEFAULT_BACKEND)
    v, f = box_mesh([10, 10, 10])
    for name in BACKENDS:
        cls = backend_class(name)
        eng = make_engine(v, f, name)
        assert isinstance(eng, cls) and isinstance(eng, RayBackend)
        assert eng.n_triangles == 12
        assert np.allclose(eng.bounds, [[-5, -5, 0], [5, 5, 10]])
        o, e = [[-20, 0, 5], [-20, 0, 20]], [[20, 0, 5], [20, 0, 20]]
        assert eng.occluded(o, e).tolist() == [True, False]
        assert eng.occluded_segments(np.array(o, float), np.array(e, float)).tolist() == [
            True,
            False,
        ]
        dist, tri = eng.first_hit(o, e)
        assert dist[0] == pytest.approx(15.0, abs=1e-3) and tri[1] == -1


def test_unknown_backend_is_an_input_error():
    with pytest.raises(InputError, match="unknown ray backend 'nope'"):
        make_engine(np.zeros((0, 3)), np.zeros((0, 3), dtype=int), "nope")


def test_batches_are_counted(cube):
    before = cube.rays_cast
    cube.occluded(np.zeros((7, 3)) + [-20, 0, 5], np.zeros((7, 3)) + [20, 0, 5])
    assert cube.rays_cast - before == 7


def test_argument_errors(cube):
    with pytest.raises(ShapeError, match=r"^origins has shape \(3,\), expected \(n, 3\)$"):
        cube.occluded([1, 2, 3], [[1, 2, 3]])
    with pytest.raises(InputError, match=r"^origins has 2 points but ends has 1$"):
        cube.occluded([[0, 0, 0], [1, 1, 1]], [[1, 2, 3]])
    with pytest.raises(InputError, match=r"^ends contains NaN or infinite values$"):
        cube.occluded([[0, 0, 0]], [[np.nan, 0, 0]])
    with pytest.raises(ShapeError, match=r"^faces has shape \(2,\), expected \(m, 3\)$"):
        RayEngine(np.zeros((3, 3)), [0, 1])
    with pytest.raises(InputError, match=r"^faces indexes vertices outside 0\.\.2$"):
        RayEngine(np.zeros((3, 3)), [[0, 1, 3]])


def _rot(yaw_deg):
    a = np.radians(yaw_deg)
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


@settings(max_examples=30, deadline=None, derandomize=True)
@given(
    st.floats(0, 360),
    st.floats(-800, 800),
    st.floats(-800, 800),
    st.floats(-50, 50),
)
def test_rigid_motion_moves_hit_points_with_the_scene(yaw, dx, dy, dz):
    rng = np.random.default_rng(7)
    v, f = box_mesh([40, 20, 30])
    v2, f2 = box_mesh([15, 15, 60])
    verts = np.concatenate([v, v2 + [60, 30, 0]])
    faces = np.concatenate([f, f2 + len(v)])
    o = rng.uniform([-100, -100, 0], [150, 150, 80], size=(200, 3))
    e = rng.uniform([-100, -100, 0], [150, 150, 80], size=(200, 3))
    base = RayEngine(verts, faces)
    d0, t0 = base.first_hit(o, e)
    R, off = _rot(yaw), np.array([dx, dy, dz])
    moved = RayEngine(verts @ R.T + off, faces)
    d1, t1 = moved.first_hit(o @ R.T + off, e @ R.T + off)
    hit = np.isfinite(d0)
    # borderline rays (grazing an edge within float32 rounding) may flip; none here
    assert np.array_equal(hit, np.isfinite(d1))
    assert np.allclose(d0[hit], d1[hit], atol=1e-3)
    p0 = o + (e - o) / np.linalg.norm(e - o, axis=1)[:, None] * np.where(hit, d0, 0)[:, None]
    p1 = (o @ R.T + off) + ((e - o) @ R.T) / np.linalg.norm(e - o, axis=1)[:, None] * np.where(
        hit, d1, 0
    )[:, None]
    assert np.allclose((p0 @ R.T + off)[hit], p1[hit], atol=2e-3)
    assert np.array_equal(t0[hit], t1[hit])
