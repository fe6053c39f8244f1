"""Route windows (SPEC 12.5): the stretches of a moving trooper's route where Line of
Fire exists, drawn over the route, one colour per other trooper (the enemy it trades
Line of Fire with), each further colour shifted sideways (in plan) so that
overlapping stretches stay visible."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyvista as pv

from viewer import palette as pal
from viewer import shapes as sh
from viewer.model import ActorSpec, Drawing

__all__ = ["WINDOW_COLORS", "route_window_actors"]

#: One colour per other trooper, in order of first appearance.
#: (Not the green of the LoF lines, not the side colours blue and orange.)
WINDOW_COLORS: tuple[str, ...] = (
    pal.OKABE_ITO["vermillion"],
    pal.OKABE_ITO["reddish_purple"],
    pal.OKABE_ITO["sky_blue"],
    pal.OKABE_ITO["black"],
    pal.OKABE_ITO["yellow"],
)
#: Each further colour is drawn this far to the side of the route (plan), at least
#: ``_SHIFT_MM``, more on a large table so that it stays visible.
_SHIFT_MM = 2.5
_SHIFT_SHARE = 0.004


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


def _beside(pts: np.ndarray, shift: float) -> np.ndarray:
    """``pts`` moved ``shift`` mm to the left of the polyline's direction, in plan."""
    if shift == 0 or len(pts) < 2:
        return pts
    d = np.diff(pts[:, :2], axis=0)
    n = np.linalg.norm(d, axis=1, keepdims=True)
    d = np.where(n > 0, d / np.where(n > 0, n, 1.0), 0.0)
    t = np.vstack([d[:1], d[:-1] + d[1:], d[-1:]])  # direction at each point
    tn = np.linalg.norm(t, axis=1, keepdims=True)
    t = np.where(tn > 0, t / np.where(tn > 0, tn, 1.0), 0.0)
    out = pts.copy()
    out[:, 0] -= shift * t[:, 1]
    out[:, 1] += shift * t[:, 0]
    return out


def route_window_actors(scene, pairs: Sequence[dict]) -> Drawing:
    """The exposed stretches of every route in ``pairs`` (``geom3d lof`` pair dicts).

    A pair ``A -> B`` whose ``route`` has ``windows`` colours those stretches of the
    mover's route with B's colour (or A's when B is the mover): the stretches where the
    two trade Line of Fire in that direction. Both directions of a pair are drawn.
    """
    d = Drawing(title="route windows")
    colors: dict[str, str] = {}
    size = getattr(scene.scenario, "table_size", None)
    step = max(_SHIFT_MM, _SHIFT_SHARE * float(np.hypot(*size))) if size else _SHIFT_MM
    parts: dict[tuple[str, str], list] = {}
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
        shift = step * list(colors).index(other)
        route = np.array(scene.troopers[mover].route, dtype=float)
        cum = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(route, axis=0), axis=1))])
        for w in r["windows"]:
            pts = _stretch(route, cum, float(w["from_mm"]), float(w["to_mm"]))
            pts = _beside(pts, shift) + np.array([0.0, 0.0, 0.8])
            if len(pts) >= 2 and np.ptp(pts, axis=0).max() > 0:
                parts.setdefault((mover, other), []).append(sh.polyline(pts))
            parts.setdefault((mover, other), []).append(sh.spheres(pts[[0, -1]], 2.0))
    for (mover, other), meshes in parts.items():
        d.actors.append(
            ActorSpec(
                f"route-window:{mover}:{other}",
                "rays",
                pv.merge(meshes),
                colors[other],
                line_width=6.0,
                lighting=False,
            )
        )
    for other, color in colors.items():
        d.add_legend(f"route with LoF to/from {other}", color, "line")
    return d
