"""A survey ends cleanly on any signal and when a worker dies (issues 33 and 44).

The red team: one worker killed gave a ``BrokenProcessPool`` traceback; SIGTERM exited
143 and left the fork server and the workers running. Now the workers are forked copies
of the survey (no fork server): a dead worker's pairs are computed again by the survey
itself (SPEC 13.4: redone once), and SIGTERM / SIGINT stop every child before the
command exits (143 / 130, one line, nothing written).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from support import REPO

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")

# a 1.2 m table with a wall at a 20 mm grid: about 3,600 positions, 6.5 M pairs (minutes)
SCENARIO = {"format": "geom3d/1", "units": "mm", "ruleset": "infinity",
            "table": {"size": [1200, 1200]},
            "scenery": [{"id": "w", "box": {"size": [20, 600, 80]}, "position": [600, 600, 0]}],
            "troopers": []}  # fmt: skip


def _tree(pid: int) -> dict[int, int]:
    """Live descendants of ``pid``: pid -> parent pid."""
    parent = {}
    for e in Path("/proc").iterdir():
        if e.name.isdigit():
            try:
                fields = (e / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != "Z":
                parent[int(e.name)] = int(fields[1])
    out, todo = {}, [pid]
    while todo:
        p = todo.pop()
        for c, pp in parent.items():
            if pp == p and c not in out:
                out[c] = p
                todo.append(c)
    return out


def _start(tmp_path, spacing: int = 20):
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(SCENARIO))
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    cmd = [sys.executable, "-m", "geom3d.cli", "survey", "s.yaml", "--spacing", str(spacing),
           "--workers", "2", "--out", "out", "--quiet"]  # fmt: skip
    proc = subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)  # fmt: skip
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and proc.poll() is None:
        tree = _tree(proc.pid)
        workers = [p for p, pp in tree.items() if pp == proc.pid]  # forked copies
        if len(workers) >= 1:
            time.sleep(2.0)  # the workers are computing pairs
            return proc, _tree(proc.pid), workers
        time.sleep(0.2)
    proc.kill()
    raise AssertionError(f"no workers started: {proc.communicate()[1][-2000:]!r}")


def _finish(proc, tree, timeout=60):
    try:
        rc = proc.wait(timeout)
        err = proc.stderr.read().decode()
        deadline = time.monotonic() + 10
        left = set(tree)
        while time.monotonic() < deadline:
            left = set(_tree(proc.pid)) | {p for p in tree if Path(f"/proc/{p}").exists()
                                            and "Z" not in Path(f"/proc/{p}/stat").read_text()
                                            .rsplit(")", 1)[1].split()[:1]}  # fmt: skip
            if not left:
                break
            time.sleep(0.2)
        return rc, err, left
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
        proc.stderr.close()


@pytest.mark.timeout(400)
@pytest.mark.parametrize(("sig", "code", "words"), [
    (signal.SIGTERM, 143, "geom3d: interrupted (SIGTERM): the survey was stopped; nothing written"),
    (signal.SIGINT, 130, "geom3d: interrupted (SIGINT): the survey was stopped; nothing written"),
])  # fmt: skip
def test_signal_stops_every_child_and_writes_nothing(tmp_path, sig, code, words):
    proc, tree, _workers = _start(tmp_path)
    if sig == signal.SIGINT:  # Ctrl-C reaches the whole process group
        os.killpg(proc.pid, sig)
    else:
        proc.send_signal(sig)
    rc, err, left = _finish(proc, tree)
    assert rc == code, err
    assert err.strip() == words and "Traceback" not in err
    assert not left, "orphan processes left behind"
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


@pytest.mark.timeout(400)
def test_a_killed_worker_s_pairs_are_computed_again(tmp_path):
    """The pairs of a killed worker are computed by the survey itself: it ends normally
    (the answers equal a serial run's: tests/execution/test_shared.py)."""
    proc, tree, workers = _start(tmp_path, spacing=60)
    os.kill(workers[0], signal.SIGKILL)
    rc, err, left = _finish(proc, tree, timeout=300)
    assert rc == 0, err
    assert "Traceback" not in err and "error" not in err, err
    assert not left, "orphan processes left behind"
    assert (tmp_path / "out" / "survey.json").is_file()
