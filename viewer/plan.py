"""True vector plan views (``--view top`` to ``.svg`` / ``.pdf``) drawn with matplotlib.

Everything is drawn from the geometry: scenery as height bands and footprints, terrain as
a hillshade (merged grey cells) under translucent filled contours and contour lines
(:mod:`viewer.plan_scenery`), every other actor of the
:class:`~viewer.model.Drawing` (bases, facing arcs, templates, rays, highlights, scale
bar) projected straight down (:mod:`viewer.vector`), labels placed without overlap with
leader lines (:mod:`viewer.labels`), and the same title band, legend column, notes and
colours (:mod:`viewer.palette`) as the PNG. Only vector artists are used (no ``imshow``),
so the SVG holds no ``<image>`` and the PDF no image XObject.

Every shape carries an SVG id made from its actor name (``trooper-<id>``,
``trooper-<id>-front``, ``template-0``, ``affected-<id>``, ``excluded-<id>``,
``scenery-<piece>``, ``label-<n>``...). The same input gives the same bytes: the SVG hash
salt is fixed and no date, creator or producer is written
(:mod:`viewer.vector_output`).
"""

from __future__ import annotations

import itertools

import matplotlib
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, PathPatch
from matplotlib.path import Path as MplPath

from . import palette as pal
from .figure_layout import label_costs, world_records
from .frame import fit_lines, fit_text, font_px, wrap_px
from .labels import place_labels, unplaced_note
from .layers.route_windows import LANE_GAP_PX, LANE_WIDTH, beside
from .layers.scenery import scenery_legend
from .layout import BOTTOM_MARGIN, LEGEND_COLUMN, TITLE_BAND, size_scale
from .model import Drawing, Label
from .plan_scenery import plan_scenery
from .vector import polygon_paths, project_actor
from .vector_output import DEFAULT_VECTOR_DPI, RC, svg_id

__all__ = ["TERRAIN_FILL_ALPHA", "plan_figure", "plan_pixels"]

#: Opacity of the terrain's elevation fills over its hillshade (slopes show through).
TERRAIN_FILL_ALPHA = 0.5


def _pt(px: float, dpi: float) -> float:
    return px * 72.0 / dpi


def _path(geom) -> MplPath | None:
    verts, codes = [], []
    for ext, holes in polygon_paths(geom):
        for ring in (ext, *holes):
            if len(ring) < 3:
                continue
            verts.extend(ring.tolist())
            codes.extend(
                [MplPath.MOVETO] + [MplPath.LINETO] * (len(ring) - 2) + [MplPath.CLOSEPOLY]
            )
    return MplPath(np.array(verts), codes) if verts else None


def _legend_handle(face: str, color: str, lw: float):
    if face == "line":
        return Line2D([], [], color=color, lw=lw)
    if face == "dashed":
        return Line2D([], [], color=color, lw=lw, linestyle=(0, (4, 2)))
    if face == "arrow":
        return Line2D([], [], color=color, lw=lw, marker=">", markevery=[1])
    if face == "cross":
        return Line2D([], [], color=color, lw=0, marker="x", markersize=8, mew=2.5)
    if face == "ring":
        return Line2D([], [], lw=0, marker="o", markersize=10, mfc="none", mec=color, mew=3)
    if face == "disc":
        return Line2D([], [], lw=0, marker="o", markersize=7, mfc=color, mec=color)
    return Patch(facecolor=color, edgecolor=pal.TEXT, linewidth=0.8)


def _fit_limits(bounds, box_px) -> tuple[tuple[float, float], tuple[float, float]]:
    """Axis limits showing ``bounds`` (mm) at one scale in a ``box_px`` (w, h) area."""
    lo, hi = np.asarray(bounds, dtype=float)
    pw, ph = box_px
    bw, bh = max(float(hi[0] - lo[0]), 1.0), max(float(hi[1] - lo[1]), 1.0)
    s = max(bw / pw, bh / ph)
    cx, cy = 0.5 * float(lo[0] + hi[0]), 0.5 * float(lo[1] + hi[1])
    return (cx - 0.5 * pw * s, cx + 0.5 * pw * s), (cy - 0.5 * ph * s, cy + 0.5 * ph * s)


