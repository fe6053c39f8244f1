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
``(hits, critical_hits)`` distribution is a convolution of per-die outcomes. That is
O(21 * n^2) per side instead of 20^(n + m). A Normal Roll is a Face to Face Roll against
nobody (state: no critical, w = 0).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from geom3d.combat.dice import CRIT, die_ranks

__all__ = ["Dice", "HitDist", "direct_template", "face_to_face", "normal_roll"]

#: ``{(hits, critical_hits): probability}``
HitDist = dict[tuple[int, int], Fraction]

_ZERO = Fraction(0)
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

    def groups(self):
        """``(rank probabilities, count)`` per kind of die."""
        return (
            (die_ranks(self.sv, True), self.crit_dice),
            (die_ranks(self.sv, False), self.plain_dice),
        )


def _states(dice: Dice | None) -> tuple[Fraction, list[Fraction]]:
    """The other side's state: ``(P(critical), [P(no critical, best result w)] for w)``."""
    best = [_ZERO] * CRIT  # index w = 0 .. 20
    if dice is None or dice.n == 0:
        best[0] = _ONE
        return _ZERO, best
    cum_prev = _ZERO
    for w in range(CRIT):
        cum = _ONE
        for ranks, count in dice.groups():
            if count:
                cum *= sum(ranks[: w + 1], _ZERO) ** count
        best[w] = cum - cum_prev
        cum_prev = cum
    return 1 - cum_prev, best


def _convolve(dist: HitDist, step: dict[tuple[int, int], Fraction], times: int) -> HitDist:
    for _ in range(times):
        out: HitDist = {}
        for (h, c), p in dist.items():
            for (dh, dc), q in step.items():
                if q:
                    key = (h + dh, c + dc)
                    out[key] = out.get(key, _ZERO) + p * q
        dist = out
    return dist


def _hits_given(dice: Dice, w: int) -> HitDist:
    """``dice``'s hit distribution when the other side rolled no critical and its best
    non-critical result is ``w``."""
    dist: HitDist = {(0, 0): _ONE}
    for ranks, count in dice.groups():
        if not count:
            continue
        crit = ranks[CRIT]
        plain = sum(ranks[w + 1 : CRIT], _ZERO)
        step = {(1, 1): crit, (1, 0): plain, (0, 0): 1 - crit - plain}
        dist = _convolve(dist, step, count)
    return dist


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
        Exact, sums to 1; keys sorted.
    """
    p_crit, best = _states(theirs)
    out: HitDist = {(0, 0): p_crit}
    for w, pw in enumerate(best):
        if not pw:
            continue
        for key, p in _hits_given(mine, w).items():
            out[key] = out.get(key, _ZERO) + pw * p
    return {k: out[k] for k in sorted(out) if out[k]}


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
