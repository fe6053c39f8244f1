"""Signals at any moment (SPEC 13.4), from the outside, as a CI runner sends them.

``check``, ``survey``, ``exposure`` (2 workers each) and ``lof`` (forked workers) are
started in a session of their own and sent SIGINT, SIGTERM or SIGKILL at seeded random
moments from 0.1 to 5 s: SIGINT exits 130 and SIGTERM 143 within 2 s, and within 2 s of
the command's end no process of its session is left, whatever killed it.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from support import REPO

pytestmark = [
    pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc"),
    pytest.mark.slow,
]

#: SPEC 13.4: exit, and every worker gone, within this long of the signal.
LIMIT_S = 2.0

_WALL = {"id": "wall", "box": {"size": [20, 600, 80]}, "position": [600, 600, 0]}


def _trooper(i: int, x: float, y: float, **kw) -> dict:
    side = "blue" if i % 2 else "red"
    return {"id": f"t{i}", "side": side, "position": [x, y], "silhouette": 2, **kw}


def _scenarios(d: Path) -> dict[str, list[str]]:
    """The four commands, each with work for well over 5 s on two cores."""
    base = {"format": "geom3d/1", "units": "mm", "ruleset": "infinity",
            "table": {"size": [1200, 1200]}, "scenery": [_WALL]}  # fmt: skip
    survey = {**base, "troopers": []}
    (d / "survey.yaml").write_text(yaml.safe_dump(survey))
    rng = random.Random(7)
    troopers = [_trooper(i, rng.uniform(50, 1150), rng.uniform(50, 1150)) for i in range(30)]
    exposure = {**base, "troopers": troopers}
    (d / "exposure.yaml").write_text(yaml.safe_dump(exposure))
    route = [[300 + 0.5 * k, 100 if k % 2 else 1100] for k in range(60)]
    lof = {**base, "troopers": [*troopers, _trooper(99, 300, 100, route=route)]}
    (d / "lof.yaml").write_text(yaml.safe_dump(lof))
    batch = d / "batch"
    batch.mkdir()
    for k in range(20):
        doc = {**base, "troopers": [_trooper(1, 100, 600), _trooper(2, 1100, 600, route=route)],
               "expect": {"lof": [{"from": "t1", "to": "t2", "lof": False}]}}  # fmt: skip
        (batch / f"s{k:02d}.yaml").write_text(yaml.safe_dump(doc))
    return {
        "check": ["check", "batch", "--workers", "2", "--json", "out/check.json", "--quiet"],
        "survey": ["survey", "survey.yaml", "--spacing", "20", "--workers", "2", "--out",
                   "out", "--quiet"],
        "exposure": ["exposure", "exposure.yaml", "--observers", "red", "--spacing", "5",
                     "--workers", "2", "--out", "out", "--quiet"],
        "lof": ["lof", "lof.yaml", "--quiet"],
    }  # fmt: skip


def _session(sid: int) -> set[int]:
    """Live (not zombie) processes of session ``sid``."""
    out = set()
    for e in Path("/proc").iterdir():
        if not e.name.isdigit():
            continue
        try:
            fields = (e / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z" and int(fields[3]) == sid:
            out.add(int(e.name))
    return out


def _moments(n: int, seed: int) -> list[float]:
    rng = random.Random(seed)
    return [round(rng.uniform(0.1, 5.0), 2) for _ in range(n)]


_CASES = [
    (cmd, sig, at)
    for k, cmd in enumerate(("check", "survey", "exposure", "lof"))
    for j, sig in enumerate((signal.SIGINT, signal.SIGTERM, signal.SIGKILL))
    for at in _moments(2, 100 * k + j)
]


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> tuple[Path, dict[str, list[str]]]:
    d = tmp_path_factory.mktemp("signals")
    return d, _scenarios(d)


@pytest.mark.timeout(180)
@pytest.mark.parametrize(("command", "sig", "at"), _CASES)
def test_signal_at_any_moment(workdir, command, sig, at):
    d, commands = workdir
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "geom3d", *commands[command]], cwd=d, env=env,
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        start_new_session=True,
    )  # fmt: skip
    time.sleep(at)
    if proc.poll() is not None:  # finished first: nothing to interrupt
        proc.stderr.close()
        pytest.fail(f"{command} ended before {at} s (exit {proc.returncode}): make it longer")
    t0 = time.monotonic()
    os.kill(proc.pid, sig)
    try:
        rc = proc.wait(LIMIT_S + 30)
    finally:
        err = proc.stderr.read().decode(errors="replace")
        proc.stderr.close()
    took = time.monotonic() - t0
    expected = {signal.SIGINT: 130, signal.SIGTERM: 143, signal.SIGKILL: -9}[sig]
    assert rc == expected, (rc, err[-2000:])
    assert took < LIMIT_S, f"{command} took {took:.2f} s to exit after {sig.name}"
    if sig != signal.SIGKILL:
        assert "Traceback" not in err, err[-2000:]
    left = _session(proc.pid)
    deadline = t0 + LIMIT_S + 0.5
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = _session(proc.pid)
    assert not left, f"{command}: {len(left)} process(es) outlived it after {sig.name}"
