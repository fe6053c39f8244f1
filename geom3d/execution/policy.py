"""The execution layer's choices and time constants (SPEC 13.4).

Every number that says how long something may take, or how work is cut, is named here
beside the rule it serves.
"""

from __future__ import annotations

import os
import sys
import threading

from geom3d.core.errors import UsageError

__all__ = [
    "AUTO",
    "POLL_S",
    "REDO_LIMIT",
    "SHUTDOWN_S",
    "STALL_S",
    "START_METHOD_ENV",
    "WORKER_START_S",
    "choose_workers",
    "cpu_count",
    "parse_workers",
    "start_method",
]

#: ``--workers auto``: the default of every command that runs workers.
AUTO = "auto"
#: Environment variable: ``fork`` or ``spawn`` (default: ``fork`` on Linux, else ``spawn``,
#: the way macOS and Windows start processes). ``spawn`` is tested on Linux in CI.
START_METHOD_ENV = "GEOM3D_START_METHOD"
#: A worker whose CPU time stands still this long while it holds work, and that is asleep
#: (not waiting for a CPU), is stuck (a lock another thread held at the fork): it is killed
#: and its work redone (s).
STALL_S = 2.0
#: How often the parent looks at its workers while it waits (s).
POLL_S = 0.25
#: How long a worker may take to leave once told to, before it is killed (s). SPEC 13.4
#: allows 2 s from a signal to the exit, so this stays well under it.
SHUTDOWN_S = 0.5
#: How long a new worker may take to warm up (imports, numba's cache) before it counts as
#: dead (s). Its warm-up is never charged to a task's time limit.
WORKER_START_S = 120.0
#: How many times a task whose worker died (or stalled) is handed to a fresh worker before
#: it is reported as lost: once.
REDO_LIMIT = 1


def cpu_count() -> int:
    """CPUs this process may run on (its affinity where known)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def start_method() -> str:
    """``fork`` or ``spawn``: how workers start here (:data:`START_METHOD_ENV`).

    ``fork`` needs Linux (a forked child of a process that holds other threads' locks
    is only safe where geom3d controls those threads) and the main thread.
    """
    asked = os.environ.get(START_METHOD_ENV, "").strip().lower()
    if asked not in ("", "fork", "spawn"):
        raise UsageError(f"{START_METHOD_ENV}: expected 'fork' or 'spawn' (got {asked!r})")
    can_fork = (
        sys.platform.startswith("linux")
        and hasattr(os, "fork")
        and threading.current_thread() is threading.main_thread()
    )
    if asked == "spawn" or not can_fork:
        return "spawn"
    return "fork"


def parse_workers(text: str | int | None) -> int | None:
    """``--workers`` as given: ``auto`` (or None) -> None, else a positive count.

    Raises
    ------
    UsageError
        Not ``auto`` and not a whole number of at least 1.
    """
    if text is None:
        return None
    if isinstance(text, int):
        value = text
    else:
        s = str(text).strip().lower()
        if s == AUTO:
            return None
        try:
            value = int(s)
        except ValueError:
            raise UsageError(
                f"--workers: expected 'auto' or a whole number (got {str(text)[:40]!r})"
            ) from None
    if value < 1:
        raise UsageError(f"--workers: must be at least 1 (got {value})")
    return value


def choose_workers(
    requested: int | None, items: int, *, pool_pays_from: int, cpus: int | None = None
) -> tuple[int, str]:
    """How many processes run ``items`` of work, and why.

    Parameters
    ----------
    requested : int or None
        ``--workers`` (None: ``auto``).
    items : int
        Units of work (scenarios, chunks of pairs).
    pool_pays_from : int
        ``auto``: the fewest items for which a pool beat one process when measured
        (``benchmarks/bench_batch.py``); below it the work runs in this process.
    cpus : int, optional
        Default: :func:`cpu_count`.

    Returns
    -------
    (int, str)
        The count (1: in this process) and a phrase for the user ("auto: 12 scenarios,
        in-process").
    """
    cpus = cpu_count() if cpus is None else cpus
    if requested is not None:
        n = max(1, min(requested, max(items, 1)))
        return n, f"{n} worker process{'es' if n > 1 else ''}" if n > 1 else "in-process"
    if cpus < 2 or items < pool_pays_from:
        return 1, f"auto: in-process ({items} item(s), a pool pays from {pool_pays_from})"
    n = max(1, min(cpus, items))
    return n, f"auto: {n} worker processes ({items} items)"
