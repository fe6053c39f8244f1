"""The page of the survey and exposure maps (SPEC 13.5): one layout for both.

Rows down, in pixels of the output: the title (wrapped to the page, never clipped) and
the subtitle; a header row with the y axis' name; the map, scaled to fit with the table's
aspect kept, its tick labels and the x axis' name under it; and on the right a column
with the colour bar's name (wrapped to the column), the colour bar and, under it, the
legend (its rows wrapped to the column). Nothing of the column lies over the map or an
axis name. Font sizes are pixels of the output (:func:`viewer.frame.font_px`: never under
11 px). Observers are drawn here, once the scale is known (at least
:data:`MIN_OBSERVER_PX` in radius), and the limits grow until every one is wholly in the
frame. Labels on the map (observer ids, zone names) are placed by
:func:`viewer.labels.place_labels` off every observer and each other; one that finds no
room is named in the subtitle. Contour labels that would cover another text or an
observer are left out.

:meth:`MapPage.finish` returns the page's layout records
(:class:`viewer.layout_lint.Layout`, read from the figure as drawn by
:func:`viewer.figure_layout.figure_layout`): the frame is the map, each observer a
trooper the figure is about. Lengths on the axes are in the scenario file's units.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import matplotlib
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Circle, Rectangle
from matplotlib.ticker import MaxNLocator

from geom3d.core.output import safe_text
from geom3d.core.units import LENGTH_UNITS

from . import palette as pal
from .figure_layout import figure_layout
from .frame import MARGIN, font_px, measure, wrap_px
from .labels import place_labels, unplaced_note
from .layout import size_scale
from .layout_lint import Layout
from .vector_output import DEFAULT_VECTOR_DPI, RC

__all__ = [
    "COLORBAR_SHARE",
    "COLUMN_MAX_SHARE",
    "DEFAULT_MAP_SIZE",
    "HALO_EM",
    "MIN_OBSERVER_PX",
    "OTHER_ALPHA",
    "ColorBar",
    "MapLabel",
    "MapPage",
    "Observer",
    "map_rc",
    "save_map",
]

#: Page size of a map when none is asked for (``--size``'s default, as ``geom3d render``).
DEFAULT_MAP_SIZE = (1600, 1200)
#: An observer is drawn at least this many pixels in radius (its true size when larger).
MIN_OBSERVER_PX = 4.0
#: The colour bar's width, share of the page width (at least :data:`_MIN_COLORBAR_PX`).
COLORBAR_SHARE = 0.015
_MIN_COLORBAR_PX = 12.0
#: The right column (colour bar, legend) is at most this share of the page width; longer
#: legend rows wrap.
COLUMN_MAX_SHARE = 0.3
#: Target spacing of the axes' tick labels, in tick-label heights.
_TICK_SPACING_EM = 5.0
#: The facing arrow's length, observer radii.
ARROW_RADII = 2.2
#: Opacity of a trooper drawn on a map that is not what it is about (it blocks, as
#: scenery does; the map's colours show through).
OTHER_ALPHA = 0.55
#: The ground around an observer's disc (this many label heights) that another
#: observer's label should keep off (it would read as this observer's).
HALO_EM = 1.0
#: Legend text size (px) at which markers keep their own size; larger text scales them.
_LEGEND_MARKER_PX = 11.0
#: Most layout passes (the tick labels' widths depend on the map's size).
_PASSES = 4


def map_rc(salt: str) -> dict:
    """matplotlib settings of a map: the vector figures' (:data:`viewer.vector_output.RC`) with
    the map's own SVG hash salt."""
    return {**RC, "svg.hashsalt": salt, "text.parse_math": False}  # "$5" is not math


@dataclass(frozen=True)
class Observer:
    """A trooper drawn on the map: a disc in its side's colour and a facing arrow."""

    id: str
    xy: tuple[float, float]
    radius_mm: float
    facing_deg: float
    color: str
    arrow: bool = True
    about: bool = True  # what the map is about (False: another trooper, drawn faded)


@dataclass(frozen=True)
class MapLabel:
    """A text placed on the map by the label solver, next to ``xy`` (mm)."""

    text: str
    xy: tuple[float, float]
    color: str = pal.TEXT
    observer: str | None = None  # the observer it names: placed off its disc's edge


@dataclass(frozen=True)
class ColorBar:
    """The colour bar: what it maps, its ticks (values and their texts), its name."""

    mappable: object
    ticks: tuple
    tick_labels: tuple
    name: str


