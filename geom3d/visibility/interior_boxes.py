"""Interior boxes: large boxes inside the closed solids, from the interior map, that settle
whole pairs and whole eyes of a Line of Fire search.

A scanned table is one mesh: its buildings, walls and raised blocks are not pieces of
their own, and a piece modelled with sloped or rounded faces is neither convex nor
rectilinear, so neither gets the convex pieces' shortcuts (:mod:`.convex`). The interior
map (:mod:`.interior`) knows, column by column, where such solids are certainly inside.
:func:`interior_boxes` merges its runs into a few large boxes: the runs become voxels
(``INTERIOR_BOX_LEVEL_MM`` high), the voxels disjoint boxes, and each box that rises
above the ground beside it is grown face by face as far as the voxels allow (so they
overlap: a wall is its whole length). Of those, the boxes kept are the tall ones
(``INTERIOR_BOX_MIN_HEIGHT_MM``, at least ``INTERIOR_BOX_MIN_SIDE_MM`` thick and
``INTERIOR_BOX_MIN_SPAN_MM`` long) that rise ``INTERIOR_BOX_MIN_RISE_MM`` above the
ground beside them (the ground itself is the ground profiles' work: :mod:`.ground`),
largest first, each only if it adds ``INTERIOR_BOX_NEW_SHARE`` of its volume to those
before it, at most ``INTERIOR_BOX_MAX``.

Why they block: a box lies inside a closed solid and no blocking triangle meets it, so a
segment from a point outside every closed solid to a point of the box crosses the
solid's surface on its way in. From an eye region :meth:`.interior.InteriorMap.outside`
certifies (no triangle within ``PROOF_CLEARANCE_MM`` of it), that crossing is at least
``PROOF_CLEARANCE_MM`` from the eye and before the segment meets the box shrunk by that
much: the ray engine finds the segment blocked, as it does for a convex piece's own
surface. So the boxes serve the convex pieces' whole-pair and whole-eye tests
(:meth:`.convex.ConvexSolids.blocks_pair`, :meth:`~.convex.ConvexSolids.hidden`) for a
pair whose two eye regions are certified outside (:meth:`.proof.Prover.boxes_near`).
They settle only what is blocked: the answer is the same without them.
"""

from __future__ import annotations

import math

import numpy as np

from geom3d.mesh.boxes import RectilinearBoxes
from geom3d.visibility._box_kernels import (
    column_bits,
    greedy_boxes,
    grow_boxes,
    rising,
    take_new,
)
from geom3d.visibility.convex import NO_SOLIDS, ConvexSolids
from geom3d.visibility.interior import InteriorMap
from geom3d.visibility.tolerances import (
    CONVEX_FLAT_MM,
    INTERIOR_BOX_LEVEL_MM,
    INTERIOR_BOX_MAX,
    INTERIOR_BOX_MIN_HEIGHT_MM,
    INTERIOR_BOX_MIN_RISE_MM,
    INTERIOR_BOX_MIN_SIDE_MM,
    INTERIOR_BOX_MIN_SPAN_MM,
    INTERIOR_BOX_NEW_SHARE,
)

__all__ = ["interior_boxes", "interior_solids"]

#: Voxel levels per column: the bits of one uint64 (one spare, so a mask of every level
#: does not overflow).
_MAX_LEVELS = 63


def interior_boxes(interior: InteriorMap) -> np.ndarray:
    """The interior map's runs as a few large boxes (see the module docstring).

    Parameters
    ----------
    interior : InteriorMap

    Returns
    -------
    (k, 6) float64, mm
        ``(x0, y0, z0, x1, y1, z1)`` rows, world axes, largest first; each lies inside a
        closed solid and no blocking triangle meets it. Made once per map (kept as
        :attr:`.interior.InteriorMap.boxes`, which the disk cache stores with the runs).
    """
    if interior.boxes is None:
        interior.boxes = _boxes(interior)
    return interior.boxes


