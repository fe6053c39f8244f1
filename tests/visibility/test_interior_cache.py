"""The proof map's disk cache (geom3d.visibility.interior_cache): a hit gives the same
runs as a build, and any entry that is not exactly what geom3d wrote is rebuilt."""

from __future__ import annotations

import json
import logging
import zipfile

import numpy as np
import pytest
import trimesh

from geom3d.mesh.cache import disk_put
from geom3d.visibility.interior_cache import cached_interior, interior_key


def two_boxes():
    a = trimesh.creation.box(extents=(40, 10, 30))
    a.apply_translation((0, 0, 15))
    b = trimesh.creation.box(extents=(10, 40, 50))
    b.apply_translation((60, 0, 25))
    v = np.concatenate([a.vertices, b.vertices])
    f = np.concatenate([a.faces, b.faces + len(a.vertices)]).astype(np.int64)
    label = np.repeat([0, 1], [len(a.faces), len(b.faces)]).astype(np.int64)
    return v, f, label


def solids_of(label, calls):
    def solids():
        calls.append(1)
        return label, np.array([True, True])

    return solids


def test_a_hit_gives_the_runs_a_build_gives(tmp_path):
    v, f, label = two_boxes()
    key = interior_key(v, f, label)
    calls = []
    built, hit = cached_interior(key, v, f, solids_of(label, calls), cache_dir=tmp_path)
    assert not hit and calls == [1] and built.n_runs > 0
    again, hit = cached_interior(key, v, f, solids_of(label, calls), cache_dir=tmp_path)
    assert hit and calls == [1]  # solids were not recomputed
    for name in ("grid", "run_off", "run_lo", "run_hi", "label", "closed"):
        np.testing.assert_array_equal(getattr(again, name), getattr(built, name))
    for got, want in zip(again.tiles, built.tiles, strict=True):  # read, not binned again
        np.testing.assert_array_equal(got, want)
    assert again.tiles[1].flags.writeable and len(again.tiles[1]) >= len(f)


def test_the_key_follows_mesh_labels_and_extra():
    v, f, label = two_boxes()
    k = interior_key(v, f, label)
    assert k == interior_key(v.copy(), f.copy(), label.copy())
    v2 = v.copy()
    v2[0, 0] += 1e-9
    assert interior_key(v2, f, label) != k
    assert interior_key(v, f, label[::-1].copy()) != k
    assert interior_key(v, f, label, extra="table") != k


@pytest.mark.parametrize(
    "damage", ["truncate", "garbage", "other_key", "bad_runs", "bad_tile_tri", "bad_tile_off"]
)
def test_a_damaged_entry_is_rebuilt_with_a_warning(tmp_path, caplog, damage):
    v, f, label = two_boxes()
    key = interior_key(v, f, label)
    built, _ = cached_interior(key, v, f, solids_of(label, []), cache_dir=tmp_path)
    path = tmp_path / f"{key}.npz"
    data = path.read_bytes()
    if damage == "truncate":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "garbage":
        path.write_bytes(b"not a zip at all")
    elif damage == "other_key":
        other = interior_key(v, f, label, extra="x")
        (tmp_path / f"{other}.npz").write_bytes(data)
        path = tmp_path / f"{other}.npz"
        key = other
    else:  # written as geom3d would write them, but with runs lo > hi or bad tiles
        with zipfile.ZipFile(path) as zf:
            meta = zf.read("meta.json")
            fl = np.load(zf.open("vertices.npy"))
            it = np.load(zf.open("faces.npy"))
        flat = fl.ravel().copy()
        r = built.n_runs
        ints = it.ravel().copy()
        t_off, t_tri = built.tiles
        at = len(built.run_off) + len(built.label) + len(built.closed)
        if damage == "bad_runs":
            flat[6 : 6 + r] = flat[6 + r : 6 + 2 * r] + 1.0
        elif damage == "bad_tile_tri":  # a triangle index past the mesh
            ints[at + len(t_off) + len(t_tri) - 1] = len(f)
        else:  # offsets that fall
            ints[at + 1] = ints[at + 2] + 1
        it = ints.reshape(-1, 3)
        disk_put(path, key, key, flat.reshape(-1, 3), it, json.loads(meta)["stats"])
    calls = []
    with caplog.at_level(logging.WARNING, logger="geom3d.mesh.cache"):
        again, hit = cached_interior(key, v, f, solids_of(label, calls), cache_dir=tmp_path)
    assert not hit and calls == [1]
    assert "ignoring proof map cache entry" in caplog.text
    why = {"bad_tile_tri": "tile triangles out of range", "bad_tile_off": "tile offsets"}
    assert why.get(damage, "") in caplog.text
    np.testing.assert_array_equal(again.run_lo, built.run_lo)
    # ... and the rewritten entry is good again
    _, hit = cached_interior(key, v, f, solids_of(label, calls), cache_dir=tmp_path)
    assert hit
