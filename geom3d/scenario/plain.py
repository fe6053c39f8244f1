"""Plain BS attacks and ``cover`` overrides in the ``attacks`` section (SPEC 13.2).

An attack with no ``template`` is a **plain BS attack**: ``target: ID`` (a trooper, not
the attacker) and optionally a ``weapon`` (SPEC 12.4) whose ``ranges`` give the range
bands. The keys that place a template (``mode``, ``main_target``, ``heading_deg``,
``contact_deg``, ``focus``, ``pitch_deg``, ``placements``, ``target_unit``,
``harmless``, ``intuitive``) are errors there, and ``target`` is an error on a template
attack (its target is ``main_target``). Plain attacks are Infinity's (seed 002).

``cover: none | partial`` (the attack's target or main target) or ``cover: {ID: none |
partial, ...}`` overrides the Partial Cover the geometry decides, per target.
"""

from __future__ import annotations

from geom3d.core.errors import UnknownIdError
from geom3d.ruledata import RulesetData
from geom3d.scenario.context import ParseContext
from geom3d.scenario.model import PLAIN_MODE

__all__ = ["COVER_VALUES", "TEMPLATE_ONLY_KEYS", "parse_cover", "plain_fields"]

#: Values of a ``cover`` override.
COVER_VALUES: tuple[str, ...] = ("none", "partial")

#: Keys that only a template attack may give.
TEMPLATE_ONLY_KEYS: tuple[str, ...] = (
    "mode",
    "main_target",
    "heading_deg",
    "contact_deg",
    "focus",
    "pitch_deg",
    "placements",
    "target_unit",
    "harmless",
    "intuitive",
)


def plain_fields(
    a, ruleset: RulesetData, trooper_ids: set[str], ctx: ParseContext, where: str
) -> dict:
    """The :class:`~geom3d.scenario.model.AttackSpec` fields that tell a plain attack from
    a template one: ``mode``, ``template_name``, ``template``, ``main_target``, ``target``.

    Raises
    ------
    ScenarioError
        ``target`` with a template, a plain attack without ``target``, a template key on
        a plain attack, a plain attack outside Infinity.
    UnknownIdError
        ``target`` names no trooper.
    """
    if a.template is not None:
        if a.target is not None:
            raise ctx.error(
                "target is a plain BS attack's (no template); a template attack names its "
                "main_target",
                f"{where}.target",
            )
        return {}
    if not ruleset.capabilities.rolls:  # a plain attack is a roll (Infinity's, SPEC 13.2)
        raise ctx.error(
            f"a plain BS attack (no template) is Infinity's (SPEC 13.2); ruleset "
            f"{ruleset.name!r} needs a template",
            f"{where}.template",
        )
    if a.target is None:
        raise ctx.error(
            "required field is missing (a template, or a plain BS attack's target)",
            f"{where}.target",
        )
    if a.target not in trooper_ids:
        raise UnknownIdError(f"unknown trooper {a.target!r}", file=ctx.file, path=f"{where}.target")
    for key in TEMPLATE_ONLY_KEYS:
        if key in a.model_fields_set:
            raise ctx.error(
                f"{key} places a template; a plain BS attack (no template) has none",
                f"{where}.{key}",
            )
    return {
        "mode": PLAIN_MODE,
        "template_name": None,
        "template": {},
        "main_target": a.target,
        "target": a.target,
    }


def parse_cover(raw, target: str | None, trooper_ids: set[str], ctx: ParseContext, path: str):
    """``attacks[i].cover``: ``()`` when absent, else ``((id, value), ...)`` sorted by id.

    A bare value applies to ``target`` (the plain attack's target or the template's main
    target); a mapping names each trooper.
    """
    if raw is None:
        return ()
    if isinstance(raw, str):
        if raw not in COVER_VALUES:
            raise ctx.error(f"expected one of {', '.join(COVER_VALUES)} (got {raw!r})", path)
        if target is None:
            raise ctx.error(
                "a bare cover value applies to the attack's target or main_target, and this "
                "attack has none; give {ID: none | partial}",
                path,
            )
        return ((target, raw),)
    if not isinstance(raw, dict):
        raise ctx.error(f"expected none, partial or {{ID: none | partial}} (got {raw!r})", path)
    out = []
    for tid, value in raw.items():
        if tid not in trooper_ids:
            raise UnknownIdError(f"unknown trooper {tid!r}", file=ctx.file, path=f"{path}.{tid}")
        if value not in COVER_VALUES:
            raise ctx.error(
                f"expected one of {', '.join(COVER_VALUES)} (got {value!r})", f"{path}.{tid}"
            )
        out.append((str(tid), value))
    return tuple(sorted(out))
