"""Compiled kernels ready before a command needs them, with a notice the first time.

numba compiles geom3d's kernels on their first call and caches them on disk
(:func:`geom3d.core.cache_paths.kernel_cache_dir`); on a new machine (or after an upgrade
changed a kernel) that costs under a minute of CPU, once. Rather than let the first
command sit silent in the middle of its work, :func:`prepare_kernels` runs a small fixed
workload that calls every kernel with the argument types of the real calls - the bundled
demo table: standing, the blocking proofs, the Line of Fire search, visible areas, the
templates - says so on stderr, once, with a progress display, and leaves a marker in the
kernel cache folder so that later runs skip it at once. The marker's folder is named for
the digest of the kernels' sources, so an upgrade that changes a kernel prepares again.

The largest kernel (the compiled search of one direction of a pair) compiles in a child
process while this one compiles the rest (the scenery's, the blocking proofs' and the
interior map's kernels, whose compile takes about as long), so on two cores the wait is
about halved; this process calls the search only once the child is done (no kernel
compiled twice). ``benchmarks/compile_profile.py`` lists each kernel's compile time.
"""

from __future__ import annotations

import contextlib
import gc
import os
import subprocess
import sys
import time
from pathlib import Path

from geom3d.commands._bundled import demo_scenario_path

__all__ = ["MARKER", "kernels_prepared", "prepare_kernels"]

#: File left in the kernel cache folder once every kernel is compiled.
MARKER = "geom3d-prepared"

_CHILD = "from geom3d.commands._prepare import _compile_search; _compile_search()"

#: ``gc.set_threshold`` while the kernels compile: a young-generation collection every
#: 100,000 allocations (Python's default: 700) and almost no full ones. numba builds
#: hundreds of thousands of long-lived objects while it compiles (IR, types, LLVM
#: text), and Python's default collections walked them again and again: a tenth of the
#: compile's CPU (the cold preparation of the demo's kernels, 2 cores, each way twice:
#: 26.4 + 24.7 and 26.1 + 24.5 CPU s in this process and the search's child with the
#: default, 23.6 + 22.2 and 23.1 + 22.6 with this; turning the collector off saved no
#: more and kept 225 MB more). It keeps about 35 MB more in each process.
COMPILE_GC_THRESHOLD = (100_000, 50, 1_000)


@contextlib.contextmanager
def _few_collections():
    """:data:`COMPILE_GC_THRESHOLD` inside, the thresholds before restored after."""
    before = gc.get_threshold()
    gc.set_threshold(*COMPILE_GC_THRESHOLD)
    try:
        yield
    finally:
        gc.set_threshold(*before)


def _kernel_dir() -> Path:
    """The folder numba caches into in this process: its setting once the kernels are
    imported (a later change of ``$NUMBA_CACHE_DIR`` does not move it), else geom3d's."""
    from numba.core import config

    from geom3d.bodies import kernels  # noqa: F401  (sets numba's cache folder)

    return Path(config.CACHE_DIR)  # type: ignore[attr-defined]  # set at run time, no stub


def _marker() -> Path:
    return _kernel_dir() / MARKER


def kernels_prepared() -> bool:
    """Whether :func:`prepare_kernels` completed for the current kernel sources."""
    return _marker().is_file()


@_few_collections()
def _compile_search() -> None:
    """Compile (or load) the Line of Fire search's kernels: one toy call with the types of
    the real ones (:func:`geom3d.visibility.search.warm_search`).

    The search's kernels call Embree through symbols bound when its library is loaded;
    without them LLVM aborts the process when it links the kernels ("Symbol not found"),
    compiled or loaded from the cache. So the library is loaded first
    (:func:`geom3d.raycast.compiled.casts_available`), and without Embree there is no
    compiled search to make.
    """
    from geom3d.raycast.compiled import casts_available

    if not casts_available():
        return
    from geom3d.bodies.cylinder import Cylinder
    from geom3d.bodies.kernels import njit_leaf  # noqa: F401  (sets the cache folder)
    from geom3d.core.tolerances import PATCH_MM
    from geom3d.visibility.apparent import PatchLattice
    from geom3d.visibility.cast import cylinder_array
    from geom3d.visibility.search import warm_search

    occ = cylinder_array([Cylinder((100.0, 0.0, 0.0), 20.0, 60.0)])
    warm_search(Cylinder((200.0, 0.0, 0.0), 12.5, 40.0), occ, PatchLattice(PATCH_MM))


def _steps():
    """``(label, function)`` of the workload, in order; each function takes the state."""

    def load(st):
        from geom3d.api import load_scene

        st["scene"] = load_scene(demo_scenario_path())

    def proofs(st):
        from geom3d.visibility.pair import warm_kernels

        warm_kernels(search=st.get("child") is None)  # else the child compiles it
        _ = st["scene"].prover  # the map of interior runs: its kernels, while the child works

    def wait_search(st):
        child = st.get("child")
        if child is not None:
            child.wait()

    def lof(st):
        scene = st["scene"]
        scene.lof_matrix(areas=True)  # the demo's matrix: proofs, threads, areas
        ids = list(scene.troopers)
        scene.line_of_fire(ids[0], ids[-1])  # one pair: no proofs

    def attacks(st):
        scene = st["scene"]
        for attack in scene.scenario.attacks:
            scene.resolve_attack(attack.id)

    return [
        ("scenery and standing", load),
        ("blocking proofs", proofs),
        ("Line of Fire search", wait_search),
        ("Line of Fire and areas", lof),
        ("templates", attacks),
    ]


def prepare_kernels(*, quiet: bool = False, announce: bool = True) -> int:
    """Compile (or load from numba's cache) every kernel, once per kernel version.

    Parameters
    ----------
    quiet : bool
        No notice and no progress display.
    announce : bool
        Print the one-line notice before preparing (``geom3d doctor`` prints its own).

    Returns
    -------
    int
        How many preparation steps ran: 0 when the kernels were already prepared.
    """
    if kernels_prepared():
        return 0
    from geom3d.core.output import atomic_write
    from geom3d.core.progress import Progress, progress_mode
    from geom3d.execution.child import die_with_parent

    if announce and not quiet:
        print(
            "geom3d: preparing compiled kernels (the first run on this machine: under a "
            "minute of CPU in two processes, once; `geom3d doctor` does it ahead)",
            file=sys.stderr,
            flush=True,
        )
    steps = _steps()
    state: dict = {}
    env = dict(os.environ, NUMBA_CACHE_DIR=str(_kernel_dir()))
    try:  # the search compiles beside us; a child that cannot start just leaves it to us
        state["child"] = subprocess.Popen(
            [sys.executable, "-c", _CHILD],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=die_with_parent,
        )
    except OSError:
        state["child"] = None
    t0 = time.perf_counter()
    try:
        with (
            Progress("preparing kernels", progress_mode(quiet), total=len(steps)) as bar,
            _few_collections(),
        ):
            for i, (label, step) in enumerate(steps):
                bar(i, len(steps), note=label)
                step(state)
            bar(len(steps), len(steps), note=f"done in {time.perf_counter() - t0:.0f} s")
    finally:
        child = state.get("child")
        if child is not None and child.poll() is None:
            child.kill()
            child.wait()
    marker = _marker()
    try:
        marker.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(marker, f"prepared in {time.perf_counter() - t0:.1f} s\n")
    except OSError:  # a read-only cache: the kernels are compiled in memory all the same
        pass
    return len(steps)
