"""Template shapes, their exact 3D volumes, and exact contact tests (SPEC sections 2.2, 4).

A template is a flat 2D shape (a circle, or a teardrop: the convex hull of two circles
on one axis) placed on a *placement plane* and extruded along the plane's normal by its
*height* (the radius of a circle, half the maximum width of a teardrop). The placement
plane is horizontal unless a pitch is given.

Modules:

* :mod:`~geom3d.templates.shapes`: :class:`CircleShape`, :class:`TeardropShape`, and
  :func:`shape_from_spec`, the one template-spec schema (ruleset data and inline scenario
  templates); plan-view footprint tests.
* :mod:`~geom3d.templates.volume`: :class:`TemplateVolume` (a shape placed in 3D) and its
  :class:`LocalFrame`.
* :mod:`~geom3d.templates.contact`: exact volume/cylinder contact, distance and a common
  point (:func:`touch_witness`).
* :mod:`~geom3d.templates.sampling`: sample points of the part of a silhouette inside a
  volume (:func:`sample_inside`).
* :mod:`~geom3d.templates.minimize`: the one golden-section search for convex functions.

Shapely polygons appear only where a polygon is wanted (drawing, plan areas):
:meth:`CircleShape.footprint` documents its bound on the approximation error.

Units: millimetres; angles in degrees, counter-clockwise from +x.
"""

from __future__ import annotations

from geom3d.templates.contact import (
    touch_witness,
    volume_cylinder_distance,
    volume_touches_cylinder,
)
from geom3d.templates.minimize import ConvexMin, minimize_convex
from geom3d.templates.sampling import InsidePart, sample_inside
from geom3d.templates.shapes import (
    SHAPE_KINDS,
    CircleShape,
    TeardropShape,
    TemplateShape,
    TemplateSpecError,
    footprint_hits_disc,
    footprint_signed_distance,
    shape_from_spec,
)
from geom3d.templates.volume import LocalFrame, TemplateVolume

__all__ = [
    "SHAPE_KINDS",
    "CircleShape",
    "ConvexMin",
    "InsidePart",
    "LocalFrame",
    "TeardropShape",
    "TemplateShape",
    "TemplateSpecError",
    "TemplateVolume",
    "footprint_hits_disc",
    "footprint_signed_distance",
    "minimize_convex",
    "sample_inside",
    "shape_from_spec",
    "touch_witness",
    "volume_cylinder_distance",
    "volume_touches_cylinder",
]
