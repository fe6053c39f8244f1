"""The side view (``side[:A:B]``): an orthographic elevation, heights to scale.

Across the line A-B (the camera looks horizontally, perpendicular to A-B, with A on the
left) only a section of the table is shown: a slab
:data:`~viewer.side.SIDE_SLAB_MARGIN_MM` beyond the larger base radius either side
of the vertical plane through A and B (:func:`section_filter`), so the scenery between
them is not hidden by scenery in front. Without A-B the camera looks along +y at the
whole table. Every trooper gets its silhouette outline (a rectangle facing the camera),
so a wall's top can be read against a trooper's head; the scale bar stands in the
picture's plane.
"""

from __future__ import annotations

import numpy as np

from . import palette as pal
from . import shapes as sh
from .layers.annotations import nice_scale_length
from .model import ActorSpec, Drawing, Label
from .views import VISIBLE_REGION, seen_samples
from .wording import length

#: Side view across A-B: half-thickness of the section shown beyond the larger base
#: radius, mm (nearer and farther scenery is clipped away).
SIDE_SLAB_MARGIN_MM: float = 25.0

__all__ = [
    "SEEN_REGION",
    "SIDE_PIECE_DEPTH",
    "section_filter",
    "side_direction",
    "side_part",
    "side_scale_bar",
]

#: Shading of the part of B that A's deciding eye sees (as in the eye view).
SEEN_REGION = VISIBLE_REGION
#: Side view across A-B: a scenery piece reaching into the section is drawn whole when
#: it is at most this many slab half-thicknesses deep along the line of sight (a wall, a
#: crate), else cut to the section (terrain).
SIDE_PIECE_DEPTH = 8.0


def side_direction(scene, a: str | None, b: str | None) -> np.ndarray:
    """(3,) float: the side view's viewing direction (camera -> scene), horizontal.

    Across A-B: A-B turned 90 degrees clockwise seen from above, so A is on the left and B
    on the right of the picture. Without A-B: +y.
    """
    if a is None or b is None:
        return np.array([0.0, 1.0, 0.0])
    pa = np.asarray(scene.trooper(a).position, dtype=float)
    pb = np.asarray(scene.trooper(b).position, dtype=float)
    d = pb[:2] - pa[:2]
    n = float(np.hypot(*d))
    x = d / n if n > 1e-9 else np.array([1.0, 0.0])
    return np.array([-x[1], x[0], 0.0])


def _outline_rect(t, direction: np.ndarray) -> np.ndarray:
    """(4, 3) float, mm: trooper ``t``'s silhouette outline seen along ``direction``.

    A rectangle ``2 r`` wide and ``h`` high, in the vertical plane through the axis facing
    the camera, moved just in front of the cylinder so the mantle never hides it.
    """
    right = np.cross(direction, [0.0, 0.0, 1.0])
    right /= np.linalg.norm(right)
    c = np.asarray(t.position, dtype=float) - direction * (t.radius + 0.5)
    r = right * t.radius
    lo, hi = c[2], c[2] + t.height
    return np.array([c - r, c + r, c + r + [0, 0, hi - lo], c - r + [0, 0, hi - lo]])


def side_part(scene, a: str | None, b: str | None) -> Drawing:
    """Silhouette outlines and the camera hints of a side view.

    Returns
    -------
    Drawing
        Outlines (``silhouettes`` layer), notes, and ``camera``: ``direction`` (3,),
        ``slab`` (None, or the half-thickness in mm of the section about the A-B plane),
        ``origin`` (3,) a point of that plane, ``fit`` (k, 3) points the camera must show.
    """
    direction = side_direction(scene, a, b)
    d = Drawing(title="side view" if a is None else f"side view across {a} - {b}")
    troopers = list(scene.troopers.values())
    slab = None
    origin = np.zeros(3)
    if a is not None:
        ta, tb = scene.trooper(a), scene.trooper(b)
        slab = max(ta.radius, tb.radius) + SIDE_SLAB_MARGIN_MM
        origin = np.asarray(ta.position, dtype=float)
        troopers = [
            t
            for t in troopers
            if abs(float((np.asarray(t.position) - origin) @ direction)) <= slab + t.radius
        ]
        d.notes.append(f"section {length(scene, 2 * slab, 0)} thick about the line {a} - {b}")
    for t in troopers:
        rect = _outline_rect(t, direction)
        d.actors.append(
            ActorSpec(
                f"side-outline:{t.id}",
                "silhouettes",
                sh.polyline(rect, closed=True),
                pal.TEXT,
                line_width=2.0,
                lighting=False,
                meta={"trooper": t.id},
            )
        )
        d.notes.append(
            f"{t.id}: {length(scene, t.height)} tall, base {length(scene, 2 * t.radius)}"
        )
    if a is not None:
        seen = _seen_part(scene, a, b, direction)
        if seen is not None:
            d.actors.append(seen)
            d.add_legend(f"{b} seen from {a}'s eye", SEEN_REGION)
    fit = [np.asarray(t.cylinder.bounds()) for t in troopers]
    if a is not None:
        fit.extend(_slab_scenery(scene, origin, direction, slab, a, b))
    d.camera = {
        "direction": direction.tolist(),
        "slab": slab,
        "origin": origin.tolist(),
        "fit": np.vstack(fit).tolist() if fit else None,
    }
    return d


