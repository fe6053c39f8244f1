"""Closing results cached in memory and on disk, next to the mesh parse cache.

Closing a large open mesh (merging positions, finding its open edges, building curtains)
takes seconds on a million-triangle table; the result depends only on the placed
triangles, the floor and the closing tolerances. :func:`cached_closing` keys it by a
digest of exactly those (:func:`closing_key`), keeps it in the in-process mesh cache
(:func:`geom3d.mesh.cache.memory_get`, so ``clear_memory_cache`` empties it too) and in
one ``closing-<key>.npz`` file in the mesh cache folder (:func:`default_cache_dir`).

A disk entry is verified as the mesh cache verifies its own (:mod:`geom3d.mesh.cache`):
a regular file owned by this user, of bounded size, a stored (uncompressed) zip of exactly
``meta.json``, ``vertices.npy``, ``faces.npy``; ``meta.json`` names this key; the arrays
are plain little-endian float64 / int64 ``(n, 3)`` read without pickles and pass their
CRC; vertices are finite, face indices in range, the report has exactly the
:class:`ClosingReport` fields with the right types and counts the faces stored. Anything
else is ignored with a logged warning and closing is recomputed (and the entry rewritten
atomically: temporary file, then rename).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

from geom3d.core.errors import printable
from geom3d.mesh import tolerances
from geom3d.mesh.cache import (
    BadEntry,
    default_cache_dir,
    disk_put,
    log,
    memory_get,
    memory_put,
    read_array,
    read_entry_file,
    read_meta,
)
from geom3d.mesh.closing import ClosingReport
from geom3d.mesh.digest import array_digest

__all__ = ["CLOSING_CACHE_VERSION", "cached_closing", "closing_key"]

#: Bump when closing's output (or the entry's layout) changes for the same input (2: arrays
#: aligned to map in place; 3: the winding-number closing's report fields).
CLOSING_CACHE_VERSION: int = 3

_TOLERANCES = (
    "CURTAIN_FLOOR_EPS_MM",
    "CURTAIN_FLOOR_STEP_MM",
    "BASE_LOOP_COVER",
    "BASE_LOOP_GAP_MM",
    "CAP_CHECK_OFFSET",
    "CAP_CHECK_MIN_MM",
    "CAP_CHECK_MAX_MM",
    "CAP_CHECK_SAMPLES",
    "FRAGMENT_FLOOR_TOL_MM",
    "TABLE_CAP_MARGIN_MM",
    "TABLE_FLOOR_DEPTH_MM",
)

_FIELDS = {f.name: f.type for f in dataclasses.fields(ClosingReport)}
_INT = {"open_edges", "nonmanifold_edges", "loops", "holes", "curtain_triangles"}
_INT |= {"cap_triangles", "skipped_edges", "fragments", "base_loops", "caps", "caps_rejected"}
_FLOAT = {"largest_hole_mm", "largest_hole_perimeter_mm", "gap_under_mm"}
_FLOAT |= {"lowest_above_floor_mm", "largest_cap_mm", "largest_cap_height_mm"}


def closing_key(kind: str, vertices: np.ndarray, faces: np.ndarray, floor: str) -> str:
    """Cache key of closing ``(vertices, faces)`` by ``kind`` over ``floor``.

    Parameters
    ----------
    kind : str
        ``table``, ``curtains`` or ``caps``.
    vertices : (n, 3) float64, mm
        The mesh as placed (scale, rotation, position applied).
    faces : (m, 3) int64
    floor : str
        What the floor is: a number as text, or a digest of the table mesh beneath.

    Returns
    -------
    str
        ``closing-<hex digest>-v<version>``.
    """
    h = hashlib.sha256()
    tol = {k: getattr(tolerances, k) for k in _TOLERANCES}
    h.update(json.dumps([kind, floor, tol], sort_keys=True).encode())
    h.update(array_digest(np.asarray(vertices, np.float64), np.asarray(faces, np.int64)).encode())
    return f"closing-{h.hexdigest()}-v{CLOSING_CACHE_VERSION}"


def _report(d) -> ClosingReport:
    """A ClosingReport from cached metadata, every field checked."""
    if not isinstance(d, dict) or set(d) != set(_FIELDS):
        raise BadEntry("report has other fields than expected")
    for k, v in d.items():
        if k in _INT:
            ok = isinstance(v, int) and not isinstance(v, bool) and v >= 0
        elif k in _FLOAT:
            ok = isinstance(v, int | float) and not isinstance(v, bool) and np.isfinite(v)
        elif k == "method":
            ok = v in ("none", "curtains", "table", "caps")
        elif k == "notes":
            ok = isinstance(v, list) and all(isinstance(x, str) for x in v)
        else:  # floating_fragments, floor_z_mm: number or None
            ok = v is None or (isinstance(v, int | float) and not isinstance(v, bool))
        if not ok:
            raise BadEntry(f"report field {k!r} is invalid")
    d = {k: (float(v) if k in _FLOAT else v) for k, v in d.items()}
    if d["floor_z_mm"] is not None:
        d["floor_z_mm"] = float(d["floor_z_mm"])
    return ClosingReport(**{**d, "notes": list(d["notes"])})


def _read(fh, key: str):
    with zipfile.ZipFile(fh) as zf:
        meta = read_meta(zf, key, "closing cache")
        if meta.get("source_sha256") != key:
            raise BadEntry("entry was written for another key")
        stats = meta.get("stats")
        if not isinstance(stats, dict) or set(stats) != {"n_vertices", "n_triangles", "report"}:
            raise BadEntry("metadata has other fields than expected")
        nv, nf = stats["n_vertices"], stats["n_triangles"]
        if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in (nv, nf)):
            raise BadEntry("metadata counts are invalid")
        rep = _report(stats["report"])
        v = read_array(zf, "vertices.npy", "<f8", nv)
        f = read_array(zf, "faces.npy", "<i8", nf)
    if not np.all(np.isfinite(v)):
        raise BadEntry("non-finite vertex coordinates")
    if len(f) and (f.min() < 0 or f.max() >= len(v)):
        raise BadEntry("face index out of range")
    if len(f) != rep.curtain_triangles + rep.cap_triangles:
        raise BadEntry("face count does not match the report")
    return v, f, rep


def _disk_get(path: Path, key: str):
    return read_entry_file(path, lambda fh: _read(fh, key), lambda why: _warn(path, why))


def _warn(path: Path, why: str) -> None:
    log.warning(printable(f"geom3d: ignoring closing cache entry {path}: {why}; recomputing"))


def _readonly(a: np.ndarray) -> np.ndarray:
    a = np.array(a, copy=True) if a.flags.writeable and not a.flags.owndata else a
    a.flags.writeable = False
    return a


def cached_closing(key: str, compute: Callable[[], tuple], cache_dir=None):
    """``compute()`` (extra vertices, extra faces, ClosingReport), cached under ``key``.

    Parameters
    ----------
    key : str
        From :func:`closing_key`.
    compute : callable
        Returns ``(extra_vertices (c, 3) float64 mm, extra_faces (t, 3) int64,
        ClosingReport)``.
    cache_dir : path-like, optional
        Default :func:`geom3d.mesh.cache.default_cache_dir`.

    Returns
    -------
    (extra_vertices, extra_faces, ClosingReport, hit)
        ``hit``: whether the result came from a cache. The arrays are read-only; the
        report is a fresh object.
    """
    entry = memory_get(key)
    if entry is not None:
        v, f, meta = entry
        return v, f, ClosingReport(**{**meta, "notes": list(meta["notes"])}), True
    path = Path(cache_dir if cache_dir is not None else default_cache_dir()) / f"{key}.npz"
    got = _disk_get(path, key)
    hit = got is not None
    if got is None:
        v, f, rep = compute()
        v = np.ascontiguousarray(v, np.float64)
        f = np.ascontiguousarray(f, np.int64)
        d = dataclasses.asdict(rep)
        stats = {"n_vertices": len(v), "n_triangles": len(f), "report": d}
        disk_put(path, key, key, v, f, stats)
    else:
        v, f, rep = got
    v, f = _readonly(v), _readonly(f)
    memory_put(key, v, f, dataclasses.asdict(rep))
    return v, f, dataclasses.replace(rep, notes=list(rep.notes)), hit
