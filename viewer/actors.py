"""Scene -> plain drawing descriptions (PyVista meshes plus style), no render window.

Everything a diagram shows is decided here, as data: a :class:`Drawing` holds
:class:`ActorSpec` entries (a mesh, a colour, an opacity, a layer), text labels anchored in
the world, legend entries, a title and notes, and the region of the world the camera must
show. :mod:`viewer.render` turns a Drawing into pixels; :mod:`viewer.window` into an
interactive window. Tests check drawings without any OpenGL context.

Layers (the interactive viewer toggles them): ``scenery`` (table and scenery pieces),
``silhouettes`` (trooper cylinders, facing marks, routes, highlights), ``templates``
(template volumes and Blast Focus), ``rays`` (LoF rays, blocked rays, LoF summary lines),
``annotations`` (scale bar, arc boundary of a ``from:`` view).

Lengths are millimetres, like the engine. Colours come from :mod:`viewer.palette`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pyvista as pv

from geom3d.errors import InputError, UnknownIdError
from geom3d.units import LENGTH_UNITS

from . import palette as pal

__all__ = [
    "LAYERS",
    "ActorSpec",
    "AttacksUnavailable",
    "Drawing",
    "Label",
    "LegendEntry",
    "arc_boundary_actors",
    "attack_actors",
    "blocked_rays",
    "build_drawing",
    "content_bounds",
    "highlight_actors",
    "lof_from_trooper",
    "lof_pair_actors",
    "matrix_actors",
    "nice_scale_length",
    "parse_lof_arg",
    "parse_view",
    "resolve_attack_for_drawing",
    "scale_bar_actors",
    "scenery_actors",
    "template_actors",
    "trooper_actors",
    "view_from_trooper",
    "volumes_from_placements",
]

LAYERS: tuple[str, ...] = ("scenery", "silhouettes", "templates", "rays", "annotations")

#: Opacity of silhouette cylinders (the rear half of the top cap uses it too).
SILHOUETTE_OPACITY = 0.45
#: Opacity of template volumes.
TEMPLATE_OPACITY = 0.28
#: Scenery meshes above this many triangles are drawn without feature edges (too costly
#: to extract and unreadable at that density anyway).
EDGE_TRIANGLE_LIMIT = 200_000
#: Margin around the region of interest of an attack or LoF diagram, mm.
FOCUS_MARGIN_MM = 60.0


# --------------------------------------------------------------------------- data
@dataclass
class ActorSpec:
    """One mesh to draw and how.

    Attributes
    ----------
    name : str
        Unique within a drawing (``trooper:blue-1``, ``template:0`` ...).
    layer : str
        One of :data:`LAYERS`.
    mesh : pyvista.PolyData
    color : str or None
        ``#RRGGBB``; None when ``rgb`` colours are given per cell.
    opacity : float
    lighting : bool
        False draws the exact colour (highlights that tests find by pixel value).
    line_width : float or None
        Pixels at 1200 px image height; the renderer scales it with the image.
    rgb : str or None
        Name of a point-data array of uint8 RGB colours to draw instead of ``color``.
    smooth : bool
        Smooth (Gouraud) shading, for curved surfaces.
    meta : dict
        Free-form (e.g. ``{"trooper": id}`` for picking).
    """

    name: str
    layer: str
    mesh: pv.PolyData
    color: str | None = None
    opacity: float = 1.0
    lighting: bool = True
    line_width: float | None = None
    rgb: str | None = None
    smooth: bool = False
    meta: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.layer not in LAYERS:
            raise ValueError(f"unknown layer {self.layer!r}")


@dataclass
class Label:
    """A text label anchored at a world point (mm)."""

    layer: str
    point: tuple[float, float, float]
    text: str
    color: str = pal.TEXT


@dataclass
class LegendEntry:
    """One legend row: text, colour and a face.

    Faces: ``rectangle`` (area), ``ring``, ``disc``, ``line``, ``arrow``, ``cross``.
    """

    label: str
    color: str
    face: str = "rectangle"


@dataclass
class Drawing:
    """Everything one diagram shows, before any rendering.

    Attributes
    ----------
    title, subtitle : str
    actors : list of ActorSpec
    labels : list of Label
    legend : list of LegendEntry
    notes : list of str
        Text lines for the side panel (LoF summary, exclusions...).
    bounds : (2, 3) float, mm
        The part of the world the camera must show.
    eye : dict or None
        For a ``from:ID`` view: ``{"trooper", "position", "facing", "eye_z"}``.
    """

    title: str
    subtitle: str = ""
    actors: list[ActorSpec] = field(default_factory=list)
    labels: list[Label] = field(default_factory=list)
    legend: list[LegendEntry] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    bounds: np.ndarray = field(default_factory=lambda: np.zeros((2, 3)))
    eye: dict | None = None

    def actor(self, name: str) -> ActorSpec:
        """The actor called ``name`` (KeyError otherwise)."""
        for a in self.actors:
            if a.name == name:
                return a
        raise KeyError(name)

    def layer(self, layer: str) -> list[ActorSpec]:
        """The actors of one layer, in drawing order."""
        return [a for a in self.actors if a.layer == layer]

    def names(self) -> list[str]:
        return [a.name for a in self.actors]

    def add_legend(self, label: str, color: str, face: str = "rectangle") -> None:
        if all(e.label != label for e in self.legend):
            self.legend.append(LegendEntry(label, color, face))


# --------------------------------------------------------------------------- mesh helpers
def _faces_mesh(vertices, faces) -> pv.PolyData:
    v = np.asarray(vertices, dtype=np.float64).reshape(-1, 3)
    f = np.asarray(faces, dtype=np.int64).reshape(-1, 3)
    return pv.PolyData.from_regular_faces(v, f)


def _segments(starts, ends) -> pv.PolyData:
    """Separate line segments ``starts[i] -> ends[i]`` ((n, 3) mm) as one PolyData."""
    s = np.asarray(starts, dtype=np.float64).reshape(-1, 3)
    e = np.asarray(ends, dtype=np.float64).reshape(-1, 3)
    n = len(s)
    pts = np.empty((2 * n, 3))
    pts[0::2] = s
    pts[1::2] = e
    lines = np.column_stack([np.full(n, 2), np.arange(0, 2 * n, 2), np.arange(1, 2 * n, 2)])
    return pv.PolyData(pts, lines=lines.ravel())


def _polyline(points, closed: bool = False) -> pv.PolyData:
    p = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    idx = list(range(len(p))) + ([0] if closed else [])
    return pv.PolyData(p, lines=np.array([len(idx), *idx]))


def _spheres(centers, radius: float) -> pv.PolyData:
    c = np.asarray(centers, dtype=np.float64).reshape(-1, 3)
    parts = [
        pv.Sphere(radius=float(radius), center=tuple(p), theta_resolution=16, phi_resolution=12)
        for p in c
    ]
    return pv.merge(parts) if len(parts) > 1 else parts[0]


def _ring(center, r0: float, r1: float, z: float, n: int = 72, a0=0.0, a1=2 * math.pi):
    """Flat annulus (or annular sector a0..a1, radians) at height z, as triangles."""
    full = abs((a1 - a0) - 2 * math.pi) < 1e-12
    k = n if full else n + 1
    ang = a0 + (a1 - a0) * np.arange(k) / n
    inner = np.column_stack(
        [center[0] + r0 * np.cos(ang), center[1] + r0 * np.sin(ang), np.full(k, z)]
    )
    outer = np.column_stack(
        [center[0] + r1 * np.cos(ang), center[1] + r1 * np.sin(ang), np.full(k, z)]
    )
    v = np.vstack([inner, outer])
    faces = []
    for i in range(n):
        j = (i + 1) % k
        faces.append((i, j, k + j))
        faces.append((i, k + j, k + i))
    return _faces_mesh(v, faces)


def _fan(center, r: float, z: float, a0: float, a1: float, n: int = 36) -> pv.PolyData:
    """Flat disc sector at height z (radians a0..a1), fan-triangulated."""
    ang = a0 + (a1 - a0) * np.arange(n + 1) / n
    rim = np.column_stack([center[0] + r * np.cos(ang), center[1] + r * np.sin(ang)])
    v = np.vstack([[center[0], center[1], z], np.column_stack([rim, np.full(n + 1, z)])])
    faces = [(0, i + 1, i + 2) for i in range(n)]
    return _faces_mesh(v, faces)


def _circle(center, r: float, z: float, n: int = 72) -> pv.PolyData:
    ang = 2 * math.pi * np.arange(n) / n
    pts = np.column_stack([center[0] + r * np.cos(ang), center[1] + r * np.sin(ang), np.full(n, z)])
    return _polyline(pts, closed=True)


def _mantle(center, r: float, z0: float, z1: float, n: int = 48) -> pv.PolyData:
    ang = 2 * math.pi * np.arange(n) / n
    ring = np.column_stack([center[0] + r * np.cos(ang), center[1] + r * np.sin(ang)])
    v = np.vstack(
        [np.column_stack([ring, np.full(n, z0)]), np.column_stack([ring, np.full(n, z1)])]
    )
    faces = []
    for i in range(n):
        j = (i + 1) % n
        faces.append((i, j, n + j))
        faces.append((i, n + j, n + i))
    return _faces_mesh(v, faces)


def _ramp_rgb(values: np.ndarray, lo: float, hi: float, ramp: Sequence[str]) -> np.ndarray:
    """Linear interpolation along a colour ramp; (n,) values -> (n, 3) uint8."""
    stops = np.array([pal.rgb255(c) for c in ramp], dtype=np.float64)
    t = np.zeros(len(values)) if hi <= lo else np.clip((values - lo) / (hi - lo), 0.0, 1.0)
    x = t * (len(stops) - 1)
    i = np.minimum(np.floor(x).astype(int), len(stops) - 2)
    f = (x - i)[:, None]
    return np.round(stops[i] * (1 - f) + stops[i + 1] * f).astype(np.uint8)


# --------------------------------------------------------------------------- scenery
def _blocking_mask(scene) -> np.ndarray:
    blocks = {it.id: it.blocks_lof for it in scene.scenario.scenery}
    per_element = np.array([blocks.get(n, True) for n in scene.scenery.names], dtype=bool)
    if not len(scene.scenery.element):
        return np.zeros(0, dtype=bool)
    return per_element[scene.scenery.element]


def scenery_actors(scene) -> list[ActorSpec]:
    """Table top, blocking scenery (coloured by height, with edges), non-blocking scenery.

    Blocking scenery is shaded by the lights *and* coloured by height (per vertex, along
    :data:`viewer.palette.SCENERY_RAMP`), so the plan view shows heights the way a relief
    map does and walls darken towards their tops; feature edges (> 30°) outline every
    piece.
    """
    out: list[ActorSpec] = []
    size = scene.scenario.table_size
    if size:
        w, h = size
        v = np.array([[0, 0, -0.2], [w, 0, -0.2], [w, h, -0.2], [0, h, -0.2]], dtype=float)
        table = _faces_mesh(v, [(0, 1, 2), (0, 2, 3)])
        out.append(ActorSpec("table", "scenery", table, pal.TABLE))
        out.append(
            ActorSpec(
                "table-edge",
                "scenery",
                _polyline(v + np.array([0, 0, 0.1]), closed=True),
                pal.SCENERY_EDGE,
                line_width=1.5,
                lighting=False,
            )
        )
    mesh = scene.scenery
    if mesh.n_triangles == 0:
        return out
    blocking = _blocking_mask(scene)
    lo, hi = float(mesh.vertices[:, 2].min()), float(mesh.vertices[:, 2].max())
    lo = min(lo, 0.0)
    for name, mask, color, opacity in (
        ("scenery", blocking, None, 1.0),
        ("scenery-nonblocking", ~blocking, pal.SCENERY_NONBLOCKING, 0.45),
    ):
        if not mask.any():
            continue
        n = int(mask.sum())
        edges_wanted = n <= EDGE_TRIANGLE_LIMIT
        poly = _faces_mesh(mesh.vertices, mesh.faces[mask])
        if edges_wanted:  # shared vertices, so feature edges follow the real outline
            merged = poly.clean()
            if merged.n_cells == n:  # clean() may drop degenerate triangles: keep all
                poly = merged
        if color is None:
            poly.point_data["rgb"] = _ramp_rgb(
                np.asarray(poly.points)[:, 2], lo, hi, pal.SCENERY_RAMP
            )
            out.append(ActorSpec(name, "scenery", poly, None, opacity, rgb="rgb"))
        else:
            out.append(ActorSpec(name, "scenery", poly, color, opacity))
        if edges_wanted:
            edges = poly.extract_feature_edges(
                feature_angle=30.0,
                boundary_edges=True,
                non_manifold_edges=True,
                manifold_edges=False,
            )
            if edges.n_cells:
                out.append(
                    ActorSpec(
                        f"{name}-edges",
                        "scenery",
                        edges,
                        pal.SCENERY_EDGE,
                        line_width=1.2,
                        lighting=False,
                    )
                )
    return out


# --------------------------------------------------------------------------- troopers
def _side_colors(scene) -> dict[str, str]:
    return pal.side_colors(t.side for t in scene.troopers.values())


def _label_anchor(t) -> tuple[float, float, float]:
    x, y, z = t.position
    d = 0.75 * t.radius
    return (x + d, y + d, z + t.height + 2.0)


def trooper_actors(
    scene,
    *,
    faint: Iterable[str] = (),
    hidden: Iterable[str] = (),
    label_suffix: dict | None = None,
) -> tuple[list[ActorSpec], list[Label]]:
    """Silhouette cylinders coloured by side, facing marks, routes, id labels.

    Per trooper: a translucent mantle; the top cap split along the arc boundary, front
    half nearly opaque and rear half translucent (the facing arc, as printed on bases);
    a black line across the base along the 180° arc boundary, a tick pointing along the
    facing; a black outline of the base. Markers are fainter; 360° troopers get a full
    opaque cap. ``faint`` troopers are drawn at low opacity; ``hidden`` ones (the camera's
    own in a ``from:`` view) keep only their base outline and facing marks.
    """
    colors = _side_colors(scene)
    faint = set(faint)
    hidden = set(hidden)
    suffix = label_suffix or {}
    actors: list[ActorSpec] = []
    labels: list[Label] = []
    for t in scene.troopers.values():
        c = np.array(t.position, dtype=float)
        r, h = t.radius, t.height
        color = colors[t.side]
        op = 0.2 if (t.id in faint or t.is_marker) else SILHOUETTE_OPACITY
        meta = {"trooper": t.id}
        z1 = c[2] + h
        body = t.id not in hidden
        f = math.radians(t.facing_deg)
        front_op = op if t.id in faint else min(1.0, op + 0.45)
        if body:
            mantle = _mantle(c, r, c[2], z1)
            actors.append(
                ActorSpec(
                    f"trooper:{t.id}", "silhouettes", mantle, color, op, smooth=True, meta=meta
                )
            )
            if t.has_360:
                cap = _fan(c, r, z1, 0.0, 2 * math.pi, 72)
                actors.append(
                    ActorSpec(f"trooper:{t.id}:cap", "silhouettes", cap, color, front_op, meta=meta)
                )
            else:
                front = _fan(c, r, z1, f - math.pi / 2, f + math.pi / 2)
                rear = _fan(c, r, z1, f + math.pi / 2, f + 3 * math.pi / 2)
                actors.append(
                    ActorSpec(
                        f"trooper:{t.id}:front", "silhouettes", front, color, front_op, meta=meta
                    )
                )
                actors.append(
                    ActorSpec(f"trooper:{t.id}:rear", "silhouettes", rear, color, op, meta=meta)
                )
        if not t.has_360:
            ux, uy = math.cos(f), math.sin(f)
            px, py = -uy, ux
            zl = (z1 if body else c[2]) + 0.3
            arc = _segments(
                [[c[0] - 1.25 * r * px, c[1] - 1.25 * r * py, zl], [c[0], c[1], zl]],
                [
                    [c[0] + 1.25 * r * px, c[1] + 1.25 * r * py, zl],
                    [c[0] + r * ux, c[1] + r * uy, zl],
                ],
            )
            actors.append(
                ActorSpec(
                    f"trooper:{t.id}:arc",
                    "silhouettes",
                    arc,
                    pal.TEXT,
                    line_width=2.0,
                    lighting=False,
                    meta=meta,
                )
            )
        rims = pv.merge([_circle(c, r, c[2] + 0.3), _circle(c, r, z1 + 0.2)])
        actors.append(
            ActorSpec(
                f"trooper:{t.id}:outline",
                "silhouettes",
                rims,
                pal.TEXT,
                line_width=1.2,
                lighting=False,
                meta=meta,
            )
        )
        if t.route is not None and len(t.route) > 1:
            pts = np.array(t.route, dtype=float) + np.array([0, 0, 0.5])
            actors.append(
                ActorSpec(
                    f"trooper:{t.id}:route",
                    "silhouettes",
                    pv.merge([_polyline(pts), _spheres(pts, 1.5)]),
                    color,
                    line_width=2.0,
                    lighting=False,
                )
            )
        if not body:
            continue
        text = t.id
        if t.is_marker:
            text += " (marker)"
        elif t.is_prone:
            text += " (prone)"
        text += suffix.get(t.id, "")
        labels.append(Label("silhouettes", _label_anchor(t), text))
    return actors, labels


def _halo_geometry(t) -> tuple[float, float, float]:
    """Inner radius, outer radius and z of an affected trooper's ring (mm)."""
    r = t.radius
    return r + max(1.0, 0.1 * r), r + max(5.0, 0.4 * r), t.position[2] + t.height + 0.6


