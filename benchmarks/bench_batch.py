"""Benchmark ``geom3d check``: many scenarios on one shared scanned-looking table.

Generates a table mesh of about ``--triangles`` triangles
(:func:`geom3d.terrain.synthetic_scanned_table`) as
a binary STL in a temporary folder, and ``--scenarios`` scenario files that all use it,
each with ``--troopers`` troopers on open ground (dropped onto the table) and an
expectation for every ordered pair. The expectations are the front-arc answers, worked
out here from the positions alone, so they must all hold; the engine still does the
whole Line of Fire computation (visibility included) for every pair.

The batch is then run three ways, each with fresh caches (a new disk mesh cache folder,
new worker processes): in-process (``--workers 1``), a 2-process pool (``--workers 2``)
and a 2-worker Dask ``LocalCluster`` (one thread per worker). For each it prints the wall
time, the number of BVH builds (records with ``cache_hit`` false: at most one per worker
process) and the time the records spent loading (mesh + BVH) and computing (sum of
per-record timings, so it can exceed the wall time with 2 workers).

``--policy`` runs the execution layer's figures instead (issue 44,
``benchmarks/batch_policy.py``): 200 small files and 20 heavy ones with ``--workers 1``,
``2`` and ``auto`` as separate ``geom3d check`` processes (wall time, peak memory of the
process tree), and the time from SIGTERM to the exit at 50 random moments.

Usage::

    python benchmarks/bench_batch.py --policy                # issue 44's figures

    python benchmarks/bench_batch.py                       # 100 scenarios, 1 M triangles
    python benchmarks/bench_batch.py --scenarios 20 --triangles 50000
    python benchmarks/bench_batch.py --no-dask --keep /tmp/bench-batch
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from geom3d.terrain import synthetic_scanned_table, synthetic_trooper_spots

TABLE = (1200.0, 1200.0)
SIL_RADIUS = {1: 12.5, 2: 12.5, 3: 20.0, 5: 20.0}


def make_table(path: Path, n_triangles: int) -> int:
    """Write the shared table STL; returns its triangle count."""
    mesh = synthetic_scanned_table(max(10_000, n_triangles))
    mesh.export(path, file_type="stl")
    return len(mesh.faces)


def trooper_spots(k: int, seed: int) -> np.ndarray:
    return synthetic_trooper_spots(k, seed=seed)


def in_arc(pa, facing_deg, pb, radius_b) -> bool:
    """SPEC 3.3, from the positions: b's base reaches in front of a's arc line."""
    f = np.array([math.cos(math.radians(facing_deg)), math.sin(math.radians(facing_deg))])
    return float((np.asarray(pb) - np.asarray(pa)) @ f) + radius_b > 1e-6


def make_scenarios(folder: Path, table: str, n: int, k: int, seed: int) -> list[Path]:
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        spots = trooper_spots(k, seed=seed * 100_003 + i)
        troopers = []
        for j, (x, y) in enumerate(spots):
            sil = int(rng.choice(list(SIL_RADIUS)))
            troopers.append(
                {
                    "id": f"t{j}",
                    "side": "blue" if j % 2 == 0 else "red",
                    "position": [round(float(x), 2), round(float(y), 2)],
                    "facing_deg": round(float(rng.uniform(0, 360)), 1),
                    "silhouette": sil,
                }
            )
        expect = []
        for a in troopers:
            for b in troopers:
                if a is b:
                    continue
                arc = in_arc(
                    a["position"], a["facing_deg"], b["position"], SIL_RADIUS[b["silhouette"]]
                )
                expect.append({"from": a["id"], "to": b["id"], "in_arc": arc})
        doc = {
            "format": "geom3d/1",
            "units": "mm",
            "ruleset": "infinity",
            "table": {"size": list(TABLE), "mesh": table, "mesh_units": "mm"},
            "troopers": troopers,
            "expect": {"lof": expect},
        }
        p = folder / f"s{i:04d}.yaml"
        p.write_text(yaml.safe_dump(doc, sort_keys=False))
        out.append(p)
    return out


def _fresh_caches(root: Path, label: str) -> None:
    from geom3d import mesh as meshio
    from geom3d.scene.scene import clear_scene_cache

    os.environ["GEOM3D_CACHE_DIR"] = str(root / f"cache-{label}")
    meshio.clear_memory_cache()
    clear_scene_cache()


def run_mode(label: str, files, root: Path, **kw) -> dict:
    from geom3d.check import run_batch

    _fresh_caches(root, label)
    t0 = time.perf_counter()
    res = run_batch(files, **kw)
    wall = time.perf_counter() - t0
    recs = res.records
    c = res.counts()
    return {
        "mode": label,
        "wall": wall,
        "builds": sum(1 for r in recs if not r["timing"]["cache_hit"] and r["status"] != "error"),
        "workers": len({r["timing"]["worker"] for r in recs}),
        "load": sum(r["timing"]["load_seconds"] for r in recs),
        "compute": sum(r["timing"]["compute_seconds"] for r in recs),
        "parse": sum(r["timing"]["parse_seconds"] for r in recs),
        "build": sum(r["timing"]["build_seconds"] for r in recs),
        "status": f"{c['pass']}/{c['fail']}/{c['error']}",
        "checks": sum(r["checks"] for r in recs),
        "problems": [
            (r["path"], r["error"] or r["mismatches"][:1]) for r in recs if r["status"] != "pass"
        ][:3],
    }


def run_dask(files, root: Path) -> dict:
    from distributed import LocalCluster

    _fresh_caches(root, "dask")  # before the cluster starts: workers inherit the env
    t0 = time.perf_counter()
    with LocalCluster(
        n_workers=2, processes=True, threads_per_worker=1, dashboard_address=":0"
    ) as cluster:
        startup = time.perf_counter() - t0
        row = run_mode("dask 2 workers", files, root, scheduler=cluster.scheduler_address)
    row["mode"] += f" (+{startup:.1f} s cluster start)"
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scenarios", type=int, default=100)
    ap.add_argument("--triangles", type=int, default=1_000_000)
    ap.add_argument("--troopers", type=int, default=4, help="per scenario")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-dask", action="store_true")
    ap.add_argument("--keep", help="write the table and scenarios here and keep them")
    ap.add_argument("--policy", action="store_true", help="the execution layer's figures")
    ap.add_argument("--moments", type=int, default=50, help="--policy: SIGTERM moments")
    args = ap.parse_args(argv)

    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-batch-"))
    root.mkdir(parents=True, exist_ok=True)
    try:
        if args.policy:
            from batch_policy import make_small, report

            make_table(root / "table.stl", args.triangles)
            (root / "heavy").mkdir(exist_ok=True)
            os.replace(root / "table.stl", root / "heavy" / "table.stl")
            make_scenarios(root / "heavy", "table.stl", 20, 8, args.seed)
            make_small(root / "small", 200)
            report(root / "small", root / "heavy", args.moments, args.seed)
            return 0
        t0 = time.perf_counter()
        n_tri = make_table(root / "table.stl", args.triangles)
        stl_mb = (root / "table.stl").stat().st_size / 1e6
        files = make_scenarios(root, "table.stl", args.scenarios, args.troopers, args.seed)
        print(
            f"{len(files)} scenarios x {args.troopers} troopers "
            f"({args.troopers * (args.troopers - 1)} LoF checks each) on one table of "
            f"{n_tri:,} triangles ({stl_mb:.0f} MB STL); generated in "
            f"{time.perf_counter() - t0:.1f} s in {root}",
            flush=True,
        )
        rows = [run_mode("1 worker (in-process)", files, root, workers=1)]
        print(f"  done: {rows[-1]['mode']}", flush=True)
        rows.append(run_mode("2 worker processes", files, root, workers=2))
        print(f"  done: {rows[-1]['mode']}", flush=True)
        if not args.no_dask:
            try:
                rows.append(run_dask(files, root))
                print(f"  done: {rows[-1]['mode']}", flush=True)
            except ImportError:
                print("  dask skipped: distributed is not installed", flush=True)
        head = (
            "mode",
            "wall s",
            "BVH builds",
            "procs",
            "parse s",
            "load s",
            "scene s",
            "compute s",
            "pass/fail/err",
        )
        table = [head] + [
            (
                r["mode"],
                f"{r['wall']:.2f}",
                str(r["builds"]),
                str(r["workers"]),
                f"{r['parse']:.2f}",
                f"{r['load']:.2f}",
                f"{r['build']:.2f}",
                f"{r['compute']:.2f}",
                r["status"],
            )
            for r in rows
        ]
        widths = [max(len(row[i]) for row in table) for i in range(len(head))]
        for j, row in enumerate(table):
            print(
                "  ".join(
                    c.ljust(w) if i == 0 else c.rjust(w)
                    for i, (c, w) in enumerate(zip(row, widths, strict=True))
                )
            )
            if j == 0:
                print("  ".join("-" * w for w in widths))
        print(
            "parse = reading the scenario files, load = mesh parse + BVH build, scene = the "
            "whole scene build (load, cache lookup, dropping troopers), compute = Line of "
            "Fire; all summed over the records (worker seconds: can exceed the wall time)."
        )
        bad = [r for r in rows if r["problems"]]
        for r in bad:
            print(f"problems in {r['mode']}: {r['problems']}", file=sys.stderr)
        return 1 if bad else 0
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
