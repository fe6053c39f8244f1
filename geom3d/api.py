"""Entry points: a scenario file or a parsed scenario -> a :class:`~geom3d.scene.scene.Scene`.

The scene gets the ruleset object named by its scenario from the registry
(:mod:`geom3d.rules.registry`) here, at the top, so the scene and the engine below it
never import the rules.

>>> scene = load_scene("meshes/scenarios/wall_blocks.yaml")  # from the repository root
>>> scene.line_of_fire("a", "b").lof, scene.line_of_fire("a", "c").lof
(False, True)
"""

from __future__ import annotations

import os

from geom3d.rules.registry import ruleset_for
from geom3d.scenario import Scenario, load_scenario
from geom3d.scene.interface import Ruleset
from geom3d.scene.scene import Scene

__all__ = ["build_scene", "load_scene"]


def build_scene(
    scenario: Scenario, *, ruleset: Ruleset | None = None, prefetch_proofs: bool = False
) -> Scene:
    """Build the :class:`Scene` of a validated scenario.

    Parameters
    ----------
    scenario : Scenario
    ruleset : Ruleset, optional
        The ruleset object; default: the registry's object for ``scenario.ruleset``.
    prefetch_proofs : bool
        Read the blocking proofs' map in the background while the BVH is built (see
        :class:`Scene`): for callers about to run a Line of Fire matrix.

    Raises
    ------
    ScenarioError
        The scenario's ruleset is not registered.
    """
    if ruleset is None:
        ruleset = ruleset_for(scenario.ruleset, file=scenario.name)
    return Scene(scenario, ruleset, prefetch_proofs=prefetch_proofs)


def load_scene(path: str | os.PathLike[str], *, prefetch_proofs: bool = False) -> Scene:
    """Load a scenario file and build its scene (the main entry point).

    Parameters
    ----------
    path : str or os.PathLike
        YAML or JSON scenario file (SPEC section 5).
    prefetch_proofs : bool
        See :func:`build_scene`.
    """
    return build_scene(load_scenario(path), prefetch_proofs=prefetch_proofs)
