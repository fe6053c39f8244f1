"""Scenery as solids (SPEC 11.1): placing pieces, closing open scans, the scan report.

:func:`build_scenery` turns a scenario's table mesh and scenery items into the one
triangle soup the scene casts rays against:

1. every piece is loaded raw and placed: scale (per axis), yaw about its own origin, move
   its origin to ``position``;
2. a piece given ``position: [x, y]`` is dropped so that its lowest point rests on the
   highest *ground* beneath its footprint (the table mesh where there is one, z = 0
   elsewhere, or the plane z = 0). With an explicit z, sinking into the ground beyond
   :data:`~geom3d.scene.tolerances.PIECE_REST_TOL_MM` is warned about; the piece
   *floats* only when nothing lies within that tolerance under it (the ground **or
   another piece**: a container stacked on a container) or against it (a balcony fixed
   to a wall; :mod:`geom3d.scene.piece_rest`);
3. ``solid: auto`` pieces are closed into their winding-number solid (SPEC 12.1,
   :func:`geom3d.mesh.winding.close_winding`): the loops of their base are closed down to
   the ground, every other hole gets a cap checked against the winding number, and
   nothing hangs from a hole high on a scan down to the table. The table mesh
   with ``solid: auto`` is closed as the top of a solid
   (:func:`geom3d.mesh.closing.close_table`). ``closed`` trusts the mesh and ``surface``
   keeps it paper-thin: neither adds anything. Closing results are cached in memory and
   on disk (:mod:`geom3d.mesh.closing_cache`), so a warm load does not recompute them.

Warnings (one line per piece) say only what is off: a watertight piece says nothing about
closing, and a table mesh's outer edge is not a hole.

Closing faces are kept in the scene's scenery (``Scene.closing_mask`` marks them) so that
viewers can draw the solid as the engine uses it.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import time
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from geom3d.core.errors import MeshError
from geom3d.core.messages import Message, note
from geom3d.mesh import LoadedMesh, box_mesh, load_mesh, prism_mesh
from geom3d.mesh.boundary import merge_positions
from geom3d.mesh.closing import ClosingReport, close_table
from geom3d.mesh.closing_cache import cached_closing, closing_key
from geom3d.mesh.digest import array_digest
from geom3d.mesh.winding import close_winding
from geom3d.raycast import make_engine
from geom3d.raycast.base import RayBackend
from geom3d.scenario import Scenario, SceneryItem
from geom3d.scene.piece_messages import closing_message, piece_lines, plausibility_messages
from geom3d.scene.piece_rest import Ground, floating_message, place_piece

if TYPE_CHECKING:
    from geom3d.scene.standing import Surface
    from geom3d.visibility import InteriorMap, Prover
    from geom3d.visibility.convex import ConvexSolids
    from geom3d.visibility.ground import GroundBlocks
    from geom3d.visibility.proof import ProverParts

__all__ = [
    "BuiltScenery",
    "PieceReport",
    "SceneryMesh",
    "build_scenery",
    "transform",
]


@dataclass(frozen=True)
class SceneryMesh:
    """Scenery as one triangle soup.

    Attributes
    ----------
    vertices : (n, 3) float64, mm
    faces : (m, 3) int64
    element : (m,) int32
        Index into ``names`` of the scenery element each triangle belongs to.
    names : tuple of str
        Element ids (``table`` for the table mesh).
    """

    vertices: np.ndarray
    faces: np.ndarray
    element: np.ndarray
    names: tuple[str, ...]

    @property
    def n_triangles(self) -> int:
        return len(self.faces)

    def subset(self, mask: np.ndarray) -> SceneryMesh:
        """The triangles where ``mask`` ((m,) bool) is true (this mesh itself when it is
        true everywhere: no copy of a million faces)."""
        if mask.all():
            return self
        return SceneryMesh(self.vertices, self.faces[mask], self.element[mask], self.names)


@dataclass
class PieceReport:
    """How one piece was placed and closed (the scan report, issue 10 item 4).

    Attributes
    ----------
    id : str
    solid : str
        ``auto``, ``closed`` or ``surface``.
    triangles : int
        Triangles of the piece as loaded.
    closing : ClosingReport or None
        None when nothing was examined (``closed``/``surface``, boxes, non-blocking).
    dropped_mm : float or None
        For ``position: [x, y]``: the z given to the piece's origin (mm).
    rest_gap_mm : float or None
        Lowest point minus the ground beneath (mm; negative: sunk into the ground).
    messages : list of geom3d.core.messages.Message
        Load notes (judged at the placed size), resting warnings and closing notes: one
        scene line per severity (:func:`piece_lines`).
    """

    id: str
    solid: str
    triangles: int
    closing: ClosingReport | None = None
    dropped_mm: float | None = None
    rest_gap_mm: float | None = None
    messages: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready record (mm, rounded to 1e-3)."""
        d = {"id": self.id, "solid": self.solid, "triangles": self.triangles}
        if self.closing is not None:
            c = self.closing.as_dict()
            c.pop("notes", None)
            d.update(c)
        for k in ("dropped_mm", "rest_gap_mm"):
            v = getattr(self, k)
            d[k] = None if v is None else round(v, 3)
        d["messages"] = list(self.messages)
        return d


