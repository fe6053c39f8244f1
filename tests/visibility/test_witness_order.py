"""``pair_patch(..., first_witness=False)``: the order the exposure map and the survey
search a pair in (``b``'s first eye batches before the rest of ``a``'s). Whether a pair
is visible must not change; the witness it gives is the first of the way that found it,
and its window is clear by the brute-force search of ``proof_support`` (every eye x every
1 mm sample, written apart from geom3d.visibility)."""

from __future__ import annotations

import numpy as np
import pytest
from proof_support import brute_force, fused_scene, occluders, witness_window_clear

from geom3d.visibility import VisibilityStats, pair_patch


def _search(scene, a, b, first_witness):
    stats = VisibilityStats()
    w, viewer = pair_patch(
        a.cylinder, b.cylinder, scene.engine, occluders(scene, a, b), prover=scene.prover,
        stats=stats, solids=scene.convex_solids, first_witness=first_witness,
    )  # fmt: skip
    return w, viewer, stats


@pytest.fixture(scope="module")
def scene(tmp_path_factory):
    scene = fused_scene(tmp_path_factory.mktemp("order"), 0)
    assert scene.prover is not None  # built: every pair searches with proofs
    return scene


def test_any_order_answers_every_ordered_pair_as_the_fixed_order(scene):
    ids = list(scene.troopers)
    reordered = []
    for x in ids:
        for y in ids:
            if x == y:
                continue
            a, b = scene.trooper(x), scene.trooper(y)
            w0, k0, _ = _search(scene, a, b, True)
            w1, k1, _ = _search(scene, a, b, False)
            assert (w0 is None) == (w1 is None), (x, y)
            if w1 is None:
                continue
            # the witness is the first one of the way that found it
            first = w0
            if k1 != k0:  # found from b first: b's first witness, as (b, a) finds it
                first, k = _search(scene, b, a, True)[:2]
                assert k == 0, (x, y)
            assert w1.eye == pytest.approx(first.eye, abs=1e-12), (x, y)
            assert w1.patch_center == pytest.approx(first.patch_center, abs=1e-12), (x, y)
            if k1 != k0:
                reordered.append((x, y))
    # the table has a pair that the two orders answer from different troopers
    assert ("foot", "tower") in reordered


def test_a_pair_seen_only_late_from_a_is_found_from_b_first_with_fewer_rays(scene):
    a, b = scene.trooper("foot"), scene.trooper("tower")
    w0, k0, s0 = _search(scene, a, b, True)
    w1, k1, s1 = _search(scene, a, b, False)
    assert (k0, k1) == (0, 1)  # foot's own eyes see tower, but only past their first batches
    assert s1.rays < s0.rays
    # each witness's window is clear from its own viewer, by the brute force
    cyls = occluders(scene, a, b)
    witness_window_clear(brute_force(scene, a.cylinder, b.cylinder, cyls), w0, "foot-tower")
    witness_window_clear(brute_force(scene, b.cylinder, a.cylinder, cyls), w1, "tower-foot")
    assert not np.allclose(w0.eye, w1.eye)
