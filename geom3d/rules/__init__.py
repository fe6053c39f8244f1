"""Rulesets: their data (this package's import) and their adjudication (subpackages).

``geom3d.rules`` itself only exposes the data loader (:mod:`geom3d.rules.data`), so the
scenario parser can read silhouettes and templates without importing any rules. The
ruleset objects are :mod:`geom3d.rules.infinity`, :mod:`geom3d.rules.wh40k`; the name ->
object table is :mod:`geom3d.rules.registry`.
"""

from __future__ import annotations

from .data import RULESETS, RulesetData, load_ruleset

__all__ = ["RULESETS", "RulesetData", "load_ruleset"]
