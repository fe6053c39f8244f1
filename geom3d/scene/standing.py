"""Standing on terrain (SPEC 11.2): where ``[x, y]`` troopers rest, and honest warnings.

A trooper given ``[x, y]`` rests on the **highest surface point under its whole base
disc**: vertical rays on a ``STAND_GRID_MM`` grid inside the disc and every
``STAND_RIM_MM`` on its rim (:mod:`geom3d.core.tolerances`), plus every scenery vertex inside
the disc. The first surface a ray meets coming down is taken whatever way it faces, so
steep faces never let a probe fall through to the table.

Warnings, once per trooper and only when something is really off:

- *uneven ground*: the surface under a dropped trooper's base varies by more than
  :data:`SLOPE_WARN_FRACTION` of its base radius;
- *embedded*: scenery cuts into the trooper's volume (an overhang or a wall), or the trooper
  stands inside a solid (an odd number of a solid piece's surfaces above its centre: the
  ``solid: auto`` parity rule).
"""

from __future__ import annotations

import math

import numpy as np

from geom3d.bodies.kernels import disc_tops
from geom3d.core.tolerances import (
    DROP_PROBE_HEIGHT_MM,
    DROP_REFINE_MAX_MM,
    DROP_STEEP_REL_EPS,
    PARITY_MAX_CROSSINGS,
    SLOPE_WARN_FRACTION,
    STAND_GRID_MM,
    STAND_INSET_MM,
    STAND_RIM_MM,
)
from geom3d.mesh.topology import used_vertices
from geom3d.raycast import RayBackend

__all__ = [
    "SLOPE_WARN_FRACTION",
    "Surface",
    "disc_samples",
    "embedded_reasons",
]


#: Step (mm) past a crossing before the parity probe continues.
_PARITY_STEP_MM = 1e-3

#: Above this many runs of used vertices, :meth:`Surface._used_vertices` copies them into
#: one array (each part costs :func:`disc_tops` a pass of its own set-up).
_USED_RUNS = 16


def disc_samples(
    radius: float, step: float = STAND_GRID_MM, rim_step: float = STAND_RIM_MM
) -> np.ndarray:
    """Offsets (k, 2) float64 mm of the probes of a base disc of ``radius`` mm.

    The centre, a square grid of pitch ``step`` inside the disc, and points on the rim no
    more than ``rim_step`` apart.
    """
    r = float(radius)
    n = math.floor(r / step)
    g = np.arange(-n, n + 1) * step
    gx, gy = np.meshgrid(g, g, indexing="ij")
    grid = np.column_stack([gx.ravel(), gy.ravel()])
    grid = grid[np.einsum("ij,ij->i", grid, grid) <= r * r]
    m = max(8, math.ceil(2 * math.pi * r / rim_step))
    a = 2 * math.pi * np.arange(m) / m
    rim = r * np.column_stack([np.cos(a), np.sin(a)])
    return np.concatenate([grid, rim])


