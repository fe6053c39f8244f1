"""A brute force over d20 outcomes: the Infinity roll rules applied literally, written
apart from :mod:`geom3d.combat` (the tests' reference for SPEC 12.4 / 13.2 odds).

Every one of the 20^(n + m) rolls is enumerated; each die is judged from the rule text
(success on result <= SV, critical on result == SV; SV > 20 adds SV - 20 and 20 or more
is critical; SV <= 0 never succeeds); each success of one side is cancelled by a success
of the other side with a higher or equal result, a critical cancels every non-critical,
and when both sides roll a critical every success is cancelled.
"""

from __future__ import annotations

import itertools
from fractions import Fraction


def _judge(r: int, sv: int) -> tuple[bool, bool, int]:
    """(success, critical, value) of one die result ``r`` against ``sv``."""
    if sv <= 0:
        return False, False, r
    if sv > 20:
        v = r + sv - 20
        return True, v >= 20, v
    return r <= sv, r == sv, r


def _kept(mine, theirs) -> list[tuple[int, bool]]:
    """My successes ``(value, critical)`` that no success of theirs cancels."""
    if any(c for _, c in mine) and any(c for _, c in theirs):
        return []
    out = []
    for v, c in mine:
        beaten = any((tc and not c) or (not tc and not c and tv >= v) for tv, tc in theirs)
        if not beaten:
            out.append((v, c))
    return out


def roll_table(att_sv: int, n: int, def_sv: int | None, m: int):
    """Every roll: ``{(attacker hits, attacker crits, defender hits, defender crits):
    probability}`` (``def_sv`` None or ``m`` 0: a Normal Roll)."""
    m = 0 if def_sv is None else m
    out: dict[tuple[int, int, int, int], Fraction] = {}
    p = Fraction(1, 20 ** (n + m))
    for rolls in itertools.product(range(1, 21), repeat=n + m):
        a = [(v, c) for s, c, v in (_judge(r, att_sv) for r in rolls[:n]) if s]
        d = [(v, c) for s, c, v in (_judge(r, def_sv or 0) for r in rolls[n:]) if s]
        ka, kd = _kept(a, d), _kept(d, a)
        key = (len(ka), sum(c for _, c in ka), len(kd), sum(c for _, c in kd))
        out[key] = out.get(key, Fraction(0)) + p
    return out


def wound_stats(hits_crits: dict[tuple[int, int], Fraction], save_sv: int):
    """(P(at least one wound), expected wounds) when each hit and each critical makes one
    Saving Roll that fails on d20 > save_sv."""
    q = Fraction(max(0, min(20, 20 - save_sv)), 20)  # one Saving Roll fails
    p_w = e_w = Fraction(0)
    for (h, c), p in hits_crits.items():
        saves = h + c
        p_w += p * (1 - (1 - q) ** saves)
        e_w += p * saves * q
    return p_w, e_w


def summary(att_sv: int, n: int, def_sv: int | None, m: int):
    """The attacker's hit distribution ``{(hits, crits): p}``, the defender's, and
    P(attacker wins), P(defender wins), P(nobody)."""
    table = roll_table(att_sv, n, def_sv, m)
    att: dict[tuple[int, int], Fraction] = {}
    dfn: dict[tuple[int, int], Fraction] = {}
    aw = dw = Fraction(0)
    for (ha, ca, hd, cd), p in table.items():
        att[(ha, ca)] = att.get((ha, ca), Fraction(0)) + p
        dfn[(hd, cd)] = dfn.get((hd, cd), Fraction(0)) + p
        aw += p if ha else 0
        dw += p if hd else 0
    return att, dfn, aw, dw, 1 - aw - dw
