"""Closed rectilinear meshes as unions of boxes (geom3d.mesh.boxes), checked by hand on
a box and an L, and on buildings with doors and windows turned to any yaw against two
references apart from the decomposition: the mesh's volume (the divergence theorem over
its triangles) and the generalized winding number at random points."""

from __future__ import annotations

import math

import numpy as np
import pytest

import geom3d.mesh.boxes as boxes_module
from geom3d.mesh import box_mesh, prism_mesh
from geom3d.mesh.boxes import rectilinear_boxes
from geom3d.mesh.winding import winding_numbers
from geom3d.terrain.rectilinear import rectilinear
from geom3d.terrain.solids import building, container, wall


def _turned(v, yaw_deg, shift=(0.0, 0.0, 0.0)):
    a = math.radians(yaw_deg)
    c, s = math.cos(a), math.sin(a)
    return v @ np.array([[c, s, 0], [-s, c, 0], [0, 0, 1.0]]) + np.asarray(shift)


def _volume(v, f) -> float:
    tri = np.asarray(v, float)[np.asarray(f)]
    return float(np.einsum("ij,ij->i", tri[:, 0], np.cross(tri[:, 1], tri[:, 2])).sum() / 6.0)


def _in_boxes(got, pts) -> np.ndarray:
    """(n,) bool: points (world) inside one of the boxes."""
    local = pts @ got.rotation()  # world -> frame (R is orthonormal)
    b = got.boxes
    lo, hi = b[None, :, :3], b[None, :, 3:]
    return ((local[:, None, :] > lo) & (local[:, None, :] < hi)).all(axis=2).any(axis=1)


def _union_volume(b: np.ndarray) -> float:
    """The volume of the union of boxes ``b`` ((k, 6) rows), over the grid of their own
    coordinates: a cell is in the union when its centre is in a box."""
    axes = [np.unique(np.concatenate([b[:, a], b[:, a + 3]])) for a in range(3)]
    mids = [0.5 * (x[1:] + x[:-1]) for x in axes]
    sizes = [np.diff(x) for x in axes]
    cx, cy, cz = np.meshgrid(*mids, indexing="ij")
    c = np.stack([cx.ravel(), cy.ravel(), cz.ravel()], axis=1)
    inside = ((c[:, None, :] > b[None, :, :3]) & (c[:, None, :] < b[None, :, 3:])).all(axis=2)
    vol = np.einsum("i,j,k->ijk", *sizes).ravel()
    return float(vol[inside.any(axis=1)].sum())


def test_a_box_is_one_box_its_own_bounds():
    v, f = box_mesh((30.0, 20.0, 10.0))
    got = rectilinear_boxes(v + (5.0, 6.0, 7.0), f)
    assert got is not None and len(got) == 1 and got.yaw_deg == 0.0
    np.testing.assert_allclose(got.boxes[0], [-10, -4, 7, 20, 16, 17])


def test_an_l_is_two_boxes_by_hand():
    # an L in plan: x 0..20, y 0..10 and x 0..10, y 10..20, 5 tall (one closed mesh)
    pts = np.array([[0, 0], [20, 0], [20, 10], [10, 10], [10, 20], [0, 20]], float)
    v, f = prism_mesh(pts, 5.0)
    got = rectilinear_boxes(v, f)
    assert got is not None and len(got) == 2
    # each arm grown as far as the L allows: both hold the corner square
    rows = sorted(tuple(r) for r in got.boxes.tolist())
    assert rows == [(0.0, 0.0, 0.0, 10.0, 20.0, 5.0), (0.0, 0.0, 0.0, 20.0, 10.0, 5.0)]
    assert _union_volume(got.boxes) == 1500.0  # 20 x 10 + 10 x 10, 5 tall
    assert _in_boxes(got, np.array([[15.0, 5.0, 2.5], [5.0, 15.0, 2.5]])).all()
    assert not _in_boxes(got, np.array([[15.0, 15.0, 2.5]])).any()  # the L's notch


