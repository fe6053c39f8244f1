"""A 40k vehicle placed in the scene: its hull in plan, its barrel, its armour (SPEC 12.6).

The hull is the vehicle's body for every 40k question the engine answers in plan view
(templates: a vehicle is under a template when any part of its hull's footprint is;
coverage; facings; friendly hulls a template may not touch). Frames: see
:mod:`geom3d.scenario.vehicles`. A mesh hull's footprint is the union of its triangles
seen from above (scaled, turned by its ``rotation_deg``, then by the trooper's
``facing_deg``); its plan rectangle is the footprint's bounding rectangle in the
vehicle's frame. A box hull's footprint is its rectangle.

A vehicle without a base (``barrel`` given) stands on its hull: for dropping onto the
surface and for Line of Fire its trooper cylinder is the largest upright cylinder centred
on its position inside the hull's plan rectangle (diameter: the rectangle's shorter side
when centred, else twice the distance to its nearest edge), as tall as the hull.

Line of Fire: every hull is a blocking solid for the Line of Fire between other models
(:func:`engine_for`: the scenery's blocking triangles plus the hulls' triangles, one BVH
per set of hulls left out, cached per scene); a pair that involves a vehicle leaves that
vehicle's own hull out, so a vehicle sees and is seen through its trooper cylinder.
"""

from __future__ import annotations

import functools
import math
import os
import threading
import weakref
from dataclasses import dataclass

import numpy as np
import shapely
from shapely.affinity import rotate, translate
from shapely.geometry import box as shapely_box
from shapely.geometry.base import BaseGeometry

from geom3d.bodies.kernel_constants import GEOM_EPS_MM
from geom3d.core.errors import MeshError
from geom3d.mesh import box_mesh, load_mesh
from geom3d.placement.vehicles import HullPlan
from geom3d.raycast import make_engine
from geom3d.raycast.base import RayBackend
from geom3d.scenario.limits import MIN_BODY_MM
from geom3d.scenario.vehicles import VehicleSpec

__all__ = [
    "LocalHull",
    "VehicleBody",
    "blocking_mesh",
    "engine_for",
    "hull_solid",
    "local_hull",
    "place_vehicle",
    "share_engines",
]

#: Per scene: the ray engines of the scenery plus hulls, keyed by the hulls left out.
_ENGINES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_ENGINES_LOCK = threading.Lock()


@dataclass(frozen=True)
class LocalHull:
    """The hull in the vehicle's own frame (origin at the trooper's position), mm.

    Attributes
    ----------
    footprint : shapely geometry
    rect : (4,) tuple of float
        ``(x0, y0, x1, y1)``: the plan rectangle.
    height : float
        Top of the hull above the origin.
    """

    footprint: BaseGeometry
    rect: tuple[float, float, float, float]
    height: float

    def stand_diameter(self) -> float:
        """Diameter of the stand-in cylinder of a baseless vehicle (module docstring)."""
        x0, y0, x1, y1 = self.rect
        d = 2.0 * min(-x0, x1, -y0, y1)
        return max(d, MIN_BODY_MM)


@dataclass(frozen=True)
class VehicleBody:
    """A vehicle in the scene.

    Attributes
    ----------
    spec : VehicleSpec
    hull : HullPlan
        World plan footprint and rectangle.
    barrel : (3,) tuple of float or None, mm
        World point where a baseless vehicle's templates start.
    base_z : float, mm
        Height of the hull's origin (the trooper's position z).
    height : float, mm
    origin : (3,) tuple of float, mm
        The trooper's position (the hull's origin).
    """

    spec: VehicleSpec
    hull: HullPlan
    barrel: tuple[float, float, float] | None
    base_z: float
    height: float
    origin: tuple[float, float, float] = (0.0, 0.0, 0.0)

    @property
    def baseless(self) -> bool:
        return self.barrel is not None

    def armour_of(self, facing: str) -> int:
        return self.spec.armour_of(facing)


def _rotz(v: np.ndarray, deg: float) -> np.ndarray:
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    out = v.copy()
    out[:, 0] = c * v[:, 0] - s * v[:, 1]
    out[:, 1] = s * v[:, 0] + c * v[:, 1]
    return out


def local_hull(spec: VehicleSpec, file: str = "<scenario>", where: str = "") -> LocalHull:
    """The hull in the vehicle's frame (a mesh is read through the mesh cache).

    Raises
    ------
    MeshError
        The hull mesh cannot be read, or has no area seen from above (``file`` and the
        field path ``where`` name it).
    """
    if spec.box_size is not None:
        x, y, z = spec.box_size
        return LocalHull(
            shapely_box(-0.5 * x, -0.5 * y, 0.5 * x, 0.5 * y),
            (-0.5 * x, -0.5 * y, 0.5 * x, 0.5 * y),
            z,
        )
    assert spec.mesh_path is not None  # parse_vehicle: exactly one of box / mesh
    try:
        mv, mf = _hull_mesh(spec.mesh_path, spec.mesh_units)
    except MeshError as exc:
        raise MeshError(f"{spec.mesh_path.name}: {exc.message}", file=file, path=where) from None
    v = _rotz(mv * np.asarray(spec.scale), spec.rotation_deg)
    tri = v[mf][:, :, :2]
    e1, e2 = tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]
    keep = np.abs(e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0]) > GEOM_EPS_MM
    polys = shapely.polygons(tri[keep])
    foot = shapely.union_all(polys)
    if foot.is_empty or foot.area <= 0:
        raise MeshError(
            f"{spec.mesh_path.name}: the hull has no area seen from above", file=file, path=where
        )
    x0, y0, x1, y1 = (float(c) for c in foot.bounds)
    return LocalHull(foot, (x0, y0, x1, y1), float(v[:, 2].max()))


