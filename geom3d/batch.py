"""``geom3d check``: headless batch validation of scenario expectations (SPEC section 6).

Every scenario file named on the command line (files, folders searched recursively for
``*.yaml``, ``*.yml`` and ``*.json``, shell-style globs) is loaded, its scene built, and
exactly what its ``expect`` block asks is evaluated. Each asked field is one **check**:

- ``lof[A->B].lof`` / ``.visible`` / ``.in_arc`` / ``.reason`` for an ``expect.lof`` entry;
- ``attacks.ID.FIELD`` for an ``expect.attacks`` entry: ``affected`` compares as a set of
  ids, ``excluded`` as a set of ids or of ``{id, reason}`` pairs (a pair without
  ``reason`` matches the id alone), ``troopers`` per trooper and field
  (``attacks.ID.troopers.T.dodge``); every other field (``outcome``, ``reason``, ``hits``,
  ``wall_of_death``, ``placements``, ...) by equality: numbers to within 0.001, lists in
  order, mappings on the keys the expectation writes (extra keys in the result are fine).

Statuses (one per scenario):

``pass``
    every check holds;
``fail``
    some check does not hold (each mismatch is reported with expected and actual);
``error``
    the scenario could not be loaded or built (bad file, missing mesh), or some check
    could not be evaluated (an expected field the result does not have, attacks not
    available in this installation, an engine error). The batch goes on.
``skip``
    the scenario loads and builds, but asks nothing: no ``expect`` block, or an empty one.

Exit codes: **0** every scenario is ``pass`` or ``skip``; **1** some scenario is ``fail``
or ``error`` (something did not hold); **2** bad usage (a PATH that matches nothing, a bad
``--workers`` or ``--scheduler``; raised as :class:`~geom3d.errors.Geom3dError` and printed
by the CLI as one line).

Execution: ``--workers 1`` runs in-process; ``--workers N`` (default ``os.cpu_count()``,
never more than there are scenarios) uses a process pool (``forkserver`` where available,
else ``spawn``: safe with Embree's threads); ``--scheduler tcp://HOST:PORT`` runs on an
existing Dask cluster (scenario and mesh files must be readable at the same absolute paths
on the workers). Worker processes are long-lived, so the per-process caches in
:mod:`geom3d.meshio` (parsed meshes by content hash) and :mod:`geom3d.scene` (merged
scenery + BVH by content digest) make a table shared by many scenarios load once per
worker; each record's ``timing.cache_hit`` and ``timing.meshes_parsed`` show it. Within a
process, scenarios are evaluated one at a time (Dask workers are best run with one thread
and several processes).

Reports come out in path order whatever the scheduling. The JSON report (``--json``) has
sorted keys and is byte-identical across runs except for the ``timing`` objects (the
top-level one and one per record), which hold everything that depends on the run: seconds,
cache hits, worker ids, executor. The JUnit report (``--junit``) has one testsuite for the
batch and one testcase per check (``classname`` = scenario path); a scenario that cannot be
loaded is one ``load`` testcase with an ``error``, a skipped one one ``expectations``
testcase with ``skipped``.
"""

from __future__ import annotations

import glob
import json
import math
import os
import socket
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .errors import Geom3dError, UsageError
from .output import atomic_write, dumps_json
from .tolerances import CHECK_NUMBER_TOL

__all__ = [
    "REPORT_FORMAT",
    "BatchResult",
    "ScenarioFile",
    "check_scenario",
    "exit_code",
    "expand_paths",
    "json_report",
    "junit_report",
    "run_batch",
    "run_check_cli",
    "summary_text",
]

#: ``format`` of the JSON report.
REPORT_FORMAT = "geom3d-check/1"
#: File name endings a folder is searched for.
SCENARIO_SUFFIXES = (".yaml", ".yml", ".json")
STATUSES = ("pass", "fail", "error", "skip")

_GLOB_CHARS = frozenset("*?[")
_MISSING = object()


