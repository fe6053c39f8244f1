"""Side and eye views as matplotlib figures: true vector SVG / PDF, and the PNG from them.

The geometry comes from :mod:`viewer.projection` (painter's order, flat shading), the page
from :mod:`viewer.frame` (wrapped title and caption, legend and notes beside or under the
picture, font sizes that follow the page size). Labels are placed by
:func:`viewer.labels.place_labels` away from each other, from every trooper's picture and
from the deciding patch, with leader lines when they had to move away from their anchor.

PNG, SVG and PDF are the same figure, so their text is the same. Every shape carries an
SVG id made from its actor name (:func:`viewer.vector_output.svg_id`; an actor whose faces are
interleaved with others' in the painter's order gets ``-2``, ``-3`` ... on its later
runs); labels are ``label-<n>``; the trooper boxes labels keep clear of are recorded in
the figure's ``geom3d_boxes``.
"""

from __future__ import annotations

from types import SimpleNamespace

import matplotlib
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import LineCollection, PolyCollection
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from . import palette as pal
from .figure_layout import label_costs, world_records
from .frame import MARGIN, font_px, layout_frame, legend_handle, measure
from .labels import place_labels, unplaced_note
from .layout import size_scale
from .model import Drawing
from .projection import Face, project_drawing, view_basis
from .vector_output import DEFAULT_VECTOR_DPI, RC, svg_id
from .views import hidden_trooper_labels

__all__ = ["projected_figure"]


def _pt(px: float, dpi: float) -> float:
    return px * 72.0 / dpi


def projected_figure(scene, drawing: Drawing, size, dpi: int | None = None):
    """A ``side`` or ``eye`` drawing as a matplotlib Figure and its world -> clip matrix.

    Parameters
    ----------
    scene : geom3d.Scene
    drawing : Drawing
        ``drawing.view`` is ``side`` or ``eye``.
    size : (int, int)
        Page size in pixels.
    dpi : int or None
        Pixels per inch of the page (default :data:`viewer.vector_output.DEFAULT_VECTOR_DPI`).

    Returns
    -------
    fig : matplotlib.figure.Figure
    matrix : (4, 4) float
        World (mm) -> clip coordinates of the picture, as a camera's
        (:meth:`viewer.render.RenderResult.world_to_pixel`).
    drawing : Drawing
        ``drawing`` with the notes the figure added (labels behind scenery or without room).
    """
    with matplotlib.rc_context(RC):
        return _figure(scene, drawing, size, dpi)


