"""The layout records (:class:`viewer.layout_lint.Layout`) of a matplotlib figure.

Plan, side and eye views, the attack figures and the survey and exposure maps are
matplotlib figures: every text is an artist whose box the figure's own renderer measures,
so the records are read from the figure as it will be written, not re-derived.
"""

from __future__ import annotations

import itertools

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg

from .layout_lint import Layout, TextBox

__all__ = ["figure_layout", "label_costs", "project_px", "world_records"]


def project_px(matrix: np.ndarray, points, size) -> np.ndarray:
    """World points (mm) -> page pixels (column, row; rows down); NaN behind the camera.

    Parameters
    ----------
    matrix : (4, 4) float
        World -> clip coordinates.
    points : (n, 3) float, mm
    size : (int, int)
    """
    p = np.asarray(points, dtype=float).reshape(-1, 3)
    h4 = np.column_stack([p, np.ones(len(p))]) @ np.asarray(matrix, dtype=float).T
    w = h4[:, 3]
    with np.errstate(divide="ignore", invalid="ignore"):
        col = (h4[:, 0] / w + 1.0) * 0.5 * size[0]
        row = (1.0 - h4[:, 1] / w) * 0.5 * size[1]
    out = np.column_stack([col, row])
    out[w <= 0] = np.nan
    return out


def _box(px: np.ndarray):
    px = px[np.all(np.isfinite(px), axis=1)]
    if not len(px):
        return None
    return (
        float(px[:, 0].min()),
        float(px[:, 1].min()),
        float(px[:, 0].max()),
        float(px[:, 1].max()),
    )


def world_records(drawing, matrix: np.ndarray, size) -> tuple[dict, list, list]:
    """Trooper outline boxes, the deciding ray(s) and patch box(es) of a drawing, in px.

    Returns
    -------
    troopers : dict str -> (x0, y0, x1, y1)
    rays : list of ((x, y), (x, y))
    patches : list of (x0, y0, x1, y1)
    """
    troopers: dict = {}
    rays: list = []
    patches: list = []
    for a in drawing.actors:
        tid = a.meta.get("trooper")
        if tid is not None and a.name == f"trooper:{tid}" and a.mesh.n_points:
            b = _box(project_px(matrix, a.mesh.points, size))
            if b is not None:
                troopers[str(tid)] = b
        elif a.name.startswith("witness:") and "eye" in a.meta:
            pq = project_px(matrix, [a.meta["eye"], a.meta["patch_center"]], size)
            if np.all(np.isfinite(pq)) and np.hypot(*(pq[1] - pq[0])) > 1.0:
                rays.append((tuple(pq[0]), tuple(pq[1])))
        elif a.name.startswith("eye-patch:") and "corners" in a.meta:
            b = _box(project_px(matrix, a.meta["corners"], size))
            if b is not None:
                patches.append(b)
    return troopers, rays, patches


def _texts(fig):
    """Every visible text artist of the figure (figure texts, axes texts, legends)."""
    out = list(fig.texts)
    legends = list(fig.legends)
    for ax in fig.axes:
        out.extend(ax.texts)
        if ax.get_legend() is not None:
            legends.append(ax.get_legend())
        if ax.axison:
            out.extend(ax.get_xticklabels() + ax.get_yticklabels())
            out.extend([ax.xaxis.label, ax.yaxis.label])
        out.append(ax.title)
    for leg in legends:
        out.extend(leg.get_texts())
        out.append(leg.get_title())
    return [t for t in out if t.get_visible() and t.get_text().strip()]


def _line_boxes(t, renderer, H: float, dpi: float) -> list[TextBox]:
    """One record per line of a text artist (the SVG writes one ``<text>`` per line)."""
    bb = t.get_window_extent(renderer)
    gid = t.get_gid() or ""
    px = float(t.get_fontsize() * dpi / 72)
    lines = t.get_text().split("\n")
    box = (float(bb.x0), float(H - bb.y1), float(bb.x1), float(H - bb.y0))
    if len(lines) == 1:
        return [TextBox(gid, lines[0], box, px)]
    # matplotlib's own line layout (baselines and advances), moved to the drawn box
    lb, info, _ = t._get_layout(renderer)
    ox, oy = bb.x0 - lb.x0, bb.y0 - lb.y0
    out = []
    for i, (line, (w, h, d), (x, y)) in enumerate(info):
        base = oy + y
        lbox = (float(ox + x), float(H - (base + h - d)), float(ox + x + w), float(H - (base - d)))
        out.append(TextBox(f"{gid}:{i}" if gid else "", line, lbox, px))
    return out