def highlight_actors(
    scene, affected: Iterable[str] = (), excluded: dict | None = None
) -> tuple[list[ActorSpec], list[Label]]:
    """Rings around affected troopers; crosses and reason labels on excluded ones.

    The ring is flat, unlit (exact :data:`viewer.palette.AFFECTED` colour) and lies just
    above the silhouette's top; its radii are :func:`_halo_geometry`. An excluded trooper
    gets a black cross over its top and a label with the reason.
    """
    actors: list[ActorSpec] = []
    labels: list[Label] = []
    for tid in affected:
        t = scene.trooper(tid)
        r0, r1, z = _halo_geometry(t)
        actors.append(
            ActorSpec(
                f"affected:{tid}",
                "silhouettes",
                _ring(t.position, r0, r1, z),
                pal.AFFECTED,
                lighting=False,
                meta={"trooper": tid},
            )
        )
    for tid, reason in (excluded or {}).items():
        if reason == "attacker":  # labelled "(attacker)" already; a cross would mislead
            continue
        t = scene.trooper(tid)
        x, y, z = t.position
        zt = z + t.height + 0.8
        d = 0.9 * t.radius
        cross = _segments(
            [[x - d, y - d, zt], [x - d, y + d, zt]], [[x + d, y + d, zt], [x + d, y - d, zt]]
        )
        actors.append(
            ActorSpec(
                f"excluded:{tid}",
                "silhouettes",
                cross,
                pal.EXCLUDED,
                line_width=4.0,
                lighting=False,
                meta={"trooper": tid, "reason": reason},
            )
        )
        labels.append(
            Label(
                "silhouettes",
                (x + 0.75 * t.radius, y - 0.9 * t.radius, zt + 1.0),
                f"not affected: {str(reason).replace('_', ' ')}",
            )
        )
    return actors, labels


