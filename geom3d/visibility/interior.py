"""The interior column map: boxes certified to lie inside closed solids.

Blocking proofs (:mod:`.proof`) need regions that are *certainly* inside a solid. The map
cuts the plan into square columns (``PROOF_COLUMN_MM``) and keeps, per column, the
*interior runs*: z-intervals that no blocking triangle reaches and whose test point lies
inside a *closed* element. Each run is a box ``column x [lo, hi]`` strictly inside a
solid, so a segment from a point outside every closed solid to a point of a run meets a
blocking triangle.

Why that is sound
-----------------
An element is *closed* when its own triangles are closed modulo 2 (every edge, on exactly
merged positions, used by an even number of faces): then the parity of upward-ray
crossings is the same at every point of a connected region free of its triangles, and
odd exactly inside. The table of ``solid: auto`` counts too: its curtains reach below its
bottom cap and the cap covers its footprint, so (as :mod:`geom3d.mesh.closing` shows)
parity changes only on its triangles above the cap; below the cap the cap itself makes
the count even. An open scan of ``solid: auto`` counts when its winding-number closing
(:mod:`geom3d.mesh.winding`: caps over its holes, curtains and a floor under its base)
closed every loop: scan and closing faces are then closed modulo 2 on shared positions,
and the parity inside is exactly the solid the ray engine blocks (SPEC 12.1: the same
solid). A scan with a hole left open (its cap disagreed with the winding number) does
not count: its triangles still bound every run, they just never certify one.

A run is a gap between the z-ranges of every triangle meeting its (slightly grown) column,
so no blocking triangle meets its box; its test point is decided by exact parity, and a
test point too close to a projected edge leaves the column without runs. All tolerances
(:data:`~geom3d.visibility.tolerances.PROOF_EPS_MM`,
:data:`~geom3d.visibility.tolerances.PROOF_GUARD_MM`) err towards certifying less.
"""

from __future__ import annotations

import math

import numpy as np

from geom3d.bodies.cylinder import Cylinder
from geom3d.bodies.kernel_constants import PROOF_CLEARANCE_MM
from geom3d.core.tolerances import STAND_INSET_MM, SURFACE_INSET_MM
from geom3d.visibility._interior_kernels import build_columns, interior_runs
from geom3d.visibility._tile_kernels import bin_triangles, column_parity, cylinder_free, face_bounds
from geom3d.visibility.tolerances import (
    PROOF_COLUMN_MM,
    PROOF_EPS_MM,
    PROOF_FLAT_MM,
    PROOF_GUARD_MM,
    PROOF_MAX_COLUMNS,
    PROOF_TILE_MM,
)

__all__ = ["InteriorMap"]

# where in a column its parity test point sits (fractions of the side): away from the
# centre and the diagonals, so regular meshes do not put an edge through it
_FX, _FY = 0.3819660112501051, 0.4142135623730950


