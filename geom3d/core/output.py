"""Output documents: deterministic JSON, rounding for reports, and atomic file writes.

Every JSON answer geom3d prints or writes goes through :func:`dumps_json`, and every
number in it through :func:`round_value` / :func:`round_point`, so the same input gives
byte-identical output. Files are written with :func:`atomic_write`: a reader never sees a
half-written report.
"""

from __future__ import annotations

import errno
import json
import math
import os
import re
import stat
import tempfile
from collections.abc import Iterable
from json.encoder import encode_basestring
from pathlib import Path
from typing import Any

from geom3d.core.errors import UsageError

__all__ = [
    "atomic_write",
    "check_writable",
    "dumps_json",
    "round_point",
    "round_value",
    "safe_text",
]

#: Decimal places kept for lengths (mm) and angles (degrees) in reports: 1 µm / 0.001°.
REPORT_DECIMALS = 3


def round_value(x: float | None, nd: int = REPORT_DECIMALS) -> float | None:
    """``x`` rounded to ``nd`` places, with ``-0.0`` folded to ``0.0``; None stays None.

    Non-finite values become None (JSON has no NaN).
    """
    if x is None:
        return None
    v = round(float(x), nd) + 0.0
    return v if math.isfinite(v) else None


def round_point(p: Iterable[float] | None, nd: int = REPORT_DECIMALS) -> list[float | None] | None:
    """A point (any length) as a list of rounded floats; None stays None."""
    return None if p is None else [round_value(v, nd) for v in p]


#: Bidirectional formatting characters (Trojan Source, CVE-2021-42574): an override or an
#: isolate in a file name makes the text after it display reversed or moved, so a name or
#: message shows something other than what it is. Written as escapes, never raw.
BIDI_CONTROLS = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"

#: Characters :func:`dumps_json` writes as ``\\uXXXX`` escapes although JSON allows them raw:
#: DEL, the C1 controls (a terminal reads U+009B as CSI), lone surrogates (not UTF-8) and
#: the bidirectional formatting characters.
_JSON_ESCAPE = re.compile(f"[\x7f-\x9f\ud800-\udfff\u2028\u2029{BIDI_CONTROLS}]")


def dumps_json(obj: object) -> str:
    """Deterministic JSON: same input, byte-identical output.

    The text of ``json.dumps(obj, indent=2, ensure_ascii=False, allow_nan=False)``, then
    non-ASCII text stays UTF-8 except the characters a terminal or an encoder would choke
    on (C0/C1 controls, DEL, lone surrogates), which become ``\\uXXXX`` escapes: the
    document stays valid UTF-8 and ``json.loads`` gives the same strings back.

    Documents of plain dicts (string keys), lists, tuples, strings, ints, finite floats,
    bools and None are written by :func:`_indented` (the same text, 1.6x as fast
    as the standard library's pure-Python indenting encoder); anything else by
    ``json.dumps`` itself, which also raises its own errors.
    """
    try:
        parts: list[str] = []
        _indented(obj, 0, parts)
        text = "".join(parts)
    except _Unusual:
        text = json.dumps(obj, indent=2, ensure_ascii=False, allow_nan=False)
    return _JSON_ESCAPE.sub(lambda m: f"\\u{ord(m.group()):04x}", text + "\n")


class _Unusual(Exception):
    """A value :func:`_indented` leaves to ``json.dumps``."""


_NEWLINE = ["\n" + "  " * k for k in range(64)]  # newline and indent, by depth
_INFINITE = (-math.inf, math.inf)


def _indented(o: Any, depth: int, out: list[str]) -> None:
    """Append the ``indent=2`` JSON of ``o`` to ``out`` (see :func:`dumps_json`)."""
    t = type(o)
    if t is str:
        out.append(encode_basestring(o))
    elif t is float:
        if o != o or o in _INFINITE:
            raise _Unusual
        out.append(float.__repr__(o))
    elif t is int:
        out.append(int.__repr__(o))
    elif o is None:
        out.append("null")
    elif o is True:
        out.append("true")
    elif o is False:
        out.append("false")
    elif isinstance(o, str):  # a str subclass (a Message): the standard library writes
        out.append(encode_basestring(o))  # its text, with the same function
    elif t is dict or t is list or t is tuple:
        if not o:
            out.append("{}" if t is dict else "[]")
            return
        if depth + 1 >= len(_NEWLINE):
            raise _Unusual
        inner = _NEWLINE[depth + 1]
        out.append("{" if t is dict else "[")
        sep = inner
        if t is dict:
            for k, v in o.items():
                if type(k) is not str:
                    raise _Unusual
                out.append(sep)
                out.append(encode_basestring(k))
                out.append(": ")
                _indented(v, depth + 1, out)
                sep = "," + inner
        else:
            for v in o:
                out.append(sep)
                _indented(v, depth + 1, out)
                sep = "," + inner
        out.append(_NEWLINE[depth])
        out.append("}" if t is dict else "]")
    else:
        raise _Unusual


