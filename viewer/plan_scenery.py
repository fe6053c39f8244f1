"""Scenery of a vector plan view: height bands of pieces, contours of terrain.

From above, the visible surface of scenery is its highest one. Pieces (walls, buildings,
boxes, scans of pieces) are cut into height bands: each triangle that faces up or down
(not edge-on) goes to the band of its highest corner, each band's projected triangles
are merged into polygons (shapely), and the bands are painted from low to high in the
colours of :data:`viewer.palette.SCENERY_RAMP` — the same ramp as the PNG. Each piece's
footprint is outlined. Terrain (the scenario's table mesh: a scan or a DEM) is drawn as
filled contours and contour lines every N mm (matplotlib ``tricontourf`` / ``tricontour``,
vector paths); very large terrain meshes are first binned on a grid (highest point per
cell). Faces added to close open meshes (``Scene.closing_mask``: curtains and bottom
caps, never seen from above) are left out. Nothing here is rasterised.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from . import palette as pal
from . import shapes as sh
from .model import LegendEntry
from .vector import union_triangles

__all__ = [
    "BANDS",
    "TERRAIN_GRID_CELLS",
    "TERRAIN_TRIANGLE_LIMIT",
    "PlanScenery",
    "contour_step",
    "plan_scenery",
]

#: Height bands of scenery pieces in a plan view.
BANDS = 6
#: Terrain meshes with more triangles than this are binned on a grid before contouring.
TERRAIN_TRIANGLE_LIMIT = 300_000
#: Cells along the longer side of that grid.
TERRAIN_GRID_CELLS = 400


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
        ``{"x", "y", "triangles" or None, "z", "levels", "colors", "step"}`` for
        ``tricontourf`` (triangles given) or ``contourf`` (x, y, z on a grid).
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
    return {
        "x": x,
        "y": y,
        "z": z,
        "triangles": triangles,
        "levels": levels,
        "colors": _ramp(mids, levels[0], levels[-1]),
        "step": step,
    }


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
            LegendEntry(f"terrain (contours every {out.terrain['step']:g} mm)", pal.SCENERY_RAMP[1])
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
            LegendEntry(f"scenery (darker: taller, to {hi:.0f} mm)", pal.SCENERY_RAMP[1])
        )
    if (pieces & ~blocking).any():
        out.legend.append(LegendEntry("scenery, no LoF block", pal.SCENERY_NONBLOCKING))
    return out


def _safe_id(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in str(name))
