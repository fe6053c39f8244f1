"""Template shapes, their exact 3D volumes, and exact contact tests (SPEC sections 2.2, 4).

A template is a flat 2D shape (a circle, or a teardrop: the convex hull of two circles
on one axis) placed on a *placement plane* and extruded along the plane's normal by its
*height* (the radius of a circle, half the maximum width of a teardrop). The placement
plane is horizontal unless a pitch is given.

Every shape here is the convex hull of at most two discs centred on the template axis,
so every geometric question has a closed form:

* the distance from a point to the 2D shape is the distance to an "uneven capsule"
  (:meth:`CircleShape.signed_distance`), exact, no tessellation;
* a level template volume touches a vertical cylinder iff their z-ranges meet and the
  base disc meets the shape in plan view: an exact analytic test;
* a pitched volume and a vertical cylinder are both convex, with exact support
  functions; their distance is found by GJK (Gilbert-Johnson-Keerthi) with a certified
  duality gap (see :func:`volume_cylinder_distance`).

Shapely polygons appear only where a polygon is wanted (drawing, plan areas):
:meth:`CircleShape.footprint` documents its bound on the approximation error.

Local frame of a placed template (:meth:`TemplateVolume.local_frame`): origin at the
Blast Focus point on the placement plane, ``u`` along the heading (tilted up by the
pitch), ``v`` horizontal and to the left of ``u``, ``normal = u x v`` (pointing up).
Local coordinates ``(s, t, w)`` of a point ``p`` are ``((p - o)·u, (p - o)·v, (p - o)·n)``.
The volume is ``{(s, t) in shape} x {0 <= w <= height}``.

Units: millimetres; angles in degrees, counter-clockwise from +x.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import combinations
from typing import NamedTuple

import numpy as np
import trimesh
from shapely.geometry import Polygon

from .bodies import Cylinder
from .errors import InputError
from .tolerances import (
    CONTACT_EPS_MM,
    FOOTPRINT_MAX_ERROR_MM,
    GEOM_EPS_MM,
    GJK_MAX_ITER,
    GJK_TOL_MM,
    GOLDEN_ITER,
    SAMPLE_MM,
)
from .validation import as_point, as_points, require_positive

__all__ = [
    "SHAPE_KINDS",
    "CircleShape",
    "InsidePart",
    "LocalFrame",
    "TeardropShape",
    "TemplateShape",
    "TemplateVolume",
    "footprint_hits_disc",
    "footprint_signed_distance",
    "sample_inside",
    "shape_from_spec",
    "touch_witness",
    "volume_cylinder_distance",
    "volume_touches_cylinder",
]

#: Shape names accepted by :func:`shape_from_spec`.
SHAPE_KINDS: tuple[str, ...] = ("circle", "teardrop")


# --------------------------------------------------------------------------------------
# 2D shapes
# --------------------------------------------------------------------------------------


class _ShapeBase:
    """Geometry shared by circles and teardrops: the convex hull of two axis discs.

    Subclasses provide ``_discs`` = ``(a0, r0, a1, r1)``: the centres (along the axis,
    measured from the Blast Focus) and radii of the two discs, ``r0 <= r1``.
    """

    _discs: tuple[float, float, float, float]

    # -- scalar properties --------------------------------------------------------------
    @property
    def height(self) -> float:  # pragma: no cover - overridden
        raise NotImplementedError

    @property
    def _single_disc(self) -> bool:
        a0, r0, a1, r1 = self._discs
        return (a1 - a0) <= (r1 - r0) + GEOM_EPS_MM

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
        if self._single_disc:
            return math.pi * r1 * r1
        h = a1 - a0
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
        return _sd_discs(p[:, 0], p[:, 1], self._discs)

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
        return _sd_discs(x, y, self._discs)

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
        return _closest_discs(p[:, 0], p[:, 1], self._discs)

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
        c, s = _cos_sin_deg(heading_deg)
        return np.column_stack((f[0] + c * p[:, 0] - s * p[:, 1], f[1] + s * p[:, 0] + c * p[:, 1]))

    def from_plan(self, xy, focus_xy, heading_deg: float) -> np.ndarray:
        """Inverse of :meth:`to_plan`: plan ``(n, 2)`` points to the shape frame."""
        p = as_points(xy, "xy", dim=2)
        f = as_point(focus_xy, "focus_xy", dim=2)
        c, s = _cos_sin_deg(heading_deg)
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
        return _hull_of_discs(self._discs, [int(sections), int(sections)])

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
        it for drawing and plan areas; contact decisions use the exact functions of this
        module.

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
        local = _hull_of_discs(self._discs, counts)
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
        return _support_discs(self._discs, float(d[0]), float(d[1]))


@dataclass(frozen=True)
class CircleShape(_ShapeBase):
    """A circular template (Infinity Circular, 40k blasts).

    Parameters
    ----------
    diameter : float, mm
    height_override : float or None, mm
        Height of the 3D volume; ``None`` (default) means the radius (SPEC 2.2). Some
        ammunition traits specify another height.

    Notes
    -----
    The Blast Focus is the centre.
    """

    diameter: float
    height_override: float | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "diameter", require_positive(self.diameter, "diameter"))
        if self.height_override is not None:
            object.__setattr__(
                self, "height_override", require_positive(self.height_override, "height")
            )

    @property
    def kind(self) -> str:
        """str: ``"circle"``."""
        return "circle"

    @property
    def radius(self) -> float:
        """float, mm."""
        return 0.5 * self.diameter

    @property
    def height(self) -> float:
        """float, mm: height of the 3D volume (the radius unless overridden)."""
        return self.radius if self.height_override is None else self.height_override

    @property
    def _discs(self) -> tuple[float, float, float, float]:
        r = self.radius
        return (0.0, r, 0.0, r)

    def scaled(self, factor: float) -> CircleShape:
        """A copy scaled by ``factor`` about the Blast Focus (height included)."""
        k = require_positive(factor, "factor")
        h = None if self.height_override is None else self.height_override * k
        return CircleShape(self.diameter * k, h)

    def to_spec(self) -> dict:
        """dict: the inverse of :func:`shape_from_spec` (mm)."""
        spec: dict = {"shape": "circle", "diameter": self.diameter}
        if self.height_override is not None:
            spec["height"] = self.height_override
        return spec


@dataclass(frozen=True)
class TeardropShape(_ShapeBase):
    """A teardrop template: convex hull of two circles on its axis (SPEC 2.2).

    Parameters
    ----------
    length : float, mm
        From the narrow end (the Blast Focus) to the far end, along the axis.
    width : float, mm
        Maximum width: diameter of the circle touching the far end.
    narrow_width : float, mm
        Diameter of the circle touching the narrow end; 0 (default) makes the narrow
        end a point. ``0 <= narrow_width <= width``.
    height_override : float or None, mm
        Height of the 3D volume; ``None`` (default) means ``width / 2``.

    Raises
    ------
    InputError
        Non-positive sizes, ``narrow_width > width``, or ``length < width`` (the far
        circle would reach behind the narrow end).
    """

    length: float
    width: float
    narrow_width: float = 0.0
    height_override: float | None = None

    def __post_init__(self) -> None:
        length = require_positive(self.length, "length")
        width = require_positive(self.width, "width")
        w0 = float(self.narrow_width)
        if not math.isfinite(w0) or w0 < 0:
            raise InputError(
                f"narrow_width must be a finite number >= 0, got {self.narrow_width!r}"
            )
        if w0 > width:
            raise InputError(
                f"teardrop narrow_width ({w0:g}) must not exceed its width ({width:g})"
            )
        if length < width:
            raise InputError(f"teardrop length ({length:g}) must be at least its width ({width:g})")
        object.__setattr__(self, "length", length)
        object.__setattr__(self, "width", width)
        object.__setattr__(self, "narrow_width", w0)
        if self.height_override is not None:
            object.__setattr__(
                self, "height_override", require_positive(self.height_override, "height")
            )

    @property
    def kind(self) -> str:
        """str: ``"teardrop"``."""
        return "teardrop"

    @property
    def height(self) -> float:
        """float, mm: height of the 3D volume (``width / 2`` unless overridden)."""
        return 0.5 * self.width if self.height_override is None else self.height_override

    @property
    def _discs(self) -> tuple[float, float, float, float]:
        r0 = 0.5 * self.narrow_width
        r1 = 0.5 * self.width
        return (r0, r0, self.length - r1, r1)

    def scaled(self, factor: float) -> TeardropShape:
        """A copy scaled by ``factor`` about the Blast Focus (height included)."""
        k = require_positive(factor, "factor")
        h = None if self.height_override is None else self.height_override * k
        return TeardropShape(self.length * k, self.width * k, self.narrow_width * k, h)

    def to_spec(self) -> dict:
        """dict: the inverse of :func:`shape_from_spec` (mm)."""
        spec: dict = {
            "shape": "teardrop",
            "length": self.length,
            "width": self.width,
            "narrow_width": self.narrow_width,
        }
        if self.height_override is not None:
            spec["height"] = self.height_override
        return spec


#: Either template shape.
TemplateShape = CircleShape | TeardropShape


_SPEC_KEYS = {
    "circle": (("diameter",), ("height",)),
    "teardrop": (("length", "width"), ("narrow_width", "height")),
}


def shape_from_spec(spec: Mapping) -> TemplateShape:
    """Build a template shape from ruleset data or an inline scenario entry.

    Parameters
    ----------
    spec : mapping
        ``{shape: circle, diameter: D}`` or
        ``{shape: teardrop, length: L, width: W, narrow_width: w0}`` (``narrow_width``
        optional, default 0). Both accept an optional ``height``. Lengths in mm (the
        scenario loader converts units first).

    Returns
    -------
    CircleShape or TeardropShape

    Raises
    ------
    InputError
        Not a mapping, unknown ``shape``, missing or unknown keys, non-numeric or
        out-of-range values; the message names the key.
    """
    if not isinstance(spec, Mapping):
        raise InputError(f"template spec must be a mapping, got {type(spec).__name__}")
    if "shape" not in spec:
        raise InputError("template spec needs 'shape' (one of: circle, teardrop)")
    kind = spec["shape"]
    if kind not in _SPEC_KEYS:
        raise InputError(f"unknown template shape {kind!r} (known: circle, teardrop)")
    required, optional = _SPEC_KEYS[kind]
    allowed = (*required, *optional)
    unknown = sorted(str(k) for k in spec if k != "shape" and k not in allowed)
    if unknown:
        raise InputError(
            f"unknown key(s) for a {kind} template: {', '.join(unknown)}"
            f" (allowed: {', '.join(allowed)})"
        )
    missing = [k for k in required if k not in spec]
    if missing:
        raise InputError(f"a {kind} template needs {', '.join(missing)}")
    values = {}
    for key in allowed:
        if key not in spec:
            continue
        val = spec[key]
        if isinstance(val, bool) or not isinstance(val, (int, float, np.integer, np.floating)):
            raise InputError(f"template {key} must be a number, got {val!r}")
        values[key] = float(val)
    height = values.pop("height", None)
    if kind == "circle":
        return CircleShape(values["diameter"], height)
    return TeardropShape(values["length"], values["width"], values.get("narrow_width", 0.0), height)


def footprint_signed_distance(shape: TemplateShape, focus_xy, heading_deg: float, points_xy):
    """Signed plan distance from points to a placed template shape.

    Parameters
    ----------
    shape : CircleShape or TeardropShape
    focus_xy : (2,) float, mm
    heading_deg : float
    points_xy : (n, 2) float, mm

    Returns
    -------
    (n,) float, mm
        Exact distance outside (> 0), <= 0 inside or on the shape.
    """
    local = shape.from_plan(points_xy, focus_xy, heading_deg)
    return shape.signed_distance(local)


def footprint_hits_disc(
    shape: TemplateShape,
    focus_xy,
    heading_deg: float,
    center_xy,
    radius: float,
    *,
    eps: float = CONTACT_EPS_MM,
) -> bool:
    """Whether any part of a base disc is under the template in plan view (40k, exact).

    Parameters
    ----------
    shape : CircleShape or TeardropShape
    focus_xy : (2,) float, mm
        Blast Focus (circle centre / teardrop narrow end).
    heading_deg : float
        Template axis, degrees counter-clockwise from +x.
    center_xy : (2,) float, mm
        Base centre.
    radius : float, mm
        Base radius.
    eps : float, mm
        Contact tolerance; touching counts.

    Returns
    -------
    bool
    """
    r = require_positive(radius, "radius")
    c = as_point(center_xy, "center_xy", dim=2)
    d = footprint_signed_distance(shape, focus_xy, heading_deg, c[None, :])[0]
    return bool(d <= r + eps)


# --------------------------------------------------------------------------------------
# 3D volumes
# --------------------------------------------------------------------------------------


class LocalFrame(NamedTuple):
    """Orthonormal frame of a placed template (all (3,) float).

    ``origin`` (mm) is the Blast Focus on the placement plane; ``u`` the axis (heading,
    tilted by the pitch), ``v`` horizontal to its left, ``normal = u x v`` (up).
    """

    origin: np.ndarray
    u: np.ndarray
    v: np.ndarray
    normal: np.ndarray


@dataclass(frozen=True)
class TemplateVolume:
    """A template shape placed in 3D and extruded by its height (SPEC 2.2).

    Parameters
    ----------
    shape : CircleShape or TeardropShape
    focus : (3,) float, mm
        Blast Focus on the placement plane (circle: centre; teardrop: narrow end).
    heading_deg : float
        Direction of the template axis in plan, degrees counter-clockwise from +x.
    pitch_deg : float
        Tilt of the placement plane about the horizontal axis perpendicular to the
        heading; positive raises the far end. Strictly between -90 and 90. The volume
        is extruded along the tilted plane's normal.
    """

    shape: TemplateShape
    focus: tuple[float, float, float]
    heading_deg: float = 0.0
    pitch_deg: float = 0.0

    def __post_init__(self) -> None:
        if not isinstance(self.shape, (CircleShape, TeardropShape)):
            raise InputError(
                f"shape must be a CircleShape or TeardropShape, got {type(self.shape).__name__}"
            )
        f = as_point(self.focus, "focus")
        object.__setattr__(self, "focus", (float(f[0]), float(f[1]), float(f[2])))
        heading = float(self.heading_deg)
        pitch = float(self.pitch_deg)
        if not math.isfinite(heading):
            raise InputError(f"heading_deg must be finite, got {self.heading_deg!r}")
        if not math.isfinite(pitch) or not -90.0 < pitch < 90.0:
            raise InputError(
                f"pitch_deg must be strictly between -90 and 90, got {self.pitch_deg!r}"
            )
        object.__setattr__(self, "heading_deg", heading)
        object.__setattr__(self, "pitch_deg", pitch)
        ch, sh = _cos_sin_deg(heading)
        cp, sp = _cos_sin_deg(pitch)
        frame = LocalFrame(
            np.array(self.focus, dtype=np.float64),
            np.array([cp * ch, cp * sh, sp]),
            np.array([-sh, ch, 0.0]),
            np.array([-sp * ch, -sp * sh, cp]),
        )
        for arr in frame:
            arr.setflags(write=False)
        object.__setattr__(self, "_frame", frame)

    # -- frame --------------------------------------------------------------------------
    @property
    def height(self) -> float:
        """float, mm: extrusion height."""
        return self.shape.height

    @property
    def is_level(self) -> bool:
        """bool: the placement plane is horizontal (pitch 0)."""
        return self.pitch_deg == 0.0

    def local_frame(self) -> LocalFrame:
        """The template's frame: ``(origin, u, v, normal)``, each (3,) float (origin mm)."""
        f = self._frame  # type: ignore[attr-defined]
        return LocalFrame(f.origin.copy(), f.u.copy(), f.v.copy(), f.normal.copy())

    def to_local(self, points) -> np.ndarray:
        """World points ``(n, 3)`` mm to local ``(s, t, w)`` ``(n, 3)`` mm."""
        p = as_points(points, "points")
        f = self._frame  # type: ignore[attr-defined]
        d = p - f.origin
        return np.column_stack((d @ f.u, d @ f.v, d @ f.normal))

    def to_world(self, local) -> np.ndarray:
        """Local ``(s, t, w)`` ``(n, 3)`` mm to world ``(n, 3)`` mm."""
        q = as_points(local, "local")
        f = self._frame  # type: ignore[attr-defined]
        return (
            f.origin
            + q[:, 0:1] * f.u[None, :]
            + q[:, 1:2] * f.v[None, :]
            + q[:, 2:3] * f.normal[None, :]
        )

    def focus_segment(self) -> np.ndarray:
        """The Blast Focus in 3D: the segment from the focus point up the template's height.

        It runs along the placement plane's normal, which is vertical for a level
        template (SPEC 2.2).

        Returns
        -------
        (2, 3) float, mm
            ``[focus, focus + height * normal]``.
        """
        f = self._frame  # type: ignore[attr-defined]
        return np.stack((f.origin.copy(), f.origin + self.height * f.normal))

    def centroid_point(self) -> np.ndarray:
        """(3,) float, mm: a point inside the volume (mid-axis, mid-height)."""
        lo, hi = self.shape.extent
        f = self._frame  # type: ignore[attr-defined]
        return f.origin + 0.5 * (lo + hi) * f.u + 0.5 * self.height * f.normal

    # -- membership ---------------------------------------------------------------------
    def contains(self, points, *, eps: float = CONTACT_EPS_MM) -> np.ndarray:
        """Which points lie inside or on the volume (exact, up to ``eps``).

        Parameters
        ----------
        points : (n, 3) float, mm
        eps : float, mm
            Points up to this far outside count as on the surface.

        Returns
        -------
        (n,) bool
        """
        q = self.to_local(points)
        sd = _sd_discs(q[:, 0], q[:, 1], self.shape._discs)
        return (sd <= eps) & (q[:, 2] >= -eps) & (q[:, 2] <= self.height + eps)

    def support(self, direction) -> np.ndarray:
        """Support point of the volume: a point maximising ``p · direction``.

        Parameters
        ----------
        direction : (3,) float (need not be unit length)

        Returns
        -------
        (3,) float, mm
        """
        d = as_point(direction, "direction")
        return self._support(d)

    def _support(self, d: np.ndarray) -> np.ndarray:
        f = self._frame  # type: ignore[attr-defined]
        _, st = _support_discs(self.shape._discs, float(d @ f.u), float(d @ f.v))
        w = self.height if float(d @ f.normal) > 0.0 else 0.0
        return f.origin + st[0] * f.u + st[1] * f.v + w * f.normal

    def bounds(self) -> np.ndarray:
        """Exact axis-aligned bounding box.

        Returns
        -------
        (2, 3) float, mm
            ``[min, max]``.
        """
        out = np.empty((2, 3))
        for k in range(3):
            e = np.zeros(3)
            e[k] = 1.0
            out[1, k] = self._support(e)[k]
            out[0, k] = self._support(-e)[k]
        return out

    # -- derived ------------------------------------------------------------------------
    def scaled(self, factor: float) -> TemplateVolume:
        """The volume scaled by ``factor`` about its Blast Focus (height included)."""
        return TemplateVolume(
            self.shape.scaled(factor), self.focus, self.heading_deg, self.pitch_deg
        )

    def to_trimesh(self, sections: int = 64) -> trimesh.Trimesh:
        """A closed triangle mesh of the volume, for drawing.

        Each circle of the shape is sampled at ``sections`` angles (the polygon is
        inscribed, see :meth:`CircleShape.boundary`); the prism over it is closed by
        fan-triangulated caps (the polygon is convex).

        Returns
        -------
        trimesh.Trimesh
            Watertight, outward-facing normals, mm.
        """
        ring = self.shape.boundary(sections)
        m = len(ring)
        h = self.height
        local = np.vstack(
            (np.column_stack((ring, np.zeros(m))), np.column_stack((ring, np.full(m, h))))
        )
        verts = self.to_world(local)
        faces = []
        for i in range(1, m - 1):
            faces.append((0, i + 1, i))  # bottom, facing -normal
            faces.append((m, m + i, m + i + 1))  # top, facing +normal
        for i in range(m):
            j = (i + 1) % m
            faces.append((i, j, m + j))
            faces.append((i, m + j, m + i))
        return trimesh.Trimesh(verts, np.asarray(faces, dtype=np.int64), process=False)


