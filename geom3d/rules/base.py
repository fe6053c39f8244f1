"""The common base of the bundled ruleset objects: the Line of Fire engine and attacks.

:class:`StandardRuleset` answers Line of Fire questions with the engine of
:mod:`geom3d.adjudication.lof` (parameterised by the ruleset's
:class:`~geom3d.scene.interface.LofPolicy`)
and attack questions with :meth:`StandardRuleset.resolve_attack` (the one dispatcher of
attacks), which merges the placements and calls the subclass's
:meth:`~geom3d.scene.interface.Ruleset.adjudicate`. A new ruleset subclasses it and
implements ``adjudicate`` (see :mod:`geom3d.rules.registry`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from geom3d.adjudication.attacks import placement_specs, weapon_dict
from geom3d.adjudication.lof import LofResult, line_of_fire, lof_matrix
from geom3d.core.tolerances import SURVEY_DEFAULT_LANES
from geom3d.scene.interface import Ruleset
from geom3d.scene.outcomes import AttackResult
from geom3d.survey import survey

if TYPE_CHECKING:
    from geom3d.scene.scene import Scene
    from geom3d.visibility.cast import VisibilityStats

__all__ = ["StandardRuleset"]


class StandardRuleset(Ruleset):
    """A ruleset using the standard Line of Fire engine and attack pipeline."""

    def line_of_fire(
        self, scene: Scene, from_id: str, to_id: str, *, stats: VisibilityStats | None = None
    ) -> LofResult:
        """See :func:`geom3d.adjudication.lof.line_of_fire`."""
        return line_of_fire(scene, from_id, to_id, stats=stats)

    def lof_matrix(
        self,
        scene: Scene,
        pairs: Iterable[tuple[str, str]] | None = None,
        *,
        stats: VisibilityStats | None = None,
        progress: Callable[[int, int], None] | None = None,
        threads: int | None = None,
        areas: bool = False,
        processes: bool = False,
    ) -> list[LofResult]:
        """See :func:`geom3d.adjudication.lof.lof_matrix`."""
        return lof_matrix(
            scene,
            pairs,
            stats=stats,
            progress=progress,
            threads=threads,
            areas=areas,
            processes=processes,
        )

    def resolve_attack(
        self, scene: Scene, attack_id: str, *, odds: bool = False, stats: Any = None
    ) -> AttackResult:
        """Look the attack up, merge its per-placement overrides into
        :class:`~geom3d.scene.outcomes.PlacementSpec` s
        (:func:`geom3d.adjudication.attacks.placement_specs`) and :meth:`adjudicate` it.

        Raises
        ------
        UnknownIdError
            No such attack.
        ScenarioError
            Bad per-placement overrides (``attacks[i].placements[j].key``); an attack
            whose main target is its attacker (its ``problem``, SPEC 12.6).

        ``odds=True`` adds the exact odds of every affected trooper (SPEC 12.4,
        ``AttackResult.odds``, from :meth:`attack_odds`) when the attack gives a
        ``weapon``, and the weapon with its defaults (``AttackResult.weapon``).
        """
        attack = scene.attack(attack_id)
        if attack.problem is not None:
            raise attack.problem
        result = self.adjudicate(scene, attack, placement_specs(scene, attack), stats=stats)
        if odds:
            result.odds = self.attack_odds(scene, attack, result)
            result.weapon = None if attack.weapon is None else weapon_dict(attack)
        return result

    def survey(
        self,
        scene: Scene,
        *,
        probe: int = 2,
        spacing_mm: float = 50.0,
        workers: int | None = None,
        scheduler: str | None = None,
        lanes_count: int = SURVEY_DEFAULT_LANES,
        progress: Callable[[int, int], None] | None = None,
    ) -> dict[str, Any]:
        """See :func:`geom3d.survey.survey`."""
        return survey(
            scene,
            probe=probe,
            spacing_mm=spacing_mm,
            workers=workers,
            scheduler=scheduler,
            lanes_count=lanes_count,
            progress=progress,
        )
