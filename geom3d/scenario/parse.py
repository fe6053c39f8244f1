"""Validate a scenario section by section into a :class:`Scenario`.

:func:`parse_model` takes a scenario whose raw schema holds (:mod:`geom3d.scenario.load`
reads the file and checks the schema, :mod:`geom3d.scenario.schema`, before this module
and the geometry it needs are imported): one function per section (table, scenery,
troopers, attacks, expect), each converting lengths to mm and checking references.
:func:`load_scenario` and :func:`parse_scenario` are :mod:`geom3d.scenario.load`'s.
"""

from __future__ import annotations

import itertools
import math
import os
from pathlib import Path

from geom3d.core.errors import UnknownIdError
from geom3d.core.inputfile import InputFileProblem, stat_regular
from geom3d.core.tolerances import MAX_BODY_MM, ROUTE_STEP_MM
from geom3d.core.validation import xyz
from geom3d.mesh.limits import MAX_MESH_BYTES
from geom3d.ruledata import RulesetData, load_ruleset
from geom3d.scenario.attack import parse_attacks
from geom3d.scenario.context import ParseContext
from geom3d.scenario.limits import (
    MAX_ROUTE_MM_TROOPERS,
    MAX_ROUTE_POINTS,
    MAX_ROUTE_TRAVEL_MM,
    MAX_SILHOUETTE_MM,
    MIN_BODY_MM,
    ROUTE_SCAN_S_PER_MM_TROOPER,
)
from geom3d.scenario.model import (
    LOF_EXPECT_KEYS,
    AttackSpec,
    LofExpectation,
    Scenario,
    SceneryItem,
    TrooperSpec,
)
from geom3d.scenario.rolls import (
    check_infinity_only,
    parse_reaction,
    parse_reaction_mod,
    parse_stats,
)
from geom3d.scenario.schema import STATES, ScenarioModel
from geom3d.scenario.shapes import check_overridden, check_override_types, scale_overrides
from geom3d.scenario.terrain_zones import parse_terrain_zones
from geom3d.scenario.vehicles import parse_vehicle

__all__ = ["parse_model"]


def parse_model(
    raw: ScenarioModel,
    *,
    file: str = "<scenario>",
    base_dir: str | os.PathLike[str] | None = None,
    path: str | os.PathLike[str] | None = None,
) -> Scenario:
    """The :class:`Scenario` of a scenario whose schema holds
    (:func:`geom3d.scenario.schema.check_schema`): every section checked, lengths in mm,
    references resolved. :func:`geom3d.scenario.load.parse_scenario` calls it."""
    ctx = ParseContext(file, raw.units, Path(base_dir) if base_dir is not None else Path.cwd())
    over = check_override_types(raw.ruleset_overrides, ctx)
    ruleset = load_ruleset(raw.ruleset, scale_overrides(over, ctx.k), file=file)
    check_overridden(ruleset, over, ctx)

    table_size, table_mesh, table_mesh_units, table_item = _table(raw, ctx)
    scenery = _scenery(raw, ctx)
    terrain_zones, zone_pieces = parse_terrain_zones(raw, {s.id for s in scenery}, ctx)
    scenery = [*scenery, *zone_pieces]  # blocking zones are solids (SPEC 12.6)
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
        table_item=table_item,
        zones=_zones(raw, ctx),
        active=_active(raw, troopers, ctx),
        accept_warnings=_accept_warnings(raw, ctx),
        terrain_zones=terrain_zones,
    )


def _accept_warnings(raw: ScenarioModel, ctx: ParseContext) -> tuple[str, ...]:
    """``accept_warnings``: shell-style patterns of warnings ``check --strict`` accepts."""
    for i, pat in enumerate(raw.accept_warnings):
        if not pat.strip():
            raise ctx.error("an empty pattern would accept nothing", f"accept_warnings[{i}]")
    return tuple(raw.accept_warnings)


