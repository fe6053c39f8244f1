"""Raw scenario schema (SPEC section 5): the pydantic models a file is validated against.

These models only check structure and plain value ranges; references (trooper ids,
templates, silhouettes), unit conversion and length limits are checked by
:mod:`geom3d.scenario.parse`, which turns the models into :mod:`geom3d.scenario.model`
dataclasses.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, ValidationError, field_validator

from geom3d.core.errors import ScenarioError
from geom3d.core.units import MeshUnit, ScenarioUnit
from geom3d.scenario.context import check_finite, first_error
from geom3d.scenario.limits import MAX_BURST, MAX_ID_CHARS, MAX_SCALE, MIN_SCALE

__all__ = ["FORMAT", "STATES", "ScenarioModel", "check_schema"]

#: The one scenario format this version reads.
FORMAT = "geom3d/1"

#: Trooper states a scenario may give.
STATES = ("prone", "marker", "arc360")


class _Model(BaseModel):
    # strict: ``silhouette: true`` is not silhouette 1, ``"12"`` is not a number, ``1`` is
    # not ``true`` (ints are still accepted where a float is expected)
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, strict=True)


Num = float


def _xy_or_xyz(v: list) -> list:
    if len(v) not in (2, 3):
        raise ValueError("expected [x, y] or [x, y, z]")
    return v


def _short_id(v: str) -> str:
    if len(v) > MAX_ID_CHARS:
        raise ValueError(f"{len(v):,} characters, more than the {MAX_ID_CHARS} an id may have")
    return v


#: An id (trooper, scenery piece, attack, zone): at most ``MAX_ID_CHARS`` characters.
Id = Annotated[str, AfterValidator(_short_id)]

#: A point: ``[x, y]`` (dropped onto the surface / z = 0) or ``[x, y, z]``.
Point = Annotated[list[Num], AfterValidator(_xy_or_xyz)]

#: ``solid`` of a scenery item or the table (SPEC 11.1).
Solid = Literal["auto", "closed", "surface"]


def _check_scale(v: Any) -> Any:
    """``scale``: a positive number or ``[sx, sy, sz]``, three positive numbers."""
    bad = ValueError("expected a positive number or [sx, sy, sz], three positive numbers")
    if isinstance(v, bool):
        raise bad
    if isinstance(v, int | float):
        if not v > 0:
            raise bad
        return _scale_in_range(float(v))
    if not isinstance(v, list) or len(v) != 3:
        raise bad
    if any(isinstance(x, bool) or not isinstance(x, int | float) or not x > 0 for x in v):
        raise bad
    return [_scale_in_range(float(x)) for x in v]


def _scale_in_range(x: float) -> float:
    """A scale factor within ``MIN_SCALE``..``MAX_SCALE`` (1e38 overflows float32)."""
    if not MIN_SCALE <= x <= MAX_SCALE:
        raise ValueError(f"scale {x:g} is outside {MIN_SCALE:g}..{MAX_SCALE:g} (wrong units?)")
    return x


class _Box(_Model):
    size: list[Num]

    @field_validator("size")
    @classmethod
    def _three_positive(cls, v: Any) -> Any:
        if len(v) != 3 or any(x <= 0 for x in v):
            raise ValueError("expected [x, y, z], three positive lengths")
        return v


class _Scenery(_Model):
    id: Id
    box: _Box | None = None
    mesh: str | None = None
    mesh_units: MeshUnit | None = None
    position: Point = [0.0, 0.0, 0.0]
    rotation_deg: Num = 0.0
    scale: Any = 1.0
    blocks_lof: bool = True
    solid: Solid = "auto"

    @field_validator("scale")
    @classmethod
    def _scale(cls, v: Any) -> Any:
        return _check_scale(v)


class _Table(_Model):
    size: list[Num] | None = None
    mesh: str | None = None
    mesh_units: MeshUnit | None = None
    scale: Any = 1.0
    position: Point | None = None
    rotation_deg: Num = 0.0
    solid: Solid = "auto"

    @field_validator("scale")
    @classmethod
    def _scale(cls, v: Any) -> Any:
        return _check_scale(v)

    @field_validator("size")
    @classmethod
    def _size(cls, v: Any) -> Any:
        if v is not None and (len(v) != 2 or any(x <= 0 for x in v)):
            raise ValueError("expected [x, y], two positive lengths")
        return v


class _Cyl(_Model):
    diameter: Num
    height: Num

    @field_validator("diameter", "height")
    @classmethod
    def _pos(cls, v: Any) -> Any:
        if v <= 0:
            raise ValueError("must be positive")
        return v


class _Hull(_Model):
    box: _Box | None = None
    mesh: str | None = None
    mesh_units: MeshUnit | None = None
    scale: Any = 1.0
    rotation_deg: Num = 0.0

    @field_validator("scale")
    @classmethod
    def _scale(cls, v: Any) -> Any:
        return _check_scale(v)


class _Armour(_Model):
    front: int
    side: int
    rear: int


class _Vehicle(_Model):
    """40k vehicle (SPEC 12.6), checked by geom3d.scenario.vehicles."""

    hull: _Hull
    barrel: list[Num] | None = None
    armour: _Armour


class _Trooper(_Model):
    id: Id
    side: str
    position: Point
    facing_deg: Num = 0.0
    silhouette: int | _Cyl = 2
    state: list[str] = []
    engaged_with: list[str] = []
    route: list[Point] | None = None
    unit: str | None = None
    flyer: bool = False  # 40k: no Wall of Death against Flyers
    vehicle: _Vehicle | None = None  # 40k vehicle: hull, barrel, armour (SPEC 12.6)
    # Infinity roll data (SPEC 12.4), checked by geom3d.scenario.rolls
    stats: Any = None
    reaction: Any = None
    reaction_mod: Any = None

    @field_validator("route")
    @classmethod
    def _route(cls, v: Any) -> Any:
        if v is not None and len(v) < 1:
            raise ValueError("a route needs at least one position")
        return v


class _Attack(_Model):
    id: Id
    attacker: str
    template: str | dict[str, Any] | None = None  # None: a plain BS attack (SPEC 13.2)
    target: str | None = None  # a plain attack's target (SPEC 13.2)
    cover: Any = None  # per-target Partial Cover override (checked in scenario.attack)
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
    aro: bool = False  # Infinity: the attack is an ARO (Update 1.3, Burst 1)
    aro_burst: int | None = None  # Infinity: Burst in ARO when a rule modifies it
    ordnance: bool = False  # 40k: Ordnance weapons cannot make snap shots
    weapon: Any = None  # Infinity roll data (SPEC 12.4), checked by geom3d.scenario.rolls
    intuitive: bool = False  # Infinity: Intuitive Attack (direct template, no LoF needed)
    fire_at: Any = None  # a route point of a moving attacker (checked in scenario.attack)

    @field_validator("burst")
    @classmethod
    def _burst(cls, v: Any) -> Any:
        if not 1 <= v <= MAX_BURST:
            raise ValueError(f"must be between 1 and {MAX_BURST}")
        return v


class _LofExpect(_Model):
    model_config = ConfigDict(
        extra="forbid", populate_by_name=True, allow_inf_nan=False, strict=True
    )
    from_: str
    to: str
    lof: bool | None = None
    visible: bool | None = None
    in_arc: bool | None = None
    reason: str | None = None
    # a number (within CHECK_NUMBER_TOL) or a tolerance {min, max} / {approx, tol}; the
    # tolerance mapping is checked by geom3d check (geom3d/check/expectations.py)
    visible_area_mm2: float | dict[str, float] | None = None

    def __init__(self, **data: Any) -> None:
        if "from" in data:
            data["from_"] = data.pop("from")
        super().__init__(**data)


class _Expect(_Model):
    lof: list[_LofExpect] = []
    attacks: dict[str, dict[str, Any]] = {}


class _Zone(_Model):
    id: Id
    rect: list[Num]

    @field_validator("rect")
    @classmethod
    def _rect(cls, v: Any) -> Any:
        if len(v) != 4 or not (v[0] < v[2] and v[1] < v[3]):
            raise ValueError("expected [x0, y0, x1, y1] with x0 < x1 and y0 < y1")
        return v


class _TerrainZone(_Model):
    id: Id
    kind: str
    rect: list[Num] | None = None
    polygon: list[list[Num]] | None = None
    height_mm: Num
    blocks_lof: bool = False


class ScenarioModel(_Model):
    """A whole scenario file as written (before references and units are resolved)."""

    format: Literal["geom3d/1"]
    units: ScenarioUnit = "mm"
    ruleset: str = "infinity"
    ruleset_overrides: dict[str, Any] = {}
    table: _Table | None = None
    scenery: list[_Scenery] = []
    troopers: list[_Trooper] = []
    attacks: list[_Attack] = []
    expect: _Expect | None = None
    zones: list[_Zone] = []
    active: list[str] = []  # Infinity: the active troopers of the order (ARO)
    accept_warnings: list[str] = []  # geom3d check --strict: warnings expected here
    terrain_zones: list[_TerrainZone] = []  # Infinity Special Terrain zones (SPEC 12.6)


def check_schema(data: object, file: str) -> ScenarioModel:
    """The raw schema of a parsed scenario mapping: a mapping at the top level, finite
    numbers, the format, then every key known and of its type (units among the known).

    It needs pydantic and geom3d's light floor only, so a schema error is reported
    before any engine module (numba, trimesh, scipy, Embree) loads (SPEC 12.3).

    Raises
    ------
    ScenarioError
        The first problem, with the file and the field path.
    """
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
        return ScenarioModel.model_validate(data)
    except ValidationError as err:
        raise first_error(err, file) from None
