"""Ruleset names -> ruleset object types: the one table of rulesets.

Adding a ruleset: write its module (a :class:`geom3d.rules.base.StandardRuleset`
subclass implementing ``resolve_attack``), put its data in ``ruledata/<name>.yaml``
(found by name, see :data:`geom3d.ruledata.RULESETS`), and add one line below.
"""

from __future__ import annotations

from geom3d.core.errors import ScenarioError
from geom3d.ruledata import RulesetData
from geom3d.rules.infinity import InfinityRuleset
from geom3d.rules.wh40k import Wh40k7eRuleset
from geom3d.scene.interface import Ruleset

__all__ = ["REGISTRY", "ruleset_for"]

#: Ruleset name -> ruleset object type (called with the ruleset's data).
REGISTRY: dict[str, type[Ruleset]] = {
    "infinity": InfinityRuleset,
    "wh40k-7e": Wh40k7eRuleset,
}


def ruleset_for(data: RulesetData, *, file: str | None = None) -> Ruleset:
    """The ruleset object for ``data`` (chosen by ``data.name``, exactly).

    Raises
    ------
    ScenarioError
        ``unknown ruleset ...`` when no ruleset of that name is registered.
    """
    try:
        kind = REGISTRY[data.name]
    except KeyError:
        raise ScenarioError(
            f"unknown ruleset {data.name!r} (known: {', '.join(REGISTRY)})",
            file=file,
            path="ruleset",
        ) from None
    return kind(data)
