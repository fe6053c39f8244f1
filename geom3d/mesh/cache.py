"""The mesh parse cache: an in-process LRU and one ``.npz`` file per key on disk.

Entries are ``(vertices, faces, stats)`` keyed by :func:`geom3d.mesh.load.cache_key`
(content digest, format, units, cache version). Disk entries are written to a temporary
file and renamed into place, so parallel workers never read a partial file; any problem
reading one counts as a miss.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import threading
from collections import OrderedDict
from pathlib import Path

import numpy as np

__all__ = [
    "clear_memory_cache",
    "default_cache_dir",
    "disk_get",
    "disk_put",
    "memory_get",
    "memory_put",
]

log = logging.getLogger(__name__)

#: In-process cache budget (bytes of vertex and face arrays).
_MEMORY_CACHE_BYTES = 1 << 30

_memory_cache: OrderedDict[str, tuple[np.ndarray, np.ndarray, dict]] = OrderedDict()
_memory_cache_bytes = 0
_memory_lock = threading.Lock()


def default_cache_dir() -> Path:
    """The disk cache directory used when ``cache_dir`` is not given.

    ``$GEOM3D_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/geom3d``, else
    ``~/.cache/geom3d``.
    """
    env = os.environ.get("GEOM3D_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "geom3d"


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


def disk_get(cache_file: Path, key: str):
    """Read a disk cache entry; any problem counts as a miss."""
    try:
        # open the file ourselves: np.load leaks its handle when the archive is corrupt
        with open(cache_file, "rb") as fh, np.load(fh, allow_pickle=False) as npz:
            meta = json.loads(str(npz["meta"][()]))
            vertices = np.array(npz["vertices"], dtype=np.float64)
            faces = np.array(npz["faces"], dtype=np.int64)
    except FileNotFoundError:
        return None
    except Exception as exc:  # corrupt, truncated, foreign file: re-parse
        log.debug("ignoring unreadable mesh cache entry %s: %s", cache_file, exc)
        return None
    if (
        meta.get("key") != key
        or vertices.ndim != 2
        or vertices.shape[1:] != (3,)
        or faces.ndim != 2
        or faces.shape[1:] != (3,)
    ):
        return None
    return vertices, faces, meta["stats"]


def disk_put(cache_file: Path, key: str, vertices, faces, stats: dict) -> None:
    """Write a disk cache entry atomically (temp file + rename); failures are logged."""
    tmp_name = None
    try:
        cache_file.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(
            dir=cache_file.parent, prefix=f".{cache_file.stem}.", suffix=".tmp"
        )
        os.chmod(tmp_name, 0o644)  # mkstemp makes 0600; a shared cache should be readable
        with os.fdopen(fd, "wb") as fh:
            np.savez(
                fh,
                vertices=vertices,
                faces=faces,
                meta=np.array(json.dumps({"key": key, "stats": stats})),
            )
        os.replace(tmp_name, cache_file)
        tmp_name = None
    except OSError as exc:
        log.warning("could not write mesh cache %s: %s", cache_file, exc)
    finally:
        if tmp_name is not None:
            try:
                os.unlink(tmp_name)
            except OSError:
                pass
