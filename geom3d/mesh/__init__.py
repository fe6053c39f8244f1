"""Triangle meshes: raw loading with reported repair, the parse cache, topology, digests.

- :mod:`~geom3d.mesh.load`: :func:`load_mesh` (STL, OBJ, PLY, OFF, glTF/GLB), raw, in mm,
  Z-up, with a :class:`MeshReport`.
- :mod:`~geom3d.mesh.cache`: the in-process and on-disk parse cache.
- :mod:`~geom3d.mesh.topology`: degenerate triangles, bodies, open and non-manifold edges.
- :mod:`~geom3d.mesh.digest`: the one content digest of a mesh file.
- :mod:`~geom3d.mesh.primitives`: the scenario ``box`` as plain arrays.
- :mod:`~geom3d.mesh.boxes`: a closed rectilinear mesh (a building, a container) as the
  boxes it is the union of.
"""

from __future__ import annotations

from geom3d.mesh.cache import clear_memory_cache, default_cache_dir
from geom3d.mesh.digest import content_digest, file_digest
from geom3d.mesh.load import CACHE_VERSION, MESH_FORMATS, load_mesh
from geom3d.mesh.primitives import box_mesh, prism_mesh
from geom3d.mesh.report import LoadedMesh, MeshReport
from geom3d.mesh.topology import MeshTopology, degenerate_faces, mesh_topology, used_vertices

__all__ = [
    "CACHE_VERSION",
    "MESH_FORMATS",
    "LoadedMesh",
    "MeshReport",
    "MeshTopology",
    "box_mesh",
    "clear_memory_cache",
    "content_digest",
    "default_cache_dir",
    "degenerate_faces",
    "file_digest",
    "load_mesh",
    "mesh_topology",
    "prism_mesh",
    "used_vertices",
]
