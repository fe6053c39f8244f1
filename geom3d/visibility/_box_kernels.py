"""Compiled kernels of the interior boxes (:mod:`.interior_boxes`): the interior map's
runs as a grid of voxels, merged into large boxes.

Column ``c = i * ny + j`` of the map (:mod:`.interior`) holds its voxels as the bits of
one ``uint64``: bit ``k`` is set when one interior run of the column holds the whole of
``[z0 + k q, z0 + (k + 1) q]``. A box of voxels ``(i0, j0, k0, i1, j1, k1)`` (ends
exclusive) whose every voxel is set lies inside the runs, so inside a closed solid, and
no blocking triangle meets it.
"""

from __future__ import annotations

import math

import numpy as np

from geom3d.bodies.kernels import njit, njit_leaf

__all__ = ["column_bits", "greedy_boxes", "grow_boxes", "rising", "take_new"]


@njit(cache=True, nogil=True)
def column_bits(run_off, run_lo, run_hi, z0, q, n_levels, min_height):
    """(columns,) uint64: each column's voxels (see the module docstring) of its runs at
    least ``min_height`` (mm) tall; ``n_levels`` at most 63."""
    n = run_off.shape[0] - 1
    bits = np.zeros(n, np.uint64)
    for c in range(n):
        m = np.uint64(0)
        for r in range(run_off[c], run_off[c + 1]):
            if run_hi[r] - run_lo[r] < min_height:
                continue
            k0 = max(math.ceil((run_lo[r] - z0) / q), 0)
            k1 = min(math.floor((run_hi[r] - z0) / q), n_levels)
            for k in range(k0, k1):
                m |= np.uint64(1) << np.uint64(k)
        bits[c] = m
    return bits


@njit_leaf(forceinline=True)
def _levels(k0, k1):
    """The bit mask of levels ``k0 .. k1 - 1``."""
    return ((np.uint64(1) << np.uint64(k1 - k0)) - np.uint64(1)) << np.uint64(k0)


@njit_leaf
def _full(bits, ny, i0, i1, j0, j1, mask):
    """Are the levels ``mask`` set in every column of ``[i0, i1) x [j0, j1)``?"""
    for i in range(i0, i1):
        for j in range(j0, j1):
            if (bits[i * ny + j] & mask) != mask:
                return False
    return True


@njit(cache=True, nogil=True)
def greedy_boxes(bits, nx, ny, n_levels, seeds):
    """(b, 6) int64: the voxels as disjoint boxes, each grown from the first voxel not yet
    taken (columns in the order of ``seeds``, lowest level first) along z, then x, then y
    (towards higher indices) while every voxel added is set and free."""
    used = np.zeros(bits.shape[0], np.uint64)
    out = np.empty((64, 6), np.int64)
    n = 0
    for c in seeds:
        i, j = c // ny, c % ny
        free = bits[c] & ~used[c]
        while free:
            k = 0
            while not (free >> np.uint64(k)) & np.uint64(1):
                k += 1
            k1 = k + 1
            while k1 < n_levels and (free >> np.uint64(k1)) & np.uint64(1):
                k1 += 1
            mask = _levels(k, k1)
            i1 = i + 1
            while i1 < nx and (bits[i1 * ny + j] & ~used[i1 * ny + j] & mask) == mask:
                i1 += 1
            j1 = j + 1
            while j1 < ny:
                ok = True
                for ii in range(i, i1):
                    cc = ii * ny + j1
                    if (bits[cc] & ~used[cc] & mask) != mask:
                        ok = False
                        break
                if not ok:
                    break
                j1 += 1
            for ii in range(i, i1):
                for jj in range(j, j1):
                    used[ii * ny + jj] |= mask
            if n == out.shape[0]:
                out = _wider(out, n)
            out[n, 0], out[n, 1], out[n, 2] = i, j, k
            out[n, 3], out[n, 4], out[n, 5] = i1, j1, k1
            n += 1
            free = bits[c] & ~used[c]
    return _first(out, n)


@njit_leaf
def _copy_rows(src, dst, n):
    """``dst[:n] = src[:n]`` for (m, 6) int64 rows, element by element (a slice's
    assignment compiles its shape checks: seconds of a first run)."""
    for r in range(n):
        for k in range(6):
            dst[r, k] = src[r, k]


@njit(cache=True, nogil=True)
def _wider(out, n):
    """``out`` (its ``n`` rows full) in an array twice as long."""
    bigger = np.empty((2 * n, 6), np.int64)
    _copy_rows(out, bigger, n)
    return bigger


@njit(cache=True, nogil=True)
def _first(out, n):
    """A new array of the first ``n`` rows of ``out``."""
    got = np.empty((n, 6), np.int64)
    _copy_rows(out, got, n)
    return got


