"""``geom3d serve`` benchmark (issue 50): how long a move takes to answer, warm.

Two tables, each in one process with its baselines:

* the demo table (``meshes/demo/table.yaml``, 12 troopers; target 100 ms a move);
* the synthetic 1M-triangle scanned table of ``bench_lof.py`` with 40 troopers
  (``_lof_figures.scenario_data``; target 300 ms a move), unless ``--no-big``.

For each: the session is loaded and warmed (blocking proofs, the whole matrix), then
``--moves`` moves (default 100) of seeded random troopers to seeded random spots of the
table; a move is timed from the call to its answer (:meth:`Session.move`: re-standing
the trooper in the kept scene, ``Scene.restand``, its pairs). Spots inside scenery are
refused (and counted: a refusal costs the re-stand but no pair). Printed: the median and
95th percentile, the same in raw Embree segments (the move's seconds times the raw
Embree rate measured here, on the scene's mesh, just after: a figure the machine's load
changes less), and next to them, measured in the same process on the same scene, the
**baselines**: the moved trooper's pairs answered (both ways, as JSON) on one thread with
none of them cached (what a move must at least do) and the whole matrix from scratch
(what running ``geom3d lof`` again would redo). Then the same moves through HTTP (unless
``--no-http``: the server in a thread, ``urllib`` as the client) and the exposure
overlay's time (20 mm, the side of the first trooper's enemies, as the page asks it:
its passes, coarse to fine, each with when its spots came; then again after a trooper
not on the observing side is dragged 40 mm, and after an observer is: the answers the
move cannot change kept; not with ``--no-overlay``; on the big table only with
``--big-overlay``: its sides have 20 observers each). Last, ``geom3d serve``'s search
ahead on new jobs: every side's overlay found with the session idle, the overlay asked
for then, moves made while it searches (beside the moves above) and the overlay once it
caught up after them.

Usage::

    python benchmarks/bench_serve.py                  # both tables, 100 moves
    python benchmarks/bench_serve.py --no-big --moves 30 --no-overlay
    python benchmarks/bench_serve.py --triangles 200000 --troopers 20
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import numpy as np
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _lof_figures import scenario_data
from _raw import scene_raw_seconds

from geom3d import terrain
from geom3d.commands._prepare import prepare_kernels
from geom3d.serve.ahead import AHEAD_NICE, ExposureAhead
from geom3d.serve.app import make_server, serve_in_thread
from geom3d.serve.overlay import OVERLAY_SPACING_MM, ExposureJobs
from geom3d.serve.session import BadRequest, Session

DEMO = Path(__file__).resolve().parents[1] / "meshes" / "demo" / "table.yaml"

#: Moves timed while the search ahead searches (each after a quiet spell: about 1.3 s).
AHEAD_MOVES = 20


def _moves(session: Session, n: int, seed: int) -> list[tuple[str, list[float]]]:
    rng = np.random.default_rng(seed)
    ids = list(session.scene.troopers)
    x0, y0, x1, y1 = session.bounds
    m = 30.0  # keep bases on the table
    return [
        (ids[int(rng.integers(len(ids)))], [float(rng.uniform(x0 + m, x1 - m)),
                                            float(rng.uniform(y0 + m, y1 - m))])
        for _ in range(n)
    ]  # fmt: skip


def _stats(times: list[float]) -> str:
    if not times:
        return "-"
    a = np.array(times) * 1000
    return f"median {np.median(a):7.1f} ms   p95 {np.percentile(a, 95):7.1f} ms   (n = {len(a)})"


def _pairs_alone(session: Session, tid: str) -> float:
    """Seconds to answer ``tid``'s pairs as a move does (both ways, as JSON), one thread,
    with none of them cached: the work a move cannot avoid."""
    scene = session.scene
    saved = dict(scene.visibility_cache)
    for key in [k for k in saved if tid in k]:
        del scene.visibility_cache[key]
    t0 = time.perf_counter()
    for other in scene.troopers:
        if other != tid:
            scene.line_of_fire(tid, other).to_dict(area=False)
            scene.line_of_fire(other, tid).to_dict(area=False)
    dt = time.perf_counter() - t0
    scene.visibility_cache.clear()
    scene.visibility_cache.update(saved)
    return dt


def _matrix_alone(session: Session) -> float:
    scene = session.scene
    saved = dict(scene.visibility_cache)
    scene.visibility_cache.clear()
    t0 = time.perf_counter()
    scene.lof_matrix(areas=False)
    dt = time.perf_counter() - t0
    scene.visibility_cache.clear()
    scene.visibility_cache.update(saved)
    return dt


def _http_moves(session: Session, moves) -> tuple[list[float], int]:
    server = make_server(session, "127.0.0.1", 0)
    serve_in_thread(server)
    times, refused = [], 0
    try:
        for tid, pos in moves:
            req = urllib.request.Request(
                server.url + "api/move",
                data=json.dumps({"id": tid, "position": pos}).encode(),
                headers={"Content-Type": "application/json"},
            )
            t0 = time.perf_counter()
            try:
                with urllib.request.urlopen(req, timeout=120) as r:
                    r.read()
            except urllib.error.HTTPError as exc:
                exc.read()
                refused += 1
                continue
            times.append(time.perf_counter() - t0)
    finally:
        server.shutdown()
        server.server_close()
    return times, refused


def _raw_rate(session: Session, n: int = 200_000, seed: int = 7) -> float:
    """Raw Embree segments per second on the scene's blocking mesh (``_raw``): segments
    between seeded random points over the table, 0 to 60 mm up (trooper heights)."""
    rng = np.random.default_rng(seed)
    x0, y0, x1, y1 = session.bounds

    def pts():
        return np.column_stack(
            [rng.uniform(x0, x1, n), rng.uniform(y0, y1, n), rng.uniform(0, 60, n)]
        )

    o, e = pts(), pts()
    return n / min(scene_raw_seconds(session.scene, o, e) for _ in range(3))


class _Timed(ExposureJobs):
    """The overlay's jobs, noting when each pass's spots came."""

    def __init__(self) -> None:
        super().__init__()
        self.t0 = time.perf_counter()
        self.passes: list[tuple[float, int, float]] = []  # (s, spots, cell_mm)

    def _update(self, job: int, **fields) -> None:
        super()._update(job, **fields)
        if "cells" in fields:
            cells = fields["cells"]
            t = time.perf_counter() - self.t0
            self.passes.append(
                (t, len(cells), min((c.get("size_mm", 20.0) for c in cells), default=0))
            )


def _overlay_side(session: Session) -> str:
    first = next(iter(session.scene.troopers.values()))
    return next(
        (t.side for t in session.scene.troopers.values() if t.side != first.side), first.side
    )


def _overlay_seconds(session: Session, jobs: _Timed | None = None) -> tuple[float, dict, list]:
    side = _overlay_side(session)
    jobs = jobs or _Timed()
    jobs.passes = []
    jobs.t0 = t0 = time.perf_counter()
    jobs.start(session.scene, side, session.generation)
    while (st := jobs.status())["state"] == "running":
        time.sleep(0.05)
    return time.perf_counter() - t0, st, jobs.passes


def bench(
    path: Path, label: str, n: int, seed: int, http: bool, target_ms: float, overlay: bool
) -> None:
    print(f"\n== {label}: {path.name}")
    t0 = time.perf_counter()
    session = Session(path)
    t1 = time.perf_counter()
    session.warm()
    t2 = time.perf_counter()
    scene = session.scene
    print(
        f"   {len(scene.troopers)} troopers, {scene.scenery.n_triangles:,} triangles; "
        f"load {t1 - t0:.2f} s, warm (proofs + whole matrix) {t2 - t1:.2f} s"
    )
    moves = _moves(session, n, seed)
    session.move(*moves[0])  # the first move loads what warming did not touch
    times, alone, refused = [], [], 0
    for tid, pos in moves:
        t0 = time.perf_counter()
        try:
            session.move(tid, pos)
        except BadRequest:
            refused += 1
            continue
        times.append(time.perf_counter() - t0)
        alone.append(_pairs_alone(session, tid))  # baseline on the same scene
    matrix = _matrix_alone(session)
    rate = _raw_rate(session)
    print(f"   move (in process):       {_stats(times)}   target {target_ms:.0f} ms")
    if times:
        med, p95 = np.median(times), np.percentile(times, 95)
        print(
            f"     in raw Embree segments ({rate / 1e6:.2f} M/s here, now): median "
            f"{med * rate / 1e3:,.0f}k, p95 {p95 * rate / 1e3:,.0f}k"
        )
    print(f"     refused (in scenery):  {refused}")
    print(f"   baseline: its pairs, no cache: {_stats(alone)}")
    print(f"   baseline: whole matrix from scratch: {matrix * 1000:.0f} ms")
    if http:
        ht, hr = _http_moves(session, moves)
        print(f"   move (HTTP, urllib):     {_stats(ht)}   refused {hr}")
    if not overlay:
        return
    jobs = _Timed()
    secs, st, passes = _overlay_seconds(session, jobs)
    cells = len(st.get("cells", []))
    print(
        f"   exposure overlay ({OVERLAY_SPACING_MM:g} mm, seen by {st.get('side')}): "
        f"{secs:.2f} s, {cells} spots, {st.get('total')} pairs searched, state {st['state']}"
    )
    shown = set()
    for n, (t, spots, mm) in enumerate(passes):  # the first picture of each grid, the map
        if mm not in shown or n == len(passes) - 1:
            shown.add(mm)
            what = "the finished map" if n == len(passes) - 1 else f"finest {mm:g} mm"
            print(f"     {spots:6d} spots drawn ({what}) after {t:6.2f} s")
    if passes:
        print(
            f"     in raw Embree segments: {secs * rate / 1e6:,.1f} M "
            f"(first picture {passes[0][0] * rate / 1e6:,.1f} M)"
        )
    # geom3d serve stands the overlay's cells in a thread once warm (ExposureJobs.prepare)
    ahead = _Timed()
    stood = ahead.prepare(scene)
    secs2, st2, passes2 = _overlay_seconds(session, ahead)
    first = f", first picture after {passes2[0][0]:.2f} s" if passes2 else ""
    print(
        f"   the same overlay as geom3d serve runs it, its cells stood at the start "
        f"({stood:.2f} s, in the background once warm): {secs2:.2f} s{first}, "
        f"state {st2['state']}"
    )
    _overlay_after_moves(session, rate, jobs)
    _overlay_ahead(session, rate, moves, times)


def _wait_ahead(ahead: ExposureAhead, generation: int) -> float:
    """Seconds until ``ahead`` has every side's answers for move ``generation``."""
    t0 = time.perf_counter()
    while (st := ahead.status())["state"] != "done" or st.get("generation") != generation:
        if st["state"] == "error":
            raise SystemExit(f"the search ahead stopped: {st.get('error')}")
        time.sleep(0.05)
    return time.perf_counter() - t0