def _route(points: list, ctx: ParseContext, where: str) -> tuple:
    """A trooper's ``route`` in mm, bounded before anything is sampled along it: at most
    ``MAX_ROUTE_POINTS`` positions and ``MAX_ROUTE_TRAVEL_MM`` of travel."""
    if len(points) > MAX_ROUTE_POINTS:
        raise ctx.error(
            f"{len(points):,} positions, more than the {MAX_ROUTE_POINTS:,} a route may have",
            where,
        )
    route = tuple(ctx.lengths(p, f"{where}[{j}]") for j, p in enumerate(points))
    travel = sum(math.dist(a[:2], b[:2]) for a, b in itertools.pairwise(route))
    if travel > MAX_ROUTE_TRAVEL_MM:
        raise ctx.error(
            f"{travel / 1000:,.0f} m of travel ({travel / ROUTE_STEP_MM:,.0f} samples every "
            f"{ROUTE_STEP_MM:g} mm), more than the {MAX_ROUTE_TRAVEL_MM / 1000:,.0f} m "
            "a route may cover",
            where,
        )
    return route


def _route_work(troopers: list[TrooperSpec], ctx: ParseContext) -> None:
    """Refuse routes whose Line of Fire scans would cost more than
    ``MAX_ROUTE_MM_TROOPERS`` (mm of route x other troopers, summed over the routes),
    naming the route that passes the cap."""
    others = len(troopers) - 1
    total = 0.0
    for i, t in enumerate(troopers):
        if t.route is None or others < 1:
            continue
        travel = sum(math.dist(a[:2], b[:2]) for a, b in itertools.pairwise(t.route))
        total += travel * others
        if total > MAX_ROUTE_MM_TROOPERS:
            minutes = total * ROUTE_SCAN_S_PER_MM_TROOPER / 60
            raise ctx.error(
                f"{travel / 1000:,.1f} m of travel x {others:,} other troopers makes the "
                f"routes {total / 1000:,.0f} m x troopers of Line of Fire scans (about "
                f"{minutes:,.0f} min), more than the {MAX_ROUTE_MM_TROOPERS / 1000:,.0f} a "
                "scenario may have; shorten the route or check it with fewer troopers",
                f"troopers[{i}].route",
            )


def _active(raw: ScenarioModel, troopers: list[TrooperSpec], ctx: ParseContext) -> tuple:
    """``active``: ids of the order's active troopers (Infinity ARO), references checked."""
    ids = {t.id for t in troopers}
    for i, tid in enumerate(raw.active):
        if tid not in ids:
            raise UnknownIdError(f"unknown trooper {tid!r}", file=ctx.file, path=f"active[{i}]")
    return tuple(dict.fromkeys(raw.active))


def _zones(raw: ScenarioModel, ctx: ParseContext) -> tuple:
    """``zones``: ((id, (x0, y0, x1, y1) mm), ...) in file order (for ``geom3d survey``)."""
    out, seen = [], set()
    for i, z in enumerate(raw.zones):
        if z.id in seen:
            raise ctx.error(f"duplicate zone id {z.id!r}", f"zones[{i}].id")
        seen.add(z.id)
        out.append((z.id, ctx.lengths(z.rect, f"zones[{i}].rect")))
    return tuple(out)


def _mesh_path(value: str, ctx: ParseContext, where: str) -> Path:
    """A mesh file named in the scenario, as an absolute path with symlinks resolved.

    Relative paths resolve against the scenario's folder and may leave it with ``..``;
    absolute paths are allowed (docs/paths-and-cache.md). The file must be a regular
    file of at most ``MAX_MESH_BYTES`` (no FIFO, device or symlink loop).
    """
    p = ctx.base / value
    try:
        stat_regular(p, MAX_MESH_BYTES)
    except InputFileProblem as exc:
        if exc.missing:
            raise ctx.error(f"mesh file not found: {p}", where) from None
        raise ctx.error(f"mesh file {p}: {exc}", where) from None
    return p.resolve()


