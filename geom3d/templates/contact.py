"""Exact contact between a template volume and a silhouette cylinder (SPEC sections 2.2, 4).

Every template shape is the convex hull of at most two discs centred on the template
axis, so every question has a closed form or a one-dimensional convex search:

* a level template volume touches a vertical cylinder iff their z-ranges meet and the
  base disc meets the shape in plan view: an exact analytic test;
* a pitched volume reduces to a convex function of one variable, minimised by
  :func:`~geom3d.templates.minimize.minimize_convex` (see :func:`volume_touches_cylinder`);
* the *distance* of a pitched volume is found by GJK with a certified duality gap (see
  :func:`volume_cylinder_distance`).

Units: millimetres; angles in degrees, counter-clockwise from +x.
"""

from __future__ import annotations

import math

import numpy as np

from geom3d.bodies.cylinder import Cylinder
from geom3d.bodies.kernel_constants import CONTACT_EPS_MM
from geom3d.core.errors import InputError
from geom3d.templates._gjk import gjk
from geom3d.templates._hull import closest_discs, cos_sin_deg, half_width, sd_discs
from geom3d.templates.minimize import minimize_convex
from geom3d.templates.volume import LocalFrame, TemplateVolume

__all__ = ["touch_witness", "volume_cylinder_distance", "volume_touches_cylinder"]


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
    if pitched_contact(volume, cylinder, 0.0) is not None:
        return 0.0
    return gjk(volume, cylinder).upper


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
    return pitched_contact(volume, cylinder, eps) is not None


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
    return pitched_contact(volume, cylinder, eps)


# --------------------------------------------------------------------------------------
# level volumes: closed forms
# --------------------------------------------------------------------------------------


def _level_distance(volume: TemplateVolume, cylinder: Cylinder) -> float:
    f = volume.frame
    c = np.array([cylinder.base[0], cylinder.base[1], f.origin[2]]) - f.origin
    sd = float(sd_discs(c @ f.u, c @ f.v, volume.shape._discs))
    dxy = max(0.0, sd - cylinder.radius)
    z0 = f.origin[2]
    dz = max(0.0, cylinder.base[2] - (z0 + volume.height), z0 - cylinder.top_z)
    return math.hypot(dxy, dz)


def _level_gaps(volume: TemplateVolume, cylinder: Cylinder, eps: float):
    """Exact contact test for a level volume: None, or the data for a common point."""
    f = volume.frame
    c = np.array([cylinder.base[0], cylinder.base[1], f.origin[2]]) - f.origin
    cu, cv = np.array([c @ f.u]), np.array([c @ f.v])
    sd = float(sd_discs(cu, cv, volume.shape._discs)[0])
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
    f = volume.frame
    q = closest_discs(cu, cv, volume.shape._discs)[0]
    out = f.origin + q[0] * f.u + q[1] * f.v
    out[2] = 0.5 * (lo + hi)
    return out


# --------------------------------------------------------------------------------------
# any volume: one-dimensional convex search
# --------------------------------------------------------------------------------------


def pitched_contact(volume: TemplateVolume, cyl: Cylinder, eps: float) -> np.ndarray | None:
    """Exact contact test for any volume (see ``volume_touches_cylinder``); a common point.

    Returns a point of the volume lying in the cylinder grown by ``eps``, or None.
    """
    f = volume.frame
    ch, sh = cos_sin_deg(volume.heading_deg)
    cp, sp = cos_sin_deg(volume.pitch_deg)
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
        half = half_width(discs, s)
        t = min(max(bc, -half), half)
        return (a - ac) ** 2 + (t - bc) ** 2, a, t, w

    found = minimize_convex(lambda s: best(s)[0], s_lo, s_hi, below=r * r)
    if not found.reached:
        return None
    _, _, t, w = best(found.x)
    return _point(f, found.x, t, w)


def _point(f: LocalFrame, s: float, t: float, w: float) -> np.ndarray:
    return f.origin + s * f.u + t * f.v + w * f.normal
