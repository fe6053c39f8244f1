"""Where the checks run: in-process, a local process pool, or a Dask cluster.

``workers=1`` runs in-process; ``workers=N`` (default ``os.cpu_count()``, never more than
there are scenarios) uses a process pool (``forkserver`` where available, else ``spawn``:
safe with Embree's threads); ``scheduler="tcp://HOST:PORT"`` runs on an existing Dask
cluster (scenario and mesh files must be readable at the same absolute paths on the
workers). Worker processes are long-lived, so the per-process caches of parsed meshes (by
content hash) and of merged scenery + BVH (by content digest) make a table shared by many
scenarios load once per worker; each record's ``timing.cache_hit`` and
``timing.meshes_parsed`` show it. Within a process, scenarios are evaluated one at a time
(Dask workers are best run with one thread and several processes). Records always come back
in the order of the files, whatever the scheduling.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence

from geom3d.errors import UsageError

from .discover import ScenarioFile
from .record import BatchResult, check_scenario, error_record

__all__ = ["OnResult", "check_address", "run_batch"]

#: ``on_result(index, record)``: called as each scenario finishes (completion order).
OnResult = Callable[[int, dict], None]

#: Imported once in the fork server instead of once per worker.
_PRELOAD = (
    "geom3d.check",
    "geom3d.mesh",
    "trimesh",
    "scipy.sparse.csgraph",
)

_SCHEMES = ("tcp", "tls", "ws", "wss", "ucx", "inproc")
#: How long ``--scheduler`` waits for the scheduler to answer.
_CONNECT_TIMEOUT = "15s"


def _check_task(path: str, display: str) -> dict:
    """Module-level task for process pools and Dask (picklable by reference)."""
    return check_scenario(path, display)


def _mp_context():
    import multiprocessing as mp

    if "forkserver" in mp.get_all_start_methods():
        ctx = mp.get_context("forkserver")
        ctx.set_forkserver_preload(list(_PRELOAD))
        return ctx
    return mp.get_context("spawn")


def _init_worker(environ: dict, cwd: str) -> None:
    # forkserver children inherit the server's environment, which may be older than ours
    for k in list(os.environ):
        if k not in environ:
            del os.environ[k]
    os.environ.update(environ)
    try:
        os.chdir(cwd)
    except OSError:
        pass


def _run_local(files: Sequence[ScenarioFile], on_result: OnResult) -> list[dict]:
    out = []
    for i, f in enumerate(files):
        rec = check_scenario(f.path, f.display)
        out.append(rec)
        on_result(i, rec)
    return out


def _run_pool(files: Sequence[ScenarioFile], workers: int, on_result: OnResult) -> list[dict]:
    from concurrent.futures import ProcessPoolExecutor, as_completed

    records: list[dict | None] = [None] * len(files)
    ex = ProcessPoolExecutor(
        max_workers=workers,
        mp_context=_mp_context(),
        initializer=_init_worker,
        initargs=(dict(os.environ), os.getcwd()),
    )
    try:
        futs = {ex.submit(_check_task, f.path, f.display): i for i, f in enumerate(files)}
        for fut in as_completed(futs):
            i = futs[fut]
            try:
                rec = fut.result()
            except Exception as exc:  # a worker died (BrokenProcessPool) or could not start
                rec = error_record(files[i].display, f"worker failed: {type(exc).__name__}: {exc}")
            records[i] = rec
            on_result(i, rec)
    except BaseException:
        ex.shutdown(wait=False, cancel_futures=True)
        raise
    ex.shutdown(wait=True)
    return records  # type: ignore[return-value]


def check_address(address: str) -> None:
    """Raise :class:`UsageError` unless ``address`` looks like a Dask scheduler address."""
    bad = UsageError(f"--scheduler: bad address {address!r} (expected tcp://HOST:PORT)")
    scheme, sep, rest = address.partition("://")
    if not sep:
        scheme, rest = "tcp", address
    if scheme not in _SCHEMES or not rest or any(c.isspace() for c in address):
        raise bad
    if scheme in ("tcp", "tls", "ws", "wss"):
        host, colon, port = rest.rpartition(":")
        if not colon or not host or host in ("[", "[]"):
            raise bad
        if not port.isdigit() or not 0 < int(port) < 65536:
            raise bad


def _run_dask(
    files: Sequence[ScenarioFile], address: str, on_result: OnResult
) -> tuple[list[dict], int]:
    check_address(address)
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise UsageError(
            "--scheduler needs Dask: install geom3d[dask] (pip install 'geom3d[dask]')"
        ) from None
    try:
        client = Client(address, timeout=_CONNECT_TIMEOUT, set_as_default=False)
    except Exception as exc:
        detail = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise UsageError(f"--scheduler: cannot connect to {address}: {detail}") from None
    records: list[dict | None] = [None] * len(files)
    try:
        n_workers = len(client.scheduler_info().get("workers", {}))
        futs = client.map(
            _check_task,
            [f.path for f in files],
            [f.display for f in files],
            pure=False,
        )
        index = {f.key: i for i, f in enumerate(futs)}
        for fut in as_completed(futs, loop=client.loop):
            i = index[fut.key]
            try:
                rec = fut.result()
            except Exception as exc:  # KilledWorker, import errors on the worker, ...
                rec = error_record(files[i].display, f"worker failed: {type(exc).__name__}: {exc}")
            fut.release()
            records[i] = rec
            on_result(i, rec)
    finally:
        client.close()
    return records, n_workers  # type: ignore[return-value]


def run_batch(
    files: Sequence[ScenarioFile] | Sequence[str],
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    on_result: OnResult | None = None,
) -> BatchResult:
    """Check scenarios; see the module docstring.

    Parameters
    ----------
    files : sequence of ScenarioFile, or of str (taken as paths, in the order given)
    workers : int, optional
        Local processes; 1 runs in-process; default ``os.cpu_count()``. Never more than
        there are scenarios.
    scheduler : str, optional
        Dask scheduler address; the batch runs on that cluster.
    on_result : callable(index, record), optional
        Called as each scenario finishes (in completion order).

    Returns
    -------
    BatchResult
        Records in the order of ``files``.
    """
    files = [
        f if isinstance(f, ScenarioFile) else ScenarioFile(str(f), os.path.abspath(f))
        for f in files
    ]
    cb = on_result or (lambda i, r: None)
    t0 = time.perf_counter()
    if scheduler is not None:
        records, n = _run_dask(files, scheduler, cb)
        return BatchResult(records, time.perf_counter() - t0, "dask", n, scheduler)
    n = workers if workers is not None else (os.cpu_count() or 1)
    if n < 1:
        raise UsageError(f"--workers: must be at least 1 (got {n})")
    n = max(1, min(n, len(files)))
    if n == 1:
        records = _run_local(files, cb)
        return BatchResult(records, time.perf_counter() - t0, "in-process", 1)
    records = _run_pool(files, n, cb)
    return BatchResult(records, time.perf_counter() - t0, "processes", n)
