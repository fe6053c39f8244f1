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
  the worker is free for the rest of the batch. A worker that stops answering (stalled,
  with no nanny) is judged from the scheduler's view of what it holds: its scenario times
  out all the same and the batch ends;
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
#: How long a poll waits for the workers to say what they run; a worker that does not
#: answer (stalled, e.g. stopped, with no nanny to restart it) is judged from the
#: scheduler's view of what it holds, so its scenario still times out.
_RUN_WAIT_S = 5.0


def _assigned(client) -> dict:
    """Worker -> keys it holds, from the scheduler (no worker has to answer)."""
    try:
        return {w: list(keys) for w, keys in client.processing().items()}
    except Exception:
        return {}


def _running(client, silent: dict, now: float, timeout: float) -> dict[str, list]:
    """Worker -> keys it is executing, asking each worker (at most ``_RUN_WAIT_S``).

    A worker silent for longer than ``timeout`` (stalled: stopped, or stuck with no nanny
    to restart it) is taken to run everything the scheduler has given it, so those
    scenarios time out; one that answers again is trusted again.
    """
    out: dict[str, list] = {}
    try:
        workers = list(client.scheduler_info().get("workers", {}))
    except Exception:
        return out
    held = None
    for w in workers:
        try:
            got = client.run(_executing, workers=[w], on_error="return",
                             callback_timeout=_RUN_WAIT_S)  # fmt: skip
            keys = got.get(w)
            if isinstance(keys, list):
                out[w] = keys
                silent.pop(w, None)
                continue
        except Exception:  # no answer in time (or restarting)
            pass
        since = silent.setdefault(w, now)
        if now - since > timeout:
            held = _assigned(client) if held is None else held
            out[w] = held.get(w, [])
    return out


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
        silent: dict[str, float] = {}  # worker -> when it stopped answering
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
            running = _running(client, silent, now, timeout)
            for key in [k for keys in running.values() for k in keys]:
                started.setdefault(key, now)
            where = {k: w for w, keys in running.items() for k in keys}
            for key, t in list(started.items()):  # also those on a worker that went silent
                if key in left:
                    worker = where.get(key)
                    if now - t > timeout:
                        fut = left.pop(key)
                        fut.cancel()
                        finish(index[key], error_record(files[index[key]].display,
                                                        timeout_message(timeout)))  # fmt: skip
                        if worker is None:
                            continue
                        try:  # free the worker: a running Dask task cannot be stopped
                            client.restart_workers([worker], timeout=_RUN_WAIT_S * 6,
                                                   raise_for_error=False)  # fmt: skip
                        except Exception:  # no nanny: the thread runs on
                            pass
    finally:
        client.close()
    return n_workers
