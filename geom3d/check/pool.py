"""``geom3d check`` on the execution layer's pool (:mod:`geom3d.execution.pool`).

The task is :func:`geom3d.check.record.check_scenario`; the warm-up (:func:`warm`) loads
the compiled kernels once, in this process, before the workers are forked, so every
worker, and every replacement of a timed-out or dead one, starts warm: ``--timeout``
counts only the scenario's own work (SPEC 13.4). A scenario whose worker died is checked
again once on a fresh worker, then reported; one past the time limit is an ``error``
saying how far it got and how long it ran.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from geom3d.check.discover import ScenarioFile
from geom3d.check.record import TerminationRequested, check_scenario, error_record
from geom3d.execution import signals
from geom3d.execution.pool import Lost, PoolReport, Work, run_pool

__all__ = [
    "WARM_SCENARIO",
    "WORK",
    "Terminated",
    "run_check_pool",
    "timeout_message",
    "warm",
    "warm_worker",
]


class Terminated(TerminationRequested, signals.Terminated):
    """Raised in the parent by the SIGTERM handler of ``geom3d check``."""


def timeout_message(seconds: float, stage: str | None = None) -> str:
    """The ``error`` of a scenario stopped by the time limit (``stage``: how far it got)."""
    where = f" while {stage}" if stage else ""
    return f"timed out after {seconds:g} s (--timeout); the scenario was stopped{where}"


def warm() -> None:
    """Load what every scenario needs before a worker takes one: the engine's modules and
    its compiled kernels (numba's disk cache). Starts no thread and builds no BVH, so the
    process may fork afterwards."""
    import geom3d.mesh  # noqa: F401
    from geom3d.visibility.pair import warm_kernels

    warm_kernels()


#: A tiny scenario each worker checks before it takes a real one: Line of Fire past a
#: wall, standing, a template, expectations (the kernels and caches a batch needs).
WARM_SCENARIO = """\
format: geom3d/1
units: mm
ruleset: infinity
scenery:
  - {id: wall, box: {size: [10, 60, 40]}, position: [0, 0]}
troopers:
  - {id: a, side: blue, position: [-60, 0], facing_deg: 0, silhouette: 2}
  - {id: b, side: red, position: [60, 0], facing_deg: 180, silhouette: 2}
  - {id: c, side: red, position: [60, 80], facing_deg: 180, silhouette: 2}
attacks:
  - {id: t, attacker: a, template: circular, mode: impact, main_target: c}
expect:
  lof:
    - {from: a, to: c, lof: true, visible_area_mm2: {min: 1}}
"""


def warm_worker(payload: object = None) -> None:
    """In each worker, before it says ready: check :data:`WARM_SCENARIO` (its answer is
    thrown away)."""
    import os
    import tempfile

    with tempfile.TemporaryDirectory(prefix="geom3d-warm-") as tmp:
        path = os.path.join(tmp, "warm.yaml")
        with open(path, "w", encoding="utf-8") as f:
            f.write(WARM_SCENARIO)
        check_scenario(path, "warm.yaml")


def _task(item: tuple[str, str], stage: Callable[[str], None]) -> dict:
    path, display = item
    return check_scenario(path, display, on_stage=stage)


#: The pool's work: one scenario per task, no stall detection (the time limit is the
#: guard; a scenario may wait on a slow disk).
WORK = Work(task=_task, prepare=warm, setup=warm_worker, stall_s=None)


def run_check_pool(
    files: Sequence[ScenarioFile],
    workers: int,
    timeout: float | None,
    finish: Callable[[int, dict], None],
    *,
    method: str | None = None,
) -> PoolReport:
    """Check every file on ``workers`` processes; ``finish(index, record)`` as each ends."""

    def on_result(i: int, rec: dict, elapsed: float) -> None:
        finish(i, rec)

    def on_lost(lost: Lost) -> None:
        f = files[lost.index]
        if lost.timed_out:
            why = timeout_message(timeout or 0.0, lost.stage)
        else:
            why = f"{lost.why} while checking this scenario"
        finish(lost.index, error_record(f.display, why, stage=lost.stage, elapsed=lost.elapsed_s))

    items = [(f.path, f.display) for f in files]
    return run_pool(
        WORK, items, workers=workers, on_result=on_result, on_lost=on_lost,
        timeout=timeout, method=method,
    )  # fmt: skip
