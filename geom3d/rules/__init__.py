"""Rulesets: how each game adjudicates (layer 6), and the name -> ruleset table (layer 7).

The ruleset objects are :mod:`geom3d.rules.infinity` and :mod:`geom3d.rules.wh40k`, both
built on :class:`geom3d.rules.base.StandardRuleset`; :mod:`geom3d.rules.registry` maps a
scenario's ``ruleset`` name to one. Their data (silhouettes, templates, Line of Fire
numbers) is :mod:`geom3d.ruledata`, a lower layer that the scenario parser reads without
importing any rules. Importing this package imports none of its modules.
"""

from __future__ import annotations

__all__: list[str] = []
