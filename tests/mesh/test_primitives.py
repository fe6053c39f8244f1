"""geom3d.mesh.primitives: the one box mesh (scenario ``box``, ``terrain.box``) and the
prism of a blocking polygon zone."""

from __future__ import annotations

import numpy as np
import pytest
import trimesh

from geom3d import terrain
from geom3d.mesh import box_mesh, mesh_topology, prism_mesh


@pytest.mark.parametrize("size", [(10.0, 20.0, 30.0), (1.0, 1.0, 1.0), (300.0, 2.0, 0.5)])
def test_box_is_closed_outward_and_bottom_centred(size):
    v, f = box_mesh(size)
    assert v.shape == (8, 3) and v.dtype == np.float64
    assert f.shape == (12, 3) and f.dtype == np.int64
    sx, sy, sz = size
    np.testing.assert_array_equal(v.min(axis=0), [-sx / 2, -sy / 2, 0.0])
    np.testing.assert_array_equal(v.max(axis=0), [sx / 2, sy / 2, sz])
    topo = mesh_topology(v, f)
    assert topo.watertight and topo.n_bodies == 1
    # outward: each face normal points away from the box's centre, and the signed
    # volume (divergence theorem) is the box's volume
    a, b, c = v[f[:, 0]], v[f[:, 1]], v[f[:, 2]]
    normals = np.cross(b - a, c - a)
    centre = np.array([0.0, 0.0, sz / 2])
    assert np.all(np.einsum("ij,ij->i", normals, (a + b + c) / 3 - centre) > 0)
    volume = np.einsum("ij,ij->i", a, np.cross(b, c)).sum() / 6
    assert volume == pytest.approx(sx * sy * sz)


def test_terrain_box_is_the_same_mesh():
    v, f = box_mesh((40.0, 10.0, 5.0))
    t = terrain.box((40, 10, 5))
    np.testing.assert_array_equal(t.vertices, v)
    np.testing.assert_array_equal(t.faces, f)


@pytest.mark.parametrize("reverse", [False, True])
def test_prism_mesh_of_a_non_convex_polygon_is_a_closed_outward_solid(reverse):
    # a U: 100 x 100 with a 20 x 60 notch from the top edge: area 10000 - 1200 = 8800
    poly = [(0, 0), (100, 0), (100, 100), (60, 100), (60, 40), (40, 40), (40, 100), (0, 100)]
    v, f = prism_mesh(poly[::-1] if reverse else poly, 50.0)
    assert v.shape == (16, 3) and f.dtype == np.int64
    m = trimesh.Trimesh(v, f, process=False)
    assert m.is_watertight and m.is_winding_consistent
    assert m.volume == pytest.approx(8800 * 50.0)  # positive: the faces point outward
    assert sorted(set(v[:, 2])) == [0.0, 50.0]
    # no triangle of a cap covers the notch
    centroids = v[f].mean(axis=1)
    caps = centroids[np.isclose(centroids[:, 2], 0) | np.isclose(centroids[:, 2], 50)]
    inside_notch = (caps[:, 0] > 40) & (caps[:, 0] < 60) & (caps[:, 1] > 40)
    assert not inside_notch.any()
