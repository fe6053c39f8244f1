"""Out of memory as one line (SPEC 13.4): what was being built, and allocations refused
before they are made.

A command names the stage it is in with :func:`building` (``with building("the scene's
BVH"): ...``). A ``MemoryError`` (numpy's ``_ArrayMemoryError`` is one) that leaves such
a block remembers the innermost stage, and the command line prints ``geom3d: error: out
of memory while building the scene's BVH`` (exit 2) instead of a traceback
(:func:`out_of_memory_line`).

Before a large allocation whose size is known from the input (an exposure map's cells x
observers, a mesh's triangles), :func:`refuse_if_too_big` compares it with the memory the
process may still use (:func:`memory_available`: ``MemAvailable`` of ``/proc/meminfo`` or
``psutil``, and what ``RLIMIT_AS`` leaves) and refuses in one line naming the option or
field that lowers it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

from geom3d.core.errors import InputError

__all__ = [
    "OOM_HEADROOM",
    "building",
    "memory_available",
    "out_of_memory_line",
    "refuse_if_too_big",
]

#: Share of the available memory one estimated allocation may take: the rest is left for
#: what the estimate does not count (temporaries, the interpreter, other arrays).
OOM_HEADROOM: float = 0.8

_STAGES: list[str] = []
#: (the MemoryError, the innermost stage it left): set by the innermost block only.
_FAILED_WHILE: list[tuple[BaseException, str]] = []


@contextlib.contextmanager
def building(what: str) -> Iterator[None]:
    """Name the stage a command is in (``"loading mesh wall.stl"``), for the one line an
    out-of-memory error becomes. Nested blocks: the innermost names it."""
    if not _STAGES:
        _FAILED_WHILE.clear()  # a MemoryError caught and handled earlier is forgotten
    _STAGES.append(what)
    try:
        yield
    except MemoryError as exc:
        if not any(e is exc for e, _ in _FAILED_WHILE):
            _FAILED_WHILE.append((exc, what))
        raise
    finally:
        _STAGES.pop()


def _memory_error(exc: BaseException | None) -> BaseException | None:
    """The ``MemoryError`` ``exc`` is or was raised from (its cause or context), or None."""
    seen = 0
    while exc is not None and seen < 16:
        if isinstance(exc, MemoryError):
            return exc
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return None


def out_of_memory_line(exc: BaseException, command: str | None = None) -> str | None:
    """``out of memory while ...`` for an exception that is (or was raised from) a
    ``MemoryError``, else None. The stage is the innermost :func:`building` block the
    error left, else ``running geom3d COMMAND``."""
    oom = _memory_error(exc)
    if oom is None:
        return None
    what = next((w for e, w in _FAILED_WHILE if e is oom), None)
    _FAILED_WHILE.clear()
    if what is None:
        what = f"running geom3d {command}" if command else "starting geom3d"
    return f"out of memory while {what}"


def _meminfo_available() -> int | None:
    try:
        import psutil  # type: ignore[import-untyped]  # optional: used when installed

        return int(psutil.virtual_memory().available)
    except Exception:  # not installed, or no answer on this system
        pass
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _address_space_left() -> int | None:
    """What ``RLIMIT_AS`` still allows this process to map (bytes), or None."""
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    except (ImportError, OSError, ValueError):
        return None
    if soft == resource.RLIM_INFINITY:
        return None
    try:
        with open(f"/proc/{os.getpid()}/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmSize:"):
                    return max(0, soft - int(line.split()[1]) * 1024)
    except (OSError, ValueError, IndexError):
        pass
    return soft


def memory_available() -> int | None:
    """Bytes this process may still allocate: the least of the system's available memory
    and what ``RLIMIT_AS`` leaves, or None when neither is known."""
    known = [v for v in (_meminfo_available(), _address_space_left()) if v is not None]
    return min(known) if known else None


def _size(n: float) -> str:
    """``1.5 GiB``, ``935 MiB``, ``218 kB``."""
    if n >= 1 << 30:
        return f"{n / (1 << 30):,.1f} GiB"
    if n >= 1 << 20:
        return f"{n / (1 << 20):,.0f} MiB"
    return f"{n / 1024:,.0f} kB"


def refuse_if_too_big(nbytes: float, what: str, lower: str) -> None:
    """:class:`InputError` when ``nbytes`` cannot fit in the memory left (more than
    ``OOM_HEADROOM`` of :func:`memory_available`), before it is allocated.

    Parameters
    ----------
    nbytes : float
        The estimated allocation, bytes.
    what : str
        What it holds, as the message says it (``"123,456 cells x 40 observers"``).
    lower : str
        How to make it smaller, naming the option or field (``"use a coarser
        --spacing"``).
    """
    left = memory_available()
    if left is None or nbytes <= OOM_HEADROOM * left:
        return
    raise InputError(
        f"{what} need about {_size(nbytes)} of memory, more than the {_size(left)} "
        f"available; {lower}"
    )
