"""Template placement geometry (SPEC sections 4.1 and 4.2).

* :func:`direct_teardrop_volume`: a direct teardrop whose narrow end (the Blast Focus)
  touches the edge of the attacker's base at angle ``contact_deg``, its axis along
  ``heading_deg``, on the placement plane through the base underside.
* :func:`passes_through`: does a placed volume overlap a silhouette *beyond touching*
  (the "template may not pass through the attacker's silhouette" rule)?
* :func:`max_contact_offset_deg`: how far the axis may turn away from the outward radial
  at the contact point before the template cuts into the base.
* :func:`solve_heading`: the Warhammer 40k placement solver behind ``heading_deg: auto``
  (plan view: maximise the models of the target unit under the template without touching
  a friendly model), exact: :mod:`geom3d.placement.search`.

All lengths are millimetres, angles degrees counter-clockwise from +x.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from geom3d.bodies.cylinder import Cylinder
from geom3d.bodies.kernel_constants import CONTACT_EPS_MM
from geom3d.core.errors import InputError
from geom3d.core.tolerances import COINCIDENT_EPS_MM
from geom3d.core.validation import xyz
from geom3d.placement.search import evaluate, radial_sweep, rotation_sweep, search_placements
from geom3d.placement.tolerances import CLEAR_BISECT_MM, PENETRATION_TOL_MM, SOLVER_TIE_DECIMALS
from geom3d.templates import (
    CircleShape,
    TeardropShape,
    TemplateShape,
    TemplateVolume,
    volume_touches_cylinder,
)

__all__ = [
    "SolverResult",
    "base_edge_point",
    "best_run",
    "clear_of_silhouette",
    "default_heading",
    "direct_teardrop_volume",
    "heading_towards",
    "max_contact_offset_deg",
    "passes_through",
    "solve_heading",
    "touches_within",
]

# --------------------------------------------------------------------------------------
# basic placement
# --------------------------------------------------------------------------------------


def heading_towards(a_xy, b_xy) -> float:
    """Heading (degrees in [0, 360)) from plan point ``a_xy`` to ``b_xy``; 0 when equal."""
    dx = float(b_xy[0]) - float(a_xy[0])
    dy = float(b_xy[1]) - float(a_xy[1])
    if math.hypot(dx, dy) <= COINCIDENT_EPS_MM:
        return 0.0
    return math.degrees(math.atan2(dy, dx)) % 360.0


def default_heading(contact_deg: float | None, origin_xy, target_xy) -> float | None:
    """Heading of a teardrop placed without one: along ``contact_deg`` when given, else
    from ``origin_xy`` towards ``target_xy`` (the main target), else None (no heading)."""
    if contact_deg is not None:
        return float(contact_deg)
    if target_xy is not None:
        return heading_towards(origin_xy, target_xy)
    return None


def base_edge_point(center_xy, radius: float, angle_deg: float) -> np.ndarray:
    """(2,) float, mm: the point of a base's edge in direction ``angle_deg``."""
    a = math.radians(float(angle_deg))
    return np.array(
        [float(center_xy[0]) + radius * math.cos(a), float(center_xy[1]) + radius * math.sin(a)]
    )


def direct_teardrop_volume(
    shape: TemplateShape,
    base: tuple[float, float, float],
    radius: float,
    heading_deg: float,
    contact_deg: float | None = None,
    pitch_deg: float = 0.0,
) -> TemplateVolume:
    """A direct template touching the edge of a base (Infinity direct teardrop, 40k flamer).

    Parameters
    ----------
    shape : TeardropShape (a CircleShape is accepted and placed the same way)
    base : (3,) float, mm
        Centre of the attacker's base underside; its z is the placement plane's.
    radius : float, mm
        Base radius.
    heading_deg : float
        Template axis.
    contact_deg : float or None
        Direction (from the base centre) of the edge point the Blast Focus touches;
        ``None`` means ``heading_deg`` (the radial placement, always legal).
    pitch_deg : float

    Returns
    -------
    TemplateVolume
        Not checked against the base: see :func:`passes_through`.
    """
    contact = heading_deg if contact_deg is None else contact_deg
    xy = base_edge_point(base[:2], radius, contact)
    return TemplateVolume(shape, (xy[0], xy[1], float(base[2])), heading_deg, pitch_deg)


