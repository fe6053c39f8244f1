"""The one digest of a mesh file's content: SHA-256 of its bytes and its external buffers.

A glTF (``.gltf``) or GLB (``.glb``) file may keep its geometry in external buffer files
(``buffers[i].uri``); those bytes are part of the mesh, so they are part of the digest
(editing the ``.bin`` next to a GLB changes the digest, and so the cache key).

External buffers are read here, once, by :func:`gltf_external_buffers`, and the parser
is handed exactly these bytes (:mod:`geom3d.mesh.load`), never a path. A buffer ``uri``
must be a relative path inside the glTF file's own folder (after resolving ``..`` and
symbolic links): no absolute path, no URL scheme (``http:``, ``file:``), no FIFO or device,
and all external buffers together at most ``MAX_MESH_BYTES``. ``data:`` URIs (embedded
base64) are part of the file itself.

Used for the mesh parse cache's keys (:mod:`geom3d.mesh.load`) and for the scene's
scenery cache key (:mod:`geom3d.scene.scene`).

Arrays (the placed table, the blocking mesh) are keyed by :func:`array_digest`, a 128-bit
XXH3 of their bytes: the keys of the closing and proof-map caches are taken over a
hundred megabytes on every load of a million-triangle table, where SHA-256 took ~0.05 s
a key and XXH3 takes ~0.005 s. A cache key needs no resistance to a crafted collision
(an entry is the user's own, and is checked against the mesh it is read for).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import struct
from pathlib import Path
from urllib.parse import unquote

import numpy as np
import xxhash

from geom3d.core.errors import MeshError
from geom3d.core.inputfile import InputFileProblem, iter_regular, read_regular
from geom3d.mesh.limits import MAX_MESH_BYTES

__all__ = [
    "array_digest",
    "content_digest",
    "file_digest",
    "gltf_buffer_paths",
    "gltf_external_buffers",
    "gltf_json",
]

#: How :func:`file_digest` starts for a file it cannot read (a digest of the problem).
UNREADABLE_PREFIX = "unreadable-"

#: (path, size, mtime_ns) -> digest, for files whose content is only the file itself.
_MEMO: dict[tuple[str, int, int], str] = {}

#: ``scheme:`` at the start of a URI (RFC 3986), e.g. ``http:``, ``file:``, ``C:``.
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")

_GLB_MAGIC = b"glTF"
_GLB_JSON = 0x4E4F534A  # "JSON", little-endian


def _has_buffers(path: Path) -> bool:
    return path.suffix.lower() in (".gltf", ".glb")


def gltf_json(path: Path, data: bytes):
    """The JSON document of a ``.gltf`` file or of a GLB's first chunk, or None if broken."""
    try:
        if path.suffix.lower() == ".glb":
            if len(data) < 20 or data[:4] != _GLB_MAGIC:
                return None
            length, kind = struct.unpack_from("<II", data, 12)
            if kind != _GLB_JSON or 20 + length > len(data):
                return None
            data = data[20 : 20 + length]
        return json.loads(data)
    except (ValueError, struct.error, RecursionError):
        return None  # the parser reports the broken file


def _is_embedded(uri: str) -> bool:
    # trimesh decodes any URI holding "base64," itself (geom3d.mesh.load hands it the
    # same string); every other URI goes through the resolver, i.e. through here.
    return "base64," in uri


def _buffer_file(folder: Path, uri: str, where: str, file: str) -> Path:
    """The file a relative buffer ``uri`` names, inside ``folder``, else a MeshError."""

    def refuse(why: str) -> MeshError:
        return MeshError(f"{where}: {why} ({uri[:200]!r})", file=file)

    if _SCHEME.match(uri) or uri.startswith("//"):
        raise refuse("only relative file names are allowed, URLs are never fetched")
    name = unquote(uri)
    if not name.strip() or "\x00" in name:
        raise refuse("empty or invalid file name")
    if os.path.isabs(name) or name.startswith(("/", "\\")):
        raise refuse("absolute paths are not allowed; name a file next to the glTF file")
    target = Path(os.path.realpath(folder / name))
    if not target.is_relative_to(os.path.realpath(folder)):
        raise refuse("the buffer lies outside the glTF file's folder")
    return target


def gltf_external_buffers(path: str | Path, data: bytes) -> dict[str, bytes]:
    """The external buffers of a glTF/GLB file, keyed by their ``uri`` as written.

    Parameters
    ----------
    path : str or pathlib.Path
        The ``.gltf`` or ``.glb`` file (other suffixes: no buffers).
    data : bytes
        Its content.

    Returns
    -------
    dict[str, bytes]
        ``uri -> content`` in document order; ``data:`` URIs excluded. An unparseable
        document gives ``{}`` (the parser reports it).

    Raises
    ------
    MeshError
        (``file`` = ``path``, message starting ``buffers[i].uri:``) A URI that is absolute,
        a URL, outside the file's folder, not a regular file (FIFO, device, missing), or
        buffers over ``MAX_MESH_BYTES`` in total.
    """
    path = Path(path)
    if not _has_buffers(path):
        return {}
    doc = gltf_json(path, data)
    buffers = doc.get("buffers") if isinstance(doc, dict) else None
    if not isinstance(buffers, list):
        return {}
    folder = path.parent
    out: dict[str, bytes] = {}
    budget = MAX_MESH_BYTES
    for i, buf in enumerate(buffers):
        uri = buf.get("uri") if isinstance(buf, dict) else None
        if not isinstance(uri, str) or _is_embedded(uri) or uri in out:
            continue
        where = f"buffers[{i}].uri"
        target = _buffer_file(folder, uri, where, str(path))
        try:
            content = read_regular(target, budget)
        except InputFileProblem as exc:
            raise MeshError(f"{where}: {exc} ({uri[:200]!r})", file=str(path)) from None
        budget -= len(content)
        out[uri] = content
    return out


