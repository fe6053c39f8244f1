"""The mesh parse cache: an in-process LRU and one ``.npz`` file per key on disk.

Entries are ``(vertices, faces, stats)`` keyed by :func:`geom3d.mesh.load.cache_key`
(content digest, format, units, cache version). Disk entries are written to a temporary
file and renamed into place, so parallel workers never read a partial file.

A disk entry is never trusted by its name. It is a zip archive (uncompressed) of
``meta.json``, ``vertices.npy`` and ``faces.npy``, and :func:`disk_get` uses it only when

- it is a regular file (not a FIFO, device or symbolic link) owned by this user, at most
  ``4 * MAX_MESH_BYTES``, holding exactly those three members, all stored uncompressed (so
  a "zip bomb" cannot expand: every byte read is a byte of the file);
- ``meta.json`` (at most 64 KiB) names this key *and* the SHA-256 of the source file just
  read (an entry copied under another name, or left from another file, is refused);
- the arrays are plain ``.npy`` (never a pickle: read with ``allow_pickle=False``
  semantics), little-endian float64 / int64, shape ``(n, 3)`` as the metadata says, whose
  bytes pass the archive's CRC;
- the vertices are finite and every face index lies in range.

Anything else is ignored with a logged warning and the mesh is parsed again (and the
entry rewritten). The cache guards against corrupt, stale, truncated and foreign entries;
someone who can write your cache folder as you can also edit your meshes, so it is not a
defence against them (docs/paths-and-cache.md).
"""

from __future__ import annotations

import json
import logging
import mmap
import os
import stat
import struct
import tempfile
import threading
import zipfile
import zlib
from collections import OrderedDict
from pathlib import Path

import numpy as np

from geom3d.core.cache_paths import default_cache_dir
from geom3d.core.errors import printable
from geom3d.mesh.limits import MAX_MESH_BYTES

__all__ = [
    "BadEntry",
    "clear_memory_cache",
    "default_cache_dir",
    "disk_get",
    "disk_put",
    "memory_get",
    "memory_put",
    "read_array",
    "read_entry_file",
    "read_meta",
]

log = logging.getLogger(__name__)

#: In-process cache budget (bytes of vertex and face arrays).
_MEMORY_CACHE_BYTES = 1 << 30

_memory_cache: OrderedDict[str, tuple[np.ndarray, np.ndarray, dict]] = OrderedDict()
_memory_cache_bytes = 0
_memory_lock = threading.Lock()


def clear_memory_cache() -> None:
    """Empty the in-process mesh cache (the disk cache is left alone)."""
    global _memory_cache_bytes
    with _memory_lock:
        _memory_cache.clear()
        _memory_cache_bytes = 0


def memory_get(key: str):
    """The memory entry ``(vertices, faces, stats)`` for ``key``, or None (marks it recent)."""
    with _memory_lock:
        entry = _memory_cache.get(key)
        if entry is not None:
            _memory_cache.move_to_end(key)
        return entry


def memory_put(key: str, vertices: np.ndarray, faces: np.ndarray, stats: dict) -> None:
    """Remember an entry, evicting the least recently used beyond the byte budget."""
    global _memory_cache_bytes
    size = vertices.nbytes + faces.nbytes
    if size > _MEMORY_CACHE_BYTES:
        return
    with _memory_lock:
        old = _memory_cache.pop(key, None)
        if old is not None:
            _memory_cache_bytes -= old[0].nbytes + old[1].nbytes
        _memory_cache[key] = (vertices, faces, stats)
        _memory_cache_bytes += size
        while _memory_cache_bytes > _MEMORY_CACHE_BYTES:
            _, (v, f, _s) = _memory_cache.popitem(last=False)
            _memory_cache_bytes -= v.nbytes + f.nbytes


#: Largest disk entry read (bytes): a 1 GiB STL holds at most ~21 M triangles, whose
#: unshared vertices and faces take ~2 GB.
_MAX_ENTRY_BYTES = 4 * MAX_MESH_BYTES

#: Largest ``meta.json`` member read (bytes).
_MAX_META_BYTES = 64 << 10

_MEMBERS = {"meta.json", "vertices.npy", "faces.npy"}

