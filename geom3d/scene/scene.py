"""The scene: scenery merged into one triangle mesh, troopers as exact cylinders.

Built from a validated :class:`~geom3d.scenario.Scenario` and its ruleset object
(:func:`geom3d.api.build_scene` picks it from the registry). All blocking scenery becomes
one triangle mesh with a per-triangle element id, behind one Embree BVH; non-blocking
scenery is kept for drawing and for standing on. Open scans and table meshes are closed
into solids (:mod:`geom3d.scene.scenery`, SPEC 11.1). Troopers given as ``[x, y]`` rest on the
highest surface point under their whole base disc (:mod:`geom3d.scene.standing`, SPEC 11.2).
"""

from __future__ import annotations

import copy
import functools
import hashlib
import logging
import math
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from geom3d.bodies.cylinder import cylinders_touch
from geom3d.core.errors import InputError, UnknownIdError, printable
from geom3d.core.messages import Message, severity_of
from geom3d.core.tolerances import SURVEY_DEFAULT_LANES
from geom3d.core.validation import xyz
from geom3d.mesh import file_digest
from geom3d.raycast import make_engine, selected_backend
from geom3d.scenario import AttackSpec, Scenario, TrooperSpec
from geom3d.scenario.terrain_zones import ZONE_PIECE_PREFIX
from geom3d.scene import ahead
from geom3d.scene.interface import Ruleset
from geom3d.scene.placed import stand, trooper_warnings
from geom3d.scene.scenery import BuiltScenery, SceneryMesh, build_scenery, closed_solids
from geom3d.scene.standing import Surface
from geom3d.scene.terrain_zones import disc_meets_polygon
from geom3d.scene.trooper import Trooper
from geom3d.scene.vehicles import local_hull, place_vehicle, share_engines
from geom3d.visibility import Prover
from geom3d.visibility.convex import NO_SOLIDS, ConvexSolids
from geom3d.visibility.interior_cache import build_interior

if TYPE_CHECKING:  # for annotations only: the results are made above this layer
    from geom3d.scene.outcomes import AttackResult
    from geom3d.scene.results import LofResult
    from geom3d.visibility.cast import VisibilityStats

__all__ = ["Scene", "SceneryMesh", "Trooper"]


# Per-process caches: merged scenery and its BVH keyed by a digest of what went in, so a
# batch of scenarios on the same table builds the BVH once per worker.
_SCENERY_CACHE: OrderedDict[str, BuiltScenery] = OrderedDict()
_SCENERY_CACHE_SIZE = 4


log = logging.getLogger(__name__)


def clear_scene_cache() -> None:
    """Forget cached scenery meshes and BVHs (tests, memory pressure)."""
    _SCENERY_CACHE.clear()


def _scenery_key(scn: Scenario) -> str:
    h = hashlib.sha256(f"{selected_backend()}\n".encode())  # each backend its own engines
    items = ([scn.table_item] if scn.table_item is not None else []) + list(scn.scenery)
    for it in items:
        src = (
            file_digest(it.mesh_path)
            if it.mesh_path
            else repr((it.box_size, it.prism, it.prism_height))
        )
        h.update(
            f"{it.id}|{src}|{it.mesh_units}|{it.position!r}|{it.rotation_deg!r}|{it.scale!r}|"
            f"{it.blocks_lof}|{it.solid}|{it.drop}\n".encode()
        )
    return h.hexdigest()


@dataclass
class LoadStats:
    """Seconds spent building the scene, for batch reports."""

    mesh_seconds: float = 0.0
    bvh_seconds: float = 0.0
    cache_hit: bool = False