# --------------------------------------------------------------------------------------
# Contact between a template volume and a silhouette cylinder
# --------------------------------------------------------------------------------------


class _Gjk(NamedTuple):
    upper: float  # |v|: distance between two actual points of the bodies (>= true dist)
    lower: float  # certified lower bound on the true distance
    point_volume: np.ndarray  # (3,) point of the volume realising ``upper``
    point_cylinder: np.ndarray  # (3,) point of the cylinder realising ``upper``


def volume_cylinder_distance(volume: TemplateVolume, cylinder: Cylinder) -> float:
    """Euclidean distance between a template volume and a cylinder (0 when they overlap).

    Level volumes (pitch 0): exact closed form. The volume is ``shape x [z0, z0 + H]``
    and the cylinder ``disc x [zb, zt]``, so the distance is
    ``hypot(max(0, sd - r), gap_z)`` with ``sd`` the exact plan distance from the base
    centre to the shape (:meth:`CircleShape.signed_distance`) and ``gap_z`` the gap
    between the z-ranges.

    Pitched volumes: 0 when the exact test of :func:`volume_touches_cylinder` (with no
    tolerance) finds an overlap; otherwise GJK on the Minkowski difference with the
    exact support functions of both bodies. The value is GJK's upper bound (the
    distance between two points of the bodies), so it is never below the true
    distance; it exceeds it by at most ``GJK_TOL_MM`` when GJK converges, and by about
    1e-6 mm at worst where nearly parallel flat faces make GJK stall. Contact decisions
    do not use this function.

    Parameters
    ----------
    volume : TemplateVolume
    cylinder : Cylinder

    Returns
    -------
    float, mm
    """
    if volume.is_level:
        return _level_distance(volume, cylinder)
    if _pitched_contact(volume, cylinder, 0.0) is not None:
        return 0.0
    return _gjk(volume, cylinder).upper


