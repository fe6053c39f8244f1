"""Compiled lookups in proved bundle trees (:class:`.proof_trees.BundleTree`, packed end to end
by :attr:`.proof_trees.PairProof.packed`): which segments, and which eye points' segments, lie
in a proven leaf. A leaf proves every segment between its two closed boxes (``X`` box
then ``Y`` box, 12 numbers, in its tree's frame ``ox, oy, dx, dy``; see
:mod:`._proof_kernels`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from geom3d.bodies.kernels import njit, njit_leaf

__all__ = [
    "NO_TREES",
    "ProofTrees",
    "eye_leaves",
    "proven_leaves",
    "settled_eyes",
    "settled_from",
    "settled_packed",
]


class ProofTrees(NamedTuple):
    """A pair's proof trees packed end to end (:attr:`.proof_trees.PairProof.packed`): one
    argument of the compiled lookups.

    Python hands it (and :class:`geom3d.raycast.CompiledScene`) to a kernel as a plain
    tuple, ``tuple(trees)``, and the kernel unpacks it by position into these names:
    numba would take the named tuple as it is, but types one argument by argument in
    Python on every call (about 5 us for the two records, against 0.5 us for plain
    tuples, which it types in C) - more than the rest of a small call.

    Attributes
    ----------
    nodes : (k, 12) float64, mm
        The X box then the Y box of each node, in its tree's frame.
    split : (k,) int64
        The bound halved at each node; -1 for a leaf.
    mid : (k,) float64, mm
        Where it was halved.
    child : (k,) int64
        The first child's index (absolute; the second follows it).
    proven : (k,) bool
        Leaves proved blocked.
    frames : (t, 4) float64
        ``ox, oy, dx, dy`` of each tree's frame.
    tree_of : (k,) int64
        The tree of each node (its frame is ``frames[tree_of]``).
    """

    nodes: np.ndarray
    split: np.ndarray
    mid: np.ndarray
    child: np.ndarray
    proven: np.ndarray
    frames: np.ndarray
    tree_of: np.ndarray


#: The packed proof trees of a pair without a proof (no tree).
NO_TREES = ProofTrees(
    np.zeros((0, 12)),
    np.zeros(0, np.int64),
    np.zeros(0),
    np.zeros(0, np.int64),
    np.zeros(0, np.bool_),
    np.zeros((0, 4)),
    np.zeros(0, np.int64),
)


@njit_leaf(forceinline=True)
def _to_frame(frame, p):
    rx, ry = p[0] - frame[0], p[1] - frame[1]
    return rx * frame[2] + ry * frame[3], -rx * frame[3] + ry * frame[2], p[2]


@njit_leaf(forceinline=True)
def _in_box(b, off, d, n, z):
    return (
        b[off] <= d <= b[off + 1]
        and b[off + 2] <= n <= b[off + 3]
        and b[off + 4] <= z <= b[off + 5]
    )


@njit_leaf(forceinline=True)
def _in_leaf_box(nodes, frames, tree_of, c, off, x, y, z):
    """Is world point (x, y, z) in box ``off`` (0: X, 6: Y) of node ``c``, in its tree's
    frame (closed box)?"""
    t = tree_of[c]
    rx, ry = x - frames[t, 0], y - frames[t, 1]
    d = rx * frames[t, 2] + ry * frames[t, 3]
    m = -rx * frames[t, 3] + ry * frames[t, 2]
    return (
        nodes[c, off] <= d <= nodes[c, off + 1]
        and nodes[c, off + 2] <= m <= nodes[c, off + 3]
        and nodes[c, off + 4] <= z <= nodes[c, off + 5]
    )


@njit_leaf(forceinline=True)
def proven_leaves(split, proven, out):
    """The proven leaves of the packed trees, in node order, into ``out``; returns how
    many (what :func:`eye_leaves` looks through: a few percent of the nodes)."""
    n = 0
    for c in range(split.shape[0]):
        if split[c] < 0 and proven[c]:
            out[n] = c
            n += 1
    return n


@njit_leaf(forceinline=True)
def eye_leaves(nodes, cand, n_cand, frames, tree_of, flip, ex, ey, ez, out):
    """The proven leaves ``cand[:n_cand]`` (:func:`proven_leaves`) whose eye-side box
    holds the eye ``e`` (the X box, or the Y box with ``flip``): their indices into
    ``out``, in node order; returns how many. A segment from ``e`` is settled when its
    other end lies in the other box of one of them (:func:`settled_from`): every segment
    between the two boxes of a proven leaf is blocked, boundaries included."""
    own = 6 if flip else 0
    n = 0
    for k in range(n_cand):
        c = cand[k]
        if _in_leaf_box(nodes, frames, tree_of, c, own, ex, ey, ez):
            out[n] = c
            n += 1
    return n


@njit_leaf(forceinline=True)
def settled_from(nodes, frames, tree_of, flip, leaves, n_leaves, qx, qy, qz):
    """Does the segment from the eye of ``leaves[:n_leaves]`` (:func:`eye_leaves`) to
    ``q`` lie in one of those proven leaves? (:func:`_in_leaf_box` of each, with ``q``
    taken into a tree's frame once for its run of leaves, and heights compared first.)"""
    other = 0 if flip else 6
    at = -1
    d = m = 0.0
    for j in range(n_leaves):
        c = leaves[j]
        if not nodes[c, other + 4] <= qz <= nodes[c, other + 5]:
            continue
        t = tree_of[c]
        if t != at:
            rx, ry = qx - frames[t, 0], qy - frames[t, 1]
            d = rx * frames[t, 2] + ry * frames[t, 3]
            m = -rx * frames[t, 3] + ry * frames[t, 2]
            at = t
        if nodes[c, other] <= d <= nodes[c, other + 1] and (
            nodes[c, other + 2] <= m <= nodes[c, other + 3]
        ):
            return True
    return False


@njit(cache=True, nogil=True)
def settled_packed(trees, origins, ends, flip):
    """Which segments, from eyes ``origins[i]`` to ``ends[i]``, lie in a proven leaf of
    one of several trees packed end to end (``trees``: a :class:`ProofTrees` as a plain
    tuple).

    ``flip`` False: the eyes are in the X boxes, the ends in the Y boxes; True: the
    reverse. Segments from one eye should come together (the eye's leaves are found
    once per run of equal eyes).
    """
    nodes, split, _, _, proven, frames, tree_of = trees  # by position
    out = np.zeros(len(origins), np.bool_)
    leaves = np.empty(split.shape[0], np.int64)
    cand = np.empty(split.shape[0], np.int64)
    n_cand = proven_leaves(split, proven, cand)
    n_leaves = 0
    px = py = pz = np.nan
    for i in range(len(origins)):
        ex, ey, ez = origins[i, 0], origins[i, 1], origins[i, 2]
        if not (ex == px and ey == py and ez == pz):
            n_leaves = eye_leaves(nodes, cand, n_cand, frames, tree_of, flip, ex, ey, ez, leaves)
            px, py, pz = ex, ey, ez
        if n_leaves:
            out[i] = settled_from(
                nodes, frames, tree_of, flip, leaves, n_leaves, ends[i, 0], ends[i, 1], ends[i, 2]
            )
    return out


@njit(cache=True, nogil=True)
def settled_eyes(nodes, split, mid, child, proven, frame, eyes, flip):
    """Eyes (in X, or in Y with ``flip``) every segment of which to the other box is in a
    proven bundle: every leaf whose eye-side box holds the eye is proven."""
    out = np.zeros(len(eyes), np.bool_)
    own = 6 if flip else 0
    stack = np.empty(len(split) + 1, np.int64)
    for i in range(len(eyes)):
        d, n, z = _to_frame(frame, eyes[i])
        if not _in_box(nodes[0], own, d, n, z):
            continue
        ok = True
        top = 1
        stack[0] = 0
        while top > 0 and ok:
            top -= 1
            k = stack[top]
            sp = split[k]
            if sp < 0:
                ok = proven[k]
                continue
            c = child[k]
            if (sp < 6) == (own == 0):  # a halving of the eye's own box: follow the eye
                v = n if sp % 6 == 2 else z
                if v <= mid[k]:
                    stack[top] = c
                    top += 1
                if v >= mid[k]:
                    stack[top] = c + 1
                    top += 1
            else:
                stack[top] = c
                stack[top + 1] = c + 1
                top += 2
        out[i] = ok
    return out
