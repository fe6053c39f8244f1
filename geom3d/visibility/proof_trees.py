"""What a blocking proof settles (:mod:`geom3d.visibility.proof`): the bundle tree of one
frame (:class:`BundleTree`), the trees that proved something for a pair
(:class:`PairProof`), and the counters benchmarks read (:class:`ProofStats`).

A segment (eye to target point) is settled when it lies in a proved bundle of one tree;
an eye when one tree settles all of its segments. The lookups are compiled
(:mod:`._leaf_kernels`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from geom3d.visibility._leaf_kernels import ProofTrees, settled_eyes, settled_packed
from geom3d.visibility.tolerances import PROOF_WEAK_SHARE

__all__ = ["BundleTree", "PairProof", "ProofStats"]


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
class BundleTree:
    """Proved bundles between two troopers in one frame (see the module docstring).

    The bundle tree of :func:`._proof_kernels.prove_bundles`: node 0 is the whole pair
    ``X x Y``; an inner node is halved (one side of ``X`` or ``Y``) into two children; a
    leaf is proved or not.

    Attributes
    ----------
    frame : (4,) float64
        ``ox, oy, dx, dy``: the frame; ``d`` runs along ``(dx, dy)``, from the first
        trooper's side to the second's.
    nodes : (k, 12) float64
        ``X`` box then ``Y`` box of each node, in the frame.
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
        # numba's Dispatcher stub caps __call__'s positional arity
        return settled_eyes(*self._tree(), eyes, flip)  # type: ignore[call-arg]

    def settled(self, origins: np.ndarray, ends: np.ndarray, flip: bool) -> np.ndarray:
        """(n,) bool: segments (eye to target point) that lie in a proved bundle."""
        trees = ProofTrees(
            self.nodes, self.split, self.mid, self.child, self.proved, self.frame[None, :],
            np.zeros(len(self.split), np.int64),
        )  # fmt: skip
        return settled_packed(tuple(trees), origins, ends, flip)


@dataclass(frozen=True)
class PairProof:
    """What is proved of a pair: one :class:`BundleTree` per frame that proved something.

    A segment is settled when one tree settles it; an eye when one tree settles all of
    its segments.

    Attributes
    ----------
    trees : tuple of BundleTree
        At least one; the pair's own frame first when it proved something.
    """

    trees: tuple[BundleTree, ...]

    @property
    def leaves(self) -> np.ndarray:
        """(j, 12) float64: the leaf bundles of every tree, tree by tree."""
        return np.concatenate([t.leaves for t in self.trees])

    @property
    def proven(self) -> np.ndarray:
        """(j,) bool: which leaves (same order as :attr:`leaves`) are proved blocked."""
        return np.concatenate([t.proven for t in self.trees])

    @property
    def complete(self) -> bool:
        """One tree proves every bundle: the pair is blocked both ways."""
        return any(t.complete for t in self.trees)

    @property
    def weak(self) -> bool:
        """Fewer than ``PROOF_WEAK_SHARE`` of the leaf bundles are proved blocked."""
        proven = self.proven
        return bool(np.count_nonzero(proven) < PROOF_WEAK_SHARE * len(proven))

    def settled_eyes(self, eyes: np.ndarray, flip: bool) -> np.ndarray:
        """(n,) bool: eyes (of the first trooper, or the second with ``flip``) all of whose
        segments to the other trooper one tree proves blocked."""
        out = self.trees[0].settled_eyes(eyes, flip)
        for t in self.trees[1:]:
            out |= t.settled_eyes(eyes, flip)
        return out

    @functools.cached_property
    def packed(self) -> ProofTrees:
        """Every tree end to end, for the compiled lookups."""
        offs = np.cumsum([0] + [len(t.split) for t in self.trees])
        trees = zip(self.trees, offs[:-1], strict=True)
        child = np.concatenate([np.where(t.split >= 0, t.child + o, -1) for t, o in trees])
        return ProofTrees(
            np.concatenate([t.nodes for t in self.trees]),
            np.concatenate([t.split for t in self.trees]),
            np.concatenate([t.mid for t in self.trees]),
            child,
            np.concatenate([t.proved for t in self.trees]),
            np.stack([t.frame for t in self.trees]),
            np.repeat(np.arange(len(self.trees)), np.diff(offs)),
        )

    def settled(self, origins: np.ndarray, ends: np.ndarray, flip: bool) -> np.ndarray:
        """(n,) bool: segments (eye to target point) that lie in a proved bundle."""
        return settled_packed(tuple(self.packed), origins, ends, flip)
