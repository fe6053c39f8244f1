"""Side and eye views as 2D drawings: actors projected through the view's camera.

An orthographic section (``side``) and a perspective from an eye point (``eye``) are
flat pictures; this module turns the :class:`~viewer.model.Drawing`'s meshes into 2D
polygons and polylines for :mod:`viewer.figure2d`, which draws them with matplotlib
(true vector SVG and PDF, and the PNG rasterised from the same figure).

Hidden surfaces: the painter's algorithm. Triangles are split until no edge is longer than
a fraction of the view's span (so a long wall face is not sorted as one far or near
piece), clipped against the near plane of a perspective view, flat shaded like the 3D
renderer (ambient + diffuse, lit along the view axis) and drawn far to near. Line cells
are sorted with the faces segment by segment, except the ``rays`` layer and lines marked
``on_top`` (the deciding ray and patch, a hidden target's dashed outline), drawn over
every face: in a figure about a line of sight the line is the subject, and a hidden
target's outline shows where it stands.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import palette as pal
from .plotter import AMBIENT, DIFFUSE
from .vector import cells

__all__ = ["EYE_CONTEXT", "Face", "Polyline", "ViewBasis", "project_drawing", "view_basis"]

#: Least margin of a side view's fitted part on each axis, as a fraction of its larger
#: extent.
SIDE_MIN_PAD = 0.02
#: An eye view shows this many times the target's apparent size (as the 3D eye camera).
EYE_CONTEXT = 2.2
#: Triangles are split until no edge is longer than this fraction of the view's span.
_SPLIT_FRACTION = 0.08
#: At most this many splitting rounds (each quarters a triangle).
_SPLIT_ROUNDS = 4


@dataclass
class ViewBasis:
    """A camera as four world -> view rows: ``u = U.p / W.p``, ``v = V.p / W.p``.

    Attributes
    ----------
    rows : (4, 4) float
        Homogeneous rows U (right), V (up), D (depth along the view, mm) and W (1 for an
        orthographic view; the depth for a perspective one).
    perspective : bool
    eye : (3,) float, mm
        The eye (perspective), or a point far behind the picture (orthographic).
    forward : (3,) float
        Unit viewing direction.
    near : float, mm
        Depth below which a perspective view clips.
    fit : (2, 2) float
        ``[[u0, v0], [u1, v1]]``: the part of the view plane the picture must show.
    span : float, mm
        The size of the subject: the fitted width (orthographic) or the distance from the
        eye to the target (perspective); scenery triangles are split relative to it.
    """

    rows: np.ndarray
    perspective: bool
    eye: np.ndarray
    forward: np.ndarray
    near: float
    fit: np.ndarray
    span: float

    def project(self, points) -> tuple[np.ndarray, np.ndarray]:
        """(n, 3) mm -> (n, 2) view coordinates and (n,) depth (mm along the view)."""
        p = np.asarray(points, dtype=float).reshape(-1, 3)
        h = np.column_stack([p, np.ones(len(p))]) @ self.rows.T
        with np.errstate(divide="ignore", invalid="ignore"):
            uv = h[:, :2] / h[:, 3:4]
        return uv, h[:, 2]


def _frame(forward) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    fwd = np.asarray(forward, dtype=float)
    fwd = fwd / np.linalg.norm(fwd)
    right = np.cross(fwd, [0.0, 0.0, 1.0])
    if np.linalg.norm(right) < 1e-9:
        right = np.array([1.0, 0.0, 0.0])
    right /= np.linalg.norm(right)
    return fwd, right, np.cross(right, fwd)


def _direction(azimuth_deg: float, elevation_deg: float) -> np.ndarray:
    a, e = np.radians(azimuth_deg), np.radians(elevation_deg)
    return np.array([np.cos(e) * np.cos(a), np.cos(e) * np.sin(a), np.sin(e)])


def view_basis(drawing) -> ViewBasis:
    """The camera of a ``side`` or ``eye`` drawing (its ``camera`` hints and options).

    ``zoom`` shrinks the fitted part of the view plane about its centre (the subject);
    ``azimuth`` / ``elevation`` turn a side view's camera.
    """
    opts = drawing.camera
    zoom = float(opts.get("zoom") or 1.0)
    if drawing.view == "eye":
        eye = np.asarray(opts["eye"], dtype=float)
        target = np.asarray(opts["target"], dtype=float)
        level = target - eye
        if np.linalg.norm(level[:2]) > 1e-9:  # a level camera: verticals stay vertical
            level[2] = 0.0
        fwd, right, up = _frame(level)
        rows = np.array(
            [
                [*right, -right @ eye],
                [*up, -up @ eye],
                [*fwd, -fwd @ eye],
                [*fwd, -fwd @ eye],
            ]
        )
        dist = float(np.linalg.norm(np.asarray(opts["target"], dtype=float) - eye))
        half = np.radians(min(60.0, EYE_CONTEXT * float(opts.get("half_angle_deg", 10.0))))
        t = np.tan(half) / zoom
        # framed on the target, which a level camera may see above or below its centre
        rel = target - eye
        c = np.array([right @ rel, up @ rel]) / max(float(fwd @ rel), 1e-9)
        fit = np.array([c - t, c + t])
        return ViewBasis(rows, True, eye, fwd, max(0.5, 0.01 * dist), fit, dist)
    fwd = np.asarray(opts.get("direction", (0.0, 1.0, 0.0)), dtype=float)
    if "azimuth" in opts or "elevation" in opts:
        az0 = np.degrees(np.arctan2(-fwd[1], -fwd[0]))
        fwd = -_direction(opts.get("azimuth", az0), opts.get("elevation", 0.0))
    fwd, right, up = _frame(fwd)
    lo, hi = np.asarray(drawing.bounds, dtype=float)
    pts = opts.get("fit")
    pts = (
        np.asarray(pts, dtype=float).reshape(-1, 3)
        if pts is not None
        else np.array(
            [[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])]
        )
    )
    span = float(np.linalg.norm(hi - lo)) + 1000.0
    centre = 0.5 * (lo + hi)
    eye = centre - fwd * span
    rows = np.array([[*right, 0.0], [*up, 0.0], [*fwd, -fwd @ eye], [0.0, 0.0, 0.0, 1.0]])
    uv = np.column_stack([pts @ right, pts @ up])
    f0, f1 = uv.min(axis=0), uv.max(axis=0)
    for a in drawing.actors:  # drawn scenery between the ends shows whole in height
        if a.layer == "scenery" and a.mesh.n_points and not a.name.startswith("table"):
            q = np.asarray(a.mesh.points, dtype=float)
            qu, qv = q @ right, q @ up
            inside = (qu >= f0[0]) & (qu <= f1[0])
            if inside.any():
                f0[1] = min(f0[1], float(qv[inside].min()))
                f1[1] = max(f1[1], float(qv[inside].max()))
    # a margin on each axis from its own extent, at least SIDE_MIN_PAD of the larger one
    # (room for labels; a long, flat section gets no tall empty band over it)
    ext = f1 - f0
    pad = np.maximum(0.04 * ext, SIDE_MIN_PAD * max(float(ext.max()), 1.0))
    c, half = 0.5 * (f0 + f1), 0.5 * ext + pad
    fit = np.array([c - half / zoom, c + half / zoom])
    return ViewBasis(rows, False, eye, fwd, 0.0, fit, float((fit[1] - fit[0]).max()))


@dataclass
class Face:
    """A projected triangle (or a near-clipped polygon) of one actor."""

    actor: int
    uv: np.ndarray  # (k, 2)
    depth: float
    rgba: tuple


@dataclass
class Polyline:
    """A projected piece of a line cell of one actor (``depth``: its mean, mm)."""

    actor: int
    uv: np.ndarray  # (k, 2)
    depth: float = 0.0


def _triangles(mesh) -> np.ndarray:
    """(m, 3) int: the mesh's polygons fan-split into triangles."""
    faces = np.asarray(mesh.faces, dtype=np.int64)
    if not len(faces):
        return np.zeros((0, 3), np.int64)
    if len(faces) % 4 == 0 and (faces[::4] == 3).all():
        return faces.reshape(-1, 4)[:, 1:]
    out = []
    for idx in cells(faces):
        for k in range(1, len(idx) - 1):
            out.append((idx[0], idx[k], idx[k + 1]))
    return np.asarray(out, dtype=np.int64).reshape(-1, 3)


