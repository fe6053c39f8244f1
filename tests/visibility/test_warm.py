"""warm_kernels (geom3d.visibility.pair): it runs the proofs', occluders', search's and
the engine's segment query's compiled kernels with exactly the argument types of a real
matrix, so that numba's cache loads them ahead of the matrix, and answers nothing."""

from __future__ import annotations

import numba
import pytest
from support import box, make_scene, trooper

import geom3d.raycast.embree as embree_mod  # EmbreeEngine.warm and its queries
import geom3d.visibility.apparent as apparent_mod
import geom3d.visibility.cast as cast_mod
import geom3d.visibility.convex as convex_mod
import geom3d.visibility.ground as ground_mod
import geom3d.visibility.interior as interior_mod
import geom3d.visibility.proof as proof_mod
import geom3d.visibility.proof_trees as proof_trees_mod
import geom3d.visibility.search as search_mod
from geom3d.adjudication import lof
from geom3d.scene.scene import Scene
from geom3d.visibility import warm_kernels
from geom3d.visibility.convex import NO_SOLIDS

#: (module that calls it, kernel name) for every kernel the warm-up is there to load
KERNELS = [
    (cast_mod, "cull_kernel"),
    (cast_mod, "hidden_kernel"),
    (interior_mod, "cylinder_free"),
    (interior_mod, "column_parity"),
    (proof_mod, "prove_bundles"),
    (proof_mod, "segment_hits_cylinders"),
    (proof_trees_mod, "settled_eyes"),
    (search_mod, "search_clear"),
    (apparent_mod, "view_frames"),
    (embree_mod, "occluded_kernel"),
    (convex_mod, "bundle_meets"),
    (convex_mod, "corners_hidden"),
    (convex_mod, "near_pieces"),
    (convex_mod, "segment_blocked"),
    (ground_mod, "ground_blocks"),
    (ground_mod, "ground_profile"),
    (ground_mod, "ground_hidden"),
]


def _record(monkeypatch):
    """Record the numba argument types of every call to the kernels."""
    seen: dict[str, set] = {name: set() for _, name in KERNELS}
    for mod, name in KERNELS:
        real = getattr(mod, name)

        def spy(*args, _real=real, _name=name):
            seen[_name].add(tuple(numba.typeof(x) for x in args))
            return _real(*args)

        monkeypatch.setattr(mod, name, spy)
    return seen


def _scene():
    """Nine troopers (36 pairs) round walls on platforms: proofs, walls and occluders."""
    at = [(0, 0), (120, 0), (0, -110), (120, -110), (60, 90), (-60, -50), (200, 40)]
    at += [(60, -200), (-80, 80)]
    people = [
        trooper(f"t{i}", [x, y], side="red" if i % 2 else "blue") for i, (x, y) in enumerate(at)
    ]
    walls = [
        box("w", [20, 300, 80], [60, 0]),
        box("pa", [40, 40, 10], [0, 0]),
        box("pb", [40, 40, 10], [120, 0]),
        box("w2", [200, 8, 50], [60, -160], rotation_deg=20.0),
    ]
    return make_scene(people, walls)


@pytest.mark.parametrize("convex", [True, False], ids=["convex", "proofs"])
@pytest.mark.parametrize("own_map", [True, False], ids=["scene-map", "toy-map"])
def test_warm_up_calls_every_kernel_with_the_types_of_a_real_matrix(monkeypatch, own_map, convex):
    """On the scene's own map, and on the one-triangle map it uses before any mesh is
    loaded: the types are every map's. The walls are boxes, which settle most pairs as
    convex pieces; without them (``proofs``) the bundle proofs do that work."""
    if not convex:
        monkeypatch.setattr(Scene, "convex_solids", property(lambda self: NO_SOLIDS))
    scene = _scene()
    prover = scene.prover
    seen = _record(monkeypatch)
    warm_kernels(prover.interior if own_map else None)
    warmed = {k: set(v) for k, v in seen.items()}
    assert all(warmed.values()), {k for k, v in warmed.items() if not v}
    for v in seen.values():
        v.clear()
    scene.visibility_cache.clear()
    lof.lof_matrix(scene, threads=1)
    used = {k: v for k, v in seen.items() if v}
    if convex:  # the boxes settle what the proofs would (no proof, so no probe ray)
        assert {"bundle_meets", "corners_hidden", "near_pieces", "segment_blocked"} <= set(used)
    else:
        assert {"prove_bundles", "settled_eyes", "hidden_kernel", "cull_kernel"} <= set(used)
        assert "occluded_kernel" in used
    assert {"search_clear", "view_frames"} <= set(used)
    for name, sigs in used.items():
        assert sigs <= warmed[name], (name, sigs - warmed[name])


