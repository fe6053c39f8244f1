"""Ruleset-aware words and units of a diagram's text.

A figure speaks the scenario's language: lengths in the file's units (a 40k file in
inches gets inches, never millimetres), and only the terms of its ruleset, as its data
file's capabilities say (40k 7e has no Blast Focus, no direct/impact modes and no
secondary targets: its templates hit the models under them in plan, and only the target
unit's models count as hits).

All text helpers here return plain strings; the PNG, SVG and PDF draw the same strings.
"""

from __future__ import annotations

from geom3d.core.units import LENGTH_UNITS

__all__ = ["area", "has_blast_focus", "hits_text", "length", "length_unit", "number"]


def has_blast_focus(scene) -> bool:
    """Whether the scene's ruleset speaks of 3D templates with a Blast Focus, modes and
    roles (Infinity), or of templates that hit what they cover in plan (40k 7e): its data
    file's ``capabilities.blast_focus``, never its name."""
    return bool(scene.scenario.ruleset.capabilities.blast_focus)


def length_unit(scene) -> str:
    """The unit lengths are written in: the file's (``mm``, ``cm``, ``m``, ``in``)."""
    u = getattr(scene.scenario, "units", "mm")
    return u if u in LENGTH_UNITS else "mm"


def number(scene, mm: float, digits: int = 1, strip: bool = True) -> str:
    """``mm`` millimetres as a number in the file's unit, without the unit.

    ``digits`` decimals for millimetres; one more for centimetres and inches, three more
    for metres (about the same precision). ``strip`` drops trailing zeros (``40``, not
    ``40.0``).
    """
    u = length_unit(scene)
    extra = {"mm": 0, "cm": 1, "in": 1, "m": 3}[u]
    text = f"{float(mm) / LENGTH_UNITS[u]:.{digits + extra}f}"
    if strip and "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def length(scene, mm: float, digits: int = 1, strip: bool = True) -> str:
    """``mm`` millimetres written in the file's unit: ``"40 mm"``, ``"1.6 in"``
    (:func:`number` and the unit)."""
    return f"{number(scene, mm, digits, strip)} {length_unit(scene)}"


def area(scene, mm2: float) -> str:
    """An area (mm²) in the file's unit squared: ``"290 mm²"``, ``"0.45 in²"``."""
    u = length_unit(scene)
    v = float(mm2) / LENGTH_UNITS[u] ** 2
    digits = {"mm": 0, "cm": 1, "in": 2, "m": 5}[u]
    text = f"{v:.{digits}f}"
    if digits:
        text = text.rstrip("0").rstrip(".")
    return f"{text} {u}²"


def hits_text(doc: dict) -> str | None:
    """The hits of a 40k attack document as a note: ``"hits: 3"``, ``"hits: 2 + 1 = 3"``,
    ``"hits: D3 (Wall of Death)"``; None when the document counts no hits."""
    if "hits" not in doc:
        return None
    hits = list(doc.get("hits") or [])
    total = doc.get("hits_total", 0)
    wod = doc.get("wall_of_death") or {}
    if wod.get("applies"):
        return f"hits: {wod.get('hits')} (Wall of Death)"
    if len(hits) > 1:
        return "hits: " + " + ".join(str(h) for h in hits) + f" = {total}"
    return f"hits: {total}"
