"""Infinity ``auto``: the middle of the chosen region, and its margin (ruling 13.3).

The search (:mod:`geom3d.rules.infinity.auto`) finds *which* troopers the best placement
affects; any placement of the same region would do, and one on the region's edge is a
knife-edge answer: pasted back as printed it can miss the main target by 0.0002 mm. This
module moves each chosen placement to the middle of its region and reports how far it is
from every decision boundary.

**Margin** of a direct teardrop placement (heading ``theta``, contact offset ``delta``),
in mm: the smallest of

* ``|sd - r|`` over every trooper's plan disc within the template's height (main
  target, friends, other enemies: ``sd`` the plan distance from the disc's centre to the
  template, ``r`` its radius): how far the template may move before a trooper starts or
  stops touching it;
* ``R * (dmax - |delta|)`` (``R`` the attacker's base radius, ``dmax`` the largest
  contact offset, radians) when offsets are allowed: sliding the Blast Focus along the
  base edge by that much moves the template that far before it cuts into the attacker.

*Total Cover* (Blast Focus Line of Fire) is not a plan quantity: the placement of
largest plan margin is judged by the engine, and the margin is confirmed by judging the
four placements moved by 0.99 of it (heading by ``m / (R + L)`` radians, which moves no point of
the template more than ``m``, ``L`` its length; contact by ``m / R``); while one of them
changes the affected set the margin is halved (``AUTO_MARGIN_REFINE + 4`` times at most).

Search: a plan grid over ``(theta, delta)`` every ``AUTO_MARGIN_GRID_DEG`` (offsets
every twice that), kept where the touched set equals the chosen one's, refined
``AUTO_MARGIN_REFINE`` times around the best by a factor 10; the ``AUTO_MARGIN_TRIES``
best separated spots are judged in order until one affects exactly the chosen troopers.
The chosen placement is kept unless a spot gains ``AUTO_MARGIN_GAIN_MM``.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from geom3d.bodies.kernel_constants import CONTACT_EPS_MM
from geom3d.rules.infinity.autoplan import to_troopers

#: Infinity ``auto`` (ruling 13.3): the chosen placement is moved to the middle of its
#: region on a plan grid (AUTO_MARGIN_GRID_DEG, refined AUTO_MARGIN_REFINE times by 10),
#: the AUTO_MARGIN_TRIES widest spots judged; a move must gain AUTO_MARGIN_GAIN_MM.
AUTO_MARGIN_GRID_DEG: float = 1.0
AUTO_MARGIN_REFINE: int = 2
AUTO_MARGIN_TRIES: int = 6
AUTO_MARGIN_GAIN_MM: float = 1e-3

__all__ = ["centre_placement", "plan_margin"]

#: The confirming moves go this share of the margin (a move of the whole margin lands on
#: the boundary itself, where float rounding decides).
_CHECK = 0.99


def _plan(shape, center, R, discs, theta, delta):
    """(P, N) signed plan distance minus radius of every disc, at each placement."""
    th = np.asarray(theta, dtype=np.float64)[:, None]
    ph = th + np.asarray(delta, dtype=np.float64)[:, None]
    dx = discs[None, :, 0] - (center[0] + R * np.cos(ph))
    dy = discs[None, :, 1] - (center[1] + R * np.sin(ph))
    c, s = np.cos(th), np.sin(th)
    return shape.signed_distance_xy(c * dx + s * dy, -s * dx + c * dy) - discs[None, :, 2]


def plan_margin(shape, center, R, discs, theta, delta, dmax: float):
    """Plan margins (mm) and touched discs of placements (see the module docstring).

    Parameters
    ----------
    shape : TeardropShape
    center : (2,) float, mm
        The attacker's base centre.
    R : float, mm
    discs : (N, 3) float, mm
    theta, delta : (P,) float, radians
    dmax : float, radians

    Returns
    -------
    margin : (P,) float, mm
    hit : (P, N) bool
        Disc touched (the engine's plan test, ``sd <= r + CONTACT_EPS_MM``).
    """
    theta = np.atleast_1d(np.asarray(theta, dtype=np.float64))
    delta = np.atleast_1d(np.asarray(delta, dtype=np.float64))
    margin = np.full(len(theta), np.inf)
    if dmax > 0.0:
        margin = R * (dmax - np.abs(delta))
    if len(discs) == 0:
        return margin, np.zeros((len(theta), 0), dtype=bool)
    gap = _plan(shape, center, R, discs, theta, delta)
    return np.minimum(margin, np.abs(gap).min(axis=1)), gap <= CONTACT_EPS_MM


def _grid(t0, d0, step_deg, half, dmax):
    """Placements around (t0, d0), radians: ``2 * half + 1`` steps each way."""
    k = np.arange(-half, half + 1, dtype=np.float64)
    st = math.radians(step_deg)
    th = t0 + k * st
    de = np.clip(d0 + k * 2.0 * st, -dmax, dmax) if dmax > 0.0 else np.zeros(1)
    T, D = np.meshgrid(th, np.unique(de), indexing="ij")
    return T.ravel(), D.ravel()


def _best_spots(shape, center, R, ps, key, dmax):
    """Plan spots (theta, delta, margin) touching exactly ``key``, widest first and at
    least two grid steps apart."""
    n = round(180.0 / AUTO_MARGIN_GRID_DEG)
    th, de = _grid(0.0, 0.0, AUTO_MARGIN_GRID_DEG, n, dmax)
    m, hit = plan_margin(shape, center, R, ps.discs, th, de, dmax)
    same = (to_troopers(hit, ps.owner, len(ps.ids)) == key).all(axis=1) & (m > 0.0)
    order = np.flatnonzero(same)[np.argsort(-m[same], kind="stable")]
    spots: list[tuple[float, float, float]] = []
    sep = 2.0 * math.radians(AUTO_MARGIN_GRID_DEG)
    for i in order:
        if len(spots) == AUTO_MARGIN_TRIES:
            break
        if all(abs(_wrap(th[i] - t)) > sep or abs(de[i] - d) > 2 * sep for t, d, _ in spots):
            spots.append(_refine(shape, center, R, ps, key, dmax, th[i], de[i], m[i]))
    return spots


def _wrap(a: float) -> float:
    return (a + math.pi) % (2.0 * math.pi) - math.pi


def _refine(shape, center, R, ps, key, dmax, t, d, m, rounds=AUTO_MARGIN_REFINE):
    """The best plan spot near (t, d): ``rounds`` grids of 21 x 21 steps, each ten
    times finer, around the best so far."""
    step = AUTO_MARGIN_GRID_DEG * (10.0 if rounds > AUTO_MARGIN_REFINE else 1.0)
    for _ in range(rounds):
        th, de = _grid(t, d, step / 10.0, 10, dmax)
        mm, hit = plan_margin(shape, center, R, ps.discs, th, de, dmax)
        same = (to_troopers(hit, ps.owner, len(ps.ids)) == key).all(axis=1)
        if same.any():
            i = int(np.flatnonzero(same)[np.argmax(mm[same])])
            if mm[i] > m:
                t, d, m = float(th[i]), float(de[i]), float(mm[i])
        step /= 10.0
    return (t, d, m)


def _affected(res) -> tuple[str, ...] | None:
    return tuple(res.affected) if res.outcome == "resolved" else None


def centre_placement(shape, attacker, ps, dmax_deg: float, spec, heading, contact, judge):
    """The chosen ``(heading, contact)`` (degrees) moved to the middle of its region.

    Parameters
    ----------
    shape : TeardropShape
    attacker : geom3d.scene.trooper.Trooper
    ps : geom3d.rules.infinity.autoplan.PlanSets
        The plan discs and trooper columns.
    dmax_deg : float
    spec : PlacementSpec
        The placement asked for (its main target, pitch).
    heading, contact : float, degrees
        The search's choice.
    judge : callable
        PlacementSpec -> PlacementResult.

    Returns
    -------
    heading, contact : float, degrees
    margin_mm : float
        Confirmed as the module docstring says.
    """
    center = np.asarray(attacker.position[:2], dtype=np.float64)
    R = float(attacker.radius)
    dmax = math.radians(dmax_deg)
    t0 = math.radians(heading)
    d0 = _wrap(math.radians(contact) - t0) if dmax > 0.0 else 0.0
    m0, hit0 = plan_margin(shape, center, R, ps.discs, [t0], [d0], dmax)
    key = to_troopers(hit0, ps.owner, len(ps.ids))[0]
    want = _affected(judge(replace(spec, heading_deg=heading, contact_deg=contact)))
    best = (t0, d0, float(m0[0]))
    near = _refine(shape, center, R, ps, key, dmax, t0, d0, best[2], AUTO_MARGIN_REFINE + 1)
    spots = sorted([*_best_spots(shape, center, R, ps, key, dmax), near], key=lambda x: -x[2])
    # then points between the choice and the local middle (scenery may hide a trooper
    # from the middle and not from nearer the choice)
    spots += [(t0 + f * (near[0] - t0), d0 + f * (near[1] - d0)) for f in (0.5, 0.25, 0.125)]
    for spot in spots:
        t, d = spot[0], spot[1]
        m = (
            spot[2]
            if len(spot) == 3
            else float(plan_margin(shape, center, R, ps.discs, [t], [d], dmax)[0][0])
        )
        if m < best[2] + AUTO_MARGIN_GAIN_MM:
            continue
        h, c = _degrees(t, d)
        if _affected(judge(replace(spec, heading_deg=h, contact_deg=c))) == want:
            best = (t, d, m)
            break
    t, d, m = best
    L = float(shape.length)
    for _ in range(AUTO_MARGIN_REFINE + 4):
        if not math.isfinite(m) or m <= 0.0:
            break
        x = _CHECK * m
        moves = [(x / (R + L), 0.0), (-x / (R + L), 0.0)]
        if dmax > 0.0:
            moves += [(0.0, x / R), (0.0, -x / R)]
        ok = True
        for dt, dd in moves:  # the heading turned (offset kept), or the focus slid
            h, c = _degrees(t + dt, d + dd)
            if _affected(judge(replace(spec, heading_deg=h, contact_deg=c))) != want:
                ok = False
                break
        if ok:
            break
        m *= 0.5
    h, c = _degrees(t, d)
    return h, c, (m if math.isfinite(m) else None)


def _degrees(t: float, d: float) -> tuple[float, float]:
    return math.degrees(t) % 360.0, math.degrees(t + d) % 360.0
