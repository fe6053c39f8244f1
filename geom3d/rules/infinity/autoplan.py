"""The plan side of Infinity ``heading_deg: auto``: which troopers each placement can affect.

A level direct teardrop whose Blast Focus is at angle ``theta + delta`` on the attacker's
base edge and whose axis points along ``theta`` *touches* a trooper in plan when their
footprints meet. Three things make the touched set only a first step towards what a
placement can affect (issue 35):

* **close combat** (defect 1): a trooper engaged with a touched one joins the area
  without being touched, so what a placement can affect is the *closure* of its touched
  set under the engaged groups;
* **routes** (defect 2): a trooper on a route is touched when the template meets its
  silhouette anywhere along the route. Its plan footprint along a route segment is a
  capsule; it is covered by discs at samples every ``AUTO_ROUTE_STEP_MM`` along the route
  whose radius is grown to ``sqrt(r^2 + (s/2)^2)`` (every point of the capsule is within
  that of the nearest sample), so the plan test never misses a placement touching the
  route (it may report one that only comes close: the engine's resolver decides);
* **Blast Focus Line of Fire** (defect 3): scenery can hide a touched trooper from one
  placement of a set and not from another, so a set is judged over the placements it
  allows, not at one representative: the exact cells of
  :func:`geom3d.placement.search.search_placements`, plus (``grid=True``, asked when the
  cells fell short) a grid every ``AUTO_GRID_STEP_DEG`` of heading and contact offset.

Everything here is plan geometry; the full resolver judges placements
(:mod:`geom3d.rules.infinity.auto`).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from geom3d.placement.search import evaluate, search_placements

if TYPE_CHECKING:
    from geom3d.scene.scene import Scene
    from geom3d.scene.trooper import Trooper
    from geom3d.templates import TemplateShape


#: Infinity ``auto``: grid of extra placements (heading and contact offset, degrees) beside
#: the exact cells, so a touched set is judged over the placements it allows.
AUTO_GRID_STEP_DEG: float = 1.0

#: Infinity ``auto``: a trooper on a route is covered in plan by discs this far apart along
#: the route (radius grown to cover the capsule between them).
AUTO_ROUTE_STEP_MM: float = 10.0

__all__ = ["PlanSets", "plan_sets", "spread_order", "to_troopers"]


@dataclass(frozen=True)
class PlanSets:
    """Placements and what each can affect in plan.

    Attributes
    ----------
    ids : list of str
        Trooper columns (every trooper but the attacker), scenario order.
    theta, delta : (P,) float, radians
        Heading and contact offset (contact angle ``theta + delta``).
    exact : (P,) bool
        From the exact cell search (the rest are grid samples).
    interior : (P,) bool
        Inside a cell of the exact search (grid samples count as interior).
    touched : (P, M) bool
        Trooper ``ids[j]`` touched in plan (on a route: somewhere along it).
    closed : (P, M) bool
        ``touched`` closed under the engaged groups: what the placement can affect.
    events : int
        Critical headings of the exact search.
    discs : (N, 3) float, mm
        The plan discs (route samples grown, see the module docstring).
    owner : (N,) int
        The trooper column of each disc.
    """

    ids: list[str]
    theta: np.ndarray
    delta: np.ndarray
    exact: np.ndarray
    interior: np.ndarray
    touched: np.ndarray
    closed: np.ndarray
    events: int
    discs: np.ndarray
    owner: np.ndarray


def _discs(
    scene: Scene, attacker: Trooper, shape: TemplateShape
) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Plan discs ``[x, y, r]`` and the trooper column each belongs to."""
    z0 = attacker.position[2]
    z1 = z0 + shape.height
    ids = [t for t in scene.troopers if t != attacker.id]
    discs: list[tuple[float, float, float]] = []
    owner: list[int] = []
    for j, tid in enumerate(ids):
        t = scene.troopers[tid]
        if t.route is None:
            if t.position[2] > z1 or t.position[2] + t.height < z0:
                continue
            discs.append((t.position[0], t.position[1], t.radius))
            owner.append(j)
            continue
        pts = np.asarray(t.route, dtype=np.float64)[:, :2]
        step = AUTO_ROUTE_STEP_MM
        grown = math.hypot(t.radius, 0.5 * step)
        samples = [pts[:1]]
        for p, q in itertools.pairwise(pts):
            n = max(1, math.ceil(float(np.hypot(*(q - p))) / step))
            f = np.arange(1, n + 1, dtype=np.float64)[:, None] / n
            samples.append(p + f * (q - p))
        for x, y in np.concatenate(samples):
            discs.append((float(x), float(y), grown))
            owner.append(j)
    return ids, np.asarray(discs, dtype=np.float64).reshape(-1, 3), np.asarray(owner, dtype=int)


