"""Compiled steps of the patch search (:mod:`.search`).

The search's bookkeeping between two casts (which eyes may see a patch, which fine
samples to cast next, which window is full) is a handful of small array passes; done in
numpy they cost more than the rays they decide on. These kernels do the same passes in
one compiled call each, with the same results in the same order (the search's answer,
witness included, is defined by that order).
"""

from __future__ import annotations

import math

import numpy as np

from geom3d.bodies.kernels import njit, njit_leaf
from geom3d.visibility._window_kernels import (
    cover_windows,
    fill_cells,
    full_windows,
    on_fine,
    possible_windows,
    stamp_windows,
)

__all__ = [
    "coarse_grid",
    "lattice_range",
    "nearest_chunk",
    "nearest_update",
    "nearest_windows",
    "refine_plan",
    "rest_first",
    "rest_pick",
    "rest_second",
    "window_order",
]


@njit(cache=True, nogil=True)
def coarse_grid(s0, s1, t0, t1, n_eyes, step):
    """The coarse lattice within an apparent extent, for each eye (see
    :func:`.apparent.coarse_samples`, which this matches value for value).

    Returns
    -------
    ks0, nks, kt0, nkt : int
        First lattice index and count along ``s`` and along ``t``.
    eye_idx : (n_eyes * nks * nkt,) int64
    s, t : (n_eyes * nks * nkt,) float64, mm
        Ordered eye, then ``s``, then ``t``.
    """
    ks0, nks, kt0, nkt = lattice_range(s0, s1, t0, t1, step)
    n = n_eyes * nks * nkt
    eye_idx = np.empty(n, np.int64)
    s = np.empty(n)
    t = np.empty(n)
    q = 0
    for e in range(n_eyes):
        for i in range(nks):
            for j in range(nkt):
                eye_idx[q] = e
                s[q] = (ks0 + i) * step
                t[q] = (kt0 + j) * step
                q += 1
    return ks0, nks, kt0, nkt, eye_idx, s, t


@njit_leaf(forceinline=True)
def lattice_range(s0, s1, t0, t1, step):
    """First index and count, along ``s`` then ``t``, of the lattice points ``k step``
    within ``[s0, s1] x [t0, t1]`` (those of :func:`coarse_grid`)."""
    ks0 = math.ceil(s0 / step)
    nks = max(0, math.floor(s1 / step) + 1 - ks0)
    kt0 = math.ceil(t0 / step)
    nkt = max(0, math.floor(t1 / step) + 1 - kt0)
    return ks0, nks, kt0, nkt


@njit(cache=True, nogil=True)
def refine_plan(ok, n_eyes, ks0, nks, kt0, nkt, step, w, coarse_mm, sample_mm):
    """Which eyes may see a patch after the coarse cast, and where to look.

    Parameters
    ----------
    ok : (n_eyes * nks * nkt,) bool
        Counting coarse samples (ordered as :func:`coarse_grid`, whose ``ks0, nks, kt0,
        nkt`` these are).
    step : int
        Fine samples per coarse step.
    w : int
        Window side in fine samples.
    coarse_mm, sample_mm : float, mm
        The two lattices' spacings.

    Returns
    -------
    cand : (c,) int64
        Eyes with a counting coarse sample.
    active : (c, (nks + 1) step, (nkt + 1) step) bool
        Fine samples to refine: those of the possible windows.
    possible : (c, ..., ...) bool
        Windows that can be full: lying wholly in refined cells (the coarse cells, between
        lattice points ``k - 1`` and ``k`` on each axis from the first, one of whose
        corners counts), and whose coarse point counts. A window of ``w >= step`` samples
        a side holds a coarse point on each axis; when that point was cast (it lies in
        the lattice) and does not count, the window cannot be full, since the fine
        sample there is the same ray (checked: :func:`._window_kernels.on_fine`).
    has : (h,) int64
        Rows of ``cand`` with a possible window.
    """
    per = nks * nkt
    flags = np.zeros(n_eyes, np.bool_)
    for e in range(n_eyes):
        for q in range(per):
            if ok[e * per + q]:
                flags[e] = True
                break
    cand = np.flatnonzero(flags)
    nc = len(cand)
    m = (nks + 1) * step
    n = (nkt + 1) * step
    cells = np.zeros((nc, nks + 1, nkt + 1), np.bool_)  # the refined coarse cells
    for r in range(nc):
        base = cand[r] * per
        for i in range(nks + 1):
            for j in range(nkt + 1):
                on = False
                for di in (-1, 0):
                    for dj in (-1, 0):
                        a, b = i + di, j + dj
                        if 0 <= a < nks and 0 <= b < nkt and ok[base + a * nkt + b]:
                            on = True
                cells[r, i, j] = on
    prune = (
        w >= step
        and on_fine(ks0, nks, coarse_mm, step, sample_mm)
        and on_fine(kt0, nkt, coarse_mm, step, sample_mm)
    )
    active = np.empty((nc, m, n), np.bool_)
    possible, pruned, kept = possible_windows(cells, ok, cand, per, nkt, step, w, m, n, prune)
    keep = np.zeros(nc, np.bool_)
    for r in range(nc):
        if not pruned[r]:
            fill_cells(cells[r], step, active[r])
        elif kept[r] * w * w < m * n:  # the samples of the few windows left, window by window
            stamp_windows(possible[r], w, active[r])
        else:  # of the many left, in two running counts
            cover_windows(possible[r], w, active[r])
        keep[r] = possible[r].any()
    return cand, active, possible, np.flatnonzero(keep)


