"""Attack results and their vocabularies: what every ruleset's resolver returns.

The ruleset objects (:mod:`geom3d.rules.infinity`, :mod:`geom3d.rules.wh40k`) build
:class:`PlacementResult` s and combine them with :func:`combine` into an
:class:`AttackResult`, whose :meth:`AttackResult.to_dict` is the SPEC section 6 JSON.

Outcomes and reasons (attack level and per placement)
-----------------------------------------------------
``resolved`` (reason ``null``)
    The template is placed legally and takes effect.
``failed``
    ``main_target_outside``: the main target is not in the area of effect (not touching
    the volume, or in Total Cover from the Blast Focus); nothing is affected.
    ``no_lof``: a direct or impact template whose main target the attacker has no Line
    of Fire to (arc included; speculative impact templates excepted): the main target is
    not a valid target (SPEC 11.4).
    ``engaged``: the attacker is engaged in close combat and the main target is not a
    trooper it is engaged with.
    ``no_wall_of_death`` (40k snap shots): the Wall of Death condition does not hold.
``cancelled``
    ``allied_in_area``: an allied or neutral trooper would be affected (Infinity) and the
    weapon is not ``harmless``; nothing is affected by that placement.
``invalid``
    The placement breaks a placement rule or cannot be built: ``through_attacker`` (the
    template cuts into the attacker's silhouette / the firer's base),
    ``not_touching_attacker`` (an explicit ``focus`` for a direct teardrop that does not
    touch the attacker), ``touches_friendly`` (40k: a friendly model under the template),
    ``no_valid_placement`` (40k ``heading_deg: auto`` found no placement avoiding every
    friendly), ``no_heading`` (a teardrop with no heading, no contact angle and no main
    target to aim at), ``no_main_target`` (an impact template or 40k blast with neither a
    main target nor a ``focus``), ``no_focus`` (a deployable without ``focus``),
    ``impact_not_circular`` (an impact template must be circular), ``not_centred`` (a
    direct circular template whose ``focus`` is not the attacker's base centre, 001,
    ruling 13.3), ``out_of_range`` (a plain BS attack beyond its weapon's last range
    band, SPEC 13.2). ``input_error``
    (``geom3d attack`` only): the attack has an input error of its own, e.g. its main
    target is its attacker (SPEC 12.6); the entry holds the error line in ``error``.

Burst: each of the B placements is resolved separately. The attack's ``affected`` is the
union over the placements that resolved; its outcome is ``resolved`` when at least one
placement resolved, otherwise the first placement's outcome and reason.

``excluded`` lists every trooper that is in some placement's area (or touches its volume)
but is not affected, with the first applicable reason in this precedence: ``attacker``
(the attacker of a direct template, or the 40k firer), the outcome of the placement that
would have affected it (``cancelled`` / ``failed`` / ``invalid``: e.g. a camouflage
marker inside a failed attack), ``total_cover`` (touches the volume, but no Line of Fire
from the Blast Focus).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from geom3d.core.output import round_point, round_value
from geom3d.scenario import AttackSpec
from geom3d.templates import TemplateVolume

__all__ = [
    "OUTCOMES",
    "PLACEMENT_DECIMALS",
    "REASONS",
    "RESULT_FIELDS",
    "AttackResult",
    "PlacementResult",
    "PlacementSpec",
    "combine",
    "invalid_placement",
]

#: Every attack / placement outcome.
OUTCOMES: tuple[str, ...] = ("resolved", "failed", "cancelled", "invalid")

#: Every reason an attack, a placement or an exclusion can carry.
REASONS: tuple[str, ...] = (
    "main_target_outside",
    "no_lof",
    "engaged",
    "no_wall_of_death",
    "allied_in_area",
    "through_attacker",
    "not_touching_attacker",
    "touches_friendly",
    "no_valid_placement",
    "no_heading",
    "no_main_target",
    "no_focus",
    "impact_not_circular",
    "not_centred",
    "out_of_range",
    "input_error",
    # exclusions
    "attacker",
    "total_cover",
    "cancelled",
    "failed",
    "invalid",
)

#: Decimal places of a placement's printed focus (mm) and angles (degrees): 1e-6, so a
#: placement pasted back as printed is the placement answered (ruling 13.3; the contact
#: tolerance, ``PLACEMENT_TOL_MM``, is 10,000 times larger).
PLACEMENT_DECIMALS: int = 6

#: Optional sections a ruleset may add to its attack results (see ``AttackResult.fields``).
RESULT_FIELDS: tuple[str, ...] = ("hits", "wall_of_death", "solver")


@dataclass(frozen=True)
class PlacementSpec:
    """What one template placement asks for, lengths in mm.

    Attributes
    ----------
    index : int
    heading_deg : float, ``"auto"`` or None
    contact_deg : float or None
    focus : tuple of 2 or 3 floats (mm) or None
    pitch_deg : float
    main_target : str or None
    """

    index: int
    heading_deg: float | str | None
    contact_deg: float | None
    focus: tuple[float, ...] | None
    pitch_deg: float
    main_target: str | None


@dataclass
class PlacementResult:
    """One template placement.

    Attributes
    ----------
    index : int
    volume : TemplateVolume or None
        None when the placement could not be built (no heading, no focus, ...).
    heading_deg, contact_deg : float or None
    pitch_deg : float
    outcome, reason : str, str or None
    main_target : str or None
    main_target_in_area : bool or None
    in_area : list of str
        Troopers in the area of effect whatever the outcome (Infinity: touching the
        volume with Line of Fire from the Blast Focus, plus engaged groups; 40k: any part
        of the base under the template), in scenario order.
    affected : list of str
        ``in_area`` when the placement resolved, else empty.
    excluded : dict[str, str]
        Trooper id -> ``attacker`` or ``total_cover``.
    witnesses : dict[str, dict]
        Per trooper in the area: how it was decided (``kind``: ``focus_inside``,
        ``patch``, ``small_part``, ``engaged``, ``plan``), and the deciding ray (``eye``,
        ``target``) when there is one, plus ``position`` for a trooper on a route.
    hits : int or None
        40k: models of the target unit under the template.
    maximal : bool or None
        40k, an explicit teardrop placement that resolved: it covers as many models of
        the target unit as any legal placement (ruling A2, SPEC 12.6); ``most`` is that
        maximum. None where not judged (the solver's own placements, blasts, Infinity).
    most : int or None
    vehicle : dict or None
        40k, the main target is a vehicle (SPEC 12.6): ``target``, ``facing``, ``armour``,
        ``covered_area_mm2``, ``hull_area_mm2``, ``covered_share``, ``firer_point``
        (:mod:`geom3d.rules.wh40k_vehicles`).
    """

    index: int
    volume: TemplateVolume | None
    heading_deg: float | None
    contact_deg: float | None
    pitch_deg: float
    outcome: str
    reason: str | None
    main_target: str | None = None
    main_target_in_area: bool | None = None
    in_area: list[str] = field(default_factory=list)
    affected: list[str] = field(default_factory=list)
    excluded: dict[str, str] = field(default_factory=dict)
    witnesses: dict[str, dict] = field(default_factory=dict)
    hits: int | None = None
    maximal: bool | None = None
    most: int | None = None
    vehicle: dict | None = None

    @property
    def focus(self) -> tuple[float, float, float] | None:
        return None if self.volume is None else self.volume.focus

    def to_dict(self) -> dict[str, Any]:
        nd = PLACEMENT_DECIMALS
        d = {
            "focus": round_point(self.focus, nd),
            "heading_deg": round_value(self.heading_deg, nd),
            "contact_deg": round_value(self.contact_deg, nd),
            "pitch_deg": round_value(self.pitch_deg, nd),
            "affected": list(self.affected),
            "outcome": self.outcome,
            "reason": self.reason,
            "main_target": self.main_target,
            "main_target_in_area": self.main_target_in_area,
            "in_area": list(self.in_area),
            "witnesses": {
                k: {kk: (round_point(vv) if kk in ("eye", "target", "position") else vv)
                    for kk, vv in w.items()}
                for k, w in self.witnesses.items()
            },
        }  # fmt: skip
        if self.hits is not None:
            d["hits"] = self.hits
        if self.maximal is not None:
            d["maximal"] = self.maximal
            d["most_possible"] = self.most
        if self.vehicle is not None:
            d["vehicle"] = dict(self.vehicle)
        return d


def invalid_placement(
    spec: PlacementSpec,
    reason: str,
    volume=None,
    heading: float | None = None,
    contact: float | None = None,
    *,
    pitch_deg: float | None = None,
) -> PlacementResult:
    """A placement that breaks a rule (``outcome = "invalid"``) and affects nobody.

    ``pitch_deg`` defaults to the placement's own (40k passes 0: its templates are flat).
    """
    return PlacementResult(
        index=spec.index,
        volume=volume,
        heading_deg=heading,
        contact_deg=contact,
        pitch_deg=spec.pitch_deg if pitch_deg is None else pitch_deg,
        outcome="invalid",
        reason=reason,
        main_target=spec.main_target,
    )


@dataclass
class AttackResult:
    """A resolved attack (SPEC section 6).

    Attributes
    ----------
    id, ruleset : str
    outcome : str
        ``resolved``, ``failed``, ``cancelled`` or ``invalid``.
    reason : str or None
    main_target_in_area : bool or None
    affected : list of str
        Scenario trooper order.
    excluded : list of (str, str)
        (trooper id, reason), scenario trooper order.
    troopers : dict[str, dict]
        Per affected trooper (Infinity: role, dodge, face_to_face, critical_applies,
        partial_cover_bonus; 40k: role, in_target_unit).
    placements : list of PlacementResult
    hits : list of int or str, or None
        40k: hits per template; a Wall of Death that applies: its dice roll (``["D3"]``,
        ``hits_total: "D3"``).
    wall_of_death : dict or None
        40k snap shots: ``{applies, reason, hits}``.
    solver : list of dict
        40k ``heading_deg: auto``: what the solver examined and chose, per placement.
    fields : tuple of str
        The optional sections the ruleset reports (a subset of ``RESULT_FIELDS``, in any
        order): ``hits`` (with ``hits_total``), ``wall_of_death``, ``solver`` (written only
        when the solver ran). The ruleset that resolved the attack chooses them.
    odds : dict[str, geom3d.combat.Odds] or None
        SPEC 12.4, when asked for (``resolve_attack(..., odds=True)``): the odds of each
        affected trooper (empty without a ``weapon``). None: not asked; the JSON is then
        exactly as without odds.
    weapon : dict or None
        The attack's ``weapon`` with its defaults, written beside ``odds``.
    warnings : list of str
        Likely mistakes in the attack as written (40k: an explicit placement covering
        fewer models than the most possible, ruling A2); ``warnings`` in the JSON when
        any.
    fire_at : dict or None
        A moving attacker's firing point (SPEC 12.5): ``{at_mm, index, position}``, plus
        ``best: {enemies, candidates}`` for ``fire_at: best``; written when not None.
    target : str or None
        A plain BS attack's target (SPEC 13.2); written when not None, with ``range``.
    range : dict or None
        A plain attack's distance and range band (``distance_mm``, ``distance``,
        ``units``, ``band``, ``from``, ``to``, ``mod``;
        :mod:`geom3d.rules.infinity.plain`).
    """

    id: str
    ruleset: str
    outcome: str
    reason: str | None
    main_target_in_area: bool | None
    affected: list[str]
    excluded: list[tuple[str, str]]
    troopers: dict[str, dict]
    placements: list[PlacementResult]
    hits: list[int | str] | None = None
    wall_of_death: dict | None = None
    solver: list[dict] = field(default_factory=list)
    fields: tuple[str, ...] = ()
    odds: dict | None = None
    weapon: dict | None = None
    warnings: list[str] = field(default_factory=list)
    fire_at: dict | None = None
    target: str | None = None
    range: dict | None = None

    @property
    def volumes(self) -> list[TemplateVolume]:
        """Template volumes of the placements that could be built, in placement order."""
        return [p.volume for p in self.placements if p.volume is not None]

    def to_dict(self) -> dict[str, Any]:
        """The SPEC section 6 JSON object (mm, floats rounded to 1e-3, deterministic)."""
        d: dict[str, Any] = {
            "id": self.id,
            "outcome": self.outcome,
            "reason": self.reason,
            "main_target_in_area": self.main_target_in_area,
            "affected": list(self.affected),
            "excluded": [{"id": i, "reason": r} for i, r in self.excluded],
            "troopers": {k: dict(v) for k, v in self.troopers.items()},
            "placements": [p.to_dict() for p in self.placements],
        }
        if "hits" in self.fields:
            hits = list(self.hits or [])
            d["hits"] = hits
            # a Wall of Death's hits are a dice roll ("D3"): the total says the roll too
            counts = [h for h in hits if isinstance(h, int)]
            d["hits_total"] = (
                sum(counts) if len(counts) == len(hits) else " + ".join(str(h) for h in hits)
            )
        if "wall_of_death" in self.fields:
            d["wall_of_death"] = None if self.wall_of_death is None else dict(self.wall_of_death)
        if "solver" in self.fields and self.solver:
            d["solver"] = [dict(s) for s in self.solver]
        if self.odds is not None:
            d["weapon"] = None if self.weapon is None else dict(self.weapon)
            for tid, odds in self.odds.items():
                d["troopers"].setdefault(tid, {})["odds"] = odds.to_dict()
        if self.warnings:
            d["warnings"] = list(self.warnings)
        if self.fire_at is not None:
            d["fire_at"] = dict(self.fire_at)
        if self.target is not None:
            d["target"] = self.target
            d["range"] = None if self.range is None else dict(self.range)
        return d


# --------------------------------------------------------------------------------------
# shared assembly
# --------------------------------------------------------------------------------------

_EXCLUSION_RANK = {"attacker": 0, "cancelled": 1, "failed": 1, "invalid": 1, "total_cover": 2}


def combine(
    scene,
    attack: AttackSpec,
    placements: list[PlacementResult],
    troopers: dict[str, dict],
    **extra,
) -> AttackResult:
    """Attack-level fields from the placements (see the module docstring).

    Parameters
    ----------
    scene : geom3d.scene.scene.Scene
    attack : geom3d.scenario.AttackSpec
    placements : list of PlacementResult
    troopers : dict[str, dict]
        Per-trooper details from the ruleset, kept for the affected troopers.
    **extra
        Further :class:`AttackResult` fields (``hits``, ``wall_of_death``, ``solver``,
        ``fields``, ``fire_at``).
    """
    order = list(scene.troopers)
    resolved = [p for p in placements if p.outcome == "resolved"]
    hit = set()
    for p in resolved:
        hit.update(p.affected)
    affected = [t for t in order if t in hit]
    why: dict[str, str] = {}

    def offer(tid: str, reason: str) -> None:
        if tid in hit:
            return
        if tid not in why or _EXCLUSION_RANK[reason] < _EXCLUSION_RANK[why[tid]]:
            why[tid] = reason

    for p in placements:
        for tid, why_not in p.excluded.items():
            offer(tid, why_not)
        if p.outcome != "resolved":
            for tid in p.in_area:
                offer(tid, p.outcome)
    excluded = [(t, why[t]) for t in order if t in why]
    if resolved:
        outcome, reason = "resolved", None
    else:
        outcome, reason = placements[0].outcome, placements[0].reason
    flags = [p.main_target_in_area for p in placements if p.main_target_in_area is not None]
    mtia = any(flags) if flags else None
    return AttackResult(
        id=attack.id,
        ruleset=scene.ruleset.name,
        outcome=outcome,
        reason=reason,
        main_target_in_area=mtia,
        affected=affected,
        excluded=excluded,
        troopers={t: troopers[t] for t in affected if t in troopers},
        placements=placements,
        **extra,
    )
