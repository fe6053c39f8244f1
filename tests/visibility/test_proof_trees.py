"""What a blocking proof settles (geom3d.visibility.proof_trees), on hand-built trees."""

from __future__ import annotations

import numpy as np

from geom3d.visibility.proof_trees import BundleTree, PairProof

X = [0, 10, -5, 5, 0, 10]  # d, n, z ranges in the frame
Y = [20, 30, -5, 5, 0, 10]
FRAME = np.array([0.0, 0.0, 1.0, 0.0])  # origin (0, 0), d along +x


def tree(split, child, proved):
    k = len(split)
    return BundleTree(
        FRAME, np.tile(np.array(X + Y, float), (k, 1)), np.array(split, np.int64),
        np.zeros(k), np.array(child, np.int64), np.array(proved, bool),
    )  # fmt: skip


WHOLE = tree([-1], [-1], [True])  # one bundle, proved
HALVED = tree([0, -1, -1], [1, -1, -1], [False, False, True])  # root halved, one half proved


def test_packed_trees_offset_children_and_name_their_tree():
    p = PairProof((WHOLE, HALVED)).packed
    assert p.split.tolist() == [-1, 0, -1, -1]
    assert p.child.tolist() == [-1, 2, -1, -1]  # HALVED's root child 1, after WHOLE's 1 node
    assert p.proven.tolist() == [True, False, False, True]
    assert p.frames.shape == (2, 4)
    assert p.tree_of.tolist() == [0, 1, 1, 1]


def test_leaves_complete_and_weak():
    both = PairProof((WHOLE, HALVED))
    assert len(both.leaves) == 3 and both.proven.tolist() == [True, False, True]
    assert both.complete  # one tree proves everything
    half = PairProof((HALVED,))
    assert not half.complete and not half.weak  # 1 of 2 leaves: not under half
    none = PairProof((tree([0, -1, -1], [1, -1, -1], [False, False, False]),))
    assert none.weak


def test_a_segment_inside_a_proved_bundle_is_settled():
    origins = np.array([[5.0, 0.0, 5.0], [-5.0, 0.0, 5.0]])  # the second starts outside X
    ends = np.array([[25.0, 0.0, 5.0], [25.0, 0.0, 5.0]])
    assert PairProof((WHOLE,)).settled(origins, ends, False).tolist() == [True, False]
