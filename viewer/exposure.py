"""The exposure map (``geom3d exposure``): ``exposure.png`` and ``exposure.svg``.

A plan view of the table. Each standable spot of the lowest level is a cell coloured by
how many observers have Line of Fire to a probe there (a discrete colour bar gives the
counts); **safe** spots (seen by none) are drawn in green with a hatch, so safe ground
reads at a glance even in greyscale. Spots on higher levels (roofs, floors) are drawn as
markers in the same colours, shifted by ``0.25 k`` cells for level k. Observers are drawn
as their bases with an id, a facing arrow and their front arc (the boundary line of the
180° half-plane and a shaded half-disc on the front side; none for a 360° observer, in a
ruleset whose arc is 360° or with ``--ignore-arcs``). 40k vehicles' hulls are drawn
as their plan outlines: they block Line of Fire like scenery. The background is the
survey heat map's (scenery tops or a hillshade). The page (title wrapped to it, the
colour bar and legend in a column beside the map, observer ids placed by the label
solver, font sizes in pixels of the output) is :class:`viewer.map_page.MapPage`'s, as
the survey map's; :func:`exposure_figure` also returns its layout records for the layout
lint. The same input gives the same SVG bytes and PNG pixels.
"""

from __future__ import annotations

import math

import matplotlib
import numpy as np
from matplotlib.colors import BoundaryNorm, ListedColormap, Normalize, to_rgb
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Polygon, Wedge

from .map_page import (
    DEFAULT_MAP_SIZE,
    OTHER_ALPHA,
    ColorBar,
    MapLabel,
    MapPage,
    Observer,
    map_rc,
    save_map,
)
from .palette import side_colors
from .survey import _background

__all__ = ["SAFE_COLOR", "exposure_figure", "render_exposure"]

SAFE_COLOR = "#1a9850"
_SEEN_RAMP = ("#fee08b", "#fdae61", "#f46d43", "#d73027", "#a50026", "#67001f")
_SALT = "geom3d-exposure"
_NO_SIDE = "#2166ac"  # an observer the scene does not know (a document of another scene)
#: Most tick labels on the colour bar of observer counts (every n-th count above).
_MAX_COUNT_TICKS = 11
_ARC_RADIUS_SHARE = 0.08  # shaded front half-disc radius, share of the table's span
#: Opacity of an observer's front half-disc (it was 0.18: too faint to read, issue 46).
ARC_ALPHA = 0.3


def _extent(scene, cells) -> tuple[float, float, float, float]:
    size = scene.scenario.table_size
    if size:
        return 0.0, 0.0, float(size[0]), float(size[1])
    pts = cells[:, :2] if len(cells) else np.zeros((1, 2))
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    return float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1])


def _cmap(k: int):
    colors = [SAFE_COLOR] + [_SEEN_RAMP[min(i, len(_SEEN_RAMP) - 1)] for i in range(k)]
    if k > len(_SEEN_RAMP):
        colors = [SAFE_COLOR, *matplotlib.colormaps["YlOrRd"](np.linspace(0.2, 1.0, k))]
    cmap = ListedColormap(colors)
    return cmap, BoundaryNorm(np.arange(-0.5, k + 1.5), cmap.N)


#: Observers named in a generated title; more are counted ("and 4 more").
TITLE_OBSERVERS = 8


def _title(doc: dict, page: MapPage, n_cells: int) -> tuple[str, str]:
    """The generated title and subtitle of an exposure document."""
    sp = page.length(float(doc["spacing_mm"]))
    probe = doc["probe"]["silhouette"]
    target = doc.get("seen_from")  # SPEC 13.1: the viewshed of one trooper
    name = doc.get("scenario", "")
    if target is not None:
        return (
            f"{name}: where {target} can be seen from",
            f"Line of Fire from a silhouette {probe} probe free to face anywhere, every {sp}; "
            f"hidden from {doc['safe_share']:.1%} of {n_cells} spots",
        )
    obs = list(doc["observers"])
    if len(obs) > TITLE_OBSERVERS:
        obs = [*obs[: TITLE_OBSERVERS - 2], f"and {len(obs) - TITLE_OBSERVERS + 2} more"]
    what = "visibility, arcs ignored" if doc.get("ignore_arcs") else "Line of Fire"
    head = "danger from" if "odds" in doc else "exposure to"
    return (
        f"{name}: {head} {', '.join(obs)} ({what})",
        f"silhouette {probe} probe every {sp}; {doc['safe_share']:.1%} of {n_cells} spots safe",
    )


def exposure_figure(scene, doc: dict, *, size=DEFAULT_MAP_SIZE, title: str | None = None):
    """The exposure map of an ``exposure.json`` document and its layout records.

    Parameters
    ----------
    scene : geom3d.Scene
    doc : dict
        The SPEC 12.5 document (with ``odds``: a danger map, SPEC 13.2).
    size : (int, int)
        Page size in pixels of the output.
    title : str or None
        The title (default: the scenario, the observers, what is decided); the subtitle
        (probe, spacing, safe share) stays.

    Returns
    -------
    fig : matplotlib.figure.Figure
        No pyplot state.
    layout : viewer.layout_lint.Layout
    """
    with matplotlib.rc_context(map_rc(_SALT)):
        return _figure(scene, doc, size, title)


