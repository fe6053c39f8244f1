"""Blocking proofs: settle whole bundles of segments as blocked without casting them.

A pair of troopers ``A``, ``B`` is boxed in its *pair frame* (see
:mod:`._proof_kernels`): ``X`` holds A's cylinder, ``Y`` holds B's. Every segment the patch
search casts between them (an eye point of one to a point of the other) runs from ``X``
to ``Y`` or back. :func:`prove_bundles` tries to show that all segments from ``X`` to
``Y`` pass through an interior run of the :class:`~.interior.InteriorMap`, halving the
boxes where one proof does not cover them all; the result is a :class:`PairProof`, a
partition of ``X x Y`` into bundles, some proved.

A proved bundle is blocked for every segment whose *eye* end is outside every closed
solid (:meth:`InteriorMap.outside`): such a segment enters a solid, so it meets a blocking
triangle before the point where it crosses the run, at least ``PROOF_CLEARANCE_MM`` from
its eye. The search then skips eyes all of whose segments are settled and casts only the
unsettled samples of the others, so it returns exactly what it returns without proofs.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np

from geom3d.bodies import Cylinder
from geom3d.raycast import RayBackend
from geom3d.tolerances import (
    PROOF_MAX_BUNDLES,
    PROOF_MAX_DEPTH,
    PROOF_PLANE_TRIES,
    PROOF_PLANES,
)

from ._proof_kernels import (
    prove_bundles,
    segment_hits_cylinders,
    settled_eyes,
    settled_segments,
)
from .interior import InteriorMap

__all__ = ["PairProof", "ProofStats", "Prover"]

_NO_RUNS = np.zeros(0)

#: Boxes are grown by this much (mm) so that sample points computed on a cylinder's
#: surface, with rounding, are inside the box of that cylinder.
_BOX_PAD_MM = 1e-4


@dataclass
class ProofStats:
    """Counters for benchmarks.

    Attributes
    ----------
    pairs : int
        Pairs a proof was attempted for.
    pairs_settled : int
        Pairs proved blocked everywhere (answered without a search).
    bundles : int
        Bundles examined (tree nodes tried).
    leaves : int
        Bundles the pairs were finally cut into.
    bundles_proved : int
        Of those leaves, the ones proved blocked (the proof hit rate is
        ``bundles_proved / leaves``).
    """

    pairs: int = 0
    pairs_settled: int = 0
    bundles: int = 0
    leaves: int = 0
    bundles_proved: int = 0


@dataclass(frozen=True)
class PairProof:
    """Proved bundles between two troopers (see the module docstring).

    The bundle tree of :func:`._proof_kernels.prove_bundles`: node 0 is the whole pair
    ``X x Y``; an inner node is halved (one side of ``X`` or ``Y``) into two children; a
    leaf is proved or not.

    Attributes
    ----------
    frame : (4,) float64
        ``ox, oy, dx, dy``: the pair frame, from the first trooper to the second.
    nodes : (k, 12) float64
        ``X`` box then ``Y`` box of each node, in the pair frame.
    split, mid, child : (k,) arrays
        How inner nodes were halved (``split`` is -1 at leaves).
    proved : (k,) bool
        Leaves proved blocked.
    """

    frame: np.ndarray
    nodes: np.ndarray
    split: np.ndarray
    mid: np.ndarray
    child: np.ndarray
    proved: np.ndarray

    @property
    def leaves(self) -> np.ndarray:
        """(j, 12) float64: ``X`` box then ``Y`` box of each leaf bundle."""
        return self.nodes[self.split < 0]

    @property
    def proven(self) -> np.ndarray:
        """(j,) bool: which leaves (same order as :attr:`leaves`) are proved blocked."""
        return self.proved[self.split < 0]

    @property
    def complete(self) -> bool:
        """Every bundle is proved: the pair is blocked both ways."""
        return bool(self.proven.all())

    def _tree(self):
        return self.nodes, self.split, self.mid, self.child, self.proved, self.frame

    def settled_eyes(self, eyes: np.ndarray, flip: bool) -> np.ndarray:
        """(n,) bool: eyes (of the first trooper, or the second with ``flip``) all of whose
        segments to the other trooper are proved blocked."""
        return settled_eyes(*self._tree(), eyes, flip)

    def settled(self, origins: np.ndarray, ends: np.ndarray, flip: bool) -> np.ndarray:
        """(n,) bool: segments (eye to target point) that lie in a proved bundle."""
        return settled_segments(*self._tree(), origins, ends, flip)


def _box(cyl: Cylinder, ox: float, oy: float, dx: float, dy: float) -> np.ndarray:
    b = cyl.base_array
    rx, ry = float(b[0]) - ox, float(b[1]) - oy
    d = rx * dx + ry * dy
    n = -rx * dy + ry * dx
    r = cyl.radius + _BOX_PAD_MM
    return np.array(
        [d - r, d + r, n - r, n + r, float(b[2]) - _BOX_PAD_MM, cyl.top_z + _BOX_PAD_MM]
    )


class Prover:
    """Blocking proofs over one scene's blocking mesh.

    Parameters
    ----------
    interior : InteriorMap
    engine : RayBackend
        The same blocking mesh (one ray decides whether a pair is worth proving).
    """

    def __init__(self, interior: InteriorMap, engine: RayBackend) -> None:
        self.interior = interior
        self.engine = engine
        self.stats = ProofStats()
        self._no_runs = np.zeros_like(interior.run_off)  # a map with no run in any column
        self._outside: dict[tuple, bool] = {}
        self._lock = threading.Lock()

    def _is_outside(self, cyl: Cylinder) -> bool:
        key = (*cyl.base, cyl.radius, cyl.height)
        with self._lock:
            hit = self._outside.get(key)
        if hit is None:
            hit = self.interior.outside(cyl)
            with self._lock:
                self._outside[key] = hit
        return hit

    def pair(self, a: Cylinder, b: Cylinder, occ: np.ndarray | None = None) -> PairProof | None:
        """Prove what can be proved of the segments between ``a`` and ``b``.

        Parameters
        ----------
        a, b : Cylinder
        occ : (M, 5) float64, optional
            Occluding troopers (:func:`geom3d.visibility.cylinder_array`): a segment
            through the inside of one is blocked too.

        Returns
        -------
        PairProof or None
            None when nothing is proved: nothing solid, troopers whose boxes overlap along
            the pair's direction, or a clear segment between their centres (the pair is
            then visible or nearly so, and the search settles it quickly by itself).
            Interior runs are used only when both eye regions are certainly outside every
            closed solid.
        """
        occ = np.zeros((0, 5)) if occ is None else np.ascontiguousarray(occ, dtype=np.float64)
        runs = self.interior.certifies() and self._is_outside(a) and self._is_outside(b)
        if not runs and not len(occ):
            return None
        ba, bb = a.base_array, b.base_array
        d = np.array([bb[0] - ba[0], bb[1] - ba[1]], dtype=np.float64)
        length = float(np.hypot(*d))
        if length <= a.radius + b.radius + 2 * _BOX_PAD_MM:
            return None
        ca = np.array([ba[0], ba[1], ba[2] + 0.5 * a.height])
        cb = np.array([bb[0], bb[1], bb[2] + 0.5 * b.height])
        if not (
            segment_hits_cylinders(ca, cb, occ)
            or self.engine.occluded_segments(ca[None, :], cb[None, :])[0]
        ):
            return None
        dx, dy = d / length
        ox, oy = float(ba[0]), float(ba[1])
        frame = np.array([ox, oy, dx, dy])
        if len(occ):  # only occluders that can meet the hull of the two cylinders
            rx, ry = occ[:, 0] - ox, occ[:, 1] - oy
            od, on = rx * dx + ry * dy, -rx * dy + ry * dx
            reach = occ[:, 3] + max(a.radius, b.radius) + 1.0
            near = (np.abs(on) < reach) & (od > -reach) & (od < length + reach)
            occ = np.ascontiguousarray(occ[near])
        im = self.interior
        nodes, split, mid, child, proved, tried = prove_bundles(
            im.grid,
            im.run_off if runs else self._no_runs,
            im.run_lo if runs else _NO_RUNS,
            im.run_hi if runs else _NO_RUNS,
            occ,
            frame,
            _box(a, ox, oy, dx, dy),
            _box(b, ox, oy, dx, dy),
            PROOF_MAX_DEPTH,
            PROOF_MAX_BUNDLES,
            PROOF_PLANES,
            PROOF_PLANE_TRIES,
        )
        leaf = split < 0
        n_proved = int(proved[leaf].sum())
        with self._lock:
            self.stats.pairs += 1
            self.stats.bundles += int(tried)
            self.stats.bundles_proved += n_proved
            self.stats.leaves += int(leaf.sum())
            if n_proved == int(leaf.sum()):
                self.stats.pairs_settled += 1
        if not n_proved:
            return None
        return PairProof(frame, nodes, split, mid, child, proved)
