"""The ``geom3d`` command line (SPEC section 6): parse, dispatch, report errors.

Each subcommand is a module of :mod:`geom3d.commands` (listed in
:data:`geom3d.commands.COMMANDS`); this module only builds the parser from them and runs
the chosen one. Building the parser imports no engine code, so ``geom3d --help``,
``--version`` and usage errors start as fast as Python and argparse do (SPEC 12.3).

Exit codes: 0 success (or every expectation holds), 1 some expectation failed, 2 bad input
or usage - one line on stderr naming the file, the field path and the problem - or out of
memory (``geom3d: error: out of memory while ...``, :mod:`geom3d.core.memory`).
"""

from __future__ import annotations

import argparse
import errno
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from geom3d.commands import COMMANDS, command_module
from geom3d.commands._common import EXIT_BAD_INPUT, EXIT_OK, Formatter, silence_stdout
from geom3d.core.errors import Geom3dError
from geom3d.raycast import BACKEND_ENV, BACKENDS, DEFAULT_BACKEND

__all__ = ["build_parser", "main", "run"]


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, exit 2
        self.exit(EXIT_BAD_INPUT, f"geom3d: error: {message}\n")


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("geom3d")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "unknown (not installed: pip install -e .)"


def build_parser() -> argparse.ArgumentParser:
    """The ``geom3d`` parser with every subcommand of :data:`geom3d.commands.COMMANDS`."""
    p = _Parser(
        prog="geom3d",
        description="Exact Line of Fire and template adjudication for tabletop wargames.",
        epilog=(
            "Run `geom3d COMMAND --help` for a command's options and examples.\n"
            "Exit codes: 0 success (check: every expectation holds), 1 some expectation\n"
            "failed, 2 bad input or usage (one line on stderr: file, field path, problem).\n"
            "Outputs are in millimetres. Documentation: docs/cli.md, docs/scenario-format.md."
        ),
        formatter_class=Formatter,
    )
    p.add_argument("--version", action="version", version=f"geom3d {_version()}")
    p.add_argument(
        "--ray-backend",
        choices=sorted(BACKENDS),
        metavar="NAME",
        help=(
            "the ray engine every scene of this command uses: "
            f"{', '.join(sorted(BACKENDS))} (default: ${BACKEND_ENV}, else {DEFAULT_BACKEND}); "
            "`reference` is numpy brute force, slow, with the same answers"
        ),
    )
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMANDS:
        command_module(name).add_parser(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``geom3d`` console script: the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:  # bare `geom3d`: the help, on stdout, and success
        parser.print_help()
        return EXIT_OK
    from geom3d.core.runtime import no_huge_pages
    from geom3d.execution.signals import (
        exit_code,
        forget_received,
        interrupt_of,
        signal_name,
        sigterm_raises,
    )

    no_huge_pages()  # before the command touches its memory
    before = os.environ.get(BACKEND_ENV)
    if args.ray_backend:  # every engine the command builds, worker processes' included
        os.environ[BACKEND_ENV] = args.ray_backend
    forget_received()
    with sigterm_raises():  # SIGTERM unwinds like Ctrl-C: workers stopped, exit 143
        try:
            return _run_command(args)
        except BaseException as exc:  # an interrupt, or one that compiled code wrapped
            intr = interrupt_of(exc)
            if intr is None:
                raise
            print(f"geom3d: interrupted ({signal_name(intr)})", file=sys.stderr)
            return exit_code(intr)
        finally:  # a caller of main (a test, a script) keeps its own choice
            if args.ray_backend and before is None:
                os.environ.pop(BACKEND_ENV, None)
            elif args.ray_backend and before is not None:
                os.environ[BACKEND_ENV] = before


def _run_command(args: argparse.Namespace) -> int:
    try:
        code = int(args.func(args))
        if sys.stdout is not None:
            sys.stdout.flush()  # printed lines (demo, render) fail here when stdout is full
        return code
    except OSError as exc:
        if exc.errno not in (errno.ENOSPC, errno.EPIPE, errno.EBADF):
            raise
        silence_stdout()
        print(f"geom3d: error: cannot write to standard output: {exc.strerror}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except Geom3dError as exc:
        print(f"geom3d: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except Exception as exc:  # MemoryError (numpy's too), or an error raised from one
        from geom3d.core.memory import out_of_memory_line

        line = out_of_memory_line(exc, args.command)
        if line is None:
            raise
        sys.stderr.write(f"geom3d: error: {line}\n")
        return EXIT_BAD_INPUT


def run() -> NoReturn:
    """The ``geom3d`` console script and ``python -m geom3d``: :func:`main`, then the
    process ends without tearing its heap down (:func:`geom3d.core.runtime.exit_process`).

    SIGTERM raises :class:`~geom3d.execution.signals.Terminated` from here on, so a signal
    at any moment of a command (its imports included) ends it with 143 (130 for SIGINT).
    A crash (SIGSEGV and the like: a defect, never an answer) writes where each thread
    was to standard error (:mod:`faulthandler`), so that a report of it can be acted on.
    """
    from geom3d.execution.signals import exit_code, install_sigterm

    _crash_reports()
    install_sigterm()
    interrupted = False
    try:
        code = main()
    except KeyboardInterrupt as exc:  # between main's own handlers (argument parsing)
        code = exit_code(exc)
    interrupted = code in (130, 143)
    from geom3d.core.runtime import exit_process

    exit_process(code, interrupted=interrupted)


def _crash_reports() -> None:
    """Enable :mod:`faulthandler` on standard error, unless it has no file behind it."""
    import faulthandler

    try:
        faulthandler.enable(all_threads=True)
    except (AttributeError, OSError, RuntimeError, ValueError):  # no stderr, or no file
        pass


if __name__ == "__main__":  # pragma: no cover
    run()