#: stats key -> accepted type(s), as :func:`geom3d.mesh.load._build` writes them.
_STATS_TYPES = {
    "format": str,
    "units": str,
    "scale_to_mm": float,
    "y_up_converted": bool,
    "n_triangles_raw": int,
    "n_triangles": int,
    "n_degenerate_removed": int,
    "n_vertices": int,
    "n_bodies": int,
    "n_open_edges": int,
    "n_nonmanifold_edges": int,
    "watertight": bool,
    "extent_mm": list,
}


#: A zip member's local header: signature, then (22 bytes on) its name's and extra
#: field's lengths.
_LOCAL_HEADER = struct.Struct("<4s22xHH")

#: Where an array member's data start in the file: a multiple of this (bytes), so the
#: array maps in place, aligned (numpy pads a ``.npy`` header to 64 bytes too).
_ALIGN = 64

#: The zip64 extra field ``zipfile`` adds to a member's local header (``force_zip64``).
_ZIP64_LOCAL_EXTRA = 20

#: The extra-field id of the padding that aligns a member (the one Android's zipalign
#: uses; zip readers skip extra fields they do not know).
_PAD_EXTRA_ID = 0xD935


class BadEntry(Exception):
    """Why a disk cache entry is not used."""


def _check_stats(stats) -> dict:
    if not isinstance(stats, dict) or set(stats) != set(_STATS_TYPES):
        raise BadEntry("metadata has other fields than expected")
    for k, kind in _STATS_TYPES.items():
        v = stats[k]
        ok = isinstance(v, kind) and (kind is bool or not isinstance(v, bool))
        if kind is float and isinstance(v, int) and not isinstance(v, bool):
            ok = True
        if not ok or (kind is int and v < 0):
            raise BadEntry(f"metadata field {k!r} is invalid")
    ext = stats["extent_mm"]
    if len(ext) != 3 or not all(isinstance(x, int | float) and x >= 0 for x in ext):
        raise BadEntry("metadata field 'extent_mm' is invalid")
    return {**stats, "extent_mm": tuple(float(x) for x in ext)}


def read_array(zf: zipfile.ZipFile, name: str, dtype: str, rows: int) -> np.ndarray:
    """A ``(rows, 3)`` array of exactly ``dtype`` from a stored ``.npy`` member.

    The member's bytes must pass its CRC, as ``zipfile`` would check them. Its data start
    on a multiple of ``_ALIGN`` bytes in the file (:func:`disk_put` writes them so), and
    the array is a copy-on-write map of the file there (``mmap.ACCESS_COPY``): writable,
    and no bytes copied. A 1M-triangle entry (96 MB) maps in ~0.02 s (the CRC pass),
    where reading it into new memory took 0.03-0.15 s, most of it the kernel zeroing
    fresh pages. Where the file cannot be mapped, the bytes are read into a new array.
    Entries are replaced by renaming, never rewritten in place, so a mapped file does not
    change under the map.
    """
    info = zf.getinfo(name)
    fh = zf.fp
    assert fh is not None  # the archive is open
    fh.seek(info.header_offset)
    local = fh.read(_LOCAL_HEADER.size)
    if len(local) != _LOCAL_HEADER.size:
        raise BadEntry(f"{name}: truncated")
    signature, n_name, n_extra = _LOCAL_HEADER.unpack(local)
    # zipfile's local-header signature: a module constant typeshed does not declare
    if signature != zipfile.stringFileHeader:  # type: ignore[attr-defined]
        raise BadEntry(f"{name}: bad local header")
    start = info.header_offset + _LOCAL_HEADER.size + n_name + n_extra
    fh.seek(start)
    version = np.lib.format.read_magic(fh)
    if version == (1, 0):
        shape, fortran, dt = np.lib.format.read_array_header_1_0(fh)
    elif version == (2, 0):
        shape, fortran, dt = np.lib.format.read_array_header_2_0(fh)
    else:
        raise BadEntry(f"{name}: unsupported .npy version {version}")
    if dt != np.dtype(dtype) or fortran or shape != (rows, 3):
        raise BadEntry(f"{name}: {dt} {shape}, expected {dtype} ({rows}, 3)")
    head = fh.tell() - start
    if info.file_size != head + rows * 3 * np.dtype(dtype).itemsize:
        raise BadEntry(f"{name}: size does not match its header")
    if (start + head) % _ALIGN:
        raise BadEntry(f"{name}: data not aligned")
    try:
        mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_COPY)
    except (OSError, ValueError):  # a file system that cannot map: read it
        return _read_copy(fh, info, start, head, dtype, rows, name)
    if len(mm) < start + info.file_size:
        raise BadEntry(f"{name}: truncated")
    with memoryview(mm) as view:
        crc = zlib.crc32(view[start : start + info.file_size])
    if crc != info.CRC:
        raise BadEntry(f"{name}: bad CRC")
    out = np.frombuffer(mm, dtype=dtype, count=rows * 3, offset=start + head)
    return out.reshape(rows, 3)


