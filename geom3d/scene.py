"""The scene: scenery merged into one triangle mesh, troopers as exact cylinders.

Built from a validated :class:`~geom3d.scenario.Scenario` and its ruleset object
(:func:`geom3d.api.build_scene` picks it from the registry). All blocking scenery becomes
one triangle mesh with a per-triangle element id, behind one Embree BVH; non-blocking
scenery is kept for drawing and for standing on. Troopers given as ``[x, y]`` are
dropped onto the highest upward-facing surface under their base centre.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .bodies import cylinders_touch
from .errors import MeshError, UnknownIdError
from .mesh import box_mesh, file_digest, load_mesh
from .raycast import RayEngine
from .ruleset import Ruleset
from .scenario import AttackSpec, Scenario, SceneryItem, TrooperSpec
from .tolerances import (
    CONTACT_EPS_MM,
    DROP_MAX_STEEP_FACES,
    DROP_PROBE_HEIGHT_MM,
    DROP_REFINE_MAX_MM,
    DROP_STEEP_REL_EPS,
    FAR_OFF_TABLE_MM,
    STAND_INSET_MM,
    UPWARD_NORMAL_MIN_Z,
)
from .trooper import Trooper

__all__ = ["Scene", "SceneryMesh", "Trooper"]


@dataclass(frozen=True)
class SceneryMesh:
    """Scenery as one triangle soup.

    Attributes
    ----------
    vertices : (n, 3) float64, mm
    faces : (m, 3) int64
    element : (m,) int32
        Index into ``names`` of the scenery element each triangle belongs to.
    names : tuple of str
        Element ids (``table`` for the table mesh).
    """

    vertices: np.ndarray
    faces: np.ndarray
    element: np.ndarray
    names: tuple[str, ...]

    @property
    def n_triangles(self) -> int:
        return len(self.faces)

    def subset(self, mask: np.ndarray) -> SceneryMesh:
        """The triangles where ``mask`` ((m,) bool) is true."""
        return SceneryMesh(self.vertices, self.faces[mask], self.element[mask], self.names)


def _transform(vertices: np.ndarray, item: SceneryItem) -> np.ndarray:
    """Scale, then yaw about the piece's own origin, then move the origin to position."""
    a = math.radians(item.rotation_deg)
    c, s = math.cos(a), math.sin(a)
    rot = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    return (vertices * item.scale) @ rot.T + np.asarray(item.position)


# Per-process caches: merged scenery and its BVH keyed by a digest of what went in, so a
# batch of scenarios on the same table builds the BVH once per worker.
_SCENERY_CACHE: OrderedDict[str, tuple] = OrderedDict()
_SCENERY_CACHE_SIZE = 4


def clear_scene_cache() -> None:
    """Forget cached scenery meshes and BVHs (tests, memory pressure)."""
    _SCENERY_CACHE.clear()


def _scenery_key(scn: Scenario) -> str:
    h = hashlib.sha256()
    if scn.table_mesh is not None:
        h.update(f"table|{file_digest(scn.table_mesh)}|{scn.table_mesh_units}".encode())
    for it in scn.scenery:
        src = file_digest(it.mesh_path) if it.mesh_path else repr(it.box_size)
        h.update(
            f"{it.id}|{src}|{it.mesh_units}|{it.position!r}|{it.rotation_deg!r}|{it.scale!r}|"
            f"{it.blocks_lof}".encode()
        )
    return h.hexdigest()


@dataclass
class LoadStats:
    """Seconds spent building the scene, for batch reports."""

    mesh_seconds: float = 0.0
    bvh_seconds: float = 0.0
    cache_hit: bool = False


def _load_for(scn: Scenario, path: Path, units: str, where: str):
    """Load a mesh named by a scenario; errors name the scenario file and field too."""
    try:
        return load_mesh(path, units=units)
    except MeshError as exc:
        raise MeshError(
            f"{path.name}: {exc.message}",
            file=scn.name if scn.path is None else str(scn.path),
            path=where,
        ) from None


