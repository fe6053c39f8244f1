"""Sample predicates: which apparent-view samples *count* towards a visible patch.

The patch search (:mod:`.search`) is written once, over a *sample predicate*: a callable
``cast(view, eye_idx, s, t) -> (counts, points)`` that decides, for the rays from
``view.eyes[eye_idx]`` through apparent points ``(s, t)``, whether each sample counts, and
returns the sample points (the first point of the target on each ray). Line of Fire uses
:class:`ClearToTarget` (the first point is on the target and the segment to it is clear
of occluding troopers and of blocking scenery); the Blast Focus adds "inside the template
volume" (:mod:`geom3d.placement.blast_focus`).

Both run on the compiled kernel :func:`geom3d.bodies.kernels.cast_view_rays` (sample point,
first point on the target, exact occluder test) and hand only the segments that remain to
the ray engine, through :meth:`geom3d.raycast.RayBackend.occluded_segments`.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Protocol

import numpy as np

from geom3d.bodies.cylinder import Cylinder
from geom3d.bodies.kernel_constants import SURFACE_BOX_PAD_MM
from geom3d.bodies.kernels import cast_view_rays
from geom3d.raycast.base import RayBackend
from geom3d.raycast.compiled import lent_scene
from geom3d.visibility._cast_kernels import clear_to_target, cull_kernel, hidden_kernel
from geom3d.visibility._leaf_kernels import NO_TREES
from geom3d.visibility.apparent import ApparentView
from geom3d.visibility.convex import NO_SOLIDS, ConvexSolids
from geom3d.visibility.ground import NO_GROUND, GroundProfile
from geom3d.visibility.tolerances import HIDDEN_MARGIN_MM

__all__ = [
    "NO_TREES",
    "SEARCH_COUNTERS",
    "ClearToTarget",
    "SampleCast",
    "VisibilityStats",
    "cast_target",
    "cull_occluders",
    "cull_rows",
    "cylinder_array",
    "hidden_eyes",
    "occluded",
]


@dataclass
class VisibilityStats:
    """Counters for benchmarks.

    Attributes
    ----------
    rays : int
        Segments that reach the target (settled by a proof, by an occluding trooper or
        by the ray engine).
    cast : int
        Segments handed to the ray engine.
    proved : int
        Segments settled as blocked by a blocking proof (:mod:`.proof`), never cast.
    eyes, eyes_refined : int
        Eye points examined, and refined on the fine lattice.
    eyes_proved : int
        Eye points skipped because all their segments were proved blocked (by a
        blocking proof, wholly behind one occluding trooper: :func:`hidden_eyes`, or
        behind one convex piece of scenery: :mod:`.convex`).
    pairs_convex : int
        Pairs answered blocked without a search: one convex piece blocks every segment
        between them.
    outlined : int
        Lattice samples settled blocked without a ray: inside the apparent outline of a
        convex piece nearer the eye than the target (not counted in ``rays``).
    """

    rays: int = 0
    cast: int = 0
    proved: int = 0
    eyes: int = 0
    eyes_refined: int = 0
    eyes_proved: int = 0
    pairs_convex: int = 0
    outlined: int = 0

    def add(self, other: VisibilityStats) -> None:
        """Add ``other``'s counts to these."""
        for name in SEARCH_COUNTERS:
            setattr(self, name, getattr(self, name) + getattr(other, name))


#: The names of :class:`VisibilityStats`' counters, in order (what the survey and the
#: exposure map sum over their workers).
SEARCH_COUNTERS: tuple[str, ...] = tuple(f.name for f in fields(VisibilityStats))