def volume_touches_cylinder(
    volume: TemplateVolume, cylinder: Cylinder, *, eps: float = CONTACT_EPS_MM
) -> bool:
    """Whether a closed template volume and a closed silhouette cylinder touch or overlap.

    Contact counts (SPEC 4.1). With a tolerance ``eps``, the test is whether the volume
    meets the cylinder grown by ``eps`` in radius and at both ends (so touching bodies,
    and bodies up to ``eps`` apart, count).

    Level volumes (pitch 0): the bodies are prisms over the same vertical axis, so they
    meet iff their z-ranges meet (gap <= eps) and, in plan, the exact distance from the
    base centre to the template shape is at most ``radius + eps``. Exact.

    Pitched volumes: also exact, by reduction to one dimension. In the frame ``(a, b, z)``
    (``a`` along the heading in plan, ``b`` across it) a point of the volume is
    ``a = s cos p - w sin p``, ``b = t``, ``z = s sin p + w cos p`` for ``(s, t)`` in the
    shape and ``0 <= w <= height``. For a fixed axis coordinate ``s``, the admissible
    ``w`` (those putting ``z`` in the cylinder's z-range) form an interval, so ``a``
    ranges over an interval whose ends are convex/concave in ``s``; ``t`` ranges over
    ``[-half(s), half(s)]`` with ``half`` the shape's (concave) half-width. The squared
    plan distance from the base centre to the reachable set at ``s`` is therefore
    ``phi(s) = g(s)² + e(s)²`` with ``g`` the gap to the ``a``-interval and ``e`` the gap to
    the ``t``-interval, both convex and non-negative: ``phi`` is convex, and the bodies
    meet iff ``min phi <= radius²`` over the (closed-form) interval of admissible ``s``.
    The minimum is found by golden-section search to ~1e-12 mm in ``s``, so the decision
    can be wrong only within ~1e-10 mm of the tolerance.

    Parameters
    ----------
    volume : TemplateVolume
    cylinder : Cylinder
    eps : float, mm

    Returns
    -------
    bool
    """
    if eps < 0 or not math.isfinite(eps):
        raise InputError(f"eps must be a finite number >= 0, got {eps!r}")
    if volume.is_level:
        return _level_gaps(volume, cylinder, eps) is not None
    return _pitched_contact(volume, cylinder, eps) is not None


