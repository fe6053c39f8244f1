"""Routes as polylines: points by arc length, and where a predicate holds along them.

A route (SPEC 3.5) is a polyline of base-centre positions. :class:`RoutePath` gives the
point at a travel distance (arc length from the route's start, in 3D) and the segment it
lies on; :func:`scan_windows` finds the stretches of a route where a yes/no question
(Line of Fire, SPEC 12.5) is answered yes: sampled every ``ROUTE_WINDOW_STEP_MM`` (1 mm)
of travel, each window edge bisected until the yes end and the no end are at most
``ROUTE_REFINE_MM`` apart. The yes end is reported, so both ends of a window lie on the
route and have the answer yes. Only a window (or a gap between two windows) shorter than
the 1 mm step can fall between two samples unseen.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from geom3d.core.errors import InputError
from geom3d.core.tolerances import ROUTE_REFINE_MM, ROUTE_WINDOW_STEP_MM

__all__ = ["RoutePath", "resolve_fire_at", "scan_windows"]


@dataclass(frozen=True)
class RoutePath:
    """A route polyline.

    Attributes
    ----------
    points : (k, 3) float64, mm
        The route's vertices (base centres), ``k >= 1``.
    cum : (k,) float64, mm
        Arc length from the start to each vertex.
    """

    points: np.ndarray
    cum: np.ndarray

    @classmethod
    def of(cls, route) -> RoutePath:
        """From a trooper's ``route`` ((k, 3) sequence, mm)."""
        pts = np.array(route, dtype=np.float64).reshape(-1, 3)
        seg = np.linalg.norm(np.diff(pts, axis=0), axis=1) if len(pts) > 1 else np.zeros(0)
        return cls(pts, np.concatenate([[0.0], np.cumsum(seg)]))

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
        return pts[i] + f * (pts[i + 1] - pts[i]), i


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
