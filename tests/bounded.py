"""Run hostile-input probes in a child process bounded in memory and time.

``run_cli(argvs, cwd)`` calls ``geom3d.cli.main(argv)`` for each argv in one child process
under ``resource.setrlimit(RLIMIT_AS)`` and a wall-clock timeout, and returns each call's
exit code and stderr. A probe that exhausts memory dies (and fails the test) instead of
taking the machine down; one that hangs trips the timeout.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from support import REPO

#: Address-space cap of the child (numba, Embree and numpy reserve ~1.5 GB at import).
MEMORY_LIMIT = 4 << 30

_CHILD = r"""
import contextlib, io, json, resource, sys
limit = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
from geom3d.cli import main
results = []
for argv in json.loads(sys.argv[2]):
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        rc = main(argv)
    results.append({"rc": rc, "stderr": err.getvalue()})
print(json.dumps(results))
"""

_CHILD_CODE = r"""
import resource, sys
limit = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
exec(compile(sys.argv[2], "<probe>", "exec"))
"""


def _env(extra: dict | None) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), str(REPO / "tests")])
    env.update(extra or {})
    return env


def run_cli(
    argvs: list[list[str]], cwd: Path, *, timeout: float = 300, env: dict | None = None
) -> list[dict]:
    """``[{"rc": int, "stderr": str}, ...]``, one per argv, from a bounded child."""
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, str(MEMORY_LIMIT), json.dumps(argvs)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=_env(env),
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def run_code(
    code: str,
    cwd: Path,
    *,
    memory: int = MEMORY_LIMIT,
    timeout: float = 300,
    env: dict | None = None,
) -> subprocess.CompletedProcess:
    """Run Python ``code`` in a child under an address-space cap; returns the process."""
    return subprocess.run(
        [sys.executable, "-c", _CHILD_CODE, str(memory), code],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=_env(env),
    )


def assert_one_clean_line(result: dict, *fragments: str) -> str:
    """Exit 2 and one printable stderr line holding every fragment; returns the line."""
    text = result["stderr"]
    assert result["rc"] == 2, text
    assert text.endswith("\n") and text.count("\n") == 1, repr(text)
    line = text[:-1]
    assert line.startswith("geom3d: error: "), line
    assert "Traceback" not in line
    assert line.isprintable(), repr(line)
    for frag in fragments:
        assert frag in line, (frag, line)
    return line
