"""The Wall of Death part of a 40k diagram (a template weapon's snap shot, rule text 004).

No template is placed: the figure shows what decides, the 8" range measured from the
firer's base edge (a dashed ring ``firer radius + 8"`` about its centre), the target
unit's models (labelled), the gap from the firer's base to the nearest model's base, and
the outcome, ``D3 hits`` (``D6`` for a Hellstorm) or why not.
"""

from __future__ import annotations

import math

import numpy as np

from geom3d.rules.wh40k import WALL_OF_DEATH_RANGE_MM, target_set
from viewer import palette as pal
from viewer import shapes as sh
from viewer.model import ActorSpec, Drawing, Label
from viewer.wording import length

__all__ = ["RANGE_RING", "wall_of_death_part"]

#: Colour of the 8" ring and the gap to the nearest model.
RANGE_RING = pal.OKABE_ITO["reddish_purple"]

_REASONS = {
    "within_8in": 'a model of the target unit within 8"',
    "charging": "the target unit is charging",
    "not_a_template_weapon": "not a template weapon",
    "ordnance": "an Ordnance weapon",
    "flyer": "the target unit are Flyers",
    None: 'no model within 8" and not charging',
}


def _dashed_circle(c, r: float, z: float, n: int = 96) -> np.ndarray:
    """(k, 2, 3) dash segments of a horizontal circle (every other arc piece)."""
    ang = 2 * math.pi * np.arange(n + 1) / n
    pts = np.column_stack([c[0] + r * np.cos(ang), c[1] + r * np.sin(ang), np.full(n + 1, z)])
    return np.stack([pts[0:-1:2], pts[1::2]], axis=1)


def wall_of_death_part(scene, spec, doc: dict) -> tuple[Drawing, list[str], list]:
    """The Wall of Death actors, labels, notes and title of attack ``spec``.

    Returns
    -------
    part : Drawing
        ``title`` (``Wall of Death: D3 hits``), the dashed 8" ring ``wod:ring``, the gap
        ``wod:gap`` to the nearest model, labels, legend rows and notes.
    unit : list of str
        The target unit's model ids (the figure frames them).
    extra : list of (k, 3) float arrays, mm
        Points the figure must show besides the troopers (where the ring meets the
        line to the nearest model).
    """
    wod = doc.get("wall_of_death") or {}
    firer = scene.trooper(spec.attacker)
    unit = [t for t in target_set(scene, spec, spec.main_target) if t in scene.troopers]
    hits = wod.get("hits")
    applies = bool(wod.get("applies"))
    outcome = f"{hits} hits" if applies and hits else "no hits"
    d = Drawing(title=f"Wall of Death: {outcome}")
    why = _REASONS.get(wod.get("reason"), str(wod.get("reason")).replace("_", " "))
    d.subtitle = f"{spec.template_name or 'template'} snap shot by {spec.attacker}"
    c = np.asarray(firer.position, dtype=float)
    r = firer.radius + WALL_OF_DEATH_RANGE_MM
    z = c[2] + 0.5
    segs = _dashed_circle(c, r, z)
    d.actors.append(
        ActorSpec(
            "wod:ring",
            "annotations",
            sh.segments(segs[:, 0], segs[:, 1]),
            RANGE_RING,
            line_width=3.0,
            lighting=False,
        )
    )
    eight = length(scene, WALL_OF_DEATH_RANGE_MM)
    d.add_legend(f"{eight} from {spec.attacker}'s base", RANGE_RING, "dashed")
    extra = []
    if unit:
        gaps = []
        for tid in unit:
            t = scene.trooper(tid)
            p = np.asarray(t.position, dtype=float)
            gaps.append(float(np.hypot(*(p[:2] - c[:2])) - t.radius - firer.radius))
        k = int(np.argmin(gaps))
        near = scene.trooper(unit[k])
        p = np.asarray(near.position, dtype=float)
        u = p[:2] - c[:2]
        n = float(np.hypot(*u))
        u = u / n if n > 1e-9 else np.array([1.0, 0.0])
        a = np.array([*(c[:2] + u * firer.radius), z])
        b = np.array([*(p[:2] - u * near.radius), z])
        d.actors.append(
            ActorSpec("wod:gap", "annotations", sh.segments(a, b), RANGE_RING,
                      line_width=2.0, lighting=False)
        )  # fmt: skip
        gap = length(scene, gaps[k])
        d.labels.append(Label("annotations", tuple(0.5 * (a + b)), gap, RANGE_RING))
        d.notes.append(f"nearest model of the target unit: {unit[k]}, {gap} base to base")
        extra.append(np.array([[*(c[:2] + u * r), z]]))
        d.notes.append("target unit: " + ", ".join(unit))
    d.notes.append(f"Wall of Death: {outcome} ({why})")
    return d, unit, extra
