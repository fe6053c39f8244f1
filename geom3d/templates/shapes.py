"""Template shapes and the ONE template-spec schema (SPEC section 2.2).

A template is a flat 2D shape: a circle, or a teardrop (the convex hull of two circles on
one axis). Its 3D volume (:class:`~geom3d.templates.TemplateVolume`) is the shape extruded
by its *height*: the radius of a circle, half the maximum width of a teardrop.

:func:`shape_from_spec` is the only reader of template specs, for ruleset data and for
inline scenario entries alike (``{shape: teardrop, length: 200, width: 60}``). A spec has
no ``height`` key: SPEC 2.2 fixes the height. The shape classes accept a
``height_override`` for geometry built in code (a low volume in a test), which no spec can
express.

Units: millimetres; angles in degrees, counter-clockwise from +x.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from geom3d.bodies.kernel_constants import CONTACT_EPS_MM
from geom3d.core.errors import InputError
from geom3d.core.tolerances import MAX_BODY_MM
from geom3d.core.validation import as_point, require_positive
from geom3d.templates._hull import DiscHull

__all__ = [
    "SHAPE_KINDS",
    "TEMPLATE_KINDS",
    "CircleShape",
    "TeardropShape",
    "TemplateShape",
    "TemplateSpecError",
    "footprint_hits_disc",
    "footprint_signed_distance",
    "shape_from_spec",
]

#: Shape names accepted by :func:`shape_from_spec`.
SHAPE_KINDS: tuple[str, ...] = ("circle", "teardrop")

#: Optional ``kind`` of a template spec (40k: decides Wall of Death, SPEC 11.5); it does
#: not change the shape.
TEMPLATE_KINDS: tuple[str, ...] = ("flame", "hellstorm", "blast")


@dataclass(frozen=True)
class CircleShape(DiscHull):
    """A circular template (Infinity Circular, 40k blasts).

    Parameters
    ----------
    diameter : float, mm
    height_override : float or None, mm
        Height of the 3D volume; ``None`` (default) means the radius (SPEC 2.2). Only for
        geometry built in code: no template spec can set it.

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
        """dict: the canonical spec, the inverse of :func:`shape_from_spec` (mm).

        Raises
        ------
        InputError
            The height is overridden (no spec can express that).
        """
        _require_spec_height(self)
        return {"shape": "circle", "diameter": self.diameter}


@dataclass(frozen=True)
class TeardropShape(DiscHull):
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
        Height of the 3D volume; ``None`` (default) means ``width / 2``. Only for
        geometry built in code: no template spec can set it.

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
        """dict: the canonical spec, the inverse of :func:`shape_from_spec` (mm).

        Raises
        ------
        InputError
            The height is overridden (no spec can express that).
        """
        _require_spec_height(self)
        return {
            "shape": "teardrop",
            "length": self.length,
            "width": self.width,
            "narrow_width": self.narrow_width,
        }


#: Either template shape.
TemplateShape = CircleShape | TeardropShape


def _require_spec_height(shape: CircleShape | TeardropShape) -> None:
    if shape.height_override is not None:
        raise InputError(
            f"a {shape.kind} with an overridden height ({shape.height_override:g} mm) has no"
            " template spec: a spec's height is always its radius / half its width (SPEC 2.2)"
        )


# --------------------------------------------------------------------------------------
# the template-spec schema
# --------------------------------------------------------------------------------------


class TemplateSpecError(InputError):
    """A template spec (ruleset data or an inline scenario entry) is not acceptable.

    Parameters
    ----------
    message : str
        What is wrong; a complete sentence on its own.
    key : str or None
        The offending key of the spec (for a field path such as
        ``attacks[0].template.width``); None when the spec as a whole is wrong.
    """

    def __init__(self, message: str, key: str | None = None):
        self.message = message
        self.key = key
        super().__init__(message)

    def __reduce__(self):  # keep the key across process pools
        return (type(self), (self.message, self.key))


#: Required and optional length keys of each shape (all in mm after scaling).
_SPEC_KEYS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "circle": (("diameter",), ()),
    "teardrop": (("length", "width"), ("narrow_width",)),
}

_NO_HEIGHT = (
    "a template spec has no 'height': the volume is as high as the circle's radius or"
    " half the teardrop's width (SPEC 2.2)"
)