class Surface:
    """The surface troopers stand on: every scenery triangle, closing faces included.

    Parameters
    ----------
    engine : RayBackend
        BVH over ``faces``.
    vertices : (n, 3) float64, mm
    faces : (m, 3) int64
        The triangles of ``engine`` (indices as the engine reports them).
    original : (m,) bool
        Faces of the pieces themselves (not closing faces): their vertices are probes.
    has_table_mesh : bool
        With a table mesh, a probe that meets nothing is ignored; without one it meets the
        table top z = 0.
    """

    def __init__(self, engine: RayBackend, vertices, faces, original, has_table_mesh: bool) -> None:
        self.engine = engine
        self.vertices = vertices
        self.faces = faces
        self._original = original
        self.has_table_mesh = has_table_mesh
        self._used: list[np.ndarray] | None = None

    def _used_vertices(self) -> list[np.ndarray]:
        """The vertices of the pieces' own faces, (u, 3) float64 mm, in parts (computed
        once): views of the runs of consecutive rows they fill where there are at most
        ``_USED_RUNS`` (a merged soup: one run per piece, so a million-triangle table
        copies nothing), else one copy."""
        if self._used is None:
            used = used_vertices(len(self.vertices), self.faces, self._original)
            edges = np.flatnonzero(np.diff(used, prepend=False, append=False))
            runs = list(zip(edges[::2].tolist(), edges[1::2].tolist(), strict=True))
            if len(runs) <= _USED_RUNS:
                self._used = [self.vertices[a:b] for a, b in runs]
            else:
                self._used = [self.vertices[used]]
        return self._used

    def tops(self, xy) -> np.ndarray:
        """Height (mm) of the first surface met coming straight down; NaN where none.

        Parameters
        ----------
        xy : (n, 2) float, mm

        Returns
        -------
        (n,) float64, mm
        """
        pts = np.asarray(xy, dtype=np.float64).reshape(-1, 2)
        z = np.full(len(pts), np.nan)
        if not len(pts) or self.engine.n_triangles == 0:
            return z
        b = self.engine.bounds
        top, bottom = b[1, 2] + DROP_PROBE_HEIGHT_MM, b[0, 2] - DROP_PROBE_HEIGHT_MM
        o = np.column_stack([pts, np.full(len(pts), top)])
        e = np.column_stack([pts, np.full(len(pts), bottom)])
        dist, hit = self.engine.first_hit(o, e)
        ok = hit >= 0
        hz = top - dist[ok]
        # refine in float64 on the triangle's plane (Embree works in float32)
        tri = self.vertices[self.faces[hit[ok]]]
        n = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
        norm = np.linalg.norm(n, axis=1)
        steep = np.abs(n[:, 2]) <= DROP_STEEP_REL_EPS * np.maximum(norm, 1e-300)
        p0, q = tri[:, 0], pts[ok]
        exact = p0[:, 2] - (n[:, 0] * (q[:, 0] - p0[:, 0]) + n[:, 1] * (q[:, 1] - p0[:, 1])) / (
            np.where(steep, 1.0, n[:, 2])
        )
        use = ~steep & (np.abs(exact - hz) < DROP_REFINE_MAX_MM)
        z[ok] = np.where(use, exact, hz)
        return z

    def heights(self, xy) -> np.ndarray:
        """Highest surface under each point (mm): :meth:`tops`, misses on the table (0)."""
        z = self.tops(xy)
        return np.where(np.isnan(z), 0.0, z)

    def rest(self, centres, radii) -> tuple[np.ndarray, np.ndarray]:
        """Where base discs rest, and how uneven the surface under them is.

        Parameters
        ----------
        centres : (k, 2) float, mm
        radii : (k,) float, mm

        Returns
        -------
        z : (k,) float64, mm
            Highest surface point under each disc (0 where nothing lies under it).
        variation : (k,) float64, mm
            Highest minus lowest probe height under the disc (0 without probes).
        """
        c = np.asarray(centres, np.float64).reshape(-1, 2)
        r = np.asarray(radii, np.float64).reshape(-1)
        k = len(c)
        z = np.zeros(k)
        var = np.zeros(k)
        if not k or self.engine.n_triangles == 0:
            return z, var
        offs = [disc_samples(rr) for rr in r]
        owner = np.repeat(np.arange(k), [len(o) for o in offs])
        pts = np.concatenate(offs) + c[owner]
        h = self.tops(pts)
        if not self.has_table_mesh:
            h = np.where(np.isnan(h), 0.0, h)
        hi = np.full(k, -np.inf)
        lo = np.full(k, np.inf)
        good = ~np.isnan(h)
        np.maximum.at(hi, owner[good], h[good])
        np.minimum.at(lo, owner[good], h[good])
        # the highest vertex of the pieces' own faces over each disc (a spike between
        # probes): one pass over the vertices, the discs binned on a grid
        cx, cy = c[:, 0].copy(), c[:, 1].copy()
        for part in self._used_vertices():
            hi = np.maximum(hi, disc_tops(part, cx, cy, r))
        has = np.isfinite(hi)
        z[has] = hi[has]
        both = has & np.isfinite(lo)
        var[both] = hi[both] - lo[both]
        return z, var