def _trooper_boxes_mm(drawing: Drawing) -> dict[str, tuple]:
    """Each trooper's drawn base (and hull) as an (x0, y0, x1, y1) box in mm."""
    out = {}
    for a in drawing.actors:
        tid = a.meta.get("trooper")
        if tid is not None and a.name == f"trooper:{tid}" and a.mesh.n_points:
            p = np.asarray(a.mesh.points, dtype=float)[:, :2]
            out[str(tid)] = (*p.min(axis=0), *p.max(axis=0))
    return out


def _whole_troopers(bounds: np.ndarray, boxes) -> tuple[np.ndarray, np.ndarray]:
    """``bounds`` ((2, 2) mm) grown to take in whole every trooper box it cuts."""
    lo, hi = bounds[0].copy(), bounds[1].copy()
    for _ in range(3):  # growing may cut another: a few rounds
        grew = False
        for b in boxes:
            cut = b[0] < hi[0] and lo[0] < b[2] and b[1] < hi[1] and lo[1] < b[3]
            inside = lo[0] <= b[0] and b[2] <= hi[0] and lo[1] <= b[1] and b[3] <= hi[1]
            if cut and not inside:
                lo, hi = np.minimum(lo, b[:2]), np.maximum(hi, b[2:])
                grew = True
        if not grew:
            break
    return lo, hi


def _draw_scenery(ax, scene, z) -> list:
    size = scene.scenario.table_size
    if size:
        w, h = size
        ax.add_patch(
            PathPatch(
                MplPath([(0, 0), (w, 0), (w, h), (0, h), (0, 0)], closed=True),
                facecolor=pal.TABLE,
                edgecolor=pal.SCENERY_EDGE,
                lw=0.8,
                zorder=next(z),
                gid="table",
            )
        )
    ps = plan_scenery(scene)
    t = ps.terrain
    if t is not None:
        # hillshade: opaque greys, lowest layer; each outlined in its own grey so no
        # anti-aliasing seam shows the table between neighbouring greys
        for geom, grey, name in t["shade"]:
            p = _path(geom)
            if p is not None:
                ax.add_patch(
                    PathPatch(p, facecolor=grey, edgecolor=grey, lw=0.3, zorder=next(z),
                              gid=name, rasterized=False)
                )  # fmt: skip
        zo = next(z)
        fill = {"alpha": TERRAIN_FILL_ALPHA, "rasterized": False}
        if t["triangles"] is not None:
            cf = ax.tricontourf(
                t["x"], t["y"], t["triangles"], t["z"], levels=t["levels"], colors=t["colors"],
                **fill,
            )  # fmt: skip
            cl = ax.tricontour(
                t["x"], t["y"], t["triangles"], t["z"], levels=t["levels"],
                colors=pal.SCENERY_EDGE, linewidths=0.4,
            )  # fmt: skip
        else:
            cf = ax.contourf(t["x"], t["y"], t["z"], levels=t["levels"], colors=t["colors"], **fill)
            cl = ax.contour(
                t["x"], t["y"], t["z"], levels=t["levels"], colors=pal.SCENERY_EDGE,
                linewidths=0.4,
            )  # fmt: skip
        cf.set_zorder(zo)
        cf.set_gid("terrain-fill")
        cl.set_zorder(zo + 0.5)
        cl.set_gid("terrain-contours")
    for geom, color, opacity, name in ps.bands:
        p = _path(geom)
        if p is not None:
            ax.add_patch(
                PathPatch(p, facecolor=color, edgecolor="none", alpha=opacity, zorder=next(z),
                          gid=name)
            )  # fmt: skip
    for geom, name in ps.outlines:
        p = _path(geom)
        if p is not None:
            ax.add_patch(
                PathPatch(p, facecolor="none", edgecolor=pal.SCENERY_EDGE, lw=0.9,
                          zorder=next(z), gid=name)
            )  # fmt: skip
    return ps.legend


