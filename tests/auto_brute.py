"""Brute-force reference for Infinity ``heading_deg: auto`` (issue 35): every placement of a
grid of headings and contact offsets judged by the engine's own per-placement resolver
(placement rules, Blast Focus Line of Fire, close combat, routes, cancellation)."""

from __future__ import annotations

import numpy as np

from geom3d.placement.blast_focus import FocusStats
from geom3d.placement.direct import max_contact_offset_deg
from geom3d.rules.infinity.groups import engaged_groups
from geom3d.rules.infinity.resolve import _resolve_placement
from geom3d.scene.outcomes import PlacementSpec
from geom3d.templates import shape_from_spec


def best_by_grid(scene, attack_id, headings_deg, offset_step_deg):
    """(most enemies affected by one resolved placement, its (heading, contact)) over the
    grid; (-1, None) when no grid placement resolves."""
    attack = scene.attack(attack_id)
    shape = shape_from_spec(attack.template)
    attacker = scene.trooper(attack.attacker)
    groups = engaged_groups(scene)
    cache: dict = {}
    stats = FocusStats()
    dmax = max_contact_offset_deg(shape)
    n = int(dmax // offset_step_deg)
    offsets = np.arange(-n, n + 1) * offset_step_deg
    best, where = -1, None
    for h in headings_deg:
        for off in offsets:
            spec = PlacementSpec(0, float(h), float(h + off), None, attack.pitch_deg,
                                 attack.main_target)  # fmt: skip
            res = _resolve_placement(scene, attack, shape, attacker, spec, groups, cache, stats)
            if res.outcome != "resolved":
                continue
            got = sum(scene.troopers[t].side not in (attacker.side, "neutral")
                      for t in res.affected)  # fmt: skip
            if got > best:
                best, where = got, (float(h), float(h + off))
    return best, where
