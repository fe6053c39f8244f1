"""Start-up of the ``geom3d`` command (SPEC 12.3, issues 31 and 49): wall time of
``--help``, ``--version``, a usage error, a scenario with an unknown key and ``geom3d lof``
on the README's duel, each next to ``python -c "import numpy, argparse"`` timed in the
same run (best of N, interleaved, so a
busy machine slows both alike); and, with ``--cold``, ``geom3d demo`` with empty caches
(a fresh cache folder: every kernel compiles) and again warm.

Usage::

    python benchmarks/bench_startup.py [--repeats 5] [--cold]

The target: ``--help``, ``--version``, the usage error and bad input (a scenario with an
unknown key) within 2.5x the baseline; the demo's first run at most 20 s longer than its
second.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

DUEL = """format: geom3d/1
units: mm
ruleset: infinity
scenery:
  - {id: wall, box: {size: [10, 200, 60]}, position: [150, 0, 0]}
troopers:
  - {id: alpha, side: blue, position: [0, 0], facing_deg: 0, silhouette: 2}
  - {id: bravo, side: red, position: [300, 200], facing_deg: 180, silhouette: 2}
attacks:
  - {id: nade, attacker: alpha, template: circular, mode: impact, main_target: bravo,
     speculative: true}
"""


def _geom3d(*args: str) -> list[str]:
    return [sys.executable, "-m", "geom3d", *args]


def _wall(argv: list[str], env: dict[str, str] | None = None) -> tuple[float, int]:
    t0 = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, cwd=REPO, env=env, check=False)
    return time.perf_counter() - t0, done.returncode


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--cold", action="store_true", help="also time the demo with empty caches")
    args = ap.parse_args(argv)
    baseline = [sys.executable, "-c", "import numpy, argparse"]
    with tempfile.TemporaryDirectory() as tmp:
        duel = Path(tmp) / "duel.yaml"
        duel.write_text(DUEL)
        bad = Path(tmp) / "bad.yaml"
        bad.write_text(DUEL + "bogus: 1\n")  # a schema error: answered before the engine
        cases = {
            "--help": _geom3d("--help"),
            "--version": _geom3d("--version"),
            "usage error (lof, no file)": _geom3d("lof"),
            "bad input (unknown key)": _geom3d("lof", str(bad)),
            "lof duel.yaml": _geom3d("lof", str(duel), "--quiet"),
        }
        _wall(cases["lof duel.yaml"])  # kernels and meshes cached before timing
        best = {name: float("inf") for name in ["baseline", *cases]}
        for _ in range(args.repeats):
            best["baseline"] = min(best["baseline"], _wall(baseline)[0])
            for name, cmd in cases.items():
                best[name] = min(best[name], _wall(cmd)[0])
        base = best["baseline"]
        print(f"python -c 'import numpy, argparse': {base * 1000:7.0f} ms (best of {args.repeats})")
        for name in cases:
            print(f"geom3d {name:28s} {best[name] * 1000:7.0f} ms  {best[name] / base:5.2f}x")
        if args.cold:
            env = dict(os.environ, GEOM3D_CACHE_DIR=str(Path(tmp) / "cold-cache"))
            env.pop("NUMBA_CACHE_DIR", None)
            demo = _geom3d("demo", "--out", str(Path(tmp) / "demo"), "--quiet")
            cold, rc1 = _wall(demo, env)
            warm, rc2 = _wall(demo, env)
            print(f"geom3d demo, empty caches: {cold:6.1f} s (exit {rc1})")
            print(f"geom3d demo, warm:         {warm:6.1f} s (exit {rc2})")
            print(f"first run longer by:       {cold - warm:6.1f} s (target: at most 20 s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
