"""Standing on terrain (SPEC 11.2): where ``[x, y]`` troopers rest, and honest warnings.

A trooper given ``[x, y]`` rests on the **highest point of the ground under its base
that is connected to the support under its centre** (SPEC 12.2, :mod:`geom3d.scene.footing`):
vertical rays on a ``STAND_GRID_MM`` grid inside the disc and every ``STAND_RIM_MM`` on
its rim (:mod:`geom3d.scene.tolerances`), joined where neighbours differ no more than a slope
or a small step, plus the highest scenery vertex inside the disc where it is that close
to the connected ground. The first surface a ray meets coming down is taken whatever way
it faces, so steep faces never let a probe fall through to the table. A wall or a
sculpture that the base only overlaps at its rim does not lift it; the scene warns.

Warnings, once per trooper and only when something is really off:

- *overlaps*: scenery not connected to the footing rises inside the base (it stands on
  the ground beside it; the warning names the piece and how far it reaches in);
- *uneven ground*: the connected ground under a dropped trooper's base varies by more than
  :data:`SLOPE_WARN_FRACTION` of its base radius;
- *embedded*: scenery cuts into the trooper's volume (an overhang or a wall), or the trooper
  stands inside a solid (an odd number of a solid piece's surfaces above its centre: the
  ``solid: auto`` parity rule; :mod:`geom3d.scene.embedding`).
"""

from __future__ import annotations

import math

import numpy as np

from geom3d.bodies.kernels import disc_tops, njit
from geom3d.core.messages import note, warning
from geom3d.execution.items import map_items
from geom3d.mesh.topology import used_vertices
from geom3d.raycast.base import RayBackend
from geom3d.scene.footing import Footing, connected_rest
from geom3d.scene.lattice import InnerLattice
from geom3d.scene.tolerances import (
    DROP_PROBE_HEIGHT_MM,
    DROP_REFINE_MAX_MM,
    DROP_STEEP_REL_EPS,
    FOOTING_OVERLAP_WARN_MM,
    FOOTING_SLOPE_DEG,
    FOOTING_STEP_MM,
    SLOPE_WARN_FRACTION,
    STAND_GRID_MM,
    STAND_RIM_MM,
)

__all__ = [
    "PERCH_SHARE",
    "SLOPE_WARN_FRACTION",
    "Surface",
    "disc_samples",
    "footing_messages",
    "overlap_message",
]


#: A base whose connected support covers less than this share of its area is perched
#: (SPEC 13.1: under half; a warning names the trooper, the piece and the share).
PERCH_SHARE: float = 0.5

