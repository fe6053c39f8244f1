"""The ``annotations`` layer: the scale bar and the arc boundary of a ``from:`` view."""

from __future__ import annotations

import math

import numpy as np

from geom3d.core.errors import InputError
from geom3d.core.units import LENGTH_UNITS
from viewer import palette as pal
from viewer import shapes as sh
from viewer.model import ActorSpec, Label
from viewer.wording import has_blast_focus, length, length_unit, number

#: Viewer (diagram scale bar): relative slack when a round length is compared with the
#: length it must not exceed, and the smallest length (file units) it looks for.
SCALE_BAR_REL_EPS: float = 1e-9

__all__ = [
    "ANNOTATIONS",
    "arc_boundary_actors",
    "distance_annotations",
    "nice_scale_length",
    "parse_annotate",
    "scale_bar_actors",
    "scenery_height_labels",
    "template_dimensions",
    "template_labels",
]

#: What ``--annotate`` may ask for.
ANNOTATIONS: tuple[str, ...] = ("heights", "distances", "templates")


def parse_annotate(value) -> tuple[str, ...]:
    """``"heights,distances"`` (or a sequence) -> checked names, in :data:`ANNOTATIONS` order.

    Raises
    ------
    geom3d.core.errors.InputError
        An unknown name.
    """
    if value is None:
        return ()
    items = value.split(",") if isinstance(value, str) else list(value)
    names = {str(x).strip() for x in items if str(x).strip()}
    bad = sorted(names - set(ANNOTATIONS))
    if bad:
        raise InputError(
            f"--annotate: unknown {', '.join(map(repr, bad))} (expected {', '.join(ANNOTATIONS)})"
        )
    return tuple(a for a in ANNOTATIONS if a in names)


def scenery_height_labels(scene, bounds) -> list[Label]:
    """One label per scenery piece inside ``bounds``: its id and top height (mm).

    Anchored at the piece's highest point; the table mesh (terrain) is left out (its
    contours give its heights).
    """
    mesh = scene.scenery
    if mesh.n_triangles == 0:
        return []
    lo, hi = np.asarray(bounds, dtype=float)
    out = []
    for e in np.unique(mesh.element):
        name = mesh.names[int(e)]
        if name == "table" and scene.scenario.table_mesh is not None:
            continue
        v = mesh.vertices[np.unique(mesh.faces[mesh.element == e])]
        vmin, vmax = v.min(axis=0), v.max(axis=0)
        if vmax[0] < lo[0] or vmin[0] > hi[0] or vmax[1] < lo[1] or vmin[1] > hi[1]:
            continue
        top = v[v[:, 2] >= vmax[2] - 1e-6]
        x, y = top[:, :2].mean(axis=0)
        x, y = float(np.clip(x, lo[0], hi[0])), float(np.clip(y, lo[1], hi[1]))
        # anchored just above the top, so the piece itself does not hide its label
        z = float(vmax[2]) + 0.5
        out.append(
            Label("annotations", (x, y, z), f"{name}: {length(scene, vmax[2], strip=False)} high")
        )
    return out


def distance_annotations(scene, a: str, b: str, pair: dict | None = None):
    """Distances of the Line of Fire ``a -> b``: notes, and a label on the deciding ray.

    Returns
    -------
    labels : list of Label
    notes : list of str
        Centre-to-centre and base-to-base distances in plan, and the length of the
        deciding ray (eye point -> patch centre) when there is one.
    """
    ta, tb = scene.trooper(a), scene.trooper(b)
    pa, pb = np.asarray(ta.position, dtype=float), np.asarray(tb.position, dtype=float)
    cc = float(np.hypot(*(pb[:2] - pa[:2])))
    edge = max(0.0, cc - ta.radius - tb.radius)
    cc_t, edge_t = length(scene, cc, strip=False), length(scene, edge, strip=False)
    notes = [f"{a} - {b}: {cc_t} centre to centre, {edge_t} base to base"]
    labels = []
    w = (pair or {}).get("witness") or {}
    if "eye" in w and "patch_center" in w:
        eye, patch = np.asarray(w["eye"], float), np.asarray(w["patch_center"], float)
        n = float(np.linalg.norm(patch - eye))
        lo_hi = (length(scene, eye[2], strip=False), length(scene, patch[2], strip=False))
        notes.append(
            f"deciding ray {a} -> {b}: {length(scene, n, strip=False)}, "
            f"from {lo_hi[0]} high to {lo_hi[1]} high"
        )
        mid = 0.5 * (eye + patch)
        labels.append(
            Label("annotations", tuple(float(v) for v in mid), length(scene, n, strip=False))
        )
    else:
        mid = 0.5 * (pa + pb)
        mid[2] = max(pa[2] + ta.height, pb[2] + tb.height) * 0.5
        labels.append(
            Label("annotations", tuple(float(v) for v in mid), length(scene, edge, strip=False))
        )
    return labels, notes


