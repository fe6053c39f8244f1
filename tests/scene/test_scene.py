"""Scene model: drop-to-surface, transforms, warnings, caching."""

from __future__ import annotations

import dataclasses
import logging
import time
import zipfile

import numpy as np
import pytest
from support import box, make_scene, real_meshes_dir, trooper

from geom3d.visibility.ground import GroundBlocks


def test_drop_onto_a_rooftop_and_the_table():
    scene = make_scene(
        [
            trooper("roof", [100, 100]),
            trooper("floor", [300, 300]),
            trooper("given", [100, 100, 7]),
        ],
        [box("house", [80, 80, 60], [100, 100])],
    )
    assert scene.trooper("roof").position == (100.0, 100.0, 60.0)
    assert scene.trooper("roof").dropped
    assert scene.trooper("floor").position[2] == 0.0
    assert scene.trooper("given").position[2] == 7.0 and not scene.trooper("given").dropped


def test_drop_takes_the_highest_surface_and_skips_walls():
    # a walkway deck over a low box: the deck wins; the position exactly on a wall's top
    # edge line still finds the wall top (an upward face)
    scene = make_scene(
        [trooper("a", [0, 0])],
        [box("low", [50, 50, 10], [0, 0]), box("deck", [60, 60, 4], [0, 0, 40])],
    )
    assert scene.trooper("a").position[2] == pytest.approx(44.0)


def test_yaw_then_position_transform_order():
    # a 100 x 10 box yawed 90 degrees becomes 10 wide in x, 100 long in y
    scene = make_scene([], [box("w", [100, 10, 20], [50, 60], rotation_deg=90)])
    lo, hi = scene.scenery.vertices.min(axis=0), scene.scenery.vertices.max(axis=0)
    assert np.allclose(lo, [45, 10, 0]) and np.allclose(hi, [55, 110, 20])


def test_prone_uses_base_height_and_keeps_diameter():
    scene = make_scene([trooper("p", [0, 0], silhouette=5, state=["prone"])])
    p = scene.trooper("p")
    assert (p.diameter, p.height, p.is_prone) == (40.0, 3.0, True)


def test_engagement_is_symmetric():
    scene = make_scene([trooper("a", [0, 0], engaged_with=["b"]), trooper("b", [25, 0])])
    assert scene.trooper("b").engaged_with == ("a",)
    assert scene.in_contact("a", "b")


def test_warnings_for_overlap_embedding_and_far_off_table():
    scene = make_scene(
        [
            trooper("a", [0, 0]),
            trooper("b", [10, 0]),  # overlaps a
            trooper("c", [200, 0, 0]),  # inside the block (given z)
            trooper("far", [9_000_000, 0]),  # units: a 9 km slip
        ],
        [box("block", [50, 50, 50], [200, 0])],
        table={"size": [1200, 1200]},
    )
    text = "\n".join(scene.warnings)
    assert "troopers 'a' and 'b' overlap" in text
    assert "trooper 'c' is embedded in scenery" in text
    assert (
        "trooper 'far' is 8998.8 m off the table (a unit mistake? the file says units: mm)" in text
    )
    assert "'a' is embedded" not in text


def test_no_warnings_for_a_clean_scene():
    scene = make_scene(
        [trooper("a", [0, 0]), trooper("b", [25, 0])], [box("w", [10, 10, 10], [100, 100])]
    )
    assert scene.warnings == []  # base contact is not an overlap


def test_non_blocking_scenery_is_stood_on_but_does_not_block():
    scene = make_scene(
        [trooper("a", [0, 0]), trooper("b", [300, 0], facing_deg=180), trooper("c", [150, 0])],
        [box("hedge", [10, 400, 100], [150, 0], blocks_lof=False)],
    )
    assert scene.blocking.n_triangles == 0 and scene.scenery.n_triangles == 12
    assert scene.trooper("c").position[2] == 100.0
    assert scene.line_of_fire("a", "b").lof


def test_blocking_mask_marks_the_blocking_triangles_of_the_scenery():
    scene = make_scene(
        [],
        [box("hedge", [10, 400, 100], [150, 0], blocks_lof=False), box("wall", [5, 5, 5], [0, 0])],
    )
    mask = scene.blocking_mask
    assert mask.dtype == bool and mask.shape == (scene.scenery.n_triangles,) == (24,)
    names = np.array(scene.scenery.names)[scene.scenery.element]
    assert np.array_equal(mask, names == "wall")
    assert np.array_equal(scene.blocking.faces, scene.scenery.faces[mask])


