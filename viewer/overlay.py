"""2D overlay of a diagram: title band, legend column (legend box and notes), masks, text.

Positions are fractions of the viewport or pixels; the margins come from
:mod:`viewer.layout`. Legend symbols are small coloured polygons drawn by VTK's legend box.
"""

from __future__ import annotations

import numpy as np
import pyvista as pv
from vtkmodules.vtkRenderingAnnotation import vtkLegendBoxActor
from vtkmodules.vtkRenderingCore import (
    vtkActor2D,
    vtkCoordinate,
    vtkPolyDataMapper2D,
    vtkTextRenderer,
)

from . import palette as pal
from .figure_layout import world_records
from .labels import place_labels
from .layout import BOTTOM_MARGIN, LEGEND_COLUMN, TITLE_BAND, size_scale
from .model import Drawing

__all__ = [
    "add_legend",
    "add_legend_rows",
    "add_mask",
    "add_overlay",
    "add_placed_labels",
    "fit_lines",
    "label_font_size",
    "legend_font_size",
    "legend_symbol",
    "place_world_labels",
    "text_px",
    "wrap",
]


def legend_symbol(face: str, color: str) -> pv.PolyData:
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
    elif face == "dashed":
        polys += [rect(0.0, 0.4, 0.3, 0.6), rect(0.42, 0.4, 0.72, 0.6), rect(0.84, 0.4, 1.0, 0.6)]
        colors += [fill, fill, fill]
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


def add_legend(plotter, drawing: Drawing, x0: float, y1: float, w: float, h: float) -> None:
    """A legend box (normalised viewport coordinates: left, top, width, height)."""
    leg = vtkLegendBoxActor()
    leg.SetNumberOfEntries(len(drawing.legend))
    for i, e in enumerate(drawing.legend):
        leg.SetEntry(i, legend_symbol(e.face, e.color), e.label, (0.0, 0.0, 0.0))
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


#: ``add_text`` font size of the legend rows at :data:`viewer.layout.REFERENCE_HEIGHT`
#: (PyVista draws at twice the size given: 20 px at 1200 px image height).
LEGEND_FONT = 10
#: The smallest legend ``add_text`` size: 12 px drawn, over the lint's 11 px (SPEC 13.5).
LEGEND_FONT_MIN = 6


def legend_font_size(size) -> int:
    """``add_text`` font size of the legend rows in an image of ``size`` pixels."""
    return max(LEGEND_FONT_MIN, round(LEGEND_FONT * size_scale(size)))


def _polys_2d(mesh: pv.PolyData, x: float, y: float, scale: float, name: str, plotter) -> None:
    """A unit-square mesh with cell colours (:func:`legend_symbol`) drawn at display
    pixels ``(x, y)`` (lower left, rows up), ``scale`` pixels a side."""
    m = mesh.copy()
    p = np.asarray(m.points, dtype=float)
    m.points = np.column_stack([x + scale * p[:, 0], y + scale * p[:, 1], p[:, 2]])
    mapper = vtkPolyDataMapper2D()
    mapper.SetInputData(m)
    mapper.ScalarVisibilityOn()
    mapper.SetScalarModeToUseCellData()
    mapper.SetColorModeToDirectScalars()
    actor = vtkActor2D()
    actor.SetMapper(mapper)
    plotter.add_actor(actor, reset_camera=False, name=name, pickable=False)


