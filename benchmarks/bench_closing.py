"""Closing open meshes into solids (SPEC 12.1): time and memory, cold and cached.

For the Angel (scale 0.5) and bird-bath (scale 0.6) scans as pieces (``solid: auto``:
:func:`geom3d.mesh.winding.close_winding`, the winding-number solid, next to the old
curtains of :func:`geom3d.mesh.closing.close_downward` for comparison), and the St Helens
DEM (1:6000) and a synthetic 1M-triangle scanned table as tables
(:func:`geom3d.mesh.closing.close_table`), prints:

* ``cold``: closing computed (the median of ``--repeats`` runs) and its peak Python-heap
  memory (``tracemalloc``: numpy's arrays included);
* ``disk``: the same closing read back from the on-disk cache
  (:func:`geom3d.mesh.closing_cache.cached_closing`, a fresh in-process cache);
* ``memory``: the in-process cache hit;
* what was added (curtain / cap triangles, caps and their largest size and height);
* next to them, in the same process, raw Embree's BVH build for the same mesh
  (:mod:`_raw`), the floor any per-load work is measured against.

Real scans are read from ``../shared/real-meshes`` and skipped when absent.

Usage::

    python benchmarks/bench_closing.py [--table-triangles 1000000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _raw import embreex_scene  # noqa: E402

from geom3d.mesh import clear_memory_cache, load_mesh  # noqa: E402
from geom3d.mesh.closing import close_downward, close_table  # noqa: E402
from geom3d.mesh.closing_cache import cached_closing, closing_key  # noqa: E402
from geom3d.mesh.winding import close_winding  # noqa: E402

REAL = ROOT.parent / "shared" / "real-meshes"


def _timed(fn, repeats):
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def _peak_mib(fn) -> float:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def _raw_bvh_seconds(v, f) -> float:
    t0 = time.perf_counter()
    embreex_scene(v, f, 0.5 * (v.min(0) + v.max(0)))
    return time.perf_counter() - t0


def case(name, v, f, kind, compute, repeats, cache_dir):
    cold, (_, _, rep) = _timed(compute, repeats)
    peak = _peak_mib(compute)
    key = closing_key(kind, v, f, "bench")
    clear_memory_cache()
    cached_closing(key, compute, cache_dir)  # writes the disk entry
    disk = []
    for _ in range(repeats):
        clear_memory_cache()
        t0 = time.perf_counter()
        _, _, _, hit = cached_closing(key, compute, cache_dir)
        disk.append(time.perf_counter() - t0)
        assert hit
    t0 = time.perf_counter()
    _, _, _, hit = cached_closing(key, compute, cache_dir)
    mem = time.perf_counter() - t0
    assert hit
    raw = _raw_bvh_seconds(v, f)
    added = f"+{rep.curtain_triangles:,} curtain / +{rep.cap_triangles:,} cap triangles"
    if rep.method == "caps":
        added += (
            f"; {rep.base_loops} base loops, {rep.caps} caps ({rep.caps_rejected} left open), "
            f"largest {rep.largest_cap_mm:.1f} mm across, {rep.largest_cap_height_mm:.1f} mm up"
        )
    print(
        f"{name:<34} {len(f):>9,} tris  cold {cold * 1e3:8.1f} ms  peak {peak:7.1f} MiB  "
        f"disk {statistics.median(disk) * 1e3:7.1f} ms  memory {mem * 1e6:6.1f} us  "
        f"| raw Embree BVH {raw * 1e3:7.1f} ms (cold / raw {cold / raw:5.2f})"
    )
    print(f"{'':<34} {added}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--table-triangles", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-closing-") as cache_dir:
        for name, file, scale in (
            ("Angel x0.5 (piece)", "Angel_decimated.ply", 0.5),
            ("bird bath x0.6 (piece)", "birdBath_decimated.off", 0.6),
        ):
            if not (REAL / file).is_file():
                print(f"{name}: skipped ({REAL / file} absent)")
                continue
            lm = load_mesh(REAL / file, units="mm")
            v = np.asarray(lm.vertices, np.float64) * scale
            v[:, 2] -= v[:, 2].min()
            f = np.asarray(lm.faces, np.int64)
            case(name + " winding", v, f, "caps", lambda v=v, f=f: close_winding(v, f, 0.0),
                 args.repeats, cache_dir)  # fmt: skip
            case(name + " old curtains", v, f, "curtains",
                 lambda v=v, f=f: close_downward(v, f, 0.0), args.repeats, cache_dir)  # fmt: skip
        dem = REAL / "SainteHelens_dem_crop.ply"
        if dem.is_file():
            lm = load_mesh(dem, units="m")
            v = np.asarray(lm.vertices, np.float64) / 6000.0
            v[:, 2] -= 160.0
            f = np.asarray(lm.faces, np.int64)
            table = lambda v=v, f=f: close_table(v, f, below_z=0.0)  # noqa: E731
            piece = lambda v=v, f=f: close_winding(v, f, 0.0)  # noqa: E731
            case("St Helens DEM 1:6000 (table)", v, f, "table", table, args.repeats, cache_dir)
            case("St Helens DEM 1:6000 (as a piece)", v, f, "caps", piece, args.repeats, cache_dir)
        else:
            print(f"DEM: skipped ({dem} absent)")
        from geom3d.terrain import synthetic_scanned_table

        m = synthetic_scanned_table(args.table_triangles, seed=0)
        v, f = np.asarray(m.vertices, np.float64), np.asarray(m.faces, np.int64)
        case(f"synthetic table {len(f):,} (table)", v, f, "table",
             lambda: close_table(v, f, below_z=0.0), args.repeats, cache_dir)  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