def _draw_actor(ax, a, k: float, dpi: float, zo: float) -> None:
    shape = project_actor(a.mesh)
    color = a.color or pal.SCENERY_EDGE
    gid = svg_id(a.name)
    alpha = None if a.opacity >= 1.0 else a.opacity
    p = _path(shape.area)
    if p is not None:
        ax.add_patch(
            PathPatch(p, facecolor=color, edgecolor="none", alpha=alpha, zorder=zo, gid=gid)
        )
    if shape.lines:
        lw = _pt(max(1.0, (a.line_width or 1.0) * k), dpi)
        style = (0, (4, 2.5)) if a.meta.get("dashed") else "solid"
        lc = LineCollection(
            shape.lines, colors=color, linewidths=lw, alpha=alpha, linestyles=style,
            zorder=zo + 0.1, capstyle="round",
        )  # fmt: skip
        lc.set_gid(gid + ("-edge" if p is not None else ""))
        ax.add_collection(lc)


def _draw_lane(ax, a, k: float, dpi: float, zo: float, mm_per_px: float) -> dict:
    """A route-window lane (:mod:`viewer.layers.route_windows`): its paths moved beside
    the route by its lane number times the lane pitch in pixels (the window width plus
    ``LANE_GAP_PX``), drawn as :func:`_draw_actor` draws lines. Returns the lane as
    drawn: ``{mover, other, lane, track, width_px, mm: [(k, 2) mm paths]}``."""
    pitch_px = max(1.0, LANE_WIDTH * k) + LANE_GAP_PX
    shift = a.meta["lane"] * pitch_px * mm_per_px
    paths = [beside(np.asarray(p, dtype=float)[:, :2], shift) for p in a.meta["paths"]]
    width_px = max(1.0, (a.line_width or 1.0) * k)
    alpha = None if a.opacity >= 1.0 else a.opacity
    lc = LineCollection(
        paths, colors=a.color, linewidths=_pt(width_px, dpi), alpha=alpha, zorder=zo,
        capstyle="butt" if a.meta.get("track") else "round",
    )  # fmt: skip
    lc.set_gid(svg_id(a.name))
    ax.add_collection(lc)
    return {
        "mover": a.meta["mover"],
        "other": a.meta["other"],
        "lane": int(a.meta["lane"]),
        "track": bool(a.meta.get("track")),
        "width_px": width_px,
        "mm": paths,
    }


def plan_figure(scene, drawing: Drawing, size, dpi: int | None = None) -> Figure:
    """The plan view of ``drawing`` (see :func:`_plan_figure`), built under
    :data:`viewer.vector_output.RC`."""
    with matplotlib.rc_context(RC):
        return _plan_figure(scene, drawing, size, dpi)


