"""Line of Fire's patch search in one compiled call (:func:`.pair.search_eyes`).

:func:`.search.search_patch` drives the search from Python: per batch of eye points it
builds an :class:`.apparent.ApparentView`, casts the coarse lattice, plans the refinement,
casts the nearest windows and the rest, each step a compiled call. Where the sample
predicate is Line of Fire's compiled one (:func:`._cast_kernels.clear_to_target`, an
engine that lends its scene), :func:`search_clear` runs the same steps, in the same order
and with the same float arithmetic, in one ``nogil`` call: no Python between the rays, so
threads run side by side. The answer, witness included, is the same.
"""

from __future__ import annotations

import numpy as np

from geom3d.bodies.kernels import njit, view_frames
from geom3d.visibility._cast_kernels import clear_on_grid, clear_to_target
from geom3d.visibility._search_kernels import (
    lattice_range,
    nearest_chunk,
    nearest_update,
    nearest_windows,
    refine_plan,
    rest_first,
    rest_pick,
    rest_second,
    window_order,
)

__all__ = ["search_clear"]


@njit(cache=True, nogil=True)
def _batch_extent(ext, cap, rim_pad, sample_mm, depth_eps):
    """:meth:`.apparent.ApparentView.extent` of a batch from its :func:`view_frames`."""
    if ext[5] <= depth_eps:
        return -cap, cap, -cap, cap
    pad = sample_mm + rim_pad * ext[4]
    return (
        max(ext[0] - pad, -cap),
        min(ext[1] + pad, cap),
        max(ext[2] - pad, -cap),
        min(ext[3] + pad, cap),
    )


