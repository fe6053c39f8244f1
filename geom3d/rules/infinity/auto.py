"""Infinity ``heading_deg: auto`` for direct teardrops (SPEC 11.4).

The legal placement that contains the main target, affects no allied or neutral trooper
(unless the weapon is harmless) and affects the most enemies; with Burst B (B placements
asking for ``auto`` with the same main target), the B placements affecting the most
distinct enemies.

Search:

1. *Plan candidates, exact.* A level direct teardrop touches a standing trooper exactly
   when their plan footprints meet and their heights overlap, so which troopers it
   touches is a step function of (heading, contact point) on the attacker's base edge:
   :func:`geom3d.placement.search.search_placements` visits every cell of it (troopers on
   a route are left to step 2). Placements are grouped by the set of troopers touched;
   each group is represented by its placement inside a cell nearest the radial one.
2. *Judged by the engine.* A group's enemies in plan bound what it can affect (Blast
   Focus Line of Fire only removes troopers; it also lets an ally in Total Cover stay
   unaffected). Groups are judged by the full resolver (placement legality, Blast Focus
   Line of Fire, close combat, routes, the main-target and cancellation rules) in order
   of that bound, until no remaining group can beat (B = 1) or add to (B > 1) what is
   found, or ``AUTO_MAX_REAL_EVALS`` groups were judged (reported as ``truncated``).
   Decision: Line of Fire is judged at each group's representative placement, not
   across the whole cell.
3. With B > 1, the best combination of B judged placements (most distinct enemies; ties
   to the earlier-judged ones) is chosen; a placement may be repeated.

When nothing resolves (or the main target is not a valid target), the placements fall
back to the default aim (towards the main target) and are resolved as usual, so the
result says why.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import replace

import numpy as np

from geom3d.core.tolerances import AUTO_MAX_REAL_EVALS, SOLVER_TIE_DECIMALS
from geom3d.placement.direct import max_contact_offset_deg
from geom3d.placement.search import radial_sweep, search_placements
from geom3d.rules.infinity.validity import target_problem
from geom3d.templates import TeardropShape

__all__ = ["choose_auto"]

#: Most judged placements combined exhaustively for Burst B > 1.
_MAX_COMBINE = 40


def _is_auto(attack, shape, spec) -> bool:
    return (
        spec.heading_deg == "auto"
        and attack.mode == "direct"
        and isinstance(shape, TeardropShape)
        and spec.focus is None
    )


def choose_auto(scene, attack, shape, attacker, specs, judge, lof_cache):
    """Replace the ``auto`` placements of ``specs`` by chosen headings and contacts.

    Parameters
    ----------
    scene, attack, shape, attacker
    specs : list of PlacementSpec
    judge : callable
        PlacementSpec -> PlacementResult (the full resolver for one placement).
    lof_cache : dict
        Shared Line of Fire cache of the resolver.

    Returns
    -------
    specs : list of PlacementSpec
    log : list of dict
        One ``solver`` entry per main target searched.
    """
    todo: dict = {}
    for s in specs:
        if _is_auto(attack, shape, s):
            todo.setdefault(s.main_target, []).append(s.index)
    out = list(specs)
    for s in specs:  # non-auto placements keep "auto" out of the placement code
        if s.heading_deg == "auto" and not _is_auto(attack, shape, s):
            out[s.index] = replace(s, heading_deg=None)
    log = []
    for main, idx in todo.items():
        entry = {"placements": idx, "main_target": main, "found": False}
        problem = target_problem(scene, attack, attacker, main, lof_cache)
        chosen = None
        if problem is None:
            chosen, info = _search(scene, attack, shape, attacker, out[idx[0]], len(idx), judge)
            entry.update(info)
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


def _static_discs(scene, attacker, shape):
    """Troopers the level template can touch in plan: (ids, discs (n, 3))."""
    z0 = attacker.position[2]
    z1 = z0 + shape.height
    ids, discs = [], []
    for t in scene.troopers.values():
        if t.id == attacker.id or t.route is not None:
            continue
        if t.position[2] > z1 or t.position[2] + t.height < z0:
            continue
        ids.append(t.id)
        discs.append((t.position[0], t.position[1], t.radius))
    return ids, np.asarray(discs, dtype=np.float64).reshape(-1, 3)


def _radial_middles(shape, attacker, discs) -> dict[bytes, float]:
    """Touched set (packed) -> heading (degrees) in the middle of the widest run of radial
    placements touching exactly that set: the preferred representative of a group."""
    if len(discs) == 0:
        return {}
    th, hit, _ = radial_sweep(shape, attacker.position[:2], attacker.radius, discs)
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


def _search(scene, attack, shape, attacker, spec, burst: int, judge):
    ids, discs = _static_discs(scene, attacker, shape)
    dmax = max_contact_offset_deg(shape)
    cand = search_placements(shape, attacker.position[:2], attacker.radius, discs, dmax)
    sides = [scene.troopers[i].side for i in ids]
    enemy = np.array([s not in (attacker.side, "neutral") for s in sides], dtype=bool)
    friend = ~enemy if not attack.harmless else np.zeros(len(ids), dtype=bool)
    hit = cand.hit
    keep = np.ones(len(hit), dtype=bool)
    if spec.main_target in ids and not attack.aro:
        keep &= hit[:, ids.index(spec.main_target)]
    # representatives: inside a cell first, then nearest the radial placement, then heading
    order = np.lexsort(
        (
            np.round(np.degrees(cand.theta), SOLVER_TIE_DECIMALS),
            np.round(np.abs(np.degrees(cand.delta)), SOLVER_TIE_DECIMALS),
            ~cand.interior,
        )
    )
    order = order[keep[order]]
    packed = np.packbits(hit[order], axis=1) if len(ids) else np.zeros((len(order), 0), np.uint8)
    _, first = np.unique(packed, axis=0, return_index=True)
    reps = order[np.sort(first)]
    ub = (hit[reps] & enemy).sum(axis=1)
    nf = (hit[reps] & friend).sum(axis=1)
    groups = reps[np.lexsort((np.arange(len(reps)), nf, -ub))]
    radial = _radial_middles(shape, attacker, discs)
    judged: list[tuple[frozenset, float, float]] = []
    best = -1
    evaluated = 0
    truncated = False
    enemy_ids = np.array(ids, dtype=object)[enemy] if len(ids) else np.array([], dtype=object)
    for g in groups:
        bound = int((hit[g] & enemy).sum())
        plan_set = frozenset(enemy_ids[hit[g][enemy]]) if len(ids) else frozenset()
        if burst == 1 and bound <= best:
            break
        if burst > 1 and ((bound == 0 and best >= 0) or any(plan_set <= s for s, _, _ in judged)):
            continue
        if evaluated >= AUTO_MAX_REAL_EVALS:
            truncated = True
            break
        key = np.packbits(hit[g]).tobytes() if len(ids) else b""
        if key in radial:
            h = c = radial[key]
        else:
            h = math.degrees(cand.theta[g]) % 360.0
            c = math.degrees(cand.theta[g] + cand.delta[g]) % 360.0
        res = judge(replace(spec, heading_deg=h, contact_deg=c))
        evaluated += 1
        if res.outcome != "resolved":
            continue
        got = frozenset(
            t for t in res.affected if scene.troopers[t].side not in (attacker.side, "neutral")
        )
        judged.append((got, h, c))
        best = max(best, len(got))
    info = {
        "events": cand.events,
        "examined": len(cand.theta),
        "groups": len(groups),
        "evaluated": evaluated,
        "truncated": truncated,
    }
    if not judged:
        return None, info
    if burst == 1:
        top = max(range(len(judged)), key=lambda k: (len(judged[k][0]), -k))
        info["enemies"] = len(judged[top][0])
        return [judged[top][1:]], info
    uniq: dict[frozenset, tuple] = {}
    for s, h, c in judged:
        uniq.setdefault(s, (h, c))
    sets = sorted(uniq, key=lambda s: -len(s))[:_MAX_COMBINE]
    k = min(burst, len(sets))
    best_combo, best_n = None, -1
    for combo in itertools.combinations(range(len(sets)), k):
        n = len(frozenset().union(*(sets[i] for i in combo)))
        if n > best_n:
            best_combo, best_n = combo, n
    info["enemies"] = best_n
    assert best_combo is not None  # combinations(range(len(sets)), k <= len(sets)): one at least
    return [uniq[sets[i]] for i in best_combo], info
