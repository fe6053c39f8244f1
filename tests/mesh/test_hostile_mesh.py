"""Hostile meshes and cache entries (issue 14): glTF/GLB buffers, the disk cache, units.

Every file is made here: GLB files with external buffers, buffer URIs that point outside
their folder or at devices and FIFOs, planted, malformed, pickled and zip-bomb cache
entries. Probes that could hang or exhaust memory run in a bounded child (``bounded``).
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import struct
import zipfile

import numpy as np
import pytest
import trimesh
from bounded import run_code

from geom3d.core.errors import MeshError
from geom3d.core.tolerances import MAX_COORD_MM
from geom3d.mesh import clear_memory_cache, content_digest, file_digest, load_mesh
from geom3d.mesh.limits import MESH_HUGE_MM, MESH_TINY_MM

# ------------------------------------------------------------------ glTF / GLB builders
TETRA_V = np.array([[0, 0, 0], [10, 0, 0], [0, 10, 0], [0, 0, 10]], dtype=np.float32)
TETRA_F = np.array([[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]], dtype=np.uint32)


def _bin(vertices=TETRA_V, faces=TETRA_F) -> bytes:
    return vertices.astype("<f4").tobytes() + faces.astype("<u4").tobytes()


def _doc(uri: str, vertices=TETRA_V, faces=TETRA_F) -> dict:
    nv, nf = len(vertices), faces.size
    return {
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
        "buffers": [{"uri": uri, "byteLength": nv * 12 + nf * 4}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": nv * 12},
            {"buffer": 0, "byteOffset": nv * 12, "byteLength": nf * 4},
        ],
        "accessors": [
            {
                "bufferView": 0,
                "componentType": 5126,
                "count": nv,
                "type": "VEC3",
                "min": vertices.min(axis=0).tolist(),
                "max": vertices.max(axis=0).tolist(),
            },
            {"bufferView": 1, "componentType": 5125, "count": nf, "type": "SCALAR"},
        ],
    }


def _glb(doc: dict) -> bytes:
    text = json.dumps(doc).encode()
    text += b" " * (-len(text) % 4)
    body = struct.pack("<II", len(text), 0x4E4F534A) + text
    return struct.pack("<4sII", b"glTF", 2, 12 + len(body)) + body


def _write_glb(folder, uri="geo.bin", buffer=None, name="piece.glb"):
    path = folder / name
    path.write_bytes(_glb(_doc(uri)))
    if buffer is not None:
        (folder / uri).write_bytes(buffer)
    return path


# ------------------------------------------------------------------ 4: GLB external buffers
def test_glb_external_buffer_is_read_and_part_of_the_key(tmp_path):
    cache = tmp_path / "cache"
    path = _write_glb(tmp_path, buffer=_bin())
    first = load_mesh(path, cache_dir=cache)
    assert first.report.n_triangles == 4
    # glTF is Y-up: (x, y, z) -> (x, -z, y); the apex (0, 0, 10) lands at y = -10
    assert first.vertices[:, 1].min() == -10.0
    again = load_mesh(path, cache_dir=cache)
    assert again.report.cache_hit
    digest = file_digest(path)

    (tmp_path / "geo.bin").write_bytes(_bin(TETRA_V * 3))  # only the .bin changes
    clear_memory_cache()
    assert file_digest(path) != digest
    changed = load_mesh(path, cache_dir=cache)
    assert not changed.report.cache_hit
    assert changed.vertices[:, 1].min() == -30.0


def test_digest_frames_each_buffer(tmp_path):
    """(uri, bytes) pairs are length-prefixed: moving bytes between them changes it."""
    path = tmp_path / "x.glb"
    data = b"glb bytes"
    a = content_digest(path, data, {"a": b"12", "b": b"3"})
    b = content_digest(path, data, {"a": b"1", "b": b"23"})
    assert a != b
    assert content_digest(path, data, {}) == content_digest(tmp_path / "x.stl", data)


# ------------------------------------------------------------------ 6: buffer URIs
@pytest.mark.parametrize(
    ("uri", "message"),
    [
        ("/etc/passwd", "absolute paths are not allowed"),
        ("%2Fetc%2Fpasswd", "absolute paths are not allowed"),
        ("../outside.bin", "outside the glTF file's folder"),
        ("sub/../../outside.bin", "outside the glTF file's folder"),
        ("http://example.invalid/geo.bin", "URLs are never fetched"),
        ("file:///etc/passwd", "URLs are never fetched"),
        ("//example.invalid/geo.bin", "URLs are never fetched"),
        ("missing.bin", "file not found"),
        ("", "empty or invalid file name"),
    ],
)
@pytest.mark.parametrize("suffix", [".glb", ".gltf"])
def test_buffer_uris_outside_the_folder_are_refused(tmp_path, uri, message, suffix):
    folder = tmp_path / "model"
    folder.mkdir()
    (tmp_path / "outside.bin").write_bytes(_bin())
    path = folder / f"piece{suffix}"
    doc = _doc(uri)
    path.write_bytes(_glb(doc) if suffix == ".glb" else json.dumps(doc).encode())
    with pytest.raises(MeshError) as info:
        load_mesh(path, use_cache=False)
    text = str(info.value)
    assert text.startswith(f"{path}: buffers[0].uri: ") and message in text, text
    assert "\n" not in text
    # the scene's digest does not raise and does not read: load_mesh reports it
    assert file_digest(path).startswith("unreadable-")


def test_symlink_out_of_the_folder_is_refused(tmp_path):
    folder = tmp_path / "model"
    folder.mkdir()
    (tmp_path / "outside.bin").write_bytes(_bin())
    (folder / "geo.bin").symlink_to(tmp_path / "outside.bin")
    path = _write_glb(folder)
    with pytest.raises(MeshError, match=r"buffers\[0\]\.uri: the buffer lies outside"):
        load_mesh(path, use_cache=False)


def test_buffer_in_a_subfolder_is_fine(tmp_path):
    (tmp_path / "bin").mkdir()
    path = _write_glb(tmp_path, uri="bin/geo%20data.bin")
    (tmp_path / "bin" / "geo data.bin").write_bytes(_bin())  # URIs are percent-encoded
    assert load_mesh(path, use_cache=False).report.n_triangles == 4


def test_device_and_fifo_buffers_never_block_or_exhaust(tmp_path):
    """/dev/zero as a buffer ran out of memory and a FIFO hung: now one clean error."""
    (tmp_path / "zero").symlink_to("/dev/zero")
    os.mkfifo(tmp_path / "pipe.bin")
    with open(tmp_path / "huge.bin", "wb") as fh:
        fh.truncate(5 << 30)
    for name in ("zero", "pipe.bin", "huge.bin"):
        _write_glb(tmp_path, uri=name, name=f"{name}.glb")
    code = (
        "from geom3d.mesh import load_mesh, file_digest\n"
        "from geom3d.core.errors import MeshError\n"
        "for name in ('zero', 'pipe.bin', 'huge.bin'):\n"
        "    file_digest(name + '.glb')\n"
        "    try:\n"
        "        load_mesh(name + '.glb', use_cache=False)\n"
        "    except MeshError as exc:\n"
        "        print(exc)\n"
    )
    proc = run_code(code, tmp_path, memory=3 << 30, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    zero, pipe, huge = proc.stdout.splitlines()
    assert "zero.glb: buffers[0].uri: " in zero and "outside the glTF file's folder" in zero
    assert "pipe.bin.glb: buffers[0].uri: is a FIFO (named pipe)" in pipe
    assert "huge.bin.glb: buffers[0].uri: file is 5 GiB, larger than the 1 GiB" in huge


def test_data_uris_still_work(tmp_path):
    path = tmp_path / "embedded.gltf"
    mesh = trimesh.creation.box(extents=(10, 20, 30))
    files = mesh.export(file_type="gltf", embed_buffers=True)
    path.write_bytes(files["model.gltf"])
    assert load_mesh(path, use_cache=False).report.n_triangles == 12


# ------------------------------------------------------------------ 5: the disk cache
def _stl(path, extents=(10.0, 20.0, 30.0)):
    path.write_bytes(trimesh.creation.box(extents=extents).export(file_type="stl"))
    return path


def _entry(cache):
    (entry,) = [p for p in cache.iterdir() if p.suffix == ".npz"]
    return entry


def _extent(mesh):
    return tuple(np.ptp(mesh.vertices, axis=0))


def test_planted_entry_with_other_geometry_is_refused(tmp_path, caplog):
    """An entry copied under another file's key gave the other geometry, silently."""
    cache_a, cache_b = tmp_path / "ca", tmp_path / "cb"
    a = _stl(tmp_path / "a.stl", (10.0, 20.0, 30.0))
    b = _stl(tmp_path / "b.stl", (70.0, 70.0, 70.0))
    load_mesh(a, cache_dir=cache_a)
    load_mesh(b, cache_dir=cache_b)
    shutil.copyfile(_entry(cache_b), _entry(cache_a))  # b's geometry under a's key
    clear_memory_cache()
    with caplog.at_level(logging.WARNING):
        mesh = load_mesh(a, cache_dir=cache_a)
    assert not mesh.report.cache_hit
    assert _extent(mesh) == (10.0, 20.0, 30.0)
    assert "ignoring mesh cache entry" in caplog.text and "another key" in caplog.text
    clear_memory_cache()
    assert load_mesh(a, cache_dir=cache_a).report.cache_hit  # rewritten, trusted again


