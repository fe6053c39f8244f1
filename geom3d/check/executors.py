"""Where the checks run: in-process, a local pool of worker processes, or a Dask cluster.

- ``workers=None`` (``--workers auto``, the default): in this process when the batch is
  small (fewer than :data:`AUTO_POOL_FROM` scenarios: a pool's start-up and its
  workers' own scenery caches cost more than they save, measured by
  ``benchmarks/bench_batch.py``), else one worker process per CPU. The choice is said
  in the summary.
- ``workers=1``: in this process, one scenario after the other.
- ``workers=N`` (N >= 2): a pool of N worker processes (:mod:`.pool`, on
  :mod:`geom3d.execution.pool`): a scenario past the time limit is stopped by killing its
  worker, a dead worker's scenario is redone once and then reported, an interrupted batch
  leaves no process behind.
- ``scheduler="tcp://HOST:PORT"``: an existing Dask cluster (:mod:`.cluster`).

Time limit (``timeout``, seconds per scenario, None for none): in a pool, a hard limit
(the worker is killed), counted from the scenario's own start: workers are warm before
they take one. In-process, a SIGALRM timer interrupts the scenario: this stops Python
code and blocking system calls (a FIFO, a slow disk), but one long call into native code
(a ray cast) runs to its end first, and it is only available in the main thread.

Worker processes are long-lived, so the per-process caches of parsed meshes (by content
hash) and of merged scenery + BVH (by content digest) make a table shared by many
scenarios load once per worker; each record's ``timing.cache_hit`` and
``timing.meshes_parsed`` show it. Records always come back in the order of the files,
whatever the scheduling, so the reports do not depend on it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence

from geom3d.check.cluster import check_address, run_dask
from geom3d.check.discover import ScenarioFile
from geom3d.check.pool import Terminated, run_check_pool, timeout_message
from geom3d.check.record import (
    BatchResult,
    TerminationRequested,
    apply_strict,
    check_scenario,
    error_record,
)
from geom3d.core.errors import UsageError
from geom3d.execution.policy import choose_workers
from geom3d.execution.signals import dropped_at

__all__ = [
    "AUTO_POOL_FROM",
    "BatchInterrupted",
    "OnResult",
    "Terminated",
    "check_address",
    "run_batch",
]

#: ``on_result(index, record)``: called as each scenario finishes (completion order).
OnResult = Callable[[int, dict], None]

#: ``--workers auto``: the fewest scenarios for which a pool of worker processes is used
#: (``benchmarks/bench_batch.py --policy``, 2 cores, each run a new process): a pool costs
#: about 0.1 s more than this process on a batch of tiny scenarios (4 to 64 of them: 1.3
#: against 1.2 s) and pays from about a hundred of them (200: 1.78 against 2.01 s); on
#: scenarios of 0.2 s each (8 troopers on a 1M-triangle table) it pays at once (20: 4.1
#: against 5.3 s). From 16 scenarios the pool's worst case is that 0.1 s.
AUTO_POOL_FROM = 16


class BatchInterrupted(KeyboardInterrupt):
    """The batch was interrupted (SIGINT, or SIGTERM under ``geom3d check``).

    Attributes
    ----------
    result : BatchResult
        Every finished record; the unfinished ones are ``error`` records saying so.
    signal_name : str
        ``SIGINT`` or ``SIGTERM``.
    """

    def __init__(self, result: BatchResult, signal_name: str):
        super().__init__(signal_name)
        self.result = result
        self.signal_name = signal_name


class _ScenarioTimeout(BaseException):
    """Raised by the in-process SIGALRM timer (a BaseException: nothing catches it on the
    way up but :func:`_check_in_process`)."""


#: When the in-process timer fires where Python would print and drop the exception (see
#: :class:`_Alarm`), it fires again this much later (s) instead of raising there.
ALARM_RETRY_S = 0.01


class _Alarm:
    """The SIGALRM handler: notes that it fired, then raises :class:`_ScenarioTimeout`.

    Raised inside a numba or C call, the exception may come back wrapped (a SystemError
    the scenario reports as an internal error): the note says what really happened.
    Raised where Python prints and drops exceptions, it would be lost (and the stuck
    scenario go on): there the handler only sets the timer again (``ALARM_RETRY_S``).
    Those places are the ones :func:`geom3d.execution.signals.dropped_at` knows: the
    collector's work (finalizers, weakref callbacks and ``gc.callbacks``), an object's
    ``__del__`` and a ``gc.callbacks`` entry.
    """

    def __init__(self):
        self.fired = False

    def __call__(self, signum, frame):
        if dropped_at(frame):
            signal.setitimer(signal.ITIMER_REAL, ALARM_RETRY_S)
            return
        self.fired = True
        raise _ScenarioTimeout


@contextlib.contextmanager
def _timer(alarm: _Alarm, timeout: float) -> Iterator[None]:
    """SIGALRM to ``alarm`` in ``timeout`` s; the timer and the old handler undone on the
    way out."""
    old = signal.signal(signal.SIGALRM, alarm)
    try:
        signal.setitimer(signal.ITIMER_REAL, timeout)
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _can_alarm() -> bool:
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


def _check_in_process(f: ScenarioFile, timeout: float | None) -> dict:
    if timeout is None or not _can_alarm():
        return check_scenario(f.path, f.display)
    alarm = _Alarm()
    stage = ["not started"]
    try:
        with _timer(alarm, timeout):
            rec = check_scenario(
                f.path, f.display, on_stage=lambda text: stage.__setitem__(0, text)
            )
    except _ScenarioTimeout:
        pass
    if alarm.fired:
        return error_record(f.display, timeout_message(timeout, stage[0]), stage=stage[0])
    return rec


class _Run:
    """The records of one batch as they come in (in file order, None until finished)."""

    def __init__(self, files: Sequence[ScenarioFile], on_result: OnResult, strict: bool, allow=()):
        self.files = files
        self.records: list[dict | None] = [None] * len(files)
        self.on_result = on_result
        self.strict = strict
        self.allow = tuple(allow)

    def finish(self, index: int, rec: dict) -> None:
        if self.strict:
            rec = apply_strict(rec, self.allow)
        self.records[index] = rec
        self.on_result(index, rec)

    def local(self, indices: Sequence[int], timeout: float | None) -> None:
        for i in indices:
            self.finish(i, _check_in_process(self.files[i], timeout))

    def filled(self, why: str) -> list[dict]:
        return [
            r if r is not None else error_record(f.display, f"not finished: {why}")
            for f, r in zip(self.files, self.records, strict=True)
        ]


def run_batch(
    files: Sequence[ScenarioFile] | Sequence[str],
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    on_result: OnResult | None = None,
    timeout: float | None = None,
    strict: bool = False,
    allow_warnings: Sequence[str] = (),
) -> BatchResult:
    """Check scenarios; see the module docstring.

    Parameters
    ----------
    files : sequence of ScenarioFile, or of str (taken as paths, in the order given)
    workers : int, optional
        Local processes; 1 runs in-process; default (None, ``--workers auto``): in-process
        below :data:`AUTO_POOL_FROM` scenarios, else one process per CPU. Never more than
        there are scenarios.
    scheduler : str, optional
        Dask scheduler address; the batch runs on that cluster.
    on_result : callable(index, record), optional
        Called as each scenario finishes (in completion order).
    timeout : float, optional
        Seconds one scenario may take (default: no limit); past it the scenario is an
        ``error`` and the batch goes on.
    strict : bool
        Scene warnings fail a scenario that would pass (see :func:`.record.apply_strict`).
    allow_warnings : sequence of str
        ``--allow-warning`` patterns: warnings ``strict`` accepts in every scenario.

    Returns
    -------
    BatchResult
        Records in the order of ``files``.

    Raises
    ------
    BatchInterrupted
        On SIGINT (or :class:`Terminated`): carries the finished records; every worker
        has been stopped.
    UsageError
        Bad ``workers``, ``timeout`` or ``scheduler``; a cluster that cannot be reached
        or has no workers.
    """
    files = [
        f if isinstance(f, ScenarioFile) else ScenarioFile(str(f), os.path.abspath(f))
        for f in files
    ]
    if timeout is not None and not 0 < timeout <= 365 * 86400.0:  # the timers' range
        raise UsageError(
            f"--timeout: must be a positive number of seconds, at most a year (got {timeout})"
        )
    run = _Run(files, on_result or (lambda i, r: None), strict, allow_warnings)
    t0 = time.perf_counter()
    executor, n, choice = "in-process", 1, "in-process"
    try:
        if scheduler is not None:
            executor, choice = "dask", f"Dask cluster at {scheduler}"
            n = run_dask(files, scheduler, timeout, run.finish)
        else:
            n, choice = choose_workers(workers, len(files), pool_pays_from=AUTO_POOL_FROM)
            choice = choice.replace("item(s)", "scenarios").replace("items", "scenarios")
            if n == 1:
                run.local(range(len(files)), timeout)
            else:
                executor = "processes"
                report = run_check_pool(files, n, timeout, run.finish)
                n = max(1, report.most)
    except KeyboardInterrupt as exc:
        name = "SIGTERM" if isinstance(exc, TerminationRequested) else "SIGINT"
        result = BatchResult(
            run.filled(f"check was interrupted ({name})"),
            time.perf_counter() - t0,
            executor,
            n,
            scheduler,
            interrupted=name,
        )
        result.choice = choice
        raise BatchInterrupted(result, name) from None
    result = BatchResult(run.filled("no result"), time.perf_counter() - t0, executor, n, scheduler)
    result.choice = choice
    return result
