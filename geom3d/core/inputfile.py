"""Reading an input file (scenario, mesh, glTF buffer) safely: regular files only, bounded.

:func:`read_regular` never blocks on a FIFO, never reads a device (``/dev/zero``,
``/dev/stdin``) and refuses a file over its size limit *before* reading it, so a 5 GB
sparse file costs one ``fstat``. Problems are :class:`InputFileProblem` with a short,
human reason; the caller wraps it into the :class:`~geom3d.core.errors.ScenarioError` or
:class:`~geom3d.core.errors.MeshError` that names the file and the field.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator

__all__ = [
    "InputFileProblem",
    "describe_size",
    "iter_regular",
    "read_regular",
    "stat_regular",
]


class InputFileProblem(Exception):
    """Why a file cannot be read as input (``str(exc)`` is the reason, one line).

    Attributes
    ----------
    missing : bool
        True when the file (or a folder on its path) does not exist.
    """

    def __init__(self, reason: str, *, missing: bool = False) -> None:
        super().__init__(reason)
        self.missing = missing


def describe_size(n: int) -> str:
    """``'512 KiB'``, ``'1 GiB'``: a byte count for messages."""
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:g} {unit}"
    return f"{n} bytes"


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _os_problem(exc: OSError) -> InputFileProblem:
    if exc.errno == errno.ENOENT:
        return InputFileProblem("file not found", missing=True)
    if exc.errno == errno.ELOOP:
        return InputFileProblem("symbolic link loop")
    if exc.errno == errno.ENOTDIR:
        return InputFileProblem("a folder on the path is a file", missing=True)
    if exc.errno == errno.EACCES:
        return InputFileProblem("permission denied")
    if exc.errno == errno.ENAMETOOLONG:
        return InputFileProblem("file name too long")
    return InputFileProblem(f"cannot read file ({exc.strerror or type(exc).__name__})")


def _check(st: os.stat_result, limit: int) -> None:
    if not stat.S_ISREG(st.st_mode):
        raise InputFileProblem(f"is {_kind(st.st_mode)}, not a regular file")
    if st.st_size > limit:
        raise InputFileProblem(
            f"file is {describe_size(st.st_size)}, larger than the {describe_size(limit)} "
            "an input file may be"
        )


def stat_regular(path: str | os.PathLike[str], limit: int) -> os.stat_result:
    """``os.stat`` of a regular file at most ``limit`` bytes, else :class:`InputFileProblem`.

    Symbolic links are followed (a loop is a problem, not an endless wait).
    """
    try:
        st = os.stat(path)
    except (OSError, ValueError) as exc:
        if isinstance(exc, ValueError):  # embedded NUL byte
            raise InputFileProblem("invalid file name") from None
        raise _os_problem(exc) from None
    _check(st, limit)
    return st


def read_regular(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes.

    Parameters
    ----------
    path : str or os.PathLike
    limit : int
        Largest size accepted, bytes. A larger file is refused from its ``fstat``
        size, without reading it.

    Raises
    ------
    InputFileProblem
        Missing, a directory, FIFO, device or socket, a symbolic-link loop, unreadable,
        or over ``limit`` (also when it grows past the limit while being read).
    """
    return b"".join(iter_regular(path, limit))


def iter_regular(path: str | os.PathLike[str], limit: int, chunk: int = 1 << 20) -> Iterator[bytes]:
    """:func:`read_regular` in chunks of at most ``chunk`` bytes (a generator)."""
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer (we refuse it right after)
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except (OSError, ValueError) as exc:
        if isinstance(exc, ValueError):
            raise InputFileProblem("invalid file name") from None
        if exc.errno == errno.EISDIR:
            raise InputFileProblem("is a directory, not a regular file") from None
        raise _os_problem(exc) from None
    try:
        _check(os.fstat(fd), limit)
        total = 0
        while True:
            try:
                data = os.read(fd, min(chunk, limit + 1 - total))
            except OSError as exc:
                raise _os_problem(exc) from None
            if not data:
                return
            total += len(data)
            if total > limit:
                raise InputFileProblem(
                    f"file grew past the {describe_size(limit)} an input file may be"
                )
            yield data
    finally:
        os.close(fd)
