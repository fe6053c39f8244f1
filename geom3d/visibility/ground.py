"""Ground profiles: what the solid under the line between two troopers hides, settled
without rays.

On a rolling table most of a blocked pair's rays are stopped by the ground itself: a
hill between the two, which the segments dip under by a few millimetres. Each such ray
would cost its view (where it meets the target) and an Embree query. A *ground profile*
settles them first, for a whole direction of a pair at once.

The interior column map (:mod:`.interior`) certifies boxes ``column x [lo, hi]`` inside
closed solids. Every segment a search casts from an eye of the viewer to a point of the
target stays in the plan band between the two troopers, as wide as the wider of them.
Cut into slabs along the line (``GROUND_SLAB_MM``), each slab has a height: the lowest top,
over the blocks of columns that meet it (``GROUND_BLOCK_COLUMNS`` a side), of their bottom
runs, where those start below both troopers' bases. A segment passing a slab's end below
that height is inside a run there, so from an eye outside every closed solid it meets a
blocking triangle on the way: the ray engine would find it blocked (:mod:`._ground_kernels`
has the argument).

Used at two levels, like the convex pieces (:mod:`.convex`): an eye whose steepest segment
to the target is below its horizon is skipped whole (:meth:`GroundProfile.hidden`), and a
ray below its eye's horizon is settled before its view (:func:`._cast_kernels._clear_loop`).
Only blocked segments are settled, so the answer, witness included, is the one found
without profiles.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from geom3d.bodies.cylinder import Cylinder
from geom3d.bodies.kernel_constants import PROOF_CLEARANCE_MM, SURFACE_BOX_PAD_MM
from geom3d.visibility._ground_kernels import ground_blocks, ground_hidden, ground_profile
from geom3d.visibility.convex import cylinder_row
from geom3d.visibility.interior import InteriorMap
from geom3d.visibility.tolerances import GROUND_BLOCK_COLUMNS, GROUND_SLAB_MM

__all__ = ["NO_GROUND", "GroundBlocks", "GroundProfile", "warm_profiles"]


@dataclass(frozen=True)
class GroundProfile:
    """The ground profile of one direction of a pair (see the module docstring).

    Attributes
    ----------
    frame : (4,) float64
        ``(ox, oy, dx, dy)``: the viewer's axis (mm) and the unit plan direction to the
        target's.
    hull : (m, 2) float64, mm
        ``(x, z)`` in that frame: the upper hull of the slabs' end points, lowered by
        ``PROOF_CLEARANCE_MM``; empty: nothing is settled.
    """

    frame: np.ndarray
    hull: np.ndarray

    def __bool__(self) -> bool:
        return len(self.hull) > 0

    @property
    def packed(self) -> tuple[np.ndarray, np.ndarray]:
        """``(frame, hull)``, as the compiled search takes them."""
        return self.frame, self.hull

    def hidden(self, eyes: np.ndarray, target: Cylinder) -> np.ndarray:
        """(n,) bool: eyes whose every segment to ``target`` passes under the ground."""
        if not self or not len(eyes):
            return np.zeros(len(eyes), dtype=bool)
        return ground_hidden(
            np.ascontiguousarray(eyes, dtype=np.float64), self.frame, self.hull,
            cylinder_row(target), SURFACE_BOX_PAD_MM,
        )  # fmt: skip


NO_GROUND = GroundProfile(np.zeros(4), np.zeros((0, 2)))


@dataclass(frozen=True)
class GroundBlocks:
    """The interior map's bottom runs in blocks of ``GROUND_BLOCK_COLUMNS`` columns a side
    (:func:`._ground_kernels.ground_blocks`): what profiles are read from, a few thousand
    blocks per corridor instead of tens of thousands of columns.

    Attributes
    ----------
    top, low : (mx * my,) float64, mm
        Per block: every point of ``block x (low, top)`` lies in an interior run.
    grid : (5,) float64
        ``x0, y0, side, mx, my``.
    highest : float, mm
        The highest block top (``-inf`` for none).
    """

    top: np.ndarray
    low: np.ndarray
    grid: np.ndarray
    highest: float

    @classmethod
    def from_map(cls, interior: InteriorMap, k: int = GROUND_BLOCK_COLUMNS) -> GroundBlocks:
        x0, y0, g, nx, ny = (float(x) for x in interior.grid[:5])
        top, low, mx, my = ground_blocks(
            interior.run_off, interior.run_lo, interior.run_hi, int(nx), int(ny), k
        )
        highest = float(top.max()) if len(top) else -math.inf
        return cls(top, low, np.array([x0, y0, k * g, mx, my], dtype=np.float64), highest)

    def profile(self, viewer: Cylinder, target: Cylinder) -> GroundProfile:
        """The ground profile from ``viewer``'s eyes to ``target``.

        The caller vouches that ``viewer``'s eye region is outside every closed solid
        (:meth:`.interior.InteriorMap.outside`): the runs prove nothing otherwise.
        Where no block rises above both bases (a flat table) there is nothing to draw.
        """
        if not self.highest > min(viewer.base[2], target.base[2]):
            return NO_GROUND
        frame, hull = ground_profile(
            self.top, self.low, self.grid, cylinder_row(viewer), cylinder_row(target),
            GROUND_SLAB_MM, PROOF_CLEARANCE_MM, SURFACE_BOX_PAD_MM,
        )  # fmt: skip
        return GroundProfile(frame, hull) if len(hull) else NO_GROUND


def warm_profiles() -> None:
    """Load the kernels that draw and read profiles (numba's disk cache) with the argument
    types of the real calls, on a toy map of one block: with the search, which reads
    them (:func:`.search.warm_search`, compiled beside the rest on a first run)."""
    blocks = GroundBlocks(np.zeros(1), np.zeros(1), np.array([0.0, 0.0, 4.0, 1.0, 1.0]), math.inf)
    a = Cylinder((-100.0, 0.0, 0.0), 12.5, 40.0)
    b = Cylinder((100.0, 0.0, 0.0), 12.5, 40.0)
    blocks.profile(a, b)  # the corridor leaves the toy map: nothing drawn
    GroundProfile(np.zeros(4), np.zeros((1, 2))).hidden(np.zeros((1, 3)), b)
