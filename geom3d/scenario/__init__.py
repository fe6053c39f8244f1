"""Scenario files (SPEC section 5): parse, validate, convert to millimetres.

A scenario is YAML or JSON. Every problem is a :class:`~geom3d.core.errors.ScenarioError`
naming the file and the field path, e.g.
``table.yaml: troopers[2].silhouette: unknown silhouette 9 (known: 1-8)``.
After :func:`load_scenario` every length is in millimetres and every reference (trooper
ids, template names, silhouettes, per-placement main targets) is known to resolve.

Modules: :mod:`~geom3d.scenario.load` (reading, then the schema, then the sections),
:mod:`~geom3d.scenario.schema` (the raw pydantic schema),
:mod:`~geom3d.scenario.model` (the validated dataclasses), :mod:`~geom3d.scenario.parse`
(the per-section checks, with :mod:`~geom3d.scenario.attack` for attacks and
their placements and :mod:`~geom3d.scenario.shapes` for template shapes),
:mod:`~geom3d.scenario.context` (units and error reporting).

The names below load on first use, so importing a light module of this package (the
reader, the schema) does not import the sections' geometry.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from geom3d.scenario.load import load_scenario, parse_scenario
    from geom3d.scenario.model import (
        AttackSpec,
        LofExpectation,
        Scenario,
        SceneryItem,
        TrooperSpec,
    )

__all__ = [
    "AttackSpec",
    "LofExpectation",
    "Scenario",
    "SceneryItem",
    "TrooperSpec",
    "load_scenario",
    "parse_scenario",
]

_HOME = {
    "AttackSpec": "model",
    "LofExpectation": "model",
    "Scenario": "model",
    "SceneryItem": "model",
    "TrooperSpec": "model",
    "load_scenario": "load",
    "parse_scenario": "load",
}


def __getattr__(name: str) -> Any:
    """The package's names, loaded on first use (see the module docstring)."""
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"geom3d.scenario.{_HOME[name]}"), name)
    globals()[name] = value
    return value
