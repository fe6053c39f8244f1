"""Exposure-map benchmark (``geom3d exposure``): spots x observers Line of Fire.

On the synthetic 1M-triangle scanned table of ``bench_lof.py`` (1200 x 1200 mm) with the
benchmark scenario's first 5 troopers as observers (their facings and silhouettes from
``_lof_figures.scenario_data``), or with ``--table waving`` on ``bench_lof.py``'s second
table (``_waving.py``: a waving heightfield with 30 raised blocks, its scenario's first 5
troopers as observers), or ``--table scan-fused`` on the third (``_scanfused.py``: blocks
fused into one rough height field, troopers anywhere), prints, in one process:

* per spacing (default 10 mm; ``--spacings 20,10,5`` for the scaling): the standable
  spots, spot x observer pairs, the share decided without rays (arcs, engagement), the
  whole run's time (in-process, or ``--workers N``), pairs per second, the segments cast
  and proved per pair, the lattice samples settled inside a convex piece's outline and
  the pairs one piece settles whole;
* the raw Embree rate in the same process (occlusion queries between observers and
  spots, on prepared float32 arrays), measured just before and just after each run, and
  the issue's target: the time raw Embree needs for 2,000 segments per pair, plus 30 s,
  with the run / target ratio (at the mean of the two rates), and the run's CPU time
  against the target at the faster of the two rates (a machine shared with other work
  stretches wall times by a factor that changes from minute to minute);
* with ``--check-workers``, that a 2-process run gives the same document (timing aside).

Usage::

    python benchmarks/bench_exposure.py                      # 1M triangles, 10 mm
    python benchmarks/bench_exposure.py --spacings 20,10,5
    python benchmarks/bench_exposure.py --triangles 200000 --spacings 40
    python benchmarks/bench_exposure.py --table waving       # the second table
    python benchmarks/bench_exposure.py --table scan-fused --spacings 10,5   # the third
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_lof
from _raw import scene_raw_seconds
from bench_lof import write_table

from geom3d.api import build_scene
from geom3d.core.output import dumps_json
from geom3d.exposure import run_exposure
from geom3d.scenario import parse_scenario

SEGMENTS_PER_PAIR_TARGET = 2000
TARGET_SLACK_S = 30.0
N_OBSERVERS = 5


def exposure_scene(table: Path):
    data = bench_lof.scenario_fn()(table, N_OBSERVERS, seed=0)
    return build_scene(parse_scenario(data, file="bench_exposure.yaml", base_dir=table.parent))


def raw_embree_rate(scene, observers, cells: np.ndarray, n: int = 1_000_000, seed=1):
    """Occlusion queries per second straight through embreex: segments from points of
    the observers' cylinders to points of probes on the spots. Returns the rate by wall
    time and by this process's CPU time."""
    rng = np.random.default_rng(seed)
    obs = np.array([t.position for t in observers])
    i = rng.integers(0, len(obs), n)
    j = rng.integers(0, len(cells), n)
    o = obs[i] + rng.uniform([-12, -12, 1], [12, 12, 39], (n, 3))
    e = cells[j] + rng.uniform([-12, -12, 1], [12, 12, 39], (n, 3))
    return n / scene_raw_seconds(scene, o, e)


def _strip(doc: dict) -> str:
    return dumps_json({k: v for k, v in doc.items() if k != "timing"})


