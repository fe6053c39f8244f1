"""``render``'s native part runs in a child (issue 44 item 5, SPEC 13.4): a crash there
is one error line (exit 2), not a segfault of the command, and nothing is written.
Before, ``render --view iso`` under ``ulimit -v`` died with exit 139 and no message."""

from __future__ import annotations

import os
import signal
import types

import pytest
import yaml

from geom3d.cli import main
from geom3d.commands._isolate import RendererCrashed, run_isolated
from geom3d.core.errors import Geom3dError, UsageError


def _segfault():
    os.kill(os.getpid(), signal.SIGSEGV)


def test_run_isolated_returns_the_answer_and_turns_a_crash_into_an_error():
    assert run_isolated(lambda: {"path": "x.png"}, "drawing x") == {"path": "x.png"}
    with pytest.raises(RendererCrashed) as err:
        run_isolated(_segfault, "drawing the iso view of s.yaml")
    assert str(err.value) == "the renderer crashed (SIGSEGV) while drawing the iso view of s.yaml"

    def bad():
        raise UsageError("--out: cannot write x")

    with pytest.raises(Geom3dError, match=r"^--out: cannot write x$"):
        run_isolated(bad, "drawing x")

    def bug():
        raise ZeroDivisionError("oops")

    with pytest.raises(RuntimeError, match="the renderer failed while drawing x: Zero"):
        run_isolated(bug, "drawing x")


@pytest.fixture
def scenario(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    doc = {"format": "geom3d/1", "units": "mm", "ruleset": "infinity",
           "table": {"size": [600, 600]},
           "scenery": [{"id": "w", "box": {"size": [10, 100, 60]}, "position": [300, 300]}],
           "troopers": [{"id": "a", "side": "blue", "position": [100, 300]},
                        {"id": "b", "side": "red", "position": [500, 300]}]}  # fmt: skip
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(doc))
    return tmp_path


def test_a_renderer_crash_is_one_line_and_writes_nothing(scenario, monkeypatch, capsys):
    import geom3d.commands.render as render

    def crashing_render(scene, out, **options):
        with open(out, "wb") as fh:  # as far as a crash may get: not at the output path
            fh.flush()
        os.remove(out)
        _segfault()

    fake = types.SimpleNamespace(render_to_file=crashing_render)
    monkeypatch.setattr(render, "renderer", lambda: fake)
    rc = main(["render", "s.yaml", "--view", "iso", "--out", "out.png", "--quiet"])
    out, err = capsys.readouterr()
    assert (rc, out) == (2, "")
    assert err == (
        "geom3d: error: the renderer crashed (SIGSEGV) while drawing the iso view of s.yaml\n"
    )
    assert not (scenario / "out.png").exists()
    assert sorted(p.name for p in scenario.iterdir()) == ["s.yaml"]


def test_a_real_render_still_writes_its_file(scenario, capsys):
    pytest.importorskip("pyvista")
    assert main(["render", "s.yaml", "--out", "plan.png"]) == 0
    assert capsys.readouterr().out == "plan.png\n"
    assert (scenario / "plan.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