# --------------------------------------------------------------------------- paths
@dataclass(frozen=True, order=True)
class ScenarioFile:
    """One scenario to check.

    Attributes
    ----------
    display : str
        The path as the user named it (posix separators): used in every report.
    path : str
        Absolute path: what workers open.
    """

    display: str
    path: str


def _display(p: str) -> str:
    return Path(os.path.normpath(p)).as_posix()


def _folder_files(folder: Path) -> list[Path]:
    out = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in files:
            if not name.startswith(".") and name.lower().endswith(SCENARIO_SUFFIXES):
                out.append(Path(root) / name)
    return out


def expand_paths(paths: Iterable[str], *, exclude: Iterable[str] = ()) -> list[ScenarioFile]:
    """Expand command-line PATHs into scenario files: sorted, deduplicated.

    Parameters
    ----------
    paths : iterable of str
        Files (taken whatever their extension), folders (searched recursively for
        ``*.yaml``, ``*.yml``, ``*.json``; hidden files and folders skipped) and globs
        (``*``, ``?``, ``[...]``; ``**`` recurses; a folder a glob matches is searched).
    exclude : iterable of str
        Files never to take (the report files being written).

    Returns
    -------
    list of ScenarioFile
        Sorted by display path; a file named twice (by any route) appears once.

    Raises
    ------
    UsageError
        A PATH that does not exist, a glob that matches nothing, a folder with no
        scenario files.
    """
    skip = {os.path.realpath(e) for e in exclude}
    found: dict[str, str] = {}

    def take(p: Path) -> None:
        real = os.path.realpath(p)
        if real in skip:
            return
        disp = _display(str(p))
        if real not in found or disp < found[real]:
            found[real] = disp

    for arg in paths:
        if not arg:
            raise UsageError("PATH: empty path")
        p = Path(arg)
        if p.is_dir():
            files = _folder_files(p)
            if not files:
                raise UsageError(
                    f"{arg}: no scenario files ({', '.join('*' + s for s in SCENARIO_SUFFIXES)}) "
                    "in this folder"
                )
            for f in files:
                take(f)
        elif p.exists():
            take(p)
        elif _GLOB_CHARS & set(arg):
            matches = sorted(glob.glob(arg, recursive=True))
            n = 0
            for m in matches:
                mp = Path(m)
                if mp.is_dir():
                    for f in _folder_files(mp):
                        take(f)
                        n += 1
                elif mp.is_file():
                    take(mp)
                    n += 1
            if n == 0:
                raise UsageError(f"{arg}: the pattern matches no scenario files")
        else:
            raise UsageError(f"{arg}: no such file or folder")
    files = [ScenarioFile(disp, real) for real, disp in found.items()]
    if not files:
        raise UsageError("no scenario files to check")
    return sorted(files)


