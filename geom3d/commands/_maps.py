"""The map options of ``geom3d survey`` and ``geom3d exposure``: ``--size WxH`` and
``--title TEXT``, spelt and checked as ``geom3d render``'s (:func:`parse_size`).

Checked before the survey or exposure is computed: a bad ``--size`` is one line and exit
2 at once, not after minutes of work. The renderer draws the map at that size (pixels of
the PNG; the SVG's page is the same at 96 pixels per inch) with that title; the generated
subtitle (probe, spacing, the answer in one line) stays.
"""

from __future__ import annotations

import argparse
from typing import Any

from geom3d.commands.render import RENDER_MAX_PIXELS, RENDER_SIDE_RANGE_PX, parse_size

__all__ = ["DEFAULT_MAP_SIZE", "add_map_options", "map_options"]

#: ``--size``'s default for a map, as ``geom3d render``'s.
DEFAULT_MAP_SIZE = "1600x1200"


def add_map_options(p: argparse.ArgumentParser, default_title: str) -> None:
    """Add ``--size`` and ``--title`` to a map command's parser."""
    lo, hi = RENDER_SIDE_RANGE_PX
    p.add_argument(
        "--size",
        default=DEFAULT_MAP_SIZE,
        metavar="WxH",
        help=f"map size in pixels, each side {lo}..{hi}, at most {RENDER_MAX_PIXELS / 1e6:.1f} "
        f"M pixels in all (default: {DEFAULT_MAP_SIZE})",
    )
    p.add_argument(
        "--title",
        default=None,
        metavar="TEXT",
        help=f"title of the map, wrapped to it (default: {default_title})",
    )


def map_options(args: argparse.Namespace) -> dict[str, Any]:
    """``{"size": (w, h), "title": str | None}`` for the renderer; a bad ``--size`` raises
    :class:`geom3d.core.errors.UsageError` (one line, exit 2)."""
    return {"size": parse_size(args.size), "title": args.title}
