"""The coarse-to-fine patch search, written once over a sample predicate.

Given eye points and a target cylinder, find an eye point whose apparent view of the
target (:mod:`.apparent`) contains a window of ``W x W`` *counting* samples (spanning
``patch_mm``, ``W = patch_mm / sample_mm + 1``); which samples count is the caller's
*sample predicate* (:mod:`.cast`). All batched, no Python loop per ray:

1. Eye points are taken in growing batches (``BATCH_SIZES``), in the caller's order.
2. For a batch, each eye gets its apparent-view frame. A coarse lattice of spacing
   ``coarse_mm = patch_mm + sample_mm`` is cast first within the caller's extent (by
   default the target's whole apparent view): every closed ``coarse_mm`` square contains
   a lattice point, so an eye point with no counting coarse sample sees no such square of
   counting samples, and is dropped (exact pruning).
3. Around each counting coarse sample the fine lattice is cast within one coarse step (the
   coarse cells one of whose corners counts); a patch is a full ``W x W`` window of
   counting fine samples. Each window holds one coarse point, the same ray as the fine
   sample there: a window whose coarse point does not count is never cast. The first eye
   of the batch with a patch wins, and of its patches the one whose centre is nearest the
   target's centre (ties: lowest indices).

Guarantees (tolerances in :mod:`geom3d.core.tolerances`): a region of counting samples whose
apparent view from a sampled eye contains a ``coarse_mm`` square (4 x 4 mm for a 3 mm
patch) is always found; one containing no ``patch_mm`` square (3 x 3 mm) is never
reported. Occluders thinner than the sample spacing can slip between samples.

:func:`search_clear_patch` runs the same search with Line of Fire's compiled predicate
in one compiled call (:mod:`._search_compiled`), with the same answer.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from geom3d.bodies.kernel_constants import APPARENT_DEPTH_EPS_MM
from geom3d.core.tolerances import RAY_EPS_MM
from geom3d.raycast.base import CompiledScene
from geom3d.visibility._search_compiled import search_clear
from geom3d.visibility._search_kernels import (
    coarse_grid,
    nearest_chunk,
    nearest_update,
    nearest_windows,
    refine_plan,
    rest_first,
    rest_pick,
    rest_second,
    window_order,
)
from geom3d.visibility.apparent import ApparentView, PatchLattice, extent_limits, rim_points
from geom3d.visibility.cast import NO_TREES, ClearToTarget, SampleCast, cylinder_array
from geom3d.visibility.convex import NO_SOLIDS
from geom3d.visibility.eyes import eye_batches
from geom3d.visibility.ground import NO_GROUND, warm_profiles

__all__ = ["BATCH_SIZES", "PatchHit", "search_clear_patch", "search_patch", "warm_search"]

#: Eye points per batch: one first (most views are open from the first eye), then more.
BATCH_SIZES = (1, 8, 64, 256)


@dataclass(frozen=True)
class PatchHit:
    """A visible patch found by :func:`search_patch`.

    Attributes
    ----------
    view : ApparentView
        The batch's apparent view.
    eye : int
        Index of the witness eye in ``view.eyes``.
    corner : (2,) tuple of int
        Fine-lattice indices ``(i, j)`` of the window's lowest corner: the window covers
        samples ``(i .. i + W - 1) * sample_mm`` along ``s`` and the same along ``t``.
    lattice : PatchLattice
    sample : (3,) tuple of float, mm
        The window's counting sample nearest its centre (index ``corner + (W - 1) // 2``
        on both axes): a point of the target reached by a counting ray.
    """

    view: ApparentView
    eye: int
    corner: tuple[int, int]
    lattice: PatchLattice
    sample: tuple[float, float, float]

    @property
    def eye_point(self) -> tuple[float, float, float]:
        """(3,) tuple of float, mm: the witness eye."""
        e = self.view.eyes[self.eye]
        return (float(e[0]), float(e[1]), float(e[2]))

    @property
    def center_st(self) -> tuple[float, float]:
        """Apparent coordinates (s, t) of the window's centre, mm."""
        half = 0.5 * (self.lattice.window - 1)
        step = self.lattice.sample_mm
        return ((self.corner[0] + half) * step, (self.corner[1] + half) * step)


