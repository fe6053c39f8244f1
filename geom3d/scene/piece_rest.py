"""How a scenery piece rests on what is under it (SPEC 11.1, step 2 of
:func:`geom3d.scene.scenery.build_scenery`).

A piece given ``position: [x, y]`` is dropped so that its lowest point rests on the highest
*ground* beneath its footprint (:func:`place_piece`). A piece with an explicit z is only
measured: sinking into the ground beyond :data:`PIECE_REST_TOL_MM` is warned about there,
and it *floats* (:func:`floating_message`) only when nothing lies within that tolerance
under it (the ground or another piece) or against it (a balcony fixed to a wall).
"""

from __future__ import annotations

import numpy as np

from geom3d.core.messages import Message, warning
from geom3d.raycast import make_engine
from geom3d.scenario import SceneryItem
from geom3d.scene.tolerances import DROP_PROBE_HEIGHT_MM, PIECE_FOOTPRINT_SAMPLES, PIECE_REST_TOL_MM

__all__ = ["Ground", "floating_message", "place_piece"]


class Ground:
    """Height of the ground (table mesh, z = 0 elsewhere / without one) under points."""

    def __init__(self, v: np.ndarray | None, f: np.ndarray | None) -> None:
        self.engine = make_engine(v, f) if v is not None and f is not None and len(f) else None

    def __call__(self, xy: np.ndarray) -> np.ndarray:
        xy = np.asarray(xy, np.float64).reshape(-1, 2)
        z = np.zeros(len(xy))
        if self.engine is None or not len(xy):
            return z
        b = self.engine.bounds
        top, bot = b[1, 2] + DROP_PROBE_HEIGHT_MM, b[0, 2] - DROP_PROBE_HEIGHT_MM
        o = np.column_stack([xy, np.full(len(xy), top)])
        e = np.column_stack([xy, np.full(len(xy), bot)])
        dist, tri = self.engine.first_hit(o, e)
        hit = tri >= 0
        z[hit] = top - dist[hit]
        return z


def _footprint(v: np.ndarray, f: np.ndarray, ground: Ground, grid: bool = False):
    """Probe points under a piece: (xy (k, 2), piece's lowest z (k,), ground z (k,)).

    The piece's vertices, plus (over a table mesh, or when ``grid``) its underside on a
    grid over its footprint.
    """
    xy = v[:, :2]
    low = v[:, 2]
    if ground.engine is None and not grid:  # flat ground z = 0: the vertices say it all
        return xy, low, np.zeros(len(low))
    lo, hi = xy.min(axis=0), xy.max(axis=0)
    n = PIECE_FOOTPRINT_SAMPLES
    gx = np.linspace(lo[0], hi[0], n)
    gy = np.linspace(lo[1], hi[1], n)
    g = np.stack(np.meshgrid(gx, gy, indexing="ij"), axis=-1).reshape(-1, 2)
    eng = make_engine(v, f)
    zb, zt = eng.bounds[0, 2] - 1.0, eng.bounds[1, 2] + 1.0
    dist, tri = eng.first_hit(
        np.column_stack([g, np.full(len(g), zb)]), np.column_stack([g, np.full(len(g), zt)])
    )
    hit = tri >= 0
    pts = np.concatenate([xy, g[hit]])
    low = np.concatenate([low, zb + dist[hit]])
    return pts, low, ground(pts)


def place_piece(item: SceneryItem, v, f, ground: Ground, rep) -> np.ndarray:
    """Drop a ``[x, y]`` piece onto the ground, or measure how an explicit-z piece rests.

    A sunk piece is warned about here; a piece above the ground is only measured
    (``rep.rest_gap_mm``): whether it floats depends on the other pieces
    (:func:`floating_message`).

    Parameters
    ----------
    item : SceneryItem
    v : (n, 3) float64, mm
        The piece's vertices, placed (:func:`geom3d.scene.scenery.transform`).
    f : (m, 3) int64
    ground : Ground
    rep : geom3d.scene.scenery.PieceReport
        Gets ``dropped_mm`` or ``rest_gap_mm`` (negative: sunk by that much), and the
        sinking warning in ``messages``.

    Returns
    -------
    (n, 3) float64, mm
        The vertices, dropped onto the ground for a ``[x, y]`` piece.
    """
    if not len(f):
        return v
    _, low, gz = _footprint(v, f, ground)
    if item.drop:
        dz = float(np.max(gz - low))
        v = v + np.array([0.0, 0.0, dz])
        rep.dropped_mm = float(item.position[2] + dz)
        rep.rest_gap_mm = 0.0
        return v
    gap = float(np.min(low - gz))  # negative: sunk by that much
    sink = -gap
    rep.rest_gap_mm = gap
    if sink > PIECE_REST_TOL_MM:
        rep.messages.append(
            warning(
                f"sinks {sink:.1f} mm into the surface under it (explicit z = "
                f"{item.position[2]:g} mm; give position [x, y] to rest it on the surface)"
            )
        )
    return v


