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

Only regular files of at most ``MAX_MESH_BYTES`` are read (no FIFO, device or symlink
loop; a larger file is refused from its size, unread). A glTF/GLB file's external buffers
are read by :func:`geom3d.mesh.digest.gltf_external_buffers` (inside the file's folder
only) and handed to the parser as bytes: trimesh never opens a file itself. Coordinates
beyond ``MAX_COORD_MM`` (after unit scaling) are an error, and a mesh whose size suggests
the wrong ``mesh_units`` gets a note in its report.

Parsing a large STL or PLY file is slow, so results are cached twice: in a small
in-process LRU keyed by the file's SHA-256 (plus units and format; see
:mod:`geom3d.mesh.digest` and :mod:`geom3d.mesh.cache`), and on disk as one
``.npz`` file per key in the cache directory (``cache_dir=``, else ``$GEOM3D_CACHE_DIR``,
else ``$XDG_CACHE_HOME/geom3d``, else ``~/.cache/geom3d``). Disk entries are written to a
temporary file and renamed into place, so parallel workers never read a partial file, and
are verified before use (:mod:`geom3d.mesh.cache`).

Example
-------
>>> mesh = load_mesh("meshes/scenery/building.stl")  # from the repository root
>>> mesh.vertices.shape, mesh.faces.shape  # STL: three corners per triangle, unmerged
((2130, 3), (710, 3))
>>> mesh.report.messages()  # closed and manifold: nothing to say
[]