def _crossing_parity(engine, element, counted, mids: np.ndarray, n_el: int) -> np.ndarray:
    """(k, n_el) bool: odd number of ``counted`` faces of each element above each point."""
    odd = np.zeros((len(mids), n_el), dtype=bool)
    if not len(mids) or engine.n_triangles == 0:
        return odd
    top = engine.bounds[1, 2] + 1.0
    start = np.array(mids, dtype=np.float64)
    pending = np.arange(len(mids))
    for _ in range(PARITY_MAX_CROSSINGS):
        pending = pending[start[pending, 2] < top]
        if not len(pending):
            break
        ends = start[pending].copy()
        ends[:, 2] = top
        dist, tri = engine.first_hit(start[pending], ends)
        hit = tri >= 0
        pending, dist, tri = pending[hit], dist[hit], tri[hit]
        keep = counted[tri]
        odd[pending[keep], element[tri[keep]]] ^= True
        start[pending, 2] += dist + _PARITY_STEP_MM
    return odd


def embedded_reasons(troopers, engine, blocking, closing, solid_of_element) -> list:
    """Why each trooper is embedded in scenery, or None.

    Parameters
    ----------
    troopers : list of Trooper
    engine : RayBackend
        BVH over ``blocking`` (closing faces included).
    blocking : geom3d.scene.scenery.SceneryMesh
    closing : (blocking.n_triangles,) bool
        Closing faces (never counted as crossings: they are vertical or under the table).
    solid_of_element : tuple of str
        ``solid`` of each element; ``surface`` pieces enclose nothing.

    Returns
    -------
    list of (str or None)
    """
    out: list = [None] * len(troopers)
    if engine.n_triangles == 0 or not troopers:
        return out
    angles = np.radians(np.arange(0, 180, 22.5))
    o, e, owner, mids, mid_owner = [], [], [], [], []
    for k, t in enumerate(troopers):
        c = t.cylinder
        r = c.radius - STAND_INSET_MM
        z0, z1 = c.base[2] + STAND_INSET_MM, c.top_z - STAND_INSET_MM
        if r <= 0 or z1 <= z0:
            continue
        bx, by = c.base[0], c.base[1]
        for z in np.linspace(z0, z1, 4):
            for a in angles:
                dx, dy = r * math.cos(a), r * math.sin(a)
                o.append((bx - dx, by - dy, z))
                e.append((bx + dx, by + dy, z))
                owner.append(k)
        for a in angles:
            dx, dy = 0.7 * r * math.cos(a), 0.7 * r * math.sin(a)
            o.append((bx + dx, by + dy, z0))
            e.append((bx + dx, by + dy, z1))
            owner.append(k)
        mids.append((bx, by, 0.5 * (z0 + z1)))
        mid_owner.append(k)
    names = blocking.names
    if o:
        _, tri = engine.first_hit(np.array(o), np.array(e))
        for k, f in zip(owner, tri, strict=True):
            if f >= 0 and out[k] is None:
                name = names[int(blocking.element[f])]
                out[k] = f"scenery {name!r} cuts into its volume (a wall or an overhang)"
    counted = ~np.asarray(closing, bool)
    solid_el = np.array([s != "surface" for s in solid_of_element] or [False], bool)
    counted &= solid_el[blocking.element] if len(blocking.element) else counted
    odd = _crossing_parity(engine, blocking.element, counted, np.array(mids), len(names))
    for row, k in enumerate(mid_owner):
        inside = np.flatnonzero(odd[row])
        if out[k] is None and len(inside):
            out[k] = f"it stands inside the solid {names[int(inside[0])]!r}"
    return out