def _read_copy(fh, info: zipfile.ZipInfo, start: int, head: int, dtype: str, rows: int, name):
    """:func:`read_array`'s bytes read into a new array, straight from the file (no
    buffering in between), CRC checked."""
    fh.seek(start)
    crc = zlib.crc32(fh.read(head))
    out = np.empty((rows, 3), dtype=dtype)
    # (a 1-D view: a (0, 3) array casts too); numpy's stubs give ndarray the buffer
    # protocol only for Python >= 3.12
    buf = memoryview(out.reshape(-1)).cast("B")  # type: ignore[arg-type]
    got = 0
    while got < len(buf):
        n = fh.readinto(buf[got:])
        if not n:
            raise BadEntry(f"{name}: truncated")
        got += n
    if zlib.crc32(buf, crc) != info.CRC:
        raise BadEntry(f"{name}: bad CRC")
    return out


def read_meta(zf: zipfile.ZipFile, key: str, kind: str = "cache") -> dict:
    """The metadata of an entry, after checking its shape: exactly the members geom3d
    writes, stored uncompressed (so nothing inflates), bounded metadata, written for
    ``key``. Raises ``BadEntry`` otherwise."""
    infos = zf.infolist()
    if {i.filename for i in infos} != _MEMBERS or len(infos) != len(_MEMBERS):
        raise BadEntry(f"not a geom3d {kind} entry (other members)")
    for i in infos:
        if i.compress_type != zipfile.ZIP_STORED or i.file_size != i.compress_size:
            raise BadEntry("compressed member (geom3d stores entries uncompressed)")
    if zf.getinfo("meta.json").file_size > _MAX_META_BYTES:
        raise BadEntry("metadata too large")
    meta = json.loads(zf.read("meta.json"))
    if not isinstance(meta, dict) or meta.get("key") != key:
        raise BadEntry("entry was written for another key")
    return meta


def _read_entry(fh, key: str, source_digest: str):
    with zipfile.ZipFile(fh) as zf:
        meta = read_meta(zf, key)
        if meta.get("source_sha256") != source_digest:
            raise BadEntry("entry was written for another source file")
        stats = _check_stats(meta.get("stats"))
        vertices = read_array(zf, "vertices.npy", "<f8", stats["n_vertices"])
        faces = read_array(zf, "faces.npy", "<i8", stats["n_triangles"])
    if not np.all(np.isfinite(vertices)):
        raise BadEntry("non-finite vertex coordinates")
    if len(faces) and (faces.min() < 0 or faces.max() >= len(vertices)):
        raise BadEntry("face index out of range")
    return vertices, faces, stats


def disk_get(cache_file: Path, key: str, source_digest: str):
    """A verified disk cache entry ``(vertices, faces, stats)``, or None.

    Parameters
    ----------
    cache_file : pathlib.Path
    key : str
        The cache key the entry must have been written for.
    source_digest : str
        SHA-256 (hex) of the source mesh just read; the entry must record the same.

    Returns
    -------
    tuple or None
        None when there is no entry; also when the entry fails verification (see the
        module docstring), after logging a warning: the caller re-parses the mesh.
    """
    return read_entry_file(
        cache_file,
        lambda fh: _read_entry(fh, key, source_digest),
        lambda why: _warn_bad(cache_file, why),
    )


