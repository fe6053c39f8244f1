"""Reading a report file that a command takes as input, safely.

``survey --compare OLD.json`` reads an earlier survey, and ``check`` peeks at an existing
report file to tell an earlier report from a scenario. Such a file is named by the user
and may be anything: a FIFO (``read_text()`` blocked forever), ``/dev/zero`` (read until
memory ran out), a symbolic link to either, or JSON nested a hundred thousand levels deep
(a ``RecursionError`` traceback). Here it is a regular file of bounded size, opened
without blocking, and parsed with every failure turned into one line.
"""

from __future__ import annotations

import json
import os

from geom3d.core.errors import UsageError
from geom3d.core.inputfile import InputFileProblem, read_regular
from geom3d.core.output import safe_text

__all__ = ["read_head", "read_json_report"]


def read_json_report(path: str | os.PathLike[str], limit: int, label: str) -> object:
    """The JSON document in the regular file ``path`` (at most ``limit`` bytes).

    Parameters
    ----------
    path : str or os.PathLike
    limit : int
        Largest size accepted, bytes (refused from ``fstat``, unread).
    label : str
        The option that named it (``"--compare"``), for messages.

    Raises
    ------
    UsageError
        ``"LABEL: PATH: why"``: missing, not a regular file (folder, FIFO, device,
        socket), too large, not UTF-8, not JSON, or nested too deeply to parse.
    """
    shown = safe_text(os.fspath(path))
    try:
        raw = read_regular(path, limit)
    except InputFileProblem as exc:
        raise UsageError(f"{label}: {shown}: {exc}") from None
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise UsageError(f"{label}: {shown}: not UTF-8 text (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise UsageError(
            f"{label}: {shown}: not JSON (line {exc.lineno} column {exc.colno}: {exc.msg})"
        ) from None
    except RecursionError:
        raise UsageError(f"{label}: {shown}: JSON nested too deeply to read") from None
    except (ValueError, MemoryError) as exc:  # e.g. an integer of 5,000 digits
        raise UsageError(f"{label}: {shown}: not JSON ({type(exc).__name__})") from None


def read_head(path: str | os.PathLike[str], size: int) -> bytes:
    """The first ``size`` bytes of ``path`` if it is a regular file, else ``b""``.

    Never blocks (a FIFO, or a link to one, is opened without waiting for a writer and
    then refused) and never reads a device.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except (OSError, ValueError):
        return b""
    try:
        import stat

        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return b""
        return os.read(fd, size)
    except OSError:
        return b""
    finally:
        os.close(fd)
