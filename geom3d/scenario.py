"""Scenario files (SPEC section 5): parse, validate, convert to millimetres.

A scenario is YAML or JSON. Every problem is a :class:`~geom3d.errors.ScenarioError`
naming the file and the field path, e.g.
``table.yaml: troopers[2].silhouette: unknown silhouette 9 (known: 1-8)``.
After :func:`load_scenario` every length is in millimetres and every reference (trooper
ids, template names, silhouettes) is known to resolve.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import AfterValidator, BaseModel, ConfigDict, ValidationError, field_validator

from .errors import ScenarioError, UnknownIdError
from .rules import Ruleset, load_ruleset
from .tolerances import MAX_BODY_MM, MAX_COORD_MM
from .units import LENGTH_UNITS

__all__ = [
    "AttackSpec",
    "LofExpectation",
    "Scenario",
    "SceneryItem",
    "TrooperSpec",
    "load_scenario",
    "parse_scenario",
]

FORMAT = "geom3d/1"
STATES = ("prone", "marker", "arc360")


# --------------------------------------------------------------------------- raw models
class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, strict=False)


Num = float


def _xy_or_xyz(v: list) -> list:
    if len(v) not in (2, 3):
        raise ValueError("expected [x, y] or [x, y, z]")
    return v


#: A point: ``[x, y]`` (dropped onto the surface / z = 0) or ``[x, y, z]``.
Point = Annotated[list[Num], AfterValidator(_xy_or_xyz)]


class _Box(_Model):
    size: list[Num]

    @field_validator("size")
    @classmethod
    def _three_positive(cls, v):
        if len(v) != 3 or any(x <= 0 for x in v):
            raise ValueError("expected [x, y, z], three positive lengths")
        return v


class _Scenery(_Model):
    id: str
    box: _Box | None = None
    mesh: str | None = None
    mesh_units: Literal["mm", "cm", "m", "in"] | None = None
    position: Point = [0.0, 0.0, 0.0]
    rotation_deg: Num = 0.0
    scale: Num = 1.0
    blocks_lof: bool = True

    @field_validator("scale")
    @classmethod
    def _scale(cls, v):
        if v <= 0:
            raise ValueError("must be positive")
        return v


class _Table(_Model):
    size: list[Num] | None = None
    mesh: str | None = None
    mesh_units: Literal["mm", "cm", "m", "in"] | None = None

    @field_validator("size")
    @classmethod
    def _size(cls, v):
        if v is not None and (len(v) != 2 or any(x <= 0 for x in v)):
            raise ValueError("expected [x, y], two positive lengths")
        return v


class _Cyl(_Model):
    diameter: Num
    height: Num

    @field_validator("diameter", "height")
    @classmethod
    def _pos(cls, v):
        if v <= 0:
            raise ValueError("must be positive")
        return v


class _Trooper(_Model):
    id: str
    side: str
    position: Point
    facing_deg: Num = 0.0
    silhouette: int | _Cyl = 2
    state: list[str] = []
    engaged_with: list[str] = []
    route: list[Point] | None = None
    unit: str | None = None

    @field_validator("route")
    @classmethod
    def _route(cls, v):
        if v is not None:
            if len(v) < 1:
                raise ValueError("a route needs at least one position")
        return v


class _Attack(_Model):
    id: str
    attacker: str
    template: str | dict[str, Any]
    mode: Literal["direct", "impact", "deployable"] = "direct"
    main_target: str | None = None
    heading_deg: Num | Literal["auto"] | None = None
    contact_deg: Num | None = None
    focus: Point | None = None
    pitch_deg: Num = 0.0
    burst: int = 1
    speculative: bool = False
    harmless: bool = False
    target_unit: str | None = None
    snap_shot: bool = False
    charging: bool = False
    placements: list[dict[str, Any]] | None = None

    @field_validator("burst")
    @classmethod
    def _burst(cls, v):
        if v < 1:
            raise ValueError("must be at least 1")
        return v


class _LofExpect(_Model):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, allow_inf_nan=False)
    from_: str
    to: str
    lof: bool | None = None
    visible: bool | None = None
    in_arc: bool | None = None
    reason: str | None = None

    def __init__(self, **data):
        if "from" in data:
            data["from_"] = data.pop("from")
        super().__init__(**data)


class _Expect(_Model):
    lof: list[_LofExpect] = []
    attacks: dict[str, dict[str, Any]] = {}


class _Scenario(_Model):
    format: Literal["geom3d/1"]
    units: Literal["mm", "cm", "in"] = "mm"
    ruleset: str = "infinity"
    ruleset_overrides: dict[str, Any] = {}
    table: _Table | None = None
    scenery: list[_Scenery] = []
    troopers: list[_Trooper] = []
    attacks: list[_Attack] = []
    expect: _Expect | None = None


# --------------------------------------------------------------------------- typed result
@dataclass(frozen=True)
class SceneryItem:
    """One scenery piece, lengths in mm.

    Attributes
    ----------
    id : str
    box_size : (3,) tuple of float, mm, or None
    mesh_path : pathlib.Path or None
    mesh_units : str
    position : (3,) tuple of float, mm (z defaults to 0)
    rotation_deg : float
    scale : float
    blocks_lof : bool
    """

    id: str
    box_size: tuple[float, float, float] | None
    mesh_path: Path | None
    mesh_units: str
    position: tuple[float, float, float]
    rotation_deg: float
    scale: float
    blocks_lof: bool


@dataclass(frozen=True)
class TrooperSpec:
    """A trooper as written in the file, lengths converted to mm.

    ``position`` has 2 entries when the file gave ``[x, y]`` (drop onto the surface).
    ``diameter``/``height`` are the standing silhouette; prone is applied by the scene.
    """

    id: str
    side: str
    position: tuple[float, ...]
    facing_deg: float
    silhouette: int | None
    diameter: float
    height: float
    states: frozenset[str]
    engaged_with: tuple[str, ...]
    route: tuple[tuple[float, ...], ...] | None
    unit: str | None


@dataclass(frozen=True)
class AttackSpec:
    """An attack, lengths in mm; ``template`` is a resolved shape spec dict (mm)."""

    id: str
    attacker: str
    template_name: str | None
    template: dict
    mode: str
    main_target: str | None
    heading_deg: float | str | None
    contact_deg: float | None
    focus: tuple[float, ...] | None
    pitch_deg: float
    burst: int
    speculative: bool
    harmless: bool
    target_unit: str | None
    snap_shot: bool
    charging: bool
    placements: tuple[dict, ...] | None


@dataclass(frozen=True)
class LofExpectation:
    """One ``expect.lof`` entry."""

    from_id: str
    to_id: str
    lof: bool | None
    visible: bool | None
    in_arc: bool | None
    reason: str | None


@dataclass(frozen=True)
class Scenario:
    """A validated scenario, every length in mm.

    Attributes
    ----------
    path : pathlib.Path or None
        The file it came from (relative mesh paths resolve against its folder).
    units : str
        Units the file was written in (for display; the data here is mm).
    ruleset : Ruleset
    table_size : (2,) tuple of float, mm, or None
    table_mesh : pathlib.Path or None
    table_mesh_units : str
    scenery : tuple of SceneryItem
    troopers : tuple of TrooperSpec
    attacks : tuple of AttackSpec
    expect_lof : tuple of LofExpectation
    expect_attacks : dict[str, dict]
    has_expect : bool
    """

    path: Path | None
    units: str
    ruleset: Ruleset
    table_size: tuple[float, float] | None
    table_mesh: Path | None
    table_mesh_units: str
    scenery: tuple[SceneryItem, ...]
    troopers: tuple[TrooperSpec, ...]
    attacks: tuple[AttackSpec, ...]
    expect_lof: tuple[LofExpectation, ...] = ()
    expect_attacks: dict = field(default_factory=dict)
    has_expect: bool = False

    @property
    def name(self) -> str:
        return self.path.name if self.path else "<scenario>"

    def trooper(self, tid: str) -> TrooperSpec:
        for t in self.troopers:
            if t.id == tid:
                return t
        raise UnknownIdError(f"unknown trooper {tid!r}", file=self.name)


# --------------------------------------------------------------------------- errors
def _loc_to_path(loc: tuple) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            part = "from" if part == "from_" else str(part)
            out += ("." if out else "") + part
    return out


def _clean_loc(loc: tuple) -> tuple:
    # pydantic adds union-member tags ("int", "_Cyl", "literal[...]", "function-after[...]")
    keep = []
    for p in loc:
        if isinstance(p, str) and (
            p in ("int", "float", "str", "bool", "_Cyl", "_Box", "dict[str,any]")
            or p.startswith(("literal[", "function-", "list[", "constrained"))
        ):
            continue
        keep.append(p)
    return tuple(keep)


def _first_error(err: ValidationError, file: str) -> ScenarioError:
    errors = err.errors(include_url=False)
    # prefer unknown-key and missing errors: they are the most actionable
    errors.sort(key=lambda e: 0 if e["type"] in ("extra_forbidden", "missing") else 1)
    e = errors[0]
    loc = _clean_loc(tuple(e["loc"]))
    kind = e["type"]
    if kind == "extra_forbidden":
        key = loc[-1] if loc else "?"
        return ScenarioError(f"unknown key {key!r}", file=file, path=_loc_to_path(loc))
    if kind == "missing":
        return ScenarioError("required field is missing", file=file, path=_loc_to_path(loc))
    if kind == "finite_number":
        return ScenarioError("NaN or infinite number", file=file, path=_loc_to_path(loc))
    msg = e["msg"]
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, ") :]
    inp = e.get("input")
    if kind.endswith("_type") or kind.endswith("_parsing"):
        msg = f"{msg[0].lower()}{msg[1:]} (got {inp!r})"
    else:
        msg = msg[0].lower() + msg[1:]
    return ScenarioError(msg, file=file, path=_loc_to_path(loc))


def _check_finite(obj, path: str, file: str) -> None:
    """Reject NaN/inf anywhere (also inside free-form dicts pydantic does not check)."""
    if isinstance(obj, float):
        if not math.isfinite(obj):
            raise ScenarioError("NaN or infinite number", file=file, path=path)
    elif isinstance(obj, dict):
        for k, v in obj.items():
            _check_finite(v, f"{path}.{k}" if path else str(k), file)
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            _check_finite(v, f"{path}[{i}]", file)


# --------------------------------------------------------------------------- loading
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
    _check_finite(data, "", file)
    if "format" in data and data["format"] != FORMAT:
        raise ScenarioError(
            f"unsupported format {data['format']!r} (expected {FORMAT!r})", file=file, path="format"
        )
    try:
        raw = _Scenario.model_validate(data)
    except ValidationError as err:
        raise _first_error(err, file) from None
    base = Path(base_dir) if base_dir is not None else Path.cwd()
    k = LENGTH_UNITS[raw.units]
    ruleset = load_ruleset(raw.ruleset, _scale_overrides(raw.ruleset_overrides, k), file=file)

    def L(v, where: str, limit: float = MAX_COORD_MM):
        """A length in mm; absurd magnitudes (a unit slip, a typo) are errors."""
        mm = float(v) * k
        if abs(mm) > limit:
            most = f"{limit / 1e6:g} km" if limit >= 1e6 else f"{limit:g} mm"
            raise ScenarioError(
                f"{float(v):g} {raw.units} is too large: at most {most} here (wrong units?)",
                file=file,
                path=where,
            )
        return mm

    def Ls(values, where: str, limit: float = MAX_COORD_MM):
        return tuple(L(v, f"{where}[{i}]", limit) for i, v in enumerate(values))

    table_size = Ls(raw.table.size, "table.size") if raw.table and raw.table.size else None
    table_mesh = None
    table_mesh_units = "mm"
    if raw.table and raw.table.mesh:
        table_mesh = (base / raw.table.mesh).resolve()
        table_mesh_units = raw.table.mesh_units or raw.units
        _check_file(table_mesh, file, "table.mesh")

    seen: dict[str, str] = {}

    def _unique(id_: str, where: str):
        if id_ in seen:
            raise ScenarioError(
                f"duplicate id {id_!r} (first used at {seen[id_]})", file=file, path=where
            )
        seen[id_] = where

    scenery = []
    for i, s in enumerate(raw.scenery):
        where = f"scenery[{i}]"
        _unique(s.id, f"{where}.id")
        if (s.box is None) == (s.mesh is None):
            raise ScenarioError("give exactly one of 'box' or 'mesh'", file=file, path=where)
        mesh_path = None
        if s.mesh is not None:
            mesh_path = (base / s.mesh).resolve()
            _check_file(mesh_path, file, f"{where}.mesh")
        pos = [*Ls(s.position, f"{where}.position")] + ([0.0] if len(s.position) == 2 else [])
        scenery.append(
            SceneryItem(
                id=s.id,
                box_size=Ls(s.box.size, f"{where}.box.size", MAX_BODY_MM) if s.box else None,
                mesh_path=mesh_path,
                mesh_units=s.mesh_units or raw.units,
                position=tuple(pos),
                rotation_deg=float(s.rotation_deg),
                scale=float(s.scale),
                blocks_lof=s.blocks_lof,
            )
        )

    troopers = []
    known_sil = sorted(ruleset.silhouettes)
    for i, t in enumerate(raw.troopers):
        where = f"troopers[{i}]"
        _unique(t.id, f"{where}.id")
        if isinstance(t.silhouette, int):
            if t.silhouette not in ruleset.silhouettes:
                raise ScenarioError(
                    f"unknown silhouette {t.silhouette} (known: {_ranges(known_sil)})",
                    file=file,
                    path=f"{where}.silhouette",
                )
            d, h = ruleset.silhouettes[t.silhouette]
            label = t.silhouette
        else:
            d = L(t.silhouette.diameter, f"{where}.silhouette.diameter", MAX_BODY_MM)
            h = L(t.silhouette.height, f"{where}.silhouette.height", MAX_BODY_MM)
            label = None
        for j, st in enumerate(t.state):
            if st not in STATES:
                raise ScenarioError(
                    f"unknown state {st!r} (known: {', '.join(STATES)})",
                    file=file,
                    path=f"{where}.state[{j}]",
                )
        troopers.append(
            TrooperSpec(
                id=t.id,
                side=t.side,
                position=Ls(t.position, f"{where}.position"),
                facing_deg=float(t.facing_deg),
                silhouette=label,
                diameter=d,
                height=h,
                states=frozenset(t.state),
                engaged_with=tuple(t.engaged_with),
                route=tuple(Ls(p, f"{where}.route[{j}]") for j, p in enumerate(t.route))
                if t.route
                else None,
                unit=t.unit,
            )
        )
    trooper_ids = {t.id for t in troopers}
    for i, t in enumerate(troopers):
        for j, other in enumerate(t.engaged_with):
            if other not in trooper_ids:
                raise UnknownIdError(
                    f"unknown trooper {other!r}", file=file, path=f"troopers[{i}].engaged_with[{j}]"
                )
            if other == t.id:
                raise ScenarioError(
                    "a trooper cannot be engaged with itself",
                    file=file,
                    path=f"troopers[{i}].engaged_with[{j}]",
                )

    attacks = []
    attack_ids: set[str] = set()
    for i, a in enumerate(raw.attacks):
        where = f"attacks[{i}]"
        if a.id in attack_ids:
            raise ScenarioError(f"duplicate attack id {a.id!r}", file=file, path=f"{where}.id")
        attack_ids.add(a.id)
        for key in ("attacker", "main_target"):
            ref = getattr(a, key)
            if ref is not None and ref not in trooper_ids:
                raise UnknownIdError(f"unknown trooper {ref!r}", file=file, path=f"{where}.{key}")
        if a.target_unit is not None and a.target_unit not in {t.unit for t in troopers}:
            raise UnknownIdError(
                f"unknown unit {a.target_unit!r}", file=file, path=f"{where}.target_unit"
            )
        tname, tspec = _resolve_template(a.template, ruleset, k, file, f"{where}.template")
        attacks.append(
            AttackSpec(
                id=a.id,
                attacker=a.attacker,
                template_name=tname,
                template=tspec,
                mode=a.mode,
                main_target=a.main_target,
                heading_deg=a.heading_deg,
                contact_deg=a.contact_deg,
                focus=Ls(a.focus, f"{where}.focus") if a.focus is not None else None,
                pitch_deg=float(a.pitch_deg),
                burst=a.burst,
                speculative=a.speculative,
                harmless=a.harmless,
                target_unit=a.target_unit,
                snap_shot=a.snap_shot,
                charging=a.charging,
                placements=tuple(a.placements) if a.placements else None,
            )
        )

    expect_lof = []
    expect_attacks: dict = {}
    if raw.expect is not None:
        for i, e in enumerate(raw.expect.lof):
            for key, ref in (("from", e.from_), ("to", e.to)):
                if ref not in trooper_ids:
                    raise UnknownIdError(
                        f"unknown trooper {ref!r}", file=file, path=f"expect.lof[{i}].{key}"
                    )
            expect_lof.append(LofExpectation(e.from_, e.to, e.lof, e.visible, e.in_arc, e.reason))
        for aid, spec in raw.expect.attacks.items():
            if aid not in attack_ids:
                raise UnknownIdError(
                    f"unknown attack {aid!r}", file=file, path=f"expect.attacks.{aid}"
                )
            expect_attacks[aid] = spec

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


def _check_file(p: Path, file: str, where: str) -> None:
    if not p.is_file():
        raise ScenarioError(f"mesh file not found: {p}", file=file, path=where)


def _ranges(nums: list[int]) -> str:
    if not nums:
        return "none"
    if nums == list(range(nums[0], nums[-1] + 1)):
        return f"{nums[0]}-{nums[-1]}"
    return ", ".join(str(n) for n in nums)


_TEMPLATE_KEYS = {
    "circle": {"shape", "diameter"},
    "teardrop": {"shape", "length", "width", "narrow_width"},
}
_TEMPLATE_LENGTHS = ("diameter", "length", "width", "narrow_width")


def _validate_template_spec(spec, file: str, where: str) -> dict:
    if not isinstance(spec, dict):
        raise ScenarioError("expected a template name or a shape mapping", file=file, path=where)
    shape = spec.get("shape")
    if shape not in _TEMPLATE_KEYS:
        raise ScenarioError(
            f"unknown template shape {shape!r} (known: circle, teardrop)",
            file=file,
            path=f"{where}.shape",
        )
    for key in spec:
        if key not in _TEMPLATE_KEYS[shape]:
            raise ScenarioError(f"unknown key {key!r}", file=file, path=f"{where}.{key}")
    out = {"shape": shape}
    required = ("diameter",) if shape == "circle" else ("length", "width")
    for key in _TEMPLATE_KEYS[shape] - {"shape"}:
        if key not in spec:
            if key in required:
                raise ScenarioError("required field is missing", file=file, path=f"{where}.{key}")
            out[key] = 0.0
            continue
        v = spec[key]
        if isinstance(v, bool) or not isinstance(v, int | float):
            raise ScenarioError(f"expected a number (got {v!r})", file=file, path=f"{where}.{key}")
        if v < 0 or (v == 0 and key in required):
            raise ScenarioError("must be positive", file=file, path=f"{where}.{key}")
        out[key] = float(v)
    if shape == "teardrop":
        if out["narrow_width"] > out["width"]:
            raise ScenarioError("narrow_width is larger than width", file=file, path=where)
        if out["length"] < 0.5 * (out["width"] + out["narrow_width"]):
            raise ScenarioError("length is shorter than the two end circles", file=file, path=where)
    return out


def _resolve_template(value, ruleset: Ruleset, k: float, file: str, where: str):
    if isinstance(value, str):
        if value not in ruleset.templates:
            raise ScenarioError(
                f"unknown template {value!r} (known: {', '.join(sorted(ruleset.templates))})",
                file=file,
                path=where,
            )
        # ruleset data is already in mm (overrides were scaled when loaded)
        return value, _validate_template_spec(
            ruleset.templates[value], file, f"ruleset.templates.{value}"
        )
    spec = _validate_template_spec(value, file, where)
    out = {key: (v * k if key in _TEMPLATE_LENGTHS else v) for key, v in spec.items()}
    for key in _TEMPLATE_LENGTHS:
        if out.get(key, 0.0) > MAX_BODY_MM:
            raise ScenarioError(
                f"{out[key]:g} mm is larger than the {MAX_BODY_MM:g} mm a template may be "
                "(wrong units?)",
                file=file,
                path=f"{where}.{key}",
            )
    return None, out


def _scale_overrides(over: dict, k: float) -> dict:
    """Ruleset overrides are written in the scenario's units: convert lengths to mm."""
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
        out["templates"] = {
            key: (
                {
                    kk: (vv * k if kk in _TEMPLATE_LENGTHS and isinstance(vv, int | float) else vv)
                    for kk, vv in spec.items()
                }
                if isinstance(spec, dict)
                else spec
            )
            for key, spec in out["templates"].items()
        }
    return out