def _shrunk(cyl: Cylinder, tol: float) -> Cylinder | None:
    if cyl.radius <= tol or cyl.height <= 2.0 * tol:
        return None
    b = cyl.base
    return Cylinder((b[0], b[1], b[2] + tol), cyl.radius - tol, cyl.height - 2.0 * tol)


def passes_through(
    volume: TemplateVolume, cylinder: Cylinder, *, tol: float = PENETRATION_TOL_MM
) -> bool:
    """Whether the volume overlaps the cylinder beyond touching.

    True when the volume meets the cylinder shrunk by ``tol`` (radius, bottom and top):
    touching along a surface, an edge or a point is allowed, cutting in deeper than
    ``tol`` is not. Exact (:func:`geom3d.templates.volume_touches_cylinder`).

    Note that a template pitched *up* from a base edge leans its Blast Focus segment
    (the plane's normal) back into the base; :func:`clear_of_silhouette` slides such a
    placement out until it only touches. Pitching down does not lean back.
    """
    inner = _shrunk(cylinder, tol)
    if inner is None:
        return False
    return volume_touches_cylinder(volume, inner, eps=0.0)


def clear_of_silhouette(volume: TemplateVolume, trooper, contact_deg: float):
    """A pitched direct teardrop moved out until it only touches the attacker (SPEC 11.4).

    A template pitched up from a base edge leans its narrow end (the Blast Focus segment,
    along the tilted normal) back over the base. The placement rule only forbids a volume
    that *enters* the silhouette, so the template is slid outward along the contact
    direction, on its placement plane, by the smallest distance (bisection to
    ``CLEAR_BISECT_MM``, exact contact tests) after which it no longer passes through:
    its narrow end then touches the silhouette's edge.

    Only when the same placement level (pitch 0) is legal: a template that cuts into the
    base in plan stays ``through_attacker``.

    Parameters
    ----------
    volume : TemplateVolume
        Pitched, narrow end on the base edge at ``contact_deg``.
    trooper : geom3d.scene.trooper.Trooper
        The attacker.
    contact_deg : float

    Returns
    -------
    TemplateVolume or None
        None when the level placement is not legal either, or nothing within the
        template's own height clears the silhouette.
    """
    cyl = trooper.cylinder
    level = TemplateVolume(volume.shape, volume.focus, volume.heading_deg, 0.0)
    if passes_through(level, cyl):
        return None
    tight = CONTACT_EPS_MM  # a computed placement touches exactly (the tolerance is for input)
    a = math.radians(contact_deg)
    d = np.array([math.cos(a), math.sin(a), 0.0])
    f0 = np.asarray(volume.focus, dtype=np.float64)

    def moved(s: float) -> TemplateVolume:
        return TemplateVolume(volume.shape, xyz(f0 + s * d), volume.heading_deg, volume.pitch_deg)

    lo, hi = 0.0, volume.height + 2.0 * trooper.radius
    if passes_through(moved(hi), cyl, tol=tight):
        return None
    while hi - lo > CLEAR_BISECT_MM:
        mid = 0.5 * (lo + hi)
        if passes_through(moved(mid), cyl, tol=tight):
            lo = mid
        else:
            hi = mid
    return moved(hi)


def touches_within(volume: TemplateVolume, cylinder: Cylinder, tol: float) -> bool:
    """Whether the volume comes within ``tol`` of the cylinder (touching or overlapping)."""
    return volume_touches_cylinder(volume, cylinder, eps=tol)


