"""Raw mesh loading with explicit, reported repair and a parse cache.

Meshes are read through trimesh *raw* (``process=False``): the vertices and faces handed
back are the file's own, in file order, with two exceptions that are always reported in
:class:`MeshReport`:

- unit scaling to millimetres (``units=``), and glTF/GLB's Y-up axes rotated to geom3d's
  Z-up, ``(x, y, z) -> (x, -z, y)``;
- degenerate triangles (a repeated vertex index, or zero area) are dropped.

Nothing is merged, welded, re-wound or filled. Topology statistics (bodies, boundary
edges, non-manifold edges) are computed on a private copy in which vertices at the same
position are identified, because STL and most scanner output share no indices at all.

Parsing a large STL or PLY file is slow, so results are cached twice: in a small
in-process LRU keyed by the file's SHA-256 (plus units and format), and on disk as one
``.npz`` file per key in the cache directory (``cache_dir=``, else ``$GEOM3D_CACHE_DIR``,
else ``$XDG_CACHE_HOME/geom3d``, else ``~/.cache/geom3d``). Disk entries are written to a
temporary file and renamed into place, so parallel workers never read a partial file.

Example
-------
>>> mesh = load_mesh("tower.stl")                                    # doctest: +SKIP
>>> mesh.vertices.shape, mesh.faces.shape                            # doctest: +SKIP
((228978, 3), (76326, 3))
>>> mesh.report.messages()                                           # doctest: +SKIP
['open surface: 16 boundary edges', 'non-manifold: 1479 edges shared by more than 2 ...']
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import os
import re
import tempfile
import threading
import time
import warnings
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np

from .errors import MeshError
from .tolerances import GEOM_EPS_MM
from .units import LENGTH_UNITS, MESH_UNITS

__all__ = [
    "CACHE_VERSION",
    "MESH_FORMATS",
    "LoadedMesh",
    "MeshReport",
    "MeshTopology",
    "clear_memory_cache",
    "default_cache_dir",
    "degenerate_faces",
    "load_mesh",
    "mesh_topology",
]

log = logging.getLogger(__name__)

#: Bump when the parsing, repair or statistics change, so stale disk entries are ignored.
CACHE_VERSION: int = 1

#: File extension (lower case, with dot) -> format name.
MESH_FORMATS: dict[str, str] = {
    ".stl": "stl",
    ".obj": "obj",
    ".ply": "ply",
    ".off": "off",
    ".glb": "glb",
    ".gltf": "gltf",
}

#: Formats whose axes are Y-up by definition (glTF 2.0 specification, section 3.4).
_Y_UP_FORMATS = frozenset({"glb", "gltf"})

#: Loaders that accept ``skip_materials`` (we never need textures or materials).
_SKIP_MATERIAL_FORMATS = frozenset({"obj", "ply", "glb", "gltf"})

#: Y-up to Z-up: (x, y, z) -> (x, -z, y), a +90 degree rotation about x (det = +1).
_Y_UP_TO_Z_UP = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]])

#: In-process cache budget (bytes of vertex and face arrays).
_MEMORY_CACHE_BYTES = 1 << 30

_memory_cache: OrderedDict[str, tuple[np.ndarray, np.ndarray, dict]] = OrderedDict()
_memory_cache_bytes = 0
_memory_lock = threading.Lock()


# --------------------------------------------------------------------------------------
# Public data types


@dataclass(frozen=True)
class MeshReport:
    """What :func:`load_mesh` read, what it changed, and what is wrong with the mesh.

    Attributes
    ----------
    path : str
        The file as given to :func:`load_mesh`.
    format : str
        ``'stl'``, ``'obj'``, ``'ply'``, ``'off'``, ``'glb'`` or ``'gltf'``.
    units : str
        The unit the file's coordinates were read in (``mm``, ``cm``, ``m`` or ``in``).
    scale_to_mm : float
        Factor applied to every coordinate (millimetres per file unit).
    y_up_converted : bool
        True for glTF/GLB: rotated from Y-up to Z-up, ``(x, y, z) -> (x, -z, y)``.
    n_triangles_raw : int
        Triangles in the file (polygons count after triangulation by the reader).
    n_triangles : int
        Triangles kept (``n_triangles_raw - n_degenerate_removed``).
    n_degenerate_removed : int
        Triangles dropped because two corners share an index or the triangle has zero
        area (height at most ``GEOM_EPS_MM``).
    n_vertices : int
        Vertices returned (as in the file; not merged, unreferenced ones kept).
    n_bodies : int
        Connected components of the kept triangles, joining triangles that share a vertex
        *position* (not just an index).
    n_open_edges : int
        Boundary edges: edges (between merged positions) used by exactly one triangle.
    n_nonmanifold_edges : int
        Edges used by more than two triangles.
    watertight : bool
        Every edge is used by exactly two triangles.
    cache_hit : bool
        True when the parse was skipped (memory or disk cache).
    load_seconds : float
        Wall-clock time of this :func:`load_mesh` call, seconds.
    """

    path: str
    format: str
    units: str
    scale_to_mm: float
    y_up_converted: bool
    n_triangles_raw: int
    n_triangles: int
    n_degenerate_removed: int
    n_vertices: int
    n_bodies: int
    n_open_edges: int
    n_nonmanifold_edges: int
    watertight: bool
    cache_hit: bool
    load_seconds: float

    def messages(self) -> list[str]:
        """Human-readable notes for every conversion, repair and defect, in load order.

        Returns
        -------
        list of str
            E.g. ``["scaled m -> mm (x1000)", "dropped 12 degenerate triangles",
            "open surface: 734 boundary edges", "31 separate bodies"]``; empty for a clean,
            closed, single-body millimetre mesh.
        """
        notes = []
        if self.scale_to_mm != 1.0:
            notes.append(f"scaled {self.units} -> mm (x{self.scale_to_mm:g})")
        if self.y_up_converted:
            notes.append("converted glTF Y-up to Z-up")
        if self.n_degenerate_removed:
            notes.append(
                f"dropped {_plural(self.n_degenerate_removed, 'degenerate triangle')}"
                " (zero area or repeated vertex)"
            )
        if self.n_open_edges:
            notes.append(f"open surface: {_plural(self.n_open_edges, 'boundary edge')}")
        if self.n_nonmanifold_edges:
            notes.append(
                f"non-manifold: {_plural(self.n_nonmanifold_edges, 'edge')}"
                " shared by more than 2 triangles"
            )
        if self.n_bodies > 1:
            notes.append(f"{self.n_bodies} separate bodies")
        return notes


@dataclass(frozen=True)
class LoadedMesh:
    """A mesh as loaded by :func:`load_mesh`.

    Attributes
    ----------
    vertices : numpy.ndarray, (n, 3) float64, read-only
        Vertex positions, millimetres, Z-up. Shared with the cache: copy before editing.
    faces : numpy.ndarray, (m, 3) int64, read-only
        Triangles as indices into ``vertices`` (degenerate ones already dropped).
    report : MeshReport
        What was read, changed and found.
    """

    vertices: np.ndarray
    faces: np.ndarray
    report: MeshReport


class MeshTopology(NamedTuple):
    """Topology statistics of a triangle mesh, on merged vertex positions."""

    n_bodies: int
    n_open_edges: int
    n_nonmanifold_edges: int

    @property
    def watertight(self) -> bool:
        """Every edge is shared by exactly two triangles."""
        return self.n_open_edges == 0 and self.n_nonmanifold_edges == 0


# --------------------------------------------------------------------------------------
# Geometry helpers


def degenerate_faces(vertices: np.ndarray, faces: np.ndarray) -> np.ndarray:
    """Flag triangles that have a repeated index or zero area.

    A triangle counts as zero-area when its height over its longest side is at most
    ``GEOM_EPS_MM`` (so it does not depend on the triangle's size), or when all three
    corners coincide.

    Parameters
    ----------
    vertices : numpy.ndarray, (n, 3) float64
        Vertex positions, mm.
    faces : numpy.ndarray, (m, 3) int
        Triangles as vertex indices.

    Returns
    -------
    numpy.ndarray, (m,) bool
        True for degenerate triangles.
    """
    faces = np.asarray(faces)
    if len(faces) == 0:
        return np.zeros(0, dtype=bool)
    repeated = (faces[:, 0] == faces[:, 1]) | (faces[:, 1] == faces[:, 2])
    repeated |= faces[:, 0] == faces[:, 2]
    v = np.asarray(vertices, dtype=np.float64)
    p0, p1, p2 = v[faces[:, 0]], v[faces[:, 1]], v[faces[:, 2]]
    e0 = p1 - p0
    e1 = p2 - p1
    e2 = p0 - p2
    cross = np.cross(e0, e2)
    twice_area_sq = np.einsum("ij,ij->i", cross, cross)
    longest_sq = np.maximum(np.einsum("ij,ij->i", e0, e0), np.einsum("ij,ij->i", e1, e1))
    np.maximum(longest_sq, np.einsum("ij,ij->i", e2, e2), out=longest_sq)
    # height over the longest side = |cross| / longest <= eps, squared to skip two sqrts
    return repeated | (twice_area_sq <= GEOM_EPS_MM**2 * longest_sq)


_SPLITMIX = (np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB))
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_SHIFTS = (np.uint64(30), np.uint64(27), np.uint64(31))


def _mix(z: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser, in place on a uint64 array."""
    z ^= z >> _SHIFTS[0]
    z *= _SPLITMIX[0]
    z ^= z >> _SHIFTS[1]
    z *= _SPLITMIX[1]
    z ^= z >> _SHIFTS[2]
    return z


def _runs(sorted_keys: np.ndarray) -> np.ndarray:
    """Boolean mask marking the first element of each run of equal values."""
    start = np.empty(len(sorted_keys), dtype=bool)
    start[:1] = True
    np.not_equal(sorted_keys[1:], sorted_keys[:-1], out=start[1:])
    return start


def _merge_positions(vertices: np.ndarray) -> tuple[np.ndarray, int]:
    """Label vertices by position, rounded to a grid of ``GEOM_EPS_MM``.

    Parameters
    ----------
    vertices : numpy.ndarray, (n, 3) float64
        Finite positions, mm.

    Returns
    -------
    labels : numpy.ndarray, (n,) int64
        Equal labels for equal rounded positions, numbered ``0 .. n_unique - 1``.
    n_unique : int

    Notes
    -----
    Sorts a 64-bit hash of the rounded integer coordinates (one argsort instead of a
    three-key lexsort: about 0.5 s instead of 1.3 s for 4 million vertices), then checks
    every vertex against its group's first member; on a hash collision (or coordinates
    too large for int64) it falls back to the exact lexsort.
    """
    n = len(vertices)
    if n == 0:
        return np.zeros(0, dtype=np.int64), 0
    grid = np.round(vertices / GEOM_EPS_MM)
    if np.abs(grid).max() < 2.0**62:
        ints = grid.astype(np.int64)  # -0.0 and 0.0 both become 0
        words = ints.view(np.uint64)
        h = _mix(words[:, 0] + _GOLDEN)
        h += words[:, 1]
        h = _mix(h)
        h += words[:, 2]
        h = _mix(h)
        order = np.argsort(h)
        start = _runs(h[order])
        ids = np.cumsum(start, dtype=np.int64) - 1
        labels = np.empty(n, dtype=np.int64)
        labels[order] = ids
        first = order[start]
        if np.array_equal(ints, ints[first[labels]]):
            return labels, int(ids[-1]) + 1
        log.debug("position hash collision; falling back to lexsort")
    grid += 0.0  # -0.0 -> 0.0
    order = np.lexsort((grid[:, 2], grid[:, 1], grid[:, 0]))
    srt = grid[order]
    start = np.empty(n, dtype=bool)
    start[0] = True
    np.any(srt[1:] != srt[:-1], axis=1, out=start[1:])
    ids = np.cumsum(start, dtype=np.int64) - 1
    labels = np.empty(n, dtype=np.int64)
    labels[order] = ids
    return labels, int(ids[-1]) + 1


def mesh_topology(vertices: np.ndarray, faces: np.ndarray) -> MeshTopology:
    """Count bodies, boundary edges and non-manifold edges of a triangle mesh.

    Vertices at the same position (rounded to a ``GEOM_EPS_MM`` grid) count as one, so
    an STL (three private vertices per triangle) gets the same answer as an indexed mesh.
    The inputs are not modified. Vectorised: about 1 s for a 1.3M-triangle STL.

    Parameters
    ----------
    vertices : numpy.ndarray, (n, 3) float64
        Finite vertex positions, mm. Unreferenced vertices are ignored.
    faces : numpy.ndarray, (m, 3) int
        Triangles (degenerate ones should already be removed: a triangle with two
        corners at one position would count a spurious edge).

    Returns
    -------
    MeshTopology
        ``n_bodies`` (connected components of triangles sharing a vertex position),
        ``n_open_edges`` (edges used once), ``n_nonmanifold_edges`` (edges used more than
        twice).
    """
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    faces = np.asarray(faces, dtype=np.int64)
    if len(faces) == 0:
        return MeshTopology(0, 0, 0)
    vertices = np.asarray(vertices, dtype=np.float64)
    referenced = np.zeros(len(vertices), dtype=bool)
    referenced[faces.ravel()] = True
    used = np.flatnonzero(referenced)
    labels, n = _merge_positions(vertices[used])
    remap = np.zeros(len(vertices), dtype=np.int64)
    remap[used] = labels
    merged = remap[faces]

    a = merged.ravel()
    b = merged[:, [1, 2, 0]].ravel()
    keys = np.minimum(a, b) * n + np.maximum(a, b)
    keys.sort()
    starts = np.flatnonzero(_runs(keys))
    counts = np.diff(starts, append=len(keys))

    # two edges per triangle are enough to connect its corners
    graph = csr_matrix(
        (np.ones(2 * len(merged), dtype=np.int8), (merged[:, :2].ravel(), merged[:, 1:].ravel())),
        shape=(n, n),
    )
    n_bodies, _ = connected_components(graph, directed=False)
    return MeshTopology(
        n_bodies=int(n_bodies),
        n_open_edges=int(np.count_nonzero(counts == 1)),
        n_nonmanifold_edges=int(np.count_nonzero(counts > 2)),
    )


# --------------------------------------------------------------------------------------
# Caches


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


def _memory_get(key: str):
    with _memory_lock:
        entry = _memory_cache.get(key)
        if entry is not None:
            _memory_cache.move_to_end(key)
        return entry


def _memory_put(key: str, vertices: np.ndarray, faces: np.ndarray, stats: dict) -> None:
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


def _disk_get(cache_file: Path, key: str):
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


def _disk_put(cache_file: Path, key: str, vertices, faces, stats: dict) -> None:
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


# --------------------------------------------------------------------------------------
# Parsing


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _content_hash(path: Path, data: bytes, fmt: str) -> str:
    """SHA-256 of the file, plus any external glTF buffers it references."""
    digest = hashlib.sha256(data)
    if fmt == "gltf":
        try:
            doc = json.loads(data)
            uris = [b.get("uri", "") for b in doc.get("buffers", [])]
        except (ValueError, AttributeError, TypeError):
            uris = []  # the parser will report the broken file
        for uri in uris:
            if isinstance(uri, str) and uri and not uri.startswith("data:"):
                try:
                    digest.update((path.parent / uri).read_bytes())
                except OSError:
                    pass  # the parser will report the missing buffer
    return digest.hexdigest()


def _check_stl(data: bytes) -> str | None:
    """Return why ``data`` is not an STL file, or None if it looks like one.

    trimesh reads anything that is neither binary nor ASCII STL as an empty mesh; this
    check turns that into a clear error instead of "mesh has no triangles".
    """
    count = int.from_bytes(data[80:84], "little") if len(data) >= 84 else None
    if count is not None and len(data) == 84 + 50 * count:
        return None  # binary STL (the header may start with "solid" too)
    if data[:1024].lstrip().lower().startswith(b"solid") and re.search(
        rb"endsolid", data, re.IGNORECASE
    ):
        return None  # ASCII STL
    binary = (
        f"header says {count} triangles = {84 + 50 * count} bytes"
        if count is not None
        else "shorter than the 84-byte header"
    )
    return (
        f"not an STL file: {len(data)} bytes is neither a binary STL ({binary}) "
        "nor an ASCII STL ('solid ... endsolid')"
    )


def _parse(path: Path, data: bytes, fmt: str) -> tuple[np.ndarray, np.ndarray]:
    """Parse ``data`` raw with trimesh; bake scene transforms. Returns file-unit arrays."""
    import trimesh

    if fmt == "stl":
        problem = _check_stl(data)
        if problem:
            raise MeshError(problem, file=str(path))
    kwargs = {"skip_materials": True} if fmt in _SKIP_MATERIAL_FORMATS else {}
    try:
        # Any warning while parsing (e.g. numpy's "could not be read to its end") means
        # the file was only partly understood: refuse it rather than use half of it.
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            scene = trimesh.load(
                io.BytesIO(data),
                file_type=fmt,
                resolver=trimesh.resolvers.FilePathResolver(str(path)),
                process=False,
                force="scene",
                **kwargs,
            )
    except MeshError:
        raise
    except Exception as exc:
        detail = str(exc).strip() or type(exc).__name__
        raise MeshError(
            f"cannot parse {fmt.upper()} file ({type(exc).__name__}: {detail})", file=str(path)
        ) from exc

    all_vertices: list[np.ndarray] = []
    all_faces: list[np.ndarray] = []
    offset = 0
    for node in scene.graph.nodes_geometry:
        transform, geom_name = scene.graph[node]
        geom = scene.geometry[geom_name]
        if not isinstance(geom, trimesh.Trimesh):
            continue  # point clouds, paths: no triangles
        v = np.asarray(geom.vertices, dtype=np.float64)
        f = np.asarray(geom.faces, dtype=np.int64).reshape(-1, 3)
        transform = np.asarray(transform, dtype=np.float64)
        if not np.array_equal(transform, np.eye(4)):
            v = v @ transform[:3, :3].T + transform[:3, 3]
            if np.linalg.det(transform[:3, :3]) < 0:
                f = f[:, ::-1]  # a mirroring instance keeps its outward winding
        if len(f) and (f.min() < 0 or f.max() >= len(v)):
            raise MeshError(
                f"face indices out of range in geometry {geom_name!r} "
                f"({len(v)} vertices, largest index {int(f.max())})",
                file=str(path),
            )
        all_vertices.append(v)
        all_faces.append(f + offset)
        offset += len(v)
    if not all_vertices:
        return np.zeros((0, 3)), np.zeros((0, 3), dtype=np.int64)
    return np.concatenate(all_vertices), np.concatenate(all_faces)


def _build(path: Path, data: bytes, fmt: str, units: str):
    """Parse, convert, validate and measure. Returns (vertices, faces, stats dict)."""
    vertices, faces = _parse(path, data, fmt)
    file = str(path)
    n_raw = len(faces)
    if n_raw == 0:
        raise MeshError("mesh has no triangles", file=file)
    if not np.all(np.isfinite(vertices)):
        bad = int(np.count_nonzero(~np.all(np.isfinite(vertices), axis=1)))
        raise MeshError(
            f"mesh has NaN or infinite vertex coordinates ({bad} of {len(vertices)} vertices)",
            file=file,
        )
    scale = LENGTH_UNITS[units]
    if scale != 1.0:
        vertices = vertices * scale
    y_up = fmt in _Y_UP_FORMATS
    if y_up:
        vertices = vertices @ _Y_UP_TO_Z_UP.T
    vertices = np.ascontiguousarray(vertices, dtype=np.float64)

    bad = degenerate_faces(vertices, faces)
    n_bad = int(np.count_nonzero(bad))
    if n_bad == n_raw:
        raise MeshError(
            f"mesh has only degenerate triangles ({_plural(n_raw, 'triangle')}, "
            "all with zero area or a repeated vertex)",
            file=file,
        )
    if n_bad:
        faces = faces[~bad]
    faces = np.ascontiguousarray(faces, dtype=np.int64)

    topo = mesh_topology(vertices, faces)
    stats = {
        "format": fmt,
        "units": units,
        "scale_to_mm": float(scale),
        "y_up_converted": y_up,
        "n_triangles_raw": n_raw,
        "n_triangles": len(faces),
        "n_degenerate_removed": n_bad,
        "n_vertices": len(vertices),
        "n_bodies": topo.n_bodies,
        "n_open_edges": topo.n_open_edges,
        "n_nonmanifold_edges": topo.n_nonmanifold_edges,
        "watertight": topo.watertight,
    }
    return vertices, faces, stats


# --------------------------------------------------------------------------------------
# Entry point


def load_mesh(
    path: str | os.PathLike,
    *,
    units: str = "mm",
    cache_dir: str | os.PathLike | None = None,
    use_cache: bool = True,
) -> LoadedMesh:
    """Load a triangle mesh file raw, in millimetres, Z-up, with a report.

    Parameters
    ----------
    path : str or os.PathLike
        An ``.stl`` (binary or ASCII), ``.obj``, ``.ply``, ``.off``, ``.glb`` or ``.gltf``
        file. The extension decides the format (case-insensitive). glTF/GLB scenes are
        flattened: every mesh instance with its scene-graph transform applied.
    units : str
        Unit of the file's coordinates: ``mm``, ``cm``, ``m`` or ``in``.
    cache_dir : str or os.PathLike, optional
        Disk cache directory; default :func:`default_cache_dir`.
    use_cache : bool
        False: neither read nor write the memory and disk caches.

    Returns
    -------
    LoadedMesh
        ``vertices`` (n, 3) float64 mm and ``faces`` (m, 3) int64, both read-only, and a
        :class:`MeshReport`.

    Raises
    ------
    MeshError
        (``file`` = ``path``) The file is missing or unreadable, its extension or
        ``units`` is unknown, it cannot be parsed, it has no triangles, all its triangles
        are degenerate, or a vertex coordinate is NaN or infinite.
    """
    t0 = time.perf_counter()
    file = os.fspath(path)
    p = Path(file)
    if units not in MESH_UNITS:
        raise MeshError(f"unknown mesh units {units!r} (known: {', '.join(MESH_UNITS)})", file=file)
    fmt = MESH_FORMATS.get(p.suffix.lower())
    if fmt is None:
        known = ", ".join(sorted(MESH_FORMATS))
        what = f"extension {p.suffix!r}" if p.suffix else "no extension"
        raise MeshError(f"unknown mesh format: {what} (known: {known})", file=file)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise MeshError("mesh file not found", file=file) from None
    except IsADirectoryError:
        raise MeshError("mesh path is a directory, not a file", file=file) from None
    except OSError as exc:
        raise MeshError(f"cannot read mesh file ({exc.strerror or exc})", file=file) from None
    if not data:
        raise MeshError("mesh file is empty", file=file)

    cache_hit = False
    entry = None
    key = cache_file = None
    if use_cache:
        key = f"{_content_hash(p, data, fmt)}-{fmt}-{units}-v{CACHE_VERSION}"
        cache_file = Path(cache_dir if cache_dir is not None else default_cache_dir())
        cache_file = cache_file / f"{key}.npz"
        entry = _memory_get(key)
        if entry is None:
            entry = _disk_get(cache_file, key)
            if entry is not None:
                entry = (_readonly(entry[0]), _readonly(entry[1]), entry[2])
                _memory_put(key, *entry)
        cache_hit = entry is not None
    if entry is None:
        vertices, faces, stats = _build(p, data, fmt, units)
        entry = (_readonly(vertices), _readonly(faces), stats)
        if use_cache:
            _disk_put(cache_file, key, vertices, faces, stats)
            _memory_put(key, *entry)

    vertices, faces, stats = entry
    report = MeshReport(
        path=file, cache_hit=cache_hit, load_seconds=time.perf_counter() - t0, **stats
    )
    return LoadedMesh(vertices=vertices, faces=faces, report=report)


def _readonly(arr: np.ndarray) -> np.ndarray:
    arr.setflags(write=False)
    return arr
