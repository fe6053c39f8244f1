"""``geom3d check --scheduler ADDRESS``: the batch on an existing Dask cluster.

Scenario and mesh files must be readable at the same absolute paths on the workers (Dask
workers are best run with one thread and several processes). The parent polls the
cluster once a second, so that nothing waits forever:

- no worker connected within :data:`WORKER_WAIT_S` of connecting: a usage error
  (exit 2) naming the scheduler;
- no worker left for :data:`WORKER_WAIT_S` during the batch (the only worker died and
  nothing restarted it): every unfinished scenario is an ``error`` saying so;
- a scenario running longer than the time limit: an ``error`` ("timed out"); its worker is
  restarted through its nanny where it has one (a Dask thread cannot be stopped), so that
  the worker is free for the rest of the batch;
- a worker that dies while holding a scenario: Dask retries the scenario elsewhere and,
  past its ``allowed-failures``, gives up (``KilledWorker``): an ``error`` record.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from geom3d.check.discover import ScenarioFile
from geom3d.check.pool import timeout_message
from geom3d.check.record import check_scenario, error_record
from geom3d.core.errors import UsageError
from geom3d.core.scheduler_address import check_address, connect

__all__ = ["WORKER_WAIT_S", "check_address", "run_dask"]

#: How long ``--scheduler`` waits for the scheduler to answer.
#: How long the batch waits for a first worker, or for a worker to come back (s).
WORKER_WAIT_S = 30.0
_POLL_S = 1.0


def _check_task(path: str, display: str) -> dict:
    """Module-level task (picklable by reference)."""
    return check_scenario(path, display)


def _executing(dask_worker) -> list:
    """Run on each worker: the keys of the tasks it is executing right now."""
    return [ts.key for ts in dask_worker.state.executing]


def _n_workers(client) -> int:
    return len(client.scheduler_info().get("workers", {}))


def run_dask(
    files: Sequence[ScenarioFile],
    address: str,
    timeout: float | None,
    finish: Callable[[int, dict], None],
) -> int:
    """Check every file on the cluster at ``address``; returns its number of workers."""
    client = connect(address)  # first: a clear usage error when Dask is not installed
    from distributed import wait

    try:
        try:
            client.wait_for_workers(1, timeout=WORKER_WAIT_S)
        except Exception:  # TimeoutError (its class moved between versions)
            raise UsageError(
                f"--scheduler: no Dask workers connected to {address} (waited {WORKER_WAIT_S:g} s)"
            ) from None
        n_workers = _n_workers(client)
        futs = client.map(
            _check_task, [f.path for f in files], [f.display for f in files], pure=False
        )
        index = {f.key: i for i, f in enumerate(futs)}
        left = {f.key: f for f in futs}
        started: dict[str, float] = {}
        no_workers_since = None
        while left:
            try:
                wait(list(left.values()), timeout=_POLL_S, return_when="FIRST_COMPLETED")
            except Exception:  # the poll's time-out: nothing finished yet
                pass
            for key, fut in list(left.items()):
                if fut.done():
                    try:
                        rec = fut.result()
                    except Exception as exc:  # KilledWorker, import errors, ...
                        rec = error_record(
                            files[index[key]].display,
                            f"worker failed: {type(exc).__name__}: {str(exc).split('. ')[0]}",
                        )
                    fut.release()
                    del left[key]
                    finish(index[key], rec)
            if not left:
                break
            now = time.monotonic()
            if _n_workers(client) == 0:
                no_workers_since = no_workers_since or now
                if now - no_workers_since > WORKER_WAIT_S:
                    for key in list(left):
                        finish(
                            index[key],
                            error_record(
                                files[index[key]].display,
                                f"no Dask worker left at {address} for {WORKER_WAIT_S:g} s "
                                "(the workers died or left)",
                            ),
                        )
                        left.pop(key).cancel()
                    break
                continue
            no_workers_since = None
            if timeout is None:
                continue
            try:  # what each worker is running now (``processing`` includes its queue)
                running = client.run(_executing, on_error="return")
            except Exception:  # a worker restarting: ask again at the next poll
                continue
            for worker, keys in running.items():
                if not isinstance(keys, list):
                    continue
                for key in keys:
                    if key not in left:
                        continue
                    t = started.setdefault(key, now)
                    if now - t > timeout:
                        fut = left.pop(key)
                        fut.cancel()
                        finish(index[key], error_record(files[index[key]].display,
                                                        timeout_message(timeout)))  # fmt: skip
                        try:  # free the worker: a running Dask task cannot be stopped
                            client.restart_workers([worker], raise_for_error=False)
                        except Exception:  # no nanny: the thread runs on
                            pass
    finally:
        client.close()
    return n_workers
