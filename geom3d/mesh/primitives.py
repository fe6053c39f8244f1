"""Plain numpy meshes of primitives (no trimesh): the scenario ``box``, a zone's prism."""

from __future__ import annotations

import numpy as np

__all__ = ["box_mesh", "prism_mesh"]


def box_mesh(size) -> tuple[np.ndarray, np.ndarray]:
    """A closed box with its local origin at the centre of its bottom face.

    The one box mesh of geom3d: the scenario ``box`` primitive (:mod:`geom3d.scene.scene`) and
    :func:`geom3d.terrain.box` are built from it.

    Parameters
    ----------
    size : (3,) float, mm

    Returns
    -------
    vertices : (8, 3) float64, mm
    faces : (12, 3) int64, outward-facing (counter-clockwise seen from outside)
    """
    sx, sy, sz = (float(s) for s in size)
    x, y = 0.5 * sx, 0.5 * sy
    v = np.array(
        [
            [-x, -y, 0],
            [x, -y, 0],
            [x, y, 0],
            [-x, y, 0],
            [-x, -y, sz],
            [x, -y, sz],
            [x, y, sz],
            [-x, y, sz],
        ],
        dtype=np.float64,
    )
    f = np.array(
        [
            [0, 2, 1], [0, 3, 2],  # bottom
            [4, 5, 6], [4, 6, 7],  # top
            [0, 1, 5], [0, 5, 4],  # -y
            [1, 2, 6], [1, 6, 5],  # +x
            [2, 3, 7], [2, 7, 6],  # +y
            [3, 0, 4], [3, 4, 7],  # -x
        ],
        dtype=np.int64,
    )  # fmt: skip
    return v, f


def prism_mesh(polygon, height: float) -> tuple[np.ndarray, np.ndarray]:
    """A closed upright prism: a simple polygon extruded from z = 0 to ``height``.

    Parameters
    ----------
    polygon : (n, 2) float, mm
        A simple polygon (either orientation, no repeated closing point); it may be
        non-convex. Its caps are split into triangles by a constrained Delaunay
        triangulation (the edges of the polygon are kept).
    height : float, mm

    Returns
    -------
    vertices : (2n, 3) float64, mm
        The bottom ring (z = 0), then the top ring.
    faces : (m, 3) int64, outward-facing
    """
    import shapely
    from shapely.geometry import Polygon

    p = np.asarray(polygon, dtype=np.float64).reshape(-1, 2)
    n = len(p)
    x, y = p[:, 0], p[:, 1]
    if float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y)) < 0:  # make it CCW
        p = p[::-1].copy()
    index = {(float(a), float(b)): i for i, (a, b) in enumerate(p)}
    tris = shapely.constrained_delaunay_triangles(Polygon(p))
    top = []
    for t in getattr(tris, "geoms", []):
        c = np.asarray(t.exterior.coords)[:3]
        ids = [index[(float(a), float(b))] for a, b in c]
        cross = (c[1, 0] - c[0, 0]) * (c[2, 1] - c[0, 1]) - (c[1, 1] - c[0, 1]) * (
            c[2, 0] - c[0, 0]
        )
        top.append(ids if cross > 0 else ids[::-1])
    top_f = np.asarray(top, dtype=np.int64).reshape(-1, 3) + n
    bottom_f = (top_f - n)[:, ::-1]
    i = np.arange(n)
    j = (i + 1) % n
    sides = np.concatenate([np.column_stack((i, j, j + n)), np.column_stack((i, j + n, i + n))])
    v = np.concatenate(
        [np.column_stack((p, np.zeros(n))), np.column_stack((p, np.full(n, height)))]
    )
    return v, np.concatenate([bottom_f, top_f, sides]).astype(np.int64)
