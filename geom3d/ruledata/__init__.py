"""Ruleset data: silhouettes, base height, template shapes and Line of Fire numbers.

The numbers live in ``ruledata/*.yaml``, one file per ruleset, so a newer rulebook is
a data change, and a scenario can override most of them with ``ruleset_overrides``.
This module is plain data (layer L3): the ruleset *objects* that adjudicate with it live
in :mod:`geom3d.rules.infinity`, :mod:`geom3d.rules.wh40k` and
:mod:`geom3d.rules.registry`.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

import yaml

from geom3d.core.errors import ScenarioError
from geom3d.core.tolerances import MAX_BODY_MM

__all__ = ["CAPABILITIES", "RULESETS", "Capabilities", "RulesetData", "load_ruleset"]

#: Ruleset names a scenario may declare, mapped to their data files: every
#: ``ruledata/<name>.yaml`` is one (so a new ruleset's data needs no registration here).
#: A value may also be an absolute path (a variant's data kept outside the package).
RULESETS: dict[str, str] = {
    entry.name.removesuffix(".yaml"): entry.name
    for entry in sorted(resources.files("geom3d.ruledata").iterdir(), key=lambda e: e.name)
    if entry.name.endswith(".yaml")
}


#: The capabilities every data file declares under ``capabilities`` (true or false each).
CAPABILITIES = ("rolls", "reactions", "vehicles", "blast_focus")


@dataclass(frozen=True)
class Capabilities:
    """What a ruleset's rules have (the data file's ``capabilities``): what the scenario
    parser accepts and the diagrams draw. Code asks these, never the ruleset's name.

    Attributes
    ----------
    rolls : bool
        Roll data (troopers' ``stats``, ``reaction``, ``reaction_mod``; attacks'
        ``weapon``) and exact odds (SPEC 12.4).
    reactions : bool
        Attacks may be AROs (``aro``), Intuitive Attacks (``intuitive``) and fire from a
        point of a route (``fire_at``).
    vehicles : bool
        Troopers may be vehicles (``vehicle``: hull, facings, Armour Values).
    blast_focus : bool
        Templates are 3D volumes with a Blast Focus, direct/impact modes and a main
        target; false: they hit what they cover in plan (the diagrams' wording).
    """

    rolls: bool
    reactions: bool
    vehicles: bool
    blast_focus: bool


@dataclass(frozen=True)
class RulesetData:
    """Ruleset data after overrides.

    Attributes
    ----------
    name : str
    base_height : float, mm
    silhouettes : dict[int, tuple[float, float]]
        Silhouette number -> (base diameter, height), mm.
    templates : dict[str, dict]
        Template name -> shape spec (``{shape: circle, diameter: ...}`` etc.), mm.
    template_sources : dict[str, str]
    line_of_fire : dict[str, float]
        ``patch_mm`` (side of the minimum visible patch, mm) and ``arc_deg`` (the front
        arc, degrees: 180 or 360), read by the ruleset's Line of Fire policy.
    capabilities : Capabilities
        What the rules have (not overridable: it describes the rules' code).
    """

    name: str
    base_height: float
    silhouettes: dict
    templates: dict
    template_sources: dict
    line_of_fire: dict
    capabilities: Capabilities


@cache
def _raw(name: str) -> dict:
    where = RULESETS[name]
    if Path(where).is_absolute():
        text = Path(where).read_text("utf-8")
    else:
        text = resources.files("geom3d.ruledata").joinpath(where).read_text("utf-8")
    return yaml.safe_load(text)


def _merge(base: dict, over: dict) -> dict:
    out = copy.deepcopy(base)
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = _merge(out[k], v)
        else:
            out[k] = copy.deepcopy(v)
    return out


_OVERRIDE_KEYS = {"base_height", "silhouettes", "templates", "template_sources"}


def load_ruleset(
    name: str, overrides: dict | None = None, *, file: str | None = None
) -> RulesetData:
    """Load a ruleset's data and apply ``overrides``.

    Parameters
    ----------
    name : str
        A key of :data:`RULESETS` (``infinity``, ``wh40k-7e``).
    overrides : dict, optional
        Same structure as the data file; merged key by key.
    file : str, optional
        Scenario file named in errors.
    """
    if name not in RULESETS:
        raise ScenarioError(
            f"unknown ruleset {name!r} (known: {', '.join(RULESETS)})", file=file, path="ruleset"
        )
    overrides = overrides or {}
    for k in overrides:
        if k not in _OVERRIDE_KEYS:
            raise ScenarioError(
                f"unknown key {k!r} (known: {', '.join(sorted(_OVERRIDE_KEYS))})",
                file=file,
                path=f"ruleset_overrides.{k}",
            )
    data = _merge(_raw(name), overrides)
    sil = {}
    for key, spec in data.get("silhouettes", {}).items():
        path = f"ruleset_overrides.silhouettes.{key}"
        try:
            num = int(key)
            d, h = float(spec["diameter"]), float(spec["height"])
        except (TypeError, ValueError, KeyError):
            raise ScenarioError(
                "expected {diameter: <mm>, height: <mm>} under an integer key", file=file, path=path
            ) from None
        if not (0 < d <= MAX_BODY_MM and 0 < h <= MAX_BODY_MM):
            raise ScenarioError(
                f"diameter and height must be positive numbers up to {MAX_BODY_MM:g} mm",
                file=file,
                path=path,
            )
        sil[num] = (d, h)
    try:
        base_height = float(data["base_height"])
    except (TypeError, ValueError):
        raise ScenarioError(
            "must be a number", file=file, path="ruleset_overrides.base_height"
        ) from None
    if not base_height > 0:
        raise ScenarioError("must be positive", file=file, path="ruleset_overrides.base_height")
    return RulesetData(
        name=name,
        base_height=base_height,
        silhouettes=sil,
        templates=dict(data.get("templates", {})),
        template_sources=dict(data.get("template_sources", {})),
        line_of_fire=_line_of_fire(name, data.get("line_of_fire")),
        capabilities=_capabilities(name, data.get("capabilities")),
    )


def _capabilities(name: str, spec) -> Capabilities:
    """The data file's ``capabilities`` section, checked (a broken data file is a bug)."""
    if not isinstance(spec, dict) or set(spec) != set(CAPABILITIES):
        raise ValueError(
            f"ruledata {RULESETS[name]}: capabilities needs exactly {', '.join(CAPABILITIES)}"
        )
    if not all(isinstance(v, bool) for v in spec.values()):
        raise ValueError(f"ruledata {RULESETS[name]}: capabilities are true or false")
    return Capabilities(**spec)


def _line_of_fire(name: str, spec) -> dict[str, float]:
    """The data file's ``line_of_fire`` section, checked (a broken data file is a bug)."""
    if not isinstance(spec, dict) or set(spec) != {"patch_mm", "arc_deg"}:
        raise ValueError(f"ruledata/{RULESETS[name]}: line_of_fire needs patch_mm and arc_deg")
    patch, arc = float(spec["patch_mm"]), float(spec["arc_deg"])
    if not patch > 0 or arc not in (180.0, 360.0):
        raise ValueError(
            f"ruledata/{RULESETS[name]}: line_of_fire.patch_mm must be positive and "
            f"arc_deg 180 or 360 (got {patch:g}, {arc:g})"
        )
    return {"patch_mm": patch, "arc_deg": arc}
