"""Routes as polylines: points by arc length, and where a predicate holds along them.

A route (SPEC 3.5) is a polyline of base-centre positions. :class:`RoutePath` gives the
point at a travel distance (arc length from the route's start, in 3D) and the segment it
lies on; :func:`scan_windows` finds the stretches of a route where a yes/no question
(Line of Fire, SPEC 12.5) is answered yes: sampled every ``ROUTE_WINDOW_STEP_MM`` (1 mm)
of travel, each window edge bisected until the yes end and the no end are at most
``ROUTE_REFINE_MM`` apart. The yes end is reported, so both ends of a window lie on the
route and have the answer yes. Only a window (or a gap between two windows) shorter than
the 1 mm step can fall between two samples unseen.

Routes follow the ground (SPEC 13.1): between two route points given as ``[x, y]`` (both
dropped onto the table), every position a command uses (windows, ``fire_at``, templates) stands by
the 12.2 rule at that position (:func:`route_path`), not at a height interpolated between
the points, so a runner crossing a ridge goes over it. Templates along a route
(:mod:`geom3d.rules.infinity.routes`) stand their positions the same way
(:meth:`RoutePath.stretch`). A stretch with an explicit ``z`` at
either end keeps the straight line between its points.
"""

from __future__ import annotations

import itertools
import math
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from geom3d.core.errors import InputError
from geom3d.core.tolerances import ROUTE_REFINE_MM, ROUTE_WINDOW_STEP_MM

__all__ = ["RoutePath", "resolve_fire_at", "route_path", "scan_windows"]


@dataclass(frozen=True)
class RoutePath:
    """A route polyline.

    Attributes
    ----------
    points : (k, 3) float64, mm
        The route's vertices (base centres), ``k >= 1``.
    cum : (k,) float64, mm
        Arc length from the start to each vertex.
    ground : callable((x, y)) -> z, optional
        Where a base standing at ``(x, y)`` rests (SPEC 12.2), for stretches that follow
        the ground.
    follows : (k - 1,) tuple of bool
        Which stretches follow the ground (both their ends were dropped); the others are
        straight lines.
    """

    points: np.ndarray
    cum: np.ndarray
    ground: Callable[[float, float], float] | None = field(default=None, compare=False)
    follows: tuple[bool, ...] = ()

    @classmethod
    def of(cls, route, ground=None, dropped=None) -> RoutePath:
        """From a trooper's ``route`` ((k, 3) sequence, mm); ``ground`` and ``dropped``
        ((k,) bool: the points given ``[x, y]``) make the stretches between two dropped
        points follow the ground."""
        pts = np.array(route, dtype=np.float64).reshape(-1, 3)
        seg = np.linalg.norm(np.diff(pts, axis=0), axis=1) if len(pts) > 1 else np.zeros(0)
        follows: tuple[bool, ...] = ()
        if ground is not None and dropped is not None and len(dropped) == len(pts):
            follows = tuple(bool(a and b) for a, b in itertools.pairwise(dropped))
        return cls(pts, np.concatenate([[0.0], np.cumsum(seg)]), ground, follows)

    @property
    def length(self) -> float:
        """Total arc length, mm."""
        return float(self.cum[-1])

    def at(self, s: float) -> tuple[np.ndarray, int]:
        """The point at travel distance ``s`` mm ((3,) float64) and its segment index
        (segment ``i`` runs from vertex ``i`` to ``i + 1``; the last vertex has the last
        index). ``s`` is clamped to the route."""
        pts, cum = self.points, self.cum
        if len(pts) == 1 or s <= 0:
            return pts[0], 0
        if s >= cum[-1]:
            return pts[-1], len(pts) - 1
        i = int(np.searchsorted(cum, s, side="right") - 1)
        seg_len = cum[i + 1] - cum[i]
        f = 0.0 if seg_len == 0 else (s - cum[i]) / seg_len
        p = pts[i] + f * (pts[i + 1] - pts[i])
        if self.ground is not None and i < len(self.follows) and self.follows[i] and 0 < f:
            p = np.array([p[0], p[1], self.ground(float(p[0]), float(p[1]))])
        return p, i

    def stretch(self, i: int, ts) -> np.ndarray:
        """Positions at fractions ``ts`` ((n,) float in [0, 1]) of stretch ``i`` (from vertex
        ``i`` to ``i + 1``), (n, 3) float64 mm: on a stretch that follows the ground, each
        inner position stands by SPEC 12.2 (as :meth:`at` places it; all of them dropped
        in one batch), the ends keep their vertices' heights; else the straight line."""
        t = np.asarray(ts, np.float64).reshape(-1)
        a, b = self.points[i], self.points[min(i + 1, len(self.points) - 1)]
        p = a[None, :] + t[:, None] * (b - a)[None, :]
        if self.ground is not None and i < len(self.follows) and self.follows[i]:
            inner = (t > 0) & (t < 1)
            if inner.any():
                p[inner, 2] = _heights(self.ground, p[inner, :2])
            p[t >= 1] = b
        return p


