"""The attack part of a diagram: template, highlights, Blast Focus rays, Wall of Death.

:func:`attack_part` gathers what :func:`viewer.compose.build_drawing` draws for
``--attack``: the template layer (:mod:`viewer.layers.templates`), Blast Focus rays to
every trooper inside a template (Infinity; :mod:`viewer.layers.focus_rays`), the Wall of
Death ring and outcome of a 40k snap shot (:mod:`viewer.layers.wall_of_death`), the label
suffixes (``(attacker)``, ``: hit``) and the troopers the picture must frame.
"""

from __future__ import annotations

from .layers.focus_rays import focus_ray_actors
from .layers.templates import attack_actors
from .layers.wall_of_death import wall_of_death_part
from .model import Drawing
from .wording import has_blast_focus

__all__ = ["attack_part"]


def attack_part(scene, spec, doc: dict, volumes) -> tuple[Drawing, dict, list, list]:
    """Everything an attack adds to a diagram.

    Parameters
    ----------
    scene : geom3d.Scene
    spec : geom3d.scenario.AttackSpec
    doc : dict
        ``AttackResult.to_dict()``.
    volumes : list of TemplateVolume

    Returns
    -------
    part : Drawing
    suffix : dict[str, str]
        Label suffix per trooper id.
    focus_ids : list of str
        Troopers the picture frames: attacker, main target, affected, excluded, and a
        Wall of Death's target unit.
    extra : list of arrays, mm
        Other things the picture frames (template bounds, the 8" ring's nearest point).
    """
    part = attack_actors(scene, doc, volumes, spec)
    affected = list(doc.get("affected", []))
    excluded = {e["id"]: e.get("reason", "") for e in doc.get("excluded", [])}
    infinity = has_blast_focus(scene)
    if infinity:  # 40k has no Blast Focus: its templates hit what they cover in plan
        rays = focus_ray_actors(scene, volumes, excluded, affected=affected)
        part.actors.extend(rays.actors)
        for e in rays.legend:
            part.add_legend(e.label, e.color, e.face)
        part.notes.extend(rays.notes)
    extra: list = [v.bounds() for v in volumes]
    unit: list[str] = []
    if doc.get("wall_of_death"):
        wod, unit, more = wall_of_death_part(scene, spec, doc)
        part.title = f"attack {doc.get('id', '?')}: {wod.title}"
        part.subtitle = wod.subtitle + (
            f"; target unit {spec.target_unit}" if spec.target_unit else ""
        )
        part.actors.extend(wod.actors)
        part.labels.extend(wod.labels)
        for e in wod.legend:
            part.add_legend(e.label, e.color, e.face)
        part.notes.extend(wod.notes)
        extra.extend(more)
    suffix: dict[str, str] = {spec.attacker: " (attacker)"}
    if spec.main_target:
        role = " (target)" if getattr(spec, "plain", False) else " (main target)"
        suffix[spec.main_target] = suffix.get(spec.main_target, "") + role
    troopers = doc.get("troopers") or {}
    for tid in affected:
        hit = infinity or troopers.get(tid, {}).get("in_target_unit", True)
        suffix[tid] = suffix.get(tid, "") + (": hit" if hit else ": under the template")
    for tid in unit:
        suffix[tid] = suffix.get(tid, "") + " (target unit)"
    focus_ids = list(
        dict.fromkeys(
            [spec.attacker]
            + ([spec.main_target] if spec.main_target else [])
            + affected
            + list(excluded)
            + unit
        )
    )
    return part, suffix, [t for t in focus_ids if t in scene.troopers], extra
