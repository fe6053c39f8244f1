"""The refinement plan after the coarse cast (``_search_kernels.refine_plan``): which
windows can be full, and which fine samples are cast for them."""

from __future__ import annotations

import numpy as np

from geom3d.visibility._search_kernels import (
    _cover,
    _on_fine,
    nearest_windows,
    refine_plan,
    window_order,
)


def _plan(ok_grid, coarse_mm=4.0, sample_mm=1.0, step=4, ks0=-1, kt0=-1):
    nks, nkt = ok_grid.shape
    return refine_plan(
        ok_grid.ravel().copy(), 1, ks0, nks, kt0, nkt, step, step, coarse_mm, sample_mm
    )


def test_a_window_whose_coarse_point_is_blocked_is_not_possible():
    ok = np.ones((3, 3), bool)
    ok[1, 1] = False  # one blocked coarse point amid counting ones
    cand, active, possible, has = _plan(ok)
    assert list(cand) == [0] and list(has) == [0]
    assert possible.shape == (1, 13, 13)  # (3 + 1) * 4 - 4 + 1 windows a side
    # local fine index 8 is coarse point 1: the windows from 5 to 8 hold it on each axis
    want = np.ones((13, 13), bool)
    want[5:9, 5:9] = False
    assert (possible[0] == want).all()
    # the blocked point's own sample lies in no possible window: it is not cast again
    assert not active[0, 8, 8]
    assert active[0, 7, 8] and active[0, 8, 9] and active[0, 0, 0] and active[0, 15, 15]
    assert active[0].sum() == 16 * 16 - 1


def test_the_first_windows_keep_the_point_before_the_lattice():
    # windows starting at local 0 hold coarse point -1, never cast: they stay possible
    ok = np.zeros((2, 2), bool)
    ok[0, 0] = True
    _, active, possible, _ = _plan(ok)
    assert possible[0, 0, 0] and possible[0, 4, 4]  # points -1 and 0
    assert not possible[0, 5, 5]  # it holds point (1, 1), which does not count
    assert active[0, :8, :8].all() and not active[0, 8:].any() and not active[0, :, 8:].any()


def test_no_pruning_when_the_coarse_points_are_not_fine_samples():
    assert _on_fine(-50, 100, 4.0, 4, 1.0)
    assert not _on_fine(1, 1, 0.3, 3, 0.1)  # 1 * 0.3 != 3 * 0.1 in floats
    ok = np.ones((3, 3), bool)
    ok[1, 1] = False
    _, active, possible, _ = _plan(ok, coarse_mm=0.3, sample_mm=0.1, step=3, ks0=1, kt0=1)
    assert possible[0].all() and active[0].all()  # every cell refined, every window kept


def test_a_lone_counting_point_keeps_only_its_own_windows():
    # one counting point (2, 2), at local 12: of the 25 windows in its four refined cells
    # (local 8 to 15), the 16 from 9 to 12 hold it; the others hold a blocked point
    ok = np.zeros((3, 3), bool)
    ok[2, 2] = True
    cand, active, possible, has = _plan(ok)
    assert list(cand) == [0] and list(has) == [0]
    assert possible[0].sum() == 16 and possible[0, 9:13, 9:13].all()
    assert active[0].sum() == 7 * 7 and active[0, 9:16, 9:16].all()
    no = np.zeros((3, 3), bool)
    cand, active, possible, has = _plan(no)
    assert len(cand) == len(has) == 0 and active.shape[0] == 0


def test_cover_is_the_windows_samples():
    rng = np.random.default_rng(7)
    for _ in range(300):
        pm, pn = (int(x) for x in rng.integers(1, 20, 2))
        w = int(rng.integers(1, 6))
        possible = rng.random((pm, pn)) < rng.random()
        out = np.ones((pm + w - 1, pn + w - 1), bool)
        _cover(possible, w, out)
        want = np.zeros_like(out)
        for i, j in zip(*np.nonzero(possible), strict=True):
            want[i : i + w, j : j + w] = True
        assert (out == want).all()


