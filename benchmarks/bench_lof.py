"""Line of Fire benchmark: all-pairs matrix on a synthetic scanned table.

Prints, in one run and one process (so a noisy machine still gives fair ratios):

* mesh load (cold parse and warm cache) and BVH build time;
* the all-pairs LoF matrix time (one thread; the default threads; as many forked
  processes, as ``geom3d lof`` runs it), the segments the engine cast, and the time raw Embree
  takes for the same number of segment queries (the floor for this method), with the
  engine / raw ratio;
* the naive method (every eye point x every fine sample, no pruning, no early exit) on a
  subset of pairs, extrapolated to the whole matrix, and the speed-up over it;
* the matrix pair by pair (one thread): for blocked and for visible pairs, the segments
  cast, the segments settled by blocking proofs, the eyes skipped and the time per pair;
  the pairs settled by proof alone, the bundle and segment hit rates of the proofs; where
  the time went (inside the compiled search, inside the bundle proofs, and the Python and
  small kernels between them) for all pairs and for each kind of pair; with
  ``--proofs both`` (default) the same without proofs, and whether the answers are
  identical (exit status 1 when they are not);
* optionally (``--cli-diff``) the whole ``geom3d lof`` run on ``--troopers`` troopers minus
  the run on 2, per unordered pair, against the time raw Embree needs for 5,000 segments
  (the default JSON, which leaves the visible areas out, as issue 11 asks of matrices;
  ``--cli-areas`` times ``geom3d lof --areas`` as well; ``--cli-repeats N`` rounds, best
  of N and each round's own ratio);
* optionally (``--scaling``) how the matrix time grows with triangles and troopers, and
  (``--scaling-troopers 10,20,40,80``) the pair time and proof share per trooper count.

Usage::

    python benchmarks/bench_lof.py                 # 1M triangles, 40 troopers
    python benchmarks/bench_lof.py --triangles 50000 --troopers 10 --naive-pairs 2
    python benchmarks/bench_lof.py --cli-diff --scaling-troopers 10,20,40,80
    python benchmarks/bench_lof.py --cli-diff --cli-repeats 12   # a machine whose speed drifts
    python benchmarks/bench_lof.py --proofs off    # per-pair figures without proofs only
    python benchmarks/bench_lof.py --scaling       # 50k / 1M / 5M and 10 / 20 / 40
    python benchmarks/bench_lof.py --table waving --cli-diff   # the second table (_waving.py)
    python benchmarks/bench_lof.py --table scan-fused --cli-diff   # the third (_scanfused.py)
"""

from __future__ import annotations

import argparse
import copy
import functools
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import _lof_figures as fig
from _raw import scene_raw_seconds
from _scanfused import fused_scenario, write_fused_table
from _waving import waving_scenario, write_waving_table

from geom3d import terrain
from geom3d.api import build_scene
from geom3d.core.tolerances import SAMPLE_MM
from geom3d.mesh import clear_memory_cache
from geom3d.scenario import parse_scenario
from geom3d.scene.scene import Scene, clear_scene_cache
from geom3d.visibility import (
    ApparentView,
    ClearToTarget,
    VisibilityStats,
    cull_occluders,
    cylinder_array,
    eye_points,
    lattice,
)

#: The table the run uses (``--table``): ``scan``, the synthetic scanned table with the
#: demo's pieces; ``waving``, a gently waving heightfield with 30 raised blocks
#: (``_waving.py``); ``scan-fused``, one rough scanned mesh with 30 blocks fused into it
#: and troopers anywhere (``_scanfused.py``). Set once by :func:`main`.
TABLE = {"kind": "scan"}
TABLES = ("scan", "waving", "scan-fused")
TABLE_HELP = (
    "scan: the synthetic scanned table (default); waving: a gently waving heightfield "
    "with 30 raised blocks 30-120 mm (separate pieces) and troopers of silhouettes 1-6; "
    "scan-fused: one rough height field (1.7 mm grid, noise 0.3 mm) with 30 blocks fused "
    "into it and 40 troopers anywhere (block tops, wall feet, rough ground)"
)


