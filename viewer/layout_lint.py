"""Layout records of a rendered figure and the layout lint (SPEC 13.5).

The renderer records, in page pixels (rows down, origin top-left), every text box, every
trooper's outline box, the deciding ray, the deciding patch and the picture's frame
(:class:`Layout`). :func:`lint` checks them against the rules every figure must pass:

- each text inside the page;
- no text over another text, a trooper, the deciding ray or the deciding patch;
- no text under :data:`MIN_TEXT_PX` pixels at the output size;
- every trooper the figure is about wholly inside the frame;
- no more than :data:`MAX_EMPTY_FRACTION` of the frame empty (page background).

:func:`svg_texts` reads the ``<text>`` elements of a written SVG back (their boxes from
the font size, the anchor and the string's width measured with PIL's own TrueType reader
on the same DejaVu Sans font, not with matplotlib, which laid the page out) and
:func:`check_svg` says where they disagree with the records.

Pure numpy plus PIL (no matplotlib, no VTK): records are made by the renderers
(:func:`viewer.figure_layout.figure_layout` and :mod:`viewer.render`).
"""

from __future__ import annotations

import itertools
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

__all__ = [
    "MAX_EMPTY_FRACTION",
    "MIN_TEXT_PX",
    "TOUCH_PX",
    "Layout",
    "TextBox",
    "check_svg",
    "check_texts",
    "empty_fraction",
    "lint",
    "segment_hits_box",
    "svg_texts",
]

#: The smallest text any figure draws, pixels of the output (SPEC 13.5: 11 px).
MIN_TEXT_PX = 11.0
#: Boxes closer than this (pixels) do not count as overlapping (anti-aliasing, rounding).
TOUCH_PX = 0.5
#: At most this fraction of the frame may be page background (SPEC 13.5 / issue 47).
MAX_EMPTY_FRACTION = 1.0 / 3.0
#: An SVG text and its record agree when their boxes' centres lie within this many font
#: sizes (plus :data:`TOUCH_PX`) and their widths and heights within this fraction. One
#: em: matplotlib's SVG backend packs a legend with text metrics measured at 72 dpi, the
#: raster (whose layout is recorded) at the page's dpi; down a long legend of wrapped
#: rows the two drift apart by up to most of a line.
SVG_POSITION_EM = 1.0
SVG_SIZE_FRACTION = 0.15
#: DejaVu Sans: ascent and descent over and under the baseline, in em.
_ASCENT_EM, _DESCENT_EM = 0.76, 0.24

Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class TextBox:
    """One text drawn on the page.

    Attributes
    ----------
    id : str
        What it is: ``title``, ``subtitle-1``, ``label-3``, ``legend``, ``notes-0`` ...
    text : str
    box : (x0, y0, x1, y1) float, px
        The glyphs' box, rows down.
    px : float
        Font size, pixels of the output.
    """

    id: str
    text: str
    box: Box
    px: float


@dataclass
class Layout:
    """Everything the lint needs to know about one rendered figure (pixels, rows down).

    Attributes
    ----------
    size : (int, int)
        Page width and height.
    frame : (x0, y0, x1, y1) float
        The picture's frame (the drawing area; title, legend and notes lie outside it).
    texts : list of TextBox
    troopers : dict str -> (x0, y0, x1, y1)
        Each drawn trooper's outline box (unclipped: it may run past the frame).
    about : list of str
        The troopers the figure is about (must lie wholly inside the frame).
    rays : list of ((x, y), (x, y))
        The deciding ray(s) as drawn, clipped to nothing (no text may cross them).
    patches : list of (x0, y0, x1, y1)
        The deciding patch outline(s).
    leaders : list of ((x, y), (x, y))
        Leader lines drawn from labels to their anchors.
    notes : list of str
        What the figure said about its own layout (labels left out, a numbered key).
    anchors : dict str -> (x, y)
        Where each placed label (by text id) points: the anchor it was placed about.
    lanes : list of dict
        Route-window lanes as drawn (:mod:`viewer.layers.route_windows`): ``mover``,
        ``other``, ``lane``, ``track`` (the thin line along the whole route, or the
        windows on it), ``width_px`` and ``px`` (a list of (k, 2) polylines, px).
    """

    size: tuple[int, int]
    frame: Box
    texts: list[TextBox] = field(default_factory=list)
    troopers: dict[str, Box] = field(default_factory=dict)
    about: list[str] = field(default_factory=list)
    rays: list = field(default_factory=list)
    patches: list[Box] = field(default_factory=list)
    leaders: list = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    anchors: dict[str, tuple[float, float]] = field(default_factory=dict)
    lanes: list[dict] = field(default_factory=list)


