"""The one digest of a mesh file's content: SHA-256 of its bytes (and glTF buffers).

Used for the mesh parse cache's keys (:mod:`geom3d.mesh.load`) and for the scene's
scenery cache key (:mod:`geom3d.scene`).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

__all__ = ["content_digest", "file_digest"]

#: Bytes read at a time when hashing a file from disk.
_CHUNK = 1 << 20

#: (path, size, mtime_ns) -> digest, for files whose content is only the file itself.
_MEMO: dict[tuple[str, int, int], str] = {}


def _is_gltf(path: Path) -> bool:
    return path.suffix.lower() == ".gltf"


def _gltf_buffers(path: Path, data: bytes) -> list[Path]:
    """External buffer files a glTF document references (data: URIs excluded)."""
    try:
        doc = json.loads(data)
        uris = [b.get("uri", "") for b in doc.get("buffers", [])]
    except (ValueError, AttributeError, TypeError):
        return []  # the parser will report the broken file
    return [
        path.parent / uri
        for uri in uris
        if isinstance(uri, str) and uri and not uri.startswith("data:")
    ]


def content_digest(path: str | Path, data: bytes | None = None) -> str:
    """SHA-256 (hex) of a mesh file, plus any external glTF buffers it references.

    Parameters
    ----------
    path : str or pathlib.Path
        The file; a ``.gltf`` file's buffers resolve against its folder.
    data : bytes, optional
        The file's bytes when already read; otherwise the file is read in chunks.

    Returns
    -------
    str
        64 hex digits. Unreadable glTF buffers are left out (the parser reports them).

    Raises
    ------
    OSError
        ``data`` not given and the file cannot be read.
    """
    path = Path(path)
    digest = hashlib.sha256()
    if data is None:
        with open(path, "rb") as fh:
            for chunk in iter(lambda: fh.read(_CHUNK), b""):
                digest.update(chunk)
    else:
        digest.update(data)
    if _is_gltf(path):
        if data is None:
            data = path.read_bytes()
        for buffer in _gltf_buffers(path, data):
            try:
                digest.update(buffer.read_bytes())
            except OSError:
                pass  # the parser will report the missing buffer
    return digest.hexdigest()


def file_digest(path: str | Path) -> str:
    """:func:`content_digest` of a file on disk, remembered by (path, size, mtime).

    A ``.gltf`` file is hashed every time (its buffers may change on their own).
    """
    path = Path(path)
    if _is_gltf(path):
        return content_digest(path)
    st = path.stat()
    key = (str(path), st.st_size, st.st_mtime_ns)
    if key not in _MEMO:
        _MEMO[key] = content_digest(path)
    return _MEMO[key]
