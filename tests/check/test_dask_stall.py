"""A Dask worker that stalls with no nanny does not stall the batch (issue 33).

The red team stopped a worker started with ``--no-nanny`` (SIGSTOP): its scenario never
finished, and the poll that asks every worker what it runs waited for it forever. Now
that poll has a time limit, a silent worker is judged from the scheduler's view of what
it holds, and its scenarios time out like any other (here it is the only worker, so
every scenario is on it, and the batch must still end).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
import yaml
from support import REPO

from geom3d.check import run_batch

pytestmark = [pytest.mark.dask, pytest.mark.skipif(not hasattr(signal, "SIGSTOP"), reason="POSIX")]

DOC = {"format": "geom3d/1", "units": "mm", "ruleset": "infinity",
       "table": {"size": [300, 300]},
       "troopers": [{"id": "a", "side": "blue", "position": [50, 150, 0]},
                    {"id": "b", "side": "red", "position": [250, 150, 0], "facing_deg": 180}],
       "expect": {"lof": [{"from": "a", "to": "b", "lof": True}]}}  # fmt: skip


@pytest.mark.timeout(300)
def test_stalled_worker_without_nanny_times_out_and_the_batch_ends(tmp_path):
    distributed = pytest.importorskip("distributed")
    files = []
    for i in range(4):
        f = tmp_path / f"q{i}.yaml"
        f.write_text(yaml.safe_dump(DOC))
        files.append(str(f))
    with distributed.LocalCluster(n_workers=0, dashboard_address=":0") as lc:
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        worker = subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_worker", lc.scheduler_address,
             "--no-nanny", "--nthreads", "1", "--no-dashboard"],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        try:
            with distributed.Client(lc.scheduler_address) as c:
                c.wait_for_workers(1, timeout=120)
            os.kill(worker.pid, signal.SIGSTOP)  # stalled: alive to the scheduler, silent
            t0 = time.monotonic()
            res = run_batch(files, scheduler=lc.scheduler_address, timeout=20.0)
            took = time.monotonic() - t0
        finally:
            worker.kill()
            worker.wait()
    assert took < 200, took  # it waited forever before
    for r in res.records:  # the only worker is stalled: every scenario times out
        assert r["status"] == "error" and r["error"].startswith("timed out after 20 s"), r
