"""``check --timeout`` counts only the scenario's own work (SPEC 13.4, issue 44).

The red team: six tiny scenarios with ``--timeout 1 --workers 2`` timed out 6 of 6 on a
loaded machine, because a worker's first scenario paid for its warm-up (0.3-0.4 s at
idle) and a timed-out worker was replaced by a cold one. Now workers are warm before
they take a scenario. Here: three runs beside a CPU burner on every core, with cold
scenery caches (a fresh cache folder) and warm ones; every scenario passes every time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from support import REPO

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="fork on Linux"),
    pytest.mark.slow,
]


def _tiny(d: Path, k: int) -> None:
    doc = {
        "format": "geom3d/1", "units": "mm", "ruleset": "infinity",
        "scenery": [{"id": "wall", "box": {"size": [10, 100, 40]}, "position": [150, 200 + k]}],
        "troopers": [
            {"id": "a", "side": "blue", "position": [0, 0], "silhouette": 2},
            {"id": "b", "side": "red", "position": [300, 10 * k], "facing_deg": 180,
             "silhouette": 2},
        ],
        "expect": {"lof": [{"from": "a", "to": "b", "lof": True}]},
    }  # fmt: skip
    (d / f"t{k}.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))


@pytest.mark.timeout(600)
def test_six_tiny_scenarios_never_time_out_beside_a_cpu_burner(tmp_path):
    from geom3d.core.cache_paths import kernel_cache_dir
    from geom3d.execution.policy import cpu_count

    batch = tmp_path / "batch"
    batch.mkdir()
    for k in range(6):
        _tiny(batch, k)
    burners = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(cpu_count())
    ]
    try:
        for run in range(3):
            for label in ("cold", "warm"):
                cache = tmp_path / f"cache-{run}"  # new each run: cold, then the same: warm
                env = {**os.environ, "PYTHONPATH": str(REPO), "GEOM3D_CACHE_DIR": str(cache),
                       "NUMBA_CACHE_DIR": str(kernel_cache_dir())}  # fmt: skip
                report = tmp_path / f"r{run}-{label}.json"
                proc = subprocess.run(
                    [sys.executable, "-m", "geom3d", "check", str(batch), "--timeout", "1",
                     "--workers", "2", "--json", str(report), "--quiet"],
                    env=env, capture_output=True, text=True, timeout=300,
                )  # fmt: skip
                doc = json.loads(report.read_text())
                statuses = [r["status"] for r in doc["records"]]
                errors = [r["error"] for r in doc["records"] if r["error"]]
                assert statuses == ["pass"] * 6, (run, label, errors, proc.stderr[-1000:])
                assert proc.returncode == 0
    finally:
        for b in burners:
            b.kill()
            b.wait()
