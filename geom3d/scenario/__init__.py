"""Scenario files (SPEC section 5): parse, validate, convert to millimetres.

A scenario is YAML or JSON. Every problem is a :class:`~geom3d.core.errors.ScenarioError`
naming the file and the field path, e.g.
``table.yaml: troopers[2].silhouette: unknown silhouette 9 (known: 1-8)``.
After :func:`load_scenario` every length is in millimetres and every reference (trooper
ids, template names, silhouettes, per-placement main targets) is known to resolve.

Modules: :mod:`~geom3d.scenario.schema` (the raw pydantic schema),
:mod:`~geom3d.scenario.model` (the validated dataclasses), :mod:`~geom3d.scenario.parse`
(reading and the per-section checks, with :mod:`~geom3d.scenario.attack` for attacks and
their placements and :mod:`~geom3d.scenario.shapes` for template shapes),
:mod:`~geom3d.scenario.context` (units and error reporting).
"""

from __future__ import annotations

from geom3d.scenario.model import AttackSpec, LofExpectation, Scenario, SceneryItem, TrooperSpec
from geom3d.scenario.parse import load_scenario, parse_scenario

__all__ = [
    "AttackSpec",
    "LofExpectation",
    "Scenario",
    "SceneryItem",
    "TrooperSpec",
    "load_scenario",
    "parse_scenario",
]