def test_warm_up_changes_no_answer():
    scene = _scene()
    before = lof.lof_matrix(scene, threads=1)
    warm_kernels(scene.prover.interior)
    scene.visibility_cache.clear()
    assert lof.lof_matrix(scene, threads=1) == before


@pytest.mark.parametrize("solid", [True, False])
def test_warm_up_runs_on_a_map_with_and_without_runs(solid):
    scene = make_scene([trooper("a", [0, 0])], [box("w", [20, 30, 40], [60, 0], blocks_lof=solid)])
    warm_kernels(scene.prover.interior)  # no error, on an empty map too
    assert scene.prover.interior.certifies() == solid


def test_a_scene_for_a_matrix_starts_loading_the_kernels_once_per_process(monkeypatch):
    """``prefetch_proofs`` starts the warm-up in its own thread before the meshes load;
    later scenes in the process do not start it again, and a scene not built for a
    matrix never does."""
    import threading

    import geom3d.scene.ahead as scene_mod

    ran = []
    monkeypatch.setattr(scene_mod, "_WARM", {"started": False})
    name = threading.current_thread
    monkeypatch.setattr(scene_mod, "warm_kernels", lambda: ran.append(name().name))
    people = [trooper("a", [0, 0]), trooper("b", [100, 0])]
    make_scene(people, [box("w", [20, 30, 40], [50, 0])])
    assert not scene_mod._WARM["started"]
    for _ in range(2):
        make_scene(people, [box("w", [20, 30, 40], [50, 0])], prefetch_proofs=True)
    for t in threading.enumerate():
        if t.name == "geom3d-warm-kernels":
            t.join(10)
    assert ran == ["geom3d-warm-kernels"]


def test_a_failed_warm_up_is_only_logged(monkeypatch, caplog):
    """The warm-up is a head start: an error there is left to the matrix, which calls the
    same kernels itself; no traceback from the thread."""
    import logging

    import geom3d.scene.ahead as scene_mod

    def broken():
        raise RuntimeError("no kernels today")

    monkeypatch.setattr(scene_mod, "warm_kernels", broken)
    with caplog.at_level(logging.DEBUG, logger="geom3d.scene.ahead"):
        scene_mod._warm_quietly()
    assert "loading the Line of Fire kernels ahead failed" in caplog.text
    assert "no kernels today" in caplog.text


def test_without_the_search_the_warm_up_leaves_search_clear_alone(monkeypatch):
    # the first run's preparation compiles the search in a child process and warms the
    # rest here with search=False: this process must not compile it a second time
    seen = _record(monkeypatch)
    warm_kernels(search=False)
    assert not seen["search_clear"]
    assert seen["prove_bundles"] and seen["settled_eyes"] and seen["occluded_kernel"]
    warm_kernels()
    assert seen["search_clear"]


def test_the_preparation_waits_for_the_search_before_any_step_that_searches():
    # the steps before the wait warm proofs and the interior map only (see the test
    # above); Line of Fire and the templates, which search, come after it
    from geom3d.commands._prepare import _steps

    labels = [label for label, _ in _steps()]
    wait = labels.index("Line of Fire search")
    assert labels[:wait] == ["scenery and standing", "blocking proofs"]
    assert set(labels[wait + 1 :]) == {"Line of Fire and areas", "templates"}