# --------------------------------------------------------------------------- comparing
def _same(expected, actual) -> bool:
    """Deep equality of what is expected: numbers within CHECK_NUMBER_TOL, bools only equal
    bools, lists in order, mappings on the keys the expectation writes."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        return isinstance(expected, bool) and isinstance(actual, bool) and expected == actual
    if isinstance(expected, int | float) and isinstance(actual, int | float):
        return math.isclose(expected, actual, rel_tol=0.0, abs_tol=CHECK_NUMBER_TOL)
    if isinstance(expected, dict) and isinstance(actual, dict):
        # only what is written is compared: extra fields in the result are fine
        return all(k in actual and _same(v, actual[k]) for k, v in expected.items())
    if isinstance(expected, list | tuple) and isinstance(actual, list | tuple):
        return len(expected) == len(actual) and all(
            _same(a, b) for a, b in zip(expected, actual, strict=True)
        )
    return expected == actual


def _plain(v):
    """A JSON-safe copy (tuples -> lists, sets -> sorted lists, odd scalars -> str)."""
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [_plain(x) for x in v]
    if isinstance(v, set | frozenset):
        return sorted((_plain(x) for x in v), key=lambda x: json.dumps(x, sort_keys=True))
    if v is None or isinstance(v, bool | int | str):
        return v
    if isinstance(v, float):
        return v if math.isfinite(v) else str(v)
    return str(v)


def _show(v) -> str:
    return json.dumps(_plain(v), ensure_ascii=False, sort_keys=True)


@dataclass
class _Checks:
    """Accumulates check results for one scenario."""

    items: list[dict] = field(default_factory=list)

    def compare(self, name: str, expected, actual, same: Callable | None = None) -> None:
        ok = (same or _same)(expected, actual)
        self.items.append(
            {
                "check": name,
                "status": "pass" if ok else "fail",
                "expected": _plain(expected),
                "actual": _plain(actual),
            }
        )

    def error(self, name: str, message: str, expected=_MISSING) -> None:
        item = {"check": name, "status": "error", "message": message}
        if expected is not _MISSING:
            item["expected"] = _plain(expected)
        self.items.append(item)


def _ids(values) -> list[str] | None:
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        return None
    return values


def _check_affected(checks: _Checks, name: str, expected, actual) -> None:
    ids = _ids(expected)
    if ids is None:
        checks.error(name, "expected a list of trooper ids", expected)
        return
    act = sorted(actual or [])
    checks.compare(name, sorted(set(ids)), act, lambda e, a: set(e) == set(a))


def _check_excluded(checks: _Checks, name: str, expected, actual) -> None:
    if not isinstance(expected, list):
        checks.error(name, "expected a list of ids or of {id, reason}", expected)
        return
    want: dict[str, str | None] = {}
    for e in expected:
        if isinstance(e, str):
            want[e] = None
        elif isinstance(e, dict) and isinstance(e.get("id"), str) and set(e) <= {"id", "reason"}:
            want[e["id"]] = e.get("reason")
        else:
            checks.error(name, f"expected an id or {{id, reason}}, got {_show(e)}", expected)
            return
    got: dict[str, str | None] = {}
    for a in actual or []:
        if isinstance(a, dict):
            got[a.get("id")] = a.get("reason")
        else:
            got[str(a)] = None
    ok = want.keys() == got.keys() and all(r is None or got[i] == r for i, r in want.items())
    with_reasons = any(r is not None for r in want.values())
    if with_reasons:
        exp_show = [{"id": i, "reason": r} if r else {"id": i} for i, r in sorted(want.items())]
        act_show = [{"id": i, "reason": r} for i, r in sorted(got.items())]
    else:
        exp_show, act_show = sorted(want), sorted(got)
    checks.compare(name, exp_show, act_show, lambda e, a: ok)


def _check_lof(scene, checks: _Checks) -> None:
    for e in scene.scenario.expect_lof:
        base = f"lof[{e.from_id}->{e.to_id}]"
        asked = {
            k: v
            for k, v in (
                ("lof", e.lof),
                ("visible", e.visible),
                ("in_arc", e.in_arc),
                ("reason", e.reason),
            )
            if v is not None
        }
        if not asked:
            checks.error(
                base, "this expectation asks nothing (give lof, visible, in_arc or reason)"
            )
            continue
        try:
            result = scene.line_of_fire(e.from_id, e.to_id).to_dict()
        except Geom3dError as exc:
            for k, v in asked.items():
                checks.error(f"{base}.{k}", f"Line of Fire failed: {exc}", v)
            continue
        for k, v in asked.items():
            checks.compare(f"{base}.{k}", v, result.get(k))


def _attacks_unavailable() -> str | None:
    try:
        import geom3d.attacks  # noqa: F401
    except ImportError as exc:
        return f"attacks are unavailable in this installation (geom3d.attacks: {exc})"
    return None


def _check_attacks(scene, checks: _Checks) -> None:
    expect = scene.scenario.expect_attacks
    if not expect:
        return
    unavailable = _attacks_unavailable()
    for aid, spec in expect.items():
        base = f"attacks.{aid}"
        if not isinstance(spec, dict) or not spec:
            checks.error(base, "expected a mapping of expected fields (outcome, affected, ...)")
            continue
        if unavailable:
            for k, v in spec.items():
                checks.error(f"{base}.{k}", unavailable, v)
            continue
        try:
            result = scene.resolve_attack(aid).to_dict()
        except Geom3dError as exc:
            for k, v in spec.items():
                checks.error(f"{base}.{k}", f"resolving the attack failed: {exc}", v)
            continue
        except ImportError as exc:  # e.g. the ruleset's adjudication module is missing
            for k, v in spec.items():
                checks.error(
                    f"{base}.{k}", f"attacks are unavailable in this installation ({exc})", v
                )
            continue
        for k, v in spec.items():
            name = f"{base}.{k}"
            if k not in result:
                checks.error(
                    name,
                    f"the attack result has no field {k!r} (fields: {', '.join(sorted(result))})",
                    v,
                )
            elif k == "affected":
                _check_affected(checks, name, v, result[k])
            elif k == "excluded":
                _check_excluded(checks, name, v, result[k])
            elif k == "troopers":
                _check_attack_troopers(checks, name, v, result[k] or {})
            else:
                checks.compare(name, v, result[k])


def _check_attack_troopers(checks: _Checks, base: str, expected, actual: dict) -> None:
    if not isinstance(expected, dict):
        checks.error(base, "expected a mapping of trooper id -> expected fields", expected)
        return
    for tid, fields in expected.items():
        if not isinstance(fields, dict) or not fields:
            checks.error(f"{base}.{tid}", "expected a mapping of fields (role, dodge, ...)", fields)
            continue
        got = actual.get(tid)
        for k, v in fields.items():
            name = f"{base}.{tid}.{k}"
            if got is None:
                checks.compare(name, v, None)  # the trooper is not in the result
            elif k not in got:
                checks.error(
                    name,
                    f"the result for {tid!r} has no field {k!r} (fields: {', '.join(sorted(got))})",
                    v,
                )
            else:
                checks.compare(name, v, got[k])


# --------------------------------------------------------------------------- one scenario
_EVAL_LOCK = threading.Lock()
_WORKER_ID = None


def _worker_id() -> str:
    global _WORKER_ID
    if _WORKER_ID is None or not _WORKER_ID.endswith(f":{os.getpid()}"):
        _WORKER_ID = f"{socket.gethostname()}:{os.getpid()}"
    return _WORKER_ID


def _relabel(message: str, path: str, display: str) -> str:
    """Errors name the absolute path the worker opened; show the user's path instead."""
    return message.replace(path, display) if path != display else message


