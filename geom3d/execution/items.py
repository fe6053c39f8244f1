"""Items of one computation on this process's threads or on forked copies of it.

:func:`map_items` is the one call a computation over a scene makes to run its items in
parallel (the Line of Fire matrix's pairs): ``threads`` threads sharing the scene (the
compiled kernels and Embree release the GIL), or, where the caller owns its process and
asks for ``processes``, this thread and ``threads - 1`` forked copies that read the scene
in place (:mod:`.shared`: no GIL between them). The results, in item order, are the same
either way.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Any, TypeVar

from geom3d.execution.shared import fork_usable, shared_map

__all__ = ["map_items", "uses_processes"]

T = TypeVar("T")


def uses_processes(threads: int, processes: bool) -> bool:
    """Would :func:`map_items` fork here with these settings?"""
    return processes and threads > 1 and fork_usable()


def map_items(
    fn: Callable[[int], T],
    n: int,
    *,
    threads: int,
    processes: bool = False,
    chunk: int = 8,
    progress: Callable[[int], None] | None = None,
    pack: Callable[[T], Any] | None = None,
    unpack: Callable[[int, Any], T] | None = None,
    on_result: Callable[[int, T], None] | None = None,
) -> list[T]:
    """``[fn(i) for i in range(n)]`` in parallel.

    Parameters
    ----------
    fn : callable(int) -> result
    n : int
    threads : int
        Threads (or, with ``processes``, processes in all); 1 runs here, in order.
    processes : bool
        Forked copies instead of threads, where :func:`uses_processes` says so.
    chunk : int
        Items per task.
    progress : callable(done), optional
        Called here with how many items are done (in completion order).
    pack, unpack : callable, optional
        With processes: ``pack(result)`` in the copy makes it picklable, ``unpack(i,
        packed)`` here makes it a result again.
    on_result : callable(i, result), optional
        Called here with each item's result as it comes (on threads, in completion
        order, before ``progress``; with processes, in item order once all are done).

    Returns
    -------
    list
        The results in item order.
    """
    if uses_processes(threads, processes):

        def packed(i: int) -> Any:
            return pack(fn(i)) if pack is not None else fn(i)

        results = shared_map(
            packed, n, children=threads - 1, chunk=chunk, progress=progress, unpack=unpack
        )
        if on_result is not None:
            for i, r in enumerate(results):
                on_result(i, r)
        return results
    out: list[Any] = [None] * n
    if threads <= 1 or n <= 1:
        for i in range(n):
            out[i] = fn(i)
            if on_result is not None:
                on_result(i, out[i])
            if progress is not None and ((i + 1) % chunk == 0 or i + 1 == n):
                progress(i + 1)
        return out

    def task(lo: int, hi: int) -> list[tuple[int, T]]:
        return [(i, fn(i)) for i in range(lo, hi)]

    done = 0
    with ThreadPoolExecutor(max_workers=threads) as pool:
        futures = [pool.submit(task, lo, min(lo + chunk, n)) for lo in range(0, n, chunk)]
        try:
            for fut in as_completed(futures):
                for i, res in fut.result():
                    out[i] = res
                    done += 1
                    if on_result is not None:
                        on_result(i, res)
                if progress is not None:
                    progress(done)
        except BaseException:  # a callback's exception (cancelled) or an interrupt:
            for fut in futures:  # no task not yet started runs; the pool waits only
                fut.cancel()  # for those running
            raise
    return out