class SampleCast(Protocol):
    """A sample predicate (see the module docstring)."""

    stats: VisibilityStats

    def __call__(
        self, view: ApparentView, eye_idx: np.ndarray, s: np.ndarray, t: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Counting flags ``(k,) bool`` and sample points ``(k, 3) float64`` (mm)."""
        ...


def cylinder_array(cyls: list[Cylinder]) -> np.ndarray:
    """(M, 5) float64: ``(bx, by, bz, radius, height)`` per cylinder (mm)."""
    if not cyls:
        return np.zeros((0, 5))
    return np.array([[*c.base, c.radius, c.height] for c in cyls], dtype=np.float64)


def cull_occluders(a: Cylinder, b: Cylinder, occluders: list[Cylinder]) -> list[Cylinder]:
    """The occluders that can meet a segment from a point of ``a`` to a point of ``b``
    (see :func:`cull_rows`), in their order."""
    if not occluders:
        return []
    keep = cull_rows(a, b, cylinder_array(occluders))
    return [cyl for cyl, k in zip(occluders, keep, strict=True) if k]


def cull_rows(a: Cylinder, b: Cylinder, rows: np.ndarray) -> np.ndarray:
    """Which occluders can meet a segment from a point of ``a`` to a point of ``b``.

    Such a segment lies in the joint bounding box of ``a`` and ``b``, and in plan within
    the larger radius of the line between their axes (the convex hull of their two discs
    lies there); an occluder wholly outside either can never block it (exact culling).

    Parameters
    ----------
    a, b : Cylinder
    rows : (M, 5) float64
        Occluders as :func:`cylinder_array` rows.

    Returns
    -------
    (M,) bool
    """
    (ax, ay, az), (bx, by, bz) = a.base, b.base
    return cull_kernel(
        np.ascontiguousarray(rows, dtype=np.float64), float(ax), float(ay), float(az),
        a.top_z, a.radius, float(bx), float(by), float(bz), b.top_z, b.radius,
    )  # fmt: skip


def hidden_eyes(eyes: np.ndarray, target: Cylinder, occ: np.ndarray) -> np.ndarray:
    """Which eye points see none of ``target``: all of it lies behind one occluder.

    For an eye outside an occluding cylinder ``O`` in plan, with the target's box wholly
    beyond ``O`` (along the horizontal from the eye to ``O``'s axis), every segment from
    the eye to the box crosses ``O``'s axial plane square to that horizontal inside the
    convex hull of the crossings of the segments to the box's 8 corners (central
    projection keeps convex sets convex). When those crossings all lie at least
    ``HIDDEN_MARGIN_MM`` inside ``O``'s section, every segment runs at least twice that
    far through ``O``: :func:`geom3d.bodies.kernels.view_ray` finds each blocked, so the eye has
    no counting sample and the search, which drops such eyes, returns the same answer
    without them (exact).

    Parameters
    ----------
    eyes : (n, 3) float64, mm
    target : Cylinder
    occ : (M, 5) float64
        Occluding cylinders (:func:`cylinder_array`).

    Returns
    -------
    (n,) bool
    """
    eyes = np.ascontiguousarray(eyes, dtype=np.float64)
    if not len(occ):
        return np.zeros(len(eyes), dtype=bool)
    return hidden_kernel(
        eyes, cylinder_array([target])[0], np.ascontiguousarray(occ, dtype=np.float64),
        HIDDEN_MARGIN_MM, SURFACE_BOX_PAD_MM,
    )  # fmt: skip


def cast_target(view: ApparentView, eye_idx, s, t, occ: np.ndarray):
    """The rays through (s, t): first points on the target, and what is left to test.

    Parameters
    ----------
    view : ApparentView
    eye_idx : (k,) int
    s, t : (k,) float, mm
    occ : (M, 5) float64
        Occluding cylinders (:func:`cylinder_array`).

    Returns
    -------
    points : (k, 3) float64, mm
        First point of the target on each ray (undefined where the ray misses it).
    status : (k,) int8
        :data:`geom3d.bodies.kernels.STATUS_MISS` (0), ``STATUS_BLOCKED`` (by ``occ``) or
        ``STATUS_SCENERY`` (reaches the target clear of ``occ``).
    scenery : (n,) int64
        The rays with ``STATUS_SCENERY``, in order.
    origins, ends : (n, 3) float64, mm
        Their segments (eye to first point), compacted, for the ray engine.
    """
    return cast_view_rays(
        view.eyes,
        view.u,
        view.v,
        view.c,
        np.ascontiguousarray(eye_idx, dtype=np.int64),
        np.ascontiguousarray(s, dtype=np.float64),
        np.ascontiguousarray(t, dtype=np.float64),
        view.target_row,
        occ,
    )


class ClearToTarget:
    """Line of Fire's predicate: the ray reaches the target, clear of everything.

    Parameters
    ----------
    engine : RayBackend
        BVH over the blocking scenery.
    occ : (M, 5) float64
        Occluding troopers (:func:`cylinder_array`).
    stats : VisibilityStats
        ``rays`` counts every segment that reaches the target.
    proof : PairProof, optional
        Blocking proofs of the pair (:mod:`.proof`): segments they settle are not cast.
    flip : bool
        The eyes are the proof's second trooper's.
    solids : ConvexSolids
        Closed convex pieces of the same scenery (:mod:`.convex`): segments through one
        are not cast (the compiled pass only; the answers are the same either way).
    ground : GroundProfile
        The ground profile of these eyes' corridor to the target (:mod:`.ground`): rays
        under it are neither viewed nor cast (the compiled pass only; the same answers).

    Notes
    -----
    Where the engine lends its scene to compiled code
    (:meth:`~geom3d.raycast.RayBackend.compiled_scene`), a call is one compiled pass
    (:func:`._cast_kernels.clear_to_target`); otherwise the same steps run through
    :func:`cast_target` and :meth:`~geom3d.raycast.RayBackend.occluded_segments`.
    """

    def __init__(
        self,
        engine: RayBackend,
        occ: np.ndarray,
        stats: VisibilityStats,
        proof=None,
        flip: bool = False,
        solids: ConvexSolids = NO_SOLIDS,
        ground: GroundProfile = NO_GROUND,
    ) -> None:
        self.engine = engine
        self.occ = occ
        self.stats = stats
        self.proof = proof
        self.flip = flip
        self._scene = lent_scene(engine)  # None: through engine.occluded_segments
        # the records as plain tuples: typed in C at each call (see ProofTrees)
        self._args = (
            None
            if self._scene is None
            else (
                tuple(self._scene),
                tuple(proof.packed if proof is not None else NO_TREES),
                solids.packed,
                ground.packed,
            )
        )

    @property
    def compiled(self) -> bool:
        """Whether calls run as one compiled pass (the engine lends its scene)."""
        return self._scene is not None

    def compiled_args(self) -> tuple:
        """The arguments of :func:`._cast_kernels.clear_to_target` from ``occ`` to
        ``flip`` (occluders, :class:`~geom3d.raycast.CompiledScene` and
        :class:`._leaf_kernels.ProofTrees` as plain tuples, the convex pieces'
        ``(planes, off, inner, inner_off)``, the ground profile's ``(frame, hull)``,
        flip), for compiled callers
        (:attr:`compiled` only)."""
        assert self._args is not None  # compiled: the engine lent its scene
        return (self.occ, *self._args, self.flip)

    def count(self, counts: np.ndarray) -> None:
        """Add a compiled pass's counters to ``stats`` and the engine: rays reaching the
        target, segments cast, segments proved, and optionally eyes examined and
        refined and lattice samples settled inside an outline."""
        got = counts.tolist()  # plain ints, in one call
        self.stats.rays += got[0]
        self.stats.cast += got[1]
        self.stats.proved += got[2]
        if len(got) > 3:
            self.stats.eyes += got[3]
            self.stats.eyes_refined += got[4]
            self.stats.outlined += got[5]
        self.engine.add_cast(got[1])

    def settled(self, origins: np.ndarray, ends: np.ndarray) -> np.ndarray:
        """(n,) bool: segments (eye to target point) the proof settles."""
        return self.proof.settled(origins, ends, self.flip)

    def __call__(self, view: ApparentView, eye_idx, s, t):
        if self._scene is not None:
            counts = np.zeros(3, np.int64)
            # numba's Dispatcher stub caps __call__'s positional arity
            clear, points = clear_to_target(  # type: ignore[call-arg]
                view.eyes, view.u, view.v, view.c,
                np.ascontiguousarray(eye_idx, dtype=np.int64),
                np.ascontiguousarray(s, dtype=np.float64),
                np.ascontiguousarray(t, dtype=np.float64),
                view.target_row, *self.compiled_args(), counts,
            )  # fmt: skip
            self.count(counts)
            return clear, points
        points, status, scenery, origins, ends = cast_target(view, eye_idx, s, t, self.occ)
        self.stats.rays += int(np.count_nonzero(status))  # STATUS_MISS is 0
        clear = np.zeros(len(status), dtype=bool)
        if len(scenery):
            settled = None if self.proof is None else self.settled
            clear[scenery] = ~occluded(self.engine, origins, ends, settled, self.stats)
        return clear, points


def occluded(engine: RayBackend, origins, ends, settled, stats: VisibilityStats) -> np.ndarray:
    """Scenery occlusion of segments, casting only those no proof has settled.

    Parameters
    ----------
    engine : RayBackend
    origins, ends : (n, 3) float64, mm
    settled : callable or None
        ``settled(origins, ends) -> (n,) bool``: segments already proved blocked.
    stats : VisibilityStats
        ``cast`` and ``proved`` are incremented.

    Returns
    -------
    (n,) bool
    """
    if settled is None:
        stats.cast += len(origins)
        return engine.occluded_segments(origins, ends)
    done = settled(origins, ends)
    out = done.copy()
    todo = np.flatnonzero(~done)
    stats.proved += len(origins) - len(todo)
    stats.cast += len(todo)
    if len(todo):
        out[todo] = engine.occluded_segments(origins[todo], ends[todo])
    return out