def _figure(scene, drawing: Drawing, size, dpi):
    dpi = float(dpi or DEFAULT_VECTOR_DPI)
    W, H = size
    k = size_scale(size)
    fig = Figure(figsize=(W / dpi, H / dpi), dpi=dpi, facecolor=pal.BACKGROUND)
    renderer = FigureCanvasAgg(fig).get_renderer()
    basis = view_basis(drawing)
    drawing = hidden_trooper_labels(scene, drawing, basis)
    notes = list(drawing.notes)

    leg = None
    legend_wh = (0.0, 0.0)
    if drawing.show_legend and drawing.legend:
        lw = _pt(max(1.5, 3 * k), dpi)
        leg = fig.legend(
            [legend_handle(e.face, e.color, lw) for e in drawing.legend],
            [e.label for e in drawing.legend],
            loc="upper left", bbox_to_anchor=(0, 1), bbox_transform=fig.transFigure,
            fontsize=_pt(font_px("legend", size), dpi), frameon=True, fancybox=False,
            edgecolor=pal.TEXT, borderaxespad=0.0, handlelength=2.0,
        )  # fmt: skip
        leg.set_gid("legend")
        leg.get_frame().set_linewidth(0.8)
        bb = leg.get_window_extent(renderer)
        legend_wh = (float(bb.width), float(bb.height))
    f0, f1 = basis.fit
    frame = layout_frame(renderer, drawing, size, dpi, tuple(f1 - f0), legend_wh)
    x0, y0, x1, y1 = frame.picture
    s = min((x1 - x0) / (f1[0] - f0[0]), (y1 - y0) / (f1[1] - f0[1]))  # px per view unit
    if drawing.labels:  # a row of labels fits over the tallest model, by its anchor:
        # the frame is laid out again for the taller fit (it grows where the page has
        # room, else the picture is drawn a little smaller)
        f1 = f1 + np.array([0.0, LABEL_HEADROOM_EM * font_px("label", size) / s])
        frame = layout_frame(renderer, drawing, size, dpi, tuple(f1 - f0), legend_wh)
        x0, y0, x1, y1 = frame.picture
        s = min((x1 - x0) / (f1[0] - f0[0]), (y1 - y0) / (f1[1] - f0[1]))
    c = 0.5 * (f0 + f1)
    ulim = (c[0] - 0.5 * (x1 - x0) / s, c[0] + 0.5 * (x1 - x0) / s)
    vlim = (c[1] - 0.5 * (y1 - y0) / s, c[1] + 0.5 * (y1 - y0) / s)
    ax = fig.add_axes((x0 / W, 1 - y1 / H, (x1 - x0) / W, (y1 - y0) / H))
    ax.set_axis_off()
    ax.set_xlim(*ulim)
    ax.set_ylim(*vlim)
    ax.set_aspect("auto")

    def to_px(uv):
        uv = np.asarray(uv, dtype=float).reshape(-1, 2)
        return np.column_stack([x0 + (uv[:, 0] - ulim[0]) * s, y0 + (vlim[1] - uv[:, 1]) * s])

    items, overlay = project_drawing(drawing, basis)
    _draw_items(ax, drawing, items, overlay, k, dpi)

    # labels: away from each other, every trooper and the deciding patch
    boxes = _obstacles(drawing, basis, to_px)
    fig.geom3d_boxes = boxes  # type: ignore[attr-defined]  # for tests and callers
    lpx = font_px("label", size)
    anchors, sizes = [], []
    pad = max(2.0, 2 * k)
    for lab in drawing.labels:
        uv, depth = basis.project(_anchor(scene, lab))
        ok = not basis.perspective or depth[0] > basis.near
        anchors.append(to_px(uv)[0] if ok else (np.nan, np.nan))
        w, h = measure(renderer, lab.text, lpx, dpi)
        sizes.append((w + 2 * pad, h + 2 * pad))
    region = (x0, x1, y0, y1)
    m = _matrix(basis, ulim, vlim, x0, y0, s, size)
    _, rays, _ = world_records(drawing, m, size)
    soft, scenery = label_costs(drawing, m, size)
    places = place_labels(
        anchors, sizes, region, obstacles=list(boxes.values()), rays=rays, soft_rays=soft,
        scenery=scenery,
    )  # fmt: skip
    fig.geom3d_anchors = {  # type: ignore[attr-defined]  # for the layout records
        f"label-{i}": (float(pl.anchor[0]), float(pl.anchor[1]))
        for i, pl in enumerate(places)
        if pl.placed
    }
    for i, (lab, pl) in enumerate(zip(drawing.labels, places, strict=True)):
        if not pl.placed:
            continue
        bx0, by0, bx1, by1 = pl.box
        fig.text(0.5 * (bx0 + bx1) / W, 1 - 0.5 * (by0 + by1) / H, lab.text,
                 fontsize=_pt(lpx, dpi), color=lab.color, gid=f"label-{i}", va="center",
                 ha="center", zorder=10_000,
                 bbox={"facecolor": "white", "alpha": 0.8, "edgecolor": "none",
                       "pad": _pt(pad, dpi)})  # fmt: skip
        if pl.leader:
            ex, ey = pl.leader_end()
            fig.add_artist(
                Line2D([ex / W, pl.anchor[0] / W], [1 - ey / H, 1 - pl.anchor[1] / H],
                       transform=fig.transFigure, color=pal.TEXT, lw=_pt(max(1.0, k), dpi),
                       zorder=9_999, gid=f"label-{i}-leader")
            )  # fmt: skip
    in_view = [
        lab.text
        for lab, pl, a in zip(drawing.labels, places, anchors, strict=True)
        if not pl.placed and np.isfinite(a[0]) and x0 <= a[0] <= x1 and y0 <= a[1] <= y1
    ]
    note = unplaced_note(in_view, [SimpleNamespace(placed=False)] * len(in_view))
    if note:
        notes.insert(0, note)  # first: the column may not hold every note
        frame = layout_frame(renderer, _with_notes(drawing, notes), size, dpi,
                             tuple(f1 - f0), legend_wh)  # fmt: skip

    _text(fig, frame, drawing, size, dpi, leg)
    return fig, m, _with_notes(drawing, notes)