def search_patch(
    eyes: np.ndarray,
    target,
    cast: SampleCast,
    lattice: PatchLattice,
    *,
    extent: Callable[[ApparentView], tuple[float, float, float, float]] | None = None,
    batch_sizes: tuple[int, ...] = BATCH_SIZES,
) -> PatchHit | None:
    """Search the eye points, in order, for one that sees a patch of counting samples.

    Parameters
    ----------
    eyes : (n, 3) float, mm
        Eye points, in the order they are to be tried.
    target : Cylinder
    cast : SampleCast
        The sample predicate; its ``stats`` count eyes examined and refined.
    lattice : PatchLattice
    extent : callable, optional
        ``extent(view) -> (s0, s1, t0, t1)`` (mm): the apparent rectangle to sample for a
        batch. Default :meth:`ApparentView.extent` (the whole target). Samples outside it
        are never cast, so it must cover every counting sample.
    batch_sizes : tuple of int
        See :func:`geom3d.visibility.eye_batches`. Changes the cost, never the answer.

    Returns
    -------
    PatchHit or None
        None when no eye point sees a patch.
    """
    for batch in eye_batches(eyes, batch_sizes):
        view = ApparentView(batch, target)
        found = _search_view(view, view.extent() if extent is None else extent(view), cast, lattice)
        if found is not None:
            return found
    return None


def search_clear_patch(
    eyes: np.ndarray,
    target,
    cast: ClearToTarget,
    lattice: PatchLattice,
    *,
    batch_sizes: tuple[int, ...] = BATCH_SIZES,
) -> PatchHit | None:
    """:func:`search_patch` with Line of Fire's predicate, in one compiled call.

    ``cast`` must be compiled (:attr:`ClearToTarget.compiled`); the extent is the
    default one. Same answer, witness and counters as :func:`search_patch`; the hit's
    view holds the witness eye alone (frames are per eye: the same floats).
    """
    eyes = np.ascontiguousarray(eyes, dtype=np.float64)
    if not len(eyes):
        return None
    center, rim, row, cap, rim_pad = _target_args(target)
    counts = np.zeros(6, np.int64)
    # numba's Dispatcher stub caps __call__'s positional arity
    start, _size, eye, ca, cb, p = search_clear(  # type: ignore[call-arg]
        eyes, _sizes(batch_sizes), center, rim, row,
        *cast.compiled_args(), cap, rim_pad, lattice.sample_mm, APPARENT_DEPTH_EPS_MM,
        lattice.coarse_mm, lattice.coarse_step, lattice.window, counts,
    )  # fmt: skip
    cast.count(counts)
    if start < 0:
        return None
    at = start + int(eye)
    view = ApparentView(eyes[at : at + 1], target, parts=(center, rim, row))
    return _hit(view, 0, 0, 0, lattice, int(ca), int(cb), p)


def warm_search(target, occ: np.ndarray, lattice: PatchLattice) -> None:
    """Load :func:`search_clear` (numba's disk cache) with the argument types of
    :func:`search_clear_patch`'s calls, the apparent view's frames and the ground
    profiles' kernels (:func:`.ground.warm_profiles`): no eye, so no ray and no scene
    (see :func:`.pair.warm_kernels`). ``occ``: (M, 5) float64, C order."""
    center, rim, row, cap, rim_pad = _target_args(target)
    no_scene = CompiledScene(0, np.zeros(3), 1, RAY_EPS_MM)  # never read: no eye to cast from
    search_clear(
        np.zeros((0, 3)), _sizes(BATCH_SIZES), center, rim, row,
        occ, tuple(no_scene), tuple(NO_TREES), NO_SOLIDS.packed, NO_GROUND.packed, False, cap,
        rim_pad, lattice.sample_mm, APPARENT_DEPTH_EPS_MM, lattice.coarse_mm,
        lattice.coarse_step, lattice.window, np.zeros(6, np.int64),
    )  # fmt: skip
    ApparentView(np.array([center]) + (0.0, -10.0 * target.radius, 0.0), target)
    warm_profiles()  # what the search's ground profiles are drawn and read with


@functools.lru_cache(maxsize=1024)
def _target_args(target) -> tuple:
    """What :func:`search_clear` takes of a target cylinder: its centre, rim points and
    :func:`cylinder_array` row, the extent's cap and rim padding (computed once per
    cylinder: a matrix searches each trooper dozens of times). Not to be modified."""
    cap, rim_pad = extent_limits(target)
    return target.center, rim_points(target), cylinder_array([target])[0], cap, rim_pad


@functools.lru_cache(maxsize=64)
def _sizes(batch_sizes: tuple[int, ...]) -> np.ndarray:
    """``batch_sizes`` as the int64 array :func:`search_clear` takes (not to be
    modified)."""
    return np.array(batch_sizes, dtype=np.int64)