def _rewrite(entry, *, meta=None, members=None, compress=zipfile.ZIP_STORED, align=True):
    """Rewrite a cache entry's members (``meta``: a function of the metadata dict); array
    members aligned as geom3d writes them unless ``align`` is false, so each tamper below
    is the only thing wrong."""
    from geom3d.mesh.cache import _aligned_member

    with zipfile.ZipFile(entry) as zf:
        content = {n: zf.read(n) for n in zf.namelist()}
    if meta is not None:
        content["meta.json"] = json.dumps(meta(json.loads(content["meta.json"]))).encode()
    content.update(members or {})
    with open(entry, "wb") as fh, zipfile.ZipFile(fh, "w", compress) as zf:
        for name, data in content.items():
            if align and name.endswith(".npy") and compress == zipfile.ZIP_STORED:
                with zf.open(_aligned_member(name, fh.tell()), "w", force_zip64=True) as out:
                    out.write(data)
            else:
                zf.writestr(name, data)


def _other_source(m):
    m["source_sha256"] = "0" * 64
    return m


def _bad_stats(m):
    m["stats"]["n_vertices"] = "many"
    return m


def _more_vertices(m):
    m["stats"]["n_vertices"] += 1
    return m


def _extra_stat(m):
    m["stats"]["surprise"] = 1
    return m


