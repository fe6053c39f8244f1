"""Symmetric visibility of two troopers, with blocking proofs (SPEC section 3.2).

The pair is visible when an eye point of ``a`` sees a patch of ``b``, or else one of ``b``
sees a patch of ``a``. With a :class:`~.proof.Prover`, the first eye batches of ``a``
(``PROOF_AFTER_BATCHES``) are searched as they are: most visible pairs end there, and a
proof would be wasted on them. Then the pair's blocking proof is made once and serves
both directions: eyes whose every segment is proved blocked are skipped, proved segments
are not cast, and a pair proved blocked everywhere is answered without a search.

Closed convex pieces of the scenery (:mod:`.convex`) come first: a pair one of them
blocks whole is answered at once, the eyes one hides from the whole target are skipped,
and the search settles the samples behind them without rays. A pair with a piece across
the line between the two gets no bundle proof: what the piece leaves is seldom worth one.

The ground under the line between the two (:mod:`.ground`) is drawn from the same proof
map, once per direction and only when that direction is searched past its first eyes:
eyes and rays under it are settled without rays. And the map's interior boxes
(:mod:`.interior_boxes`: the inside of a scanned building or block), once the proofs are
built and both troopers are certainly outside every solid, settle a pair one of them
blocks whole and skip the eyes one hides whole, as convex pieces do.

Proofs, pieces and the ground only ever mark blocked what is blocked, and the search
takes the first eye (in its fixed order) that sees a patch, so the answer, witness
included, is the one found without them.

A caller that uses only whether a pair is visible (the exposure map, the survey) passes
``first_witness=False``: ``b``'s first eye batches are then searched before the rest of
``a``'s. A pair that only ``b``'s eyes see (a trooper on a roof that a low one below
cannot see, but that sees the low one's head) is then found without casting every eye of
``a`` first; on the 1M-triangle scanned table's exposure map this casts about 14 % fewer
segments. Whether the pair is visible is the same in either order.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

from geom3d.bodies.cylinder import Cylinder
from geom3d.core.tolerances import EYE_SPACING_MM, PATCH_MM
from geom3d.mesh.primitives import box_mesh
from geom3d.raycast import backend_class
from geom3d.raycast.base import RayBackend
from geom3d.visibility.apparent import PatchLattice
from geom3d.visibility.cast import (
    ClearToTarget,
    VisibilityStats,
    cull_rows,
    cylinder_array,
    hidden_eyes,
)
from geom3d.visibility.convex import NO_SOLIDS, ConvexSolids
from geom3d.visibility.eyes import eye_count, eye_points
from geom3d.visibility.ground import NO_GROUND, GroundBlocks, GroundProfile
from geom3d.visibility.interior import InteriorMap
from geom3d.visibility.proof import Prover
from geom3d.visibility.proof_trees import PairProof
from geom3d.visibility.search import BATCH_SIZES, search_clear_patch, search_patch, warm_search
from geom3d.visibility.tolerances import PROOF_AFTER_BATCHES, PROOF_EPS_MM
from geom3d.visibility.witness import PatchWitness, patch_witness

__all__ = ["pair_patch", "search_eyes", "warm_kernels"]

#: A search's first eye batches (most visible pairs end in them), their eye count, and
#: the batches of the rest.
_HEAD_SIZES = BATCH_SIZES[:PROOF_AFTER_BATCHES]
_HEAD_EYES = sum(_HEAD_SIZES)
_REST_SIZES = BATCH_SIZES[PROOF_AFTER_BATCHES:] or BATCH_SIZES[-1:]


def search_eyes(
    target: Cylinder,
    eyes: np.ndarray,
    engine: RayBackend,
    occ: np.ndarray,
    lat: PatchLattice,
    stats: VisibilityStats,
    proof: PairProof | None = None,
    flip: bool = False,
    sizes: tuple[int, ...] = BATCH_SIZES,
    solids: ConvexSolids = NO_SOLIDS,
    ground: GroundProfile = NO_GROUND,
    hiders: ConvexSolids = NO_SOLIDS,
) -> PatchWitness | None:
    """Search ``eyes`` (in order) for one that sees a patch of ``target``.

    ``occ``: occluding cylinders (:func:`cylinder_array`). With ``proof`` (made from the
    eyes' trooper, or from the target's with ``flip``), proved eyes are skipped and, unless
    the proof is weak (:attr:`.proof.PairProof.weak`), proved segments are not cast; with
    ``solids`` (:mod:`.convex`), so are eyes and segments
    that one of them blocks; with ``ground`` (:mod:`.ground`, from these eyes to
    ``target``), eyes and rays under the ground; with ``hiders`` (interior boxes,
    :mod:`.interior_boxes`), eyes one of them hides whole. The answer is the same.
    """
    if proof is not None:
        done = proof.settled_eyes(eyes, flip)
        stats.eyes_proved += int(np.count_nonzero(done))
        eyes = eyes[~done]
    if len(occ) and len(eyes):
        done = hidden_eyes(eyes, target, occ)
        stats.eyes_proved += int(np.count_nonzero(done))
        eyes = eyes[~done]
    if len(solids) and len(eyes):
        done = solids.hidden(eyes, target)
        stats.eyes_proved += int(np.count_nonzero(done))
        eyes = eyes[~done]
    if ground and len(eyes):
        done = ground.hidden(eyes, target)
        stats.eyes_proved += int(np.count_nonzero(done))
        eyes = eyes[~done]
    if len(hiders) and len(eyes):
        done = hiders.hidden(eyes, target)
        stats.eyes_proved += int(np.count_nonzero(done))
        eyes = eyes[~done]
    if not len(eyes):
        return None
    if proof is not None and proof.weak:  # its eyes, not its segments (PROOF_WEAK_SHARE)
        proof = None
    cast = ClearToTarget(engine, occ, stats, proof, flip, solids, ground)
    if cast.compiled:
        hit = search_clear_patch(eyes, target, cast, lat, batch_sizes=sizes)
    else:
        hit = search_patch(eyes, target, cast, lat, batch_sizes=sizes)
    return None if hit is None else patch_witness(hit, cast)


def pair_patch(
    a: Cylinder,
    b: Cylinder,
    engine: RayBackend,
    occluders: list[Cylinder] | np.ndarray,
    *,
    prover: Prover | Callable[[], Prover] | None = None,
    patch_mm: float = PATCH_MM,
    stats: VisibilityStats | None = None,
    eye_spacing: float = EYE_SPACING_MM,
    solids: ConvexSolids | None = None,
    first_witness: bool = True,
) -> tuple[PatchWitness | None, int | None]:
    """Does ``a`` see ``b`` or ``b`` see ``a``? (See the module docstring.)

    Parameters
    ----------
    a, b : Cylinder
    engine : RayBackend
        BVH over the blocking scenery.
    occluders : list of Cylinder, or (M, 5) float64
        Other troopers' volumes that block (or their :func:`.cast.cylinder_array` rows).
    prover : Prover or callable, optional
        Blocking proofs over the same scenery; without it every segment is cast. A
        function ``prover() -> Prover`` is called only when the pair needs a proof (so a
        caller can build the proofs lazily, while other pairs go on without them).
        Its interior boxes near the pair hide whole eyes; where the pair's proofs settle
        few bundles (:attr:`.proof.PairProof.weak`) they settle segments too, as pieces.
    patch_mm : float, mm
    stats : VisibilityStats, optional
    eye_spacing : float, mm
    solids : ConvexSolids, optional
        Closed convex pieces of the same scenery (:mod:`.convex`): a pair that one of
        them blocks whole is answered without a search, and eyes and segments they
        block are not cast. Without them the answer is the same.
    first_witness : bool
        True: ``a``'s eyes are searched to the last before ``b``'s, and the witness is the
        first in that fixed order (what ``geom3d lof`` reports). False, for a caller
        that uses only whether there is one (the exposure map, the survey): ``b``'s
        first eye batches come before the rest of ``a``'s (a pair seen only from ``b``
        is found sooner). Whether the pair is visible is the same either way; the
        witness, when there is one, may be another.

    Returns
    -------
    witness : PatchWitness or None
    viewer : int or None
        0 when the witness eye is ``a``'s, 1 when it is ``b``'s, None when not visible.
    """
    stats = stats if stats is not None else VisibilityStats()
    lat = PatchLattice(patch_mm)
    if isinstance(occluders, np.ndarray):
        rows = np.asarray(occluders, dtype=np.float64).reshape(-1, 5)
    else:
        rows = cylinder_array(occluders)
    occ = np.ascontiguousarray(rows[cull_rows(a, b, rows)]) if len(rows) else rows
    near = NO_SOLIDS if solids is None else solids.near(a, b)
    if near.blocks_pair(a, b):
        stats.pairs_convex += 1
        return None, None
    # the interior boxes, once the proofs are built (a pair never builds them for these)
    inner = _boxes_near(prover, a, b, stats) if isinstance(prover, Prover) else NO_SOLIDS
    if inner is None:
        return None, None
    proof: PairProof | None = None
    ground_ab = NO_GROUND  # made with the proof, when a pair needs it
    drawn: Prover | None = None  # the prover the grounds are drawn with, once they are
    if prover is None or near.blocks_axis(a, b):  # (a piece leaves little to prove)
        if prover is not None:
            if not isinstance(prover, Prover):
                prover, inner = _build(prover, a, b, stats)
                if inner is None:
                    return None, None
            drawn = prover
            ground_ab = prover.ground(a, b)
        head = eye_points(a, b, eye_spacing, limit=_HEAD_EYES)
        w = search_eyes(
            b, head, engine, occ, lat, stats, None, False, sizes=_HEAD_SIZES, solids=near,
            ground=ground_ab, hiders=inner,
        )  # fmt: skip
    else:
        # most visible pairs end in these first eyes: only they are made first
        head = eye_points(a, b, eye_spacing, limit=_HEAD_EYES)
        w = search_eyes(b, head, engine, occ, lat, stats, sizes=_HEAD_SIZES, solids=near)
        if w is None:
            if not isinstance(prover, Prover):  # built when a pair first needs it
                prover, inner = _build(prover, a, b, stats)
                if inner is None:
                    return None, None
            # the proof is sized by the eyes it may save: counted, made only if it fails
            n_ab, n_ba = eye_count(a, b, eye_spacing), eye_count(b, a, eye_spacing)
            effort = n_ab * _coarse_count(b, lat) + n_ba * _coarse_count(a, lat)
            proof = prover.pair(a, b, occ, effort=effort)
            if proof is not None and proof.complete:
                return None, None
            drawn, ground_ab = prover, prover.ground(a, b)
    if w is not None:
        return w, 0
    if len(inner) and (proof is None or proof.weak):
        # the boxes settle segments too, not only whole eyes (PROOF_WEAK_SHARE)
        near, inner = near.joined(inner), NO_SOLIDS
    ab = _Way(a, b, engine, occ, lat, stats, proof, False, near, ground_ab, eye_spacing, inner)
    ab.more = len(head) == _HEAD_EYES
    # the other way's ground is drawn only when that way is searched (and the proofs built)
    ground_ba = NO_GROUND if drawn is None else functools.partial(drawn.ground, b, a)
    ba = _Way(b, a, engine, occ, lat, stats, proof, True, near, ground_ba, eye_spacing, inner)
    if first_witness:
        legs = [(ab.rest, 0), (ba.head, 1), (ba.rest, 1)]
    else:
        legs = [(ba.head, 1), (ab.rest, 0), (ba.rest, 1)]
    for leg, viewer in legs:
        w = leg()
        if w is not None:
            return w, viewer
    return None, None


class _Way:
    """The search from ``viewer``'s eyes to ``target`` (the arguments of
    :func:`search_eyes`), in two legs: its first ``PROOF_AFTER_BATCHES`` batches' eyes
    (:meth:`head`) and, only if they see nothing, the rest (:meth:`rest`), so that a pair
    seen from its first eyes does not test every eye against the pieces and the ground
    first. The answer is the same: the search takes the first eye in order that sees a
    patch, whatever the batches."""

    def __init__(
        self,
        viewer: Cylinder,
        target: Cylinder,
        engine: RayBackend,
        occ: np.ndarray,
        lat: PatchLattice,
        stats: VisibilityStats,
        proof: PairProof | None,
        flip: bool,
        solids: ConvexSolids,
        ground: GroundProfile | Callable[[], GroundProfile],
        eye_spacing: float,
        hiders: ConvexSolids,
    ) -> None:
        self.viewer, self.target, self.eye_spacing = viewer, target, eye_spacing
        self.more = True  # whether there are eyes past the head (known once it ran)
        self.args = (engine, occ, lat, stats, proof, flip)
        self.solids, self.hiders = solids, hiders
        self._ground = ground  # (a function: drawn when first searched)

    def _search(self, eyes: np.ndarray, sizes: tuple[int, ...]) -> PatchWitness | None:
        if callable(self._ground):
            self._ground = self._ground()
        return search_eyes(
            self.target, eyes, *self.args, sizes=sizes, solids=self.solids,
            ground=self._ground, hiders=self.hiders,
        )  # fmt: skip

    def head(self) -> PatchWitness | None:
        head = eye_points(self.viewer, self.target, self.eye_spacing, limit=_HEAD_EYES)
        self.more = len(head) == _HEAD_EYES
        return self._search(head, _HEAD_SIZES)

    def rest(self) -> PatchWitness | None:
        if not self.more:
            return None
        return self._search(
            eye_points(self.viewer, self.target, self.eye_spacing)[_HEAD_EYES:], _REST_SIZES
        )


def _build(
    make: Callable[[], Prover], a: Cylinder, b: Cylinder, stats: VisibilityStats
) -> tuple[Prover, ConvexSolids | None]:
    """The prover ``make`` builds, and its interior boxes near the pair (:func:`_boxes_near`)."""
    prover = make()
    return prover, _boxes_near(prover, a, b, stats)


def _boxes_near(
    prover: Prover, a: Cylinder, b: Cylinder, stats: VisibilityStats
) -> ConvexSolids | None:
    """The prover's interior boxes near ``a`` and ``b`` (:meth:`.proof.Prover.boxes_near`),
    or None when one of them blocks the pair whole (counted as a piece's)."""
    inner = prover.boxes_near(a, b)
    if inner.blocks_pair(a, b):
        stats.pairs_convex += 1
        return None
    return inner


def _coarse_count(target: Cylinder, lat: PatchLattice) -> int:
    """About how many coarse samples one eye casts at ``target`` (its apparent view is
    about its true size): for sizing a proof by the work it may save."""
    across = 2.0 * target.radius / lat.coarse_mm + 1.0
    up = target.height / lat.coarse_mm + 1.0
    return int(across * up)


def warm_kernels(interior: InteriorMap | None = None, *, search: bool = True) -> None:
    """Load the compiled kernels of proofs, occluders, the search and the engine's
    segment query (numba's disk cache) now.

    A threaded matrix would otherwise load them in its first pair that needs one, holding
    the GIL while the other threads wait (about 40 ms on a warm cache); a scene built
    for a matrix (``prefetch_proofs``) calls this in a thread of its own while it loads
    its meshes. One toy pair, far off the map's grid, with an occluder between its two
    troopers, runs the kernels with the argument types of the real calls. It answers
    nothing and changes nothing.

    Parameters
    ----------
    interior : InteriorMap, optional
        The map to run them on; default: a one-triangle map with one run, whose arrays
        have the types of every map's (so no mesh is needed yet).
    search : bool
        Also the compiled search (:func:`.search.warm_search`); False leaves it to its
        first call (:mod:`geom3d.commands._prepare` compiles it in another process).
    """
    if interior is None:
        interior = _toy_map()
    gx, gy = float(interior.grid[0]), float(interior.grid[1])  # a column off the mesh
    # a thin cylinder next to the mesh's corner, in its first tile: the parity kernel
    interior.outside(Cylinder((gx - 9.0, gy - 9.0, 0.0), 3.0, 10.0))
    x0, y0 = gx - 1000.0, gy - 1000.0
    a = Cylinder((x0, y0, 0.0), 12.5, 40.0)
    b = Cylinder((x0 + 200.0, y0, 0.0), 12.5, 40.0)
    occ = cylinder_array([Cylinder((x0 + 100.0, y0, 0.0), 20.0, 60.0)])
    occ = np.ascontiguousarray(occ[cull_rows(a, b, occ)])
    eyes = eye_points(a, b)
    eyes = eyes[~hidden_eyes(eyes, b, occ)]
    prover = Prover(interior, None)  # no ray below: the engine is not needed
    prover.warm(a, b, occ, eyes)
    v, f = box_mesh((20.0, 60.0, 60.0))  # a convex piece between the two
    near = ConvexSolids.from_mesh(v + (x0 + 100.0, y0, 0.0), f, np.zeros(len(f))).near(a, b)
    near.blocks_pair(a, b)
    near.blocks_axis(a, b)
    near.hidden(eye_points(a, b, limit=4), b)
    GroundBlocks.from_map(_toy_map())  # (the profiles' own kernels: with the search)
    backend_class().warm()  # the one segment a proof casts first (Prover.pair)
    if search:
        warm_search(b, occ, PatchLattice(PATCH_MM))  # and the search itself, no eye given


def _toy_map() -> InteriorMap:
    """A one-triangle map with one interior run (a 1 mm column), its arrays of the dtypes
    and layouts of a real map's, read from the cache or built."""
    v = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    f = np.array([[0, 1, 2]], dtype=np.int64)
    grid = np.array([-1.0, -1.0, 1.0, 1.0, 1.0, PROOF_EPS_MM])  # x0, y0, g, nx, ny, eps
    runs = (grid, np.array([0, 1], dtype=np.int64), np.array([-2.0]), np.array([-1.0]))
    return InteriorMap(v, f, np.zeros(1, np.int64), np.ones(1, np.bool_), runs=runs)
