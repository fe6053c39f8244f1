"""Greedy word wrap to a width in pixels, whatever measures the text (VTK's text renderer
for the 3D views' overlay, matplotlib's for the vector figures)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

__all__ = ["greedy_wrap"]


def greedy_wrap(lines: Iterable[str], width_px: float, width_of: Callable[[str], float]) -> list:
    """Each of ``lines`` wrapped at spaces so that ``width_of(line) <= width_px`` wherever
    a line holds more than one word.

    Continuation lines keep the line's indent plus two spaces; an empty (or all-space)
    line stays one empty line; a word wider than ``width_px`` is kept whole on its own
    line (the caller cuts it if it must).

    Returns
    -------
    list of str
    """
    out: list[str] = []
    for line in lines:
        indent = line[: len(line) - len(line.lstrip())]
        words = line.split()
        if not words:
            out.append("")
            continue
        cur = indent + words[0]
        for word in words[1:]:
            cand = f"{cur} {word}"
            if width_of(cand) <= width_px:
                cur = cand
            else:
                out.append(cur)
                cur = indent + "  " + word
        out.append(cur)
    return out