def _timing(**kw) -> dict:
    base = {
        "parse_seconds": 0.0,
        "mesh_seconds": 0.0,
        "bvh_seconds": 0.0,
        "load_seconds": 0.0,
        "build_seconds": 0.0,
        "compute_seconds": 0.0,
        "total_seconds": 0.0,
        "cache_hit": False,
        "meshes_parsed": 0,
        "worker": _worker_id(),
    }
    base.update(kw)
    return base


def error_record(display: str, message: str, **extra) -> dict:
    """A record for a scenario that could not be checked at all."""
    rec = {
        "path": display,
        "status": "error",
        "checks": 0,
        "mismatches": [],
        "results": [],
        "error": message,
        "warnings": [],
        "timing": _timing(),
    }
    rec.update(extra)
    return rec


def check_scenario(path: str, display: str | None = None) -> dict:
    """Load one scenario, evaluate its ``expect`` block, return its report record.

    This is the task every worker runs; it never raises for a bad scenario (that is an
    ``error`` record). Evaluations in one process are serialised (the scene cache and the
    BVHs are shared by every task in the process).

    Parameters
    ----------
    path : str
        Scenario file (absolute, so that it works whatever the worker's directory).
    display : str, optional
        The name to report it under (default ``path``).

    Returns
    -------
    dict
        ``path``, ``status`` (pass | fail | error | skip), ``checks`` (count),
        ``mismatches`` ([{check, expected, actual}]), ``results`` (every check with its
        status, expected and actual), ``error`` (message or None), ``warnings`` (the
        scene's), ``timing``: ``parse_seconds`` (reading the scenario file),
        ``mesh_seconds`` + ``bvh_seconds`` = ``load_seconds`` (0 when the scenery came
        from the cache), ``build_seconds`` (the whole scene: cache lookup, load, dropping
        troopers onto surfaces, sanity warnings), ``compute_seconds`` (the checks),
        ``total_seconds``, ``cache_hit`` (scenery and BVH from this process's cache),
        ``meshes_parsed`` (mesh files parsed from source, not from a cache), ``worker``
        (``host:pid``).
    """
    display = path if display is None else display
    with _EVAL_LOCK:
        try:
            return _check_scenario(path, display)
        except Exception as exc:  # an engine bug: report it, keep the batch going
            tb = traceback.format_exc(limit=-10)  # the innermost frames
            return error_record(
                display,
                _relabel(f"internal error: {type(exc).__name__}: {exc}", path, display),
                traceback=tb,
            )