A scan with holes says so, e.g. ``['open surface: 16 boundary edges', 'non-manifold:
1479 edges shared by more than 2 ...']``.
"""

from __future__ import annotations

import io
import os
import re
import time
import warnings
from pathlib import Path

import numpy as np

from geom3d.core.errors import InputError, MeshError
from geom3d.core.inputfile import InputFileProblem, read_regular
from geom3d.core.memory import building, refuse_if_too_big
from geom3d.core.output import safe_text
from geom3d.core.tolerances import MAX_COORD_MM
from geom3d.core.units import LENGTH_UNITS, MESH_UNITS
from geom3d.mesh.cache import default_cache_dir, disk_get, disk_put, memory_get, memory_put
from geom3d.mesh.digest import (
    UNREADABLE_PREFIX,
    content_digest,
    file_digest,
    gltf_external_buffers,
    gltf_json,
)
from geom3d.mesh.gltf_bounds import check_gltf_bounds
from geom3d.mesh.limits import MAX_MESH_BYTES
from geom3d.mesh.report import LoadedMesh, MeshReport, plural
from geom3d.mesh.topology import degenerate_faces, mesh_topology, used_vertices

#: Memory a scene takes per triangle of a mesh (bytes), for refusing a mesh that cannot
#: fit before it is parsed (SPEC 13.4): measured with tracemalloc (numpy included) while
#: loading a binary STL height field into a scene, 849 B at 45,000 triangles and 735 B at
#: 180,000 at the peak; rounded up for Embree's BVH, which tracemalloc does not see.
MESH_BYTES_PER_TRIANGLE: int = 1000

__all__ = ["CACHE_VERSION", "MESH_FORMATS", "cache_key", "load_mesh"]

#: Bump when the parsing, repair or statistics change, so stale disk entries are ignored
#: (3: array data aligned in the file, to map in place).
CACHE_VERSION: int = 3

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


def cache_key(digest: str, fmt: str, units: str) -> str:
    """The parse cache's key: content digest, format, units and :data:`CACHE_VERSION`.

    ``digest`` is :func:`geom3d.mesh.digest.content_digest` of the file and its buffers.
    """
    return f"{digest}-{fmt}-{units}-v{CACHE_VERSION}"


def _resolver(buffers: dict[str, bytes]):
    """A trimesh resolver serving only ``buffers`` (already read and checked), no files."""
    import trimesh

    class _Buffers(trimesh.resolvers.Resolver):
        def __init__(self, data: dict[str, bytes]) -> None:
            self.data = data

        def get(self, key):
            if key not in self.data:
                raise FileNotFoundError(f"no buffer {key!r}")
            return self.data[key]

        def write(self, name, data):
            raise PermissionError("read-only")

        def namespaced(self, namespace):
            return _Buffers({})

        def keys(self):
            return iter(self.data)

    return _Buffers(buffers)


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


def _refuse_too_big(triangles: int, file: str) -> None:
    """:class:`MeshError` when ``triangles`` (``MESH_BYTES_PER_TRIANGLE`` each) cannot fit
    in the memory left, before the parser allocates them (SPEC 13.4)."""
    try:
        refuse_if_too_big(
            triangles * MESH_BYTES_PER_TRIANGLE,
            f"{triangles:,} triangles",
            "simplify the mesh (fewer triangles) or run with more memory",
        )
    except InputError as exc:
        raise MeshError(str(exc), file=file) from None


def _parse(
    path: Path, data: bytes, fmt: str, buffers: dict[str, bytes]
) -> tuple[np.ndarray, np.ndarray]:
    """Parse ``data`` raw with trimesh; bake scene transforms. Returns file-unit arrays.

    ``buffers``: a glTF/GLB file's external buffers by URI; no other file is read.
    """
    import trimesh

    triangles = 0  # known before parsing: a binary STL's header, a glTF's accessors
    if fmt == "stl":
        problem = _check_stl(data)
        if problem:
            raise MeshError(problem, file=str(path))
        if len(data) >= 84 and len(data) == 84 + 50 * int.from_bytes(data[80:84], "little"):
            triangles = int.from_bytes(data[80:84], "little")
    if fmt in _Y_UP_FORMATS:  # what the document expands to, before the parser allocates it
        triangles = check_gltf_bounds(gltf_json(path, data), str(path))
    _refuse_too_big(triangles, str(path))
    kwargs = {"skip_materials": True} if fmt in _SKIP_MATERIAL_FORMATS else {}
    try:
        # Any warning while parsing (e.g. numpy's "could not be read to its end") means
        # the file was only partly understood: refuse it rather than use half of it.
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            scene = trimesh.load(
                io.BytesIO(data),
                file_type=fmt,
                resolver=_resolver(buffers),
                process=False,
                force="scene",
                **kwargs,
            )
    except (MeshError, MemoryError):  # out of memory is not a parse error: one line says so
        raise
    except Exception as exc:
        detail = str(exc).strip() or type(exc).__name__
        raise MeshError(
            f"cannot parse {fmt.upper()} file ({type(exc).__name__}: {detail})", file=str(path)
        ) from exc

    all_vertices: list[np.ndarray] = []
    all_faces: list[np.ndarray] = []
    offset = 0
    assert isinstance(scene, trimesh.Scene)  # force="scene"
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


def _build(path: Path, data: bytes, fmt: str, units: str, buffers: dict[str, bytes]):
    """Parse, convert, validate and measure. Returns (vertices, faces, stats dict)."""
    vertices, faces = _parse(path, data, fmt, buffers)
    file = str(path)
    n_raw = len(faces)
    if n_raw == 0:
        raise MeshError("mesh has no triangles", file=file)
    if not np.all(np.isfinite(vertices)):
        n_inf = int(np.count_nonzero(~np.all(np.isfinite(vertices), axis=1)))
        raise MeshError(
            f"mesh has NaN or infinite vertex coordinates ({n_inf} of {len(vertices)} vertices)",
            file=file,
        )
    scale = LENGTH_UNITS[units]
    if scale != 1.0:
        vertices = vertices * scale
    y_up = fmt in _Y_UP_FORMATS
    if y_up:
        vertices = vertices @ _Y_UP_TO_Z_UP.T
    vertices = np.ascontiguousarray(vertices, dtype=np.float64)
    reach = float(np.abs(vertices).max())
    if reach > MAX_COORD_MM:
        raise MeshError(
            f"coordinates reach {reach:.3g} mm in {units}, beyond the {MAX_COORD_MM / 1e6:g} km "
            "a scene may span (wrong mesh_units?)",
            file=file,
        )

    bad = degenerate_faces(vertices, faces)
    n_bad = int(np.count_nonzero(bad))
    if n_bad == n_raw:
        raise MeshError(
            f"mesh has only degenerate triangles ({plural(n_raw, 'triangle')}, "
            "all with zero area or a repeated vertex)",
            file=file,
        )
    if n_bad:
        faces = faces[~bad]
    faces = np.ascontiguousarray(faces, dtype=np.int64)

    topo = mesh_topology(vertices, faces)
    used = vertices[used_vertices(len(vertices), faces)]
    extent = used.max(axis=0) - used.min(axis=0)
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
        "extent_mm": [float(x) for x in extent],
    }
    return vertices, faces, stats


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
    entry = None
    if use_cache:
        # the process may know the file's digest already (file_digest: by path, size and
        # mtime; the scene's key takes it first): on a cache hit the file is not read
        # again (a glTF's digest reads it and its buffers each time, as before)
        digest = file_digest(p)
        if not digest.startswith(UNREADABLE_PREFIX):
            entry, key, cache_file = _cached(digest, fmt, units, cache_dir)
    if entry is None:  # read it: to parse it, or to say why it cannot be
        try:
            data = read_regular(p, MAX_MESH_BYTES)
        except InputFileProblem as exc:
            reason = "mesh file not found" if exc.missing else str(exc)
            raise MeshError(reason, file=file) from None
        if not data:
            raise MeshError("mesh file is empty", file=file)
        buffers = gltf_external_buffers(p, data)
        digest = content_digest(p, data, buffers)  # of the bytes parsed, whatever happened
        if use_cache:
            entry, key, cache_file = _cached(digest, fmt, units, cache_dir)
    cache_hit = entry is not None
    if entry is None:
        with building(f"loading mesh {safe_text(p.name)}"):
            vertices, faces, stats = _build(p, data, fmt, units, buffers)
        if use_cache:
            disk_put(cache_file, key, digest, vertices, faces, stats)
        stats = {**stats, "extent_mm": tuple(stats["extent_mm"])}
        entry = (_readonly(vertices), _readonly(faces), stats)
        if use_cache:
            memory_put(key, *entry)

    vertices, faces, stats = entry
    report = MeshReport(
        path=file, cache_hit=cache_hit, load_seconds=time.perf_counter() - t0, **stats
    )
    return LoadedMesh(vertices=vertices, faces=faces, report=report)


def _cached(digest: str, fmt: str, units: str, cache_dir):
    """The parse cache's entry for a file of ``digest`` (memory, then disk; read-only
    arrays), or None; with its key and disk path."""
    key = cache_key(digest, fmt, units)
    cache_file = Path(cache_dir if cache_dir is not None else default_cache_dir()) / f"{key}.npz"
    entry = memory_get(key)
    if entry is None:
        entry = disk_get(cache_file, key, digest)
        if entry is not None:
            entry = (_readonly(entry[0]), _readonly(entry[1]), entry[2])
            memory_put(key, *entry)
    return entry, key, cache_file


def _readonly(arr: np.ndarray) -> np.ndarray:
    arr.setflags(write=False)
    return arr