def _figure(scene, doc: dict, size, title):
    cells = np.array([c["position"] for c in doc["cells"]], dtype=float).reshape(-1, 3)
    count = np.array([len(c["seen_by"]) for c in doc["cells"]], dtype=int)
    level = np.array([c["level"] for c in doc["cells"]], dtype=int)
    obs = doc["observers"]
    k = len(obs)
    sp = float(doc["spacing_mm"])
    danger = "odds" in doc  # exposure --odds (SPEC 13.2): cells coloured by P(hit)
    value = np.array([c["p_hit"] for c in doc["cells"]], dtype=float) if danger else count
    page = MapPage(size, getattr(scene.scenario, "units", "mm"))
    fig, ax = page.fig, page.ax
    extent = _extent(scene, cells)
    x0, y0, x1, y1 = extent
    span = max(x1 - x0, y1 - y0, 1.0)
    page.table(extent)
    _background(ax, scene, extent, label_pt=page.pt(page.px("label")))
    if danger:
        cmap, norm = matplotlib.colormaps["YlOrRd"], Normalize(0.0, 1.0)
    else:
        cmap, norm = _cmap(k)
    base = level == 0
    if base.any():  # the lowest level: one raster cell per spot
        gx0, gy0 = cells[base, 0].min(), cells[base, 1].min()
        ix = np.rint((cells[base, 0] - gx0) / sp).astype(int)
        iy = np.rint((cells[base, 1] - gy0) / sp).astype(int)
        img = np.full((iy.max() + 1, ix.max() + 1), np.nan)
        img[iy, ix] = value[base]
        box = (
            gx0 - sp / 2,
            gx0 + sp * (ix.max() + 0.5),
            gy0 - sp / 2,
            gy0 + sp * (iy.max() + 0.5),
        )
        ax.imshow(
            img,
            extent=box,
            origin="lower",
            cmap=cmap,
            norm=norm,
            alpha=0.85,
            interpolation="nearest",
            zorder=2,
        )
        # hatch exactly the safe cells: each cell sampled just inside its two edges
        # on both axes, so the 0.5 contour runs along the cell boundaries
        safe = np.kron((img == 0).astype(float), np.ones((2, 2)))
        e = 1e-3 * sp

        def edges(c0: float, n: int) -> np.ndarray:
            c = c0 + sp * np.arange(n)
            return np.column_stack([c - sp / 2 + e, c + sp / 2 - e]).ravel()

        ax.contourf(
            edges(gx0, img.shape[1]),
            edges(gy0, img.shape[0]),
            safe,
            levels=[0.5, 1.5],
            colors="none",
            hatches=["////"],
            zorder=3,
        )
    up = ~base
    spots = None
    if up.any():
        shift = 0.25 * sp * level[up]
        spots = ax.scatter(
            cells[up, 0] + shift,
            cells[up, 1] + shift,
            c=value[up],
            cmap=cmap,
            norm=norm,
            marker="s",
            edgecolors="#222222",
            linewidths=page.lw(0.5),
            zorder=4,
        )
    hulls = [t.vehicle.hull.footprint for t in scene.troopers.values() if t.vehicle]
    for fp in hulls:  # 40k: every vehicle's hull in plan (it blocks Line of Fire)
        for poly in getattr(fp, "geoms", [fp]):
            ax.add_patch(
                Polygon(
                    np.asarray(poly.exterior.coords)[:, :2],
                    closed=True,
                    facecolor="#7f7f7f",
                    alpha=0.45,
                    edgecolor="#222222",
                    lw=page.lw(1.0),
                    zorder=5,
                )
            )
    r_arc = _ARC_RADIUS_SHARE * span
    every_way = scene.ruleset.lof_policy.arc_deg >= 360.0  # as exposure.decide.screen
    arcs = False
    # observers in their side's colour, as in every other figure (issue 46)
    colour_of = side_colors(t.side for t in scene.troopers.values())
    observers, labels, sides = [], [], {}
    for o in doc["observer_positions"]:
        t = scene.troopers.get(o["id"])
        colour = colour_of.get(t.side, _NO_SIDE) if t is not None else _NO_SIDE
        sides.setdefault(t.side if t is not None else "", colour)
        r = t.radius if t is not None else 12.5
        x, y = o["position"][:2]
        f = math.radians(o["facing_deg"])
        full = every_way or (t is not None and (t.has_360 or t.is_moving))
        if not doc.get("ignore_arcs") and not full:
            arcs = True
            a0 = o["facing_deg"] - 90.0
            ax.add_patch(
                Wedge(
                    (x, y),
                    r_arc,
                    a0,
                    a0 + 180.0,
                    facecolor=(*to_rgb(colour), ARC_ALPHA),
                    edgecolor="#222222",
                    lw=page.lw(1.0),
                    zorder=5,
                )
            )
            dx, dy = -math.sin(f) * 2 * span, math.cos(f) * 2 * span
            ax.plot(
                [x - dx, x + dx],
                [y - dy, y + dy],
                color="#222222",
                lw=page.lw(1.2),
                ls="--",
                zorder=5,
            )
        observers.append(Observer(o["id"], (x, y), r, o["facing_deg"], colour))
        labels.append(MapLabel(o["id"], (x, y), observer=o["id"]))
    drawn = {o.id for o in observers}
    others = [t for t in scene.troopers.values() if t.id not in drawn and not t.vehicle]
    for t in others:  # they block Line of Fire: drawn faded, unlabelled, no arc
        colour = colour_of.get(t.side, _NO_SIDE)
        observers.append(
            Observer(t.id, tuple(t.position[:2]), t.radius, 0.0, colour, arrow=False, about=False)
        )
    target = doc.get("seen_from")
    who = "target" if target is not None else "observer"
    safe_label = (
        f"hidden: no LoF to {target}"
        if target is not None
        else "safe: P(hit) 0"
        if danger
        else "safe: no LoF"
    )
    safe_face = cmap(norm(0.0))  # as the safe cells are drawn (green; a danger map's 0)
    handles = [Patch(facecolor=safe_face, hatch="////", edgecolor="#222222", label=safe_label)]
    for side, colour in sides.items():  # one entry per side drawn
        name = f"{who}, side {side}" if len(sides) > 1 and side else who
        handles.append(Line2D([], [], lw=0, marker="o", mfc=colour, mec="black", label=name))
    if others:
        handles.append(
            Line2D([], [], lw=0, marker="o", mfc="#999999", mec="black", alpha=OTHER_ALPHA,
                   label="faded: other trooper (blocks LoF)")
        )  # fmt: skip
    if arcs:
        handles.append(Patch(facecolor="#888888", alpha=ARC_ALPHA, label="observer's front arc"))
    if hulls:
        handles.append(
            Patch(facecolor="#7f7f7f", alpha=0.45, edgecolor="#222222", label="vehicle hull")
        )
    if up.any():
        handles.append(
            Line2D(
                [],
                [],
                lw=0,
                marker="s",
                mfc="#cccccc",
                mec="#222222",
                label="upper level spot (shifted)",
            )
        )
    if danger:
        handles.append(Patch(facecolor="none", edgecolor="none", label=_profiles(doc)))
    if danger:
        ticks = tuple(np.linspace(0.0, 1.0, 5))
        tick_labels = tuple(f"{v:g}" for v in ticks)
    else:
        step = max(1, math.ceil((k + 1) / _MAX_COUNT_TICKS))
        ticks = tuple(range(0, k + 1, step))
        tick_labels = tuple(str(v) for v in ticks)
    bar = ColorBar(
        matplotlib.cm.ScalarMappable(norm=norm, cmap=cmap),
        ticks,
        tick_labels,
        f"Line of Fire to {target} (0 no, 1 yes)"
        if target is not None
        else "P(hit) by at least one ARO"
        if danger
        else "observers with Line of Fire",
    )
    auto_title, subtitle = _title(doc, page, len(cells))
    layout = page.finish(
        title=auto_title if title is None else title,
        subtitle=subtitle,
        limits=(x0 - 0.02 * span, y0 - 0.02 * span, x1 + 0.02 * span, y1 + 0.02 * span),
        handles=handles,
        colorbar=bar,
        observers=observers,
        labels=labels,
    )
    if spots is not None:  # upper level spots: half a cell wide at the final scale
        side_pt = page.pt(max(3.0, 0.5 * sp * page.scale))
        spots.set_sizes([side_pt**2])
    return fig, layout


def _profiles(doc: dict) -> str:
    """The legend's line naming the AROs of a danger map (``exposure --odds``)."""
    parts = []
    for oid, p in doc["odds"]["profiles"].items():
        mod = p["mod"] + p["reaction_mod"]
        bands = "no ranges" if not p["ranges"] else f"{len(p['ranges'])} range bands"
        parts.append(f"{oid} {p['attribute'].upper()} {p['value']}{mod:+d}, {bands}")
    text = "AROs (B1, range and Partial Cover from the table): " + "; ".join(parts)
    return text  # the page wraps it to the legend's column


def render_exposure(
    scene, doc: dict, *, size=DEFAULT_MAP_SIZE, title: str | None = None
) -> dict[str, bytes]:
    """``{"exposure.png": bytes, "exposure.svg": bytes}`` for an exposure document.

    ``size``: page size in pixels (the PNG's); ``title``: replaces the generated title.
    """
    fig, _ = exposure_figure(scene, doc, size=size, title=title)
    files = save_map(fig, _SALT, ("png", "svg"))
    return {"exposure.png": files["png"], "exposure.svg": files["svg"]}