def shape_from_spec(spec: Mapping, *, scale: float = 1.0) -> TemplateShape:
    """Build a template shape from ruleset data or an inline scenario entry.

    The one schema for template specs: the scenario parser validates inline templates and
    the ruleset's named templates with it.

    Parameters
    ----------
    spec : mapping
        ``{shape: circle, diameter: D}`` or
        ``{shape: teardrop, length: L, width: W, narrow_width: w0}`` (``narrow_width``
        optional, default 0, ``0 <= w0 <= W <= L``), each optionally with
        ``kind: flame | hellstorm | blast`` (not a length; checked, not part of the shape).
        Every other value is a length. There is no ``height`` key (SPEC 2.2: the
        height is the radius, or half the width).
    scale : float
        Millimetres per unit of the spec's lengths (the scenario's unit factor); the
        limits below apply after scaling.

    Returns
    -------
    CircleShape or TeardropShape

    Raises
    ------
    TemplateSpecError
        Not a mapping, unknown ``shape``, missing or unknown keys (``height`` included),
        a value that is not a finite number, a size not above 0 (``narrow_width``: below
        0), a size above ``MAX_BODY_MM``, ``narrow_width > width`` or ``length < width``.
        ``err.key`` names the offending key.
    """
    k = require_positive(scale, "scale")
    if not isinstance(spec, Mapping):
        raise TemplateSpecError(
            "template spec must be a mapping such as {shape: circle, diameter: 76.2},"
            f" got {type(spec).__name__}"
        )
    if "shape" not in spec:
        raise TemplateSpecError("template spec needs 'shape' (one of: circle, teardrop)", "shape")
    kind = spec["shape"]
    if not isinstance(kind, str) or kind not in _SPEC_KEYS:
        raise TemplateSpecError(
            f"unknown template shape {kind!r} (known: circle, teardrop)", "shape"
        )
    required, optional = _SPEC_KEYS[kind]
    allowed = (*required, *optional)
    for key in spec:
        if key == "height":
            raise TemplateSpecError(_NO_HEIGHT, "height")
        if key == "kind":
            if spec[key] not in TEMPLATE_KINDS:
                raise TemplateSpecError(
                    f"unknown template kind {spec[key]!r} (known: {', '.join(TEMPLATE_KINDS)})",
                    "kind",
                )
            continue
        if key != "shape" and key not in allowed:
            raise TemplateSpecError(
                f"unknown key {key!r} for a {kind} template (allowed: {', '.join(allowed)})",
                str(key),
            )
    for key in required:
        if key not in spec:
            raise TemplateSpecError(f"a {kind} template needs {key!r}", key)
    mm = {key: _spec_length(spec, key, k, key in required) for key in allowed if key in spec}
    if kind == "circle":
        return CircleShape(mm["diameter"])
    length, width, w0 = mm["length"], mm["width"], mm.get("narrow_width", 0.0)
    if w0 > width:
        raise TemplateSpecError(
            f"teardrop narrow_width ({w0:g} mm) must not exceed its width ({width:g} mm)",
            "narrow_width",
        )
    if length < width:
        raise TemplateSpecError(
            f"teardrop length ({length:g} mm) must be at least its width ({width:g} mm),"
            " or the far circle would reach behind the Blast Focus",
            "length",
        )
    return TeardropShape(length, width, w0)


def _spec_length(spec: Mapping, key: str, scale: float, positive: bool) -> float:
    """One length of a spec, in mm: a finite number, > 0 (or >= 0), at most MAX_BODY_MM."""
    val = spec[key]
    if isinstance(val, bool) or not isinstance(val, (int, float, np.integer, np.floating)):
        raise TemplateSpecError(f"template {key} must be a number, got {val!r}", key)
    v = float(val)
    if not math.isfinite(v) or v < 0.0 or (positive and v == 0.0):
        bound = "> 0" if positive else ">= 0"
        raise TemplateSpecError(f"template {key} must be a finite number {bound}, got {val!r}", key)
    v *= scale
    if v > MAX_BODY_MM:
        raise TemplateSpecError(
            f"template {key} is {v:g} mm, larger than the {MAX_BODY_MM:g} mm a template may"
            " be (wrong units?)",
            key,
        )
    return v


# --------------------------------------------------------------------------------------
# placed shapes in plan view
# --------------------------------------------------------------------------------------


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