def touch_witness(
    volume: TemplateVolume, cylinder: Cylinder, *, eps: float = CONTACT_EPS_MM
) -> np.ndarray | None:
    """A point common to the volume and the cylinder, or None when they do not touch.

    The point lies in the volume and in the cylinder grown by ``eps`` (see
    :func:`volume_touches_cylinder`); it may be inside the cylinder rather than on its
    surface. Use it as the one target sample when the part of a silhouette inside a
    template is too small for a grid.

    Returns
    -------
    (3,) float, mm, or None
    """
    if volume.is_level:
        return _level_witness(volume, cylinder, eps)
    return _pitched_contact(volume, cylinder, eps)


@dataclass(frozen=True, eq=False)
class InsidePart:
    """Sample points of the part of a silhouette inside a template volume.

    Attributes
    ----------
    points : (n, 3) float, mm
        Points on the cylinder's surface (side, then top cap, then bottom cap; each in
        grid order) that lie inside the volume, moved inward by the requested insets.
        When the bodies touch but no grid point is inside, the single point of
        :func:`touch_witness`.
    area_mm2 : float
        Approximate area of the silhouette surface inside the volume (grid cells whose
        centre is inside), mm². 0 when only the witness is returned.
    touches : bool
        Whether the bodies touch at all (exact test).
    witness_only : bool
        True when ``points`` holds only the touch witness.
    """

    points: np.ndarray
    area_mm2: float
    touches: bool
    witness_only: bool


