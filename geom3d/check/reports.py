"""The reports of a batch: the ``--json`` document, JUnit XML and the terminal summary.

The JSON report has sorted keys and is byte-identical across runs except for the
``timing`` objects (the top-level one and one per record), which hold everything that
depends on the run: seconds, cache hits, worker ids, executor. The JUnit report has one
testsuite for the batch and one testcase per check (``classname`` = the scenario path
without its extension, as CI servers split class names on the last dot; ``file`` = the
path; ``time`` = that check's own evaluation time); a scenario that cannot be loaded is one
``load`` testcase with an ``error``, a skipped one one ``expectations`` testcase with
``skipped``; scene warnings are in the ``system-out`` of the scenario's first testcase
(and of the suite), and under ``--strict`` a ``scene warnings`` testcase fails on them.
``--format github`` prints GitHub Actions workflow annotations (``::error file=...::``).

Every text taken from the input (paths, ids, messages) reaches the terminal and the XML
through :func:`~geom3d.core.output.safe_text`: control characters and lone surrogates are
written as visible escapes, never raw (the JSON report escapes them as ``\\uXXXX``).
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from io import StringIO

from geom3d.check.expectations import is_tolerance, show
from geom3d.check.record import (
    BatchResult,
    exit_code,
    is_note,
    notes_only,
    warning_text,
    warnings_only,
)
from geom3d.core.output import safe_text

__all__ = [
    "REPORT_FORMAT",
    "executor_text",
    "github_lines",
    "json_report",
    "junit_report",
    "problem_lines",
    "summary_text",
    "totals_line",
    "warning_lines",
]

#: ``format`` of the JSON report.
REPORT_FORMAT = "geom3d-check/1"
#: More scenarios than this: the summary table lists only those that did not pass.
_TABLE_ROWS_MAX = 40


def _sorted_keys(obj):
    if isinstance(obj, dict):
        return {k: _sorted_keys(obj[k]) for k in sorted(obj)}
    if isinstance(obj, list):
        return [_sorted_keys(v) for v in obj]
    return obj


def json_report(result: BatchResult) -> dict:
    """The ``--json`` document (keys sorted; run-dependent data under ``timing``)."""
    recs = result.records
    n_notes = sum(len(notes_only(r)) for r in recs)
    return _sorted_keys(
        {
            "format": REPORT_FORMAT,
            "units": "mm",
            "summary": {
                "scenarios": len(recs),
                **result.counts(),
                "checks": sum(r["checks"] for r in recs),
                "mismatches": sum(len(r["mismatches"]) for r in recs),
                "warnings": sum(len(warnings_only(r)) for r in recs),
                **({"notes": n_notes} if n_notes else {}),  # counted apart
                "exit_code": exit_code(result),
                **({"interrupted": result.interrupted} if result.interrupted else {}),
            },
            "records": recs,
            **({"notes": list(result.notes)} if result.notes else {}),
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
        diff = r.get("difference")
        if diff and isinstance(r["expected"], dict) and not is_tolerance(r["expected"]):
            return diff  # only the fields that differ, not the whole actual mapping
        got = f"expected {show(r['expected'])}, got {show(r['actual'])}"
        return f"{diff} ({got})" if diff else got
    return r.get("message", "")


def _own_error(rec: dict) -> str:
    """The record's error without the scenario path it often starts with."""
    err = rec.get("error") or ""
    prefix = f"{rec['path']}: "
    return err[len(prefix) :] if err.startswith(prefix) else err


def _lines(text: str) -> str:
    """Multi-line text made safe line by line (the line breaks stay)."""
    return "\n".join(safe_text(line) for line in text.split("\n"))


def classname(path: str) -> str:
    """JUnit ``classname`` of a scenario: its path without the file extension."""
    stem, ext = os.path.splitext(path)
    return stem if ext and "/" not in ext else path


def _check_times(rec: dict) -> list[float]:
    n = len(rec["results"])
    times = rec["timing"].get("check_seconds") or []
    if len(times) == n:
        return times
    return [rec["timing"]["compute_seconds"] / n] * n if n else []


