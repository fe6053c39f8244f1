"""Blocking proofs: settle whole bundles of segments as blocked without casting them.

A pair of troopers ``A``, ``B`` is boxed in a *frame* (see :mod:`._proof_kernels`):
``X`` holds A's cylinder, ``Y`` holds B's, and ``X`` lies wholly before ``Y`` along the
frame's ``d`` axis. Every segment the patch search casts between them (an eye point of
one to a point of the other) runs from ``X`` to ``Y`` or back. :func:`prove_bundles`
tries to show that all segments from ``X`` to ``Y`` pass through an interior run of the
:class:`~.interior.InteriorMap`, halving the boxes where one proof does not cover them
all; the result is a :class:`~.proof_trees.BundleTree`, a partition of ``X x Y`` into bundles, some
proved. The frames tried are the pair's own (``d`` along the line from A to B) and
frames square to the walls between them (:meth:`Prover.wall_angles`): a thin wall at an
angle to that line is crossed whole only by planes parallel to it. A
:class:`~.proof_trees.PairProof` holds the trees that proved something.

A proved bundle is blocked for every segment whose *eye* end is outside every closed
solid (:meth:`InteriorMap.outside`): such a segment enters a solid, so it meets a blocking
triangle before the point where it crosses the run, at least ``PROOF_CLEARANCE_MM`` from
its eye. The search then skips eyes all of whose segments are settled and casts only the
unsettled samples of the others, so it returns exactly what it returns without proofs.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass

import numpy as np

from geom3d.bodies.cylinder import Cylinder
from geom3d.bodies.kernel_constants import SURFACE_BOX_PAD_MM
from geom3d.raycast.base import RayBackend
from geom3d.visibility._proof_kernels import column_tops, prove_bundles, segment_hits_cylinders
from geom3d.visibility.convex import NO_SOLIDS, ConvexSolids
from geom3d.visibility.ground import NO_GROUND, GroundBlocks, GroundProfile
from geom3d.visibility.interior import InteriorMap
from geom3d.visibility.interior_boxes import interior_solids
from geom3d.visibility.proof_trees import BundleTree, PairProof, ProofStats
from geom3d.visibility.tolerances import (
    PROOF_MAX_BUNDLES,
    PROOF_MAX_BUNDLES_PAIR,
    PROOF_MAX_DEPTH,
    PROOF_PLANE_GROUP,
    PROOF_PLANE_TRIES,
    PROOF_PLANES,
    PROOF_SEGMENTS_PER_BUNDLE,
    PROOF_WALL_BUNDLES,
    PROOF_WALL_FRAMES,
    PROOF_WALL_MAX_TURN_DEG,
    PROOF_WALL_MERGE_DEG,
    PROOF_WALL_MIN_TILT_DEG,
)

__all__ = ["Prover", "ProverParts"]

_NO_RUNS = np.zeros(0)


def _centre(cyl: Cylinder) -> np.ndarray:
    """(3,) float64, mm: the middle of the cylinder's axis."""
    b = cyl.base
    return np.array([b[0], b[1], b[2] + 0.5 * cyl.height])


def _turn_deg(a_deg: float, b_deg: float) -> float:
    """The angle (degrees, 0 to 180) between directions ``a_deg`` and ``b_deg``."""
    return abs((a_deg - b_deg + 180.0) % 360.0 - 180.0)


def _box(cyl: Cylinder, ox: float, oy: float, dx: float, dy: float) -> np.ndarray:
    b = cyl.base  # plain floats
    rx, ry = b[0] - ox, b[1] - oy
    d = rx * dx + ry * dy
    n = -rx * dy + ry * dx
    pad = SURFACE_BOX_PAD_MM
    r = cyl.radius + pad
    return np.array([d - r, d + r, n - r, n + r, b[2] - pad, cyl.top_z + pad])


@dataclass(frozen=True)
class ProverParts:
    """What a :class:`Prover` makes of its map before its first pair, apart from the ray
    engine, so that it can be made ahead (:func:`geom3d.scene.ahead.read_proof_map`,
    beside the BVH build: about 10 ms on a 1M-triangle table).

    Attributes
    ----------
    tops : ndarray
        :func:`._proof_kernels.column_tops` of the map's runs.
    boxes : ConvexSolids
        The map's interior boxes less those inside the pieces (see :class:`Prover`).
    interior, pieces : InteriorMap, ConvexSolids
        The map and pieces they were made of (a prover of another map or with other
        pieces makes its own).
    """

    tops: np.ndarray
    boxes: ConvexSolids
    interior: InteriorMap
    pieces: ConvexSolids

    @classmethod
    def of(cls, interior: InteriorMap, pieces: ConvexSolids = NO_SOLIDS) -> ProverParts:
        """The parts of a prover of ``interior`` with ``pieces``."""
        nx, ny = int(interior.grid[3]), int(interior.grid[4])
        tops = column_tops(interior.run_off, interior.run_hi, nx, ny)
        return cls(tops, interior_solids(interior, pieces), interior, pieces)