def sample_inside(
    volume: TemplateVolume,
    cylinder: Cylinder,
    spacing_mm: float = SAMPLE_MM,
    *,
    inset_mm: float = 0.0,
    bottom_inset_mm: float = 0.0,
) -> InsidePart:
    """Target points on a silhouette inside a template volume, for Blast Focus rays.

    The cylinder's surface is covered by cells no larger than ``spacing_mm`` on a side:
    the side by ``ceil(2 pi r / spacing)`` angular x ``ceil(h / spacing)`` vertical cells,
    each cap by a square grid of ``ceil(2 r / spacing)`` cells a side (cells whose
    centre is in the disc). A cell's centre is kept when it lies inside the volume
    (:meth:`TemplateVolume.contains`, after the inset), and its area counts.

    Parameters
    ----------
    volume : TemplateVolume
    cylinder : Cylinder
    spacing_mm : float, mm
        Grid spacing (default ``SAMPLE_MM``).
    inset_mm : float, mm
        Side and top points are moved this far into the cylinder (e.g.
        ``SURFACE_INSET_MM``).
    bottom_inset_mm : float, mm
        Bottom-cap points are moved this far up (e.g. ``STAND_INSET_MM``).

    Returns
    -------
    InsidePart
        Deterministic for given inputs.
    """
    spacing = require_positive(spacing_mm, "spacing_mm")
    inset = _require_inset(inset_mm, "inset_mm", cylinder)
    binset = _require_inset(bottom_inset_mm, "bottom_inset_mm", cylinder)
    touches = volume_touches_cylinder(volume, cylinder)
    if not touches:
        return InsidePart(np.empty((0, 3)), 0.0, False, False)
    pts, areas = _cylinder_surface_grid(cylinder, spacing, inset, binset)
    inside = volume.contains(pts)
    if np.any(inside):
        return InsidePart(pts[inside], float(areas[inside].sum()), True, False)
    w = touch_witness(volume, cylinder)
    if w is None:  # pragma: no cover - touches was established above
        return InsidePart(np.empty((0, 3)), 0.0, True, False)
    return InsidePart(w[None, :], 0.0, True, True)


