"""Reachable free space (SPEC 13.1): where a trooper's silhouette can walk in from the air.

A spot is standable only where the silhouette cylinder lies in free space **connected to
the open air above the table**: not inside a solid (a closed piece, a scan's
winding-number solid, the table under its surface) and not in an enclosed cavity (a
sealed container, a pocket where two solids overlap). A cavity counts as open when a
probe of the same silhouette could walk into it (a door as wide as the base and as tall
as the silhouette, or an open roof).

How it is decided, once per scenery and probe size (:func:`reach_map`, cached with the
scenery):

1. **Occupancy.** The plan of the table and the height of the scenery are cut into cubic
   voxels of side ``pitch`` (at most :data:`REACH_MAX_PITCH_MM`, a quarter of the base
   radius where that fits :data:`REACH_MAX_VOXELS`). Every triangle of the standing
   surface (all scenery, the faces that close scans and the table included) is split
   until its pieces are no longer than a voxel, and every voxel the bounding box of a
   piece touches is occupied. That is conservative: a surface crossing a voxel always
   occupies it, so a wall thinner than a voxel is never leaked through (between two
   voxels meeting at an edge or a corner, the surface must cross one of them).
2. **Where a probe fits.** A *configuration* is a smaller upright probe (radius
   ``r - REACH_SHRINK_VOXELS * pitch``, height ``h - 4 * pitch``) whose axis runs
   through a voxel centre: it is free when no voxel of its cylinder is occupied. The
   shrink takes up what voxels add to every surface (at most ``2 * pitch``), so a door
   exactly as wide as the base still lets it through.
3. **Flood.** Free configurations connected (by faces) to the top layer, above all
   scenery, are *reachable* (:func:`scipy.ndimage.label`). Inside a solid or a sealed
   cavity no configuration is connected to the air.
4. **A spot** (base centre ``x, y, z``) is reachable when one of the configurations whose
   axis is within one voxel of its own and whose bottom lies ``0.5`` to ``3.5`` voxels
   above its base is reachable: they lie inside the spot's own cylinder, so they are in
   the same pocket of free space as the probe. A spot outside the voxel grid is not
   judged (reachable).

Without a table mesh the table top ``z = 0`` is the grid's floor. Troopers are not
scenery here: they never close a door.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = [
    "REACH_MAX_PITCH_MM",
    "REACH_MAX_VOXELS",
    "ReachMap",
    "enclosing_pieces",
    "reach_map",
]

#: Coarsest voxel side (mm) of the reachability grid (SPEC 13.1 guidance: 5 mm).
REACH_MAX_PITCH_MM: float = 5.0
#: Finest voxel side (mm): below this a smaller grid buys nothing at 1 mm standing probes.
REACH_MIN_PITCH_MM: float = 1.0
#: The grid is made coarser (up to :data:`REACH_MAX_PITCH_MM`) to stay within this many
#: voxels (one byte each, four more for the flood's labels).
REACH_MAX_VOXELS: int = 24_000_000
#: The flood's probe is narrower than the base by this many voxels of radius (what the
#: conservative voxels add to each surface), and shorter by twice as many.
REACH_SHRINK_VOXELS: float = 2.0
#: A grid that needs more voxels than this at :data:`REACH_MAX_PITCH_MM` (scenery metres
#: across: a unit slip the scene warns about) is not made: no spot is judged.
REACH_HARD_MAX_VOXELS: int = REACH_MAX_VOXELS
#: Triangles are split into pieces of at most this many voxels per edge before their
#: bounding boxes are marked.
_PIECE_VOXELS: float = 1.0
#: Triangles longer than this many voxels are first cut in four (pieces off the grid
#: dropped) until none is, so a huge triangle never makes more pieces than the grid holds.
_SPLIT_VOXELS: int = 128
#: Pieces handled per batch (bounds the memory of splitting big triangles).
_PIECES_PER_BATCH: int = 2_000_000


@dataclass(frozen=True)
class ReachMap:
    """Reachable probe configurations on a voxel grid (see the module docstring).

    Attributes
    ----------
    origin : (3,) float64, mm
        Corner of voxel (0, 0, 0).
    pitch : float, mm
        Voxel side.
    reach : (nx, ny, nk) bool
        Configuration with axis through voxel column (i, j) and bottom in voxel layer k
        is free and connected to the open air. Empty when the scenery is too large for a
        grid (:data:`REACH_HARD_MAX_VOXELS`): then no spot is judged.
    radius, height : float, mm
        The probe the map is for.
    """

    origin: np.ndarray
    pitch: float
    reach: np.ndarray
    radius: float
    height: float

    def reachable(self, positions) -> np.ndarray:
        """Whether each spot's probe lies in free space connected to the open air.

        Parameters
        ----------
        positions : (n, 3) float, mm
            Base centres.

        Returns
        -------
        (n,) bool
            True also where the spot lies outside the grid (not judged).
        """
        p = np.asarray(positions, np.float64).reshape(-1, 3)
        out = np.ones(len(p), dtype=bool)
        if not len(p):
            return out
        nx, ny, nk = self.reach.shape
        s = self.pitch
        i0 = np.floor((p[:, 0] - self.origin[0]) / s).astype(np.int64)
        j0 = np.floor((p[:, 1] - self.origin[1]) / s).astype(np.int64)
        kb = np.floor((p[:, 2] + 2.5 * s - self.origin[2]) / s).astype(np.int64)
        inside = (i0 >= 0) & (i0 < nx) & (j0 >= 0) & (j0 < ny) & (kb >= 0) & (kb < nk)
        hit = np.zeros(len(p), dtype=bool)
        for di in (-1, 0, 1):
            for dj in (-1, 0, 1):
                for dk in (-1, 0, 1):
                    i, j, k = i0 + di, j0 + dj, kb + dk
                    ok = inside & (i >= 0) & (i < nx) & (j >= 0) & (j < ny) & (k >= 0) & (k < nk)
                    w = np.flatnonzero(ok)
                    hit[w] |= self.reach[i[w], j[w], k[w]]
        out[inside] = hit[inside]
        return out


def _pitch(radius: float, height: float, span: np.ndarray) -> float:
    """Voxel side: a quarter of the smaller of the base radius and half the height,
    within [REACH_MIN_PITCH_MM, REACH_MAX_PITCH_MM], coarser when the grid would pass
    :data:`REACH_MAX_VOXELS`."""
    s = min(max(min(radius, 0.5 * height) / 4.0, REACH_MIN_PITCH_MM), REACH_MAX_PITCH_MM)
    vol = float(np.prod(np.maximum(span, 1e-9)))
    if vol / s**3 > REACH_MAX_VOXELS:
        s = min(REACH_MAX_PITCH_MM, (vol / REACH_MAX_VOXELS) ** (1.0 / 3.0))
    return float(s)


def _occupancy(vertices, faces, origin, pitch, shape) -> np.ndarray:
    """(nx, ny, nz) bool: voxels the surface's triangles touch (conservatively)."""
    occ = np.zeros(shape, dtype=bool)
    if not len(faces):
        return occ
    tri = _on_grid(
        np.asarray(vertices, np.float64)[np.asarray(faces, np.int64)], origin, pitch, shape
    )
    edge = np.max(np.linalg.norm(tri[:, [1, 2, 0]] - tri, axis=2), axis=1)  # longest edge
    n = np.maximum(1, np.ceil(edge / (_PIECE_VOXELS * pitch))).astype(np.int64)
    hi_idx = np.array(shape, np.int64) - 1
    for size in np.unique(n):
        rows = np.flatnonzero(n == size)
        bary = _sub_triangles(int(size))  # (q, 3, 3): barycentrics of each piece's corners
        step = max(1, _PIECES_PER_BATCH // len(bary))
        for a in range(0, len(rows), step):
            t = tri[rows[a : a + step]]  # (b, 3, 3)
            pts = np.einsum("qcw,bwd->bqcd", bary, t)  # (b, q, 3 corners, 3)
            lo = np.floor((pts.min(axis=2) - origin) / pitch).astype(np.int64).reshape(-1, 3)
            hi = np.floor((pts.max(axis=2) - origin) / pitch).astype(np.int64).reshape(-1, 3)
            keep = np.all(hi >= 0, axis=1) & np.all(lo <= hi_idx, axis=1)
            lo = np.clip(lo[keep], 0, hi_idx)
            hi = np.clip(hi[keep], 0, hi_idx)
            # a piece spans at most two voxels per axis: mark the corners of its box
            for cx in (lo[:, 0], hi[:, 0]):
                for cy in (lo[:, 1], hi[:, 1]):
                    for cz in (lo[:, 2], hi[:, 2]):
                        occ[cx, cy, cz] = True
            wide = np.any(hi - lo > 1, axis=1)  # (float rounding): fill the whole box
            for w in np.flatnonzero(wide):
                occ[lo[w, 0] : hi[w, 0] + 1, lo[w, 1] : hi[w, 1] + 1, lo[w, 2] : hi[w, 2] + 1] = (
                    True
                )
    return occ


def _on_grid(tri: np.ndarray, origin, pitch: float, shape) -> np.ndarray:
    """(m', 3, 3): the triangles that meet the grid's box, those longer than
    :data:`_SPLIT_VOXELS` voxels cut into four (and the pieces off the box dropped) until
    none is."""
    lo = np.asarray(origin, np.float64)
    hi = lo + pitch * np.asarray(shape, np.float64)
    done = []
    while len(tri):
        meets = np.all(tri.max(axis=1) >= lo, axis=1) & np.all(tri.min(axis=1) <= hi, axis=1)
        tri = tri[meets]
        edge = np.max(np.linalg.norm(tri[:, [1, 2, 0]] - tri, axis=2), axis=1)
        long = edge > _SPLIT_VOXELS * pitch
        done.append(tri[~long])
        t = tri[long]
        a, b, c = t[:, 0], t[:, 1], t[:, 2]
        ab, bc, ca = 0.5 * (a + b), 0.5 * (b + c), 0.5 * (c + a)
        tri = np.concatenate(
            [np.stack(q, axis=1) for q in ((a, ab, ca), (ab, b, bc), (ca, bc, c), (ab, bc, ca))]
        )
    return np.concatenate(done) if done else np.zeros((0, 3, 3))


_SUB: dict[int, np.ndarray] = {}


def _sub_triangles(n: int) -> np.ndarray:
    """(n*n, 3, 3) float64: barycentric corners of the pieces of a triangle split n ways."""
    got = _SUB.get(n)
    if got is not None:
        return got
    out = []
    for i in range(n):
        for j in range(n - i):
            a, b, c = (i, j), (i + 1, j), (i, j + 1)
            out.append([a, b, c])
            if j < n - i - 1:
                out.append([(i + 1, j), (i + 1, j + 1), (i, j + 1)])
    ij = np.asarray(out, np.float64) / n  # (q, 3, 2): weights of corners 1 and 2
    bary = np.concatenate([1.0 - ij.sum(axis=2, keepdims=True), ij], axis=2)
    if len(_SUB) < 64:
        _SUB[n] = bary
    return bary


def _disc(radius_vox: float) -> list[tuple[int, int]]:
    """Offsets (di, dj) of the voxel columns whose centres lie within ``radius_vox``."""
    r = max(0.0, radius_vox)
    m = math.floor(r)
    return [
        (di, dj) for di in range(-m, m + 1) for dj in range(-m, m + 1) if di * di + dj * dj <= r * r
    ]


def build_reach(vertices, faces, bounds, radius: float, height: float, floor_z=None) -> ReachMap:
    """The reachability map of a surface for a probe (see the module docstring).

    Parameters
    ----------
    vertices : (n, 3) float64, mm
    faces : (m, 3) int64
        Every surface a probe stands on or meets (closing faces included).
    bounds : (2, 2) float, mm
        ``[[x0, y0], [x1, y1]]``: the plan to cover (the table and the scenery).
    radius, height : float, mm
        The probe's base radius and height.
    floor_z : float or None, mm
        The table top when there is no table mesh (the grid's floor), else None.
    """
    from scipy import ndimage

    v = np.asarray(vertices, np.float64).reshape(-1, 3)
    b = np.asarray(bounds, np.float64).reshape(2, 2)
    zlo = float(v[:, 2].min()) if len(v) else 0.0
    zhi = float(v[:, 2].max()) if len(v) else 0.0
    if floor_z is not None:
        zlo, zhi = float(floor_z), max(zhi, float(floor_z))
    margin = radius + 4.0 * REACH_MAX_PITCH_MM
    lo = np.array(
        [b[0, 0] - margin, b[0, 1] - margin, zlo - (0.0 if floor_z is not None else margin)]
    )
    hi = np.array([b[1, 0] + margin, b[1, 1] + margin, zhi + height + 4.0 * REACH_MAX_PITCH_MM])
    pitch = _pitch(radius, height, hi - lo)
    shape = tuple(math.ceil((hi[a] - lo[a]) / pitch) + 1 for a in range(3))
    if math.prod(shape) > REACH_HARD_MAX_VOXELS:
        return ReachMap(lo, pitch, np.zeros((0, 0, 0), bool), radius, height)
    occ = _occupancy(v, faces, lo, pitch, shape)
    # a configuration: REACH_SHRINK_VOXELS narrower, its column hk voxels tall
    hk = max(1, math.floor(height / pitch - 2.0 * REACH_SHRINK_VOXELS))
    nk = shape[2] - hk + 1
    if nk < 1:
        return ReachMap(lo, pitch, np.zeros((shape[0], shape[1], 0), bool), radius, height)
    c = np.zeros((shape[0], shape[1], shape[2] + 1), np.int32)
    np.cumsum(occ, axis=2, out=c[:, :, 1:])
    col_blocked = (c[:, :, hk:] - c[:, :, :nk]) > 0  # (nx, ny, nk)
    del c, occ
    nx, ny = shape[0], shape[1]
    disc = _disc(radius / pitch - REACH_SHRINK_VOXELS)
    m = max(max(abs(di), abs(dj)) for di, dj in disc)
    padded = np.ones((nx + 2 * m, ny + 2 * m, nk), dtype=bool)  # outside the grid: blocked
    padded[m : m + nx, m : m + ny] = col_blocked
    blocked = np.zeros_like(col_blocked)
    for di, dj in disc:
        blocked |= padded[m + di : m + di + nx, m + dj : m + dj + ny]
    del padded
    free = ~blocked
    del blocked, col_blocked
    labels, _ = ndimage.label(free)
    top = np.unique(labels[:, :, -1])
    top = top[top > 0]
    reach = np.isin(labels, top) if len(top) else np.zeros_like(free)
    return ReachMap(lo, pitch, reach, float(radius), float(height))


def _bounds(scene) -> np.ndarray:
    """The plan to cover: the table (``table.size`` from the origin), else the scenery."""
    size = scene.scenario.table_size
    if size is not None:
        return np.array([[0.0, 0.0], [float(size[0]), float(size[1])]])
    v = scene.surface.vertices
    if not len(v):
        return np.zeros((2, 2))
    return np.array([v[:, :2].min(axis=0), v[:, :2].max(axis=0)])


def reach_map(scene, radius: float, height: float) -> ReachMap:
    """The scene's :class:`ReachMap` for a probe of base ``radius`` and ``height`` (mm),
    made once per scenery and probe size (cached with the scenery, shared by every scene
    on it)."""
    built = getattr(scene, "_built", None)
    cache = getattr(built, "reach", None)
    key = (float(radius), float(height))
    if cache is not None and key in cache:
        return cache[key]
    s = scene.surface
    floor = None if s.has_table_mesh else 0.0
    m = build_reach(s.vertices, s.faces, _bounds(scene), radius, height, floor)
    if cache is not None:
        cache[key] = m
    return m


def enclosing_pieces(scene, positions, height: float) -> list[str]:
    """The piece met first straight above each spot's mid-height (what encloses it),
    else straight below; ``"scenery"`` when the surface does not know its pieces.

    Parameters
    ----------
    scene : Scene
    positions : (n, 3) float, mm
    height : float, mm
        The probe's height.
    """
    p = np.asarray(positions, np.float64).reshape(-1, 3)
    s = scene.surface
    eng = s.engine
    out = ["scenery"] * len(p)
    if not len(p) or eng.n_triangles == 0 or s.element is None:
        return out
    mid = p + np.array([0.0, 0.0, 0.5 * height])
    top, bottom = float(eng.bounds[1, 2]) + 1.0, float(eng.bounds[0, 2]) - 1.0
    up_end = mid.copy()
    up_end[:, 2] = np.maximum(top, mid[:, 2] + 1.0)
    _, tri_up = eng.first_hit(mid, up_end)
    down_end = mid.copy()
    down_end[:, 2] = np.minimum(bottom, mid[:, 2] - 1.0)
    _, tri_down = eng.first_hit(mid, down_end)
    for k in range(len(p)):
        f = int(tri_up[k]) if tri_up[k] >= 0 else int(tri_down[k])
        if f >= 0:
            out[k] = s.names[int(s.element[f])]
    return out


def enclosed_warnings(scene, troopers) -> list[str]:
    """A warning for each trooper placed explicitly (``[x, y, z]``) whose silhouette is
    not in free space connected to the open air (SPEC 13.1), naming the piece that
    encloses it. Dropped troopers rest on the ground met from above: never enclosed.

    Parameters
    ----------
    scene : Scene
    troopers : list of Trooper
        Markers and dropped troopers are skipped.

    Returns
    -------
    list of str
        Warning texts.
    """
    out = []
    for t in troopers:
        if t.dropped or t.is_marker or t.height <= 0 or t.radius <= 0:
            continue
        pos = np.array([t.position])
        if reach_map(scene, t.radius, t.height).reachable(pos)[0]:
            continue
        piece = enclosing_pieces(scene, pos, t.height)[0]
        out.append(
            f"trooper {t.id!r} is placed in an enclosed space (in {piece!r}: inside a solid "
            f"or a cavity no trooper of its size can walk into from the open air), base at "
            f"z = {t.position[2]:.1f} mm"
        )
    return out