# --------------------------------------------------------------------------- templates
def volumes_from_placements(attack_spec, placements: Sequence[dict]) -> list:
    """Template volumes rebuilt from an attack's placements (SPEC 6 ``placements``).

    Used when an attack result carries no ``volumes``: the template spec of the attack
    and each placement's ``focus`` and ``heading_deg`` give the volume.
    """
    from geom3d.templates import TemplateVolume, shape_from_spec

    shape = shape_from_spec(attack_spec.template)
    out = []
    for p in placements:
        focus = p.get("focus")
        if focus is None:
            continue
        out.append(
            TemplateVolume(
                shape,
                tuple(float(v) for v in focus),
                float(p.get("heading_deg") or 0.0),
                float(p.get("pitch_deg", getattr(attack_spec, "pitch_deg", 0.0)) or 0.0),
            )
        )
    return out


def template_actors(volumes: Sequence) -> list[ActorSpec]:
    """Translucent template volumes, their outlines, and the Blast Focus of each.

    Parameters
    ----------
    volumes : sequence of geom3d.templates.TemplateVolume

    The Blast Focus is drawn as its 3D segment (:meth:`TemplateVolume.focus_segment`) in
    black with a ball at the focus point.
    """
    out: list[ActorSpec] = []
    for i, vol in enumerate(volumes):
        tm = vol.to_trimesh(sections=72)
        out.append(
            ActorSpec(
                f"template:{i}",
                "templates",
                _faces_mesh(tm.vertices, tm.faces),
                pal.TEMPLATE,
                TEMPLATE_OPACITY,
                meta={"volume": i},
            )
        )
        ring = vol.shape.boundary(72)
        m = len(ring)
        bottom = vol.to_world(np.column_stack([ring, np.zeros(m)])) + np.array([0, 0, 0.3])
        top = vol.to_world(np.column_stack([ring, np.full(m, vol.height)]))
        rims = pv.merge([_polyline(bottom, closed=True), _polyline(top, closed=True)])
        out.append(
            ActorSpec(
                f"template:{i}:outline",
                "templates",
                rims,
                pal.TEMPLATE,
                line_width=2.0,
                lighting=False,
            )
        )
        seg = vol.focus_segment()
        ball = max(2.5, 0.12 * vol.height)
        focus = pv.merge([_segments(seg[0], seg[1]), _spheres(seg[0] + [0, 0, 0.5], ball)])
        out.append(
            ActorSpec(
                f"template:{i}:focus",
                "templates",
                focus,
                pal.FOCUS,
                line_width=4.0,
                lighting=False,
                meta={"focus": [float(v) for v in seg[0]]},
            )
        )
    return out