def _overlay_ahead(session: Session, rate: float, moves, quiet_moves: list[float]) -> None:
    """``geom3d serve``'s search ahead (:mod:`geom3d.serve.ahead`), on new jobs (nothing
    kept): how long it takes to find every side's overlay with the session idle; the
    overlay asked for then; moves made while it searches (each after a quiet spell, so
    that it is searching the pairs the move before changed), beside the same moves with
    nothing searched ahead (``quiet_moves``, above); and the overlay again once it caught
    up after the last of them."""
    jobs = _Timed()
    jobs.prepare(session.scene)
    ahead = ExposureAhead(jobs, session)
    session.last_request = time.monotonic() - ahead.idle_s  # (quiet since long ago)
    ahead.start()
    fill = _wait_ahead(ahead, session.generation)
    sides = ahead.status()["sides"]
    print(
        f"   search ahead ({ahead.threads} thread(s), nice {AHEAD_NICE}), the session "
        f"idle: every side's overlay in {fill:.1f} s ("
        + ", ".join(f"{s}: {v['total']} pairs" for s, v in sides.items())
        + ")"
    )
    secs, st, _ = _overlay_seconds(session, jobs)
    print(
        f"   overlay once searched ahead: {secs:.2f} s, {st.get('reused')} of "
        f"{st.get('total')} answers kept ({secs * rate / 1e6:,.1f} M raw Embree segments)"
    )
    times = []
    for tid, pos in moves[:AHEAD_MOVES]:
        time.sleep(ahead.idle_s + 0.3)  # the search ahead started again meanwhile
        busy = ahead.status()["state"] == "searching"
        t1 = time.perf_counter()
        try:
            session.move(tid, pos)
        except BadRequest:
            continue
        if busy:
            times.append(time.perf_counter() - t1)
    print(
        f"   move while it searches: {_stats(times)} "
        f"(the same table with nothing searched ahead: {_stats(quiet_moves)})"
    )
    refill = _wait_ahead(ahead, session.generation)
    secs, st, _ = _overlay_seconds(session, jobs)
    ahead.stop()
    print(
        f"   after the last move it caught up in {refill:.1f} s; overlay then: {secs:.2f} s, "
        f"{st.get('reused')} of {st.get('total')} answers kept"
    )


