"""Progress display for long commands: one rich bar, plain lines, or nothing.

The command line shows progress on stderr and never in its answers on stdout, so a piped
JSON document is byte-identical whether or not progress was shown. Which display a command
gets is decided by :func:`progress_mode` from ``--quiet`` and whether the streams are
terminals.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:  # rich loads only when a bar is shown
    from types import TracebackType

    from rich.progress import Progress as RichProgress
    from rich.progress import TaskID

__all__ = ["MODES", "Progress", "progress_mode"]

#: ``bar``: a transient rich bar on stderr; ``lines``: one plain line per finished item on
#: stderr; ``off``: nothing.
MODES = ("bar", "lines", "off")


def progress_mode(
    quiet: bool, *, when_piped: str = "off", isatty: Callable[[TextIO], bool] | None = None
) -> str:
    """The display a command gets.

    Parameters
    ----------
    quiet : bool
        ``--quiet`` was given: never any progress.
    when_piped : {"off", "lines"}
        What to show when stderr is not a terminal. With ``"off"`` (``lof``, ``demo``) the
        bar also needs stdout to be a terminal (an answer piped to a file shows nothing);
        with ``"lines"`` (``check``) the bar needs only stderr to be a terminal.
    isatty : callable(stream) -> bool, optional
        Terminal test (default ``stream.isatty()``); for tests.

    Returns
    -------
    str
        One of :data:`MODES`.
    """
    if when_piped not in ("off", "lines"):
        raise ValueError(f"when_piped: expected 'off' or 'lines' (got {when_piped!r})")
    if quiet:
        return "off"
    tty = isatty or (lambda stream: stream.isatty())
    if not tty(sys.stderr):
        return when_piped
    if when_piped == "off" and not tty(sys.stdout):
        return "off"
    return "bar"


class Progress:
    """A progress display, used as a context manager and called as items finish.

    Parameters
    ----------
    description : str
        Shown at the left of the bar (e.g. ``"Line of Fire"``, ``"check"``).
    mode : {"bar", "lines", "off"}
        See :data:`MODES` and :func:`progress_mode`.
    total : int, optional
        Number of items, when known up front (else given by the first call).

    Examples
    --------
    >>> with Progress("Line of Fire", "off") as bar:
    ...     bar(1, 2)
    """

    def __init__(self, description: str, mode: str = "off", total: int | None = None):
        if mode not in MODES:
            raise ValueError(f"mode: expected one of {MODES} (got {mode!r})")
        self.description = description
        self.mode = mode
        self.total = total
        self._bar: RichProgress | None = None
        self._task: TaskID | None = None

    def __enter__(self) -> Progress:
        if self.mode == "bar":
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )
            from rich.progress import Progress as RichProgress

            self._bar = RichProgress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[note]}"),
                TimeElapsedColumn(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                console=Console(file=sys.stderr),
                transient=True,
            )
            self._bar.__enter__()
            self._task = self._bar.add_task(self.description, total=self.total, note="")
        return self

    def __call__(
        self, done: int, total: int | None = None, *, note: str = "", line: str | None = None
    ) -> None:
        """``done`` items of ``total`` (None: unchanged) are finished.

        ``note`` is shown next to the bar; ``line`` is printed in ``lines`` mode.
        """
        if total is not None:
            self.total = total
        if self._bar is not None:
            assert self._task is not None  # set together with _bar in __enter__
            self._bar.update(self._task, completed=done, total=total, note=note)
        elif self.mode == "lines" and line is not None:
            print(line, file=sys.stderr)
            sys.stderr.flush()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._bar is not None:
            self._bar.__exit__(exc_type, exc, tb)
            self._bar = None