def test_visibility_cache_is_the_scenes_own_and_can_be_cleared():
    scene = make_scene([trooper("a", [0, 0]), trooper("b", [100, 0], facing_deg=180)])
    assert scene.visibility_cache == {}
    first = scene.line_of_fire("a", "b")
    assert set(scene.visibility_cache) == {("a", "b")}
    assert "_visibility_cache" not in vars(scene)
    scene.visibility_cache[("a", "b")] = (None, None)  # the cache is what LoF reads
    assert scene.line_of_fire("b", "a").reason == "blocked"
    scene.visibility_cache.clear()
    assert scene.line_of_fire("a", "b") == first


def test_scenery_cache_reuses_the_bvh():
    scenery = [box("w", [10, 10, 10], [100, 100])]
    s1 = make_scene([trooper("a", [0, 0])], scenery)
    s2 = make_scene([trooper("b", [5, 5])], scenery)
    assert not s1.load_stats.cache_hit and s2.load_stats.cache_hit
    assert s1.engine is s2.engine


@pytest.mark.realmesh
def test_drop_onto_a_scanned_landscape():
    root = real_meshes_dir()
    if root is None:
        pytest.skip("../shared/real-meshes is absent")
    from geom3d.mesh import load_mesh

    path = root / "SainteHelens_dem_crop.ply"
    lm = load_mesh(path, units="m")
    v, f = lm.vertices, lm.faces
    # pick a triangle near the middle and drop a trooper on its centroid
    tri = v[f]
    cen = tri.mean(axis=1)
    mid = np.argmin(np.linalg.norm(cen[:, :2] - np.median(cen[:, :2], axis=0), axis=1))
    x, y, z = cen[mid]
    scene = make_scene(
        [trooper("a", [float(x), float(y)], silhouette={"diameter": 25, "height": 40})],
        table={"mesh": str(path), "mesh_units": "m"},
    )
    # the base disc (r = 12.5 mm) lies inside that triangle (metres-sized): it rests on the
    # plane's highest point over the disc, z + r * |gradient| (float32 BVH at ~2 km)
    a, b, c = tri[mid]
    n = np.cross(b - a, c - a)
    grad = np.hypot(n[0], n[1]) / abs(n[2])
    assert scene.trooper("a").position[2] == pytest.approx(z + 12.5 * grad, abs=0.5)


def test_bad_mesh_error_names_the_scenario_field(tmp_path):
    from geom3d.api import load_scene
    from geom3d.core.errors import MeshError

    (tmp_path / "junk.stl").write_bytes(b"this is not a mesh")
    (tmp_path / "s.yaml").write_text(
        "format: geom3d/1\nscenery:\n  - {id: w, box: {size: [1, 1, 1]}}\n"
        "  - {id: j, mesh: junk.stl}\ntroopers: []\n"
    )
    with pytest.raises(MeshError, match=r"s\.yaml: scenery\[1\]\.mesh: junk\.stl: not an STL file"):
        load_scene(tmp_path / "s.yaml")


def _proof_map_files(cache_dir):
    return sorted(p.name for p in cache_dir.glob("interior-*.npz"))


