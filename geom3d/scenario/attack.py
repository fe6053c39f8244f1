"""The ``attacks`` section: references, template, pitch and per-placement overrides.

Per-placement overrides (``placements``, one mapping per template, as many as ``burst``)
are validated here and only here: ``heading_deg`` (number or ``auto``), ``contact_deg``,
``focus`` ([x, y] or [x, y, z], in the scenario's units), ``pitch_deg``, ``main_target``
(a trooper id). :func:`geom3d.adjudication.attacks.placement_specs` merges them with the attack's
own
values.
"""

from __future__ import annotations

import itertools
import math

from geom3d.core.errors import ScenarioError, UnknownIdError
from geom3d.ruledata import RulesetData
from geom3d.scenario.context import ParseContext
from geom3d.scenario.limits import MAX_BURST
from geom3d.scenario.model import AttackSpec, TrooperSpec
from geom3d.scenario.plain import parse_cover, plain_fields
from geom3d.scenario.rolls import check_infinity_only, parse_weapon, weapon_burst
from geom3d.scenario.shapes import resolve_template

__all__ = ["PLACEMENT_KEYS", "parse_attacks"]

#: Keys a ``placements[j]`` mapping may give.
PLACEMENT_KEYS: tuple[str, ...] = (
    "heading_deg",
    "contact_deg",
    "focus",
    "pitch_deg",
    "main_target",
)


def _is_number(v) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def _placement(p: dict, trooper_ids: set[str], ctx: ParseContext, pw: str) -> dict:
    """One override mapping, checked and normalised (``focus`` in mm)."""
    out: dict = {}
    for key, v in p.items():
        path = f"{pw}.{key}"
        if key not in PLACEMENT_KEYS:
            raise ctx.error(f"unknown key {key!r} (known: {', '.join(PLACEMENT_KEYS)})", path)
        if key == "heading_deg":
            if not (_is_number(v) or v == "auto"):
                raise ctx.error(f"expected a number or 'auto' (got {v!r})", path)
            out[key] = float(v) if v != "auto" else "auto"
        elif key in ("contact_deg", "pitch_deg"):
            if not _is_number(v):
                raise ctx.error(f"expected a finite number (got {v!r})", path)
            if key == "pitch_deg" and not -90.0 < v < 90.0:
                raise ctx.error(f"must be strictly between -90 and 90 (got {v!r})", path)
            out[key] = float(v)
        elif key == "focus":
            if (
                not isinstance(v, list | tuple)
                or len(v) not in (2, 3)
                or not all(_is_number(x) for x in v)
            ):
                raise ctx.error(f"expected [x, y] or [x, y, z], finite numbers (got {v!r})", path)
            out[key] = ctx.lengths(v, path)
        else:  # main_target
            if not isinstance(v, str):
                raise ctx.error(f"expected a trooper id (got {v!r})", path)
            if v not in trooper_ids:
                raise UnknownIdError(f"unknown trooper {v!r}", file=ctx.file, path=path)
            out[key] = v
    return out


def _fire_at(v, attacker: TrooperSpec, ruleset: RulesetData, ctx: ParseContext, path: str):
    """``attacks[i].fire_at``: None, an arc length in mm, ``{"index": i}`` or ``"best"``.

    The attacker needs a route. An arc length lies between 0 and the route's length as
    written (in plan for ``[x, y]`` points; the placed route, with heights, is never
    shorter); an index names one of the route's points."""
    if v is None:
        return None
    if not ruleset.capabilities.reactions:
        raise ctx.error(f"Infinity only (the ruleset is {ruleset.name})", path)
    route = attacker.route
    if route is None:
        raise ctx.error(f"the attacker {attacker.id!r} has no route to fire from", path)
    if v == "best":
        return "best"
    if isinstance(v, dict):
        if set(v) != {"index"}:
            raise ctx.error(f"expected {{index: N}} (got keys {sorted(v)})", path)
        i = v["index"]
        if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < len(route):
            raise ctx.error(
                f"index must be a route point, 0 to {len(route) - 1} (got {i!r})", f"{path}.index"
            )
        return {"index": int(i)}
    if not _is_number(v):
        raise ctx.error(
            f"expected an arc length along the route, {{index: N}} or 'best' (got {v!r})", path
        )
    s = ctx.length(v, path)
    n = min(len(p) for p in route)
    pts = [p[:n] for p in route]
    length = sum(math.dist(a, b) for a, b in itertools.pairwise(pts))
    if not 0.0 <= s <= length + 1e-9:
        raise ctx.error(
            f"arc length {s:g} mm is off the route (0 to {length:g} mm as written)", path
        )
    return float(s)