@dataclass
class BuiltScenery:
    """Everything the scene keeps from building its scenery (cached per process)."""

    scenery: SceneryMesh
    blocking_mask: np.ndarray
    closing_mask: np.ndarray
    blocking: SceneryMesh
    engine: RayBackend | None  # None only while ``on_blocking`` runs (see build_scenery)
    all_engine: RayBackend | None
    mesh_reports: list
    pieces: list[PieceReport]
    solid_of_element: tuple[str, ...]
    has_table_mesh: bool
    warnings: list[Message]
    surface: Surface | None = None  # made by the first scene using it
    prover: Prover | None = None  # made by the first scene using it
    convex: ConvexSolids | None = None  # made by the first scene using it
    ground: GroundBlocks | None = None  # made with the proof map when it is read ahead
    prover_parts: ProverParts | None = None  # made with the proof map when it is read ahead
    #: A :class:`concurrent.futures.Future` of the proof map's disk-cache read, when a
    #: scene started it in the background while the BVH was built (see ``build_scenery``).
    proof_map: Future[tuple[str, InteriorMap | None]] | None = None
    #: Reachable free space per probe size (:func:`geom3d.scene.reach.reach_map`).
    reach: dict[tuple[float, float], Any] = field(default_factory=dict)
    #: The faces the embedded-trooper test counts as crossings
    #: (:func:`geom3d.scene.embedding.crossing_faces`; made by the first scene checking one).
    crossing: np.ndarray | None = None


def transform(vertices: np.ndarray, item: SceneryItem) -> np.ndarray:
    """Scale (per axis), then yaw about the piece's own origin, then move it to position.

    Parameters
    ----------
    vertices : (n, 3) float, mm
    item : SceneryItem

    Returns
    -------
    (n, 3) float64, mm
    """
    v = np.asarray(vertices, np.float64)
    scale = np.broadcast_to(np.asarray(item.scale, dtype=np.float64), (3,))
    if item.rotation_deg == 0.0:  # the common case, and exact: no 3 x 3 product
        if np.all(scale == 1.0) and not any(item.position):
            return v
        return v * scale + np.asarray(item.position)
    a = math.radians(item.rotation_deg)
    c, s = math.cos(a), math.sin(a)
    rot = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    return (v * scale) @ rot.T + np.asarray(item.position)


def _load_for(scn: Scenario, item: SceneryItem, where: str) -> LoadedMesh:
    assert item.mesh_path is not None  # a piece without a box_size has a mesh file
    try:
        return load_mesh(item.mesh_path, units=item.mesh_units)
    except MeshError as exc:
        raise MeshError(
            f"{item.mesh_path.name}: {exc.message}",
            file=scn.name if scn.path is None else str(scn.path),
            path=where,
        ) from None


def _load_notes(report, item: SceneryItem, closed: bool) -> list[str]:
    """The mesh file's load notes, judged at the placed size (``scale`` applied): a DEM in
    metres scaled 1:6000 is not "too large"; an open surface that closing handled is left
    to the closing line."""
    ext = tuple(float(e) * float(k) for e, k in zip(report.extent_mm, item.scale, strict=True))
    changes: dict[str, object] = {"extent_mm": ext}
    if closed:
        changes["n_open_edges"] = 0
    return dataclasses.replace(report, **changes).messages()