def scenario_fn():
    """The scenario builder of the table in use: ``f(table, n, seed=0, solid=...)``."""
    return {"waving": waving_scenario, "scan-fused": fused_scenario}.get(
        TABLE["kind"], fig.scenario_data
    )


def write_table(n_triangles: int, folder: Path) -> Path:
    if TABLE["kind"] == "waving":
        return write_waving_table(n_triangles, folder)
    if TABLE["kind"] == "scan-fused":
        return write_fused_table(n_triangles, folder)
    mesh = terrain.synthetic_scanned_table(n_triangles, seed=0)
    path = folder / f"table_{n_triangles}.stl"
    mesh.export(path)
    return path


def make_scene(table: Path, n_troopers: int, seed: int = 0, solid: str = "auto") -> Scene:
    data = scenario_fn()(table, n_troopers, seed, solid)
    return build_scene(parse_scenario(data, file="bench.yaml", base_dir=table.parent))


def raw_embree_seconds(scene: Scene, n: int, seed: int = 1) -> float:
    """Time of ``n`` occlusion queries straight through embreex on prepared arrays."""
    rng = np.random.default_rng(seed)
    ts = list(scene.troopers.values())
    i = rng.integers(0, len(ts), n)
    j = (i + rng.integers(1, len(ts), n)) % len(ts)
    pa = np.array([t.cylinder.center for t in ts])
    o = pa[i] + rng.uniform(-10, 10, (n, 3))
    e = pa[j] + rng.uniform(-10, 10, (n, 3))
    return scene_raw_seconds(scene, o, e)


def naive_direction(scene: Scene, a, b, occ) -> int:
    """Every eye point x every fine sample, no pruning, no early exit; returns rays."""
    stats = VisibilityStats()
    cast = ClearToTarget(
        scene.engine, cylinder_array(cull_occluders(a.cylinder, b.cylinder, occ)), stats
    )
    eyes = eye_points(a.cylinder, b.cylinder)
    for k in range(0, len(eyes), 16):
        view = ApparentView(eyes[k : k + 16], b.cylinder)
        s0, s1, t0, t1 = view.extent()
        fa, fb = lattice(s0, s1, SAMPLE_MM), lattice(t0, t1, SAMPLE_MM)
        A, B = np.meshgrid(fa, fb, indexing="ij")
        n_e = len(view.eyes)
        idx = np.repeat(np.arange(n_e), A.size)
        cast(view, idx, np.tile(A.ravel(), n_e) * SAMPLE_MM, np.tile(B.ravel(), n_e) * SAMPLE_MM)
    return stats.rays