def _split(tri: np.ndarray, col: np.ndarray, longest: float):
    """Quarter the triangles ((m, 3, 3) mm) whose longest edge exceeds ``longest``."""
    for _ in range(_SPLIT_ROUNDS):
        e = np.linalg.norm(tri - np.roll(tri, 1, axis=1), axis=2).max(axis=1)
        big = e > longest
        if not big.any():
            break
        t = tri[big]
        a, b, c = t[:, 0], t[:, 1], t[:, 2]
        ab, bc, ca = 0.5 * (a + b), 0.5 * (b + c), 0.5 * (c + a)
        new = np.concatenate(
            [np.stack(q, axis=1) for q in ((a, ab, ca), (ab, b, bc), (ca, bc, c), (ab, bc, ca))]
        )
        tri = np.concatenate([tri[~big], new])
        col = np.concatenate([col[~big], np.tile(col[big], (4, 1))])
    return tri, col


def _clip_near(poly: np.ndarray, depth: np.ndarray, near: float) -> np.ndarray:
    """The part of a convex polygon ((k, 3) mm) at depth >= ``near`` (Sutherland-Hodgman)."""
    out = []
    k = len(poly)
    for i in range(k):
        p, q = poly[i], poly[(i + 1) % k]
        dp, dq = depth[i], depth[(i + 1) % k]
        if dp >= near:
            out.append(p)
        if (dp >= near) != (dq >= near):
            out.append(p + (q - p) * (near - dp) / (dq - dp))
    return np.asarray(out).reshape(-1, 3)