def build_scenery(scn: Scenario, stats, on_blocking=None) -> BuiltScenery:
    """Place, close and merge the table mesh and scenery of ``scn``.

    Parameters
    ----------
    scn : Scenario
    stats : geom3d.scene.scene.LoadStats
        ``mesh_seconds`` and ``bvh_seconds`` are added to.
    on_blocking : callable, optional
        ``on_blocking(built)``, called with the scenery built but its ray engines not yet
        (``engine`` and ``all_engine`` None): work that needs only the meshes (the scene
        starts reading its proof map there) can run while the BVH is built.

    Returns
    -------
    BuiltScenery
    """
    names, blocks, solids, parts, reports, pieces = [], [], [], [], [], []
    t0 = time.perf_counter()
    table_v = table_f = None
    if scn.table_item is not None:
        it = scn.table_item
        lm = _load_for(scn, it, "table.mesh")
        reports.append(("table", lm.report))
        table_v, table_f = transform(lm.vertices, it), np.asarray(lm.faces, np.int64)
        rep = PieceReport("table", it.solid, len(table_f))
        ev, ef = np.zeros((0, 3)), np.zeros((0, 3), np.int64)
        if it.solid == "auto":
            key = closing_key("table", table_v, table_f, "below_z=0.0")
            ev, ef, rep.closing, _ = cached_closing(
                key, lambda: close_table(table_v, table_f, below_z=0.0)
            )
            msg = closing_message(rep.closing, table=True)
            if msg:
                rep.messages.append(note(msg))
        closed = rep.closing is not None and rep.closing.method != "none"
        rep.messages[:0] = _load_notes(lm.report, it, closed)
        pieces.append(rep)
        names.append("table")
        blocks.append(True)
        solids.append(it.solid)
        parts.append((table_v, table_f, ev, ef))
    ground = Ground(table_v, table_f) if scn.scenery else None
    floor_id = None
    resting = []  # (part index, item, report, where its rest line goes)
    for i, it in enumerate(scn.scenery):
        assert ground is not None  # made whenever there is scenery
        if it.box_size is not None:
            v, f = box_mesh(it.box_size)
        elif it.prism is not None:
            v, f = prism_mesh(it.prism, it.prism_height)
        else:
            lm = _load_for(scn, it, f"scenery[{i}].mesh")
            reports.append((it.id, lm.report))
            v, f = lm.vertices, lm.faces
        v, f = transform(v, it), np.asarray(f, np.int64)
        rep = PieceReport(it.id, it.solid, len(f))
        v = place_piece(it, v, f, ground, rep)
        n_first = len(rep.messages)  # the rest line goes after the sink line, if any
        ev, ef = np.zeros((0, 3)), np.zeros((0, 3), np.int64)
        if it.solid == "auto" and it.blocks_lof and it.mesh_path is not None:
            if floor_id is None:  # what the curtains stand on: the table mesh, or z = 0
                if table_v is None or table_f is None:  # the two are set together
                    floor_id = "z=0"
                else:
                    floor_id = "table:" + array_digest(table_v, table_f)
            key = closing_key("caps", v, f, floor_id)
            ev, ef, rep.closing, _ = cached_closing(
                key, functools.partial(close_winding, v, f, ground)
            )
            msg = closing_message(rep.closing, table=False)
            if msg:
                rep.messages.append(note(msg))
        if it.mesh_path is not None:
            closed = rep.closing is not None and rep.closing.method != "none"
            notes = _load_notes(lm.report, it, closed)
            rep.messages[:0] = notes
            n_first += len(notes)
        if not it.drop:
            resting.append((len(parts), it, rep, n_first))
        pieces.append(rep)
        names.append(it.id)
        blocks.append(it.blocks_lof)
        solids.append(it.solid)
        parts.append((v, f, ev, ef))
    for k, it, rep, at in resting:  # needs every piece placed: one may hold another
        assert ground is not None  # resting pieces are scenery
        line = floating_message(k, it, parts, ground, rep)
        if line:
            rep.messages.insert(at, line)
    plausibility_messages(scn, pieces, parts)
    mesh, closing_mask = _merge(parts, names)
    warnings = [line for rep in pieces for line in piece_lines(rep)]
    stats.mesh_seconds += time.perf_counter() - t0
    t0 = time.perf_counter()
    el = mesh.element
    blocking_mask = np.asarray(blocks, dtype=bool)[el] if len(el) else np.zeros(0, bool)
    built = BuiltScenery(
        scenery=mesh,
        blocking_mask=blocking_mask,
        closing_mask=closing_mask,
        blocking=mesh.subset(blocking_mask),
        engine=None,
        all_engine=None,
        mesh_reports=reports,
        pieces=pieces,
        solid_of_element=tuple(solids),
        has_table_mesh=table_v is not None,
        warnings=warnings,
    )
    if on_blocking is not None:
        on_blocking(built)
    built.engine = make_engine(built.blocking.vertices, built.blocking.faces)
    same = blocking_mask.all()
    built.all_engine = built.engine if same else make_engine(mesh.vertices, mesh.faces)
    stats.bvh_seconds += time.perf_counter() - t0
    return built


