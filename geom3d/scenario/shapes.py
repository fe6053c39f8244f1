"""Template shapes named or written in a scenario, and ruleset overrides in file units.

Every template spec is validated by :func:`geom3d.templates.shape_from_spec`, the one
template-spec schema (keys, values, the size limit); this module only hands it the file's
unit factor and reports its problems with the field path.
"""

from __future__ import annotations

from geom3d.rules import RulesetData
from geom3d.templates import TemplateSpecError, shape_from_spec

from .context import ParseContext

__all__ = ["resolve_template", "scale_overrides"]


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
    return shape.to_spec()


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
