"""Roll data of a scenario (SPEC 12.4, Infinity): trooper ``stats``, ``reaction``,
``reaction_mod`` and an attack's ``weapon``, validated with their field paths.

The values are **data** (a unit's profile, a weapon's profile, what a player declares);
what the rules do with them lives in :mod:`geom3d.rules.infinity.odds` and
:mod:`geom3d.combat`.

* ``stats: {bs, ph, wip, cc, arm, bts, wounds}``: integers, every key optional (a missing
  one is an error only when a roll needs it); attributes and ARM/BTS 0..MAX_ATTRIBUTE,
  wounds 1..MAX_WOUNDS.
* ``reaction: none | dodge | {attack: {attribute, burst, mod, ps, save}}``; absent: the
  default of SPEC 12.4 (dodge where the rules allow one).
* ``reaction_mod: M``: added to the trooper's reaction roll.
* ``weapon: {attribute: bs|ph|wip, burst, ps, save: arm|bts, mod, ranges}``: defaults
  ``attribute: bs``, ``save: arm``, ``mod: 0``, ``burst``: the attack's. ``ps`` is
  required unless the attack is ``harmless`` (a harmless template has no PS, 000), and
  then it must be left out. ``ranges: [{to: D, mod: M}, ...]`` (SPEC 13.2): range bands
  in the file's units, ascending; a reaction's ``attack`` may give them too.
"""

from __future__ import annotations

from dataclasses import dataclass

from geom3d.scenario.context import ParseContext
from geom3d.scenario.limits import MAX_ATTRIBUTE, MAX_BURST, MAX_PS, MAX_ROLL_MOD, MAX_WOUNDS

__all__ = [
    "ATTRIBUTES",
    "STAT_KEYS",
    "Reaction",
    "Stats",
    "Weapon",
    "check_infinity_only",
    "parse_reaction",
    "parse_reaction_mod",
    "parse_stats",
    "parse_weapon",
    "weapon_burst",
]

#: Keys of ``stats``, in profile order.
STAT_KEYS: tuple[str, ...] = ("bs", "ph", "wip", "cc", "arm", "bts", "wounds")

#: Attributes a weapon or a reaction attack may roll with.
ATTRIBUTES: tuple[str, ...] = ("bs", "ph", "wip")

#: Attributes a Saving Roll may add to PS.
SAVES: tuple[str, ...] = ("arm", "bts")


@dataclass(frozen=True)
class Stats:
    """A trooper's profile (``None``: not given)."""

    bs: int | None = None
    ph: int | None = None
    wip: int | None = None
    cc: int | None = None
    arm: int | None = None
    bts: int | None = None
    wounds: int | None = None


@dataclass(frozen=True)
class Weapon:
    """A weapon's roll data (an attack's ``weapon``, or a reaction's ``attack``).

    ``burst`` is as written (None: the attack's own, or 1 for a reaction); ``ps`` None
    only for a harmless attack's weapon.
    """

    attribute: str = "bs"
    burst: int | None = None
    ps: int | None = None
    save: str = "arm"
    mod: int = 0
    #: Range bands (SPEC 13.2): ``((to_mm, mod), ...)``, ascending; None: no range limit
    ranges: tuple[tuple[float, int], ...] | None = None


@dataclass(frozen=True)
class Reaction:
    """What an affected trooper declares: ``kind`` ``none``, ``dodge`` or ``attack``."""

    kind: str
    attack: Weapon | None = None


