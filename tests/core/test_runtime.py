"""What the command line does to its own process (geom3d.core.runtime)."""

from __future__ import annotations

import gc
import weakref

import pytest
import yaml

from geom3d.cli import main
from geom3d.core.runtime import settle_heap


class _Node:
    pass


def _cycle() -> weakref.ref:
    a, b = _Node(), _Node()
    a.other, b.other = b, a
    return weakref.ref(a)


def test_settle_heap_freezes_what_is_alive_and_collects_what_comes_after():
    gc.disable()  # no automatic pass between the steps below
    try:
        before = _cycle()  # unreachable already, not yet collected: frozen with the rest
        settle_heap()
        assert gc.get_freeze_count() > 0
        after = _cycle()
        gc.collect()
        assert after() is None  # made after: collected as usual
        assert before() is not None  # frozen: the collector no longer walks it
        gc.unfreeze()
        gc.collect()
        assert before() is None
    finally:
        gc.enable()


@pytest.mark.parametrize("command", ["lof", "attack", "survey"])
def test_the_command_line_settles_the_heap_once_the_scene_is_loaded(capsys, tmp_path, command):
    doc = {
        "format": "geom3d/1",
        "units": "mm",
        "table": {"size": [200, 100]},
        "troopers": [
            {"id": "a", "side": "blue", "position": [20, 50], "silhouette": 2},
            {"id": "b", "side": "red", "position": [120, 50], "silhouette": 2},
        ],
    }
    p = tmp_path / "two.yaml"
    p.write_text(yaml.safe_dump(doc))
    extra = ["--spacing", "100", "--out", str(tmp_path / "out")] if command == "survey" else []
    gc.unfreeze()
    assert gc.get_freeze_count() == 0
    assert main([command, str(p), *extra, "--quiet"]) == 0
    capsys.readouterr()
    assert gc.get_freeze_count() > 0


def test_workers_import_the_same_geom3d(monkeypatch, tmp_path):
    """A fork server started after a chdir found another geom3d through ``''`` on its
    path (Python 3.11's ignores the ``sys.path`` it is handed): the package's own folder
    goes first on ``sys.path`` and ``PYTHONPATH`` (issue 33)."""
    import os
    import sys
    from pathlib import Path

    import geom3d
    from geom3d.core.runtime import same_code_in_workers

    root = str(Path(geom3d.__file__).resolve().parent.parent)
    monkeypatch.setattr(sys, "path", ["", *sys.path])
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(["/elsewhere", root]))
    monkeypatch.chdir(tmp_path)
    same_code_in_workers()
    same_code_in_workers()  # idempotent
    assert sys.path[0] == root and sys.path.count(root) >= 1
    assert os.environ["PYTHONPATH"].split(os.pathsep) == [root, "/elsewhere"]