def attack_actors(scene, doc: dict, volumes: Sequence, attack_spec=None) -> Drawing:
    """The attack part of a diagram, from the SPEC 6 attack JSON and template volumes.

    Parameters
    ----------
    scene : geom3d.Scene
    doc : dict
        One entry of ``geom3d attack --format json`` (``AttackResult.to_dict()``).
    volumes : sequence of TemplateVolume
        The placed templates to draw.
    attack_spec : geom3d.scenario.AttackSpec or None
        For the attacker, main target and template name in the labels.

    Returns
    -------
    Drawing
        Title, actors, labels, legend and notes of the attack; no scenery or troopers.
    """
    affected = list(doc.get("affected", []))
    excluded = {e["id"]: e.get("reason", "") for e in doc.get("excluded", [])}
    outcome = doc.get("outcome", "?")
    reason = doc.get("reason")
    title = f"attack {doc.get('id', '?')}: {outcome}"
    if reason:
        title += f" ({str(reason).replace('_', ' ')})"
    d = Drawing(title=title)
    d.actors.extend(template_actors(volumes))
    ha, hl = highlight_actors(scene, affected, excluded)
    d.actors.extend(ha)
    d.labels.extend(hl)
    parts = []
    if attack_spec is not None:
        tname = attack_spec.template_name or attack_spec.template.get("shape", "template")
        parts.append(f"{tname}, {attack_spec.mode}, by {attack_spec.attacker}")
        if attack_spec.main_target:
            parts.append(f"main target {attack_spec.main_target}")
    d.subtitle = "; ".join(parts)
    d.notes.append("affected: " + (", ".join(affected) if affected else "none"))
    for tid, why in excluded.items():
        d.notes.append(f"not affected: {tid} ({str(why).replace('_', ' ')})")
    for tid, info in sorted((doc.get("troopers") or {}).items()):
        bits = [info.get("role", "")]
        if info.get("dodge"):
            bits.append(f"dodge {info['dodge']}")
        d.notes.append(f"  {tid}: " + ", ".join(b for b in bits if b))
    if "hits" in doc:
        d.notes.append(f"hits: {doc['hits']}")
    if volumes:
        d.add_legend("template volume", pal.TEMPLATE)
        d.add_legend("Blast Focus", pal.FOCUS, "disc")
    if affected:
        d.add_legend("affected", pal.AFFECTED, "ring")
    if any(why != "attacker" for why in excluded.values()):
        d.add_legend("not affected (reason given)", pal.EXCLUDED, "cross")
    return d