def _check_scenario(path: str, display: str) -> dict:
    from .scenario import load_scenario
    from .scene import Scene

    t_start = time.perf_counter()
    t_parsed = None
    try:
        scenario = load_scenario(path)
        t_parsed = time.perf_counter()
        scene = Scene(scenario)
    except Geom3dError as exc:
        now = time.perf_counter()
        return error_record(
            display,
            _relabel(str(exc), path, display),
            timing=_timing(
                parse_seconds=(t_parsed or now) - t_start,
                total_seconds=now - t_start,
            ),
        )
    t_built = time.perf_counter()
    stats = scene.load_stats
    meshes_parsed = (
        0
        if stats.cache_hit
        else sum(1 for _, rep in scene.mesh_reports if not getattr(rep, "cache_hit", False))
    )
    checks = _Checks()
    _check_lof(scene, checks)
    _check_attacks(scene, checks)
    t_done = time.perf_counter()

    results = checks.items
    mismatches = [
        {"check": r["check"], "expected": r["expected"], "actual": r["actual"]}
        for r in results
        if r["status"] == "fail"
    ]
    errors = [r for r in results if r["status"] == "error"]
    error = None
    if errors:
        status = "error"
        first = errors[0]
        error = f"{first['check']}: {first['message']}"
        if len(errors) > 1:
            error += f" (and {len(errors) - 1} more checks could not be evaluated)"
    elif mismatches:
        status = "fail"
    elif not results:
        status = "skip"
        error = None
    else:
        status = "pass"
    rec = {
        "path": display,
        "status": status,
        "checks": len(results),
        "mismatches": mismatches,
        "results": results,
        "error": _relabel(error, path, display) if error else None,
        "warnings": list(scene.warnings),
        "timing": _timing(
            parse_seconds=t_parsed - t_start,
            mesh_seconds=stats.mesh_seconds,
            bvh_seconds=stats.bvh_seconds,
            load_seconds=stats.mesh_seconds + stats.bvh_seconds,
            build_seconds=t_built - t_parsed,
            compute_seconds=t_done - t_built,
            total_seconds=t_done - t_start,
            cache_hit=bool(stats.cache_hit),
            meshes_parsed=meshes_parsed,
        ),
    }
    if status == "skip":
        rec["skip_reason"] = (
            "no expect block" if not scenario.has_expect else "the expect block asks nothing"
        )
    return rec


def _check_task(path: str, display: str) -> dict:
    """Module-level task for process pools and Dask (picklable by reference)."""
    return check_scenario(path, display)


# --------------------------------------------------------------------------- running
@dataclass
class BatchResult:
    """The outcome of a batch.

    Attributes
    ----------
    records : list of dict
        One per scenario, in path order (see :func:`check_scenario`).
    wall_seconds : float
    executor : str
        ``in-process``, ``processes`` or ``dask``.
    workers : int
    scheduler : str or None
    """

    records: list[dict]
    wall_seconds: float
    executor: str
    workers: int
    scheduler: str | None = None

    def counts(self) -> dict[str, int]:
        c = dict.fromkeys(STATUSES, 0)
        for r in self.records:
            c[r["status"]] += 1
        return c


