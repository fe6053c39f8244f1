"""The ``templates`` layer: template volumes, Blast Focus, and the attack part of a diagram."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyvista as pv

from viewer import palette as pal
from viewer import shapes as sh
from viewer.layers.troopers import highlight_actors
from viewer.model import ActorSpec, Drawing
from viewer.wording import has_blast_focus, hits_text

__all__ = ["TEMPLATE_OPACITY", "attack_actors", "template_actors"]

#: Opacity of template volumes.
TEMPLATE_OPACITY = 0.28


def template_actors(volumes: Sequence, focus: bool = True) -> list[ActorSpec]:
    """Translucent template volumes, their outlines, and the Blast Focus of each.

    Parameters
    ----------
    volumes : sequence of geom3d.templates.TemplateVolume

    The Blast Focus (Infinity; ``focus=False`` leaves it out) is drawn as its 3D segment
    (:meth:`TemplateVolume.focus_segment`) in black with a ball at the focus point.
    """
    out: list[ActorSpec] = []
    for i, vol in enumerate(volumes):
        tm = vol.to_trimesh(sections=72)
        out.append(
            ActorSpec(
                f"template:{i}",
                "templates",
                sh.faces_mesh(tm.vertices, tm.faces),
                pal.TEMPLATE,
                TEMPLATE_OPACITY,
                meta={"volume": i},
            )
        )
        ring = vol.shape.boundary(72)
        m = len(ring)
        bottom = vol.to_world(np.column_stack([ring, np.zeros(m)])) + np.array([0, 0, 0.3])
        top = vol.to_world(np.column_stack([ring, np.full(m, vol.height)]))
        rims = pv.merge([sh.polyline(bottom, closed=True), sh.polyline(top, closed=True)])
        out.append(
            ActorSpec(
                f"template:{i}:outline",
                "templates",
                rims,
                pal.TEMPLATE,
                line_width=2.0,
                lighting=False,
            )
        )
        if not focus:
            continue
        seg = vol.focus_segment()
        ball = max(2.5, 0.12 * vol.height)
        focus = pv.merge([sh.segments(seg[0], seg[1]), sh.spheres(seg[0] + [0, 0, 0.5], ball)])
        out.append(
            ActorSpec(
                f"template:{i}:focus",
                "templates",
                focus,
                pal.FOCUS,
                line_width=4.0,
                lighting=False,
                meta={"focus": [float(v) for v in seg[0]]},
            )
        )
    return out


def attack_actors(scene, doc: dict, volumes: Sequence, attack_spec=None) -> Drawing:
    """The attack part of a diagram, from the SPEC 6 attack JSON and template volumes.

    Parameters
    ----------
    scene : geom3d.Scene
    doc : dict
        One entry of ``geom3d attack --format json`` (``AttackResult.to_dict()``).
    volumes : sequence of TemplateVolume
        The placed templates to draw.
    attack_spec : geom3d.scenario.AttackSpec or None
        For the attacker, main target and template name in the labels.

    Returns
    -------
    Drawing
        Title, actors, labels, legend and notes of the attack; no scenery or troopers.
    """
    affected = list(doc.get("affected", []))
    excluded = {e["id"]: e.get("reason", "") for e in doc.get("excluded", [])}
    outcome = doc.get("outcome", "?")
    reason = doc.get("reason")
    title = f"attack {doc.get('id', '?')}: {outcome}"
    if reason:
        title += f" ({str(reason).replace('_', ' ')})"
    infinity = has_blast_focus(scene)
    d = Drawing(title=title)
    d.actors.extend(template_actors(volumes, focus=infinity))
    ha, hl = highlight_actors(scene, affected, excluded)
    d.actors.extend(ha)
    d.labels.extend(hl)
    parts = []
    if attack_spec is not None:
        tname = attack_spec.template_name or attack_spec.template.get("shape", "template")
        if getattr(attack_spec, "plain", False):
            parts.append(f"BS attack by {attack_spec.attacker}, target {attack_spec.target}")
        elif infinity:
            parts.append(f"{tname}, {attack_spec.mode}, by {attack_spec.attacker}")
            if attack_spec.main_target:
                parts.append(f"main target {attack_spec.main_target}")
        else:  # 40k: no modes, no main/secondary roles; the target unit counts
            parts.append(f"{tname} template, by {attack_spec.attacker}")
            if attack_spec.target_unit:
                parts.append(f"target unit {attack_spec.target_unit}")
            elif attack_spec.main_target:
                parts.append(f"target {attack_spec.main_target}")
    d.subtitle = "; ".join(parts)
    if not doc.get("wall_of_death"):
        d.notes.append("affected: " + (", ".join(affected) if affected else "none"))
    for tid, why in excluded.items():
        d.notes.append(f"not affected: {tid} ({str(why).replace('_', ' ')})")
    for tid, info in sorted((doc.get("troopers") or {}).items()):
        if not infinity:
            unit = info.get("in_target_unit")
            d.notes.append(f"  {tid}: " + ("target unit, hit" if unit else "other unit, no hit"))
            continue
        bits = [info.get("role", "")]
        kind = _reaction_kind(scene, tid)
        if kind == "none":
            bits.append("no reaction")
        elif kind == "attack":
            bits.append("shoots back")
        elif info.get("dodge"):
            bits.append(f"dodge {info['dodge']}")
        d.notes.append(f"  {tid}: " + ", ".join(b for b in bits if b))
    hits = hits_text(doc)
    if hits and not doc.get("wall_of_death"):
        d.notes.append(hits)
    if volumes:
        d.add_legend("template volume", pal.TEMPLATE)
        if infinity:
            d.add_legend("Blast Focus", pal.FOCUS, "disc")
    if affected:
        d.add_legend("affected" if infinity else "under the template", pal.AFFECTED, "ring")
    if any(why != "attacker" for why in excluded.values()):
        d.add_legend("not affected (reason given)", pal.EXCLUDED, "cross")
    return d


def _reaction_kind(scene, tid: str) -> str | None:
    """What trooper ``tid`` declares (``none``, ``dodge``, ``attack``; None: the default,
    a dodge where allowed), so a trooper that does not dodge is not labelled with one."""
    spec = next((t for t in scene.scenario.troopers if t.id == tid), None)
    reaction = None if spec is None else spec.reaction
    return None if reaction is None else reaction.kind