def _kind(st_mode: int) -> str | None:
    for test, name in (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(st_mode):
            return name
    return None if stat.S_ISREG(st_mode) else "not a regular file"


def check_writable(path: str | os.PathLike[str]) -> Path:
    """Where :func:`atomic_write` would write ``path``, or :class:`UsageError` why it cannot.

    Parameters
    ----------
    path : str or os.PathLike

    Returns
    -------
    pathlib.Path
        The name that would be replaced or created: ``path``'s folder with symbolic links
        resolved, and ``path``'s own last component. A symbolic link at that name is
        never followed: the write replaces the link itself (the file it pointed to is
        left as it was), so a link planted in an output folder cannot redirect a report
        onto another file.

    Raises
    ------
    UsageError
        ``path`` is something other than a regular file or a symbolic link (a folder, a
        device, a FIFO, a socket), or its folder does not exist, is not a folder or is
        not writable.
    """
    shown = safe_text(os.fspath(path))
    p = Path(path)
    if not p.name or p.name in (".", ".."):
        raise UsageError(f"{shown} is not a file name")
    try:
        folder = Path(os.path.realpath(p.parent))
    except (OSError, ValueError) as exc:  # a loop in the folder's links, a NUL byte
        raise UsageError(f"cannot write {shown}: {getattr(exc, 'strerror', None) or exc}") from None
    target = folder / p.name
    try:
        st = os.lstat(target)
    except FileNotFoundError:
        st = None
    except (OSError, ValueError) as exc:
        strerror = getattr(exc, "strerror", None)
        if isinstance(exc, OSError) and exc.errno in (errno.ENOENT, errno.ENOTDIR):
            st = None  # the folder check below says what is wrong
        else:
            raise UsageError(f"cannot write {shown}: {strerror or exc}") from None
    if st is not None and not stat.S_ISLNK(st.st_mode):
        kind = _kind(st.st_mode)
        if kind is not None:
            raise UsageError(f"{shown} is {kind}, not a regular file; refusing to replace it")
    if not folder.exists():
        raise UsageError(
            f"cannot write {shown}: the folder {safe_text(str(p.parent))} does not exist"
        )
    if not folder.is_dir():
        raise UsageError(f"cannot write {shown}: {safe_text(str(p.parent))} is not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UsageError(
            f"cannot write {shown}: the folder {safe_text(str(p.parent))} is not writable"
        )
    return target


def atomic_write(path: str | os.PathLike[str], data: str | bytes) -> Path:
    """Write ``data`` to ``path`` via a temporary file and a rename (never half-written).

    The temporary file is made in ``path``'s own folder (``O_EXCL``, a fresh name, so
    nothing planted there is followed) and renamed over ``path``: a symbolic link at
    ``path`` is replaced, never written through. Never creates folders (callers that
    want one create it first) and never replaces anything but a regular file or a link:
    see :func:`check_writable`. A failed write (disk full, read-only mount,
    permissions) leaves the old file untouched and raises :class:`UsageError` with one
    line.

    Returns
    -------
    pathlib.Path
        The name written (``path`` in its folder with links resolved).
    """
    target = check_writable(path)
    shown = safe_text(os.fspath(path))
    payload = data.encode("utf-8", "backslashreplace") if isinstance(data, str) else data
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name[:100]}.", dir=target.parent)
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
            fh.flush()
            os.fsync(fh.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; give it a normal file's mode
        if os.path.isdir(target) and not os.path.islink(target):  # appeared since the check
            raise UsageError(f"{shown} is a folder, not a regular file; refusing to replace it")
        os.replace(tmp, target)  # rename(2): replaces a link at target, never follows it
        tmp = None
    except OSError as exc:
        raise UsageError(f"cannot write {shown}: {exc.strerror or exc}") from None
    finally:
        if tmp is not None and os.path.lexists(tmp):
            try:
                os.unlink(tmp)
            except OSError:
                pass
    return target


_UNSAFE = re.compile(f"[\x00-\x1f\x7f-\x9f\ud800-\udfff\u2028\u2029{BIDI_CONTROLS}]")


def safe_text(text: str) -> str:
    """``text`` with every control character, DEL, lone surrogate and bidirectional
    formatting character written as a visible escape (``\\x1b``, ``\\n``, ``\\ud800``,
    ``\\u202e``): one printable line, safe for a terminal, XML 1.0 and UTF-8, shown in the
    order it is stored."""

    def esc(m: re.Match[str]) -> str:
        c = m.group()
        if c in "\n\r\t":
            return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}[c]
        o = ord(c)
        return f"\\x{o:02x}" if o < 0x100 else f"\\u{o:04x}"

    return _UNSAFE.sub(esc, str(text))