def _build_scenery(scn: Scenario, stats: LoadStats):

    names: list[str] = []
    blocks: list[bool] = []
    parts_v: list[np.ndarray] = []
    parts_f: list[np.ndarray] = []
    reports = []
    t0 = time.perf_counter()
    if scn.table_mesh is not None:
        lm = _load_for(scn, scn.table_mesh, scn.table_mesh_units, "table.mesh")
        reports.append(("table", lm.report))
        names.append("table")
        blocks.append(True)
        parts_v.append(lm.vertices)
        parts_f.append(lm.faces)
    for i, it in enumerate(scn.scenery):
        if it.box_size is not None:
            v, f = box_mesh(it.box_size)
        else:
            lm = _load_for(scn, it.mesh_path, it.mesh_units, f"scenery[{i}].mesh")
            reports.append((it.id, lm.report))
            v, f = lm.vertices, lm.faces
        names.append(it.id)
        blocks.append(it.blocks_lof)
        parts_v.append(_transform(v, it))
        parts_f.append(f)
    offsets = np.cumsum([0] + [len(v) for v in parts_v])
    if parts_v:
        vertices = np.concatenate(parts_v)
        faces = np.concatenate([f + o for f, o in zip(parts_f, offsets[:-1], strict=True)])
        element = np.concatenate(
            [np.full(len(f), i, dtype=np.int32) for i, f in enumerate(parts_f)]
        )
    else:
        vertices = np.zeros((0, 3))
        faces = np.zeros((0, 3), dtype=np.int64)
        element = np.zeros(0, dtype=np.int32)
    mesh = SceneryMesh(vertices, faces, element, tuple(names))
    stats.mesh_seconds += time.perf_counter() - t0
    t0 = time.perf_counter()
    blocking_mask = np.asarray(blocks, dtype=bool)[element] if len(element) else np.zeros(0, bool)
    blocking = mesh.subset(blocking_mask)
    engine = RayEngine(blocking.vertices, blocking.faces)
    all_engine = engine if blocking_mask.all() else RayEngine(mesh.vertices, mesh.faces)
    stats.bvh_seconds += time.perf_counter() - t0
    return mesh, blocking_mask, blocking, engine, all_engine, reports