# --------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------


def _cos_sin_deg(angle_deg: float) -> tuple[float, float]:
    """cos and sin of an angle in degrees, exact at multiples of 90."""
    a = float(angle_deg) % 360.0
    exact = {0.0: (1.0, 0.0), 90.0: (0.0, 1.0), 180.0: (-1.0, 0.0), 270.0: (0.0, -1.0)}
    if a in exact:
        return exact[a]
    r = math.radians(a)
    return math.cos(r), math.sin(r)


def _sd_discs(x, y, discs) -> np.ndarray:
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


def _closest_discs(x, y, discs) -> np.ndarray:
    """Closest point of the hull of two axis discs; ``(n, 2)``; inside points unchanged."""
    a0, r0, a1, r1 = discs
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    sgn = np.where(y < 0.0, -1.0, 1.0)
    ya = np.abs(y)
    sd = _sd_discs(x, y, discs)

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


def _support_discs(discs, dx: float, dy: float) -> tuple[float, np.ndarray]:
    """Support value and point of the hull of two axis discs in direction (dx, dy)."""
    a0, r0, a1, r1 = discs
    n = math.hypot(dx, dy)
    v0 = a0 * dx + r0 * n
    v1 = a1 * dx + r1 * n
    a, r, val = (a1, r1, v1) if v1 >= v0 else (a0, r0, v0)
    if n > 0.0:
        return val, np.array([a + r * dx / n, r * dy / n])
    return val, np.array([a, 0.0])


def _segments_for(r: float, max_error: float) -> int:
    """Segments per full circle so that the sagitta ``r (1 - cos(pi / n))`` <= max_error."""
    if r <= max_error:
        return 8
    n = math.ceil(math.pi / math.acos(1.0 - max_error / r))
    return max(8, n)


def _hull_of_discs(discs, counts) -> np.ndarray:
    """Convex hull (CCW, no repeat) of circle samples of both discs, shape frame."""
    a0, r0, a1, r1 = discs
    pts = []
    for (a, r), n in zip(((a0, r0), (a1, r1)), counts, strict=True):
        if r <= 0.0:
            pts.append(np.array([[a, 0.0]]))
            continue
        th = 2.0 * np.pi * np.arange(n) / n
        pts.append(np.column_stack((a + r * np.cos(th), r * np.sin(th))))
    return _convex_hull_2d(np.vstack(pts))


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


def _level_distance(volume: TemplateVolume, cylinder: Cylinder) -> float:
    f = volume._frame  # type: ignore[attr-defined]
    c = np.array([cylinder.base[0], cylinder.base[1], f.origin[2]]) - f.origin
    sd = float(_sd_discs(c @ f.u, c @ f.v, volume.shape._discs))
    dxy = max(0.0, sd - cylinder.radius)
    z0 = f.origin[2]
    dz = max(0.0, cylinder.base[2] - (z0 + volume.height), z0 - cylinder.top_z)
    return math.hypot(dxy, dz)