def _int(v, lo: int, hi: int, ctx: ParseContext, path: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise ctx.error(f"expected an integer (got {v!r})", path)
    if not lo <= v <= hi:
        raise ctx.error(f"must be between {lo} and {hi} (got {v})", path)
    return v


def _mapping(v, ctx: ParseContext, path: str, known: tuple[str, ...]) -> dict:
    if not isinstance(v, dict):
        raise ctx.error(f"expected a mapping (got {v!r})", path)
    for key in v:
        if key not in known:
            raise ctx.error(f"unknown key {key!r} (known: {', '.join(known)})", f"{path}.{key}")
    return v


def _choice(v, choices: tuple[str, ...], ctx: ParseContext, path: str) -> str:
    if v not in choices:
        raise ctx.error(f"expected one of {', '.join(choices)} (got {v!r})", path)
    return v


def parse_stats(raw, ctx: ParseContext, path: str) -> Stats | None:
    """``troopers[i].stats`` (None when absent)."""
    if raw is None:
        return None
    raw = _mapping(raw, ctx, path, STAT_KEYS)
    out = {}
    for key, v in raw.items():
        lo, hi = (1, MAX_WOUNDS) if key == "wounds" else (0, MAX_ATTRIBUTE)
        out[key] = _int(v, lo, hi, ctx, f"{path}.{key}")
    return Stats(**out)


def _weapon(raw, ctx: ParseContext, path: str, *, harmless: bool, reaction: bool) -> Weapon:
    raw = _mapping(raw, ctx, path, ("attribute", "burst", "ps", "save", "mod", "ranges"))
    attribute = _choice(raw.get("attribute", "bs"), ATTRIBUTES, ctx, f"{path}.attribute")
    save = _choice(raw.get("save", "arm"), SAVES, ctx, f"{path}.save")
    mod = _int(raw.get("mod", 0), -MAX_ROLL_MOD, MAX_ROLL_MOD, ctx, f"{path}.mod")
    burst = raw.get("burst")
    if burst is not None:
        burst = _int(burst, 1, MAX_BURST, ctx, f"{path}.burst")
    ps = raw.get("ps")
    if harmless and ps is not None:
        raise ctx.error(
            "a harmless attack's weapon has no PS (000: a template that may affect allies "
            "has no PS value); leave ps out",
            f"{path}.ps",
        )
    if not harmless and ps is None:
        what = "the reaction's attack" if reaction else "the weapon"
        raise ctx.error(
            f"required field is missing (the Possibility of Survival of {what})", f"{path}.ps"
        )
    if ps is not None:
        ps = _int(ps, 0, MAX_PS, ctx, f"{path}.ps")
    ranges = _ranges(raw.get("ranges"), ctx, f"{path}.ranges")
    return Weapon(attribute=attribute, burst=burst, ps=ps, save=save, mod=mod, ranges=ranges)


def _ranges(raw, ctx: ParseContext, path: str) -> tuple[tuple[float, int], ...] | None:
    """``weapon.ranges``: ``[{to: D, mod: M}, ...]``, D in the file's units (converted to
    mm), strictly ascending and positive; M an integer MOD (SPEC 13.2)."""
    if raw is None:
        return None
    if not isinstance(raw, list) or not raw:
        raise ctx.error(f"expected a list of {{to: D, mod: M}} bands (got {raw!r})", path)
    out: list[tuple[float, int]] = []
    for i, band in enumerate(raw):
        where = f"{path}[{i}]"
        band = _mapping(band, ctx, where, ("to", "mod"))
        for key in ("to", "mod"):
            if key not in band:
                raise ctx.error("required field is missing", f"{where}.{key}")
        to = band["to"]
        if isinstance(to, bool) or not isinstance(to, int | float) or not to > 0:
            raise ctx.error(f"expected a positive length (got {to!r})", f"{where}.to")
        mm = ctx.length(to, f"{where}.to")
        if out and mm <= out[-1][0]:
            raise ctx.error(
                f"bands must ascend: {to!r} is not beyond the previous band's end", f"{where}.to"
            )
        out.append((mm, _int(band["mod"], -MAX_ROLL_MOD, MAX_ROLL_MOD, ctx, f"{where}.mod")))
    return tuple(out)


def parse_weapon(raw, ctx: ParseContext, path: str, *, harmless: bool) -> Weapon | None:
    """``attacks[i].weapon`` (None when absent)."""
    if raw is None:
        return None
    return _weapon(raw, ctx, path, harmless=harmless, reaction=False)


def parse_reaction(raw, ctx: ParseContext, path: str) -> Reaction | None:
    """``troopers[i].reaction`` (None when absent: the SPEC 12.4 default)."""
    if raw is None:
        return None
    if isinstance(raw, str):
        return Reaction(_choice(raw, ("none", "dodge"), ctx, path))
    if not isinstance(raw, dict):
        raise ctx.error(f"expected none, dodge or {{attack: {{...}}}} (got {raw!r})", path)
    raw = _mapping(raw, ctx, path, ("attack",))
    if "attack" not in raw:
        raise ctx.error("required field is missing", f"{path}.attack")
    return Reaction(
        "attack", _weapon(raw["attack"], ctx, f"{path}.attack", harmless=False, reaction=True)
    )


def parse_reaction_mod(raw, ctx: ParseContext, path: str) -> int:
    """``troopers[i].reaction_mod`` (0 when absent)."""
    if raw is None:
        return 0
    return _int(raw, -MAX_ROLL_MOD, MAX_ROLL_MOD, ctx, path)


def check_infinity_only(raw, keys: tuple[str, ...], ruleset, ctx: ParseContext, where: str) -> None:
    """Roll data are Infinity's (SPEC 12.4): an error at the first such key given in a
    scenario whose ruleset has no rolls (``capabilities.rolls``)."""
    if ruleset.capabilities.rolls:
        return
    for key in keys:
        if getattr(raw, key) is not None:
            raise ctx.error(
                f"{key} is Infinity roll data (SPEC 12.4); ruleset {ruleset.name!r} has no rolls",
                f"{where}.{key}",
            )


def weapon_burst(raw_attack, weapon: Weapon | None, ctx: ParseContext, where: str) -> int:
    """The attack's Burst: its own ``burst``, or the weapon's when only the weapon gives one.

    Each die of the Burst is one template (SPEC 4.1), so a ``weapon.burst`` other than an
    explicit ``burst`` of the same attack is an error.
    """
    if weapon is None or weapon.burst is None:
        return raw_attack.burst
    if "burst" in raw_attack.model_fields_set and raw_attack.burst != weapon.burst:
        raise ctx.error(
            f"weapon burst {weapon.burst} differs from the attack's burst {raw_attack.burst} "
            "(each point of Burst is one template); give one of them",
            f"{where}.weapon.burst",
        )
    return weapon.burst
