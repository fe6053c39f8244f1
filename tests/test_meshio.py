"""Tests for geom3d.meshio: raw loading, explicit repair, reports, errors and caching."""

from __future__ import annotations

import pickle
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
import trimesh

from geom3d import meshio
from geom3d.errors import MeshError, ScenarioError
from geom3d.meshio import (
    LoadedMesh,
    MeshReport,
    clear_memory_cache,
    degenerate_faces,
    load_mesh,
    mesh_topology,
)

EXPORT_TYPES = {
    "stl": ("stl", "stl"),
    "stl_ascii": ("stl", "stl_ascii"),
    "obj": ("obj", "obj"),
    "ply": ("ply", "ply"),
    "off": ("off", "off"),
    "glb": ("glb", "glb"),
}


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path, monkeypatch):
    """Every test gets an empty memory cache and a private default disk cache."""
    monkeypatch.setenv("GEOM3D_CACHE_DIR", str(tmp_path / "default-cache"))
    clear_memory_cache()
    yield
    clear_memory_cache()


def _write(mesh: trimesh.Trimesh, path: Path, file_type: str) -> Path:
    data = mesh.export(file_type=file_type)
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return path


def _box(extents=(10.0, 20.0, 30.0), offset=(0.0, 0.0, 0.0)) -> trimesh.Trimesh:
    box = trimesh.creation.box(extents=extents)
    box.apply_translation(offset)
    return box


def _extents(mesh: LoadedMesh) -> np.ndarray:
    return mesh.vertices.max(axis=0) - mesh.vertices.min(axis=0)


# --------------------------------------------------------------------------------------
# Formats


@pytest.mark.parametrize("kind", sorted(EXPORT_TYPES))
def test_box_round_trip_every_format(tmp_path, kind):
    ext, file_type = EXPORT_TYPES[kind]
    path = _write(_box(), tmp_path / f"box.{ext}", file_type)
    mesh = load_mesh(path, cache_dir=tmp_path / "cache")
    r = mesh.report
    assert isinstance(mesh, LoadedMesh) and isinstance(r, MeshReport)
    assert r.format == ext
    assert r.path == str(path)
    assert (r.n_triangles_raw, r.n_triangles, r.n_degenerate_removed) == (12, 12, 0)
    assert (r.n_bodies, r.n_open_edges, r.n_nonmanifold_edges) == (1, 0, 0)
    assert r.watertight
    assert mesh.vertices.dtype == np.float64 and mesh.vertices.shape == (r.n_vertices, 3)
    assert mesh.faces.dtype == np.int64 and mesh.faces.shape == (12, 3)
    assert not mesh.vertices.flags.writeable and not mesh.faces.flags.writeable
    if ext == "glb":
        # glTF Y-up -> Z-up: the 20 (y) extent becomes z, the 30 (z) extent becomes y
        np.testing.assert_allclose(_extents(mesh), [10, 30, 20])
        assert r.y_up_converted
        assert r.messages() == ["converted glTF Y-up to Z-up"]
    else:
        np.testing.assert_allclose(_extents(mesh), [10, 20, 30])
        assert not r.y_up_converted
        assert r.messages() == []


def test_stl_is_loaded_raw_without_merging(tmp_path):
    path = _write(_box(), tmp_path / "box.stl", "stl")
    mesh = load_mesh(path, use_cache=False)
    # binary STL has three private vertices per triangle; they are not welded
    assert mesh.report.n_vertices == 36
    np.testing.assert_array_equal(mesh.faces, np.arange(36).reshape(12, 3))
    # topology is still computed on merged positions: one closed body
    assert mesh.report.n_bodies == 1 and mesh.report.watertight


def test_vertices_and_faces_are_the_files(tmp_path):
    box = _box(offset=(1.0, 2.0, 3.0))
    path = _write(box, tmp_path / "box.off", "off")
    mesh = load_mesh(path, use_cache=False)
    np.testing.assert_allclose(mesh.vertices, box.vertices)
    np.testing.assert_array_equal(mesh.faces, box.faces)


def test_obj_polygons_are_triangulated(tmp_path):
    path = tmp_path / "quad.obj"
    path.write_text("v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n")
    r = load_mesh(path, use_cache=False).report
    assert (r.n_triangles_raw, r.n_triangles) == (2, 2)
    assert (r.n_bodies, r.n_open_edges) == (1, 4)
    assert not r.watertight
    assert r.messages() == ["open surface: 4 boundary edges"]


def test_extension_is_case_insensitive(tmp_path):
    path = _write(_box(), tmp_path / "BOX.STL", "stl")
    assert load_mesh(path, use_cache=False).report.format == "stl"


