"""The common base of the bundled ruleset objects: the Line of Fire engine and attacks.

:class:`StandardRuleset` answers Line of Fire questions with the engine of
:mod:`geom3d.lof` (parameterised by the ruleset's :class:`~geom3d.ruleset.LofPolicy`)
and attack questions with :func:`geom3d.attacks.resolve_attack`, which merges the
placements and calls the subclass's :meth:`~geom3d.ruleset.Ruleset.resolve_attack`.
A new ruleset subclasses it and implements ``resolve_attack`` (see
:mod:`geom3d.rules.registry`).
"""

from __future__ import annotations

from geom3d.attacks import resolve_attack
from geom3d.lof import line_of_fire, lof_matrix
from geom3d.ruleset import Ruleset
from geom3d.survey import survey

__all__ = ["StandardRuleset"]


class StandardRuleset(Ruleset):
    """A ruleset using the standard Line of Fire engine and attack pipeline."""

    def line_of_fire(self, scene, from_id: str, to_id: str, **kwargs):
        """See :func:`geom3d.lof.line_of_fire`."""
        return line_of_fire(scene, from_id, to_id, **kwargs)

    def lof_matrix(self, scene, pairs=None, **kwargs):
        """See :func:`geom3d.lof.lof_matrix`."""
        return lof_matrix(scene, pairs, **kwargs)

    def resolve(self, scene, attack_id: str, **kwargs):
        """See :func:`geom3d.attacks.resolve_attack`."""
        return resolve_attack(scene, attack_id, **kwargs)

    def survey(self, scene, **kwargs) -> dict:
        """See :func:`geom3d.survey.survey`."""
        return survey(scene, **kwargs)