def _level_gaps(volume: TemplateVolume, cylinder: Cylinder, eps: float):
    """Exact contact test for a level volume: None, or the data for a common point."""
    f = volume._frame  # type: ignore[attr-defined]
    c = np.array([cylinder.base[0], cylinder.base[1], f.origin[2]]) - f.origin
    cu, cv = np.array([c @ f.u]), np.array([c @ f.v])
    sd = float(_sd_discs(cu, cv, volume.shape._discs)[0])
    z0 = float(f.origin[2])
    lo = max(z0, cylinder.base[2])
    hi = min(z0 + volume.height, cylinder.top_z)
    if sd > cylinder.radius + eps or lo > hi + eps:
        return None
    return cu, cv, lo, hi


def _level_witness(volume: TemplateVolume, cylinder: Cylinder, eps: float) -> np.ndarray | None:
    """Exact contact test for a level volume; a common point, or None."""
    gaps = _level_gaps(volume, cylinder, eps)
    if gaps is None:
        return None
    cu, cv, lo, hi = gaps
    f = volume._frame  # type: ignore[attr-defined]
    q = _closest_discs(cu, cv, volume.shape._discs)[0]
    out = f.origin + q[0] * f.u + q[1] * f.v
    out[2] = 0.5 * (lo + hi)
    return out


def _half_width(discs, s: float) -> float:
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


_GOLDEN = (math.sqrt(5.0) - 1.0) / 2.0


def _pitched_contact(volume: TemplateVolume, cyl: Cylinder, eps: float) -> np.ndarray | None:
    """Exact contact test for any volume (see ``volume_touches_cylinder``); a common point.

    Returns a point of the volume lying in the cylinder grown by ``eps``, or None.
    """
    f = volume._frame  # type: ignore[attr-defined]
    ch, sh = _cos_sin_deg(volume.heading_deg)
    cp, sp = _cos_sin_deg(volume.pitch_deg)
    uh = np.array([ch, sh, 0.0])
    rel = np.array([cyl.base[0], cyl.base[1], f.origin[2]]) - f.origin
    # plain Python floats: a tiny pitch makes some quotients overflow to +-inf, which
    # the interval clamps absorb (numpy scalars would warn)
    ac, bc = float(rel @ uh), float(rel @ f.v)
    zb = float(cyl.base[2] - f.origin[2]) - eps
    zt = float(cyl.top_z - f.origin[2]) + eps
    r = float(cyl.radius) + eps
    hgt = float(volume.height)
    discs = volume.shape._discs
    s_lo, s_hi = volume.shape.extent
    # admissible s: some w in [0, H] puts z = s sp + w cp in [zb, zt]  <=>
    # s sp in [zb - H cp, zt]
    if sp > 0.0:
        s_lo, s_hi = max(s_lo, (zb - hgt * cp) / sp), min(s_hi, zt / sp)
    elif sp < 0.0:
        s_lo, s_hi = max(s_lo, zt / sp), min(s_hi, (zb - hgt * cp) / sp)
    elif not (zb - hgt * cp <= 0.0 <= zt):
        return None
    if s_lo > s_hi:
        return None

    def best(s: float):
        """(phi, a, t, w): squared plan gap at s and the reachable point nearest."""
        w_lo = max(0.0, (zb - s * sp) / cp)
        w_hi = min(hgt, (zt - s * sp) / cp)
        if w_hi < w_lo:  # only by rounding at the ends of the interval
            w_lo = w_hi = 0.5 * (w_lo + w_hi)
        # a = s cp - w sp is monotone in w: clamp the target a to the reachable interval
        if sp != 0.0:
            w_star = (s * cp - ac) / sp
            w = min(max(w_star, w_lo), w_hi)
        else:
            w = w_lo
        a = s * cp - w * sp
        half = _half_width(discs, s)
        t = min(max(bc, -half), half)
        return (a - ac) ** 2 + (t - bc) ** 2, a, t, w

    r2 = r * r
    lo, hi = s_lo, s_hi
    for s in (lo, hi):
        cand = best(s)
        if cand[0] <= r2:
            return _pitched_point(f, s, cand[2], cand[3])
    x1 = hi - _GOLDEN * (hi - lo)
    x2 = lo + _GOLDEN * (hi - lo)
    f1, f2 = best(x1), best(x2)
    for _ in range(GOLDEN_ITER):
        if f1[0] <= r2:
            return _pitched_point(f, x1, f1[2], f1[3])
        if f2[0] <= r2:
            return _pitched_point(f, x2, f2[2], f2[3])
        if hi - lo <= 0.0 or not lo < x1 < x2 < hi:
            break
        if f1[0] <= f2[0]:
            hi, x2, f2 = x2, x1, f1
            x1 = hi - _GOLDEN * (hi - lo)
            f1 = best(x1)
        else:
            lo, x1, f1 = x1, x2, f2
            x2 = lo + _GOLDEN * (hi - lo)
            f2 = best(x2)
    return None


def _pitched_point(f: LocalFrame, s: float, t: float, w: float) -> np.ndarray:
    return f.origin + s * f.u + t * f.v + w * f.normal