def _plan_figure(scene, drawing: Drawing, size, dpi: int | None = None) -> Figure:
    """The plan view of ``drawing`` as a matplotlib Figure (vector artists only).

    Parameters
    ----------
    scene : geom3d.Scene
    drawing : Drawing
        As built by :func:`viewer.compose.build_drawing` (``top`` view).
    size : (int, int)
        Page size in pixels (line widths and fonts scale with it like the PNG's).
    dpi : int or None
        Pixels per inch of the page (default
        :data:`viewer.vector_output.DEFAULT_VECTOR_DPI`).
    """
    dpi = float(dpi or DEFAULT_VECTOR_DPI)
    W, H = size
    k = size_scale(size)
    fig = Figure(figsize=(W / dpi, H / dpi), dpi=dpi, facecolor=pal.BACKGROUND)
    canvas = FigureCanvasAgg(fig)
    renderer = canvas.get_renderer()
    fpx = lambda px: _pt(px, dpi)  # noqa: E731 - pixel size -> points

    # caption band at the bottom, wrapped to the page width
    cap_font = font_px("caption", size)
    cap_lines = (
        wrap_px(renderer, drawing.caption, cap_font, 0.96 * W, dpi) if drawing.caption else []
    )
    cap_h = (len(cap_lines) * 1.3 * cap_font + 0.01 * H) if cap_lines else 0.0
    bottom = BOTTOM_MARGIN * H + cap_h
    # title band: title and subtitle wrapped to the page (smaller fonts when they need
    # to, never under 11 px); the band grows with the lines it holds
    y = 0.012 * H
    for name, text, px in (
        ("title", drawing.title, font_px("title", size)),
        ("subtitle", drawing.subtitle, font_px("subtitle", size)),
    ):
        if not text:
            continue
        px, lines = fit_text(renderer, text, px, 0.97 * W, dpi)
        for i, line in enumerate(lines):
            fig.text(0.015, 1 - y / H, line, fontsize=fpx(px), color=pal.TEXT, va="top",
                     ha="left", gid=name if i == 0 else f"{name}-{i}")  # fmt: skip
            y += 1.2 * px
    band = max(TITLE_BAND * H, y + 0.01 * H)  # px under the page's top edge

    left, right, top = 0.03 * W, (1.0 - LEGEND_COLUMN) * W, H - band
    # the picture's frame takes the fitted part's shape, centred in the room left; a
    # trooper the fitted part cuts is taken in whole
    bases = _trooper_boxes_mm(drawing)
    lo, hi = _whole_troopers(np.asarray(drawing.bounds, dtype=float)[:, :2], bases.values())
    bw, bh = max(float(hi[0] - lo[0]), 1.0), max(float(hi[1] - lo[1]), 1.0)
    sc = max(bw / (right - left), bh / (top - bottom))
    pw, ph = bw / sc, bh / sc
    left, bottom = left + 0.5 * ((right - left) - pw), bottom + 0.5 * ((top - bottom) - ph)
    right, top = left + pw, bottom + ph
    ax = fig.add_axes((left / W, bottom / H, (right - left) / W, (top - bottom) / H))
    ax.set_axis_off()
    xlim, ylim = _fit_limits(np.array([lo, hi]), (right - left, top - bottom))
    zoom = float(getattr(drawing, "camera", {}).get("zoom") or 1.0)
    if zoom != 1.0:  # --zoom: 1/zoom of the extent, centred on the subject (else as is)
        cx, cy = 0.5 * sum(xlim), 0.5 * sum(ylim)
        sx, sy = (drawing.camera.get("subject") or (cx, cy))[:2]
        xlim = tuple(sx + (v - cx) / zoom for v in xlim)
        ylim = tuple(sy + (v - cy) / zoom for v in ylim)
        # never so far that a trooper the figure is about is cut: take it in, at the
        # picture's shape (less magnified, off the subject's centre when it must)
        about = [bases[t] for t in drawing.about if t in bases]
        if about:
            b = np.asarray(about)
            x0, x1 = min(xlim[0], b[:, 0].min()), max(xlim[1], b[:, 2].max())
            y0, y1 = min(ylim[0], b[:, 1].min()), max(ylim[1], b[:, 3].max())
            aspect = (xlim[1] - xlim[0]) / (ylim[1] - ylim[0])
            if (x1 - x0) / (y1 - y0) > aspect:
                grow = 0.5 * ((x1 - x0) / aspect - (y1 - y0))
                y0, y1 = y0 - grow, y1 + grow
            else:
                grow = 0.5 * ((y1 - y0) * aspect - (x1 - x0))
                x0, x1 = x0 - grow, x1 + grow
            xlim, ylim = (x0, x1), (y0, y1)
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    ax.set_aspect("auto")

    zorders = itertools.count(1.0, 2.0)  # drawing order: each artist above the last
    scen_legend = _draw_scenery(ax, scene, zorders)
    mm_per_px = (xlim[1] - xlim[0]) / max(right - left, 1.0)
    lanes, lane_labels = [], []
    for a in drawing.actors:
        if a.layer == "scenery":
            continue
        if a.meta.get("lane"):  # route windows: lanes laid out in pixels
            lanes.append(_draw_lane(ax, a, k, dpi, next(zorders), mm_per_px))
            if a.meta.get("track"):
                end = lanes[-1]["mm"][-1][-1]  # the lane's last point (mm)
                lane = Label("rays", (end[0], end[1], 0.0), a.meta["other"], a.color)
                lane_labels.append((a.meta["mover"], -a.meta["lane"], lane))
            continue
        _draw_actor(ax, a, k, dpi, next(zorders))

    # labels: placed in pixels (rows down), drawn in figure fractions
    notes = list(drawing.notes)
    label_font = font_px("label", size)
    texts, sizes, anchors = [], [], []
    # lanes named from the outermost in: the first placed takes the place nearest its
    # lane's end, so the names stack in the lanes' order
    labels = [*drawing.labels, *(lab for *_, lab in sorted(lane_labels, key=lambda t: t[:2]))]
    for i, lab in enumerate(labels):
        t = fig.text(0, 0, lab.text, fontsize=fpx(label_font), color=lab.color, gid=f"label-{i}",
                     va="center", ha="center", zorder=10_000)  # fmt: skip
        bb = t.get_window_extent(renderer)
        m = 2 * max(1.0, 2 * k)
        sizes.append((bb.width + 2 * m, bb.height + 2 * m))
        x, y = ax.transData.transform((lab.point[0], lab.point[1]))
        anchors.append((x, H - y))
        texts.append(t)
    region = (0.015 * W, (1.0 - LEGEND_COLUMN) * W, band, H - BOTTOM_MARGIN * H - cap_h)
    # no label covers a trooper's base or the deciding ray; other rays and scenery cost
    matrix = _plan_matrix(ax, W, H)
    troopers, rays, _ = world_records(drawing, matrix, size)
    soft, scenery = label_costs(drawing, matrix, size)
    places = place_labels(
        anchors, sizes, region, obstacles=list(troopers.values()), rays=rays,
        soft_rays=soft, scenery=scenery,
    )  # fmt: skip
    for t, pl in zip(texts, places, strict=True):
        if not pl.placed:
            t.remove()
            continue
        x0, y0, x1, y1 = pl.box
        t.set_position((0.5 * (x0 + x1) / W, 1.0 - 0.5 * (y0 + y1) / H))
        t.set_bbox({"facecolor": "white", "alpha": 0.75, "edgecolor": "none",
                    "pad": fpx(max(1.0, 2 * k))})  # fmt: skip
        if pl.leader:
            ex, ey = pl.leader_end()
            fig.add_artist(
                Line2D([ex / W, pl.anchor[0] / W], [1 - ey / H, 1 - pl.anchor[1] / H],
                       transform=fig.transFigure, color=pal.TEXT, lw=fpx(max(1.0, k)),
                       zorder=9_999, gid=t.get_gid() + "-leader")
            )  # fmt: skip
    # anchors outside the picture (zoomed away) are not missing labels
    inside = [region[0] <= a[0] <= region[1] and region[2] <= a[1] <= region[3] for a in anchors]
    kept = [(lab.text, p) for lab, p, ok in zip(labels, places, inside, strict=True) if ok]
    note = unplaced_note([t for t, _ in kept], [p for _, p in kept])
    if note:
        notes.insert(0, note)  # first: the column may not hold every note
    fig.geom3d_notes = notes  # type: ignore[attr-defined]  # the notes the page shows
    # the lanes as drawn, in page pixels (rows down), for the layout records
    to_px = lambda xy: np.column_stack(  # noqa: E731
        [ax.transData.transform(xy)[:, 0], H - ax.transData.transform(xy)[:, 1]]
    )
    fig.geom3d_lanes = [  # type: ignore[attr-defined]
        {**{k_: v for k_, v in ln.items() if k_ != "mm"}, "px": [to_px(p) for p in ln["mm"]]}
        for ln in lanes
    ]

    # legend column: legend box, then the notes
    x0 = 1.0 - (LEGEND_COLUMN - 0.02) - 0.01
    y_top = 1.0 - band / H
    legend_rows = []
    if drawing.show_legend:
        png_rows = {e.label for e in scenery_legend(scene)}
        sides = [e for e in drawing.legend if e.label.startswith("side ")]
        rest = [e for e in drawing.legend if e not in sides and e.label not in png_rows]
        legend_rows = sides + list(scen_legend) + rest
    if legend_rows:
        lw = fpx(max(1.5, 3 * k))
        lpx = font_px("legend", size)
        # rows wrapped to the column (handle, gaps and frame take about 4.5 em)
        room = max((LEGEND_COLUMN - 0.03) * W - 4.5 * lpx, 9.0 * lpx)
        leg = fig.legend(
            [_legend_handle(e.face, e.color, lw) for e in legend_rows],
            ["\n".join(wrap_px(renderer, e.label, lpx, room, dpi)) for e in legend_rows],
            loc="upper left", bbox_to_anchor=(x0, y_top), bbox_transform=fig.transFigure,
            fontsize=fpx(font_px("legend", size)), frameon=True, fancybox=False,
            edgecolor=pal.TEXT, borderaxespad=0.0, handlelength=2.0,
        )  # fmt: skip
        leg.set_gid("legend")
        leg.get_frame().set_linewidth(0.8)
        y_top = 1.0 - (H - leg.get_window_extent(renderer).y0) / H - 0.02
    if notes:
        nf = font_px("notes", size)
        lines = wrap_px(renderer, "\n".join(notes), nf, (LEGEND_COLUMN - 0.03) * W, dpi)
        # the column ends above the caption: what does not fit is counted, not overlapped
        lines = fit_lines(lines, y_top * H - (BOTTOM_MARGIN * H + cap_h), nf)
        for i, line in enumerate(lines):  # one text per line: each line's box is known
            fig.text(x0, y_top - i * 1.25 * nf / H, line, fontsize=fpx(nf), color=pal.TEXT,
                     va="top", ha="left", gid="notes" if i == 0 else f"notes-{i}")  # fmt: skip
    for i, line in enumerate(cap_lines):
        fig.text(0.015, (0.5 * BOTTOM_MARGIN * H + cap_h - i * 1.3 * cap_font) / H, line,
                 fontsize=fpx(cap_font), color=pal.TEXT, va="top", ha="left",
                 gid="caption" if i == 0 else f"caption-{i}")  # fmt: skip
    return fig


