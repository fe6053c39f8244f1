"""The text frame of a matplotlib diagram: title, subtitle, caption, legend, notes, labels.

Used by the 2D side and eye figures (:mod:`viewer.figure2d`). Everything is measured with
the figure's own renderer, so a title or caption is wrapped to the page instead of running
off its edge, and sizes come from :func:`font_px`, which scales with the output size and
never drops below a readable size.

Layout (pixels, rows down): the title band on top (as many lines as the wrapped title
needs), the caption at the bottom, and in between the picture with the legend and notes
either in a column on its right or in a band under it, whichever lets the picture be drawn
larger (a wide, flat side view gets the band: no empty half page).
"""

from __future__ import annotations

from dataclasses import dataclass

from matplotlib.font_manager import FontProperties
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from . import palette as pal
from .layout import LEGEND_COLUMN
from .layout_lint import MIN_TEXT_PX
from .word_wrap import greedy_wrap

__all__ = [
    "FONT_PX",
    "Frame",
    "fit_lines",
    "fit_text",
    "font_px",
    "layout_frame",
    "legend_handle",
    "wrap_px",
]

#: Font sizes in pixels on a 1600 x 1200 page, and the smallest size drawn (readable:
#: never under :data:`viewer.layout_lint.MIN_TEXT_PX`, 11 px, at any output size).
FONT_PX = {
    "title": (30.0, 15.0),
    "subtitle": (18.0, 11.0),
    "caption": (17.0, 11.0),
    "legend": (15.0, 11.0),
    "notes": (15.0, 11.0),
    "label": (18.0, 11.0),
}
#: Page margin, fraction of the smaller page side.
MARGIN = 0.015


def font_px(kind: str, size) -> float:
    """Font size in pixels of one kind of text on a ``size`` = (w, h) page."""
    w, h = size
    k = min(w / 1600.0, h / 1200.0)
    ref, least = FONT_PX[kind]
    return max(least, ref * k)


def measure(renderer, text: str, px: float, dpi: float) -> tuple[float, float]:
    """Width and height in pixels of one line of ``text`` at ``px`` pixels."""
    prop = FontProperties(family="DejaVu Sans", size=px * 72.0 / dpi)
    w, h, _ = renderer.get_text_width_height_descent(text or " ", prop, ismath=False)
    return float(w), float(h)


def wrap_px(renderer, text: str, px: float, width: float, dpi: float) -> list[str]:
    """Greedy word wrap of ``text`` (its own line breaks kept) to ``width`` pixels.

    A word longer than the width is cut (nothing runs off the page).
    """
    out = greedy_wrap(
        str(text).splitlines() or [""], width, lambda t: measure(renderer, t, px, dpi)[0]
    )
    final = []
    for line in out:  # cut what a single word still makes too long
        while len(line) > 1 and measure(renderer, line, px, dpi)[0] > width:
            n = len(line)
            while n > 1 and measure(renderer, line[:n], px, dpi)[0] > width:
                n -= 1
            final.append(line[:n])
            line = "  " + line[n:].lstrip()
        final.append(line)
    return final


def fit_text(renderer, text: str, px: float, width: float, dpi: float, most: int = 1):
    """``text`` in at most ``most`` lines of ``width`` pixels, its font made smaller (down
    to 60 %, never under :data:`viewer.layout_lint.MIN_TEXT_PX`) when it needs more;
    longer text keeps the smallest font and takes more lines.

    Returns
    -------
    px : float
        The font size used, pixels.
    lines : list of str
    """
    for f in (1.0, 0.85, 0.72, 0.6):
        f = max(f, min(1.0, MIN_TEXT_PX / px))
        lines = wrap_px(renderer, text, px * f, width, dpi)
        if len(lines) <= most:
            break
    return px * f, lines


def legend_handle(face: str, color: str, lw: float):
    """A matplotlib legend handle for a :class:`~viewer.model.LegendEntry` face."""
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


@dataclass
class Frame:
    """Where everything goes on the page (pixels, rows down).

    Attributes
    ----------
    title, subtitle, caption, notes : list of str
        Wrapped lines.
    title_y, caption_y, notes_xy, legend_xy : float / (float, float)
        Top-left corners (``*_y``: the first line's top).
    picture : (x0, y0, x1, y1) float
        The picture's box: the view's fitted part, centred, fills it one way at one scale
        (the view goes on beyond the fitted part the other way).
    legend_width : float
        Width the notes are wrapped to.
    band : bool
        Legend and notes under the picture (else in a column on its right).
    """

    title: list
    subtitle: list
    caption: list
    notes: list
    title_y: float
    caption_y: float
    notes_xy: tuple
    legend_xy: tuple
    picture: tuple
    band: bool