OnResult = Callable[[int, dict], None]


_PRELOAD = (
    "geom3d.batch",
    "geom3d.scenario",
    "geom3d.scene",
    "geom3d.lof",
    "geom3d.meshio",
    "geom3d.attacks",
    "trimesh",
    "scipy.sparse.csgraph",
)


def _mp_context():
    import multiprocessing as mp

    methods = mp.get_all_start_methods()
    if "forkserver" in methods:
        ctx = mp.get_context("forkserver")
        # imported once in the fork server instead of once per worker
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


_SCHEMES = ("tcp", "tls", "ws", "wss", "ucx", "inproc")
#: How long ``--scheduler`` waits for the scheduler to answer.
_CONNECT_TIMEOUT = "15s"


def _check_address(address: str) -> None:
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
    _check_address(address)
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


def exit_code(result: BatchResult) -> int:
    """0 when every scenario is pass or skip, 1 otherwise."""
    return 0 if all(r["status"] in ("pass", "skip") for r in result.records) else 1


# --------------------------------------------------------------------------- reports
def _sorted_keys(obj):
    if isinstance(obj, dict):
        return {k: _sorted_keys(obj[k]) for k in sorted(obj)}
    if isinstance(obj, list):
        return [_sorted_keys(v) for v in obj]
    return obj


def json_report(result: BatchResult) -> dict:
    """The ``--json`` document (keys sorted; run-dependent data under ``timing``)."""
    c = result.counts()
    recs = result.records
    return _sorted_keys(
        {
            "format": REPORT_FORMAT,
            "units": "mm",
            "summary": {
                "scenarios": len(recs),
                **c,
                "checks": sum(r["checks"] for r in recs),
                "mismatches": sum(len(r["mismatches"]) for r in recs),
                "exit_code": exit_code(result),
            },
            "records": recs,
            "timing": {
                "wall_seconds": result.wall_seconds,
                "executor": result.executor,
                "workers": result.workers,
                "scheduler": result.scheduler,
                "load_seconds": sum(r["timing"]["load_seconds"] for r in recs),
                "compute_seconds": sum(r["timing"]["compute_seconds"] for r in recs),
                "parse_seconds": sum(r["timing"]["parse_seconds"] for r in recs),
                "build_seconds": sum(r["timing"]["build_seconds"] for r in recs),
            },
        }
    )


def _failure_text(r: dict) -> str:
    if r["status"] == "fail":
        return f"expected {_show(r['expected'])}, got {_show(r['actual'])}"
    return r.get("message", "")


def junit_report(result: BatchResult) -> str:
    """The ``--junit`` document: JUnit XML, one testcase per check."""
    import xml.etree.ElementTree as ET

    suites = ET.Element("testsuites", name="geom3d check")
    suite = ET.SubElement(suites, "testsuite", name="geom3d check")
    props = ET.SubElement(suite, "properties")
    for k, v in (
        ("executor", result.executor),
        ("workers", result.workers),
        ("scheduler", result.scheduler or ""),
    ):
        ET.SubElement(props, "property", name=k, value=str(v))
    n = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for rec in result.records:
        total = rec["timing"]["total_seconds"]
        results = rec["results"]
        per = total / max(1, len(results))
        if not results:
            case = ET.SubElement(
                suite,
                "testcase",
                classname=rec["path"],
                name="load" if rec["status"] == "error" else "expectations",
                file=rec["path"],
                time=f"{total:.3f}",
            )
            n["tests"] += 1
            if rec["status"] == "error":
                err = ET.SubElement(case, "error", message=rec["error"] or "", type="error")
                err.text = rec.get("traceback") or rec["error"] or ""
                n["errors"] += 1
            else:
                ET.SubElement(case, "skipped", message=rec.get("skip_reason", "nothing to check"))
                n["skipped"] += 1
            continue
        for r in results:
            case = ET.SubElement(
                suite,
                "testcase",
                classname=rec["path"],
                name=r["check"],
                file=rec["path"],
                time=f"{per:.3f}",
            )
            n["tests"] += 1
            if r["status"] == "fail":
                msg = _failure_text(r)
                el = ET.SubElement(case, "failure", message=msg, type="mismatch")
                el.text = f"{rec['path']}: {r['check']}: {msg}"
                n["failures"] += 1
            elif r["status"] == "error":
                msg = _failure_text(r)
                el = ET.SubElement(case, "error", message=msg, type="error")
                el.text = f"{rec['path']}: {r['check']}: {msg}"
                n["errors"] += 1
    for el in (suites, suite):
        for k, v in n.items():
            el.set(k, str(v))
        el.set("time", f"{result.wall_seconds:.3f}")
    ET.indent(suites)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"