def max_contact_offset_deg(shape: TemplateShape) -> float:
    """Largest legal angle between a direct teardrop's axis and its contact direction.

    With the Blast Focus on a base's edge at angle ``phi`` and the axis at ``theta``, the
    template stays outside the base iff both of its sides at the tip stay outside the
    base's tangent line there. A point-tipped teardrop (``narrow_width = 0``) opens at
    half-angle ``alpha = asin(r1 / (L - r1))`` (tangents from the tip to the far circle of
    radius ``r1`` centred ``L - r1`` along the axis), so ``|theta - phi| <= 90 - alpha``.
    A round narrow end (``narrow_width > 0``) is tangent to the base only radially: 0.
    Circles: 0.
    """
    if isinstance(shape, CircleShape):
        return 0.0
    if not isinstance(shape, TeardropShape):
        raise InputError(f"not a template shape: {shape!r}")
    if shape.narrow_width > 0.0:
        return 0.0
    r1 = 0.5 * shape.width
    a1 = shape.length - r1
    alpha = math.degrees(math.asin(min(1.0, r1 / a1)))
    return max(0.0, 90.0 - alpha)


# --------------------------------------------------------------------------------------
# the 40k solver
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SolverResult:
    """Outcome of :func:`solve_heading`.

    Attributes
    ----------
    found : bool
        False when no placement avoids every friendly model.
    heading_deg, contact_deg : float or None
        The chosen placement (degrees in [0, 360)).
    count : int
        Models of the target set under the template there (the maximum).
    examined : int
        Placements evaluated.
    events : int
        Critical headings found (the exact search's slab boundaries).
    heading_interval_deg : (float, float) or None
        The headings reaching ``count`` at the chosen contact point (closed interval,
        degrees, ``lo <= heading <= hi``, ``lo`` in [0, 360)).
    runner_up : int or None
        The best count of any admissible placement below ``count`` (None: none).
    """

    found: bool
    heading_deg: float | None
    contact_deg: float | None
    count: int
    examined: int
    events: int = 0
    heading_interval_deg: tuple[float, float] | None = None
    runner_up: int | None = None


def best_run(theta: np.ndarray, good: np.ndarray) -> tuple[float, float, float] | None:
    """The widest run of consecutive ``good`` samples of a circular sweep.

    Parameters
    ----------
    theta : (P,) float, radians, increasing in [0, 2 pi)
    good : (P,) bool

    Returns
    -------
    (start, end, middle) radians (``end`` may exceed 2 pi), or None when nothing is good.
    """
    n = len(theta)
    if not good.any():
        return None
    if good.all():
        return (0.0, 2.0 * math.pi, 0.0)
    first_bad = int(np.flatnonzero(~good)[0])
    order = (np.arange(n) + first_bad) % n
    th = theta[order]
    th = np.where(np.arange(n) > 0, th + 2.0 * math.pi * (th < th[0]), th)
    g = good[order]
    best = None
    k = 0
    while k < n:
        if not g[k]:
            k += 1
            continue
        j = k
        while j + 1 < n and g[j + 1]:
            j += 1
        w = th[j] - th[k]
        if best is None or w > best[1] - best[0] + 1e-12:
            best = (float(th[k]), float(th[j]))
        k = j + 1
    assert best is not None  # some direction is good (checked above)
    return (best[0], best[1], 0.5 * (best[0] + best[1]))