def _overlap(a: Box, b: Box, tol: float = TOUCH_PX) -> bool:
    return a[0] < b[2] - tol and b[0] < a[2] - tol and a[1] < b[3] - tol and b[1] < a[3] - tol


def segment_hits_box(p, q, box: Box, tol: float = TOUCH_PX) -> bool:
    """Whether the segment ``p``-``q`` (px) passes through ``box`` shrunk by ``tol``.

    Liang-Barsky clipping of the segment against the box.
    """
    x0, y0, x1, y1 = box[0] + tol, box[1] + tol, box[2] - tol, box[3] - tol
    if x0 >= x1 or y0 >= y1:
        return False
    (px, py), (qx, qy) = p, q
    dx, dy = qx - px, qy - py
    t0, t1 = 0.0, 1.0
    for pk, qk in ((-dx, px - x0), (dx, x1 - px), (-dy, py - y0), (dy, y1 - py)):
        if pk == 0:
            if qk < 0:
                return False
            continue
        r = qk / pk
        if pk < 0:
            t0 = max(t0, r)
        else:
            t1 = min(t1, r)
        if t0 > t1:
            return False
    return True


def empty_fraction(image: np.ndarray, frame: Box, background) -> float:
    """Fraction of the frame outside the box of everything drawn in it.

    The drawn part is every pixel of the frame that is not the page background colour;
    what lies outside its bounding box is an empty margin (a picture fitted too small, or
    off centre). Sky over a side view's section is inside that box: not counted.

    Parameters
    ----------
    image : (h, w, 3) uint8
    frame : (x0, y0, x1, y1) float, px
    background : (3,) int
        The page's background colour, 0..255.
    """
    h, w = image.shape[:2]
    x0, y0 = max(0, round(frame[0])), max(0, round(frame[1]))
    x1, y1 = min(w, round(frame[2])), min(h, round(frame[3]))
    if x1 <= x0 or y1 <= y0:
        return 1.0
    part = image[y0:y1, x0:x1, :3].astype(np.int16)
    drawn = np.any(np.abs(part - np.asarray(background, dtype=np.int16)) > 2, axis=-1)
    if not drawn.any():
        return 1.0
    rows, cols = np.flatnonzero(drawn.any(axis=1)), np.flatnonzero(drawn.any(axis=0))
    used = (rows[-1] - rows[0] + 1) * (cols[-1] - cols[0] + 1)
    return float(1.0 - used / drawn.size)


def lint(layout: Layout, image: np.ndarray | None = None, background=None) -> list[str]:
    """Every way ``layout`` breaks the rules (an empty list: it passes).

    Parameters
    ----------
    layout : Layout
    image : (h, w, 3) uint8 or None
        The rendered pixels, for the empty-frame rule (skipped when None).
    background : (3,) int or None
        The page background colour of ``image``.

    Returns
    -------
    list of str
        One line per problem, naming the texts or troopers involved.
    """
    W, H = layout.size
    out: list[str] = []
    texts = [t for t in layout.texts if t.text.strip()]
    for t in texts:
        b = t.box
        if b[0] < -TOUCH_PX or b[1] < -TOUCH_PX or b[2] > W + TOUCH_PX or b[3] > H + TOUCH_PX:
            out.append(f"text {t.id} {t.text!r} runs off the page: {_fmt(b)}")
        if t.px < MIN_TEXT_PX - 1e-6:
            out.append(f"text {t.id} {t.text!r} is {t.px:.1f} px (< {MIN_TEXT_PX:g})")
    for i, a in enumerate(texts):
        for b in texts[i + 1 :]:
            if _overlap(a.box, b.box):
                out.append(f"text {a.id} {a.text!r} overlaps text {b.id} {b.text!r}")
    frame = layout.frame
    for tid, tb in layout.troopers.items():
        clipped = (
            max(tb[0], frame[0]),
            max(tb[1], frame[1]),
            min(tb[2], frame[2]),
            min(tb[3], frame[3]),
        )
        if clipped[0] >= clipped[2] or clipped[1] >= clipped[3]:
            continue  # not in the picture
        for t in texts:
            if _overlap(t.box, clipped):
                out.append(f"text {t.id} {t.text!r} covers trooper {tid}")
    for t in texts:
        for p, q in layout.rays:
            if segment_hits_box(p, q, t.box):
                out.append(f"text {t.id} {t.text!r} covers the deciding ray")
        for pb in layout.patches:
            if _overlap(t.box, pb):
                out.append(f"text {t.id} {t.text!r} covers the deciding patch")
    for tid in layout.about:
        tb = layout.troopers.get(tid)
        if tb is None:
            out.append(f"trooper {tid} (what the figure is about) is not drawn")
            continue
        if (
            tb[0] < frame[0] - TOUCH_PX
            or tb[1] < frame[1] - TOUCH_PX
            or tb[2] > frame[2] + TOUCH_PX
            or tb[3] > frame[3] + TOUCH_PX
        ):
            out.append(f"trooper {tid} is cut by the frame: {_fmt(tb)} not in {_fmt(frame)}")
    for i, (p, q) in enumerate(layout.leaders):
        for r, s in layout.leaders[i + 1 :]:
            if _segments_cross(p, q, r, s):
                out.append("two leader lines cross")
    out.extend(lane_overlaps(layout.lanes))
    if image is not None and background is not None:
        e = empty_fraction(image, frame, background)
        if e > MAX_EMPTY_FRACTION:
            out.append(f"{e:.0%} of the frame is empty (> {MAX_EMPTY_FRACTION:.0%})")
    return out