def _boxes(interior: InteriorMap) -> np.ndarray:
    """:func:`interior_boxes`, made."""
    if not interior.certifies():
        return np.zeros((0, 6))
    x0, y0, g, nx_f, ny_f = (float(x) for x in interior.grid[:5])
    nx, ny = int(nx_f), int(ny_f)
    z0 = math.floor(float(interior.run_lo.min()))
    span = float(interior.run_hi.max()) - z0
    q = max(INTERIOR_BOX_LEVEL_MM, span / _MAX_LEVELS)  # a tall table: taller voxels
    n_levels = min(_MAX_LEVELS, math.ceil(span / q))
    bits = column_bits(
        interior.run_off, interior.run_lo, interior.run_hi, float(z0), q, n_levels,
        INTERIOR_BOX_MIN_HEIGHT_MM,
    )  # fmt: skip
    # seeded from the highest columns down, a block's or a wall's box is its full height
    # (not what a lower neighbour's box left above it), so only boxes already tall enough
    # and rising above their ring grow: a box of the ground, of which a rolling table or
    # a DEM has tens of thousands, would grow into more ground
    filled = np.flatnonzero(bits)
    highest = np.floor(np.log2(bits[filled].astype(np.float64)))
    seeds = filled[np.argsort(-highest, kind="stable")]
    cells = greedy_boxes(bits, nx, ny, n_levels, seeds)
    cells = cells[(cells[:, 5] - cells[:, 2]) * q >= INTERIOR_BOX_MIN_HEIGHT_MM]
    cells = cells[_rising(interior, cells, z0, q)]
    cells = grow_boxes(bits, nx, ny, n_levels, cells)
    cells = np.unique(cells, axis=0)  # (sorted: the same boxes in the same order)
    size = (cells[:, 3:] - cells[:, :3]) * np.array([g, g, q])
    across, along = size[:, :2].min(axis=1), size[:, :2].max(axis=1)
    tall = (
        (size[:, 2] >= INTERIOR_BOX_MIN_HEIGHT_MM)
        & (across >= INTERIOR_BOX_MIN_SIDE_MM)
        & (along >= INTERIOR_BOX_MIN_SPAN_MM)
    )
    cells = np.ascontiguousarray(cells[tall])
    cells = np.ascontiguousarray(cells[_rising(interior, cells, z0, q)])
    volume = np.prod(cells[:, 3:] - cells[:, :3], axis=1)
    order = np.lexsort((np.arange(len(cells)), -volume))  # largest first, then in order
    keep = take_new(bits, ny, cells, order, INTERIOR_BOX_NEW_SHARE, INTERIOR_BOX_MAX)
    cells = cells[order[keep[order]]]
    out = np.empty((len(cells), 6))
    out[:, 0], out[:, 3] = x0 + cells[:, 0] * g, x0 + cells[:, 3] * g
    out[:, 1], out[:, 4] = y0 + cells[:, 1] * g, y0 + cells[:, 4] * g
    out[:, 2], out[:, 5] = z0 + cells[:, 2] * q, z0 + cells[:, 5] * q
    return out


def _rising(interior: InteriorMap, cells: np.ndarray, z0: float, q: float) -> np.ndarray:
    """(b,) bool: voxel boxes ``cells`` whose top rises ``INTERIOR_BOX_MIN_RISE_MM`` above
    the ground beside them (:func:`._box_kernels.rising`)."""
    nx, ny = int(interior.grid[3]), int(interior.grid[4])
    return rising(
        interior.run_off, interior.run_lo, interior.run_hi, nx, ny, cells,
        z0 + cells[:, 5] * q, INTERIOR_BOX_MIN_RISE_MM,
    )  # fmt: skip


def interior_solids(interior: InteriorMap, pieces: ConvexSolids = NO_SOLIDS) -> ConvexSolids:
    """:func:`interior_boxes` as convex pieces (:meth:`.convex.ConvexSolids.from_boxes`),
    but those inside one of ``pieces`` (the scenery's own convex pieces and boxes, which
    settle all they would, and more)."""
    boxes = interior_boxes(interior)
    if len(boxes) and len(pieces):
        boxes = boxes[~_inside_pieces(boxes, pieces)]
    return ConvexSolids.from_boxes(boxes) if len(boxes) else NO_SOLIDS


def _inside_pieces(boxes: np.ndarray, pieces: ConvexSolids) -> np.ndarray:
    """(k,) bool: boxes whose eight corners all lie in one of ``pieces`` (within
    ``CONVEX_FLAT_MM`` of its planes)."""
    corners = RectilinearBoxes(boxes, 0.0).corners()  # (k, 8, 3)
    out = np.zeros(len(boxes), dtype=bool)
    for s in range(len(pieces)):
        lo, hi = pieces.lo[s], pieces.hi[s]
        maybe = ~out & (boxes[:, :3] >= lo).all(axis=1) & (boxes[:, 3:] <= hi).all(axis=1)
        if not maybe.any():
            continue
        pl = pieces.planes[pieces.off[s] : pieces.off[s + 1]]
        depth = np.einsum("kci,pi->kcp", corners[maybe], pl[:, :3]) - pl[:, 3]
        out[np.flatnonzero(maybe)[(depth <= CONVEX_FLAT_MM).all(axis=(1, 2))]] = True
    return out
