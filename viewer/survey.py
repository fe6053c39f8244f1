"""The survey heat map (``geom3d survey``): ``heatmap.png`` and ``heatmap.svg``.

A plan view of the table: every probe position as a marker coloured by how many positions
see it (a colour bar gives the scale), its shape giving the level (circle: level 0, square:
1, triangle: 2, diamond: 3, plus: 4 and up; level k is drawn shifted right and up by
``0.18 k`` grid spacings so that stacked levels stay visible), the listed lanes as lines
(the ten longest drawn heavier), zones outlined and named. The background is the surface
seen from above: for a table mesh (a scan or a DEM) a hillshade with contour lines, for
modelled tables the scenery tops in grey by height.

Reached by the engine through the ``geom3d.renderers`` entry point (``viewer.render``
re-exports :func:`render_survey`); geom3d never imports this package. The same input gives
the same SVG bytes (fixed hash salt, no date) and the same PNG pixels. The page (title
wrapped to it, colour bar and legend in a column beside the map, zone names placed by the
label solver, font sizes in pixels of the output) is :class:`viewer.map_page.MapPage`'s;
:func:`survey_figure` also returns its layout records for the layout lint.
"""

from __future__ import annotations

import matplotlib
import numpy as np
from matplotlib.collections import LineCollection
from matplotlib.colors import LightSource, Normalize
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle
from matplotlib.ticker import MaxNLocator

from .layout import size_scale
from .map_page import DEFAULT_MAP_SIZE, ColorBar, MapLabel, MapPage, map_rc, save_map

__all__ = [
    "CONTOUR_TEXT",
    "LEVEL_MARKERS",
    "MARKER_PX",
    "MARKER_SHARE",
    "ZONE_COLOR",
    "heights_raster",
    "render_survey",
    "survey_figure",
]

#: Marker of each level (the last one for higher levels).
LEVEL_MARKERS = ("o", "s", "^", "D", "P")
_SALT = "geom3d-survey"
#: Contour labels' colour (dark: they are read over the hillshade and the lanes).
CONTOUR_TEXT = "#3a2f25"
#: Zones' outlines and names.
ZONE_COLOR = "#1f4e9c"
#: A probe marker's width, share of the grid spacing, within MARKER_PX (px) at any size.
MARKER_SHARE = 0.18
MARKER_PX = (5.0, 40.0)
_RASTER = 320  # cells on the longer side of the background raster
_LEVEL_SHIFT = 0.18  # markers of level k are drawn k * this * spacing right and up


def _extent(scene, doc) -> tuple[float, float, float, float]:
    size = scene.scenario.table_size
    if size:
        return 0.0, 0.0, float(size[0]), float(size[1])
    pts = np.array([p["position"][:2] for p in doc["positions"]] or [[0.0, 0.0]])
    v = scene.scenery.vertices
    if len(v):
        pts = np.vstack([pts, v[:, :2].min(axis=0), v[:, :2].max(axis=0)])
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    return float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1])


def heights_raster(scene, extent, cells: int = _RASTER):
    """Height of the top surface on a raster over ``extent``.

    Returns
    -------
    z : (ny, nx) float64, mm
        NaN where nothing is under a cell (with a table mesh), else the table top 0.
    xs, ys : (nx,), (ny,) float64, mm
        Cell centres.
    """
    x0, y0, x1, y1 = extent
    step = max(x1 - x0, y1 - y0) / cells
    xs = x0 + step * (np.arange(max(1, round((x1 - x0) / step))) + 0.5)
    ys = y0 + step * (np.arange(max(1, round((y1 - y0) / step))) + 0.5)
    gx, gy = np.meshgrid(xs, ys)
    xy = np.column_stack([gx.ravel(), gy.ravel()])
    surface = getattr(scene, "surface", None)
    if surface is not None and hasattr(surface, "tops"):
        z = np.asarray(surface.tops(xy), dtype=np.float64)
        if not getattr(surface, "has_table_mesh", True):
            z = np.where(np.isnan(z), 0.0, z)
    else:
        z = np.asarray(scene.surface_z(xy), dtype=np.float64)
    return z.reshape(len(ys), len(xs)), xs, ys


