"""Colours of the diagrams: Okabe-Ito, chosen to survive greyscale and colour blindness.

Okabe & Ito (2008), "Color Universal Design": eight colours that stay distinct for the
common colour-vision deficiencies. Every role below also differs in *shape* (rings,
crosses, line widths, labels), so no information rests on hue alone. Greyscale
luminance (Rec. 709 weights on the sRGB values, 0-255) is noted per colour; the two
default sides (blue 94, orange 163) and the scenery ramp (150-205) stay apart in a
greyscale print.

All colours are ``#RRGGBB`` strings; :func:`rgb255` converts one for pixel checks.
"""

from __future__ import annotations

__all__ = [
    "AFFECTED",
    "ARC_EDGE",
    "BACKGROUND",
    "BLOCKED_RAY",
    "CLEAR_RAY",
    "EXCLUDED",
    "FOCUS",
    "LOF_MUTUAL",
    "LOF_ONE_WAY",
    "NEUTRAL",
    "OKABE_ITO",
    "SCENERY_EDGE",
    "SCENERY_NONBLOCKING",
    "SCENERY_RAMP",
    "SIDE_COLORS",
    "TABLE",
    "TEMPLATE",
    "TEXT",
    "greyscale",
    "rgb255",
    "side_colors",
]

#: The Okabe-Ito palette (name -> hex), with greyscale luminance in the comments.
OKABE_ITO: dict[str, str] = {
    "black": "#000000",  # 0
    "orange": "#E69F00",  # 163
    "sky_blue": "#56B4E9",  # 164
    "bluish_green": "#009E73",  # 121
    "yellow": "#F0E442",  # 219
    "blue": "#0072B2",  # 94
    "vermillion": "#D55E00",  # 112
    "reddish_purple": "#CC79A7",  # 142
}

#: Colours given to sides in order of first appearance in the scenario. Blue and orange
#: first: the pair that is furthest apart in greyscale and for every colour-vision type.
SIDE_COLORS: tuple[str, ...] = (
    OKABE_ITO["blue"],
    OKABE_ITO["orange"],
    OKABE_ITO["reddish_purple"],
    OKABE_ITO["sky_blue"],
    OKABE_ITO["bluish_green"],
    OKABE_ITO["yellow"],
)
#: Side ``neutral`` (SPEC 5): a light grey, always outlined in black.
NEUTRAL = "#BBBBBB"

#: Affected troopers: a thick ring around the silhouette top (plus a text label).
AFFECTED = OKABE_ITO["vermillion"]
#: Excluded troopers: a black cross and a label with the reason.
EXCLUDED = OKABE_ITO["black"]
#: Template volumes (translucent).
TEMPLATE = OKABE_ITO["reddish_purple"]
#: Blast Focus segment and point.
FOCUS = OKABE_ITO["black"]
#: The deciding (witness) ray of a Line of Fire.
CLEAR_RAY = OKABE_ITO["bluish_green"]
#: Rays stopped by scenery or a trooper, drawn up to the hit.
BLOCKED_RAY = OKABE_ITO["vermillion"]
#: LoF matrix summary: both troopers have LoF to each other / only one has.
LOF_MUTUAL = OKABE_ITO["bluish_green"]
LOF_ONE_WAY = OKABE_ITO["sky_blue"]
#: The 180° arc boundary of a ``from:ID`` view.
ARC_EDGE = OKABE_ITO["black"]

BACKGROUND = "#FFFFFF"
TEXT = "#000000"
#: Table top (when the scenario gives a table size).
TABLE = "#EFECE4"
#: Blocking scenery is coloured by height along this ramp (low -> high), so tall pieces
#: read darker in the plan view; edges are drawn in ``SCENERY_EDGE``.
SCENERY_RAMP: tuple[str, ...] = ("#D6D2C8", "#B3AEA3", "#918C82")
SCENERY_EDGE = "#3C3C3C"
#: Scenery that does not block LoF (drawn translucent).
SCENERY_NONBLOCKING = "#A9C4A0"


def rgb255(color: str) -> tuple[int, int, int]:
    """``#RRGGBB`` -> (r, g, b) integers 0-255."""
    c = color.lstrip("#")
    if len(c) != 6:
        raise ValueError(f"expected a #RRGGBB colour, got {color!r}")
    return int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16)


def greyscale(color: str) -> float:
    """Rec. 709 luminance of ``#RRGGBB`` on the 0-255 scale (for palette checks)."""
    r, g, b = rgb255(color)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def side_colors(sides) -> dict[str, str]:
    """Colour of each side, in order of first appearance; ``neutral`` is grey.

    Parameters
    ----------
    sides : iterable of str
        Side names in scenario order (repeats allowed).

    Returns
    -------
    dict[str, str]
        Deterministic for the same sequence. More sides than colours cycle.
    """
    out: dict[str, str] = {}
    k = 0
    for s in sides:
        if s in out:
            continue
        if s == "neutral":
            out[s] = NEUTRAL
        else:
            out[s] = SIDE_COLORS[k % len(SIDE_COLORS)]
            k += 1
    return out
