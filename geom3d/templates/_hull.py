"""The hull of two discs on one axis: the 2D geometry under every template shape.

Every template shape (a circle, or a teardrop: the convex hull of two circles on one
axis) is described by ``discs = (a0, r0, a1, r1)``: the centres (along the axis, measured
from the Blast Focus) and radii of two discs, ``r0 <= r1``. Every 2D question has a
closed form here: signed distance (an "uneven capsule"), closest point, support, the
half-width at an axis coordinate. :class:`DiscHull` turns them into the shape methods
that :class:`~geom3d.templates.CircleShape` and :class:`~geom3d.templates.TeardropShape`
share.

Private to :mod:`geom3d.templates`. Units: millimetres; angles in degrees,
counter-clockwise from +x.
"""

from __future__ import annotations

import math

import numpy as np
from shapely.geometry import Polygon

from geom3d.bodies.kernel_constants import GEOM_EPS_MM
from geom3d.core.errors import InputError
from geom3d.core.validation import as_point, as_points, require_positive
from geom3d.templates.tolerances import FOOTPRINT_MAX_ERROR_MM

__all__ = [
    "DiscHull",
    "closest_discs",
    "cos_sin_deg",
    "half_width",
    "hull_of_discs",
    "sd_discs",
    "support_discs",
]

#: Fewest segments per circle of a drawn polygon, whatever the error bound allows.
_MIN_SEGMENTS = 8