@dataclass
class _Plan:
    """Where the parts of the page go (pixels, rows down)."""

    title: list
    subtitle: list
    box: tuple  # the map
    lim: tuple  # x0, x1, y0, y1 in mm
    column_x: float
    column_w: float
    cb_name: list
    legend_labels: list
    column_top: float = 0.0
    notes: list = field(default_factory=list)


class MapPage:
    """A map page of ``size`` pixels; the caller draws on :attr:`ax` in mm, then
    :meth:`finish` lays the page out and returns its layout records.

    Parameters
    ----------
    size : (int, int)
        Width and height in pixels of the output.
    units : str
        The scenario file's length unit (axes and tick labels).
    """

    def __init__(self, size, units: str = "mm"):
        self.size = (int(size[0]), int(size[1]))
        self.dpi = float(DEFAULT_VECTOR_DPI)
        W, H = self.size
        self.fig = Figure(figsize=(W / self.dpi, H / self.dpi), dpi=self.dpi)
        self.fig.set_facecolor(pal.BACKGROUND)
        self.renderer = FigureCanvasAgg(self.fig).get_renderer()
        self.ax = self.fig.add_axes((0.1, 0.1, 0.5, 0.5))
        self.cax = self.fig.add_axes((0.8, 0.1, 0.02, 0.5))
        self.units = units if units in LENGTH_UNITS else "mm"
        self.k = LENGTH_UNITS[self.units]
        self.margin = MARGIN * min(W, H)
        self.scale = 1.0  # px per mm, once laid out
        self._ytick_left = 0.0  # px: the y tick labels' left edge, once laid out

    # --- sizes ---------------------------------------------------------------------------
    def px(self, kind: str) -> float:
        """Font size in pixels of one kind of text (``title``, ``legend``, ``label`` ...)."""
        return font_px(kind, self.size)

    def pt(self, px: float) -> float:
        """Pixels of the output -> points of the figure."""
        return px * 72.0 / self.dpi

    def lw(self, px: float) -> float:
        """A line ``px`` pixels wide on a 1600 x 1200 page, in points at this page's size
        (never thinner than ``px``: lines stay visible on small pages)."""
        return self.pt(px * max(1.0, size_scale(self.size)))

    def table(self, extent) -> None:
        """Draw the table's rectangle, ``extent`` = (x0, y0, x1, y1) in mm, under the map."""
        x0, y0, x1, y1 = extent
        self.ax.add_patch(
            Rectangle((x0, y0), x1 - x0, y1 - y0, facecolor="#f4f1ea", edgecolor="#444444",
                      linewidth=self.lw(1.0), zorder=-1)
        )  # fmt: skip

    def length(self, mm: float) -> str:
        """``mm`` in the file's unit: ``25 mm``, ``1 in``."""
        return f"{mm / self.k:.3g} {self.units}"

    # --- layout --------------------------------------------------------------------------
    def finish(
        self,
        *,
        title: str,
        subtitle: str,
        limits: tuple,
        handles: list,
        colorbar: ColorBar,
        observers: list,
        labels: list,
    ) -> Layout:
        """Lay the page out, draw the observers and labels; the layout records.

        Parameters
        ----------
        title, subtitle : str
            Wrapped to the page.
        limits : (x0, y0, x1, y1) float, mm
            What the map must show (the table).
        handles : list of matplotlib artists
            The legend's entries (their labels are wrapped to the column).
        colorbar : ColorBar
        observers : list of Observer
        labels : list of MapLabel
            Texts on the map; each observer's id should be one of them.
        """
        ax = self.ax
        # user text (--title, ids) shown as written; control and bidi characters escaped
        title, subtitle = safe_text(title), safe_text(subtitle)
        labels = [replace(lab, text=safe_text(lab.text)) for lab in labels]
        for a in (ax, self.cax):
            a.tick_params(
                labelsize=self.pt(self.px("legend")), length=self.pt(4), pad=self.pt(3),
                width=self.lw(1.0),
            )  # fmt: skip
            for spine in a.spines.values():
                spine.set_linewidth(self.lw(1.0))
        ax.set_xlabel(f"x ({self.units})", fontsize=self.pt(self.px("legend")))
        ax.xaxis.set_label_coords(0.5, 0.0)  # moved under the tick labels: _decorations
        cb = self.fig.colorbar(colorbar.mappable, cax=self.cax, ticks=list(colorbar.ticks))
        cb.set_ticklabels(list(colorbar.tick_labels))
        cb.solids.set_rasterized(False)  # a vector colour bar in the SVG
        cb.outline.set_linewidth(self.lw(1.0))
        lim = tuple(float(v) for v in limits)
        notes: list = []
        plan = None
        for _ in range(3):  # grow the limits until every observer is wholly in the frame
            plan = self._plan(title, subtitle, lim, handles, colorbar, notes)
            grown = self._fit_observers(plan, observers)
            if grown == plan.lim:
                break
            lim = (grown[0], grown[2], grown[1], grown[3])
        assert plan is not None
        discs = self._draw_observers(observers)
        legend = self._legend(handles, plan)
        placed = self._labels(labels, discs)
        missing = unplaced_note([lab.text for lab in labels], placed)
        if missing:  # say so in the subtitle, and lay the page out again around it
            notes = [missing]
            plan = self._plan(title, subtitle, lim, handles, colorbar, notes)
            for art in list(self.fig.texts) + list(self.fig.artists) + list(self.fig.lines):
                if (art.get_gid() or "").startswith("label-"):
                    art.remove()
            for p in [*ax.patches, *ax.texts]:  # discs and arrows: drawn again at the scale
                if (p.get_gid() or "").startswith("observer-"):
                    p.remove()
            discs = self._draw_observers(observers)
            legend.remove()
            legend = self._legend(handles, plan)
            placed = self._labels(labels, discs)
        self._text(plan)
        self._drop_contour_labels(discs)
        frame = plan.box
        self.fig.draw_without_rendering()  # legend rows and tick labels where they are drawn
        lay = figure_layout(self.fig, frame=frame, about=[o.id for o in observers if o.about])
        lay.troopers = dict(discs)
        lay.notes = list(plan.notes)
        return lay

    def _plan(self, title, subtitle, lim, handles, colorbar, notes) -> _Plan:
        """Wrap the texts, size the column, fit the map (see the module docstring)."""
        W, H = self.size
        m, r = self.margin, self.renderer
        tpx, spx, lpx = self.px("title"), self.px("subtitle"), self.px("legend")
        title_l = wrap_px(r, title, tpx, W - 2 * m, self.dpi)
        sub = "\n".join([s for s in (subtitle, *notes) if s])
        sub_l = wrap_px(r, sub, spx, W - 2 * m, self.dpi) if sub else []
        top = m + len(title_l) * 1.25 * tpx + len(sub_l) * 1.25 * spx + m
        # the column: legend rows wrapped to at most COLUMN_MAX_SHARE of the page
        col_max = COLUMN_MAX_SHARE * W
        key_w = 3.2 * lpx  # handle and the gap before its text (legend's handlelength 2)
        legend_labels = [  # rows wrapped flush left (a legend row is its own paragraph)
            "\n".join(
                ln.strip() for ln in wrap_px(r, h.get_label(), lpx, col_max - key_w, self.dpi)
            )
            for h in handles
        ]
        leg_w = max(
            (max(measure(r, ln, lpx, self.dpi)[0] for ln in lab.split("\n")) + key_w)
            for lab in legend_labels
        )
        cbw = max(_MIN_COLORBAR_PX, COLORBAR_SHARE * W)
        tick_w = max(measure(r, t, lpx, self.dpi)[0] for t in colorbar.tick_labels)
        name_w = measure(r, colorbar.name, lpx, self.dpi)[0]
        col_w = min(col_max, max(leg_w, cbw + 8 + tick_w, name_w, 0.12 * W))
        cb_name = wrap_px(r, colorbar.name, lpx, col_w, self.dpi)
        gap = max(3 * m, 1.5 * lpx)
        x0, x1, y0, y1 = lim[0], lim[2], lim[1], lim[3]
        fw, fh = max(x1 - x0, 1e-9), max(y1 - y0, 1e-9)
        head = 1.5 * lpx  # the header row: the y axis' name
        dl, db = 4.0 * lpx, 3.5 * lpx  # first guesses; measured below
        box = (0.0, 0.0, 1.0, 1.0)
        for _ in range(_PASSES):
            aw = W - 2 * m - dl - gap - col_w
            ah = H - m - db - (top + head)
            s = max(min(aw / fw, ah / fh), 1e-9)
            w, h = fw * s, fh * s
            bx0 = m + dl + 0.5 * max(0.0, aw - w)
            by0 = top + head  # under the title: what is left over goes to the bottom
            box = (bx0, by0, bx0 + w, by0 + h)
            self.scale = s
            self._axes(box, (x0, x1, y0, y1))
            ndl, ndb = self._decorations()
            if 0.0 <= dl - ndl <= 2.0 and 0.0 <= db - ndb <= 2.0:
                break  # the room given holds the tick labels, with at most 2 px to spare
            dl, db = ndl + 0.5, ndb + 0.5
        column_x = box[2] + gap
        return _Plan(
            title=title_l,
            subtitle=sub_l,
            box=box,
            lim=(x0, x1, y0, y1),
            column_x=column_x,
            column_top=box[1] - head,
            column_w=col_w,
            cb_name=cb_name,
            legend_labels=legend_labels,
            notes=list(notes),
        )

    def _axes(self, box, lim) -> None:
        """Put the map's axes at ``box`` (px) showing ``lim`` (mm), with its ticks."""
        W, H = self.size
        ax = self.ax
        ax.set_position((box[0] / W, 1 - box[3] / H, (box[2] - box[0]) / W, (box[3] - box[1]) / H))
        ax.set_xlim(lim[0], lim[1])
        ax.set_ylim(lim[2], lim[3])
        ax.set_aspect("auto")
        lpx = self.px("legend")
        for axis, lo, hi, length in (
            (ax.xaxis, lim[0], lim[1], box[2] - box[0]),
            (ax.yaxis, lim[2], lim[3], box[3] - box[1]),
        ):
            n = max(2, int(length / (_TICK_SPACING_EM * lpx)))
            vals = MaxNLocator(nbins=n, steps=[1, 2, 2.5, 5, 10]).tick_values(
                lo / self.k, hi / self.k
            )
            vals = [v for v in vals if lo - 1e-9 <= v * self.k <= hi + 1e-9]
            axis.set_ticks([v * self.k for v in vals], labels=[f"{v:g}" for v in vals])

    def _decorations(self) -> tuple[float, float]:
        """Pixels the y tick labels take left of the map, and the x tick labels and the x
        axis' name under it (the name is moved just under the tick labels)."""
        r = self.renderer
        ax = self.ax
        bb = ax.get_window_extent(r)
        ax.xaxis.label.set_visible(False)
        xb = ax.xaxis.get_tightbbox(r)  # also puts the ticks where they are drawn
        ax.xaxis.label.set_visible(True)
        yb = ax.yaxis.get_tightbbox(r)
        dl = bb.x0 - (yb.x0 if yb is not None else bb.x0)
        below = bb.y0 - (xb.y0 if xb is not None else bb.y0)
        self._ytick_left = float(yb.x0 if yb is not None else bb.x0)
        lpx = self.px("legend")
        # the x axis' name: its top 0.4 em under the tick labels (axes fraction, y up)
        name_top = below + 0.4 * lpx
        ax.xaxis.set_label_coords(0.5, -name_top / max(bb.height, 1.0))
        ax.xaxis.label.set_verticalalignment("top")
        return float(dl + 0.3 * lpx), float(name_top + 1.3 * lpx)

    def _fit_observers(self, plan: _Plan, observers) -> tuple:
        """The limits (x0, x1, y0, y1 mm) grown to hold every observer's disc and arrow."""
        x0, x1, y0, y1 = plan.lim
        for o in observers:
            r = self._radius(o)
            xs, ys = [o.xy[0] - r, o.xy[0] + r], [o.xy[1] - r, o.xy[1] + r]
            if o.arrow:
                f = math.radians(o.facing_deg)
                xs.append(o.xy[0] + ARROW_RADII * r * math.cos(f))
                ys.append(o.xy[1] + ARROW_RADII * r * math.sin(f))
            g = 2.0 / max(self.scale, 1e-9)  # 2 px: the outline's width
            x0, x1 = min(x0, min(xs) - g), max(x1, max(xs) + g)
            y0, y1 = min(y0, min(ys) - g), max(y1, max(ys) + g)
        return (x0, x1, y0, y1)

    def _radius(self, o: Observer) -> float:
        """The drawn radius of an observer, mm (its own, or MIN_OBSERVER_PX)."""
        return max(o.radius_mm, MIN_OBSERVER_PX / max(self.scale, 1e-9))

    def _px(self, xy) -> np.ndarray:
        """mm -> page pixels (column, row; rows down)."""
        p = self.ax.transData.transform(np.asarray(xy, dtype=float).reshape(-1, 2))
        return np.column_stack([p[:, 0], self.size[1] - p[:, 1]])

    def _draw_observers(self, observers) -> dict:
        """Discs and facing arrows; each disc's box in pixels, by id."""
        ax = self.ax
        k = size_scale(self.size)
        out = {}
        for o in observers:
            r = self._radius(o)
            x, y = o.xy
            ax.add_patch(
                Circle((x, y), r, facecolor=o.color, edgecolor="black",
                       lw=self.pt(max(1.0, 1.2 * k)), zorder=6 if o.about else 5.5,
                       alpha=None if o.about else OTHER_ALPHA, gid=f"observer-{o.id}")
            )  # fmt: skip
            if o.arrow:
                f = math.radians(o.facing_deg)
                tip = (x + ARROW_RADII * r * math.cos(f), y + ARROW_RADII * r * math.sin(f))
                ax.annotate(
                    "", xy=tip, xytext=(x, y), zorder=7, gid=f"observer-{o.id}-arrow",
                    arrowprops={"arrowstyle": "->", "color": "white",
                                "lw": self.pt(max(1.4, 2.0 * k)), "shrinkA": 0, "shrinkB": 0},
                )  # fmt: skip
            c = self._px([(x - r, y - r), (x + r, y + r)])
            out[o.id] = (
                float(c[:, 0].min()),
                float(c[:, 1].min()),
                float(c[:, 0].max()),
                float(c[:, 1].max()),
            )
        return out

    def _legend(self, handles, plan: _Plan):
        """The column: the colour bar under its name, the legend under the colour bar."""
        W, H = self.size
        lpx = self.px("legend")
        leg = self.fig.legend(
            handles, plan.legend_labels, loc="upper left", bbox_to_anchor=(0, 1),
            fontsize=self.pt(lpx), frameon=False, borderaxespad=0.0, borderpad=0.0,
            handlelength=2.0, handletextpad=0.6, labelspacing=0.5,
            markerscale=max(1.0, lpx / _LEGEND_MARKER_PX),
        )  # fmt: skip
        leg.set_gid("legend")
        lh = float(leg.get_window_extent(self.renderer).height)
        map_top, map_bottom = plan.box[1], plan.box[3]
        cb_top = plan.column_top + len(plan.cb_name) * 1.25 * lpx + 0.9 * lpx
        room = H - self.margin - lh - 1.2 * lpx  # the colour bar's bottom, the legend under it
        cb_bottom = max(min(map_bottom, room), cb_top + 0.3 * (map_bottom - map_top))
        cb_w = max(_MIN_COLORBAR_PX, COLORBAR_SHARE * W)
        x = plan.column_x
        self.cax.set_position((x / W, 1 - cb_bottom / H, cb_w / W, (cb_bottom - cb_top) / H))
        self.cax.yaxis.get_tightbbox(self.renderer)  # its tick labels where they are drawn
        leg.set_bbox_to_anchor((x / W, 1 - (cb_bottom + 1.2 * lpx) / H), self.fig.transFigure)
        return leg

    def _labels(self, labels, discs: dict) -> list:
        """Place the labels off the observers and each other; draw those placed."""
        W, H = self.size
        k = size_scale(self.size)
        lpx = self.px("label")
        pad = max(2.0, 2 * k)
        anchors = self._px([lab.xy for lab in labels]) if labels else np.zeros((0, 2))
        sizes = []
        for lab in labels:
            w, h = measure(self.renderer, lab.text, lpx, self.dpi)
            sizes.append((w + 2 * pad, h + 2 * pad))
        bx0, by0, bx1, by1 = self.ax.get_window_extent(self.renderer).extents
        region = (bx0, bx1, H - by1, H - by0)
        radius = [
            0.5 * (discs[lab.observer][2] - discs[lab.observer][0])
            if lab.observer in discs
            else 0.0
            for lab in labels
        ]
        # a label beside another observer's disc reads as that observer's: the ground
        # around every disc costs (the solver's scenery cost), so a crowded label moves out
        g = HALO_EM * max((h for _, h in sizes), default=0.0)
        halos = [(b[0] - g, b[1] - g, b[2] + g, b[3] + g) for b in discs.values()]
        places = place_labels(
            anchors, sizes, region, pad=pad, obstacles=list(discs.values()), scenery=halos,
            anchor_radius=radius,
        )  # fmt: skip
        for i, (lab, pl) in enumerate(zip(labels, places, strict=True)):
            if not pl.placed:
                continue
            x0, y0, x1, y1 = pl.box
            self.fig.text(
                0.5 * (x0 + x1) / W, 1 - 0.5 * (y0 + y1) / H, lab.text, fontsize=self.pt(lpx),
                color=lab.color, gid=f"label-{i}", va="center", ha="center", zorder=10_000,
                bbox={"facecolor": "white", "alpha": 0.85, "edgecolor": "none",
                      "pad": self.pt(pad)},
            )  # fmt: skip
            if pl.leader:  # from the box to the disc's edge (to the point: no disc)
                ex, ey = pl.leader_end()
                ax_, ay_ = pl.anchor
                d = math.hypot(ex - ax_, ey - ay_)
                if d > 1e-9 and radius[i] > 0:
                    ax_, ay_ = ax_ + (ex - ax_) * radius[i] / d, ay_ + (ey - ay_) * radius[i] / d
                self.fig.add_artist(
                    Line2D([ex / W, ax_ / W], [1 - ey / H, 1 - ay_ / H],
                           transform=self.fig.transFigure, color=pal.TEXT,
                           lw=self.pt(max(1.0, k)), zorder=9_999, gid=f"label-{i}-leader")
                )  # fmt: skip
        return places

    def _text(self, plan: _Plan) -> None:
        """Title, subtitle, the y axis' name and the colour bar's name."""
        m = self.margin
        tpx, spx, lpx = self.px("title"), self.px("subtitle"), self.px("legend")
        y = m
        for i, line in enumerate(plan.title):
            self._line(m, y, line, tpx, "title" if i == 0 else f"title-{i}")
            y += 1.25 * tpx
        for i, line in enumerate(plan.subtitle):
            self._line(m, y, line, spx, "subtitle" if i == 0 else f"subtitle-{i}")
            y += 1.25 * spx
        self._line(self._ytick_left, plan.box[1] - 1.5 * lpx, f"y ({self.units})", lpx, "ylabel")
        for i, line in enumerate(plan.cb_name):
            y = plan.column_top + i * 1.25 * lpx
            self._line(plan.column_x, y, line, lpx, f"colorbar-name-{i}")

    def _line(self, x: float, y: float, text: str, px: float, gid: str) -> None:
        """One line of text, its top-left corner at (x, y) px (rows down)."""
        W, H = self.size
        self.fig.text(
            x / W, 1 - y / H, text, fontsize=self.pt(px), color=pal.TEXT, va="top", ha="left",
            gid=gid,
        )  # fmt: skip

    def _drop_contour_labels(self, discs: dict) -> None:
        """Leave out contour labels over another text, an observer or off the map."""
        r = self.renderer
        H = self.size[1]
        keep: list = []
        others = [
            t.get_window_extent(r)
            for t in [*self.fig.texts, *self.ax.texts]
            if t.get_visible() and (t.get_gid() or "") != "contour-label" and t.get_text()
        ]
        obstacles = [*[(b.x0, H - b.y1, b.x1, H - b.y0) for b in others], *discs.values()]
        bb = self.ax.get_window_extent(r)
        for t in list(self.ax.texts):
            if (t.get_gid() or "") != "contour-label":
                continue
            e = t.get_window_extent(r)
            box = (e.x0, H - e.y1, e.x1, H - e.y0)
            inside = bb.x0 <= e.x0 and e.x1 <= bb.x1 and bb.y0 <= e.y0 and e.y1 <= bb.y1
            if not inside or any(_overlap(box, o) for o in [*obstacles, *keep]):
                t.remove()
            else:
                keep.append(box)


def _overlap(a, b, pad: float = 1.0) -> bool:
    return a[0] < b[2] + pad and b[0] < a[2] + pad and a[1] < b[3] + pad and b[1] < a[3] + pad


def save_map(fig, salt: str, formats) -> dict[str, bytes]:
    """The figure written in each of ``formats`` (``png``, ``svg``, ``pdf``): bytes by
    format, the same bytes for the same input (no dates, a fixed SVG hash salt)."""
    from io import BytesIO

    meta = {"png": {"Software": None}, "svg": {"Date": None, "Creator": None},
            "pdf": {"CreationDate": None, "Creator": None, "Producer": None}}  # fmt: skip
    out = {}
    with matplotlib.rc_context(map_rc(salt)):
        for fmt in formats:
            buf = BytesIO()
            fig.savefig(buf, format=fmt, metadata=meta[fmt], facecolor=fig.get_facecolor())
            out[fmt] = buf.getvalue()
    return out
