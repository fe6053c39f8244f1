"""How geom3d runs work in parallel: one layer, one policy (SPEC 13.4).

Every command that runs workers (``lof``, ``check``, ``survey``, ``exposure``) goes
through this package; nothing else starts processes for work.

- :mod:`.policy`: the start method (``fork`` on Linux, ``spawn`` elsewhere or with
  ``GEOM3D_START_METHOD=spawn``), the worker count (``auto``), the time constants.
- :mod:`.signals`: SIGTERM raises :class:`~.signals.Terminated` (a KeyboardInterrupt),
  so Ctrl-C and SIGTERM unwind the same way: every worker is killed and reaped on the
  way out; exit codes 130 and 143.
- :mod:`.child`: what every worker does first: die with its parent (Linux's parent-death
  signal, and a liveness pipe everywhere), leave Ctrl-C to the parent, fresh standard
  streams; stall detection from the CPU time a worker uses.
- :mod:`.shared`: items shared with forked copies of this process, which read the
  parent's scene, BVH and proofs in place (copy-on-write); the parent computes the items
  of a child that failed. ``lof``, and ``survey`` and ``exposure`` on Linux.
- :mod:`.pool`: a pool of long-lived worker processes, each warmed up before it takes a
  task, one task at a time with an optional time limit counted from the task's own start;
  a dead or stalled worker's task is redone once on a fresh worker, then reported.
  ``check``, and ``survey`` and ``exposure`` where there is no fork.
- :mod:`.dask`: the same tasks on an existing Dask cluster.

No fork server and no private multiprocessing attribute is used: workers are forked from
the command's own process (after it warmed the kernels, before it started Embree's
threads) or spawned.
"""

from __future__ import annotations

__all__: list[str] = []
