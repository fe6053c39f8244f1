"""The Line of Fire engine (SPEC section 3; Infinity rule text ``003_*``).

The engine is parameterised by the scene's ruleset policy
(``scene.ruleset.lof_policy``, a :class:`geom3d.scene.interface.LofPolicy`: the patch size, the
front arc, the engagement rule; the numbers come from the ruleset's data file). With the
policy of both bundled rulesets (3 mm patch, 180° arc, engaged troopers see only what
they touch), LoF(A -> T) holds when

* A is not engaged, or T is in silhouette contact with A (engaged troopers have 360°
  LoF, but only to what they touch) - otherwise ``reason = "engaged"``;
* T is totally or partially inside A's front arc (markers, ``arc360`` and troopers
  on a route have 360°) - otherwise ``reason = "out_of_arc"``;
* A and T see each other: some eye point of one sees a ``patch_mm`` x ``patch_mm``
  apparent patch of the other (:mod:`geom3d.visibility`), computed once per unordered
  pair (reciprocity, cached in ``scene.visibility_cache``) - otherwise
  ``reason = "blocked"``.

Blocking: scenery with ``blocks_lof`` and the volumes of all other troopers, except
markers and troopers moving along a route.
"""

from __future__ import annotations

import functools
import itertools
import operator
import os
import threading
import weakref
from collections.abc import Callable, Iterable

import numpy as np

from geom3d.adjudication.portable import (
    plain_result,
    plain_visibility,
    result_from_plain,
    visibility_from_plain,
)
from geom3d.adjudication.routepath import route_path, scan_windows
from geom3d.bodies.cylinder import cylinders_touch
from geom3d.bodies.kernel_constants import CONTACT_EPS_MM
from geom3d.core.errors import InputError
from geom3d.core.tolerances import ARC_EPS_MM, PROOF_MIN_PAIRS
from geom3d.core.validation import xyz
from geom3d.execution.items import map_items, uses_processes
from geom3d.scene.ahead import settle_background
from geom3d.scene.interface import LofPolicy
from geom3d.scene.results import LofResult, RouteResult, RouteWindow
from geom3d.scene.scene import Scene, Trooper
from geom3d.scene.tolerances import ENGAGED_CONTACT_MM
from geom3d.scene.vehicles import engine_for
from geom3d.visibility import PatchWitness, Prover, VisibilityStats, cylinder_array, pair_patch

__all__ = [
    "LofResult",
    "RouteResult",
    "RouteWindow",
    "in_front_arc",
    "line_of_fire",
    "line_of_fire_from",
    "lof_matrix",
    "pair_visibility",
]


def in_front_arc(viewer: Trooper, target: Trooper, arc_deg: float = 180.0) -> bool:
    """Is ``target`` totally or partially inside ``viewer``'s front arc?

    With ``arc_deg = 180`` the arc is the half-space in front of the vertical plane
    through the viewer's base centre perpendicular to its facing. Partially inside means
    the target's base disc reaches more than ``ARC_EPS_MM`` into that half-space; a base
    that only touches the plane is outside. ``arc_deg = 360``, markers and ``arc360``
    troopers see all around. (The ruleset data allows only these two arcs.)
    """
    if viewer.has_360 or arc_deg >= 360.0:
        return True
    f = viewer.facing_vector
    rel = np.array(target.position[:2]) - np.array(viewer.position[:2])
    return float(rel @ f) + target.radius > ARC_EPS_MM


#: Per scene: its troopers (to notice a change), the ids of those that block Line of Fire
#: and their cylinder rows; built once instead of once per pair.
_BLOCKING: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_BLOCKING_LOCK = threading.Lock()


