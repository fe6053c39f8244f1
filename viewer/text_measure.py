"""Text measured as VTK draws it: a line's size in pixels, greedy word wrap to a width,
and a text fitted to a number of lines by shrinking its font."""

from __future__ import annotations

import vtkmodules.vtkRenderingFreeType  # noqa: F401  (registers the renderer text_px asks)
from vtkmodules.vtkRenderingCore import vtkTextRenderer

from .word_wrap import greedy_wrap

__all__ = ["fit_lines", "text_px", "wrap"]


def text_px(prop, text: str) -> tuple[int, int]:
    """Width and height in pixels of ``text`` drawn with a VTK text property."""
    bb = [0, 0, 0, 0]
    vtkTextRenderer.GetInstance().GetBoundingBox(prop, text, bb, 72)
    return bb[1] - bb[0], bb[3] - bb[2]


def wrap(prop, lines, width_px: float) -> list[str]:
    """Greedy word wrap of ``lines`` to ``width_px`` as measured by the text renderer.

    Continuation lines keep the line's indent plus two spaces.
    """
    return greedy_wrap(lines, width_px, lambda text: text_px(prop, text)[0])


def fit_lines(plotter, text: str, font: int, width_px: float, most: int):
    """``text`` wrapped to ``width_px``: in at most ``most`` lines, the font made smaller
    (down to 60 %) if need be; longer text keeps the smallest font and takes more lines.

    Returns
    -------
    font : int
    lines : list of str
    step : float
        Line spacing, pixels.
    """
    for f in (font, round(font * 0.85), round(font * 0.72), round(font * 0.6)):
        f = max(6, f)
        probe = plotter.add_text(" ", position=(0, 0), font_size=f, name="fit:probe")
        lines = wrap(probe.prop, str(text).splitlines() or [""], width_px)
        step = 1.15 * text_px(probe.prop, "Ag")[1]
        plotter.remove_actor("fit:probe", render=False)
        if len(lines) <= most:
            break
    return f, lines, step