def _case(suite: ET.Element, rec: dict, name: str, seconds: float) -> ET.Element:
    return ET.SubElement(
        suite,
        "testcase",
        classname=safe_text(classname(rec["path"])),
        name=safe_text(name),
        file=safe_text(rec["path"]),
        time=f"{seconds:.3f}",
    )


def _junit_record(suite: ET.Element, rec: dict, n: dict[str, int]) -> None:
    cases: list[ET.Element] = []
    path = safe_text(rec["path"])
    if not rec["results"]:
        error = rec["status"] == "error"
        case = _case(
            suite, rec, "load" if error else "expectations", rec["timing"]["total_seconds"]
        )
        cases.append(case)
        n["tests"] += 1
        if error:
            msg = safe_text(_own_error(rec))
            err = ET.SubElement(case, "error", message=msg, type="error")
            tb = rec.get("traceback") or ""
            err.text = _lines(tb) if tb else f"{path}: {msg}"
            n["errors"] += 1
        elif not rec.get("strict_failure"):
            ET.SubElement(
                case, "skipped", message=safe_text(rec.get("skip_reason", "nothing to check"))
            )
            n["skipped"] += 1
    for r, seconds in zip(rec["results"], _check_times(rec), strict=True):
        case = _case(suite, rec, r["check"], seconds)
        cases.append(case)
        n["tests"] += 1
        if r["status"] in ("fail", "error"):
            msg = safe_text(_failure_text(r))
            tag, kind, count = (
                ("failure", "mismatch", "failures")
                if r["status"] == "fail"
                else ("error", "error", "errors")
            )
            el = ET.SubElement(case, tag, message=msg, type=kind)
            el.text = f"{path}: {safe_text(r['check'])}: {msg}"
            n[count] += 1
    if rec.get("strict_failure"):
        case = _case(suite, rec, "scene warnings", 0.0)
        cases.append(case)
        n["tests"] += 1
        el = ET.SubElement(
            case, "failure", message=safe_text(rec["strict_failure"]), type="scene-warning"
        )
        el.text = "\n".join(warning_lines(rec))
        n["failures"] += 1
    if rec["warnings"] and cases:
        ET.SubElement(cases[0], "system-out").text = "\n".join(warning_lines(rec))


def junit_report(result: BatchResult) -> str:
    """The ``--junit`` document: JUnit XML, one testcase per check."""
    suites = ET.Element("testsuites", name="geom3d check")
    suite = ET.SubElement(suites, "testsuite", name="geom3d check")
    props = ET.SubElement(suite, "properties")
    for k, v in (
        ("executor", result.executor),
        ("workers", result.workers),
        ("scheduler", result.scheduler or ""),
        ("interrupted", result.interrupted or ""),
    ):
        ET.SubElement(props, "property", name=k, value=safe_text(str(v)))
    n = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for rec in result.records:
        _junit_record(suite, rec, n)
    warnings = [line for rec in result.records for line in warning_lines(rec)]
    if warnings:
        ET.SubElement(suite, "system-out").text = "\n".join(warnings)
    for el in (suites, suite):
        for k, v in n.items():
            el.set(k, str(v))
        el.set("time", f"{result.wall_seconds:.3f}")
    ET.indent(suites)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"


def _problems(rec: dict) -> list[tuple[str, str]]:
    """``(what, message)`` for everything that did not hold (no path, raw text)."""
    out = []
    if rec["status"] == "error" and not rec["results"]:
        out.append(("error", _own_error(rec)))
    errors: dict[str, list[str]] = {}
    for r in rec["results"]:
        if r["status"] == "fail":
            out.append((r["check"], _failure_text(r)))
        elif r["status"] == "error":
            errors.setdefault(r["message"], []).append(r["check"])
    for message, names in errors.items():
        which = names[0] if len(names) == 1 else f"{names[0]} (and {len(names) - 1} more checks)"
        out.append((which, f"error: {message}"))
    if rec.get("strict_failure"):
        out.append(("fail", rec["strict_failure"]))
    return out