def _table(raw: ScenarioModel, ctx: ParseContext):
    """``table``: (size (2,) mm or None, mesh path or None, mesh units, SceneryItem or None)."""
    size = (
        ctx.lengths(raw.table.size, "table.size", minimum=MIN_BODY_MM)
        if raw.table and raw.table.size
        else None
    )
    mesh = None
    mesh_units = "mm"
    item = None
    t = raw.table
    if t and t.mesh:
        mesh = _mesh_path(t.mesh, ctx, "table.mesh")
        mesh_units = t.mesh_units or raw.units
        pos = [*ctx.lengths(t.position, "table.position")] if t.position else [0.0, 0.0, 0.0]
        item = SceneryItem(
            id="table",
            box_size=None,
            mesh_path=mesh,
            mesh_units=mesh_units,
            position=xyz((*pos, 0.0)[:3]),
            rotation_deg=float(t.rotation_deg),
            scale=_scale3(t.scale),
            blocks_lof=True,
            solid=t.solid,
        )
    elif t:
        for key in ("position", "scale", "rotation_deg", "solid"):
            if key in t.model_fields_set:
                raise ctx.error(f"'{key}' needs 'mesh' (it places the table mesh)", f"table.{key}")
    return size, mesh, mesh_units, item


def _scale3(scale) -> tuple[float, float, float]:
    """A validated ``scale`` (number or three numbers) as three factors."""
    if isinstance(scale, list):
        return (float(scale[0]), float(scale[1]), float(scale[2]))
    return (float(scale),) * 3


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
            mesh_path = _mesh_path(s.mesh, ctx, f"{where}.mesh")
        pos = [*ctx.lengths(s.position, f"{where}.position")]
        drop = len(s.position) == 2
        pos += [0.0] if drop else []
        out.append(
            SceneryItem(
                id=s.id,
                box_size=xyz(ctx.lengths(s.box.size, f"{where}.box.size", MAX_BODY_MM, MIN_BODY_MM))
                if s.box
                else None,
                mesh_path=mesh_path,
                mesh_units=s.mesh_units or raw.units,
                position=xyz(pos),
                rotation_deg=float(s.rotation_deg),
                scale=_scale3(s.scale),
                blocks_lof=s.blocks_lof,
                solid=s.solid,
                drop=drop,
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
        d = ctx.size(t.silhouette.diameter, f"{where}.silhouette.diameter", MAX_SILHOUETTE_MM)
        h = ctx.size(t.silhouette.height, f"{where}.silhouette.height", MAX_SILHOUETTE_MM)
        label = None
    for j, st in enumerate(t.state):
        if st not in STATES:
            raise ctx.error(
                f"unknown state {st!r} (known: {', '.join(STATES)})", f"{where}.state[{j}]"
            )
    route = _route(t.route, ctx, f"{where}.route") if t.route else None
    check_infinity_only(t, ("stats", "reaction", "reaction_mod"), ruleset, ctx, where)
    vehicle = (
        parse_vehicle(t, ctx.units, ruleset.name, ctx, where, _mesh_path, ruleset.capabilities)
        if t.vehicle is not None
        else None
    )
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
        flyer=t.flyer,
        stats=parse_stats(t.stats, ctx, f"{where}.stats"),
        reaction=parse_reaction(t.reaction, ctx, f"{where}.reaction"),
        reaction_mod=parse_reaction_mod(t.reaction_mod, ctx, f"{where}.reaction_mod"),
        vehicle=vehicle,
    )


def _troopers(raw: ScenarioModel, ruleset: RulesetData, ctx: ParseContext) -> list[TrooperSpec]:
    """``troopers``, then their ``engaged_with`` references."""
    troopers = [_trooper(t, i, ruleset, ctx) for i, t in enumerate(raw.troopers)]
    _route_work(troopers, ctx)
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
        # the keys written, ``null`` included: ``reason: null`` asks for "no reason"
        asked = tuple(k for k in LOF_EXPECT_KEYS if k in e.model_fields_set)
        expect_lof.append(
            LofExpectation(
                e.from_, e.to, e.lof, e.visible, e.in_arc, e.reason, e.visible_area_mm2, asked
            )
        )
    for aid, spec in raw.expect.attacks.items():
        if aid not in attack_ids:
            raise UnknownIdError(
                f"unknown attack {aid!r}", file=ctx.file, path=f"expect.attacks.{aid}"
            )
        expect_attacks[aid] = spec
    return expect_lof, expect_attacks