def _seen_part(scene, a: str, b: str, direction: np.ndarray) -> ActorSpec | None:
    """B's part that A's deciding eye sees, as a side view can show it: the heights seen.

    A side view looks across A-B, so what A sees of B faces the picture's side; the
    figure shades the heights of B where some clear sample (a point of B the eye sees,
    :func:`viewer.views.seen_samples`) lies, across B's whole silhouette, just in front of
    its outline. None when the eye sees nothing of B.
    """
    *_, clear, pts, lat = seen_samples(scene, a, b)
    if not clear.any():
        return None
    tb = scene.trooper(b)
    right = np.cross(direction, [0.0, 0.0, 1.0])
    right /= np.linalg.norm(right)
    c = np.asarray(tb.position, dtype=float) - direction * (tb.radius + 0.8)
    h = 0.5 * lat.sample_mm
    z0, z1 = float(c[2]), float(c[2] + tb.height)
    bands: list[list[float]] = []
    for z in np.sort(pts[clear][:, 2]):  # the seen heights, as merged intervals
        lo, hi = max(z0, z - h), min(z1, z + h)
        if bands and lo <= bands[-1][1] + 1e-9:
            bands[-1][1] = max(bands[-1][1], hi)
        else:
            bands.append([lo, hi])
    verts, tris = [], []
    for lo, hi in bands:
        k = len(verts)
        for sr, z in ((-1, lo), (1, lo), (1, hi), (-1, hi)):
            p = c + sr * tb.radius * right
            verts.append([p[0], p[1], z])
        tris += [(k, k + 1, k + 2), (k, k + 2, k + 3)]
    return ActorSpec(
        f"side-seen:{a}:{b}",
        "rays",
        sh.faces_mesh(np.array(verts), np.array(tris)),
        SEEN_REGION,
        0.75,
        lighting=False,
        meta={"bands_mm": [[float(lo), float(hi)] for lo, hi in bands]},
    )


def side_scale_bar(camera: dict, bounds, units: str) -> tuple[list[ActorSpec], list[Label]]:
    """A two-tone scale bar standing in the picture plane of a side view, under the section.

    Its corners are added to ``camera["fit"]`` so the camera shows it.
    """
    fwd = np.asarray(camera["direction"], dtype=float)
    right = np.cross(fwd, [0.0, 0.0, 1.0])
    right /= np.linalg.norm(right)
    lo, hi = np.asarray(bounds, dtype=float)
    fit = camera.get("fit")
    pts = np.asarray(fit, dtype=float).reshape(-1, 3) if fit is not None else np.array([lo, hi])
    x = pts @ right
    width = max(float(x.max() - x.min()), 1.0)
    length, text = nice_scale_length(0.25 * width, units)
    th = max(1.5, 0.02 * width)
    z1 = float(pts[:, 2].min()) - 1.5 * th
    z0 = z1 - th
    origin = np.asarray(camera.get("origin", (0.0, 0.0, 0.0)), dtype=float)
    base = origin - (origin @ right) * right + float(x.min()) * right
    base = base - fwd * (0.5 * float(camera.get("slab") or 0.0))
    base[2] = 0.0

    def quad(a0, a1):
        p0, p1 = base + a0 * right, base + a1 * right
        return sh.faces_mesh(
            [p0 + [0, 0, z0], p1 + [0, 0, z0], p1 + [0, 0, z1], p0 + [0, 0, z1]],
            [(0, 1, 2), (0, 2, 3)],
        )

    half = 0.5 * length
    edge = base - fwd * 0.2
    outline = sh.polyline(
        [
            edge + [0, 0, z0],
            edge + length * right + [0, 0, z0],
            edge + length * right + [0, 0, z1],
            edge + [0, 0, z1],
        ],
        closed=True,
    )
    actors = [
        ActorSpec("scale-bar:dark", "annotations", quad(0.0, half), pal.TEXT, lighting=False),
        ActorSpec(
            "scale-bar:light", "annotations", quad(half, length), pal.BACKGROUND, lighting=False
        ),
        ActorSpec(
            "scale-bar:outline", "annotations", outline, pal.TEXT, line_width=1.5, lighting=False
        ),
    ]
    anchor = base + (length + 0.5 * th) * right + [0, 0, 0.5 * (z0 + z1)]
    corners = np.array([base + [0, 0, z0], base + (length + 8 * th) * right + [0, 0, z0]])
    camera["fit"] = np.vstack([pts, corners]).tolist()
    return actors, [Label("annotations", tuple(float(v) for v in anchor), text)]


