"""One d20 against a Success Value: the outcome classes of a die (SPEC 12.4, seed 002).

A die's outcome is summarised by its **rank**, an int:

* ``0``: a failure;
* ``1 .. 20``: a non-critical success whose result is ``rank`` (after the SV > 20 shift);
  20 is reached only by a critical that counts as a plain success (a secondary target's
  critical, 000) when SV >= 20;
* ``CRIT`` (21): a critical.

Only ranks are ever compared, so one table per Success Value says everything a die can
do. Probabilities are exact :class:`fractions.Fraction` s.

The d20 rules (Infinity N5 "Rolls", the public rules the seeds name):

* a die succeeds when its result is <= SV, and is a critical when it equals SV;
* SV > 20: SV - 20 is added to each result; every die succeeds and results of 20 or
  more are criticals;
* SV <= 0: nothing succeeds.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache

from geom3d.combat.numbers import D20_FACES

__all__ = ["CRIT", "RANKS", "die_counts", "die_ranks", "success_probability"]

#: The rank of a critical (above every result a non-critical success can have).
CRIT: int = D20_FACES + 1

#: Every rank: 0 (fail), 1..20 (non-critical success of that result), CRIT.
RANKS: tuple[int, ...] = tuple(range(CRIT + 1))


@cache
def die_counts(sv: int, crit_counts: bool = True) -> tuple[int, ...]:
    """How many of the 20 faces of a d20 rolled against ``sv`` give each rank.

    Parameters
    ----------
    sv : int
        Success Value (attribute + MODs); any integer.
    crit_counts : bool
        False: a critical is a plain success of the same result (a template's critical
        against a secondary target, 000); it takes rank ``min(result, 20)``.

    Returns
    -------
    tuple of int, length ``CRIT + 1``
        ``n[rank]``; they sum to 20.
    """
    n = [0] * (CRIT + 1)
    shift = max(sv - D20_FACES, 0)
    for result in range(1, D20_FACES + 1):
        if sv <= 0 or result > sv:
            n[0] += 1
            continue
        value = result + shift
        critical = value >= D20_FACES if shift else result == sv
        if critical and crit_counts:
            n[CRIT] += 1
        else:
            n[min(value, D20_FACES)] += 1
    return tuple(n)


@cache
def die_ranks(sv: int, crit_counts: bool = True) -> tuple[Fraction, ...]:
    """The probability of each rank of one d20 rolled against ``sv``
    (:func:`die_counts` / 20); they sum to 1."""
    return tuple(Fraction(n, D20_FACES) for n in die_counts(sv, crit_counts))


def success_probability(sv: int) -> Fraction:
    """Probability that one d20 succeeds against ``sv`` (criticals included)."""
    return 1 - die_ranks(sv)[0]