def _cylinder_support(cyl: Cylinder, d: np.ndarray) -> np.ndarray:
    b = cyl.base_array
    n = math.hypot(d[0], d[1])
    if n > 0.0:
        b[0] += cyl.radius * d[0] / n
        b[1] += cyl.radius * d[1] / n
    if d[2] > 0.0:
        b[2] += cyl.height
    return b


def _closest_on_simplex(P: np.ndarray):
    """Point of the convex hull of ``P`` ((k, 3), k <= 4) nearest the origin.

    Tries every face (subset of vertices); a face's candidate is the projection of the
    origin onto its affine hull when its barycentric coordinates are all >= 0. The
    nearest candidate wins (the true nearest point lies in the relative interior of
    some face, so it is among them). Returns ``(point, indices, weights)``.
    """
    k = len(P)
    best = None
    for size in range(1, k + 1):
        for idx in combinations(range(k), size):
            Q = P[list(idx)]
            if size == 1:
                lam = np.ones(1)
            else:
                D = Q[1:] - Q[0]
                mu, _, rank, _ = np.linalg.lstsq(D.T, -Q[0], rcond=None)
                if rank < size - 1:
                    continue  # degenerate face; its lower-dimensional faces cover it
                lam = np.concatenate(([1.0 - mu.sum()], mu))
                if lam.min() < -1e-12:
                    continue
                lam = np.clip(lam, 0.0, None)
                lam /= lam.sum()
            x = lam @ Q
            d2 = float(x @ x)
            if best is None or d2 < best[0]:
                best = (d2, x, idx, lam)
    assert best is not None
    return best[1], list(best[2]), best[3]


def _gjk(volume: TemplateVolume, cyl: Cylinder) -> _Gjk:
    """GJK distance between the volume and the cylinder, with certified bounds.

    Works on the Minkowski difference ``V - C``; each simplex vertex remembers the pair
    of body points it came from, so the final barycentric weights give a point of each
    body. Stops when the upper bound ``|v|`` is <= ``GJK_TOL_MM``, the bounds agree
    within ``GJK_TOL_MM``, no new support point appears, or after ``GJK_MAX_ITER``
    iterations.
    """
    a = volume.centroid_point()
    b = cyl.center
    verts = [a - b]
    pa = [a]
    pb = [b]
    lam = np.ones(1)
    v = verts[0]
    lower = 0.0
    for _ in range(GJK_MAX_ITER):
        nv = float(np.linalg.norm(v))
        if nv <= GJK_TOL_MM:
            break
        sa = volume._support(-v)
        sb = _cylinder_support(cyl, v)
        w = sa - sb
        lower = max(lower, float(v @ w) / nv)
        if nv - lower <= GJK_TOL_MM:
            break
        if any(np.array_equal(w, q) for q in verts):
            break  # no new support point: converged to floating-point precision
        verts.append(w)
        pa.append(sa)
        pb.append(sb)
        v, idx, lam = _closest_on_simplex(np.asarray(verts))
        verts = [verts[i] for i in idx]
        pa = [pa[i] for i in idx]
        pb = [pb[i] for i in idx]
        if len(verts) == 4 and float(v @ v) <= GJK_TOL_MM**2:
            v = np.zeros(3)
    point_a = lam @ np.asarray(pa)
    point_b = lam @ np.asarray(pb)
    upper = float(np.linalg.norm(v))
    return _Gjk(upper, min(lower, upper), point_a, point_b)


def _require_inset(value: float, name: str, cyl: Cylinder) -> float:
    x = float(value)
    if not math.isfinite(x) or x < 0.0 or x >= min(cyl.radius, 0.5 * cyl.height):
        raise InputError(
            f"{name} must be >= 0 and smaller than the cylinder's radius and half height,"
            f" got {value!r}"
        )
    return x


def _cylinder_surface_grid(cyl: Cylinder, spacing: float, inset: float, binset: float):
    """Cell-centre samples of a cylinder's surface and the cells' areas."""
    bx, by, bz = cyl.base
    r, h = cyl.radius, cyl.height
    n_th = max(8, math.ceil(2.0 * math.pi * r / spacing))
    n_z = max(1, math.ceil(h / spacing))
    th = 2.0 * np.pi * (np.arange(n_th) + 0.5) / n_th
    zs = bz + h * (np.arange(n_z) + 0.5) / n_z
    rr = r - inset
    zz, tt = np.meshgrid(zs, th, indexing="ij")
    side = np.column_stack((bx + rr * np.cos(tt).ravel(), by + rr * np.sin(tt).ravel(), zz.ravel()))
    side_area = np.full(len(side), (2.0 * np.pi * r / n_th) * (h / n_z))
    n_c = max(1, math.ceil(2.0 * r / spacing))
    g = 2.0 * r / n_c
    cs = -r + g * (np.arange(n_c) + 0.5)
    yy, xx = np.meshgrid(cs, cs, indexing="ij")
    keep = (xx**2 + yy**2 <= r * r).ravel()
    cx = bx + xx.ravel()[keep]
    cy = by + yy.ravel()[keep]
    top = np.column_stack((cx, cy, np.full(len(cx), bz + h - inset)))
    bottom = np.column_stack((cx, cy, np.full(len(cx), bz + binset)))
    cap_area = np.full(len(cx), g * g)
    pts = np.vstack((side, top, bottom))
    areas = np.concatenate((side_area, cap_area, cap_area))
    return pts, areas