def test_nearest_windows_is_the_stable_order():
    rng = np.random.default_rng(3)
    for _ in range(200):
        possible = rng.random((int(rng.integers(1, 30)), int(rng.integers(1, 30)))) < 0.5
        if not possible.any():
            continue
        a0, b0 = (int(x) for x in rng.integers(-40, 0, 2))
        wins, lo, span, dist = window_order(possible, a0, b0, 1.5)
        full = nearest_windows(wins, dist, 1)
        want = wins[np.argsort(dist, kind="stable")]
        assert (full == want).all()
        assert (nearest_windows(wins, dist, 0) == want[:1]).all()
        corners = np.argwhere(possible)  # lexicographic, like wins
        assert (wins + lo == corners).all() and (span == corners.max(0) - corners.min(0)).all()


def test_two_refining_casts_find_what_one_finds():
    """rest_first + rest_second (even samples first, then the windows left open) pick the
    same eye, window and middle sample as one cast of every refined sample."""
    from geom3d.visibility._search_kernels import rest_first, rest_pick, rest_second

    rng = np.random.default_rng(11)
    step = w = 4
    for trial in range(150):
        n_eyes, nks, nkt = int(rng.integers(1, 5)), int(rng.integers(1, 6)), int(rng.integers(1, 6))
        m, n = (nks + 1) * step, (nkt + 1) * step
        # a fine truth per eye (blobs of counting samples), the coarse cast read from it
        truth = rng.random((n_eyes, m, n)) < rng.uniform(0.3, 0.98)
        if trial % 3 == 0:
            truth[:, ::2, ::2] |= rng.random((n_eyes, (m + 1) // 2, (n + 1) // 2)) < 0.5
        ok = truth[:, step : (nks + 1) * step : step, step : (nkt + 1) * step : step].reshape(-1)
        cand, active, possible, has = refine_plan(
            ok.copy(), n_eyes, -2, nks, -3, nkt, step, w, 4.0, 1.0
        )
        if len(has) < 1:
            continue
        rest = has
        a0, b0 = -3 * step, -4 * step
        pick = (len(rest), m, n, w, a0, b0, 1.5, 1)
        # one cast of every refined sample
        e_i, a_i, b_i = (x.astype(np.int64) for x in np.nonzero(active[rest]))
        one = rest_pick(truth[cand[rest][e_i], a_i, b_i], e_i, a_i, b_i, *pick)
        # two casts
        e1, a1, b1 = rest_first(active, rest)
        ok1 = truth[cand[rest][e1], a1, b1]
        e2, a2, b2 = rest_second(possible, rest, w, (m, n), e1, a1, b1, ok1)
        assert not (set(zip(e1, a1, b1, strict=True)) & set(zip(e2, a2, b2, strict=True)))
        e_all, a_all, b_all = (np.concatenate(x) for x in ((e1, e2), (a1, a2), (b1, b2)))
        two = rest_pick(truth[cand[rest][e_all], a_all, b_all], e_all, a_all, b_all, *pick)
        assert one[:3] == two[:3]
        if one[0] >= 0:  # the same middle sample
            assert (e_i[one[3]], a_i[one[3]], b_i[one[3]]) == (
                e_all[two[3]],
                a_all[two[3]],
                b_all[two[3]],
            )
        assert len(e_all) <= len(e_i)


def test_a_chunk_casts_its_even_samples_then_its_open_windows():
    from geom3d.visibility._search_kernels import nearest_chunk

    w = 4
    wins = np.array([[0, 0], [2, 3]], np.int64)
    state = np.zeros((6, 7), np.int8)
    fa, fb = nearest_chunk(wins, 0, 2, w, state, True)
    got = set(zip(fa.tolist(), fb.tolist(), strict=True))
    # window (0, 0) holds rows and columns 0..3, window (2, 3) rows 2..5, columns 3..6
    assert got == {(0, 0), (0, 2), (2, 0), (2, 2), (2, 4), (2, 6), (4, 4), (4, 6)}
    state[2, 4] = 2  # the second window has a sample that does not count: ruled out
    state[0, 0] = 1
    fa, fb = nearest_chunk(wins, 0, 2, w, state, False)
    got = set(zip(fa.tolist(), fb.tolist(), strict=True))
    assert got == {(a, b) for a in range(4) for b in range(4)} - {(0, 0)}