def lane_gap_px(a: dict, b: dict) -> float:
    """The clear pixels between the windows of two lanes (negative: they overlap): the
    least distance between their polylines less half of each one's width."""
    best = np.inf
    for pa in a["px"]:
        for pb in b["px"]:
            best = min(best, _polyline_distance(np.asarray(pa), np.asarray(pb)))
    return float(best - 0.5 * (a["width_px"] + b["width_px"]))


def lane_overlaps(lanes: list[dict]) -> list[str]:
    """Route-window lanes of one route whose windows overlap another lane's windows
    (SPEC 13.5: which window belongs to which trooper must be readable)."""
    out = []
    win = [ln for ln in lanes if not ln.get("track")]
    for i, a in enumerate(win):
        for b in win[i + 1 :]:
            if a["mover"] != b["mover"]:
                continue
            gap = lane_gap_px(a, b)
            if gap < -TOUCH_PX:
                out.append(
                    f"route windows of {a['mover']!r}: the lanes of {a['other']!r} and "
                    f"{b['other']!r} overlap ({-gap:.1f} px)"
                )
    return out


def _polyline_distance(p: np.ndarray, q: np.ndarray) -> float:
    """Least distance (px) between two polylines ((k, 2), (m, 2); a single point is a
    polyline of one point): each one's vertices against the other's segments (exact
    for polylines that do not cross; crossing ones are 0 apart)."""

    def pts_to_segs(v: np.ndarray, w: np.ndarray) -> float:
        if len(w) == 1:
            return float(np.min(np.linalg.norm(v - w[0], axis=1)))
        a, b = w[:-1], w[1:]
        ab = b - a
        den = np.maximum(np.einsum("ij,ij->i", ab, ab), 1e-12)
        t = np.clip(np.einsum("kij,ij->ki", v[:, None, :] - a[None], ab) / den, 0.0, 1.0)
        c = a[None] + t[..., None] * ab[None]
        return float(np.min(np.linalg.norm(v[:, None, :] - c, axis=2)))

    d = min(pts_to_segs(p, q), pts_to_segs(q, p))
    for (a, b), (c, e) in itertools.product(itertools.pairwise(p), itertools.pairwise(q)):
        if _segments_cross(a, b, c, e):
            return 0.0
    return d


def _segments_cross(p, q, r, s) -> bool:
    """Proper crossing of two segments (touching at an end does not count)."""

    def orient(a, b, c):
        return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])

    d1, d2 = orient(r, s, p), orient(r, s, q)
    d3, d4 = orient(p, q, r), orient(p, q, s)
    return d1 * d2 < 0 and d3 * d4 < 0


def _fmt(b) -> str:
    return "(" + ", ".join(f"{v:.0f}" for v in b) + ")"


# --- the written SVG ------------------------------------------------------------------

_SVG = "{http://www.w3.org/2000/svg}"


@lru_cache(maxsize=1)
def _font():
    from matplotlib import get_data_path  # the font file only; nothing is drawn with it
    from PIL import ImageFont

    return ImageFont.truetype(f"{get_data_path()}/fonts/ttf/DejaVuSans.ttf", 100)


def _font_size(style: str) -> float | None:
    m = re.search(r"font-size:\s*([0-9.]+)px", style) or re.search(r"font:[^;]*?([0-9.]+)px", style)
    return float(m.group(1)) if m else None