def place_vehicle(spec: VehicleSpec, local: LocalHull, position, facing_deg: float) -> VehicleBody:
    """The vehicle at ``position`` ((3,) mm), its front along ``facing_deg``."""
    px, py, pz = (float(c) for c in position)
    foot = translate(rotate(local.footprint, facing_deg, origin=(0, 0)), px, py)
    x0, y0, x1, y1 = local.rect
    cx, cy = _rotz(np.array([[0.5 * (x0 + x1), 0.5 * (y0 + y1), 0.0]]), facing_deg)[0, :2]
    hull = HullPlan(
        footprint=foot,
        center=(px + float(cx), py + float(cy)),
        half_size=(0.5 * (x1 - x0), 0.5 * (y1 - y0)),
        heading_deg=float(facing_deg),
    )
    barrel = None
    if spec.barrel is not None:
        b = _rotz(np.array([spec.barrel], dtype=np.float64), facing_deg)[0]
        barrel = (px + float(b[0]), py + float(b[1]), pz + float(b[2]))
    return VehicleBody(spec, hull, barrel, pz, local.height, (px, py, pz))


def _hull_mesh(path, units) -> tuple[np.ndarray, np.ndarray]:
    """A hull mesh file's (vertices (n, 3) float64 mm, faces (m, 3) int64), read-only,
    read once per file version (the scene, each ray engine of :func:`engine_for`, the
    exposure map and the viewer all ask)."""
    try:
        st = os.stat(path)
    except OSError:  # load_mesh says what is wrong, as one MeshError line
        return _read_hull_mesh.__wrapped__(str(path), units, 0, 0)
    return _read_hull_mesh(str(path), units, st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=32)
def _read_hull_mesh(path: str, units, mtime_ns: int, size: int):
    mesh = load_mesh(path, units=units)
    v = np.array(mesh.vertices, dtype=np.float64)
    f = np.array(mesh.faces, dtype=np.int64)
    v.flags.writeable = f.flags.writeable = False
    return v, f


def hull_solid(body: VehicleBody) -> tuple[np.ndarray, np.ndarray]:
    """The hull's triangles in the world: (vertices (n, 3) mm, faces (m, 3) int64)."""
    spec = body.spec
    if spec.box_size is not None:
        v, f = box_mesh(spec.box_size)
    else:
        assert spec.mesh_path is not None  # exactly one of box / mesh
        mv, f = _hull_mesh(spec.mesh_path, spec.mesh_units)
        v = _rotz(mv * np.asarray(spec.scale), spec.rotation_deg)
    v = _rotz(np.asarray(v, dtype=np.float64), body.hull.heading_deg) + np.asarray(body.origin)
    return v, np.asarray(f, dtype=np.int64)


def blocking_mesh(scene, ids) -> tuple[np.ndarray, np.ndarray] | None:
    """The triangles that block Line of Fire between troopers ``ids`` when the scene has
    vehicles: its blocking scenery, then every hull in scene order but those of ``ids``
    (ids that are no trooper of the scene, such as the exposure map's probe, leave
    nothing out). None when no hull blocks (the scene's own engine answers).

    Returns
    -------
    vertices : (n, 3) float64, mm
    faces : (m, 3) int64
    """
    hulls = [t for t in scene.troopers.values() if t.vehicle is not None]
    keep = [t for t in hulls if t.id not in set(ids)]
    if not keep:
        return None
    parts = [(scene.blocking.vertices, scene.blocking.faces)]
    parts += [hull_solid(t.vehicle) for t in keep]
    verts, faces, n = [], [], 0
    for v, f in parts:
        verts.append(np.asarray(v, dtype=np.float64))
        faces.append(np.asarray(f, dtype=np.int64) + n)
        n += len(v)
    return np.concatenate(verts), np.concatenate(faces)


def share_engines(old, new) -> None:
    """Give scene ``new`` the engines of scenery plus hulls that scene ``old`` built
    (:func:`engine_for`): only for a ``new`` whose vehicles stand exactly where
    ``old``'s do (a trooper without a vehicle moved, :meth:`Scene.restand`)."""
    with _ENGINES_LOCK:
        got = _ENGINES.get(old)
        if got:
            _ENGINES[new] = dict(got)


def engine_for(scene, ids) -> RayBackend:
    """The ray engine for Line of Fire between troopers ``ids``: the scene's own when it
    has no vehicle, else its blocking scenery plus every hull but those of ``ids``
    (:func:`blocking_mesh`)."""
    hulls = [t for t in scene.troopers.values() if t.vehicle is not None]
    if not hulls:
        return scene.engine
    key = frozenset(i for i in ids if i in scene.troopers and scene.troopers[i].vehicle is not None)
    if len(key) == len(hulls):  # every hull is left out
        return scene.engine
    with _ENGINES_LOCK:
        cache = _ENGINES.setdefault(scene, {})
        if key in cache:
            return cache[key]
    mesh = blocking_mesh(scene, key)
    assert mesh is not None  # some hull is kept
    engine = make_engine(*mesh)
    with _ENGINES_LOCK:
        return _ENGINES[scene].setdefault(key, engine)
