"""``geom3d check PATH... [--json F] [--junit F] [--workers N | --scheduler ADDR] ...``.

Exit codes: **0** every scenario is ``pass`` or ``skip``; **1** some scenario is ``fail``
or ``error`` (something did not hold); **2** bad usage (a PATH that matches nothing, a bad
option value, a report path that may not be written - see :func:`report_targets` and
:func:`check_not_inputs` -,
a report that cannot be written): raised as :class:`~geom3d.core.errors.UsageError`, which the
command line prints as one line; **130** / **143** interrupted by SIGINT / SIGTERM (the
reports are still written, for the scenarios that finished).

This module imports only light modules at the top (the command line builds its parser
from :func:`add_parser` without loading the engine).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from pathlib import Path

from geom3d.commands._common import add_workers, subparser
from geom3d.core.errors import UsageError
from geom3d.core.output import check_writable, safe_text

__all__ = [
    "DEFAULT_TIMEOUT_S",
    "add_arguments",
    "add_parser",
    "check_not_inputs",
    "previous_report",
    "report_targets",
    "run",
]

#: ``--timeout`` default: seconds one scenario may take.
DEFAULT_TIMEOUT_S = 600.0
#: ``--timeout`` at most (a year): the timers take no more (``1e308`` overflowed them).
MAX_TIMEOUT_S = 365 * 86400.0


def _timeout(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds (got {text!r})") from None
    if not (v > 0 and v < float("inf")):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds (got {text!r})")
    if v > MAX_TIMEOUT_S:
        raise argparse.ArgumentTypeError(
            f"at most {MAX_TIMEOUT_S:.0f} seconds (a year) (got {text!r})"
        )
    return v


def add_parser(sub) -> argparse.ArgumentParser:
    """Register ``check`` on the CLI's subparsers."""
    c = subparser(
        sub,
        "check",
        "check every scenario's expect block (batch, JSON/JUnit reports)",
        "Loads every scenario, builds its scene and evaluates what its expect block asks.\n"
        "Exit 0: every scenario passes or is skipped; 1: some check failed or some\n"
        "scenario could not be checked; 2: bad usage.",
        [
            "geom3d check meshes/batch",
            "geom3d check meshes/scenarios --workers 1 --json check.json --junit check.xml",
            "geom3d check 'meshes/scenarios/attacks/wh40k_*.yaml' --quiet",
        ],
    )
    add_arguments(c)
    c.set_defaults(func=run)
    return c


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``geom3d check`` options, each with its help text and default."""
    parser.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="scenario files, folders (searched recursively for *.yaml, *.yml, *.json; "
        "hidden files, FIFOs and devices skipped) or quoted globs (** recurses)",
    )
    parser.add_argument(
        "--json",
        dest="json_out",
        metavar="FILE",
        help="write a JSON report (format geom3d-check/1) to FILE; the folder must exist "
        "and FILE may not be an input, a non-regular file or the --junit file "
        "(default: none)",
    )
    parser.add_argument(
        "--junit",
        metavar="FILE",
        help="write a JUnit XML report, one testcase per check, to FILE; same rules as "
        "--json (default: none)",
    )
    parser.add_argument(
        "--format",
        dest="check_format",
        choices=("table", "github"),
        default="table",
        help="terminal output: table (a summary table, the problems and warnings), or "
        "github (GitHub Actions annotations ::error file=...:: before the table) "
        "(default: table)",
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help="scene warnings (buried or floating troopers, overlapping bases, ...) fail "
        "the scenario, except notes and accepted warnings (default: off, warnings are "
        "only reported)",
    )
    parser.add_argument(
        "--allow-warning",
        dest="allow_warnings",
        action="append",
        default=None,
        metavar="PATTERN",
        help="under --strict, accept the warnings matching PATTERN (shell-style, over the "
        "whole message, e.g. '*floats*above the surface*'); repeatable; a scenario's own "
        "accept_warnings key does the same for that scenario (default: none)",
    )
    parser.add_argument(
        "--timeout",
        type=_timeout,
        default=DEFAULT_TIMEOUT_S,
        metavar="SECONDS",
        help="time limit per scenario: past it the scenario is an error and the batch "
        "goes on; a hard limit (the worker is stopped), best-effort only with --workers 1 "
        f"(in this process) (default: {DEFAULT_TIMEOUT_S:g})",
    )
    add_workers(
        parser,
        "runs in this process below 16 scenarios (a pool costs more than it saves there), "
        "else one process per CPU (default: auto)",
    )
    parser.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="run on a Dask cluster at tcp://HOST:PORT (a bare HOST:PORT means tcp); "
        "needs the dask extra (default: none, local processes)",
    )
    parser.add_argument(
        "--exclude",
        dest="exclude",
        action="append",
        default=None,
        metavar="GLOB",
        help="leave out the files whose path (as found) or name matches GLOB "
        "(shell-style, * also crosses /, e.g. 'ci/*' or '*.draft.yaml'); repeatable "
        "(default: none). Files in folders that declare no 'format: geom3d/1' are skipped "
        "with a note anyway",
    )
    parser.add_argument(
        "--quiet",
        action="store_true",
        help="print only the problem lines (or annotations) and one totals line: no table, "
        "no progress (default: off)",
    )


def _same_file(a: Path, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _future_target(path: str) -> Path | None:
    """Where a report in a folder that does not exist yet will go (its folders are created
    when the reports are written, like ``render --out``), or None when the folder exists
    or cannot be created (then :func:`check_writable` says why)."""
    p = Path(path)
    parent = p.parent
    if not p.name or p.name in (".", "..") or parent.exists() or parent.is_symlink():
        return None
    missing = []
    anc = parent
    while not anc.exists() and not anc.is_symlink() and anc != anc.parent:
        missing.append(anc.name)
        anc = anc.parent
    if not anc.is_dir() or not os.access(anc, os.W_OK | os.X_OK) or ".." in missing:
        return None
    return Path(os.path.realpath(anc)).joinpath(*reversed(missing), p.name)


def report_targets(reports: dict[str, str]) -> dict[str, Path]:
    """Where each report goes (links resolved), or :class:`UsageError` if it may not be
    written there: a non-regular file (folder, device, FIFO, socket, or a link to one), a
    folder that cannot be created, or both reports naming the same file. A folder that
    does not exist yet is created when the reports are written (nothing is created
    before the batch has run).

    Parameters
    ----------
    reports : dict
        Option name (``--json``) -> path, for the reports asked for.
    """
    targets = {}
    for opt, path in reports.items():
        try:
            targets[opt] = _future_target(path) or check_writable(path)
        except UsageError as exc:
            raise UsageError(f"{opt}: {exc}") from None
    if len(targets) == 2:
        (o1, t1), (o2, t2) = targets.items()
        if t1 == t2:
            raise UsageError(f"{o1} and {o2} name the same file ({safe_text(reports[o1])})")
    return targets


def previous_report(target: Path) -> bool:
    """Is the existing file ``target`` a JSON report of an earlier ``geom3d check``? (It
    may then lie among the scenarios a folder holds: it is not taken as one.)"""
    from geom3d.core.reportfile import read_head  # never blocks on a FIFO a link points at

    head = read_head(target, 256)
    return head.lstrip().startswith(b"{") and b'"format": "geom3d-check/' in head


def check_not_inputs(reports: dict[str, str], targets: dict[str, Path], inputs: list[str]):
    """:class:`UsageError` if a report would overwrite an input: one of the scenario files
    (``inputs``), a mesh file one of them references or a glTF buffer of such a mesh (see
    :mod:`geom3d.commands._guard`). Scenarios are read for their references only when a
    report file already exists (a file that does not exist yet cannot be an input)."""
    existing = {opt: reports[opt] for opt, t in targets.items() if os.path.lexists(t)}
    if not existing:
        return
    from geom3d.commands._guard import referenced_files, refuse_overwrite

    refuse_overwrite(existing, [(f, "one of the scenarios being checked") for f in inputs])
    for f in inputs:  # only now: this costs a parse per scenario
        refuse_overwrite(existing, referenced_files(f)[1:])


class _Tally:
    """``on_result`` callback: counts statuses and feeds the progress display."""

    def __init__(self, progress, total: int, statuses):
        self.progress = progress
        self.total = total
        self.done = 0
        self.counts = dict.fromkeys(statuses, 0)

    def __call__(self, index: int, rec: dict) -> None:
        self.done += 1
        self.counts[rec["status"]] += 1
        c = self.counts
        self.progress(
            self.done,
            note=f"{c['pass']} pass {c['fail']} fail {c['error']} error",
            line=f"[{self.done}/{self.total}] {safe_text(rec['path'])}: {rec['status']}",
        )


def _on_sigterm(signum, frame):
    from geom3d.check.pool import Terminated
    from geom3d.check.record import TERMINATION
    from geom3d.execution.signals import arm_deadline, retry_later

    arm_deadline(143)  # the reports are written well within it (SPEC 13.4: 2 s)
    TERMINATION.set()
    if not retry_later(signum, frame):  # (inside numba or an import: raised just after)
        raise Terminated("SIGTERM")


def _write_reports(result, reports: dict[str, str]) -> None:
    from geom3d.check.reports import json_report, junit_report
    from geom3d.core.output import atomic_write, dumps_json

    # by the names the user gave (messages name them); atomic_write checks them again
    for path in reports.values():
        try:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"cannot create the folder of {safe_text(path)}: {exc}") from None
    if "--json" in reports:
        atomic_write(reports["--json"], dumps_json(json_report(result)))
    if "--junit" in reports:
        atomic_write(reports["--junit"], junit_report(result))


def _terminal(result, *, quiet: bool, fmt: str) -> str:
    from geom3d.check.reports import github_lines, problem_lines, summary_text, totals_line

    out = []
    if fmt == "github":
        out += github_lines(result)
    if quiet:
        if fmt != "github":
            out += [line for r in result.records for line in problem_lines(r)]
        out.append(totals_line(result))  # a CI log still says what ran
        return "".join(line + "\n" for line in out)
    try:
        color = sys.stdout.isatty()
    except (AttributeError, ValueError):  # no stdout (closed), or a closed file
        color = False
    width = 120
    if color:
        try:
            width = max(80, os.get_terminal_size(sys.stdout.fileno()).columns)
        except OSError:
            pass
    return "".join(line + "\n" for line in out) + summary_text(result, width=width, color=color)


def _emit(text: str) -> None:
    """Print to stdout; a closed or full stdout is not a traceback."""
    if sys.stdout is None:  # started with stdout closed: nowhere to print
        return
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except (BrokenPipeError, OSError, ValueError):
        try:  # keep the interpreter's final flush from failing again
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        print("geom3d: warning: could not write the summary to stdout", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    """``geom3d check``: run the batch, print the summary, write the reports.

    Parameters
    ----------
    args : argparse.Namespace
        ``paths``, and optionally ``json_out``, ``junit``, ``workers``, ``scheduler``,
        ``timeout``, ``strict``, ``check_format``, ``quiet``.

    Returns
    -------
    int
        The exit code (0 all hold, 1 some check failed or some scenario errored, 130/143
        interrupted). Usage problems raise :class:`~geom3d.core.errors.UsageError` (exit 2).
    """
    from geom3d.check.discover import expand_paths
    from geom3d.check.executors import BatchInterrupted, check_address, run_batch
    from geom3d.check.record import STATUSES, exit_code
    from geom3d.core.progress import Progress, progress_mode

    quiet = bool(getattr(args, "quiet", False))
    workers = getattr(args, "workers", None)
    scheduler = getattr(args, "scheduler", None)
    timeout = getattr(args, "timeout", DEFAULT_TIMEOUT_S)
    fmt = getattr(args, "check_format", "table") or "table"
    if workers is not None and workers < 1:
        raise UsageError(f"--workers: must be at least 1 (got {workers})")
    if scheduler is not None and workers is not None:
        raise UsageError("--workers and --scheduler cannot be combined (the cluster has its own)")
    if scheduler is not None:
        check_address(scheduler)
    reports = {
        opt: p
        for opt, p in (
            ("--json", getattr(args, "json_out", None)),
            ("--junit", getattr(args, "junit", None)),
        )
        if p is not None
    }
    targets = report_targets(reports)
    notes: list[str] = []
    files = expand_paths(
        args.paths,
        exclude=[str(t) for t in targets.values() if previous_report(t)],
        patterns=list(getattr(args, "exclude", None) or ()),
        notes=notes,
    )
    for line in notes:
        print(f"geom3d: note: {line}", file=sys.stderr)
    check_not_inputs(reports, targets, [f.path for f in files])
    mode = progress_mode(quiet, when_piped="lines")
    main_thread = threading.current_thread() is threading.main_thread()
    from geom3d.check.record import TERMINATION

    TERMINATION.clear()
    old = signal.signal(signal.SIGTERM, _on_sigterm) if main_thread else None
    interrupted = None
    from geom3d.commands._prepare import prepare_kernels

    prepare_kernels(quiet=quiet)  # once here, not in every worker at once
    try:
        with Progress("check", mode, total=len(files)) as bar:
            result = run_batch(
                files,
                workers=workers,
                scheduler=scheduler,
                on_result=_Tally(bar, len(files), STATUSES),
                timeout=timeout,
                strict=bool(getattr(args, "strict", False)),
                allow_warnings=list(getattr(args, "allow_warnings", None) or ()),
            )
    except BatchInterrupted as exc:
        result, interrupted = exc.result, exc.signal_name
    finally:
        if main_thread:  # (None: a handler not set from Python; put back the default)
            signal.signal(signal.SIGTERM, old if old is not None else signal.SIG_DFL)
    result.notes = notes
    _write_reports(result, reports)
    _emit(_terminal(result, quiet=quiet, fmt=fmt))
    if interrupted:
        done = sum(1 for r in result.records if not (r.get("error") or "").startswith("not fin"))
        print(
            f"geom3d: interrupted ({interrupted}): {done} of {len(files)} scenarios finished; "
            "the reports cover those",
            file=sys.stderr,
        )
        return 143 if interrupted == "SIGTERM" else 130
    return exit_code(result)