def route_path(scene, trooper) -> RoutePath:
    """``trooper``'s route on ``scene``, standing by SPEC 12.2 at every position of a
    stretch between two dropped points (the trooper's own base radius; each position
    dropped once, then remembered with the scene's surface)."""
    dropped = getattr(trooper, "route_dropped", None)
    if not dropped or not any(dropped):
        return RoutePath.of(trooper.route)
    return RoutePath.of(trooper.route, _ground_of(scene, trooper.radius), dropped)


class _StandOn:
    """Where a base of one radius rests at ``(x, y)`` on a scene's surface (SPEC 12.2),
    remembered per position; :meth:`many` drops a batch in one call."""

    def __init__(self, surface, radius: float) -> None:
        self.surface = surface
        self.radius = radius
        self.memo = _GROUND_MEMO.setdefault(surface, {})

    def __call__(self, x: float, y: float) -> float:
        return float(self.many(np.array([[x, y]], np.float64))[0])

    def many(self, xy: np.ndarray) -> np.ndarray:
        """(n,) float64 mm: the resting heights at ``xy`` ((n, 2) float64 mm)."""
        keys = [(float(x), float(y), self.radius) for x, y in xy]
        todo = [k for k in dict.fromkeys(keys) if k not in self.memo]
        if todo:
            z = self.surface.rest([k[:2] for k in todo], [self.radius] * len(todo))[0]
            self.memo.update(zip(todo, (float(v) for v in z), strict=True))
        return np.array([self.memo[k] for k in keys], np.float64)


def _heights(ground: Callable[[float, float], float], xy: np.ndarray) -> np.ndarray:
    many = getattr(ground, "many", None)
    if many is not None:
        return many(xy)
    return np.array([ground(float(x), float(y)) for x, y in xy], np.float64)


def _ground_of(scene, radius: float) -> Callable[[float, float], float]:
    return _StandOn(scene.surface, radius)


#: Per standing surface (kept alive with it): resting heights already found, by position
#: and radius (a window's bisection asks the same positions from both ends of a pair).
_GROUND_MEMO: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def scan_windows(holds: Callable[[float], bool], total: float) -> list[tuple[float, float]]:
    """Stretches of ``[0, 1]`` (fractions of a route) where ``holds`` is true.

    Parameters
    ----------
    holds : callable(fraction) -> bool
        The question at a fraction of the route (called once per sample or bisection
        step; fractions ``k / n`` of the sampling are passed exactly).
    total : float, mm
        The travel the fractions stand for (the longest route involved): the sampling
        step is ``ROUTE_WINDOW_STEP_MM`` of it and edges are refined to
        ``ROUTE_REFINE_MM``.

    Returns
    -------
    list of (lo, hi)
        Fractions, ``lo <= hi``, in route order; ``holds`` is true at both (the ends of
        the sampled run of yes, moved outwards by bisection towards the neighbouring
        no samples).
    """
    n = max(1, math.ceil(total / ROUTE_WINDOW_STEP_MM)) if total > 0 else 0
    fracs = [k / n for k in range(n + 1)] if n else [0.0]
    yes = [bool(holds(f)) for f in fracs]

    def edge(inside: float, outside: float) -> float:
        # bisect until the yes end and the no end are at most ROUTE_REFINE_MM apart
        while abs(inside - outside) * total > ROUTE_REFINE_MM:
            mid = 0.5 * (inside + outside)
            if holds(mid):
                inside = mid
            else:
                outside = mid
        return inside

    out = []
    k = 0
    while k < len(yes):
        if not yes[k]:
            k += 1
            continue
        j = k
        while j + 1 < len(yes) and yes[j + 1]:
            j += 1
        lo = fracs[k] if k == 0 else edge(fracs[k], fracs[k - 1])
        hi = fracs[j] if j == len(yes) - 1 else edge(fracs[j], fracs[j + 1])
        out.append((lo, hi))
        k = j + 1
    return out


def resolve_fire_at(fire_at, path: RoutePath, field: str) -> float:
    """The arc length (mm) ``fire_at`` names on ``path``: a number is an arc length from
    the route's start (0 to the route's length), ``{"index": i}`` a route point.

    Raises InputError (naming ``field``) for a value off the route."""
    if isinstance(fire_at, dict):
        i = fire_at["index"]
        if not 0 <= i < len(path.points):
            raise InputError(
                f"{field}: route point index {i} out of range (the route has "
                f"{len(path.points)} points)"
            )
        return float(path.cum[i])
    s = float(fire_at)
    if not (math.isfinite(s) and 0.0 <= s <= path.length + 1e-9):
        raise InputError(f"{field}: arc length {s:g} mm is off the route (0 to {path.length:g} mm)")
    return min(s, path.length)