#: A trooper's label is anchored this far (mm) over the top of its model.
LABEL_OVER_MM = 2.0
#: Room kept over the drawing's top for its labels, in label font sizes (a line of text
#: and its backing), so a label can sit over the model it names.
LABEL_HEADROOM_EM = 2.0


def _anchor(scene, lab) -> np.ndarray:
    """(3,) float, mm: where a label points in a side or eye view.

    A trooper's label points at the top centre of its model: its plan anchor lies off
    to one side of the base (up and to the right in a plan), which a section seen from
    the side draws half a model away (issue 47).
    """
    t = scene.troopers.get(lab.trooper) if lab.trooper is not None else None
    if t is None:
        return np.asarray(lab.point, dtype=float)
    x, y, z = (float(v) for v in t.position)
    return np.array([x, y, z + float(t.height) + LABEL_OVER_MM])


def _with_notes(drawing: Drawing, notes) -> Drawing:
    from dataclasses import replace

    return replace(drawing, notes=list(notes))


def _text(fig, frame, drawing, size, dpi, leg) -> None:
    W, H = size
    m = MARGIN * min(W, H)
    tpx, spx, cpx, npx = (font_px(k, size) for k in ("title", "subtitle", "caption", "notes"))
    y = frame.title_y
    for i, line in enumerate(frame.title):
        fig.text(m / W, 1 - y / H, line, fontsize=_pt(tpx, dpi), color=pal.TEXT, va="top",
                 ha="left", gid="title" if i == 0 else f"title-{i}")  # fmt: skip
        y += 1.25 * tpx
    for i, line in enumerate(frame.subtitle):
        fig.text(m / W, 1 - y / H, line, fontsize=_pt(spx, dpi), color=pal.TEXT, va="top",
                 ha="left", gid="subtitle" if i == 0 else f"subtitle-{i}")  # fmt: skip
        y += 1.25 * spx
    if leg is not None:
        lx, ly = frame.legend_xy
        leg.set_bbox_to_anchor((lx / W, 1 - ly / H), transform=fig.transFigure)
    nx, ny = frame.notes_xy
    for i, line in enumerate(frame.notes):  # one text per line: every line's box is known
        fig.text(nx / W, 1 - (ny + i * 1.25 * npx) / H, line, fontsize=_pt(npx, dpi),
                 color=pal.TEXT, va="top", ha="left", gid=f"notes-{i}")  # fmt: skip
    for i, line in enumerate(frame.caption):
        fig.text(m / W, 1 - (frame.caption_y + i * 1.3 * cpx) / H, line,
                 fontsize=_pt(cpx, dpi), color=pal.TEXT, va="top", ha="left",
                 gid=f"caption-{i}")  # fmt: skip


def _draw_items(ax, drawing, items, overlay, k, dpi) -> None:
    """Faces and segments in painter's order, grouped in runs of one actor and kind."""
    actors = drawing.actors
    run: list = []
    used: dict[str, int] = {}

    def flush():
        if not run:
            return
        a = actors[run[0].actor]
        gid = svg_id(a.name)
        used[gid] = used.get(gid, 0) + 1  # an actor split into runs: -2, -3, ...
        if used[gid] > 1:
            gid = f"{gid}-{used[gid]}"
        if isinstance(run[0], Face):
            opaque = a.opacity >= 1.0
            polys, colors = merge_faces(run)
            pc = PolyCollection(
                polys, facecolors=colors, edgecolors=colors if opaque else "none",
                linewidths=_pt(1.5, dpi) if opaque else 0.0, zorder=2,
            )  # fmt: skip
            pc.set_gid(gid)
            ax.add_collection(pc)
        else:
            ax.add_collection(_lines(a, [p.uv for p in run], k, dpi, gid + "-edge", 2))
        run.clear()

    for it in items:
        if run and (run[0].actor != it.actor or type(run[0]) is not type(it)):
            flush()
        run.append(it)
    flush()
    by_actor: dict[int, list] = {}
    for p in overlay:
        by_actor.setdefault(p.actor, []).append(p.uv)
    for i, segs in by_actor.items():
        a = actors[i]
        ax.add_collection(_lines(a, segs, k, dpi, svg_id(a.name), 3 + 0.001 * i))


