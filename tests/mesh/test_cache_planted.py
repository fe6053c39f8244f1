"""Things planted in the cache folder (issue 33): a folder at an entry's name.

Reading an entry opened the name and handed the descriptor to ``os.fdopen``, which
raises ``IsADirectoryError`` for a folder: a traceback on every run. Now a folder there is
a cache miss (with a warning), and the fresh entry replaces it.
"""

from __future__ import annotations

import logging

import trimesh

from geom3d.mesh import clear_memory_cache, load_mesh


def test_a_folder_at_an_entry_name_is_a_miss_and_is_replaced(tmp_path, caplog):
    path = tmp_path / "box.stl"
    trimesh.creation.box((10.0, 20.0, 30.0)).export(path)
    cache = tmp_path / "cache"
    load_mesh(path, cache_dir=cache)
    (entry,) = cache.glob("*.npz")
    entry.unlink()
    entry.mkdir()
    (entry / "inside").write_text("x")  # not empty: a plain rename could not replace it
    clear_memory_cache()
    with caplog.at_level(logging.WARNING):
        mesh = load_mesh(path, cache_dir=cache)
    assert not mesh.report.cache_hit and mesh.report.n_triangles == 12
    assert "not a regular file; re-parsing" in caplog.text
    assert entry.is_file()  # replaced by the fresh entry; nothing else left behind
    assert sorted(p.name for p in cache.iterdir()) == [entry.name]
    clear_memory_cache()
    assert load_mesh(path, cache_dir=cache).report.cache_hit
