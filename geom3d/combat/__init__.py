"""Exact dice odds of Infinity N5 rolls (SPEC 12.4; seed 002, saves from 000/001).

Pure arithmetic on exact fractions: no scene, no geometry, no Monte Carlo.

* :mod:`~geom3d.combat.dice`: one d20 against a Success Value (criticals, SV > 20, SV <= 0);
* :mod:`~geom3d.combat.rolls`: Normal and Face to Face Rolls of several dice, direct
  templates (no attack roll);
* :mod:`~geom3d.combat.saves`: Saving Rolls and the wounds they remove;
* :mod:`~geom3d.combat.odds`: one trooper's odds from who rolls what (:class:`RollPlan`);
* :mod:`~geom3d.combat.text`: the odds' table and labels (renderings of the JSON).

The ruleset (:mod:`geom3d.rules.infinity.odds`) decides who rolls what from the scenario
and the geometry; this package only counts.
"""

from __future__ import annotations

from geom3d.combat.dice import CRIT, die_ranks, success_probability
from geom3d.combat.odds import Odds, RollPlan, Strike, trooper_odds
from geom3d.combat.rolls import Dice, HitDist, direct_template, face_to_face, normal_roll
from geom3d.combat.saves import save_failure, saving_rolls, wounds_distribution

__all__ = [
    "CRIT",
    "Dice",
    "HitDist",
    "Odds",
    "RollPlan",
    "Strike",
    "die_ranks",
    "direct_template",
    "face_to_face",
    "normal_roll",
    "save_failure",
    "saving_rolls",
    "success_probability",
    "trooper_odds",
    "wounds_distribution",
]