def _frame_2d(plotter, name: str, box, size, lw: float):
    """A white box with a black border, ``box`` = (x0, y0, x1, y1) display pixels (rows
    up). The box's actor is named ``name`` and placed at its lower-left corner in
    normalised viewport coordinates, as VTK's legend box was (:mod:`viewer.window` puts
    its notes under it)."""
    x0, y0, x1, y1 = box
    pts = np.array([[0, 0, 0], [x1 - x0, 0, 0], [x1 - x0, y1 - y0, 0], [0, y1 - y0, 0]], float)
    for kind, poly in (
        ("fill", pv.PolyData(pts, faces=np.array([4, 0, 1, 2, 3]))),
        ("edge", pv.PolyData(pts, lines=np.array([5, 0, 1, 2, 3, 0]))),
    ):
        mapper = vtkPolyDataMapper2D()
        mapper.SetInputData(poly)
        actor = vtkActor2D()
        actor.SetMapper(mapper)
        actor.GetPositionCoordinate().SetCoordinateSystemToNormalizedViewport()
        actor.GetPositionCoordinate().SetValue(x0 / size[0], y0 / size[1])
        if kind == "fill":
            actor.GetProperty().SetColor(1.0, 1.0, 1.0)
        else:
            actor.GetProperty().SetColor(0.0, 0.0, 0.0)
            actor.GetProperty().SetLineWidth(lw)
        key = name if kind == "fill" else f"{name}:{kind}"
        plotter.add_actor(actor, reset_camera=False, name=key, pickable=False)


def add_legend_rows(plotter, drawing: Drawing, x0: float, top: float, width: float, size):
    """The legend as rows of text at a fixed pixel size, each after its symbol.

    VTK's legend box scales its text to the box (5-7 px at 800 x 500); these rows are
    drawn at :func:`legend_font_size` and wrapped to ``width``.

    Parameters
    ----------
    x0, top : float, px
        The legend's top-left corner (rows down).
    width : float, px
        The most the legend may take across.
    size : (int, int)

    Returns
    -------
    boxes : list of viewer.layout_lint.TextBox
        Each row's text box (``legend-<i>``, ``legend-<i>:<j>`` for wrapped lines).
    bottom : float, px
        Rows down: where the legend ends.
    """
    from .layout_lint import TextBox

    h = size[1]
    k = size_scale(size)
    font = legend_font_size(size)
    probe = plotter.add_text(" ", position=(0, 0), font_size=font, name="legend:probe")
    line_h = text_px(probe.prop, "Ag")[1]
    pad = max(3.0, 4 * k)
    sw = float(line_h)  # the symbol's side
    tx = x0 + pad + sw + 0.5 * line_h
    rows = [wrap(probe.prop, [e.label], width - (tx - x0) - pad) for e in drawing.legend]
    widths = [[text_px(probe.prop, line)[0] for line in lines] for lines in rows]
    plotter.remove_actor("legend:probe", render=False)
    step = 1.25 * line_h
    n_lines = sum(len(r) for r in rows)
    bottom = top + 2 * pad + n_lines * step
    right = min(x0 + width, tx + max((max(w) for w in widths), default=0) + pad)
    _frame_2d(plotter, "legend", (x0, h - bottom, right, h - top), size, max(1.0, k))
    boxes = []
    y = top + pad
    for i, (e, lines, ws) in enumerate(zip(drawing.legend, rows, widths, strict=True)):
        sym_y = y + 0.5 * (step - sw)
        _polys_2d(legend_symbol(e.face, e.color), x0 + pad, h - sym_y - sw, sw,
                  f"legend:sym:{i}", plotter)  # fmt: skip
        for j, (line, lw_px) in enumerate(zip(lines, ws, strict=True)):
            yt = y + 0.5 * (step - line_h)
            txt = plotter.add_text(line, position=(round(tx), round(h - yt)), font_size=font,
                                   color=pal.TEXT, name=f"legend:{i}:{j}")  # fmt: skip
            txt.prop.justification_vertical = "top"
            tid = f"legend-{i}" if j == 0 else f"legend-{i}:{j}"
            yr = round(yt)
            boxes.append(TextBox(tid, line, (round(tx), yr, round(tx) + lw_px, yr + line_h),
                                 2.0 * font))  # fmt: skip
            y += step
    return boxes, bottom


def add_mask(plotter, name: str, x0: float, y0: float, x1: float, y1: float) -> None:
    """An opaque background-coloured rectangle over the 3D picture (viewport fractions)."""
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


def text_px(prop, text: str) -> tuple[int, int]:
    """Width and height in pixels of ``text`` drawn with a VTK text property."""
    bb = [0, 0, 0, 0]
    vtkTextRenderer.GetInstance().GetBoundingBox(prop, text, bb, 72)
    return bb[1] - bb[0], bb[3] - bb[2]