def occluder_rows(scene: Scene, exclude: Iterable[str]) -> np.ndarray:
    """(M, 5) float64: :func:`geom3d.visibility.cylinder_array` rows of the troopers that
    block Line of Fire, but those in ``exclude``, in the scene's order."""
    troopers = tuple(scene.troopers.values())
    with _BLOCKING_LOCK:
        got = _BLOCKING.get(scene)
    if got is None or len(got[0]) != len(troopers) or not all(map(operator.is_, got[0], troopers)):
        blocking = [t for t in troopers if t.blocks_lof]
        index = {t.id: k for k, t in enumerate(blocking)}
        got = (troopers, index, cylinder_array([t.cylinder for t in blocking]))
        with _BLOCKING_LOCK:
            _BLOCKING[scene] = got
    _, index, rows = got
    keep = np.ones(len(rows), dtype=bool)
    keep[[index[i] for i in exclude if i in index]] = False
    return rows[keep]


def _policy(scene: Scene) -> LofPolicy:
    return scene.ruleset.lof_policy


def pair_visibility(
    scene: Scene,
    a: Trooper,
    b: Trooper,
    *,
    stats: VisibilityStats | None = None,
    prover: Callable[[], Prover] | None = None,
) -> tuple[PatchWitness | None, str | None]:
    """Symmetric visibility of two troopers at their given positions (no cache).

    The patch size is the scene's ruleset policy's ``patch_mm``. Blocking proofs: the
    scene's when something has built them, else ``prover()`` if given, called only when
    the pair needs a proof.

    Returns
    -------
    witness : PatchWitness or None
    viewer_id : str or None
        Which trooper the witness eye belongs to.
    """
    w, k = pair_patch(
        a.cylinder,
        b.cylinder,
        engine_for(scene, (a.id, b.id)),  # 40k hulls but the pair's own (scene.vehicles)
        occluder_rows(scene, (a.id, b.id)),
        prover=scene.prover_if_built or prover,
        patch_mm=_policy(scene).patch_mm,
        stats=stats,
        solids=scene.convex_solids,
    )
    return (w, (a.id, b.id)[k]) if w is not None and k is not None else (None, None)


def _cached_visibility(scene: Scene, a: Trooper, b: Trooper, stats):
    """The pair's visibility, searched in one canonical order (ids sorted), exactly as
    :func:`lof_matrix` searches it: the witness, its eye and its ``visible_area_mm2``
    are the same whichever command asks and in whichever order (issue 35)."""
    cache = scene.visibility_cache
    key = _pair_key(a.id, b.id)
    if key not in cache:
        first, second = (a, b) if a.id == key[0] else (b, a)
        w, viewer = pair_visibility(scene, first, second, stats=stats)
        cache[key] = (w, viewer)
    return cache[key]


def _has_vehicles(scene: Scene) -> bool:
    return any(t.vehicle is not None for t in scene.troopers.values())


