"""The engine's exact odds against two references written apart from it (SPEC 12.4).

* ``enumerate_f2f``: every one of the 20^(n + m) rolls, the Face to Face rules applied
  literally to the dice's results (seeded random small pools);
* ``icepool_f2f``: the ``icepool`` dice library (exact): the other side's best rank as an
  icepool die (``icepool.highest``), the hits as sums of per-die vectors mixed over it.
"""

from __future__ import annotations

import random
from fractions import Fraction as F

import numpy as np
import pytest

from geom3d.combat import Dice, face_to_face, wounds_distribution

FACES = 20


def _literal_dice(sv: int, r: np.ndarray, crit_counts: bool):
    """(success, value, critical) arrays of results ``r`` against ``sv``, from the rule
    text: succeed on r <= SV; critical on r == SV; SV > 20: add SV - 20, all succeed and
    20 or more is critical; SV <= 0: nothing succeeds; a plain die keeps the result."""
    if sv <= 0:
        z = np.zeros_like(r, dtype=bool)
        return z, r, z
    if sv > FACES:
        value = r + (sv - FACES)
        success = np.ones_like(r, dtype=bool)
        crit = value >= FACES
    else:
        value = r
        success = r <= sv
        crit = r == sv
    return success, value, crit & crit_counts


def enumerate_f2f(mine: Dice, theirs: Dice | None) -> dict:
    """{(hits, critical hits): probability} of ``mine`` by enumerating every roll."""
    kinds = [True] * mine.crit_dice + [False] * mine.plain_dice
    other = [] if theirs is None else [True] * theirs.crit_dice + [False] * theirs.plain_dice
    k = len(kinds) + len(other)
    grid = np.indices((FACES,) * k).reshape(k, -1) + 1  # every roll, one column each
    a = [_literal_dice(mine.sv, grid[i], c) for i, c in enumerate(kinds)]
    b = [_literal_dice(theirs.sv, grid[len(kinds) + j], c) for j, c in enumerate(other)]
    n = grid.shape[1]
    a_crit = np.zeros(n, bool)
    for s, _, c in a:
        a_crit |= s & c
    b_crit = np.zeros(n, bool)
    for s, _, c in b:
        b_crit |= s & c
    both = a_crit & b_crit  # "a tie and both Troopers fail"
    hits = np.zeros(n, int)
    crits = np.zeros(n, int)
    for s, v, c in a:
        alive = s & ~both
        for sb, vb, cb in b:
            # a success cancels every enemy success with a lower result, equal results
            # cancel each other, and a critical beats every non-critical
            beaten = sb & ((cb & ~c) | (~cb & ~c & (vb >= v)))
            alive &= ~beaten
        hits += alive
        crits += alive & c
    out: dict = {}
    keys, counts = np.unique(np.stack([hits, crits]), axis=1, return_counts=True)
    for (h, c), cnt in zip(keys.T, counts, strict=True):
        out[(int(h), int(c))] = F(int(cnt), n)
    return out


def _icepool():
    """The icepool module (the dev extra); tests that need it skip without it."""
    return pytest.importorskip("icepool")


def _rank(sv: int, crit_counts: bool):
    icepool = _icepool()

    def f(r):
        if sv <= 0 or (sv <= FACES and r > sv):
            return 0
        value = r + max(sv - FACES, 0)
        crit = value >= FACES if sv > FACES else r == sv
        return 21 if crit and crit_counts else min(value, FACES)

    return icepool.d20.map(f)


def icepool_f2f(mine: Dice, theirs: Dice | None) -> dict:
    icepool = _icepool()
    dice_b = [] if theirs is None else (
        [_rank(theirs.sv, True)] * theirs.crit_dice + [_rank(theirs.sv, False)] * theirs.plain_dice
    )  # fmt: skip
    # icepool.highest of a single die gives its top outcome as a constant: take the die
    best = (
        icepool.Die([0])
        if not dice_b
        else dice_b[0]
        if len(dice_b) == 1
        else icepool.highest(*dice_b)
    )

    def given(w):
        if w == 21:
            return icepool.Vector((0, 0))
        total = icepool.Die([icepool.Vector((0, 0))])
        for crit_counts, count in ((True, mine.crit_dice), (False, mine.plain_dice)):
            if count:
                step = _rank(mine.sv, crit_counts).map(
                    lambda r: icepool.Vector((1, 1) if r == 21 else (1, 0) if r > w else (0, 0))
                )
                total = total + count @ step
        return total

    mixed = best.map(given)
    den = mixed.denominator()
    return {tuple(int(x) for x in o): F(mixed.quantity(o), den) for o in mixed.outcomes()}


def _clean(d: dict) -> dict:
    return {k: v for k, v in sorted(d.items()) if v}


def _random_pools(seed: int, count: int, max_mine: int, max_theirs: int):
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        sv = rng.choice([rng.randint(-2, 25), rng.randint(8, 15), 20, 21, 1])
        n = rng.randint(1, max_mine)
        c = rng.randint(0, n)
        m = rng.randint(0, max_theirs)
        theirs = None if m == 0 else Dice(rng.choice([rng.randint(-1, 24), 11, 13]), m)
        out.append((Dice(sv, c, n - c), theirs))
    return out


@pytest.mark.parametrize(("mine", "theirs"), _random_pools(36, 30, 3, 2))
def test_engine_matches_the_enumeration_of_every_roll(mine, theirs):
    assert _clean(face_to_face(mine, theirs)) == _clean(enumerate_f2f(mine, theirs))


@pytest.mark.parametrize(("mine", "theirs"), _random_pools(3636, 20, 6, 3))
def test_engine_matches_icepool(mine, theirs):
    assert _clean(face_to_face(mine, theirs)) == _clean(icepool_f2f(mine, theirs))


def test_icepool_reference_matches_the_enumeration():
    # the two references agree with each other too (so neither only echoes the engine)
    for mine, theirs in _random_pools(7, 8, 2, 2):
        assert _clean(icepool_f2f(mine, theirs)) == _clean(enumerate_f2f(mine, theirs))


def test_wounds_match_icepool():
    icepool = _icepool()
    # hits of B3 @13 vs B1 @11, each hit one save, each critical hit one more, PS + ARM 8
    hits = face_to_face(Dice(13, 3), Dice(11, 1))
    save = icepool.d20.map(lambda r: 1 if r > 8 else 0)  # 1: a failed save = a wound
    dist = icepool.Die({icepool.Vector(k): int(v * 160000) for k, v in hits.items()})
    wounds = dist.map(lambda hc: (hc[0] + hc[1]) @ save if hc[0] + hc[1] else 0)
    den = wounds.denominator()
    ref = [F(wounds.quantity(k), den) for k in range(max(wounds.outcomes()) + 1)]
    assert wounds_distribution(hits, 8) == ref