class Prover:
    """Blocking proofs over one scene's blocking mesh.

    Parameters
    ----------
    interior : InteriorMap
    engine : RayBackend or None
        The same blocking mesh (one ray decides whether a pair is worth proving); None
        only to warm the kernels, which casts no ray.
    ground : GroundBlocks, optional
        The ground's blocks (:meth:`.ground.GroundBlocks.from_map`) of ``interior``, made
        ahead; otherwise the first pair that needs them makes them.
    pieces : ConvexSolids, optional
        The scenery's convex pieces (:class:`.convex.ConvexSolids`): interior boxes inside
        one of them are left out (the piece settles all they would).
    parts : ProverParts, optional
        :meth:`ProverParts.of` ``interior`` and ``pieces``, made ahead; otherwise made here.

    Attributes
    ----------
    boxes : ConvexSolids
        The map's interior boxes (:mod:`.interior_boxes`; made with the map and kept in
        its disk cache entry), less those inside ``pieces``: read through
        :meth:`boxes_near`.
    """

    def __init__(
        self,
        interior: InteriorMap,
        engine: RayBackend | None,
        ground: GroundBlocks | None = None,
        pieces: ConvexSolids = NO_SOLIDS,
        parts: ProverParts | None = None,
    ) -> None:
        if parts is None or parts.interior is not interior or parts.pieces is not pieces:
            parts = ProverParts.of(interior, pieces)
        self.interior = interior
        self.engine = engine
        self.stats = ProofStats()
        # a map with no run in any column: np.zeros maps untouched zero pages at once,
        # where zeros_like would write all of them (tens of ms on a million-column map)
        self._no_runs = np.zeros(interior.run_off.shape, interior.run_off.dtype)
        self._tops = parts.tops
        self._no_tops = np.full(self._tops.shape, -np.inf)
        self._outside: dict[tuple, bool] = {}
        self._ground: GroundBlocks | None = ground  # made ahead from the same map, or None
        self._lock = threading.Lock()
        self.boxes = parts.boxes

    def _ray_engine(self) -> RayBackend:
        assert self.engine is not None  # only a Prover made to warm kernels has none
        return self.engine

    def _is_outside(self, cyl: Cylinder) -> bool:
        key = (*cyl.base, cyl.radius, cyl.height)
        with self._lock:
            hit = self._outside.get(key)
        if hit is None:
            hit = self.interior.outside(cyl)
            with self._lock:
                self._outside[key] = hit
        return hit

    def boxes_near(self, a: Cylinder, b: Cylinder) -> ConvexSolids:
        """The interior boxes that may meet a segment between ``a`` and ``b``
        (:meth:`.convex.ConvexSolids.near`), or none unless both troopers' eye regions are
        certainly outside every closed solid (:mod:`.interior_boxes` says why)."""
        if not (len(self.boxes) and self._is_outside(a) and self._is_outside(b)):
            return NO_SOLIDS
        return self.boxes.near(a, b)

    def ground(self, viewer: Cylinder, target: Cylinder) -> GroundProfile:
        """The ground profile from ``viewer``'s eyes to ``target`` (:mod:`.ground`), or
        :data:`.ground.NO_GROUND` when the map certifies nothing or ``viewer``'s eye
        region is not certainly outside every closed solid."""
        if not (self.interior.certifies() and self._is_outside(viewer)):
            return NO_GROUND
        with self._lock:  # made once, by the first pair that needs it
            if self._ground is None:
                self._ground = GroundBlocks.from_map(self.interior)
            blocks = self._ground
        return blocks.profile(viewer, target)

    def pair(
        self,
        a: Cylinder,
        b: Cylinder,
        occ: np.ndarray | None = None,
        effort: int | None = None,
    ) -> PairProof | None:
        """Prove what can be proved of the segments between ``a`` and ``b``.

        Proofs are tried in the pair's own frame (``d`` along the line from ``a`` to
        ``b``), then in frames square to the walls that probe segments between the two
        hit first (:meth:`wall_angles`), until one tree proves everything. A wall's
        frame examines at most ``PROOF_WALL_BUNDLES`` bundles and is kept only when it
        proves them all.

        Parameters
        ----------
        a, b : Cylinder
        occ : (M, 5) float64, optional
            Occluding troopers (:func:`geom3d.visibility.cylinder_array`): a segment
            through the inside of one is blocked too.
        effort : int, optional
            Segments the pair's search is expected to cast without proofs: sets the
            bundles per frame (``PROOF_SEGMENTS_PER_BUNDLE``). Default: the least.

        Returns
        -------
        PairProof or None
            None when nothing is proved: nothing solid, troopers whose boxes overlap along
            every frame tried, or a clear segment between their centres (the pair is then
            visible or nearly so, and the search settles it quickly by itself).
            Interior runs are used only when both eye regions are certainly outside every
            closed solid.
        """
        occ = np.zeros((0, 5)) if occ is None else np.ascontiguousarray(occ, dtype=np.float64)
        runs = self.interior.certifies() and self._is_outside(a) and self._is_outside(b)
        if not runs and not len(occ):
            return None
        ba, bb = a.base, b.base  # plain floats: the same operations as numpy's scalars
        d = (bb[0] - ba[0], bb[1] - ba[1])
        length = float(np.hypot(d[0], d[1]))
        if length <= a.radius + b.radius + 2 * SURFACE_BOX_PAD_MM:
            return None
        ca, cb = _centre(a), _centre(b)
        if not (
            segment_hits_cylinders(ca, cb, occ)
            or self._ray_engine().occluded_segments(ca[None, :], cb[None, :])[0]
        ):
            return None
        own = math.degrees(math.atan2(d[1], d[0]))
        angles = self._angles(a, b, own, runs)
        nodes = PROOF_MAX_BUNDLES
        if effort is not None:
            nodes = min(PROOF_MAX_BUNDLES_PAIR, max(nodes, effort // PROOF_SEGMENTS_PER_BUNDLE))
        depth = max(PROOF_MAX_DEPTH, math.ceil(math.log2(nodes)) + 2)
        trees: list[BundleTree] = []
        tried = leaves = proved = 0
        complete = False
        for k, angle in enumerate(angles):
            wall = k > 0  # a wall's frame: a few bundles, kept only if it proves them all
            budget = min(nodes, PROOF_WALL_BUNDLES) if wall else nodes
            tree, n_tried = self._tree(a, b, occ, runs, angle, budget, depth, exact=not wall)
            tried += n_tried
            if tree is None:
                continue
            proven = tree.proven  # (a masked copy: made once)
            n_proven = int(np.count_nonzero(proven))
            if wall and n_proven < len(proven):
                continue
            leaves += len(proven)
            proved += n_proven
            if n_proven:
                trees.append(tree)
            if n_proven == len(proven):  # tree.complete
                complete = True
                break
        with self._lock:
            self.stats.pairs += 1
            self.stats.bundles += tried
            self.stats.bundles_proved += proved
            self.stats.leaves += leaves
            self.stats.pairs_settled += int(complete)
        if not trees:
            return None
        return PairProof(tuple(trees))

    def warm(self, a: Cylinder, b: Cylinder, occ: np.ndarray, eyes: np.ndarray) -> None:
        """Run the compiled steps of :meth:`pair` and of a search's eye lookup once on
        ``a``, ``b`` (their outside checks, the centre segment against ``occ``, one tree
        in the pair's own frame, ``eyes`` of ``a`` against it), casting no ray: so that
        numba loads them now (see :func:`.pair.warm_kernels`)."""
        runs = self._is_outside(a) and self._is_outside(b)
        segment_hits_cylinders(_centre(a), _centre(b), occ)
        tree, _ = self._tree(a, b, occ, runs, 0.0, PROOF_MAX_BUNDLES, PROOF_MAX_DEPTH, True)
        if tree is not None:
            tree.settled_eyes(eyes, False)

    def _angles(self, a: Cylinder, b: Cylinder, own_deg: float, walls: bool):
        """The frames to try, in order: the pair's own, then (only if asked for, when the
        own frame has not proved everything) :meth:`wall_angles`."""
        yield own_deg
        if walls:
            yield from self.wall_angles(a, b, own_deg)

    def wall_angles(self, a: Cylinder, b: Cylinder, own_deg: float) -> list[float]:
        """Directions (degrees, counter-clockwise from +x) square to the walls between
        ``a`` and ``b``: at most ``PROOF_WALL_FRAMES``, most often hit first.

        Six probe segments between the two cylinders (three across, two heights), cast
        both ways, report the first triangle they hit; of those steeper than
        ``PROOF_WALL_MIN_TILT_DEG``, the horizontal normals, turned to point from ``a``'s
        side to ``b``'s, are the candidate directions. Directions more than
        ``PROOF_WALL_MAX_TURN_DEG`` from ``own_deg`` (walls the segments graze), and those
        within ``PROOF_WALL_MERGE_DEG`` of one already taken (``own_deg`` first), are
        dropped.
        """
        # a dozen probes and triangles: plain floats (numpy's per-call cost would dominate)
        (ax, ay, az), (bx, by, bz) = a.base, b.base
        length = float(np.hypot(bx - ax, by - ay))
        dx, dy = (bx - ax) / length, (by - ay) / length
        o, e = [], []
        for f in (-0.6, 0.0, 0.6):
            for h in (0.3, 0.7):
                ra, rb = f * a.radius, f * b.radius
                o.append((ax + ra * -dy, ay + ra * dx, az + h * a.height))
                e.append((bx + rb * -dy, by + rb * dx, bz + h * b.height))
        _, first = self._ray_engine().first_hit(np.array(o + e), np.array(e + o))
        steep = math.cos(math.radians(PROOF_WALL_MIN_TILT_DEG))
        hits: dict[float, int] = {}
        for face in first.tolist():
            if face < 0:
                continue
            nx, ny, nz = self.interior.face_normal(face)
            if not (abs(nz) <= steep and math.hypot(nx, ny) > 0):
                continue
            if nx * dx + ny * dy < 0:  # turned to point from a's side to b's
                nx, ny = -nx, -ny
            ang = round(math.atan2(ny, nx) * (180.0 / math.pi) * 1e6) / 1e6  # as np.round
            hits[ang] = hits.get(ang, 0) + 1
        taken = [own_deg]
        out: list[float] = []
        for x in sorted(hits, key=lambda x: (-hits[x], x)):  # most hits first, then angle
            if _turn_deg(x, own_deg) > PROOF_WALL_MAX_TURN_DEG:
                continue  # crossed at a grazing angle: its frame proves next to nothing
            if all(_turn_deg(x, t) > PROOF_WALL_MERGE_DEG for t in taken):
                taken.append(x)
                out.append(x)
                if len(out) == PROOF_WALL_FRAMES:
                    break
        return out

    def _tree(self, a, b, occ, runs, angle_deg, nodes, depth, exact):
        """One bundle tree in the frame along ``angle_deg`` (origin at ``a``'s base), or
        (None, 0) when the boxes of ``a`` and ``b`` overlap along it. ``exact``: the
        pair's own direction, given as its unit vector rather than through the angle."""
        ba, bb = a.base, b.base  # plain floats: the same operations as numpy's scalars
        ox, oy = ba[0], ba[1]
        if exact:
            ddx, ddy = bb[0] - ox, bb[1] - oy
            h = float(np.hypot(ddx, ddy))
            dx, dy = ddx / h, ddy / h
        else:
            dx, dy = math.cos(math.radians(angle_deg)), math.sin(math.radians(angle_deg))
        x_box, y_box = _box(a, ox, oy, dx, dy), _box(b, ox, oy, dx, dy)
        if not y_box[0] > x_box[1]:
            return None, 0
        frame = np.array([ox, oy, dx, dy])
        if len(occ):  # only occluders that can meet the hull of the two cylinders
            # a handful of rows: plain floats, the same operations numpy's would make
            r_ab = max(a.radius, b.radius)
            lo, hi = float(min(x_box[2], y_box[2])), float(max(x_box[3], y_box[3]))
            d_lo, d_hi = float(x_box[0]), float(y_box[1])
            near = []
            for k, (px, py, _, r, _) in enumerate(occ.tolist()):
                rx, ry = px - ox, py - oy
                od, on = rx * dx + ry * dy, -rx * dy + ry * dx
                reach = r + r_ab + 1.0
                if lo - reach < on < hi + reach and d_lo - reach < od < d_hi + reach:
                    near.append(k)
            occ = np.ascontiguousarray(occ[near])
        im = self.interior
        tree = prove_bundles(
            im.grid,
            im.run_off if runs else self._no_runs,
            im.run_lo if runs else _NO_RUNS,
            im.run_hi if runs else _NO_RUNS,
            self._tops if runs else self._no_tops,
            occ,
            frame,
            x_box,
            y_box,
            depth,
            nodes,
            PROOF_PLANES,
            PROOF_PLANE_TRIES,
            PROOF_PLANE_GROUP,
        )
        nodes_, split, mid, child, proved, tried = tree
        return BundleTree(frame, nodes_, split, mid, child, proved), int(tried)