@njit(cache=True, nogil=True)
def window_order(possible, a0, b0, half):
    """The possible windows of one eye, their distances to the target's centre, and the
    box of samples they cover; :func:`nearest_windows` puts them in order.

    Returns
    -------
    wins : (n, 2) int64
        Corners relative to ``lo``, in lexicographic order.
    lo : (2,) int64
    shape : (2,) int64
        Samples spanned (window side included).
    dist : (n,) float64
        Squared distance of each window's centre to the target's centre.
    """
    ma, mb = possible.shape
    n = 0
    for i in range(ma):
        for j in range(mb):
            n += possible[i, j]
    wins = np.empty((n, 2), np.int64)
    d = np.empty(n)
    q = 0
    for i in range(ma):
        for j in range(mb):
            if possible[i, j]:
                wins[q, 0] = i
                wins[q, 1] = j
                ca = (a0 + i) + half
                cb = (b0 + j) + half
                d[q] = ca * ca + cb * cb
                q += 1
    lo = np.empty(2, np.int64)
    hi = np.empty(2, np.int64)
    for k in range(2):
        lo[k] = wins[:, k].min()
        hi[k] = wins[:, k].max()
    for q in range(n):
        wins[q, 0] -= lo[0]
        wins[q, 1] -= lo[1]
    return wins, lo, hi - lo, d


@njit(cache=True, nogil=True)
def nearest_windows(wins, dist, done):
    """The windows of :func:`window_order`, nearest first (ties: lexicographic order), as
    far as a search that has examined ``done`` of them needs: before the first, the
    nearest alone (most open views end there, and sorting them all costs more than
    casting its samples); after it, all of them."""
    if done == 0:
        k = np.argmin(dist)  # its first occurrence: the stable order's first
        return wins[k : k + 1]
    return wins[np.argsort(dist, kind="mergesort")]


@njit(cache=True, nogil=True)
def nearest_chunk(wins, done, chunk, w, state, even):
    """Samples still unknown (``state`` 0) of windows ``done .. done + chunk``, each once,
    row-major: ``(fa, fb)`` indices into ``state``. With ``even``, only those at even
    ``(a, b)`` (each window holds 2 x 2); else all those of the windows with no sample
    known not to count (``state`` 2). Casting the first, then the second, settles every
    window of the chunk, mostly for less than all its samples."""
    todo = np.zeros(state.shape, np.bool_)
    n = 0
    for p in range(done, min(done + chunk, len(wins))):
        i, j = wins[p, 0], wins[p, 1]
        if not even:
            open_ = True
            for x in range(w):
                for y in range(w):
                    if state[i + x, j + y] == 2:
                        open_ = False
            if not open_:
                continue
        for x in range(w):
            for y in range(w):
                a, b = i + x, j + y
                if even and (a & 1 or b & 1):
                    continue
                if state[a, b] == 0 and not todo[a, b]:
                    todo[a, b] = True
                    n += 1
    fa = np.empty(n, np.int64)
    fb = np.empty(n, np.int64)
    q = 0
    for a in range(state.shape[0]):
        for b in range(state.shape[1]):
            if todo[a, b]:
                fa[q] = a
                fb[q] = b
                q += 1
    return fa, fb


@njit(cache=True, nogil=True)
def nearest_update(wins, done, chunk, w, state, pts, fa, fb, ok, p):
    """Record the cast samples; the first window of the chunk all of whose samples
    count (an index into ``wins``), or -1."""
    for q in range(len(fa)):
        state[fa[q], fb[q]] = 1 if ok[q] else 2
        pts[fa[q], fb[q], 0] = p[q, 0]
        pts[fa[q], fb[q], 1] = p[q, 1]
        pts[fa[q], fb[q], 2] = p[q, 2]
    for k in range(done, min(done + chunk, len(wins))):
        full = True
        for x in range(w):
            for y in range(w):
                if state[wins[k, 0] + x, wins[k, 1] + y] != 1:
                    full = False
                    break
            if not full:
                break
        if full:
            return k
    return -1


