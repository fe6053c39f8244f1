"""Where an Infinity template goes: direct, impact and deployable placement (SPEC 4.1).

See :mod:`geom3d.rules.infinity` for the rules; :func:`place` returns the template volume
or the ``invalid`` :class:`~geom3d.scene.outcomes.PlacementResult` that explains why there is
none.
"""

from __future__ import annotations

import math

from geom3d.core.tolerances import PLACEMENT_TOL_MM
from geom3d.placement.blast_focus import t3 as _t3
from geom3d.placement.direct import (
    clear_of_silhouette,
    default_heading,
    direct_teardrop_volume,
    passes_through,
    touches_within,
)
from geom3d.scene.outcomes import PlacementSpec, invalid_placement
from geom3d.templates import CircleShape, TemplateVolume

__all__ = ["place"]


def _focus_point(scene, focus, default_z: float | None) -> tuple[float, float, float]:
    if len(focus) == 3:
        return _t3(focus)
    z = default_z if default_z is not None else float(scene.surface_z([focus[:2]])[0])
    return (float(focus[0]), float(focus[1]), z)


def place(scene, attack, shape, attacker, spec: PlacementSpec):
    """(volume, heading, contact) or a PlacementResult for an invalid placement."""
    mode = attack.mode
    is_circle = isinstance(shape, CircleShape)
    main = scene.troopers.get(spec.main_target) if spec.main_target else None
    heading = spec.heading_deg if isinstance(spec.heading_deg, float | int) else None
    contact = spec.contact_deg
    pitch = spec.pitch_deg
    if mode == "direct":
        if is_circle:
            # 001: centred over the centre of the attacker's base (ruling 13.3): a focus
            # given elsewhere (beyond the contact tolerance) is not a legal placement
            focus = attacker.position
            h = heading if heading is not None else 0.0
            if spec.focus is not None:
                given = _focus_point(scene, spec.focus, attacker.position[2])
                off = math.dist(given, attacker.position)
                if off > PLACEMENT_TOL_MM:
                    vol = TemplateVolume(shape, given, h, pitch)
                    return invalid_placement(spec, "not_centred", vol, h, None)
            return TemplateVolume(shape, focus, h, pitch), h, None
        if heading is None:
            towards = main.position if main is not None and main.id != attacker.id else None
            heading = default_heading(contact, attacker.position, towards)
            if heading is None:
                return invalid_placement(spec, "no_heading")
        if spec.focus is not None:
            vol = TemplateVolume(
                shape, _focus_point(scene, spec.focus, attacker.position[2]), heading, pitch
            )
            if not touches_within(vol, attacker.cylinder, PLACEMENT_TOL_MM):
                return invalid_placement(spec, "not_touching_attacker", vol, heading, contact)
        else:
            if contact is None:
                contact = heading
            vol = direct_teardrop_volume(
                shape, attacker.position, attacker.radius, heading, contact, pitch
            )
            if pitch != 0.0 and passes_through(vol, attacker.cylinder):
                vol = clear_of_silhouette(vol, attacker, contact) or vol
        if passes_through(vol, attacker.cylinder):
            return invalid_placement(spec, "through_attacker", vol, heading, contact)
        return vol, heading, contact
    if mode == "impact":
        if not is_circle:
            return invalid_placement(spec, "impact_not_circular")
        if spec.focus is not None:
            focus = _focus_point(scene, spec.focus, None)
        elif main is not None:
            focus = main.position
        else:
            return invalid_placement(spec, "no_main_target")
        h = heading if heading is not None else 0.0
        return TemplateVolume(shape, focus, h, pitch), h, None
    # deployable
    if spec.focus is None:
        return invalid_placement(spec, "no_focus")
    focus = _focus_point(scene, spec.focus, None)
    if heading is None:
        if is_circle:
            heading = 0.0
        else:
            heading = default_heading(contact, focus, None if main is None else main.position)
            if heading is None:
                return invalid_placement(spec, "no_heading")
    return TemplateVolume(shape, focus, heading, pitch), heading, None
