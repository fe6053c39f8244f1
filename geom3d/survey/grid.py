"""Probe positions: a grid over the table, at every level where a probe can stand.

Under each grid point a vertical ray is followed down through every surface (first hit,
then on from just below it, :data:`~geom3d.survey.limits.SURVEY_MAX_LAYERS` at most): each
upward-facing surface is a candidate level (the table, floors inside buildings, roofs,
walkways). At a candidate the probe cylinder rests on the highest point under its base
(rays down at the centre and on two rings of the base, from the probe's top), on the
ground connected to the support under its centre (the rule troopers are dropped by,
:mod:`geom3d.scene.footing`: a sculpture overlapping the rim does not lift it), and is kept
when

* nothing cuts into its volume above :data:`~geom3d.survey.limits.SURVEY_FOOT_MM` over its
  resting height (headroom: horizontal chords at four heights, eight vertical segments);
* it is not inside a closed piece (the first surface straight above faces up, i.e. it is
  seen from inside).

One level per surface (SPEC 13.1): two spots at one grid point are two levels only when
solid lies between them (:func:`_one_level_per_surface`); a slope, a step or a scan's
rough skin gives one position, at the upper spot (the 12.2 height). Spots a probe cannot
walk into from the open air are dropped (:mod:`geom3d.scene.reach`). ``level`` numbers the
positions of one grid point from the bottom (0: the lowest place a probe stands there, the
table or a ground floor; 1: the next one up, a first floor or a roof; ...).

Surfaces are all scenery (blocking or not), as for troopers dropped onto the table.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from geom3d.core.errors import InputError
from geom3d.core.tolerances import STAND_INSET_MM
from geom3d.mesh import used_vertices
from geom3d.raycast.base import RayBackend
from geom3d.scene.footing import Footing, connected_rest
from geom3d.scene.reach import enclosing_pieces, reach_map
from geom3d.scene.scene import Scene
from geom3d.scene.tolerances import DROP_REFINE_MAX_MM, DROP_STEEP_REL_EPS, UPWARD_NORMAL_MIN_Z
from geom3d.survey.limits import (
    SURVEY_BYTES_PER_PAIR,
    SURVEY_FOOT_MM,
    SURVEY_LEVEL_MERGE_MM,
    SURVEY_MAX_GRID_POINTS,
    SURVEY_MAX_LAYERS,
    SURVEY_MAX_PAIRS,
)

__all__ = ["Probe", "ProbeGrid", "grid_points", "place_probes", "probe_for", "table_extent"]


@dataclass(frozen=True)
class Probe:
    """The probe silhouette.

    Attributes
    ----------
    silhouette : int
    diameter, height : float, mm
    """

    silhouette: int
    diameter: float
    height: float

    @property
    def radius(self) -> float:
        return 0.5 * self.diameter


@dataclass(frozen=True)
class ProbeGrid:
    """Where probes stand.

    Attributes
    ----------
    spacing : float, mm
    grid_xy : (g, 2) float64, mm
        Grid points, rows of constant y from the bottom, x increasing.
    positions : (n, 3) float64, mm
        Base centres of the standing probes, by grid point then level.
    level : (n,) int64
        Level of each position at its grid point (0 = lowest).
    cell : (n,) int64
        Grid point of each position.
    hole : (g,) bool
        The grid point lies over the table mesh's extent but no surface is under it.
    no_stand : (g,) bool
        No probe stands anywhere at the grid point.
    enclosed : (e, 3) float64, mm
        Spots dropped because the probe there is not in free space connected to the open
        air (SPEC 13.1, :mod:`geom3d.scene.reach`): inside a solid or a sealed cavity.
    enclosed_by : tuple of (str, int)
        The pieces enclosing them (met first straight above), with their counts, most
        first.
    """

    spacing: float
    grid_xy: np.ndarray
    positions: np.ndarray
    level: np.ndarray
    cell: np.ndarray
    hole: np.ndarray
    no_stand: np.ndarray
    enclosed: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    enclosed_by: tuple[tuple[str, int], ...] = ()


def probe_for(scene: Scene, silhouette: int) -> Probe:
    """The probe of silhouette ``silhouette`` in the scene's ruleset (InputError if none)."""
    sil = scene.ruleset.silhouettes
    if silhouette not in sil:
        known = ", ".join(str(k) for k in sorted(sil))
        raise InputError(f"--probe: no silhouette {silhouette} in {scene.ruleset.name} ({known})")
    d, h = sil[silhouette]
    return Probe(int(silhouette), float(d), float(h))


