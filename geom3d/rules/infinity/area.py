"""The area of effect of one placed template: who touches it, and with Blast Focus LoF.

See :mod:`geom3d.rules.infinity` (area of effect, Blast Focus Line of Fire, routes).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from geom3d.bodies.cylinder import Cylinder
from geom3d.bodies.kernel_constants import CONTACT_EPS_MM
from geom3d.placement.blast_focus import FocusStats, blast_focus_lof
from geom3d.placement.blast_focus import t3 as _t3
from geom3d.rules.infinity.routes import route_candidates
from geom3d.templates import TemplateVolume, volume_touches_cylinder

if TYPE_CHECKING:
    from geom3d.scenario import AttackSpec
    from geom3d.scene.scene import Scene
    from geom3d.scene.trooper import Trooper

__all__ = ["area_status"]


def _bounds_overlap(vb: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> bool:
    return bool(np.all(lo <= vb[1] + CONTACT_EPS_MM) and np.all(hi >= vb[0] - CONTACT_EPS_MM))


def area_status(
    scene: Scene,
    attack: AttackSpec,
    attacker: Trooper,
    volume: TemplateVolume,
    stats: FocusStats | None,
) -> dict[str, tuple[Any, ...]]:
    """Per trooper touching the volume: ('in', witness) / ('total_cover',) / ('attacker',)."""
    vb = volume.bounds()
    status: dict[str, tuple[Any, ...]] = {}
    for t in scene.troopers.values():
        if t.id == attacker.id:
            t = attacker  # where it fires from (a moving attacker: its firing point)
        if t.route is not None:
            rp = np.asarray(t.route, dtype=np.float64)
            lo = rp.min(axis=0) - [t.radius, t.radius, 0.0]
            hi = rp.max(axis=0) + [t.radius, t.radius, t.height]
        else:
            p = np.asarray(t.position)
            lo = p - [t.radius, t.radius, 0.0]
            hi = p + [t.radius, t.radius, t.height]
        if not _bounds_overlap(vb, lo, hi):
            continue
        if t.route is not None:
            positions = route_candidates(volume, t)
        else:
            positions = (
                [np.asarray(t.position)] if volume_touches_cylinder(volume, t.cylinder) else []
            )
        if not positions:
            continue
        if t.id == attacker.id and attack.mode == "direct":
            status[t.id] = ("attacker",)
            continue
        verdict = None
        for pos in positions:
            cyl = Cylinder(_t3(pos), t.radius, t.height)
            r = blast_focus_lof(volume, cyl, scene.engine, stats=stats)
            if r.affected:
                w = {"kind": r.kind, "eye": r.eye, "target": r.target}
                if t.route is not None:
                    w["position"] = _t3(pos)
                verdict = ("in", w)
                break
        status[t.id] = verdict if verdict is not None else ("total_cover",)
    return status