# --------------------------------------------------------------------------- rays
def _near_points(a, b, fractions=(0.95, 0.5, 0.08)) -> np.ndarray:
    """Points on ``a``'s mantle facing ``b``, at the given fractions of its height."""
    pa = np.array(a.position, dtype=float)
    pb = np.array(b.position, dtype=float)
    d = pb[:2] - pa[:2]
    n = float(np.hypot(*d))
    u = d / n if n > 1e-9 else np.array([1.0, 0.0])
    r = a.radius * 0.98
    return np.array([[pa[0] + r * u[0], pa[1] + r * u[1], pa[2] + f * a.height] for f in fractions])


def blocked_rays(scene, from_id: str, to_id: str):
    """A fan of rays from ``from_id``'s eye points to ``to_id``, each cut at its first hit.

    Three eye points (top, middle, low) on the side of the viewer facing the target, and
    three target points on the target's near side; the nine segments are cast against
    blocking scenery (``scene.engine.first_hit``) and against the other troopers'
    cylinders (markers and moving troopers excepted, as in the LoF rules).

    Returns
    -------
    origins : (k, 3) float, mm
    hits : (k, 3) float, mm
        First obstruction on each segment (the target point where it is clear).
    ends : (k, 3) float, mm
    blocked : (k,) bool
    """
    from geom3d.bodies import ray_cylinder_entry

    a, b = scene.trooper(from_id), scene.trooper(to_id)
    eyes = _near_points(a, b)
    targets = _near_points(b, a)
    o = np.repeat(eyes, len(targets), axis=0)
    e = np.tile(targets, (len(eyes), 1))
    length = np.linalg.norm(e - o, axis=1)
    dist, _ = scene.engine.first_hit(o, e)
    dist = np.where(np.isfinite(dist), dist, np.inf)
    t_hit = dist / np.where(length > 0, length, 1.0)
    for t in scene.troopers.values():
        if t.id in (a.id, b.id) or t.is_marker or t.is_moving:
            continue
        tt = ray_cylinder_entry(o, e - o, t.cylinder)
        t_hit = np.minimum(t_hit, np.where(tt <= 1.0, tt, np.inf))
    blocked = np.isfinite(t_hit) & (t_hit < 1.0)
    f = np.where(blocked, t_hit, 1.0)[:, None]
    hits = o + f * (e - o)
    return o, hits, e, blocked


def lof_pair_actors(scene, pair: dict, *, blocked_fan: bool = True) -> Drawing:
    """One Line of Fire (SPEC 6 pair dict): the witness ray, or a fan of blocked rays.

    A visible pair gets its deciding ray (eye point -> patch centre) as a thick line with
    balls at both ends. A pair that is not visible gets :func:`blocked_rays`: each ray in
    the contrasting colour up to its first obstruction (black ball), then faint to its
    end.
    """
    a, b = pair["from"], pair["to"]
    lof = bool(pair.get("lof"))
    reason = pair.get("reason")
    title = f"Line of Fire {a} -> {b}: " + ("yes" if lof else "no")
    if reason:
        title += f" ({str(reason).replace('_', ' ')})"
    d = Drawing(title=title)
    w = pair.get("witness") or {}
    vis = "yes" if pair.get("visible") else "no"
    arc = "yes" if pair.get("in_arc") else "no"
    d.subtitle = f"visible: {vis}, {b} in {a}'s front arc: {arc}"
    if "eye" in w and "patch_center" in w:
        eye = np.array(w["eye"], dtype=float)
        patch = np.array(w["patch_center"], dtype=float)
        d.actors.append(
            ActorSpec(
                f"witness:{a}:{b}",
                "rays",
                pv.merge([_segments(eye, patch), _spheres(np.vstack([eye, patch]), 1.6)]),
                pal.CLEAR_RAY,
                line_width=4.0,
                lighting=False,
                meta={"eye": eye.tolist(), "patch_center": patch.tolist()},
            )
        )
        d.add_legend("deciding ray (3x3 mm seen)", pal.CLEAR_RAY, "line")
        area = w.get("visible_area_mm2")
        viewer = w.get("viewer") or a
        if area is not None:
            d.notes.append(f"{viewer}'s eye sees {float(area):.0f} mm^2 of the other")
    elif blocked_fan:
        o, hits, e, blocked = blocked_rays(scene, a, b)
        parts = [_segments(o[blocked], hits[blocked])] if blocked.any() else []
        if parts:
            d.actors.append(
                ActorSpec(
                    f"blocked:{a}:{b}",
                    "rays",
                    pv.merge([*parts, _spheres(hits[blocked], 1.4)]),
                    pal.BLOCKED_RAY,
                    line_width=2.5,
                    lighting=False,
                )
            )
            d.add_legend("ray stopped by cover", pal.BLOCKED_RAY, "line")
        rest_o = np.where(blocked[:, None], hits, o)
        d.actors.append(
            ActorSpec(
                f"blocked:{a}:{b}:rest",
                "rays",
                _segments(rest_o, e),
                "#9A9A9A",
                0.8,
                line_width=1.0,
                lighting=False,
            )
        )
        d.notes.append(f"{int(blocked.sum())} of {len(blocked)} sample rays blocked")
        d.notes.append("(no eye point sees a 3x3 mm patch)")
    return d


