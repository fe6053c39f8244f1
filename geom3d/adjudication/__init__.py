"""Adjudication over a scene (layer 5): the Line of Fire engine
(:mod:`~geom3d.adjudication.lof`), the attack entry point
(:mod:`~geom3d.adjudication.attacks`) and the attack result types every ruleset returns
(:mod:`~geom3d.scene.outcomes`). The rulesets themselves are :mod:`geom3d.rules`.
"""

from __future__ import annotations

__all__: list[str] = []
