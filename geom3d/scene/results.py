"""What Line of Fire answers (SPEC 3, 11.3, 12.5): the result types of
:mod:`geom3d.adjudication.lof`, kept on the scene's floor so that the scene and its
:class:`~geom3d.scene.interface.Ruleset` interface can name them without importing the
engine above them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from geom3d.core.output import round_point, round_value
from geom3d.visibility import PatchWitness

__all__ = ["LofResult", "RouteResult", "RouteWindow"]


@dataclass(frozen=True)
class RouteResult:
    """LoF along a route.

    Attributes
    ----------
    any : bool
        LoF exists at some point of the route.
    first_index : int or None
        Index of the route segment (from vertex ``i`` to ``i + 1``; the last vertex has
        the last index) on which LoF first exists.
    first_position : (3,) tuple of float, mm, or None
        Base-centre position of the moving trooper where LoF first exists (refined to
        ``ROUTE_REFINE_MM`` of travel).
    mover : str
        Id of the trooper whose route is evaluated (when both troopers move, they
        advance together, the same fraction of their routes; arc lengths are this one's).
    windows : tuple of RouteWindow
        Every stretch of the route with LoF, in route order (SPEC 12.5).
    """

    any: bool
    first_index: int | None
    first_position: tuple[float, float, float] | None
    mover: str
    windows: tuple[RouteWindow, ...] = ()


@dataclass(frozen=True)
class RouteWindow:
    """A stretch of a route where LoF exists (SPEC 12.5).

    Attributes
    ----------
    from_mm, to_mm : float, mm
        Arc length from the route's start to the stretch's ends (``ROUTE_REFINE_MM``
        resolution; LoF exists at both ends, which lie on the route).
    from_position, to_position : (3,) tuple of float, mm
        The mover's base centre at the ends.
    """

    from_mm: float
    to_mm: float
    from_position: tuple[float, float, float]
    to_position: tuple[float, float, float]

    def to_dict(self) -> dict[str, Any]:
        return {
            "from_mm": round_value(self.from_mm),
            "to_mm": round_value(self.to_mm),
            "from_position": round_point(self.from_position),
            "to_position": round_point(self.to_position),
        }


@dataclass(frozen=True)
class LofResult:
    """Line of Fire from one trooper to another.

    Attributes
    ----------
    from_id, to_id : str
    lof : bool
    in_arc : bool
    visible : bool
        Symmetric visibility of the pair (the 3 x 3 mm rule, either direction).
    reason : str or None
        ``out_of_arc``, ``blocked`` or ``engaged`` when ``lof`` is false.
    witness : PatchWitness or None
        For a visible pair: the eye point and patch centre that decide it.
    witness_viewer : str or None
        Id of the trooper the witness eye belongs to (reciprocity may put it on ``to``).
    route : RouteResult or None
        Only when a route is involved.
    """

    from_id: str
    to_id: str
    lof: bool
    in_arc: bool
    visible: bool
    reason: str | None
    witness: PatchWitness | None
    witness_viewer: str | None
    route: RouteResult | None = None

    def to_dict(self, area: bool = True) -> dict[str, Any]:
        """The SPEC section 6 JSON shape (mm, rounded to 1e-3 mm).

        With ``area`` the witness also gives ``visible_area_mm2`` (measured now if it was
        not: one fine pass over the witness eye's view); a matrix that was not asked for
        areas leaves it out (``geom3d lof --areas``)."""
        d: dict[str, Any] = {
            "from": self.from_id,
            "to": self.to_id,
            "lof": self.lof,
            "in_arc": self.in_arc,
            "visible": self.visible,
            "reason": self.reason,
            "witness": None,
        }
        if self.witness is not None:
            d["witness"] = {
                "eye": round_point(self.witness.eye),
                "patch_center": round_point(self.witness.patch_center),
            }
            if area:
                d["witness"]["visible_area_mm2"] = round_value(self.witness.visible_area_mm2)
            d["witness"]["viewer"] = self.witness_viewer
        else:
            d["witness"] = {"reason": _NO_WITNESS[self.reason or "blocked"]}
        if self.route is not None:
            d["route"] = {
                "any": self.route.any,
                "first_index": self.route.first_index,
                "first_position": round_point(self.route.first_position),
                "mover": self.route.mover,
                "windows": [w.to_dict() for w in self.route.windows],
            }
        return d


_NO_WITNESS = {
    "blocked": "no eye point sees a 3x3 mm patch",
    "out_of_arc": "no eye point sees a 3x3 mm patch",
    "engaged": "engaged in close combat with other troopers",
}
