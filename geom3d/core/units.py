"""Length units. Internally everything is millimetres."""

from __future__ import annotations

__all__ = ["LENGTH_UNITS", "MESH_UNITS", "SCENARIO_UNITS", "to_mm"]

#: Millimetres per unit.
LENGTH_UNITS: dict[str, float] = {"mm": 1.0, "cm": 10.0, "m": 1000.0, "in": 25.4}
#: Units a scenario file may declare.
SCENARIO_UNITS = ("mm", "cm", "in")
#: Units a mesh file may declare.
MESH_UNITS = ("mm", "cm", "m", "in")


def to_mm(value, unit: str):
    """Convert ``value`` (scalar or array) from ``unit`` to millimetres."""
    return value * LENGTH_UNITS[unit]