def _npy(arr) -> bytes:
    import io

    buf = io.BytesIO()
    np.lib.format.write_array(buf, arr, allow_pickle=True)
    return buf.getvalue()


@pytest.mark.parametrize(
    ("tamper", "reason"),
    [
        (lambda e: _rewrite(e, meta=_other_source), "another source file"),
        (lambda e: _rewrite(e, meta=_bad_stats), "'n_vertices' is invalid"),
        (lambda e: _rewrite(e, meta=_more_vertices), "expected <f8"),
        (lambda e: _rewrite(e, meta=_extra_stat), "other fields"),
        (
            lambda e: _rewrite(e, members={"meta.json": b"{not json"}),
            "unreadable (JSONDecodeError)",
        ),
        (lambda e: _rewrite(e, members={"meta.json": b"[1, 2]"}), "another key"),
        (lambda e: _rewrite(e, members={"extra.npy": b"x"}), "other members"),
        (lambda e: _rewrite(e, compress=zipfile.ZIP_DEFLATED), "compressed member"),
        (
            lambda e: _rewrite(e, members={"faces.npy": _npy(np.full((12, 3), 99, dtype="<i8"))}),
            "face index out of range",
        ),
        (
            lambda e: _rewrite(e, members={"vertices.npy": _npy(np.zeros((36, 3), dtype="<f4"))}),
            "expected <f8",
        ),
        (lambda e: _rewrite(e, align=False), "vertices.npy: data not aligned"),
        (lambda e: e.write_bytes(e.read_bytes()[:-40]), "unreadable"),
        (lambda e: e.write_bytes(b"PK\x03\x04 not a zip"), "unreadable (BadZipFile)"),
    ],
)
def test_malformed_entries_are_ignored_and_rebuilt(tmp_path, caplog, tamper, reason):
    path = _stl(tmp_path / "box.stl")
    cache = tmp_path / "cache"
    load_mesh(path, cache_dir=cache)
    tamper(_entry(cache))
    clear_memory_cache()
    with caplog.at_level(logging.WARNING):
        mesh = load_mesh(path, cache_dir=cache)
    assert not mesh.report.cache_hit and _extent(mesh) == (10.0, 20.0, 30.0)
    assert reason in caplog.text, caplog.text
    clear_memory_cache()
    assert load_mesh(path, cache_dir=cache).report.cache_hit


