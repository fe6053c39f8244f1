"""The execution layer's tasks on an existing Dask cluster (``--scheduler ADDRESS``).

Files must be readable at the same absolute paths on the workers (Dask workers are best
run with one thread and several processes). This process polls the cluster once a
second, so that nothing waits forever, under the same policy as the local pool:

- no worker connected within :data:`WORKER_WAIT_S` of connecting: a usage error (exit 2)
  naming the scheduler;
- no worker left for :data:`WORKER_WAIT_S` during the run: every unfinished task is lost,
  saying so;
- a task running longer than its time limit: lost ("timed out"); its worker is restarted
  through its nanny where it has one (a Dask thread cannot be stopped). A worker that stops
  answering is judged from the scheduler's view of what it holds;
- a worker that dies holding a task: Dask retries it elsewhere and, past its
  ``allowed-failures``, gives up (``KilledWorker``): the task is lost;
- no task finished for ``stall_s`` (a stalled worker without a nanny): every unfinished
  task is lost.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from geom3d.core.errors import UsageError
from geom3d.core.scheduler_address import connect
from geom3d.execution.pool import Lost

__all__ = ["WORKER_WAIT_S", "run_dask"]

#: How long a run waits for a first worker, or for a worker to come back (s).
WORKER_WAIT_S = 30.0
_POLL_S = 1.0
#: How long a poll waits for the workers to say what they run (s).
_RUN_WAIT_S = 5.0


def _assigned(client: Any) -> dict[Any, list[Any]]:
    """Worker -> keys it holds, from the scheduler (no worker has to answer)."""
    try:
        return {w: list(keys) for w, keys in client.processing().items()}
    except Exception:
        return {}


def _executing(dask_worker: Any) -> list[Any]:
    """Run on each worker: the keys of the tasks it is executing right now."""
    return [ts.key for ts in dask_worker.state.executing]


def _running(
    client: Any, silent: dict[str, float], now: float, timeout: float
) -> dict[str, list[Any]]:
    """Worker -> keys it is executing, asking each worker (at most ``_RUN_WAIT_S``); a
    worker silent for longer than ``timeout`` is taken to run what it was given."""
    out: dict[str, list[Any]] = {}
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


def _n_workers(client: Any) -> int:
    return len(client.scheduler_info().get("workers", {}))


def run_dask(
    fn: Callable[..., Any],
    args: Sequence[tuple[Any, ...]],
    address: str,
    *,
    on_result: Callable[[int, Any, float], None],
    on_lost: Callable[[Lost], None],
    timeout: float | None = None,
    stall_s: float | None = None,
    scatter: Any = None,
) -> int:
    """Run ``fn(*args[i])`` (or ``fn(scattered, *args[i])``) for every ``i`` on the cluster.

    Parameters
    ----------
    fn : callable
        Module-level (pickled by reference).
    args : sequence of tuple
    address : str
    on_result : callable(index, result, elapsed_s)
    on_lost : callable(Lost)
    timeout : float, optional
        Seconds one task may run.
    stall_s : float, optional
        Lose every unfinished task when none finished for this long.
    scatter : picklable, optional
        Sent to every worker once and passed to ``fn`` first.

    Returns
    -------
    int
        The cluster's worker count.
    """
    client: Any = connect(address)  # first: a clear usage error when Dask is not installed
    import distributed

    wait: Any = distributed.wait

    try:
        try:
            client.wait_for_workers(1, timeout=WORKER_WAIT_S)
        except Exception:  # TimeoutError (its class moved between versions)
            raise UsageError(
                f"--scheduler: no Dask workers connected to {address} (waited {WORKER_WAIT_S:g} s)"
            ) from None
        n_workers = _n_workers(client)
        first = () if scatter is None else (client.scatter(scatter, broadcast=True),)
        futs = [client.submit(fn, *first, *a, pure=False) for a in args]
        index = {f.key: i for i, f in enumerate(futs)}
        left = {f.key: f for f in futs}
        started: dict[Any, float] = {}
        silent: dict[str, float] = {}
        no_workers_since = None
        last_done = time.monotonic()

        def lose_all(why: str) -> None:
            for key in list(left):
                on_lost(Lost(index[key], why, None, 0.0))
                left.pop(key).cancel()

        while left:
            try:
                wait(list(left.values()), timeout=_POLL_S, return_when="FIRST_COMPLETED")
            except Exception:  # the poll's time-out: nothing finished yet
                pass
            now = time.monotonic()
            for key, fut in list(left.items()):
                if fut.done():
                    del left[key]
                    last_done = now
                    try:
                        res = fut.result()
                    except Exception as exc:  # KilledWorker, import errors, ...
                        why = f"worker failed: {type(exc).__name__}: {str(exc).split('. ')[0]}"
                        on_lost(Lost(index[key], why, None, 0.0))
                    else:
                        on_result(index[key], res, now - started.get(key, now))
                    fut.release()
            if not left:
                break
            if stall_s is not None and now - last_done > stall_s:
                lose_all(f"the Dask cluster at {address} finished nothing for {stall_s:g} s "
                         "(a stalled worker?)")  # fmt: skip
                break
            if _n_workers(client) == 0:
                no_workers_since = no_workers_since or now
                if now - no_workers_since > WORKER_WAIT_S:
                    lose_all(f"no Dask worker left at {address} for {WORKER_WAIT_S:g} s "
                             "(the workers died or left)")  # fmt: skip
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
                if key in left and now - t > timeout:
                    left.pop(key).cancel()
                    on_lost(Lost(index[key], f"timed out after {timeout:g} s", None, now - t,
                                 timed_out=True))  # fmt: skip
                    worker = where.get(key)
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