def _same_map(a, b):
    for name in ("grid", "run_off", "run_lo", "run_hi", "label", "closed"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    for x, y in zip(a.tiles, b.tiles, strict=True):
        np.testing.assert_array_equal(x, y)


def test_prefetched_proof_map_is_the_map_read_or_built_later(tmp_path, monkeypatch, caplog):
    from geom3d.scene.scene import clear_scene_cache

    cache = tmp_path / "cache"
    monkeypatch.setenv("GEOM3D_CACHE_DIR", str(cache))
    scenery = [box("w", [20, 100, 60], [60, 0])]
    people = [trooper("a", [0, 0]), trooper("b", [120, 0], side="red")]
    clear_scene_cache()
    plain = make_scene(people, scenery)
    assert plain._built.proof_map is None  # nothing read ahead unless asked
    reference = plain.prover.interior
    assert len(_proof_map_files(cache)) == 1

    # a miss: the background read finds nothing, the prover builds the map and stores it
    for f in cache.glob("interior-*.npz"):
        f.unlink()
    clear_scene_cache()
    ahead = make_scene(people, scenery, prefetch_proofs=True)
    assert ahead._built.proof_map is not None  # started while the BVH was built
    key, found = ahead._built.proof_map.result(timeout=60)
    assert found is None and key == reference.cache_key
    _same_map(ahead.prover.interior, reference)
    assert ahead._built.proof_map is None and len(_proof_map_files(cache)) == 1

    # a hit: the map read in the background is the one the prover uses
    clear_scene_cache()
    ahead = make_scene(people, scenery, prefetch_proofs=True)
    _key, found = ahead._built.proof_map.result(timeout=60)
    assert found is not None
    assert ahead.prover.interior is found
    _same_map(found, reference)
    # the ground's blocks made with it (given to the prover), then the convex pieces
    made = GroundBlocks.from_map(found)
    assert ahead.prover._ground is ahead._built.ground is not None
    pairs = zip(dataclasses.astuple(ahead._built.ground), dataclasses.astuple(made), strict=True)
    assert all(np.array_equal(mine, theirs) for mine, theirs in pairs)
    deadline = time.monotonic() + 60
    while ahead._built.convex is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert ahead.convex_solids is ahead._built.convex and len(ahead.convex_solids) == 1

    # a damaged entry: one warning (from the background read), then rebuilt and rewritten
    (entry,) = cache.glob("interior-*.npz")
    entry.write_bytes(b"not a zip at all")
    clear_scene_cache()
    with caplog.at_level(logging.WARNING, logger="geom3d.mesh.cache"):
        ahead = make_scene(people, scenery, prefetch_proofs=True)
        _same_map(ahead.prover.interior, reference)
    assert caplog.text.count("ignoring proof map cache entry") == 1
    assert zipfile.is_zipfile(entry)

    # the scenery cached in this process: the read starts on the cached scenery, once
    again = make_scene(people, scenery, prefetch_proofs=True)
    assert again.load_stats.cache_hit and again.prover is ahead.prover
    assert again._built.proof_map is None  # the prover is made: nothing to read
    clear_scene_cache()


def test_the_provers_parts_are_made_ahead_with_the_map(tmp_path, monkeypatch):
    from geom3d.scene.ahead import settle_background
    from geom3d.scene.scene import clear_scene_cache
    from geom3d.visibility.pair import _toy_map
    from geom3d.visibility.proof import Prover, ProverParts

    monkeypatch.setenv("GEOM3D_CACHE_DIR", str(tmp_path / "cache"))
    scenery = [box("w", [20, 100, 60], [60, 0]), box("v", [40, 40, 30], [60, 120])]
    people = [trooper("a", [0, 0]), trooper("b", [120, 0], side="red")]
    clear_scene_cache()
    make_scene(people, scenery).prover  # noqa: B018  (the map, into the disk cache)
    clear_scene_cache()
    ahead = make_scene(people, scenery, prefetch_proofs=True)
    settle_background()
    _key, found = ahead._built.proof_map.result(timeout=60)
    parts = ahead._built.prover_parts
    assert parts is not None and parts.pieces is ahead.convex_solids and parts.interior is found
    prover = ahead.prover
    assert prover._tops is parts.tops and prover.boxes is parts.boxes  # not made again
    own = ProverParts.of(prover.interior, ahead.convex_solids)  # what it would have made
    np.testing.assert_array_equal(own.tops, parts.tops)
    np.testing.assert_array_equal(own.boxes.planes, parts.boxes.planes)
    # parts made with other pieces, or of another map, are not used: a prover makes its own
    other = Prover(prover.interior, None, parts=parts)
    assert other.boxes is not parts.boxes and other._tops is not parts.tops
    np.testing.assert_array_equal(other._tops, parts.tops)
    toy = _toy_map()
    assert Prover(toy, None, pieces=parts.pieces, parts=parts)._tops.shape != parts.tops.shape
    clear_scene_cache()


def test_prefetched_proof_map_error_reaches_the_prover(monkeypatch):
    import geom3d.scene.ahead as ahead_mod
    import geom3d.scene.scene as scene_mod

    def broken(built):
        raise OSError("disk on fire")

    monkeypatch.setattr(ahead_mod, "_proof_map_entry", broken)
    scene_mod.clear_scene_cache()
    scene = make_scene(
        [trooper("a", [0, 0])], [box("w", [20, 30, 40], [60, 0])], prefetch_proofs=True
    )
    with pytest.raises(OSError, match="disk on fire"):
        scene.prover  # noqa: B018
    monkeypatch.undo()  # the next ask reads again, in the foreground
    assert scene.prover.interior.certifies()
    scene_mod.clear_scene_cache()
