"""``geom3d check --scheduler ADDRESS``: the batch on an existing Dask cluster, under the
execution layer's policy (:mod:`geom3d.execution.dask`: waiting for workers, time
limits, lost workers)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from geom3d.check.discover import ScenarioFile
from geom3d.check.pool import timeout_message
from geom3d.check.record import check_scenario, error_record
from geom3d.core.scheduler_address import check_address
from geom3d.execution.dask import WORKER_WAIT_S
from geom3d.execution.dask import run_dask as _run_tasks
from geom3d.execution.pool import Lost

__all__ = ["WORKER_WAIT_S", "check_address", "run_dask"]


def _check_task(path: str, display: str) -> dict:
    """Module-level task (picklable by reference)."""
    return check_scenario(path, display)


def run_dask(
    files: Sequence[ScenarioFile],
    address: str,
    timeout: float | None,
    finish: Callable[[int, dict], None],
) -> int:
    """Check every file on the cluster at ``address``; returns its number of workers."""

    def on_result(i: int, rec: dict, elapsed: float) -> None:
        finish(i, rec)

    def on_lost(lost: Lost) -> None:
        why = timeout_message(timeout or 0.0) if lost.timed_out else lost.why
        finish(lost.index, error_record(files[lost.index].display, why, elapsed=lost.elapsed_s))

    return _run_tasks(
        _check_task, [(f.path, f.display) for f in files], address,
        on_result=on_result, on_lost=on_lost, timeout=timeout,
    )  # fmt: skip