def table_extent(scene: Scene) -> tuple[float, float, float, float]:
    """``(x0, y0, x1, y1)`` mm: the table's size from the origin, else the scenery's extent."""
    size = scene.scenario.table_size
    if size is not None:
        return 0.0, 0.0, float(size[0]), float(size[1])
    v = scene.scenery.vertices
    if not len(v):
        raise InputError("survey: the scenario has neither table.size nor scenery")
    lo, hi = v[:, :2].min(axis=0), v[:, :2].max(axis=0)
    return float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1])


def grid_points(extent, spacing: float, *, all_pairs: bool = True) -> np.ndarray:
    """Grid points every ``spacing`` mm, centred in the extent ((g, 2) float64, mm).

    ``all_pairs``: the points are to be paired with each other (the survey), so a grid
    whose pairs exceed ``SURVEY_MAX_PAIRS`` is refused here, before probes are placed
    (:func:`check_pairs`); the exposure map pairs each point with a few observers only
    and passes False (the ``SURVEY_MAX_GRID_POINTS`` cap holds for both)."""
    if not (math.isfinite(spacing) and spacing > 0):
        raise InputError(f"--spacing: must be a positive length (got {spacing!r})")
    x0, y0, x1, y1 = extent

    def axis(a: float, b: float) -> np.ndarray:
        n = max(1, math.floor((b - a) / spacing + 1e-9))
        margin = 0.5 * ((b - a) - (n - 1) * spacing)
        return a + margin + spacing * np.arange(n)

    nx = max(1, math.floor(min((x1 - x0) / spacing + 1e-9, 1e12)))
    ny = max(1, math.floor(min((y1 - y0) / spacing + 1e-9, 1e12)))
    if nx * ny > SURVEY_MAX_GRID_POINTS:
        raise InputError(
            f"--spacing: {spacing:g} mm makes {nx * ny:,} grid points "
            f"(at most {SURVEY_MAX_GRID_POINTS:,}); use a coarser grid"
        )
    if all_pairs:
        check_pairs(nx * ny, spacing, "grid points")
    xs, ys = axis(x0, x1), axis(y0, y1)
    gx, gy = np.meshgrid(xs, ys, indexing="xy")
    return np.column_stack([gx.ravel(), gy.ravel()])


def check_pairs(n: int, spacing: float, what: str = "positions") -> None:
    """:class:`InputError` when ``n`` positions make more than ``SURVEY_MAX_PAIRS`` pairs.

    The message gives the pairs, a memory estimate (``SURVEY_BYTES_PER_PAIR`` each) and
    the spacing that would fit (``n`` scales as the area over the spacing squared).
    Called on the grid (a lower bound: each grid point is at least one position) before
    probes are placed, and on the positions (several levels per point) before any pair
    is allocated.
    """
    pairs = n * (n - 1) // 2
    if pairs <= SURVEY_MAX_PAIRS:
        return
    fit = math.sqrt(2.0 * SURVEY_MAX_PAIRS)  # positions whose pairs fit
    suggest = spacing * math.sqrt(n / fit)
    gib = pairs * SURVEY_BYTES_PER_PAIR / (1 << 30)
    raise InputError(
        f"--spacing: {spacing:g} mm gives {n:,} {what} = {pairs:,} pairs, more than the "
        f"{SURVEY_MAX_PAIRS:,} a survey may have (about {gib:,.1f} GiB of memory); "
        f"use a spacing of {math.ceil(suggest):g} mm or more"
    )


@dataclass(frozen=True)
class _Ground:
    """What probes stand on: every scenery triangle, blocking or not (the scene's BVH for
    dropping troopers, with closing faces when the scene has them)."""

    engine: RayBackend
    vertices: np.ndarray
    faces: np.ndarray


