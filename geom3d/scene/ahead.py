"""Work a scene starts ahead, in threads of its own, while the rest of it loads: the
compiled kernels (:func:`warm_ahead`), the blocking proofs' map and what the matrix's
first pairs would make from it (:func:`read_proof_map`: the ground's blocks, the convex
pieces, the prover's column tops and interior boxes). :func:`settle_background` waits
for all of it before a fork (:mod:`geom3d.execution.shared`): a lock one of these
threads held at the fork would stay held in the copy forever.
"""

from __future__ import annotations

import logging
import threading
from concurrent.futures import Future

from geom3d.scene.scenery import BuiltScenery
from geom3d.visibility import InteriorMap, warm_kernels
from geom3d.visibility.convex import ConvexSolids
from geom3d.visibility.ground import GroundBlocks
from geom3d.visibility.interior_cache import interior_key, read_interior
from geom3d.visibility.proof import ProverParts

__all__ = ["PROVER_LOCK", "convex_of", "read_proof_map", "settle_background", "warm_ahead"]

#: Guards the scene's prover and convex pieces, made once whichever thread asks first.
PROVER_LOCK = threading.Lock()

#: Whether this process has started loading the matrix's kernels (:func:`warm_ahead`).
_WARM = {"started": False}
#: The threads of work started ahead (:func:`_start_background`), for
#: :func:`settle_background`.
_BACKGROUND: list[threading.Thread] = []
_BACKGROUND_LOCK = threading.Lock()

log = logging.getLogger(__name__)


def _proof_map_entry(built: BuiltScenery) -> tuple[str, InteriorMap | None]:
    """The proof map's cache key for ``built``, and the map when the disk cache has it."""
    b = built.blocking
    c = built.pieces[0].closing if built.has_table_mesh else None
    table = [built.has_table_mesh, c and c.method, c and c.skipped_edges]
    key = interior_key(b.vertices, b.faces, b.element, extra=repr(table))
    return key, read_interior(key, b.vertices, b.faces)


def read_proof_map(built: BuiltScenery) -> None:
    """Start :func:`_proof_map_entry` in a daemon thread (``built.proof_map``, a Future),
    unless the prover is made or the read is under way. Hashing and reading release the
    GIL, so it runs beside the BVH build and the rest of the scene's set-up."""
    if built.prover is not None or built.proof_map is not None:
        return
    fut: Future[tuple[str, InteriorMap | None]] = Future()

    def run() -> None:
        fut.set_running_or_notify_cancel()
        try:
            key, interior = _proof_map_entry(built)
        except BaseException as exc:  # handed to whoever reads the map
            fut.set_exception(exc)
            return
        # what the matrix's first pairs would make next, made here while the main thread
        # is still busy (and before a fork: once for every worker, geom3d.execution.shared)
        if interior is not None and interior.certifies():
            built.ground = _quietly(GroundBlocks.from_map, interior)
        fut.set_result((key, interior))
        pieces = _quietly(convex_of, built)
        if interior is not None and pieces is not None:  # the prover's own, from both
            built.prover_parts = _quietly(ProverParts.of, interior, pieces)

    built.proof_map = fut
    _start_background(run, "geom3d-proof-map")


def convex_of(built: BuiltScenery) -> ConvexSolids:
    """``built``'s convex pieces and the boxes of its rectilinear ones, made once
    (:attr:`Scene.convex_solids`)."""
    with PROVER_LOCK:
        if built.convex is None:
            b = built.blocking
            built.convex = ConvexSolids.from_scenery(b.vertices, b.faces, b.element)
        return built.convex


def _quietly(make, *args):
    """``make(*args)``, or None when it fails (it is then made, and its error raised,
    where it is first needed)."""
    try:
        return make(*args)
    except Exception:
        log.debug("geom3d: making %s ahead failed", make.__qualname__, exc_info=True)
        return None


def warm_ahead() -> None:
    """Load the compiled kernels of a Line of Fire matrix
    (:func:`geom3d.visibility.warm_kernels`) in a daemon thread, once per process.

    Started before the scene reads its meshes: loading them from numba's cache (~0.08 s
    of CPU) then runs while the meshes are read, hashed and merged on one core, instead
    of beside the BVH build, which takes both. But after the scenery's key is hashed:
    that reads each file in 1 MB pieces, each waiting to get the GIL back, which the
    loading holds for milliseconds at a time (a 50 MB table's key took 0.1 s instead of
    0.035 s beside it).
    """
    with PROVER_LOCK:
        if _WARM["started"]:
            return
        _WARM["started"] = True
    _start_background(_warm_quietly, "geom3d-warm-kernels")


def _start_background(target, name: str) -> None:
    """Start a daemon thread of the scene's work ahead, known to :func:`settle_background`."""
    thread = threading.Thread(target=target, name=name, daemon=True)
    with _BACKGROUND_LOCK:
        _BACKGROUND[:] = [t for t in _BACKGROUND if t.is_alive()]
        _BACKGROUND.append(thread)
    thread.start()


def settle_background() -> None:
    """Wait for the work started ahead (kernels loading, the proof map's read and what
    is made from it) to end: before a fork (:mod:`geom3d.execution.shared`) no other thread
    of geom3d's may hold a lock (numba's compiler lock, the scenery's), which a forked
    copy would find held forever."""
    with _BACKGROUND_LOCK:
        pending = list(_BACKGROUND)
    for thread in pending:
        if thread.is_alive() and thread is not threading.current_thread():
            thread.join()


def _warm_quietly() -> None:
    try:
        warm_kernels()
    except Exception:  # only a head start: the matrix loads (and reports) them itself
        log.debug("geom3d: loading the Line of Fire kernels ahead failed", exc_info=True)