@njit(cache=True, nogil=True)
def grow_boxes(bits, nx, ny, n_levels, boxes):
    """(g, 6) int64: each box grown, face by face (x, y low then high, then z), as far as
    set voxels allow, over and over until none grows; a box inside one grown before is
    not grown again (it would mostly grow into the same)."""
    out = np.empty((boxes.shape[0], 6), np.int64)
    n = 0
    for b in range(boxes.shape[0]):
        i0, j0, k0, i1, j1, k1 = boxes[b]
        seen = False
        for o in range(n):
            if (
                out[o, 0] <= i0 and out[o, 1] <= j0 and out[o, 2] <= k0
                and out[o, 3] >= i1 and out[o, 4] >= j1 and out[o, 5] >= k1
            ):  # fmt: skip
                seen = True
                break
        if seen:
            continue
        grew = True
        while grew:
            grew = False
            mask = _levels(k0, k1)
            if i0 > 0 and _full(bits, ny, i0 - 1, i0, j0, j1, mask):
                i0 -= 1
                grew = True
            if i1 < nx and _full(bits, ny, i1, i1 + 1, j0, j1, mask):
                i1 += 1
                grew = True
            if j0 > 0 and _full(bits, ny, i0, i1, j0 - 1, j0, mask):
                j0 -= 1
                grew = True
            if j1 < ny and _full(bits, ny, i0, i1, j1, j1 + 1, mask):
                j1 += 1
                grew = True
            if k0 > 0 and _full(bits, ny, i0, i1, j0, j1, _levels(k0 - 1, k0)):
                k0 -= 1
                grew = True
            if k1 < n_levels and _full(bits, ny, i0, i1, j0, j1, _levels(k1, k1 + 1)):
                k1 += 1
                grew = True
        out[n, 0], out[n, 1], out[n, 2] = i0, j0, k0
        out[n, 3], out[n, 4], out[n, 5] = i1, j1, k1
        n += 1
    return _first(out, n)


@njit(cache=True, nogil=True)
def rising(run_off, run_lo, run_hi, nx, ny, boxes, tops, min_rise):
    """(b,) bool: boxes that rise ``min_rise`` (mm) above their surroundings: the top
    ``tops[b]`` is that far above the lowest, over the ring of columns just outside the
    box, of each column's highest run top among the runs that start below ``tops[b]``.
    A ring column with no such run does not count (it may be open air, or a column the
    map left uncertain: next to the edge of a scan, or under a steep face); a box with no
    column round it that counts (a lone piece on an empty table) rises."""
    out = np.zeros(boxes.shape[0], np.bool_)
    for b in range(boxes.shape[0]):
        i0, j0, _, i1, j1, _ = boxes[b]
        top = tops[b]
        low = np.inf
        for i in range(max(i0 - 1, 0), min(i1 + 1, nx)):
            for j in range(max(j0 - 1, 0), min(j1 + 1, ny)):
                if i0 <= i < i1 and j0 <= j < j1:
                    continue
                c = i * ny + j
                low = min(low, _highest_below(run_lo, run_hi, run_off[c], run_off[c + 1], top))
            if top - low >= min_rise:
                break  # (it rises: the rest of the ring cannot change that)
        out[b] = low == np.inf or top - low >= min_rise
    return out


@njit_leaf
def _highest_below(run_lo, run_hi, r0, r1, top):
    """The highest top of runs ``r0 .. r1 - 1`` that start at or below ``top`` (infinite
    for none: the column does not count)."""
    best = -np.inf
    for r in range(r0, r1):
        if run_lo[r] <= top and run_hi[r] > best:
            best = run_hi[r]
    return best if best > -np.inf else np.inf


@njit_leaf(forceinline=True)
def _ones(x):
    """How many bits of ``x`` (uint64) are set."""
    n = 0
    while x:
        x &= x - np.uint64(1)
        n += 1
    return n


@njit(cache=True, nogil=True)
def take_new(bits, ny, boxes, order, share, most):
    """(b,) bool: boxes taken in ``order`` (largest first) while each adds at least
    ``share`` of its voxels to those of the boxes taken before it, at most ``most``."""
    covered = np.zeros(bits.shape[0], np.uint64)
    keep = np.zeros(boxes.shape[0], np.bool_)
    n = 0
    for o in range(order.shape[0]):
        if n >= most:
            break
        b = order[o]
        i0, j0, k0, i1, j1, k1 = boxes[b]
        mask = _levels(k0, k1)
        new = 0
        for i in range(i0, i1):
            for j in range(j0, j1):
                new += _ones(mask & ~covered[i * ny + j])
        if new < share * (i1 - i0) * (j1 - j0) * (k1 - k0):
            continue
        keep[b] = True
        n += 1
        for i in range(i0, i1):
            for j in range(j0, j1):
                covered[i * ny + j] |= mask
    return keep
