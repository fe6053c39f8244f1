"""Closing results cached on disk and in memory (geom3d.mesh.closing_cache)."""

from __future__ import annotations

import dataclasses
import logging
import zipfile

import numpy as np
import pytest
from support import make_scene, trooper

import geom3d.scene.scenery
from geom3d.mesh import clear_memory_cache
from geom3d.mesh.cache import disk_put
from geom3d.mesh.closing import close_downward, close_table
from geom3d.mesh.closing_cache import cached_closing, closing_key
from geom3d.scene.scene import clear_scene_cache

# an open-bottom 100 x 100 box, rim 5 mm up (1 loop, 4 open edges, 8 curtain triangles)
V = np.array(
    [[0, 0, 5], [100, 0, 5], [100, 100, 5], [0, 100, 5],
     [0, 0, 60], [100, 0, 60], [100, 100, 60], [0, 100, 60]], float,
)  # fmt: skip
F = np.array(
    [[4, 5, 6], [4, 6, 7], [0, 1, 5], [0, 5, 4], [1, 2, 6],
     [1, 6, 5], [2, 3, 7], [2, 7, 6], [3, 0, 4], [3, 4, 7]], np.int64,
)  # fmt: skip


def fresh():
    clear_memory_cache()
    clear_scene_cache()


def test_key_depends_on_geometry_floor_and_kind():
    k = closing_key("curtains", V, F, "z=0")
    assert k == closing_key("curtains", V.copy(), F.copy(), "z=0")
    moved = V + [0, 0, 1e-9]
    assert len({k, closing_key("curtains", moved, F, "z=0"), closing_key("table", V, F, "z=0"),
                closing_key("curtains", V, F, "z=1")}) == 4  # fmt: skip


def test_disk_hit_is_identical_and_not_recomputed(tmp_path):
    key = closing_key("curtains", V, F, "z=0")
    v1, f1, r1, hit = cached_closing(key, lambda: close_downward(V, F, 0.0), tmp_path)
    assert not hit and r1.curtain_triangles == 8 and len(f1) == 8
    assert (tmp_path / f"{key}.npz").is_file()
    fresh()

    def boom():
        raise AssertionError("recomputed")

    v2, f2, r2, hit = cached_closing(key, boom, tmp_path)
    assert hit and v2.tobytes() == v1.tobytes() and f2.tobytes() == f1.tobytes()
    assert dataclasses.asdict(r2) == dataclasses.asdict(r1)
    assert not v2.flags.writeable
    # and from memory, without the file
    (tmp_path / f"{key}.npz").unlink()
    v3, _, r3, hit = cached_closing(key, boom, tmp_path)
    assert hit and v3.tobytes() == v1.tobytes() and r3 is not r2


def test_table_closing_round_trips(tmp_path):
    key = closing_key("table", V, F, "below_z=0.0")
    v1, f1, r1, _ = cached_closing(key, lambda: close_table(V, F, below_z=0.0), tmp_path)
    fresh()
    v2, f2, r2, hit = cached_closing(key, lambda: close_table(V, F, below_z=0.0), tmp_path)
    assert hit and (v1.tobytes(), f1.tobytes()) == (v2.tobytes(), f2.tobytes())
    assert r2 == r1 and r2.floating_fragments is None and r2.cap_triangles == 2


def tamper_byte(path, member):
    """Flip one data byte of ``member`` inside the stored zip (its CRC then fails)."""
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as zf:
        info = zf.getinfo(member)
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    data[start + info.file_size - 1] ^= 0xFF
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("how", ["flip", "wrong_report", "other_key", "garbage", "fifo"])
def test_tampered_entry_is_ignored_and_rewritten(tmp_path, caplog, how):
    key = closing_key("curtains", V, F, "z=0")
    good = cached_closing(key, lambda: close_downward(V, F, 0.0), tmp_path)
    path = tmp_path / f"{key}.npz"
    fresh()
    if how == "flip":
        tamper_byte(path, "vertices.npy")
    elif how == "wrong_report":  # well-formed, but the report does not count these faces
        d = dataclasses.asdict(good[2]) | {"curtain_triangles": 7}
        stats = {"n_vertices": len(good[0]), "n_triangles": len(good[1]), "report": d}
        disk_put(path, key, key, good[0], good[1], stats)
    elif how == "other_key":  # a valid entry of another mesh copied under this name
        other = closing_key("curtains", V + 1.0, F, "z=0")
        cached_closing(other, lambda: close_downward(V + 1.0, F, 0.0), tmp_path)
        fresh()
        path.write_bytes((tmp_path / f"{other}.npz").read_bytes())
    elif how == "garbage":
        path.write_bytes(b"PK\x03\x04 not a zip")
    else:
        import os

        path.unlink()
        os.mkfifo(path)
    calls = []

    def compute():
        calls.append(1)
        return close_downward(V, F, 0.0)

    with caplog.at_level(logging.WARNING):
        v, f, rep, hit = cached_closing(key, compute, tmp_path)
    assert not hit and calls == [1]
    assert "ignoring closing cache entry" in caplog.text
    assert v.tobytes() == good[0].tobytes() and f.tobytes() == good[1].tobytes()
    assert rep == good[2]
    if how != "fifo":  # rewritten: the next fresh process hits it
        fresh()
        assert cached_closing(key, compute, tmp_path)[3] and calls == [1]


def test_scene_warm_load_reuses_closing_and_answers_the_same(tmp_path, monkeypatch):
    path = tmp_path / "shell.obj"
    lines = [f"v {x:g} {y:g} {z:g}" for x, y, z in V]
    lines += [f"f {a + 1} {b + 1} {c + 1}" for a, b, c in F]
    path.write_text("\n".join(lines) + "\n")
    ts = [trooper("a", [-40, 50]), trooper("b", [140, 50], side="red", facing_deg=180)]
    item = {"id": "s", "mesh": str(path), "position": [0, 0, 0]}
    fresh()
    cold = make_scene(ts, [item])
    cold_doc = [r.to_dict() for r in cold.lof_matrix()]
    fresh()

    def boom(*a, **k):
        raise AssertionError("closing recomputed on a warm load")

    monkeypatch.setattr(geom3d.scene.scenery, "close_winding", boom)
    warm = make_scene(ts, [item])
    for a, b in ((cold.scenery, warm.scenery), (cold.blocking, warm.blocking)):
        assert a.vertices.tobytes() == b.vertices.tobytes()
        assert a.faces.tobytes() == b.faces.tobytes()
        assert a.element.tobytes() == b.element.tobytes()
    assert cold.closing_mask.tobytes() == warm.closing_mask.tobytes()
    assert warm.closing_mask.sum() == 12  # the rim is its base: 8 curtain + 4 floor triangles
    assert [r.to_dict() for r in warm.lof_matrix()] == cold_doc
    assert warm.scan_report() == cold.scan_report() and warm.warnings == cold.warnings