# --------------------------------------------------------------------------------------
# glTF axes and scene graph


def test_glb_y_up_is_rotated_to_z_up(tmp_path):
    # taller in Y in glTF (40), offset so that the sign of the rotation shows
    box = _box(extents=(10.0, 40.0, 20.0), offset=(1.0, 2.0, 3.0))
    path = _write(box, tmp_path / "tall.glb", "glb")
    mesh = load_mesh(path, use_cache=False)
    np.testing.assert_allclose(_extents(mesh), [10, 20, 40])  # taller in Z now
    # (x, y, z) -> (x, -z, y)
    lo, hi = box.bounds
    np.testing.assert_allclose(mesh.vertices.min(axis=0), [lo[0], -hi[2], lo[1]])
    np.testing.assert_allclose(mesh.vertices.max(axis=0), [hi[0], -lo[2], hi[1]])
    # a proper rotation keeps the outward winding: signed volume stays positive
    tm = trimesh.Trimesh(mesh.vertices, mesh.faces, process=False)
    assert tm.volume == pytest.approx(10 * 40 * 20)


def test_glb_scene_graph_transforms_are_applied(tmp_path):
    scene = trimesh.Scene()
    scene.add_geometry(_box(extents=(1, 1, 1)), node_name="a", geom_name="cube")
    scene.add_geometry(
        _box(extents=(1, 1, 1)),
        node_name="b",
        geom_name="cube2",
        transform=trimesh.transformations.translation_matrix([10.0, 0.0, 0.0]),
    )
    path = tmp_path / "two.glb"
    path.write_bytes(scene.export(file_type="glb"))
    mesh = load_mesh(path, use_cache=False)
    r = mesh.report
    assert (r.n_triangles, r.n_bodies) == (24, 2)
    assert "2 separate bodies" in r.messages()
    np.testing.assert_allclose(mesh.vertices.min(axis=0), [-0.5, -0.5, -0.5])
    np.testing.assert_allclose(mesh.vertices.max(axis=0), [10.5, 0.5, 0.5])


def test_gltf_with_external_buffers(tmp_path):
    small = _box(extents=(10.0, 40.0, 20.0)).export(file_type="gltf")
    for name, data in small.items():
        (tmp_path / name).write_bytes(data)
    path = tmp_path / "model.gltf"
    cache = tmp_path / "cache"
    mesh = load_mesh(path, cache_dir=cache)
    assert mesh.report.format == "gltf" and mesh.report.y_up_converted
    np.testing.assert_allclose(_extents(mesh), [10, 20, 40])
    assert load_mesh(path, cache_dir=cache).report.cache_hit
    # the cache key covers the external buffers, not only the .gltf text: swap in the
    # buffers of a bigger box (same layout) and keep the .gltf file as it is
    big = _box(extents=(20.0, 80.0, 40.0)).export(file_type="gltf")
    for name, data in big.items():
        if name.endswith(".bin"):
            (tmp_path / name).write_bytes(data)
    clear_memory_cache()
    again = load_mesh(path, cache_dir=cache)
    assert not again.report.cache_hit
    np.testing.assert_allclose(_extents(again), [20, 40, 80])


# --------------------------------------------------------------------------------------
# Units


@pytest.mark.parametrize(
    ("units", "factor", "message"),
    [
        ("mm", 1.0, None),
        ("cm", 10.0, "scaled cm -> mm (x10)"),
        ("m", 1000.0, "scaled m -> mm (x1000)"),
        ("in", 25.4, "scaled in -> mm (x25.4)"),
    ],
)
def test_units_scale_to_mm(tmp_path, units, factor, message):
    path = _write(_box(extents=(1.0, 2.0, 3.0)), tmp_path / "box.stl", "stl")
    mesh = load_mesh(path, units=units, cache_dir=tmp_path / "cache")
    np.testing.assert_allclose(_extents(mesh), np.array([1.0, 2.0, 3.0]) * factor)
    assert mesh.report.units == units
    assert mesh.report.scale_to_mm == factor
    assert mesh.report.messages() == ([message] if message else [])


def test_units_are_part_of_the_cache_key(tmp_path):
    path = _write(_box(extents=(1.0, 2.0, 3.0)), tmp_path / "box.stl", "stl")
    cache = tmp_path / "cache"
    load_mesh(path, units="mm", cache_dir=cache)
    cm = load_mesh(path, units="cm", cache_dir=cache)
    assert not cm.report.cache_hit
    np.testing.assert_allclose(_extents(cm), [10, 20, 30])


# --------------------------------------------------------------------------------------
# Degenerate triangles