def problem_lines(rec: dict) -> list[str]:
    """One line per mismatch (every one); checks that failed to evaluate for the same
    reason share one; the path once at the start of each line."""
    path = safe_text(rec["path"])
    return [f"{path}: {safe_text(what)}: {safe_text(msg)}" for what, msg in _problems(rec)]


def _accepted(rec: dict) -> dict[str, str]:
    """Warning text -> the pattern that accepted it (``--strict`` records)."""
    return {a["warning"]: a["pattern"] for a in rec.get("accepted_warnings", ())}


def warning_lines(rec: dict, *, warnings: bool = True, notes: bool = True) -> list[str]:
    """One line per scene warning: ``PATH: warning: TEXT`` (``note:`` for a note, SPEC
    12.2), `` (accepted: PATTERN)`` after one a pattern accepted; only the warnings with
    ``notes=False``, only the notes with ``warnings=False``."""
    path = safe_text(rec["path"])
    taken = _accepted(rec)
    out = []
    for w in rec["warnings"]:
        text = warning_text(w)
        kind = "note" if is_note(w) else "warning"
        if not (notes if kind == "note" else warnings):
            continue
        tail = f" (accepted: {safe_text(taken[text])})" if text in taken else ""
        out.append(f"{path}: {kind}: {safe_text(text)}{tail}")
    return out


def _gh_data(text: str) -> str:
    return safe_text(text).replace("%", "%25")


def _gh_prop(text: str) -> str:
    return _gh_data(text).replace(":", "%3A").replace(",", "%2C")


def github_lines(result: BatchResult) -> list[str]:
    """GitHub Actions workflow annotations: ``::error`` for every problem (with ``line=``
    where the expectation, or the load error, names one), ``::warning`` for every scene
    warning (``::error`` under ``--strict``; ``::notice`` for an accepted warning), titled
    ``scene warning``; ``::notice`` titled ``scene note`` for a note. A warning or note
    about a trooper or piece carries the line of its entry."""
    lines = []
    for rec in result.records:
        f = _gh_prop(rec["path"])
        where = {r["check"]: r.get("line") for r in rec["results"]}
        for what, msg in _problems(rec):
            line = where.get(what) if what in where else rec.get("line")
            at = f",line={line}" if line else ""
            lines.append(f"::error file={f}{at},title=geom3d check::{_gh_data(f'{what}: {msg}')}")
        level = "error" if rec.get("strict_failure") else "warning"
        taken = _accepted(rec)
        lines_at = list(rec.get("warnings_at") or ())
        for k, w in enumerate(rec["warnings"]):
            text = warning_text(w)
            wline = lines_at[k] if k < len(lines_at) else None
            at = f",line={wline}" if wline else ""
            if is_note(w):
                lvl, title = "notice", "scene note"
            else:
                lvl, title = ("notice" if text in taken else level), "scene warning"
            lines.append(f"::{lvl} file={f}{at},title={title}::{_gh_data(text)}")
    return lines


def _note(r: dict) -> str:
    if r["status"] == "error":
        return _own_error(r)
    if r["status"] == "fail":
        if r.get("strict_failure") and not r["mismatches"]:
            return r["strict_failure"]
        k = len(r["mismatches"])
        names = ", ".join(m["check"] for m in r["mismatches"])
        return f"{k} mismatch{'es' if k != 1 else ''}: {names}"
    if r["status"] == "skip":
        return r.get("skip_reason", "")
    return "cached scenery" if r["timing"]["cache_hit"] else ""


def _path_lines(path: str, width: int) -> str:
    """``path`` broken after ``/`` into lines of at most ``width`` where it can be: a
    file or folder name is never split."""
    parts = path.split("/")
    lines, cur = [], ""
    for i, part in enumerate(parts):
        piece = part + ("/" if i < len(parts) - 1 else "")
        if cur and len(cur) + len(piece) > width:
            lines.append(cur)
            cur = ""
        cur += piece
    lines.append(cur)
    return "\n".join(lines)


