"""The odds of one affected trooper: what decides its hits, and what they cost it.

:class:`RollPlan` says who rolls what against one trooper (built by the ruleset from the
scenario's data and the geometry, with the ledger of every number used);
:func:`trooper_odds` turns it into :class:`Odds`, exact, whose :meth:`Odds.to_dict` is
the SPEC 12.4 ``odds`` object.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property

from geom3d.combat.rolls import Dice, HitDist, direct_template, face_to_face
from geom3d.combat.saves import saving_rolls, wounds_distribution

__all__ = ["Odds", "RollPlan", "Strike", "trooper_odds"]

#: Roll kinds (SPEC 12.4).
ROLLS: tuple[str, ...] = ("normal", "face_to_face", "none")


@dataclass(frozen=True)
class RollPlan:
    """Who rolls what against one affected trooper.

    Attributes
    ----------
    attack : Dice or None
        The attack roll's dice against this trooper (an impact template); None: no attack
        roll (a direct template or a deployable: each template hits, 001).
    templates : int
        Without an attack roll: templates of the order that affect the trooper.
    dodge_sv : int or None
        The trooper dodges with this Success Value (opposing the attack roll face to
        face, or a Normal PH Roll against templates that make no attack roll).
    counter : Dice or None
        The trooper attacks the attacker with these dice (face to face against the
        attack roll, a Normal Roll when there is none, 001).
    save_sv : int or None
        PS + ARM/BTS of the trooper's Saving Rolls; None: none (a harmless weapon).
    wounds : int or None
        The trooper's Wounds (``stats.wounds``), for ``p_out``.
    attacker_save_sv : int or None
        PS + ARM/BTS of the attacker against ``counter``'s hits.
    attacker_wounds : int or None
    ledger : list of (str, object)
        Every number used and where it came from.
    """

    attack: Dice | None
    templates: int = 0
    dodge_sv: int | None = None
    counter: Dice | None = None
    save_sv: int | None = None
    wounds: int | None = None
    attacker_save_sv: int | None = None
    attacker_wounds: int | None = None
    ledger: list[tuple[str, object]] = field(default_factory=list)


@dataclass(frozen=True)
class Strike:
    """Exact consequences of a hit distribution for the trooper that takes the hits."""

    hits: HitDist
    wounds: list[Fraction]
    max_wounds: int | None

    @cached_property
    def p_hit(self) -> Fraction:
        return sum((p for (h, _), p in self.hits.items() if h), Fraction(0))

    @cached_property
    def p_critical(self) -> Fraction:
        return sum((p for (_, c), p in self.hits.items() if c), Fraction(0))

    @cached_property
    def expected_hits(self) -> Fraction:
        return sum((h * p for (h, _), p in self.hits.items()), Fraction(0))

    @cached_property
    def saving_rolls_expected(self) -> Fraction:
        return sum((n * p for n, p in saving_rolls(self.hits).items()), Fraction(0))

    @cached_property
    def p_wounded(self) -> Fraction:
        return 1 - self.wounds[0]

    @cached_property
    def expected_wounds(self) -> Fraction:
        return sum((k * p for k, p in enumerate(self.wounds)), Fraction(0))

    @cached_property
    def p_out(self) -> Fraction | None:
        """P(at least ``max_wounds`` wounds): none left (None without ``stats.wounds``)."""
        if self.max_wounds is None:
            return None
        return sum(self.wounds[self.max_wounds :], Fraction(0))

    def to_dict(self) -> dict:
        d = {
            "p_hit": float(self.p_hit),
            "p_critical": float(self.p_critical),
            "expected_hits": float(self.expected_hits),
            "saving_rolls_expected": float(self.saving_rolls_expected),
            "p_wounded": float(self.p_wounded),
            "expected_wounds": float(self.expected_wounds),
            "wounds_distribution": [float(p) for p in self.wounds],
        }
        p_out = self.p_out
        if p_out is not None:
            d["p_out"] = float(p_out)
        return d


@dataclass(frozen=True)
class Odds:
    """The odds of one affected trooper (SPEC 12.4).

    Attributes
    ----------
    roll : str
        ``normal``, ``face_to_face`` or ``none``: the roll that decides its hits.
    attacker_dice, defender_dice : int
    sv_attacker, sv_defender : int or None
    taken : Strike
        The hits the trooper takes.
    dealt : Strike or None
        The hits its counter-attack deals the attacker (a reaction ``attack``).
    ledger : list of (str, object)
    defender_wins : Fraction or None
        Face to face only: P(the trooper keeps at least one success: its dodge succeeds,
        or its shots hit); with :attr:`p_attacker_wins` and :attr:`p_nobody` (SPEC 13.2).
    back_dice, sv_back : int, int or None
        The dice and Success Value of its attack on the attacker (0, None: none).
    """

    roll: str
    attacker_dice: int
    defender_dice: int
    sv_attacker: int | None
    sv_defender: int | None
    taken: Strike
    dealt: Strike | None
    ledger: list[tuple[str, object]]
    defender_wins: Fraction | None = None
    back_dice: int = 0
    sv_back: int | None = None

    @property
    def p_attacker_wins(self) -> Fraction:
        """Face to face: P(the attacker keeps at least one success against this trooper)."""
        return self.taken.p_hit

    @property
    def p_nobody(self) -> Fraction | None:
        """Face to face: P(no side keeps a success); the three outcomes exclude each other
        (the higher best success cancels every lower one, equal ones cancel)."""
        if self.defender_wins is None:
            return None
        return 1 - self.p_attacker_wins - self.defender_wins

    def to_dict(self) -> dict:
        """The SPEC 12.4 ``odds`` object (floats of the exact fractions), with the SPEC
        13.2 face to face summary."""
        d = {
            "roll": self.roll,
            "attacker_dice": self.attacker_dice,
            "defender_dice": self.defender_dice,
            "sv_attacker": self.sv_attacker,
            "sv_defender": self.sv_defender,
            **self.taken.to_dict(),
        }
        if self.defender_wins is not None:
            d["p_attacker_wins"] = float(self.p_attacker_wins)
            d["p_defender_wins"] = float(self.defender_wins)
            d["p_nobody"] = float(self.p_nobody or 0)
        if self.dealt is not None:
            d["back_dice"], d["sv_back"] = self.back_dice, self.sv_back
            d["against_attacker"] = self.dealt.to_dict()
            d["attacker_p_wounded"] = float(self.dealt.p_wounded)
            d["attacker_expected_wounds"] = float(self.dealt.expected_wounds)
        d["ledger"] = [{"what": w, "value": v} for w, v in self.ledger]
        return d


def trooper_odds(plan: RollPlan) -> Odds:
    """Exact odds of one trooper from its :class:`RollPlan` (see the module docstring)."""
    mine: Dice | None = None  # the trooper's dice in the roll that decides its hits
    if plan.dodge_sv is not None:
        mine = Dice(plan.dodge_sv, 1)
    elif plan.counter is not None and plan.attack is not None:
        mine = plan.counter
    defender_wins = None
    if plan.attack is not None:
        hits = face_to_face(plan.attack, mine)
        roll = "face_to_face" if mine is not None else "normal"
        if mine is not None:  # the trooper's side of the same roll: its dodge or its shots
            theirs = face_to_face(mine, plan.attack)
            defender_wins = sum((p for (h, _), p in theirs.items() if h), Fraction(0))
    else:
        hits = direct_template(plan.templates, plan.dodge_sv)
        roll = "normal" if plan.dodge_sv is not None else "none"
    dealt = None
    if plan.counter is not None:
        # against an attack roll the counter-attack is opposed by it; without one (a
        # direct template) it is a Normal Roll (001)
        back = face_to_face(plan.counter, plan.attack)
        dealt = Strike(back, wounds_distribution(back, plan.attacker_save_sv), plan.attacker_wounds)
    return Odds(
        roll=roll,
        attacker_dice=0 if plan.attack is None else plan.attack.n,
        defender_dice=0 if mine is None else mine.n,
        sv_attacker=None if plan.attack is None else plan.attack.sv,
        sv_defender=None if mine is None else mine.sv,
        taken=Strike(hits, wounds_distribution(hits, plan.save_sv), plan.wounds),
        dealt=dealt,
        ledger=list(plan.ledger),
        defender_wins=defender_wins,
        back_dice=0 if plan.counter is None else plan.counter.n,
        sv_back=None if plan.counter is None else plan.counter.sv,
    )