#: Consecutive faces of one colour are drawn as one polygon when their union's area is
#: their areas' sum within this fraction (they do not overlap: the picture is the same).
MERGE_AREA_TOL = 1e-6


def merge_faces(run) -> tuple[list, list]:
    """Polygons and colours for a painter's-order run of one actor's faces, lighter.

    Consecutive faces of the same colour that do not overlap (a cylinder's quads, a cap's
    fan) become one polygon: the drawing order, and so the picture, is unchanged, and the
    SVG holds one path instead of many (only the visible outline of each patch).

    Parameters
    ----------
    run : list of projection.Face

    Returns
    -------
    polys : list of (k, 2) float arrays
    colors : list of RGBA tuples
    """
    import shapely
    from shapely.geometry import Polygon as SPolygon

    polys: list = []
    colors: list = []
    group: list = []

    def emit():
        if len(group) > 1:
            parts = [SPolygon(f.uv) for f in group]
            if all(p.is_valid and p.area > 0 for p in parts):
                u = shapely.union_all(parts)
                total = sum(p.area for p in parts)
                if (
                    u.geom_type == "Polygon"
                    and not u.interiors
                    and abs(u.area - total) <= MERGE_AREA_TOL * max(total, 1e-12)
                ):
                    polys.append(np.asarray(u.exterior.coords)[:-1])
                    colors.append(group[0].rgba)
                    group.clear()
                    return
        polys.extend(f.uv for f in group)
        colors.extend(f.rgba for f in group)
        group.clear()

    for f in run:
        if group and f.rgba != group[0].rgba:
            emit()
        group.append(f)
    emit()
    return polys, colors


def _lines(a, segs, k, dpi, gid, zorder):
    lw = _pt(max(1.0, (a.line_width or 1.0) * k), dpi)
    style = (0, (4, 2.5)) if a.meta.get("dashed") else "solid"
    lc = LineCollection(segs, colors=a.color or pal.SCENERY_EDGE, linewidths=lw,
                        alpha=None if a.opacity >= 1.0 else a.opacity, linestyles=style,
                        zorder=zorder, capstyle="round")  # fmt: skip
    lc.set_gid(gid)
    return lc


def _obstacles(drawing: Drawing, basis, to_px) -> dict[str, tuple]:
    """Pixel boxes labels keep clear of: each trooper's picture and the deciding patch."""
    out: dict[str, tuple] = {}
    for a in drawing.actors:
        tid = a.meta.get("trooper")
        keep = (tid is not None and a.name == f"trooper:{tid}") or a.name.startswith("eye-patch:")
        if not keep or not a.mesh.n_points:
            continue
        uv, depth = basis.project(np.asarray(a.mesh.points, dtype=float))
        if basis.perspective:
            uv = uv[depth > basis.near]
        if not len(uv):
            continue
        p = to_px(uv)
        box = (
            float(p[:, 0].min()),
            float(p[:, 1].min()),
            float(p[:, 0].max()),
            float(p[:, 1].max()),
        )
        key = f"trooper:{tid}" if tid is not None and a.name == f"trooper:{tid}" else a.name
        out[key] = box
    return out


def _matrix(basis, ulim, vlim, x0, y0, s, size) -> np.ndarray:
    """World -> clip of the picture: the view rows followed by the page's affine map."""
    W, H = size
    # column = x0 + (u - u0) s ; ndc_x = 2 column / W - 1 (u = U.p / Wrow.p)
    ax_ = 2 * s / W
    bx = 2 * (x0 - ulim[0] * s) / W - 1
    # row = y0 + (v1 - v) s ; ndc_y = 1 - 2 row / H
    ay = 2 * s / H
    by = 1 - 2 * (y0 + vlim[1] * s) / H
    rows = basis.rows
    m = np.zeros((4, 4))
    m[0] = ax_ * rows[0] + bx * rows[3]
    m[1] = ay * rows[1] + by * rows[3]
    m[2] = -1e-3 * rows[2]
    m[3] = rows[3]
    return m
