"""What the command line does to its own process (geom3d.core.runtime)."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import weakref

import pytest
import yaml

from geom3d.cli import main
from geom3d.core import runtime
from geom3d.core.runtime import HUGE_PAGES_ENV, no_huge_pages, settle_heap

_TWO = {
    "format": "geom3d/1",
    "units": "mm",
    "table": {"size": [200, 100]},
    "troopers": [
        {"id": "a", "side": "blue", "position": [20, 50], "silhouette": 2},
        {"id": "b", "side": "red", "position": [120, 50], "silhouette": 2},
    ],
}


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
    p = tmp_path / "two.yaml"
    p.write_text(yaml.safe_dump(_TWO))
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


_PROBE = """
import ctypes, subprocess, sys
from geom3d.core.runtime import no_huge_pages
ctypes.CDLL(None).prctl(41, 0, 0, 0, 0)  # as a fresh process (this test's may be off already)
off = no_huge_pages()
child = subprocess.run(
    [sys.executable, "-c", "import ctypes; print(ctypes.CDLL(None).prctl(42, 0, 0, 0, 0))"],
    capture_output=True, text=True, check=True,
).stdout.strip()
print(off, ctypes.CDLL(None).prctl(42, 0, 0, 0, 0), child)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl is Linux's")
@pytest.mark.parametrize(
    ("env", "expected"), [(None, "True 1 1"), ("0", "True 1 1"), ("1", "False 0 0")]
)
def test_huge_pages_are_off_in_the_process_and_its_workers_unless_asked_for(env, expected):
    # PR_GET_THP_DISABLE (42) reads the flag back, in the process and in a child it starts
    environ = {k: v for k, v in os.environ.items() if k != HUGE_PAGES_ENV}
    if env is not None:
        environ[HUGE_PAGES_ENV] = env
    out = subprocess.run(
        [sys.executable, "-c", _PROBE], capture_output=True, text=True, env=environ, check=True
    )
    assert out.stdout.split("\n")[0] == expected


def test_huge_pages_are_left_alone_off_linux(monkeypatch):
    monkeypatch.setattr(sys, "platform", "darwin")
    assert no_huge_pages() is False


def test_the_command_line_turns_huge_pages_off_before_a_command_but_not_for_help(
    monkeypatch, capsys, tmp_path
):
    calls = []
    monkeypatch.setattr(runtime, "no_huge_pages", lambda: calls.append(1) or True)
    assert main([]) == 0
    assert calls == []
    p = tmp_path / "two.yaml"
    p.write_text(yaml.safe_dump(_TWO))
    assert main(["lof", str(p), "--quiet"]) == 0
    capsys.readouterr()
    assert calls == [1]


_EXIT_SCRIPT = """
import atexit, sys, threading, time
from pathlib import Path
from geom3d.core.runtime import exit_process
out = Path(sys.argv[1])
atexit.register(lambda: out.write_text(out.read_text() + "atexit;"))
out.write_text("")
if sys.argv[2] == "thread":  # a thread a normal exit waits for
    def late():
        time.sleep(0.3)
        out.write_text(out.read_text() + "joined;")
    threading.Thread(target=late).start()
sys.stdout.write("no newline, still buffered")
exit_process(3)
"""


@pytest.mark.parametrize("mode", ["alone", "thread"])
def test_exit_process_runs_exit_handlers_flushes_and_keeps_the_code(tmp_path, mode):
    log = tmp_path / "log.txt"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    r = subprocess.run(
        [sys.executable, "-c", _EXIT_SCRIPT, str(log), mode],
        capture_output=True, text=True, env=env, timeout=60,
    )  # fmt: skip
    assert r.returncode == 3
    assert r.stdout == "no newline, still buffered"
    assert r.stderr == ""
    # with a non-daemon thread alive the exit is a normal one: the thread is waited for
    assert log.read_text() == ("atexit;" if mode == "alone" else "joined;atexit;")


def test_console_script_and_module_answer_the_same(tmp_path):
    path = tmp_path / "two.yaml"
    path.write_text(yaml.safe_dump(_TWO))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    cmd = [sys.executable, "-m", "geom3d", "lof", str(path), "--format", "json", "--quiet"]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    assert '"lof": true' in r.stdout and r.stdout.endswith("}\n")
    bad = subprocess.run(
        [*cmd[:4], str(tmp_path / "none.yaml")],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.startswith("geom3d: error:") and "none.yaml" in bad.stderr