def _cell_ids(mesh) -> list[np.ndarray]:
    """The point ids of every cell of a PolyData (verts, lines, polys: VTK's cell order)."""
    out: list[np.ndarray] = []
    for arr in (mesh.verts, mesh.lines, mesh.faces):
        a = np.asarray(arr, dtype=np.int64)
        if not len(a):
            continue
        n = int(a[0])
        if len(a) % (n + 1) == 0 and (a[:: n + 1] == n).all():  # all cells of n points
            out.extend(a.reshape(-1, n + 1)[:, 1:])
            continue
        i = 0
        while i < len(a):  # mixed sizes: count, ids, count, ids, ...
            k = int(a[i])
            out.append(a[i + 1 : i + 1 + k])
            i += k + 1
    return out


def _pieces(mesh, cells: list[np.ndarray]) -> np.ndarray:
    """(n_cells,) int: the connected piece (cells sharing points) each cell belongs to."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    n = mesh.n_points
    rows = np.concatenate([c[:-1] for c in cells if len(c) > 1] or [np.zeros(0, np.int64)])
    cols = np.concatenate([c[1:] for c in cells if len(c) > 1] or [np.zeros(0, np.int64)])
    graph = coo_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, n))
    _, label = connected_components(graph, directed=False)
    return label[np.array([c[0] for c in cells], dtype=np.int64)]


def section_filter(drawing: Drawing, scene) -> None:
    """Keep only the section of a side view across A-B (in place).

    The section is the slab ``camera["slab"]`` mm either side of the vertical plane
    through ``camera["origin"]`` (the line A-B). Troopers outside it (silhouettes,
    labels) are removed. A scenery piece (connected cells) that reaches into the slab is
    kept whole when it is no deeper than :data:`SIDE_PIECE_DEPTH` slabs (a wall crossing
    the line shows its face, not a cut), else only its cells that reach into the slab are
    kept (terrain: its profile along the line); pieces outside the slab are removed. So
    nothing in front hides the section and nothing behind clutters it.
    """
    cam = drawing.camera
    slab = cam.get("slab")
    if slab is None:
        return
    fwd = np.asarray(cam["direction"], dtype=float)
    d0 = float(np.asarray(cam["origin"], dtype=float) @ fwd)
    inside = {
        t.id
        for t in scene.troopers.values()
        if abs(float(np.asarray(t.position) @ fwd) - d0) <= slab + t.radius
    }
    keep = []
    for a in drawing.actors:
        tid = a.meta.get("trooper")
        if tid is not None and tid not in inside:
            continue
        if a.layer == "scenery" and not a.name.startswith("table") and a.mesh.n_cells:
            cells = _cell_ids(a.mesh)
            depth = np.asarray(a.mesh.points, dtype=float) @ fwd - d0
            lo = np.array([depth[c].min() for c in cells])
            hi = np.array([depth[c].max() for c in cells])
            cut = (hi >= -slab) & (lo <= slab)
            piece = _pieces(a.mesh, cells)
            n = piece.max() + 1
            p_lo = np.full(n, np.inf)
            p_hi = np.full(n, -np.inf)
            np.minimum.at(p_lo, piece, lo)
            np.maximum.at(p_hi, piece, hi)
            p_cut = np.zeros(n, dtype=bool)
            p_cut[piece[cut]] = True
            whole = p_cut & (p_hi - p_lo <= SIDE_PIECE_DEPTH * slab)
            out = ~(whole[piece] | cut)
            if out.all():
                continue
            if out.any():
                a.mesh = a.mesh.remove_cells(np.flatnonzero(out), inplace=False)
        keep.append(a)
    drawing.actors = keep
    drawing.labels = [
        lab for lab in drawing.labels if abs(float(np.asarray(lab.point) @ fwd) - d0) <= 2 * slab
    ]


def _slab_scenery(scene, origin, direction, slab, a, b) -> list:
    """Scenery vertices inside the slab and between A and B (their heights must show)."""
    mesh = scene.scenery
    if not mesh.n_triangles:
        return []
    v = mesh.vertices[np.unique(mesh.faces)]
    across = (v - origin) @ direction
    along_dir = np.cross([0.0, 0.0, 1.0], direction)
    pa = np.asarray(scene.trooper(a).position, dtype=float)
    pb = np.asarray(scene.trooper(b).position, dtype=float)
    s = (v - pa) @ along_dir
    sb = float((pb - pa) @ along_dir)
    pad = max(scene.trooper(a).radius, scene.trooper(b).radius)
    keep = (np.abs(across) <= slab) & (s >= min(0.0, sb) - pad) & (s <= max(0.0, sb) + pad)
    return [v[keep]] if keep.any() else []