def wrap(prop, lines, width_px: float) -> list[str]:
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
            if text_px(prop, cand)[0] <= width_px:
                cur = cand
            else:
                out.append(cur)
                cur = indent + "  " + word
        out.append(cur)
    return out


def fit_lines(plotter, text: str, font: int, width_px: float, most: int):
    """``text`` wrapped to ``width_px``: in at most ``most`` lines, the font made smaller
    (down to 60 %) if need be; longer text keeps the smallest font and takes more lines.

    Returns
    -------
    font : int
    lines : list of str
    step : float
        Line spacing, pixels.
    """
    for f in (font, round(font * 0.85), round(font * 0.72), round(font * 0.6)):
        f = max(6, f)
        probe = plotter.add_text(" ", position=(0, 0), font_size=f, name="fit:probe")
        lines = wrap(probe.prop, str(text).splitlines() or [""], width_px)
        step = 1.15 * text_px(probe.prop, "Ag")[1]
        plotter.remove_actor("fit:probe", render=False)
        if len(lines) <= most:
            break
    return f, lines, step


def add_overlay(plotter, drawing: Drawing, size, *, legend_column: bool) -> list:
    """Title, subtitle, legend and notes; in a plan view they get their own margins.

    Returns every text's box (:class:`viewer.layout_lint.TextBox`, page pixels, rows
    down: title, subtitle, legend rows, notes and caption lines), for the layout records.
    """
    from .layout_lint import TextBox

    w, h = size
    boxes: list = []

    def record(txt, tid: str, line: str, x: float, y: float, top: bool) -> None:
        """The box of ``line`` drawn at display ``(x, y)`` (rows up), by its top or bottom."""
        tw, th = text_px(txt.prop, line)
        y0 = h - y if top else h - y - th
        boxes.append(TextBox(tid, line, (x, y0, x + tw, y0 + th), float(txt.prop.font_size)))

    k = size_scale(size)
    if legend_column:
        add_mask(plotter, "mask:title", 0.0, 1.0 - TITLE_BAND, 1.0, 1.0)
        add_mask(plotter, "mask:legend", 1.0 - LEGEND_COLUMN, 0.0, 1.0, 1.0)
        add_mask(plotter, "mask:bottom", 0.0, 0.0, 1.0, BOTTOM_MARGIN * 0.5)
        add_mask(plotter, "mask:left", 0.0, 0.0, 0.015, 1.0)
    texts = []
    # title and subtitle wrapped to the page (smaller when they need many lines)
    y = h - 0.012 * h
    for name, text, font, most in (
        ("title", drawing.title, max(8, round(22 * k)), 1),
        ("subtitle", drawing.subtitle, max(7, round(14 * k)), 1),
    ):
        if not text:
            continue
        font, lines, step = fit_lines(plotter, text, font, 0.97 * w, most)
        for i, line in enumerate(lines):
            y -= step
            txt = plotter.add_text(
                line,
                position=(round(0.015 * w), round(y)),
                font_size=font,
                color=pal.TEXT,
                name=name if i == 0 else f"{name}:{i}",
            )
            texts.append(txt)
            record(txt, name if i == 0 else f"{name}-{i}", line, round(0.015 * w), round(y), False)
    n = len(drawing.legend) if drawing.show_legend else 0
    lw = LEGEND_COLUMN - 0.02
    x0 = 1.0 - lw - 0.01
    top = 1.0 - TITLE_BAND
    legend_boxes: list = []
    lh = 0.0
    if n:  # rows at a fixed pixel size, wrapped to the column
        legend_boxes, bottom = add_legend_rows(plotter, drawing, x0 * w, TITLE_BAND * h,
                                               lw * w, size)  # fmt: skip
        boxes.extend(legend_boxes)
        lh = bottom / h - TITLE_BAND
    if drawing.notes:
        notes_font = max(7, round(12 * k))
        first = plotter.add_text(
            " ", position=(0, 0), font_size=notes_font, color=pal.TEXT, name="notes:probe"
        )
        width_px = lw * w - 4
        lines = wrap(first.prop, drawing.notes, width_px)
        step = 1.2 * text_px(first.prop, "Ag")[1]
        plotter.remove_actor("notes:probe", render=False)
        # one text actor per line: SVG <text> elements do not break lines
        y0 = (top - lh - 0.02) * h
        # down to the caption (or the page's bottom margin): what does not fit is counted
        floor_px = BOTTOM_MARGIN * h
        if drawing.caption:
            floor_px += _caption_px(plotter, drawing, size)
        room = max(int((y0 - floor_px) // step), 0)
        if len(lines) > room:
            more = f"... {len(lines) - room + 1} more lines not shown"
            lines = [*lines[: room - 1], more] if room else []
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
            record(txt, f"notes-{i}", line, round(x0 * w), round(y0 - i * step), True)
    if drawing.caption:  # under the picture, on a white backing
        cap_font = max(7, round(13 * k))
        probe = plotter.add_text(" ", position=(0, 0), font_size=cap_font, name="caption:probe")
        lines = wrap(probe.prop, drawing.caption.splitlines(), 0.97 * w)
        step = 1.25 * text_px(probe.prop, "Ag")[1]
        plotter.remove_actor("caption:probe", render=False)
        if legend_column:  # the picture stops above the caption (a zoomed plan runs on)
            add_mask(plotter, "mask:caption", 0.0, 0.0, 1.0, (len(lines) * step + 0.012 * h) / h)
        for i, line in enumerate(lines):
            txt = plotter.add_text(
                line,
                position=(round(0.015 * w), round((len(lines) - 1 - i) * step + 0.01 * h)),
                font_size=cap_font,
                color=pal.TEXT,
                name=f"caption:{i}",
            )
            txt.prop.background_color = pal.BACKGROUND
            txt.prop.background_opacity = 0.85
            cy = round((len(lines) - 1 - i) * step + 0.01 * h)
            record(txt, f"caption-{i}", line, round(0.015 * w), cy, False)
    if not legend_column:  # text over the picture: give it a backing
        for t in texts:
            t.prop.background_color = pal.BACKGROUND
            t.prop.background_opacity = 0.8
    return boxes


def _caption_px(plotter, drawing: Drawing, size) -> float:
    """Height in pixels the caption takes at the page's bottom (as :func:`add_overlay`
    draws it)."""
    w, h = size
    cap_font = max(7, round(13 * size_scale(size)))
    probe = plotter.add_text(" ", position=(0, 0), font_size=cap_font, name="caption:probe")
    lines = wrap(probe.prop, drawing.caption.splitlines(), 0.97 * w)
    step = 1.25 * text_px(probe.prop, "Ag")[1]
    plotter.remove_actor("caption:probe", render=False)
    return len(lines) * step + 0.012 * h


def label_font_size(size) -> int:
    """``add_text`` font size of world-anchored labels in an image of ``size`` pixels.

    PyVista's ``add_text`` draws at twice the size it is given: this is half the pixel
    size of the labels (18 px at 1200 px image height).
    """
    return max(6, round(9 * size_scale(size)))


def trooper_boxes(actors, matrix: np.ndarray, size) -> list[tuple]:
    """Pixel boxes (x0, y0, x1, y1; rows down) of every trooper's body in the picture."""
    w, h = size
    out = []
    for a in actors:
        tid = a.meta.get("trooper")
        if tid is None or a.name != f"trooper:{tid}" or not a.mesh.n_points:
            continue
        p = np.asarray(a.mesh.points, dtype=float)
        h4 = np.column_stack([p, np.ones(len(p))]) @ matrix.T
        ok = h4[:, 3] > 0
        if not ok.any():
            continue
        col = (h4[ok, 0] / h4[ok, 3] + 1) * 0.5 * w
        row = (1 - h4[ok, 1] / h4[ok, 3]) * 0.5 * h
        out.append((float(col.min()), float(row.min()), float(col.max()), float(row.max())))
    return out


def place_world_labels(
    plotter, labels, matrix: np.ndarray, size, region, obstacles=(), drawing=None
):
    """Place world-anchored labels in the image without overlaps (:mod:`viewer.labels`).

    Parameters
    ----------
    labels : list of viewer.model.Label
    matrix : (4, 4) float
        World (mm) -> clip coordinates of the camera.
    region : (x0, x1, y0, y1) float, px (rows down)
    obstacles : sequence of (x0, y0, x1, y1) float, px
        Boxes no label may cover (:func:`trooper_boxes`).
    drawing : Drawing or None
        Its deciding ray and patch are kept clear too.

    Returns
    -------
    placements : list of viewer.labels.Placement
    note : str or None
        ``"labels not shown (no room): ..."`` when some found no place.
    """
    w, h = size
    if not labels:
        return [], None
    pts = np.array([lab.point for lab in labels], dtype=np.float64)
    h4 = np.column_stack([pts, np.ones(len(pts))]) @ matrix.T
    with np.errstate(divide="ignore", invalid="ignore"):
        col = (h4[:, 0] / h4[:, 3] + 1) * 0.5 * w
        row = (1 - h4[:, 1] / h4[:, 3]) * 0.5 * h
    col[h4[:, 3] <= 0] = np.nan
    probe = plotter.add_text(" ", position=(0, 0), font_size=label_font_size(size), name="lp")
    margin = 2 * max(1, round(2 * size_scale(size)))
    sizes = [np.add(text_px(probe.prop, lab.text), 2 * margin) for lab in labels]
    plotter.remove_actor("lp", render=False)
    _, rays, patches = world_records(drawing, matrix, size) if drawing is not None else ((), [], [])
    placements = place_labels(
        np.column_stack([col, row]), sizes, region, obstacles=[*obstacles, *patches], rays=rays
    )
    # anchors outside the picture (cropped away) are not "dropped": they are not in it
    x0, x1, y0, y1 = region
    missing = [
        lab.text
        for lab, p, c, r in zip(labels, placements, col, row, strict=True)
        if not p.placed and np.isfinite(c) and x0 <= c <= x1 and y0 <= r <= y1
    ]
    note = ("labels not shown (no room): " + ", ".join(missing)) if missing else None
    return placements, note


def add_placed_labels(plotter, labels, placements, size) -> list:
    """Draw placed labels as 2D text on a white backing, with leader lines where needed.

    Returns the text actors.
    """
    h = size[1]
    k = size_scale(size)
    font = label_font_size(size)
    actors = []
    leaders = []
    for i, (lab, p) in enumerate(zip(labels, placements, strict=True)):
        if not p.placed:
            continue
        x0, y0, x1, y1 = p.box
        txt = plotter.add_text(
            lab.text,
            position=(round(0.5 * (x0 + x1)), round(h - 0.5 * (y0 + y1))),
            font_size=font,
            color=lab.color,
            name=f"label:{i}",
        )
        txt.prop.justification_horizontal = "center"
        txt.prop.justification_vertical = "center"
        txt.prop.background_color = "white"
        txt.prop.background_opacity = 0.75
        actors.append(txt)
        if p.leader:
            ex, ey = p.leader_end()
            leaders.append(((ex, h - ey), (p.anchor[0], h - p.anchor[1])))
    if leaders:
        pts = np.array([[*q, 0.0] for seg in leaders for q in seg], dtype=float)
        lines = np.array([[2, 2 * i, 2 * i + 1] for i in range(len(leaders))]).ravel()
        poly = pv.PolyData(pts, lines=lines)
        mapper = vtkPolyDataMapper2D()
        mapper.SetInputData(poly)
        actor = vtkActor2D()
        actor.SetMapper(mapper)
        actor.GetProperty().SetColor(0.0, 0.0, 0.0)
        actor.GetProperty().SetLineWidth(max(1.0, k))
        plotter.add_actor(actor, reset_camera=False, name="label-leaders", pickable=False)
    return actors