class DiscHull:
    """Geometry shared by circles and teardrops: the convex hull of two axis discs.

    Subclasses provide ``_discs`` = ``(a0, r0, a1, r1)`` (mm, ``r0 <= r1``) and ``height``.
    """

    @property
    def _discs(self) -> tuple[float, float, float, float]:  # pragma: no cover - overridden
        raise NotImplementedError

    @property
    def height(self) -> float:  # pragma: no cover - overridden
        raise NotImplementedError

    @property
    def area(self) -> float:
        """float, mm²: exact area of the 2D shape.

        For the hull of discs of radii ``r0 <= r1`` whose centres are ``h`` apart, with
        ``sin(alpha) = (r1 - r0) / h`` (the tilt of the tangent lines):
        ``(r0 + r1) h cos(alpha) + r1² (pi + 2 alpha) / 2 + r0² (pi - 2 alpha) / 2``
        (two right trapezoids between the centres and the tangent points, plus a
        sector of each circle).
        """
        a0, r0, a1, r1 = self._discs
        h = a1 - a0
        if h <= (r1 - r0) + GEOM_EPS_MM:
            return math.pi * r1 * r1
        alpha = math.asin((r1 - r0) / h)
        return (
            (r0 + r1) * h * math.cos(alpha)
            + 0.5 * r1 * r1 * (math.pi + 2.0 * alpha)
            + 0.5 * r0 * r0 * (math.pi - 2.0 * alpha)
        )

    @property
    def extent(self) -> tuple[float, float]:
        """(float, float), mm: the shape's range along its axis, from the Blast Focus."""
        a0, r0, a1, r1 = self._discs
        return (min(a0 - r0, a1 - r1), max(a0 + r0, a1 + r1))

    # -- local 2D queries ---------------------------------------------------------------
    def signed_distance(self, local_xy) -> np.ndarray:
        """Signed distance from points to the shape in its own frame.

        Parameters
        ----------
        local_xy : (n, 2) float, mm
            Points in the shape's frame: x along the axis from the Blast Focus, y to
            its left.

        Returns
        -------
        (n,) float, mm
            Exact Euclidean distance to the shape for points outside (> 0); <= 0 for
            points inside or on it (inside, the value is a lower bound on the depth).
        """
        p = as_points(local_xy, "local_xy", dim=2)
        return sd_discs(p[:, 0], p[:, 1], self._discs)

    def signed_distance_xy(self, x, y) -> np.ndarray:
        """:meth:`signed_distance` for coordinate arrays, unvalidated (the fast path).

        Parameters
        ----------
        x, y : array_like of float, mm, broadcastable to one shape
            Coordinates in the shape's frame: ``x`` along the axis from the Blast Focus,
            ``y`` to its left. Not checked for shape or finiteness.

        Returns
        -------
        float array, mm, of the broadcast shape of ``x`` and ``y``
            Exact Euclidean distance to the shape for points outside (> 0); <= 0 for
            points inside or on it (inside, the value is a lower bound on the depth).
        """
        return sd_discs(x, y, self._discs)

    def closest_point(self, local_xy) -> np.ndarray:
        """Closest point of the shape to each point (the point itself when inside).

        Parameters
        ----------
        local_xy : (n, 2) float, mm, shape frame

        Returns
        -------
        (n, 2) float, mm, shape frame
        """
        p = as_points(local_xy, "local_xy", dim=2)
        return closest_discs(p[:, 0], p[:, 1], self._discs)

    # -- plan view ----------------------------------------------------------------------
    def to_plan(self, local_xy, focus_xy, heading_deg: float) -> np.ndarray:
        """Map shape-frame points to plan coordinates.

        Parameters
        ----------
        local_xy : (n, 2) float, mm
        focus_xy : (2,) float, mm
            Blast Focus in plan.
        heading_deg : float
            Direction of the axis, degrees counter-clockwise from +x.

        Returns
        -------
        (n, 2) float, mm
        """
        p = as_points(local_xy, "local_xy", dim=2)
        f = as_point(focus_xy, "focus_xy", dim=2)
        c, s = cos_sin_deg(heading_deg)
        return np.column_stack((f[0] + c * p[:, 0] - s * p[:, 1], f[1] + s * p[:, 0] + c * p[:, 1]))

    def from_plan(self, xy, focus_xy, heading_deg: float) -> np.ndarray:
        """Inverse of :meth:`to_plan`: plan ``(n, 2)`` points to the shape frame."""
        p = as_points(xy, "xy", dim=2)
        f = as_point(focus_xy, "focus_xy", dim=2)
        c, s = cos_sin_deg(heading_deg)
        dx, dy = p[:, 0] - f[0], p[:, 1] - f[1]
        return np.column_stack((c * dx + s * dy, -s * dx + c * dy))

    def boundary(self, sections: int = 64) -> np.ndarray:
        """Convex polygon inscribed in the shape, counter-clockwise, in its frame.

        Each circle is sampled at ``sections`` equally spaced angles (starting on the
        axis); the hull of the samples is returned. Vertices lie on the circles, so the
        polygon lies inside the shape; the gap is at most the sagitta
        ``r (1 - cos(pi / sections))`` of the larger circle.

        Returns
        -------
        (m, 2) float, mm, without the closing repeat of the first vertex
        """
        if isinstance(sections, bool) or int(sections) != sections or sections < 3:
            raise InputError(f"sections must be an integer >= 3, got {sections!r}")
        return hull_of_discs(self._discs, [int(sections), int(sections)])

    def footprint(
        self, focus_xy, heading_deg: float = 0.0, *, max_error_mm: float = FOOTPRINT_MAX_ERROR_MM
    ) -> Polygon:
        """The shape placed in plan (or in its placement plane), as a shapely Polygon.

        The polygon is inscribed: it is the convex hull of points on the shape's two
        circles, so it lies inside the exact shape, and every point of the shape is
        within ``max_error_mm`` of it (each circle is split into enough segments that
        the sagitta ``r (1 - cos(pi / n))`` is at most ``max_error_mm``, and the hull of
        the two inscribed polygons is within that distance of the hull of the discs).
        Its area is short of :attr:`area` by at most ``perimeter * max_error_mm``. Use
        it for drawing and plan areas; contact decisions use the exact functions of
        :mod:`geom3d.templates`.

        Parameters
        ----------
        focus_xy : (2,) float, mm
            Blast Focus (circle: centre; teardrop: narrow end).
        heading_deg : float
            Axis direction, degrees counter-clockwise from +x (ignored by circles).
        max_error_mm : float
            Bound on the boundary gap, mm.

        Returns
        -------
        shapely.geometry.Polygon
        """
        err = require_positive(max_error_mm, "max_error_mm")
        counts = [_segments_for(r, err) for r in (self._discs[1], self._discs[3])]
        local = hull_of_discs(self._discs, counts)
        return Polygon(self.to_plan(local, focus_xy, heading_deg))

    def support_local(self, direction_xy) -> tuple[float, np.ndarray]:
        """Support value and point of the shape in a shape-frame direction.

        Parameters
        ----------
        direction_xy : (2,) float
            Need not be unit length.

        Returns
        -------
        value : float
            ``max(p · d)`` over the shape (mm times ``|d|``).
        point : (2,) float, mm
            A maximising point.
        """
        d = as_point(direction_xy, "direction_xy", dim=2)
        return support_discs(self._discs, float(d[0]), float(d[1]))


# --------------------------------------------------------------------------------------
# closed forms on ``discs = (a0, r0, a1, r1)``
# --------------------------------------------------------------------------------------


def cos_sin_deg(angle_deg: float) -> tuple[float, float]:
    """cos and sin of an angle in degrees, exact at multiples of 90."""
    a = float(angle_deg) % 360.0
    exact = {0.0: (1.0, 0.0), 90.0: (0.0, 1.0), 180.0: (-1.0, 0.0), 270.0: (0.0, -1.0)}
    if a in exact:
        return exact[a]
    r = math.radians(a)
    return math.cos(r), math.sin(r)


