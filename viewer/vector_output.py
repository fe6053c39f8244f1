"""What every vector diagram shares (plan views, side and eye views, maps): matplotlib's
settings (:data:`RC`: a fixed SVG hash salt, text kept as text, one bundled font), the
page's pixels per inch, SVG ids made from actor names, and a figure's SVG or PDF bytes,
the same bytes for the same input (no date, creator or producer written).
:func:`raster_pdf_bytes` wraps a rendered 3D view (PNG pixels) in a one-page PDF.
"""

from __future__ import annotations

from io import BytesIO

import matplotlib
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

__all__ = ["DEFAULT_VECTOR_DPI", "RC", "figure_bytes", "raster_pdf_bytes", "svg_id"]

#: Pixels per inch of a vector diagram's page when no ``--dpi`` is given (CSS pixels).
DEFAULT_VECTOR_DPI = 96
#: matplotlib settings of every vector diagram: fixed SVG hash salt (deterministic ids),
#: text kept as text, one bundled font (same glyphs on every machine).
RC = {
    "svg.hashsalt": "geom3d",
    "svg.fonttype": "none",
    "pdf.fonttype": 42,
    "font.family": "DejaVu Sans",
    "path.simplify": False,
}


def svg_id(name: str) -> str:
    """An actor name (``trooper:a:front``) as an SVG id (``trooper-a-front``)."""
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in str(name).replace(":", "-"))


def figure_bytes(fig: Figure, fmt: str) -> bytes:
    """``svg`` or ``pdf`` bytes of a figure, byte-identical for identical input."""
    buf = BytesIO()
    meta = (
        {"Date": None, "Creator": None}
        if fmt == "svg"
        else {"CreationDate": None, "Creator": None, "Producer": None}
    )
    with matplotlib.rc_context(RC):
        fig.savefig(buf, format=fmt, metadata=meta, facecolor=fig.get_facecolor())
    return buf.getvalue()


def raster_pdf_bytes(image: np.ndarray, dpi: int | None = None) -> bytes:
    """A one-page PDF holding a rendered 3D view (``(h, w, 3)`` uint8 pixels) at ``dpi``."""
    dpi = float(dpi or DEFAULT_VECTOR_DPI)
    h, w = image.shape[:2]
    fig = Figure(figsize=(w / dpi, h / dpi), dpi=dpi)
    FigureCanvasAgg(fig)
    fig.figimage(image, 0, 0, origin="upper", resize=False)
    return figure_bytes(fig, "pdf")