def matrix(scene: Scene, threads: int | None = 1, processes: bool = False):
    """Time of the all-pairs matrix from scratch (no cached visibility); with
    ``processes``, shared by forked workers as ``geom3d lof`` does."""
    scene.visibility_cache.clear()
    stats = VisibilityStats()
    t0 = time.perf_counter()
    res = scene.lof_matrix(stats=stats, threads=threads, processes=processes)
    return time.perf_counter() - t0, stats, res


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--triangles", type=int, default=1_000_000)
    ap.add_argument(
        "--table",
        choices=TABLES,
        default="scan",
        help=TABLE_HELP,
    )
    ap.add_argument("--troopers", type=int, default=40)
    ap.add_argument("--naive-pairs", type=int, default=4)
    ap.add_argument("--scaling", action="store_true")
    ap.add_argument(
        "--solid",
        choices=("auto", "closed", "surface"),
        default="auto",
        help="the table's solid mode (auto: closed as the top of a solid; surface: thin, "
        "as before issue 10)",
    )
    ap.add_argument(
        "--proofs",
        choices=("on", "off", "both"),
        default="both",
        help="per-pair figures with blocking proofs, without, or both and compare the "
        "answers (default: both)",
    )
    ap.add_argument(
        "--cli-diff",
        action="store_true",
        help="time `geom3d lof` on --troopers and on 2 troopers: the pair time",
    )
    ap.add_argument(
        "--cli-areas",
        action="store_true",
        help="with --cli-diff: also time `geom3d lof --areas` (every witness's visible area)",
    )
    ap.add_argument(
        "--cli-repeats",
        type=int,
        default=4,
        metavar="N",
        help="with --cli-diff: rounds of the two runs (best of N, and each round's ratio); "
        "more on a machine whose speed drifts (default: 4)",
    )
    ap.add_argument(
        "--scaling-troopers",
        default="",
        metavar="N,N,...",
        help="matrix and pair time, proof share per trooper count (e.g. 10,20,40,80)",
    )
    args = ap.parse_args(argv)
    TABLE["kind"] = args.table

    with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryDirectory() as cache:
        os.environ["GEOM3D_CACHE_DIR"] = cache
        tmp = Path(tmp)
        t0 = time.perf_counter()
        table = write_table(args.triangles, tmp)
        gen_s = time.perf_counter() - t0

        t0 = time.perf_counter()
        scene = make_scene(table, args.troopers, solid=args.solid)
        cold_s = time.perf_counter() - t0
        n_tri = scene.scenery.n_triangles
        ls = scene.load_stats
        clear_memory_cache()
        clear_scene_cache()
        t0 = time.perf_counter()
        scene = make_scene(table, args.troopers, solid=args.solid)
        warm_s = time.perf_counter() - t0

        t0 = time.perf_counter()
        scene.prover  # noqa: B018 - the proof map, built once per scenery like the BVH
        prover_s = time.perf_counter() - t0
        first_s, _, _ = matrix(scene, threads=1)  # untimed: numba compile or cache load
        m_s, stats, res = matrix(scene, threads=1)
        # the matrix's own counts: a witness's area, measured when first read, would cast
        # into the stats its search counted in
        stats = copy.copy(stats)
        mt_s, _, res_t = matrix(scene, threads=None)
        assert [r.to_dict(area=False) for r in res_t] == [r.to_dict(area=False) for r in res]
        mp_s, _, res_p = matrix(scene, threads=None, processes=True)
        assert [r.to_dict(area=False) for r in res_p] == [r.to_dict(area=False) for r in res]
        n_pairs = len(res)
        raw_s = raw_embree_seconds(scene, stats.cast)
        # the target's rate: best of 3 runs of 1M queries (the least disturbed by load)
        raw_rate = 1e6 / min(raw_embree_seconds(scene, 1_000_000) for _ in range(3))
        n_lof = sum(r.lof for r in res)
        n_vis = sum(r.visible for r in res)

        # naive, on a subset of unordered pairs, both directions, extrapolated
        ids = list(scene.troopers)
        unordered = [(x, y) for i, x in enumerate(ids) for y in ids[i + 1 :]]
        rng = np.random.default_rng(3)
        pick = rng.choice(len(unordered), size=min(args.naive_pairs, len(unordered)), replace=False)
        naive_rays = 0
        t0 = time.perf_counter()
        for k in pick:
            x, y = unordered[k]
            a, b = scene.trooper(x), scene.trooper(y)
            occ = [t.cylinder for t in scene.troopers.values() if t.id not in (x, y)]
            naive_rays += naive_direction(scene, a, b, occ) + naive_direction(scene, b, a, occ)
        naive_s = (time.perf_counter() - t0) * len(unordered) / max(1, len(pick))
        naive_rays_total = naive_rays * len(unordered) / max(1, len(pick))

        print(
            f"table: {n_tri:,} triangles (generated in {gen_s:.2f} s, solid: {args.solid}), "
            f"{args.troopers} troopers"
        )
        print(f"mesh load, cold (parse + topology report): {cold_s:.2f} s")
        print(f"  of which mesh {ls.mesh_seconds:.2f} s, BVH build {ls.bvh_seconds:.2f} s")
        print(f"mesh load, warm (.npz cache, fresh process state): {warm_s:.2f} s")
        print(f"blocking-proof map (interior runs) build: {prover_s:.2f} s")
        print(f"first matrix (numba compile or cache load, not counted): {first_s:.2f} s")
        print(
            f"all-pairs LoF matrix: {n_pairs} ordered pairs in {m_s:.3f} s on one thread, "
            f"{mt_s:.3f} s on {min(4, os.cpu_count() or 1)} threads, {mp_s:.3f} s on as many "
            f"forked processes (geom3d lof's way) ({n_lof} LoF, {n_vis} visible, "
            f"{1 - n_vis / max(1, n_pairs):.1%} of pairs blocked)"
        )
        print(
            f"  segments cast by the engine: {stats.cast:,}, settled by proofs or convex "
            f"pieces: {stats.proved:,}, lattice samples inside a piece's outline: "
            f"{stats.outlined:,} ({stats.eyes:,} eye points, {stats.eyes_refined:,} refined, "
            f"{stats.eyes_proved:,} skipped by proofs or pieces; {stats.pairs_convex:,} pairs "
            f"settled by one piece)"
        )
        print(
            f"  raw Embree, same number of segment queries: {raw_s:.3f} s "
            f"({stats.cast / max(raw_s, 1e-12) / 1e6:.2f} M segments/s; "
            f"{raw_rate / 1e6:.2f} M/s best of 3 x 1M)"
        )
        print(f"  engine (one thread) / raw Embree: {m_s / raw_s:.2f}")
        print(
            f"naive (every eye x every fine sample), {len(pick)} pairs extrapolated: "
            f"{naive_s:.1f} s, {naive_rays_total:,.0f} segments"
        )
        print(f"  speed-up over naive: {naive_s / m_s:.1f}x")

        target_s = fig.TARGET_SEGMENTS / raw_rate
        print(
            f"target per pair: raw Embree for {fig.TARGET_SEGMENTS:,} segments = "
            f"{1e3 * target_s:.3f} ms"
        )
        rows = fig.pair_rows(scene, ("on", "off") if args.proofs == "both" else (args.proofs,))
        for mode, part in rows.items():
            fig.print_pair_rows(part, f"pair by pair, proofs {mode}", target_s)
        status = 0
        if len(rows) == 2:
            diff = fig.same_answers(rows["on"], rows["off"])
            print(f"answers identical: {'no' if diff else 'yes'}")
            if diff:
                print(f"  differing pairs: {diff[:10]}{' ...' if len(diff) > 10 else ''}")
                status = 1
            t_on = sum(r.seconds for r in rows["on"])
            t_off = sum(r.seconds for r in rows["off"])
            print(f"  time with proofs / without: {t_on / t_off:.2f}")

        if args.cli_diff:
            print()
            raw = functools.partial(raw_embree_seconds, scene)
            fig.cli_diff(
                table, tmp, args.troopers, 2, args.solid, raw, args.cli_repeats,
                data_fn=scenario_fn(),
            )  # fmt: skip
            if args.cli_areas:
                print()
                fig.cli_diff(
                    table, tmp, args.troopers, 2, args.solid, raw, args.cli_repeats, ("--areas",),
                    data_fn=scenario_fn(),
                )  # fmt: skip

        if args.scaling_troopers:
            counts = [int(k) for k in args.scaling_troopers.split(",") if k.strip()]
            fig.scaling_troopers(make_scene, matrix, table, counts, args.solid, raw_rate)

        if args.scaling:
            print("\nscaling (matrix time after the BVH is built; one thread, then default)")
            for n in (50_000, 1_000_000, 5_000_000):
                tb = write_table(n, tmp)
                sc = make_scene(tb, 20)
                sc.prover  # noqa: B018 - built before timing, like the BVH
                t, st, r = matrix(sc)
                tn, _, _ = matrix(sc, threads=None)
                print(
                    f"  {sc.scenery.n_triangles:>9,} triangles, 20 troopers: {t:6.3f} s "
                    f"(threads: {tn:6.3f} s)  ({st.rays:,} segments, {len(r)} pairs)"
                )
                clear_scene_cache()
                clear_memory_cache()
            for k in (10, 20, 40):
                sc = make_scene(table, k)
                t, st, r = matrix(sc)
                tn, _, _ = matrix(sc, threads=None)
                print(
                    f"  {sc.scenery.n_triangles:>9,} triangles, {k:2d} troopers: {t:6.3f} s "
                    f"(threads: {tn:6.3f} s)  ({st.rays:,} segments, {len(r)} pairs)"
                )
    return status


if __name__ == "__main__":
    raise SystemExit(main())