def _merge(parts, names) -> tuple[SceneryMesh, np.ndarray]:
    """One soup: per piece its own faces, then its closing faces; closing mask alongside."""
    vs, fs, els, cl = [], [], [], []
    off = 0
    for k, (v, f, ev, ef) in enumerate(parts):
        vs += [v, ev]
        fs += [f + off if off else f, ef + off + len(v)]  # (no copy of the first piece's)
        off += len(v) + len(ev)
        els.append(np.full(len(f) + len(ef), k, dtype=np.int32))
        cl += [np.zeros(len(f), bool), np.ones(len(ef), bool)]
    if not parts:
        empty = SceneryMesh(np.zeros((0, 3)), np.zeros((0, 3), np.int64), np.zeros(0, np.int32), ())
        return empty, np.zeros(0, bool)
    mesh = SceneryMesh(
        np.concatenate(vs),
        np.concatenate(fs).astype(np.int64, copy=False),
        np.concatenate(els),
        tuple(names),
    )
    return mesh, np.concatenate(cl)


def closed_solids(built: BuiltScenery) -> tuple[np.ndarray, np.ndarray]:
    """The closed solids of the blocking mesh, for blocking proofs.

    Faces are grouped into connected components (on exactly merged positions). A component
    whose every edge is used by an even number of its faces is a closed solid of its own.
    The other components of the table of ``solid: auto`` (its surface, curtains and cap)
    form one more closed solid when nothing was skipped in closing it and no component
    mixes table and scenery faces. See :mod:`geom3d.visibility.interior` for why these,
    and only these, may certify.

    Returns
    -------
    label : (m,) int64
        Solid of each blocking face.
    closed : (k,) bool
        Which labels are closed solids.
    """
    b = built.blocking
    m = len(b.faces)
    if m == 0:
        return np.zeros(0, np.int64), np.zeros(1, bool)
    group, _ = merge_positions(b.vertices)
    g = group[b.faces]
    n = int(group.max()) + 1
    edges = np.concatenate([g[:, [0, 1]], g[:, [1, 2]], g[:, [2, 0]]])
    edges.sort(axis=1)
    graph = coo_matrix((np.ones(len(edges), np.int8), (edges[:, 0], edges[:, 1])), shape=(n, n))
    _, comp = connected_components(graph, directed=False)
    label = comp[g[:, 0]].astype(np.int64)
    n_lab = int(label.max()) + 1
    real = edges[:, 0] != edges[:, 1]  # a repeated vertex: the face's edges cancel in pairs
    key = edges[real, 0] * np.int64(n) + edges[real, 1]
    uniq, counts = np.unique(key, return_counts=True)
    closed = np.ones(n_lab, dtype=bool)
    closed[comp[uniq[counts % 2 == 1] // n]] = False
    table = b.element == 0 if built.has_table_mesh else np.zeros(m, bool)
    c = built.pieces[0].closing if built.has_table_mesh else None
    if c is not None and c.method == "table" and c.skipped_edges == 0:
        rest = np.unique(label[table & ~closed[label]])
        mixed = np.unique(label[~table])
        if (
            len(rest)
            and not np.isin(rest, mixed).any()
            and not np.isin(np.unique(label[table]), mixed).any()
        ):
            label = label.copy()
            label[np.isin(label, rest)] = n_lab
            closed = np.append(closed, True)
    return label, closed