def _box_with_degenerates() -> trimesh.Trimesh:
    box = _box()
    v = np.vstack([box.vertices, [[0.0, 0.0, 50.0], [1.0, 0.0, 50.0], [2.0, 0.0, 50.0]]])
    n = len(box.vertices)
    extra = [[0, 0, 1], [n, n + 1, n + 2]]  # repeated index; collinear (zero area)
    return trimesh.Trimesh(v, np.vstack([box.faces, extra]), process=False)


@pytest.mark.parametrize("kind", ["ply", "off", "obj"])
def test_degenerate_triangles_are_dropped_and_reported(tmp_path, kind):
    ext, file_type = EXPORT_TYPES[kind]
    path = _write(_box_with_degenerates(), tmp_path / f"deg.{ext}", file_type)
    mesh = load_mesh(path, use_cache=False)
    r = mesh.report
    assert (r.n_triangles_raw, r.n_triangles, r.n_degenerate_removed) == (14, 12, 2)
    assert r.watertight and r.n_bodies == 1
    assert r.messages() == ["dropped 2 degenerate triangles (zero area or repeated vertex)"]
    # the kept faces are the file's, in order; vertices are untouched (nothing removed)
    np.testing.assert_array_equal(mesh.faces, _box().faces)
    assert r.n_vertices == len(_box_with_degenerates().vertices)


def test_zero_area_triangle_in_stl_is_dropped(tmp_path):
    mesh = _box_with_degenerates()
    mesh = trimesh.Trimesh(mesh.vertices, mesh.faces[[*range(12), 13]], process=False)
    path = _write(mesh, tmp_path / "deg.stl", "stl")
    r = load_mesh(path, use_cache=False).report
    assert (r.n_triangles_raw, r.n_degenerate_removed) == (13, 1)
    assert r.messages() == ["dropped 1 degenerate triangle (zero area or repeated vertex)"]


def test_all_degenerate_is_an_error(tmp_path):
    path = tmp_path / "flat.obj"
    path.write_text("v 0 0 0\nv 1 0 0\nv 2 0 0\nv 3 0 0\nf 1 2 3\nf 2 3 4\n")
    with pytest.raises(MeshError, match=r"^.*flat\.obj: mesh has only degenerate triangles"):
        load_mesh(path, use_cache=False)


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


# --------------------------------------------------------------------------------------
# Errors


def _raises(path, match, **kwargs) -> MeshError:
    with pytest.raises(MeshError, match=match) as info:
        load_mesh(path, use_cache=False, **kwargs)
    err = info.value
    assert err.file == str(path)
    assert str(err).startswith(f"{path}: ")
    return err


def test_missing_file(tmp_path):
    err = _raises(tmp_path / "nope.stl", r"nope\.stl: mesh file not found$")
    assert isinstance(err, ScenarioError) and isinstance(err, ValueError)
    again = pickle.loads(pickle.dumps(err))
    assert (again.file, again.message) == (err.file, err.message)


def test_directory_is_not_a_mesh(tmp_path):
    folder = tmp_path / "dir.stl"
    folder.mkdir()
    _raises(folder, r"mesh path is a directory, not a file$")


def test_empty_file(tmp_path):
    path = tmp_path / "empty.ply"
    path.write_bytes(b"")
    _raises(path, r"mesh file is empty$")


def test_unknown_extension(tmp_path):
    path = tmp_path / "thing.xyz"
    path.write_text("1 2 3\n")
    _raises(path, r"unknown mesh format: extension '\.xyz' \(known: \.glb, \.gltf, \.obj, ")
    path2 = tmp_path / "noext"
    path2.write_text("1 2 3\n")
    _raises(path2, r"unknown mesh format: no extension")


def test_unknown_units(tmp_path):
    path = _write(_box(), tmp_path / "box.stl", "stl")
    _raises(path, r"unknown mesh units 'ft' \(known: mm, cm, m, in\)$", units="ft")


@pytest.mark.parametrize(
    ("name", "content", "match"),
    [
        (
            "junk.stl",
            b"hello, I am not a mesh\n" * 5,
            r"not an STL file: 115 bytes is neither a binary STL \(header says ",
        ),
        (
            "trunc.stl",
            b"\x00" * 80 + (3).to_bytes(4, "little") + b"\x00" * 60,
            r"not an STL file: 144 bytes is neither a binary STL \(header says 3 triangles = "
            r"234 bytes\) nor an ASCII STL \('solid \.\.\. endsolid'\)$",
        ),
        ("tiny.stl", b"solid", r"neither a binary STL \(shorter than the 84-byte header\)"),
        (
            "bad.stl",
            b"solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\n"
            b"endloop\nendfacet\nendsolid x\n",
            r"cannot parse STL file \(ValueError: ",
        ),
        ("junk.ply", b"\x00\x01garbage" * 20, r"cannot parse PLY file \(ValueError: "),
        ("junk.off", b"this is not OFF\n", r"cannot parse OFF file \("),
        ("junk.glb", b"glTF but not really" * 10, r"cannot parse GLB file \("),
        ("junk.gltf", b"{not json", r"cannot parse GLTF file \("),
    ],
)
def test_garbage_files(tmp_path, name, content, match):
    path = tmp_path / name
    path.write_bytes(content)
    _raises(path, match)