def template_dimensions(volume, name: str | None = None, scene=None) -> str:
    """``"large_teardrop: teardrop 203.2 x 63.5 mm (length x width), 31.75 mm high"``.

    With ``scene``: lengths in the file's units, and no height in 40k (its templates are
    read in plan only).
    """
    shape = volume.shape

    def num(mm):
        return f"{mm:g}" if scene is None else number(scene, mm, 2)

    unit = "mm" if scene is None else length_unit(scene)
    if shape.kind == "teardrop":
        dims = f"teardrop {num(shape.length)} x {num(shape.width)} {unit} (length x width)"
        if shape.narrow_width:
            dims += f", narrow end {num(shape.narrow_width)} {unit}"
    else:
        dims = f"circle {num(shape.diameter)} {unit} across"
    if scene is None or has_blast_focus(scene):
        dims += f", {num(volume.height)} {unit} high"
    return f"{name}: {dims}" if name else dims


def template_labels(volumes, name: str | None = None, scene=None) -> list[Label]:
    """A dimension label at the far end of each template (its axis end, on the table)."""
    out = []
    for vol in volumes:
        ring = vol.shape.boundary(72)
        far = ring[int(np.argmax(ring[:, 0]))] if len(ring) else np.zeros(2)
        p = vol.to_world(np.array([[far[0], far[1], vol.height]]))[0]
        text = template_dimensions(vol, name, scene)
        out.append(Label("annotations", tuple(float(v) for v in p), text))
    return out


def nice_scale_length(approx_mm: float, units: str) -> tuple[float, str]:
    """A round scale-bar length in the scenario's units, at most ``approx_mm``.

    Returns
    -------
    length_mm : float
    label : str
        e.g. ``"10 cm"``, ``"6 in"``, ``"200 mm"``.
    """
    per = LENGTH_UNITS[units]
    target = max(approx_mm / per, SCALE_BAR_REL_EPS)
    steps = (1, 2, 3, 6, 12) if units == "in" else (1, 2, 5)
    best = None
    e = math.floor(math.log10(target))
    for exp in (e - 1, e, e + 1):
        for s in steps:
            v = s * 10.0**exp
            if v <= target * (1 + SCALE_BAR_REL_EPS) and (best is None or v > best):
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
    black = sh.faces_mesh(
        [[x0, y0, z], [x0 + half, y0, z], [x0 + half, y1, z], [x0, y1, z]], [(0, 1, 2), (0, 2, 3)]
    )
    white = sh.faces_mesh(
        [[x0 + half, y0, z], [x0 + length, y0, z], [x0 + length, y1, z], [x0 + half, y1, z]],
        [(0, 1, 2), (0, 2, 3)],
    )
    outline = sh.polyline(
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
    rear = sh.faces_mesh([a0, a1, a1 - span * u, a0 - span * u], [(0, 1, 2), (0, 2, 3)])
    return [
        ActorSpec(
            f"arc-edge:{tid}",
            "annotations",
            sh.segments(a0, a1),
            pal.ARC_EDGE,
            line_width=3.0,
            lighting=False,
        ),
        ActorSpec(f"arc-rear:{tid}", "annotations", rear, "#606060", 0.25, lighting=False),
    ]