def figure_layout(fig, drawing=None, matrix=None, *, frame=None, about=()) -> Layout:
    """The layout records of a drawn matplotlib figure.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    drawing : viewer.model.Drawing or None
        Its troopers, deciding ray and patch are recorded (with ``matrix``).
    matrix : (4, 4) float or None
        World (mm) -> clip coordinates of the picture.
    frame : (x0, y0, x1, y1) float or None
        The picture's frame in px (rows down); default: the first axes' box.
    about : sequence of str
        The troopers the figure is about (default: ``drawing.about``).
    """
    canvas = fig.canvas if fig.canvas is not None else FigureCanvasAgg(fig)
    renderer = canvas.get_renderer()
    W, H = round(fig.bbox.width), round(fig.bbox.height)
    dpi = float(fig.dpi)
    texts = []
    for t in _texts(fig):
        texts.extend(_line_boxes(t, renderer, H, dpi))
    if frame is None and fig.axes:
        bb = fig.axes[0].get_window_extent(renderer)
        frame = (bb.x0, H - bb.y1, bb.x1, H - bb.y0)
    lay = Layout((W, H), tuple(frame or (0.0, 0.0, W, H)), texts)
    for art in fig.artists + fig.lines:
        gid = art.get_gid() or ""
        if gid.endswith("-leader") and hasattr(art, "get_xdata"):
            xs, ys = art.get_xdata(), art.get_ydata()
            lay.leaders.append(((xs[0] * W, H - ys[0] * H), (xs[1] * W, H - ys[1] * H)))
    if drawing is not None and matrix is not None:
        lay.troopers, lay.rays, lay.patches = world_records(drawing, matrix, (W, H))
        lay.notes = list(drawing.notes)
    lay.about = list(about or (getattr(drawing, "about", None) or []))
    lay.lanes = list(getattr(fig, "geom3d_lanes", []))
    lay.anchors = dict(getattr(fig, "geom3d_anchors", {}))
    return lay


def _line_segments(mesh) -> np.ndarray:
    """(m, 2, 3) float: the straight pieces of a mesh's line cells."""
    lines = np.asarray(getattr(mesh, "lines", []), dtype=np.int64)
    pts = np.asarray(mesh.points, dtype=float)
    out = []
    i = 0
    while i < len(lines):
        k = int(lines[i])
        ids = lines[i + 1 : i + 1 + k]
        out.extend(itertools.pairwise(ids))
        i += k + 1
    if not out:
        return np.zeros((0, 2, 3))
    idx = np.asarray(out, dtype=np.int64)
    return pts[idx]


def label_costs(drawing, matrix: np.ndarray, size) -> tuple[list, list]:
    """What labels should keep off besides troopers: other rays and scenery, in px.

    Returns
    -------
    soft_rays : list of ((x, y), (x, y))
        The pieces of every ray that is not the deciding one (LoF arrows, blocked fans).
    scenery : list of (x0, y0, x1, y1)
        The box of each scenery piece as drawn (not the table or terrain under it all).
    """
    rays: list = []
    scenery: list = []
    for a in drawing.actors:
        if a.layer == "rays" and not a.name.startswith(("witness:", "eye-patch:")):
            seg = _line_segments(a.mesh)
            if len(seg):
                p = project_px(matrix, seg.reshape(-1, 3), size).reshape(-1, 2, 2)
                ok = np.all(np.isfinite(p), axis=(1, 2))
                rays.extend((tuple(s[0]), tuple(s[1])) for s in p[ok])
        elif (
            a.layer == "scenery"
            and a.mesh.n_points
            and a.name not in ("table", "table-edge", "terrain")  # under everything
            and not a.name.endswith("-edges")
        ):
            b = _box(project_px(matrix, a.mesh.points, size))
            if b is not None:
                scenery.append(b)
    return rays, scenery