def _problem_lines(rec: dict) -> list[str]:
    """One line per mismatch; checks that failed to evaluate for the same reason share one."""
    lines = []
    if rec["status"] == "error" and not rec["results"]:
        lines.append(f"{rec['path']}: error: {rec['error']}")
    errors: dict[str, list[str]] = {}
    for r in rec["results"]:
        if r["status"] == "fail":
            lines.append(f"{rec['path']}: {r['check']}: {_failure_text(r)}")
        elif r["status"] == "error":
            errors.setdefault(r["message"], []).append(r["check"])
    for message, names in errors.items():
        which = names[0] if len(names) == 1 else f"{names[0]} (and {len(names) - 1} more checks)"
        lines.append(f"{rec['path']}: {which}: error: {message}")
    return lines


_TABLE_ROWS_MAX = 40


def summary_text(result: BatchResult, *, width: int = 120, color: bool = False) -> str:
    """The terminal summary: a table, the problems one per line, and the totals."""
    from io import StringIO

    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    recs = result.records
    show = recs if len(recs) <= _TABLE_ROWS_MAX else [r for r in recs if r["status"] != "pass"]
    table = Table(title="geom3d check")
    for col, kw in (
        ("scenario", {"overflow": "fold"}),
        ("status", {}),
        ("checks", {"justify": "right"}),
        ("failed", {"justify": "right"}),
        ("seconds", {"justify": "right"}),
        ("note", {"overflow": "fold"}),
    ):
        table.add_column(col, **kw)
    style = {"pass": "green", "fail": "red", "error": "bold red", "skip": "yellow"}
    for r in show:
        bad = sum(1 for x in r["results"] if x["status"] != "pass")
        if r["status"] == "error":
            note = r["error"] or ""
        elif r["status"] == "fail":
            m = r["mismatches"][0]
            note = f"{m['check']}: expected {_show(m['expected'])}, got {_show(m['actual'])}"
        elif r["status"] == "skip":
            note = r.get("skip_reason", "")
        else:
            note = "cached scenery" if r["timing"]["cache_hit"] else ""
        table.add_row(
            Text(r["path"]),
            Text(r["status"], style=style[r["status"]]),
            str(r["checks"]),
            str(bad),
            f"{r['timing']['total_seconds']:.2f}",
            Text(note),
        )
    buf = StringIO()
    con = Console(
        file=buf,
        width=width,
        color_system="standard" if color else None,
        force_terminal=color,
    )
    con.print(table)
    if len(show) < len(recs):
        con.print(f"({len(recs) - len(show)} passing scenarios not listed; see --json)")
    problems = [line for r in recs for line in _problem_lines(r)]
    if problems:
        con.print("Problems:", highlight=False)
        for line in problems:
            con.print(f"  {line}", highlight=False, markup=False, soft_wrap=True)
    con.print(_totals_line(result), highlight=False, markup=False, soft_wrap=True)
    return buf.getvalue()


def _totals_line(result: BatchResult) -> str:
    c = result.counts()
    recs = result.records
    n_checks = sum(r["checks"] for r in recs)
    n_bad = sum(len(r["mismatches"]) for r in recs)
    where = {
        "in-process": "in-process",
        "processes": f"{result.workers} worker processes",
        "dask": f"{result.workers} Dask workers at {result.scheduler}",
    }[result.executor]
    return (
        f"{len(recs)} scenarios: {c['pass']} pass, {c['fail']} fail, {c['error']} error, "
        f"{c['skip']} skip; {n_checks} checks, {n_bad} mismatches; "
        f"{result.wall_seconds:.2f} s ({where})"
    )


