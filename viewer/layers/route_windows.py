"""Route windows (SPEC 12.5): the stretches of a moving trooper's route where Line of
Fire exists, drawn in **lanes** beside the route: one lane per other trooper (the one
it trades Line of Fire with), parallel to the route on its left, each in its own colour,
a thin track along the whole route and the windows thick on it. The plan view
(:mod:`viewer.plan`) spaces the lanes in pixels (:data:`LANE_GAP_PX` between two) and
names each lane at its end (a label in the lane's colour), so seven troopers watching
one route are seven lanes side by side, not seven colours on one line; other views draw
the lanes :func:`lane_step_mm` apart.

Each actor's ``meta`` says where its lane is: ``lane`` (1 next to the route, 2 beyond,
...), ``mover``, ``other`` and ``paths`` (the un-shifted stretches, lists of [x, y, z]
mm), so a renderer can lay the lanes out at its own scale (:func:`beside`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyvista as pv

from viewer import palette as pal
from viewer import shapes as sh
from viewer.model import ActorSpec, Drawing

__all__ = [
    "LANE_GAP_PX",
    "LANE_WIDTH",
    "WINDOW_COLORS",
    "beside",
    "lane_step_mm",
    "route_window_actors",
]

#: One colour per other trooper, in order of first appearance: the Okabe-Ito colours
#: that are not a side's (blue, orange), the Line of Fire's (bluish green, sky blue) or
#: too light to read as text on the table (yellow), then Paul Tol's indigo, olive, wine
#: and a brown: eight lanes before a colour repeats (each lane is also named at its end).
WINDOW_COLORS: tuple[str, ...] = (
    pal.OKABE_ITO["vermillion"],
    pal.OKABE_ITO["reddish_purple"],
    pal.OKABE_ITO["black"],
    "#332288",
    "#999933",
    "#882255",
    "#8C510A",
    "#5D6D7E",
)
#: Line width of a window (px at 1200 px image height, as every ``line_width``); the
#: lane's track along the whole route is ``TRACK_WIDTH``.
LANE_WIDTH = 4.0
TRACK_WIDTH = 1.0
#: Opacity of a lane's track (where the trooper has no Line of Fire).
TRACK_OPACITY = 0.45
#: Clear pixels between two lanes' windows in the plan view (at any image size).
LANE_GAP_PX = 2.0
#: Lanes in 3D views: this far apart (mm), at least ``_STEP_MM``, more on a large table.
_STEP_MM = 2.5
_STEP_SHARE = 0.004
#: A lane's offset at a sharp corner of the route is mitred up to this many lane steps.
_MITRE_LIMIT = 4.0


def lane_step_mm(scene) -> float:
    """The distance (mm) between two lanes in views that are not the plan."""
    size = getattr(scene.scenario, "table_size", None)
    return max(_STEP_MM, _STEP_SHARE * float(np.hypot(*size))) if size else _STEP_MM


def _stretch(route: np.ndarray, cum: np.ndarray, s0: float, s1: float) -> np.ndarray:
    """The route between arc lengths ``s0 <= s1`` ((k, 3) float, mm), its vertices
    inside the stretch included."""

    def at(s: float) -> np.ndarray:
        if len(route) == 1 or s <= 0:
            return route[0]
        if s >= cum[-1]:
            return route[-1]
        i = int(np.searchsorted(cum, s, side="right") - 1)
        seg = cum[i + 1] - cum[i]
        f = 0.0 if seg == 0 else (s - cum[i]) / seg
        return route[i] + f * (route[i + 1] - route[i])

    inner = [route[k] for k in range(len(route)) if s0 < cum[k] < s1]
    return np.array([at(s0), *inner, at(s1)], dtype=float)


def beside(pts: np.ndarray, shift: float) -> np.ndarray:
    """``pts`` ((k, >= 2) float) moved ``shift`` to the left of the polyline's direction
    in plan: each segment parallel to its own, joined mitred at the vertices (up to
    ``_MITRE_LIMIT`` times ``shift``), so two lanes stay ``|shift_1 - shift_2|`` apart
    along straight stretches and around corners alike."""
    pts = np.asarray(pts, dtype=float)
    if shift == 0 or len(pts) < 2:
        return pts.copy()
    d = np.diff(pts[:, :2], axis=0)
    n = np.linalg.norm(d, axis=1, keepdims=True)
    keep = n[:, 0] > 0
    if not keep.any():
        return pts.copy()
    d = d[keep] / n[keep]
    left = np.column_stack([-d[:, 1], d[:, 0]])  # each segment's left normal
    # per vertex: the normals of the segments before and after it (zero-length ones
    # take their neighbours')
    seg_of = np.cumsum(np.concatenate([[0], keep.astype(int)]))  # segment index after
    before = left[np.clip(seg_of - 1, 0, len(left) - 1)]
    after = left[np.clip(seg_of, 0, len(left) - 1)]
    m = before + after
    mn = np.linalg.norm(m, axis=1, keepdims=True)
    m = np.where(mn > 1e-12, m / np.where(mn > 1e-12, mn, 1.0), after)
    cos_half = np.einsum("ij,ij->i", m, after)[:, None]
    scale = 1.0 / np.maximum(cos_half, 1.0 / _MITRE_LIMIT)
    out = pts.copy()
    out[:, :2] += shift * scale * m
    return out


def route_window_actors(scene, pairs: Sequence[dict]) -> Drawing:
    """The exposed stretches of every route in ``pairs`` (``geom3d lof`` pair dicts).

    A pair ``A -> B`` whose ``route`` has ``windows`` draws those stretches of the
    mover's route in the lane of the other trooper (B, or A when B is the mover): the
    stretches where the two trade Line of Fire in that direction. Both directions of a
    pair share the lane. Lanes are numbered per route, in order of first appearance.
    """
    d = Drawing(title="route windows")
    colors: dict[str, str] = {}
    lanes: dict[str, list[str]] = {}  # mover -> the others, in lane order
    stretches: dict[tuple[str, str], list[np.ndarray]] = {}
    routes: dict[str, np.ndarray] = {}
    for p in pairs:
        r = p.get("route")
        if not r or not r.get("windows"):
            continue
        mover = r["mover"]
        if mover not in scene.troopers or scene.troopers[mover].route is None:
            continue
        other = p["to"] if p["from"] == mover else p["from"]
        if other not in colors:
            colors[other] = WINDOW_COLORS[len(colors) % len(WINDOW_COLORS)]
        if other not in lanes.setdefault(mover, []):
            lanes[mover].append(other)
        route = np.array(scene.troopers[mover].route, dtype=float)
        routes[mover] = route
        cum = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(route, axis=0), axis=1))])
        for w in r["windows"]:
            pts = _stretch(route, cum, float(w["from_mm"]), float(w["to_mm"]))
            stretches.setdefault((mover, other), []).append(pts)
    step = lane_step_mm(scene)
    lift = np.array([0.0, 0.0, 0.8])
    for mover, others in lanes.items():
        for j, other in enumerate(others, start=1):
            meta = {"lane": j, "mover": mover, "other": other}
            track = routes[mover]
            d.actors.append(
                ActorSpec(
                    f"route-lane:{mover}:{other}",
                    "rays",
                    sh.polyline(beside(track, j * step) + lift),
                    colors[other],
                    TRACK_OPACITY,
                    line_width=TRACK_WIDTH,
                    lighting=False,
                    meta={**meta, "paths": [track.tolist()], "track": True},
                )
            )
            paths = stretches[(mover, other)]
            meshes = []
            for pts in paths:
                q = beside(pts, j * step) + lift
                if len(q) >= 2 and np.ptp(q, axis=0).max() > 0:
                    meshes.append(sh.polyline(q))
                else:  # a window of one point: a dot
                    meshes.append(sh.polyline(np.vstack([q[:1], q[:1] + [1e-3, 0, 0]])))
            d.actors.append(
                ActorSpec(
                    f"route-window:{mover}:{other}",
                    "rays",
                    pv.merge(meshes) if len(meshes) > 1 else meshes[0],
                    colors[other],
                    line_width=LANE_WIDTH,
                    lighting=False,
                    meta={**meta, "paths": [p.tolist() for p in paths]},
                )
            )
    for other, color in colors.items():
        d.add_legend(f"route with LoF to/from {other}", color, "line")
    for mover, others in lanes.items():
        d.notes.append(f"lanes beside {mover}'s route, from the route out: " + ", ".join(others))
    return d
