"""Where a moving attacker fires from (SPEC 12.5; the audit's moving-attacker defect).

A trooper with a ``route`` fires from one point of it. The attack's ``fire_at`` names
it: an arc length from the route's start, ``{index: i}`` (a route point) or ``best``;
without ``fire_at`` the attacker fires from its ``position``. The template is placed
there, and the main target must be a valid target **from there** (Line of Fire from
that point, with the moving trooper's 360° arc): a target seen only from another point
of the route is not one (it was, before: any route point would do).

``best`` resolves the attack from every candidate point - each route vertex and every
``ROUTE_STEP_MM`` of travel - and keeps the one whose resolved placements affect the
most enemies (the first along the route on a tie). The attacker at a firing point is the
scene's trooper moved there with a one-point route: 360° Line of Fire, and it blocks
nobody, as on its route.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from geom3d.adjudication.routepath import RoutePath, route_path
from geom3d.core.output import round_point, round_value
from geom3d.core.tolerances import ROUTE_STEP_MM

__all__ = ["candidate_arcs", "enemies_affected", "firing_trooper", "resolve_moving"]


def firing_trooper(attacker, s: float | None, path: RoutePath | None = None):
    """``attacker`` standing at arc length ``s`` mm of its route (None: at its
    ``position``), with a one-point route there; a trooper without a route as it is.
    ``path``: the route as the scene stands it (:func:`route_path`: following the
    ground, SPEC 13.1); default its straight polyline."""
    if attacker.route is None:
        return attacker
    if s is None:
        p = attacker.position
    else:
        p, _ = (path if path is not None else RoutePath.of(attacker.route)).at(s)
    p = tuple(float(v) for v in p)
    return replace(attacker, position=p, route=(p,))


def candidate_arcs(path: RoutePath) -> list[float]:
    """Arc lengths (mm) ``best`` tries: every route vertex and every ``ROUTE_STEP_MM``."""
    n = int(np.floor(path.length / ROUTE_STEP_MM + 1e-9))
    cand = {float(c) for c in path.cum} | {k * ROUTE_STEP_MM for k in range(n + 1)}
    return sorted(c for c in cand if c <= path.length)


def enemies_affected(scene, attacker, result) -> list[str]:
    """Enemies of ``attacker`` (not its side, not neutral) the attack affects."""
    return [t for t in result.affected if scene.troopers[t].side not in (attacker.side, "neutral")]


def _info(path: RoutePath, s: float) -> dict:
    p, i = path.at(s)
    return {"at_mm": round_value(s), "index": int(i), "position": round_point(p)}


def resolve_moving(scene, attack, attacker, resolve_from: Callable):
    """Resolve ``attack`` with ``resolve_from(trooper)`` from the attacker's firing point.

    Returns the :class:`~geom3d.scene.outcomes.AttackResult` of that point, with ``fire_at``
    set (``{at_mm, index, position}``; ``best`` adds ``{enemies, candidates}``) when the
    attack gives ``fire_at``."""
    fa = getattr(attack, "fire_at", None)
    if attacker.route is None or fa is None:
        return resolve_from(firing_trooper(attacker, None))
    path = route_path(scene, attacker)
    if fa == "best":
        cands = candidate_arcs(path)
        best = None
        for s in cands:
            res = resolve_from(firing_trooper(attacker, s, path))
            n = len(enemies_affected(scene, attacker, res))
            if best is None or n > best[0]:
                best = (n, s, res)
        assert best is not None  # a route has at least its start to try
        n, s, res = best
        res.fire_at = {**_info(path, s), "best": {"enemies": n, "candidates": len(cands)}}
        return res
    s = float(path.cum[fa["index"]]) if isinstance(fa, dict) else min(float(fa), path.length)
    res = resolve_from(firing_trooper(attacker, s, path))
    res.fire_at = _info(path, s)
    return res
