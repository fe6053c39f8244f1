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
  a friendly model).

All lengths are millimetres, angles degrees counter-clockwise from +x.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .bodies import Cylinder
from .errors import InputError
from .templates import (
    CircleShape,
    TeardropShape,
    TemplateShape,
    TemplateVolume,
    volume_touches_cylinder,
)
from .tolerances import (
    COINCIDENT_EPS_MM,
    CONTACT_EPS_MM,
    PENETRATION_TOL_MM,
    SOLVER_CONTACT_FRACTIONS,
    SOLVER_FINE_DEG,
    SOLVER_GRID_DEG,
    SOLVER_TIE_DECIMALS,
)

__all__ = [
    "SolverResult",
    "base_edge_point",
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
    (the plane's normal) back into the base, so such a direct placement passes through
    the attacker; pitching down does not.
    """
    inner = _shrunk(cylinder, tol)
    if inner is None:
        return False
    return volume_touches_cylinder(volume, inner, eps=0.0)


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
        False when no examined placement avoids every friendly model.
    heading_deg, contact_deg : float or None
        The chosen placement (degrees in [0, 360)).
    count : int
        Models of the target set under the template there.
    examined : int
        Placements evaluated.
    """

    found: bool
    heading_deg: float | None
    contact_deg: float | None
    count: int
    examined: int


def _plan_sd(shape: TemplateShape, fx, fy, theta_deg, cx, cy) -> np.ndarray:
    """Signed plan distance from disc centres (m,) to K placements: (K, m)."""
    th = np.radians(theta_deg)[:, None]
    c, s = np.cos(th), np.sin(th)
    dx = cx[None, :] - fx[:, None]
    dy = cy[None, :] - fy[:, None]
    lu = c * dx + s * dy
    lv = -s * dx + c * dy
    return shape.signed_distance_xy(lu, lv)


def _evaluate(shape, center, radius, theta, phi, targets, friends, eps):
    """(K,) target counts, (K,) valid flags, (K, n) hit matrix, (K, m) touch matrix."""
    fx = center[0] + radius * np.cos(np.radians(phi))
    fy = center[1] + radius * np.sin(np.radians(phi))
    tx, ty, tr = targets
    gx, gy, gr = friends
    if len(tx):
        hit = _plan_sd(shape, fx, fy, theta, tx, ty) <= tr[None, :] + eps
    else:
        hit = np.zeros((len(theta), 0), dtype=bool)
    if len(gx):
        touch = _plan_sd(shape, fx, fy, theta, gx, gy) <= gr[None, :] + eps
    else:
        touch = np.zeros((len(theta), 0), dtype=bool)
    return hit.sum(axis=1), ~touch.any(axis=1), hit, touch


def solve_heading(
    shape: TemplateShape,
    center_xy,
    radius: float,
    targets,
    friends,
    *,
    eps: float = CONTACT_EPS_MM,
    grid_deg: float = SOLVER_GRID_DEG,
    fine_deg: float = SOLVER_FINE_DEG,
) -> SolverResult:
    """Find a direct-template placement covering the most target models (40k, plan view).

    The narrow end touches the firer's base (centre ``center_xy``, radius ``radius``) at
    contact angle ``phi``; the axis points along ``theta``. A model is under the template
    when any part of its base disc is (touching counts, :func:`footprint_hits_disc`);
    a placement is admissible when no friendly base is under it and the template does not
    cut into the firer's base (``|theta - phi| <= max_contact_offset_deg``).

    Search (deterministic): headings on a ``grid_deg`` grid from 0, each with the contact
    offsets ``SOLVER_CONTACT_FRACTIONS`` x the largest admissible offset; every grid
    interval across which the set of covered targets or touched friendlies changes (an
    *event*) is re-sampled at ``fine_deg``. The best admissible count wins; ties go to the
    smallest ``|offset|`` (the radial placement first), then the smallest heading in
    [0, 360), then the smallest offset. Only evaluated placements are ever returned, so
    the answer is always admissible; a better placement that exists only inside a grid
    interval with no visible event (narrower than ``grid_deg`` for every model involved)
    can be missed.

    Parameters
    ----------
    shape : TeardropShape or CircleShape
    center_xy : (2,) float, mm
    radius : float, mm
    targets, friends : (k, 3) float, mm
        Discs ``[x, y, radius]`` of the target models and of the friendly models (the
        firer itself excluded).

    Returns
    -------
    SolverResult
    """
    c = np.asarray(center_xy, dtype=np.float64)[:2]
    t = np.asarray(targets, dtype=np.float64).reshape(-1, 3)
    g = np.asarray(friends, dtype=np.float64).reshape(-1, 3)
    tt = (t[:, 0], t[:, 1], t[:, 2])
    gg = (g[:, 0], g[:, 1], g[:, 2])
    dmax = max_contact_offset_deg(shape)
    fracs = SOLVER_CONTACT_FRACTIONS if dmax > 0.0 else (0.0,)
    n_grid = max(1, round(360.0 / grid_deg))
    grid = np.arange(n_grid) * (360.0 / n_grid)
    sub = max(1, round((360.0 / n_grid) / fine_deg))
    cands_theta: list[np.ndarray] = []
    cands_off: list[np.ndarray] = []
    examined = 0
    for f in fracs:
        off = f * dmax
        cnt, ok, hit, touch = _evaluate(shape, c, radius, grid, grid + off, tt, gg, eps)
        examined += len(grid)
        cands_theta.append(grid)
        cands_off.append(np.full(len(grid), off))
        # events: the covered set or the touched set differs between neighbours
        nxt = np.roll(np.arange(n_grid), -1)
        changed = (hit != hit[nxt]).any(axis=1) | (touch != touch[nxt]).any(axis=1)
        idx = np.flatnonzero(changed)
        if len(idx):
            steps = np.arange(1, sub) * (360.0 / n_grid / sub)
            fine = (grid[idx][:, None] + steps[None, :]).ravel()
            cands_theta.append(fine)
            cands_off.append(np.full(len(fine), off))
    theta = np.concatenate(cands_theta)
    offs = np.concatenate(cands_off)
    cnt, ok, _, _ = _evaluate(shape, c, radius, theta, theta + offs, tt, gg, eps)
    examined += len(theta) - n_grid * len(fracs)
    if not ok.any():
        return SolverResult(False, None, None, 0, int(examined))
    best = int(cnt[ok].max())
    sel = np.flatnonzero(ok & (cnt == best))
    heading = np.round(theta[sel] % 360.0, SOLVER_TIE_DECIMALS)
    order = np.lexsort((offs[sel], heading, np.round(np.abs(offs[sel]), SOLVER_TIE_DECIMALS)))
    k = sel[order[0]]
    h = float(theta[k] % 360.0)
    return SolverResult(True, h, float((theta[k] + offs[k]) % 360.0), best, int(examined))
