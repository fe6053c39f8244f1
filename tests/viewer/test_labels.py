"""The label solver (viewer.labels): hard rules checked by brute force on seeded random
crowds, the joint choice placing what a greedy pass cannot, and the costs steering it."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from viewer import labels as lb
from viewer.labels import place_labels
from viewer.layout_lint import segment_hits_box


def _overlap(a, b, pad=0.0):
    return a[0] - pad < b[2] and b[0] < a[2] + pad and a[1] - pad < b[3] and b[1] < a[3] + pad


def _cross(p, q, r, s):
    def o(a, b, c):
        return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])

    return o(r, s, p) * o(r, s, q) < 0 and o(p, q, r) * o(p, q, s) < 0


def _crowd(seed: int, n: int):
    rng = np.random.default_rng(seed)
    anchors = rng.uniform([200, 150], [600, 350], (n, 2))
    sizes = np.column_stack([rng.uniform(20, 80, n), np.full(n, 14.0)])
    obstacles = [(x - 9, y - 9, x + 9, y + 9) for x, y in anchors]  # a trooper on each
    ray = ((100.0, 250.0), (700.0, 260.0))
    return anchors, sizes, obstacles, ray


@pytest.mark.parametrize("seed, n", [(1, 8), (2, 16), (3, 30)])
def test_hard_rules_hold_for_every_placed_label(seed, n):
    anchors, sizes, obstacles, ray = _crowd(seed, n)
    region = (0.0, 800.0, 40.0, 500.0)
    out = place_labels(anchors, sizes, region, obstacles=obstacles, rays=[ray])
    placed = [p for p in out if p.placed]
    assert len(placed) >= 0.8 * n
    for p in placed:
        x0, y0, x1, y1 = p.box
        assert region[0] <= x0 and x1 <= region[1] and region[2] <= y0 and y1 <= region[3]
        assert not any(_overlap(p.box, o) for o in obstacles)
        assert not segment_hits_box(*ray, p.box)
    for p, q in itertools.combinations(placed, 2):
        assert not _overlap(p.box, q.box)
        if p.leader:
            assert not segment_hits_box(p.leader_end(), p.anchor, q.box)
        if q.leader:
            assert not segment_hits_box(q.leader_end(), q.anchor, p.box)
        if p.leader and q.leader:
            assert not _cross(p.leader_end(), p.anchor, q.leader_end(), q.anchor)


def test_deterministic():
    anchors, sizes, obstacles, ray = _crowd(5, 20)
    a = place_labels(anchors, sizes, (0, 800, 40, 500), obstacles=obstacles, rays=[ray])
    b = place_labels(anchors, sizes, (0, 800, 40, 500), obstacles=obstacles, rays=[ray])
    assert a == b


def _strip():
    """Two anchors 12 px apart in a strip one label high: only left/right candidates."""
    anchors = [(50.0, 20.0), (62.0, 20.0)]
    sizes = [(20.0, 10.0), (20.0, 10.0)]
    return anchors, sizes, (0.0, 100.0, 15.0, 25.0)


def test_joint_choice_places_what_greedy_cannot(monkeypatch):
    anchors, sizes, region = _strip()
    monkeypatch.setattr(lb, "LOCAL_PASSES", 0)
    greedy = place_labels(anchors, sizes, region)
    assert greedy[0].placed and not greedy[1].placed  # the first took the second's room
    monkeypatch.undo()
    joint = place_labels(anchors, sizes, region)
    assert all(p.placed for p in joint)
    a, b = joint
    assert a.box[2] <= 50.0 and b.box[0] >= 62.0  # a went left, b right: both touching


def test_the_deciding_ray_is_never_covered_and_other_rays_cost():
    anchor, size = [(100.0, 100.0)], [(30.0, 10.0)]
    free = place_labels(anchor, size, (0, 300, 0, 300))[0]
    assert not free.leader and free.box[0] > 100 and free.box[3] < 100  # up-right, touching
    ray = ((100.0, 100.0), (200.0, 80.0))  # runs through the up-right spot
    hard = place_labels(anchor, size, (0, 300, 0, 300), rays=[ray])[0]
    assert not segment_hits_box(*ray, hard.box)
    soft = place_labels(anchor, size, (0, 300, 0, 300), soft_rays=[ray])[0]
    assert soft.box == hard.box  # a cheaper free spot exists: the ray's cost moves it too


def test_scenery_costs_a_label_its_first_choice():
    anchor, size = [(100.0, 100.0)], [(30.0, 10.0)]
    first = place_labels(anchor, size, (0, 300, 0, 300))[0]
    wall = (first.box[0] - 5, first.box[1] - 5, first.box[2] + 5, first.box[3] + 5)
    moved = place_labels(anchor, size, (0, 300, 0, 300), scenery=[wall])[0]
    assert moved.box != first.box and not _overlap(moved.box, wall)


def test_unplaceable_labels_come_back_unplaced():
    anchors = [(10.0, 10.0)] * 3
    out = place_labels(anchors, [(40.0, 10.0)] * 3, (0.0, 60.0, 0.0, 25.0))
    assert sum(p.placed for p in out) < 3
    assert lb.unplaced_note(["a", "b", "c"], out).startswith("labels not shown (no room): ")


def test_a_disc_anchor_gets_its_label_beside_the_disc_without_a_leader():
    # an observer's disc (radius 12 px) on an open map: with the disc's radius the first
    # ring touches its edge (no leader line, hand check: the box's nearest corner is the
    # ring's 0.35 label heights plus 12 px out on both axes); as a bare point the label
    # must jump a ring out to clear the disc and needs a leader
    disc = (388.0, 238.0, 412.0, 262.0)
    size = [(60.0, 16.0)]
    (near,) = place_labels([(400.0, 250.0)], size, (0, 800, 0, 500), obstacles=[disc],
                           anchor_radius=[12.0])  # fmt: skip
    (far,) = place_labels([(400.0, 250.0)], size, (0, 800, 0, 500), obstacles=[disc])
    assert near.placed and not near.leader
    assert near.box[0] == pytest.approx(400.0 + 12.0 + lb.LEADER_RINGS[0] * 16.0)
    assert near.box[3] == pytest.approx(250.0 - 12.0 - lb.LEADER_RINGS[0] * 16.0)
    assert not _overlap(near.box, disc)
    assert far.placed and far.leader and not _overlap(far.box, disc)
