"""Label placement in image space: candidates around each anchor, chosen jointly.

:func:`place_labels` gives every label a set of candidate boxes around its anchor: a
first ring touching the anchor (no leader line) and farther rings joined to the anchor by
a leader line (:data:`LEADER_RINGS`, :data:`_DIRECTIONS`). A candidate is allowed when it
lies inside the picture region, covers no obstacle (troopers, the deciding patch) and no
deciding ray. Two choices conflict when their boxes overlap, a leader line crosses the
other label's box, or two leader lines cross. Each candidate costs its distance (ring)
plus :data:`RAY_COST` per other ray it covers, :data:`SCENERY_COST` times the share of its
box over scenery, and :data:`LEADER_OVER_COST` per obstacle its leader crosses.

The choice is made jointly and deterministically: a greedy pass (labels in input order,
each taking its cheapest candidate free of conflicts with those already placed), then
local search: each label in turn moves to a cheaper free candidate, and a label without
a place may take one whose only conflict is a placed label that can itself move to
another free candidate. Passes repeat until nothing changes (at most
:data:`LOCAL_PASSES`). A label that still finds no place is returned unplaced, and the
diagram lists it (:func:`unplaced_note`) instead of drawing it over something.

Pure numpy: both the VTK renderer and the matplotlib figures use it. Coordinates are
pixels with rows growing downwards.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from viewer.layout_lint import segment_hits_box

__all__ = [
    "LEADER_OVER_COST",
    "LEADER_RINGS",
    "LOCAL_PASSES",
    "RAY_COST",
    "SCENERY_COST",
    "Placement",
    "place_labels",
    "unplaced_note",
]

#: Distances of the candidate rings from the anchor, in label heights. The first ring
#: touches the anchor (no leader line); the others are connected by a leader line.
LEADER_RINGS: tuple[float, ...] = (0.35, 1.6, 3.0, 4.5, 6.5, 9.0, 12.0, 16.0)
#: Directions tried on each ring (dx, dy; rows grow downwards): up-right first, like the
#: labels of the 3D views; ties in cost go to the earlier direction.
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
#: Cost of one ring step farther from the anchor (the unit of the other costs).
RING_COST = 1.0
#: Cost of a label box covering a ray that is not the deciding one (LoF arrows, fans).
RAY_COST = 2.5
#: Cost of a label box lying wholly over scenery (proportional to the share covered).
SCENERY_COST = 1.5
#: Cost of a leader line crossing a trooper or patch box other than its own anchor's.
LEADER_OVER_COST = 3.0
#: Most local-search passes over all labels.
LOCAL_PASSES = 6


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
        return _edge_point(self.box, self.anchor)


def _edge_point(box, anchor) -> tuple[float, float]:
    x0, y0, x1, y1 = box
    ax, ay = anchor
    return (float(min(max(ax, x0), x1)), float(min(max(ay, y0), y1)))


def _boxes_hit(box, boxes: np.ndarray, pad: float) -> np.ndarray:
    """(m,) bool: which of ``boxes`` (m, 4) overlap ``box`` grown by ``pad``."""
    if not len(boxes):
        return np.zeros(0, bool)
    x0, y0, x1, y1 = box[0] - pad, box[1] - pad, box[2] + pad, box[3] + pad
    return (x0 < boxes[:, 2]) & (boxes[:, 0] < x1) & (y0 < boxes[:, 3]) & (boxes[:, 1] < y1)


def _seg_hits(p, q, boxes: np.ndarray, shrink: float = 0.5) -> np.ndarray:
    """(m,) bool: does segment p-q pass through each box (shrunk by ``shrink``)?"""
    if not len(boxes):
        return np.zeros(0, bool)
    b = boxes + np.array([shrink, shrink, -shrink, -shrink])
    px, py = p
    dx, dy = q[0] - px, q[1] - py
    t0 = np.zeros(len(b))
    t1 = np.ones(len(b))
    ok = (b[:, 0] < b[:, 2]) & (b[:, 1] < b[:, 3])
    for pk, qk in (
        (-dx, px - b[:, 0]),
        (dx, b[:, 2] - px),
        (-dy, py - b[:, 1]),
        (dy, b[:, 3] - py),
    ):
        if pk == 0:
            ok &= qk >= 0
            continue
        r = qk / pk
        if pk < 0:
            t0 = np.maximum(t0, r)
        else:
            t1 = np.minimum(t1, r)
    return ok & (t0 <= t1)


def _cross(p, q, r, s) -> bool:
    """Proper crossing of segments p-q and r-s."""

    def o(a, b, c):
        return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])

    return o(r, s, p) * o(r, s, q) < 0 and o(p, q, r) * o(p, q, s) < 0


def _overlap_share(box, boxes: np.ndarray) -> float:
    """Share of ``box``'s area covered by ``boxes`` (summed, at most 1)."""
    if not len(boxes):
        return 0.0
    w = np.clip(np.minimum(box[2], boxes[:, 2]) - np.maximum(box[0], boxes[:, 0]), 0, None)
    h = np.clip(np.minimum(box[3], boxes[:, 3]) - np.maximum(box[1], boxes[:, 1]), 0, None)
    area = max((box[2] - box[0]) * (box[3] - box[1]), 1e-9)
    return float(min(1.0, (w * h).sum() / area))


