"""Saving Rolls and wounds (SPEC 12.4; 000/001 "Saving Roll", 002 "Criticals").

Each hit causes one Saving Roll and each critical hit one more (002: "each Critical
rolled in an Attack causes the target to make an additional Saving Roll"). A Saving Roll
is a Normal Roll of one d20 against PS + ARM (or BTS): it succeeds on a result <= that
value; each failed one removes one wound. PS + ARM >= 20 never fails (every face of a d20
is <= 20); PS + ARM <= 0 always fails.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb, lcm

from geom3d.combat.numbers import D20_FACES
from geom3d.combat.rolls import HitDist

__all__ = ["save_failure", "saving_rolls", "wounds_distribution"]


def save_failure(save_sv: int) -> Fraction:
    """Probability that one Saving Roll against ``save_sv`` (PS + ARM/BTS) fails."""
    passed = min(max(save_sv, 0), D20_FACES)
    return Fraction(D20_FACES - passed, D20_FACES)


def saving_rolls(hits: HitDist) -> dict[int, Fraction]:
    """``{number of Saving Rolls: probability}``: hits + critical hits."""
    out: dict[int, Fraction] = {}
    for (h, c), p in hits.items():
        out[h + c] = out.get(h + c, Fraction(0)) + p
    return dict(sorted(out.items()))


def wounds_distribution(hits: HitDist, save_sv: int | None) -> list[Fraction]:
    """``[P(0 wounds), P(1 wound), ...]``: wounds removed by the failed Saving Rolls.

    Parameters
    ----------
    hits : HitDist
    save_sv : int or None
        PS + ARM (or BTS); None: the weapon causes no Saving Roll (a harmless template,
        000: no PS), so no wound.

    Returns
    -------
    list of Fraction
        Length = the most Saving Rolls possible + 1 (at least 1); sums to 1.
    """
    if save_sv is None:
        return [Fraction(1)]
    fail = D20_FACES - min(max(save_sv, 0), D20_FACES)  # failing faces of the d20
    rolls = saving_rolls(hits)
    top = max(rolls, default=0)
    # integers over one denominator: lcm of the hit probabilities' times 20^top
    den = lcm(*(p.denominator for p in rolls.values()))
    out = [0] * (top + 1)
    for n, p in rolls.items():
        weight = p.numerator * (den // p.denominator) * D20_FACES ** (top - n)
        for k in range(n + 1):
            out[k] += weight * comb(n, k) * fail**k * (D20_FACES - fail) ** (n - k)
    total = den * D20_FACES**top
    return [Fraction(c, total) for c in out]
