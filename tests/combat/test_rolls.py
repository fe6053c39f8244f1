"""Hand-computed roll odds (SPEC 12.4): every expected value is derived in the comments.

Notation: a d20 result r; SV the Success Value; "rank" as in geom3d.combat.dice (0 fail,
1..20 non-critical result, 21 critical).
"""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from geom3d.combat import (
    CRIT,
    Dice,
    direct_template,
    face_to_face,
    normal_roll,
    save_failure,
    saving_rolls,
    success_probability,
    wounds_distribution,
)
from geom3d.combat.dice import die_ranks


def p_hit(dist):
    return sum((p for (h, _), p in dist.items() if h), F(0))


def p_crit(dist):
    return sum((p for (_, c), p in dist.items() if c), F(0))


def expected(dist):
    return sum((h * p for (h, _), p in dist.items()), F(0))


# ----------------------------------------------------------------------------- one die
def test_die_sv_13():
    # results 1..12 succeed with that result, 13 is the critical, 14..20 fail
    p = die_ranks(13)
    assert p[0] == F(7, 20)
    assert all(p[v] == F(1, 20) for v in range(1, 13))
    assert p[13] == 0 and p[CRIT] == F(1, 20)
    assert sum(p) == 1


def test_die_sv_above_20_shifts_every_result():
    # SV 23: +3 to each result; r + 3 >= 20 (r = 17..20) is a critical: 4 in 20; the others
    # succeed with results 4..19; nothing fails
    p = die_ranks(23)
    assert p[0] == 0
    assert p[CRIT] == F(4, 20)
    assert [v for v in range(1, 21) if p[v]] == list(range(4, 20))
    # SV 20: no shift, only the 20 is critical
    assert die_ranks(20)[CRIT] == F(1, 20) and die_ranks(20)[0] == 0
    # SV 39 and above: every result is 20 or more: every die is a critical
    assert die_ranks(39)[CRIT] == 1 and die_ranks(45)[CRIT] == 1


def test_die_sv_zero_or_less_never_succeeds():
    for sv in (0, -1, -7):
        assert die_ranks(sv)[0] == 1
        assert success_probability(sv) == 0


def test_a_plain_die_keeps_its_critical_as_a_success_of_the_same_result():
    # a template's critical against a secondary target (000): SV 13 -> result 13 a success
    p = die_ranks(13, crit_counts=False)
    assert p[CRIT] == 0 and p[13] == F(1, 20) and p[0] == F(7, 20)
    # SV 23 -> the four criticals (results 20..23) are plain successes, ranked 20
    q = die_ranks(23, crit_counts=False)
    assert q[CRIT] == 0 and q[20] == F(4, 20)


# ----------------------------------------------------------------------------- SV 13 vs dodge 11
def test_sv13_vs_dodge11_burst1():
    # The dodge (SV 11) rolls a critical (11) with 1/20: nothing of the attacker survives.
    # Attacker critical (13, 1/20) and no dodge critical (19/20): 19/400 critical hits.
    # Attacker result r = 1..12 (non-critical) survives when the dodge failed (12..20: 9/20)
    # or succeeded with a lower result (1..min(r - 1, 10)):
    #   sum_{r=1}^{12} (9 + min(r - 1, 10)) / 400 = (108 + 55 + 10) / 400 = 173/400.
    d = face_to_face(Dice(13, 1), Dice(11, 1))
    assert d == {(0, 0): F(208, 400), (1, 0): F(173, 400), (1, 1): F(19, 400)}
    assert p_hit(d) == F(12, 25) and p_crit(d) == F(19, 400)


def test_sv13_vs_dodge11_burst3():
    # The dodge's state: critical 1/20; no critical with best result w: w = 0 (fail) 9/20,
    # w = 1..10 1/20 each. Given w each attacker die hits with (13 - w)/20 (critical or a
    # result above w) and misses with (7 + w)/20.
    #   P(no hit) = 1/20 + 9/20 (7/20)^3 + sum_{v=1}^{10} 1/20 ((7 + v)/20)^3
    #             = (8000 + 3087 + sum_{k=8}^{17} k^3) / 160000, sum k^3 = 23409 - 784 = 22625
    #             = 33712 / 160000 = 2107/10000
    #   E[hits] = 3 * 12/25 (each die hits as a Burst 1 die would) = 36/25
    #   P(a critical hit) = 19/20 (1 - (19/20)^3) = 19/20 * 1141/8000 = 21679/160000
    d = face_to_face(Dice(13, 3), Dice(11, 1))
    assert d[(0, 0)] == F(2107, 10000)
    assert expected(d) == F(36, 25)
    assert p_crit(d) == F(21679, 160000)
    assert sum(d.values()) == 1
    # at most 3 hits; the three-critical case: (1/20)^3 with no dodge critical
    assert d[(3, 3)] == F(1, 8000) * F(19, 20)


def test_sv_above_20_against_a_dodge():
    # SV 23 (BS 20 + 3) vs dodge SV 11. Attacker criticals (17..20 -> 20..23: 4/20) survive
    # unless the dodge criticals (1/20): 4/20 * 19/20 = 76/400. Non-critical results are
    # 4..19 (r = 1..16); given the dodge's best w they survive when above w:
    #   w = 0 (9/20): 16 results; w = 1..3: 16; w = 4..10: 19 - w (15..9, sum 84)
    #   (9 * 16 + 3 * 16 + 84) / 400 = 276/400.   P(hit) = 352/400 = 22/25.
    d = face_to_face(Dice(23, 1), Dice(11, 1))
    assert p_hit(d) == F(22, 25) and p_crit(d) == F(76, 400)
    # a Normal Roll at SV 23 always hits
    assert normal_roll(Dice(23, 2)) == {(2, 0): F(16, 20) ** 2, (2, 1): 2 * F(16, 20) * F(4, 20),
                                        (2, 2): F(4, 20) ** 2}  # fmt: skip


