"""The validated scenario: frozen dataclasses, every length in millimetres."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from geom3d.core.errors import ScenarioError, UnknownIdError
from geom3d.ruledata import RulesetData
from geom3d.scenario.rolls import Reaction, Stats, Weapon
from geom3d.scenario.vehicles import VehicleSpec

__all__ = [
    "LOF_EXPECT_KEYS",
    "PLAIN_MODE",
    "AttackSpec",
    "LofExpectation",
    "Scenario",
    "SceneryItem",
    "TrooperSpec",
]


@dataclass(frozen=True)
class SceneryItem:
    """One scenery piece, lengths in mm.

    Attributes
    ----------
    id : str
    box_size : (3,) tuple of float, mm, or None
    mesh_path : pathlib.Path or None
    mesh_units : str
    position : (3,) tuple of float, mm
        Where the piece's own origin goes (after scaling and yawing about it). When
        ``drop`` is true the z here is 0 and the scene lifts or lowers the piece so that its
        lowest point rests on the highest surface beneath its footprint (SPEC 11.2).
    rotation_deg : float
    scale : (3,) tuple of float
        Per-axis factors (a single number in the file gives three equal ones).
    blocks_lof : bool
    solid : str
        ``auto``, ``closed`` or ``surface`` (SPEC 11.1).
    drop : bool
        The file gave ``position: [x, y]`` (no z).
    prism : tuple of (x, y) tuples, mm, or None
        A blocking polygon terrain zone's plan shape (world coordinates, ``position`` at
        the origin), extruded from z = 0 to ``prism_height``; ``box_size`` and
        ``mesh_path`` are then None.
    prism_height : float, mm
    """

    id: str
    box_size: tuple[float, float, float] | None
    mesh_path: Path | None
    mesh_units: str
    position: tuple[float, float, float]
    rotation_deg: float
    scale: tuple[float, float, float]
    blocks_lof: bool
    solid: str = "auto"
    drop: bool = False
    prism: tuple[tuple[float, float], ...] | None = None
    prism_height: float = 0.0


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
    flyer: bool = False
    #: Infinity roll data (SPEC 12.4; :mod:`geom3d.scenario.rolls`)
    stats: Stats | None = None
    reaction: Reaction | None = None
    reaction_mod: int = 0
    #: 40k vehicle (SPEC 12.6; :class:`geom3d.scenario.vehicles.VehicleSpec`)
    vehicle: VehicleSpec | None = None


#: The ``mode`` of a plain BS attack (no template, SPEC 13.2).
PLAIN_MODE = "plain"


@dataclass(frozen=True)
class AttackSpec:
    """An attack, lengths in mm.

    Attributes
    ----------
    template_name : str or None
        The ruleset template's name; None for an inline shape.
    template : dict
        The resolved shape spec, mm, as :meth:`geom3d.templates.CircleShape.to_spec` /
        :meth:`~geom3d.templates.TeardropShape.to_spec` write it.
    placements : tuple of dict, or None
        One validated override mapping per template (``burst`` of them), holding only
        the keys the file gave: ``heading_deg`` (float or ``"auto"``), ``contact_deg``,
        ``pitch_deg`` (float), ``focus`` (tuple of 2 or 3 floats, mm), ``main_target``
        (a known trooper id). None when the file gave none.
    intuitive : bool
        Infinity Intuitive Attack (SPEC 12.6): a direct template that needs no Line of
        Fire to its main target and makes a WIP roll, opposed face to face.
    problem : ScenarioError or None
        An input error confined to this attack (its ``main_target`` is its attacker,
        SPEC 12.6), with file and field path: resolving it raises the error, and
        ``geom3d attack`` reports the file's other attacks before exiting with it.
    fire_at : float, dict or str, or None
        Where a moving attacker fires from (SPEC 12.5): an arc length along its route
        (float, mm), ``{"index": i}`` (a route point) or ``"best"``.
    target : str or None
        A plain BS attack's target (SPEC 13.2): ``mode`` is ``"plain"``, ``template`` is
        empty and ``main_target`` equals ``target``.
    cover : tuple of (str, str)
        ``cover`` overrides (SPEC 13.2): (trooper id, ``none`` or ``partial``).
    """

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
    aro: bool = False
    aro_burst: int | None = None
    ordnance: bool = False
    #: Infinity roll data (SPEC 12.4; :mod:`geom3d.scenario.rolls`)
    weapon: Weapon | None = None
    problem: ScenarioError | None = None
    intuitive: bool = False
    fire_at: float | dict | str | None = None
    #: a plain BS attack's target (SPEC 13.2; ``mode`` is then ``"plain"``)
    target: str | None = None
    #: per-target Partial Cover overrides, trooper id -> ``none`` | ``partial`` (13.2)
    cover: tuple[tuple[str, str], ...] = ()

    @property
    def plain(self) -> bool:
        """A plain BS attack: no template, one target (SPEC 13.2)."""
        return self.mode == PLAIN_MODE

    def cover_override(self, tid: str) -> str | None:
        """The attack's ``cover`` for trooper ``tid`` (None: decided by the geometry)."""
        return dict(self.cover).get(tid)