def plan_pixels(fig: Figure, matrix: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The figure rasterised (Agg, at its dpi) and its world -> clip matrix.

    ``matrix`` given (a figure of :mod:`viewer.figure2d`) is returned as it is; else the
    plan's matrix is read from the figure's axes.

    Returns
    -------
    image : (h, w, 3) uint8
    matrix : (4, 4) float
        Maps world (mm) to clip coordinates like a camera matrix, so
        :meth:`viewer.render.RenderResult.world_to_pixel` works on plan views too.
    """
    with matplotlib.rc_context(RC):
        fig.canvas.draw()
        image = np.asarray(fig.canvas.buffer_rgba())[:, :, :3].copy()
    if matrix is not None:
        return image, matrix
    h, w = image.shape[:2]
    return image, _plan_matrix(fig.axes[0], w, h)


def _plan_matrix(ax, w: float, h: float) -> np.ndarray:
    """World (mm) -> clip coordinates of a plan's axes on a ``w`` x ``h`` px page."""
    (x0, y0), (x1, _), (_, y1) = ax.transData.transform([(0.0, 0.0), (1.0, 0.0), (0.0, 1.0)])
    a, c, b, d = x1 - x0, x0, y1 - y0, y0
    m = np.zeros((4, 4))
    m[0, 0], m[0, 3] = 2 * a / w, 2 * c / w - 1
    m[1, 1], m[1, 3] = 2 * b / h, 2 * d / h - 1
    m[2, 2] = -1e-3
    m[3, 3] = 1.0
    return m
