"""The refinement plan after the coarse cast (``_search_kernels.refine_plan``): which
windows can be full, and which fine samples are cast for them."""

from __future__ import annotations

import numpy as np

from geom3d.visibility._search_kernels import nearest_windows, refine_plan, window_order
from geom3d.visibility._window_kernels import cover_windows, on_fine


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
    assert on_fine(-50, 100, 4.0, 4, 1.0)
    assert not on_fine(1, 1, 0.3, 3, 0.1)  # 1 * 0.3 != 3 * 0.1 in floats
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
        cover_windows(possible, w, out)
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


def _second_cast_by_hand(possible, rows, w, shape, e_i, a_i, b_i, ok):
    """rest_second's samples, window by window: the unknown samples of every possible
    window none of whose even samples was cast and failed, in (row, a, b) order."""
    failed = set()
    known = set()
    for e, a, b, good in zip(e_i, a_i, b_i, ok, strict=True):
        known.add((e, a, b))
        if not good:
            failed.add((e, a, b))
    need = set()
    for k, r in enumerate(rows):
        for i, j in zip(*np.nonzero(possible[r]), strict=True):
            cells = [(k, x, y) for x in range(i, i + w) for y in range(j, j + w)]
            if not any(c in failed and c[1] % 2 == 0 and c[2] % 2 == 0 for c in cells):
                need.update(c for c in cells if c not in known)
    return sorted(need)


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
        want = _second_cast_by_hand(possible, rest, w, (m, n), e1, a1, b1, ok1)
        assert list(zip(e2, a2, b2, strict=True)) == want
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


def _plan_by_hand(ok, n_eyes, ks0, nks, kt0, nkt, step, w, coarse_mm, sample_mm):
    """refine_plan's docstring, sample by sample in numpy (the reference)."""
    grid = ok.reshape(n_eyes, nks, nkt)
    cand = np.flatnonzero(grid.reshape(n_eyes, -1).any(axis=1))
    m, n = (nks + 1) * step, (nkt + 1) * step
    pm, pn = max(0, m - w + 1), max(0, n - w + 1)
    on_fine = all(
        k * coarse_mm == float(k * step) * sample_mm
        for k0, nk in ((ks0, nks), (kt0, nkt))
        for k in range(k0, k0 + nk)
    )
    actives, possibles = [], []
    for e in cand:
        padded = np.zeros((nks + 2, nkt + 2), bool)  # coarse points -1 .. nks
        padded[1:-1, 1:-1] = grid[e]
        cells = padded[:-1, :-1] | padded[1:, :-1] | padded[:-1, 1:] | padded[1:, 1:]
        active = np.kron(cells, np.ones((step, step), bool))
        possible = np.zeros((pm, pn), bool)
        for i in range(pm):
            for j in range(pn):
                possible[i, j] = active[i : i + w, j : j + w].all()
        if w >= step and on_fine:
            pruned = False
            for i in range(pm):
                for j in range(pn):
                    a, b = -(-i // step) - 1, -(-j // step) - 1  # ceil(i / step) - 1
                    if possible[i, j] and a >= 0 and b >= 0 and not grid[e, a, b]:
                        possible[i, j] = False
                        pruned = True
            if pruned:
                active = np.zeros((m, n), bool)
                for i, j in zip(*np.nonzero(possible), strict=True):
                    active[i : i + w, j : j + w] = True
        actives.append(active)
        possibles.append(possible)
    active = np.array(actives, bool).reshape(len(cand), m, n)
    possible = np.array(possibles, bool).reshape(len(cand), pm, pn)
    has = [r for r in range(len(cand)) if possible[r].any()]
    return cand, active, possible, np.array(has, np.int64)


def test_refine_plan_is_its_definition_sample_by_sample():
    rng = np.random.default_rng(23)
    for trial in range(400):
        n_eyes, nks, nkt = (int(x) for x in rng.integers(1, 6, 3))
        step = int(rng.integers(1, 6))
        w = int(rng.integers(1, 8)) if trial % 4 == 0 else step
        coarse_mm, sample_mm = (float(step), 1.0) if trial % 5 else (0.3, 0.1)
        ks0, kt0 = (int(x) for x in rng.integers(-5, 5, 2))
        ok = rng.random(n_eyes * nks * nkt) < rng.uniform(0.02, 0.9)
        args = (n_eyes, ks0, nks, kt0, nkt, step, w, coarse_mm, sample_mm)
        got = refine_plan(ok.copy(), *args)
        want = _plan_by_hand(ok, *args)
        for g, x in zip(got, want, strict=True):
            assert g.shape == x.shape and (g == x).all(), trial


def test_rest_pick_is_the_first_eye_with_a_full_window_nearest_the_centre():
    from geom3d.visibility._search_kernels import rest_pick

    rng = np.random.default_rng(29)
    w, a0, b0, half, mid = 4, -9, -13, 1.5, 1
    for trial in range(300):
        rows, m, n = int(rng.integers(1, 5)), int(rng.integers(3, 14)), int(rng.integers(3, 14))
        listed = rng.random((rows, m, n)) < 0.7  # the samples cast, and which counted
        counts = listed & (rng.random((rows, m, n)) < rng.uniform(0.5, 1.0))
        e_i, a_i, b_i = (x.astype(np.int64) for x in np.nonzero(listed))
        order = rng.permutation(len(e_i))  # in any order
        e_i, a_i, b_i = e_i[order], a_i[order], b_i[order]
        got = rest_pick(counts[e_i, a_i, b_i], e_i, a_i, b_i, rows, m, n, w, a0, b0, half, mid)
        want = (-1, -1, -1, -1)
        for k in range(rows):
            best = None
            for a in range(m - w + 1):
                for b in range(n - w + 1):
                    if counts[k, a : a + w, b : b + w].all():
                        d = (a0 + a + half) ** 2 + (b0 + b + half) ** 2
                        if best is None or d < best[0]:
                            best = (d, a, b)
            if best is not None:
                _, a, b = best
                at = np.flatnonzero((e_i == k) & (a_i == a + mid) & (b_i == b + mid))[0]
                want = (k, a, b, int(at))
                break
        assert tuple(got) == want, trial