def test_sv_zero_or_less():
    # an attacker at SV 0 never hits, whatever the other side rolls
    assert face_to_face(Dice(0, 3), Dice(11, 1)) == {(0, 0): 1}
    assert normal_roll(Dice(-4, 2)) == {(0, 0): 1}
    # a dodge at SV <= 0 never succeeds: a Normal Roll for the attacker
    assert face_to_face(Dice(13, 2), Dice(-2, 1)) == normal_roll(Dice(13, 2))


def test_both_sides_critical_cancels_everything():
    # SV 1 against SV 1: each side succeeds only with a 1, which is a critical. The
    # attacker hits only when it rolls the 1 and the other side does not: 1/20 * 19/20;
    # both 1s (1/400): a tie, both fail (002).
    d = face_to_face(Dice(1, 1), Dice(1, 1))
    assert d == {(0, 0): F(381, 400), (1, 1): F(19, 400)}
    # SV 20 against SV 20 (criticals on the 20 only): P(A hits) = P(B hits) = 190/400;
    # equal non-critical results (19/400) and two criticals (1/400) leave nobody hit.
    a = face_to_face(Dice(20, 1), Dice(20, 1))
    b = face_to_face(Dice(20, 1), Dice(20, 1))
    assert p_hit(a) == F(190, 400) and p_hit(a) + p_hit(b) + F(19, 400) + F(1, 400) == 1
    # three attacker dice all critical (SV 40) against one defender critical (SV 40): a tie
    assert face_to_face(Dice(40, 3), Dice(40, 1)) == {(0, 0): 1}


def test_a_critical_beats_a_higher_non_critical_result():
    # attacker SV 13 (B1) against SV 15: the attacker's critical 13 beats the other side's
    # 14 (non-critical) and its 13; as a secondary target's plain success 13 it loses to 14
    # and ties with 13. Main: 19/400 + sum_{r=1}^{12} (5 + r - 1)/400 = (19 + 126)/400;
    # secondary: sum_{r=1}^{13} (5 + r - 1)/400 = 143/400: 2/400 less.
    main = face_to_face(Dice(13, 1), Dice(15, 1))
    secondary = face_to_face(Dice(13, 0, 1), Dice(15, 1))
    assert p_hit(main) == F(145, 400)
    assert p_hit(secondary) == F(143, 400)
    assert p_crit(secondary) == 0


def test_secondary_target_critical_is_a_plain_success():
    # SV 13 vs SV 13: as the main target the 13 is a critical; as a secondary target it is
    # a plain 13 (and cannot tie the other side's critical 13 away: that one still wins).
    # Both come to 169/400 hits: 19 + 150 (main) = 91 + 78 (secondary), derivations:
    # main: 1/20 * 19/20 + sum_{r=1}^{12} (7 + r - 1)/400 = (19 + 84 + 66)/400
    # secondary: P(other fails) 7/20 * 13/20 + sum_{v=1}^{12} (13 - v)/400 = (91 + 78)/400
    main = face_to_face(Dice(13, 1), Dice(13, 1))
    secondary = face_to_face(Dice(13, 0, 1), Dice(13, 1))
    assert p_hit(main) == p_hit(secondary) == F(169, 400)
    assert p_crit(main) == F(19, 400) and p_crit(secondary) == 0


def test_direct_template_dodged():
    # no attack roll (001): hit unless the dodge (Normal PH Roll) succeeds
    assert direct_template(1, 11) == {(0, 0): F(11, 20), (1, 0): F(9, 20)}
    # PH-3: SV 8
    assert direct_template(1, 8) == {(0, 0): F(8, 20), (1, 0): F(12, 20)}
    # two templates of the same order, one dodge covers both
    assert direct_template(2, 11) == {(0, 0): F(11, 20), (2, 0): F(9, 20)}
    # no dodge, or a dodge that cannot succeed
    assert direct_template(1, None) == {(1, 0): 1}
    assert direct_template(1, -1) == {(1, 0): 1}
    # a dodge at SV >= 20 always succeeds
    assert direct_template(1, 20) == {(0, 0): 1}


# ----------------------------------------------------------------------------- saves
@pytest.mark.parametrize(
    ("save_sv", "fails"),
    [(20, F(0)), (21, F(0)), (33, F(0)), (19, F(1, 20)), (8, F(12, 20)), (0, F(1)), (-3, F(1))],
)
def test_save_failure_caps_at_20_and_0(save_sv, fails):
    assert save_failure(save_sv) == fails


def test_each_critical_hit_causes_one_more_saving_roll():
    hits = {(0, 0): F(1, 2), (1, 0): F(1, 4), (1, 1): F(1, 4)}
    assert saving_rolls(hits) == {0: F(1, 2), 1: F(1, 4), 2: F(1, 4)}
    # PS 7 + ARM 1 = 8: a save fails with 12/20 = 3/5
    w = wounds_distribution(hits, 8)
    q = F(3, 5)
    assert w == [F(1, 2) + F(1, 4) * (1 - q) + F(1, 4) * (1 - q) ** 2,
                 F(1, 4) * q + F(1, 4) * 2 * q * (1 - q),
                 F(1, 4) * q**2]  # fmt: skip
    # PS + ARM at 20 and above: never wounded
    assert wounds_distribution(hits, 20) == [1, 0, 0]
    assert wounds_distribution(hits, 26) == [1, 0, 0]
    # a harmless weapon (no PS): no Saving Roll at all
    assert wounds_distribution(hits, None) == [1]
