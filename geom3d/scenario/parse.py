"""Read a scenario file and validate it section by section into a :class:`Scenario`.

:func:`load_scenario` reads YAML or JSON; :func:`parse_scenario` validates an already
parsed mapping: the raw schema (:mod:`geom3d.scenario.schema`) first, then one function
per section (table, scenery, troopers, attacks, expect), each converting lengths to mm
and checking references.
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from pydantic import ValidationError

from geom3d.errors import ScenarioError, UnknownIdError
from geom3d.rules import RulesetData, load_ruleset
from geom3d.tolerances import MAX_BODY_MM

from .attack import parse_attacks
from .context import ParseContext, check_finite, first_error
from .model import AttackSpec, LofExpectation, Scenario, SceneryItem, TrooperSpec
from .schema import FORMAT, STATES, ScenarioModel
from .shapes import scale_overrides

__all__ = ["load_scenario", "parse_scenario"]


def load_scenario(path) -> Scenario:
    """Read and validate a scenario file (YAML or JSON).

    Parameters
    ----------
    path : str or os.PathLike

    Raises
    ------
    ScenarioError
        With file and field path, for every problem SPEC section 10 lists.
    """
    p = Path(path)
    name = str(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ScenarioError("file not found", file=name) from None
    except IsADirectoryError:
        raise ScenarioError("is a directory, not a scenario file", file=name) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ScenarioError(f"cannot read file ({exc.__class__.__name__})", file=name) from None
    try:
        if p.suffix.lower() == ".json":
            data = json.loads(text)
        else:
            data = yaml.safe_load(text)
    except json.JSONDecodeError as exc:
        raise ScenarioError(
            f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}", file=name
        ) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1} column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or "syntax error"
        raise ScenarioError(f"invalid YAML{where}: {problem}", file=name) from None
    return parse_scenario(data, file=name, base_dir=p.resolve().parent, path=p)


def parse_scenario(data, *, file: str = "<scenario>", base_dir=None, path=None) -> Scenario:
    """Validate an already-parsed scenario mapping. See :func:`load_scenario`."""
    if not isinstance(data, dict):
        raise ScenarioError(
            f"expected a mapping at the top level, got {type(data).__name__}", file=file
        )
    check_finite(data, "", file)
    if "format" in data and data["format"] != FORMAT:
        raise ScenarioError(
            f"unsupported format {data['format']!r} (expected {FORMAT!r})", file=file, path="format"
        )
    try:
        raw = ScenarioModel.model_validate(data)
    except ValidationError as err:
        raise first_error(err, file) from None
    ctx = ParseContext(file, raw.units, Path(base_dir) if base_dir is not None else Path.cwd())
    ruleset = load_ruleset(raw.ruleset, scale_overrides(raw.ruleset_overrides, ctx.k), file=file)

    table_size, table_mesh, table_mesh_units = _table(raw, ctx)
    scenery = _scenery(raw, ctx)
    troopers = _troopers(raw, ruleset, ctx)
    attacks = parse_attacks(raw.attacks, ruleset, troopers, ctx)
    expect_lof, expect_attacks = _expect(raw, troopers, attacks, ctx)
    return Scenario(
        path=Path(path) if path is not None else None,
        units=raw.units,
        ruleset=ruleset,
        table_size=table_size,
        table_mesh=table_mesh,
        table_mesh_units=table_mesh_units,
        scenery=tuple(scenery),
        troopers=tuple(troopers),
        attacks=tuple(attacks),
        expect_lof=tuple(expect_lof),
        expect_attacks=expect_attacks,
        has_expect=raw.expect is not None,
    )


def _check_file(p: Path, ctx: ParseContext, where: str) -> None:
    if not p.is_file():
        raise ctx.error(f"mesh file not found: {p}", where)


def _table(raw: ScenarioModel, ctx: ParseContext):
    """``table``: (size (2,) mm or None, mesh path or None, mesh units)."""
    size = ctx.lengths(raw.table.size, "table.size") if raw.table and raw.table.size else None
    mesh = None
    mesh_units = "mm"
    if raw.table and raw.table.mesh:
        mesh = (ctx.base / raw.table.mesh).resolve()
        mesh_units = raw.table.mesh_units or raw.units
        _check_file(mesh, ctx, "table.mesh")
    return size, mesh, mesh_units


def _scenery(raw: ScenarioModel, ctx: ParseContext) -> list[SceneryItem]:
    """``scenery``: boxes and meshes, positions in mm (z = 0 when only x, y are given)."""
    out = []
    for i, s in enumerate(raw.scenery):
        where = f"scenery[{i}]"
        ctx.unique(s.id, f"{where}.id")
        if (s.box is None) == (s.mesh is None):
            raise ctx.error("give exactly one of 'box' or 'mesh'", where)
        mesh_path = None
        if s.mesh is not None:
            mesh_path = (ctx.base / s.mesh).resolve()
            _check_file(mesh_path, ctx, f"{where}.mesh")
        pos = [*ctx.lengths(s.position, f"{where}.position")]
        pos += [0.0] if len(s.position) == 2 else []
        out.append(
            SceneryItem(
                id=s.id,
                box_size=ctx.lengths(s.box.size, f"{where}.box.size", MAX_BODY_MM)
                if s.box
                else None,
                mesh_path=mesh_path,
                mesh_units=s.mesh_units or raw.units,
                position=tuple(pos),
                rotation_deg=float(s.rotation_deg),
                scale=float(s.scale),
                blocks_lof=s.blocks_lof,
            )
        )
    return out


def _ranges(nums: list[int]) -> str:
    if not nums:
        return "none"
    if nums == list(range(nums[0], nums[-1] + 1)):
        return f"{nums[0]}-{nums[-1]}"
    return ", ".join(str(n) for n in nums)


def _trooper(t, i: int, ruleset: RulesetData, ctx: ParseContext) -> TrooperSpec:
    """One ``troopers[i]`` entry: silhouette resolved, states checked, lengths in mm."""
    where = f"troopers[{i}]"
    ctx.unique(t.id, f"{where}.id")
    if isinstance(t.silhouette, int):
        if t.silhouette not in ruleset.silhouettes:
            known = _ranges(sorted(ruleset.silhouettes))
            raise ctx.error(
                f"unknown silhouette {t.silhouette} (known: {known})",
                f"{where}.silhouette",
            )
        d, h = ruleset.silhouettes[t.silhouette]
        label = t.silhouette
    else:
        d = ctx.length(t.silhouette.diameter, f"{where}.silhouette.diameter", MAX_BODY_MM)
        h = ctx.length(t.silhouette.height, f"{where}.silhouette.height", MAX_BODY_MM)
        label = None
    for j, st in enumerate(t.state):
        if st not in STATES:
            raise ctx.error(
                f"unknown state {st!r} (known: {', '.join(STATES)})", f"{where}.state[{j}]"
            )
    route = None
    if t.route:
        route = tuple(ctx.lengths(p, f"{where}.route[{j}]") for j, p in enumerate(t.route))
    return TrooperSpec(
        id=t.id,
        side=t.side,
        position=ctx.lengths(t.position, f"{where}.position"),
        facing_deg=float(t.facing_deg),
        silhouette=label,
        diameter=d,
        height=h,
        states=frozenset(t.state),
        engaged_with=tuple(t.engaged_with),
        route=route,
        unit=t.unit,
    )


def _troopers(raw: ScenarioModel, ruleset: RulesetData, ctx: ParseContext) -> list[TrooperSpec]:
    """``troopers``, then their ``engaged_with`` references."""
    troopers = [_trooper(t, i, ruleset, ctx) for i, t in enumerate(raw.troopers)]
    ids = {t.id for t in troopers}
    for i, t in enumerate(troopers):
        for j, other in enumerate(t.engaged_with):
            where = f"troopers[{i}].engaged_with[{j}]"
            if other not in ids:
                raise UnknownIdError(f"unknown trooper {other!r}", file=ctx.file, path=where)
            if other == t.id:
                raise ctx.error("a trooper cannot be engaged with itself", where)
    return troopers


def _expect(
    raw: ScenarioModel,
    troopers: list[TrooperSpec],
    attacks: list[AttackSpec],
    ctx: ParseContext,
) -> tuple[list[LofExpectation], dict]:
    """``expect``: LoF expectations and attack expectations, references checked."""
    expect_lof: list[LofExpectation] = []
    expect_attacks: dict = {}
    if raw.expect is None:
        return expect_lof, expect_attacks
    trooper_ids = {t.id for t in troopers}
    attack_ids = {a.id for a in attacks}
    for i, e in enumerate(raw.expect.lof):
        for key, ref in (("from", e.from_), ("to", e.to)):
            if ref not in trooper_ids:
                raise UnknownIdError(
                    f"unknown trooper {ref!r}", file=ctx.file, path=f"expect.lof[{i}].{key}"
                )
        expect_lof.append(LofExpectation(e.from_, e.to, e.lof, e.visible, e.in_arc, e.reason))
    for aid, spec in raw.expect.attacks.items():
        if aid not in attack_ids:
            raise UnknownIdError(
                f"unknown attack {aid!r}", file=ctx.file, path=f"expect.attacks.{aid}"
            )
        expect_attacks[aid] = spec
    return expect_lof, expect_attacks