def _colors(a, tri_idx: np.ndarray) -> np.ndarray:
    """(m, 3) float 0..1: the actor's colour per triangle (point RGB averaged)."""
    if a.rgb is not None and a.rgb in a.mesh.point_data:
        # the darkest corner: a height ramp (darker: taller) gives each face its top's
        # colour, so a wall's face is one colour (PolyCollections have no gradients)
        rgb = np.asarray(a.mesh.point_data[a.rgb], dtype=float)[:, :3] / 255.0
        tri = rgb[tri_idx]
        pick = tri.sum(axis=2).argmin(axis=1)
        return tri[np.arange(len(tri)), pick]
    return np.tile(np.array(pal.rgb255(a.color or pal.SCENERY_EDGE), dtype=float) / 255.0,
                   (len(tri_idx), 1))  # fmt: skip


def on_top(actor) -> bool:
    """Lines drawn over every face: rays, and outlines marked ``meta["on_top"]``."""
    return actor.layer == "rays" or bool(actor.meta.get("on_top"))


def project_drawing(drawing, basis: ViewBasis) -> tuple[list, list[Polyline]]:
    """Every actor's faces and line segments sorted far to near, and the lines on top.

    Returns
    -------
    items : list of Face and Polyline
        Far to near (the painter's order); a line cell is cut into its segments, each
        sorted by its mean depth, so an outline behind a wall stays behind it.
    overlay : list of Polyline
        Line cells of :func:`on_top` actors, in drawing order.

    Faces wholly outside the fitted view (all corners beyond one side of three times its
    box) are left out; so are those behind a perspective camera.
    """
    f0, f1 = basis.fit
    c, half = 0.5 * (f0 + f1), (f1 - f0)  # keep a generous border (labels, wide frames)
    lo_uv, hi_uv = c - 1.5 * half, c + 1.5 * half
    longest = _SPLIT_FRACTION * max(1.0, basis.span)
    faces: list = []
    lines: list[Polyline] = []
    for i, a in enumerate(drawing.actors):
        pts = np.asarray(a.mesh.points, dtype=float)
        if not len(pts):
            continue
        tri_idx = _triangles(a.mesh)
        if len(tri_idx):
            tri = pts[tri_idx]
            col = _colors(a, tri_idx)
            if a.layer == "scenery":
                tri, col = _split(tri, col, longest)
            faces.extend(_project_faces(i, a, tri, col, basis, lo_uv, hi_uv))
        for idx in cells(a.mesh.lines):
            if len(idx) < 2:
                continue
            seg = pts[idx]
            pieces = _clip_polyline(seg, basis) if basis.perspective else [basis.project(seg)]
            for uv, depth in pieces:
                if on_top(a):
                    lines.append(Polyline(i, uv))
                    continue
                for j in range(len(uv) - 1):
                    faces.append(Polyline(i, uv[j : j + 2], float(0.5 * (depth[j] + depth[j + 1]))))
    faces.sort(key=lambda f: -f.depth)
    return faces, lines


