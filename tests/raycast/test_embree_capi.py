"""The Embree C-API path (compiled, without the GIL) answers exactly as embreex does."""

from __future__ import annotations

import threading

import numpy as np
import pytest
import trimesh

from geom3d.raycast import _embree_capi
from geom3d.raycast.embree import EmbreeEngine
from geom3d.terrain import synthetic_scanned_table


def _engines(v, f, monkeypatch):
    fast = EmbreeEngine(v, f)
    with monkeypatch.context() as m:
        m.setattr(_embree_capi, "load", lambda: None)
        slow = EmbreeEngine(v, f)
    return fast, slow


@pytest.fixture(scope="module")
def table():
    mesh = synthetic_scanned_table(20_000, seed=3)
    return np.asarray(mesh.vertices), np.asarray(mesh.faces)


def _segments(v, rng, n):
    lo, hi = v.min(axis=0), v.max(axis=0) + [0, 0, 40]
    o = rng.uniform(lo, hi, (n, 3))
    e = rng.uniform(lo, hi, (n, 3))
    k = n // 4  # grazing the floor, and ending exactly on vertices
    o[:k, 2] = rng.uniform(-0.4, 0.4, k)
    e[:k, 2] = rng.uniform(-0.4, 0.4, k)
    e[k : 2 * k] = v[rng.integers(0, len(v), k)]
    return o, e


def test_the_c_api_is_used_here():
    assert _embree_capi.load() is not None  # the embreex wheel ships its Embree


def test_c_api_and_embreex_agree_on_every_segment(table, monkeypatch):
    v, f = table
    fast, slow = _engines(v, f, monkeypatch)
    assert fast._cscene is not None and slow._scene is not None
    rng = np.random.default_rng(5)
    o, e = _segments(v, rng, 40_000)
    a, b = fast.occluded(o, e), slow.occluded(o, e)
    assert 0.2 < a.mean() < 0.9
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(fast.occluded_segments(o, e), a)
    d1, t1 = fast.first_hit(o, e)
    d2, t2 = slow.first_hit(o, e)
    np.testing.assert_array_equal(t1, t2)
    np.testing.assert_array_equal(d1, d2)
    assert ((t1 >= 0) == a).mean() > 0.99  # a hit within the segment is a blocked segment


def test_short_and_empty_inputs(monkeypatch):
    box = trimesh.creation.box((10, 10, 10))
    fast, slow = _engines(box.vertices, box.faces, monkeypatch)
    o = np.array([[-20.0, 0, 0], [0, 0, 0], [-5.0, 0, 0]])
    e = np.array([[20.0, 0, 0], [0, 0, 1e-9], [-5.0, 0, 0]])  # through, tiny, zero length
    assert fast.occluded(o, e).tolist() == slow.occluded(o, e).tolist() == [True, False, False]
    assert fast.occluded_segments(np.zeros((0, 3)), np.zeros((0, 3))).shape == (0,)
    d, t = fast.first_hit(o[:1], e[:1])
    assert t[0] >= 0 and d[0] == pytest.approx(15.0, abs=1e-4)


def test_threads_cast_at_once_with_the_same_answers(table):
    v, f = table
    eng = EmbreeEngine(v, f)
    o, e = _segments(v, np.random.default_rng(8), 20_000)
    want = eng.occluded_segments(o, e)
    got = [None, None]

    def work(i):
        got[i] = eng.occluded_segments(o, e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for g in got:
        np.testing.assert_array_equal(g, want)


def test_packets_answer_as_single_rays(table, monkeypatch):
    # the patch search casts fans: one eye, neighbouring samples; packets of them (with
    # zero-length segments among them, and a last packet part full) answer as embreex's
    # single rays do
    from geom3d.raycast._embree_capi import packet_width

    assert packet_width() in (4, 8, 16)
    v, f = table
    fast, slow = _engines(v, f, monkeypatch)
    rng = np.random.default_rng(9)
    lo, hi = v.min(axis=0), v.max(axis=0)
    o, e = [], []
    for _ in range(300):
        eye = rng.uniform(lo, hi + [0, 0, 30])
        aim = rng.uniform(lo, hi + [0, 0, 30])
        n = int(rng.integers(1, 90))
        o.append(np.repeat(eye[None], n, axis=0))
        e.append(aim + rng.normal(scale=4.0, size=(n, 3)))
    o, e = np.concatenate(o), np.concatenate(e)
    e[::37] = o[::37]  # zero length: clear, never cast
    a, b = fast.occluded(o, e), slow.occluded(o, e)
    assert len(o) % packet_width() and 0.2 < a.mean() < 0.9 and not a[::37].any()
    np.testing.assert_array_equal(a, b)


def test_the_scene_lent_to_kernels_is_one_named_record():
    # what compiled kernels take of the engine: one CompiledScene argument, with the
    # recentring offset and the ray epsilon the engine's own queries use
    from geom3d.core.tolerances import RAY_EPS_MM
    from geom3d.raycast import CompiledScene

    v = np.array([[10.0, 0.0, 0.0], [12.0, 0.0, 0.0], [10.0, 2.0, 4.0]])
    engine = EmbreeEngine(v, np.array([[0, 1, 2]]))
    scene = engine.compiled_scene()
    assert isinstance(scene, CompiledScene)
    assert scene.address != 0 and scene.width in (4, 8, 16) and scene.ray_eps == RAY_EPS_MM
    assert np.allclose(scene.offset, engine.bounds.mean(axis=0))
    assert EmbreeEngine(np.zeros((0, 3)), np.zeros((0, 3), int)).compiled_scene() is None
