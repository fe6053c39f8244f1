"""Segment-occlusion throughput of RayEngine on a synthetic scanned table.

Prints the load time of the table mesh (cold parse and warm cache), the BVH build time,
and segments per second through ``RayEngine.occluded`` next to raw embreex on the same
prepared segments, in one process.

Usage::

    python benchmarks/bench_raycast.py [--triangles 1000000] [--segments 2000000]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _raw import embreex_scene, raw_occluded, raw_seconds

from geom3d import terrain
from geom3d.mesh import clear_memory_cache, load_mesh
from geom3d.raycast import RayEngine


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--triangles", type=int, default=1_000_000)
    ap.add_argument("--segments", type=int, default=2_000_000)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["GEOM3D_CACHE_DIR"] = str(Path(tmp) / "cache")
        path = Path(tmp) / "table.stl"
        terrain.synthetic_scanned_table(args.triangles, seed=0).export(path)
        size_mb = path.stat().st_size / 1e6
        t0 = time.perf_counter()
        lm = load_mesh(path)
        cold = time.perf_counter() - t0
        clear_memory_cache()
        t0 = time.perf_counter()
        lm = load_mesh(path)
        warm = time.perf_counter() - t0
        t0 = time.perf_counter()
        eng = RayEngine(lm.vertices, lm.faces)
        build = time.perf_counter() - t0
        rng = np.random.default_rng(0)
        n = args.segments
        # troopers' eye-to-target segments: 1 to 60 mm above the table, up to 1.2 m long
        o = rng.uniform([0, 0, 1], [1200, 1200, 60], (n, 3))
        e = rng.uniform([0, 0, 1], [1200, 1200, 60], (n, 3))
        eng.occluded(o[:10], e[:10])  # first query commits the BVH
        t0 = time.perf_counter()
        blocked = eng.occluded(o, e)
        t_engine = time.perf_counter() - t0
        emb = embreex_scene(lm.vertices, lm.faces, eng._offset)
        t_raw = raw_seconds(emb, eng._offset, o, e)
        agree = float(np.mean(blocked == raw_occluded(emb, eng._offset, o, e)))
        print(f"table: {lm.report.n_triangles:,} triangles, binary STL {size_mb:.0f} MB")
        print(f"load, cold (parse + topology report + cache write): {cold:.2f} s")
        print(f"load, warm (.npz cache): {warm:.2f} s")
        print(f"BVH build (Embree, incl. float32 copy): {build:.2f} s")
        print(
            f"RayEngine.occluded: {n:,} segments in {t_engine:.3f} s = "
            f"{n / t_engine / 1e6:.2f} M/s "
            f"({blocked.mean():.0%} blocked)"
        )
        print(f"raw embreex on prepared arrays: {t_raw:.3f} s = {n / t_raw / 1e6:.2f} M/s")
        print(f"engine / raw: {t_engine / t_raw:.2f}   (answers agree on {agree:.4%} of segments)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