def fit_lines(lines: list, height: float, px: float, step: float = 1.25) -> list:
    """``lines`` cut to what ``height`` pixels hold at ``step`` x ``px`` a line; the last
    line kept then says how many were left out (nothing runs off the page)."""
    room = max(int(height // (step * px)), 0)
    if len(lines) <= room:
        return list(lines)
    if room == 0:
        return []
    return [*lines[: room - 1], f"... {len(lines) - room + 1} more lines not shown"]


def _notes_height(lines, px) -> float:
    return len(lines) * 1.25 * px


def layout_frame(renderer, drawing, size, dpi, fit_wh, legend_wh) -> Frame:
    """Lay out a page for a picture whose fitted part is ``fit_wh`` (w, h) view units.

    ``legend_wh`` is the legend box's size in pixels ((0, 0) without a legend).
    """
    W, H = size
    m = MARGIN * min(W, H)
    tpx, spx, cpx, npx = (font_px(k, size) for k in ("title", "subtitle", "caption", "notes"))
    title = wrap_px(renderer, drawing.title, tpx, W - 2 * m, dpi)
    subtitle = wrap_px(renderer, drawing.subtitle, spx, W - 2 * m, dpi) if drawing.subtitle else []
    top = m + len(title) * 1.25 * tpx + len(subtitle) * 1.25 * spx + m
    caption = wrap_px(renderer, drawing.caption, cpx, W - 2 * m, dpi) if drawing.caption else []
    cap_h = len(caption) * 1.3 * cpx
    bottom = H - m - cap_h - (m if caption else 0.0)
    fw, fh = max(fit_wh[0], 1e-9), max(fit_wh[1], 1e-9)
    lw, lh = legend_wh
    # (a) a column on the right
    col_w = max(LEGEND_COLUMN * W, min(lw + m, 0.4 * W))
    col_notes = (
        wrap_px(renderer, "\n".join(drawing.notes), npx, col_w - 2 * m, dpi)
        if drawing.notes
        else []
    )
    col_notes = fit_lines(col_notes, bottom - (top + (lh + m if lh else 0.0)), npx)
    box_a = (m, top, W - col_w - m, bottom)
    scale_a = min((box_a[2] - box_a[0]) / fw, (box_a[3] - box_a[1]) / fh)
    # (b) a band under the picture: legend on the left, notes beside it
    notes_w = W - 2 * m - (lw + 2 * m if lw else 0.0)
    band_notes = (
        wrap_px(renderer, "\n".join(drawing.notes), npx, notes_w, dpi) if drawing.notes else []
    )
    # the band takes at most half the room under the title: the picture keeps the rest
    band_notes = fit_lines(band_notes, 0.5 * (bottom - top), npx)
    band_h = max(lh, _notes_height(band_notes, npx)) + (m if (lh or band_notes) else 0.0)
    box_b = (m, top, W - m, bottom - band_h)
    ok_b = box_b[3] - box_b[1] > 0.3 * (bottom - top)
    scale_b = min((box_b[2] - box_b[0]) / fw, (box_b[3] - box_b[1]) / fh) if ok_b else 0.0
    if scale_b > 1.1 * scale_a:
        ph = fh * scale_b  # the full width, as high as the fitted part needs
        top += 0.5 * max(0.0, (box_b[3] - box_b[1]) - ph)  # picture and band centred
        picture = (m, top, W - m, top + ph)
        y = top + ph + m
        legend_xy = (m, y)
        notes_xy = ((m + lw + 2 * m) if lw else m, y)
        notes = band_notes
        band = True
    else:
        picture = box_a  # the fitted part fills it one way, the view goes on the other
        legend_xy = (W - col_w, top)
        notes_xy = (W - col_w, top + (lh + m if lh else 0.0))
        notes = col_notes
        band = False
    return Frame(
        title=title,
        subtitle=subtitle,
        caption=caption,
        notes=notes,
        title_y=m,
        caption_y=H - m - cap_h,
        notes_xy=notes_xy,
        legend_xy=legend_xy,
        picture=picture,
        band=band,
    )