def _background(ax, scene, extent, label_pt: float = 8.0) -> None:
    """The table seen from above under a map (``label_pt``: contour labels' size)."""
    z, xs, ys = heights_raster(scene, extent)
    x0, y0, x1, y1 = extent
    box = (x0, x1, y0, y1)
    finite = np.isfinite(z)
    if not finite.any():
        return
    filled = np.where(finite, z, np.nanmin(z))
    if scene.scenario.table_mesh is not None:  # a scan or a DEM: hillshade and contours
        step = float(xs[1] - xs[0]) if len(xs) > 1 else 1.0
        shade = LightSource(azdeg=315, altdeg=45).hillshade(filled, dx=step, dy=step)
        shade = np.where(finite, shade, np.nan)
        ax.imshow(
            shade,
            extent=box,
            origin="lower",
            cmap="gray",
            vmin=0,
            vmax=1,
            alpha=0.55,
            interpolation="bilinear",
            zorder=0,
        )
        lo, hi = float(np.nanmin(z)), float(np.nanmax(z))
        if hi - lo > 1e-6 and len(xs) > 1 and len(ys) > 1:
            levels = np.linspace(lo, hi, 12)[1:-1]
            cs = ax.contour(
                xs, ys, filled, levels=levels, colors="#5a4a3a", linewidths=0.5, alpha=0.7, zorder=1
            )
            # labelled as ground heights: a bare "81 mm" read as the height of a piece (issue 46)
            texts = ax.clabel(
                cs, levels[::3], fontsize=label_pt, fmt="ground %.0f mm", inline=False
            )
            for t in texts:  # level, on a white ground: read as text (the page may drop one)
                t.set_rotation(0.0)
                t.set_color(CONTOUR_TEXT)
                t.set_alpha(1.0)
                t.set_zorder(8)  # over the lanes and the probe markers
                t.set_gid("contour-label")
                t.set_bbox({"facecolor": "white", "alpha": 0.7, "edgecolor": "none", "pad": 1})
    else:  # modelled scenery: tops in grey, darker when higher
        top = float(np.nanmax(z)) or 1.0
        ax.imshow(
            np.where(z > 0.5, z, np.nan),
            extent=box,
            origin="lower",
            cmap="Greys",
            vmin=-0.3 * top,
            vmax=1.3 * top,
            interpolation="nearest",
            zorder=0,
        )


def survey_figure(scene, doc: dict, *, size=DEFAULT_MAP_SIZE, title: str | None = None):
    """The heat map of a survey document and its layout records.

    Parameters
    ----------
    scene : geom3d.Scene
    doc : dict
        The SPEC 11.6 document.
    size : (int, int)
        Page size in pixels of the output.
    title : str or None
        The title (default: the scenario and "survey"); the subtitle (probe, spacing,
        positions, visible pairs) stays.

    Returns
    -------
    fig : matplotlib.figure.Figure
        No pyplot state.
    layout : viewer.layout_lint.Layout
    """
    with matplotlib.rc_context(map_rc(_SALT)):
        return _figure(scene, doc, size, title)


