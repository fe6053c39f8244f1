"""Headless diagrams: a :class:`~viewer.actors.Drawing` rendered off-screen to PNG or SVG.

Off-screen rendering needs no display and no GPU. VTK 9.4+ wheels choose their OpenGL
window at run time; on Linux without ``$DISPLAY`` (or ``$WAYLAND_DISPLAY``) this module
asks for the EGL window (``VTK_DEFAULT_OPENGL_WINDOW=vtkEGLRenderWindow``, unless the
variable is already set), which renders through Mesa's llvmpipe software rasteriser.
System packages needed on Debian/Ubuntu: ``libegl1 libegl-mesa0 libgl1-mesa-dri``
(see ``.ci/viewer-offscreen.md``).

Cameras are fixed by the scene (no interaction, no timestamps), so the same input gives
the same pixels on the same machine and Mesa version: the PNG bytes are identical
(PIL writes no time chunk). Across Mesa versions anti-aliased edges may differ slightly.

SVG output uses VTK's GL2PS exporter (``plotter.save_graphic``), which works
off-screen: 2D overlays (title, notes, labels, legend text) become SVG ``<text>``
elements, while the 3D geometry is embedded as one raster ``<image>`` (the OpenGL2
backend of VTK rasterises 3D props; it cannot write them as vector paths). The
exporter's ``CreationDate`` line is removed so the SVG is deterministic too.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path


def _prefer_egl() -> None:
    """Ask VTK for its EGL window when there is no display (read when a window is made)."""
    if sys.platform.startswith("linux") and not (
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    ):
        os.environ.setdefault("VTK_DEFAULT_OPENGL_WINDOW", "vtkEGLRenderWindow")


_prefer_egl()

import numpy as np  # noqa: E402
import pyvista as pv  # noqa: E402

from geom3d.errors import InputError  # noqa: E402

from . import palette as pal  # noqa: E402
from .actors import AttacksUnavailable, Drawing, build_drawing  # noqa: E402

__all__ = [
    "FORMATS",
    "RenderResult",
    "add_labels",
    "demo_diagrams",
    "draw",
    "open_viewer",
    "render",
    "render_to_file",
]

#: Output formats by file extension.
FORMATS = (".png", ".svg")
#: Line widths and font sizes are given for this image height and scaled with it.
REFERENCE_HEIGHT = 1200
#: Fraction of the image width kept free on the right of a plan view for the legend.
LEGEND_COLUMN = 0.25
#: Image fractions kept for the title (top) and the plot's bottom margin.
TITLE_BAND = 0.10
BOTTOM_MARGIN = 0.03
#: Fixed camera of the ``iso`` view: direction from the scene centre to the camera.
ISO_DIRECTION = (-0.55, -1.0, 0.85)
ISO_VIEW_ANGLE = 30.0
#: Vertical field of view of a ``from:ID`` view, degrees.
FROM_VIEW_ANGLE = 60.0
#: MSAA samples per pixel.
MULTI_SAMPLES = 8
#: Material of lit surfaces: enough ambient light that the colours stay close to the
#: palette when seen straight from above, enough diffuse light to shade 3D views.
AMBIENT, DIFFUSE = 0.35, 0.7


@dataclass
class RenderResult:
    """A rendered diagram.

    Attributes
    ----------
    path : pathlib.Path or None
        Where it was written (None when only rendered in memory).
    size : (int, int)
        Width and height in pixels.
    view : str
    image : (height, width, 3) uint8 array
        The rendered pixels (what a PNG holds).
    matrix : (4, 4) float array
        World (mm) -> clip coordinates of the camera that made the image.
    drawing : Drawing
    """

    path: Path | None
    size: tuple[int, int]
    view: str
    image: np.ndarray
    matrix: np.ndarray
    drawing: Drawing

    def world_to_pixel(self, points) -> np.ndarray:
        """Project world points (mm) to image pixel coordinates.

        Parameters
        ----------
        points : (3,) or (n, 3) float, mm

        Returns
        -------
        (n, 2) float
            ``(column, row)`` with the origin at the top-left corner of the image and
            rows growing downwards: pixel ``image[int(row), int(col)]`` is the one the
            point falls in. Points behind a perspective camera give NaN.
        """
        p = np.asarray(points, dtype=np.float64).reshape(-1, 3)
        h4 = np.column_stack([p, np.ones(len(p))]) @ self.matrix.T
        w = h4[:, 3]
        with np.errstate(divide="ignore", invalid="ignore"):
            ndc = h4[:, :3] / w[:, None]
        width, height = self.size
        col = (ndc[:, 0] + 1.0) * 0.5 * width
        row = (1.0 - ndc[:, 1]) * 0.5 * height
        out = np.column_stack([col, row])
        out[w <= 0] = np.nan
        return out


# --------------------------------------------------------------------------- drawing
def _scale(size) -> float:
    return max(0.25, size[1] / REFERENCE_HEIGHT)


def draw(plotter, drawing: Drawing, size, *, layers=None, labels: bool = True) -> dict:
    """Add a drawing's meshes (and its labels) to a plotter.

    Parameters
    ----------
    plotter : pyvista.Plotter
    drawing : Drawing
    size : (int, int)
        Image size, for line widths and font sizes.
    layers : iterable of str or None
        Only these layers (None: all).
    labels : bool
        Add the text labels too (:func:`add_labels`).

    Returns
    -------
    dict[str, list]
        VTK actors per layer (labels included), for layer toggles.
    """
    k = _scale(size)
    keep = None if layers is None else set(layers)
    by_layer: dict[str, list] = {}
    for a in drawing.actors:
        if keep is not None and a.layer not in keep:
            continue
        kw: dict = {
            "opacity": a.opacity,
            "lighting": a.lighting,
            "name": a.name,
            "reset_camera": False,
            "pickable": "trooper" in a.meta,
            "smooth_shading": a.smooth,
        }
        if a.lighting:
            kw.update(ambient=AMBIENT, diffuse=DIFFUSE, specular=0.0)
        if a.line_width is not None:
            kw["line_width"] = max(1.0, a.line_width * k)
        if a.rgb is not None:
            kw.update(scalars=a.rgb, rgb=True, preference="point")
        else:
            kw["color"] = a.color
        actor = plotter.add_mesh(a.mesh, **kw)
        by_layer.setdefault(a.layer, []).append(actor)
    if labels:
        labs = [lab for lab in drawing.labels if keep is None or lab.layer in keep]
        for layer, actors in add_labels(plotter, labs, size).items():
            by_layer.setdefault(layer, []).extend(actors)
    return by_layer


def add_labels(plotter, labels, size, *, prefix: str = "labels") -> dict:
    """Add text labels anchored in the world (always drawn on top of the picture).

    Returns the label actors per layer.
    """
    k = _scale(size)
    font = max(8, round(18 * k))
    groups: dict[tuple[str, str], list] = {}
    for lab in labels:
        groups.setdefault((lab.layer, lab.color), []).append(lab)
    by_layer: dict[str, list] = {}
    for i, ((layer, color), labs) in enumerate(groups.items()):
        actor = plotter.add_point_labels(
            np.array([lab.point for lab in labs], dtype=np.float64),
            [lab.text for lab in labs],
            font_size=font,
            text_color=color,
            bold=False,
            shape_color="white",
            shape_opacity=0.75,
            shape="rect",
            margin=max(1, round(2 * k)),
            show_points=False,
            always_visible=True,
            name=f"{prefix}:{i}",
            reset_camera=False,
            render=False,
        )
        by_layer.setdefault(layer, []).append(actor)
    return by_layer


def _labels_in_view(labels, matrix: np.ndarray, size, region) -> list:
    """The labels whose anchor projects inside ``region`` (pixels: x0, x1, y0, y1)."""
    if not labels:
        return []
    pts = np.array([lab.point for lab in labels], dtype=np.float64)
    h4 = np.column_stack([pts, np.ones(len(pts))]) @ matrix.T
    w, h = size
    with np.errstate(divide="ignore", invalid="ignore"):
        col = (h4[:, 0] / h4[:, 3] + 1) * 0.5 * w
        row = (1 - h4[:, 1] / h4[:, 3]) * 0.5 * h
    x0, x1, y0, y1 = region
    ok = (h4[:, 3] > 0) & (col >= x0) & (col <= x1) & (row >= y0) & (row <= y1)
    return [lab for lab, keep in zip(labels, ok, strict=True) if keep]


def _legend_symbol(face: str, color: str) -> pv.PolyData:
    """A legend symbol in the unit square, as coloured polygons (RGB cell scalars).

    The legend draws its text in black (the entry colour) and each symbol in its own
    cell colours, so the text stays readable whatever the colour of the entry.
    """
    polys: list[np.ndarray] = [np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=float)]
    colors = [pal.rgb255(pal.BACKGROUND)]
    fill = pal.rgb255(color)
    black = pal.rgb255(pal.TEXT)

    def rect(x0, y0, x1, y1):
        return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=float)

    def circle(r, n=32, cx=0.5, cy=0.5):
        a = 2 * np.pi * np.arange(n) / n
        return np.column_stack([cx + r * np.cos(a), cy + r * np.sin(a)])

    def bar(p0, p1, w):
        p0, p1 = np.asarray(p0, float), np.asarray(p1, float)
        d = p1 - p0
        n = np.array([-d[1], d[0]]) / np.linalg.norm(d) * w / 2
        return np.array([p0 - n, p1 - n, p1 + n, p0 + n])

    if face == "ring":
        polys += [circle(0.45), circle(0.25)]
        colors += [fill, pal.rgb255(pal.BACKGROUND)]
    elif face == "disc":
        polys.append(circle(0.3))
        colors.append(fill)
    elif face == "line":
        polys.append(rect(0.0, 0.4, 1.0, 0.6))
        colors.append(fill)
    elif face == "arrow":
        polys += [rect(0.0, 0.43, 0.65, 0.57), np.array([[0.6, 0.2], [1.0, 0.5], [0.6, 0.8]])]
        colors += [fill, fill]
    elif face == "cross":
        polys += [bar((0.15, 0.15), (0.85, 0.85), 0.16), bar((0.15, 0.85), (0.85, 0.15), 0.16)]
        colors += [fill, fill]
    else:  # rectangle: filled, with a black frame (light colours stay visible)
        polys += [rect(0.05, 0.05, 0.95, 0.95), rect(0.15, 0.15, 0.85, 0.85)]
        colors += [black, fill]
    pts, faces = [], []
    for poly in polys:
        faces.append(len(poly))
        faces.extend(range(len(pts), len(pts) + len(poly)))
        pts.extend(poly.tolist())
    mesh = pv.PolyData(np.column_stack([np.array(pts), np.zeros(len(pts))]), faces=np.array(faces))
    mesh.cell_data["rgb"] = np.array(colors, dtype=np.uint8)
    mesh.cell_data.active_scalars_name = "rgb"
    return mesh


def _add_legend(plotter, drawing: Drawing, x0: float, y1: float, w: float, h: float) -> None:
    """A legend box (normalised viewport coordinates: left, top, width, height)."""
    from vtkmodules.vtkRenderingAnnotation import vtkLegendBoxActor

    leg = vtkLegendBoxActor()
    leg.SetNumberOfEntries(len(drawing.legend))
    for i, e in enumerate(drawing.legend):
        leg.SetEntry(i, _legend_symbol(e.face, e.color), e.label, (0.0, 0.0, 0.0))
    leg.UseBackgroundOn()
    leg.SetBackgroundColor(1.0, 1.0, 1.0)
    leg.BorderOn()
    leg.GetProperty().SetColor(0.0, 0.0, 0.0)
    leg.SetPadding(4)
    tp = leg.GetEntryTextProperty()
    tp.SetFontFamilyToArial()
    tp.SetColor(0.0, 0.0, 0.0)
    leg.GetPositionCoordinate().SetCoordinateSystemToNormalizedViewport()
    leg.GetPositionCoordinate().SetValue(x0, y1 - h)
    leg.GetPosition2Coordinate().SetValue(w, h)
    plotter.add_actor(leg, reset_camera=False, name="legend", pickable=False)


def _add_mask(plotter, name: str, x0: float, y0: float, x1: float, y1: float) -> None:
    """An opaque background-coloured rectangle over the 3D picture (viewport fractions)."""
    from vtkmodules.vtkRenderingCore import vtkActor2D, vtkCoordinate, vtkPolyDataMapper2D

    rect = pv.PolyData(
        np.array([[x0, y0, 0], [x1, y0, 0], [x1, y1, 0], [x0, y1, 0]], dtype=float),
        faces=np.array([4, 0, 1, 2, 3]),
    )
    coord = vtkCoordinate()
    coord.SetCoordinateSystemToNormalizedViewport()
    mapper = vtkPolyDataMapper2D()
    mapper.SetInputData(rect)
    mapper.SetTransformCoordinate(coord)
    actor = vtkActor2D()
    actor.SetMapper(mapper)
    actor.GetProperty().SetColor(*(c / 255 for c in pal.rgb255(pal.BACKGROUND)))
    plotter.add_actor(actor, reset_camera=False, name=name, pickable=False)


def _text_px(prop, text: str) -> tuple[int, int]:
    """Width and height in pixels of ``text`` drawn with a VTK text property."""
    from vtkmodules.vtkRenderingCore import vtkTextRenderer

    bb = [0, 0, 0, 0]
    vtkTextRenderer.GetInstance().GetBoundingBox(prop, text, bb, 72)
    return bb[1] - bb[0], bb[3] - bb[2]


def _wrap(prop, lines, width_px: float) -> list[str]:
    """Greedy word wrap of ``lines`` to ``width_px`` as measured by the text renderer.

    Continuation lines keep the line's indent plus two spaces.
    """
    out: list[str] = []
    for line in lines:
        indent = line[: len(line) - len(line.lstrip())]
        words = line.split()
        if not words:
            out.append("")
            continue
        cur = indent + words[0]
        for word in words[1:]:
            cand = f"{cur} {word}"
            if _text_px(prop, cand)[0] <= width_px:
                cur = cand
            else:
                out.append(cur)
                cur = indent + "  " + word
        out.append(cur)
    return out


def _add_overlay(plotter, drawing: Drawing, size, *, legend_column: bool) -> None:
    """Title, subtitle, legend and notes; in a plan view they get their own margins."""
    w, h = size
    k = _scale(size)
    if legend_column:
        _add_mask(plotter, "mask:title", 0.0, 1.0 - TITLE_BAND, 1.0, 1.0)
        _add_mask(plotter, "mask:legend", 1.0 - LEGEND_COLUMN, 0.0, 1.0, 1.0)
        _add_mask(plotter, "mask:bottom", 0.0, 0.0, 1.0, BOTTOM_MARGIN * 0.5)
        _add_mask(plotter, "mask:left", 0.0, 0.0, 0.015, 1.0)
    texts = []
    texts.append(
        plotter.add_text(
            drawing.title,
            position=(round(0.015 * w), round(h - 0.05 * h)),
            font_size=max(8, round(22 * k)),
            color=pal.TEXT,
            name="title",
        )
    )
    if drawing.subtitle:
        texts.append(
            plotter.add_text(
                drawing.subtitle,
                position=(round(0.015 * w), round(h - 0.085 * h)),
                font_size=max(7, round(14 * k)),
                color=pal.TEXT,
                name="subtitle",
            )
        )
    n = len(drawing.legend)
    lw = LEGEND_COLUMN - 0.02
    lh = min(0.45, 0.032 * max(n, 1))
    x0 = 1.0 - lw - 0.01
    top = 1.0 - TITLE_BAND
    if n:
        _add_legend(plotter, drawing, x0, top, lw, lh)
    if drawing.notes:
        notes_font = max(7, round(12 * k))
        first = plotter.add_text(
            " ", position=(0, 0), font_size=notes_font, color=pal.TEXT, name="notes:probe"
        )
        width_px = lw * w - 4
        lines = _wrap(first.prop, drawing.notes, width_px)
        step = 1.2 * _text_px(first.prop, "Ag")[1]
        plotter.remove_actor("notes:probe", render=False)
        # one text actor per line: SVG <text> elements do not break lines
        y0 = (top - lh - 0.02) * h
        for i, line in enumerate(lines):
            txt = plotter.add_text(
                line,
                position=(round(x0 * w), round(y0 - i * step)),
                font_size=notes_font,
                color=pal.TEXT,
                name=f"notes:{i}",
            )
            txt.prop.justification_vertical = "top"
            texts.append(txt)
    if not legend_column:  # text over the picture: give it a backing
        for t in texts:
            t.prop.background_color = pal.BACKGROUND
            t.prop.background_opacity = 0.8


def _top_camera(plotter, drawing: Drawing, size) -> None:
    w, h = size
    lo, hi = drawing.bounds
    px0, px1 = 0.03 * w, (1.0 - LEGEND_COLUMN) * w
    py0, py1 = TITLE_BAND * h, (1.0 - BOTTOM_MARGIN) * h
    bw, bh = max(float(hi[0] - lo[0]), 1.0), max(float(hi[1] - lo[1]), 1.0)
    s = max(bw / (px1 - px0), bh / (py1 - py0))  # mm per pixel
    bx, by = 0.5 * float(lo[0] + hi[0]), 0.5 * float(lo[1] + hi[1])
    cam_x = bx - (0.5 * (px0 + px1) - 0.5 * w) * s
    cam_y = by + (0.5 * (py0 + py1) - 0.5 * h) * s
    top = float(hi[2]) + 1000.0
    cam = plotter.camera
    cam.parallel_projection = True
    cam.focal_point = (cam_x, cam_y, float(lo[2]))
    cam.position = (cam_x, cam_y, top)
    cam.up = (0.0, 1.0, 0.0)
    cam.parallel_scale = 0.5 * h * s
    cam.clipping_range = (1.0, top - float(lo[2]) + 1000.0)


def _perspective_camera(plotter, position, focal, up, view_angle, near_far) -> None:
    cam = plotter.camera
    cam.parallel_projection = False
    cam.position = tuple(float(v) for v in position)
    cam.focal_point = tuple(float(v) for v in focal)
    cam.up = tuple(float(v) for v in up)
    cam.view_angle = float(view_angle)
    cam.clipping_range = near_far


def _iso_camera(plotter, drawing: Drawing, size) -> None:
    lo, hi = drawing.bounds
    c = 0.5 * (lo + hi)
    radius = max(0.5 * float(np.linalg.norm(hi - lo)), 1.0)
    d = np.asarray(ISO_DIRECTION, dtype=float)
    d /= np.linalg.norm(d)
    dist = radius / np.sin(np.radians(ISO_VIEW_ANGLE) / 2)
    _perspective_camera(plotter, c + d * dist, c, (0.0, 0.0, 1.0), ISO_VIEW_ANGLE, (1.0, 1.0))
    corners = np.array(
        [[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])]
    )
    region = (0.02, 1.0 - LEGEND_COLUMN, TITLE_BAND, 1.0 - BOTTOM_MARGIN)
    _fit_perspective(plotter, size, corners, region)


def _fit_perspective(plotter, size, points, region, iterations: int = 6) -> None:
    """Dolly and pan a perspective camera until ``points`` fill ``region``.

    ``region`` = (left, right, top, bottom) as fractions of the image width/height
    (top/bottom from the top edge). Deterministic: a fixed number of iterations.
    """
    w, h = size
    cam = plotter.camera
    for _ in range(iterations):
        pos = np.array(cam.position)
        focal = np.array(cam.focal_point)
        dist = float(np.linalg.norm(focal - pos))
        fwd = (focal - pos) / dist
        right = np.cross(fwd, cam.up)
        right /= np.linalg.norm(right)
        up = np.cross(right, fwd)
        near = max(1e-3, dist * 1e-3)
        cam.clipping_range = (near, dist * 10.0)
        m = _camera_matrix(plotter, size)
        h4 = np.column_stack([points, np.ones(len(points))]) @ m.T
        ndc = h4[:, :2] / h4[:, 3:4]
        px = (ndc[:, 0] + 1) * 0.5 * w
        py = (1 - ndc[:, 1]) * 0.5 * h
        rx0, rx1 = region[0] * w, region[1] * w
        ry0, ry1 = region[2] * h, region[3] * h
        f = max((px.max() - px.min()) / (rx1 - rx0), (py.max() - py.min()) / (ry1 - ry0))
        # pan: move the picture's centre onto the region's centre (at the focal distance)
        per_px = 2.0 * dist * np.tan(np.radians(cam.view_angle) / 2) / h
        dx = 0.5 * (px.max() + px.min()) - 0.5 * (rx0 + rx1)
        dy = 0.5 * (py.max() + py.min()) - 0.5 * (ry0 + ry1)
        shift = right * dx * per_px - up * dy * per_px
        new_dist = dist * f
        focal = focal + shift
        cam.focal_point = tuple(focal)
        cam.position = tuple(focal - fwd * new_dist)
    dist = float(np.linalg.norm(np.array(cam.focal_point) - np.array(cam.position)))
    span = float(np.linalg.norm(points.max(axis=0) - points.min(axis=0)))
    cam.clipping_range = (max(1.0, dist - span), dist + span)


def _from_camera(plotter, drawing: Drawing, size) -> None:
    eye = drawing.eye
    assert eye is not None
    lo, hi = drawing.bounds
    p = np.array(eye["position"], dtype=float)
    f = np.array([*eye["facing"], 0.0])
    above = eye["eye_z"] - p[2]
    back = 3.0 * above + eye["radius"]
    pos = np.array([p[0], p[1], eye["eye_z"]]) - f * back
    focal = pos + f * 1000.0
    far = float(np.linalg.norm(hi - lo)) + 2 * back + 1000.0
    _perspective_camera(plotter, pos, focal, (0.0, 0.0, 1.0), FROM_VIEW_ANGLE, (1.0, far))
    # centre the view in the picture area (left of the legend column, below the title)
    cx = 0.5 * (0.015 + 1.0 - LEGEND_COLUMN)
    cy = 0.5 * (1.0 - TITLE_BAND)
    plotter.camera.SetWindowCenter(1.0 - 2.0 * cx, 1.0 - 2.0 * cy)


def _camera_matrix(plotter, size) -> np.ndarray:
    cam = plotter.renderer.GetActiveCamera()
    m = cam.GetCompositeProjectionTransformMatrix(size[0] / size[1], -1.0, 1.0)
    return np.array([[m.GetElement(i, j) for j in range(4)] for i in range(4)])


# --------------------------------------------------------------------------- entry points
def _check_size(size) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in size)
    except (TypeError, ValueError):
        raise InputError(f"size must be (width, height) in pixels, got {size!r}") from None
    if not (16 <= w <= 8000 and 16 <= h <= 8000):
        raise InputError(f"size: each side must be 16..8000 pixels, got {w}x{h}")
    return w, h


def _check_out(out) -> tuple[Path, str]:
    path = Path(out)
    ext = path.suffix.lower()
    if ext not in FORMATS:
        raise InputError(
            f"{path}: unknown diagram format {path.suffix or '(none)'!r} (expected .png or .svg)"
        )
    return path, ext


def _make_plotter(size):
    pv.OFF_SCREEN = True
    pl = pv.Plotter(off_screen=True, window_size=list(size), lighting="light_kit")
    pl.set_background(pal.BACKGROUND)
    # No depth peeling: with Mesa's llvmpipe it drops translucent layers (entirely when
    # combined with MSAA). VTK's default order-independent translucency blends them
    # approximately but reliably; MSAA smooths the edges.
    pl.disable_anti_aliasing()
    pl.enable_anti_aliasing("msaa", multi_samples=MULTI_SAMPLES)
    return pl


def render(
    scene,
    out=None,
    *,
    view: str = "top",
    attack: str | None = None,
    lof: str | None = None,
    size=(1600, 1200),
    dpi: int | None = None,
    lof_doc: dict | None = None,
    drawing: Drawing | None = None,
) -> RenderResult:
    """Render a diagram off-screen, and write it when ``out`` is given.

    Parameters
    ----------
    scene : geom3d.Scene
    out : str, os.PathLike or None
        ``.png`` or ``.svg`` file; None renders in memory only.
    view : str
        ``top`` (orthographic plan), ``iso`` (3D perspective) or ``from:ID``.
    attack : str or None
        Attack id to draw.
    lof : str or None
        ``"A:B"``: the Line of Fire to draw.
    size : (int, int)
        Pixels.
    dpi : int or None
        Recorded in the PNG (pHYs) or used for the SVG's physical size.
    lof_doc : dict or None
        A precomputed ``geom3d lof`` document (no LoF recomputation).
    drawing : Drawing or None
        Render this drawing instead of building one.

    Returns
    -------
    RenderResult

    Raises
    ------
    geom3d.errors.InputError
        Bad view, size, dpi or file extension; UnknownIdError for unknown ids.
    """
    size = _check_size(size)
    path = ext = None
    if out is not None:
        path, ext = _check_out(out)
    if dpi is not None and (isinstance(dpi, bool) or int(dpi) != dpi or not 1 <= int(dpi) <= 10000):
        raise InputError(f"dpi must be a positive integer, got {dpi!r}")
    if drawing is None:
        drawing = build_drawing(scene, view=view, attack=attack, lof=lof, lof_doc=lof_doc)
    kind = "from" if drawing.eye is not None else ("iso" if view == "iso" else "top")
    pl = _make_plotter(size)
    try:
        draw(pl, drawing, size, labels=False)
        # every view keeps the title band and the legend column clear of the picture
        _add_overlay(pl, drawing, size, legend_column=True)
        {"top": _top_camera, "iso": _iso_camera, "from": _from_camera}[kind](pl, drawing, size)
        matrix = _camera_matrix(pl, size)
        # labels go on top of the plan view's margins (a label may run past the plot's
        # edge), but only those anchored inside the picture
        w, h = size
        region = (0.015 * w, (1.0 - LEGEND_COLUMN) * w, TITLE_BAND * h, h)
        add_labels(pl, _labels_in_view(drawing.labels, matrix, size, region), size)
        pl.render()
        image = np.asarray(pl.screenshot(None, return_img=True))[:, :, :3].copy()
        if path is not None and ext == ".svg":
            data = _svg_bytes(pl, drawing, size, dpi)
    finally:
        pl.close()
    if path is not None:
        from geom3d.output import atomic_write

        if ext == ".png":
            data = _png_bytes(image, dpi)
        atomic_write(path, data)
    return RenderResult(path, size, view, image, matrix, drawing)


def _png_bytes(image: np.ndarray, dpi: int | None) -> bytes:
    from PIL import Image

    buf = BytesIO()
    kw = {"dpi": (int(dpi), int(dpi))} if dpi else {}
    Image.fromarray(image, mode="RGB").save(buf, format="PNG", optimize=False, **kw)
    return buf.getvalue()


_CREATION = re.compile(r"^CreationDate:.*\n", re.MULTILINE)


def _svg_bytes(plotter, drawing: Drawing, size, dpi: int | None) -> bytes:
    with tempfile.TemporaryDirectory(prefix="geom3d-svg-") as tmp:
        f = Path(tmp) / "diagram.svg"
        plotter.save_graphic(str(f), title=_xml_escape(drawing.title), raster=True, painter=True)
        text = f.read_text(encoding="utf-8")
    text = _CREATION.sub("", text)
    if dpi:
        w, h = size
        text = re.sub(
            r'width="[0-9.]+pt" height="[0-9.]+pt"',
            f'width="{w / dpi:.4f}in" height="{h / dpi:.4f}in"',
            text,
            count=1,
        )
    return text.encode("utf-8")


def _xml_escape(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def render_to_file(
    scene,
    out,
    *,
    view: str = "top",
    attack: str | None = None,
    lof: str | None = None,
    size=(1600, 1200),
    dpi: int | None = None,
) -> Path:
    """Write a diagram (PNG or SVG by extension); the ``geom3d render`` command.

    See :func:`render` for the parameters. Returns the path written.
    """
    if out is None:
        raise InputError("--out is required")
    _check_out(out)
    return render(scene, out, view=view, attack=attack, lof=lof, size=size, dpi=dpi).path


def demo_diagrams(scene, out_dir, lof_doc: dict, *, size=(1600, 1200)) -> list[Path]:
    """The demo's diagrams: plan view, one attack, one LoF and one trooper's view.

    Parameters
    ----------
    scene : geom3d.Scene
    out_dir : path
    lof_doc : dict
        The ``geom3d lof`` document already computed (reused, not recomputed).

    Returns
    -------
    list of Path
        ``plan.png``, ``attack-<id>.png`` (first attack, when attacks resolve),
        ``lof-<A>-<B>.png`` (the first pair of opponents with LoF, else the first
        pair with LoF, else the first pair),
        ``view-<id>.png`` (the first trooper's view).
    """
    out_dir = Path(out_dir)
    paths = [render(scene, out_dir / "plan.png", lof_doc=lof_doc, size=size).path]
    if scene.scenario.attacks:
        aid = scene.scenario.attacks[0].id
        try:
            paths.append(
                render(scene, out_dir / f"attack-{_safe(aid)}.png", attack=aid, size=size).path
            )
        except AttacksUnavailable:
            pass  # an engine without geom3d.attacks: the other diagrams still come
    pairs = lof_doc.get("pairs", [])
    if pairs:
        sides = {t.id: t.side for t in scene.troopers.values()}

        def rank(p):  # LoF between opponents first, then any LoF, then the first pair
            opponents = sides.get(p["from"]) != sides.get(p["to"])
            return (not p.get("lof"), not opponents)

        pick = min(pairs, key=rank)
        a, b = pick["from"], pick["to"]
        paths.append(
            render(
                scene,
                out_dir / f"lof-{_safe(a)}-{_safe(b)}.png",
                lof=f"{a}:{b}",
                lof_doc=lof_doc,
                size=size,
            ).path
        )
    if scene.troopers:
        tid = next(iter(scene.troopers))
        paths.append(
            render(
                scene,
                out_dir / f"view-{_safe(tid)}.png",
                view=f"from:{tid}",
                lof_doc=lof_doc,
                size=size,
            ).path
        )
    return paths


def open_viewer(scene, **kwargs) -> None:
    """The interactive window (:func:`viewer.window.open_viewer`).

    Here because the CLI loads this module as its renderer plugin (entry-point group
    ``geom3d.renderers``) and calls ``render_to_file``, ``demo_diagrams`` and
    ``open_viewer`` on it.
    """
    from .window import open_viewer as _open

    _open(scene, **kwargs)


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)
