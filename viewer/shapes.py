"""PyVista building blocks of the layers: triangles, segments, rings, fans, mantles.

Every function returns a :class:`pyvista.PolyData` in world millimetres (or, for
:func:`ramp_rgb`, per-point colours).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pyvista as pv

from . import palette as pal

__all__ = [
    "circle",
    "faces_mesh",
    "fan",
    "mantle",
    "polyline",
    "ramp_rgb",
    "ring",
    "segments",
    "spheres",
]


def faces_mesh(vertices, faces) -> pv.PolyData:
    """Triangles: ``vertices`` (n, 3) mm and ``faces`` (m, 3) int vertex indices."""
    v = np.asarray(vertices, dtype=np.float64).reshape(-1, 3)
    f = np.asarray(faces, dtype=np.int64).reshape(-1, 3)
    return pv.PolyData.from_regular_faces(v, f)


def segments(starts, ends) -> pv.PolyData:
    """Separate line segments ``starts[i] -> ends[i]`` ((n, 3) mm) as one PolyData."""
    s = np.asarray(starts, dtype=np.float64).reshape(-1, 3)
    e = np.asarray(ends, dtype=np.float64).reshape(-1, 3)
    n = len(s)
    pts = np.empty((2 * n, 3))
    pts[0::2] = s
    pts[1::2] = e
    lines = np.column_stack([np.full(n, 2), np.arange(0, 2 * n, 2), np.arange(1, 2 * n, 2)])
    return pv.PolyData(pts, lines=lines.ravel())


def polyline(points, closed: bool = False) -> pv.PolyData:
    """One polyline through ``points`` ((n, 3) mm), back to the first when ``closed``."""
    p = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    idx = list(range(len(p))) + ([0] if closed else [])
    return pv.PolyData(p, lines=np.array([len(idx), *idx]))


def spheres(centers, radius: float) -> pv.PolyData:
    """Balls of ``radius`` mm at ``centers`` ((n, 3) mm), merged into one mesh."""
    c = np.asarray(centers, dtype=np.float64).reshape(-1, 3)
    parts = [
        pv.Sphere(radius=float(radius), center=tuple(p), theta_resolution=16, phi_resolution=12)
        for p in c
    ]
    return pv.merge(parts) if len(parts) > 1 else parts[0]


def ring(center, r0: float, r1: float, z: float, n: int = 72) -> pv.PolyData:
    """Flat annulus of radii ``r0`` < ``r1`` at height ``z`` (n sectors), as triangles."""
    ang = 2 * math.pi * np.arange(n) / n
    inner = np.column_stack(
        [center[0] + r0 * np.cos(ang), center[1] + r0 * np.sin(ang), np.full(n, z)]
    )
    outer = np.column_stack(
        [center[0] + r1 * np.cos(ang), center[1] + r1 * np.sin(ang), np.full(n, z)]
    )
    v = np.vstack([inner, outer])
    faces = []
    for i in range(n):
        j = (i + 1) % n
        faces.append((i, j, n + j))
        faces.append((i, n + j, n + i))
    return faces_mesh(v, faces)


def fan(center, r: float, z: float, a0: float, a1: float, n: int = 36) -> pv.PolyData:
    """Flat disc sector at height z (radians a0..a1), fan-triangulated."""
    ang = a0 + (a1 - a0) * np.arange(n + 1) / n
    rim = np.column_stack([center[0] + r * np.cos(ang), center[1] + r * np.sin(ang)])
    v = np.vstack([[center[0], center[1], z], np.column_stack([rim, np.full(n + 1, z)])])
    faces = [(0, i + 1, i + 2) for i in range(n)]
    return faces_mesh(v, faces)


def circle(center, r: float, z: float, n: int = 72) -> pv.PolyData:
    """Closed horizontal circle of radius ``r`` at height ``z`` (n segments)."""
    ang = 2 * math.pi * np.arange(n) / n
    pts = np.column_stack([center[0] + r * np.cos(ang), center[1] + r * np.sin(ang), np.full(n, z)])
    return polyline(pts, closed=True)


def mantle(center, r: float, z0: float, z1: float, n: int = 48) -> pv.PolyData:
    """Side surface of a vertical cylinder from ``z0`` to ``z1``, as triangles."""
    ang = 2 * math.pi * np.arange(n) / n
    ring = np.column_stack([center[0] + r * np.cos(ang), center[1] + r * np.sin(ang)])
    v = np.vstack(
        [np.column_stack([ring, np.full(n, z0)]), np.column_stack([ring, np.full(n, z1)])]
    )
    faces = []
    for i in range(n):
        j = (i + 1) % n
        faces.append((i, j, n + j))
        faces.append((i, n + j, n + i))
    return faces_mesh(v, faces)


def ramp_rgb(values: np.ndarray, lo: float, hi: float, ramp: Sequence[str]) -> np.ndarray:
    """Linear interpolation along a colour ramp; (n,) values -> (n, 3) uint8."""
    stops = np.array([pal.rgb255(c) for c in ramp], dtype=np.float64)
    t = np.zeros(len(values)) if hi <= lo else np.clip((values - lo) / (hi - lo), 0.0, 1.0)
    x = t * (len(stops) - 1)
    i = np.minimum(np.floor(x).astype(int), len(stops) - 2)
    f = (x - i)[:, None]
    return np.round(stops[i] * (1 - f) + stops[i + 1] * f).astype(np.uint8)
