"""The ruleset object type: what a :class:`~geom3d.scene.scene.Scene` asks its rules for.

A ruleset is an object holding its data (:class:`geom3d.ruledata.RulesetData`: base
height, silhouettes, templates, Line of Fire numbers) and answering three questions for
a scene: Line of Fire between two troopers, the Line of Fire matrix, and the resolution
of one attack. The scene receives its ruleset when it is built
(:func:`geom3d.api.build_scene`) and asks it, so nothing below the rules ever imports
them and no code chooses rules by the spelling of a name.

Adding a ruleset: a module under ``geom3d/rules/`` with a subclass of
:class:`geom3d.rules.base.StandardRuleset` (or of :class:`Ruleset` directly) that
implements :meth:`Ruleset.resolve_attack`, a data file ``geom3d/ruledata/<name>.yaml``
listed in :data:`geom3d.ruledata.RULESETS`, and one line in
:data:`geom3d.rules.registry.REGISTRY`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from geom3d.core.tolerances import SURVEY_DEFAULT_LANES
from geom3d.ruledata import RulesetData

if TYPE_CHECKING:  # for annotations only: the results are made above this layer
    from geom3d.scenario import AttackSpec
    from geom3d.scene.outcomes import AttackResult, PlacementSpec
    from geom3d.scene.results import LofResult
    from geom3d.visibility.cast import VisibilityStats


#: The scene a ruleset is asked about (a :class:`geom3d.scene.scene.Scene`). Typed loosely
#: because that module imports this one: the interface names the scene without importing
#: it, so the scene's floor has no import cycle, even one only type checkers follow.
SceneRef = Any

__all__ = ["LofPolicy", "Ruleset"]


@dataclass(frozen=True)
class LofPolicy:
    """The ruleset's Line of Fire policy, read by the engine (:mod:`geom3d.adjudication.lof`).

    Attributes
    ----------
    patch_mm : float, mm
        Side of the minimum visible patch (the 3 x 3 mm rule).
    arc_deg : float, degrees
        The front arc: 180 (the half-space in front of the base) or 360 (all around).
    engaged_sees_only_contact : bool
        Engaged troopers have Line of Fire only to troopers in base contact (and then
        all around); to anyone else ``reason = "engaged"``.
    """

    patch_mm: float
    arc_deg: float
    engaged_sees_only_contact: bool = True

    @classmethod
    def from_data(cls, data: RulesetData, *, engaged_sees_only_contact: bool = True) -> LofPolicy:
        """The policy of a ruleset's data file (``line_of_fire: {patch_mm, arc_deg}``)."""
        lof = data.line_of_fire
        return cls(float(lof["patch_mm"]), float(lof["arc_deg"]), engaged_sees_only_contact)


class Ruleset(ABC):
    """A ruleset: its data, its Line of Fire policy and its attack resolver.

    Parameters
    ----------
    data : RulesetData
        After the scenario's ``ruleset_overrides``.

    Attributes
    ----------
    data : RulesetData
    lof_policy : LofPolicy
    name, base_height, silhouettes, templates, template_sources
        The data's fields (read-only shortcuts).
    """

    def __init__(self, data: RulesetData) -> None:
        self.data = data
        self.lof_policy = self.make_lof_policy(data)

    def make_lof_policy(self, data: RulesetData) -> LofPolicy:
        """The Line of Fire policy for ``data`` (override to change the engagement rule)."""
        return LofPolicy.from_data(data)

    # ------------------------------------------------------------------ data
    @property
    def name(self) -> str:
        return self.data.name

    @property
    def base_height(self) -> float:
        """mm."""
        return self.data.base_height

    @property
    def silhouettes(self) -> dict:
        """Silhouette number -> (base diameter, height), mm."""
        return self.data.silhouettes

    @property
    def templates(self) -> dict:
        """Template name -> shape spec, mm."""
        return self.data.templates

    @property
    def template_sources(self) -> dict:
        return self.data.template_sources

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"

    # ------------------------------------------------------------------ questions
    @abstractmethod
    def line_of_fire(
        self, scene: SceneRef, from_id: str, to_id: str, *, stats: VisibilityStats | None = None
    ) -> LofResult:
        """Line of Fire from ``from_id`` to ``to_id`` in ``scene`` (a ``LofResult``)."""

    @abstractmethod
    def lof_matrix(
        self,
        scene: SceneRef,
        pairs: Iterable[tuple[str, str]] | None = None,
        *,
        stats: VisibilityStats | None = None,
        progress: Callable[[int, int], None] | None = None,
        threads: int | None = None,
        areas: bool = False,
        processes: bool = False,
    ) -> list[LofResult]:
        """Line of Fire for ``pairs`` (default: all ordered pairs), a list of ``LofResult``
        (the options: :func:`geom3d.adjudication.lof.lof_matrix`)."""

    @abstractmethod
    def resolve_attack(
        self, scene: SceneRef, attack_id: str, *, odds: bool = False, stats: Any = None
    ) -> AttackResult:
        """Resolve the attack ``attack_id`` of ``scene`` (an ``AttackResult``): the one
        dispatcher every attack goes through (``Scene.resolve_attack`` and
        :func:`geom3d.adjudication.attacks.resolve_attack` call it)."""

    def survey(
        self,
        scene: SceneRef,
        *,
        probe: int = 2,
        spacing_mm: float = 50.0,
        workers: int | None = None,
        scheduler: str | None = None,
        lanes_count: int = SURVEY_DEFAULT_LANES,
        progress: Callable[[int, int], None] | None = None,
    ) -> dict[str, Any]:
        """Survey the whole table of ``scene`` (SPEC 11.6; :func:`geom3d.survey.survey`).

        Rulesets using the standard visibility core get it from
        :class:`geom3d.rules.base.StandardRuleset`.
        """
        raise NotImplementedError(f"ruleset {self.name!r} does not survey tables")

    def attack_odds(self, scene, attack, result) -> dict:
        """The exact odds of each trooper ``result`` affects (SPEC 12.4).

        Returns
        -------
        dict[str, geom3d.combat.Odds]

        Raises
        ------
        UsageError
            The ruleset has no roll rules (only Infinity's are written, SPEC 12.4).
        """
        from geom3d.core.errors import UsageError

        raise UsageError(
            f"ruleset {self.name!r} has no roll rules: odds are Infinity's (SPEC 12.4)"
        )

    @abstractmethod
    def adjudicate(
        self, scene: SceneRef, attack: AttackSpec, specs: list[PlacementSpec], *, stats: Any = None
    ) -> AttackResult:
        """Adjudicate one attack whose placements are merged (the game's own rules).

        Parameters
        ----------
        scene : geom3d.scene.scene.Scene
        attack : geom3d.scenario.AttackSpec
        specs : list of geom3d.scene.outcomes.PlacementSpec
            One per template placement (burst).
        stats : optional
            The resolver's counters, for benchmarks (a ruleset may have none).

        Returns
        -------
        geom3d.scene.outcomes.AttackResult
        """