def solve_heading(
    shape: TemplateShape,
    center_xy,
    radius: float,
    targets,
    friends,
    *,
    eps: float = CONTACT_EPS_MM,
    dmax_deg: float | None = None,
) -> SolverResult:
    """Find the direct-template placement covering the most target models (40k, plan).

    The narrow end touches the firer's base (centre ``center_xy``, radius ``radius``) at
    contact angle ``phi``; the axis points along ``theta``. A model is under the template
    when any part of its base disc is (touching counts); a placement is admissible when
    no friendly base is under it and the template does not cut into the firer's base
    (``|theta - phi| <= max_contact_offset_deg``).

    Exact (:func:`geom3d.placement.search.search_placements`): every cell of the
    arrangement of event curves (where a model enters or leaves the template) is
    evaluated, so the maximum is the true maximum. Choice among the optimal placements
    (deterministic): a radial one (contact angle = heading) when one is optimal, at the
    middle of the widest run of optimal radial headings; otherwise the optimal placement
    inside a cell with the smallest ``|phi - theta|``, then the smallest heading.

    Parameters
    ----------
    shape : TeardropShape or CircleShape
    center_xy : (2,) float, mm
    radius : float, mm
    targets, friends : (k, 3) float, mm
        Discs ``[x, y, radius]`` of the target models and of the friendly models (the
        firer itself excluded).
    dmax_deg : float, optional
        Largest admissible contact offset; default :func:`max_contact_offset_deg` (the
        template stays off the base). 40k passes 180 (ruling A1: the template may lie
        over the firer's own base).

    Returns
    -------
    SolverResult
    """
    t = np.asarray(targets, dtype=np.float64).reshape(-1, 3)
    g = np.asarray(friends, dtype=np.float64).reshape(-1, 3)
    discs = np.vstack((t, g))
    nt = len(t)
    dmax = max_contact_offset_deg(shape) if dmax_deg is None else float(dmax_deg)
    cand = search_placements(shape, center_xy, radius, discs, dmax)
    rth, rhit, _ = radial_sweep(shape, center_xy, radius, discs)
    examined = len(cand.theta) + len(rth)
    cnt = cand.hit[:, :nt].sum(axis=1)
    ok = ~cand.hit[:, nt:].any(axis=1)
    rcnt = rhit[:, :nt].sum(axis=1)
    rok = ~rhit[:, nt:].any(axis=1)
    if not ok.any() and not rok.any():
        return SolverResult(False, None, None, 0, examined, cand.events)
    best = int(max(cnt[ok].max(initial=-1), rcnt[rok].max(initial=-1)))
    below = np.concatenate((cnt[ok & (cnt < best)], rcnt[rok & (rcnt < best)]))
    runner = int(below.max()) if len(below) else None
    run = best_run(rth, rok & (rcnt == best))
    heading = None
    if run is not None:
        h = run[2]
        chk = evaluate(shape, np.asarray(center_xy, float)[:2], radius, discs, [h], [0.0])[0]
        if chk[:nt].sum() == best and not chk[nt:].any():
            heading, offset = h, 0.0
        else:
            k = np.flatnonzero(rok & (rcnt == best))[0]
            heading, offset = float(rth[k]), 0.0
    if heading is None:
        sel = np.flatnonzero(ok & (cnt == best))
        key_h = np.round(np.degrees(cand.theta[sel]) % 360.0, SOLVER_TIE_DECIMALS)
        key_d = np.round(np.abs(np.degrees(cand.delta[sel])), SOLVER_TIE_DECIMALS)
        order = np.lexsort((key_h, key_d, ~cand.interior[sel]))
        k = sel[order[0]]
        heading, offset = float(cand.theta[k]), float(cand.delta[k])
    phi = heading + offset
    ith, ihit, icut = rotation_sweep(
        shape, center_xy, radius, discs, phi, math.radians(dmax), include=[heading]
    )
    igood = (ihit[:, :nt].sum(axis=1) == best) & ~ihit[:, nt:].any(axis=1)
    interval = _run_around(ith, igood, icut, heading)
    return SolverResult(
        True,
        math.degrees(heading) % 360.0,
        math.degrees(phi) % 360.0,
        best,
        examined,
        cand.events,
        interval,
        runner,
    )


def _run_around(theta, good, is_cut, h: float) -> tuple[float, float] | None:
    """The closure of the run of ``good`` samples (increasing ``theta``) containing ``h``.

    A run that starts or ends inside a cell (the crossing beyond it is not good: a
    friendly model touched there) extends to that crossing.
    """
    if not good.any():
        return None
    k = int(np.argmin(np.abs((theta - h + math.pi) % (2.0 * math.pi) - math.pi)))
    if not good[k]:
        return None
    lo = hi = k
    while lo > 0 and good[lo - 1]:
        lo -= 1
    while hi + 1 < len(theta) and good[hi + 1]:
        hi += 1
    if not is_cut[lo] and lo > 0:
        lo -= 1
    if not is_cut[hi] and hi + 1 < len(theta):
        hi += 1
    a = math.degrees(theta[lo])
    return (a % 360.0, a % 360.0 + math.degrees(theta[hi] - theta[lo]))
