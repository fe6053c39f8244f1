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

__all__ = ["MAX_LATTICE_SHARE", "InnerLattice", "inner_heights"]

#: A lattice is used only when it has at most this share of the rays the discs would cast
#: one by one (sparse discs over a large table probe each disc alone).
MAX_LATTICE_SHARE = 0.5
#: A lattice height this close under a disc's start is cast again from the start.
_START_MARGIN_MM = 1e-6
#: Disc centres off the lattice of the first by more than this (mm) are not shared.
_ALIGN_MM = 1e-9


class InnerLattice:
    """The inner probes of many discs on one lattice, probed once (see the module).

    Build with :meth:`of`; :meth:`heights` gives a batch of discs' inner heights.

    Attributes
    ----------
    centres : (n, 2) float64, mm
    grid : (g, 2) float64, mm
        The inner probe offsets (whole multiples of the step).
    cell : (n,) int64
        Each disc's centre as an index into ``lattice`` (its probes: ``cell + probe``).
    probe : (g,) int64
        Each inner probe's offset in ``lattice`` indices.
    lattice : (m,) float64, mm
        First surface met coming down from above everything at each lattice point (NaN:
        nothing).
    """

    def __init__(self, surface, centres, grid, cell, probe, lattice) -> None:
        self.surface = surface
        self.centres = centres
        self.grid = grid
        self.cell = cell
        self.probe = probe
        self.lattice = lattice

    @classmethod
    def of(cls, surface, centres: np.ndarray, grid: np.ndarray, step: float):
        """The lattice of ``centres`` ((n, 2) mm) with inner offsets ``grid`` ((g, 2) mm,
        whole multiples of ``step`` mm), or None when the discs are not on one lattice or
        it would not save rays (``MAX_LATTICE_SHARE``)."""
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
        cell = (idx[:, 1] - lo[1]) * nx + (idx[:, 0] - lo[0])
        probe = g[:, 1] * nx + g[:, 0]
        return cls(surface, c, np.asarray(grid, np.float64), cell, probe, lattice)

    def heights(self, rows: np.ndarray, start) -> np.ndarray:
        """(len(rows), g) float64 mm: the inner heights of discs ``rows`` as their own
        rays from ``start`` ((len(rows),) mm) would meet them (NaN where nothing is)."""
        h = self.lattice[self.cell[rows, None] + self.probe[None, :]]
        st = np.asarray(start, np.float64).reshape(-1)
        redo = ~(h < st[:, None] - _START_MARGIN_MM) & ~np.isnan(h)
        if redo.any():
            r, cols = np.nonzero(redo)
            pts = self.centres[rows[r]] + self.grid[cols]
            h[r, cols] = self.surface.tops_from(pts, st[r])
        return h


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
        As :meth:`Surface.tops_from` gives them for ``centres[:, None] + grid`` from
        ``start`` (NaN where nothing is met); None when the discs are not on one
        lattice or the lattice would not save rays.
    """
    lat = InnerLattice.of(surface, centres, grid, step)
    if lat is None:
        return None
    return lat.heights(np.arange(len(lat.centres)), start)