def test_no_triangles(tmp_path):
    stl = tmp_path / "empty.stl"
    stl.write_text("solid empty\nendsolid empty\n")
    _raises(stl, r"empty\.stl: mesh has no triangles$")
    obj = tmp_path / "points.obj"
    obj.write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\n")
    _raises(obj, r"mesh has no triangles$")
    cloud = tmp_path / "cloud.ply"
    cloud.write_bytes(trimesh.PointCloud(np.eye(3)).export(file_type="ply"))
    _raises(cloud, r"mesh has no triangles$")


@pytest.mark.parametrize("bad", ["nan", "inf", "-inf"])
def test_non_finite_vertices(tmp_path, bad):
    path = tmp_path / "nan.off"
    path.write_text(f"OFF\n4 2 0\n0 0 0\n1 0 0\n0 1 0\n{bad} 0 1\n3 0 1 2\n3 0 1 3\n")
    _raises(path, r"mesh has NaN or infinite vertex coordinates \(1 of 4 vertices\)$")


_PLY_HEADER = (
    "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
    "property float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n"
)


@pytest.mark.parametrize(
    ("name", "text", "match"),
    [
        (
            "oob.ply",
            _PLY_HEADER + "0 0 0\n1 0 0\n0 1 0\n3 0 1 7\n",
            r"face indices out of range in geometry '.*' \(3 vertices, largest index 7\)$",
        ),
        ("oob.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 7\n", r"cannot parse OFF file"),
        ("oob.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n", r"cannot parse OBJ file"),
        ("bad.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 x\n", r"cannot parse OBJ file"),
    ],
)
def test_bad_face_indices(tmp_path, name, text, match):
    path = tmp_path / name
    path.write_text(text)
    _raises(path, match)


# --------------------------------------------------------------------------------------
# Cache


def _files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def test_cache_hit_on_second_load(tmp_path):
    path = _write(_box(), tmp_path / "box.stl", "stl")
    cache = tmp_path / "cache"
    first = load_mesh(path, cache_dir=cache)
    assert not first.report.cache_hit
    names = _files(cache)
    assert len(names) == 1 and names[0].endswith(".npz")  # no temp files left behind
    # memory hit
    second = load_mesh(path, cache_dir=cache)
    assert second.report.cache_hit
    # disk hit (fresh memory cache, as in a new worker process)
    clear_memory_cache()
    third = load_mesh(path, cache_dir=cache)
    assert third.report.cache_hit
    for other in (second, third):
        np.testing.assert_array_equal(other.vertices, first.vertices)
        np.testing.assert_array_equal(other.faces, first.faces)
        assert other.vertices.dtype == np.float64 and other.faces.dtype == np.int64
        assert not other.vertices.flags.writeable
        same = {
            k: v for k, v in vars(other.report).items() if k not in ("cache_hit", "load_seconds")
        }
        ref = {
            k: v for k, v in vars(first.report).items() if k not in ("cache_hit", "load_seconds")
        }
        assert same == ref
    assert _files(cache) == names


def test_changed_content_misses(tmp_path):
    path = _write(_box(), tmp_path / "box.stl", "stl")
    cache = tmp_path / "cache"
    load_mesh(path, cache_dir=cache)
    _write(_box(extents=(1.0, 1.0, 1.0)), path, "stl")
    changed = load_mesh(path, cache_dir=cache)
    assert not changed.report.cache_hit
    np.testing.assert_allclose(_extents(changed), [1, 1, 1])
    assert len(_files(cache)) == 2


def test_cache_hit_reports_the_current_path(tmp_path):
    a = _write(_box(), tmp_path / "a.stl", "stl")
    b = tmp_path / "b.stl"
    b.write_bytes(a.read_bytes())
    load_mesh(a, cache_dir=tmp_path / "cache")
    hit = load_mesh(b, cache_dir=tmp_path / "cache")
    assert hit.report.cache_hit and hit.report.path == str(b)


