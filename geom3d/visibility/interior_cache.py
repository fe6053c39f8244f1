"""The blocking-proof map's interior runs, cached on disk next to the mesh parse cache.

Building the runs of a million-triangle table (labelling its closed solids, clipping every
triangle to its columns, deciding parity) takes seconds; the result depends only on the
blocking mesh, what is closed, and the ``PROOF_*`` tolerances. :func:`cached_interior`
(:func:`read_interior`, else :func:`build_interior`) keys it by a digest of exactly
those (:func:`geom3d.mesh.digest.array_digest`) and keeps one ``interior-<key>.npz`` file
in the mesh cache folder (:func:`geom3d.mesh.cache.default_cache_dir`).

An entry passes the same gate as every geom3d cache entry
(:func:`geom3d.mesh.cache.read_entry_file`: a regular file of this user, bounded, a stored
zip of exactly ``meta.json``, ``vertices.npy``, ``faces.npy``, written for this key, read
without pickles) and is then checked for what it must be: counts that match the mesh, a
grid of the right size, run offsets rising from 0 to the number of runs, finite runs with
``lo <= hi``, labels in range. Anything else is ignored with a logged warning and the
map is rebuilt (and the entry rewritten atomically).

The two arrays of the entry format hold, flattened and padded to rows of three: the
floats ``grid (6), run_lo (r), run_hi (r), boxes (6 b)`` (the interior boxes,
:mod:`.interior_boxes`, made with the runs); the integers ``run_off (cells + 1),
label (m), closed (k), tile_off (tiles + 1), tile_tri (t)`` (:attr:`InteriorMap.tiles`:
binning a million triangles again would take longer than reading them).
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

from geom3d.core.errors import printable
from geom3d.mesh.cache import (
    BadEntry,
    default_cache_dir,
    disk_put,
    log,
    read_array,
    read_entry_file,
    read_meta,
)
from geom3d.mesh.digest import array_digest
from geom3d.visibility import tolerances
from geom3d.visibility.interior import InteriorMap
from geom3d.visibility.interior_boxes import interior_boxes

__all__ = [
    "INTERIOR_CACHE_VERSION",
    "build_interior",
    "cached_interior",
    "interior_key",
    "read_interior",
]

#: Bump when the runs, the interior boxes' making (:mod:`.interior_boxes`) or the entry's
#: layout change for the same input (3: arrays aligned to map in place; 5: the interior
#: boxes stored with the runs).
INTERIOR_CACHE_VERSION: int = 5

_TOLERANCES = (
    "INTERIOR_BOX_LEVEL_MM",
    "INTERIOR_BOX_MAX",
    "INTERIOR_BOX_MIN_HEIGHT_MM",
    "INTERIOR_BOX_MIN_RISE_MM",
    "INTERIOR_BOX_MIN_SIDE_MM",
    "INTERIOR_BOX_MIN_SPAN_MM",
    "INTERIOR_BOX_NEW_SHARE",
    "PROOF_COLUMN_MM",
    "PROOF_EPS_MM",
    "PROOF_FLAT_MM",
    "PROOF_GUARD_MM",
    "PROOF_MAX_COLUMNS",
)
_STATS = {
    "n_boxes",
    "n_vertices",
    "n_triangles",
    "n_runs",
    "n_cells",
    "n_faces",
    "n_labels",
    "n_tiles",
    "n_tile_tris",
}


def interior_key(*arrays: np.ndarray, extra: str = "") -> str:
    """Cache key of the map of a blocking mesh.

    Parameters
    ----------
    *arrays : numpy arrays
        Everything the map depends on: the blocking vertices and faces, and whatever
        decides the closed solids (element of each face, ...).
    extra : str
        Anything else it depends on, as text (e.g. how the table was closed).

    Returns
    -------
    str
        ``interior-<hex digest>-v<version>``.
    """
    h = hashlib.sha256()
    tol = {k: getattr(tolerances, k) for k in _TOLERANCES}
    h.update(json.dumps([extra, tol], sort_keys=True).encode())
    h.update(array_digest(*arrays).encode())
    return f"interior-{h.hexdigest()}-v{INTERIOR_CACHE_VERSION}"


def _rows(flat: np.ndarray) -> np.ndarray:
    pad = (-len(flat)) % 3
    return np.concatenate([flat, np.zeros(pad, flat.dtype)]).reshape(-1, 3)


def _count(stats: dict, name: str) -> int:
    n = stats[name]
    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
        raise BadEntry(f"metadata count {name!r} is invalid")
    return n


def _read(fh, key: str, n_faces: int):
    with zipfile.ZipFile(fh) as zf:
        meta = read_meta(zf, key, "proof map cache")
        stats = meta.get("stats")
        if meta.get("source_sha256") != key or not isinstance(stats, dict):
            raise BadEntry("entry was written for another key")
        if set(stats) != _STATS:
            raise BadEntry("metadata has other fields than expected")
        n = {k: _count(stats, k) for k in _STATS}
        # new, writable arrays (which the kernels are compiled for), sliced below
        fl = read_array(zf, "vertices.npy", "<f8", n["n_vertices"]).ravel()
        it = read_array(zf, "faces.npy", "<i8", n["n_triangles"]).ravel()
    r, cells, m, k = n["n_runs"], n["n_cells"], n["n_faces"], n["n_labels"]
    tiles, tt, nb = n["n_tiles"], n["n_tile_tris"], n["n_boxes"]
    if m != n_faces or len(fl) < 6 + 2 * r + 6 * nb or len(it) < cells + 1 + m + k + tiles + 1 + tt:
        raise BadEntry("counts do not match the mesh")
    grid = fl[:6]
    lo, hi = fl[6 : 6 + r], fl[6 + r : 6 + 2 * r]
    boxes = fl[6 + 2 * r : 6 + 2 * r + 6 * nb].reshape(nb, 6)
    off = it[: cells + 1]
    label = it[cells + 1 : cells + 1 + m]
    closed = it[cells + 1 + m : cells + 1 + m + k]
    at = cells + 1 + m + k
    t_off, t_tri = it[at : at + tiles + 1], it[at + tiles + 1 : at + tiles + 1 + tt]
    if not np.all(np.isfinite(grid)) or grid[2] <= 0 or int(grid[3]) * int(grid[4]) != cells:
        raise BadEntry("grid does not match its cells")
    if off[0] != 0 or off[-1] != r or np.any(np.diff(off) < 0):
        raise BadEntry("run offsets are invalid")
    if not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi)) and np.all(lo <= hi)):
        raise BadEntry("runs are invalid")
    if m and (label.min() < 0 or label.max() >= k):
        raise BadEntry("labels out of range")
    if np.any((closed != 0) & (closed != 1)):
        raise BadEntry("closed flags are invalid")
    if t_off[0] != 0 or t_off[-1] != tt or np.any(np.diff(t_off) < 0):
        raise BadEntry("tile offsets are invalid")
    if tt and (t_tri.min() < 0 or t_tri.max() >= m):
        raise BadEntry("tile triangles out of range")
    if not (np.all(np.isfinite(boxes)) and np.all(boxes[:, :3] < boxes[:, 3:])):
        raise BadEntry("interior boxes are invalid")
    return label, closed.astype(bool), (grid, off, lo, hi), (t_off, t_tri), boxes


def cached_interior(
    key: str,
    vertices: np.ndarray,
    faces: np.ndarray,
    solids: Callable[[], tuple[np.ndarray, np.ndarray]],
    cache_dir=None,
) -> tuple[InteriorMap, bool]:
    """The :class:`InteriorMap` of a blocking mesh, from the disk cache when it is there
    (:func:`read_interior`), else built and stored (:func:`build_interior`).

    Parameters
    ----------
    key : str
        From :func:`interior_key`.
    vertices : (n, 3) float64, mm
    faces : (m, 3) int64
    solids : callable
        ``solids() -> (label (m,) int64, closed (k,) bool)``; called only on a miss.
    cache_dir : path-like, optional
        Default :func:`geom3d.mesh.cache.default_cache_dir`.

    Returns
    -------
    (InteriorMap, hit)
    """
    im = read_interior(key, vertices, faces, cache_dir)
    if im is not None:
        return im, True
    return build_interior(key, vertices, faces, solids, cache_dir), False


def read_interior(key: str, vertices: np.ndarray, faces: np.ndarray, cache_dir=None):
    """The cached :class:`InteriorMap` of a blocking mesh, or None.

    None when there is no entry for ``key``, and when the entry fails its checks (after
    logging a warning: :func:`build_interior` then rewrites it). Arguments as
    :func:`cached_interior`. Safe to call from a background thread.
    """
    path = _entry_path(key, cache_dir)
    got = read_entry_file(path, lambda fh: _read(fh, key, len(faces)), lambda w: _warn(path, w))
    if got is None:
        return None
    label, closed, runs, tiles, boxes = got
    im = InteriorMap(vertices, faces, label, closed, runs=runs, tiles=tiles)
    im.cache_key = key
    im.boxes = boxes
    return im


def build_interior(
    key: str,
    vertices: np.ndarray,
    faces: np.ndarray,
    solids: Callable[[], tuple[np.ndarray, np.ndarray]],
    cache_dir=None,
) -> InteriorMap:
    """Build the :class:`InteriorMap` of a blocking mesh and store it under ``key``
    (atomically; a failed write is logged). Arguments as :func:`cached_interior`."""
    label, closed = solids()
    im = InteriorMap(vertices, faces, label, closed)
    im.cache_key = key
    boxes = interior_boxes(im)
    fl = np.concatenate([im.grid, im.run_lo, im.run_hi, boxes.ravel()]).astype(np.float64)
    t_off, t_tri = im.tiles
    it = np.concatenate([im.run_off, im.label, im.closed.astype(np.int64), t_off, t_tri])
    it = it.astype(np.int64)
    stats = {
        "n_runs": len(im.run_lo),
        "n_cells": len(im.run_off) - 1,
        "n_faces": len(im.label),
        "n_labels": len(im.closed),
        "n_tiles": len(t_off) - 1,
        "n_tile_tris": len(t_tri),
        "n_boxes": len(boxes),
    }
    fl, it = _rows(fl), _rows(it)
    stats.update(n_vertices=len(fl), n_triangles=len(it))
    path = _entry_path(key, cache_dir)
    disk_put(path, key, key, fl, it, stats)
    return im


def _entry_path(key: str, cache_dir) -> Path:
    return Path(cache_dir if cache_dir is not None else default_cache_dir()) / f"{key}.npz"


def _warn(path: Path, why: str) -> None:
    log.warning(printable(f"geom3d: ignoring proof map cache entry {path}: {why}; rebuilding"))