def _ground(scene: Scene) -> _Ground:
    surface = getattr(scene, "surface", None)
    if surface is not None and hasattr(surface, "engine"):
        return _Ground(surface.engine, surface.vertices, surface.faces)
    return _Ground(scene._surface_engine, scene.scenery.vertices, scene.scenery.faces)


def _upward(gr: _Ground, tri: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(|n_z|, signed n_z) of the unit normals of ground triangles ``tri``."""
    v = gr.vertices[gr.faces[np.maximum(tri, 0)]]
    n = np.cross(v[:, 1] - v[:, 0], v[:, 2] - v[:, 0])
    norm = np.linalg.norm(n, axis=1)
    nz = np.where(norm > 0, n[:, 2] / np.where(norm > 0, norm, 1.0), 0.0)
    return np.abs(nz), nz


def _plane_z(gr: _Ground, tri: np.ndarray, xy: np.ndarray, approx: np.ndarray) -> np.ndarray:
    """Hit heights refined in float64 on the hit triangles' planes (Embree is float32)."""
    v = gr.vertices[gr.faces[np.maximum(tri, 0)]]
    n = np.cross(v[:, 1] - v[:, 0], v[:, 2] - v[:, 0])
    norm = np.linalg.norm(n, axis=1)
    flat = np.abs(n[:, 2]) > DROP_STEEP_REL_EPS * np.maximum(norm, 1e-300)
    p0 = v[:, 0]
    exact = p0[:, 2] - (
        n[:, 0] * (xy[:, 0] - p0[:, 0]) + n[:, 1] * (xy[:, 1] - p0[:, 1])
    ) / np.where(flat, n[:, 2], 1.0)
    use = (tri >= 0) & flat & (np.abs(exact - approx) < DROP_REFINE_MAX_MM)
    return np.where(use, exact, approx)


def _surfaces(gr: _Ground, xy: np.ndarray, top: float, bottom: float):
    """Every surface under each point: (point index, z, walkable) arrays, and hit-anything."""
    eng = gr.engine
    start = np.column_stack([xy, np.full(len(xy), top)])
    pending = np.arange(len(xy))
    idx, zs, walk = [], [], []
    any_hit = np.zeros(len(xy), dtype=bool)
    for _ in range(SURVEY_MAX_LAYERS):
        if not len(pending):
            break
        o = start[pending]
        e = o.copy()
        e[:, 2] = bottom
        dist, tri = eng.first_hit(o, e)
        hit = tri >= 0
        pending, o, dist, tri = pending[hit], o[hit], dist[hit], tri[hit]
        any_hit[pending] = True
        hz = _plane_z(gr, tri, o[:, :2], o[:, 2] - dist)
        up, _ = _upward(gr, tri)
        idx.append(pending)
        zs.append(hz)
        walk.append(up >= UPWARD_NORMAL_MIN_Z)
        start[pending, 2] = hz
    if idx:
        return np.concatenate(idx), np.concatenate(zs), np.concatenate(walk), any_hit
    return np.zeros(0, np.int64), np.zeros(0), np.zeros(0, bool), any_hit


def _base_offsets(radius: float) -> np.ndarray:
    """(25, 2) offsets of the base samples: centre, 8 at half radius, 16 on the rim."""
    a8 = np.radians(np.arange(8) * 45.0 + 22.5)
    a16 = np.radians(np.arange(16) * 22.5)
    rim = radius * (1.0 - 1e-3)
    return np.vstack(
        [
            [[0.0, 0.0]],
            0.5 * radius * np.column_stack([np.cos(a8), np.sin(a8)]),
            rim * np.column_stack([np.cos(a16), np.sin(a16)]),
        ]
    )


def _rest_heights(gr: _Ground, xy: np.ndarray, z: np.ndarray, probe: Probe) -> np.ndarray:
    """Where a probe whose top starts at ``z + height`` rests: the highest ground under
    its base connected to the support under its centre (SPEC 12.2, the rule troopers
    are dropped by: :func:`geom3d.scene.footing.connected_rest`), never below ``z``."""
    eng = gr.engine
    foot = _footing(probe.radius)
    off = foot.offsets
    k = len(off)
    pts = (xy[:, None, :] + off[None, :, :]).reshape(-1, 2)
    z0 = np.repeat(z + probe.height, k)
    o = np.column_stack([pts, z0])
    e = o.copy()
    e[:, 2] = np.repeat(z, k) - probe.height
    dist, tri = eng.first_hit(o, e)
    hz = np.where(tri >= 0, _plane_z(gr, tri, pts, z0 - dist), np.nan).reshape(-1, k)
    c = foot.centre
    hz[:, c] = np.where(np.isnan(hz[:, c]), z, hz[:, c])  # the level found at the centre
    rest, _ = connected_rest(foot, hz)
    return np.maximum(np.where(np.isnan(rest), z, rest), z)


_FOOTINGS: dict[float, Footing] = {}


def _footing(radius: float) -> Footing:
    """The survey's probe pattern (:func:`_base_offsets`) with its links, per radius."""
    f = _FOOTINGS.get(radius)
    if f is None:
        f = _FOOTINGS[radius] = Footing(_base_offsets(radius))
    return f


def _blocked(gr: _Ground, xy: np.ndarray, z: np.ndarray, probe: Probe) -> np.ndarray:
    """Does scenery cut into each probe volume, or is the probe inside a closed piece?"""
    eng = gr.engine
    n = len(xy)
    r = probe.radius - STAND_INSET_MM
    z0 = z + SURVEY_FOOT_MM
    z1 = z + probe.height - STAND_INSET_MM
    ang = np.radians(np.arange(0.0, 180.0, 22.5))
    dirs = np.column_stack([np.cos(ang), np.sin(ang)])
    heights = np.linspace(0.0, 1.0, 4)
    o, e, own = [], [], []
    for h in heights:
        zz = z0 + h * (z1 - z0)
        for d in dirs:
            o.append(np.column_stack([xy - r * d, zz]))
            e.append(np.column_stack([xy + r * d, zz]))
            own.append(np.arange(n))
    for d in dirs:
        p = xy + 0.7 * r * d
        o.append(np.column_stack([p, z0]))
        e.append(np.column_stack([p, z1]))
        own.append(np.arange(n))
    hit = eng.occluded(np.vstack(o), np.vstack(e))
    out = np.zeros(n, dtype=bool)
    out[np.concatenate(own)[hit]] = True
    # inside a closed piece: the first surface straight above faces up (seen from inside)
    lo = np.column_stack([xy, z0])
    hi = lo.copy()
    hi[:, 2] = float(eng.bounds[1, 2]) + 1.0
    keep = hi[:, 2] > lo[:, 2]
    if keep.any():
        _, tri = eng.first_hit(lo[keep], hi[keep])
        _, nz = _upward(gr, tri)
        inside = (tri >= 0) & (nz > 0)
        out[np.flatnonzero(keep)[inside]] = True
    return out


def _one_level_per_surface(
    gr: _Ground, xy: np.ndarray, pi: np.ndarray, rest: np.ndarray, probe: Probe
) -> np.ndarray:
    """Which spots are levels of their own (SPEC 13.1: one level per surface).

    ``pi``/``rest`` are sorted by grid point, then height. Two spots at one grid point are
    two levels only when solid lies between them: the lower probe fits under the upper
    one's floor (they are at least the probe's height less ``SURVEY_FOOT_MM`` apart) and
    a surface crosses the axis between them. Otherwise (a slope, a step, a scan's rough or
    doubled skin, spots closer than ``SURVEY_LEVEL_MERGE_MM``) they are one level, at the
    upper spot: the height a trooper dropped there rests at (SPEC 12.2, from above).

    Returns
    -------
    (n,) bool
        The spots kept.
    """
    keep = np.ones(len(pi), dtype=bool)
    if len(pi) < 2:
        return keep
    pair = np.flatnonzero(pi[1:] == pi[:-1])  # spot pair[k] and the one just above it
    if not len(pair):
        return keep
    lo, hi = rest[pair], rest[pair + 1]
    apart = (hi - lo >= probe.height - SURVEY_FOOT_MM) & (hi - lo >= SURVEY_LEVEL_MERGE_MM)
    between = np.zeros(len(pair), dtype=bool)
    ask = np.flatnonzero(apart)
    if len(ask) and gr.engine.n_triangles:
        p = xy[pi[pair[ask]]]
        o = np.column_stack([p, lo[ask] + SURVEY_FOOT_MM])
        e = np.column_stack([p, hi[ask]])
        between[ask] = gr.engine.occluded(o, e)
    keep[pair[~(apart & between)]] = False  # merged into the spot above
    return keep


def place_probes(
    scene: Scene, probe: Probe, spacing: float, *, all_pairs: bool = True
) -> ProbeGrid:
    """Probe positions on every walkable level of the scene (see module docstring).

    Parameters
    ----------
    scene : Scene
    probe : Probe
    spacing : float, mm
        Grid spacing.
    all_pairs : bool
        The positions are to be paired with each other (the survey's cap on pairs
        applies; see :func:`grid_points`).
    """
    xy = grid_points(table_extent(scene), spacing, all_pairs=all_pairs)
    g = len(xy)
    gr = _ground(scene)
    eng = gr.engine
    if eng.n_triangles:
        top = float(eng.bounds[1, 2]) + probe.height + 1.0
        bottom = float(eng.bounds[0, 2]) - 1.0
        pi, pz, pw, any_hit = _surfaces(gr, xy, top, bottom)
    else:
        pi, pz, pw, any_hit = np.zeros(0, np.int64), np.zeros(0), np.zeros(0, bool), None
    pi, pz = pi[pw], pz[pw]
    has_table_mesh = scene.scenario.table_mesh is not None
    if not has_table_mesh:  # the flat table top at z = 0 (surface_z's fallback)
        pi = np.concatenate([pi, np.arange(g)])
        pz = np.concatenate([pz, np.zeros(g)])
    hole = np.zeros(g, dtype=bool)
    if has_table_mesh and any_hit is not None:
        mesh = scene.scenery
        own = mesh.element == mesh.names.index("table")
        closing = getattr(scene, "closing_mask", None)  # faces added to close the scan
        if closing is not None and len(closing) == len(own):
            own &= ~closing
        tv = mesh.vertices[used_vertices(len(mesh.vertices), mesh.faces[own])]
        lo, hi = tv[:, :2].min(axis=0), tv[:, :2].max(axis=0)
        inside = np.all((xy >= lo) & (xy <= hi), axis=1)
        hole = inside & ~any_hit
    enclosed = np.zeros((0, 3))
    enclosed_by: tuple[tuple[str, int], ...] = ()
    if len(pi) and eng.n_triangles:
        rest = _rest_heights(gr, xy[pi], pz, probe)
        ok = ~_blocked(gr, xy[pi], rest, probe)
        pi, rest = pi[ok], rest[ok]
    else:
        rest = pz
    order = np.lexsort((rest, pi))
    pi, rest = pi[order], rest[order]
    keep = _one_level_per_surface(gr, xy, pi, rest, probe)
    pi, rest = pi[keep], rest[keep]
    if len(pi) and eng.n_triangles:
        # SPEC 13.1: only where the probe can walk in from the open air
        spots = np.column_stack([xy[pi], rest])
        open_air = reach_map(scene, probe.radius, probe.height).reachable(spots)
        if not open_air.all():
            enclosed = spots[~open_air]
            names = Counter(enclosing_pieces(scene, enclosed, probe.height))
            enclosed_by = tuple(sorted(names.items(), key=lambda kv: (-kv[1], kv[0])))
        pi, rest = pi[open_air], rest[open_air]
    level = np.zeros(len(pi), dtype=np.int64)
    for k in range(1, len(pi)):
        if pi[k] == pi[k - 1]:
            level[k] = level[k - 1] + 1
    positions = np.column_stack([xy[pi], rest]) if len(pi) else np.zeros((0, 3))
    no_stand = np.ones(g, dtype=bool)
    no_stand[pi] = False
    return ProbeGrid(
        float(spacing),
        xy,
        positions,
        level,
        pi.astype(np.int64),
        hole,
        no_stand,
        enclosed,
        enclosed_by,
    )
