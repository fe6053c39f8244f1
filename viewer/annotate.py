"""Text of a diagram: ``--title``, ``--caption``, ``--no-legend`` and ``--annotate``.

:func:`decorate` is the last step of :func:`viewer.compose.build_drawing`. ``--annotate``
takes a comma-separated list of :data:`viewer.layers.annotations.ANNOTATIONS`:

- ``heights``: each scenery piece in the picture labelled with its top height, each
  trooper's label with its silhouette height (the suffix is added by compose);
- ``distances``: centre-to-centre and base-to-base distances of the Line of Fire (or of
  attacker and main target), and the length of the deciding ray, labelled on the ray;
- ``templates``: each template labelled with its dimensions at its far end.

Whatever ``--caption`` says, an attack diagram's caption ends with the dimensions of the
templates used (``large_teardrop: teardrop 203 x 63.5 mm (length x width), 31.75 mm
high``), so a published picture says which template it shows.
"""

from __future__ import annotations

from geom3d.core.errors import InputError

from .layers.annotations import (
    distance_annotations,
    parse_annotate,
    scenery_height_labels,
    template_dimensions,
    template_labels,
)
from .model import Drawing
from .wording import length

__all__ = ["check_text", "decorate", "height_suffix"]

#: Longest ``--title`` / ``--caption``, characters.
MAX_TEXT_CHARS = 2000


def check_text(value, option: str) -> str | None:
    """A ``--title`` / ``--caption`` value: printable text of bounded length, or None."""
    if value is None:
        return None
    text = str(value)
    if len(text) > MAX_TEXT_CHARS:
        raise InputError(f"{option}: at most {MAX_TEXT_CHARS} characters, got {len(text)}")
    bad = [c for c in text if (ord(c) < 32 and c != "\n") or 0x7F <= ord(c) < 0xA0]
    if bad:
        raise InputError(f"{option}: control character {bad[0]!a} in the text")
    return text


def height_suffix(scene, annotate) -> dict[str, str]:
    """Label suffix per trooper for ``--annotate heights`` (``", 40 mm tall"``)."""
    if "heights" not in parse_annotate(annotate):
        return {}
    return {t.id: f", {length(scene, t.height)} tall" for t in scene.troopers.values()}


def _distance_target(scene, spec) -> str | None:
    """The trooper ``--annotate distances`` measures an attack to: its main target, else
    the nearest model of its target unit (40k), else None."""
    if spec.main_target:
        return spec.main_target
    if spec.target_unit:
        unit = [t for t in scene.troopers.values() if t.unit == spec.target_unit]
        if unit:
            a = scene.trooper(spec.attacker).position
            return min(
                unit, key=lambda t: (t.position[0] - a[0]) ** 2 + (t.position[1] - a[1]) ** 2
            ).id
    return None


def decorate(
    scene,
    d: Drawing,
    *,
    annotate=(),
    title: str | None = None,
    caption: str | None = None,
    legend: bool = True,
    attack: tuple | None = None,
    lof: tuple | None = None,
) -> Drawing:
    """Apply the text options to a composed drawing (in place; returns it).

    Parameters
    ----------
    scene : geom3d.Scene
    d : Drawing
    annotate : str or sequence of str
    title, caption : str or None
    legend : bool
    attack : (AttackSpec, doc dict, volumes) or None
        The attack the diagram shows.
    lof : (A, B, pair dict) or None
        The Line of Fire the diagram shows.
    """
    names = parse_annotate(annotate)
    title = check_text(title, "--title")
    caption = check_text(caption, "--caption")
    if title is not None:
        d.title = title
    d.show_legend = bool(legend)
    if "heights" in names:
        d.labels.extend(scenery_height_labels(scene, d.bounds))
    if "distances" in names:
        if lof is not None:
            labels, notes = distance_annotations(scene, lof[0], lof[1], lof[2])
            d.labels.extend(labels)
            d.notes.extend(notes)
        other = _distance_target(scene, attack[0]) if attack is not None else None
        if other is not None:
            labels, notes = distance_annotations(scene, attack[0].attacker, other)
            if lof is None:  # with --lof the deciding ray carries the length already
                d.labels.extend(labels)
            d.notes.extend(n for n in notes if n not in d.notes)
    dims = []
    if attack is not None:
        spec, _doc, volumes = attack
        tname = spec.template_name or spec.template.get("shape", "template")
        dims = list(dict.fromkeys(template_dimensions(v, tname, scene) for v in volumes))
        if "templates" in names:
            d.labels.extend(template_labels(volumes, tname, scene))
    parts = [caption] if caption else []
    if dims:
        parts.append("Template: " + "; ".join(dims) + ".")
    d.caption = "\n".join(parts)
    return d
