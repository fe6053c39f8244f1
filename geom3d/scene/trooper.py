"""A trooper placed in a scene: an exact silhouette cylinder with its states.

Built by :class:`geom3d.scene.scene.Scene` from the scenario's trooper specs (after
drop-to-surface); also importable as ``geom3d.scene.scene.Trooper``.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable
from dataclasses import dataclass, replace

import numpy as np

from geom3d.bodies.cylinder import Cylinder
from geom3d.core.validation import xyz
from geom3d.scene.vehicles import VehicleBody

__all__ = ["Trooper"]


@dataclass(frozen=True)
class Trooper:
    """A trooper placed in the scene.

    Attributes
    ----------
    id, side : str
    position : (3,) tuple of float, mm
        Centre of the underside of the base (after drop-to-surface).
    facing_deg : float
        Counter-clockwise from +x.
    silhouette : int or None
        Silhouette number, None for an explicit cylinder.
    diameter : float, mm
    height : float, mm
        Effective height: the base height when prone.
    states : frozenset of str
    engaged_with : tuple of str
        Symmetric: if A lists B, both are engaged with each other.
    route : (k, 3) tuple of tuples, mm, or None
    route_dropped : (k,) tuple of bool, or None
        Which route points were given ``[x, y]`` (dropped): a stretch between two of them
        follows the ground (SPEC 13.1, :func:`geom3d.adjudication.routepath.route_path`).
    unit : str or None
    dropped : bool
        True when z came from drop-to-surface.
    vehicle : VehicleBody or None
        40k vehicle: its hull in plan, barrel and armour (SPEC 12.6).
    """

    id: str
    side: str
    position: tuple[float, float, float]
    facing_deg: float
    silhouette: int | None
    diameter: float
    height: float
    states: frozenset
    engaged_with: tuple[str, ...] = ()
    route: tuple[tuple[float, float, float], ...] | None = None
    unit: str | None = None
    dropped: bool = False
    vehicle: VehicleBody | None = None
    route_dropped: tuple[bool, ...] | None = None

    @functools.cached_property
    def cylinder(self) -> Cylinder:
        """The silhouette volume (made once per trooper)."""
        return Cylinder(self.position, 0.5 * self.diameter, self.height)

    @property
    def radius(self) -> float:
        return 0.5 * self.diameter

    @property
    def is_marker(self) -> bool:
        return "marker" in self.states

    @property
    def is_prone(self) -> bool:
        return "prone" in self.states

    @property
    def has_360(self) -> bool:
        """360-degree Line of Fire: markers and ``arc360``."""
        return bool({"marker", "arc360"} & self.states)

    @property
    def is_moving(self) -> bool:
        return self.route is not None

    @property
    def blocks_lof(self) -> bool:
        """Does this trooper's volume obstruct other troopers' Line of Fire?

        Markers and troopers moving along a route do not (SPEC 2.1, 3.5).
        """
        return not (self.is_marker or self.is_moving)

    @property
    def facing_vector(self) -> np.ndarray:
        """(2,) float: unit vector of the facing in the xy plane."""
        a = math.radians(self.facing_deg)
        return np.array([math.cos(a), math.sin(a)])

    def moved_to(self, position: Iterable[float]) -> Trooper:
        """A copy standing at ``position`` ((3,) float, mm)."""
        return replace(self, position=xyz(float(v) for v in position))
