"""Infinity ``heading_deg: auto`` for direct teardrops (SPEC 11.4).

The legal placement that contains the main target, affects no allied or neutral trooper
(unless the weapon is harmless) and affects the most enemies; with Burst B (B placements
asking for ``auto`` with the same main target), the B placements affecting the most
distinct enemies.

Search:

1. *Plan sets.* :func:`~geom3d.rules.infinity.autoplan.plan_sets`: every cell of the
   exact placement arrangement (:func:`geom3d.placement.search.search_placements`) and a
   grid of placements, each with the troopers it touches in plan (troopers on a route
   included, defect 2 of issue 35) and the *closure* of that set under the engaged
   groups (a trooper engaged with a touched one joins the area untouched, defect 1).
   Placements are grouped by the set of troopers touched.
2. *Judged by the engine.* A set's enemies in the closure bound what any of its
   placements can affect (Blast Focus Line of Fire only removes troopers; it also lets an
   ally in Total Cover stay unaffected). Sets are judged by the full resolver (placement
   legality, Blast Focus Line of Fire, close combat, routes, the main-target and
   cancellation rules) in order of that bound, until no remaining set can beat (B = 1)
   or add to (B > 1) what is found, or ``AUTO_MAX_REAL_EVALS`` placements were judged
   (reported as ``truncated``). Each set is judged over the placements it allows (its
   widest radial run's middle, then its cells spread out; at most ``AUTO_SET_EVALS``)
   until one affects every enemy of its bound (defect 3): scenery that hides a trooper
   from one placement of a set need not hide it from another. When some set was judged
   without reaching its bound, the sets are judged again with a grid of placements
   every ``AUTO_GRID_STEP_DEG`` of heading and contact offset added to their cells (on
   open ground the first pass is the answer and the grid costs nothing).
   Optimality: exact for which troopers can be touched, and for close combat and routes;
   Blast Focus Line of Fire is judged at those sampled placements of each set, so a set
   whose only good placements lie between them (a gap in scenery narrower than the grid)
   can be missed.
3. With B > 1, the best combination of B judged placements (most distinct enemies; ties
   to the earlier-judged ones) is chosen; a placement may be repeated.
4. Each chosen placement is moved to the middle of its region (ruling 13.3,
   :mod:`~geom3d.rules.infinity.automargin`); the solver entry's ``margin_mm`` gives, per
   chosen placement, its distance in mm to every decision boundary.

When nothing resolves (or the main target is not a valid target), the placements fall
back to the default aim (towards the main target) and are resolved as usual, so the
result says why.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from geom3d.placement.direct import max_contact_offset_deg
from geom3d.placement.search import radial_sweep
from geom3d.placement.tolerances import SOLVER_TIE_DECIMALS
from geom3d.rules.infinity.automargin import centre_placement
from geom3d.rules.infinity.autoplan import PlanSets, plan_sets, spread_order, to_troopers
from geom3d.rules.infinity.validity import target_problem
from geom3d.scene.outcomes import PlacementResult, PlacementSpec
from geom3d.templates import TeardropShape, TemplateShape

if TYPE_CHECKING:
    from geom3d.scenario import AttackSpec
    from geom3d.scene.scene import Scene
    from geom3d.scene.trooper import Trooper

#: Infinity ``heading_deg: auto``: most placements judged by the full engine (Blast Focus
#: Line of Fire included) per search; the search reports when it stopped there.
AUTO_MAX_REAL_EVALS: int = 200

#: Infinity ``auto``: most placements of one touched set judged by the full engine; a set
#: is judged until one placement affects every enemy it can (issue 35 defect 3).
AUTO_SET_EVALS: int = 24

__all__ = ["choose_auto"]

#: Most judged placements combined exhaustively for Burst B > 1.
_MAX_COMBINE = 40

#: The full resolver for one placement.
Judge = Callable[[PlacementSpec], PlacementResult]
#: A placement to make: (heading, contact) in degrees.
HeadingContact = tuple[float, float]


def _is_auto(attack: AttackSpec, shape: TemplateShape, spec: PlacementSpec) -> bool:
    return (
        spec.heading_deg == "auto"
        and attack.mode == "direct"
        and isinstance(shape, TeardropShape)
        and spec.focus is None
    )


def choose_auto(
    scene: Scene,
    attack: AttackSpec,
    shape: TemplateShape,
    attacker: Trooper,
    specs: list[PlacementSpec],
    judge: Judge,
    lof_cache: dict[str, Any],
    groups: dict[str, tuple[str, ...]],
) -> tuple[list[PlacementSpec], list[dict[str, Any]]]:
    """Replace the ``auto`` placements of ``specs`` by chosen headings and contacts.

    Parameters
    ----------
    scene, attack, shape, attacker
    specs : list of PlacementSpec
    judge : callable
        PlacementSpec -> PlacementResult (the full resolver for one placement).
    lof_cache : dict
        Shared Line of Fire cache of the resolver.
    groups : dict
        The engaged groups (:func:`~geom3d.rules.infinity.groups.engaged_groups`).

    Returns
    -------
    specs : list of PlacementSpec
    log : list of dict
        One ``solver`` entry per main target searched.
    """
    todo: dict[str | None, list[int]] = {}
    for s in specs:
        if _is_auto(attack, shape, s):
            todo.setdefault(s.main_target, []).append(s.index)
    out = list(specs)
    for s in specs:  # non-auto placements keep "auto" out of the placement code
        if s.heading_deg == "auto" and not _is_auto(attack, shape, s):
            out[s.index] = replace(s, heading_deg=None)
    log: list[dict[str, Any]] = []
    for main, idx in todo.items():
        entry: dict[str, Any] = {"placements": idx, "main_target": main, "found": False}
        problem = target_problem(scene, attack, attacker, main, lof_cache)
        chosen: list[HeadingContact] | None = None
        if problem is None:
            chosen, info, ps = _search(
                scene, attack, shape, attacker, out[idx[0]], len(idx), judge, groups
            )
            entry.update(info)
            if chosen:
                chosen, entry["margin_mm"] = _centred(
                    shape, attacker, ps, out[idx[0]], chosen, judge
                )
        else:
            entry["reason"] = problem
        for k, j in enumerate(idx):
            if chosen:
                h, c = chosen[k % len(chosen)]
                out[j] = replace(out[j], heading_deg=h, contact_deg=c)
            else:
                out[j] = replace(out[j], heading_deg=None)
        entry["found"] = bool(chosen)
        log.append(entry)
    return out, log


def _radial_middles(shape: TemplateShape, attacker: Trooper, ps: PlanSets) -> dict[bytes, float]:
    """Touched set (packed) -> heading (degrees) in the middle of the widest run of radial
    placements touching exactly that set: the preferred representative of a group."""
    if len(ps.discs) == 0:
        return {}
    th, hit, _ = radial_sweep(shape, attacker.position[:2], attacker.radius, ps.discs)
    hit = to_troopers(hit, ps.owner, len(ps.ids))
    keys = [np.packbits(row).tobytes() for row in hit]
    n = len(th)
    runs: dict[bytes, tuple[float, float]] = {}
    k = 0
    while k < n:
        j = k
        while j + 1 < n and keys[j + 1] == keys[k]:
            j += 1
        lo, hi = float(th[k]), float(th[j])
        if k == 0 and keys[-1] == keys[0] and j < n - 1:
            m = n - 1
            while m > j and keys[m - 1] == keys[0]:
                m -= 1
            lo = float(th[m]) - 2.0 * math.pi
        elif j == n - 1 and k > 0 and keys[0] == keys[k]:
            k = j + 1
            continue  # merged into the first run
        if keys[k] not in runs or hi - lo > runs[keys[k]][1] - runs[keys[k]][0]:
            runs[keys[k]] = (lo, hi)
        k = j + 1
    return {key: math.degrees(0.5 * (lo + hi)) % 360.0 for key, (lo, hi) in runs.items()}


def _placements_of_set(
    ps: PlanSets, members: np.ndarray, radial_deg: float | None
) -> list[HeadingContact]:
    """(heading, contact) in degrees to judge for one touched set, in order: the middle
    of its widest radial run (when it has one), its representative, then its other
    placements spread over contact angles and headings (:func:`spread_order`)."""
    out: list[HeadingContact] = [] if radial_deg is None else [(radial_deg, radial_deg)]
    for k in spread_order(ps.theta[members], ps.delta[members], AUTO_SET_EVALS):
        m = members[k]
        h = math.degrees(ps.theta[m]) % 360.0
        c = math.degrees(ps.theta[m] + ps.delta[m]) % 360.0
        out.append((h, c))
    return out


def _judge_sets(
    scene: Scene,
    attack: AttackSpec,
    shape: TemplateShape,
    attacker: Trooper,
    spec: PlacementSpec,
    burst: int,
    judge: Judge,
    ps: PlanSets,
    budget: int,
) -> tuple[list[tuple[frozenset[str], float, float]], int, bool, bool, int]:
    """Judge the touched sets of ``ps`` in order of their bound (see the module
    docstring). Returns (judged [(enemies, heading, contact)], evaluated, truncated,
    short: some set was judged without reaching its bound, sets)."""
    ids = ps.ids
    sides = [scene.troopers[i].side for i in ids]
    enemy = np.array([s not in (attacker.side, "neutral") for s in sides], dtype=bool)
    friend = ~enemy if not attack.harmless else np.zeros(len(ids), dtype=bool)
    keep = np.ones(len(ps.theta), dtype=bool)
    if spec.main_target in ids and not attack.aro:
        keep &= ps.closed[:, ids.index(spec.main_target)]
    # a set's placements: exact cells first (inside a cell, nearest the radial placement),
    # then grid samples; its representative is the first
    order = np.lexsort(
        (
            np.round(np.degrees(ps.theta), SOLVER_TIE_DECIMALS),
            np.round(np.abs(np.degrees(ps.delta)), SOLVER_TIE_DECIMALS),
            ~ps.interior,
            ~ps.exact,
        )
    )
    order = order[keep[order]]
    packed = np.packbits(ps.touched[order], axis=1) if ids else np.zeros((len(order), 0), np.uint8)
    _, first, inverse = np.unique(packed, axis=0, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    members = [order[inverse == g] for g in range(len(first))]
    reps = order[first]
    ub = (ps.closed[reps] & enemy).sum(axis=1)
    nf = (ps.closed[reps] & friend).sum(axis=1)
    group_order = np.lexsort((first, nf, -ub))
    radial = _radial_middles(shape, attacker, ps)
    judged: list[tuple[frozenset[str], float, float]] = []
    best = -1
    evaluated = 0
    truncated = False
    short = False
    enemy_ids = [t for t, e in zip(ids, enemy, strict=True) if e]
    for g in group_order:
        rep = reps[g]
        bound = int(ub[g])
        plan_set = frozenset(t for t, c in zip(ids, ps.closed[rep], strict=True) if c) & set(
            enemy_ids
        )
        if burst == 1 and bound <= best:
            break
        if burst > 1 and ((bound == 0 and best >= 0) or any(plan_set <= s for s, _, _ in judged)):
            continue
        key = np.packbits(ps.touched[rep]).tobytes() if ids else b""
        tries = _placements_of_set(ps, members[g], radial.get(key))
        reached = False
        for h, c in tries[:AUTO_SET_EVALS]:
            if evaluated >= budget:
                truncated = True
                break
            res = judge(replace(spec, heading_deg=h, contact_deg=c))
            evaluated += 1
            if res.outcome != "resolved":
                continue
            got = frozenset(
                t for t in res.affected if scene.troopers[t].side not in (attacker.side, "neutral")
            )
            judged.append((got, h, c))
            best = max(best, len(got))
            if len(got) >= bound:
                reached = True
                break  # nothing in this set can do better
        if truncated:
            break
        short |= not reached
    return judged, evaluated, truncated, short, len(reps)


def _search(
    scene: Scene,
    attack: AttackSpec,
    shape: TemplateShape,
    attacker: Trooper,
    spec: PlacementSpec,
    burst: int,
    judge: Judge,
    groups: dict[str, tuple[str, ...]],
) -> tuple[list[HeadingContact] | None, dict[str, Any], PlanSets]:
    dmax = max_contact_offset_deg(shape)
    ps = plan_sets(scene, attacker, shape, dmax, groups, grid=False)
    judged, evaluated, truncated, short, n_sets = _judge_sets(
        scene, attack, shape, attacker, spec, burst, judge, ps, AUTO_MAX_REAL_EVALS
    )
    if short and not truncated:
        # scenery hid a trooper from every cell placement judged in some set: judge the
        # sets again over the grid placements they allow too (defect 3)
        ps = plan_sets(scene, attacker, shape, dmax, groups, grid=True)
        more, n, truncated, _, n_sets = _judge_sets(
            scene, attack, shape, attacker, spec, burst, judge, ps, AUTO_MAX_REAL_EVALS - evaluated
        )
        judged += more
        evaluated += n
    info: dict[str, Any] = {
        "events": ps.events,
        "examined": len(ps.theta),
        "groups": n_sets,
        "evaluated": evaluated,
        "truncated": truncated,
    }
    if not judged:
        return None, info, ps
    if burst == 1:
        top = max(range(len(judged)), key=lambda k: (len(judged[k][0]), -k))
        info["enemies"] = len(judged[top][0])
        return [judged[top][1:]], info, ps
    uniq: dict[frozenset[str], HeadingContact] = {}
    for s, h, c in judged:
        uniq.setdefault(s, (h, c))
    sets = sorted(uniq, key=lambda s: -len(s))[:_MAX_COMBINE]
    k = min(burst, len(sets))
    best_combo: tuple[int, ...] | None = None
    best_n = -1
    for combo in itertools.combinations(range(len(sets)), k):
        n = len(frozenset[str]().union(*(sets[i] for i in combo)))
        if n > best_n:
            best_combo, best_n = combo, n
    info["enemies"] = best_n
    assert best_combo is not None  # combinations(range(len(sets)), k <= len(sets)): one at least
    return [uniq[sets[i]] for i in best_combo], info, ps


def _centred(
    shape: TemplateShape,
    attacker: Trooper,
    ps: PlanSets,
    spec: PlacementSpec,
    chosen: list[HeadingContact],
    judge: Judge,
) -> tuple[list[HeadingContact], list[float | None]]:
    """Each chosen placement moved to the middle of its region, with its margin in mm
    (ruling 13.3, :mod:`~geom3d.rules.infinity.automargin`)."""
    dmax = max_contact_offset_deg(shape)
    out: list[HeadingContact] = []
    margins: list[float | None] = []
    for h, c in chosen:
        h, c, m = centre_placement(shape, attacker, ps, dmax, spec, h, c, judge)
        out.append((h, c))
        margins.append(None if m is None else round(m, 3))
    return out, margins
