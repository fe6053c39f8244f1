"""The written PDF checked against a figure's layout records (SPEC 13.5, issue 47).

:func:`pdf_texts` reads the text a PDF page shows back with pypdf (a PDF reader written
apart from matplotlib, which wrote the page): each text object's string and where its
baseline starts, scaled from points to output pixels; its box is made as
:func:`viewer.layout_lint.svg_texts` makes an SVG text's (the string's width measured with
PIL on the same DejaVu Sans font). :func:`check_pdf` says where they disagree with the
records (:func:`viewer.layout_lint.check_texts`): every recorded text once, at its place,
nothing extra.

A 3D view's PDF (``iso``, ``from:``) is its pixels on a page (:func:`viewer.vector_output.
raster_pdf_bytes`): it must hold no text at all and one image with the very pixels of
the PNG (the text is in the pixels, linted from the records).

pypdf is a development dependency (``[dev]``): the renderer never needs it.
"""

from __future__ import annotations

import unicodedata
from io import BytesIO

import numpy as np

from .layout_lint import _ASCENT_EM, _DESCENT_EM, Layout, TextBox, _font, check_texts

__all__ = ["PDF_POSITION_EM", "check_pdf", "pdf_images", "pdf_texts"]

#: A PDF text and its record agree when their boxes' centres lie within this many font
#: sizes (plus the width slack of :func:`viewer.layout_lint.check_texts`). One em, as for
#: the SVG: matplotlib lays a legend out for the vector page with text metrics measured at
#: 72 dpi, the raster (whose layout is recorded) at the page's dpi, and down a long
#: legend of wrapped rows the two drift apart by up to most of a line (measured on the
#: flamer40k attack, side and eye figures: at most 0.7 em at 800 x 500, 0.2 em at
#: 1600 x 1200).
PDF_POSITION_EM = 1.0


#: Ligature characters (U+FB00..U+FB06) -> their letters; no other text is normalised.
_LIGATURES = {chr(c): unicodedata.normalize("NFKC", chr(c)) for c in range(0xFB00, 0xFB07)}


def _mul(a, b):
    """Product of two PDF matrices ``[a b c d e f]`` (row vectors: ``a`` then ``b``)."""
    return [
        a[0] * b[0] + a[1] * b[2],
        a[0] * b[1] + a[1] * b[3],
        a[2] * b[0] + a[3] * b[2],
        a[2] * b[1] + a[3] * b[3],
        a[4] * b[0] + a[5] * b[2] + b[4],
        a[4] * b[1] + a[5] * b[3] + b[5],
    ]


def pdf_texts(data: bytes, size) -> list[TextBox]:
    """The texts of a one-page PDF as :class:`~viewer.layout_lint.TextBox` es in pixels.

    Parameters
    ----------
    data : bytes
        The PDF document.
    size : (int, int)
        The output size in pixels (the page, in points, is scaled to it).

    Returns
    -------
    list of TextBox
        One per text object (matplotlib writes one per line of text); ``id`` is empty.
        Ligature glyphs (fi, fl, ...) read back as their letters.
    """
    from pypdf import PdfReader

    page = PdfReader(BytesIO(data)).pages[0]
    mb = page.mediabox
    pw, ph = float(mb.width), float(mb.height)
    sx, sy = size[0] / pw, size[1] / ph
    runs: list[list] = []  # [key, origin (pt), font size (pt), text]

    def visit(text, cm, tm, _font_dict, font_size):
        if not text or not text.strip("\n"):
            return
        m = _mul(tm, cm)
        key = tuple(round(v, 3) for v in cm)
        fs = float(font_size) * float(np.hypot(m[2], m[3]))
        if runs and runs[-1][0] == key:  # the same text object, split at a ligature
            runs[-1][3] += text
            return
        text = text.lstrip("\n")
        if runs and text.startswith(" ") and not text.startswith("  "):
            # pypdf joins texts on (about) one baseline with a space of its own; geom3d's
            # texts never start with one space (indents are two)
            text = text[1:]
        runs.append([key, (m[4], m[5]), fs, text])

    page.extract_text(visitor_text=visit)
    out = []
    for _key, (x, y), fs_pt, text in runs:
        text = "".join(_LIGATURES.get(c, c) for c in text).rstrip("\n")
        if not text.strip():
            continue
        fs = fs_pt * sy
        width = _font().getlength(text) * fs_pt / 100.0 * sx
        x0, base = x * sx, (ph - y) * sy
        box = (x0, base - _ASCENT_EM * fs, x0 + width, base + _DESCENT_EM * fs)
        out.append(TextBox("", text, box, fs))
    return out


def pdf_images(data: bytes) -> list[np.ndarray]:
    """The images drawn on a one-page PDF, ``(h, w, 3)`` uint8 each."""
    from pypdf import PdfReader

    page = PdfReader(BytesIO(data)).pages[0]
    return [np.asarray(im.image.convert("RGB")) for im in page.images]


def check_pdf(layout: Layout, data: bytes, image: np.ndarray | None = None) -> list[str]:
    """Where a written PDF disagrees with the layout records (empty: they agree).

    Parameters
    ----------
    layout : Layout
        The figure's records.
    data : bytes
        The PDF.
    image : (h, w, 3) uint8 or None
        The figure's pixels. Given, a PDF without text is taken for a 3D view's page:
        it must hold exactly one image with these pixels.

    Returns
    -------
    list of str
        One line per disagreement.
    """
    found = pdf_texts(data, layout.size)
    if image is not None and not found:
        images = pdf_images(data)
        if len(images) != 1:
            return [f"the PDF page holds {len(images)} images, not the one picture"]
        got = images[0]
        if got.shape != image.shape or not np.array_equal(got, image):
            return [f"the PDF's picture ({got.shape}) is not the rendered pixels ({image.shape})"]
        return []
    return check_texts(layout, found, "PDF", PDF_POSITION_EM)
