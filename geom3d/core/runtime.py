"""What the command line does to the Python process before a long computation.

Library calls never touch process-wide state; a command owns its process and settles it
here once its scene is loaded.
"""

from __future__ import annotations

import gc

__all__ = ["same_code_in_workers", "settle_heap"]


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
    import os
    import sys
    from pathlib import Path

    root = str(Path(__file__).resolve().parent.parent.parent)
    if not sys.path or sys.path[0] != root:
        sys.path.insert(0, root)
    parts = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    if parts[:1] != [root]:
        os.environ["PYTHONPATH"] = os.pathsep.join([root, *(p for p in parts if p != root)])
