"""Length units. Internally everything is millimetres."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, get_args, overload

if TYPE_CHECKING:  # numpy is only named here: this module imports nothing
    from numpy.typing import NDArray

__all__ = ["LENGTH_UNITS", "MESH_UNITS", "SCENARIO_UNITS", "MeshUnit", "ScenarioUnit", "to_mm"]

#: Millimetres per unit.
LENGTH_UNITS: dict[str, float] = {"mm": 1.0, "cm": 10.0, "m": 1000.0, "in": 25.4}
#: Units a scenario file may declare (the type, and its values).
ScenarioUnit = Literal["mm", "cm", "in"]
SCENARIO_UNITS: tuple[str, ...] = get_args(ScenarioUnit)
#: Units a mesh file may declare (the type, and its values).
MeshUnit = Literal["mm", "cm", "m", "in"]
MESH_UNITS: tuple[str, ...] = get_args(MeshUnit)


@overload
def to_mm(value: float, unit: str) -> float: ...
@overload
def to_mm(value: NDArray[Any], unit: str) -> NDArray[Any]: ...
def to_mm(value: float | NDArray[Any], unit: str) -> float | NDArray[Any]:
    """Convert ``value`` (scalar or array) from ``unit`` to millimetres."""
    return value * LENGTH_UNITS[unit]
