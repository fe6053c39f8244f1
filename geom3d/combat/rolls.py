"""Exact hit distributions of Normal and Face to Face Rolls (SPEC 12.4, seed 002).

A side of a roll is a :class:`Dice`: how many d20 it rolls against one Success Value, and
how many of them may score a critical that counts (the rest turn a critical into a plain
success, 000: against a secondary target of a template).

The result of a roll for one side is a :data:`HitDist`: ``{(hits, critical_hits):
probability}`` with exact fractions, ``critical_hits <= hits``.

Method (exact, no enumeration of the 20^n rolls)
------------------------------------------------
The Face to Face rules (a success cancels every enemy success with a lower result, even
one cancelled in turn; equal results cancel; a critical beats every non-critical; if both
sides roll a critical every success of both sides is cancelled) make an attacker's
success survive exactly when

* the other side rolled no critical, and
* it is a critical, or its result is above the other side's best non-critical result.

So the other side matters only through its **state**: "rolled a critical", or "no
critical, best non-critical result w" (w = 0 when it has no success). The state's
distribution comes from the dice's cumulative rank probabilities (``P(every die <= w)``
is a product), and given the state the attacker's dice are independent, so their
``(hits, critical_hits)`` distribution is a product of two multinomials (the dice whose
critical counts, and the others). That is O(21 * n^2) per side instead of 20^(n + m).
Everything is counted in integers (cases out of 20^(n + m)); each entry becomes one
exact fraction at the end. A Normal Roll is a Face to Face Roll against
nobody (state: no critical, w = 0).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from math import comb

from geom3d.combat.dice import CRIT, die_counts, die_ranks
from geom3d.combat.numbers import D20_FACES

__all__ = ["Dice", "HitDist", "direct_template", "face_to_face", "normal_roll"]

#: ``{(hits, critical_hits): probability}``
HitDist = dict[tuple[int, int], Fraction]

_ONE = Fraction(1)


@dataclass(frozen=True)
class Dice:
    """One side's dice in a roll.

    Attributes
    ----------
    sv : int
        Success Value of every die.
    crit_dice : int
        Dice whose criticals count as criticals.
    plain_dice : int
        Dice whose criticals are plain successes of the same result (000).
    """

    sv: int
    crit_dice: int
    plain_dice: int = 0

    @property
    def n(self) -> int:
        return self.crit_dice + self.plain_dice


def _states(dice: Dice | None) -> tuple[int, list[int], int]:
    """The other side's state in counts of its 20^m rolls: ``(critical, [no critical,
    best result w] for w = 0..20, 20^m)``."""
    if dice is None or dice.n == 0:
        return 0, [1] + [0] * (CRIT - 1), 1
    counts = [
        (die_counts(dice.sv, True), dice.crit_dice),
        (die_counts(dice.sv, False), dice.plain_dice),
    ]
    best, prev = [], 0
    for w in range(CRIT):
        cum = 1
        for c, k in counts:
            if k:
                cum *= sum(c[: w + 1]) ** k
        best.append(cum - prev)
        prev = cum
    total = D20_FACES**dice.n
    return total - prev, best, total


def _group(miss: int, plain: int, crit: int, k: int) -> dict[tuple[int, int], int]:
    """``k`` identical dice: ``{(hits, critical hits): count of the 20^k rolls}``
    (multinomial: k! / (k0! k1! k2!) miss^k0 plain^k1 crit^k2)."""
    out: dict[tuple[int, int], int] = {}
    for k2 in range(k + 1):
        for k1 in range(k - k2 + 1):
            n = comb(k, k2) * comb(k - k2, k1) * crit**k2 * plain**k1 * miss ** (k - k1 - k2)
            if n:
                out[(k1 + k2, k2)] = n
    return out


def _hits_given(dice: Dice, w: int) -> dict[tuple[int, int], int]:
    """``dice``'s hits, in counts of its 20^n rolls, when the other side rolled no
    critical and its best non-critical result is ``w``."""
    dist = {(0, 0): 1}
    for crit_counts, k in ((True, dice.crit_dice), (False, dice.plain_dice)):
        if not k:
            continue
        c = die_counts(dice.sv, crit_counts)
        crit, plain = c[CRIT], sum(c[w + 1 : CRIT])
        group = _group(D20_FACES - crit - plain, plain, crit, k)
        out: dict[tuple[int, int], int] = {}
        for (h, x), p in dist.items():
            for (dh, dx), q in group.items():
                key = (h + dh, x + dx)
                out[key] = out.get(key, 0) + p * q
        dist = out
    return dist


@cache
def _face_to_face(mine: Dice, theirs: Dice | None) -> tuple:
    p_crit, best, total = _states(theirs)
    counts: dict[tuple[int, int], int] = {(0, 0): p_crit * D20_FACES**mine.n}
    for w, pw in enumerate(best):
        if pw:
            for key, n in _hits_given(mine, w).items():
                counts[key] = counts.get(key, 0) + pw * n
    den = total * D20_FACES**mine.n
    return tuple((k, Fraction(counts[k], den)) for k in sorted(counts) if counts[k])


def face_to_face(mine: Dice, theirs: Dice | None) -> HitDist:
    """Hits that ``mine`` scores in a Face to Face Roll against ``theirs``.

    Parameters
    ----------
    mine : Dice
        The side whose uncancelled successes are counted.
    theirs : Dice or None
        The opposing side (None or no dice: a Normal Roll).

    Returns
    -------
    HitDist
        Exact, sums to 1; keys sorted. Counted in integers (each side's rolls are
        20^n equally likely cases), one fraction per entry at the end.
    """
    return dict(_face_to_face(mine, theirs))


def normal_roll(mine: Dice) -> HitDist:
    """Hits of a Normal Roll (002: the target's skill does not affect the outcome)."""
    return face_to_face(mine, None)


def direct_template(templates: int, dodge_sv: int | None) -> HitDist:
    """Hits on a trooper affected by ``templates`` direct templates (001).

    No attack roll: each template hits once, unless the trooper's single dodge (a
    Normal PH Roll against ``dodge_sv``; one roll covers every template of the order)
    succeeds. ``dodge_sv`` None: it does not dodge.
    """
    if templates == 0:
        return {(0, 0): _ONE}
    if dodge_sv is None:
        return {(templates, 0): _ONE}
    p_dodge = 1 - die_ranks(dodge_sv)[0]
    out = {(0, 0): p_dodge, (templates, 0): 1 - p_dodge}
    return {k: out[k] for k in sorted(out) if out[k]}
