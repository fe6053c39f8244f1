"""geom3d.mesh.digest: the one content digest (parse cache keys, the scene's scenery key)."""

from __future__ import annotations

import hashlib
import os

import numpy as np
import trimesh
from support import make_scene

from geom3d.mesh import content_digest, file_digest


def _gltf(folder, extents, *, buffers_only=False):
    """Write ``model.gltf`` with its buffers as separate files; returns its path.

    ``buffers_only``: rewrite only the ``.bin`` buffers (same layout, other bytes).
    """
    for name, data in trimesh.creation.box(extents=extents).export(file_type="gltf").items():
        if not buffers_only or name.endswith(".bin"):
            (folder / name).write_bytes(data)
    return folder / "model.gltf"


def test_digest_is_the_sha256_of_the_bytes(tmp_path):
    path = tmp_path / "piece.stl"
    data = os.urandom(3 << 20)  # more than one read chunk
    path.write_bytes(data)
    want = hashlib.sha256(data).hexdigest()
    assert content_digest(path) == content_digest(path, data) == file_digest(path) == want


def test_file_digest_follows_a_changed_file(tmp_path):
    path = tmp_path / "piece.stl"
    path.write_bytes(b"one")
    first = file_digest(path)
    path.write_bytes(b"three")
    assert file_digest(path) != first
    assert file_digest(path) == hashlib.sha256(b"three").hexdigest()


def test_gltf_digest_covers_its_external_buffers(tmp_path):
    path = _gltf(tmp_path, (10.0, 20.0, 40.0))
    text = path.read_bytes()
    before = file_digest(path)
    assert before != hashlib.sha256(text).hexdigest()  # the buffers are part of it
    _gltf(tmp_path, (20.0, 80.0, 40.0), buffers_only=True)
    assert path.read_bytes() == text
    assert file_digest(path) != before
    assert file_digest(path) == content_digest(path, text)


def test_scenery_cache_key_sees_a_changed_gltf_buffer(tmp_path):
    path = _gltf(tmp_path, (10.0, 20.0, 40.0))
    piece = {"id": "p", "mesh": path.name, "position": [0, 0, 0]}
    scene = make_scene([], [piece], base_dir=tmp_path)
    again = make_scene([], [piece], base_dir=tmp_path)
    assert again.load_stats.cache_hit
    _gltf(tmp_path, (20.0, 80.0, 40.0), buffers_only=True)
    bigger = make_scene([], [piece], base_dir=tmp_path)
    assert not bigger.load_stats.cache_hit
    assert np.ptp(bigger.scenery.vertices[:, 0]) == 2 * np.ptp(scene.scenery.vertices[:, 0])


def test_array_digest_separates_dtype_shape_and_bytes():
    from geom3d.mesh.digest import array_digest

    v = np.arange(12, dtype=np.float64).reshape(4, 3)
    f = np.array([[0, 1, 2], [1, 2, 3]], dtype=np.int64)
    key = array_digest(v, f)
    assert len(key) == 32 and int(key, 16) >= 0  # 128 bits, in hex
    assert key == array_digest(v.copy(), f.copy())
    assert key == array_digest(np.asfortranarray(v), f)  # C order is what counts
    others = {
        array_digest(v.astype(np.float32), f),
        array_digest(v.reshape(3, 4), f),
        array_digest(v.reshape(-1), f),
        array_digest(f, v),
        array_digest(v),
        array_digest(v, f[:1]),
        array_digest(np.where(v == 0, -0.0, v), f),  # -0.0: other bytes
        array_digest(v + np.eye(4, 3) * 1e-12, f),
    }
    assert key not in others and len(others) == 8
    # the dtype and shape are part of the stream: these bytes alone give another key
    assert array_digest(v.view(np.int64), f) != key