def _overlay_after_moves(session: Session, rate: float, jobs: _Timed) -> None:
    """The overlay again after a trooper is dragged 40 mm (one not on the observing side,
    then one on it): the answers it cannot change are kept from the overlay before (by
    ``jobs``, which made it)."""
    side = _overlay_side(session)
    for observer in (False, True):
        tid = next(
            (t.id for t in session.scene.troopers.values() if (t.side == side) == observer), None
        )
        if tid is None:
            continue
        x, y = session.scene.troopers[tid].position[:2]
        for dx, dy in ((40, 0), (-40, 0), (0, 40), (0, -40)):
            try:
                session.move(tid, [x + dx, y + dy])
                break
            except BadRequest:
                continue
        else:
            continue
        secs, st, _ = _overlay_seconds(session, jobs)
        what = "an observer" if observer else "another trooper"
        print(
            f"   overlay after moving {what} ({tid}) 40 mm: {secs:.2f} s, "
            f"{st.get('reused')} of {st.get('total')} answers kept "
            f"({secs * rate / 1e6:,.1f} M raw Embree segments)"
        )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--moves", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--triangles", type=int, default=1_000_000)
    ap.add_argument("--troopers", type=int, default=40)
    ap.add_argument("--no-big", action="store_true", help="only the demo table")
    ap.add_argument("--no-http", action="store_true", help="skip the moves through HTTP")
    ap.add_argument("--no-overlay", action="store_true", help="skip the demo's overlay")
    ap.add_argument(
        "--big-overlay",
        action="store_true",
        help="also time the overlay on the big table (a side of 20 observers: minutes)",
    )
    args = ap.parse_args(argv)
    prepare_kernels(quiet=True)
    bench(DEMO, "demo table", args.moves, args.seed, not args.no_http, 100.0, not args.no_overlay)
    if not args.no_big:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            t0 = time.perf_counter()
            mesh = terrain.synthetic_scanned_table(args.triangles, seed=0)
            table = folder / f"table_{args.triangles}.stl"
            mesh.export(table)
            data = scenario_data(table, args.troopers)
            data["table"]["mesh"] = table.name
            path = folder / "bench_serve.yaml"
            path.write_text(yaml.safe_dump(data, sort_keys=False))
            print(f"\n(table written in {time.perf_counter() - t0:.1f} s)")
            label = f"{args.troopers} troopers, {args.triangles:,}-triangle scanned table"
            bench(path, label, args.moves, args.seed, not args.no_http, 300.0, args.big_overlay)
    return 0


if __name__ == "__main__":
    sys.exit(main())