def _project_faces(i, a, tri, col, basis: ViewBasis, lo_uv, hi_uv) -> list[Face]:
    n = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    nn = np.linalg.norm(n, axis=1)
    ok = nn > 1e-12
    tri, col, n, nn = tri[ok], col[ok], n[ok], nn[ok]
    n = n / nn[:, None]
    cen = tri.mean(axis=1)
    dist = basis.project(cen)[1]  # depth along the view, like the line segments'
    # lit along the view axis: a flat face is one shade (split faces show no bands)
    view = np.broadcast_to(basis.forward, cen.shape)
    if a.lighting:
        shade = np.clip(AMBIENT + DIFFUSE * np.abs(np.einsum("ij,ij->i", n, view)), 0.0, 1.0)
        col = np.clip(col * shade[:, None], 0.0, 1.0)
    flat = tri.reshape(-1, 3)
    uv, depth = basis.project(flat)
    uv = uv.reshape(-1, 3, 2)
    depth = depth.reshape(-1, 3)
    alpha = float(a.opacity)
    whole = np.ones(len(tri), dtype=bool)
    if basis.perspective:
        whole = depth.min(axis=1) >= basis.near
    with np.errstate(invalid="ignore"):
        outside = ((uv.max(axis=1) < lo_uv) | (uv.min(axis=1) > hi_uv)).any(axis=1)
    keep = whole & ~outside
    out = [Face(i, uv[k], float(dist[k]), (*col[k], alpha)) for k in np.flatnonzero(keep)]
    for k in np.flatnonzero(~whole):  # a perspective view's near plane cuts these
        d = depth[k]
        if d.max() < basis.near:
            continue
        poly = _clip_near(tri[k], d, basis.near)
        if len(poly) < 3:
            continue
        puv = basis.project(poly)[0]
        if (puv.max(axis=0) < lo_uv).any() or (puv.min(axis=0) > hi_uv).any():
            continue
        out.append(Face(i, puv, float(dist[k]), (*col[k], alpha)))
    return out


def _clip_polyline(seg: np.ndarray, basis: ViewBasis) -> list[np.ndarray]:
    """A polyline's pieces in front of the near plane, projected: (uv, depth) each."""
    _, depth = basis.project(seg)
    near = basis.near
    pieces, cur = [], []
    for j in range(len(seg) - 1):
        p, q, dp, dq = seg[j], seg[j + 1], depth[j], depth[j + 1]
        if dp < near and dq < near:
            continue
        a = p if dp >= near else p + (q - p) * (near - dp) / (dq - dp)
        b = q if dq >= near else p + (q - p) * (near - dp) / (dq - dp)
        if not cur or dp < near:
            if len(cur) > 1:
                pieces.append(np.array(cur))
            cur = [a]
        cur.append(b)
        if dq < near:
            pieces.append(np.array(cur))
            cur = []
    if len(cur) > 1:
        pieces.append(np.array(cur))
    return [basis.project(pc) for pc in pieces]
