"""2D overlay of a diagram: title band, legend column (legend box and notes), masks, text.

Positions are fractions of the viewport or pixels; the margins come from
:mod:`viewer.layout`. The legend rows and their symbols are :mod:`viewer.legend`'s;
text is measured as VTK draws it by :mod:`viewer.text_measure`.
"""

from __future__ import annotations

import numpy as np
import pyvista as pv
from vtkmodules.vtkRenderingCore import (
    vtkActor2D,
    vtkCoordinate,
    vtkPolyDataMapper2D,
)

from . import palette as pal
from .figure_layout import world_records
from .labels import place_labels
from .layout import BOTTOM_MARGIN, LEGEND_COLUMN, TITLE_BAND, size_scale
from .legend import add_legend_rows
from .model import Drawing
from .text_measure import fit_lines, text_px, wrap

__all__ = [
    "add_mask",
    "add_overlay",
    "add_placed_labels",
    "label_font_size",
    "place_world_labels",
]


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
