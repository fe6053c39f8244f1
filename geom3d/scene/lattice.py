"""Many base discs on one grid: their inner probes shared on one lattice (SPEC 12.2).

The 12.2 drop (:meth:`geom3d.scene.standing.Surface.footing`) probes a base every
``STAND_GRID_MM`` inside its disc. When many discs stand on a regular grid whose pitch is
a whole number of probe steps (the survey's and the exposure map's spots, 10 mm apart),
the inner probes of all of them fall on one lattice, and each lattice point is probed once
instead of once per disc (a 12.5 mm base has 490 inner probes: at 10 mm a point is shared
by about five discs). The heights are the first surface met coming down from above
everything, exactly as a dropped trooper's rays meet them; a disc whose rays start lower
(:meth:`~geom3d.scene.standing.Surface.rest_below`: a floor under a roof) takes a lattice
height only where it lies under its start, and casts its own ray from its start where it
does not (the first surface under the start is then the one met from above as well).
"""

from __future__ import annotations

import numpy as np

__all__ = ["MAX_LATTICE_SHARE", "inner_heights"]

#: A lattice is used only when it has at most this share of the rays the discs would cast
#: one by one (sparse discs over a large table probe each disc alone).
MAX_LATTICE_SHARE = 0.5
#: A lattice height this close under a disc's start is cast again from the start.
_START_MARGIN_MM = 1e-6
#: Disc centres off the lattice of the first by more than this (mm) are not shared.
_ALIGN_MM = 1e-9


def inner_heights(surface, centres: np.ndarray, grid: np.ndarray, step: float, start):
    """Heights (mm) of each disc's inner probes, shared on one lattice, or None.

    Parameters
    ----------
    surface : geom3d.scene.standing.Surface
    centres : (n, 2) float64, mm
    grid : (g, 2) float64, mm
        The inner probe offsets, whole multiples of ``step``.
    step : float, mm
    start : (n,) float64, mm
        Where each disc's rays start coming down.

    Returns
    -------
    (n, g) float64 or None
        As :meth:`Surface._tops` gives them for ``centres[:, None] + grid`` from ``start``
        (NaN where nothing is met); None when the discs are not on one lattice or the
        lattice would not save rays.
    """
    c = np.asarray(centres, np.float64).reshape(-1, 2)
    if len(c) < 2 or not len(grid):
        return None
    base = c[0]
    idx = np.rint((c - base) / step).astype(np.int64)
    if np.abs(c - (base + idx * step)).max() > _ALIGN_MM:
        return None
    g = np.rint(grid / step).astype(np.int64)
    lo = idx.min(axis=0) + g.min(axis=0)
    hi = idx.max(axis=0) + g.max(axis=0)
    nx, ny = int(hi[0] - lo[0] + 1), int(hi[1] - lo[1] + 1)
    if nx * ny > MAX_LATTICE_SHARE * len(c) * len(g):
        return None
    gx = base[0] + (lo[0] + np.arange(nx)) * step
    gy = base[1] + (lo[1] + np.arange(ny)) * step
    px, py = np.meshgrid(gx, gy, indexing="xy")  # row j: y = gy[j]
    lattice = surface.tops(np.column_stack([px.ravel(), py.ravel()]))
    flat = ((idx[:, None, 1] + g[None, :, 1] - lo[1]) * nx) + (
        idx[:, None, 0] + g[None, :, 0] - lo[0]
    )
    h = lattice[flat]
    st = np.asarray(start, np.float64).reshape(-1)
    redo = ~(h < st[:, None] - _START_MARGIN_MM) & ~np.isnan(h)
    if redo.any():
        rows, cols = np.nonzero(redo)
        pts = c[rows] + grid[cols]
        h[rows, cols] = surface.tops_from(pts, st[rows])
    return h