def matrix_actors(scene, pairs: Sequence[dict], *, max_notes: int = 14) -> Drawing:
    """The LoF matrix summary: lines between troopers with LoF, and who sees whom.

    Both directions with LoF: a solid line; one direction only: a thinner line of
    another colour with an arrowhead at the target. Notes list, per trooper, the
    troopers it has LoF to.
    """
    lof = {(p["from"], p["to"]): bool(p.get("lof")) for p in pairs}
    d = Drawing(title="Line of Fire matrix")
    mutual_o, mutual_e, one_o, one_e, heads = [], [], [], [], []

    def mid(t):
        x, y, z = t.position
        return np.array([x, y, z + 0.6 * t.height])

    done = set()
    for a, b in lof:
        key = tuple(sorted((a, b)))
        if key in done or a not in scene.troopers or b not in scene.troopers:
            continue
        done.add(key)
        ab, ba = lof.get((a, b), False), lof.get((b, a), False)
        ta, tb = scene.troopers[a], scene.troopers[b]
        if ab and ba:
            mutual_o.append(mid(ta))
            mutual_e.append(mid(tb))
        elif ab or ba:
            src, dst = (ta, tb) if ab else (tb, ta)
            p0, p1 = mid(src), mid(dst)
            u = p1 - p0
            n = float(np.linalg.norm(u))
            if n < 1e-9:
                continue
            u /= n
            tip = p1 - u * dst.radius
            one_o.append(p0 + u * src.radius)
            one_e.append(tip)
            hl = min(12.0, 0.3 * n)
            heads.append(
                pv.Cone(
                    center=tuple(tip - u * hl / 2),
                    direction=tuple(u),
                    height=hl,
                    radius=hl / 3,
                    resolution=12,
                )
            )
    if mutual_o:
        d.actors.append(
            ActorSpec(
                "lof:mutual",
                "rays",
                _segments(mutual_o, mutual_e),
                pal.LOF_MUTUAL,
                line_width=3.0,
                lighting=False,
            )
        )
        d.add_legend("LoF both ways", pal.LOF_MUTUAL, "line")
    if one_o:
        mesh = pv.merge([_segments(one_o, one_e), *heads])
        d.actors.append(
            ActorSpec("lof:one-way", "rays", mesh, pal.LOF_ONE_WAY, line_width=2.0, lighting=False)
        )
        d.add_legend("LoF one way (arrow: target)", pal.LOF_ONE_WAY, "arrow")
    n_lof = sum(lof.values())
    d.subtitle = f"LoF in {n_lof} of {len(lof)} ordered pairs"
    d.notes.append("has LoF to:")
    ids = list(scene.troopers)
    for k, a in enumerate(ids):
        if k >= max_notes:
            d.notes.append(f"  ... {len(ids) - max_notes} more")
            break
        seen = [b for b in ids if lof.get((a, b))]
        d.notes.append(f"  {a}: " + (", ".join(seen) if seen else "-"))
    return d


# --------------------------------------------------------------------------- annotations
def nice_scale_length(approx_mm: float, units: str) -> tuple[float, str]:
    """A round scale-bar length in the scenario's units, at most ``approx_mm``.

    Returns
    -------
    length_mm : float
    label : str
        e.g. ``"10 cm"``, ``"6 in"``, ``"200 mm"``.
    """
    per = LENGTH_UNITS[units]
    target = max(approx_mm / per, 1e-9)
    steps = (1, 2, 3, 6, 12) if units == "in" else (1, 2, 5)
    best = None
    e = math.floor(math.log10(target))
    for exp in (e - 1, e, e + 1):
        for s in steps:
            v = s * 10.0**exp
            if v <= target * (1 + 1e-9) and (best is None or v > best):
                best = v
    if best is None:
        best = target
    text = f"{best:g} {units}"
    return best * per, text


def scale_bar_actors(
    bounds: np.ndarray, units: str, z: float | None = None
) -> tuple[list[ActorSpec], list[Label], np.ndarray]:
    """A two-tone scale bar under the front-left of ``bounds``, in the scenario's units.

    ``z`` is its height (default: just above the table top, or the bottom of
    ``bounds`` when that is higher). Returns the actors, its label and the bounds grown
    to include it.
    """
    lo, hi = np.asarray(bounds, dtype=float)
    width = float(hi[0] - lo[0])
    length, text = nice_scale_length(0.25 * width, units)
    th = max(2.0, 0.018 * width)
    x0, y1 = float(lo[0]), float(lo[1]) - 1.5 * th
    y0 = y1 - th
    z = (max(float(lo[2]), 0.0) + 0.3) if z is None else float(z)
    half = 0.5 * length
    black = _faces_mesh(
        [[x0, y0, z], [x0 + half, y0, z], [x0 + half, y1, z], [x0, y1, z]], [(0, 1, 2), (0, 2, 3)]
    )
    white = _faces_mesh(
        [[x0 + half, y0, z], [x0 + length, y0, z], [x0 + length, y1, z], [x0 + half, y1, z]],
        [(0, 1, 2), (0, 2, 3)],
    )
    outline = _polyline(
        [
            [x0, y0, z + 0.1],
            [x0 + length, y0, z + 0.1],
            [x0 + length, y1, z + 0.1],
            [x0, y1, z + 0.1],
        ],
        closed=True,
    )
    actors = [
        ActorSpec("scale-bar:dark", "annotations", black, pal.TEXT, lighting=False),
        ActorSpec("scale-bar:light", "annotations", white, pal.BACKGROUND, lighting=False),
        ActorSpec(
            "scale-bar:outline", "annotations", outline, pal.TEXT, line_width=1.5, lighting=False
        ),
    ]
    label = Label("annotations", (x0 + length + 0.5 * th, y0 + 0.5 * th, z), text)
    grown = np.array([lo, hi])
    grown[0, 1] = min(lo[1], y0 - th)
    return actors, [label], grown


def arc_boundary_actors(scene, tid: str, bounds: np.ndarray) -> list[ActorSpec]:
    """The 180° arc of ``tid`` drawn across the table: its boundary line and the rear half.

    The boundary is the vertical plane through the base centre perpendicular to the
    facing (SPEC 3.3). It is drawn where it meets the trooper's standing level, across
    the whole ``bounds``; the half-plane behind it is tinted.
    """
    t = scene.trooper(tid)
    lo, hi = np.asarray(bounds, dtype=float)
    span = float(np.linalg.norm(hi[:2] - lo[:2])) + 4 * t.radius
    f = math.radians(t.facing_deg)
    u = np.array([math.cos(f), math.sin(f), 0.0])
    p = np.array([-u[1], u[0], 0.0])
    c = np.array(t.position, dtype=float) + np.array([0, 0, 0.4])
    a0, a1 = c - span * p, c + span * p
    rear = _faces_mesh([a0, a1, a1 - span * u, a0 - span * u], [(0, 1, 2), (0, 2, 3)])
    return [
        ActorSpec(
            f"arc-edge:{tid}",
            "annotations",
            _segments(a0, a1),
            pal.ARC_EDGE,
            line_width=3.0,
            lighting=False,
        ),
        ActorSpec(f"arc-rear:{tid}", "annotations", rear, "#606060", 0.25, lighting=False),
    ]


