"""The raw-Embree baseline every benchmark prints next to its figures.

"Raw Embree" is embreex's own loop (``EmbreeScene.run``, query ``OCCLUDED``) on arrays
already in Embree's frame and precision: no validation, no compaction, no Python per ray.
geom3d itself calls Embree through its C API from compiled code
(:mod:`geom3d.raycast._embree_capi`), so the baseline scene is built here, from the same
triangles and the same recentring offset as the engine's.
"""

from __future__ import annotations

import time

import numpy as np
from embreex import rtcore_scene
from embreex.mesh_construction import TriangleMesh

_SCENES: dict[int, object] = {}


def embreex_scene(vertices, faces, offset) -> object:
    """An embreex scene of a mesh, recentred by ``offset`` (the engine's)."""
    sc = rtcore_scene.EmbreeScene()
    vv = (np.asarray(vertices, dtype=np.float64) - offset).astype(np.float32)
    TriangleMesh(sc, vv, np.asarray(faces).astype(np.int32))
    sc.run(np.zeros((1, 3), np.float32), np.ones((1, 3), np.float32))  # commits the BVH
    return sc


def scene_baseline(scene) -> object:
    """:func:`embreex_scene` of a geom3d scene's blocking mesh (built once per scene)."""
    key = id(scene._built)
    if key not in _SCENES:
        b = scene._built.blocking
        _SCENES[key] = embreex_scene(b.vertices, b.faces, scene.engine._offset)
    return _SCENES[key]


def raw_seconds(emb, offset, o: np.ndarray, e: np.ndarray) -> float:
    """Seconds embreex takes for the occlusion of segments ``o -> e`` (mm)."""
    d = e - o
    length = np.linalg.norm(d, axis=1)
    start = (o - offset).astype(np.float32)
    unit = (d / length[:, None]).astype(np.float32)
    dist = length.astype(np.float32)
    t0 = time.perf_counter()
    emb.run(start, unit, dists=dist, query="OCCLUDED")
    return time.perf_counter() - t0


def raw_occluded(emb, offset, o: np.ndarray, e: np.ndarray) -> np.ndarray:
    """(n,) bool: embreex's occlusion of segments ``o -> e`` (mm)."""
    d = e - o
    length = np.linalg.norm(d, axis=1)
    start = (o - offset).astype(np.float32)
    unit = (d / length[:, None]).astype(np.float32)
    res = emb.run(start, unit, dists=length.astype(np.float32), query="OCCLUDED")
    return np.asarray(res) >= 0


def scene_raw_seconds(scene, o: np.ndarray, e: np.ndarray) -> float:
    """:func:`raw_seconds` on a geom3d scene's blocking mesh."""
    return raw_seconds(scene_baseline(scene), scene.engine._offset, o, e)
