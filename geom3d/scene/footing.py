"""Where a base rests: the ground connected to the support under its centre (SPEC 12.2).

One rule for every command: ``lof``, ``attack`` and ``render`` drop ``[x, y]`` troopers
with it (:meth:`geom3d.scene.standing.Surface.rest`) and ``survey`` stands its probes with it
(:mod:`geom3d.survey.grid`), each on its own probe pattern under the base.

A base disc is probed by vertical rays at sample points (the centre first). Two samples
are *linked* when they are near each other (within :func:`link_pairs`' reach) and their
heights differ by at most ``FOOTING_STEP_MM + d * tan(FOOTING_SLOPE_DEG)`` for their
plan distance ``d``: a slope, a pebble, a seam between tiles. The base rests on the
highest sample linked, through any chain, to the centre's: so nothing sinks into a hill,
and a wall or a sculpture that the base only overlaps at its rim (a jump far steeper
than any slope) does not lift it: the trooper stands on the ground beside it, and the
caller warns, naming the piece and how far it reaches into the base.
"""

from __future__ import annotations

import math

import numpy as np

from geom3d.bodies.kernels import njit
from geom3d.scene.tolerances import FOOTING_SLOPE_DEG, FOOTING_STEP_MM

__all__ = ["Footing", "connected_rest", "link_pairs"]


def link_pairs(offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Neighbouring sample pairs of a probe pattern.

    Each sample is linked to every sample within 1.6 times the largest nearest-neighbour
    distance of the pattern (so the pattern is one connected graph).

    Parameters
    ----------
    offsets : (k, 2) float64, mm
        Sample offsets from the base centre.

    Returns
    -------
    i, j : (p,) int64
        The pairs (``i < j``).
    d : (p,) float64, mm
        Their plan distances.
    """
    from scipy.spatial import cKDTree

    off = np.asarray(offsets, np.float64).reshape(-1, 2)
    if len(off) < 2:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
    tree = cKDTree(off)
    nn, _ = tree.query(off, k=2)
    reach = 1.6 * float(nn[:, 1].max())
    pairs = np.asarray(tree.query_pairs(reach, output_type="ndarray"), np.int64).reshape(-1, 2)
    pairs = pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]  # (i, j) in order, i < j
    d = np.linalg.norm(off[pairs[:, 0]] - off[pairs[:, 1]], axis=1)
    return pairs[:, 0], pairs[:, 1], d


class Footing:
    """A probe pattern with its links (build once per base radius, reuse per disc).

    Parameters
    ----------
    offsets : (k, 2) float64, mm
        Sample offsets; the one nearest the base centre is the centre's support.
    """

    def __init__(self, offsets: np.ndarray) -> None:
        self.offsets = np.asarray(offsets, np.float64).reshape(-1, 2)
        self.i, self.j, d = link_pairs(self.offsets)
        self.allow = FOOTING_STEP_MM + d * math.tan(math.radians(FOOTING_SLOPE_DEG))
        self.radial = np.hypot(self.offsets[:, 0], self.offsets[:, 1])
        self.centre = int(np.argmin(self.radial)) if len(self.radial) else 0
        # each sample's links, both ways (CSR: links of s are nbr[start[s]:start[s + 1]],
        # with their allowances)
        k = len(self.offsets)
        ends = np.concatenate([self.i, self.j])
        other = np.concatenate([self.j, self.i])
        order = np.argsort(ends, kind="stable")
        self.nbr = np.ascontiguousarray(other[order], dtype=np.int64)
        self.nbr_allow = np.ascontiguousarray(np.concatenate([self.allow, self.allow])[order])
        self.start = np.searchsorted(ends[order], np.arange(k + 1)).astype(np.int64)


def connected_rest(footing: Footing, heights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Resting height of each disc on the ground connected to its centre.

    Parameters
    ----------
    footing : Footing
    heights : (n, k) float64, mm
        Surface height at each sample of each disc; NaN where a probe met nothing.

    Returns
    -------
    z : (n,) float64, mm
        Highest sample connected to the centre; where the centre met nothing, the
        highest sample of the disc (NaN where no sample met anything).
    connected : (n, k) bool
        The samples connected to the centre (every sample with a height, where the
        centre has none).
    """
    h = np.ascontiguousarray(heights, dtype=np.float64)
    n, k = h.shape
    have = ~np.isnan(h)
    c = footing.centre
    con = _spread(h, c, footing.start, footing.nbr, footing.nbr_allow)
    lost = ~have[:, c]
    con[lost] = have[lost]
    z = np.where(con, h, -np.inf).max(axis=1) if k else np.full(n, -np.inf)
    z = np.where(np.isfinite(z), z, np.nan)
    return z, con


@njit(cache=True, nogil=True)
def _spread(h, c, start, nbr, allow):
    """(n, k) bool: the samples of each disc linked to sample ``c`` through chains of
    links whose two heights (both known) differ by at most the link's allowance."""
    n, k = h.shape
    con = np.zeros((n, k), np.bool_)
    queue = np.empty(k, np.int64)
    for row in range(n):
        if np.isnan(h[row, c]):
            continue
        con[row, c] = True
        queue[0] = c
        head, tail = 0, 1
        while head < tail:
            s = queue[head]
            head += 1
            for q in range(start[s], start[s + 1]):
                t = nbr[q]
                if not con[row, t] and abs(h[row, s] - h[row, t]) <= allow[q]:
                    con[row, t] = True  # (a NaN height compares false: never linked)
                    queue[tail] = t
                    tail += 1
    return con
