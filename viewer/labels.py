"""Label placement in image space: no label is dropped without saying so.

:func:`place_labels` puts each label's box next to its anchor, at the first candidate
position that stays inside the picture region and overlaps no label placed before it.
Near candidates come first (the label touches its anchor); farther ones get a leader line
from the box back to the anchor. A label that finds no free position anywhere is returned
unplaced, and the diagram lists it in a "labels not shown: ..." note (:func:`unplaced_note`).

Pure numpy: both the PNG renderer (VTK) and the vector plan views (matplotlib) use it.
Coordinates are pixels with rows growing downwards.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["LEADER_RINGS", "Placement", "place_labels", "unplaced_note"]

#: Distances of the candidate rings from the anchor, in label heights. The first ring
#: touches the anchor (no leader line); the others are connected by a leader line.
LEADER_RINGS: tuple[float, ...] = (0.35, 1.6, 3.0, 4.5, 6.5, 9.0, 12.0, 16.0)
#: Directions tried on each ring, in order (dx, dy; rows grow downwards): up-right first,
#: like the labels of the 3D views.
_DIRECTIONS = (
    (1, -1),
    (1, 1),
    (-1, -1),
    (-1, 1),
    (1, 0),
    (-1, 0),
    (0, -1),
    (0, 1),
)


@dataclass(frozen=True)
class Placement:
    """Where one label went.

    Attributes
    ----------
    box : (x0, y0, x1, y1) float or None
        The label's box in pixels (rows down); None when it could not be placed.
    leader : bool
        Draw a leader line from the box to the anchor.
    anchor : (x, y) float
    """

    box: tuple[float, float, float, float] | None
    leader: bool
    anchor: tuple[float, float]

    @property
    def placed(self) -> bool:
        return self.box is not None

    def leader_end(self) -> tuple[float, float]:
        """The point of the box's edge nearest the anchor (where the leader starts)."""
        assert self.box is not None
        x0, y0, x1, y1 = self.box
        ax, ay = self.anchor
        return (float(min(max(ax, x0), x1)), float(min(max(ay, y0), y1)))


def _overlaps(box, boxes: list) -> bool:
    x0, y0, x1, y1 = box
    for b in boxes:
        if x0 < b[2] and b[0] < x1 and y0 < b[3] and b[1] < y1:
            return True
    return False


def place_labels(anchors, sizes, region, *, pad: float = 2.0, obstacles=()) -> list[Placement]:
    """Greedy placement of label boxes next to their anchors.

    Parameters
    ----------
    anchors : (n, 2) float, px
        Anchor points (column, row); NaN anchors (not projected) are left unplaced.
    sizes : (n, 2) float, px
        Width and height of each label's box.
    region : (x0, x1, y0, y1) float, px
        The part of the image labels may occupy.
    pad : float, px
        Gap kept between boxes.
    obstacles : sequence of (x0, y0, x1, y1) float, px
        Boxes no label may cover (troopers, the deciding patch); a label whose anchor
        lies in one is moved out of it, with a leader line when it is not touching.

    Returns
    -------
    list of Placement
        One per label, in input order; earlier labels get the better positions.
    """
    a = np.asarray(anchors, dtype=float).reshape(-1, 2)
    s = np.asarray(sizes, dtype=float).reshape(-1, 2)
    rx0, rx1, ry0, ry1 = (float(v) for v in region)
    placed: list = [tuple(float(v) for v in b) for b in obstacles]
    out: list[Placement] = []
    for (ax, ay), (w, h) in zip(a, s, strict=True):
        anchor = (float(ax), float(ay))
        if not (np.isfinite(ax) and np.isfinite(ay)) or not (rx0 <= ax <= rx1 and ry0 <= ay <= ry1):
            out.append(Placement(None, False, anchor))
            continue
        found = None
        for k, ring in enumerate(LEADER_RINGS):
            dist = ring * h
            for dx, dy in _DIRECTIONS:
                # box corner/edge nearest the anchor sits ``dist`` away in that direction
                cx = ax + dx * (dist + 0.5 * w) if dx else ax
                cy = ay + dy * (dist + 0.5 * h) if dy else ay
                box = (cx - 0.5 * w, cy - 0.5 * h, cx + 0.5 * w, cy + 0.5 * h)
                if box[0] < rx0 or box[2] > rx1 or box[1] < ry0 or box[3] > ry1:
                    continue
                grown = (box[0] - pad, box[1] - pad, box[2] + pad, box[3] + pad)
                if _overlaps(grown, placed):
                    continue
                found = (box, k > 0)
                break
            if found:
                break
        if found is None:
            out.append(Placement(None, False, anchor))
        else:
            placed.append(found[0])
            out.append(Placement(found[0], found[1], anchor))
    return out


def unplaced_note(texts, placements) -> str | None:
    """``"labels not shown: a, b"`` for the labels that found no place, else None."""
    missing = [t for t, p in zip(texts, placements, strict=True) if not p.placed]
    if not missing:
        return None
    return "labels not shown (no room): " + ", ".join(missing)
