"""``geom3d check PATH... [--json F] [--junit F] [--workers N | --scheduler ADDR] [--quiet]``.

Exit codes: **0** every scenario is ``pass`` or ``skip``; **1** some scenario is ``fail``
or ``error`` (something did not hold); **2** bad usage (a PATH that matches nothing, a bad
``--workers`` or ``--scheduler``, an unwritable report path): raised as
:class:`~geom3d.errors.UsageError`, which the command line prints as one line.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from geom3d.errors import UsageError
from geom3d.output import atomic_write, dumps_json
from geom3d.progress import Progress, progress_mode

from .discover import expand_paths
from .executors import check_address, run_batch
from .record import STATUSES, exit_code
from .reports import json_report, junit_report, problem_lines, summary_text

__all__ = ["run_check_cli"]


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


class _Tally:
    """``on_result`` callback: counts statuses and feeds the progress display."""

    def __init__(self, progress: Progress, total: int):
        self.progress = progress
        self.total = total
        self.done = 0
        self.counts = dict.fromkeys(STATUSES, 0)

    def __call__(self, index: int, rec: dict) -> None:
        self.done += 1
        self.counts[rec["status"]] += 1
        c = self.counts
        self.progress(
            self.done,
            note=f"{c['pass']} pass {c['fail']} fail {c['error']} error",
            line=f"[{self.done}/{self.total}] {rec['path']}: {rec['status']}",
        )


def run_check_cli(args) -> int:
    """``geom3d check``: run the batch, print the summary, write the reports.

    Parameters
    ----------
    args : argparse.Namespace
        ``paths``, and optionally ``json_out``, ``junit``, ``workers``, ``scheduler``,
        ``quiet``.

    Returns
    -------
    int
        The exit code (0 all hold, 1 some check failed or some scenario errored). Usage
        problems raise :class:`~geom3d.errors.UsageError` (exit 2 in the CLI).
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
        check_address(scheduler)
    _check_output("--json", json_out)
    _check_output("--junit", junit_out)
    files = expand_paths(args.paths, exclude=[p for p in (json_out, junit_out) if p])
    mode = progress_mode(quiet, when_piped="lines")
    with Progress("check", mode, total=len(files)) as bar:
        result = run_batch(
            files, workers=workers, scheduler=scheduler, on_result=_Tally(bar, len(files))
        )
    if json_out:
        atomic_write(json_out, dumps_json(json_report(result)))
    if junit_out:
        atomic_write(junit_out, junit_report(result))
    if quiet:
        for r in result.records:
            for line in problem_lines(r):
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