def svg_texts(data: bytes | str, size) -> list[TextBox]:
    """The ``<text>`` elements of an SVG as :class:`TextBox` es in output pixels.

    Parameters
    ----------
    data : bytes or str
        The SVG document (matplotlib's, text kept as text).
    size : (int, int)
        The output size in pixels (the page is scaled to it).
    """
    root = ET.fromstring(data)
    vb = [float(v) for v in (root.get("viewBox") or "0 0 1 1").split()]
    sx, sy = size[0] / vb[2], size[1] / vb[3]
    out: list[TextBox] = []

    def walk(node, gid, shift):
        gid = node.get("id") or gid
        tr = node.get("transform") or ""
        m = re.match(r"translate\(\s*([-0-9.e]+)[ ,]+([-0-9.e]+)\s*\)", tr)
        if m:
            shift = (shift[0] + float(m.group(1)), shift[1] + float(m.group(2)))
        for child in node:
            if child.tag != f"{_SVG}text":
                walk(child, gid, shift)
                continue
            style = child.get("style", "")
            fs = _font_size(style)
            text = "".join(child.itertext())
            if fs is None or not text.strip():
                continue
            width = _font().getlength(text) * fs / 100.0
            ctr = child.get("transform") or ""
            x, y = float(child.get("x", 0.0)), float(child.get("y", 0.0))
            m2 = re.match(r"translate\(\s*([-0-9.e]+)[ ,]+([-0-9.e]+)\s*\)", ctr)
            if m2:
                x, y = x + float(m2.group(1)), y + float(m2.group(2))
            x, y = x + shift[0], y + shift[1]
            anchor = re.search(r"text-anchor:\s*(\w+)", style)
            a = anchor.group(1) if anchor else "start"
            x0 = x - (width if a == "end" else 0.5 * width if a == "middle" else 0.0)
            box = (
                x0 * sx,
                (y - _ASCENT_EM * fs) * sy,
                (x0 + width) * sx,
                (y + _DESCENT_EM * fs) * sy,
            )
            out.append(TextBox(gid or "", text, box, fs * sy))

    walk(root, None, (0.0, 0.0))
    return out


def check_svg(layout: Layout, data: bytes | str) -> list[str]:
    """Where the SVG's texts disagree with the layout records (empty: they agree).

    Every recorded text must be in the SVG once, at the same place (centres within
    :data:`SVG_POSITION_EM` font sizes), the same font size and width (within
    :data:`SVG_SIZE_FRACTION`); the SVG must hold no text the records lack.
    """
    return check_texts(layout, svg_texts(data, layout.size), "SVG", SVG_POSITION_EM)


def check_texts(layout: Layout, found: list[TextBox], where: str, position_em: float) -> list[str]:
    """Where texts read back from a written file disagree with the layout records.

    Every recorded text must be in ``found`` once, at the same place (centres within
    ``position_em`` font sizes, plus half of :data:`SVG_SIZE_FRACTION` of its width),
    the same font size and width (within :data:`SVG_SIZE_FRACTION`); ``found`` must hold
    no text the records lack. ``where`` names the file kind in the messages (``SVG``,
    ``PDF``).
    """
    pool = list(found)
    out: list[str] = []
    for t in (t for t in layout.texts if t.text.strip()):
        cands = [s for s in pool if s.text == t.text]
        if not cands:
            out.append(f"text {t.id} {t.text!r} is not in the {where}")
            continue
        c = np.array([0.5 * (t.box[0] + t.box[2]), 0.5 * (t.box[1] + t.box[3])])

        def dist(s, c=c):
            return float(
                np.hypot(0.5 * (s.box[0] + s.box[2]) - c[0], 0.5 * (s.box[1] + s.box[3]) - c[1])
            )

        s = min(cands, key=dist)
        pool.remove(s)
        # hinted glyph advances (matplotlib) and plain ones (PIL) differ by a few per cent
        # of a line's width: the centre of a left-aligned line moves by half of that
        slack = position_em * t.px + 0.5 * SVG_SIZE_FRACTION * (t.box[2] - t.box[0])
        if dist(s) > slack + TOUCH_PX + 1.0:
            out.append(f"text {t.id} {t.text!r} is {dist(s):.1f} px from its record in the {where}")
        if abs(s.px - t.px) > SVG_SIZE_FRACTION * t.px:
            out.append(f"text {t.id} {t.text!r}: {where} font {s.px:.1f} px, record {t.px:.1f} px")
        wr, ws = t.box[2] - t.box[0], s.box[2] - s.box[0]
        if abs(wr - ws) > SVG_SIZE_FRACTION * max(wr, 1.0) + 1.0:
            out.append(f"text {t.id} {t.text!r}: {where} width {ws:.1f} px, record {wr:.1f} px")
    for s in pool:
        out.append(f"{where} text {s.text!r} has no layout record")
    return out