#: :meth:`Surface.rest_below` drops its discs in batches of about this many rays (a
#: 10 mm exposure map stands some 15,000 probes of 800 rays each), some 25 MiB of
#: arrays per batch and thread.
_REST_BATCH_RAYS = 1 << 18

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
    element : (m,) int, optional
        Scenery element of each face (to name what a base overlaps).
    names : tuple of str
        Element names.
    """

    def __init__(
        self,
        engine: RayBackend,
        vertices,
        faces,
        original,
        has_table_mesh: bool,
        element=None,
        names=(),
    ) -> None:
        self.engine = engine
        self.vertices = vertices
        self.faces = faces
        self._original = original
        self.has_table_mesh = has_table_mesh
        self.element = element
        self.names = tuple(names)
        self._used: list[np.ndarray] | None = None
        self._footings: dict[float, Footing] = {}
        self._plane: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

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

    def tops_from(self, xy, start) -> np.ndarray:
        """:meth:`tops` with each ray starting at ``start`` ((n,) float, mm) instead of
        above everything: the first surface under it (NaN where none)."""
        return self._tops(xy, start)[0]

    def tops(self, xy) -> np.ndarray:
        """Height (mm) of the first surface met coming straight down; NaN where none.

        Parameters
        ----------
        xy : (n, 2) float, mm

        Returns
        -------
        (n,) float64, mm
        """
        return self._tops(xy)[0]

    def _tops(self, xy, start=None) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`tops` and the triangle met at each point ((n,) int64, -1 for none).

        ``start``: (n,) float64 mm, where each ray starts coming down (default
        ``DROP_PROBE_HEIGHT_MM`` above the scene's top: the first surface of all)."""
        pts = np.asarray(xy, dtype=np.float64).reshape(-1, 2)
        z = np.full(len(pts), np.nan)
        if not len(pts) or self.engine.n_triangles == 0:
            return z, np.full(len(pts), -1, np.int64)
        b = self.engine.bounds
        bottom = b[0, 2] - DROP_PROBE_HEIGHT_MM
        if start is None:
            top = np.full(len(pts), b[1, 2] + DROP_PROBE_HEIGHT_MM)
        else:
            top = np.asarray(start, np.float64).reshape(-1)
        o = np.column_stack([pts, top])
        e = np.column_stack([pts, np.full(len(pts), bottom)])
        dist, hit = self.engine.first_hit(o, e)
        hit = np.asarray(hit, np.int64)
        # refine in float64 on the triangle's plane (Embree works in float32)
        p0, n, steep = self._planes()
        _refine_tops(
            hit, np.asarray(dist, np.float64), top, pts, p0, n, steep, DROP_REFINE_MAX_MM, z
        )
        return z, np.asarray(hit, np.int64)

    def _planes(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per face (computed once): its first vertex ((m, 3) float64 mm), its normal
        ((m, 3) float64, unnormalised) and whether it is vertical ((m,) bool:
        ``|n_z| <= DROP_STEEP_REL_EPS |n|``, no plane height to refine)."""
        if self._plane is None:
            tri = self.vertices[self.faces]
            n = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
            norm = np.linalg.norm(n, axis=1)
            steep = np.abs(n[:, 2]) <= DROP_STEEP_REL_EPS * np.maximum(norm, 1e-300)
            self._plane = (np.ascontiguousarray(tri[:, 0]), np.ascontiguousarray(n), steep)
        return self._plane

    def heights(self, xy) -> np.ndarray:
        """Highest surface under each point (mm): :meth:`tops`, misses on the table (0)."""
        z = self.tops(xy)
        return np.where(np.isnan(z), 0.0, z)

    def rest(self, centres, radii) -> tuple[np.ndarray, np.ndarray]:
        """Where base discs rest, and how uneven the ground under them is.

        :meth:`footing` without the overlaps.
        """
        z, var, _, _ = self.footing(centres, radii)
        return z, var

    def footing(self, centres, radii) -> tuple[np.ndarray, np.ndarray, list, list]:
        """Where base discs rest: the highest ground connected to the centre's support.

        The probes of each disc (:func:`disc_samples`) are joined into connected ground
        by :func:`geom3d.scene.footing.connected_rest` (SPEC 12.2); the highest vertex of the
        pieces' own faces over the disc (a spike between probes) counts when it is no
        higher than that ground allows one probe step further.

        Parameters
        ----------
        centres : (k, 2) float, mm
        radii : (k,) float, mm

        Returns
        -------
        z : (k,) float64, mm
            Resting height (0 where nothing lies under the disc).
        variation : (k,) float64, mm
            Resting height minus the lowest probe under the disc (0 without probes).
        overlaps : list of (element name or None, overlap mm, height mm) or None
            Per disc, scenery that rises more than :data:`FOOTING_OVERLAP_WARN_MM` above
            the resting height inside the disc but is not connected to its footing: the
            element met there (when the surface knows its elements), how far it reaches
            into the disc from the rim, and its height above the resting height.
        support : list of (share, element name or None) or None
            Per disc (None where nothing lies under it): the share of the base's area
            (its inner probes, evenly spread) over ground connected to its footing, and
            the element under its centre (SPEC 13.1: under half is *perched*).
        """
        c = np.asarray(centres, np.float64).reshape(-1, 2)
        r = np.asarray(radii, np.float64).reshape(-1)
        k = len(c)
        z = np.zeros(k)
        var = np.zeros(k)
        over: list = [None] * k
        support: list = [None] * k
        if not k or self.engine.n_triangles == 0:
            return z, var, over, support
        # the highest vertex of the pieces' own faces over each disc, every disc in one
        # pass over the vertices (a million on a scanned table)
        vtops = self._vertex_tops(c, r)
        for rad in np.unique(r):
            rows = np.flatnonzero(r == rad)
            foot = self._footing_for(float(rad))
            off = foot.offsets
            zc, has, h, tri, con = self._rest_rows(c[rows], foot, vtops[rows], None)
            lo = np.min(np.where(np.isnan(h), np.inf, h), axis=1)  # every probe, linked or not
            z[rows[has]] = zc[has]
            both = has & np.isfinite(lo)
            var[rows[both]] = np.maximum(zc[both] - lo[both], 0.0)
            inner = _inner_count(float(rad), len(off))
            for n_row, row in enumerate(rows):
                if not has[n_row]:
                    continue
                share = float(np.count_nonzero(con[n_row, :inner])) / max(inner, 1)
                centre_tri = int(tri[n_row, foot.centre])
                under = None
                if self.element is not None and centre_tri >= 0:
                    under = self.names[int(self.element[centre_tri])]
                support[row] = (share, under)
                high = (
                    ~con[n_row]
                    & ~np.isnan(h[n_row])
                    & (h[n_row] > zc[n_row] + FOOTING_OVERLAP_WARN_MM)
                )
                if not high.any():
                    continue
                idx = np.flatnonzero(high)
                first = idx[int(np.argmin(foot.radial[idx]))]
                name = None
                if self.element is not None and tri[n_row, first] >= 0:
                    name = self.names[int(self.element[tri[n_row, first]])]
                depth = float(rad - foot.radial[first])
                over[row] = (name, depth, float(np.max(h[n_row, idx]) - zc[n_row]))
        return z, var, over, support

    def _vertex_tops(self, c: np.ndarray, r: np.ndarray) -> np.ndarray:
        """(k,) float64 mm: the highest vertex of the pieces' own faces over each disc
        (``-inf`` over none), every disc in one pass over the vertices."""
        vtops = np.full(len(c), -np.inf)
        cx, cy = c[:, 0].copy(), c[:, 1].copy()
        for part in self._used_vertices():
            vtops = np.maximum(vtops, disc_tops(part, cx, cy, r))
        return vtops

    def _rest_rows(self, c: np.ndarray, foot: Footing, vtop: np.ndarray, start, inner=None):
        """The 12.2 rule for discs of one radius: ``(z, has, heights, triangles,
        connected)``, see :meth:`footing` (``start``: (n,) mm, where the rays start, or
        None: above everything; a vertex over ``start`` is no spike). ``inner``: the
        heights of the discs' first probes (the inner grid), already found (:mod:`.lattice`;
        their triangles are then -1)."""
        off = foot.offsets
        done = 0 if inner is None else inner.shape[1]
        pts = (c[:, None, :] + off[None, done:, :]).reshape(-1, 2)
        h, tri = self._tops(pts, None if start is None else np.repeat(start, len(off) - done))
        h = h.reshape(len(c), len(off) - done)
        tri = tri.reshape(len(c), len(off) - done)
        if inner is not None:
            h = np.concatenate([inner, h], axis=1)
            tri = np.concatenate([np.full(inner.shape, -1, np.int64), tri], axis=1)
        if not self.has_table_mesh:
            h = np.where(np.isnan(h), 0.0, h)
        zc, con = connected_rest(foot, h)
        # a spike between probes: the highest vertex over the disc, when connected
        reach = FOOTING_STEP_MM + STAND_GRID_MM * math.tan(math.radians(FOOTING_SLOPE_DEG))
        if start is not None:
            vtop = np.where(vtop <= start, vtop, -np.inf)
        has = ~np.isnan(zc)
        spike = has & (vtop > zc) & (vtop <= zc + reach)
        zc = np.where(spike, vtop, zc)
        none = ~has & np.isfinite(vtop)  # no probe met anything: the vertices say
        zc = np.where(none, vtop, zc)
        has |= none
        return zc, has, h, tri, con

    def rest_below(self, centres, radius: float, start, threads: int = 1) -> np.ndarray:
        """Where base discs of one radius rest by the 12.2 rule (:meth:`footing`: the same
        probes, links and spike rule), with each disc's rays starting at ``start``
        instead of above everything: a level under a floor or a roof (the survey and the
        exposure map, :mod:`geom3d.survey.grid`). Where nothing lies above ``start`` over
        a disc, the answer is exactly :meth:`rest`'s.

        Parameters
        ----------
        centres : (k, 2) float, mm
        radius : float, mm
        start : (k,) float, mm
        threads : int
            Batches of discs dropped on this many threads at once.

        Returns
        -------
        (k,) float64, mm
            Resting height; NaN where no probe met anything.
        """
        c = np.asarray(centres, np.float64).reshape(-1, 2)
        st = np.asarray(start, np.float64).reshape(-1)
        out = np.full(len(c), np.nan)
        if not len(c) or self.engine.n_triangles == 0:
            return out
        foot = self._footing_for(float(radius))
        n_in = _inner_count(float(radius), len(foot.offsets))
        vtops = self._vertex_tops(c, np.full(len(c), float(radius)))  # one pass for all
        lattice = InnerLattice.of(self, c, foot.offsets[:n_in], STAND_GRID_MM)
        per = max(1, _REST_BATCH_RAYS // len(foot.offsets))
        n_batches = -(-len(c) // per)

        def batch(b: int) -> tuple[np.ndarray, np.ndarray]:
            rows = np.arange(b * per, min((b + 1) * per, len(c)))
            inner = None if lattice is None else lattice.heights(rows, st[rows])
            zc, has, _, _, _ = self._rest_rows(c[rows], foot, vtops[rows], st[rows], inner)
            return rows, np.where(has, zc, np.nan)

        # batches on threads (Embree and the compiled kernels release the GIL); the
        # answer does not depend on how many
        k = max(1, min(int(threads), n_batches))
        for rows, z in map_items(batch, n_batches, threads=k, chunk=1):
            out[rows] = z
        return out

    def _footing_for(self, radius: float) -> Footing:
        f = self._footings.get(radius)
        if f is None:
            f = self._footings[radius] = Footing(disc_samples(radius))
        return f


@njit(cache=True, nogil=True)
def _refine_tops(hit, dist, top, pts, p0, n, steep, max_refine, z):  # pragma: no cover - compiled
    """``z[k]``: the height where ray ``k`` (down from ``top[k]`` at ``pts[k]``) met face
    ``hit[k]`` (``-1``: nothing, ``z`` left as is), on the face's plane in float64 when
    it is not vertical and within ``max_refine`` mm (``DROP_REFINE_MAX_MM``, an argument:
    the compiled-kernel cache is not keyed on this module's constants) of Embree's
    float32 answer."""
    for k in range(hit.shape[0]):
        f = hit[k]
        if f < 0:
            continue
        hz = top[k] - dist[k]
        if not steep[f]:
            exact = (
                p0[f, 2]
                - (n[f, 0] * (pts[k, 0] - p0[f, 0]) + n[f, 1] * (pts[k, 1] - p0[f, 1])) / n[f, 2]
            )
            if abs(exact - hz) < max_refine:
                hz = exact
        z[k] = hz


def _inner_count(radius: float, total: int) -> int:
    """How many of :func:`disc_samples`' ``total`` offsets for ``radius`` are the inner grid
    (the rest are the rim's, which come last)."""
    rim = max(8, math.ceil(2 * math.pi * float(radius) / STAND_RIM_MM))
    return max(total - rim, 1)


def footing_messages(trooper_id: str, z: float, radius: float, var: float, over, support):
    """What the scene says about a dropped trooper's footing (SPEC 12.2, 13.1): a warning
    when it overlaps scenery it does not stand on, a note when the ground under it is
    uneven, a warning when it is *perched* (its support covers less than
    :data:`PERCH_SHARE` of its base: a wall top, a crate's rim).

    Parameters
    ----------
    trooper_id : str
    z, radius, var : float, mm
        Resting height, base radius, variation of the ground under it.
    over, support
        From :meth:`Surface.footing` for this trooper.

    Returns
    -------
    list of Message
    """
    out = []
    if over is not None:
        out.append(warning(overlap_message(trooper_id, z, over)))
    if var > SLOPE_WARN_FRACTION * radius:
        out.append(
            note(
                f"trooper {trooper_id!r} stands on uneven ground: the surface under its "
                f"base varies by {var:.1f} mm, more than half its base radius "
                f"({radius:g} mm); placed on the highest point connected to its centre, "
                f"z = {z:.1f} mm"
            )
        )
    if support is not None and support[0] < PERCH_SHARE:
        share, piece = support
        on = f"on {piece!r}" if piece else "on scenery"
        out.append(
            warning(
                f"trooper {trooper_id!r} is perched {on}: only {share:.0%} of its base is "
                f"supported (less than half; z = {z:.1f} mm): a model would not stand there"
            )
        )
    return out


def overlap_message(trooper_id: str, z: float, over: tuple) -> str:
    """The warning for a base that overlaps scenery it does not stand on (SPEC 12.2).

    Parameters
    ----------
    trooper_id : str
    z : float, mm
        Where the trooper rests.
    over : (name or None, overlap mm, height mm)
        From :meth:`Surface.footing`.
    """
    name, depth, height = over
    what = f"scenery {name!r}" if name else "scenery"
    # only rim probes over it: it reaches in less than one probe step
    by = f"{depth:.1f} mm" if depth >= 0.05 else f"under {STAND_GRID_MM:g} mm"
    return (
        f"trooper {trooper_id!r} overlaps {what} by {by} at the rim of its base "
        f"({height:.1f} mm higher than its footing): it stands on the ground beside it, "
        f"z = {z:.1f} mm"
    )
