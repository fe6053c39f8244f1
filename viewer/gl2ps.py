"""SVG of a VTK-rendered view (``iso``, ``from:``) through VTK's GL2PS exporter.

GL2PS writes the 2D overlays as ``<text>`` elements and the 3D picture as one raster
``<image>``. The bytes are made deterministic (no ``CreationDate``), the text is
XML-escaped (GL2PS writes it raw) and the page gets the size every view gets for one
output size (:data:`viewer.vector_output.DEFAULT_VECTOR_DPI` pixels per inch, or ``--dpi``).
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from xml.sax.saxutils import escape

from geom3d.core.output import safe_text

from .model import Drawing
from .vector_output import DEFAULT_VECTOR_DPI

__all__ = ["svg_bytes"]


_CREATION = re.compile(r"^CreationDate:.*\n", re.MULTILINE)


def svg_bytes(plotter, drawing: Drawing, size, dpi: int | None) -> bytes:
    """The SVG bytes of the picture in ``plotter`` (rendered at ``size`` pixels)."""
    with tempfile.TemporaryDirectory(prefix="geom3d-svg-") as tmp:
        f = Path(tmp) / "diagram.svg"
        plotter.save_graphic(str(f), title=_xml_escape(drawing.title), raster=True, painter=True)
        text = f.read_text(encoding="utf-8")
    text = _CREATION.sub("", text)
    text = _escape_gl2ps_text(text)
    # the page size every view gets for one output size (the vector views' too): W x H
    # pixels at --dpi, else at DEFAULT_VECTOR_DPI (96 px per inch: 0.75 pt a pixel)
    w, h = size
    if dpi:
        page = f'width="{w / dpi:.4f}in" height="{h / dpi:.4f}in"'
    else:
        k = 72.0 / DEFAULT_VECTOR_DPI
        page = f'width="{w * k:g}pt" height="{h * k:g}pt"'
    text = re.sub(r'width="[0-9.]+pt" height="[0-9.]+pt"', page, text, count=1)
    return text.encode("utf-8")


def _escape_gl2ps_text(svg: str) -> str:
    """GL2PS writes ``<text ...>content</text>`` unescaped (a ``<scenario>`` title made the
    file ill-formed XML): escape each content, one element a line as GL2PS writes them."""
    out = []
    for line in svg.split("\n"):
        if line.startswith("<text") and line.endswith("</text>") and ">" in line:
            head, _, rest = line.partition(">")
            line = f"{head}>{_xml_escape(rest[: -len('</text>')])}</text>"
        out.append(line)
    return "\n".join(out)


def _xml_escape(s: str) -> str:
    """XML-escaped, with control and bidirectional-override characters as visible escapes
    (XML 1.0 refuses the one, a reader's eye is misled by the other: issue 33)."""
    return escape(safe_text(s))
