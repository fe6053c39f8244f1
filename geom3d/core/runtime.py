"""What the command line does to the Python process before a long computation.

Library calls never touch process-wide state; a command owns its process and settles it
here once its scene is loaded.
"""

from __future__ import annotations

import atexit
import gc
import os
import sys
import threading
from typing import NoReturn

__all__ = [
    "HUGE_PAGES_ENV",
    "exit_process",
    "native_threads_started",
    "no_huge_pages",
    "note_native_threads",
    "prctl",
    "same_code_in_workers",
    "settle_heap",
]

#: Set to anything but "" or "0" to keep transparent huge pages (see :func:`no_huge_pages`).
HUGE_PAGES_ENV = "GEOM3D_HUGE_PAGES"

# prctl(2) options (linux/prctl.h)
_PR_SET_THP_DISABLE = 41


def no_huge_pages() -> bool:
    """Turn transparent huge pages off for this process and the workers it starts.

    With the kernel's ``transparent_hugepage`` set to ``always`` (Debian's and Ubuntu's
    default), every first touch of a 2 MB-aligned region of fresh memory faults in a
    whole huge page and zeroes it. A command touches about 200 of them (numpy, numba,
    the mesh, each worker thread's malloc arena). On the virtual machines CI and clusters
    run on, zeroing one took up to 15 ms (the host backs the page as it is written): the
    same ``geom3d lof`` spent 0.2 to 3.5 s in the kernel from one run to the next, with the
    same user time. With ordinary 4 kB pages it spends about 0.4 s, every run, and
    ray casting was measured no slower (docs/architecture.md, "Process settings").

    Linux only (``prctl(PR_SET_THP_DISABLE)``, kept across ``fork`` and ``exec``); a no-op
    elsewhere, when ``GEOM3D_HUGE_PAGES`` is set to anything but ``""`` or ``"0"``, or when
    the call is refused. Returns whether huge pages are now off.
    """
    if os.environ.get(HUGE_PAGES_ENV, "") not in ("", "0") or not sys.platform.startswith("linux"):
        return False
    return prctl(_PR_SET_THP_DISABLE, 1)


def prctl(option: int, arg: int) -> bool:
    """``prctl(option, arg)`` (Linux, through libc); whether it succeeded (False where
    there is no libc symbol table or no ``prctl`` in it)."""
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(option, arg, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


_NATIVE = {"threads": False}


def note_native_threads() -> None:
    """Record that this process started native worker threads (Embree's task scheduler
    builds a BVH on them). A process forked after that must not build a BVH (the threads
    are not in the copy), so the execution layer spawns its workers instead."""
    _NATIVE["threads"] = True


def native_threads_started() -> bool:
    """Has :func:`note_native_threads` been called in this process?"""
    return _NATIVE["threads"]


def settle_heap() -> None:
    """Take everything alive now out of the cyclic garbage collector's full passes.

    By the time a scene is loaded the process holds about 150,000 tracked objects (the
    imported modules, numba's typing tables, the scene), all of which live until the
    process ends. Each full collection walks them again while holding the GIL: about
    0.1 s on a million-triangle table, and every thread of a threaded matrix or survey
    waits meanwhile. :func:`gc.freeze` moves them to the permanent generation, so later
    collections walk only what the computation itself makes. Nothing is lost: a loaded
    scene leaves no more than a few dozen unreachable objects behind (measured), and the
    frozen objects are still freed by reference counting.
    """
    gc.freeze()


def same_code_in_workers() -> None:
    """Make worker processes import the geom3d this process runs.

    A fork server or a spawned worker gets this process's ``sys.path``, where ``''``
    means "the current folder" (``python -m`` or ``python -c`` from a source tree): after
    a ``chdir`` it names another folder, and the worker could import another installed
    geom3d (an older one, with another worker protocol). Python 3.11's fork server even
    ignores the ``sys.path`` it is handed. So the folder holding this geom3d (where this
    process's geom3d came from) is put first on ``sys.path`` and on ``PYTHONPATH``, which
    the fork server and spawned workers start with.
    """
    from pathlib import Path

    root = str(Path(__file__).resolve().parent.parent.parent)
    if not sys.path or sys.path[0] != root:
        sys.path.insert(0, root)
    parts = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    if parts[:1] != [root]:
        os.environ["PYTHONPATH"] = os.pathsep.join([root, *(p for p in parts if p != root)])


def exit_process(code: int, *, interrupted: bool = False) -> NoReturn:
    """End the process of a finished command, without tearing its heap down.

    After a Line of Fire matrix the interpreter's own teardown (every object freed one by
    one, numba's LLVM modules, the BVH) took about 60 ms of a 2.3 s ``geom3d lof``, and
    more after forked workers (each freed object's page faults once more, the pages
    having been shared). The operating system frees all of it at once. So the exit
    handlers run (temporary folders, worker pools and clusters shut down, logging
    flushed), standard output and error are flushed, and the process ends there
    (``os._exit``). When a thread that a normal exit would wait for is still running,
    the exit is a normal one (``sys.exit``), unless the command was ``interrupted``.
    """
    main = threading.main_thread()
    # an interrupted command ends now (SPEC 13.4: within 2 s), whatever a thread of work
    # started ahead (kernels, proof map) is still doing
    if not interrupted and any(t is not main and not t.daemon for t in threading.enumerate()):
        sys.exit(code)
    try:
        atexit._run_exitfuncs()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                if stream is not None:
                    stream.flush()
            except (OSError, ValueError):  # closed or broken: nothing more can be said
                pass
        os._exit(code)
