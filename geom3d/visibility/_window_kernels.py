"""Which patch windows of the fine lattice can be full, and their samples
(:func:`._search_kernels.refine_plan`, :func:`._search_kernels.rest_pick`).

A window is ``w`` x ``w`` fine samples (a patch); a full window is one whose samples all
count. These are the dense passes over one candidate eye's fine lattice that the search
makes between its casts: the windows wholly inside the refined coarse cells, the samples
those windows cover, and the windows all set in a mask. Each is exact integer work; the
search's answer depends only on their results.
"""

from __future__ import annotations

import numpy as np

from geom3d.bodies.kernels import njit

__all__ = [
    "cover_windows",
    "fill_cells",
    "full_windows",
    "on_fine",
    "possible_windows",
    "stamp_windows",
]


@njit(cache=True, nogil=True)
def full_windows(active, w):
    """(B, m - w + 1, n - w + 1) bool: windows of ``w`` x ``w`` all set."""
    nb, m, n = active.shape
    out = np.zeros((nb, max(0, m - w + 1), max(0, n - w + 1)), np.bool_)
    ii = np.zeros((m + 1, n + 1), np.int64)
    for b in range(nb):
        for i in range(m):
            row = 0
            for j in range(n):
                row += active[b, i, j]
                ii[i + 1, j + 1] = ii[i, j + 1] + row
        for i in range(m - w + 1):
            for j in range(n - w + 1):
                c = ii[i + w, j + w] - ii[i, j + w] - ii[i + w, j] + ii[i, j]
                out[b, i, j] = c == w * w
    return out


@njit(cache=True, nogil=True)
def on_fine(k0, nk, coarse_mm, step, sample_mm):
    """Are coarse lattice points ``k0 .. k0 + nk - 1`` (at ``k coarse_mm``) the very
    floats of fine samples ``k step`` (at ``k step sample_mm``)? Then a fine sample there
    is the coarse sample's ray, with its answer."""
    for k in range(k0, k0 + nk):
        if k * coarse_mm != float(k * step) * sample_mm:
            return False
    return True


@njit(cache=True, nogil=True)
def cover_windows(possible, w, out):
    """``out`` (``(m + w - 1, n + w - 1)`` bool) := the samples of the windows set in
    ``possible`` (``(m, n)``, by corner): a ``w`` x ``w`` dilation, one running count per
    axis."""
    pm, pn = possible.shape
    m, n = out.shape
    rows = np.zeros((pm, n), np.int64)  # windows of row i covering column j
    for i in range(pm):
        run = 0
        for j in range(n):
            if j < pn:
                run += possible[i, j]
            if j >= w:
                run -= possible[i, j - w]
            rows[i, j] = run
    for j in range(n):
        run = 0
        for i in range(m):
            if i < pm:
                run += rows[i, j]
            if i >= w:
                run -= rows[i - w, j]
            out[i, j] = run > 0


@njit(cache=True, nogil=True)
def stamp_windows(possible, w, out):
    """:func:`cover_windows`, window by window: cheaper when few windows are set."""
    out[:] = False
    for i in range(possible.shape[0]):
        for j in range(possible.shape[1]):
            if possible[i, j]:
                out[i : i + w, j : j + w] = True


@njit(cache=True, nogil=True)
def fill_cells(cells, step, out):
    """``out`` (``(m, n)`` bool) := fine sample ``(x, y)`` set when cell ``(x // step,
    y // step)`` of ``cells`` (``(., .)`` bool) is: the refined cells' samples."""
    out[:] = False
    for i in range(cells.shape[0]):
        for j in range(cells.shape[1]):
            if cells[i, j]:
                out[i * step : (i + 1) * step, j * step : (j + 1) * step] = True


@njit(cache=True, nogil=True)
def _span(count, step, w):
    """For each local fine index ``i < count``: the first and last cell of the window from
    ``i`` (``i // step`` and ``(i + w - 1) // step``), and the coarse point it holds: local
    index ``(a + 1) step`` is coarse point ``a``, so ``a = ceil(i / step) - 1`` (-1: the
    point before the lattice, never cast). Computed once, not a division per window."""
    lo = np.empty(count, np.int64)
    hi = np.empty(count, np.int64)
    held = np.empty(count, np.int64)
    for i in range(count):
        lo[i], hi[i] = i // step, (i + w - 1) // step
        held[i] = (i + step - 1) // step - 1
    return lo, hi, held


@njit(cache=True, nogil=True)
def possible_windows(cells, ok, cand, per, nkt, step, w, m, n, prune):
    """The windows that can be full (:func:`._search_kernels.refine_plan`): those whose
    samples all lie in refined cells and, with ``prune``, whose coarse point (when cast)
    counts.

    The samples of the window from ``(i, j)`` fall in cells ``i // step .. (i + w - 1) //
    step`` on one axis and the like on the other (one or two each when ``w <= step + 1``):
    the window is full in the cells' samples (:func:`fill_cells`, :func:`full_windows`)
    when those cells are all set, which running counts of the set cells, down the columns
    and then across, tell in two loads (not ``w * w``).

    Parameters
    ----------
    cells : (B, nks + 1, nkt + 1) bool
        Refined cells of each candidate eye.
    ok, cand, per, nkt
        The coarse answers (eye ``cand[r]``'s point ``(a, b)`` at ``cand[r] * per + a *
        nkt + b``).
    step, w : int
        Fine samples per coarse step and per window side.
    m, n : int
        Fine samples a side, ``(nks + 1) step`` and ``(nkt + 1) step``.
    prune : bool
        Clear a window whose coarse point was cast and does not count.

    Returns
    -------
    possible : (B, m - w + 1, n - w + 1) bool
    pruned : (B,) bool
        Rows a full window of which was pruned.
    kept : (B,) int64
        Windows left in each row.
    """
    nb, ca, cb = cells.shape
    pm, pn = max(0, m - w + 1), max(0, n - w + 1)
    lo_i, hi_i, held_i = _span(pm, step, w)
    lo_j, hi_j, held_j = _span(pn, step, w)
    out = np.zeros((nb, pm, pn), np.bool_)
    pruned = np.zeros(nb, np.bool_)
    kept = np.zeros(nb, np.int64)
    down = np.zeros((ca + 1, cb), np.int64)  # cells set in each column above each row
    across = np.zeros(cb + 1, np.int64)  # columns all set in the window's rows, left of each
    for b in range(nb):
        for ci in range(ca):
            for cj in range(cb):
                down[ci + 1, cj] = down[ci, cj] + cells[b, ci, cj]
        for i in range(pm):
            tall = hi_i[i] + 1 - lo_i[i]
            for cj in range(cb):
                across[cj + 1] = across[cj] + (down[hi_i[i] + 1, cj] - down[lo_i[i], cj] == tall)
            if across[cb] == 0:  # no full window from this row
                continue
            base = cand[b] * per + held_i[i] * nkt
            check = prune and held_i[i] >= 0
            for j in range(pn):
                if across[hi_j[j] + 1] - across[lo_j[j]] != hi_j[j] + 1 - lo_j[j]:
                    continue
                if check and held_j[j] >= 0 and not ok[base + held_j[j]]:
                    pruned[b] = True
                else:
                    out[b, i, j] = True
                    kept[b] += 1
    return out, pruned, kept