def _placements(raw, burst: int, trooper_ids: set[str], ctx: ParseContext, where: str):
    """``attacks[i].placements``: None, or one normalised mapping per template."""
    if not raw:
        return None
    if len(raw) != burst:
        raise ctx.error(
            f"{len(raw)} placements given but burst is {burst} (give one placement per template)",
            f"{where}.placements",
        )
    return tuple(
        _placement(p, trooper_ids, ctx, f"{where}.placements[{j}]") for j, p in enumerate(raw)
    )


def _self_target(a, placements, ctx: ParseContext, where: str) -> ScenarioError | None:
    """SPEC 12.6: a main target equal to the attacker is an input error of this attack
    (the attack's own or a placement's ``main_target``), kept with its field path so the
    file's other attacks are still resolved."""
    found = []
    if a.main_target is not None and a.main_target == a.attacker:
        found.append(f"{where}.main_target")
    if a.target is not None and a.target == a.attacker:
        found.append(f"{where}.target")
    for j, p in enumerate(placements or ()):
        if p.get("main_target") == a.attacker:
            found.append(f"{where}.placements[{j}].main_target")
    if not found:
        return None
    return ctx.error(
        f"the main target is the attacker {a.attacker!r} (an attack cannot target its own "
        "attacker)",
        found[0],
    )


def _aro_problem(a, burst: int, ruleset: RulesetData, ctx: ParseContext, where: str):
    """``aro``/``aro_burst`` errors of one attack (ruling A3, SPEC 12.6): a rule may lower
    the Burst in ARO, never raise it above the weapon's; ARO is Infinity's (40k has no
    reactive template fire). Returned, not raised: they reject only this attack (13.3)."""
    if a.aro and not ruleset.capabilities.reactions:
        return ctx.error(
            f"aro: true is Infinity's (Automatic Reaction Order); ruleset {ruleset.name!r} "
            "has no ARO",
            f"{where}.aro",
        )
    if a.aro_burst is None:
        return None
    path = f"{where}.aro_burst"
    if not a.aro:
        return ctx.error("aro_burst needs aro: true (it is the Burst in ARO)", path)
    if not 1 <= a.aro_burst <= MAX_BURST:
        return ctx.error(f"must be between 1 and {MAX_BURST}", path)
    if a.aro_burst > burst:
        return ctx.error(f"aro_burst {a.aro_burst} is above the weapon's burst {burst}", path)
    return None


def _speculative_problem(a, ctx: ParseContext, where: str):
    """``speculative: true`` on a direct template (ruling, docs/rules.md): a Speculative
    Attack is a trait of weapons that roll to place an impact template (000 lists it with
    Grenades: Impact Template); a direct template makes no roll and is placed touching or
    centred on its attacker (001), so the key cannot apply. An error of this attack."""
    if a.speculative and (a.mode != "impact" or a.template is None):
        if a.template is None:
            return ctx.error(
                "speculative: true is a Speculative Attack, made with an impact template "
                "(000); a plain BS attack aims at its target",
                f"{where}.speculative",
            )
        return ctx.error(
            f"speculative: true is a Speculative Attack, made with an impact template (000); "
            f"a {a.mode} template is placed without a roll (001) - remove it or use mode: "
            "impact",
            f"{where}.speculative",
        )
    return None