@pytest.mark.parametrize("yaw_deg", [0.0, 15.0, 90.0, 137.25, 271.0])
def test_buildings_are_their_boxes_by_volume_and_winding_number(yaw_deg):
    rng = np.random.default_rng(int(yaw_deg * 100))
    for mesh in (building(), building(parapet=8.0), container(), wall(120.0, 6.0, 60.0)):
        v = _turned(np.asarray(mesh.vertices), yaw_deg, (300.0, -40.0, 2.0))
        f = np.asarray(mesh.faces)
        got = rectilinear_boxes(v, f)
        assert got is not None
        assert got.yaw_deg == pytest.approx(yaw_deg % 90.0, abs=1e-6)
        assert _union_volume(got.boxes) == pytest.approx(_volume(v, f), rel=1e-9)
        lo, hi = v.min(axis=0), v.max(axis=0)
        pts = rng.uniform(lo - 2.0, hi + 2.0, (4000, 3))
        w = winding_numbers(v, f, pts)
        sure = np.abs(w - np.round(w)) < 0.05  # (a point within ~1 um of a face is not)
        assert sure.mean() > 0.99
        np.testing.assert_array_equal(_in_boxes(got, pts[sure]), w[sure] > 0.5)
        # the world corners and planes agree: each corner on its box's six planes
        pl, cn = got.planes(), got.corners()
        g = np.einsum("kpi,kci->kpc", pl[:, :, :3], cn) - pl[:, :, 3:]
        assert (g <= 1e-9).all() and (np.abs(g) < 1e-9).sum(axis=1).min() == 3


def test_a_piece_with_a_sloped_or_round_face_is_not_rectilinear():
    v, f = box_mesh((30.0, 20.0, 10.0))
    v = v.copy()
    v[v[:, 2] > 5, 0] += 3.0  # the top pushed sideways: sloped sides
    assert rectilinear_boxes(v, f) is None
    ang = np.radians(np.arange(12) * 30.0)
    round_ = prism_mesh(20 * np.column_stack([np.cos(ang), np.sin(ang)]), 9)
    assert rectilinear_boxes(*round_) is None


def test_two_frames_in_one_piece_are_not_one_grid():
    v1, f1 = box_mesh((30.0, 20.0, 10.0))
    v2, f2 = box_mesh((10.0, 10.0, 10.0))
    v = np.concatenate([v1, _turned(v2, 30.0, (100.0, 0, 0))])
    assert rectilinear_boxes(v, np.concatenate([f1, f2 + len(v1)])) is None


def test_open_and_inside_out_meshes_are_no_boxes():
    v, f = box_mesh((30.0, 20.0, 10.0))
    assert rectilinear_boxes(v, f[:-2]) is None  # a face missing
    assert rectilinear_boxes(v, f[:, ::-1]) is None  # inside out: winding -1


def test_too_many_cells_are_no_boxes(monkeypatch):
    # the L's grid is 2 x 2 x 1 cells
    pts = np.array([[0, 0], [20, 0], [20, 10], [10, 10], [10, 20], [0, 20]], float)
    v, f = prism_mesh(pts, 5.0)
    monkeypatch.setattr(boxes_module, "RECTILINEAR_MAX_CELLS", 3)
    assert rectilinear_boxes(v, f) is None
    monkeypatch.setattr(boxes_module, "RECTILINEAR_MAX_CELLS", 4)
    assert rectilinear_boxes(v, f) is not None


@pytest.mark.parametrize("seed", range(6))
def test_random_unions_of_boxes_less_holes_are_their_boxes(seed):
    """Random unions of boxes less holes (geom3d.terrain.rectilinear makes the closed
    mesh), turned by a random yaw: a random point lies in one of the boxes exactly when
    it lies in one of the solids and in none of the holes (the definition, checked
    directly; points within 1 um of a face plane are left out)."""
    rng = np.random.default_rng(100 + seed)

    def some(n, lo, hi):
        a, b = rng.uniform(lo, hi, (n, 3)), rng.uniform(lo, hi, (n, 3))
        return np.stack([np.minimum(a, b), np.maximum(a, b)], axis=1)

    solids = some(int(rng.integers(2, 6)), 0.0, 60.0)
    solids[0] = [[0, 0, 0], [60, 40, 30]]  # one large box: the union is never tiny
    holes = some(int(rng.integers(0, 4)), -5.0, 65.0)
    mesh = rectilinear(solids, holes)
    yaw = float(rng.uniform(0, 360))
    v = _turned(np.asarray(mesh.vertices), yaw, rng.uniform(-300, 300, 3))
    got = rectilinear_boxes(v, np.asarray(mesh.faces))
    assert got is not None
    pts = rng.uniform(-8.0, 68.0, (20_000, 3))  # in the solids' frame
    world = _turned(pts, yaw, v[0] - _turned(np.asarray(mesh.vertices)[:1], yaw, 0.0)[0])

    def inside(boxes):
        lo, hi = boxes[None, :, 0], boxes[None, :, 1]
        return ((pts[:, None] > lo) & (pts[:, None] < hi)).all(axis=2).any(axis=1)

    planes = np.concatenate([solids.reshape(-1, 3), holes.reshape(-1, 3)])
    near = (np.abs(pts[:, None, :] - planes[None, :, :]) < 1e-3).any(axis=(1, 2))
    want = inside(solids) & ~inside(holes) if len(holes) else inside(solids)
    np.testing.assert_array_equal(_in_boxes(got, world)[~near], want[~near])
    assert want.sum() > 100