def _search_view(view: ApparentView, ext, cast: SampleCast, lat: PatchLattice):
    n_eyes = len(view.eyes)
    step = lat.coarse_step
    # numba's Dispatcher stub caps __call__'s positional arity
    ks0, nks, kt0, nkt, eye_idx, s, t = coarse_grid(*ext, n_eyes, lat.coarse_mm)  # type: ignore[call-arg]
    cast.stats.eyes += n_eyes
    ok, _ = cast(view, eye_idx, s, t)
    # A coarse cell (between lattice points k and k + 1 on each axis) is refined when one
    # of its four corners counts: every fine sample within one coarse step of a counting
    # coarse sample lies in such a cell, so a coarse_mm square around it is fully sampled.
    # Windows that lie wholly in refined cells are the only ones that can be full, and of
    # them only those whose coarse point (each window holds one) counts.
    cand, active, possible, has = refine_plan(
        ok, n_eyes, ks0, nks, kt0, nkt, step, lat.window, lat.coarse_mm, lat.sample_mm
    )
    if not len(has):
        return None
    # refined cell (i, j) spans fine indices (k0 - 1 + i) * step + 0..step - 1 on each axis
    a0 = (ks0 - 1) * step
    b0 = (kt0 - 1) * step
    # the first eye that may see a patch is examined nearest window first: an open view
    # then costs one window's samples, not the whole refined view
    k = int(has[0])
    cast.stats.eyes_refined += 1
    found = _nearest_full_window(view, int(cand[k]), possible[k], a0, b0, cast, lat)
    if found is not None:
        return _hit(view, int(cand[k]), a0, b0, lat, *found)
    # the others all at once, as a whole refined view each: first the even samples, which
    # rule most windows out, then the rest of the windows left open
    rest = has[1:]
    if not len(rest):
        return None
    cast.stats.eyes_refined += len(rest)
    eyes_r = cand[rest]
    e_i, a_i, b_i = rest_first(active, rest)
    ok_a, pts_a = cast(view, eyes_r[e_i], (a0 + a_i) * lat.sample_mm, (b0 + b_i) * lat.sample_mm)
    shape = (active.shape[1], active.shape[2])
    e_2, a_2, b_2 = rest_second(possible, rest, lat.window, shape, e_i, a_i, b_i, ok_a)
    ok_b, pts_b = cast(view, eyes_r[e_2], (a0 + a_2) * lat.sample_mm, (b0 + b_2) * lat.sample_mm)
    fine_ok, fine_pts = np.concatenate([ok_a, ok_b]), np.concatenate([pts_a, pts_b])
    e_i, a_i, b_i = (np.concatenate(x) for x in ((e_i, e_2), (a_i, a_2), (b_i, b_2)))
    # of the first eye's full windows, the one nearest the target's centre makes the
    # clearest witness for a diagram (ties: lowest indices, so the choice is deterministic)
    w = lat.window
    k, a, b, at = rest_pick(
        fine_ok, e_i, a_i, b_i, len(rest), active.shape[1], active.shape[2], w,
        a0, b0, 0.5 * (w - 1), (w - 1) // 2,
    )  # fmt: skip
    if k < 0:
        return None
    return _hit(view, int(cand[rest[k]]), a0, b0, lat, a, b, fine_pts[at])


def _hit(view, eye: int, a0: int, b0: int, lat: PatchLattice, a: int, b: int, p) -> PatchHit:
    """The :class:`PatchHit` of window corner ``(a, b)`` (relative to ``(a0, b0)``)."""
    return PatchHit(
        view=view,
        eye=eye,
        corner=(a0 + a, b0 + b),
        lattice=lat,
        sample=(float(p[0]), float(p[1]), float(p[2])),
    )


def _nearest_full_window(view, eye, possible, a0, b0, cast: SampleCast, lat: PatchLattice):
    """Of the possible windows of one eye (``possible``: (m, n) bool, by local corner),
    the full one nearest the target's centre (ties: lowest indices), or None.

    Windows are examined nearest first and their samples cast in growing chunks, so an
    open view costs one window's samples instead of the whole refined view; a chunk's
    even samples go first, and only the windows they leave open get the rest. A window
    is only accepted once every nearer one is known not to be full, so the choice is the
    one a full pass over every sample would make.
    """
    w = lat.window
    every, lo, span, dist = window_order(possible, a0, b0, 0.5 * (w - 1))
    state = np.zeros((int(span[0]) + w, int(span[1]) + w), np.int8)  # 0 unknown, 1, 2
    pts = np.empty((*state.shape, 3))  # read only where cast
    mid = (w - 1) // 2
    done = 0
    chunk = 1
    wins = nearest_windows(every, dist, 0)
    while done < len(every):
        if done == 1:  # the nearest was not full: now all of them, nearest first
            wins = nearest_windows(every, dist, 1)
        for even in (True, False):  # the even samples, then the windows left open
            fa, fb = nearest_chunk(wins, done, chunk, w, state, even)
            ok, p = cast(
                view,
                np.full(len(fa), eye, dtype=np.int64),
                (a0 + lo[0] + fa) * lat.sample_mm,
                (b0 + lo[1] + fb) * lat.sample_mm,
            )
            k = nearest_update(wins, done, chunk, w, state, pts, fa, fb, ok, p)
        if k >= 0:
            a, b = wins[k]
            return int(a + lo[0]), int(b + lo[1]), pts[a + mid, b + mid]
        done += chunk
        chunk *= 4
    return None
