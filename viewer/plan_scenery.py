"""Scenery of a vector plan view: height bands of pieces, contours of terrain.

From above, the visible surface of scenery is its highest one. Pieces (walls, buildings,
boxes, scans of pieces) are cut into height bands: each triangle that faces up or down
(not edge-on) goes to the band of its highest corner, each band's projected triangles
are merged into polygons (shapely), and the bands are painted from low to high in the
colours of :data:`viewer.palette.SCENERY_RAMP` — the same ramp as the PNG. Each piece's
footprint is outlined. Terrain (the scenario's table mesh: a scan or a DEM) is drawn as
a hillshade under translucent filled contours and contour lines every N mm (matplotlib
``tricontourf`` / ``tricontour``, vector paths); very large terrain meshes are first
binned on a grid (highest point per cell) for the contours.

The hillshade: the terrain's top surface is sampled at the nodes of a grid of at most
:data:`HILLSHADE_CELLS` cells along the longer side (never finer than the mesh), each
cell's slope comes from its four corners, and the cell is lit by the standard hillshade
formula, ``shade = max(0, n . s)`` with ``n`` the cell's unit normal and ``s`` the unit
vector towards a sun at azimuth :data:`HILLSHADE_AZIMUTH_DEG` (315: the north-west,
clockwise from +y) and altitude :data:`HILLSHADE_ALTITUDE_DEG` (45) — the same value as
``cos(zenith) cos(slope) + sin(zenith) sin(slope) cos(azimuth - aspect)``. Shades are
rounded to :data:`HILLSHADE_LEVELS` greys and the cells of each grey merged into
polygons (shapely), so the SVG stays small and holds vector paths only.

Faces added to close open meshes (``Scene.closing_mask``: curtains, caps over holes and
bottom caps) are left out: the terrain is the scan's own surface. Nothing here is
rasterised.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import shapely

from . import palette as pal
from . import shapes as sh
from . import wording as wd
from .model import LegendEntry
from .vector import union_triangles

__all__ = [
    "BANDS",
    "HILLSHADE_ALTITUDE_DEG",
    "HILLSHADE_AZIMUTH_DEG",
    "HILLSHADE_CELLS",
    "HILLSHADE_LEVELS",
    "TERRAIN_GRID_CELLS",
    "TERRAIN_TRIANGLE_LIMIT",
    "PlanScenery",
    "contour_step",
    "hillshade",
    "node_heights",
    "plan_scenery",
]

#: Height bands of scenery pieces in a plan view.
BANDS = 6
#: Terrain meshes with more triangles than this are binned on a grid before contouring.
TERRAIN_TRIANGLE_LIMIT = 300_000
#: Cells along the longer side of that grid.
TERRAIN_GRID_CELLS = 400
#: Hillshade grid: at most this many cells along the terrain's longer side (SVG size).
HILLSHADE_CELLS = 120
#: Sun of the hillshade: azimuth clockwise from +y (north), 315 = from the north-west,
#: the cartographic convention (slopes facing the top-left read as lit).
HILLSHADE_AZIMUTH_DEG = 315.0
#: Sun of the hillshade: altitude above the horizon (the cartographic 45 degrees).
HILLSHADE_ALTITUDE_DEG = 45.0
#: Greys the shades are rounded to (one merged polygon per grey).
HILLSHADE_LEVELS = 32
#: Node candidates tested per batch while sampling the terrain (memory bound).
_BATCH = 2_000_000


@dataclass
class PlanScenery:
    """What the plan view draws for the scenery (mm, ``#RRGGBB``).

    Attributes
    ----------
    bands : list of (geometry, colour, opacity, name)
        Height bands, lowest first (shapely geometries).
    outlines : list of (geometry, name)
        Footprint of each piece.
    terrain : dict or None
        ``{"x", "y", "triangles" or None, "z", "levels", "colors", "step", "shade"}``
        for ``tricontourf`` (triangles given) or ``contourf`` (x, y, z on a grid);
        ``shade`` is the hillshade: a list of ``(geometry, grey "#RRGGBB", name)``, one
        merged polygon per grey, darkest first (names ``terrain-hillshade-<level>``).
    legend : list of LegendEntry
    """

    bands: list = field(default_factory=list)
    outlines: list = field(default_factory=list)
    terrain: dict | None = None
    legend: list = field(default_factory=list)


def contour_step(span_mm: float, target: int = 15) -> float:
    """A round contour interval (1, 2, 5 x 10^k mm) giving about ``target`` levels."""
    if span_mm <= 0:
        return 1.0
    raw = span_mm / target
    e = math.floor(math.log10(raw))
    for s in (1, 2, 5, 10):
        if s * 10.0**e >= raw:
            return s * 10.0**e
    return 10.0 ** (e + 1)  # pragma: no cover - the loop always returns


def _ramp(values, lo, hi) -> list[str]:
    rgb = sh.ramp_rgb(np.asarray(values, dtype=float), lo, hi, pal.SCENERY_RAMP)
    return ["#{:02X}{:02X}{:02X}".format(*c) for c in rgb]


def _terrain(vertices, faces, lo, hi) -> dict:
    v = vertices
    if len(faces) <= TERRAIN_TRIANGLE_LIMIT:
        used = np.unique(faces)
        remap = np.full(len(v), -1, dtype=np.int64)
        remap[used] = np.arange(len(used))
        p = v[used]
        tri = remap[faces]
        a = p[tri[:, 1], :2] - p[tri[:, 0], :2]
        b = p[tri[:, 2], :2] - p[tri[:, 0], :2]
        ok = np.abs(a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]) > 2e-6
        x, y, z, triangles = p[:, 0], p[:, 1], p[:, 2], tri[ok]
    else:
        used = v[np.unique(faces)]
        x0, y0 = used[:, 0].min(), used[:, 1].min()
        x1, y1 = used[:, 0].max(), used[:, 1].max()
        cell = max(x1 - x0, y1 - y0) / TERRAIN_GRID_CELLS
        nx = max(2, math.ceil((x1 - x0) / cell) + 1)
        ny = max(2, math.ceil((y1 - y0) / cell) + 1)
        ix = np.clip(np.round((used[:, 0] - x0) / cell).astype(int), 0, nx - 1)
        iy = np.clip(np.round((used[:, 1] - y0) / cell).astype(int), 0, ny - 1)
        grid = np.full((ny, nx), -np.inf)
        np.maximum.at(grid, (iy, ix), used[:, 2])
        z = np.ma.masked_invalid(np.where(np.isfinite(grid), grid, np.nan))
        x, y = x0 + cell * np.arange(nx), y0 + cell * np.arange(ny)
        triangles = None
    step = contour_step(hi - lo)
    start = math.floor(lo / step) * step
    levels = start + step * np.arange(math.ceil((hi - start) / step) + 1)
    if len(levels) < 2:
        levels = np.array([start, start + step])
    mids = 0.5 * (levels[:-1] + levels[1:])
    xs, ys, zn = node_heights(v, faces)
    return {
        "shade": _shade_polygons(xs, ys, hillshade(xs, ys, zn)),
        "x": x,
        "y": y,
        "z": z,
        "triangles": triangles,
        "levels": levels,
        "colors": _ramp(mids, levels[0], levels[-1]),
        "step": step,
    }


def node_heights(vertices, faces, max_cells: int = HILLSHADE_CELLS):
    """The top surface of a terrain sampled at the nodes of a regular grid.

    Parameters
    ----------
    vertices : (n, 3) float64
        Mesh vertices (mm).
    faces : (m, 3) int64
        Terrain triangles; those edge-on from above (no projected area) are ignored.
    max_cells : int
        Cells along the longer side at most; fewer when the mesh is coarser (one cell
        per median of the triangles' shortest projected sides), at least 2.

    Returns
    -------
    xs : (nx + 1,) float64
        Node x (mm), from the terrain's least to its greatest x.
    ys : (ny + 1,) float64
        Node y (mm).
    z : (ny + 1, nx + 1) float64
        Highest terrain point over each node (mm); NaN where no triangle covers it.
    """
    tri = vertices[faces]
    p = tri[:, :, :2]
    x0, y0 = p[..., 0].min(), p[..., 1].min()
    w, h = p[..., 0].max() - x0, p[..., 1].max() - y0
    edge = np.linalg.norm(p - np.roll(p, 1, axis=1), axis=2).min(axis=1)  # shortest side
    edge = float(np.median(edge[edge > 0])) if (edge > 0).any() else max(w, h)
    n_long = int(np.clip(round(max(w, h) / max(edge, 1e-9)), 2, max_cells))
    cell = max(w, h) / n_long
    nx, ny = max(1, round(w / cell)), max(1, round(h / cell))
    xs = x0 + (w / nx) * np.arange(nx + 1)
    ys = y0 + (h / ny) * np.arange(ny + 1)
    xs[-1], ys[-1] = x0 + w, y0 + h
    z = np.full((ny + 1, nx + 1), -np.inf)
    a, b, c = p[:, 0], p[:, 1], p[:, 2]
    det = (b[:, 0] - a[:, 0]) * (c[:, 1] - a[:, 1]) - (c[:, 0] - a[:, 0]) * (b[:, 1] - a[:, 1])
    keep = np.abs(det) > 2e-6
    i0 = np.searchsorted(xs, p[..., 0].min(axis=1) - 1e-9, side="left")
    i1 = np.searchsorted(xs, p[..., 0].max(axis=1) + 1e-9, side="right")
    j0 = np.searchsorted(ys, p[..., 1].min(axis=1) - 1e-9, side="left")
    j1 = np.searchsorted(ys, p[..., 1].max(axis=1) + 1e-9, side="right")
    cnt = np.where(keep, np.maximum(i1 - i0, 0) * np.maximum(j1 - j0, 0), 0)
    ends = np.cumsum(cnt)
    starts = ends - cnt
    done = 0
    while done < len(cnt):  # batches of about _BATCH node candidates
        stop = max(done + 1, int(np.searchsorted(ends, starts[done] + _BATCH, side="right")))
        t = np.repeat(np.arange(done, stop), cnt[done:stop])
        k = np.arange(len(t)) - (starts[t] - starts[done])
        span = np.maximum(i1[t] - i0[t], 1)
        ii, jj = i0[t] + k % span, j0[t] + k // span
        qx, qy = xs[ii], ys[jj]
        d = det[t]
        u = ((qx - a[t, 0]) * (c[t, 1] - a[t, 1]) - (c[t, 0] - a[t, 0]) * (qy - a[t, 1])) / d
        v = ((b[t, 0] - a[t, 0]) * (qy - a[t, 1]) - (qx - a[t, 0]) * (b[t, 1] - a[t, 1])) / d
        eps = 1e-9
        inside = (u >= -eps) & (v >= -eps) & (u + v <= 1 + eps)
        zt = tri[t, 0, 2] + u * (tri[t, 1, 2] - tri[t, 0, 2]) + v * (tri[t, 2, 2] - tri[t, 0, 2])
        np.maximum.at(z, (jj[inside], ii[inside]), zt[inside])
        done = stop
    z[~np.isfinite(z)] = np.nan
    return xs, ys, z


def hillshade(xs, ys, z, azimuth_deg=HILLSHADE_AZIMUTH_DEG, altitude_deg=HILLSHADE_ALTITUDE_DEG):
    """Hillshade of each grid cell, in [0, 1] (NaN where a corner is unknown).

    ``max(0, n . s)``: ``n`` the cell's unit normal, from its mean slopes
    ``dz/dx = ((z10 + z11) - (z00 + z01)) / 2 dx`` (and ``dz/dy`` alike); ``s`` the unit
    vector towards the sun at ``azimuth_deg`` (clockwise from +y) and ``altitude_deg``.

    Parameters
    ----------
    xs : (nx + 1,) float64
    ys : (ny + 1,) float64
    z : (ny + 1, nx + 1) float64
        Node heights (mm), as from :func:`node_heights`.

    Returns
    -------
    (ny, nx) float64
    """
    dx, dy = np.diff(xs)[None, :], np.diff(ys)[:, None]
    gx = ((z[:-1, 1:] + z[1:, 1:]) - (z[:-1, :-1] + z[1:, :-1])) / (2 * dx)
    gy = ((z[1:, :-1] + z[1:, 1:]) - (z[:-1, :-1] + z[:-1, 1:])) / (2 * dy)
    az, alt = math.radians(azimuth_deg), math.radians(altitude_deg)
    sx, sy, sz = math.cos(alt) * math.sin(az), math.cos(alt) * math.cos(az), math.sin(alt)
    return np.maximum(0.0, (-gx * sx - gy * sy + sz) / np.sqrt(1.0 + gx * gx + gy * gy))


def _shade_polygons(xs, ys, shade) -> list:
    level = np.clip(np.floor(shade * HILLSHADE_LEVELS), 0, HILLSHADE_LEVELS - 1)
    out = []
    for k in np.unique(level[np.isfinite(level)]).astype(int):
        jj, ii = np.nonzero(level == k)
        geom = shapely.union_all(shapely.box(xs[ii], ys[jj], xs[ii + 1], ys[jj + 1]))
        g = round(255 * (k + 0.5) / HILLSHADE_LEVELS)
        out.append((geom, f"#{g:02X}{g:02X}{g:02X}", f"terrain-hillshade-{k}"))
    return out


def plan_scenery(scene) -> PlanScenery:
    """Height bands, footprints and terrain contours of ``scene.scenery`` (see module)."""
    out = PlanScenery()
    mesh = scene.scenery
    if mesh.n_triangles == 0:
        return out
    v = np.asarray(mesh.vertices, dtype=np.float64)
    f = np.asarray(mesh.faces, dtype=np.int64)
    blocking = np.asarray(scene.blocking_mask, dtype=bool)
    names = list(mesh.names)
    terrain_idx = (
        names.index("table") if scene.scenario.table_mesh is not None and "table" in names else -1
    )
    # faces added to close an open scan (curtains, bottom caps) are not terrain anyone
    # sees from above: the terrain is the scan's own surface
    closing = np.asarray(getattr(scene, "closing_mask", np.zeros(len(f), bool)), dtype=bool)
    is_terrain = (mesh.element == terrain_idx) & ~closing
    lo = min(float(v[:, 2].min()), 0.0)
    hi = float(v[:, 2].max())
    if is_terrain.any():
        tv = v[np.unique(f[is_terrain])]
        out.terrain = _terrain(v, f[is_terrain], float(tv[:, 2].min()), float(tv[:, 2].max()))
        out.legend.append(
            LegendEntry(
                f"terrain: hillshade, contours every {wd.length(scene, out.terrain['step'], 2)}",
                pal.SCENERY_RAMP[1],
            )
        )
    pieces = (mesh.element != terrain_idx) & ~closing
    top = v[f, 2].max(axis=1)
    tri_xy = v[f][:, :, :2]
    edges = np.linspace(lo, hi, BANDS + 1) if hi > lo else np.array([lo, lo + 1.0])
    band = np.clip(np.searchsorted(edges, top, side="left") - 1, 0, len(edges) - 2)
    colors = _ramp(edges[1:], lo, hi)
    for kind, mask, opacity in (
        ("blocking", pieces & blocking, 1.0),
        ("nonblocking", pieces & ~blocking, 0.45),
    ):
        if not mask.any():
            continue
        for k in range(len(edges) - 1):
            sel = mask & (band == k)
            geom = union_triangles(tri_xy[sel]) if sel.any() else None
            if geom is None:
                continue
            color = colors[k] if kind == "blocking" else pal.SCENERY_NONBLOCKING
            out.bands.append((geom, color, opacity, f"scenery-{kind}-band-{k}"))
    for e in np.unique(mesh.element[pieces]):
        geom = union_triangles(tri_xy[pieces & (mesh.element == e)])
        if geom is not None:
            out.outlines.append((geom, f"scenery-{_safe_id(names[int(e)])}"))
    if (pieces & blocking).any():
        out.legend.append(
            LegendEntry(
                f"scenery (darker: taller, to {wd.length(scene, hi, 0)})", pal.SCENERY_RAMP[1]
            )
        )
    if (pieces & ~blocking).any():
        out.legend.append(LegendEntry("scenery, no LoF block", pal.SCENERY_NONBLOCKING))
    return out


def _safe_id(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in str(name))