def _parallel_pairs(scene, todo, ways, uses, areas, threads, fork, lazy, stats, progress):
    """The visibility of the pairs ``todo`` (into ``scene.visibility_cache``) and their
    ordered results, on ``threads`` threads or, with ``fork``, this thread and forked
    copies of the process (:func:`geom3d.execution.items.map_items`; the answers travel
    back as plain tuples, :mod:`.portable`)."""
    troopers = scene.troopers
    parts = [VisibilityStats() for _ in todo]
    upto = [0, *itertools.accumulate(uses[key] for key in todo)]  # ordered pairs per item

    def item(i: int):
        a, b = (troopers[k] for k in todo[i])
        vis = w, _ = pair_visibility(scene, a, b, stats=parts[i], prover=lazy)
        if areas and w is not None:  # measured and located where the pair was searched
            w.visible_area_mm2, w.patch_center  # noqa: B018
        results = [(xy, static_lof(scene, troopers[xy[0]], troopers[xy[1]], vis))
                   for xy in ways[todo[i]]]  # fmt: skip
        return vis, results, parts[i]

    def pack(got):
        vis, results, part = got
        return plain_visibility(vis), [plain_result(r) for _, r in results], part

    def unpack(i: int, packed):
        plain, results, part = packed
        vis = visibility_from_plain(plain, functools.partial(_searched_area, scene, todo[i]))
        return vis, [((r[0], r[1]), result_from_plain(r, vis)) for r in results], part

    def report(n_done: int) -> None:
        if progress is not None:
            progress(upto[n_done], upto[-1])

    chunk = PAIRS_PER_TASK if fork else max(1, min(PAIRS_PER_TASK, len(todo) // (4 * threads)))
    got = map_items(
        item, len(todo), threads=threads, processes=fork, chunk=chunk, progress=report,
        pack=pack, unpack=unpack,
    )  # fmt: skip
    static: dict[tuple[str, str], LofResult] = {}
    for i, (vis, results, part) in enumerate(got):
        scene.visibility_cache[todo[i]] = vis
        static.update(results)
        if stats is not None:
            stats.add(part)
    return static


def _searched_area(scene: Scene, key: tuple[str, str]) -> float:
    """The visible area of the witness of pair ``key``, searched again here."""
    w, _ = pair_visibility(scene, *(scene.troopers[k] for k in key))
    assert w is not None  # the same search finds the same witness
    return w.visible_area_mm2


def _pair_key(x: str, y: str) -> tuple[str, str]:
    """The two ids sorted: the key of :attr:`Scene.visibility_cache`."""
    return (x, y) if x <= y else (y, x)


def static_lof(scene: Scene, a: Trooper, b: Trooper, vis) -> LofResult:
    witness, viewer = vis
    visible = witness is not None
    policy = _policy(scene)
    # engaged partners written to 0.01 mm are in contact (SPEC 12.6)
    eps = ENGAGED_CONTACT_MM if b.id in a.engaged_with else CONTACT_EPS_MM
    touching = cylinders_touch(a.cylinder, b.cylinder, eps=eps)
    engaged = policy.engaged_sees_only_contact and bool(a.engaged_with)
    # 360 degrees: markers and arc360 (in in_front_arc), troopers on a route, and
    # engaged troopers towards what they touch
    arc = in_front_arc(a, b, policy.arc_deg) or a.is_moving or (engaged and touching)
    if engaged and not touching:
        reason = "engaged"
    elif not arc:
        reason = "out_of_arc"
    elif not visible:
        reason = "blocked"
    else:
        reason = None
    return LofResult(a.id, b.id, reason is None, arc, visible, reason, witness, viewer)


def line_of_fire(
    scene: Scene,
    from_id: str,
    to_id: str,
    *,
    stats: VisibilityStats | None = None,
) -> LofResult:
    """Line of Fire from ``from_id`` to ``to_id`` (see module docstring).

    When either trooper has a route, LoF is evaluated along it (SPEC 3.5): the moving
    trooper has 360° LoF and obstructs nobody; ``result.route`` says whether LoF exists
    at any point and where it first does. The other fields then describe the first
    position with LoF (or the start of the route when there is none).
    """
    a = scene.trooper(from_id)
    b = scene.trooper(to_id)
    if a.id == b.id:
        raise InputError(f"Line of Fire from {a.id!r} to itself")
    if a.route is None and b.route is None:
        return static_lof(scene, a, b, _cached_visibility(scene, a, b, stats))
    return _route_lof(scene, a, b, stats)


def line_of_fire_from(scene: Scene, a: Trooper, to_id: str) -> LofResult:
    """Line of Fire from ``a``, a trooper of the scene that may stand elsewhere than the
    scene says (a moving attacker at its firing point: a one-point route there), to
    ``to_id`` (along its route when it has one)."""
    b = scene.trooper(to_id)
    if a.id == b.id:
        raise InputError(f"Line of Fire from {a.id!r} to itself")
    if a.route is None and b.route is None:
        return static_lof(scene, a, b, _route_visibility(scene, a, b, None))
    return _route_lof(scene, a, b, None)


def _route_lof(scene: Scene, a: Trooper, b: Trooper, stats) -> LofResult:
    """LoF along the route(s) of ``a`` and/or ``b``: both movers advance together, the
    same fraction of their routes; windows are measured along the first mover's route
    (the other's when the first has a one-point route)."""
    movers = [t for t in (a, b) if t.route is not None]
    paths = {t.id: route_path(scene, t) for t in movers}  # following the ground (13.1)
    total = max(p.length for p in paths.values())
    # the windows' route: the first mover's, unless it stands still (a one-point route)
    main = movers[0] if paths[movers[0].id].length > 0 or len(movers) == 1 else movers[1]
    seen: dict[float, tuple] = {}

    def evaluate(frac: float):
        if frac in seen:
            return seen[frac]
        placed = {}
        idx = 0
        for t in movers:
            p, i = paths[t.id].at(frac * paths[t.id].length)
            placed[t.id] = t.moved_to(p)
            if t.id == main.id:
                idx = i
        aa = placed.get(a.id, a)
        bb = placed.get(b.id, b)
        vis = _route_visibility(scene, aa, bb, stats)
        seen[frac] = got = (static_lof(scene, aa, bb, vis), idx, placed[main.id].position)
        return got

    spans = scan_windows(lambda f: evaluate(f)[0].lof, total)
    length = paths[main.id].length
    windows = tuple(
        RouteWindow(
            lo * length,
            hi * length,
            xyz(float(v) for v in evaluate(lo)[2]),
            xyz(float(v) for v in evaluate(hi)[2]),
        )
        for lo, hi in spans
    )
    if spans:
        res, idx, pos = evaluate(spans[0][0])
        route = RouteResult(True, idx, xyz(float(v) for v in pos), main.id, windows)
        return _with_route(res, route)
    return _with_route(evaluate(0.0)[0], RouteResult(False, None, None, main.id, ()))


#: Per scene: visibility of two troopers at given positions on routes, so that both
#: ordered pairs of a moving trooper (A -> B and B -> A) cast each position once.
_ROUTE_VIS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _route_visibility(scene: Scene, a: Trooper, b: Trooper, stats):
    key = tuple(sorted(((a.id, a.position), (b.id, b.position))))
    with _BLOCKING_LOCK:
        cache = _ROUTE_VIS.setdefault(scene, {})
        got = cache.get(key)
    if got is None:
        got = pair_visibility(scene, a, b, stats=stats)
        with _BLOCKING_LOCK:
            cache[key] = got
    return got


def _with_route(res: LofResult, route: RouteResult) -> LofResult:
    return LofResult(
        res.from_id,
        res.to_id,
        res.lof,
        res.in_arc,
        res.visible,
        res.reason,
        res.witness,
        res.witness_viewer,
        route,
    )


#: Pairs per task of a threaded matrix (fewer when there are few pairs, so every thread
#: gets some): one task per pair wakes the collecting thread, which needs the GIL, once per
#: pair; 8 per task cut a 40-trooper matrix's CPU time by about 5 %.
PAIRS_PER_TASK = 8


def lof_matrix(
    scene: Scene,
    pairs: Iterable[tuple[str, str]] | None = None,
    *,
    stats: VisibilityStats | None = None,
    progress: Callable[[int, int], None] | None = None,
    threads: int | None = None,
    areas: bool = False,
    processes: bool = False,
) -> list[LofResult]:
    """Line of Fire for ``pairs`` (default: all ordered pairs, in file order).

    Visibility is computed once per unordered pair, on ``threads`` threads (default: the
    CPU count, at most 4; Embree and the compiled kernels release the GIL). Results do
    not depend on the thread count. ``progress(done, total)`` counts ordered pairs.
    With ``areas`` the witnesses' visible areas are measured and their patch centres
    located too, on the same threads (otherwise each is found when first read, if ever).

    With ``processes`` (a command's choice: it forks the process), the pairs are shared
    by this thread and ``threads - 1`` forked copies of the process instead
    (:mod:`geom3d.execution.shared`: no GIL between them), where that is safe: on Linux, from
    the main thread, and with no vehicle (whose per-pair BVH a child may not build).
    Same results; a witness whose area was not measured measures it, when first read, by
    searching its pair again.
    """
    ids = list(scene.troopers)
    if pairs is None:
        pairs = [(x, y) for x in ids for y in ids if x != y]
    pairs = list(pairs)
    for x, y in pairs:
        scene.trooper(x), scene.trooper(y)
    cache = scene.visibility_cache
    uses: dict[tuple[str, str], int] = {}
    for x, y in pairs:
        if x != y and scene.troopers[x].route is None and scene.troopers[y].route is None:
            key = _pair_key(x, y)
            uses[key] = uses.get(key, 0) + 1
    todo = [key for key in uses if key not in cache]
    threads = min(4, os.cpu_count() or 1) if threads is None else max(1, int(threads))
    parallel = threads > 1 and len(todo) > 1
    # the blocking proofs are worth building for many pairs, once for all threads; in
    # parallel by the first pair that needs one, while the other threads go on with the
    # pairs that need none (most visible pairs)
    many = len(todo) >= PROOF_MIN_PAIRS
    if many and not parallel:
        scene.prover  # noqa: B018
    lazy = (lambda: scene.prover) if many and parallel else None
    done = 0
    total = len(pairs)
    static: dict[tuple[str, str], LofResult] = {}  # ordered pairs answered in the threads
    ways: dict[tuple[str, str], list[tuple[str, str]]] = {key: [] for key in todo}
    for x, y in pairs:
        key = _pair_key(x, y)
        if key in ways and (x, y) not in ways[key]:
            ways[key].append((x, y))
    # forked workers where asked and safe (the children may not build a vehicle's BVH)
    fork = uses_processes(threads, processes) and not _has_vehicles(scene)
    if parallel:  # the bulk of the work: visibility, in parallel (one call, either way)
        if fork and many:
            scene.prover  # noqa: B018  (built once, before the fork: the children share it)
        if fork:
            settle_background()
        static = _parallel_pairs(
            scene, todo, ways, uses, areas, threads, fork, lazy, stats, progress
        )
        done = sum(uses.values())
    if fork:
        # pairs with a route (a Line of Fire per millimetre of travel) in forked workers
        # too: in threads, their many short compiled calls wait for each other's GIL
        done = _route_pairs(scene, pairs, static, threads - 1, stats, progress, done, total)
    out = []
    for x, y in pairs:
        if (x, y) in static:
            out.append(static[x, y])
            continue
        out.append(line_of_fire(scene, x, y, stats=stats))
        done += 1
        if progress is not None:
            progress(done, total)
    return out


def _route_pairs(scene, pairs, static, children, stats, progress, done, total) -> int:
    """The ordered pairs with a route, into ``static``, shared with ``children`` forked
    workers (:func:`geom3d.execution.items.map_items`; each unordered pair in one process:
    its two directions share the route positions' visibility, ``_ROUTE_VIS``). The
    results come back pickled, their witnesses' areas measured in the worker. Returns
    ``done`` counted on."""
    groups: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for x, y in pairs:
        if x != y and (x, y) not in static:
            groups.setdefault(_pair_key(x, y), []).append((x, y))
    if len(groups) < 2:
        return done
    todo = list(groups.values())
    upto = list(itertools.accumulate((len(g) for g in todo), initial=done))

    def work(k: int):
        part = VisibilityStats()
        return [((x, y), line_of_fire(scene, x, y, stats=part)) for x, y in todo[k]], part

    def report(n_done: int) -> None:
        if progress is not None:
            progress(upto[n_done], total)

    got = map_items(work, len(todo), threads=children + 1, processes=True, chunk=1, progress=report)
    for results, part in got:
        static.update(results)
        if stats is not None:
            stats.add(part)
    return upto[-1]