class InteriorMap:
    """Interior runs of the closed solids of a blocking mesh.

    Parameters
    ----------
    vertices : (n, 3) float64, mm
    faces : (m, 3) int64
        The blocking mesh (what the ray engine holds).
    label : (m,) int
        Solid of each face (a connected component, or the table's surface, curtains and
        cap together).
    closed : (k,) bool
        Which labels are closed solids (see the module docstring).
    column_mm : float, mm
    runs : tuple, optional
        ``(grid, run_off, run_lo, run_hi)`` computed before for the same mesh, labels and
        tolerances (:mod:`.interior_cache`): skips building them.
    tiles : tuple, optional
        ``(tile_off, tile_tri)`` (:attr:`tiles`) computed before for the same mesh: skips
        binning the triangles (ignored when they do not fit the tile grid).

    Attributes
    ----------
    grid : (6,) float64
        ``x0, y0, g, nx, ny, eps``.
    run_off : (nx * ny + 1,) int64
    run_lo, run_hi : (r,) float64, mm
    """

    def __init__(
        self, vertices, faces, label, closed, column_mm: float = PROOF_COLUMN_MM, *,
        runs=None, tiles=None,
    ):  # fmt: skip
        self._v = np.ascontiguousarray(vertices, dtype=np.float64)
        self._f = np.ascontiguousarray(faces, dtype=np.int64)
        self._element = np.ascontiguousarray(label, dtype=np.int64)
        self._closed = np.ascontiguousarray(closed, dtype=np.bool_)
        if len(self._f):  # the bounds of the vertices the faces use
            lo, hi = face_bounds(self._v, self._f)
        else:
            lo = hi = np.zeros(3)
        if runs is not None:  # (grid, run_off, run_lo, run_hi), e.g. from the disk cache
            self.grid, self.run_off, self.run_lo, self.run_hi = runs
        else:
            self._build_runs(lo, hi, float(column_mm))
        # outside() looks triangles up in coarse tiles (cached on disk with the runs)
        area = float(hi[0] - lo[0] + 2 * PROOF_TILE_MM) * float(hi[1] - lo[1] + 2 * PROOF_TILE_MM)
        t = max(PROOF_TILE_MM, math.sqrt(area / PROOF_MAX_COLUMNS))  # a huge table: bigger
        self._tile = (float(lo[0]) - t, float(lo[1]) - t, t)
        self._tnx = math.ceil((float(hi[0] - lo[0]) + 2 * t) / t) + 1
        self._tny = math.ceil((float(hi[1] - lo[1]) + 2 * t) / t) + 1
        if tiles is not None and len(tiles[0]) == self._tnx * self._tny + 1:
            self._toff, self._ttri = tiles
        else:
            self._toff, self._ttri = bin_triangles(
                self._v, self._f, self._tile[0], self._tile[1], t, self._tnx, self._tny
            )
        self._scratch = np.zeros(max(1, len(self._closed)), np.int64)
        #: Disk cache key when the map came from (or went to) the cache, else "".
        self.cache_key = ""
        #: (k, 6) float64: the interior boxes (:mod:`.interior_boxes`), once made or read
        #: from the disk cache with the runs; None before.
        self.boxes: np.ndarray | None = None

    def _build_runs(self, lo: np.ndarray, hi: np.ndarray, column_mm: float) -> None:
        span = np.maximum(hi[:2] - lo[:2], 0.0) + 2.0 * column_mm
        g = column_mm
        if span[0] * span[1] / (g * g) > PROOF_MAX_COLUMNS:
            g = math.sqrt(span[0] * span[1] / PROOF_MAX_COLUMNS)
        nx = math.ceil(span[0] / g) + 1
        ny = math.ceil(span[1] / g) + 1
        x0 = float(lo[0]) - g
        y0 = float(lo[1]) - g
        eps = PROOF_EPS_MM
        self.grid = np.array([x0, y0, g, nx, ny, eps], dtype=np.float64)
        if not self._closed.any():
            self.run_off = np.zeros(nx * ny + 1, np.int64)
            self.run_lo = self.run_hi = np.zeros(0)
            return
        tris = np.take(self._v, self._f, axis=0)  # np.take: ~3x faster than indexing
        off, rtri, rlo, rhi = build_columns(tris, x0, y0, g, nx, ny, eps, PROOF_FLAT_MM)
        self.run_off, self.run_lo, self.run_hi = interior_runs(
            tris, self._element, self._closed, off, rtri, rlo, rhi,
            x0, y0, g, ny, _FX, _FY, PROOF_GUARD_MM, eps,
        )  # fmt: skip

    @property
    def label(self) -> np.ndarray:
        """(m,) int64: the solid of each face."""
        return self._element

    @property
    def closed(self) -> np.ndarray:
        """(k,) bool: which solids are closed."""
        return self._closed

    @property
    def tiles(self) -> tuple[np.ndarray, np.ndarray]:
        """``(tile_off, tile_tri)``: CSR of the blocking triangles whose plan bounding box
        meets each coarse tile (what :meth:`outside` looks up)."""
        return self._toff, self._ttri

    @property
    def n_runs(self) -> int:
        """Interior runs in the map."""
        return len(self.run_lo)

    def face_normal(self, face: int) -> tuple[float, float, float]:
        """Unit normal of one blocking triangle (index into the blocking mesh, as the ray
        engine reports it); zero for a degenerate triangle. In plain floats: a caller
        asks for a handful per pair, where numpy's per-call cost would dominate."""
        i, j, k = self._f[face].tolist()
        v = self._v
        (ax, ay, az), (bx, by, bz), (cx, cy, cz) = v[i].tolist(), v[j].tolist(), v[k].tolist()
        ux, uy, uz = bx - ax, by - ay, bz - az
        vx, vy, vz = cx - ax, cy - ay, cz - az
        nx, ny, nz = uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx
        size = math.sqrt(nx * nx + ny * ny + nz * nz)
        if not size > 0:
            return 0.0, 0.0, 0.0
        return nx / size, ny / size, nz / size

    def certifies(self) -> bool:
        """Whether the map has any interior run (else no proof can succeed)."""
        return self.n_runs > 0

    def outside(self, cyl: Cylinder) -> bool:
        """Is the eye region of ``cyl`` certainly outside every closed solid?

        The eye region is the cylinder the eye points lie in (inset ``SURFACE_INSET_MM``
        from the mantle and top and ``STAND_INSET_MM`` from the base), grown by
        ``PROOF_CLEARANCE_MM``: no blocking triangle may meet it, and one of its points
        must lie outside every closed solid by exact parity.
        """
        if not self.certifies():
            return False
        b = cyl.base_array
        c = PROOF_CLEARANCE_MM
        r = cyl.radius - SURFACE_INSET_MM
        z0 = float(b[2]) + STAND_INSET_MM
        z1 = cyl.top_z - SURFACE_INSET_MM
        if r <= 0 or z1 <= z0:
            return False
        x0, y0, g = self._tile
        if not cylinder_free(
            self._v, self._f, self._toff, self._ttri, x0, y0, g, self._tnx, self._tny,
            float(b[0]), float(b[1]), z0 - c, z1 + c, r + c,
        ):  # fmt: skip
            return False
        qx = float(b[0]) + 0.3137 * r
        qy = float(b[1]) + 0.1713 * r
        i = math.floor((qx - x0) / g)
        j = math.floor((qy - y0) / g)
        if not (0 <= i < self._tnx and 0 <= j < self._tny):
            return True  # beyond every triangle: nothing above or below, so outside
        p = column_parity(
            self._v, self._f, self._element, self._closed, self._toff, self._ttri,
            i * self._tny + j, qx, qy, 0.5 * (z0 + z1), PROOF_GUARD_MM, self._scratch.copy(),
        )  # fmt: skip
        return p == 0