def parse_attacks(
    raw_attacks, ruleset: RulesetData, troopers: list[TrooperSpec], ctx: ParseContext
) -> list[AttackSpec]:
    """Check the ``attacks`` section against the troopers and the ruleset.

    Raises
    ------
    ScenarioError
        Duplicate attack id, unknown template or shape, bad pitch or placements.
    UnknownIdError
        An attacker, main target (also per placement) or target unit that does not exist.
    """
    trooper_ids = {t.id for t in troopers}
    by_id = {t.id: t for t in troopers}
    units = {t.unit for t in troopers}
    attacks = []
    attack_ids: set[str] = set()
    for i, a in enumerate(raw_attacks):
        where = f"attacks[{i}]"
        if a.id in attack_ids:
            raise ctx.error(f"duplicate attack id {a.id!r}", f"{where}.id")
        attack_ids.add(a.id)
        for key in ("attacker", "main_target"):
            ref = getattr(a, key)
            if ref is not None and ref not in trooper_ids:
                raise UnknownIdError(
                    f"unknown trooper {ref!r}", file=ctx.file, path=f"{where}.{key}"
                )
        if a.target_unit is not None and a.target_unit not in units:
            raise UnknownIdError(
                f"unknown unit {a.target_unit!r}", file=ctx.file, path=f"{where}.target_unit"
            )
        plain = plain_fields(a, ruleset, trooper_ids, ctx, where)
        if plain:
            tname, tspec = None, {}
        else:
            tname, tspec = resolve_template(a.template, ruleset, ctx, f"{where}.template")
        if not -90.0 < a.pitch_deg < 90.0:
            raise ctx.error(
                f"must be strictly between -90 and 90 (got {float(a.pitch_deg):g})",
                f"{where}.pitch_deg",
            )
        check_infinity_only(a, ("weapon",), ruleset, ctx, where)
        weapon = parse_weapon(a.weapon, ctx, f"{where}.weapon", harmless=a.harmless)
        burst = weapon_burst(a, weapon, ctx, where)
        # errors confined to this attack (13.3): the file's other attacks still resolve
        own = _aro_problem(a, burst, ruleset, ctx, where) or _speculative_problem(a, ctx, where)
        if a.intuitive and (not ruleset.capabilities.reactions or a.mode != "direct"):
            raise ctx.error(
                "intuitive: true is an Infinity Intuitive Attack, made with a direct "
                f"template (got ruleset {ruleset.name!r}, mode {a.mode!r})",
                f"{where}.intuitive",
            )
        placements = _placements(a.placements, burst, trooper_ids, ctx, where)
        attacks.append(
            AttackSpec(
                id=a.id,
                attacker=a.attacker,
                template_name=tname,
                template=tspec,
                mode=plain.get("mode", a.mode),
                main_target=plain.get("main_target", a.main_target),
                heading_deg=a.heading_deg,
                contact_deg=a.contact_deg,
                focus=ctx.lengths(a.focus, f"{where}.focus") if a.focus is not None else None,
                pitch_deg=float(a.pitch_deg),
                burst=burst,
                speculative=a.speculative,
                harmless=a.harmless,
                target_unit=a.target_unit,
                snap_shot=a.snap_shot,
                charging=a.charging,
                placements=placements,
                aro=a.aro,
                aro_burst=a.aro_burst,
                ordnance=a.ordnance,
                weapon=weapon,
                problem=own or _self_target(a, placements, ctx, where),
                intuitive=a.intuitive,
                fire_at=_fire_at(a.fire_at, by_id[a.attacker], ruleset, ctx, f"{where}.fire_at"),
                cover=parse_cover(
                    a.cover, a.target or a.main_target, trooper_ids, ctx, f"{where}.cover"
                ),
                target=plain.get("target"),
            )
        )
    return attacks