def sd_discs(x, y, discs) -> np.ndarray:
    """Signed distance to the hull of two axis discs (exact outside, sign-exact inside).

    The hull of discs ``(a0, r0)`` and ``(a1, r1)`` (``r0 <= r1``, centres ``h`` apart)
    is bounded by an arc of each circle and two tangent segments. Folding ``y`` to
    ``|y|`` and writing ``tau = (cos a, sin a)`` for the upper tangent's direction and
    ``n = (-sin a, cos a)`` for its outward normal (``sin a = (r1 - r0) / h``), the
    nearest boundary feature of an outside point ``p`` (relative to the small centre)
    is the small arc when ``p · tau < 0``, the big arc when ``p · tau > h cos a``, and the
    segment otherwise. Inside, the same formula has the right sign (the small centre
    is in the hull, so any ray from it leaves the hull through the small arc while
    ``p · tau < 0``).
    """
    a0, r0, a1, r1 = discs
    x = np.asarray(x, dtype=np.float64)
    y = np.abs(np.asarray(y, dtype=np.float64))
    h = a1 - a0
    if h <= (r1 - r0) + GEOM_EPS_MM:
        return np.hypot(x - a1, y) - r1
    sa = (r1 - r0) / h
    ca = math.sqrt(max(0.0, 1.0 - sa * sa))
    px = x - a0
    k = px * ca + y * sa
    d_small = np.hypot(px, y) - r0
    d_big = np.hypot(px - h, y) - r1
    d_seg = -px * sa + y * ca - r0
    return np.where(k < 0.0, d_small, np.where(k > h * ca, d_big, d_seg))


def closest_discs(x, y, discs) -> np.ndarray:
    """Closest point of the hull of two axis discs; ``(n, 2)``; inside points unchanged."""
    a0, r0, a1, r1 = discs
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    sgn = np.where(y < 0.0, -1.0, 1.0)
    ya = np.abs(y)
    sd = sd_discs(x, y, discs)

    def to_circle(cx, r):
        dx, dy = x - cx, ya
        n = np.hypot(dx, dy)
        safe = np.where(n > 0.0, n, 1.0)
        return np.where(n > 0.0, cx + r * dx / safe, cx), np.where(n > 0.0, r * dy / safe, 0.0)

    h = a1 - a0
    if h <= (r1 - r0) + GEOM_EPS_MM:
        qx, qy = to_circle(a1, r1)
    else:
        sa = (r1 - r0) / h
        ca = math.sqrt(max(0.0, 1.0 - sa * sa))
        px = x - a0
        k = px * ca + ya * sa
        sx, sy = to_circle(a0, r0)
        bx, by = to_circle(a1, r1)
        dseg = -px * sa + ya * ca - r0
        gx, gy = x + dseg * sa, ya - dseg * ca
        qx = np.where(k < 0.0, sx, np.where(k > h * ca, bx, gx))
        qy = np.where(k < 0.0, sy, np.where(k > h * ca, by, gy))
    inside = sd <= 0.0
    return np.column_stack((np.where(inside, x, qx), np.where(inside, y, sgn * qy)))


def support_discs(discs, dx: float, dy: float) -> tuple[float, np.ndarray]:
    """Support value and point of the hull of two axis discs in direction (dx, dy)."""
    a0, r0, a1, r1 = discs
    n = math.hypot(dx, dy)
    v0 = a0 * dx + r0 * n
    v1 = a1 * dx + r1 * n
    a, r, val = (a1, r1, v1) if v1 >= v0 else (a0, r0, v0)
    if n > 0.0:
        return val, np.array([a + r * dx / n, r * dy / n])
    return val, np.array([a, 0.0])


def half_width(discs, s: float) -> float:
    """Half-width of the hull of two axis discs at axis coordinate ``s`` (concave in s)."""
    a0, r0, a1, r1 = discs
    h = a1 - a0
    if h <= (r1 - r0) + GEOM_EPS_MM:
        return math.sqrt(max(0.0, r1 * r1 - (s - a1) ** 2))
    sa = (r1 - r0) / h
    ca = math.sqrt(max(0.0, 1.0 - sa * sa))
    if s <= a0 - r0 * sa:
        return math.sqrt(max(0.0, r0 * r0 - (s - a0) ** 2))
    if s >= a1 - r1 * sa:
        return math.sqrt(max(0.0, r1 * r1 - (s - a1) ** 2))
    return (r0 + sa * (s - a0)) / ca


def hull_of_discs(discs, counts) -> np.ndarray:
    """Convex hull (CCW, no repeat) of circle samples of both discs, shape frame.

    ``counts`` gives the samples per circle; a disc of radius 0 is its centre.
    """
    a0, r0, a1, r1 = discs
    pts = []
    for (a, r), n in zip(((a0, r0), (a1, r1)), counts, strict=True):
        if r <= 0.0:
            pts.append(np.array([[a, 0.0]]))
            continue
        th = 2.0 * np.pi * np.arange(n) / n
        pts.append(np.column_stack((a + r * np.cos(th), r * np.sin(th))))
    return _convex_hull_2d(np.vstack(pts))


def _segments_for(r: float, max_error: float) -> int:
    """Segments per full circle so that the sagitta ``r (1 - cos(pi / n))`` <= max_error."""
    if r <= max_error:
        return _MIN_SEGMENTS
    n = math.ceil(math.pi / math.acos(1.0 - max_error / r))
    return max(_MIN_SEGMENTS, n)


def _convex_hull_2d(points: np.ndarray) -> np.ndarray:
    """Andrew's monotone chain; CCW vertices without collinear points or repeats."""
    pts = sorted({(float(x), float(y)) for x, y in points})
    if len(pts) <= 2:
        return np.asarray(pts)

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower: list = []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    upper: list = []
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return np.asarray(lower[:-1] + upper[:-1])
