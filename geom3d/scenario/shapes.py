"""Template shapes named or written in a scenario, and ruleset overrides in file units.

Every template spec is validated by :func:`geom3d.templates.shape_from_spec`, the one
template-spec schema (keys, values, the size limit); this module only hands it the file's
unit factor and reports its problems with the field path.
"""

from __future__ import annotations

from geom3d.ruledata import RulesetData
from geom3d.scenario.context import ParseContext
from geom3d.scenario.limits import MAX_SILHOUETTE_MM, MIN_BODY_MM
from geom3d.templates import TemplateSpecError, shape_from_spec

__all__ = ["check_overridden", "check_override_types", "resolve_template", "scale_overrides"]


def _is_length(key, value) -> bool:
    """Every number in a template spec but its ``shape`` is a length."""
    return key != "shape" and isinstance(value, int | float) and not isinstance(value, bool)


def _template_mm(spec, k: float):
    """A ruleset override's template ``spec`` with its lengths multiplied by ``k``.

    Non-mappings and non-numbers are left as they are, for :func:`shape_from_spec` to
    reject when the template is used.
    """
    if not isinstance(spec, dict):
        return spec
    return {key: (v * k if _is_length(key, v) else v) for key, v in spec.items()}


def _shape_spec(spec, ctx: ParseContext, where: str, scale: float = 1.0) -> dict:
    """The canonical spec (mm) of a valid template shape, else a ScenarioError.

    Parameters
    ----------
    spec : object
        As written (a mapping, if valid).
    ctx : ParseContext
    where : str
        Field path of the spec; a problem with one key is reported at ``where.key``.
    scale : float
        Millimetres per unit of the spec's lengths.
    """
    try:
        shape = shape_from_spec(spec, scale=scale)
    except TemplateSpecError as exc:
        raise ctx.error(exc.message, f"{where}.{exc.key}" if exc.key else where) from None
    out = shape.to_spec()
    if isinstance(spec, dict) and "kind" in spec:
        out["kind"] = spec["kind"]  # validated above; decides 40k Wall of Death
    return out


def resolve_template(value, ruleset: RulesetData, ctx: ParseContext, where: str):
    """An attack's ``template``: a ruleset template's name, or an inline shape mapping.

    Parameters
    ----------
    value : str or dict
        As written; an inline mapping's lengths are in the file's units.
    ruleset : RulesetData
        Templates in mm (overrides were scaled when loaded).
    ctx : ParseContext
    where : str
        Field path, e.g. ``attacks[0].template``.

    Returns
    -------
    name : str or None
        None for an inline shape.
    spec : dict
        The canonical shape spec in mm (see :meth:`geom3d.templates.CircleShape.to_spec`).
    """
    if isinstance(value, str):
        if value not in ruleset.templates:
            raise ctx.error(
                f"unknown template {value!r} (known: {', '.join(sorted(ruleset.templates))})",
                where,
            )
        return value, _shape_spec(ruleset.templates[value], ctx, f"ruleset.templates.{value}")
    return None, _shape_spec(value, ctx, where, ctx.k)


def scale_overrides(over: dict, k: float) -> dict:
    """Ruleset overrides are written in the scenario's units: convert lengths to mm.

    Parameters
    ----------
    over : dict
        ``ruleset_overrides`` as written.
    k : float
        Millimetres per file unit.
    """
    if k == 1.0 or not over:
        return over
    out = dict(over)
    if isinstance(out.get("base_height"), int | float):
        out["base_height"] = out["base_height"] * k
    if isinstance(out.get("silhouettes"), dict):
        out["silhouettes"] = {
            key: (
                {
                    kk: (
                        vv * k
                        if kk in ("diameter", "height") and isinstance(vv, int | float)
                        else vv
                    )
                    for kk, vv in spec.items()
                }
                if isinstance(spec, dict)
                else spec
            )
            for key, spec in out["silhouettes"].items()
        }
    if isinstance(out.get("templates"), dict):
        out["templates"] = {key: _template_mm(spec, k) for key, spec in out["templates"].items()}
    return out


#: ``ruleset_overrides`` keys whose value must be a mapping.
_MAPPING_KEYS = ("silhouettes", "templates", "template_sources")


def check_override_types(over: dict, ctx: ParseContext) -> dict:
    """``ruleset_overrides`` with a mapping wherever the ruleset data has one, else an error.

    Run before the overrides are merged into the ruleset, so a list where a mapping
    belongs is one clear error, not a ``TypeError``. Returns ``over``.
    """
    for key in _MAPPING_KEYS:
        if key in over and not isinstance(over[key], dict):
            raise ctx.error(
                f"expected a mapping, got {type(over[key]).__name__}", f"ruleset_overrides.{key}"
            )
    for key, spec in over.get("silhouettes", {}).items():
        if not isinstance(spec, dict):
            raise ctx.error(
                "expected {diameter: <length>, height: <length>}",
                f"ruleset_overrides.silhouettes.{key}",
            )
        for k, v in spec.items():
            if isinstance(v, bool) or not isinstance(v, int | float):
                raise ctx.error("expected a number", f"ruleset_overrides.silhouettes.{key}.{k}")
    base = over.get("base_height")
    if "base_height" in over and (isinstance(base, bool) or not isinstance(base, int | float)):
        raise ctx.error("expected a number", "ruleset_overrides.base_height")
    return over


def check_overridden(ruleset: RulesetData, over: dict, ctx: ParseContext) -> None:
    """The limits a scenario's own sizes obey, applied to what ``over`` changed.

    Overridden silhouettes and the base height lie within ``MIN_BODY_MM`` ..
    ``MAX_SILHOUETTE_MM``; every overridden template is a valid shape within the template
    size limit (checked now, not only when an attack uses it).
    """
    if "base_height" in over:
        _size(ruleset.base_height, ctx, "ruleset_overrides.base_height")
    keys = {str(k) for k in over.get("silhouettes", {})}
    for num, (d, h) in ruleset.silhouettes.items():
        if str(num) in keys:
            where = f"ruleset_overrides.silhouettes.{num}"
            _size(d, ctx, f"{where}.diameter")
            _size(h, ctx, f"{where}.height")
    for name in over.get("templates", {}):
        _shape_spec(ruleset.templates.get(name), ctx, f"ruleset_overrides.templates.{name}")


def _size(mm: float, ctx: ParseContext, where: str) -> None:
    """A body size already in mm, between ``MIN_BODY_MM`` and ``MAX_SILHOUETTE_MM``."""
    if not MIN_BODY_MM <= mm <= MAX_SILHOUETTE_MM:
        raise ctx.error(
            f"{mm / ctx.k:g} {ctx.units} is outside {MIN_BODY_MM:g}..{MAX_SILHOUETTE_MM:g} mm "
            "(wrong units?)",
            where,
        )