@njit(cache=True, nogil=True)
def rest_first(active, rows):
    """The first of two casts that refine the eyes ``rows`` (rows of ``active``): their
    refined samples at even ``(a, b)``. Every window holds 2 x 2 of them, and one that
    does not count rules the window out (most samples of a refined view that shows no
    patch do not count).

    Returns
    -------
    e_i, a_i, b_i : (k,) int64
        In ``(row, a, b)`` order, ``e_i`` indexing ``rows``.
    """
    n = 0
    for k in range(len(rows)):
        for a in range(0, active.shape[1], 2):
            for b in range(0, active.shape[2], 2):
                n += active[rows[k], a, b]
    e_i = np.empty(n, np.int64)
    a_i = np.empty(n, np.int64)
    b_i = np.empty(n, np.int64)
    q = 0
    for k in range(len(rows)):
        for a in range(0, active.shape[1], 2):
            for b in range(0, active.shape[2], 2):
                if active[rows[k], a, b]:
                    e_i[q] = k
                    a_i[q] = a
                    b_i[q] = b
                    q += 1
    return e_i, a_i, b_i


@njit(cache=True, nogil=True)
def rest_second(possible, rows, w, shape, e_i, a_i, b_i, ok):
    """The second cast: the samples not yet cast of the windows of ``possible`` (rows
    ``rows``) that the first (``e_i, a_i, b_i``, answers ``ok``) left open, none of whose
    even samples fails to count. Those windows' samples are then all known, and every
    other window has a sample known not to count: the two casts find the same full
    windows as one cast of every refined sample.

    Returns
    -------
    e_i, a_i, b_i : (k,) int64
        As :func:`rest_first`.
    """
    nr = len(rows)
    known = np.zeros((nr, shape[0], shape[1]), np.int8)  # 0 unknown, 1 counts, 2 not
    for q in range(len(e_i)):
        known[e_i[q], a_i[q], b_i[q]] = 1 if ok[q] else 2
    need = np.zeros((nr, shape[0], shape[1]), np.bool_)
    count = 0  # samples of need set
    top = np.full(nr, shape[0], np.int64)  # the first and past-the-last row of need set
    bottom = np.zeros(nr, np.int64)
    # per row: the open windows (possible, none of their even samples known to fail) and
    # the unknown samples they cover
    clear = np.ones((nr, shape[0], shape[1]), np.bool_)  # no sample known to fail here
    for q in range(len(e_i)):
        if not ok[q] and a_i[q] % 2 == 0 and b_i[q] % 2 == 0:
            clear[e_i[q], a_i[q], b_i[q]] = False
    covered = np.empty((shape[0], shape[1]), np.bool_)
    for k in range(nr):
        opened = full_windows(clear[k : k + 1], w)[0] & possible[rows[k]]
        for i in range(opened.shape[0]):
            if opened[i].any():
                top[k] = min(top[k], i)
                bottom[k] = max(bottom[k], i + w)
        if top[k] >= bottom[k]:
            continue
        cover_windows(opened, w, covered)
        for x in range(top[k], bottom[k]):
            for y in range(shape[1]):
                if covered[x, y] and known[k, x, y] == 0:
                    need[k, x, y] = True
                    count += 1
    # listed in (row, a, b) order, reading only the rows of need marked
    e_o = np.empty(count, np.int64)
    a_o = np.empty(count, np.int64)
    b_o = np.empty(count, np.int64)
    q = 0
    for k in range(nr):
        for a in range(top[k], bottom[k]):
            for b in range(shape[1]):
                if need[k, a, b]:
                    e_o[q] = k
                    a_o[q] = a
                    b_o[q] = b
                    q += 1
    return e_o, a_o, b_o


@njit(cache=True, nogil=True)
def rest_pick(ok, e_i, a_i, b_i, n_rows, m, n, w, a0, b0, half, mid):
    """The first eye (of ``n_rows``) with a full window, its full window nearest the
    target's centre (ties: lowest indices) and the sample at that window's middle.

    Returns
    -------
    k, a, b, at : int
        Row, window corner, and index (into ``ok``) of the middle sample; ``k`` is -1
        when no eye has a full window.
    """
    fine = np.zeros((n_rows, m, n), np.bool_)
    hits = np.zeros(n_rows, np.int64)
    for q in range(len(ok)):
        if ok[q]:
            fine[e_i[q], a_i[q], b_i[q]] = True
            hits[e_i[q]] += 1
    for k in range(n_rows):  # row by row: the first row with a full window ends it
        if hits[k] < w * w:  # too few counting samples for a full window
            continue
        full = full_windows(fine[k : k + 1], w)[0]
        best = -1.0
        ba = bb = -1
        for a in range(full.shape[0]):
            for b in range(full.shape[1]):
                if full[a, b]:
                    ca = (a0 + a) + half
                    cb = (b0 + b) + half
                    dd = ca * ca + cb * cb
                    if ba < 0 or dd < best:
                        best = dd
                        ba, bb = a, b
        if ba >= 0:
            for q in range(len(e_i)):
                if e_i[q] == k and a_i[q] == ba + mid and b_i[q] == bb + mid:
                    return k, ba, bb, q
    return -1, -1, -1, -1