class Scene:
    """Scenery, troopers and attacks of one scenario, ready for queries.

    Build it with :func:`geom3d.api.build_scene` (or :func:`geom3d.api.load_scene`), which
    picks the ruleset object for the scenario's ruleset from the registry.

    Parameters
    ----------
    scenario : Scenario
        A validated scenario (see :func:`geom3d.scenario.load_scenario`).
    ruleset : geom3d.ruleset.Ruleset
        The ruleset object (its data is ``scenario.ruleset`` after overrides). Line of
        Fire and attack questions go to it.

    Attributes
    ----------
    scenario : Scenario
    ruleset : geom3d.ruleset.Ruleset
        ``.name`` and the data's fields (``.base_height``, ``.silhouettes``, ...).
    troopers : dict[str, Trooper]
        In file order.
    scenery : SceneryMesh
        All scenery.
    blocking_mask : (scenery.n_triangles,) bool
        Which triangles of ``scenery`` block Line of Fire.
    blocking : SceneryMesh
        The triangles that block Line of Fire (``scenery.subset(blocking_mask)``).
    engine : RayEngine
        BVH over ``blocking``.
    mesh_reports : list of (element id, MeshReport)
    warnings : list of str
        Suspicious but legal input (overlaps, embedded troopers, far off the table).
    load_stats : LoadStats
    visibility_cache : dict[tuple[str, str], tuple]
        Symmetric visibility of static trooper pairs, keyed by the sorted id pair; filled
        by the Line of Fire engine (:mod:`geom3d.lof`), clear it to recompute.
    """

    def __init__(self, scenario: Scenario, ruleset: Ruleset) -> None:
        self.scenario = scenario
        self.ruleset = ruleset
        self.visibility_cache: dict[tuple[str, str], tuple] = {}
        self.warnings: list[str] = []
        self.load_stats = LoadStats()
        key = _scenery_key(scenario)
        if key in _SCENERY_CACHE:
            _SCENERY_CACHE.move_to_end(key)
            self.load_stats.cache_hit = True
            built = _SCENERY_CACHE[key]
        else:
            built = _build_scenery(scenario, self.load_stats)
            _SCENERY_CACHE[key] = built
            while len(_SCENERY_CACHE) > _SCENERY_CACHE_SIZE:
                _SCENERY_CACHE.popitem(last=False)
        (
            self.scenery,
            self.blocking_mask,
            self.blocking,
            self.engine,
            self._surface_engine,
            self.mesh_reports,
        ) = built
        for name, rep in self.mesh_reports:
            for msg in rep.messages():
                self.warnings.append(f"{name}: {msg}")
        self.troopers: dict[str, Trooper] = {}
        specs = scenario.troopers
        drop_xy = [t for t in specs if len(t.position) == 2]
        z_of = (
            dict(
                zip(
                    [t.id for t in drop_xy],
                    self.surface_z([t.position for t in drop_xy]),
                    strict=True,
                )
            )
            if drop_xy
            else {}
        )
        engaged = {t.id: set(t.engaged_with) for t in specs}
        for t in specs:
            for o in t.engaged_with:
                engaged[o].add(t.id)
        for t in specs:
            self.troopers[t.id] = self._make_trooper(t, z_of, tuple(sorted(engaged[t.id])))
        self._check_warnings()

    # ------------------------------------------------------------------ construction
    def _make_trooper(self, t: TrooperSpec, z_of: dict, engaged: tuple) -> Trooper:
        if len(t.position) == 2:
            pos = (t.position[0], t.position[1], float(z_of[t.id]))
        else:
            pos = tuple(t.position)
        route = None
        if t.route is not None:
            r2 = [p for p in t.route if len(p) == 2]
            rz = iter(self.surface_z(r2)) if r2 else iter(())
            route = tuple(
                (p[0], p[1], float(next(rz))) if len(p) == 2 else tuple(p) for p in t.route
            )
        height = self.ruleset.base_height if "prone" in t.states else t.height
        return Trooper(
            id=t.id,
            side=t.side,
            position=tuple(float(v) for v in pos),
            facing_deg=t.facing_deg,
            silhouette=t.silhouette,
            diameter=t.diameter,
            height=height,
            states=t.states,
            engaged_with=engaged,
            route=route,
            unit=t.unit,
            dropped=len(t.position) == 2,
        )

    def surface_z(self, xy) -> np.ndarray:
        """Height of the highest upward-facing scenery surface under each point.

        Parameters
        ----------
        xy : (n, 2) float, mm

        Returns
        -------
        (n,) float, mm
            0 where no scenery lies under the point (the table top).
        """
        pts = np.asarray(xy, dtype=np.float64).reshape(-1, 2)
        z = np.zeros(len(pts))
        mesh = self.scenery
        if not len(pts) or mesh.n_triangles == 0:
            return z
        top = float(self._surface_engine.bounds[1, 2]) + DROP_PROBE_HEIGHT_MM
        bottom = float(self._surface_engine.bounds[0, 2]) - DROP_PROBE_HEIGHT_MM
        start = np.column_stack([pts, np.full(len(pts), top)])
        pending = np.arange(len(pts))
        for _ in range(DROP_MAX_STEEP_FACES):
            if not len(pending):
                break
            ends = start[pending].copy()
            ends[:, 2] = bottom
            dist, hit = self._surface_engine.first_hit(start[pending], ends)
            miss = hit < 0
            hz = start[pending, 2] - dist
            # normals of the triangles hit only (scanned tables have millions)
            tri = mesh.vertices[mesh.faces[np.maximum(hit, 0)]]
            n = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
            norm = np.linalg.norm(n, axis=1)
            ok = norm > 0
            nz = np.where(ok, np.abs(n[:, 2]) / np.where(ok, norm, 1.0), 0.0)
            # refine in float64 on the triangle's plane (Embree works in float32)
            steep = np.abs(n[:, 2]) <= DROP_STEEP_REL_EPS * np.maximum(norm, 1e-300)
            p0 = tri[:, 0]
            exact = p0[:, 2] - (
                n[:, 0] * (pts[pending, 0] - p0[:, 0]) + n[:, 1] * (pts[pending, 1] - p0[:, 1])
            ) / np.where(steep, 1.0, n[:, 2])
            use = ~miss & ~steep & (np.abs(exact - np.where(miss, 0.0, hz)) < DROP_REFINE_MAX_MM)
            hz = np.where(use, exact, hz)
            good = ~miss & (nz >= UPWARD_NORMAL_MIN_Z)
            z[pending[good]] = hz[good]
            again = ~miss & ~good
            start[pending[again], 2] = hz[again]
            pending = pending[again]
        return z

    def _check_warnings(self) -> None:
        ts = list(self.troopers.values())
        for i, a in enumerate(ts):
            for b in ts[i + 1 :]:
                if a.is_marker or b.is_marker:
                    continue
                d = math.hypot(a.position[0] - b.position[0], a.position[1] - b.position[1])
                overlap_z = (
                    a.position[2] < b.position[2] + b.height
                    and b.position[2] < a.position[2] + a.height
                )
                if overlap_z and d < a.radius + b.radius - CONTACT_EPS_MM:
                    self.warnings.append(f"troopers {a.id!r} and {b.id!r} overlap")
        for t, emb in zip(ts, self._embedded(ts), strict=True):
            if emb:
                self.warnings.append(f"trooper {t.id!r} is embedded in scenery")
        size = self.scenario.table_size
        lo = np.array([0.0, 0.0])
        hi = np.array(size) if size else None
        if hi is None and self.scenery.n_triangles:
            lo = self.scenery.vertices[:, :2].min(axis=0)
            hi = self.scenery.vertices[:, :2].max(axis=0)
        if hi is not None:
            for t in ts:
                p = np.array(t.position[:2])
                off = np.maximum(lo - p, 0) + np.maximum(p - hi, 0)
                if float(np.max(off)) > FAR_OFF_TABLE_MM:
                    self.warnings.append(
                        f"trooper {t.id!r} is {float(np.max(off)) / 1000:.1f} m off the table "
                        f"(a unit mistake? the file says units: {self.scenario.units})"
                    )

    def _embedded(self, troopers: list[Trooper]) -> list[bool]:
        """Does scenery cut into each trooper's volume (shrunk by the standing inset)?"""
        out = [False] * len(troopers)
        if self.engine.n_triangles == 0 or not troopers:
            return out
        angles = np.radians(np.arange(0, 180, 22.5))
        o, e, owner, mids = [], [], [], []
        for k, t in enumerate(troopers):
            c = t.cylinder
            r = c.radius - STAND_INSET_MM
            z0 = c.base[2] + STAND_INSET_MM
            z1 = c.top_z - STAND_INSET_MM
            if r <= 0 or z1 <= z0:
                mids.append(None)
                continue
            bx, by = c.base[0], c.base[1]
            for z in np.linspace(z0, z1, 4):
                for a in angles:
                    dx, dy = r * math.cos(a), r * math.sin(a)
                    o.append((bx - dx, by - dy, z))
                    e.append((bx + dx, by + dy, z))
                    owner.append(k)
            for a in angles:
                dx, dy = 0.7 * r * math.cos(a), 0.7 * r * math.sin(a)
                o.append((bx + dx, by + dy, z0))
                e.append((bx + dx, by + dy, z1))
                owner.append(k)
            mids.append((bx, by, 0.5 * (z0 + z1)))
        if o:
            hit = self.engine.occluded(np.array(o), np.array(e))
            for k in np.unique(np.asarray(owner)[hit]):
                out[int(k)] = True
        # wholly inside a closed element: the first surface straight above the centre
        # faces up (seen from inside). Meshes with flipped winding may fool this check,
        # which only decides a warning.
        idx = [k for k, m in enumerate(mids) if m is not None and not out[k]]
        if idx:
            lo = np.array([mids[k] for k in idx])
            hi = lo.copy()
            hi[:, 2] = self.engine.bounds[1, 2] + 1.0
            _, tri = self.engine.first_hit(lo, hi)
            for k, f in zip(idx, tri, strict=True):
                if f >= 0:
                    v = self.blocking.vertices[self.blocking.faces[f]]
                    out[k] = bool(np.cross(v[1] - v[0], v[2] - v[0])[2] > 0)
        return out

    # ------------------------------------------------------------------ queries
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

    def line_of_fire(self, a: str, b: str, **kwargs):
        """Line of Fire from ``a`` to ``b``, by the ruleset (:func:`geom3d.lof.line_of_fire`)."""
        return self.ruleset.line_of_fire(self, a, b, **kwargs)

    def lof_matrix(self, pairs=None, **kwargs):
        """Line of Fire for all ordered pairs, by the ruleset (:func:`geom3d.lof.lof_matrix`)."""
        return self.ruleset.lof_matrix(self, pairs, **kwargs)

    def resolve_attack(self, attack_id: str, **kwargs):
        """Resolve one attack, by the ruleset (:func:`geom3d.attacks.resolve_attack`)."""
        return self.ruleset.resolve(self, attack_id, **kwargs)

    def summary(self) -> dict:
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
