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
the same SVG bytes (fixed hash salt, no date) and the same PNG pixels.
"""

from __future__ import annotations

from io import BytesIO

import matplotlib
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import LineCollection
from matplotlib.colors import LightSource, Normalize
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle

__all__ = ["LEVEL_MARKERS", "heights_raster", "render_survey", "survey_figure"]

#: Marker of each level (the last one for higher levels).
LEVEL_MARKERS = ("o", "s", "^", "D", "P")
_RC = {"svg.hashsalt": "geom3d-survey", "svg.fonttype": "none", "font.family": "DejaVu Sans"}
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


def _background(ax, scene, extent) -> None:
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
            ax.clabel(cs, levels[::3], fontsize=6, fmt="ground %.0f mm")
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


def survey_figure(scene, doc: dict, *, size_in=(10.0, 8.5), dpi: int = 110) -> Figure:
    """The heat map of a survey document (a matplotlib Figure, no pyplot state)."""
    with matplotlib.rc_context(_RC):
        fig = Figure(figsize=size_in, dpi=dpi)
        FigureCanvasAgg(fig)
        ax = fig.add_axes((0.07, 0.08, 0.74, 0.84))
        cax = fig.add_axes((0.85, 0.08, 0.025, 0.84))
        extent = _extent(scene, doc)
        x0, y0, x1, y1 = extent
        ax.add_patch(
            Rectangle(
                (x0, y0),
                x1 - x0,
                y1 - y0,
                facecolor="#f4f1ea",
                edgecolor="#444444",
                linewidth=1.0,
                zorder=-1,
            )
        )
        _background(ax, scene, extent)
        pos = doc["positions"]
        xyz = np.array([p["position"] for p in pos], dtype=float).reshape(-1, 3)
        sees = np.array([p["sees"] for p in pos], dtype=float)
        level = np.array([p["level"] for p in pos], dtype=int)
        norm = Normalize(vmin=0.0, vmax=max(1.0, float(sees.max()) if len(sees) else 1.0))
        by_id = {p["id"]: k for k, p in enumerate(pos)}
        segs = [[xyz[by_id[ln["a"]], :2], xyz[by_id[ln["b"]], :2]] for ln in doc["lanes"]]
        if segs:
            ax.add_collection(
                LineCollection(segs[10:], colors="#c0392b", linewidths=0.6, alpha=0.35, zorder=2)
            )
            ax.add_collection(
                LineCollection(segs[:10], colors="#c0392b", linewidths=1.6, alpha=0.9, zorder=3)
            )
        spacing = float(doc.get("spacing_mm") or 50.0)
        span = max(x1 - x0, y1 - y0, 1.0)
        msize = float(np.clip(0.45 * spacing / span * 720, 6, 60))
        handles = []
        for lv in range(len(LEVEL_MARKERS)):
            sel = level == lv if lv < len(LEVEL_MARKERS) - 1 else level >= lv
            if not sel.any():
                continue
            m = LEVEL_MARKERS[lv]
            shift = _LEVEL_SHIFT * spacing * level[sel]  # upper levels beside lower ones
            ax.scatter(
                xyz[sel, 0] + shift,
                xyz[sel, 1] + shift,
                c=sees[sel],
                cmap="viridis",
                norm=norm,
                marker=m,
                s=msize if lv == 0 else msize * 1.2,
                edgecolors="#222222",
                linewidths=0.4,
                zorder=4 + lv,
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
        handles.append(Line2D([], [], color="#c0392b", lw=1.6, label="longest lanes"))
        zones = getattr(scene.scenario, "zones", ())
        for zid, (zx0, zy0, zx1, zy1) in zones:
            ax.add_patch(
                Rectangle(
                    (zx0, zy0),
                    zx1 - zx0,
                    zy1 - zy0,
                    fill=False,
                    edgecolor="#1f4e9c",
                    linewidth=1.8,
                    linestyle="--",
                    zorder=9,
                )
            )
            ax.text(
                zx0 + 0.01 * span,
                zy1 - 0.01 * span,
                zid,
                color="#1f4e9c",
                fontsize=8,
                va="top",
                ha="left",
                zorder=10,
                bbox={"facecolor": "white", "alpha": 0.7, "edgecolor": "none", "pad": 1},
            )
        if zones:
            handles.append(Line2D([], [], color="#1f4e9c", lw=1.8, ls="--", label="zones"))
        ax.set_xlim(x0 - 0.02 * span, x1 + 0.02 * span)
        ax.set_ylim(y0 - 0.02 * span, y1 + 0.02 * span)
        ax.set_aspect("equal")
        ax.set_xlabel("x (mm)")
        ax.set_ylabel("y (mm)")
        probe = doc["probe"]
        n = len(pos)
        ax.set_title(
            f"{scene.scenario.name}: survey, silhouette {probe['silhouette']} probes every "
            f"{spacing:g} mm - {n} positions, {len(doc['visible_pairs'])} visible pairs",
            fontsize=10,
        )
        ax.legend(
            handles=handles,
            loc="upper left",
            bbox_to_anchor=(0.0, -0.05),
            ncol=4,
            fontsize=8,
            frameon=False,
        )
        cb = fig.colorbar(matplotlib.cm.ScalarMappable(norm=norm, cmap="viridis"), cax=cax)
        cb.solids.set_rasterized(False)  # a vector colour bar in the SVG
        cb.set_label("positions that see it")
    return fig


def render_survey(scene, doc: dict) -> dict[str, bytes]:
    """``{"heatmap.png": bytes, "heatmap.svg": bytes}`` for a survey document.

    Parameters
    ----------
    scene : geom3d.scene.scene.Scene
        The surveyed scene (background, zones, table size).
    doc : dict
        The SPEC 11.6 document (:func:`geom3d.survey.survey`).
    """
    fig = survey_figure(scene, doc)
    out = {}
    with matplotlib.rc_context(_RC):
        for name, fmt, meta in (
            ("heatmap.png", "png", {"Software": None}),
            ("heatmap.svg", "svg", {"Date": None, "Creator": None}),
        ):
            buf = BytesIO()
            fig.savefig(buf, format=fmt, metadata=meta)
            out[name] = buf.getvalue()
    return out
