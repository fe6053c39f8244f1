"""geom3d.mesh.topology: degenerate triangles, bodies, open and non-manifold edges."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import trimesh

from geom3d.mesh import degenerate_faces, load_mesh, mesh_topology, used_vertices
from geom3d.mesh import topology as topology_module


def _write(mesh: trimesh.Trimesh, path: Path, file_type: str) -> Path:
    data = mesh.export(file_type=file_type)
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return path


def _box(extents=(10.0, 20.0, 30.0), offset=(0.0, 0.0, 0.0)) -> trimesh.Trimesh:
    box = trimesh.creation.box(extents=extents)
    box.apply_translation(offset)
    return box


def test_degenerate_faces_helper():
    v = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [2, 0, 0], [1e-12, 0, 0]], dtype=float)
    f = np.array([[0, 1, 2], [0, 1, 3], [0, 0, 2], [0, 4, 4], [1, 2, 0]])
    np.testing.assert_array_equal(degenerate_faces(v, f), [False, True, True, True, False])
    assert degenerate_faces(v, np.zeros((0, 3), dtype=int)).shape == (0,)


def test_thin_but_real_triangle_is_kept():
    # height 1e-6 mm over a 100 mm side: a sliver, but not zero area
    v = np.array([[0, 0, 0], [100, 0, 0], [50, 1e-6, 0]], dtype=float)
    assert not degenerate_faces(v, np.array([[0, 1, 2]])).any()


# --------------------------------------------------------------------------------------
# Topology


def test_topology_open_nonmanifold_and_bodies():
    box = _box()
    # open box: one triangle removed -> 3 boundary edges
    t = mesh_topology(box.vertices, box.faces[1:])
    assert (t.n_bodies, t.n_open_edges, t.n_nonmanifold_edges, t.watertight) == (1, 3, 0, False)
    # a fin glued on an edge of the box -> that edge is used 3 times
    a, b = box.faces[0][:2]
    v = np.vstack([box.vertices, [[100.0, 100.0, 100.0]]])
    f = np.vstack([box.faces, [[a, b, len(box.vertices)]]])
    t = mesh_topology(v, f)
    assert (t.n_nonmanifold_edges, t.n_open_edges, t.n_bodies) == (1, 2, 1)
    # two boxes -> two bodies; touching at one vertex position only -> one body
    other = _box(offset=(100.0, 0.0, 0.0))
    v2 = np.vstack([box.vertices, other.vertices])
    f2 = np.vstack([box.faces, other.faces + len(box.vertices)])
    assert mesh_topology(v2, f2) == (2, 0, 0)
    corner = _box(offset=(10.0, 20.0, 30.0))  # shares the vertex (5, 10, 15) only
    v3 = np.vstack([box.vertices, corner.vertices])
    f3 = np.vstack([box.faces, corner.faces + len(box.vertices)])
    assert mesh_topology(v3, f3).n_bodies == 1


def test_topology_merges_by_position_and_ignores_unreferenced_vertices():
    box = _box()
    soup = box.vertices[box.faces].reshape(-1, 3)  # STL-like: no shared indices
    faces = np.arange(len(soup)).reshape(-1, 3)
    extra = np.vstack([soup, [[1e6, 1e6, 1e6]]])  # unreferenced vertex
    assert mesh_topology(extra, faces) == (1, 0, 0)
    # -0.0 and 0.0 are the same position
    flipped = soup.copy()
    flipped[flipped == 0.0] = -0.0
    assert mesh_topology(flipped, faces) == (1, 0, 0)


def test_topology_of_glb_with_split_vertices(tmp_path):
    # exporters often split vertices (per normal or UV); bodies are counted by position
    box = _box()
    soup = trimesh.Trimesh(
        box.vertices[box.faces].reshape(-1, 3), np.arange(36).reshape(12, 3), process=False
    )
    path = _write(soup, tmp_path / "box.glb", "glb")
    r = load_mesh(path, use_cache=False).report
    assert r.n_vertices == 36
    assert (r.n_bodies, r.n_open_edges, r.watertight) == (1, 0, True)


def test_position_merge_survives_hash_collisions(monkeypatch):
    rng = np.random.default_rng(7)
    base = rng.normal(size=(500, 3)) * 100.0
    v = base[rng.integers(0, len(base), size=3000)]
    labels, n = topology_module._merge_positions(v)
    assert n == len(np.unique(v, axis=0))
    # every hash collides -> the exact lexsort fallback must give the same grouping
    monkeypatch.setattr(topology_module, "_mix", lambda z: np.zeros_like(z))
    labels2, n2 = topology_module._merge_positions(v)
    assert n2 == n
    # both groupings say the same thing: equal positions share a label, others do not
    same = (v[:300, None, :] == v[None, :300, :]).all(axis=2)
    for lab in (labels, labels2):
        np.testing.assert_array_equal(lab[:300, None] == lab[None, :300], same)


def test_used_vertices_is_np_unique_as_a_mask():
    rng = np.random.default_rng(2)
    faces = rng.integers(0, 500, (300, 3))
    mask = used_vertices(800, faces)
    assert mask.shape == (800,) and not mask[500:].any()
    np.testing.assert_array_equal(np.flatnonzero(mask), np.unique(faces))
    assert not used_vertices(4, np.zeros((0, 3), np.int64)).any()


def test_used_vertices_of_the_kept_faces_only():
    rng = np.random.default_rng(3)
    faces = rng.integers(0, 500, (300, 3))
    keep = rng.random(300) < 0.4
    mask = used_vertices(800, faces, keep)
    np.testing.assert_array_equal(np.flatnonzero(mask), np.unique(faces[keep]))
    assert not used_vertices(800, faces, np.zeros(300, bool)).any()