# --------------------------------------------------------------------------- assembling
def content_bounds(
    scene, ids: Iterable[str] | None = None, extra: Sequence | None = None, margin: float = 0.0
) -> np.ndarray:
    """(2, 3) bounds of the table, scenery and troopers, or of chosen troopers and extras.

    Parameters
    ----------
    ids : iterable of str or None
        None: the whole scene (table extent, scenery, every trooper). Otherwise only these
        troopers (plus ``extra``).
    extra : sequence of (2, 3) arrays or (k, 3) point arrays
    margin : float, mm (x and y only)
    """
    boxes = []
    if ids is None:
        size = scene.scenario.table_size
        if size:
            boxes.append(np.array([[0.0, 0.0, 0.0], [size[0], size[1], 0.0]]))
        if scene.scenery.n_triangles:
            v = scene.scenery.vertices[np.unique(scene.scenery.faces)]
            boxes.append(np.array([v.min(axis=0), v.max(axis=0)]))
        ids = list(scene.troopers)
    for tid in ids:
        boxes.append(scene.trooper(tid).cylinder.bounds())
    for e in extra or ():
        arr = np.asarray(e, dtype=float).reshape(-1, 3)
        boxes.append(np.array([arr.min(axis=0), arr.max(axis=0)]))
    if not boxes:
        return np.array([[-100.0, -100.0, 0.0], [100.0, 100.0, 50.0]])
    lo = np.min([b[0] for b in boxes], axis=0)
    hi = np.max([b[1] for b in boxes], axis=0)
    lo[:2] -= margin
    hi[:2] += margin
    if hi[2] - lo[2] < 1.0:
        hi[2] = lo[2] + 1.0
    return np.array([lo, hi])


def parse_lof_arg(scene, lof: str) -> tuple[str, str]:
    """``"A:B"`` -> (A, B), both known trooper ids (InputError / UnknownIdError)."""
    if not isinstance(lof, str) or lof.count(":") != 1:
        raise InputError(f"--lof: expected A:B (two trooper ids), got {lof!r}")
    a, b = (s.strip() for s in lof.split(":"))
    if not a or not b:
        raise InputError(f"--lof: expected A:B (two trooper ids), got {lof!r}")
    if a == b:
        raise InputError(f"--lof: Line of Fire from {a!r} to itself")
    scene.trooper(a)
    scene.trooper(b)
    return a, b


def parse_view(scene, view: str) -> tuple[str, str | None]:
    """``top`` / ``iso`` / ``from:ID`` -> (kind, trooper id or None)."""
    if view in ("top", "iso"):
        return view, None
    if isinstance(view, str) and view.startswith("from:"):
        tid = view[5:].strip()
        if not tid:
            raise InputError("--view from:ID needs a trooper id, e.g. from:blue-1")
        scene.trooper(tid)
        return "from", tid
    raise InputError(f"--view: unknown view {view!r} (expected top, iso or from:ID)")


def _attack_spec(scene, attack_id: str):
    for a in scene.scenario.attacks:
        if a.id == attack_id:
            return a
    known = ", ".join(a.id for a in scene.scenario.attacks) or "none"
    raise UnknownIdError(f"unknown attack {attack_id!r} (known: {known})", file=scene.scenario.name)


class AttacksUnavailable(InputError):
    """The engine in this installation cannot resolve attacks (no ``geom3d.attacks``)."""


def resolve_attack_for_drawing(scene, attack_id: str) -> tuple[dict, list]:
    """Resolve an attack with the engine: its JSON dict and its template volumes.

    Uses ``result.volumes`` when the result has them, else rebuilds the volumes from the
    placements (:func:`volumes_from_placements`).
    """
    spec = _attack_spec(scene, attack_id)
    try:
        import geom3d.attacks  # noqa: F401
    except ImportError as exc:
        raise AttacksUnavailable(
            f"attack resolution is not available in this installation: {exc}"
        ) from None
    res = scene.resolve_attack(attack_id)
    doc = res.to_dict()
    volumes = getattr(res, "volumes", None)
    if volumes is None:
        volumes = volumes_from_placements(spec, doc.get("placements") or [])
    return doc, list(volumes)


def view_from_trooper(scene, tid: str) -> dict:
    """Camera hint of a ``from:ID`` view: eye height, facing, and standing point."""
    t = scene.trooper(tid)
    f = math.radians(t.facing_deg)
    return {
        "trooper": tid,
        "position": [float(v) for v in t.position],
        "facing": [math.cos(f), math.sin(f)],
        "eye_z": float(t.position[2] + 0.95 * t.height),
        "radius": float(t.radius),
        "height": float(t.height),
    }


def _merge_into(d: Drawing, part: Drawing) -> None:
    d.actors.extend(part.actors)
    d.labels.extend(part.labels)
    for e in part.legend:
        d.add_legend(e.label, e.color, e.face)
    d.notes.extend(part.notes)


