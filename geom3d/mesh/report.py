"""What :func:`geom3d.mesh.load_mesh` hands back: the mesh and its report."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from geom3d.core.messages import Message, note, warning
from geom3d.mesh.limits import MESH_HUGE_MM, MESH_TINY_MM

__all__ = ["LoadedMesh", "MeshReport", "plural"]


def plural(n: int, word: str) -> str:
    """``"1 edge"``, ``"2 edges"``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


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
    extent_mm : (3,) tuple of float, mm
        Size of the kept triangles' bounding box (after unit scaling). A largest extent
        under ``MESH_TINY_MM`` or over ``MESH_HUGE_MM`` adds a "wrong units?" note.
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
    extent_mm: tuple[float, float, float] = (0.0, 0.0, 0.0)

    def messages(self) -> list[Message]:
        """Human-readable notes for every conversion, repair and defect, in load order.

        Returns
        -------
        list of geom3d.core.messages.Message
            E.g. ``["scaled m -> mm (x1000)", "dropped 12 degenerate triangles",
            "open surface: 734 boundary edges", "31 separate bodies"]``; empty for a clean,
            closed, single-body millimetre mesh. Facts are notes; a size that suggests the
            wrong units is a warning (SPEC 12.2).
        """
        notes = []
        size = max(self.extent_mm)
        if size and size < MESH_TINY_MM:
            notes.append(
                warning(
                    f"only {size:.3g} mm across in {self.units}: were its units larger "
                    "(mesh_units: m, cm or in)?"
                )
            )
        elif size > MESH_HUGE_MM:
            notes.append(
                warning(
                    f"{size / 1000:.3g} m across in {self.units}: were its units smaller "
                    "(mesh_units: mm or cm)?"
                )
            )
        if self.scale_to_mm != 1.0:
            notes.append(note(f"scaled {self.units} -> mm (x{self.scale_to_mm:g})"))
        if self.y_up_converted:
            notes.append(note("converted glTF Y-up to Z-up"))
        if self.n_degenerate_removed:
            notes.append(
                note(
                    f"dropped {plural(self.n_degenerate_removed, 'degenerate triangle')}"
                    " (zero area or repeated vertex)"
                )
            )
        if self.n_open_edges:
            notes.append(note(f"open surface: {plural(self.n_open_edges, 'boundary edge')}"))
        if self.n_nonmanifold_edges:
            notes.append(
                note(
                    f"non-manifold: {plural(self.n_nonmanifold_edges, 'edge')}"
                    " shared by more than 2 triangles"
                )
            )
        if self.n_bodies > 1:
            notes.append(note(f"{self.n_bodies} separate bodies"))
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