class Scene:
    """Scenery, troopers and attacks of one scenario, ready for queries.

    Build it with :func:`geom3d.api.build_scene` (or :func:`geom3d.api.load_scene`), which
    picks the ruleset object for the scenario's ruleset from the registry.

    Parameters
    ----------
    scenario : Scenario
        A validated scenario (see :func:`geom3d.scenario.load_scenario`).
    ruleset : geom3d.scene.interface.Ruleset
        The ruleset object (its data is ``scenario.ruleset`` after overrides). Line of
        Fire and attack questions go to it.
    prefetch_proofs : bool
        Start reading the blocking proofs' map (:attr:`prover`) from the disk cache in a
        background thread while the BVH is built, for a caller that will soon run a Line
        of Fire matrix (the CLI does for ``PROOF_MIN_PAIRS`` pairs or more), and loading
        the matrix's compiled kernels in another while the meshes load (once per
        process). It changes when the map is read, never what it is.

    Attributes
    ----------
    scenario : Scenario
    ruleset : geom3d.scene.interface.Ruleset
        ``.name`` and the data's fields (``.base_height``, ``.silhouettes``, ...).
    troopers : dict[str, Trooper]
        In file order.
    scenery : SceneryMesh
        All scenery.
    blocking_mask : (scenery.n_triangles,) bool
        Which triangles of ``scenery`` block Line of Fire.
    blocking : SceneryMesh
        The triangles that block Line of Fire (``scenery.subset(blocking_mask)``).
    closing_mask : (scenery.n_triangles,) bool
        Faces added by closing open scans and the table into solids (SPEC 11.1).
    engine : RayBackend
        BVH over ``blocking`` (closing faces included).
    mesh_reports : list of (element id, MeshReport)
    pieces : list of geom3d.scene.scenery.PieceReport
        How each piece was placed and closed (:meth:`scan_report`).
    warnings : list of geom3d.core.messages.Message
        Every scene message, each a ``str`` with a ``severity`` (SPEC 12.2): notes
        (facts: units scaled, bodies counted, holes closed, uneven ground) and warnings
        (likely mistakes: overlaps, embedded troopers, far off the table, implausible
        sizes). :func:`geom3d.core.messages.warnings_of` keeps the warnings.
    load_stats : LoadStats
    visibility_cache : dict[tuple[str, str], tuple]
        Symmetric visibility of static trooper pairs, keyed by the sorted id pair; filled
        by the Line of Fire engine (:mod:`geom3d.adjudication.lof`), clear it to recompute.
    """

    def __init__(
        self, scenario: Scenario, ruleset: Ruleset, *, prefetch_proofs: bool = False
    ) -> None:
        self.scenario = scenario
        self.ruleset = ruleset
        self.visibility_cache: dict[tuple[str, str], tuple[Any, ...]] = {}
        self.warnings: list[str] = []
        self.load_stats = LoadStats()
        key = _scenery_key(scenario)  # before the kernels load ahead (see ahead.warm_ahead)
        if prefetch_proofs:
            ahead.warm_ahead()
        if key in _SCENERY_CACHE:
            _SCENERY_CACHE.move_to_end(key)
            self.load_stats.cache_hit = True
            built = _SCENERY_CACHE[key]
            if prefetch_proofs:
                ahead.read_proof_map(built)
        else:
            start = ahead.read_proof_map if prefetch_proofs else None
            built = build_scenery(scenario, self.load_stats, on_blocking=start)
            _SCENERY_CACHE[key] = built
            while len(_SCENERY_CACHE) > _SCENERY_CACHE_SIZE:
                _SCENERY_CACHE.popitem(last=False)
        assert built.engine is not None and built.all_engine is not None  # build_scenery made them
        self.scenery: SceneryMesh = built.scenery
        self.blocking_mask = built.blocking_mask
        self.closing_mask = built.closing_mask
        self.blocking = built.blocking
        self.engine = built.engine
        self.mesh_reports = built.mesh_reports
        self.pieces = built.pieces
        self._built = built
        self._surface_engine = built.all_engine
        if built.surface is None:  # shared by scenes on the same cached scenery
            built.surface = self._zone_free_surface()
        if built.surface is None:
            same = built.all_engine is built.engine
            built.surface = Surface(
                built.all_engine,
                self.scenery.vertices,
                self.blocking.faces if same else self.scenery.faces,
                ~(self.closing_mask[self.blocking_mask] if same else self.closing_mask),
                built.has_table_mesh,
                self.blocking.element if same else self.scenery.element,
                self.scenery.names,
            )
        self.surface: Surface = built.surface
        self.warnings.extend(built.warnings)  # one line per piece (load, rest, closing)
        file = scenario.name if scenario.path is None else str(scenario.path)
        self._hulls = {
            t.id: local_hull(t.vehicle, file, f"troopers[{i}].vehicle.hull.mesh")
            for i, t in enumerate(scenario.troopers)
            if t.vehicle
        }
        self._stood = stand(self, tuple(self._as_body(t) for t in scenario.troopers), {})
        self.troopers: dict[str, Trooper] = {tid: st.trooper for tid, st in self._stood.items()}
        self.warnings += trooper_warnings(self._stood)
        # ids and file names in warnings are the user's: never a raw control character
        self.warnings = [Message(printable(w), severity_of(w)) for w in self.warnings]

    def restand(
        self,
        tid: str,
        position: Sequence[float],
        *,
        facing_deg: float | None = None,
        prone: bool | None = None,
    ) -> Scene:
        """This scene with trooper ``tid`` moved: a new scene; this one is unchanged.

        The new scene shares this one's scenery, BVH, standing surface and blocking
        proofs, and keeps every other trooper as it stands with what the scene found
        about it (its footing notes, its own checks: :mod:`geom3d.scene.placed`), and,
        when ``tid`` is no vehicle, the BVHs of scenery plus 40k hulls. Only
        ``tid`` is stood (SPEC 11.2, 12.2) and checked (embedded, enclosed: 13.1) again,
        and the warnings about two troopers are made again. So it equals the scene built
        from this scenario with ``tid``'s entry changed: the same troopers, warnings and
        answers. Its visibility cache starts empty (which cached pairs a move cannot
        change is the caller's choice: :func:`geom3d.serve.moves.carry_visibility`).

        Parameters
        ----------
        tid : str
        position : (2,) or (3,) float, mm
            ``[x, y]`` rests it on the surface under its base (as the file's ``[x, y]``),
            ``[x, y, z]`` places its base there.
        facing_deg : float, optional
            Its new facing (counter-clockwise from +x); unchanged when None.
        prone : bool, optional
            Lay it down (True) or stand it up (False); unchanged when None.

        Returns
        -------
        Scene

        Raises
        ------
        UnknownIdError
            No trooper ``tid``.
        InputError
            ``position`` is not 2 or 3 finite numbers, or ``facing_deg`` not finite.
        """
        self.trooper(tid)
        pos = tuple(float(v) for v in position)
        facing = None if facing_deg is None else float(facing_deg)
        if len(pos) not in (2, 3) or not all(map(math.isfinite, pos)):
            raise InputError(f"position: expected [x, y] or [x, y, z] finite mm, got {pos!r}")
        if facing is not None and not math.isfinite(facing):
            raise InputError(f"facing_deg: expected a finite number, got {facing!r}")
        specs = []
        for t in self.scenario.troopers:
            if t.id == tid:
                states = set(t.states)
                if prone is not None:
                    states = states | {"prone"} if prone else states - {"prone"}
                t = replace(
                    t,
                    position=pos,
                    facing_deg=t.facing_deg if facing is None else facing,
                    states=frozenset(states),
                )
            specs.append(t)
        new = copy.copy(self)  # the scenery, engines, surface and hulls are shared
        new.scenario = replace(self.scenario, troopers=tuple(specs))
        new.visibility_cache = {}
        new.load_stats = LoadStats(cache_hit=True)
        keep = {k: v for k, v in self._stood.items() if k != tid}
        bodies = tuple(keep[t.id].spec if t.id in keep else new._as_body(t) for t in specs)
        new._stood = stand(new, bodies, keep)
        new.troopers = {k: st.trooper for k, st in new._stood.items()}
        if self.troopers[tid].vehicle is None:  # the hulls did not move: their BVHs hold
            share_engines(self, new)
        both = [*self._built.warnings, *trooper_warnings(new._stood)]
        new.warnings = [Message(printable(w), severity_of(w)) for w in both]
        return new

    # ------------------------------------------------------------------ construction
    def _as_body(self, t: TrooperSpec) -> TrooperSpec:
        """A baseless vehicle's cylinder stands in for its hull (:mod:`.vehicles`)."""
        if t.vehicle is None or t.vehicle.barrel is None:
            return t
        hull = self._hulls[t.id]
        return replace(t, silhouette=None, diameter=hull.stand_diameter(), height=hull.height)

    def _make_trooper(
        self, t: TrooperSpec, z_of: dict[str, float], engaged: tuple[str, ...]
    ) -> Trooper:
        if len(t.position) == 2:
            pos = (t.position[0], t.position[1], float(z_of[t.id]))
        else:
            pos = xyz(t.position)
        route = None
        if t.route is not None:
            r2 = [p for p in t.route if len(p) == 2]
            rz = iter(self.surface.rest(r2, [self._base_radius(t)] * len(r2))[0])
            route = tuple((p[0], p[1], float(next(rz))) if len(p) == 2 else xyz(p) for p in t.route)
        height = self.ruleset.base_height if "prone" in t.states else t.height
        return Trooper(
            id=t.id,
            side=t.side,
            position=xyz(float(v) for v in pos),
            facing_deg=t.facing_deg,
            silhouette=t.silhouette,
            diameter=t.diameter,
            height=height,
            states=t.states,
            engaged_with=engaged,
            route=route,
            route_dropped=None if t.route is None else tuple(len(p) == 2 for p in t.route),
            unit=t.unit,
            dropped=len(t.position) == 2,
            vehicle=None
            if t.vehicle is None
            else place_vehicle(t.vehicle, self._hulls[t.id], pos, t.facing_deg),
        )

    @staticmethod
    def _base_radius(t: TrooperSpec) -> float:
        """Base radius (mm) a trooper stands on: its silhouette's."""
        return 0.5 * t.diameter

    def surface_z(self, xy: ArrayLike) -> np.ndarray:
        """Height of the highest scenery surface straight under each point.

        Parameters
        ----------
        xy : (n, 2) float, mm

        Returns
        -------
        (n,) float, mm
            0 where no scenery lies under the point (the table top).
        """
        return self.surface.heights(xy)

    def scan_report(self) -> list[dict[str, Any]]:
        """How each piece was placed and closed (JSON-ready; issue 10 item 4, SPEC 11.1)."""
        return [p.as_dict() for p in self.pieces]

    def _in_blocking_zone(self, ts: Iterable[Trooper]) -> set[str]:
        """Troopers inside a blocking terrain zone (not "embedded in scenery": in smoke)."""
        zones = [z for z in self.scenario.terrain_zones if z.blocks_lof]
        return {
            t.id
            for t in ts
            for z in zones
            if t.position[2] < z.height_mm
            and disc_meets_polygon(t.position[0], t.position[1], t.radius, z.polygon)
        }

    def _zone_free_surface(self) -> Surface | None:
        """The standing surface without blocking terrain zones (SPEC 12.6: smoke is not
        ground; a trooper in it stands on what is under it), or None without any."""
        names = self.scenery.names
        zone = np.array([n.startswith(ZONE_PIECE_PREFIX) for n in names], dtype=bool)
        if not zone.any():
            return None
        keep = ~zone[self.scenery.element]
        sub = self.scenery.subset(keep)
        return Surface(
            make_engine(sub.vertices, sub.faces),
            sub.vertices,
            sub.faces,
            ~self.closing_mask[keep],
            self._built.has_table_mesh,
        )

    # ------------------------------------------------------------------ queries
    @property
    def prover(self) -> Prover:
        """Blocking proofs over this scene's blocking mesh (built on first use, then
        shared by every scene on the same cached scenery)."""
        built = self._built
        # the pieces first: they take the same lock (and are made once, like the prover)
        pieces = self.convex_solids if built.prover is None else NO_SOLIDS
        with ahead.PROVER_LOCK:
            if built.prover is None:
                b = built.blocking
                if built.proof_map is not None:  # read in the background (prefetch_proofs)
                    pending, built.proof_map = built.proof_map, None  # an error raises once
                    key, interior = pending.result()
                else:
                    key, interior = ahead._proof_map_entry(built)
                if interior is None:  # not cached: build it (and store it)
                    solids = functools.partial(closed_solids, built)
                    interior = build_interior(key, b.vertices, b.faces, solids)
                assert built.engine is not None  # made before any scene exists
                built.prover = Prover(
                    interior, built.engine, ground=built.ground, pieces=pieces,
                    parts=built.prover_parts,
                )  # fmt: skip
        return built.prover

    @property
    def convex_solids(self) -> ConvexSolids:
        """The closed convex pieces of this scene's blocking mesh: one per scenery
        element that is one, and the boxes of each element that is a closed rectilinear
        solid (:meth:`geom3d.visibility.convex.ConvexSolids.from_scenery`; made on first
        use, then shared by every scene on the same cached scenery)."""
        return ahead.convex_of(self._built)

    @property
    def prover_if_built(self) -> Prover | None:
        """:attr:`prover` when something has already built it, else None (a single pair
        does not pay for building the interior map; see
        :func:`geom3d.adjudication.lof.lof_matrix`)."""
        return self._built.prover

    def trooper(self, tid: str) -> Trooper:
        """The trooper with id ``tid`` (UnknownIdError otherwise)."""
        try:
            return self.troopers[tid]
        except KeyError:
            raise UnknownIdError(
                f"unknown trooper {tid!r} (known: {', '.join(self.troopers)})",
                file=self.scenario.name,
            ) from None

    def in_contact(self, a: str, b: str) -> bool:
        """Silhouette contact between two troopers."""
        return cylinders_touch(self.trooper(a).cylinder, self.trooper(b).cylinder)

    def attack(self, attack_id: str) -> AttackSpec:
        """The scenario's attack with id ``attack_id`` (UnknownIdError otherwise)."""
        for a in self.scenario.attacks:
            if a.id == attack_id:
                return a
        known = ", ".join(a.id for a in self.scenario.attacks) or "none"
        raise UnknownIdError(
            f"unknown attack {attack_id!r} (known: {known})", file=self.scenario.name
        )

    def line_of_fire(self, a: str, b: str, *, stats: VisibilityStats | None = None) -> LofResult:
        """Line of Fire from ``a`` to ``b``, by the ruleset
        (:func:`geom3d.adjudication.lof.line_of_fire`: ``stats`` counts the work)."""
        return self.ruleset.line_of_fire(self, a, b, stats=stats)

    def lof_matrix(
        self,
        pairs: Iterable[tuple[str, str]] | None = None,
        *,
        stats: VisibilityStats | None = None,
        progress: Callable[[int, int], None] | None = None,
        threads: int | None = None,
        areas: bool = False,
        processes: bool = False,
    ) -> list[LofResult]:
        """Line of Fire for all ordered pairs (or ``pairs``), by the ruleset
        (:func:`geom3d.adjudication.lof.lof_matrix`, which documents the options)."""
        return self.ruleset.lof_matrix(
            self,
            pairs,
            stats=stats,
            progress=progress,
            threads=threads,
            areas=areas,
            processes=processes,
        )

    def resolve_attack(
        self, attack_id: str, *, odds: bool = False, stats: Any = None
    ) -> AttackResult:
        """Resolve one attack, by the ruleset
        (:func:`geom3d.adjudication.attacks.resolve_attack`): ``odds`` adds the exact
        odds (SPEC 12.4); ``stats`` collects the ruleset's counters (Infinity:
        ``geom3d.placement.blast_focus.FocusStats``)."""
        return self.ruleset.resolve_attack(self, attack_id, odds=odds, stats=stats)

    def survey(
        self,
        *,
        probe: int = 2,
        spacing_mm: float = 50.0,
        workers: int | None = None,
        scheduler: str | None = None,
        lanes_count: int = SURVEY_DEFAULT_LANES,
        progress: Callable[[int, int], None] | None = None,
    ) -> dict[str, Any]:
        """Survey the whole table, by the ruleset (:func:`geom3d.survey.survey`, SPEC 11.6,
        which documents the options)."""
        return self.ruleset.survey(
            self,
            probe=probe,
            spacing_mm=spacing_mm,
            workers=workers,
            scheduler=scheduler,
            lanes_count=lanes_count,
            progress=progress,
        )

    def summary(self) -> dict[str, Any]:
        """Plain-data description of the scene (for ``geom3d demo`` and reports)."""
        return {
            "scenario": self.scenario.name,
            "ruleset": self.ruleset.name,
            "units": "mm",
            "scenery_elements": len(self.scenery.names),
            "triangles": int(self.scenery.n_triangles),
            "blocking_triangles": int(self.blocking.n_triangles),
            "troopers": {
                t.id: {
                    "side": t.side,
                    "position": [round(v, 3) for v in t.position],
                    "silhouette": t.silhouette,
                    "diameter": t.diameter,
                    "height": t.height,
                    "states": sorted(t.states),
                }
                for t in self.troopers.values()
            },
            "attacks": [a.id for a in self.scenario.attacks],
            "warnings": list(self.warnings),
        }
