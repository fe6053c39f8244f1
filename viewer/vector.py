"""Plan-view projection of drawing actors into vector shapes (no raster).

A plan view looks straight down: a mesh becomes the union of its triangles projected on
the table (shapely polygons, filled), and its line cells become 2D segments. Surfaces
seen edge-on (a trooper's mantle, a wall's sides) have no area from above; they are
drawn as their projected outline, the way a plan shows a vertical sheet as a line.

These are plain geometry helpers (numpy + shapely); :mod:`viewer.plan` turns them into
matplotlib artists with the actor's colour, opacity and line width.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import shapely

__all__ = [
    "AREA_EPS_MM2",
    "PlanShape",
    "cells",
    "chain_segments",
    "polygon_paths",
    "project_actor",
    "union_triangles",
]

#: Projected triangles smaller than this (mm²) are seen edge-on from above.
AREA_EPS_MM2 = 1e-6


@dataclass
class PlanShape:
    """One actor seen from above.

    Attributes
    ----------
    area : shapely geometry or None
        Union of the projected triangles with an area (mm).
    lines : list of (n, 2) float arrays, mm
        Polylines: the line cells, and the outline of surfaces seen edge-on.
    """

    area: object | None
    lines: list


def cells(flat) -> list[np.ndarray]:
    """A VTK flat cell array ``[n, i0, .., i(n-1), n, ...]`` -> list of index arrays."""
    flat = np.asarray(flat, dtype=np.int64)
    out = []
    i = 0
    while i < len(flat):
        n = int(flat[i])
        out.append(flat[i + 1 : i + 1 + n])
        i += n + 1
    return out


def union_triangles(tri_xy: np.ndarray):
    """Union of projected triangles ((m, 3, 2) float, mm); None when none has an area."""
    tri_xy = np.asarray(tri_xy, dtype=np.float64).reshape(-1, 3, 2)
    if not len(tri_xy):
        return None
    a = tri_xy[:, 1] - tri_xy[:, 0]
    b = tri_xy[:, 2] - tri_xy[:, 0]
    area = 0.5 * np.abs(a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0])
    keep = tri_xy[area > AREA_EPS_MM2]
    if not len(keep):
        return None
    polys = shapely.polygons(np.concatenate([keep, keep[:, :1]], axis=1))
    geom = shapely.union_all(polys, grid_size=None)
    return None if geom.is_empty else geom


def project_actor(mesh) -> PlanShape:
    """Project a PyVista mesh straight down (x, y); see the module docstring.

    Parameters
    ----------
    mesh : pyvista.PolyData

    Returns
    -------
    PlanShape
    """
    pts = np.asarray(mesh.points, dtype=np.float64)
    xy = pts[:, :2] if len(pts) else np.zeros((0, 2))
    lines: list[np.ndarray] = []
    for idx in cells(mesh.lines):
        if len(idx) >= 2:
            lines.append(xy[idx])
    tris = []
    for idx in cells(mesh.faces):
        for k in range(1, len(idx) - 1):  # fan-split polygons into triangles
            tris.append((idx[0], idx[k], idx[k + 1]))
    area = None
    if tris:
        t = np.asarray(tris, dtype=np.int64)
        area = union_triangles(xy[t])
        if area is None:  # seen edge-on: draw the projected edges
            e = np.concatenate([t[:, [0, 1]], t[:, [1, 2]], t[:, [2, 0]]])
            e = np.unique(np.sort(e, axis=1), axis=0)
            p0, p1 = xy[e[:, 0]], xy[e[:, 1]]
            ok = np.linalg.norm(p1 - p0, axis=1) > 1e-6
            lines.extend(chain_segments(np.stack([p0[ok], p1[ok]], axis=1)))
    return PlanShape(area, lines)


def chain_segments(segs: np.ndarray, nd: int = 6) -> list[np.ndarray]:
    """Join 2D segments ((k, 2, 2) float) into polylines; duplicates are dropped.

    Endpoints equal after rounding to ``nd`` decimals are the same point. Deterministic:
    chains start from the segments in input order.
    """
    segs = np.asarray(segs, dtype=np.float64).reshape(-1, 2, 2)
    key = [tuple(np.round(p, nd)) for p in segs.reshape(-1, 2)]
    seen, edges = set(), []
    for i in range(len(segs)):
        a, b = key[2 * i], key[2 * i + 1]
        e = (a, b) if a <= b else (b, a)
        if a != b and e not in seen:
            seen.add(e)
            edges.append((a, b))
    adj: dict = {}
    for j, (a, b) in enumerate(edges):
        adj.setdefault(a, []).append(j)
        adj.setdefault(b, []).append(j)
    used = [False] * len(edges)
    out = []
    for j, (a, b) in enumerate(edges):
        if used[j]:
            continue
        used[j] = True
        path = [a, b]
        for forward in (True, False):
            while True:
                end = path[-1] if forward else path[0]
                nxt = next((m for m in adj[end] if not used[m]), None)
                if nxt is None:
                    break
                used[nxt] = True
                p, q = edges[nxt]
                other = q if p == end else p
                if forward:
                    path.append(other)
                else:
                    path.insert(0, other)
        out.append(np.array(path, dtype=np.float64))
    return out


def polygon_paths(geom) -> list[tuple[np.ndarray, list[np.ndarray]]]:
    """The polygons of a shapely geometry as (exterior, [holes]) coordinate arrays."""
    if geom is None or geom.is_empty:
        return []
    out = []
    for g in getattr(geom, "geoms", [geom]):
        if g.geom_type == "Polygon":
            out.append((np.asarray(g.exterior.coords), [np.asarray(r.coords) for r in g.interiors]))
        elif hasattr(g, "geoms"):
            out.extend(polygon_paths(g))
    return out