def read_entry_file(path: Path, read, warn):
    """Open a cache entry the safe way and hand it to ``read``; None when it is not usable.

    The one gate every cache entry (meshes, closings) passes: opened without following a
    symlink and without blocking (a FIFO never hangs), a regular file owned by this user
    and no larger than any entry geom3d writes. ``read(fh)`` verifies the content and
    raises ``BadEntry`` (or a parsing error) when it is wrong; ``warn(why)`` is called
    with the reason, and the caller rebuilds the entry.

    Parameters
    ----------
    path : pathlib.Path
    read : callable(binary file) -> object
    warn : callable(str) -> None

    Returns
    -------
    object or None
        What ``read`` returned; None when there is no entry or it was refused.
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        warn(f"cannot open it ({exc.strerror or exc})")
        return None
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        mode = 0
    if not stat.S_ISREG(mode):  # a folder planted at the name (fdopen refuses one)
        os.close(fd)
        warn("not a regular file")
        return None
    with os.fdopen(fd, "rb") as fh:
        try:
            st = os.fstat(fh.fileno())
            if not stat.S_ISREG(st.st_mode):
                raise BadEntry("not a regular file")
            if hasattr(os, "geteuid") and st.st_uid != os.geteuid():
                raise BadEntry("owned by another user")
            if st.st_size > _MAX_ENTRY_BYTES:
                raise BadEntry("larger than any entry geom3d writes")
            return read(fh)
        except BadEntry as exc:
            warn(str(exc))
        except (OSError, ValueError, EOFError, KeyError, TypeError, zipfile.BadZipFile) as exc:
            # corrupt, truncated or foreign file (ValueError covers bad JSON / .npy headers)
            warn(f"unreadable ({type(exc).__name__})")
    return None


def _warn_bad(cache_file: Path, why: str) -> None:
    log.warning(printable(f"geom3d: ignoring mesh cache entry {cache_file}: {why}; re-parsing"))


def _aligned_member(name: str, offset: int) -> zipfile.ZipInfo:
    """A stored member whose local header starts at ``offset`` and whose data start on a
    multiple of ``_ALIGN``: a padding extra field (4 bytes of id and size, then zeros)."""
    member = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    member.compress_type = zipfile.ZIP_STORED
    start = offset + _LOCAL_HEADER.size + len(name.encode()) + _ZIP64_LOCAL_EXTRA
    pad = -start % _ALIGN
    if pad:
        pad += _ALIGN if pad < 4 else 0
        member.extra = struct.pack("<HH", _PAD_EXTRA_ID, pad - 4) + bytes(pad - 4)
    return member


def _clear_folder_at(path: Path) -> None:
    """Remove a folder (not a link) that sits at a cache entry's name, so the entry can
    be renamed into place: moved aside to a fresh name first, then deleted."""
    if not os.path.isdir(path) or os.path.islink(path):
        return
    import shutil

    aside = tempfile.mkdtemp(dir=path.parent, prefix=f".{path.stem}.stale.")
    os.replace(path, os.path.join(aside, "entry"))
    shutil.rmtree(aside, ignore_errors=True)


def disk_put(cache_file: Path, key: str, source_digest: str, vertices, faces, stats: dict) -> None:
    """Write a disk cache entry atomically (temp file + rename); failures are logged."""
    tmp_name = None
    meta = {"key": key, "source_sha256": source_digest, "stats": stats}
    try:
        cache_file.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(
            dir=cache_file.parent, prefix=f".{cache_file.stem}.", suffix=".tmp"
        )
        os.chmod(tmp_name, 0o644)  # mkstemp makes 0600; a shared cache should be readable
        with os.fdopen(fd, "wb") as fh, zipfile.ZipFile(fh, "w", zipfile.ZIP_STORED) as zf:
            zf.writestr("meta.json", json.dumps(meta, sort_keys=True))
            for name, arr, dtype in (("vertices", vertices, "<f8"), ("faces", faces, "<i8")):
                member = _aligned_member(f"{name}.npy", fh.tell())
                with zf.open(member, "w", force_zip64=True) as out:
                    arr = np.ascontiguousarray(arr, dtype=dtype)
                    np.lib.format.write_array(out, arr, version=(1, 0), allow_pickle=False)
        _clear_folder_at(cache_file)
        os.replace(tmp_name, cache_file)
        tmp_name = None
    except OSError as exc:
        log.warning(printable(f"geom3d: could not write mesh cache {cache_file}: {exc}"))
    finally:
        if tmp_name is not None:
            try:
                os.unlink(tmp_name)
            except OSError:
                pass