@dataclass
class _Cand:
    box: tuple
    leader: tuple | None  # ((x, y), (x, y)) or None
    cost: float


def _candidates(anchor, wh, region, pad, hard, rays, soft_rays, scenery, obstacles, rad=0.0):
    ax, ay = anchor
    w, h = wh
    rx0, rx1, ry0, ry1 = region
    out: list[_Cand] = []
    for k, ring in enumerate(LEADER_RINGS):
        dist = rad + ring * h  # from the anchor's disc (radius 0: the point)
        for j, (dx, dy) in enumerate(_DIRECTIONS):
            cx = ax + dx * (dist + 0.5 * w) if dx else ax
            cy = ay + dy * (dist + 0.5 * h) if dy else ay
            box = (cx - 0.5 * w, cy - 0.5 * h, cx + 0.5 * w, cy + 0.5 * h)
            if box[0] < rx0 or box[2] > rx1 or box[1] < ry0 or box[3] > ry1:
                continue
            if _boxes_hit(box, hard, pad).any():
                continue
            if any(_seg_hit1(p, q, box) for p, q in rays):
                continue
            cost = RING_COST * k + 0.01 * j
            cost += RAY_COST * sum(_seg_hit1(p, q, box) for p, q in soft_rays)
            cost += SCENERY_COST * _overlap_share(box, scenery)
            leader = None
            if k > 0:
                leader = (_edge_point(box, anchor), (float(ax), float(ay)))
                if len(obstacles):
                    hits = _seg_hits(leader[0], leader[1], obstacles, shrink=1.0)
                    # the anchor's own trooper contains the anchor: not counted
                    own = (
                        (obstacles[:, 0] <= ax)
                        & (ax <= obstacles[:, 2])
                        & (obstacles[:, 1] <= ay)
                        & (ay <= obstacles[:, 3])
                    )
                    cost += LEADER_OVER_COST * int((hits & ~own).sum())
            out.append(_Cand(box, leader, cost))
    return out


def _seg_hit1(p, q, box, shrink: float = 0.5) -> bool:
    """Scalar :func:`_seg_hits` for one box (the lint's Liang-Barsky test)."""
    return segment_hits_box(p, q, box, shrink)


def _conflict(a: _Cand, b: _Cand, pad: float) -> bool:
    ab, bb = a.box, b.box
    if ab[0] - pad < bb[2] and bb[0] < ab[2] + pad and ab[1] - pad < bb[3] and bb[1] < ab[3] + pad:
        return True
    if a.leader is not None and _seg_hit1(*a.leader, bb):
        return True
    if b.leader is not None and _seg_hit1(*b.leader, ab):
        return True
    return a.leader is not None and b.leader is not None and _cross(*a.leader, *b.leader)