def test_use_cache_false_neither_reads_nor_writes(tmp_path):
    path = _write(_box(), tmp_path / "box.stl", "stl")
    cache = tmp_path / "cache"
    load_mesh(path, cache_dir=cache)
    fresh = load_mesh(path, cache_dir=cache / "other", use_cache=False)
    assert not fresh.report.cache_hit
    assert not (cache / "other").exists()
    assert not load_mesh(path, cache_dir=cache, use_cache=False).report.cache_hit


def test_default_cache_dir_honours_env(tmp_path, monkeypatch):
    monkeypatch.setenv("GEOM3D_CACHE_DIR", str(tmp_path / "envcache"))
    assert meshio.default_cache_dir() == tmp_path / "envcache"
    path = _write(_box(), tmp_path / "box.stl", "stl")
    load_mesh(path)
    assert len(_files(tmp_path / "envcache")) == 1
    monkeypatch.delenv("GEOM3D_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert meshio.default_cache_dir() == tmp_path / "xdg" / "geom3d"


def test_corrupt_cache_entry_is_reparsed_and_replaced(tmp_path):
    path = _write(_box(), tmp_path / "box.stl", "stl")
    cache = tmp_path / "cache"
    load_mesh(path, cache_dir=cache)
    (entry,) = cache.iterdir()
    entry.write_bytes(b"PK\x03\x04 truncated")
    clear_memory_cache()
    again = load_mesh(path, cache_dir=cache)
    assert not again.report.cache_hit
    assert again.report.n_triangles == 12
    clear_memory_cache()
    assert load_mesh(path, cache_dir=cache).report.cache_hit


def test_failed_cache_write_leaves_nothing_behind(tmp_path, monkeypatch, caplog):
    path = _write(_box(), tmp_path / "box.stl", "stl")
    cache = tmp_path / "cache"

    def broken_savez(fh, **arrays):
        fh.write(b"PK\x03\x04 half a file")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(meshio.np, "savez", broken_savez)
    mesh = load_mesh(path, cache_dir=cache)
    assert mesh.report.n_triangles == 12  # the load itself still works
    assert _files(cache) == []  # neither a half-written entry nor a temp file
    assert "could not write mesh cache" in caplog.text


def test_unwritable_cache_dir_still_loads(tmp_path):
    path = _write(_box(), tmp_path / "box.stl", "stl")
    blocker = tmp_path / "file-not-dir"
    blocker.write_text("x")
    mesh = load_mesh(path, cache_dir=blocker / "cache")
    assert mesh.report.n_triangles == 12


def test_parallel_loads_share_one_entry(tmp_path):
    path = _write(trimesh.creation.icosphere(subdivisions=4), tmp_path / "ball.stl", "stl")
    cache = tmp_path / "cache"
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda _: load_mesh(path, cache_dir=cache), range(16)))
    assert {r.report.n_triangles for r in results} == {5120}
    assert all(r.report.watertight for r in results)
    names = _files(cache)
    assert len(names) == 1 and names[0].endswith(".npz")


def test_memory_cache_is_bounded(tmp_path, monkeypatch):
    monkeypatch.setattr(meshio, "_MEMORY_CACHE_BYTES", 3000)
    cache = tmp_path / "cache"
    paths = [
        _write(_box(extents=(1.0, 1.0, float(i + 1))), tmp_path / f"b{i}.stl", "stl")
        for i in range(3)
    ]
    for p in paths:
        load_mesh(p, cache_dir=cache)  # 36 * 24 + 12 * 24 = 1152 bytes each
    assert len(meshio._memory_cache) == 2
    assert meshio._memory_cache_bytes <= 3000


def test_load_seconds_is_measured(tmp_path):
    path = _write(_box(), tmp_path / "box.stl", "stl")
    assert load_mesh(path, use_cache=False).report.load_seconds > 0


def test_position_merge_survives_hash_collisions(monkeypatch):
    rng = np.random.default_rng(7)
    base = rng.normal(size=(500, 3)) * 100.0
    v = base[rng.integers(0, len(base), size=3000)]
    labels, n = meshio._merge_positions(v)
    assert n == len(np.unique(v, axis=0))
    # every hash collides -> the exact lexsort fallback must give the same grouping
    monkeypatch.setattr(meshio, "_mix", lambda z: np.zeros_like(z))
    labels2, n2 = meshio._merge_positions(v)
    assert n2 == n
    # both groupings say the same thing: equal positions share a label, others do not
    same = (v[:300, None, :] == v[None, :300, :]).all(axis=2)
    for lab in (labels, labels2):
        np.testing.assert_array_equal(lab[:300, None] == lab[None, :300], same)
