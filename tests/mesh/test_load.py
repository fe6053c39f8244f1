"""geom3d.mesh.load: raw loading of every format, units, explicit repair, reports, errors."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest
import trimesh

from geom3d.core.errors import MeshError, ScenarioError
from geom3d.mesh import (
    LoadedMesh,
    MeshReport,
    clear_memory_cache,
    load_mesh,
)

EXPORT_TYPES = {
    "stl": ("stl", "stl"),
    "stl_ascii": ("stl", "stl_ascii"),
    "obj": ("obj", "obj"),
    "ply": ("ply", "ply"),
    "off": ("off", "off"),
    "glb": ("glb", "glb"),
}


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
    _raises(folder, r"is a directory, not a regular file$")


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


def test_load_seconds_is_measured(tmp_path):
    path = _write(_box(), tmp_path / "box.stl", "stl")
    assert load_mesh(path, use_cache=False).report.load_seconds > 0
