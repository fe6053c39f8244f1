"""One scenario -> its report record, and the outcome of a batch of them.

Statuses (one per scenario):

``pass``
    every check holds;
``fail``
    some check does not hold (each mismatch is reported with expected and actual);
``error``
    the scenario could not be loaded or built (bad file, missing mesh), or some check
    could not be evaluated (an expected field the result does not have, an engine
    error). The batch goes on.
``skip``
    the scenario loads and builds, but asks nothing: no ``expect`` block, or an empty one.

Under ``--strict`` (:func:`apply_strict`), a scenario whose scene has warnings (a buried
or floating trooper, overlapping bases, ...) and would pass or be skipped is ``fail``,
except for warnings the scenario's ``accept_warnings`` or ``--allow-warning`` accept
(shell-style patterns over the whole message) and notes (``severity: note``, SPEC 12.2).
"""

from __future__ import annotations

import os
import socket
import threading
import time
import traceback
from dataclasses import dataclass, field
from fnmatch import fnmatchcase

from geom3d.api import build_scene
from geom3d.check.expectations import Checks, check_attacks, check_lof
from geom3d.check.lines import (
    error_line,
    expectation_lines,
    field_line,
    line_of,
    message_lines,
)
from geom3d.core.errors import Geom3dError
from geom3d.core.messages import record_messages
from geom3d.scenario import load_scenario

#: Set by ``geom3d check``'s SIGTERM handler before it raises. An exception that reaches
#: :func:`check_scenario` while it is set is the interrupt itself, re-wrapped by code on
#: the way (e.g. numba's compiler turns any exception into its own error), never a result.
TERMINATION = threading.Event()


class TerminationRequested(KeyboardInterrupt):
    """``geom3d check`` was asked to stop (SIGTERM): raised instead of a record."""


__all__ = [
    "STATUSES",
    "TERMINATION",
    "BatchResult",
    "TerminationRequested",
    "accepted_by",
    "apply_strict",
    "check_scenario",
    "error_record",
    "exit_code",
    "is_note",
    "notes_only",
    "warning_text",
    "warnings_only",
]

STATUSES = ("pass", "fail", "error", "skip")

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
        "check_seconds": [],
        "worker": _worker_id(),
    }
    base.update(kw)
    return base