def build_drawing(
    scene,
    *,
    view: str = "top",
    attack: str | None = None,
    lof: str | None = None,
    lof_doc: dict | None = None,
    attack_result: tuple[dict, list] | None = None,
) -> Drawing:
    """Everything a diagram shows (SPEC 6 ``geom3d render``), as a :class:`Drawing`.

    Parameters
    ----------
    scene : geom3d.Scene
    view : str
        ``top``, ``iso`` or ``from:ID``.
    attack : str or None
        Draw this attack (resolved with ``scene.resolve_attack``).
    lof : str or None
        ``"A:B"``: draw this Line of Fire.
    lof_doc : dict or None
        A ``geom3d lof`` JSON document already computed; used for the LoF matrix summary
        and ``from:`` views instead of recomputing.
    attack_result : (dict, volumes) or None
        An attack already resolved (skips ``scene.resolve_attack``).

    Raises
    ------
    InputError, UnknownIdError
        Unknown view, trooper or attack ids, both ``attack`` and ``lof``.
    """
    kind, eye_id = parse_view(scene, view)
    if attack is not None and lof is not None:
        raise InputError("give either --attack or --lof, not both")
    name = scene.scenario.name
    view_name = {"top": "plan view", "iso": "3D view", "from": f"view from {eye_id}"}[kind]
    focus_ids: list[str] | None = None
    extra: list = []
    part: Drawing
    suffix: dict[str, str] = {}
    if attack is not None:
        spec = _attack_spec(scene, attack)
        doc, volumes = (
            attack_result
            if attack_result is not None
            else resolve_attack_for_drawing(scene, attack)
        )
        part = attack_actors(scene, doc, volumes, spec)
        suffix[spec.attacker] = " (attacker)"
        if spec.main_target:
            suffix[spec.main_target] = suffix.get(spec.main_target, "") + " (main target)"
        for tid in doc.get("affected", []):
            suffix[tid] = suffix.get(tid, "") + ": hit"
        focus_ids = list(
            dict.fromkeys(
                [spec.attacker]
                + ([spec.main_target] if spec.main_target else [])
                + list(doc.get("affected", []))
                + [e["id"] for e in doc.get("excluded", [])]
            )
        )
        focus_ids = [t for t in focus_ids if t in scene.troopers]
        extra = [v.bounds() for v in volumes]
    elif lof is not None:
        a, b = parse_lof_arg(scene, lof)
        pair = _find_pair(lof_doc, a, b) if lof_doc else None
        if pair is None:
            pair = scene.line_of_fire(a, b).to_dict()
        part = lof_pair_actors(scene, pair)
        focus_ids = [a, b]
        extra = [np.asarray(act.mesh.points) for act in part.actors]
        if pair.get("reason") == "out_of_arc":
            part.notes.append(f"{b} is outside {a}'s front 180 deg arc")
    elif kind == "from":
        part = lof_from_trooper(scene, eye_id, lof_doc)
    else:
        pairs = lof_doc["pairs"] if lof_doc else [r.to_dict() for r in scene.lof_matrix()]
        part = matrix_actors(scene, pairs)
    title = (
        f"{name} - {view_name} - {part.title}"
        if kind != "from" or attack or lof
        else f"{name} - {view_name}"
    )
    d = Drawing(title=title, subtitle=part.subtitle)
    d.actors.extend(scenery_actors(scene))
    ta, tl = trooper_actors(scene, hidden=[eye_id] if eye_id else (), label_suffix=suffix)
    d.actors.extend(ta)
    d.labels.extend(tl)
    _merge_into(d, part)
    if focus_ids is not None and kind != "from":
        bounds = content_bounds(scene, focus_ids, extra, margin=FOCUS_MARGIN_MM)
    else:
        bounds = content_bounds(scene)
    if kind == "from":
        if not scene.trooper(eye_id).has_360:
            d.actors.extend(arc_boundary_actors(scene, eye_id, bounds))
            d.add_legend(f"{eye_id}'s arc edge (grey: behind)", pal.ARC_EDGE, "line")
        d.eye = view_from_trooper(scene, eye_id)
    # plan views put the bar above everything (its height does not show, its visibility
    # does); 3D views lay it on the table
    sb_z = float(bounds[1, 2]) + 1.0 if kind == "top" else None
    sb_actors, sb_labels, bounds = scale_bar_actors(bounds, scene.scenario.units, sb_z)
    d.actors.extend(sb_actors)
    d.labels.extend(sb_labels)
    d.bounds = bounds
    # sides and scenery first in the legend
    sides = _side_colors(scene)
    legend = [LegendEntry(f"side {s}", c, "rectangle") for s, c in sides.items()]
    if scene.scenery.n_triangles:
        blocking = _blocking_mask(scene)
        if blocking.any():
            legend.append(LegendEntry("scenery (darker: taller)", pal.SCENERY_RAMP[1]))
        if not blocking.all():
            legend.append(LegendEntry("scenery, no LoF block", pal.SCENERY_NONBLOCKING))
    d.legend = legend + d.legend
    d.subtitle = "; ".join(
        x
        for x in (d.subtitle, f"ruleset {scene.ruleset.name}, file units {scene.scenario.units}")
        if x
    )
    return d


def _find_pair(doc: dict, a: str, b: str) -> dict | None:
    for p in doc.get("pairs", []):
        if p.get("from") == a and p.get("to") == b:
            return p
    return None


def lof_from_trooper(scene, tid: str, lof_doc: dict | None = None) -> Drawing:
    """``tid``'s Line of Fire to every other trooper: witness rays and one note each.

    Used by ``from:ID`` views and by the interactive viewer when a trooper is picked.
    Pairs come from ``lof_doc`` when given, else from ``scene.line_of_fire``.
    """
    scene.trooper(tid)
    others = [o for o in scene.troopers if o != tid]
    pairs = []
    for o in others:
        p = _find_pair(lof_doc, tid, o) if lof_doc else None
        pairs.append(p if p is not None else scene.line_of_fire(tid, o).to_dict())
    d = Drawing(title=f"view from {tid}")
    seen = [p["to"] for p in pairs if p.get("lof")]
    d.subtitle = f"{tid} has LoF to {len(seen)} of {len(others)}"
    for p in pairs:
        if p.get("lof"):
            ray = lof_pair_actors(scene, p, blocked_fan=False)
            d.actors.extend(ray.actors)
            for e in ray.legend:
                d.add_legend(e.label, e.color, e.face)
        why = "LoF" if p.get("lof") else f"no LoF ({str(p.get('reason')).replace('_', ' ')})"
        d.notes.append(f"  {p['to']}: {why}")
    d.notes.insert(0, f"from {tid}:")
    return d
