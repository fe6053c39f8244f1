"""geom3d.mesh.cache and geom3d.mesh.digest: the memory and disk parse caches, their keys."""

from __future__ import annotations

import logging
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
import trimesh

from geom3d.mesh import cache as cache_module
from geom3d.mesh import clear_memory_cache, default_cache_dir, load_mesh


def _write(mesh: trimesh.Trimesh, path: Path, file_type: str) -> Path:
    data = mesh.export(file_type=file_type)
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return path


def _box(extents=(10.0, 20.0, 30.0), offset=(0.0, 0.0, 0.0)) -> trimesh.Trimesh:
    box = trimesh.creation.box(extents=extents)
    box.apply_translation(offset)
    return box


def _extents(mesh) -> np.ndarray:
    return mesh.vertices.max(axis=0) - mesh.vertices.min(axis=0)


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
    assert default_cache_dir() == tmp_path / "envcache"
    path = _write(_box(), tmp_path / "box.stl", "stl")
    load_mesh(path)
    assert len(_files(tmp_path / "envcache")) == 1
    monkeypatch.delenv("GEOM3D_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "xdg" / "geom3d"


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


@pytest.mark.parametrize("rows", [0, 1, 4097])
@pytest.mark.parametrize("mapped", [True, False])
def test_arrays_read_back_aligned_and_writable(tmp_path, monkeypatch, rows, mapped):
    """Members map in place, aligned, copy-on-write (or, where the file cannot be mapped,
    are read into new arrays), empty ones too (a closing may add no triangle); writing
    to an array never changes the entry."""
    if not mapped:

        def no_map(*args, **kwargs):
            raise OSError("this file system cannot map files")

        monkeypatch.setattr(cache_module.mmap, "mmap", no_map)
    rng = np.random.default_rng(rows)
    v, f = rng.normal(size=(rows, 3)), rng.integers(0, 9, size=(rows, 3))
    path = tmp_path / "e.npz"
    cache_module.disk_put(path, "k", "d", v, f, {})
    before = path.read_bytes()
    with zipfile.ZipFile(path) as zf:
        for info in zf.infolist():  # every array's data on a multiple of 64 bytes
            if info.filename.endswith(".npy"):
                assert before.index(np.lib.format.MAGIC_PREFIX, info.header_offset) % 64 == 0
        v2 = cache_module.read_array(zf, "vertices.npy", "<f8", rows)
        f2 = cache_module.read_array(zf, "faces.npy", "<i8", rows)
    assert v2.shape == f2.shape == (rows, 3)
    assert v2.tobytes() == v.tobytes() and f2.tobytes() == f.astype("<i8").tobytes()
    assert v2.flags.writeable and f2.flags.writeable and v2.flags.c_contiguous
    assert v2.flags.aligned and f2.flags.aligned
    if mapped:  # a map starts on a page: the data sit on 64 bytes in memory too
        assert v2.ctypes.data % 64 == 0 and f2.ctypes.data % 64 == 0
    if rows:
        v2[0, 0] = 1e9
        f2[-1, -1] = -7
    assert path.read_bytes() == before


@pytest.mark.parametrize(
    ("member", "where", "why"),
    [
        ("faces.npy", "last", "faces.npy: bad CRC"),  # a data byte: the member's CRC fails
        ("vertices.npy", "header", "vertices.npy: bad local header"),
    ],
)
def test_damaged_array_member_is_refused(tmp_path, caplog, member, where, why):
    path = _write(_box(), tmp_path / "box.stl", "stl")
    cache = tmp_path / "cache"
    first = load_mesh(path, cache_dir=cache)
    (entry,) = cache.iterdir()
    data = bytearray(entry.read_bytes())
    with zipfile.ZipFile(entry) as zf:
        info = zf.getinfo(member)
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    if where == "last":
        data[start + info.file_size - 1] ^= 0xFF
    else:
        data[info.header_offset] ^= 0xFF
    entry.write_bytes(bytes(data))
    clear_memory_cache()
    with caplog.at_level(logging.WARNING):
        again = load_mesh(path, cache_dir=cache)
    assert not again.report.cache_hit
    assert f"{why}; re-parsing" in caplog.text
    assert again.vertices.tobytes() == first.vertices.tobytes()
    clear_memory_cache()
    assert load_mesh(path, cache_dir=cache).report.cache_hit  # rewritten


def test_failed_cache_write_leaves_nothing_behind(tmp_path, monkeypatch, caplog):
    path = _write(_box(), tmp_path / "box.stl", "stl")
    cache = tmp_path / "cache"

    def broken_write(fh, array, **kwargs):
        fh.write(b"\x93NUMPY half an array")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(cache_module.np.lib.format, "write_array", broken_write)
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
    monkeypatch.setattr(cache_module, "_MEMORY_CACHE_BYTES", 3000)
    cache = tmp_path / "cache"
    paths = [
        _write(_box(extents=(1.0, 1.0, float(i + 1))), tmp_path / f"b{i}.stl", "stl")
        for i in range(3)
    ]
    for p in paths:
        load_mesh(p, cache_dir=cache)  # 36 * 24 + 12 * 24 = 1152 bytes each
    assert len(cache_module._memory_cache) == 2
    assert cache_module._memory_cache_bytes <= 3000


def test_a_cache_hit_in_a_warm_process_does_not_read_the_file_again(tmp_path, monkeypatch):
    """The file's digest is remembered by path, size and mtime (file_digest): a cache hit
    needs no second read; a changed file is read (and parsed) again."""
    import geom3d.mesh.load as load_module

    path = _write(_box(), tmp_path / "box.stl", "stl")
    cache = tmp_path / "cache"
    load_mesh(path, cache_dir=cache)  # parsed, stored
    reads = []
    real = load_module.read_regular
    monkeypatch.setattr(load_module, "read_regular", lambda *a: reads.append(a) or real(*a))
    for _ in range(2):
        clear_memory_cache()
        again = load_mesh(path, cache_dir=cache)
        assert again.report.cache_hit and tuple(_extents(again)) == (10.0, 20.0, 30.0)
    assert reads == []
    # another size (24 triangles), so the change shows whatever the mtime's resolution
    _write(trimesh.util.concatenate([_box(), _box(offset=(0.0, 0.0, 30.0))]), path, "stl")
    changed = load_mesh(path, cache_dir=cache)
    assert not changed.report.cache_hit and tuple(_extents(changed)) == (10.0, 20.0, 60.0)
    assert len(reads) == 1