@njit(cache=True, nogil=True)
def search_clear(
    eyes, sizes, c, rim, target, occ, scene, trees, solids, ground, flip,
    cap, rim_pad, sample_mm, depth_eps, coarse_mm, step, w, counts,
):  # fmt: skip
    """Search ``eyes`` in batches of ``sizes`` for one that sees a patch of the target.

    Parameters
    ----------
    eyes : (n, 3) float64, mm
    sizes : (b,) int64
        Batch sizes (:func:`.eyes.eye_batches`: the last repeats).
    c : (3,) float64, mm
        The target's centre.
    rim : (P, 3) float64, mm
        Its rim points (:class:`.apparent.ApparentView`).
    target, occ, scene, trees, solids, ground, flip
        As :func:`._cast_kernels.clear_to_target` (a :class:`geom3d.raycast.CompiledScene`
        and a :class:`._leaf_kernels.ProofTrees`, as plain tuples, the convex pieces'
        ``(planes, off, inner, inner_off)`` and the ground profile's ``(frame, hull)``).
    cap, rim_pad : float, mm
        The apparent window's half side (``APPARENT_CAP`` target sizes) and the rim
        polygon's under-coverage per unit of projection scale.
    sample_mm, depth_eps, coarse_mm : float, mm
    step, w : int
        Fine samples per coarse step and per window side (:class:`.apparent.PatchLattice`).
    counts : (6,) int64
        Incremented: rays reaching the target, segments cast, segments settled by proof
        or a convex piece, eyes examined, eyes refined, lattice samples settled inside a
        convex piece's outline (no ray made).

    Returns
    -------
    start, size : int
        The witness batch (``eyes[start:start + size]``); ``start`` is -1 when no eye sees
        a patch.
    eye : int
        The witness eye, in the batch.
    ca, cb : int
        The window's lowest corner on the fine lattice.
    sample : (3,) float64, mm
        The counting sample at the window's middle.
    """
    n = eyes.shape[0]
    start = 0
    b = 0
    half = 0.5 * (w - 1)
    mid_w = (w - 1) // 2
    sample = np.zeros(3)
    while start < n:
        size = sizes[min(b, len(sizes) - 1)]
        b += 1
        batch = eyes[start : start + size]
        n_eyes = batch.shape[0]
        u, v, _, ext = view_frames(batch, c, rim)
        s0, s1, t0, t1 = _batch_extent(ext, cap, rim_pad, sample_mm, depth_eps)
        ks0, nks, kt0, nkt = lattice_range(s0, s1, t0, t1, coarse_mm)
        counts[3] += n_eyes
        ok = clear_on_grid(
            batch, u, v, c, ks0, nks, kt0, nkt, coarse_mm, target, occ, scene, trees, solids,
            ground, flip, counts,
        )  # fmt: skip
        cand, active, possible, has = refine_plan(
            ok, n_eyes, ks0, nks, kt0, nkt, step, w, coarse_mm, sample_mm
        )
        if len(has):
            a0 = (ks0 - 1) * step
            b0 = (kt0 - 1) * step
            k = has[0]
            eye = cand[k]
            counts[4] += 1
            # the first eye, nearest window first (search._nearest_full_window)
            every, lo, span, dist = window_order(possible[k], a0, b0, half)
            state = np.zeros((span[0] + w, span[1] + w), np.int8)
            pts = np.empty((span[0] + w, span[1] + w, 3))  # read only where cast
            done = 0
            chunk = 1
            wins = nearest_windows(every, dist, 0)
            while done < len(every):
                if done == 1:
                    wins = nearest_windows(every, dist, 1)
                q = -1
                for even in (True, False):  # the even samples, then the windows left open
                    fa, fb = nearest_chunk(wins, done, chunk, w, state, even)
                    ok1, p = clear_to_target(
                        batch, u, v, c, np.full(len(fa), eye, np.int64),
                        (a0 + lo[0] + fa) * sample_mm, (b0 + lo[1] + fb) * sample_mm,
                        target, occ, scene, trees, solids, ground, flip, counts,
                    )  # fmt: skip
                    q = nearest_update(wins, done, chunk, w, state, pts, fa, fb, ok1, p)
                if q >= 0:
                    wa, wb = wins[q, 0], wins[q, 1]
                    for q in range(3):  # element by element: no shape check to compile
                        sample[q] = pts[wa + mid_w, wb + mid_w, q]
                    return start, n_eyes, eye, a0 + wa + lo[0], b0 + wb + lo[1], sample
                done += chunk
                chunk *= 4
            # the others all at once, as a whole refined view each, in two casts
            rest = has[1:]
            if len(rest):
                counts[4] += len(rest)
                eyes_r = cand[rest]
                e_i, a_i, b_i = rest_first(active, rest)
                ok_a, pts_a = clear_to_target(
                    batch, u, v, c, eyes_r[e_i],
                    (a0 + a_i) * sample_mm, (b0 + b_i) * sample_mm,
                    target, occ, scene, trees, solids, ground, flip, counts,
                )  # fmt: skip
                shape = (active.shape[1], active.shape[2])
                e_2, a_2, b_2 = rest_second(possible, rest, w, shape, e_i, a_i, b_i, ok_a)
                ok_b, pts_b = clear_to_target(
                    batch, u, v, c, eyes_r[e_2],
                    (a0 + a_2) * sample_mm, (b0 + b_2) * sample_mm,
                    target, occ, scene, trees, solids, ground, flip, counts,
                )  # fmt: skip
                fine_ok = np.concatenate((ok_a, ok_b))
                fine_pts = np.concatenate((pts_a, pts_b))
                e_i = np.concatenate((e_i, e_2))
                a_i = np.concatenate((a_i, a_2))
                b_i = np.concatenate((b_i, b_2))
                r, wa, wb, at = rest_pick(
                    fine_ok, e_i, a_i, b_i, len(rest), active.shape[1], active.shape[2], w,
                    a0, b0, half, mid_w,
                )  # fmt: skip
                if r >= 0:
                    for q in range(3):
                        sample[q] = fine_pts[at, q]
                    return start, n_eyes, cand[rest[r]], a0 + wa, b0 + wb, sample
        start += n_eyes
    return -1, 0, -1, 0, 0, sample
