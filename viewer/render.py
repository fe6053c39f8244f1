"""Headless diagrams: a :class:`~viewer.model.Drawing` rendered off-screen to PNG or SVG.

This is the renderer plugin the CLI loads (entry-point group ``geom3d.renderers`` in
pyproject.toml): it provides ``render_to_file`` (``geom3d render``), ``demo_diagrams``
(``geom3d demo``) and ``open_viewer`` (``geom3d view``, from :mod:`viewer.window`).

Off-screen rendering needs no display and no GPU (see :mod:`viewer.plotter` for the EGL
window). Cameras are fixed by the scene (no interaction, no timestamps), so the same input
gives the same pixels on the same machine and Mesa version: the PNG bytes are identical
(PIL writes no time chunk). Across Mesa versions anti-aliased edges may differ slightly.

Plan, side and eye views are 2D drawings made with matplotlib (:mod:`viewer.plan`,
:mod:`viewer.figure2d`): their SVG and PDF are true vector and their PNG is the same
figure rasterised, so every format carries the same text. The ``iso`` and ``from:``
views are rendered by VTK off-screen; their SVG uses VTK's GL2PS exporter
(``plotter.save_graphic``): 2D overlays (title, notes, labels, legend text) become SVG
``<text>`` elements, the 3D geometry one raster ``<image>``; the exporter's
``CreationDate`` line is removed so the SVG is deterministic too. Every view gets the same
page for one output size (W x H pixels at ``--dpi``, else at 96 px per inch).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from io import BytesIO
from pathlib import Path

import numpy as np
import pyvista as pv
from PIL import Image

from geom3d.commands.render import RENDER_MAX_PIXELS, RENDER_SIDE_RANGE_PX
from geom3d.core.errors import InputError
from geom3d.core.output import atomic_write, check_writable

from .camera import CAMERAS, camera_matrix, camera_options
from .compose import build_drawing
from .exposure import render_exposure  # the exposure map (geom3d exposure), via this plugin
from .figure2d import projected_figure
from .figure_layout import figure_layout, world_records
from .gl2ps import svg_bytes as _svg_bytes
from .html import html_bytes
from .layout import LEGEND_COLUMN, TITLE_BAND
from .layout_lint import Layout, TextBox
from .model import Drawing
from .overlay import (
    add_overlay,
    add_placed_labels,
    label_font_size,
    place_world_labels,
    trooper_boxes,
)
from .plan import plan_figure, plan_pixels
from .plotter import draw, make_plotter
from .survey import render_survey  # the survey heat map (geom3d survey), via this plugin
from .vector_output import figure_bytes, raster_pdf_bytes
from .views import hide_occluded_labels
from .window import open_viewer

__all__ = [
    "FORMATS",
    "RenderResult",
    "demo_diagrams",
    "open_viewer",
    "render",
    "render_exposure",
    "render_survey",
    "render_to_file",
]

#: Output formats by file extension.
FORMATS = (".png", ".svg", ".pdf", ".html")


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
    layout : viewer.layout_lint.Layout or None
        The figure's layout records (text boxes, troopers, deciding ray and patch in page
        pixels) for :func:`viewer.layout_lint.lint`; None for an HTML page.
    """

    path: Path | None
    size: tuple[int, int]
    view: str
    image: np.ndarray
    matrix: np.ndarray
    drawing: Drawing
    layout: Layout | None = None

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


def _check_size(size) -> tuple[int, int]:
    """(width, height) within ``RENDER_SIDE_RANGE_PX`` and ``RENDER_MAX_PIXELS``."""
    try:
        w, h = (int(v) for v in size)
    except (TypeError, ValueError):
        raise InputError(f"size must be (width, height) in pixels, got {size!r}") from None
    lo, hi = RENDER_SIDE_RANGE_PX
    if not (lo <= w <= hi and lo <= h <= hi):
        raise InputError(f"size: each side must be {lo}..{hi} pixels, got {w}x{h}")
    if w * h > RENDER_MAX_PIXELS:
        raise InputError(
            f"size: {w}x{h} is {w * h / 1e6:.1f} M pixels, more than the "
            f"{RENDER_MAX_PIXELS / 1e6:.1f} M a diagram may have (e.g. 4096x4096)"
        )
    return w, h