def test_pickled_array_is_never_unpickled(tmp_path, caplog):
    path = _stl(tmp_path / "box.stl")
    cache = tmp_path / "cache"
    load_mesh(path, cache_dir=cache)
    marker = tmp_path / "pwned"

    class Payload:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    arr = np.empty((36, 3), dtype=object)
    arr[0, 0] = Payload()
    _rewrite(_entry(cache), members={"vertices.npy": _npy(arr)})
    clear_memory_cache()
    with caplog.at_level(logging.WARNING):
        mesh = load_mesh(path, cache_dir=cache)
    assert not marker.exists()
    assert not mesh.report.cache_hit and "expected <f8" in caplog.text


def test_symlinked_entry_is_refused(tmp_path, caplog):
    path = _stl(tmp_path / "box.stl")
    cache = tmp_path / "cache"
    load_mesh(path, cache_dir=cache)
    entry = _entry(cache)
    real = tmp_path / "elsewhere.npz"
    entry.rename(real)
    entry.symlink_to(real)
    clear_memory_cache()
    with caplog.at_level(logging.WARNING):
        assert not load_mesh(path, cache_dir=cache).report.cache_hit
    assert "cannot open it" in caplog.text


def test_fifo_and_zip_bomb_entries_are_bounded(tmp_path):
    """A FIFO entry hung the load; a 1.2 MB zip bomb cost 1.25 GB. Bounded child: 2 GB."""
    _stl(tmp_path / "a.stl")
    _stl(tmp_path / "b.stl", (5.0, 5.0, 5.0))
    code = (
        "import os, zipfile, logging, numpy as np\n"
        "from pathlib import Path\n"
        "from geom3d.mesh import load_mesh, clear_memory_cache\n"
        "logging.basicConfig(level=logging.WARNING, format='%(message)s')\n"
        "for name, plant in (('a', 'fifo'), ('b', 'bomb')):\n"
        "    cache = Path('cache-' + name)\n"
        "    load_mesh(name + '.stl', cache_dir=cache)\n"
        "    (entry,) = cache.glob('*.npz')\n"
        "    entry.unlink()\n"
        "    if plant == 'fifo':\n"
        "        os.mkfifo(entry)\n"
        "    else:\n"
        "        with zipfile.ZipFile(entry, 'w', zipfile.ZIP_DEFLATED) as zf:\n"
        "            with zf.open('vertices.npy', 'w', force_zip64=True) as out:\n"
        "                block = bytes(1 << 24)\n"
        "                for _ in range(192):\n"
        "                    out.write(block)\n"
        "            zf.writestr('faces.npy', b'')\n"
        "            zf.writestr('meta.json', b'{}')\n"
        "        assert entry.stat().st_size < 5 << 20\n"
        "    clear_memory_cache()\n"
        "    mesh = load_mesh(name + '.stl', cache_dir=cache)\n"
        "    print(name, mesh.report.cache_hit, mesh.report.n_triangles)\n"
    )
    proc = run_code(code, tmp_path, memory=2 << 30, timeout=180)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.splitlines() == ["a False 12", "b False 12"]
    assert "not a regular file" in proc.stderr and "compressed member" in proc.stderr