def place_labels(
    anchors,
    sizes,
    region,
    *,
    pad: float = 2.0,
    obstacles=(),
    rays=(),
    soft_rays=(),
    scenery=(),
    anchor_radius=None,
) -> list[Placement]:
    """Place label boxes next to their anchors, jointly (see the module docstring).

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
    rays : sequence of ((x, y), (x, y)), px
        Segments no label may cover (the deciding ray).
    soft_rays : sequence of ((x, y), (x, y)), px
        Segments a label should not cover (other rays: :data:`RAY_COST` each).
    scenery : sequence of (x0, y0, x1, y1), px
        Boxes a label should not cover (:data:`SCENERY_COST` by the share covered).
    anchor_radius : (n,) float, px, or None
        Each anchor's disc (a map's observer): its rings are measured from the disc's
        edge, so the first ring touches the disc, not its centre (default: points).

    Returns
    -------
    list of Placement
        One per label, in input order.
    """
    a = np.asarray(anchors, dtype=float).reshape(-1, 2)
    s = np.asarray(sizes, dtype=float).reshape(-1, 2)
    region = tuple(float(v) for v in region)
    rx0, rx1, ry0, ry1 = region
    hard = np.asarray(list(obstacles), dtype=float).reshape(-1, 4)
    scen = np.asarray(list(scenery), dtype=float).reshape(-1, 4)
    rays = [tuple(map(tuple, r)) for r in rays]
    soft = [tuple(map(tuple, r)) for r in soft_rays]
    n = len(a)
    rad = np.zeros(n) if anchor_radius is None else np.asarray(anchor_radius, dtype=float)
    cands: list[list[_Cand]] = []
    for (ax, ay), wh, r in zip(a, s, rad, strict=True):
        ok = np.isfinite(ax) and np.isfinite(ay) and rx0 <= ax <= rx1 and ry0 <= ay <= ry1
        cands.append(
            _candidates((ax, ay), wh, region, pad, hard, rays, soft, scen, hard, float(r))
            if ok
            else []
        )
    choice: list[int | None] = [None] * n

    def free(i: int, c: _Cand, skip=()) -> bool:
        return all(
            choice[j] is None or j == i or j in skip or not _conflict(c, cands[j][choice[j]], pad)
            for j in range(n)
        )

    for i in range(n):  # greedy: input order, cheapest free candidate
        best = min(
            (k for k, c in enumerate(cands[i]) if free(i, c)),
            key=lambda k, i=i: cands[i][k].cost,
            default=None,
        )
        choice[i] = best
    for _ in range(LOCAL_PASSES):
        changed = False
        for i in range(n):
            cur = choice[i]
            cur_cost = cands[i][cur].cost if cur is not None else np.inf
            for k in sorted(range(len(cands[i])), key=lambda k, i=i: cands[i][k].cost):
                c = cands[i][k]
                if c.cost >= cur_cost - 1e-9:
                    break
                if free(i, c):
                    choice[i] = k
                    changed = True
                    break
                if cur is not None:
                    continue
                # an unplaced label: move one blocking label out of the way
                blockers = [
                    j
                    for j in range(n)
                    if j != i and choice[j] is not None and _conflict(c, cands[j][choice[j]], pad)
                ]
                if len(blockers) != 1:
                    continue
                j = blockers[0]
                old = choice[j]
                choice[i] = k
                alt = next(
                    (
                        m
                        for m in sorted(range(len(cands[j])), key=lambda m, j=j: cands[j][m].cost)
                        if m != old and free(j, cands[j][m])
                    ),
                    None,
                )
                if alt is None:
                    choice[i] = None
                    continue
                choice[j] = alt
                changed = True
                break
        if not changed:
            break
    out: list[Placement] = []
    for i in range(n):
        anchor = (float(a[i, 0]), float(a[i, 1]))
        if choice[i] is None:
            out.append(Placement(None, False, anchor))
        else:
            c = cands[i][choice[i]]
            out.append(Placement(tuple(float(v) for v in c.box), c.leader is not None, anchor))
    return out


def unplaced_note(texts, placements) -> str | None:
    """``"labels not shown: a, b"`` for the labels that found no place, else None."""
    missing = [t for t, p in zip(texts, placements, strict=True) if not p.placed]
    if not missing:
        return None
    return "labels not shown (no room): " + ", ".join(missing)
