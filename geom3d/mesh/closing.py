"""Closing open scans into solids for the ``solid: auto`` semantics (SPEC 11.1).

``solid: auto`` says a point is *inside* a piece when a vertical ray going **up** from it
crosses the piece's surface an odd number of times. The ray engine only knows surfaces,
so this module adds the extra blocking geometry that makes "a segment is blocked" agree
with that parity rule.

Why curtains are exactly the parity rule
----------------------------------------
Let ``P(p)`` be the number of crossings (mod 2) of the upward ray from ``p`` with the
surface ``S``. Move ``p`` along a path. The crossing count changes only when

(a) ``p`` itself passes through ``S`` (a crossing appears or disappears at the ray's
    base), or
(b) the ray sweeps over an edge ``e`` of ``S``: the crossings on the faces on one side of
    ``e`` are traded for those on the other side. If ``e`` is used by ``k`` faces, ``a``
    of them on one side and ``k - a`` on the other, the count jumps by ``k - 2a``, whose
    parity is that of ``k``. So only edges used by an **odd** number of faces matter; for
    an ordinary scan these are the open boundary edges (used by one face), and a
    two-face edge (ordinary or folded) never changes parity. The ray sweeps over ``e``
    exactly when ``p`` crosses the vertical *curtain* hanging below ``e``.

Vertical faces have no area seen from below and never count; the jump they cause is
located on the face itself, which is part of ``S``. Hence the set where ``P`` can change
is ``S`` plus the curtains below the odd edges, and a segment whose endpoints have
different parity must meet that set. Conversely, every generic point of a curtain is a
parity change, so curtains never block a segment that stays outside (the exception is
two odd edges stacked exactly above one another, whose curtains cancel; see Caveats).

Curtains end a small distance below the *floor* (the table under a piece): points below
the table are inside the table, so nothing is lost by stopping there. A hole in the side
of a scan is covered by the curtain below the hole's upper edge: the hole is an opening in
``S``, but the ray from a point just inside the hole still leaves through the hole's top
edge's curtain, so the curtain below that edge closes it. Nothing has to be guessed about
a hole's shape, so closing is exact for arbitrarily jagged rims.

Caveats
-------
* Floating scan debris is taken at its word: a flake in the air is the top of a column
  reaching down to the table (its report counts ``floating_fragments``).
* Self-overlapping scans (two layers of the same wall, a fragment inside a basin) flip
  parity locally: between two layers counts as *outside*. Such pockets are enclosed by
  surface and curtains, so they are unreachable and do not leak, but they look odd.
* T-junctions (an edge of one face lying along two edges of another, without shared
  vertices) appear as boundary edges on both sides; their curtains coincide and block
  although parity does not change there. Decimated scans and CAD exports normally share
  vertices; positions are merged by exact coordinates before edges are counted.
* Curtain faces are not consistently wound and the closed result is geometrically closed
  (no cracks) rather than combinatorially manifold: good for ray casting, not for volume
  computations.

Tolerances
----------
In :mod:`geom3d.mesh.tolerances` (re-exported here): ``CURTAIN_FLOOR_EPS_MM``,
``CURTAIN_FLOOR_STEP_MM``, ``TABLE_FLOOR_DEPTH_MM``, ``TABLE_CAP_MARGIN_MM``,
``FRAGMENT_FLOOR_TOL_MM``.

Example
-------
>>> import numpy as np
>>> v = np.array([[0, 0, 2], [10, 0, 2], [0, 10, 2]], float)   # one triangle, 2 mm up
>>> f = np.array([[0, 1, 2]])
>>> cv, cf, rep = close_downward(v, f, 0.0)
>>> rep.open_edges, rep.loops, rep.curtain_triangles
(3, 1, 6)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

import numpy as np

from geom3d.mesh.boundary import (
    Boundary,
    _as_faces,
    _as_vertices,
    _boundary,
    boundary_edges,
    components,
    merge_positions,
)
from geom3d.mesh.parity import inside_parity
from geom3d.mesh.tolerances import (
    CURTAIN_FLOOR_EPS_MM,
    CURTAIN_FLOOR_STEP_MM,
    FRAGMENT_FLOOR_TOL_MM,
    TABLE_CAP_MARGIN_MM,
    TABLE_FLOOR_DEPTH_MM,
)

__all__ = [
    "CURTAIN_FLOOR_EPS_MM",
    "CURTAIN_FLOOR_STEP_MM",
    "FRAGMENT_FLOOR_TOL_MM",
    "TABLE_CAP_MARGIN_MM",
    "TABLE_FLOOR_DEPTH_MM",
    "Boundary",
    "ClosingReport",
    "boundary_edges",
    "close_downward",
    "close_table",
    "concatenate",
    "inside_parity",
    "merge_positions",
]


#: :class:`ClosingReport` fields that only winding-number closing (``method == "caps"``,
#: :mod:`geom3d.mesh.winding`) fills.
CAP_FIELDS = ("base_loops", "caps", "caps_rejected", "largest_cap_mm", "largest_cap_height_mm")

FloorLike = float | Callable[[np.ndarray], np.ndarray]


def _floor_at(floor_z: FloorLike, xy: np.ndarray) -> np.ndarray:
    """Floor height (n,) float64 mm at points ``xy`` (n, 2)."""
    if callable(floor_z):
        z = np.asarray(floor_z(np.ascontiguousarray(xy, dtype=np.float64)), dtype=np.float64)
        if z.shape != (len(xy),):
            raise ValueError(f"floor_z(xy) must return shape ({len(xy)},), got {z.shape}")
        if not np.isfinite(z).all():
            raise ValueError("floor_z returned non-finite heights")
        return z
    level = float(floor_z)
    if not math.isfinite(level):
        raise ValueError(f"floor_z must be finite, got {floor_z!r}")
    return np.full(len(xy), level)


# --------------------------------------------------------------------------- closing


@dataclass
class ClosingReport:
    """What closing did to one mesh (for the load report, SPEC 11.1 and issue 10 item 4).

    Attributes
    ----------
    method : str
        ``"none"`` (no open edges: nothing added), ``"curtains"`` (:func:`close_downward`),
        ``"table"`` (:func:`close_table`: curtains plus a bottom cap) or ``"caps"``
        (:func:`geom3d.mesh.winding.close_winding`: the winding-number solid).
    open_edges : int
        Edges used by an odd number of faces (normally one), after merging positions.
    nonmanifold_edges : int
        Edges used by three or more faces.
    loops : int
        Boundary loops (connected components of the open edges).
    holes : int
        Boundary loops that are holes: for a piece closed by ``curtains`` all of them,
        by ``caps`` those not in its base; for a table, all but its outer edge (the loop
        with the largest extent).
    largest_hole_mm : float, mm
        Bounding-box diagonal of the largest hole (for a bottomless scan this is the
        rim around the missing underside; for a table, its outer edge excluded).
    largest_hole_perimeter_mm : float, mm
        Perimeter of that loop.
    curtain_triangles : int
        Curtain triangles added.
    cap_triangles : int
        Bottom-cap triangles added (``close_table`` only).
    skipped_edges : int
        Open edges lying at or below the floor (no curtain needed).
    gap_under_mm : float, mm
        How far the open rim nearest the floor rises above it: the largest height above
        the floor of the vertices of the loop whose lowest point is lowest. 0.0 when the
        mesh has no open edges, and for a table. This is the gap a ray used to pass
        through.
    lowest_above_floor_mm : float, mm
        Height of the mesh's lowest point above the floor beneath it (negative: the piece
        sinks into the floor).
    fragments : int
        Connected components (faces sharing merged vertices).
    floating_fragments : int or None
        Components whose lowest point is more than :data:`FRAGMENT_FLOOR_TOL_MM` above
        the floor (each becomes a column down to the table). ``None`` for a table.
    floor_z_mm : float or None
        The floor height, when it was a single number.
    base_loops : int
        (``caps``) Loops closed down to the surface beneath: the scan's base.
    caps : int
        (``caps``) Holes closed by a cap.
    caps_rejected : int
        (``caps``) Holes left open: their cap disagreed with the winding number.
    largest_cap_mm : float, mm
        (``caps``) Extent (bounding-box diagonal) of the largest cap.
    largest_cap_height_mm : float, mm
        (``caps``) Height of that cap's lowest point above the surface beneath.
    """

    method: str = "none"
    open_edges: int = 0
    nonmanifold_edges: int = 0
    loops: int = 0
    holes: int = 0
    largest_hole_mm: float = 0.0
    largest_hole_perimeter_mm: float = 0.0
    curtain_triangles: int = 0
    cap_triangles: int = 0
    skipped_edges: int = 0
    gap_under_mm: float = 0.0
    lowest_above_floor_mm: float = 0.0
    fragments: int = 0
    floating_fragments: int | None = 0
    floor_z_mm: float | None = None
    notes: list[str] = field(default_factory=list)
    base_loops: int = 0
    caps: int = 0
    caps_rejected: int = 0
    largest_cap_mm: float = 0.0
    largest_cap_height_mm: float = 0.0

    def as_dict(self) -> dict:
        """JSON-ready dict (floats rounded to 1e-3 mm); the cap fields only for ``caps``."""
        d = asdict(self)
        if self.method != "caps":
            for k in CAP_FIELDS:
                d.pop(k)
        for k, val in d.items():
            if isinstance(val, float):
                d[k] = round(val, 3)
        return d


def _used(f: np.ndarray, n: int) -> np.ndarray:
    """Sorted indices (int64) of the vertices that faces ``f`` use."""
    mask = np.zeros(n, dtype=bool)
    mask[f.ravel()] = True
    return np.flatnonzero(mask)


def _curtains(v: np.ndarray, edges: np.ndarray, floor_z: FloorLike):
    """Curtain quads below ``edges``; returns (vertices, faces, n_skipped)."""
    a, b = v[edges[:, 0]], v[edges[:, 1]]
    # floor samples along each edge's xy projection, ends included
    lxy = np.hypot(*(b[:, :2] - a[:, :2]).T)
    k = np.ceil(lxy / CURTAIN_FLOOR_STEP_MM).astype(np.int64) + 1  # samples per edge
    eid = np.repeat(np.arange(len(edges)), k)
    first = np.cumsum(k) - k
    t = (np.arange(len(eid)) - first[eid]) / np.maximum(k[eid] - 1, 1)
    xy = a[eid, :2] + t[:, None] * (b[eid, :2] - a[eid, :2])
    fz = _floor_at(floor_z, xy)
    fmin = np.full(len(edges), np.inf)
    np.minimum.at(fmin, eid, fz)
    keep = np.maximum(a[:, 2], b[:, 2]) > fmin  # else: wholly at/below the floor
    skipped = int(np.count_nonzero(~keep))
    a, b, bot = a[keep], b[keep], fmin[keep] - CURTAIN_FLOOR_EPS_MM
    n = len(a)
    a2, b2 = a.copy(), b.copy()
    a2[:, 2] = np.minimum(a[:, 2], bot)  # an end below the floor: no twisted quad
    b2[:, 2] = np.minimum(b[:, 2], bot)
    cv = np.concatenate([a, b, b2, a2])  # rows: A_i, B_i, B'_i, A'_i
    i = np.arange(n)
    cf = np.concatenate(
        [np.stack([i, i + n, i + 2 * n], 1), np.stack([i, i + 2 * n, i + 3 * n], 1)]
    )
    p = cv[cf]
    area2 = np.linalg.norm(np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0]), axis=1)
    cf = cf[area2 > 0.0]  # an end on the floor, or a vertical edge, gives a sliver
    # drop unused vertices, keep order deterministic
    used = np.zeros(len(cv), bool)
    used[cf.ravel()] = True
    remap = np.cumsum(used) - 1
    return cv[used], remap[cf].astype(np.int64), skipped


def _fill_report(
    rep: ClosingReport, v, f, bnd: Boundary, floor_z: FloorLike, table: bool, group: np.ndarray
):
    rep.open_edges = len(bnd.edges)
    rep.nonmanifold_edges = bnd.nonmanifold_edges
    rep.loops = bnd.loops
    rep.holes = bnd.loops
    rep.largest_hole_mm = bnd.largest_hole_mm
    rep.largest_hole_perimeter_mm = bnd.largest_hole_perimeter_mm
    if table and bnd.loops:  # the loop with the largest extent is the table's edge
        ext = bnd.loop_extent_mm.copy()
        ext[int(np.argmax(ext))] = -1.0
        rep.holes = bnd.loops - 1
        k = int(np.argmax(ext))
        rep.largest_hole_mm = float(ext[k]) if rep.holes else 0.0
        rep.largest_hole_perimeter_mm = float(bnd.loop_perimeter_mm[k]) if rep.holes else 0.0
    if not callable(floor_z):
        rep.floor_z_mm = float(floor_z)
    if len(f) == 0:
        rep.floating_fragments = None if table else 0
        return
    used = _used(f, len(v))
    h = np.full(len(v), np.nan)
    h[used] = v[used, 2] - _floor_at(floor_z, v[used, :2])
    rep.lowest_above_floor_mm = float(np.nanmin(h))
    if bnd.loops:
        nodes = bnd.edges.ravel()
        lp = np.repeat(bnd.loop, 2)
        lmin = np.full(bnd.loops, np.inf)
        lmax = np.full(bnd.loops, -np.inf)
        np.minimum.at(lmin, lp, h[nodes])
        np.maximum.at(lmax, lp, h[nodes])
        if not table:  # a table's floor is of our making: no gap to report
            rep.gap_under_mm = float(max(lmax[int(np.argmin(lmin))], 0.0))
    g = group[f]
    lab = components(
        int(group.max()) + 1,
        np.concatenate([g[:, 0], g[:, 1]]),
        np.concatenate([g[:, 1], g[:, 2]]),
    )
    comp_of_vertex = lab[group]
    has_face = np.zeros(int(lab.max()) + 1, dtype=bool)
    has_face[comp_of_vertex[f[:, 0]]] = True
    comps = np.flatnonzero(has_face)
    rep.fragments = len(comps)
    if table:
        rep.floating_fragments = None
        return
    cmin = np.full(int(lab.max()) + 1, np.inf)
    np.minimum.at(cmin, comp_of_vertex[used], h[used])
    rep.floating_fragments = int(np.count_nonzero(cmin[comps] > FRAGMENT_FLOOR_TOL_MM))


def close_downward(vertices, faces, floor_z: FloorLike = 0.0):
    """Curtains that make an open scan block like the solid ``solid: auto`` describes.

    For every open edge (used by an odd number of faces) a vertical quad (two triangles)
    hangs from the edge down to :data:`CURTAIN_FLOOR_EPS_MM` below the lowest floor
    sample under the edge (see :data:`CURTAIN_FLOOR_STEP_MM`). Edges wholly at or below
    the floor get no curtain. A watertight mesh gets nothing.

    Parameters
    ----------
    vertices : (n, 3) float, mm
        The piece as placed on the table.
    faces : (m, 3) int
    floor_z : float or callable, mm
        The surface under the piece: a height, or a function mapping ``xy`` (k, 2)
        float64 mm to heights (k,) float64 mm (for example the table mesh's top).

    Returns
    -------
    curtain_vertices : (c, 3) float64, mm
        Top corners repeat the edge's own coordinates exactly, so curtains join the scan
        without cracks once both are in the same BVH.
    curtain_faces : (t, 3) int64
        Triangles indexing ``curtain_vertices``; concatenate with the mesh (see
        :func:`concatenate`) before building the ray engine.
    report : ClosingReport
    """
    v = _as_vertices(vertices)
    f = _as_faces(faces, len(v))
    group, rep_idx = merge_positions(v)
    bnd = _boundary(v, f, group, rep_idx)
    rep = ClosingReport(method="curtains" if len(bnd.edges) else "none")
    cv, cf = np.zeros((0, 3)), np.zeros((0, 3), np.int64)
    if len(bnd.edges):
        cv, cf, rep.skipped_edges = _curtains(v, bnd.edges, floor_z)
        rep.curtain_triangles = len(cf)
        if rep.curtain_triangles == 0:
            rep.method = "none"
    _fill_report(rep, v, f, bnd, floor_z, table=False, group=group)
    return cv, cf, rep


def close_table(vertices, faces, below_z: float | None = None):
    """Close a table mesh into the top of a solid: nothing passes below it.

    The floor is a plane :data:`TABLE_FLOOR_DEPTH_MM` below the mesh's lowest point (or
    below ``below_z``, when that is lower).
    Every open edge gets a curtain down to (just below) that plane, and a bottom cap (a
    rectangle, two triangles, overhanging the mesh's xy bounding box by
    :data:`TABLE_CAP_MARGIN_MM`) lies on it. Points above the table surface are outside,
    points below it inside, exactly as the upward-ray parity says; the cap only blocks
    segments that would pass below the floor.

    Parameters
    ----------
    vertices : (n, 3) float, mm
    faces : (m, 3) int
    below_z : float, optional, mm
        Put the floor at least :data:`TABLE_FLOOR_DEPTH_MM` below this height too (the
        scene passes 0: a table mesh raised above the plane z = 0 is solid down to it).

    Returns
    -------
    extra_vertices : (c, 3) float64, mm
    extra_faces : (t, 3) int64
        Curtains then the cap, indexing ``extra_vertices``.
    report : ClosingReport
        ``method == "table"``; ``floating_fragments`` is ``None``.
    """
    v = _as_vertices(vertices)
    f = _as_faces(faces, len(v))
    rep = ClosingReport(method="table")
    if len(f) == 0:
        return np.zeros((0, 3)), np.zeros((0, 3), np.int64), rep
    used = _used(f, len(v))
    lo = v[used].min(axis=0)
    hi = v[used].max(axis=0)
    low = float(lo[2]) if below_z is None else min(float(lo[2]), float(below_z))
    floor = low - TABLE_FLOOR_DEPTH_MM
    group, rep_idx = merge_positions(v)
    bnd = _boundary(v, f, group, rep_idx)
    cv, cf = np.zeros((0, 3)), np.zeros((0, 3), np.int64)
    if len(bnd.edges):
        cv, cf, rep.skipped_edges = _curtains(v, bnd.edges, floor)
    rep.curtain_triangles = len(cf)
    m = TABLE_CAP_MARGIN_MM
    cap_v = np.array(
        [
            [lo[0] - m, lo[1] - m, floor],
            [hi[0] + m, lo[1] - m, floor],
            [hi[0] + m, hi[1] + m, floor],
            [lo[0] - m, hi[1] + m, floor],
        ]
    )
    cap_f = np.array([[0, 2, 1], [0, 3, 2]], np.int64) + len(cv)  # facing down
    rep.cap_triangles = 2
    _fill_report(rep, v, f, bnd, floor, table=True, group=group)
    return np.concatenate([cv, cap_v]), np.concatenate([cf, cap_f]), rep


def concatenate(vertices, faces, extra_vertices, extra_faces):
    """The mesh plus its closing geometry, as one (vertices, faces) pair.

    Parameters
    ----------
    vertices : (n, 3) float, mm
    faces : (m, 3) int
    extra_vertices : (c, 3) float, mm
    extra_faces : (t, 3) int

    Returns
    -------
    vertices : (n + c, 3) float64, mm
    faces : (m + t, 3) int64
        Original faces first, so face indices below ``m`` still name original triangles.
    """
    v = _as_vertices(vertices)
    f = _as_faces(faces, len(v))
    ev = np.asarray(extra_vertices, np.float64).reshape(-1, 3)
    ef = np.asarray(extra_faces, np.int64).reshape(-1, 3)
    return np.concatenate([v, ev]), np.concatenate([f, ef + len(v)])