_AXES = np.eye(3)

#: Slack (mm) on the touch probes' reach, for Embree's float32 arithmetic.
_TOUCH_SLACK_MM = 1e-3


def _near(engine, pts: np.ndarray, reach: float) -> bool:
    """Whether any of ``pts`` (k, 3) has ``engine``'s surface within ``reach`` mm along an
    axis (axis-parallel probes through each point)."""
    if not len(pts) or engine.n_triangles == 0:
        return False
    p = np.repeat(pts, 3, axis=0)
    d = np.tile(_AXES * reach, (len(pts), 1))
    o, e = p - d, p + d  # through the point: a surface exactly at it is met too
    return bool(np.any(engine.occluded(o, e)))


def floating_message(k: int, item: SceneryItem, parts, ground: Ground, rep) -> Message | None:
    """ "floats ..." for explicit-z piece ``k`` when nothing is under it or against it.

    The surface under the piece is the table (mesh or z = 0) and every other scenery
    piece: the gap is the smallest drop from the piece's underside (vertices and a grid
    over its footprint) to whatever lies under it. A piece touching another piece within
    :data:`PIECE_REST_TOL_MM` (a balcony fixed to a wall) is held by it, not floating.
    """
    tol = PIECE_REST_TOL_MM
    v, f = parts[k][0], parts[k][1]
    if rep.rest_gap_mm is None or rep.rest_gap_mm <= tol or not len(f):
        return None
    pts, low, gz = _footprint(v, f, ground, grid=True)
    gap = low - gz
    ov = [p[0] for j, p in enumerate(parts) if j != k and len(p[1])]
    if ov:
        of, off = [], 0
        for j, p in enumerate(parts):
            if j != k and len(p[1]):
                of.append(p[1] + off)
                off += len(p[0])
        ov_all, of_all = np.concatenate(ov), np.concatenate(of)
        others = make_engine(ov_all, of_all)
        top = low + tol
        o = np.column_stack([pts, top])
        e = np.column_stack([pts, top - (gap + tol + 1.0)])
        dist, tri = others.first_hit(o, e)
        hit = tri >= 0
        hz = top[hit] - dist[hit]
        t = ov_all[of_all[tri[hit]]]  # refine in float64 on the plane (Embree: float32)
        n = np.cross(t[:, 1] - t[:, 0], t[:, 2] - t[:, 0])
        flat = np.abs(n[:, 2]) > 1e-9 * np.linalg.norm(n, axis=1)
        q = pts[hit]
        pz = t[:, 0, 2] - (n[:, 0] * (q[:, 0] - t[:, 0, 0]) + n[:, 1] * (q[:, 1] - t[:, 0, 1])) / (
            np.where(flat, n[:, 2], 1.0)
        )
        hz = np.where(flat & (np.abs(pz - hz) < 1e-2), pz, hz)
        gap[hit] = np.minimum(gap[hit], low[hit] - hz)
        if float(np.min(gap)) > tol:
            lo, hi = v.min(axis=0) - tol, v.max(axis=0) + tol
            near = ov_all[np.all((ov_all >= lo) & (ov_all <= hi), axis=1)]
            reach = tol + _TOUCH_SLACK_MM  # rays are float32: exactly 1 mm still touches
            if _near(others, v, reach) or _near(make_engine(v, f), near, reach):
                return None
    g = float(np.min(gap))
    if g <= tol:
        return None
    return warning(
        f"floats {g:.1f} mm above the surface under it (explicit z = "
        f"{item.position[2]:g} mm; give position [x, y] to rest it on the surface)"
    )