def _check_out(out) -> tuple[Path, str]:
    path = Path(out)
    ext = path.suffix.lower()
    if ext not in FORMATS:
        raise InputError(
            f"{path}: unknown diagram format {path.suffix or '(none)'!r} "
            f"(expected {', '.join(FORMATS)})"
        )
    return path, ext


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
    azimuth: float | None = None,
    elevation: float | None = None,
    zoom: float | None = None,
    title: str | None = None,
    caption: str | None = None,
    legend: bool = True,
    annotate=(),
    odds: bool = False,
    subtitle: bool = True,
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
    azimuth, elevation : float or None, degrees
    zoom : float or None
        Camera options (:func:`viewer.camera.camera_options`).
    title, caption, legend, annotate
        Text options (:func:`viewer.annotate.decorate`).
    odds : bool
        With ``attack``: the exact odds next to each affected trooper (``--odds``).
    subtitle : bool
        False leaves the automatic subtitle out (``--no-subtitle``).

    Returns
    -------
    RenderResult

    Raises
    ------
    geom3d.core.errors.InputError
        Bad view, size, dpi or file extension; UnknownIdError for unknown ids.
    """
    size = _check_size(size)
    path = ext = None
    if out is not None:
        path, ext = _check_out(out)
        check_writable(path)  # before any rendering: a bad target fails at once
    if dpi is not None and (isinstance(dpi, bool) or int(dpi) != dpi or not 1 <= int(dpi) <= 10000):
        raise InputError(f"dpi must be a positive integer, got {dpi!r}")
    if drawing is None:
        drawing = build_drawing(
            scene, view=view, attack=attack, lof=lof, lof_doc=lof_doc, title=title,
            caption=caption, legend=legend, annotate=annotate, odds=odds, subtitle=subtitle,
        )  # fmt: skip
    kind = drawing.view
    drawing.camera.update(camera_options(kind, azimuth, elevation, zoom))
    shooter = drawing.camera.get("attacker")
    if float(drawing.camera.get("zoom") or 1.0) > 1.0 and shooter in drawing.about:
        # --zoom on an attack magnifies its template: the troopers under it stay whole,
        # a far attacker may leave the picture
        drawing = replace(drawing, about=[t for t in drawing.about if t != shooter])
    if ext == ".html":
        data = html_bytes(drawing, size)
        atomic_write(path, data)
        return RenderResult(path, size, view, np.zeros((0, 0, 3), np.uint8), np.eye(4), drawing)
    if kind in ("side", "eye"):  # 2D drawings: one matplotlib figure for every format
        fig, matrix, drawing = projected_figure(scene, drawing, size, dpi)
        image, _ = plan_pixels(fig, matrix)
        layout = figure_layout(fig, drawing, matrix)
        if path is not None:
            data = _png_bytes(image, dpi) if ext == ".png" else figure_bytes(fig, ext[1:])
            atomic_write(path, data)
        return RenderResult(path, size, view, image, matrix, drawing, layout)
    if kind == "top" and ext in (".svg", ".pdf", ".png", None):  # vector plan (viewer.plan)
        fig = plan_figure(scene, drawing, size, dpi)
        drawing = replace(drawing, notes=list(fig.geom3d_notes))
        image, matrix = plan_pixels(fig)
        layout = figure_layout(fig, drawing, matrix)
        if path is not None:
            data = _png_bytes(image, dpi) if ext == ".png" else figure_bytes(fig, ext[1:])
            atomic_write(path, data)
        return RenderResult(path, size, view, image, matrix, drawing, layout)
    pv.OFF_SCREEN = True
    pl = make_plotter(size)
    try:
        draw(pl, drawing, size, labels=False)
        # every view keeps the title band and the legend column clear of the picture
        CAMERAS[kind](pl, drawing, size)
        matrix = camera_matrix(pl, size)
        # labels behind blocking scenery (a hill) are not drawn over it: listed instead
        drawing = hide_occluded_labels(scene, drawing, pl.camera)
        # labels go on top of the plan view's margins (a label may run past the plot's
        # edge), but only those anchored inside the picture
        w, h = size
        region = (0.015 * w, (1.0 - LEGEND_COLUMN) * w, TITLE_BAND * h, h)
        boxes = trooper_boxes(drawing.actors, matrix, size)
        placements, note = place_world_labels(
            pl, drawing.labels, matrix, size, region, obstacles=boxes, drawing=drawing
        )
        if note:
            drawing.notes.append(note)
        page_texts = add_overlay(pl, drawing, size, legend_column=True)
        add_placed_labels(pl, drawing.labels, placements, size)
        layout = _vtk_layout(drawing, placements, matrix, size, region)
        layout.texts.extend(page_texts)
        pl.render()
        image = np.asarray(pl.screenshot(None, return_img=True))[:, :, :3].copy()
        if path is not None and ext == ".svg":
            data = _svg_bytes(pl, drawing, size, dpi)
    finally:
        pl.close()
    if path is not None:
        if ext == ".png":
            data = _png_bytes(image, dpi)
        elif ext == ".pdf":  # a 3D view: its pixels on a PDF page
            data = raster_pdf_bytes(image, dpi)
        atomic_write(path, data)
    return RenderResult(path, size, view, image, matrix, drawing, layout)


def _vtk_layout(drawing, placements, matrix, size, region) -> Layout:
    """Layout records of a VTK view: its placed labels, troopers, deciding ray, patch.

    The title, subtitle, legend, notes and caption, laid out by :mod:`viewer.overlay` in
    their own margins, are added by the caller (:func:`viewer.overlay.add_overlay`).
    """
    x0, x1, y0, y1 = region
    font = 2.0 * label_font_size(size)  # add_text draws at twice the size it is given
    texts = [
        TextBox(f"label-{i}", lab.text, p.box, font)
        for i, (lab, p) in enumerate(zip(drawing.labels, placements, strict=True))
        if p.placed
    ]
    lay = Layout(size, (x0, y0, x1, y1), texts, about=list(drawing.about))
    lay.troopers, lay.rays, lay.patches = world_records(drawing, matrix, size)
    lay.leaders = [(p.leader_end(), p.anchor) for p in placements if p.placed and p.leader]
    lay.anchors = {
        f"label-{i}": (float(p.anchor[0]), float(p.anchor[1]))
        for i, p in enumerate(placements)
        if p.placed
    }
    lay.notes = list(drawing.notes)
    return lay


def _png_bytes(image: np.ndarray, dpi: int | None) -> bytes:
    buf = BytesIO()
    kw = {"dpi": (int(dpi), int(dpi))} if dpi else {}
    Image.fromarray(image, mode="RGB").save(buf, format="PNG", optimize=False, **kw)
    return buf.getvalue()


def render_to_file(scene, out, **options) -> Path:
    """Write a diagram (format by extension); the ``geom3d render`` command.

    ``options`` are :func:`render`'s keywords (view, attack, lof, size, dpi, camera and
    text options). Returns the path written.
    """
    if out is None:
        raise InputError("--out is required")
    _check_out(out)
    return render(scene, out, **options).path


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
        ``plan.png``, ``attack-<id>.png`` (the first attack),
        ``lof-<A>-<B>.png`` (the first pair of opponents with LoF, else the first
        pair with LoF, else the first pair),
        ``view-<id>.png`` (the first trooper's view).
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)  # the demo's own output folder
    paths = [render(scene, out_dir / "plan.png", lof_doc=lof_doc, size=size).path]
    if scene.scenario.attacks:
        aid = scene.scenario.attacks[0].id
        paths.append(
            render(scene, out_dir / f"attack-{_safe(aid)}.png", attack=aid, size=size).path
        )
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


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)