# ------------------------------------------------------------------ 12: mesh units
def _scaled_box(path, size):
    return _stl(path, (size, size, size))


def test_wrong_units_warnings_at_their_thresholds(tmp_path):
    tiny = load_mesh(_scaled_box(tmp_path / "tiny.stl", 0.05), use_cache=False)  # 5 cm in m
    assert any("were its units larger" in m for m in tiny.report.messages())
    edge = load_mesh(_scaled_box(tmp_path / "edge.stl", MESH_TINY_MM), use_cache=False)
    assert not any("units" in m for m in edge.report.messages())
    huge = load_mesh(_scaled_box(tmp_path / "huge.stl", 1200.0), units="m", use_cache=False)
    assert huge.report.extent_mm == (1.2e6, 1.2e6, 1.2e6)
    assert any("were its units smaller" in m for m in huge.report.messages())
    at = load_mesh(_scaled_box(tmp_path / "at.stl", MESH_HUGE_MM), use_cache=False)
    assert not any("units" in m for m in at.report.messages())


def test_coordinates_beyond_the_scene_limit_are_an_error(tmp_path):
    path = _stl(tmp_path / "far.stl", (20.0, 20.0, 20.0))
    load_mesh(path, units="m", use_cache=False)  # 20 m: fine
    far = _scaled_box(tmp_path / "wide.stl", 2.0 * MAX_COORD_MM / 1000 + 2)
    with pytest.raises(
        MeshError, match=r"beyond the 10 km a scene may span \(wrong mesh_units\?\)"
    ):
        load_mesh(far, units="m", use_cache=False)


def test_extent_survives_the_disk_cache(tmp_path):
    path = _stl(tmp_path / "box.stl")
    cache = tmp_path / "cache"
    fresh = load_mesh(path, cache_dir=cache)
    clear_memory_cache()
    cached = load_mesh(path, cache_dir=cache)
    assert cached.report.cache_hit and cached.report.extent_mm == fresh.report.extent_mm
    assert fresh.report.extent_mm == (10.0, 20.0, 30.0)


# ------------------------------------------------------------------ numba cache folder
def test_numba_cache_goes_to_the_geom3d_cache_folder(tmp_path):
    from geom3d.core.cache_paths import kernel_sources_digest

    env = {"GEOM3D_CACHE_DIR": str(tmp_path / "g3"), "NUMBA_CACHE_DIR": ""}
    code = "import geom3d.bodies.kernels\nfrom numba.core import config\nprint(config.CACHE_DIR)\n"
    proc = run_code(code, tmp_path, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == str(tmp_path / "g3" / "numba" / kernel_sources_digest())
    # a folder the user chose gets the digest too (numba would load a kernel compiled
    # with another file's older kernels embedded); a worker handed it keeps it
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "mine")
    proc = run_code(code, tmp_path, env=env, timeout=120)
    assert proc.stdout.strip() == str(tmp_path / "mine" / kernel_sources_digest())
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "mine" / kernel_sources_digest())
    proc = run_code(code, tmp_path, env=env, timeout=120)
    assert proc.stdout.strip() == str(tmp_path / "mine" / kernel_sources_digest())


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to chown")
def test_entry_owned_by_another_user_is_refused(tmp_path, caplog):
    """Someone else who can write a shared cache folder cannot plant entries for us."""
    path = _stl(tmp_path / "box.stl")
    cache = tmp_path / "cache"
    load_mesh(path, cache_dir=cache)
    os.chown(_entry(cache), 12345, -1)
    clear_memory_cache()
    with caplog.at_level(logging.WARNING):
        assert not load_mesh(path, cache_dir=cache).report.cache_hit
    assert "owned by another user" in caplog.text
