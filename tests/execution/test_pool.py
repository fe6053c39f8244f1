"""The execution layer's pool (geom3d.execution.pool): warm workers, time limits from a
task's own start, a dead worker's task redone once then reported, fork and spawn alike."""

from __future__ import annotations

import os
import sys
import time

import pytest

from geom3d.core.errors import WorkerLost
from geom3d.execution.pool import Lost, Work, run_pool

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux /proc")

_WARM = {"done": False}


def _prepare() -> None:
    time.sleep(0.3)  # a slow warm-up: never charged to a task's limit
    _WARM["done"] = True


def _setup(payload) -> None:
    time.sleep(float(payload))


def _task(item, stage):
    kind, value = item
    stage(f"doing {kind}")
    if kind == "square":
        return value * value, os.getpid(), _WARM["done"]
    if kind == "sleep":
        time.sleep(value)
        return value, os.getpid(), _WARM["done"]
    if kind == "die":
        os._exit(7)
    if kind == "raise":
        raise KeyError(value)
    raise AssertionError(kind)


def _run(items, method, **kw):
    got, lost = {}, []
    work = kw.pop("work", Work(task=_task, prepare=_prepare, setup=_setup, payload=0.0))
    report = run_pool(
        work, items, workers=2, method=method, on_lost=lost.append,
        on_result=lambda i, r, t: got.__setitem__(i, (r, t)), **kw,
    )  # fmt: skip
    return got, lost, report


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_results_on_warm_workers(method):
    items = [("square", i) for i in range(12)]
    got, lost, report = _run(items, method)
    assert not lost and report.method == method and report.most == 2
    assert [got[i][0][0] for i in range(12)] == [i * i for i in range(12)]
    assert all(got[i][0][2] for i in range(12))  # every worker was warm
    assert {got[i][0][1] for i in range(12)} - {os.getpid()}  # not in this process


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_time_limit_counts_only_the_task(method):
    """A 1 s limit: tasks of 0.05 s on workers whose set-up takes 1.5 s all pass; a task
    of 5 s is stopped after about 1 s with its stage and elapsed time."""
    work = Work(task=_task, prepare=_prepare, setup=_setup, payload=1.5)
    items = [("sleep", 0.05)] * 5 + [("sleep", 5.0)]
    t0 = time.monotonic()
    got, lost, _ = _run(items, method, work=work, timeout=1.0)
    assert sorted(got) == [0, 1, 2, 3, 4]
    (slow,) = lost
    assert slow.index == 5 and slow.timed_out and slow.why == "timed out after 1 s"
    assert slow.stage == "doing sleep" and 0.9 <= slow.elapsed_s < 3.0
    assert time.monotonic() - t0 < 15.0


def test_a_dead_worker_task_is_redone_once_then_reported():
    items = [("square", 1), ("die", 0), ("square", 3)]
    got, lost, report = _run(items, "fork")
    assert sorted(got) == [0, 2]
    (dead,) = lost
    assert dead.index == 1 and not dead.timed_out
    assert dead.why == "worker exit code 7 twice (redone once)"
    assert report.redone == [1]


def test_an_exception_in_a_task_is_raised_here_and_workers_are_reaped():
    import multiprocessing

    with pytest.raises(KeyError, match="boom"):
        _run([("sleep", 0.2), ("raise", "boom"), ("sleep", 0.2)], "fork")
    assert not multiprocessing.active_children()


def _fail_setup(payload) -> None:
    os._exit(5)


def test_workers_that_cannot_start_are_one_error():
    work = Work(task=_task, setup=_fail_setup)
    with pytest.raises(WorkerLost, match="no worker process could start"):
        _run([("square", 1)] * 3, "fork", work=work)


def test_lost_is_a_plain_record():
    lost = Lost(3, "timed out after 1 s", "loading", 1.25, timed_out=True)
    assert (lost.index, lost.stage, lost.elapsed_s) == (3, "loading", 1.25)