def _figure(scene, doc: dict, size, title):
    page = MapPage(size, getattr(scene.scenario, "units", "mm"))
    fig, ax = page.fig, page.ax
    extent = _extent(scene, doc)
    x0, y0, x1, y1 = extent
    page.table(extent)
    _background(ax, scene, extent, label_pt=page.pt(page.px("label")))
    pos = doc["positions"]
    xyz = np.array([p["position"] for p in pos], dtype=float).reshape(-1, 3)
    sees = np.array([p["sees"] for p in pos], dtype=float)
    level = np.array([p["level"] for p in pos], dtype=int)
    top = max(1.0, float(sees.max()) if len(sees) else 1.0)
    norm = Normalize(vmin=0.0, vmax=top)
    by_id = {p["id"]: k for k, p in enumerate(pos)}
    segs = [[xyz[by_id[ln["a"]], :2], xyz[by_id[ln["b"]], :2]] for ln in doc["lanes"]]
    k = size_scale(page.size)
    if segs:
        ax.add_collection(
            LineCollection(
                segs[10:], colors="#c0392b", linewidths=page.pt(max(0.8, k)), alpha=0.35,
                zorder=2,
            )
        )  # fmt: skip
        ax.add_collection(
            LineCollection(
                segs[:10], colors="#c0392b", linewidths=page.pt(max(2.0, 2.4 * k)), alpha=0.9,
                zorder=3,
            )
        )  # fmt: skip
    spacing = float(doc.get("spacing_mm") or 50.0)
    span = max(x1 - x0, y1 - y0, 1.0)
    handles, dots = [], []
    for lv in range(len(LEVEL_MARKERS)):
        sel = level == lv if lv < len(LEVEL_MARKERS) - 1 else level >= lv
        if not sel.any():
            continue
        m = LEVEL_MARKERS[lv]
        shift = _LEVEL_SHIFT * spacing * level[sel]  # upper levels beside lower ones
        dots.append(
            (
                ax.scatter(
                    xyz[sel, 0] + shift,
                    xyz[sel, 1] + shift,
                    c=sees[sel],
                    cmap="viridis",
                    norm=norm,
                    marker=m,
                    edgecolors="#222222",
                    linewidths=page.lw(0.6),
                    zorder=4 + lv,
                ),
                1.0 if lv == 0 else 1.1,
            )
        )
        label = f"level {lv}" if lv < len(LEVEL_MARKERS) - 1 else f"level {lv}+"
        handles.append(
            Line2D(
                [],
                [],
                lw=0,
                marker=m,
                mfc="#9ecae1",
                mec="#222222",
                label=f"{label} ({int(sel.sum())})",
            )
        )
    handles.append(Line2D([], [], color="#c0392b", lw=page.pt(2.0), label="longest lanes"))
    zones = getattr(scene.scenario, "zones", ())
    labels = []
    for zid, (zx0, zy0, zx1, zy1) in zones:
        ax.add_patch(
            Rectangle(
                (zx0, zy0),
                zx1 - zx0,
                zy1 - zy0,
                fill=False,
                edgecolor=ZONE_COLOR,
                linewidth=page.pt(max(1.5, 2.0 * k)),
                linestyle="--",
                zorder=9,
            )
        )
        labels.append(MapLabel(zid, (zx0 + 0.01 * span, zy1 - 0.01 * span), ZONE_COLOR))
    if zones:
        handles.append(Line2D([], [], color=ZONE_COLOR, lw=page.pt(2.0), ls="--", label="zones"))
    ticks = [v for v in MaxNLocator(nbins=8, integer=True).tick_values(0.0, top) if 0 <= v <= top]
    bar = ColorBar(
        matplotlib.cm.ScalarMappable(norm=norm, cmap="viridis"),
        tuple(ticks),
        tuple(f"{v:g}" for v in ticks),
        "positions that see it",
    )
    probe = doc["probe"]
    n = len(pos)
    layout = page.finish(
        title=f"{scene.scenario.name}: survey" if title is None else title,
        subtitle=f"silhouette {probe['silhouette']} probes every {page.length(spacing)}; "
        f"{n} positions, {len(doc['visible_pairs'])} visible pairs",
        limits=(x0 - 0.02 * span, y0 - 0.02 * span, x1 + 0.02 * span, y1 + 0.02 * span),
        handles=handles,
        colorbar=bar,
        observers=[],
        labels=labels,
    )
    # markers: a share of the grid spacing at the final scale, within readable bounds
    d_px = float(np.clip(MARKER_SHARE * spacing * page.scale, MARKER_PX[0], MARKER_PX[1]))
    for coll, f in dots:
        coll.set_sizes([(page.pt(d_px * f)) ** 2])
    return fig, layout


def render_survey(
    scene, doc: dict, *, size=DEFAULT_MAP_SIZE, title: str | None = None
) -> dict[str, bytes]:
    """``{"heatmap.png": bytes, "heatmap.svg": bytes}`` for a survey document.

    Parameters
    ----------
    scene : geom3d.scene.scene.Scene
        The surveyed scene (background, zones, table size).
    doc : dict
        The SPEC 11.6 document (:func:`geom3d.survey.survey`).
    size : (int, int)
        Page size in pixels (the PNG's).
    title : str or None
        Replaces the generated title.
    """
    fig, _ = survey_figure(scene, doc, size=size, title=title)
    files = save_map(fig, _SALT, ("png", "svg"))
    return {"heatmap.png": files["png"], "heatmap.svg": files["svg"]}
