"""The reports of a batch: the ``--json`` document, JUnit XML and the terminal summary.

The JSON report has sorted keys and is byte-identical across runs except for the
``timing`` objects (the top-level one and one per record), which hold everything that
depends on the run: seconds, cache hits, worker ids, executor. The JUnit report has one
testsuite for the batch and one testcase per check (``classname`` = scenario path); a
scenario that cannot be loaded is one ``load`` testcase with an ``error``, a skipped one
one ``expectations`` testcase with ``skipped``.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from io import StringIO

from .expectations import show
from .record import BatchResult, exit_code

__all__ = ["REPORT_FORMAT", "json_report", "junit_report", "problem_lines", "summary_text"]

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
    return _sorted_keys(
        {
            "format": REPORT_FORMAT,
            "units": "mm",
            "summary": {
                "scenarios": len(recs),
                **result.counts(),
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
        return f"expected {show(r['expected'])}, got {show(r['actual'])}"
    return r.get("message", "")


def _junit_record(suite: ET.Element, rec: dict, n: dict[str, int]) -> None:
    total = rec["timing"]["total_seconds"]
    results = rec["results"]
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
        return
    per = total / len(results)
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
        if r["status"] in ("fail", "error"):
            msg = _failure_text(r)
            tag, kind, count = (
                ("failure", "mismatch", "failures")
                if r["status"] == "fail"
                else ("error", "error", "errors")
            )
            el = ET.SubElement(case, tag, message=msg, type=kind)
            el.text = f"{rec['path']}: {r['check']}: {msg}"
            n[count] += 1


def junit_report(result: BatchResult) -> str:
    """The ``--junit`` document: JUnit XML, one testcase per check."""
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
        _junit_record(suite, rec, n)
    for el in (suites, suite):
        for k, v in n.items():
            el.set(k, str(v))
        el.set("time", f"{result.wall_seconds:.3f}")
    ET.indent(suites)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"


def problem_lines(rec: dict) -> list[str]:
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


def _note(r: dict) -> str:
    if r["status"] == "error":
        return r["error"] or ""
    if r["status"] == "fail":
        m = r["mismatches"][0]
        return f"{m['check']}: expected {show(m['expected'])}, got {show(m['actual'])}"
    if r["status"] == "skip":
        return r.get("skip_reason", "")
    return "cached scenery" if r["timing"]["cache_hit"] else ""


def summary_text(result: BatchResult, *, width: int = 120, color: bool = False) -> str:
    """The terminal summary: a table, the problems one per line, and the totals."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    recs = result.records
    show_recs = recs if len(recs) <= _TABLE_ROWS_MAX else [r for r in recs if r["status"] != "pass"]
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
    for r in show_recs:
        table.add_row(
            Text(r["path"]),
            Text(r["status"], style=style[r["status"]]),
            str(r["checks"]),
            str(sum(1 for x in r["results"] if x["status"] != "pass")),
            f"{r['timing']['total_seconds']:.2f}",
            Text(_note(r)),
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
    problems = [line for r in recs for line in problem_lines(r)]
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