def to_troopers(hit: np.ndarray, owner: np.ndarray, m: int) -> np.ndarray:
    """(P, N) disc hits -> (P, m) trooper hits (a trooper is hit when any disc of it is)."""
    out = np.zeros((len(hit), m), dtype=bool)
    for j in np.unique(owner):
        out[:, j] = hit[:, owner == j].any(axis=1)
    return out


def _closure(touched: np.ndarray, ids: list[str], groups: dict[str, tuple[str, ...]]) -> np.ndarray:
    closed: np.ndarray = touched.copy()
    col = {t: j for j, t in enumerate(ids)}
    for tid, group in groups.items():
        if tid not in col:
            continue
        members = [col[g] for g in group if g in col]
        closed[:, col[tid]] |= touched[:, members].any(axis=1)
    return closed


def plan_sets(
    scene: Scene,
    attacker: Trooper,
    shape: TemplateShape,
    dmax_deg: float,
    groups: dict[str, tuple[str, ...]],
    *,
    grid: bool,
) -> PlanSets:
    """Every placement cell (and with ``grid`` every grid placement), with what it
    touches and can affect.

    Parameters
    ----------
    scene : geom3d.scene.Scene
    attacker : geom3d.trooper.Trooper
    shape : TeardropShape
    dmax_deg : float
        Largest contact offset (:func:`geom3d.placement.direct.max_contact_offset_deg`).
    groups : dict
        :func:`geom3d.rules.infinity.groups.engaged_groups`.
    """
    ids, discs, owner = _discs(scene, attacker, shape)
    center = np.asarray(attacker.position[:2], dtype=np.float64)
    R = float(attacker.radius)
    cand = search_placements(shape, center, R, discs, dmax_deg)
    th = np.radians(np.arange(0.0, 360.0, AUTO_GRID_STEP_DEG)) if grid else np.zeros(0)
    nd = max(0, math.floor(dmax_deg / AUTO_GRID_STEP_DEG))
    dl = np.radians(np.arange(-nd, nd + 1) * AUTO_GRID_STEP_DEG)
    gt, gd = (a.ravel() for a in np.meshgrid(th, dl))
    ghit = evaluate(shape, center, R, discs, gt, gd)
    theta = np.concatenate((cand.theta, gt))
    delta = np.concatenate((cand.delta, gd))
    hit = np.concatenate((cand.hit, ghit)) if len(discs) else np.zeros((len(theta), 0), bool)
    touched = to_troopers(hit, owner, len(ids))
    exact = np.concatenate((np.ones(len(cand.theta), bool), np.zeros(len(gt), bool)))
    interior = np.concatenate((cand.interior, np.ones(len(gt), bool)))
    closed = _closure(touched, ids, groups)
    return PlanSets(ids, theta, delta, exact, interior, touched, closed, cand.events, discs, owner)


def spread_order(theta: np.ndarray, delta: np.ndarray, k: int) -> list[int]:
    """Up to ``k`` indices of placements ``(theta, delta)`` (radians), spread out: index 0
    first, then each time the placement farthest from every one picked (farthest-point
    sampling in (contact angle, heading), angles wrapped)."""
    n = len(theta)
    if n == 0 or k <= 0:
        return []
    phi = theta + delta

    def dist(i: int) -> np.ndarray:
        dp = np.angle(np.exp(1j * (phi - phi[i])))
        dt = np.angle(np.exp(1j * (theta - theta[i])))
        d: np.ndarray = np.hypot(dp, dt)
        return d

    out = [0]
    near = dist(0)
    while len(out) < min(k, n):
        j = int(np.argmax(near))
        if near[j] <= 0.0:
            break
        out.append(j)
        near = np.minimum(near, dist(j))
    return out