def summary_text(result: BatchResult, *, width: int = 120, color: bool = False) -> str:
    """The terminal summary: a table, the problems and warnings one per line, the totals."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    recs = result.records
    show_recs = recs if len(recs) <= _TABLE_ROWS_MAX else [r for r in recs if r["status"] != "pass"]
    paths = [safe_text(r["path"]) for r in show_recs]
    longest_name = max((len(p) for path in paths for p in path.split("/")), default=8) + 1
    path_width = max(longest_name, min(max((len(p) for p in paths), default=8), width // 3))
    table = Table(title="geom3d check")
    table.add_column("scenario", no_wrap=True, min_width=min(path_width, longest_name))
    table.add_column("status")
    for col in ("checks", "failed", "warn", "seconds"):
        table.add_column(col, justify="right")
    table.add_column("note", overflow="fold")
    style = {"pass": "green", "fail": "red", "error": "bold red", "skip": "yellow"}
    for r, path in zip(show_recs, paths, strict=True):
        table.add_row(
            Text(_path_lines(path, path_width)),
            Text(r["status"], style=style[r["status"]]),
            str(r["checks"]),
            str(sum(1 for x in r["results"] if x["status"] != "pass")),
            str(len(warnings_only(r))),
            f"{r['timing']['total_seconds']:.2f}",
            Text(safe_text(_note(r))),
        )
    buf = StringIO()
    con = Console(
        file=buf,
        width=width,
        color_system="standard" if color else None,
        force_terminal=color,
    )
    con.print(table)
    if len(show_recs) < len(recs):
        con.print(f"({len(recs) - len(show_recs)} passing scenarios not listed; see --json)")
    for title, lines in (
        ("Problems:", [line for r in recs for line in problem_lines(r)]),
        ("Warnings:", [line for r in recs for line in warning_lines(r, notes=False)]),
        ("Notes:", [line for r in recs for line in warning_lines(r, warnings=False)]),
    ):
        if lines:
            con.print(title, highlight=False)
            for line in lines:
                con.print(f"  {line}", highlight=False, markup=False, soft_wrap=True)
    con.print(totals_line(result), highlight=False, markup=False, soft_wrap=True)
    return buf.getvalue()


def _plural(n: int, word: str, plural: str | None = None) -> str:
    return f"{n} {word if n == 1 else plural or word + 's'}"


def executor_text(result: BatchResult) -> str:
    """Where the batch ran, in words: ``in-process``, ``1 worker process``, ``2 worker
    processes``, ``in-process, then 2 worker processes``, ``3 Dask workers at ADDR``."""
    procs = _plural(result.workers, "worker process", "worker processes")
    if result.executor == "processes":
        return procs
    if result.executor == "mixed":
        return f"in-process, then {procs}"
    if result.executor == "dask":
        dask = _plural(result.workers, "Dask worker")
        return f"{dask} at {safe_text(result.scheduler or '')}"
    return str(result.executor)


def totals_line(result: BatchResult) -> str:
    """The last line of the summary: counts per status, checks, mismatches, warnings
    (notes apart: never counted as warnings), the wall time and where it ran."""
    c = result.counts()
    recs = result.records
    n_checks = sum(r["checks"] for r in recs)
    n_bad = sum(len(r["mismatches"]) for r in recs)
    n_warn = sum(len(warnings_only(r)) for r in recs)
    n_note = sum(len(notes_only(r)) for r in recs)
    n_ok = sum(len(r.get("accepted_warnings", ())) for r in recs)
    accepted = f" ({n_ok} accepted)" if n_ok else ""
    where = executor_text(result)
    stopped = f"; interrupted ({result.interrupted})" if result.interrupted else ""
    return (
        f"{_plural(len(recs), 'scenario')}: {c['pass']} pass, {c['fail']} fail, "
        f"{c['error']} error, {c['skip']} skip; {_plural(n_checks, 'check')}, "
        f"{_plural(n_bad, 'mismatch', 'mismatches')}, {_plural(n_warn, 'warning')}{accepted}"
        f"{', ' + _plural(n_note, 'note') if n_note else ''}; "
        f"{result.wall_seconds:.2f} s ({where}){stopped}"
    )