def _glb_json_chunk(path: Path) -> bytes:
    """A GLB's header and JSON chunk (the binary chunk is not read), a regular file only."""
    data = b""
    chunks = iter_regular(path, MAX_MESH_BYTES, chunk=1 << 16)
    try:
        for chunk in chunks:
            data += chunk
            if len(data) >= 20 and len(data) >= 20 + struct.unpack_from("<I", data, 12)[0]:
                break
    finally:
        getattr(chunks, "close", lambda: None)()  # a generator: close its file now
    return data


def gltf_buffer_paths(path: str | Path) -> list[Path]:
    """The files a glTF/GLB file's external buffers name (links resolved), as
    :func:`gltf_external_buffers` would read them; refused or unreadable ones left out.

    Reads only the glTF's JSON (a GLB's first chunk), never the buffers: for the
    commands' guard against writing a report over an input (:mod:`geom3d.commands._guard`).
    """
    path = Path(path)
    if not _has_buffers(path):
        return []
    try:
        if path.suffix.lower() == ".glb":
            data = _glb_json_chunk(path)
        else:
            data = read_regular(path, MAX_MESH_BYTES)
    except (OSError, InputFileProblem):
        return []
    doc = gltf_json(path, data)  # a GLB: its header and JSON chunk are enough
    buffers = doc.get("buffers") if isinstance(doc, dict) else None
    out: list[Path] = []
    for i, buf in enumerate(buffers if isinstance(buffers, list) else []):
        uri = buf.get("uri") if isinstance(buf, dict) else None
        if not isinstance(uri, str) or _is_embedded(uri):
            continue
        try:
            out.append(_buffer_file(path.parent, uri, f"buffers[{i}].uri", str(path)))
        except (MeshError, OSError, ValueError):
            continue
    return out


def content_digest(
    path: str | Path, data: bytes | None = None, buffers: dict[str, bytes] | None = None
) -> str:
    """SHA-256 (hex) of a mesh file's bytes plus its external glTF/GLB buffers.

    Parameters
    ----------
    path : str or pathlib.Path
        The file (its suffix decides whether it can have buffers).
    data : bytes, optional
        The file's content; read here (a regular file of at most ``MAX_MESH_BYTES``)
        when not given.
    buffers : dict[str, bytes], optional
        :func:`gltf_external_buffers` when already read; read here otherwise.

    Returns
    -------
    str
        64 hex digits.

    Raises
    ------
    MeshError
        The file cannot be read (``data`` not given), or a buffer URI is refused (see
        :func:`gltf_external_buffers`).
    """
    if data is None:
        try:
            data = read_regular(path, MAX_MESH_BYTES)
        except InputFileProblem as exc:
            raise MeshError(str(exc), file=str(path)) from None
    if buffers is None:
        buffers = gltf_external_buffers(path, data)
    digest = hashlib.sha256(data)
    for uri, content in buffers.items():
        # length-prefixed, so no two different (uri, content) lists hash alike
        for part in (uri.encode("utf-8", "surrogatepass"), content):
            digest.update(len(part).to_bytes(8, "little"))
            digest.update(part)
    return digest.hexdigest()


def file_digest(path: str | Path) -> str:
    """:func:`content_digest` of a file on disk, remembered by (path, size, mtime).

    A ``.gltf`` or ``.glb`` file is hashed every time (its buffers may change on their
    own). A file that cannot be read (missing, FIFO, device, too large, a refused buffer)
    gets a digest of the problem instead: :func:`geom3d.mesh.load_mesh` reports it with
    the scenario's field path, and nothing hangs or reads a device here.
    """
    path = Path(path)
    try:
        if _has_buffers(path):
            return content_digest(path, read_regular(path, MAX_MESH_BYTES))
        st = os.stat(path)
        key = (str(path), st.st_size, st.st_mtime_ns)
        if key not in _MEMO:
            digest = hashlib.sha256()
            for chunk in iter_regular(path, MAX_MESH_BYTES):
                digest.update(chunk)
            _MEMO[key] = digest.hexdigest()
        return _MEMO[key]
    except (OSError, InputFileProblem, MeshError) as exc:
        problem = f"unreadable|{path}|{type(exc).__name__}|{exc}"
        return UNREADABLE_PREFIX + hashlib.sha256(problem.encode("utf-8", "replace")).hexdigest()


def array_digest(*arrays: np.ndarray) -> str:
    """128-bit XXH3 (32 hex digits) of arrays' dtypes, shapes and bytes (C order).

    Parameters
    ----------
    *arrays : numpy arrays
        Any dtype and shape; two calls agree exactly when every array has the same dtype,
        shape and values (byte for byte: ``-0.0`` and ``0.0`` differ).

    Returns
    -------
    str
    """
    h = xxhash.xxh3_128()
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(f"{a.dtype.str}{a.shape};".encode())
        h.update(a.data)
    return h.hexdigest()