def run_one(scene, spacing: float, workers: int, check_workers: bool) -> dict:
    ids = ",".join(list(scene.troopers)[:N_OBSERVERS])
    observers = [scene.troopers[i] for i in ids.split(",")]
    from geom3d.exposure import standing_cells
    from geom3d.exposure.cells import probe_for

    cells = standing_cells(scene, probe_for(scene, 2), spacing).positions
    before = raw_embree_rate(scene, observers, cells, seed=1)
    t0, c0 = time.perf_counter(), time.process_time()
    res = run_exposure(scene, observers=ids, spacing_mm=spacing, workers=workers)
    run_s, run_cpu = time.perf_counter() - t0, time.process_time() - c0
    after = raw_embree_rate(scene, observers, cells, seed=2)
    doc, c = res.document, res.counters
    rate, best = 0.5 * (before + after), max(before, after)
    pairs = doc["counts"]["pairs"]
    ray_pairs = pairs - doc["counts"]["pairs_decided_without_rays"]
    target = pairs * SEGMENTS_PER_PAIR_TARGET / rate + TARGET_SLACK_S
    target_best = pairs * SEGMENTS_PER_PAIR_TARGET / best + TARGET_SLACK_S
    t = doc["timing"]
    print(
        f"  {spacing:g} mm: {doc['counts']['cells']:,} spots, {pairs:,} pairs "
        f"({1 - ray_pairs / max(1, pairs):.1%} decided without rays), safe "
        f"{doc['safe_share']:.1%}\n"
        f"    run {run_s:.1f} s, CPU {run_cpu:.1f} s (grid {t['grid_s']:.1f}, screen "
        f"{t['screen_s']:.1f}, rays {t['rays_s']:.1f}; {t['executor']}, {t['workers']} "
        f"worker(s)), {pairs / run_s:,.0f} pairs/s\n"
        f"    segments per pair with rays: {c['cast'] / max(1, ray_pairs):,.0f} cast, "
        f"{c['proved'] / max(1, ray_pairs):,.0f} proved, "
        f"{c['outlined'] / max(1, ray_pairs):,.0f} inside a convex piece's outline; "
        f"{c['pairs_convex']:,} pairs settled by one piece\n"
        f"    raw Embree {before / 1e6:.2f} M segments/s before the run, "
        f"{after / 1e6:.2f} after\n"
        f"    target {pairs:,} x {SEGMENTS_PER_PAIR_TARGET} / rate + {TARGET_SLACK_S:g} s = "
        f"{target:.1f} s at the mean rate: run / target = {run_s / target:.2f}; the run's "
        f"CPU time against the target at the faster rate: {run_cpu:.1f} / "
        f"{target_best:.1f} s = {run_cpu / target_best:.2f}\n"
        f"    document md5 (timing left out): {hashlib.md5(_strip(doc).encode()).hexdigest()}"
    )
    if check_workers:
        two = run_exposure(scene, observers=ids, spacing_mm=spacing, workers=2).document
        print(f"    2 processes: same document: {_strip(two) == _strip(doc)}")
    return {"spacing": spacing, "run_s": run_s, "target_s": target, "pairs": pairs}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--triangles", type=int, default=1_000_000)
    ap.add_argument(
        "--table",
        choices=bench_lof.TABLES,
        default="scan",
        help="bench_lof.py's tables: " + bench_lof.TABLE_HELP,
    )
    ap.add_argument("--spacings", default="10", help="comma-separated, mm (default 10)")
    ap.add_argument("--workers", type=int, default=1, help="default 1: in-process")
    ap.add_argument("--check-workers", action="store_true")
    args = ap.parse_args(argv)
    bench_lof.TABLE["kind"] = args.table
    with tempfile.TemporaryDirectory() as tmp:
        table = write_table(args.triangles, Path(tmp))
        t0 = time.perf_counter()
        scene = exposure_scene(table)
        scene.prover  # noqa: B018 - the proofs' map, built once (cached on disk)
        print(
            f"table ({args.table}): {scene.scenery.n_triangles:,} triangles, scene and proofs in "
            f"{time.perf_counter() - t0:.1f} s; observers: "
            + ", ".join(
                f"{t.id} (S{t.silhouette}, facing {t.facing_deg:g})"
                for t in list(scene.troopers.values())[:N_OBSERVERS]
            )
        )
        rows = [
            run_one(scene, float(s), args.workers, args.check_workers)
            for s in args.spacings.split(",")
        ]
    if len(rows) > 1:
        print("  scaling: " + ", ".join(f"{r['spacing']:g} mm {r['run_s']:.1f} s" for r in rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