def error_record(display: str, message: str, *, elapsed: float | None = None, **extra) -> dict:
    """A record for a scenario that could not be checked at all.

    Parameters
    ----------
    display : str
        The scenario's path as shown.
    message : str
        Why it could not be checked.
    elapsed : float, optional
        Seconds the scenario ran before it was given up (a time-out, a dead worker): its
        ``timing.total_seconds``, so the row shows how long it really took (default 0).
    **extra
        More fields of the record (``stage``, ``line``, ``traceback``, ``timing``).
    """
    rec: dict = {
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
    if elapsed is not None:
        rec["timing"] = {**rec["timing"], "total_seconds": float(elapsed)}
    return rec


def check_scenario(path: str, display: str | None = None, on_stage=None) -> dict:
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
    on_stage : callable(str), optional
        Told how far the scenario got: ``loading the scenario``, ``building the scene``,
        ``evaluating lof[a->b] (2 of 7 expectations done)``, ... The first call marks the
        start of the scenario's own work (what ``--timeout`` times).

    Returns
    -------
    dict
        ``path``, ``status`` (pass | fail | error | skip), ``checks`` (count),
        ``mismatches`` ([{check, expected, actual}]), ``results`` (every check with its
        status, expected and actual), ``error`` (message or None), ``warnings`` (the
        scene's warnings and notes: a note is ``{severity: note, message}``, a fact,
        never a ``--strict`` failure and never counted as a warning; SPEC 12.2),
        ``warnings_at`` (the line of the trooper or piece each one is about, or None),
        ``line`` (an ``error`` record's: where the load error is, when known), ``timing``:
        ``parse_seconds`` (reading the scenario file),
        ``mesh_seconds`` + ``bvh_seconds`` = ``load_seconds`` (0 when the scenery came
        from the cache), ``build_seconds`` (the whole scene: cache lookup, load, dropping
        troopers onto surfaces, sanity warnings), ``compute_seconds`` (the checks),
        ``total_seconds``, ``cache_hit`` (scenery and BVH from this process's cache),
        ``meshes_parsed`` (mesh files parsed from source, not from a cache),
        ``check_seconds`` (one per entry of ``results``: its share of the evaluation that
        answered it), ``worker`` (``host:pid``).
    """
    display = path if display is None else display
    stage = on_stage or (lambda text: None)
    with _EVAL_LOCK:
        try:
            return _check_scenario(path, display, stage)
        except Exception as exc:  # an engine bug: report it, keep the batch going
            if TERMINATION.is_set():  # SIGTERM landed inside code that wrapped it (numba's
                raise TerminationRequested("SIGTERM") from exc  # compiler): not a result
            tb = traceback.format_exc(limit=-10)  # the innermost frames
            return error_record(
                display,
                _relabel(f"internal error: {type(exc).__name__}: {exc}", path, display),
                traceback=tb,
            )


def _status(results: list[dict], mismatches: list[dict]) -> tuple[str, str | None]:
    errors = [r for r in results if r["status"] == "error"]
    if errors:
        first = errors[0]
        error = f"{first['check']}: {first['message']}"
        if len(errors) > 1:
            error += f" (and {len(errors) - 1} more checks could not be evaluated)"
        return "error", error
    if mismatches:
        return "fail", None
    return ("skip" if not results else "pass"), None


def _check_scenario(path: str, display: str, stage) -> dict:
    t_start = time.perf_counter()
    t_parsed = None
    try:
        stage("loading the scenario")
        scenario = load_scenario(path)
        t_parsed = time.perf_counter()
        stage("building the scene")
        scene = build_scene(scenario)
    except Geom3dError as exc:
        now = time.perf_counter()
        line = error_line(str(exc))  # a YAML syntax error names its line
        if line is None:  # a field path (``troopers[1].position: ...``): where it is
            line = field_line(path, str(exc))
        return error_record(
            display,
            _relabel(str(exc), path, display),
            **({"line": line} if line is not None else {}),
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
    total = len(scenario.expect_lof) + len(scenario.expect_attacks)
    checks = Checks(progress=lambda name, k: stage(f"evaluating {name} ({k} of {total} done)"))
    check_lof(scene, checks)
    check_attacks(scene, checks)
    t_done = time.perf_counter()

    results = checks.items
    if results:  # where each expectation is written (GitHub annotations' line=)
        lines = expectation_lines(path)
        for r in results:
            line = line_of(lines, r["check"])
            if line is not None:
                r["line"] = line
    mismatches = [
        {"check": r["check"], "expected": r["expected"], "actual": r["actual"]}
        for r in results
        if r["status"] == "fail"
    ]
    status, error = _status(results, mismatches)
    rec = {
        "path": display,
        "status": status,
        "checks": len(results),
        "mismatches": mismatches,
        "results": results,
        "error": _relabel(error, path, display) if error else None,
        "warnings": record_messages(scene.warnings),
        "warnings_at": message_lines(path, scene.warnings),
        "accept_warnings": list(scenario.accept_warnings),
        "scan_report": scene.scan_report(),
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
            check_seconds=list(checks.seconds),
        ),
    }
    if status == "skip":
        rec["skip_reason"] = (
            "no expect block" if not scenario.has_expect else "the expect block asks nothing"
        )
    return rec


@dataclass
class BatchResult:
    """The outcome of a batch.

    Attributes
    ----------
    records : list of dict
        One per scenario, in path order (see :func:`check_scenario`).
    wall_seconds : float
    executor : str
        ``in-process``, ``processes``, ``mixed`` (the default mode: in-process, then a
        pool of ``workers`` processes) or ``dask``.
    workers : int
    scheduler : str or None
    interrupted : str or None
        ``SIGINT`` / ``SIGTERM`` when the batch was stopped before the end (the records
        not finished are ``error`` records saying so).
    notes : list of str
        Discovery notes (files skipped: no ``format: geom3d/1``).
    """

    records: list[dict]
    wall_seconds: float
    executor: str
    workers: int
    scheduler: str | None = None
    interrupted: str | None = None
    notes: list[str] = field(default_factory=list)
    #: how the batch ran and why (``auto: in-process (3 scenarios, ...)``)
    choice: str = ""

    def counts(self) -> dict[str, int]:
        """Number of scenarios per status (every status present)."""
        c = dict.fromkeys(STATUSES, 0)
        for r in self.records:
            c[r["status"]] += 1
        return c


def warning_text(w) -> str:
    """A warning's message: warnings are strings, or mappings with ``message`` (and a
    ``severity``, SPEC 12.2)."""
    return w if isinstance(w, str) else str(w.get("message", ""))


def is_note(w) -> bool:
    """A fact rather than a likely mistake (``severity: note``, SPEC 12.2): never fails."""
    return isinstance(w, dict) and w.get("severity") == "note"


def warnings_only(rec: dict) -> list:
    """A record's scene warnings without its notes: what the totals, the ``warn`` column
    and ``summary.warnings`` count (a note is a fact, never a warning; SPEC 13.4)."""
    return [w for w in rec.get("warnings") or () if not is_note(w)]


def notes_only(rec: dict) -> list:
    """A record's notes (``severity: note``), listed apart from its warnings."""
    return [w for w in rec.get("warnings") or () if is_note(w)]


def accepted_by(w, patterns) -> str | None:
    """The first shell-style pattern (:func:`fnmatch.fnmatchcase`, whole message) that
    accepts warning ``w``, or None."""
    text = warning_text(w)
    return next((p for p in patterns if fnmatchcase(text, p)), None)


def apply_strict(rec: dict, allow=()) -> dict:
    """``--strict``: a record whose scene has warnings that would pass (or be skipped)
    fails, except for notes (SPEC 12.2) and warnings accepted by a pattern: the
    scenario's ``accept_warnings`` or ``--allow-warning`` (``allow``).

    Returns a new record: ``accepted_warnings`` (the accepted ones, each with its
    pattern) when any; status ``fail`` and ``strict_failure`` (the reason) when a
    warning is left; the warnings themselves stay in ``warnings``.
    """
    warnings = rec.get("warnings") or []
    if not warnings:
        return rec
    patterns = [*rec.get("accept_warnings", ()), *allow]
    out = dict(rec)
    left = []
    taken = []
    for w in warnings:
        pat = accepted_by(w, patterns)
        if pat is not None:
            taken.append({"warning": warning_text(w), "pattern": pat})
        elif not is_note(w):
            left.append(w)
    if taken:
        out["accepted_warnings"] = taken
    if not left or rec["status"] not in ("pass", "skip"):
        return out
    n = len(left)
    out["status"] = "fail"
    out["strict_failure"] = f"{n} scene warning{'s' if n != 1 else ''} (--strict)"
    return out


def exit_code(result: BatchResult) -> int:
    """0 when every scenario is pass or skip, 1 otherwise."""
    return 0 if all(r["status"] in ("pass", "skip") for r in result.records) else 1