#: The fields an ``expect.lof`` entry may ask, in check order.
LOF_EXPECT_KEYS: tuple[str, ...] = ("lof", "visible", "in_arc", "reason", "visible_area_mm2")


@dataclass(frozen=True)
class LofExpectation:
    """One ``expect.lof`` entry.

    ``asked`` lists the fields the file wrote (:data:`LOF_EXPECT_KEYS` order), ``null``
    values included: ``reason: null`` asks that there be no reason (LoF holds). None when
    built without it (then the fields that are not None are asked).
    """

    from_id: str
    to_id: str
    lof: bool | None
    visible: bool | None
    in_arc: bool | None
    reason: str | None
    #: a number, or a tolerance mapping {min, max} / {approx, tol} (mm²)
    visible_area_mm2: float | dict | None = None
    asked: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Scenario:
    """A validated scenario, every length in mm.

    Attributes
    ----------
    path : pathlib.Path or None
        The file it came from (relative mesh paths resolve against its folder).
    units : str
        Units the file was written in (for display; the data here is mm).
    ruleset : RulesetData
    table_size : (2,) tuple of float, mm, or None
    table_mesh : pathlib.Path or None
    table_mesh_units : str
    table_item : SceneryItem or None
        The table mesh as placed (id ``table``: scale, position, rotation, solid); None
        without a table mesh.
    scenery : tuple of SceneryItem
    troopers : tuple of TrooperSpec
    attacks : tuple of AttackSpec
    expect_lof : tuple of LofExpectation
    expect_attacks : dict[str, dict]
    has_expect : bool
    zones : tuple of (str, (4,) tuple of float mm)
        ``zones:`` in file order: id and ``(x0, y0, x1, y1)`` (for ``geom3d survey``).
    active : tuple of str
        ``active:``: ids of the active troopers of the order (Infinity ARO, SPEC 11.4);
        troopers with a ``route`` are active too (see :meth:`is_active`).
    terrain_zones : tuple of TerrainZone
        Special Terrain zones (:mod:`geom3d.scenario.terrain_zones`, SPEC 12.6); a
        blocking one is also in ``scenery`` as a closed box ``zone:ID``.
    accept_warnings : tuple of str
        Shell-style patterns (:func:`fnmatch.fnmatchcase`, the whole message) of the
        warnings this scenario expects: ``geom3d check --strict`` does not fail on them.
    """

    path: Path | None
    units: str
    ruleset: RulesetData
    table_size: tuple[float, float] | None
    table_mesh: Path | None
    table_mesh_units: str
    scenery: tuple[SceneryItem, ...]
    troopers: tuple[TrooperSpec, ...]
    attacks: tuple[AttackSpec, ...]
    expect_lof: tuple[LofExpectation, ...] = ()
    expect_attacks: dict = field(default_factory=dict)
    has_expect: bool = False
    table_item: SceneryItem | None = None
    zones: tuple[tuple[str, tuple[float, float, float, float]], ...] = ()
    active: tuple[str, ...] = ()
    accept_warnings: tuple[str, ...] = ()
    terrain_zones: tuple = ()

    @property
    def name(self) -> str:
        return self.path.name if self.path else "<scenario>"

    def is_active(self, tid: str) -> bool:
        """Whether trooper ``tid`` is active in this order: listed in ``active`` or moving."""
        return tid in self.active or self.trooper(tid).route is not None

    def trooper(self, tid: str) -> TrooperSpec:
        for t in self.troopers:
            if t.id == tid:
                return t
        raise UnknownIdError(f"unknown trooper {tid!r}", file=self.name)
