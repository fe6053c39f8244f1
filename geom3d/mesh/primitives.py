"""Plain numpy meshes of primitives (no trimesh): the scenario ``box``."""

from __future__ import annotations

import numpy as np

__all__ = ["box_mesh"]


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
