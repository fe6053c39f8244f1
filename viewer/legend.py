"""The legend of a diagram: rows of text at a fixed pixel size, each after its symbol,
in a framed box (:func:`add_legend_rows`); the symbols are small coloured polygons in a
unit square (:func:`legend_symbol`). :mod:`viewer.overlay` places it.
"""

from __future__ import annotations

import numpy as np
import pyvista as pv
from vtkmodules.vtkRenderingCore import vtkActor2D, vtkPolyDataMapper2D

from . import palette as pal
from .layout import size_scale
from .model import Drawing
from .text_measure import text_px, wrap

__all__ = ["LEGEND_FONT", "LEGEND_FONT_MIN", "add_legend_rows", "legend_font_size", "legend_symbol"]


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
