"""The reference backend (numpy brute force) against Embree: the same segment answers on
random meshes, and the same Line of Fire and attack documents on the bundled scenarios,
whose search then runs through ``occluded_segments`` instead of the compiled casts."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from geom3d.api import build_scene
from geom3d.commands.answers import attack_report, lof_report
from geom3d.core.output import dumps_json
from geom3d.raycast import BACKEND_ENV, make_engine, selected_backend
from geom3d.raycast.compiled import KERNEL_CASTS_MODULE, lent_scene
from geom3d.raycast.reference import ReferenceEngine
from geom3d.scenario import load_scenario
from geom3d.scene.scene import clear_scene_cache

MESHES = Path(__file__).resolve().parents[2] / "meshes"
#: the small bundled scenes (the reference backend takes under a second on each)
SCENARIOS = sorted((MESHES / "scenarios").glob("*.yaml"))
ATTACKS = sorted((MESHES / "scenarios" / "attacks").glob("*.yaml"))


def _random_mesh(rng, n_tri=200):
    """Random triangles in a 100 mm cube (seeded)."""
    centres = rng.uniform(0, 100, size=(n_tri, 1, 3))
    v = (centres + rng.normal(0, 8, size=(n_tri, 3, 3))).reshape(-1, 3)
    return v, np.arange(3 * n_tri).reshape(-1, 3)


def test_segments_agree_with_embree_on_random_triangles():
    rng = np.random.default_rng(45)
    v, f = _random_mesh(rng)
    emb, ref = make_engine(v, f, "embree"), make_engine(v, f, "reference")
    o = rng.uniform(-10, 110, size=(3000, 3))
    e = rng.uniform(-10, 110, size=(3000, 3))
    hit = emb.occluded(o, e)
    assert 0.2 < hit.mean() < 0.9  # both kinds, plenty of each
    assert np.array_equal(ref.occluded(o, e), hit)
    assert np.array_equal(ref.occluded_segments(o, e), hit)
    d_emb, t_emb = emb.first_hit(o, e)
    d_ref, t_ref = ref.first_hit(o, e)
    assert np.array_equal(t_ref, t_emb)
    assert np.allclose(d_ref[hit], d_emb[hit], atol=1e-4) and np.all(np.isinf(d_ref[~hit]))


def test_reference_lends_no_scene_to_the_compiled_search():
    v, f = _random_mesh(np.random.default_rng(1), 4)
    assert lent_scene(make_engine(v, f, "reference")) is None
    assert lent_scene(make_engine(v, f, "embree")) is not None
    assert make_engine(v, f, "embree").kernel_casts == KERNEL_CASTS_MODULE

    class OwnCasts(ReferenceEngine):  # a scene record, but casts the kernels lack
        kernel_casts = "somewhere.else"

        def compiled_scene(self):
            raise AssertionError("never asked: its casts are not compiled into the search")

    assert lent_scene(OwnCasts(v, f)) is None


def _documents(path: Path, backend: str, monkeypatch) -> str:
    monkeypatch.setenv(BACKEND_ENV, backend)
    assert selected_backend() == backend
    clear_scene_cache()
    scene = build_scene(load_scenario(path))
    engine = type(scene.engine).__name__ if scene.engine is not None else None
    assert engine in (None, "EmbreeEngine" if backend == "embree" else "ReferenceEngine")
    doc = {"lof": lof_report(scene)}
    if scene.scenario.attacks:
        doc["attack"] = attack_report(scene)
    return dumps_json(doc)


@pytest.mark.parametrize("path", SCENARIOS + ATTACKS, ids=lambda p: p.name)
def test_bundled_scenarios_answer_the_same(path, monkeypatch):
    embree = _documents(path, "embree", monkeypatch)
    assert _documents(path, "reference", monkeypatch) == embree