# --------------------------------------------------------------------------- progress
class _Progress:
    """Rich bar on a terminal (stderr), plain lines otherwise, nothing when quiet."""

    def __init__(self, mode: str, total: int):
        self.mode = mode  # "bar" | "lines" | "off"
        self.total = total
        self.done = 0
        self.counts = dict.fromkeys(STATUSES, 0)
        self._bar = None
        self._task = None

    def __enter__(self):
        if self.mode == "bar":
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            self._bar = Progress(
                TextColumn("check"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[counts]}"),
                TimeElapsedColumn(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                console=Console(file=sys.stderr),
                transient=True,
            )
            self._bar.__enter__()
            self._task = self._bar.add_task("check", total=self.total, counts="")
        return self

    def __call__(self, index: int, rec: dict) -> None:
        self.done += 1
        self.counts[rec["status"]] += 1
        if self.mode == "bar":
            c = self.counts
            text = f"{c['pass']} pass {c['fail']} fail {c['error']} error"
            self._bar.update(self._task, completed=self.done, counts=text)
        elif self.mode == "lines":
            print(f"[{self.done}/{self.total}] {rec['path']}: {rec['status']}", file=sys.stderr)
            sys.stderr.flush()

    def __exit__(self, *exc):
        if self._bar is not None:
            self._bar.__exit__(*exc)


# --------------------------------------------------------------------------- CLI
def _check_output(opt: str, path: str | None) -> None:
    if path is None:
        return
    p = Path(path)
    if p.is_dir():
        raise UsageError(f"{opt}: {path} is a folder, not a file")
    parent = p.parent if str(p.parent) else Path(".")
    for anc in (parent, *parent.parents):
        if anc.exists():
            if not anc.is_dir():
                raise UsageError(f"{opt}: cannot write {path}: {anc} is not a folder")
            if not os.access(anc, os.W_OK | os.X_OK):
                raise UsageError(f"{opt}: cannot write {path}: {anc} is not writable")
            break


def run_check_cli(args) -> int:
    """``geom3d check``: run the batch, print the summary, write the reports.

    Returns the exit code (0 all hold, 1 some check failed or some scenario errored).
    Usage problems raise :class:`~geom3d.cli.UsageError` (exit 2 in the CLI).
    """
    quiet = bool(getattr(args, "quiet", False))
    workers = getattr(args, "workers", None)
    scheduler = getattr(args, "scheduler", None)
    json_out = getattr(args, "json_out", None)
    junit_out = getattr(args, "junit", None)
    if workers is not None and workers < 1:
        raise UsageError(f"--workers: must be at least 1 (got {workers})")
    if scheduler is not None and workers is not None:
        raise UsageError("--workers and --scheduler cannot be combined (the cluster has its own)")
    if scheduler is not None:
        _check_address(scheduler)
    _check_output("--json", json_out)
    _check_output("--junit", junit_out)
    files = expand_paths(args.paths, exclude=[p for p in (json_out, junit_out) if p])
    mode = "off" if quiet else ("bar" if sys.stderr.isatty() else "lines")
    with _Progress(mode, len(files)) as bar:
        result = run_batch(files, workers=workers, scheduler=scheduler, on_result=bar)
    if json_out:
        atomic_write(json_out, dumps_json(json_report(result)))
    if junit_out:
        atomic_write(junit_out, junit_report(result))
    if quiet:
        for r in result.records:
            for line in _problem_lines(r):
                print(line)
    else:
        width, color = 120, sys.stdout.isatty()
        if color:
            try:
                width = max(80, os.get_terminal_size(sys.stdout.fileno()).columns)
            except OSError:
                pass
        sys.stdout.write(summary_text(result, width=width, color=color))
    sys.stdout.flush()
    return exit_code(result)
